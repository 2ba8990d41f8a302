"""One named test per backgammon ruling in docs/rules.md, plus the shared cube one."""

from __future__ import annotations

import pytest

from engines.actions import (
    AcceptResign,
    ConcedeMatch,
    DeclineResign,
    Double,
    Drop,
    Move,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.backgammon import BAR, OFF, VARIANT, CheckerMove, Outcome, Position
from engines.base import MatchRules, Phase, ResignLevel, ResultKind
from engines.errors import CubeError, CubeErrorReason, GameError, PhaseError
from engines.match import DiceMatch


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    sides = []
    for spec in (mine, theirs):
        side = [0] * 26
        for point, count in spec.items():
            side[point] = count
        side[OFF] = 15 - sum(side)
        sides.append(tuple(side))
    return Position(sides[0], sides[1])


def texts(position: Position, d1: int, d2: int) -> set[str]:
    return {str(play) for play in position.legal_plays(d1, d2)}


def match(length: int, **options: bool | int) -> DiceMatch:
    return DiceMatch(VARIANT, MatchRules(length, **options))  # type: ignore[arg-type]


def started(length: int, **options: bool | int) -> DiceMatch:
    """Seat 0 won the opening 6-1 and played 13/7 8/7: seat 1 is to roll or double."""
    m = match(length, **options)
    m.apply(OpeningRoll(None, (6, 1)))
    m.apply(Move(0, "13/7 8/7"))
    return m


def test_ruling_standard_start_fifteen_checkers_two_dice_doubles_four_times() -> None:
    start = Position.initial()
    for side in (start.mine, start.theirs):
        assert sum(side) == 15
        assert {p: n for p, n in enumerate(side) if n} == {24: 2, 13: 5, 8: 3, 6: 5}
    assert VARIANT.dice_count == 2
    assert all(len(play.moves) == 4 for play in start.legal_plays(3, 3))


def test_ruling_both_dice_must_be_used_if_possible() -> None:
    # 24/19 alone would leave the 6 unplayed; 24/19/13 plays both.
    position = pos({24: 1, 2: 14}, {7: 2, 20: 13})
    assert texts(position, 6, 5) == {"24/13"}


def test_ruling_larger_die_when_only_one_can_be_used() -> None:
    position = pos({24: 1, 2: 14}, {12: 2, 20: 13})  # 13 blocked: one die only, either fits
    assert texts(position, 6, 5) == {"24/18"}
    position = pos({24: 1, 2: 14}, {12: 2, 7: 2, 20: 11})  # 18 blocked too: the 5 it is
    assert texts(position, 6, 5) == {"24/19"}


def test_ruling_doubles_play_as_many_as_possible() -> None:
    position = pos({24: 1, 2: 14}, {21: 2})  # the fourth five would land on a block
    (play,) = position.legal_plays(5, 5)
    assert len(play.moves) == 3 and str(play) == "24/9"


def test_ruling_bar_checkers_enter_before_any_other_move() -> None:
    five_point_board = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}
    position = pos({BAR: 1, 13: 5, 8: 4, 6: 5}, five_point_board)
    plays = position.legal_plays(6, 4)
    assert plays and all(play.moves[0] == CheckerMove(BAR, 19) for play in plays)
    closed = pos({BAR: 1, 13: 14}, {p: 2 for p in range(1, 7)})
    assert closed.legal_plays(6, 4) == ()


def test_ruling_bear_off_only_with_all_fifteen_home() -> None:
    position = pos({7: 1, 6: 2, 1: 2}, {23: 2})
    assert texts(position, 6, 1) == {"7/off", "7/1 6/5"}  # the 6 bears off only after 7/6
    assert all(
        m.dst != OFF or m.src <= 6 for play in position.legal_plays(6, 5) for m in play.moves
    )


def test_ruling_higher_die_bears_off_from_highest_point_only() -> None:
    position = pos({5: 1, 3: 1}, {23: 2})
    assert texts(position, 6, 4) == {"5/off 3/off", "5/1 3/off"}
    assert texts(position, 4, 1) == {"5/off"}  # no 3/off with the 4 while the 5 is there


def test_ruling_opening_roll_higher_die_plays_both_numbers_ties_rolled_again() -> None:
    m = match(5)
    m.apply(OpeningRoll(None, (3, 3)))
    assert m.phase is Phase.OPENING and m.cube.value == 1
    m.apply(OpeningRoll(None, (2, 5)))
    assert m.turn == 1 and m.dice == (5, 2) and m.phase is Phase.MOVE
    assert VARIANT.opening_dice(5, 2) == (5, 2)


@pytest.mark.parametrize(
    ("loser", "kind", "points"),
    [
        ({OFF: 1, 6: 14}, ResultKind.SINGLE, 1),
        ({6: 15}, ResultKind.GAMMON, 2),
        ({BAR: 1, 6: 14}, ResultKind.BACKGAMMON, 3),
        ({20: 1, 6: 14}, ResultKind.BACKGAMMON, 3),
    ],
)
def test_ruling_scoring_single_gammon_backgammon(
    loser: dict[int, int], kind: ResultKind, points: int
) -> None:
    side = [0] * 26
    for point, count in loser.items():
        side[point] = count
    position = Position(tuple(side), (15,) + (0,) * 25)
    assert position.outcome() == Outcome("theirs", kind, points)


def test_ruling_result_is_multiplied_by_the_cube() -> None:
    m = started(0)
    m.apply(Double(1))
    m.apply(Take(0))
    m.apply(Roll(1, (2, 1)))
    m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    m.apply(Double(0))
    m.apply(Take(1))
    m.apply(Roll(0, (4, 2)))
    m.apply(Resign(0, ResignLevel.GAMMON))
    result = m.apply(AcceptResign(1)).game_result
    assert result is not None and result.points == 2 * 4 and result.cube == 4


def test_ruling_double_only_before_rolling_with_centred_or_own_cube() -> None:
    m = started(5)
    m.apply(Roll(1, (4, 3)))
    with pytest.raises(CubeError) as rolled:
        m.apply(Double(1))
    assert rolled.value.reason is CubeErrorReason.ALREADY_ROLLED
    m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    m.apply(Double(0))
    m.apply(Take(1))
    m.apply(Roll(0, (2, 1)))
    m.apply(Move(0, m.format_move(m.legal_moves()[0])))
    m.apply(Roll(1, (2, 1)))
    m.apply(Move(1, m.format_move(m.legal_moves()[0])))
    with pytest.raises(CubeError) as owner:
        m.apply(Double(0))  # seat 1 owns the cube now
    assert owner.value.reason is CubeErrorReason.NOT_OWNER


def test_ruling_pass_loses_the_stake_before_the_double() -> None:
    m = started(5)
    m.apply(Double(1))
    result = m.apply(Drop(0)).game_result
    assert result is not None and (result.winner, result.points) == (1, 1)


def test_ruling_take_gives_the_taker_ownership_and_no_redouble_limit() -> None:
    m = started(0)
    turn = 1
    for value in (2, 4, 8, 16, 32, 64, 128):
        m.apply(Double(turn))
        m.apply(Take(1 - turn))
        assert m.cube.value == value and m.cube.owner == 1 - turn
        m.apply(Roll(turn, (2, 1)))
        m.apply(Move(turn, m.format_move(m.legal_moves()[0])))
        turn = 1 - turn


def test_ruling_offered_double_must_be_answered_before_anything_else() -> None:
    m = started(5)
    m.apply(Double(1))
    for action in (Roll(1, (3, 1)), Roll(0, (3, 1)), Resign(0, ResignLevel.SINGLE)):
        with pytest.raises(GameError):
            m.apply(action)
    m.apply(Take(0))
    m.apply(Roll(1, (3, 1)))


def test_ruling_crawford_rule_on_by_default_in_match_play() -> None:
    assert MatchRules(5).crawford
    m = match(3)
    m.apply(OpeningRoll(None, (6, 1)))
    m.apply(Resign(1, ResignLevel.GAMMON))
    m.apply(AcceptResign(0))
    assert m.crawford_game
    m.apply(OpeningRoll(None, (6, 1)))
    m.apply(Move(0, "13/7 8/7"))
    with pytest.raises(CubeError) as info:
        m.apply(Double(1))
    assert info.value.reason is CubeErrorReason.CRAWFORD


def test_ruling_jacoby_gammon_counts_single_unless_cube_turned() -> None:
    m = started(0, jacoby=True)
    m.apply(Resign(1, ResignLevel.GAMMON))
    result = m.apply(AcceptResign(0)).game_result
    assert result is not None and result.points == 1
    m = started(0, jacoby=True)
    m.apply(Double(1))
    m.apply(Take(0))
    m.apply(Resign(1, ResignLevel.GAMMON))
    result = m.apply(AcceptResign(0)).game_result
    assert result is not None and result.points == 4


def test_ruling_jacoby_and_automatic_doubles_are_money_only() -> None:
    for options in ({"jacoby": True}, {"auto_doubles": 1}):
        with pytest.raises(GameError):
            match(5, **options)


def test_ruling_automatic_doubles_at_most_once_by_default() -> None:
    m = match(0, auto_doubles=1)
    m.apply(OpeningRoll(None, (2, 2)))
    m.apply(OpeningRoll(None, (5, 5)))
    assert m.cube.value == 2 and m.cube.owner is None


def test_ruling_resign_is_an_offer_accepted_or_declined() -> None:
    m = started(7)
    m.apply(Resign(1, ResignLevel.BACKGAMMON))
    m.apply(DeclineResign(0))
    assert m.phase is Phase.ROLL and m.turn == 1  # play goes on
    m.apply(Double(1))
    m.apply(Take(0))
    m.apply(Resign(1, ResignLevel.GAMMON))
    result = m.apply(AcceptResign(0)).game_result
    assert result is not None and result.points == 2 * 2


def test_ruling_leaving_a_match_concedes_the_match() -> None:
    m = started(7)
    result = m.apply(ConcedeMatch(1, "left"))
    assert result.match_over and m.is_over() and m.winner() == 0
    with pytest.raises(PhaseError):
        m.apply(Roll(1, (3, 1)))


def test_ruling_dead_cube_no_double_when_a_win_at_its_value_takes_the_match() -> None:
    """docs/rules.md, dead cube (issue 33): a 1-point match, a player 1 away after the
    Crawford game, a cube worth the points a player needs; a recorded log still replays."""
    one_point = started(1)
    assert one_point.cube_dead(1) and not one_point.can_double(1)
    with pytest.raises(CubeError) as info:
        one_point.apply(Double(1))
    assert info.value.reason is CubeErrorReason.DEAD and info.value.code == "dead_cube"
    one_point.apply(Roll(1, (3, 1)))  # the player rolls instead

    m = match(3)  # seat 1 wins a gammon: 0-2, seat 1 is 1 away
    m.apply(OpeningRoll(None, (6, 1)))
    m.apply(Resign(0, ResignLevel.GAMMON))
    m.apply(AcceptResign(1))
    assert m.crawford_game  # the Crawford game: nobody doubles, seat 0 wins it
    m.apply(OpeningRoll(None, (6, 1)))
    m.apply(Resign(1, ResignLevel.SINGLE))
    m.apply(AcceptResign(0))
    assert m.score == (1, 2) and m.post_crawford
    m.apply(OpeningRoll(None, (1, 6)))  # seat 1 (1 away) opens; seat 0 may double, 1 may not
    m.apply(Move(1, "13/7 8/7"))
    assert m.can_double(0) and not m.cube_dead(0)
    m.apply(Double(0))
    m.apply(Take(1))  # the cube at 2: seat 0 (2 away) is now dead too, and owns nothing
    assert m.cube_dead(0) and m.cube_dead(1)

    # A log written before the ruling replays as it was played.
    recorded = DiceMatch.replay(VARIANT, MatchRules(1), [*started(1).actions, Double(1), Take(0)])
    assert recorded.cube.value == 2 and recorded.cube.owner == 0
