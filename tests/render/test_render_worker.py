"""The render worker process (bot/rendering.py's Renderer on a bot/workers.py pool): boards come
from it, and when it can't start or dies, from a thread, without a board going missing or a new
process tried on every board."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Iterator

import pytest

from bot.rendering import Renderer
from bot.workers import WorkerPool
from engines.analysis import Decision, DecisionKind
from engines.backgammon import Position
from render import jobs
from render.analysis_chart import ChartWords
from render.analysis_report import CardWords
from render.common import Scene

ARGS = (Position.initial(), 0, Scene(names=("alice", "bob")))
PNG = b"\x89PNG\r\n\x1a\n"


def _exit_at_start() -> None:
    os._exit(3)  # a worker that dies before its first job


@pytest.fixture
def rendering() -> Iterator[Renderer]:
    """A renderer on a render pool of the test's own, shut down after it."""
    pool = WorkerPool("render")
    yield Renderer(pool)
    pool.shutdown()


@pytest.mark.asyncio
async def test_boards_come_from_a_worker_process(rendering: Renderer) -> None:
    await rendering.warm_up()
    pool = rendering.pool._executor
    assert pool is not None and rendering.pool.worked
    png, alt = await rendering.board("backgammon", ARGS, {})
    assert png.startswith(PNG) and "alice" in alt
    assert (png, alt) == jobs.board("backgammon", ARGS, {})  # the same board as in-process
    assert rendering.pool._executor is pool and not rendering.use_threads
    pids = list(pool._processes)
    assert len(pids) == 1 and pids[0] != os.getpid()


@pytest.mark.asyncio
async def test_a_worker_that_cannot_start_means_threads_from_then_on(
    rendering: Renderer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    made: list[concurrent.futures.ProcessPoolExecutor] = []
    real = concurrent.futures.ProcessPoolExecutor

    def broken_pool(**kwargs: object) -> concurrent.futures.ProcessPoolExecutor:
        pool = real(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_at_start,
        )
        made.append(pool)
        return pool

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", broken_pool)
    for _ in range(3):
        png, alt = await rendering.board("backgammon", ARGS, {})
        assert png.startswith(PNG) and "alice" in alt  # drawn in a thread instead
    assert len(made) == 1  # one try, not one per board
    assert rendering.use_threads and rendering.pool._executor is None
    assert "rendering in threads from now on" in caplog.text


@pytest.mark.asyncio
async def test_a_worker_that_dies_after_working_is_replaced(rendering: Renderer) -> None:
    await rendering.warm_up()
    first = rendering.pool._executor
    assert first is not None
    [pid] = list(first._processes)
    os.kill(pid, 9)
    png, _ = await rendering.board("backgammon", ARGS, {})
    assert png.startswith(PNG)  # that board from a thread ...
    assert not rendering.use_threads
    png, _ = await rendering.board("backgammon", ARGS, {})
    assert png.startswith(PNG)
    second = rendering.pool._executor
    assert second is not None and second is not first and rendering.pool.worked  # ... a new one


@pytest.mark.asyncio
async def test_the_analysis_pictures_come_from_the_worker_in_the_words_given(
    rendering: Renderer,
) -> None:
    decisions = [
        Decision(1, 0, 0, DecisionKind.MOVE, "13/8 6/5", "13/8 6/5", 0.0, False, 0.1, 0.55),
        Decision(1, 1, 1, DecisionKind.MOVE, "24/18", "13/7", 0.1, False, -0.05, 0.40),
    ]
    words = ChartWords(title_match="Gewinnchance im Match")
    chart = await rendering.chart(decisions, ("alice", "bob"), True, words)
    assert chart == jobs.chart(decisions, ("alice", "bob"), True, words)
    assert chart != jobs.chart(decisions, ("alice", "bob"), True)  # the words were drawn
    card_words = CardWords(played="{player} spielte {move}")
    card = await rendering.mistake("backgammon", ARGS, {}, decisions[1], card_words)
    assert card == jobs.mistake("backgammon", ARGS, {}, decisions[1], card_words)
    assert card[0].startswith(PNG) and rendering.pool.worked
