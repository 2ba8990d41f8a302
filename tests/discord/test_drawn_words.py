"""Words drawn on images in every language (bot.discord.drawn): each board label, chart word and
card caption of every catalogue is drawn whole (never cut to "…") at a size a phone still reads,
in letters the bundled font has."""

from __future__ import annotations

import re
from dataclasses import astuple, fields
from typing import Any

import pytest
from support.render_spy import DrawnTexts

import render.analysis_chart
import render.common
from bot.discord.catalogue import LOCALES, reading, template, text
from bot.discord.drawn import board_words, card_words, chart_words
from bot.discord.wording import decision_words
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.analysis import Decision, DecisionKind
from engines.cube import Cube
from render import backgammon, checkers, nannon
from render.analysis_chart import ChartWords
from render.analysis_report import CardWords
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
    trays = drawn_texts(nannon)  # the trays' captions (issue 33: they read HOME and SAFETY)
    _backgammon(words)
    _nannon(words)
    _checkers(words)
    _checkers(words, money=True)
    shown = {label: size for label, size in [*drawn, *trays]}
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
        Decision(game, index, index % 2, DecisionKind.CUBE if index == 5 else DecisionKind.MOVE,
                 "8/5 6/5", "13/10 6/5", 0.2 if index == 3 else 0.0, index == 3, None, 0.5)
        for game in (1, 2) for index in range(6)
    ]  # fmt: skip
    render.analysis_chart.win_chance_chart(
        decisions, ("Alice", "Bob"), match_play=True, words=words
    )
    render.analysis_chart.win_chance_chart(
        decisions[:5], ("Alice", "Bob"), match_play=True, words=words
    )
    texts = [text_ for text_, _ in drawn]
    assert words.title_match in texts
    assert words.blunder in texts
    assert words.axis in texts and words.axis_moves in texts
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


# --- issue 33, "no board, chart or card may draw a word that isn't from the catalogue" ----------

DRAWING_MODULES = (
    render.common,
    backgammon,
    nannon,
    checkers,
    render.analysis_chart,
    render.analysis_report,
)
GREEK_NAMES = ("Νίκος", "Ελένη")
CUBE_ACTIONS = ("double", "no_double", "take", "pass")
_LETTERS = re.compile(r"[^\W\d_]+")


def _every_picture(words: BoardWords, chart: ChartWords, card: CardWords) -> None:
    """Each board in each state that draws words, the chart and a mistake card of each game."""
    scene = Scene(GREEK_NAMES, (2, 4), 7, crawford=True, game_number=3, words=words)
    money = Scene(GREEK_NAMES, words=words)
    mine = (2, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    theirs = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    for where in (scene, money):
        backgammon.board_png(
            bg.Position(mine, theirs), 0, where, dice=(3, 1), cube=Cube(1, None), cube_offered_by=0
        )
        nannon.board_png(
            nn.Position.initial(), 1, where, dice=(4,), cube=Cube(2, 0), cube_offered_by=None
        )
        nannon.board_png(nn.Position.initial(), 0, where, cube=Cube(1, None), cube_offered_by=1)
        checkers.board_png(ck.Board.from_fen("W:WK4,K10,28:B1,2,K3"), 0, where, draw_offered_by=1)
    decisions = [
        Decision(game, index, index % 2, DecisionKind.MOVE, "8/5 6/5", "13/10 6/5",
                 0.2 if index == 3 else 0.0, index == 3, None, 0.5)
        for game in (1, 2) for index in range(6)
    ]  # fmt: skip
    for match_play in (True, False):
        render.analysis_chart.win_chance_chart(
            decisions, GREEK_NAMES, match_play=match_play, words=chart
        )
    render.analysis_chart.win_chance_chart([], GREEK_NAMES, match_play=True, words=chart)
    _mistake_cards(card, words)


def _mistake_cards(card: CardWords, words: BoardWords) -> None:
    scene = Scene(GREEK_NAMES, (2, 4), 7, game_number=3, words=words)
    boards: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
        "nannon": ((nn.Position.initial(), 0, scene), {"dice": (3,), "cube": Cube()}),
        "backgammon": ((bg.Position.initial(), 0, scene), {"dice": (6, 1), "cube": Cube()}),
        "checkers": ((ck.Board.initial(), 0, scene), {}),
    }
    for game, (args, kwargs) in boards.items():
        for decision in (
            Decision(2, 10, 0, DecisionKind.MOVE, "13/7 8/7", "24/18 13/11", 0.2, True, None, 0.4),
            Decision(2, 10, 0, DecisionKind.CUBE, "double", "no double", 0.1, False, None, 0.4),
            Decision(2, 11, 1, DecisionKind.TAKE, "pass", "take", 0.3, False, None, 0.4),
        ):
            with reading("el"):  # the adapter words a cube decision before it is drawn
                decision = decision_words(decision)
            render.analysis_report.mistake_card(game, args, kwargs, decision, card)


def _words_left(drawn: str, catalogue_words: list[str]) -> list[str]:
    """The words of ``drawn`` that are neither a catalogue word nor a player's name."""
    for said in sorted([*catalogue_words, *GREEK_NAMES], key=len, reverse=True):
        drawn = drawn.replace(said, " ")
    return _LETTERS.findall(drawn)


def test_no_picture_draws_a_word_that_is_not_from_the_catalogue(
    drawn_texts: DrawnTexts,
) -> None:
    """Issue 33: Nannon's trays read HOME and SAFETY in English in every language. Each word
    any board, the chart or a mistake card draws for a Greek reader is a word of the Greek
    catalogue (or a player's name): a word in Latin letters left in a drawing is English that
    never went through the catalogue."""
    with reading("el"):
        words, chart, card = board_words(), chart_words(), card_words()
    spies = [drawn_texts(module) for module in DRAWING_MODULES]
    _every_picture(words, chart, card)
    drawn = [said for spy in spies for said, _ in spy]
    assert "ΑΦΕΤΗΡΙΑ" in drawn and "ΑΣΦΑΛΕΙΑ" in drawn
    cube_words = [text(f"analysis.cube_action.{key}", "el") for key in CUBE_ACTIONS]
    catalogue_words = [
        part
        for value in (*astuple(words), *astuple(chart), *astuple(card), *cube_words)
        for part in re.split(r"\{[^}]*\}", value)
        if part.strip()
    ]
    left = {said: _words_left(said, catalogue_words) for said in drawn}
    assert {said: words for said, words in left.items() if words} == {}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_rules_name_nannons_trays_as_the_board_draws_them(locale: str) -> None:
    """Issue 33: /rules kept HOME and SAFETY in English capitals in Turkish and Greek. The
    rules, and the refusals that name a tray, use the words the board draws."""
    with reading(locale):
        words = board_words()
    messages = ("rules.nannon", "engine.safety_never_moves", "engine.no_checker_home")
    said = " ".join(template(key, locale) for key in messages)
    assert words.home in said and words.safety in said
    if locale != "en":
        assert "HOME" not in said and "SAFETY" not in said
