"""MoveList: the legal moves' notation, written only as far as it is read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.move_list import MoveList
from engines.backgammon import Position, format_play


class Counting:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, move: int) -> str:
        self.calls.append(move)
        return f"m{move}"


def test_reading_the_first_items_formats_only_those() -> None:
    fmt = Counting()
    moves = MoveList(range(800), fmt)
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
    moves = MoveList([2, 1], Counting())
    assert moves == ("m2", "m1") and ("m2", "m1") == moves  # noqa: SIM300 (the reflected ==)
    assert moves == ["m2", "m1"]
    assert moves != ("m2",) and moves != ("m1", "m2") and moves != "m2m1"
    assert hash(moves) == hash(("m2", "m1"))
    assert list(moves) == ["m2", "m1"] and moves.index("m1") == 1
    assert repr(moves) == "MoveList(('m2', 'm1'))"
    with pytest.raises(ValueError):
        moves.index("m9")
    with pytest.raises(IndexError, match="out of range"):
        moves[2]


@given(st.integers(0, 30), st.integers(-40, 40), st.integers(-40, 40), st.integers(-3, 3))
def test_slices_match_the_tuple(n: int, start: int, stop: int, step: int) -> None:
    if step == 0:
        step = 1
    expected = tuple(f"m{i}" for i in range(n))
    assert MoveList(range(n), Counting())[start:stop:step] == expected[start:stop:step]


def test_a_roll_of_doubles_writes_gnubg_notation_on_demand() -> None:
    plays = Position.initial().legal_plays(1, 1)
    moves = MoveList(plays, format_play)
    assert moves[0] == format_play(plays[0])
    assert moves == tuple(format_play(p) for p in plays)
