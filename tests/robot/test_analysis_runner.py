"""The service's analysis runner on the analysis worker (bot/robot/analysis_runner.py): a robot
call never
waits behind an analysis (they are two processes), the analysis worker runs at a lower
priority than the bot and the robot, a match's games are counted and analysed there, and the
bot's close doesn't wait for a game under analysis."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from support.random_matches import random_action

from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.worker import RobotWorker
from bot.workers import WorkerPools
from engines import new_match
from engines.actions import Action
from engines.base import GameKind, MatchRules

pytestmark = pytest.mark.asyncio


def _read_fifo(path: str) -> str:
    """Blocks the worker until the test writes to the FIFO at ``path``."""
    with open(path) as fifo:
        return fifo.read()


def _signal_then_hold(ready: str, hold: str) -> str:
    """Tells the test it is running (through the FIFO ``ready``), then blocks on ``hold``."""
    with open(ready, "w") as fifo:
        fifo.write(str(os.getpid()))
    return _read_fifo(hold)


def random_nannon_match(seed: int, length: int = 3) -> tuple[MatchRules, list[Action]]:
    rules, rng = MatchRules(length=length), random.Random(seed)
    match, actions = new_match(GameKind.NANNON, rules), []
    while (action := random_action(match, rng)) is not None:
        match.apply(action)
        actions.append(action)
    return rules, actions


async def test_a_robot_call_does_not_wait_behind_an_analysis(
    tmp_path: Path, worker_pools: WorkerPools, robot_worker: RobotWorker
) -> None:
    fifo = tmp_path / "hold"
    os.mkfifo(fifo)
    held = asyncio.ensure_future(worker_pools.analysis.run(_read_fifo, str(fifo)))
    robot_pid = await robot_worker.run(os.getpid)  # answered while the analysis worker is held
    assert not held.done()
    with open(fifo, "w") as release:
        release.write("go")
    assert await held == "go"
    assert robot_pid != await worker_pools.analysis.run(os.getpid)


async def test_games_are_analysed_in_a_worker_of_lower_priority(
    worker_pools: WorkerPools, robot_worker: RobotWorker
) -> None:
    found = WorkerAnalysisRunner(worker_pools.analysis, robot_worker)
    rules, actions = random_nannon_match(5)
    games = await found.count_games(GameKind.NANNON, rules, actions)
    assert games >= 2  # a match to 3 of Nannon: at least two games
    decisions = await found.game_decisions(GameKind.NANNON, rules, actions, ("a", "b"), 2, 0)
    assert decisions and {d.game for d in decisions} == {2}
    ours = os.nice(0)
    analysis = worker_pools.analysis
    assert analysis.niceness == 10
    assert await analysis.run(os.nice, 0) == min(19, ours + analysis.niceness)
    assert await robot_worker.run(os.nice, 0) == ours  # the robot's is not lowered


async def test_shutdown_ends_an_analysis_under_way(
    tmp_path: Path, worker_pools: WorkerPools
) -> None:
    """The bot's close() doesn't wait for a long game to be analysed: the queue has stopped
    waiting for it (cancelled), and the worker is ended."""
    ready, hold = tmp_path / "ready", tmp_path / "hold"
    os.mkfifo(ready)
    os.mkfifo(hold)
    held = asyncio.ensure_future(
        worker_pools.analysis.run(_signal_then_hold, str(ready), str(hold))
    )
    pid = int(await asyncio.to_thread(_read_fifo, str(ready)))  # the call is under way
    held.cancel()
    await asyncio.wait_for(asyncio.to_thread(worker_pools.shutdown), timeout=60)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
