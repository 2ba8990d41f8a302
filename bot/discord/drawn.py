"""The words drawn on images (board panels, the analysis chart, a mistake's card) in the
current reader's language, from the catalogue: render/ takes its words as values and knows
no catalogue (engines <- render <- bot)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import fields

from bot.discord.catalogue import reader, template
from render.analysis_chart import ChartWords
from render.analysis_report import CardWords
from render.common import BoardWords

__all__ = ["board_words", "card_words", "chart_words"]


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
