"""The robot's decisions (bot/robot/player.py): each phase of a match gets a legal answer, robots
play whole matches through the engine at different levels, a seat with nothing to decide waits;
the checkers robot moves, offers draws in a settled level game (not when told not to) and
answers draw offers; each game's robot resigns a decided game at the cheapest level that gives
what it is sure to lose (not when told not to), and answers a resignation by its value."""

from __future__ import annotations

import importlib.util
import random
from typing import Any

import pytest

from bot.robot import jobs
from bot.robot.player import Decision, choose_action
from bot.robot.worker import NOT_AVAILABLE, RobotUnavailableError, RobotWorker
from engines import new_match, replay
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.backgammon import Position as BgPosition
from engines.base import GameMatch, MatchRules, Phase, ResignLevel
from engines.checkers import Board, CheckersMatch, Game
from engines.cube import Cube
from engines.match import DiceMatch
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import Level, MatchScore

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


def _action(match: GameMatch, seat: int, decision: Decision, rng: random.Random) -> Action:
    """The engine action for a decision (what the game driver does through the service)."""
    choice = decision.action
    if choice is Roll:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            return OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        return Roll(seat, tuple(rng.randint(1, 6) for _ in range(match.spec.dice_count)))
    assert choice is not Move or decision.move is not None
    table: dict[type[Action] | None, Action] = {
        Double: Double(seat),
        Move: Move(seat, decision.move or ""),
        Take: Take(seat),
        Drop: Drop(seat),
        AcceptResign: AcceptResign(seat),
        DeclineResign: DeclineResign(seat),
        OfferDraw: OfferDraw(seat),
        AcceptDraw: AcceptDraw(seat),
        DeclineDraw: DeclineDraw(seat),
        Resign: Resign(seat, decision.resign or ResignLevel.SINGLE),
    }
    return table[choice]


async def play_out(
    robot_worker: RobotWorker,
    match: GameMatch,
    levels: tuple[Level, Level],
    rng: random.Random,
    limit: int = 5000,
) -> list[type[Action] | None]:
    """Two robots play the match to its end; the choices they made."""
    made: list[type[Action] | None] = []
    for _ in range(limit):
        if match.is_over():
            return made
        if match.phase is Phase.OPENING_TIE:  # either seat may double, seat 0 asked first
            seats = [0, 1]
        else:
            seats = [0 if match.actor is None else match.actor]
        for seat in seats:
            decision = await choose_action(robot_worker, match, seat, levels[seat], rng)
            if decision.action is not Roll or seat == seats[-1]:
                break
        assert decision.action is not None
        made.append(decision.action)
        match.apply(_action(match, seat, decision, rng))
    raise AssertionError("the match did not end")


@pytest.mark.asyncio
async def test_nannon_robots_play_whole_matches_at_different_levels(
    robot_worker: RobotWorker,
) -> None:
    for seed in range(2):
        match = new_match("nannon", MatchRules(length=3))
        made = await play_out(
            robot_worker, match, (Level.MASTER, Level.BEGINNER), random.Random(seed)
        )
        assert max(match.score) >= 3 and Move in made


@pytest.mark.asyncio
async def test_nannon_decisions_in_each_phase(robot_worker: RobotWorker) -> None:
    rng = random.Random(4)
    match = new_match("nannon", MatchRules(length=5))
    assert await choose_action(robot_worker, match, 0, Level.MASTER, rng) == Decision(Roll)
    match.apply(OpeningRoll(None, (3, 3)))
    assert match.phase is Phase.OPENING_TIE
    tie = await choose_action(robot_worker, match, 1, Level.MASTER, rng)
    assert tie.action is Roll and tie.equity is not None  # 5-5: not worth a double
    match.apply(Double(0))  # a human doubles on the tie: the robot judges it at the opening roll
    answer = await choose_action(robot_worker, match, 1, Level.MASTER, rng)
    assert answer.action is Take
    match.apply(Take(1))
    match.apply(OpeningRoll(None, (5, 2)))  # seat 0 wins and plays 3
    decision = await choose_action(robot_worker, match, 0, Level.MASTER, rng)
    assert decision == Decision(Move, "H/3", decision.equity)
    assert await choose_action(robot_worker, match, 1, Level.MASTER, rng) == Decision(None)
    match.apply(Move(0, "H/3"))
    match.apply(Resign(0, ResignLevel.SINGLE))  # the human resigns: 2 points for the robot
    decision = await choose_action(robot_worker, match, 1, Level.MASTER, rng)
    assert decision.action is AcceptResign
    assert decision.equity == pytest.approx(await _met_equity(robot_worker, 3, 5))


async def _met_equity(robot_worker: RobotWorker, mine: int, theirs: int) -> float:
    from engines.nannon_solver import MatchScore

    return 2 * await robot_worker.nannon_match_equity(MatchScore(mine, theirs)) - 1


@needs_gnubg
@pytest.mark.asyncio
async def test_backgammon_decisions_in_each_phase(robot_worker: RobotWorker) -> None:
    rng = random.Random(1)
    match = new_match("backgammon", MatchRules(length=0))
    assert await choose_action(robot_worker, match, 1, Level.EXPERT, rng) == Decision(Roll)
    match.apply(OpeningRoll(None, (3, 1)))
    decision = await choose_action(robot_worker, match, 0, Level.EXPERT, rng)
    assert decision.action is Move and decision.move == "8/5 6/5"
    assert await choose_action(robot_worker, match, 1, Level.EXPERT, rng) == Decision(None)
    match.apply(Move(0, "8/5 6/5"))
    cube = await choose_action(
        robot_worker, match, 1, Level.MASTER, rng
    )  # may double: asks gnubg, doesn't
    assert cube.action is Roll and cube.equity is not None and cube.equity < 0
    match.apply(Double(1))  # a human doubles early: the robot takes
    answer = await choose_action(robot_worker, match, 0, Level.EXPERT, rng)
    assert answer.action is Take and answer.equity is not None and answer.equity > -1
    match.apply(Take(0))
    match.apply(Roll(1, (6, 5)))
    match.apply(Resign(1, ResignLevel.SINGLE))  # and resigns: 2 points, more than it is worth
    decision = await choose_action(robot_worker, match, 0, Level.EXPERT, rng)
    assert decision == Decision(AcceptResign, equity=2.0)
    match.apply(DeclineResign(0))  # (declined by hand) the human plays on
    decision = await choose_action(robot_worker, match, 1, Level.BEGINNER, rng)
    assert decision.action is Move and decision.move in match.legal_moves()


@needs_gnubg
@pytest.mark.asyncio
async def test_backgammon_robots_play_a_whole_game(robot_worker: RobotWorker) -> None:
    match = new_match("backgammon", MatchRules(length=0, cube=False))
    made = await play_out(robot_worker, match, (Level.EXPERT, Level.BEGINNER), random.Random(7))
    assert match.is_over() and made.count(Move) > 10


@pytest.mark.asyncio
async def test_backgammon_without_gnubg_is_not_available(
    robot_worker: RobotWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(robot_worker, "_gnubg", False)
    match = new_match("backgammon", MatchRules(length=3))
    match.apply(OpeningRoll(None, (6, 1)))
    with pytest.raises(RobotUnavailableError, match=NOT_AVAILABLE):
        await choose_action(robot_worker, match, 0, Level.EXPERT, random.Random(1))


@pytest.mark.asyncio
async def test_a_forced_move_is_played_without_asking(
    robot_worker: RobotWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_worker(*args: object) -> None:
        raise AssertionError("the worker was asked")

    monkeypatch.setattr(robot_worker, "run", no_worker)
    match = new_match("nannon", MatchRules(length=1))
    match.apply(OpeningRoll(None, (2, 1)))  # seat 0 plays 1 from 012-012: only 2/3
    decision = await choose_action(robot_worker, match, 0, Level.MASTER, random.Random(1))
    assert decision == Decision(Move, "2/3")


@pytest.mark.asyncio
async def test_checkers_robots_play_a_whole_match(robot_worker: RobotWorker) -> None:
    match = new_match("checkers", MatchRules(length=1))
    made = await play_out(
        robot_worker, match, (Level.BEGINNER, Level.INTERMEDIATE), random.Random(3)
    )
    assert match.is_over() and made.count(Move) > 10


def _checkers_at(fen: str) -> CheckersMatch:
    """A checkers match (game 1: Black is seat 0) in the position ``fen``."""
    match = new_match("checkers", MatchRules(length=1))
    assert isinstance(match, CheckersMatch)
    match.game = Game(Board.from_fen(fen))
    return match


@pytest.mark.asyncio
async def test_the_checkers_robot_offers_and_answers_draws(robot_worker: RobotWorker) -> None:
    rng = random.Random(1)
    # Bare kings, one a side: the robot to move offers a draw, unless told not to.
    match = _checkers_at("B:WK30:BK3")
    assert await choose_action(robot_worker, match, 0, Level.BEGINNER, rng) == Decision(OfferDraw)
    decision = await choose_action(robot_worker, match, 0, Level.BEGINNER, rng, offer_draw=False)
    assert decision.action is Move and decision.move in match.legal_moves()
    # Offered one, it accepts a dead draw and declines when it is winning.
    match.apply(OfferDraw(0))
    assert await choose_action(robot_worker, match, 1, Level.BEGINNER, rng) == Decision(AcceptDraw)
    assert await choose_action(robot_worker, match, 0, Level.BEGINNER, rng) == Decision(None)
    winning = _checkers_at("B:W30:BK3,K7")
    winning.apply(Move(0, "7-10"))
    winning.apply(OfferDraw(1))
    assert await choose_action(robot_worker, winning, 0, Level.BEGINNER, rng) == Decision(
        DeclineDraw
    )
    # A level game from the start: no offer, a move.
    opening = new_match("checkers", MatchRules(length=1))
    decision = await choose_action(robot_worker, opening, 0, Level.BEGINNER, rng)
    assert decision.action is Move


@pytest.mark.asyncio
async def test_checkers_master_thinks_for_the_given_time(
    monkeypatch: pytest.MonkeyPatch, robot_worker: RobotWorker
) -> None:
    # The server's time goes with every checkers job, the move and the answer to a draw.
    sent: list[tuple[Any, ...]] = []

    async def run(function: Any, *args: Any) -> Any:
        sent.append((function, *args))
        return "30-26" if function is jobs.checkers_move else False

    monkeypatch.setattr(robot_worker, "run", run)
    match = _checkers_at("W:W30,K19:BK3,K7")
    decision = await choose_action(
        robot_worker, match, 1, Level.MASTER, random.Random(1), think_s=7
    )
    assert decision == Decision(Move, "30-26")
    match.apply(Move(1, "30-26"))
    match.apply(OfferDraw(0))
    assert (
        await choose_action(robot_worker, match, 1, Level.MASTER, random.Random(1), think_s=7)
    ).action is (DeclineDraw)
    assert [(call[0], call[-1]) for call in sent] == [
        (jobs.checkers_move, 7),
        (jobs.checkers_accept_draw, 7),
    ]


@pytest.mark.asyncio
async def test_a_finished_match_has_nothing_to_decide(robot_worker: RobotWorker) -> None:
    match = new_match("nannon", MatchRules(length=1))
    match.apply(OpeningRoll(None, (4, 1)))
    match.apply(Resign(1, ResignLevel.SINGLE))
    match.apply(AcceptResign(0))
    assert match.is_over()
    assert await choose_action(robot_worker, match, 0, Level.MASTER, random.Random(1)) == Decision(
        None
    )


@needs_gnubg
@pytest.mark.asyncio
async def test_a_dead_cube_is_neither_turned_nor_passed(robot_worker: RobotWorker) -> None:
    # A 1-point match: a win already takes the match, so the cube means nothing.
    match = new_match("backgammon", MatchRules(length=1))
    match.apply(OpeningRoll(None, (6, 1)))
    match.apply(Move(0, "13/7 8/7"))
    assert match.phase is Phase.ROLL and not match.can_double(1)  # the dead-cube ruling
    rng = random.Random(1)
    assert await choose_action(robot_worker, match, 1, Level.MASTER, rng) == Decision(Roll)
    # A log from before the ruling may hold such a double: the robot takes, it costs nothing.
    recorded = replay("backgammon", match.rules, [*match.actions, Double(1)])
    assert await choose_action(robot_worker, recorded, 0, Level.MASTER, rng) == Decision(Take)


@pytest.mark.asyncio
@pytest.mark.parametrize("level", list(Level))
async def test_issue_33_the_nannon_robot_sees_the_real_cube_without_the_crawford_rule(
    robot_worker: RobotWorker, level: Level
) -> None:
    """0-0 in a 5-point match without the Crawford rule, the cube at 8: it is dead for its
    owner (a win at 8 takes the match), who rolls; and a redouble to 16 is taken at every
    level even when it would be a pass at cube 1, since a pass loses the match (it was
    valued as losing 1 point)."""
    match = new_match("nannon", MatchRules(length=5, crawford=False))
    assert isinstance(match, DiceMatch)
    match.apply(OpeningRoll(None, (4, 1)))
    match.apply(Move(0, match.legal_moves().notation[0]))
    match.cube = Cube(8, 1)  # seat 1, on roll, owns the cube at 8
    rng = random.Random(7)
    assert await choose_action(robot_worker, match, 1, level, rng) == Decision(Roll)
    recorded = replay("nannon", match.rules, match.actions)
    assert isinstance(recorded, DiceMatch)
    recorded.cube = Cube(8, 1)
    recorded.position = NannonPosition.from_id("677-000")  # seat 1 is crushing: a cash
    recorded.apply(Double(1))  # only a recorded log can hold it
    decision = await choose_action(robot_worker, recorded, 0, level, rng)
    assert decision.action is Take


# -- resignations ---------------------------------------------------------------------------


def _nannon_on_roll(length: int, position: str) -> DiceMatch:
    """A Nannon match with seat 0 on roll (before rolling) in ``position`` (seen by seat 0)."""
    match = new_match("nannon", MatchRules(length=length))
    assert isinstance(match, DiceMatch)
    match.apply(OpeningRoll(None, (4, 1)))
    match.apply(Move(0, match.legal_moves().notation[0]))
    match.apply(Roll(1, (6,)))
    match.apply(Move(1, match.legal_moves().notation[0]))
    assert match.phase is Phase.ROLL and match.actor == 0
    match.position = NannonPosition.from_id(position)
    return match


@pytest.mark.asyncio
async def test_the_nannon_robot_resigns_a_decided_game(robot_worker: RobotWorker) -> None:
    rng = random.Random(1)
    # Its last two checkers can't get home before the opponent's last one does: a single game
    # lost for sure (it has one checker off, so no NANNON).
    lost = _nannon_on_roll(5, "237-677")
    decision = await choose_action(robot_worker, lost, 0, Level.MASTER, rng)
    assert decision == Decision(Resign, resign=ResignLevel.SINGLE)
    for level in (Level.BEGINNER, Level.EXPERT):  # every level sees a decided game
        assert (await choose_action(robot_worker, lost, 0, level, rng)).action is Resign
    told_not = await choose_action(
        robot_worker, lost, 0, Level.MASTER, rng, offer_resignation=False
    )
    assert told_not.action in (Roll, Double)
    # A small chance left (its back checker may still hit): it plays on.
    alive = _nannon_on_roll(5, "027-677")
    assert (await choose_action(robot_worker, alive, 0, Level.MASTER, rng)).action is Roll
    # Resigned, the other robot accepts: it gives exactly what playing on is worth.
    lost.apply(Resign(0, ResignLevel.SINGLE))
    answer = await choose_action(robot_worker, lost, 1, Level.MASTER, rng)
    assert answer.action is AcceptResign


@pytest.mark.asyncio
async def test_the_nannon_robot_declines_a_resignation_worth_less_than_playing_on(
    robot_worker: RobotWorker,
) -> None:
    rng = random.Random(2)
    # The robot (seat 1) is far ahead with good NANNON chances: a single game is not enough.
    match = _nannon_on_roll(7, "000-567")
    match.apply(Resign(0, ResignLevel.SINGLE))
    answer = await choose_action(robot_worker, match, 1, Level.MASTER, rng)
    assert answer.action is DeclineResign
    single = 2 * await robot_worker.nannon_match_equity(MatchScore(6, 7)) - 1
    assert answer.equity is not None and answer.equity > single
    # A NANNON is: accepted.
    match.apply(DeclineResign(1))
    match.apply(Resign(0, ResignLevel.GAMMON))
    assert (await choose_action(robot_worker, match, 1, Level.MASTER, rng)).action is AcceptResign


def _backgammon_on_roll(length: int, mine: dict[int, int], theirs: dict[int, int]) -> DiceMatch:
    """A backgammon match with seat 1 on roll (before rolling) in the position given by
    points (0 off, 25 the bar), seen by seat 1."""
    match = new_match("backgammon", MatchRules(length=length))
    assert isinstance(match, DiceMatch)
    match.apply(OpeningRoll(None, (3, 1)))
    match.apply(Move(0, "8/5 6/5"))
    assert match.phase is Phase.ROLL and match.actor == 1
    match.position = BgPosition(
        tuple(mine.get(point, 0) for point in range(26)),
        tuple(theirs.get(point, 0) for point in range(26)),
    )
    return match


@needs_gnubg
@pytest.mark.asyncio
async def test_the_backgammon_robot_resigns_a_race_it_cannot_win(robot_worker: RobotWorker) -> None:
    rng = random.Random(3)
    # The opponent bears off its last two checkers next turn; the robot has one off: single.
    single = _backgammon_on_roll(5, {6: 14, 0: 1}, {1: 2, 0: 13})
    decision = await choose_action(robot_worker, single, 1, Level.EXPERT, rng)
    assert decision == Decision(Resign, resign=ResignLevel.SINGLE)
    told_not = await choose_action(
        robot_worker, single, 1, Level.EXPERT, rng, offer_resignation=False
    )
    assert told_not.action in (Roll, Double)
    # None off and two checkers far from home (even 6-6 only brings them in): a gammon.
    gammon = _backgammon_on_roll(5, {18: 2, 6: 13}, {1: 1, 0: 14})
    decision = await choose_action(robot_worker, gammon, 1, Level.BEGINNER, rng)
    assert decision == Decision(Resign, resign=ResignLevel.GAMMON)
    # Five checkers in the opponent's home board (6-6 moves four out): a backgammon.
    backgammon = _backgammon_on_roll(5, {22: 5, 6: 10}, {1: 1, 0: 14})
    decision = await choose_action(robot_worker, backgammon, 1, Level.MASTER, rng)
    assert decision == Decision(Resign, resign=ResignLevel.BACKGAMMON)
    # In a 2-point match a gammon already gives the opponent the match: it resigns a gammon.
    short = _backgammon_on_roll(2, {22: 5, 6: 10}, {1: 1, 0: 14})
    decision = await choose_action(robot_worker, short, 1, Level.MASTER, rng)
    assert decision == Decision(Resign, resign=ResignLevel.GAMMON)
    # A race it may still win (and contact, where gnubg is not asked): it plays on.
    race = _backgammon_on_roll(5, {6: 5, 5: 5, 0: 5}, {6: 5, 5: 5, 0: 5})
    assert (await choose_action(robot_worker, race, 1, Level.EXPERT, rng)).action is not (Resign)
    # Its resignation offered, the robot on the other side accepts it.
    backgammon.apply(Resign(1, ResignLevel.BACKGAMMON))
    answer = await choose_action(robot_worker, backgammon, 0, Level.EXPERT, rng)
    assert answer.action is AcceptResign


@pytest.mark.asyncio
async def test_the_checkers_robot_resigns_a_hopeless_game(robot_worker: RobotWorker) -> None:
    rng = random.Random(1)
    match = _checkers_at("B:WK18,K19,K26,K27:B1,2")  # two men against four kings
    # Its first turns: hopeless, but not for long enough yet; it moves.
    for white in ("26-22", "27-31"):
        decision = await choose_action(robot_worker, match, 0, Level.BEGINNER, rng)
        assert decision.action is Move and decision.move is not None
        match.apply(Move(0, decision.move))
        match.apply(Move(1, white))
    # The third turn in a row this far behind: it resigns (unless told not to).
    decision = await choose_action(robot_worker, match, 0, Level.BEGINNER, rng)
    assert decision == Decision(Resign, resign=ResignLevel.SINGLE)
    told_not = await choose_action(
        robot_worker, match, 0, Level.BEGINNER, rng, offer_resignation=False
    )
    assert told_not.action is Move
    match.apply(Resign(0, ResignLevel.SINGLE))
    assert match.is_over() or match.game_number == 2


@pytest.mark.asyncio
async def test_the_checkers_robot_does_not_resign_a_level_game(robot_worker: RobotWorker) -> None:
    match = _checkers_at("B:W21,22,23,24,25:B9,10,11,12,13")
    for _ in range(2):
        seat = int(match.actor or 0)
        decision = await choose_action(robot_worker, match, seat, Level.BEGINNER, random.Random(1))
        assert decision.action is Move and decision.move is not None
        match.apply(Move(seat, decision.move))


def test_sure_loss_reads_gnubg_chances_and_the_position() -> None:
    from bot.robot.gnubg_brain import has_contact, sure_loss

    def position(mine: dict[int, int], theirs: dict[int, int]) -> BgPosition:
        return BgPosition(
            tuple(mine.get(p, 0) for p in range(26)), tuple(theirs.get(p, 0) for p in range(26))
        )

    assert has_contact(BgPosition.initial())
    race = position({6: 14, 0: 1}, {1: 2, 0: 13})
    assert not has_contact(race)
    # (win, win gammon, win backgammon, lose gammon, lose backgammon)
    assert sure_loss(race, (0.0, 0.0, 0.0, 0.3, 0.0)) == 1  # a checker off: no gammon
    assert sure_loss(race, (1e-3, 0.0, 0.0, 0.0, 0.0)) == 0  # a chance left
    none_off = position({18: 2, 6: 13}, {1: 1, 0: 14})
    assert sure_loss(none_off, (0.0, 0.0, 0.0, 1.0, 0.0)) == 2
    assert sure_loss(none_off, (0.0, 0.0, 0.0, 0.6, 0.0)) == 0  # how much is not certain
    assert sure_loss(none_off, (0.0, 0.0, 0.0, 1.0, 1.0)) == 3
    assert sure_loss(none_off, (0.0, 0.0, 0.0, 1.0, 0.5)) == 0


def test_backgammon_levels_publish_their_pr_targets() -> None:
    # docs/robot.md's table: PR 30, 18, 10, 5 and master at gnubg's 2-ply, the judge; the
    # weaker a level, the more noise (benchmarks/robot_levels.py measures the PRs).
    from pathlib import Path

    from bot.robot.levels import BACKGAMMON_LEVELS, BACKGAMMON_PR_TARGETS

    assert [BACKGAMMON_PR_TARGETS[level] for level in Level] == [30, 18, 10, 5, 0]
    noises = [BACKGAMMON_LEVELS[level].noise for level in Level]
    assert noises == sorted(noises, reverse=True) and noises[-1] == 0.0
    assert BACKGAMMON_LEVELS[Level.MASTER].ply == 2
    table = (Path(__file__).parents[2] / "docs" / "robot.md").read_text(encoding="utf-8")
    for level in list(Level)[:-1]:
        settings = BACKGAMMON_LEVELS[level]
        assert f"noise {settings.noise} | {BACKGAMMON_PR_TARGETS[level]:g} |" in table
