"""The words drawn on images (board panels, the analysis chart, a mistake's card) in the
current reader's language, from the catalogue: render/ takes its words as values and knows
no catalogue (engines <- render <- bot). And an image's alt text in that language: render
describes its pictures in English; another reader's alt text is the embed beside the picture
in plain words (:func:`embed_alt`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import fields

import discord

from bot.discord.catalogue import reader, template
from render.analysis_chart import ChartWords
from render.analysis_report import CardWords
from render.common import BoardWords

__all__ = ["board_words", "card_words", "chart_words", "embed_alt"]

# Discord markdown that means nothing read aloud: bold, italics, code, a zero-width space.
_MARKUP = re.compile(r"[*_`\u200b]|\\(?=[*_`~|>])")
ALT_LIMIT = 1024  # Discord's limit on an attachment's description


def _texts(kind: type, key: Callable[[str], str], locale: str) -> dict[str, str]:
    """Each field of ``kind`` as its message ``key(field)``, unfilled."""
    return {field.name: template(key(field.name), locale) for field in fields(kind)}


@functools.cache
def _board(locale: str) -> BoardWords:
    return BoardWords(**_texts(BoardWords, lambda name: f"render.board.{name}", locale))


@functools.cache
def _chart(locale: str) -> ChartWords:
    return ChartWords(**_texts(ChartWords, lambda name: f"render.chart.{name}", locale))


@functools.cache
def _card(locale: str) -> CardWords:
    return CardWords(**_texts(CardWords, lambda name: f"render.card.{name}", locale))


def board_words() -> BoardWords:
    """The board panels' labels ("Score", "Pips", "CRAWFORD", ...)."""
    return _board(reader.get())


def chart_words() -> ChartWords:
    """The winning-chance chart's title, axis and legend."""
    return _chart(reader.get())


def card_words() -> CardWords:
    """A mistake card's caption ("{player} played {move}", "best {move}")."""
    return _card(reader.get())


def embed_alt(embed: discord.Embed) -> str:
    """``embed``'s words as one plain paragraph: the title, the description, each field as
    "name: value." (the board's state as the embed beside it says it, in its language)."""
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{field.name}: {field.value}" for field in embed.fields]
    sentences = [_MARKUP.sub("", part).replace("\n", " ").strip() for part in parts]
    said = " ".join(s if s.endswith((".", "!", "?", ":")) else f"{s}." for s in sentences if s)
    return said[:ALT_LIMIT]
