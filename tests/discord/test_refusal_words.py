"""Issue 33: refusals showed Python values instead of words ("a square holds two pieces:
frozenset({5})", dice as "(7, 1)", "white" and "nannon" in Greek). Every refusal below is raised
by the engine itself and rendered in every language; none may show a Python value."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from bot.discord.catalogue import LOCALES, reading, text
from bot.discord.wording import refusal_text
from engines import actions as act
from engines import new_match
from engines.base import GameKind, MatchRules
from engines.checkers import Board
from engines.errors import GameError
from engines.match import validate_rules
from engines.nannon import Position

# What only Python writes: a set, a list, a tuple of numbers, a repr, an enum's or class's name.
PYTHON = re.compile(
    r"frozenset|set\(|[{}\[\]<>]|\(\d+, |ValueError|GameKind|ResignLevel|Color\.|Phase\.|None"
)


def _checkers_out_of_turn() -> None:
    new_match(GameKind.CHECKERS, MatchRules(length=1)).apply(act.Move(1, "11-15"))


def _nannon(action: act.Action) -> Callable[[], None]:
    return lambda: new_match(GameKind.NANNON, MatchRules(length=3)).apply(action) and None


TRIGGERS: dict[str, Callable[[], object]] = {
    "fen_square_shared": lambda: Board.from_fen("W:W5:B5"),
    "fen_man_on_crown_row": lambda: Board.from_fen("B:W1:B2"),
    "fen_too_many_pieces": lambda: Board.from_fen("W:W13-24,K25:B1"),
    "fen_square_twice": lambda: Board.from_fen("B:W5,5:B1"),
    "checkers_not_your_turn": _checkers_out_of_turn,
    "bad_resign_level": _nannon(act.Resign(0, 3)),
    "no_draw_offers": _nannon(act.OfferDraw(0)),
    "bad_dice": _nannon(act.OpeningRoll(None, (7, 1))),
    "not_a_seat": _nannon(act.Move(5, "x")),
    "dice_match_kind": lambda: validate_rules(GameKind.CHECKERS, MatchRules(length=1)),
    "places_count": lambda: Position((1, 2), (1, 2, 3)),
    "two_on_one_spot": lambda: Position((2, 2, 3), (1, 2, 3)),
}


def _refusal(trigger: Callable[[], object]) -> GameError:
    with pytest.raises(GameError) as raised:
        trigger()
    return raised.value


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_a_refusal_shows_no_python_value_in_any_language(code: str) -> None:
    """Issue 33 (refusals that show Python values): rendered in all nine languages."""
    error = _refusal(TRIGGERS[code])
    assert error.code == code
    for locale in LOCALES:
        with reading(locale):
            said = refusal_text(error)
        assert not PYTHON.search(said), f"{locale}: {said}"


def test_a_square_two_pieces_share_is_named_as_a_number() -> None:
    """Issue 33: it was "a square holds two pieces: frozenset({5})", in English everywhere."""
    error = _refusal(TRIGGERS["fen_square_shared"])
    with reading("el"):
        said = refusal_text(error)
    assert said == text("engine.fen_square_shared", "el", fen="'W:W5:B5'", square=5)


def test_a_colour_and_a_game_are_named_in_the_readers_words() -> None:
    """Issue 33: "(black to move)" and "nannon" stayed English in a Greek refusal."""
    with reading("el"):
        turn = refusal_text(_refusal(TRIGGERS["checkers_not_your_turn"]))
        resign = refusal_text(_refusal(TRIGGERS["bad_resign_level"]))
    assert text("colour.black", "el") in turn and "black" not in turn
    assert text("game.nannon.name", "el") in resign
    assert text("resign_level.nannon.gammon", "el") in resign and "gammon," not in resign


def test_a_refusals_count_picks_its_plural_form() -> None:
    """Issue 33 (counts through the plural forms): "idle for 1 minutes", "full: 1 players"."""
    from bot.service.errors import Refusal, refused

    early = refused(Refusal.CLAIM_TOO_EARLY, name="bob", minutes=1, left=1)
    assert refusal_text(early) == (
        "You can claim the match when bob has been idle for 1 minute: 1 more to go."
    )
    with reading("ru"):
        full = refusal_text(refused(Refusal.TOURNAMENT_FULL, most=4))
    assert full == "Этот турнир заполнен: 4 игрока."


@pytest.mark.parametrize(
    ("locale", "count", "words"),
    [("en", 1, "1 die from 1 to 6"), ("en", 2, "2 dice from 1 to 6"), ("ru", 5, "5 костей")],
)
def test_issue_33_a_count_of_dice_in_a_refusal_has_its_plural_form(
    locale: str, count: int, words: str
) -> None:
    """Issue 33 (plurals): "A Nannon roll is 1 dice" read as English would not."""
    error = GameError("", code="bad_dice", what="roll", count=count, dice="7")
    with reading(locale):
        assert words in refusal_text(error)
