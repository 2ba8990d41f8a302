"""Words drawn on images in every language (bot.discord.drawn): each board label, chart word and
card caption of every catalogue is drawn whole (never cut to "…") at a size a phone still reads,
in letters the bundled font has."""

from __future__ import annotations

from dataclasses import astuple, fields

import pytest
from support.render_spy import DrawnTexts

import render.analysis_chart
import render.common
from bot.discord.catalogue import LOCALES, reading, text
from bot.discord.drawn import board_words, card_words, chart_words
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.analysis import Decision, DecisionKind
from engines.cube import Cube
from render import backgammon, checkers, nannon
from render.common import BoardWords, Scene, has_glyph

SMALLEST_LABEL = 12  # render.common's smallest label: 12 px on the 1000 px-wide board


def _scene(words: BoardWords) -> Scene:
    return Scene(("Alice", "Bob"), (2, 4), 7, crawford=True, game_number=3, words=words)


def _backgammon(words: BoardWords) -> None:
    # Seat 0 has borne two checkers off: every backgammon label shows, the cube offered.
    mine = (2, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    theirs = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    position = bg.Position(mine, theirs)
    backgammon.board_png(position, 0, _scene(words), cube=Cube(1, None), cube_offered_by=0)


def _nannon(words: BoardWords) -> None:
    nannon.board_png(nn.Position.initial(), 0, _scene(words), cube=Cube(1, None), cube_offered_by=1)


def _checkers(words: BoardWords, money: bool = False) -> None:
    board = ck.Board.from_fen("W:WK4,K10,28:B1,2,K3")
    scene = _scene(words) if not money else Scene(("Alice", "Bob"), words=words)
    checkers.board_png(board, 0, scene, draw_offered_by=1)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_board_label_is_drawn_whole(locale: str, drawn_texts: DrawnTexts) -> None:
    with reading(locale):
        words = board_words()
    drawn = drawn_texts(render.common)
    _backgammon(words)
    _nannon(words)
    _checkers(words)
    _checkers(words, money=True)
    shown = {label: size for label, size in drawn}
    missing = [label for label in astuple(words) if label not in shown]
    assert missing == []
    small = {label: shown[label] for label in astuple(words) if shown[label] < SMALLEST_LABEL}
    assert small == {}
    assert [ch for label in astuple(words) for ch in label if not has_glyph(ch) and ch != " "] == []


@pytest.mark.parametrize("locale", LOCALES)
def test_the_chart_and_the_cards_words_are_drawn_whole(
    locale: str, drawn_texts: DrawnTexts
) -> None:
    with reading(locale):
        words = chart_words()
        card = card_words()
    drawn = drawn_texts(render.analysis_chart)
    decisions = [
        Decision(game, index, index % 2, DecisionKind.MOVE, "8/5 6/5", "13/10 6/5",
                 0.2 if index == 3 else 0.0, index == 3, None, 0.5)
        for game in (1, 2) for index in range(6)
    ]  # fmt: skip
    render.analysis_chart.win_chance_chart(
        decisions, ("Alice", "Bob"), match_play=True, words=words
    )
    texts = [text_ for text_, _ in drawn]
    assert words.title_match in texts
    assert words.blunder in texts
    assert words.axis in texts
    assert words.game.format(number=2) in texts
    assert not any(t.endswith("…") for t in texts)
    assert {field.name for field in fields(card)} == {"played", "best"}
    assert "{player}" in card.played and "{move}" in card.played and "{move}" in card.best


def test_an_english_reader_gets_the_render_defaults() -> None:
    with reading("en"):
        assert board_words() == BoardWords()
        assert chart_words() == render.analysis_chart.ChartWords()
        assert card_words() == render.analysis_report.CardWords()
    with reading("it"):
        assert board_words().score == text("render.board.score", "it") != "Score"
