"""The one worker pool (bot/workers.py): its process ignores Ctrl-C and runs at the niceness asked;
a warm-up answers, or says in the log why the worker could not start and raises nothing; a call
without retry is not tried again; every pool of a WorkerPools is shut down by its shutdown."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from bot.workers import ANALYSIS_NICENESS, WorkerCrashedError, WorkerPool, WorkerPools

pytestmark = pytest.mark.asyncio


def _sigint_ignored() -> bool:
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    made = WorkerPool("test", niceness=3)
    yield made
    made.shutdown()


async def test_the_worker_ignores_ctrl_c_and_runs_at_its_niceness(pool: WorkerPool) -> None:
    assert not pool.started and not pool.worked
    assert await pool.run(_sigint_ignored)
    assert await pool.run(os.nice, 0) == min(19, os.nice(0) + 3)
    assert pool.started and pool.worked


async def test_a_warm_up_answers_or_logs_why_not(
    pool: WorkerPool, caplog: pytest.LogCaptureFixture
) -> None:
    assert await pool.warm_up(os.getpid) not in (None, os.getpid())
    assert await pool.warm_up(_die) is None  # died twice: logged, not raised
    assert "the test worker failed to start" in caplog.text
    assert await pool.run(os.getpid) != os.getpid()  # and the next call gets a new worker


async def test_a_call_without_retry_is_tried_once(pool: WorkerPool) -> None:
    first = await pool.run(os.getpid)
    with pytest.raises(WorkerCrashedError, match="the test worker died running _die"):
        await pool.run(_die, retry=False)
    assert not pool.started  # the dead process was dropped ...
    assert await pool.run(os.getpid) not in (first, os.getpid())  # ... and replaced


async def test_the_pools_of_a_bot_and_their_shutdown() -> None:
    pools = WorkerPools.create()
    assert (pools.render.niceness, pools.robot.niceness) == (0, 0)
    assert pools.analysis.niceness == ANALYSIS_NICENESS == 10
    try:
        pids = {await p.run(os.getpid) for p in (pools.render, pools.robot, pools.analysis)}
        assert len(pids) == 3 and os.getpid() not in pids
    finally:
        pools.shutdown()
    assert not (pools.render.started or pools.robot.started or pools.analysis.started)
