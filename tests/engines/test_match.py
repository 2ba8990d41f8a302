"""DiceMatch: the opening roll, the cube, Crawford, resignations, scores, snapshots and replay."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engines
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    ConcedeMatch,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
    action_from_dict,
)
from engines.base import GameKind, MatchRules, Phase, ResignLevel, ResultKind
from engines.cube import Cube
from engines.dice import RandomDice
from engines.errors import (
    CubeError,
    CubeErrorReason,
    GameError,
    IllegalMoveError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)
from engines.match import NO_MOVE, DiceMatch
from engines.nannon import VARIANT, NannonVariant, Position


def nannon(length: int = 3, **options: Any) -> DiceMatch:
    return DiceMatch(VARIANT, MatchRules(length=length, **options))


def play(match: DiceMatch, *actions: Action) -> None:
    for action in actions:
        match.apply(action)


def refused(match: DiceMatch, action: Action, error: type[GameError]) -> GameError:
    """Assert ``action`` raises ``error`` and leaves the match exactly as it was."""
    before = match.snapshot()
    count = len(match.actions)
    with pytest.raises(error) as info:
        match.apply(action)
    assert match.snapshot() == before
    assert len(match.actions) == count
    return info.value


# Seat 0 wins the opening 6-1 and plays 5; the rest is a NANNON for seat 0 (found by search).
NANNON_GAME: tuple[Action, ...] = (
    OpeningRoll(None, (6, 1)),
    Move(0, "2/S"),
    Roll(1, (5,)),
    Move(1, "H/5"),
    Roll(0, (6,)),
    Move(0, "1/S"),
    Roll(1, (1,)),
    Move(1, "5/6"),
    Roll(0, (3,)),
    Move(0, "H/3"),
    Roll(1, (1,)),
    Move(1, "2/3"),
    Roll(0, (6,)),
    Move(0, "3/S"),
)


def mirrored(actions: tuple[Action, ...]) -> tuple[Action, ...]:
    """The same game with the seats swapped."""
    out: list[Action] = []
    for a in actions:
        if isinstance(a, OpeningRoll):
            out.append(OpeningRoll(None, (a.dice[1], a.dice[0])))
        elif isinstance(a, Roll):
            out.append(Roll(1 - (a.player or 0), a.dice))
        elif isinstance(a, Move):
            out.append(Move(1 - (a.player or 0), a.move))
    return tuple(out)


# -- construction --------------------------------------------------------------------------


def test_new_match_starts_in_the_opening() -> None:
    m = nannon(5)
    assert m.kind is GameKind.NANNON
    assert (m.phase, m.actor, m.turn, m.game_number, m.score) == (Phase.OPENING, None, 0, 1, (0, 0))
    assert m.position == Position.initial()
    assert m.position_id == "012-012"
    assert m.cube == Cube(1, None)
    assert (m.dice, m.cube_offered_by, m.resign_offer, m.opening_dice, m.last_move) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert not m.crawford_game and not m.post_crawford
    assert m.legal_moves() == ()
    assert not m.is_over() and m.winner() is None
    assert m.games == ()


@pytest.mark.parametrize(
    ("rules", "reason"),
    [
        (MatchRules(length=5, jacoby=True), CubeErrorReason.MONEY_ONLY),
        (MatchRules(length=5, auto_doubles=1), CubeErrorReason.MONEY_ONLY),
    ],
)
def test_jacoby_and_auto_doubles_are_money_only(rules: MatchRules, reason: CubeErrorReason) -> None:
    with pytest.raises(CubeError) as info:
        DiceMatch(VARIANT, rules)
    assert info.value.reason is reason
    assert "money play only" in str(info.value)


def test_nannon_has_no_money_play_and_lengths_are_checked() -> None:
    with pytest.raises(GameError, match="backgammon only"):
        nannon(0)
    with pytest.raises(GameError, match="match length"):
        nannon(-1)


# -- the opening roll ------------------------------------------------------------------------


def test_opening_winner_plays_the_difference() -> None:
    m = nannon()
    result = m.apply(OpeningRoll(None, (2, 6)))
    assert result.opening_dice == (2, 6)
    assert (m.phase, m.turn, m.actor, m.dice, m.opening_dice) == (
        Phase.MOVE,
        1,
        1,
        (4,),
        (2, 6),
    )
    assert [str(mv) for mv in m.legal_moves()] == ["H/4"]  # 5 and 6 are a prime


def test_opening_roll_may_be_sent_by_either_seat() -> None:
    for player in (None, 0, 1):
        m = nannon()
        m.apply(OpeningRoll(player, (5, 3)))
        assert m.turn == 0 and m.dice == (2,)
    refused(nannon(), OpeningRoll(2, (5, 3)), NotYourTurnError)


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3,), (1, 2, 3), (True, 2), ("3", "4")])
def test_opening_roll_with_bad_dice_is_refused(dice: Any) -> None:
    refused(nannon(), OpeningRoll(None, dice), GameError)


def test_opening_roll_twice_is_a_phase_error() -> None:
    m = nannon()
    m.apply(OpeningRoll(None, (4, 1)))
    refused(m, OpeningRoll(None, (4, 1)), PhaseError)


class StuckStartNannon(NannonVariant):
    """Nannon from a start where a 4 can't move (4, 5 and 6 hold a prime)."""

    def initial(self) -> Position:
        return Position.from_id("012-123")


def test_opening_dice_that_leave_no_move_forfeit_the_turn() -> None:
    # From the real start every opening difference can move, so use a stuck start.
    m = DiceMatch(StuckStartNannon(), MatchRules(length=3))
    result = m.apply(OpeningRoll(None, (5, 1)))
    assert result.turn_forfeited and result.opening_dice == (5, 1)
    assert (m.phase, m.turn, m.dice, m.position_id) == (Phase.ROLL, 1, None, "123-012")
    assert all(
        Position.initial().legal_moves(high - low) for high in range(2, 7) for low in range(1, high)
    )


def test_wrong_phase_actions_before_the_opening() -> None:
    m = nannon()
    assert "opening roll" in str(refused(m, Roll(0, (3,)), PhaseError))
    refused(m, Move(0, "H/3"), PhaseError)
    refused(m, Double(0), PhaseError)
    assert refused(m, Take(1), CubeError).reason is CubeErrorReason.NO_OFFER  # type: ignore[attr-defined]
    refused(m, AcceptResign(1), PhaseError)
    refused(m, OfferDraw(0), PhaseError)


# -- rolling and moving ------------------------------------------------------------------------


def started(opening: tuple[int, int] = (6, 1)) -> DiceMatch:
    m = nannon()
    play(m, OpeningRoll(None, opening), Move(0 if opening[0] > opening[1] else 1, "2/S"))
    return m


def test_after_a_move_the_opponent_is_to_roll() -> None:
    m = started()
    assert (m.phase, m.turn, m.actor, m.dice) == (Phase.ROLL, 1, 1, None)
    assert m.position_id == "012-017"
    assert m.last_move is not None and m.last_move[0] == 0 and str(m.last_move[1]) == "2/S"


def test_wrong_seat_gets_not_your_turn() -> None:
    m = started()
    assert "not your turn" in str(refused(m, Roll(0, (3,)), NotYourTurnError))
    m.apply(Roll(1, (3,)))
    refused(m, Move(0, "H/3"), NotYourTurnError)
    refused(m, Move(None, "H/3"), NotYourTurnError)


def test_rolling_twice_says_pick_a_move() -> None:
    m = started()
    m.apply(Roll(1, (3,)))
    error = refused(m, Roll(1, (4,)), PhaseError)
    assert "You rolled already: pick a move" in str(error)


def test_moving_before_rolling_is_a_phase_error() -> None:
    m = started()
    assert "Roll first" in str(refused(m, Move(1, "H/3"), PhaseError))
    with pytest.raises(PhaseError):
        m.parse_move("H/3")


@pytest.mark.parametrize("dice", [(0,), (7,), (3, 4), ()])
def test_roll_needs_one_die_from_1_to_6(dice: tuple[int, ...]) -> None:
    refused(started(), Roll(1, dice), GameError)


def test_bad_move_text_is_refused_without_changing_anything() -> None:
    m = started()
    m.apply(Roll(1, (3,)))
    refused(m, Move(1, "banana"), InvalidNotationError)
    err = refused(m, Move(1, "1/3"), IllegalMoveError)
    assert "roll 3" in str(err) and m.position_id in str(err)


def test_moves_are_recorded_in_canonical_notation() -> None:
    m = started()
    m.apply(Roll(1, (3,)))
    result = m.apply(Move(1, "  home - 3 "))
    assert result.action == Move(1, "H/3")
    assert m.actions[-1] == Move(1, "H/3")
    move = VARIANT.parse_move("h-3", Position.from_id("012-017"), (3,))
    assert m.format_move(move) == "H/3"


def test_a_roll_with_no_legal_move_forfeits_the_turn_in_the_same_action() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (2, 5)), Move(1, "H/3"))  # seat 1 now holds 4, 5, 6 of seat 0
    assert m.position_id == "012-123"
    result = m.apply(Roll(0, (4,)))
    assert result.turn_forfeited
    assert (m.phase, m.turn, m.dice) == (Phase.ROLL, 1, None)
    assert m.position_id == "123-012"
    assert m.actions[-1] == Roll(0, (4,))


# -- auto_pass off: the player confirms a roll that can't be played ----------------------------


def stuck(**options: Any) -> DiceMatch:
    """Seat 0 to roll against a prime on 4, 5 and 6 (a roll of 4 can't be played)."""
    m = nannon(**options)
    play(m, OpeningRoll(None, (2, 5)), Move(1, "H/3"))
    return m


def test_auto_pass_is_a_stored_rule_on_by_default() -> None:
    assert MatchRules(length=3).auto_pass is True
    data = MatchRules(length=3, auto_pass=False).to_dict()
    assert data["auto_pass"] is False and MatchRules.from_dict(data).auto_pass is False
    del data["auto_pass"]  # a match stored before the rule existed
    assert MatchRules.from_dict(data).auto_pass is True


def test_auto_pass_off_leaves_the_roll_to_its_player_until_no_move() -> None:
    m = stuck(auto_pass=False)
    result = m.apply(Roll(0, (4,)))
    assert not result.turn_forfeited
    assert (m.phase, m.turn, m.actor, m.dice, m.position_id) == (
        Phase.MOVE,
        0,
        0,
        (4,),
        "012-123",
    )
    assert [m.format_move(mv) for mv in m.legal_moves()] == [NO_MOVE]
    (choice,) = m.legal_moves()
    assert m.parse_move(m.format_move(choice)) == choice  # round-trips like any move
    refused(m, Move(1, NO_MOVE), NotYourTurnError)
    refused(m, Roll(0, (3,)), PhaseError)  # rolled already
    refused(m, Double(0), CubeError)
    error = refused(m, Move(0, "H/4"), IllegalMoveError)
    assert "'no move'" in str(error) and "012-123" in str(error)
    refused(m, Move(0, "garbage"), IllegalMoveError)
    refused(m, Move(0, None), InvalidNotationError)  # type: ignore[arg-type]
    result = m.apply(Move(0, "  No   MOVE "))
    assert result.turn_forfeited and result.action == Move(0, NO_MOVE)
    # Exactly where the automatic pass leaves the match (only the rule differs).
    auto = stuck()
    assert auto.apply(Roll(0, (4,))).turn_forfeited
    mine, theirs = m.snapshot(), auto.snapshot()
    assert mine["rules"]["auto_pass"] is False and theirs["rules"]["auto_pass"] is True
    assert {**mine, "rules": None} == {**theirs, "rules": None}
    assert m.last_move is not None and m.format_move(m.last_move[1]) == "H/3"
    replayed = DiceMatch.replay(VARIANT, m.rules, [a.to_dict() for a in m.actions])
    assert replayed.snapshot() == mine


def test_no_move_is_refused_while_a_move_exists() -> None:
    for auto_pass in (False, True):
        m = stuck(auto_pass=auto_pass)
        m.apply(Roll(0, (3,)))
        assert NO_MOVE not in [m.format_move(mv) for mv in m.legal_moves()]
        error = refused(m, Move(0, "no move"), IllegalMoveError)
        assert "only for a roll that can't be played" in str(error)


def test_a_waiting_pass_survives_snapshots_resignations_and_replay() -> None:
    m = stuck(auto_pass=False)
    m.apply(Roll(0, (4,)))
    snap = m.snapshot()
    assert snap["phase"] == "move" and snap["dice"] == [4]
    back = DiceMatch.from_snapshot(VARIANT, json.loads(json.dumps(snap)))
    assert back.snapshot() == snap
    assert DiceMatch.replay(VARIANT, m.rules, m.actions).snapshot() == snap
    play(back, Resign(0, ResignLevel.SINGLE), DeclineResign(1))
    assert back.phase is Phase.MOVE and [str(mv) for mv in back.legal_moves()] == [NO_MOVE]
    assert back.apply(Move(0, "nomove")).turn_forfeited
    assert (back.phase, back.turn) == (Phase.ROLL, 1)


def test_auto_pass_off_applies_to_a_stuck_opening_roll() -> None:
    m = DiceMatch(StuckStartNannon(), MatchRules(length=3, auto_pass=False))
    result = m.apply(OpeningRoll(None, (5, 1)))
    assert not result.turn_forfeited and result.opening_dice == (5, 1)
    assert (m.phase, m.turn, m.dice) == (Phase.MOVE, 0, (4,))
    assert m.apply(Move(0, NO_MOVE)).turn_forfeited
    assert (m.phase, m.turn, m.dice, m.position_id) == (Phase.ROLL, 1, None, "123-012")


def test_backgammon_dance_waits_for_no_move_when_auto_pass_is_off() -> None:
    from engines.backgammon import BAR
    from engines.backgammon import Position as BgPosition

    m = backgammon(5, auto_pass=False)
    play(m, OpeningRoll(None, (3, 1)), Move(0, "8/5 6/5"))
    # Seat 1 on the bar against a closed board: nothing enters.
    mine = [0] * 26
    mine[BAR], mine[13] = 1, 14
    theirs = [0] * 26
    for point in range(1, 7):
        theirs[point] = 2
    theirs[13] = 3
    m.position = BgPosition(tuple(mine), tuple(theirs))
    m.apply(Roll(1, (6, 4)))
    assert m.phase is Phase.MOVE and [m.format_move(mv) for mv in m.legal_moves()] == [NO_MOVE]
    refused(m, Move(1, "bar/21 13/7"), IllegalMoveError)
    assert m.apply(Move(1, "NO MOVE")).turn_forfeited
    assert (m.phase, m.turn, m.dice) == (Phase.ROLL, 0, None)


def test_draw_actions_do_not_exist_in_dice_games() -> None:
    m = started()
    for action in (OfferDraw(1), AcceptDraw(0)):
        assert "no draw" in str(refused(m, action, PhaseError))


# -- the cube --------------------------------------------------------------------------------


def test_double_take_gives_the_taker_the_cube_at_twice_the_value() -> None:
    m = started()
    assert m.can_double(1) and not m.can_double(0)
    m.apply(Double(1))
    assert (m.phase, m.actor, m.cube_offered_by) == (Phase.CUBE_OFFERED, 0, 1)
    m.apply(Take(0))
    assert m.cube == Cube(2, 0)
    assert (m.phase, m.turn, m.actor, m.cube_offered_by) == (Phase.ROLL, 1, 1, None)


def test_cube_refusal_reasons() -> None:
    m = started()
    assert refused(m, Double(0), CubeError).reason is CubeErrorReason.NOT_YOUR_TURN  # type: ignore[attr-defined]
    play(m, Double(1), Take(0))
    assert refused(m, Double(1), CubeError).reason is CubeErrorReason.NOT_OWNER  # type: ignore[attr-defined]
    play(m, Roll(1, (3,)))
    assert refused(m, Double(1), CubeError).reason is CubeErrorReason.ALREADY_ROLLED  # type: ignore[attr-defined]
    assert refused(m, Take(0), CubeError).reason is CubeErrorReason.NO_OFFER  # type: ignore[attr-defined]
    assert refused(m, Drop(0), CubeError).reason is CubeErrorReason.NO_OFFER  # type: ignore[attr-defined]
    play(m, Move(1, "H/3"), Double(0))
    assert refused(m, Double(1), CubeError).reason is CubeErrorReason.OFFER_PENDING  # type: ignore[attr-defined]
    refused(m, Take(0), NotYourTurnError)  # the doubler can't answer their own double
    play(m, Take(1))
    assert m.cube == Cube(4, 1)


def test_no_cube_when_the_match_is_played_without_it() -> None:
    m = nannon(cube=False)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    assert refused(m, Double(1), CubeError).reason is CubeErrorReason.NO_CUBE  # type: ignore[attr-defined]
    assert not m.can_double(1)


def test_redoubles_are_unlimited() -> None:
    m = nannon(10_000)  # a cube worth the match would be dead (the dead-cube ruling)
    doubler = 0
    for power in range(1, 13):  # up to 4096, redoubled by alternating owners
        play(m, OpeningRoll(None, (2, 2)), Double(doubler), Take(1 - doubler))
        assert m.cube == Cube(2**power, 1 - doubler)
        assert not m.can_double(doubler)
        doubler = 1 - doubler
    play(m, OpeningRoll(None, (4, 4)), Double(doubler), Drop(1 - doubler))
    assert m.score == (4096, 0)  # the drop costs the stake before the redouble


def test_drop_loses_the_stake_before_the_double() -> None:
    m = started()
    play(m, Double(1), Take(0), Roll(1, (3,)), Move(1, "H/3"), Double(0))
    result = m.apply(Drop(1))
    assert result.game_result is not None
    g = result.game_result
    assert (g.winner, g.kind, g.points, g.cube) == (0, ResultKind.DROP, 2, 2)
    assert m.score == (2, 0)
    assert m.game_number == 2 and m.phase is Phase.OPENING
    assert m.cube == Cube()


# -- resignations ----------------------------------------------------------------------------


def test_resign_offer_accept_scores_level_times_cube() -> None:
    m = started()
    play(m, Double(1), Take(0))
    m.apply(Resign(1, ResignLevel.GAMMON))
    assert (m.phase, m.actor, m.resign_offer) == (Phase.RESIGN_OFFERED, 0, (1, ResignLevel.GAMMON))
    refused(m, AcceptResign(1), NotYourTurnError)
    refused(m, Roll(1, (3,)), PhaseError)
    result = m.apply(AcceptResign(0))
    assert result.game_result is not None
    g = result.game_result
    assert (g.winner, g.kind, g.points, g.cube) == (0, ResultKind.RESIGN, 4, 2)
    assert m.score == (4, 0)
    assert m.is_over() and m.winner() == 0 and m.phase is Phase.MATCH_OVER


def test_declined_resign_returns_to_the_previous_phase() -> None:
    for setup in ((), (Roll(1, (3,)),)):
        m = started()
        play(m, *setup)
        phase, actor = m.phase, m.actor
        play(m, Resign(0, ResignLevel.SINGLE), DeclineResign(1))
        assert (m.phase, m.actor, m.resign_offer) == (phase, actor, None)


def test_resign_levels_come_from_the_variant() -> None:
    m = started()
    err = refused(m, Resign(1, ResignLevel.BACKGAMMON), IllegalMoveError)
    assert "single, a NANNON" in str(err)  # as /rules and the prompts word it


def test_either_seat_may_resign_in_the_opening() -> None:
    m = nannon()
    play(m, Resign(0, ResignLevel.SINGLE), AcceptResign(1))
    assert m.score == (0, 1)
    assert m.game_number == 2


def test_concede_match_gives_the_opponent_what_they_still_needed() -> None:
    m = nannon(5)
    play(m, *NANNON_GAME)
    assert m.score == (2, 0)
    result = m.apply(ConcedeMatch(0, "left"))
    assert result.match_over
    assert result.game_result is not None
    assert (result.game_result.winner, result.game_result.kind) == (1, ResultKind.FORFEIT)
    assert result.game_result.points == 5
    assert m.score == (2, 5) and m.winner() == 1
    refused(m, ConcedeMatch(1), PhaseError)
    refused(m, OpeningRoll(None, (3, 4)), PhaseError)


def test_concede_is_allowed_while_a_double_waits() -> None:
    # Leaving (or losing on time) is match-level: it ends the match even mid-offer.
    m = started()
    m.apply(Double(1))
    m.apply(ConcedeMatch(0, "timeout"))
    assert m.winner() == 1 and m.score == (0, 3)


# -- a scripted match and the Crawford rule ---------------------------------------------------


def test_match_to_3_with_doubles_takes_drops_and_a_nannon() -> None:
    m = nannon(3)
    # Game 1: seat 1 doubles, seat 0 takes, later redoubles and seat 1 drops: 2 points.
    play(
        m,
        OpeningRoll(None, (6, 1)),
        Move(0, "2/S"),
        Double(1),
        Take(0),
        Roll(1, (5,)),
        Move(1, "H/5"),
        Roll(0, (6,)),
        Move(0, "1/S"),
        Roll(1, (1,)),
        Move(1, "5/6"),
        Double(0),
    )
    assert m.cube == Cube(2, 0)
    result = m.apply(Drop(1))
    assert result.game_result is not None and result.game_result.points == 2
    assert m.score == (2, 0)
    # Game 2 is the Crawford game: seat 0 reached 2 = N-1.
    assert m.crawford_game and not m.post_crawford and m.game_number == 2
    m.apply(OpeningRoll(None, (1, 6)))
    for action in mirrored(NANNON_GAME)[1:]:
        if isinstance(action, Roll):
            assert not m.can_double(action.player or 0)
            err = refused(m, Double(action.player), CubeError)
            assert err.reason is CubeErrorReason.CRAWFORD  # type: ignore[attr-defined]
        result = m.apply(action)
    assert result.game_result is not None
    assert (result.game_result.kind, result.game_result.points) == (ResultKind.NANNON, 2)
    assert m.score == (2, 2)
    # Game 3 is post-Crawford at double match point: the cube is dead for both (the dead-cube
    # ruling), so nobody doubles. Seat 1 resigns.
    assert not m.crawford_game and m.post_crawford
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    assert refused(m, Double(1), CubeError).reason is CubeErrorReason.DEAD  # type: ignore[attr-defined]
    result = m.apply(Resign(1, ResignLevel.SINGLE))
    result = m.apply(AcceptResign(0))
    assert result.match_over
    assert m.score == (3, 2)
    assert m.winner() == 0 and m.is_over()
    assert [(g.winner, g.kind, g.points, g.cube) for g in m.games] == [
        (0, ResultKind.DROP, 2, 2),
        (1, ResultKind.NANNON, 2, 1),
        (0, ResultKind.RESIGN, 1, 1),
    ]
    assert sum(g.points for g in m.games if g.winner == 0) == m.score[0]
    replayed = DiceMatch.replay(VARIANT, m.rules, [a.to_dict() for a in m.actions])
    assert replayed.snapshot() == m.snapshot()


def test_crawford_off_allows_doubling_at_match_point() -> None:
    m = nannon(3, crawford=False)
    play(m, *NANNON_GAME)
    assert m.score == (2, 0)
    assert not m.crawford_game and not m.post_crawford
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    assert m.can_double(1)


def test_crawford_happens_once_only() -> None:
    m = nannon(3)
    play(m, *NANNON_GAME)  # 2-0: game 2 is Crawford
    assert m.crawford_game
    play(m, *mirrored(NANNON_GAME))  # 2-2: game 3 is post-Crawford, never Crawford again
    assert m.score == (2, 2)
    assert not m.crawford_game and m.post_crawford


def test_game_scores_past_the_length_end_the_match() -> None:
    m = nannon(1)
    result = None
    for action in NANNON_GAME:
        result = m.apply(action)
    assert result is not None and result.match_over
    assert m.score == (2, 0) and m.winner() == 0
    assert m.phase is Phase.MATCH_OVER and m.actor is None
    refused(m, Roll(1, (3,)), PhaseError)
    refused(m, Double(1), PhaseError)


# -- the Nannon opening tie --------------------------------------------------------------------


def test_nannon_opening_tie_lets_either_player_double() -> None:
    m = nannon()
    m.apply(OpeningRoll(None, (4, 4)))
    assert (m.phase, m.actor) == (Phase.OPENING_TIE, None)
    assert m.can_double(0) and m.can_double(1)
    m.apply(Double(1))
    assert (m.phase, m.actor) == (Phase.CUBE_OFFERED, 0)
    m.apply(Take(0))
    assert m.cube == Cube(2, 0) and m.phase is Phase.OPENING
    m.apply(OpeningRoll(None, (2, 2)))  # another tie: only the owner may redouble
    assert m.phase is Phase.OPENING_TIE
    assert m.can_double(0) and not m.can_double(1)
    m.apply(OpeningRoll(None, (3, 1)))  # or simply roll again
    assert m.phase is Phase.MOVE and m.dice == (2,) and m.cube == Cube(2, 0)


def test_opening_tie_without_a_cube_just_rolls_again() -> None:
    m = nannon(cube=False)
    m.apply(OpeningRoll(None, (5, 5)))
    assert m.phase is Phase.OPENING and m.opening_dice == (5, 5)


def test_drop_on_an_opening_tie_double() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (1, 1)), Double(0), Drop(1))
    assert m.score == (1, 0) and m.game_number == 2


# -- snapshots ---------------------------------------------------------------------------------


def test_snapshot_is_plain_json_and_round_trips_in_every_phase() -> None:
    m = nannon(3)
    script: list[Action] = [
        OpeningRoll(None, (3, 3)),
        Double(0),
        Take(1),
        OpeningRoll(None, (6, 1)),
        Move(0, "2/S"),
        Roll(1, (3,)),
        Resign(0, ResignLevel.SINGLE),
        DeclineResign(1),
        Move(1, "H/3"),
    ]
    seen = set()
    for action in script:
        m.apply(action)
        snap = m.snapshot()
        seen.add(snap["phase"])
        assert json.loads(json.dumps(snap)) == snap
        assert snap["kind"] == "nannon" and "actions" not in snap
        back = DiceMatch.from_snapshot(VARIANT, snap)
        assert back.snapshot() == snap
        assert engines.match_from_snapshot(snap).snapshot() == snap
        assert back.last_move == m.last_move
        replayed = DiceMatch.replay(VARIANT, m.rules, m.actions)
        assert replayed.snapshot() == snap
    assert len(seen) >= 5


def test_from_snapshot_rejects_the_wrong_kind_and_garbage() -> None:
    snap = nannon().snapshot()
    with pytest.raises(ValueError, match="not a nannon"):
        DiceMatch.from_snapshot(VARIANT, {**snap, "kind": "backgammon"})
    with pytest.raises(ValueError):
        DiceMatch.from_snapshot(VARIANT, {"kind": "nannon"})
    with pytest.raises(ValueError):
        DiceMatch.from_snapshot(VARIANT, {**snap, "position": "999-999"})


def test_factory_makes_nannon_matches() -> None:
    m = engines.new_match("nannon", MatchRules(length=3))
    assert isinstance(m, DiceMatch)
    m.apply(OpeningRoll(None, (6, 1)))
    again = engines.replay(GameKind.NANNON, m.rules, [a.to_dict() for a in m.actions])
    assert again.snapshot() == m.snapshot()
    with pytest.raises(ValueError, match="unknown game kind"):
        engines.new_match("chess", MatchRules(length=1))
    with pytest.raises(ValueError):
        engines.match_from_snapshot({"no": "kind"})


# -- random matches (hypothesis) ---------------------------------------------------------------


def random_action(m: DiceMatch, rng: random.Random, dice: RandomDice) -> Action:
    """A random acceptable action, mixing in cube play and resignations."""
    phase = m.phase
    if rng.random() < 0.002:
        return ConcedeMatch(rng.randrange(2), "left")
    if phase in (Phase.OPENING, Phase.OPENING_TIE):
        doublers = [s for s in (0, 1) if m.can_double(s)]
        if phase is Phase.OPENING_TIE and doublers and rng.random() < 0.3:
            return Double(rng.choice(doublers))
        if rng.random() < 0.02:
            return Resign(rng.randrange(2), rng.choice(VARIANT.resign_levels))
        return OpeningRoll(rng.choice((None, 0, 1)), (dice.roll_die(), dice.roll_die()))
    if phase is Phase.CUBE_OFFERED:
        taker = m.actor
        assert taker is not None
        return Take(taker) if rng.random() < 0.75 else Drop(taker)
    if phase is Phase.RESIGN_OFFERED:
        other = m.actor
        assert other is not None
        return AcceptResign(other) if rng.random() < 0.5 else DeclineResign(other)
    if rng.random() < 0.01:
        return Resign(rng.randrange(2), rng.choice(VARIANT.resign_levels))
    if phase is Phase.ROLL:
        if m.can_double(m.turn) and rng.random() < 0.15:
            return Double(m.turn)
        return Roll(m.turn, (dice.roll_die(),))
    moves = m.legal_moves()
    text = str(rng.choice(moves))
    return Move(m.turn, rng.choice((text, text.lower(), f" {text.rstrip('*')} ")))


def check_invariants(m: DiceMatch) -> None:
    pos = m.position
    assert len(pos.mine) == len(pos.theirs) == 3
    assert Position.from_id(m.position_id) == pos
    for move in m.legal_moves():
        assert m.parse_move(m.format_move(move)) == move
    assert m.phase is Phase.MATCH_OVER or not pos.is_over()
    for seat in (0, 1):
        assert sum(g.points for g in m.games if g.winner == seat) == m.score[seat]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.integers(1, 7),
    crawford=st.booleans(),
    cube=st.booleans(),
    auto_pass=st.booleans(),
)
def test_random_nannon_matches_keep_every_invariant(
    seed: int, length: int, crawford: bool, cube: bool, auto_pass: bool
) -> None:
    rng = random.Random(seed)
    dice = RandomDice(random.Random(seed ^ 0x5EED))
    m = nannon(length, crawford=crawford, cube=cube, auto_pass=auto_pass)
    wrong = [Roll(0, (3,)), Move(1, "H/3"), Double(0), Take(1), AcceptResign(0), Drop(0)]
    for _ in range(5000):
        if m.is_over():
            break
        # A refused action changes nothing; an accepted one keeps the invariants.
        probe = rng.choice(wrong)
        before = m.snapshot()
        try:
            m.apply(probe)
        except GameError:
            assert m.snapshot() == before
        check_invariants(m)
        if m.is_over():
            break
        m.apply(random_action(m, rng, dice))
        check_invariants(m)
    assert m.is_over(), "the match did not finish"
    winner = m.winner()
    assert winner is not None
    assert m.score[winner] >= length or m.games[-1].kind is ResultKind.FORFEIT
    assert m.score[1 - winner] < length
    snap = m.snapshot()
    assert DiceMatch.from_snapshot(VARIANT, snap).snapshot() == snap
    assert DiceMatch.replay(VARIANT, m.rules, m.actions).snapshot() == snap
    dicts = json.loads(json.dumps([a.to_dict() for a in m.actions]))
    replayed = engines.replay("nannon", m.rules, [action_from_dict(d) for d in dicts])
    assert replayed.snapshot() == snap


# -- backgammon through the same DiceMatch ------------------------------------------------------


def backgammon(length: int, **options: Any) -> DiceMatch:
    from engines.backgammon import VARIANT as BACKGAMMON

    return DiceMatch(BACKGAMMON, MatchRules(length=length, **options))


def gammon_in_one(m: DiceMatch) -> None:
    """Give the seat on turn one checker on its 1-point (14 off) against 15 on the opponent's
    own 6-point: any roll bears off and wins a gammon (nothing off, none in my home board)."""
    from engines.backgammon import Position as BgPosition

    mine = [0] * 26
    mine[0], mine[1] = 14, 1
    theirs = [0] * 26
    theirs[6] = 15
    m.position = BgPosition(tuple(mine), tuple(theirs))


def test_backgammon_opening_plays_both_dice_and_ties_roll_again() -> None:
    m = backgammon(5)
    m.apply(OpeningRoll(None, (4, 4)))
    assert m.phase is Phase.OPENING and m.cube == Cube()  # no cube on a backgammon tie
    assert not m.can_double(0) and not m.can_double(1)
    m.apply(OpeningRoll(None, (1, 3)))
    assert (m.turn, m.dice, m.phase) == (1, (3, 1), Phase.MOVE)
    result = m.apply(Move(1, "8/5 6/5"))
    assert result.action == Move(1, "8/5 6/5")
    assert m.phase is Phase.ROLL and m.turn == 0 and m.can_double(0)


def test_backgammon_crawford_game_in_a_match_to_5() -> None:
    m = backgammon(5)
    play(m, Resign(0, ResignLevel.GAMMON), AcceptResign(1))
    assert m.score == (0, 2) and not m.crawford_game
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"), Double(1), Take(0))
    play(m, Resign(0, ResignLevel.SINGLE), AcceptResign(1))
    assert m.score == (0, 4)  # seat 1 first reaches N-1 = 4
    assert m.crawford_game and not m.post_crawford
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"))
    assert not m.can_double(1) and not m.can_double(0)
    with pytest.raises(CubeError) as info:
        m.apply(Double(1))
    assert info.value.reason is CubeErrorReason.CRAWFORD
    play(m, Resign(1, ResignLevel.SINGLE), AcceptResign(0))
    assert m.score == (1, 4) and m.post_crawford and not m.crawford_game
    assert m.cube_dead(1) and not m.cube_dead(0)  # seat 1 is 1 away: its cube is dead
    play(m, OpeningRoll(None, (1, 6)), Move(1, "13/7 8/7"), Double(0), Take(1))
    assert m.cube == Cube(2, 1)
    play(m, Resign(1, ResignLevel.BACKGAMMON), AcceptResign(0))
    assert m.score == (7, 4) and m.winner() == 0 and m.is_over()


def test_backgammon_money_game_is_a_single_game() -> None:
    m = backgammon(0)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"))
    gammon_in_one(m)
    result = m.apply(Roll(1, (6, 5)))
    assert not result.turn_forfeited
    result = m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    assert result.match_over and result.game_result is not None
    assert (result.game_result.kind, result.game_result.points) == (ResultKind.GAMMON, 2)
    assert m.winner() == 1 and m.score == (0, 2) and m.game_number == 1


def test_jacoby_gammon_counts_single_while_the_cube_is_centred() -> None:
    m = backgammon(0, jacoby=True)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"))
    gammon_in_one(m)
    play(m, Roll(1, (6, 5)))
    result = m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    assert result.game_result is not None
    assert (result.game_result.kind, result.game_result.points) == (ResultKind.GAMMON, 1)


def test_jacoby_gammon_counts_double_once_the_cube_was_turned() -> None:
    m = backgammon(0, jacoby=True)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"), Double(1), Take(0))
    gammon_in_one(m)
    play(m, Roll(1, (6, 5)))
    result = m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    assert result.game_result is not None
    assert (result.game_result.kind, result.game_result.cube) == (ResultKind.GAMMON, 2)
    assert result.game_result.points == 4


def test_jacoby_applies_to_resignations_too() -> None:
    m = backgammon(0, jacoby=True)
    play(m, Resign(0, ResignLevel.BACKGAMMON), AcceptResign(1))
    assert m.score == (0, 1)
    m = backgammon(0)
    play(m, Resign(0, ResignLevel.BACKGAMMON), AcceptResign(1))
    assert m.score == (0, 3)


def test_auto_doubles_double_the_centred_cube_up_to_the_limit() -> None:
    m = backgammon(0, auto_doubles=2)
    for dice, value in (((3, 3), 2), ((5, 5), 4), ((2, 2), 4), ((6, 6), 4)):
        m.apply(OpeningRoll(None, dice))
        assert m.cube == Cube(value, None) and m.phase is Phase.OPENING
    m.apply(OpeningRoll(None, (6, 1)))
    assert m.cube == Cube(4, None) and m.phase is Phase.MOVE
    snap = m.snapshot()
    assert snap["auto_doubles"] == 2
    assert DiceMatch.replay(m.variant, m.rules, m.actions).snapshot() == snap
    # A centred cube is still centred after automatic doubles: either side may turn it.
    m.apply(Move(0, "13/7 8/7"))
    assert m.can_double(1)


def test_auto_doubles_default_off_and_once_when_set_to_one() -> None:
    m = backgammon(0)
    m.apply(OpeningRoll(None, (3, 3)))
    assert m.cube == Cube()
    m = backgammon(0, auto_doubles=1)
    play(m, OpeningRoll(None, (3, 3)), OpeningRoll(None, (4, 4)))
    assert m.cube == Cube(2, None)


def test_money_concede_scores_the_cube() -> None:
    m = backgammon(0)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "13/7 8/7"), Double(1), Take(0))
    m.apply(ConcedeMatch(1, "left"))
    assert m.score == (2, 0) and m.winner() == 0


def test_backgammon_snapshot_and_factory_round_trip() -> None:
    m = engines.new_match("backgammon", MatchRules(length=3))
    assert isinstance(m, DiceMatch)
    rng = random.Random(5)
    dice = RandomDice(random.Random(6))
    for _ in range(60):
        if m.is_over():
            break
        if m.phase in (Phase.OPENING, Phase.OPENING_TIE):
            m.apply(OpeningRoll(None, (dice.roll_die(), dice.roll_die())))
        elif m.phase is Phase.ROLL:
            m.apply(Roll(m.turn, (dice.roll_die(), dice.roll_die())))
        else:
            move = rng.choice(m.legal_moves())
            assert m.parse_move(m.format_move(move)) == move
            m.apply(Move(m.turn, m.format_move(move)))
        snap = m.snapshot()
        assert json.loads(json.dumps(snap)) == snap
        back = engines.match_from_snapshot(snap)
        assert back.snapshot() == snap
        assert isinstance(back, DiceMatch) and back.last_move == m.last_move
    replayed = engines.replay("backgammon", m.rules, [a.to_dict() for a in m.actions])
    assert replayed.snapshot() == m.snapshot()


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=50))
def test_hostile_move_text_raises_only_notation_or_legality_errors(text: str) -> None:
    m = started()
    m.apply(Roll(1, (3,)))
    before = m.snapshot()
    try:
        result = m.apply(Move(1, text))
    except (InvalidNotationError, IllegalMoveError):
        assert m.snapshot() == before
    else:
        assert result.action in {
            Move(1, str(mv))
            for mv in VARIANT.legal_moves(Position.from_id(before["position"]), (3,))
        }


def test_non_string_move_text_is_invalid_notation() -> None:
    m = started()
    m.apply(Roll(1, (3,)))
    for value in (None, 42, ["H/3"]):
        refused(m, Move(1, value), InvalidNotationError)  # type: ignore[arg-type]
