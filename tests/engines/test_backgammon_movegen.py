"""Backgammon move generation against a frozen reference: the straightforward generator the
engine had before it was tuned for speed. The tuned one must give the very same tuple of plays:
the same plays, in the same order, each with the same moves (the order and the moves are what
players see in the move list and in notation)."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.backgammon import BAR, CheckerMove, Play, Position, clear_play_cache

DATA = Path(__file__).resolve().parents[1] / "data"
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]

_K = [16**p for p in range(26)]
_H = [16 ** (26 + p) for p in range(26)]
_Found = dict[int, tuple[int, int, tuple[CheckerMove, ...], tuple[int, ...], tuple[int, ...]]]


def _search(
    board: list[int],
    dice: tuple[int, ...],
    i: int,
    top: int,
    key: int,
    path: list[CheckerMove],
    outside: int,
    found: _Found,
) -> None:
    d = dice[i]
    last = i + 1 == len(dice)
    moved = False
    sources = (BAR,) if board[BAR] else range(min(top, 24), 0, -1)
    for s in sources:
        if not board[s]:
            continue
        t = s - d
        if t > 0:
            opp = board[26 + t]
            if opp > 1:
                continue
            board[s] -= 1
            board[t] += 1
            k = key + _K[t] - _K[s]
            if opp:
                board[26 + t] = 0
                board[26] += 1
                k += _H[t]
            now_outside = outside - 1 if s > 6 >= t else outside
        else:
            if outside:
                continue
            if t < 0 and any(board[s + 1 : 7]):
                continue
            t = opp = 0
            board[s] -= 1
            board[0] += 1
            k = key + _K[0] - _K[s]
            now_outside = 0
        moved = True
        path.append(CheckerMove(s, t, bool(opp)))
        if last:
            seen = found.get(k)
            if seen is None or seen[0] <= i:
                found[k] = (i + 1, dice[0], tuple(path), tuple(board[:26]), tuple(board[51:25:-1]))
        else:
            _search(
                board, dice, i + 1, s if dice[0] == dice[-1] else BAR, k, path, now_outside, found
            )
        path.pop()
        board[s] += 1
        board[t] -= 1
        if opp:
            board[26 + t] = 1
            board[26] -= 1
    if not moved and i:
        seen = found.get(key)
        if seen is None or seen[0] < i:
            found[key] = (i, dice[0], tuple(path), tuple(board[:26]), tuple(board[51:25:-1]))


def reference_plays(position: Position, d1: int, d2: int) -> tuple[Play, ...]:
    """The engine's generator as it was before the speed work (commit dd428e3)."""
    if position.is_over():
        return ()
    board = [*position.mine, *position.theirs[::-1]]
    outside = sum(position.mine[7:26])
    found: _Found = {}
    if d1 == d2:
        _search(board, (d1,) * 4, 0, BAR, 0, [], outside, found)
    else:
        high, low = max(d1, d2), min(d1, d2)
        _search(board, (high, low), 0, BAR, 0, [], outside, found)
        _search(board, (low, high), 0, BAR, 0, [], outside, found)
    if not found:
        return ()
    most = max(entry[0] for entry in found.values())
    if most == 1 and d1 != d2 and any(e[1] == max(d1, d2) for e in found.values()):
        return tuple(
            Play(e[2], Position(e[4], e[3]))
            for e in found.values()
            if e[0] == 1 and e[1] == max(d1, d2)
        )
    return tuple(Play(e[2], Position(e[4], e[3])) for e in found.values() if e[0] == most)


def assert_same(position: Position, d1: int, d2: int) -> None:
    clear_play_cache()
    plays = position.legal_plays(d1, d2)
    expected = reference_plays(position, d1, d2)
    assert plays == expected, (position.id, d1, d2)
    for play in plays:  # exact types: callers rely on them
        assert type(play) is Play and type(play.position) is Position
        assert type(play.moves) is tuple and type(play.position.mine) is tuple


def game_positions(seed: int) -> list[Position]:
    """Every position of a random game to its end."""
    rng = random.Random(seed)
    position = Position.initial()
    met = []
    while not position.is_over():
        met.append(position)
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        position = rng.choice(plays).position if plays else position.flip()
    return met


def test_the_vector_positions_with_every_roll() -> None:
    lines = (DATA / "backgammon_plays.tsv").read_text(encoding="utf-8").splitlines()
    ids = sorted({line.split("\t")[0] for line in lines if line and not line.startswith("#")})
    assert len(ids) > 500
    for position_id in ids[::2]:
        position = Position.from_id(position_id)
        for d1, d2 in ROLLS:
            assert_same(position, d1, d2)


def test_random_games_with_every_roll() -> None:
    for seed in range(4):
        for position in game_positions(seed)[::3]:
            for d1, d2 in ROLLS:
                assert_same(position, d1, d2)
                if d1 != d2:
                    assert_same(position, d2, d1)  # the same plays whichever die is first


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any legal position, weighted toward the bar and the home boards, where the rules bite."""
    points = st.sampled_from([0, 25, 25, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, *range(1, 25)])
    mine = [0] * 26
    theirs = [0] * 26
    for side, other in ((mine, theirs), (theirs, mine)):
        for _ in range(15):
            point = draw(points)
            if 1 <= point <= 24 and other[25 - point]:
                point = 0
            side[point] += 1
    return Position(tuple(mine), tuple(theirs))


@settings(max_examples=400, deadline=None)
@given(positions(), st.integers(1, 6), st.integers(1, 6))
def test_any_position_and_roll(position: Position, d1: int, d2: int) -> None:
    assert_same(position, d1, d2)
