"""One test per Nannon ruling in docs/rules.md (and the cube and match rulings that
Nannon shares with backgammon). Each test name says which ruling it checks."""

from __future__ import annotations

import pytest

from engines.actions import (
    AcceptResign,
    Action,
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
from engines.base import MatchRules, Phase, ResignLevel, ResultKind
from engines.cube import Cube
from engines.errors import CubeError, CubeErrorReason, GameError, IllegalMoveError
from engines.match import DiceMatch
from engines.nannon import HOME, SAFETY, VARIANT, Position
from engines.nannon import Move as NMove


def ids_after(position_id: str, roll: int) -> list[str]:
    pos = Position.from_id(position_id)
    return sorted(pos.apply(m).id for m in pos.legal_moves(roll))


def moves(position_id: str, roll: int) -> list[str]:
    return [str(m) for m in Position.from_id(position_id).legal_moves(roll)]


def nannon(length: int = 3, **options: bool) -> DiceMatch:
    return DiceMatch(VARIANT, MatchRules(length=length, **options))


def play(m: DiceMatch, *actions: Action) -> None:
    for action in actions:
        m.apply(action)


# A NANNON for seat 0 (seat 1 never reaches SAFETY), from an opening 6-1.
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


# -- the board and the start ---------------------------------------------------------------


def test_ruling_six_spots_three_checkers_and_my_spot_k_is_opponent_spot_7_minus_k() -> None:
    # Three checkers a side, places HOME, 1..6, SAFETY.
    assert (HOME, SAFETY) == (0, 7)
    with pytest.raises(GameError):
        Position.from_id("0123-012")
    # My checker landing on my 3 hits the opponent checker that sits on *their* 4 (= 7 - 3).
    assert Position.from_id("002-004").legal_moves(1) == (
        NMove(0, 1, False),
        NMove(2, 3, True),
    )
    # Both colours can't share a physical spot: my 3 and their 4 are the same spot.
    with pytest.raises(GameError, match="spot 3"):
        Position.from_id("003-004")


def test_ruling_start_one_checker_at_home_and_one_each_on_spots_1_and_2() -> None:
    pos = Position.initial()
    assert pos.mine == pos.theirs == (HOME, 1, 2)
    assert pos.id == "012-012"
    assert nannon().position == pos


# -- moving --------------------------------------------------------------------------------


def test_ruling_one_die_a_turn_and_a_home_checker_enters_on_spot_d() -> None:
    assert VARIANT.dice_count == 1
    for roll in (3, 4):
        assert f"H/{roll}" in moves("012-012", roll)
    assert moves("001-000", 2) == ["H/2", "1/3"]


def test_ruling_a_checker_on_spot_s_moves_to_s_plus_d() -> None:
    assert moves("013-000", 2) == ["H/2", "3/5"]  # 1/3 would land on my own checker
    assert "1/4" in moves("012-012", 3)
    assert ids_after("001-000", 2) == ["000-003", "000-012"]


def test_ruling_past_spot_6_goes_to_safety_without_an_exact_roll() -> None:
    for roll in (3, 4, 5, 6):  # 4 + 3 = 7 > 6: even a 3 bears off (the ruling; not the sheet)
        assert "4/S" in moves("004-000", roll)
    assert "4/6" in moves("004-000", 2)
    assert "6/S" in moves("006-000", 1)
    assert "H/S" not in moves("000-000", 6)  # HOME enters on the spot, never straight off


# -- one checker a spot, hits and primes --------------------------------------------------


def test_ruling_a_spot_holds_one_checker_and_a_checker_may_not_land_on_its_own_colour() -> None:
    assert moves("024-000", 2) == ["4/6"]  # H/2 and 2/4 land on my own checkers
    with pytest.raises(GameError, match="two checkers on one spot"):
        Position((0, 3, 3), (0, 0, 0))
    with pytest.raises(IllegalMoveError, match="your own checker"):
        NMove.parse("2/4", Position.from_id("024-000"), 2)


def test_ruling_a_lone_opponent_checker_is_hit_and_goes_back_home() -> None:
    pos = Position.from_id("013-035")  # their 3 and 5 are my 4 and 2: not adjacent, both lone
    (hit,) = [m for m in pos.legal_moves(1) if m.src == 1]
    assert hit == NMove(1, 2, True) and str(hit) == "1/2*"
    after = pos.apply(hit)
    assert after.mine == (0, 0, 3)  # the hit checker went HOME (from their 5)
    assert after.theirs == (0, 2, 3)


def test_ruling_two_adjacent_checkers_form_a_prime_and_cannot_be_hit() -> None:
    pos = Position.from_id("003-056")  # their 5 and 6 are my 2 and 1: a prime
    assert [str(m) for m in pos.legal_moves(1)] == ["3/4"]  # H/1 can't hit the prime
    assert [str(m) for m in pos.legal_moves(2)] == ["3/5"]  # nor can H/2
    with pytest.raises(IllegalMoveError, match="prime"):
        NMove.parse("H/2", pos, 2)
    # Three in a row are a prime too, and a gap breaks it: their 4 and 6 (my 3 and 1) are lone.
    assert moves("000-456", 3) == []
    assert moves("000-046", 3) == ["H/3*"]
    assert moves("000-046", 1) == ["H/1*"]


# -- must move, or forfeit ----------------------------------------------------------------


def test_ruling_if_any_legal_move_exists_the_player_must_make_one() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"), Roll(1, (3,)))
    assert m.phase is Phase.MOVE and m.legal_moves()
    # There is no "pass" while a move exists: only a legal move ends the turn.
    for action in (Roll(1, (4,)), Move(1, "pass"), Double(1)):
        with pytest.raises(GameError):
            m.apply(action)
    assert m.phase is Phase.MOVE and m.turn == 1


def test_ruling_with_no_legal_move_the_turn_is_forfeited() -> None:
    assert Position.from_id("012-123").legal_moves(4) == ()  # 4, 5, 6 are their prime
    m = nannon()
    play(m, OpeningRoll(None, (2, 5)), Move(1, "H/3"))
    result = m.apply(Roll(0, (4,)))
    assert result.turn_forfeited
    assert (m.turn, m.phase, m.position_id) == (1, Phase.ROLL, "123-012")


# -- the opening roll -----------------------------------------------------------------------


def test_ruling_opening_higher_roll_moves_first_and_plays_the_difference() -> None:
    for dice, winner, roll in (((6, 2), 0, 4), ((1, 5), 1, 4), ((2, 1), 0, 1)):
        m = nannon()
        m.apply(OpeningRoll(None, dice))
        assert (m.turn, m.dice, m.phase) == (winner, (roll,), Phase.MOVE)


def test_ruling_opening_tie_is_rolled_again() -> None:
    m = nannon(cube=False)
    m.apply(OpeningRoll(None, (3, 3)))
    assert m.phase is Phase.OPENING and m.dice is None
    m.apply(OpeningRoll(None, (3, 5)))
    assert m.turn == 1 and m.dice == (2,)


def test_ruling_opening_tie_either_player_may_turn_the_centred_cube() -> None:
    for doubler in (0, 1):
        m = nannon()
        m.apply(OpeningRoll(None, (6, 6)))
        assert m.phase is Phase.OPENING_TIE and m.cube == Cube(1, None)
        assert m.can_double(0) and m.can_double(1)
        play(m, Double(doubler), Take(1 - doubler))
        assert m.cube == Cube(2, 1 - doubler)
        assert m.phase is Phase.OPENING  # then the opening is rolled again
        m.apply(OpeningRoll(None, (4, 1)))
        assert m.dice == (3,)


# -- winning and scoring ----------------------------------------------------------------------


def test_ruling_a_game_is_won_by_bearing_all_three_checkers_to_safety() -> None:
    assert not Position.from_id("023-677").is_over()
    assert Position.from_id("012-777").is_over()
    m = nannon(5)
    for action in NANNON_GAME:
        assert m.game_number == 1
        m.apply(action)
    assert m.game_number == 2 and m.games[0].winner == 0


def test_ruling_a_single_game_counts_one_point() -> None:
    assert Position.from_id("017-777").outcome().kind is ResultKind.SINGLE  # type: ignore[union-attr]
    assert VARIANT.result(Position.from_id("077-777")) == (ResultKind.SINGLE, 1)


def test_ruling_nannon_counts_two_when_the_loser_has_no_checker_in_safety() -> None:
    assert VARIANT.result(Position.from_id("456-777")) == (ResultKind.NANNON, 2)
    m = nannon(5)
    play(m, *NANNON_GAME)
    assert (m.games[0].kind, m.games[0].points) == (ResultKind.NANNON, 2)
    assert m.score == (2, 0)


def test_ruling_the_result_is_multiplied_by_the_cube_value() -> None:
    m = nannon(9)
    play(m, NANNON_GAME[0], NANNON_GAME[1], Double(1), Take(0), *NANNON_GAME[2:4], Double(0))
    play(m, Take(1), *NANNON_GAME[4:])
    g = m.games[0]
    assert (g.kind, g.cube, g.points) == (ResultKind.NANNON, 4, 8)
    assert m.score == (8, 0)


# -- the cube -----------------------------------------------------------------------------------


def test_ruling_the_cube_starts_centred_at_value_one() -> None:
    m = nannon()
    assert m.cube == Cube(1, None) and m.cube.centred
    # (the face shows 64 when centred: render's job; the stake is 1)


def test_ruling_before_rolling_the_player_on_turn_may_double_if_centred_or_theirs() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    assert m.can_double(1) and not m.can_double(0)  # only the player on turn
    play(m, Roll(1, (3,)))
    with pytest.raises(CubeError) as info:
        m.apply(Double(1))
    assert info.value.reason is CubeErrorReason.ALREADY_ROLLED  # only before rolling
    play(m, Move(1, "H/3"))
    assert m.can_double(0)  # centred: the player on turn may double
    play(m, Double(0), Take(1))
    assert m.cube == Cube(2, 1) and m.turn == 0
    with pytest.raises(CubeError) as info:
        m.apply(Double(0))  # no redouble: the cube is seat 1's now
    assert info.value.reason is CubeErrorReason.NOT_OWNER
    play(m, Roll(0, (2,)), Move(0, "1/3"))
    assert m.turn == 1 and m.can_double(1)  # the owner may redouble before rolling


def test_ruling_take_gives_the_taker_the_cube_and_doubles_the_stake() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"), Double(1), Take(0))
    assert m.cube == Cube(2, 0)
    assert (m.phase, m.turn) == (Phase.ROLL, 1)  # the doubler then rolls


def test_ruling_pass_loses_the_game_at_the_stake_before_the_double() -> None:
    m = nannon(9)
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"), Double(1), Take(0))
    play(m, Roll(1, (3,)), Move(1, "H/3"), Double(0), Drop(1))
    g = m.games[0]
    assert (g.winner, g.kind, g.points) == (0, ResultKind.DROP, 2)  # not 4


def test_ruling_an_offered_double_must_be_answered_before_anything_else() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"), Double(1))
    before = m.snapshot()
    for action in (
        Roll(1, (3,)),
        Roll(0, (3,)),
        Move(1, "H/3"),
        Double(1),
        Double(0),
        Resign(0, ResignLevel.SINGLE),
        Resign(1, ResignLevel.SINGLE),
        AcceptResign(0),
        DeclineResign(0),
        OpeningRoll(None, (2, 1)),
        Take(1),
        Drop(1),
    ):
        with pytest.raises(GameError):
            m.apply(action)
        assert m.snapshot() == before
    m.apply(Take(0))
    assert m.phase is Phase.ROLL


def test_ruling_an_offered_double_is_answered_first_even_on_an_opening_tie() -> None:
    m = nannon()
    play(m, OpeningRoll(None, (5, 5)), Double(0))
    with pytest.raises(CubeError) as info:
        m.apply(OpeningRoll(None, (2, 1)))
    assert info.value.reason is CubeErrorReason.OFFER_PENDING
    m.apply(Drop(1))
    assert m.score == (1, 0)


def test_ruling_leaving_a_match_concedes_the_match() -> None:
    m = nannon(5)
    m.apply(ConcedeMatch(1, "left"))
    assert m.is_over() and m.winner() == 0 and m.score == (5, 0)


# -- match play -------------------------------------------------------------------------------


def test_ruling_match_play_to_n_points() -> None:
    m = nannon(2)
    play(m, *NANNON_GAME)
    assert m.is_over() and m.winner() == 0 and m.score == (2, 0)


def test_ruling_crawford_rule_is_on_by_default() -> None:
    assert MatchRules(length=3).crawford


def test_ruling_crawford_nobody_doubles_in_the_game_after_first_reaching_n_minus_1() -> None:
    m = nannon(3)
    play(m, *NANNON_GAME)  # 2-0 in a match to 3: seat 0 is at N-1
    assert m.crawford_game
    m.apply(OpeningRoll(None, (6, 6)))
    assert m.phase is Phase.OPENING  # no cube on an opening tie in the Crawford game
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    for seat in (0, 1):
        assert not m.can_double(seat)
    with pytest.raises(CubeError) as info:
        m.apply(Double(1))
    assert info.value.reason is CubeErrorReason.CRAWFORD
    # After the Crawford game, doubling is allowed again (post-Crawford).
    play(m, Resign(0, ResignLevel.SINGLE), AcceptResign(1))
    assert m.score == (2, 1) and m.post_crawford and not m.crawford_game
    play(m, OpeningRoll(None, (6, 1)), Move(0, "2/S"))
    assert m.can_double(1)


def test_ruling_dead_cube_no_double_when_a_win_at_its_value_takes_the_match() -> None:
    """docs/rules.md, dead cube (issue 33), in Nannon: a 1-point match has no cube to turn,
    even after a tied opening roll; without the Crawford rule a cube worth the points a
    player needs is dead for them."""
    one = nannon(1)
    play(one, OpeningRoll(None, (4, 4)))
    assert one.phase is Phase.OPENING  # nobody may double on the tie: roll again
    play(one, OpeningRoll(None, (5, 2)))
    with pytest.raises(CubeError) as info:
        play(one, Move(0, one.legal_moves().notation[0]), Double(1))
    assert info.value.reason is CubeErrorReason.DEAD

    m = nannon(5, crawford=False)
    play(m, OpeningRoll(None, (5, 2)), Move(0, "H/3"))  # seat 1 is on roll at 0-0
    m.cube = Cube(4, 1)  # as after two takes: 4 points, seat 1 needs 5
    assert m.can_double(1) and not m.cube_dead(1)
    m.cube = Cube(8, 1)  # the example: the cube at 8 is dead for a side 5 away
    assert m.cube_dead(1) and not m.can_double(1)
