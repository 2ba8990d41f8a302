"""Puzzle selection (engines/puzzles.py): a fair puzzle loses enough and has a clear answer; the
menu always holds the best and the played move; the daily game rotates."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.puzzles import MENU_LIMIT, AnswerKey, PuzzleRule, menu, next_game, qualifies
from engines.values import GameKind

RULE = PuzzleRule(min_loss=0.08, margin=0.04)


def test_answer_key_is_best_first_and_round_trips() -> None:
    key = AnswerKey.of([("a", 0.1), ("b", 0.3), ("c", -0.2)])
    assert [o.move for o in key.options] == ["b", "a", "c"]
    assert AnswerKey.from_list(key.to_list()) == key
    with pytest.raises(KeyError):
        key.loss("z")
    with pytest.raises(ValueError, match="twice"):
        AnswerKey.of([("a", 0.1), ("a", 0.2)])
    with pytest.raises(ValueError):
        AnswerKey.of([])


@pytest.mark.parametrize(
    ("ranked", "played", "fair"),
    [
        ([("best", 0.2), ("second", 0.1), ("bad", 0.0)], "bad", True),  # lost 0.2, margin 0.1
        ([("best", 0.2), ("second", 0.19), ("bad", 0.0)], "bad", False),  # a coin flip on top
        ([("best", 0.2), ("second", 0.1), ("meh", 0.15)], "meh", False),  # lost only 0.05
        ([("best", 0.2), ("second", 0.1)], "best", False),  # the best was played
        ([("only", 0.2)], "only", False),  # nothing to choose
        ([("best", 0.12), ("second", 0.08), ("bad", 0.04)], "bad", True),  # exactly on both lines
    ],
)
def test_which_decisions_make_a_puzzle(
    ranked: list[tuple[str, float]], played: str, fair: bool
) -> None:
    assert qualifies(AnswerKey.of(ranked), played, RULE) is fair


keys = st.lists(
    st.tuples(st.text(min_size=1, max_size=6), st.floats(-1, 1)),
    min_size=2,
    max_size=60,
    unique_by=lambda t: t[0],
).map(AnswerKey.of)


@given(keys, st.data(), st.integers(2, MENU_LIMIT))
def test_menu_holds_the_best_the_played_and_the_next_best(
    key: AnswerKey, data: st.DataObject, limit: int
) -> None:
    played = data.draw(st.sampled_from([o.move for o in key.options]))
    offered = menu(key, played, limit)
    moves = [o.move for o in offered]
    assert key.best.move in moves and played in moves
    assert len(moves) == min(limit, len(key.options)) == len(set(moves))
    # The others are the best-ranked of the rest.
    others = [o for o in offered if o.move not in {key.best.move, played}]
    rest = [o for o in key.options if o.move not in {key.best.move, played}]
    assert others == rest[: len(others)]


def test_menu_needs_room_for_two() -> None:
    with pytest.raises(ValueError):
        menu(AnswerKey.of([("a", 1.0), ("b", 0.0)]), "b", limit=1)


def test_the_daily_game_rotates_through_the_games_in_the_pool() -> None:
    rng = random.Random(3)
    pool = {GameKind.NANNON: 5, GameKind.BACKGAMMON: 2, GameKind.CHECKERS: 0}
    recent: list[GameKind] = []
    posted = []
    for _ in range(4):
        game = next_game(pool, recent, rng)
        assert game is not None
        posted.append(game)
        recent.append(game)
    # Checkers has none; the other two alternate.
    assert GameKind.CHECKERS not in posted
    assert posted[0] != posted[1] and posted[1] != posted[2] and posted[2] != posted[3]
    assert next_game({GameKind.NANNON: 0}, recent, rng) is None


def test_a_game_never_posted_comes_before_one_posted() -> None:
    pool = {GameKind.NANNON: 1, GameKind.CHECKERS: 1}
    recent = [GameKind.NANNON] * 3
    assert next_game(pool, recent, random.Random(0)) is GameKind.CHECKERS
