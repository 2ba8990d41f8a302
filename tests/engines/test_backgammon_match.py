"""Backgammon matches on the shared DiceMatch: Crawford, money play, Jacoby, automatic doubles,
scoring times the cube, resignations, and the gnubg Match ID of a live match."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.actions import (
    AcceptResign,
    DeclineResign,
    Double,
    Drop,
    Move,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.backgammon import VARIANT, Position
from engines.base import MatchRules, Phase, ResignLevel, ResultKind
from engines.errors import CubeError, CubeErrorReason
from engines.gnubg import GameState, MatchId, match_id_of
from engines.match import DiceMatch


def new(length: int, **options: object) -> DiceMatch:
    return DiceMatch(VARIANT, MatchRules(length=length, **options))  # type: ignore[arg-type]


def open_game(match: DiceMatch, dice: tuple[int, int] = (5, 2)) -> None:
    match.apply(OpeningRoll(None, dice))


def resign_game(match: DiceMatch, loser: int, level: ResignLevel) -> int:
    """The player on turn (or ``loser``) resigns at ``level`` and the opponent accepts."""
    if match.phase is Phase.OPENING:
        open_game(match)
    match.apply(Resign(loser, level))
    result = match.apply(AcceptResign(1 - loser)).game_result
    assert result is not None and result.kind is ResultKind.RESIGN
    return int(result.points)


def play_out(match: DiceMatch, rng: random.Random) -> None:
    """Roll and move at random until the current game ends."""
    game = match.game_number
    if match.phase is Phase.OPENING:
        while match.phase is Phase.OPENING:
            open_game(match, (rng.randint(1, 6), rng.randint(1, 6)))
    while match.game_number == game and not match.is_over():
        if match.phase is Phase.ROLL:
            match.apply(Roll(match.turn, (rng.randint(1, 6), rng.randint(1, 6))))
        else:
            assert match.phase is Phase.MOVE
            move = rng.choice(match.legal_moves())
            match.apply(Move(match.turn, match.format_move(move)))


def test_match_to_three_with_a_crawford_game() -> None:
    match = new(3)
    assert resign_game(match, 1, ResignLevel.GAMMON) == 2  # seat 0 reaches 2 = N - 1
    assert match.score == (2, 0) and match.crawford_game
    open_game(match)
    with pytest.raises(CubeError) as info:
        match.apply(Double(match.turn))
    assert info.value.reason is CubeErrorReason.CRAWFORD
    assert not match.can_double(0) and not match.can_double(1)
    assert resign_game(match, 0, ResignLevel.SINGLE) == 1
    assert match.score == (2, 1)
    assert not match.crawford_game and match.post_crawford
    open_game(match, (6, 1))  # seat 0 on turn: moves, then seat 1 may double
    match.apply(Move(0, "13/7 8/7"))
    assert match.can_double(1)
    match.apply(Double(1))
    match.apply(Take(0))
    assert match.cube.value == 2 and match.cube.owner == 0
    assert resign_game(match, 1, ResignLevel.SINGLE) == 2
    assert match.is_over() and match.winner() == 0 and match.score == (4, 1)


def test_money_game_with_jacoby_counts_a_gammon_single_with_a_centred_cube() -> None:
    match = new(0, jacoby=True)
    assert resign_game(match, 1, ResignLevel.GAMMON) == 1
    assert match.is_over()


def test_money_game_with_jacoby_counts_a_gammon_double_after_the_cube_is_turned() -> None:
    match = new(0, jacoby=True)
    open_game(match, (6, 1))
    match.apply(Move(0, "13/7 8/7"))
    match.apply(Double(1))
    match.apply(Take(0))
    assert resign_game(match, 1, ResignLevel.GAMMON) == 4  # gammon (2) times the cube (2)


def test_money_game_without_jacoby_counts_gammons() -> None:
    assert resign_game(new(0), 1, ResignLevel.GAMMON) == 2
    assert resign_game(new(0), 0, ResignLevel.BACKGAMMON) == 3


def test_automatic_doubles_on_tied_opening_rolls_up_to_the_limit() -> None:
    match = new(0, auto_doubles=2)
    for _ in range(3):
        open_game(match, (4, 4))
    assert match.cube.value == 4 and match.cube.owner is None  # the third tie doubles nothing
    assert match.phase is Phase.OPENING
    open_game(match, (4, 2))
    assert match.phase is Phase.MOVE and match.cube.value == 4
    # Default: automatic doubles off.
    plain = new(0)
    open_game(plain, (3, 3))
    assert plain.cube.value == 1


def test_gammon_and_backgammon_score_times_the_cube() -> None:
    match = new(0)
    open_game(match, (6, 1))
    match.apply(Move(0, "13/7 8/7"))
    match.apply(Double(1))
    match.apply(Take(0))
    match.apply(Roll(1, (2, 1)))
    match.apply(Move(1, match.format_move(match.legal_moves()[0])))
    match.apply(Double(0))
    match.apply(Take(1))
    assert match.cube.value == 4
    assert resign_game(match, 0, ResignLevel.BACKGAMMON) == 12


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32))
def test_played_out_games_score_their_result_times_the_cube(seed: int) -> None:
    rng = random.Random(seed)
    match = new(0)
    open_game(match, (6, 1))
    play_out(match, rng)
    (result,) = match.games
    assert result.kind in (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON)
    multiplier = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}
    assert result.points == multiplier[result.kind] * result.cube
    assert VARIANT.result(match.position) == (result.kind, multiplier[result.kind])


@pytest.mark.parametrize("level", list(ResignLevel))
def test_resign_offer_at_each_level(level: ResignLevel) -> None:
    match = new(7)
    open_game(match)
    match.apply(Resign(1, level))
    assert match.phase is Phase.RESIGN_OFFERED and match.resign_offer == (1, level)
    match.apply(DeclineResign(0))
    assert match.phase is Phase.MOVE and match.resign_offer is None
    match.apply(Resign(1, level))
    result = match.apply(AcceptResign(0)).game_result
    assert result is not None and result.winner == 0 and result.points == int(level)


def test_drop_loses_the_stake_before_the_double() -> None:
    match = new(5)
    open_game(match, (6, 1))
    match.apply(Move(0, "13/7 8/7"))
    match.apply(Double(1))
    result = match.apply(Drop(0)).game_result
    assert result is not None and result.winner == 1 and result.points == 1


# --- gnubg Match IDs of live matches -------------------------------------------------------------


def test_match_id_of_a_fresh_match() -> None:
    match = new(5)
    mid = MatchId.decode(match_id_of(match))
    assert mid.match_length == 5 and mid.score == (0, 0)
    assert mid.cube_value == 1 and mid.cube_owner == -1
    assert mid.game_state is GameState.NONE and mid.dice == (0, 0)


def test_match_id_of_follows_the_match() -> None:
    match = new(5)
    open_game(match, (2, 6))  # seat 1 wins the opening and plays 6-2
    mid = MatchId.decode(match_id_of(match))
    assert (mid.player_on_roll, mid.turn, mid.dice) == (1, 1, (6, 2))
    assert mid.game_state is GameState.PLAYING
    match.apply(Move(1, "24/18 13/11"))
    match.apply(Double(0))
    mid = MatchId.decode(match_id_of(match))
    assert mid.double_offered and mid.player_on_roll == 0 and mid.turn == 1
    match.apply(Take(1))
    mid = MatchId.decode(match_id_of(match))
    assert (mid.cube_value, mid.cube_owner, mid.double_offered) == (2, 1, False)
    match.apply(Roll(0, (3, 1)))
    match.apply(Resign(0, ResignLevel.GAMMON))
    mid = MatchId.decode(match_id_of(match))
    assert mid.resign_level == 2 and mid.turn == 1 and mid.dice == (3, 1)
    match.apply(AcceptResign(1))
    assert match.score == (0, 4)
    mid = MatchId.decode(match_id_of(match))
    assert mid.score == (0, 4) and mid.game_state is GameState.NONE
    assert match.crawford_game and mid.crawford  # 4 is N - 1: the next game is Crawford
    assert MatchId.decode(match_id_of(match)).encode() == match_id_of(match)


def test_match_id_of_the_crawford_game_and_the_end() -> None:
    match = new(3)
    resign_game(match, 1, ResignLevel.GAMMON)
    open_game(match)
    assert MatchId.decode(match_id_of(match)).crawford
    match.apply(Resign(1, ResignLevel.SINGLE))
    match.apply(AcceptResign(0))
    mid = MatchId.decode(match_id_of(match))
    assert match.is_over() and mid.score == (3, 0)
    assert mid.game_state is GameState.RESIGNED


def test_match_id_of_a_money_game_with_jacoby() -> None:
    match = new(0, jacoby=True)
    open_game(match, (6, 5))
    mid = MatchId.decode(match_id_of(match))
    assert mid.jacoby and mid.match_length == 0 and mid.dice == (6, 5)
    assert Position.from_id(match.position_id) == match.position
