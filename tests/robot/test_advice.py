"""Hints for a player in a match (bot/robot/advice.py), through the robot's worker: Nannon's exact
moves, cube actions (a tied opening too) and take decisions from the player's side; backgammon's
by gnubg, where it runs; checkers' by the search."""

from __future__ import annotations

import importlib.util

import pytest

from bot.robot.advice import match_hint
from bot.robot.levels import Level
from bot.robot.worker import NOT_AVAILABLE, RobotUnavailableError, RobotWorker
from engines import new_match, replay
from engines.actions import Double, Move, OpeningRoll
from engines.base import MatchRules, Phase
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import Context, NannonSolver

pytestmark = pytest.mark.asyncio

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


async def test_nannon_hints_are_exact_from_the_players_side(robot_worker: RobotWorker) -> None:
    match = new_match("nannon", MatchRules(length=3))
    match.apply(OpeningRoll(None, (3, 3)))  # a tie: either seat may double
    assert match.phase is Phase.OPENING_TIE
    tie = await match_hint(robot_worker, match, 1, "cube")
    assert set(tie["cube"]) == {"action", "no_double", "double_take", "double_pass"}
    match.apply(OpeningRoll(None, (5, 2)))  # seat 0 plays 3 from 012-012
    moves = (await match_hint(robot_worker, match, 0, "moves"))["moves"]
    solver = NannonSolver()
    context = Context.match(3, 3)
    ranked = solver.rank_moves(NannonPosition.from_id(match.position_id), 3, context)
    assert [m["move"] for m in moves] == [str(r.move) for r in ranked]
    assert moves[0]["equity"] == pytest.approx(ranked[0].equity, abs=1e-6)
    match.apply(Move(0, moves[0]["move"]))
    cube = (await match_hint(robot_worker, match, 1, "cube"))["cube"]
    expected = solver.cube_action(NannonPosition.from_id(match.position_id), context)
    assert cube["no_double"] == pytest.approx(expected.no_double, abs=1e-6)
    match.apply(Double(1))
    take = (await match_hint(robot_worker, match, 0, "take"))["take"]
    decision = solver.take_decision(NannonPosition.from_id(match.position_id), context)
    assert take["action"] == ("take" if decision.take else "pass")
    assert take["take"] == pytest.approx(decision.take_equity, abs=1e-6)
    with pytest.raises(ValueError, match="not 'resign'"):
        await match_hint(robot_worker, match, 0, "resign")


@needs_gnubg
async def test_backgammon_hints_come_from_gnubg(robot_worker: RobotWorker) -> None:
    match = new_match("backgammon", MatchRules(length=0))
    match.apply(OpeningRoll(None, (6, 1)))  # seat 0 plays 6-1
    moves = (await match_hint(robot_worker, match, 0, "moves", Level.EXPERT))["moves"]
    assert moves[0]["move"] == "13/7 8/7"
    assert len(moves) == len(match.legal_moves())
    match.apply(Move(0, "13/7 8/7"))
    cube = (await match_hint(robot_worker, match, 1, "cube", Level.EXPERT))["cube"]
    assert cube["action"].startswith("no double")
    match.apply(Double(1))
    take = (await match_hint(robot_worker, match, 0, "take", Level.EXPERT))["take"]
    assert take["action"] == "take" and take["take"] > take["pass"]


async def test_checkers_hints_rank_every_move(robot_worker: RobotWorker) -> None:
    match = new_match("checkers", MatchRules(length=1))
    moves = (await match_hint(robot_worker, match, 0, "moves", Level.BEGINNER))["moves"]
    assert sorted(m["move"] for m in moves) == sorted(match.legal_moves().notation)
    assert all(-1 <= m["equity"] <= 1 for m in moves)


async def test_backgammon_hints_say_when_gnubg_is_missing(
    robot_worker: RobotWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(robot_worker, "_gnubg", False)
    match = new_match("backgammon", MatchRules(length=1))
    match.apply(OpeningRoll(None, (6, 1)))
    with pytest.raises(RobotUnavailableError, match=NOT_AVAILABLE):
        await match_hint(robot_worker, match, 0, "moves")


@needs_gnubg
async def test_a_dead_cube_has_no_cube_hint(robot_worker: RobotWorker) -> None:
    match = new_match("backgammon", MatchRules(length=1))
    match.apply(OpeningRoll(None, (6, 1)))
    match.apply(Move(0, "13/7 8/7"))
    assert not match.can_double(1)  # the dead-cube ruling: the service asks no cube hint
    assert await match_hint(robot_worker, match, 1, "cube", Level.EXPERT) == {"cube": None}
    recorded = replay("backgammon", match.rules, [*match.actions, Double(1)])  # an old log
    assert await match_hint(robot_worker, recorded, 0, "take", Level.EXPERT) == {"take": None}
