"""Every match type implements the whole GameMatch protocol, so callers never probe with getattr."""

from __future__ import annotations

import inspect
import random
from typing import Any

import pytest

from engines import match_from_snapshot, new_match, replay
from engines.actions import Double, Move, OfferDraw, OpeningRoll, Resign, Roll, Take
from engines.base import GameKind, GameMatch, MatchRules, Phase, ResignLevel
from engines.checkers import Board, CheckersMatch
from engines.cube import Cube
from engines.match import DiceMatch

# The protocol's members, written out: a member added to GameMatch must be added here, and is
# then checked on every game.
MEMBERS = {
    # attributes
    "kind",
    "rules",
    "actions",
    # read-only properties
    "spec",
    "phase",
    "turn",
    "actor",
    "score",
    "game_number",
    "position",
    "position_id",
    "games",
    "dice",
    "opening_dice",
    "cube",
    "cube_offered_by",
    "crawford_game",
    "post_crawford",
    "resign_offer",
    "draw_offered_by",
    "last_move",
    # methods
    "can_double",
    "colours",
    "legal_moves",
    "parse_move",
    "format_move",
    "apply",
    "is_over",
    "winner",
    "snapshot",
}
METHODS = {
    "can_double",
    "colours",
    "legal_moves",
    "parse_move",
    "format_move",
    "apply",
    "is_over",
    "winner",
    "snapshot",
}
RULES = {
    GameKind.NANNON: MatchRules(length=3),
    GameKind.BACKGAMMON: MatchRules(length=3),
    GameKind.CHECKERS: MatchRules(length=3, cube=False, crawford=False),
}


def protocol_members() -> set[str]:
    """The members GameMatch declares: its annotations and its own functions and properties."""
    declared = set(GameMatch.__annotations__)
    for name, value in vars(GameMatch).items():
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
            declared.add(name)
    return declared


def matches(kind: GameKind) -> list[Any]:
    """A fresh match, one rebuilt from a snapshot and one replayed, mid-game."""
    match = new_match(kind, RULES[kind])
    if kind is GameKind.CHECKERS:
        match.apply(Move(0, "11-15"))
    else:
        match.apply(OpeningRoll(None, (3, 1)))
    return [
        new_match(kind, RULES[kind]),
        match,
        match_from_snapshot(match.snapshot()),
        replay(kind, match.rules, match.actions),
    ]


def test_the_member_list_is_the_protocol() -> None:
    assert protocol_members() == MEMBERS
    assert {m for m in MEMBERS if inspect.isfunction(vars(GameMatch).get(m))} == METHODS


@pytest.mark.parametrize("kind", list(GameKind))
def test_every_match_type_has_every_member(kind: GameKind) -> None:
    for match in matches(kind):
        assert isinstance(match, GameMatch)
        for name in sorted(MEMBERS):
            assert hasattr(match, name), f"{type(match).__name__} has no {name}"
            value = getattr(match, name)
            assert callable(value) is (name in METHODS), name
        assert match.spec.kind is match.kind
        assert isinstance(match.colours(), tuple) and len(match.colours()) == 2
        assert match.can_double(0) in (True, False) and match.can_double(1) in (True, False)


def test_checkers_answers_the_dice_and_cube_members_neutrally() -> None:
    match = CheckersMatch(MatchRules(length=3))
    assert match.position is match.board and isinstance(match.position, Board)
    assert (match.dice, match.opening_dice, match.cube, match.cube_offered_by) == (None,) * 4
    assert (match.crawford_game, match.post_crawford, match.resign_offer) == (False, False, None)
    assert match.last_move is None and match.draw_offered_by is None
    assert match.colours() == ("black", "white")
    match.apply(Move(0, "11-15"))
    assert match.last_move is not None and match.last_move[0] == 0
    match.apply(OfferDraw(1))
    assert match.draw_offered_by == 1 and match.phase is Phase.DRAW_OFFERED
    assert not (match.can_double(0) or match.can_double(1))
    match.apply(Resign(0, ResignLevel.SINGLE))  # loses at once: never an offer
    assert match.resign_offer is None and match.game_number == 2
    # Colours follow color_of, and the spec's rule: they swap every game.
    assert match.colours() == ("white", "black") == match.spec.seat_colours(2)
    assert match.colours() == tuple(match.color_of(s).name.lower() for s in (0, 1))
    assert match.position is match.board


def test_dice_matches_answer_the_checkers_members_neutrally() -> None:
    match = new_match(GameKind.BACKGAMMON, MatchRules(length=3))
    assert isinstance(match, DiceMatch)
    assert match.draw_offered_by is None and match.colours() == ("white", "black")
    assert match.cube == Cube() and match.dice is None and match.opening_dice is None
    match.apply(OpeningRoll(None, (3, 1)))
    assert match.dice == (3, 1) and match.opening_dice == (3, 1)
    match.apply(Move(0, "8/5 6/5"))
    assert match.last_move is not None and match.last_move[0] == 0
    assert match.can_double(1) and not match.can_double(0)
    match.apply(Double(1))
    assert match.cube_offered_by == 1
    match.apply(Take(0))
    assert match.cube == Cube(2, 0) and match.cube_offered_by is None
    match.apply(Roll(1, (6, 4)))
    assert match.draw_offered_by is None and match.colours() == ("white", "black")
    assert match.crawford_game is False and match.post_crawford is False


def test_every_move_type_counts_what_it_hits() -> None:
    """``move.hits``: what the service orders a turn's menu by (hitting moves first)."""
    from engines.backgammon import Play
    from engines.backgammon import Position as BackgammonPosition
    from engines.checkers import Board
    from engines.checkers import Move as CheckersMove
    from engines.match import NoMove
    from engines.nannon import Move as NannonMove
    from engines.nannon import Position as NannonPosition

    after = NannonPosition.initial().apply(NannonMove.parse("1/4", NannonPosition.initial(), 3))
    assert [m.hits for m in after.legal_moves(2)] == [1, 0]  # 1/3* hits, 2/4 doesn't
    # Backgammon: walk a seeded game until some roll offers hitting plays; the notation marks
    # each hit with "*".
    rng = random.Random(7)
    position, seen = BackgammonPosition.initial(), 0
    while seen < 20:
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        if not plays or position.is_over():
            break
        for play in plays:
            assert isinstance(play, Play) and play.hits == str(play).count("*")
            seen += play.hits > 0
        position = rng.choice(plays).position
    assert seen >= 20
    jump = Board.from_fen("B:W18,26:B14")
    [capture] = jump.legal_moves()
    assert isinstance(capture, CheckersMove) and capture.hits == len(capture.captures) == 2
    assert NoMove().hits == 0
