"""LegalMoves: a turn's legal moves, generated when first read, and their notation written only
as far as it is read (the assertions of tests/test_move_list.py, against the engine's type)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines import new_match
from engines.actions import Move, OfferDraw, OpeningRoll, Roll
from engines.backgammon import Position, format_play
from engines.base import GameKind, MatchRules
from engines.checkers import Board, CheckersMatch
from engines.legal_moves import LegalMoves
from engines.match import NO_MOVE, NoMove


class Counting:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, move: int) -> str:
        self.calls.append(move)
        return f"m{move}"


class Generating:
    """A move generator that counts its calls."""

    def __init__(self, moves: range) -> None:
        self.moves = moves
        self.calls = 0

    def __call__(self) -> tuple[int, ...]:
        self.calls += 1
        return tuple(self.moves)


# --- the notation (tests/test_move_list.py, ported) -------------------------------------------


def test_reading_the_first_items_formats_only_those() -> None:
    fmt = Counting()
    moves = LegalMoves(range(800), fmt).notation
    assert len(moves) == 800 and fmt.calls == []
    assert moves[:25] == tuple(f"m{i}" for i in range(25))
    assert fmt.calls == list(range(25))
    assert moves[3] == "m3" and moves[0] == "m0"
    assert len(fmt.calls) == 25  # remembered, not written again
    assert "m30" in moves
    assert fmt.calls == list(range(31))  # stopped at the match
    assert moves[-1] == "m799" and len(fmt.calls) == 800
    assert "m1000" not in moves
    assert len(fmt.calls) == 800


def test_equal_to_the_tuple_of_its_texts_and_hashable_alike() -> None:
    moves = LegalMoves([2, 1], Counting()).notation
    assert moves == ("m2", "m1") and ("m2", "m1") == moves  # noqa: SIM300 (the reflected ==)
    assert moves == ["m2", "m1"]
    assert moves != ("m2",) and moves != ("m1", "m2") and moves != "m2m1"
    assert hash(moves) == hash(("m2", "m1"))
    assert list(moves) == ["m2", "m1"] and moves.index("m1") == 1
    assert repr(moves) == "MoveNotation(('m2', 'm1'))"
    with pytest.raises(ValueError):
        moves.index("m9")
    with pytest.raises(IndexError, match="out of range"):
        moves[2]


@given(st.integers(0, 30), st.integers(-40, 40), st.integers(-40, 40), st.integers(-3, 3))
def test_slices_match_the_tuple(n: int, start: int, stop: int, step: int) -> None:
    if step == 0:
        step = 1
    expected = tuple(f"m{i}" for i in range(n))
    legal = LegalMoves(range(n), Counting())
    assert legal.notation[start:stop:step] == expected[start:stop:step]
    assert legal[start:stop:step] == tuple(range(n))[start:stop:step]


def test_a_roll_of_doubles_writes_gnubg_notation_on_demand() -> None:
    plays = Position.initial().legal_plays(1, 1)
    moves = LegalMoves(plays, format_play).notation
    assert moves[0] == format_play(plays[0])
    assert moves == tuple(format_play(p) for p in plays)


# --- the moves ---------------------------------------------------------------------------------


def test_the_moves_are_generated_once_when_first_read() -> None:
    generate, fmt = Generating(range(5)), Counting()
    legal = LegalMoves(generate, fmt)
    assert generate.calls == 0
    assert len(legal) == 5 and legal[1] == 1 and list(legal) == [0, 1, 2, 3, 4]
    assert legal[-1] == 4 and legal[1:4] == (1, 2, 3) and legal[::-2] == (4, 2, 0)
    assert generate.calls == 1 and fmt.calls == []  # reading moves writes no notation
    with pytest.raises(IndexError, match="out of range"):
        legal[5]
    untouched = Generating(range(5))
    LegalMoves(untouched, fmt)
    assert untouched.calls == 0


def test_in_takes_a_move_or_its_notation() -> None:
    fmt = Counting()
    legal = LegalMoves(range(800), fmt)
    assert 30 in legal and 800 not in legal and "m1" not in LegalMoves(range(800), str)
    assert fmt.calls == []  # a move value is looked up without notation
    assert "m30" in legal
    assert fmt.calls == list(range(31))  # a string formats only up to the match
    assert "m1000" not in legal and len(fmt.calls) == 800
    assert legal.index(7) == 7 and legal.index("m7") == 7 and legal.index("m7", 5, 9) == 7
    assert legal.count("m7") == legal.count(7) == 1 and legal.count("m9999") == 0
    with pytest.raises(ValueError):
        legal.index("m7", 8)
    with pytest.raises(ValueError):
        legal.index(1000)


def test_equal_to_the_tuple_of_its_moves_and_hashable_alike() -> None:
    legal = LegalMoves(Generating(range(3)), Counting())
    assert legal == (0, 1, 2) and (0, 1, 2) == legal  # noqa: SIM300 (the reflected ==)
    assert legal == [0, 1, 2] and legal == LegalMoves((0, 1, 2), str)
    assert legal != (0, 1) and legal != (2, 1, 0) and legal != "012"
    assert legal.notation == ("m0", "m1", "m2")
    assert hash(legal) == hash((0, 1, 2))
    assert LegalMoves((), str) == () and not LegalMoves((), str)
    assert repr(legal) == "<LegalMoves (m0, m1, m2)>"


def test_sorted_keeps_the_notation_lazy() -> None:
    fmt = Counting()
    legal = LegalMoves(range(10), fmt).sorted(key=lambda m: -m)
    assert legal[:3] == (9, 8, 7) and fmt.calls == []
    assert legal.notation[0] == "m9" and fmt.calls == [9]
    assert legal.format(4) == "m4"


# --- on the matches ----------------------------------------------------------------------------


def test_a_backgammon_match_gives_its_plays_lazily() -> None:
    match = new_match(GameKind.BACKGAMMON, MatchRules(length=3))
    assert match.legal_moves() == () and match.legal_moves().notation == ()
    match.apply(OpeningRoll(None, (3, 1)))
    legal = match.legal_moves()
    assert isinstance(legal, LegalMoves)
    plays = Position.initial().legal_plays(3, 1)
    assert legal == plays and legal.notation == tuple(format_play(p) for p in plays)
    assert "8/5 6/5" in legal and plays[0] in legal and "8/5  6/5" not in legal
    assert legal.notation == tuple(match.format_move(m) for m in legal)
    # Generated from the position it was asked in, even when read after the match moved on.
    match.apply(Move(0, "8/5 6/5"))
    assert legal == plays and match.legal_moves() == ()
    match.apply(Roll(1, (1, 1)))
    doubles = match.legal_moves()
    assert doubles == match.position.legal_plays(1, 1) and len(doubles) > 25


def test_a_nannon_roll_that_cant_be_played_is_no_move() -> None:
    match = new_match(GameKind.NANNON, MatchRules(length=3, auto_pass=False))
    match.apply(OpeningRoll(None, (2, 5)))
    match.apply(Move(1, "H/3"))
    match.apply(Roll(0, (4,)))
    legal = match.legal_moves()
    assert legal == (NoMove(),) and legal.notation == (NO_MOVE,) and NO_MOVE in legal


def test_a_checkers_match_gives_its_moves_lazily() -> None:
    match = CheckersMatch(MatchRules(length=2))
    legal = match.legal_moves()
    assert legal == Board.initial().legal_moves()
    assert legal.notation == ("9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16")
    assert "11-15" in legal and Board.initial().legal_moves()[0] in legal
    match.apply(OfferDraw(0))
    assert match.legal_moves() == ()
