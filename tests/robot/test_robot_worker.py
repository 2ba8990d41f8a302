"""The robot's worker process (bot/robot/worker.py): answers come from a spawned process of its
own, the same as in this process; a worker killed between calls or during one is replaced and
the call answered; a call that kills every worker fails cleanly; where gnubg does not run, the
backgammon calls say so."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
from pathlib import Path

import pytest

from bot.robot import gnubg_brain, gnubg_system, jobs
from bot.robot.levels import BACKGAMMON_LEVELS, Level
from bot.robot.worker import NOT_AVAILABLE, RobotCrashedError, RobotUnavailableError, RobotWorker
from bot.workers import WorkerPools
from engines.gnubg import MatchId
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import Context, NannonSolver

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)
START = "4HPwATDgc/ABMA"


def _die_first_time(marker: str) -> int:
    """Kill this process the first time (the worker dies during the call), answer the next."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()


def _always_die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.asyncio
async def test_answers_come_from_a_worker_process_of_its_own(
    worker_pools: WorkerPools, robot_worker: RobotWorker
) -> None:
    pid = await robot_worker.run(jobs.pid)
    assert pid != os.getpid()
    assert pid != await worker_pools.render.run(jobs.pid)  # not the render worker
    context = Context.match(3, 5)
    ranked = await robot_worker.nannon_rank_moves("012-012", 3, context)
    assert ranked == NannonSolver().rank_moves(NannonPosition.initial(), 3, context)
    assert await robot_worker.run(jobs.pid) == pid  # one worker, kept


@needs_gnubg
@pytest.mark.asyncio
async def test_gnubg_answers_in_the_worker_as_in_this_process(robot_worker: RobotWorker) -> None:
    assert await robot_worker.gnubg_available()
    match_id = MatchId(dice=(6, 4), match_length=5, score=(1, 3)).encode()
    expert = BACKGAMMON_LEVELS[Level.EXPERT]  # 0-ply with gnubg's noise
    ranked = await robot_worker.rank_plays(START, match_id, Level.EXPERT)
    assert ranked == gnubg_brain.rank_plays(START, match_id, expert.ply, expert.noise)
    cube = await robot_worker.cube_decision(START, MatchId().encode(), Level.EXPERT)
    assert cube == gnubg_brain.cube_decision(START, MatchId().encode(), expert.ply, expert.noise)


@pytest.mark.asyncio
async def test_a_worker_killed_between_calls_is_replaced(robot_worker: RobotWorker) -> None:
    first = await robot_worker.run(jobs.pid)
    os.kill(first, signal.SIGKILL)
    second = await robot_worker.run(jobs.pid)
    assert second not in (first, os.getpid())
    ranked = await robot_worker.nannon_rank_moves("012-012", 6, Context())
    assert ranked == NannonSolver().rank_moves(NannonPosition.initial(), 6, Context())


@pytest.mark.asyncio
async def test_a_worker_killed_during_a_call_is_replaced_and_the_call_answered(
    robot_worker: RobotWorker, tmp_path: Path
) -> None:
    first = await robot_worker.run(jobs.pid)
    marker = tmp_path / "died"
    answered_by = await robot_worker.run(_die_first_time, str(marker))
    assert marker.exists() and answered_by not in (first, os.getpid())
    assert await robot_worker.run(jobs.pid) == answered_by


@pytest.mark.asyncio
async def test_calls_in_flight_when_the_worker_dies_are_all_answered(
    robot_worker: RobotWorker, tmp_path: Path
) -> None:
    marker = tmp_path / "died"
    calls = [robot_worker.nannon_rank_moves("012-012", roll, Context()) for roll in range(1, 7)]
    results = await asyncio.gather(robot_worker.run(_die_first_time, str(marker)), *calls)
    assert marker.exists()
    assert [len(ranked) for ranked in results[1:]] == [
        len(NannonSolver().rank_moves(NannonPosition.initial(), roll, Context()))
        for roll in range(1, 7)
    ]


@pytest.mark.asyncio
async def test_a_call_that_kills_every_worker_fails_cleanly(robot_worker: RobotWorker) -> None:
    with pytest.raises(RobotCrashedError, match="died twice"):
        await robot_worker.run(_always_die)
    assert await robot_worker.run(jobs.pid) != os.getpid()  # and the next call gets a new worker


@pytest.mark.asyncio
async def test_without_gnubg_backgammon_is_not_available(
    robot_worker: RobotWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "gnubg" else real(name, *a)
    )
    monkeypatch.setattr(gnubg_system, "find_program", lambda: None)  # nor the system's program
    assert not await robot_worker.gnubg_available()
    with pytest.raises(RobotUnavailableError, match=NOT_AVAILABLE):
        await robot_worker.rank_plays(START, MatchId(dice=(3, 1)).encode())
    assert not robot_worker.pool.started  # nothing was started to find that out
    # Nannon needs no gnubg.
    assert await robot_worker.nannon_equity("012-012", Context()) == pytest.approx(
        NannonSolver().equity(NannonPosition.initial(), Context())
    )
