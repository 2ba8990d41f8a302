"""Each bot's worker processes (bot/workers.py) are its own: two bots in one process use two sets
of pools, and closing one shuts down its pools and leaves the other's working; ``run`` creates
the pools and hands them to the bot."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.discord import app
from bot.discord.app import TableBot, create_bot
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.workers import WorkerPools
from engines.backgammon import Position
from render.common import Scene

pytestmark = pytest.mark.asyncio

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
BOARD = ("backgammon", (Position.initial(), 0, Scene(names=("alice", "bob"))), {})


def settings(folder: Path) -> Settings:
    folder.mkdir(exist_ok=True)
    return Settings(token=TOKEN, db_path=folder / "t.db", dev_guild_id=None, log_level="INFO")


async def worker_pids(bot: TableBot) -> tuple[int, int, int]:
    """(render, robot, analysis): each pool's worker process, started if it wasn't."""
    pools = bot.pools
    return (
        await pools.render.run(os.getpid),
        await bot.robot_worker.run(os.getpid),
        await pools.analysis.run(os.getpid),
    )


def started(pools: WorkerPools) -> list[bool]:
    return [pools.render.started, pools.robot.started, pools.analysis.started]


async def test_closing_one_bot_leaves_the_other_bots_workers_working(tmp_path: Path) -> None:
    first, second = create_bot(settings(tmp_path / "a")), create_bot(settings(tmp_path / "b"))
    try:
        mine, theirs = await worker_pids(first), await worker_pids(second)
        assert len({*mine, *theirs, os.getpid()}) == 7  # six processes of their own
        drawn = await second.renderer.board(*BOARD)
        await first.close()
        assert started(first.pools) == [False, False, False]
        assert started(second.pools) == [True, True, True]
        assert await worker_pids(second) == theirs  # the same processes, still answering
        assert await second.renderer.board(*BOARD) == drawn
        assert not second.renderer.use_threads
    finally:
        await first.close()
        await second.close()
    assert started(second.pools) == [False, False, False]


async def test_the_pools_passed_in_are_the_bots(tmp_path: Path) -> None:
    pools = WorkerPools.create()
    bot = create_bot(settings(tmp_path), pools=pools)
    try:
        assert bot.pools is pools and bot.robot_worker.pool is pools.robot
        assert bot.renderer.pool is pools.render
        runner = bot.service.analyses.runner
        assert isinstance(runner, WorkerAnalysisRunner)
        assert runner.pool is pools.analysis and runner.robot_worker is bot.robot_worker
        await worker_pids(bot)
    finally:
        await bot.close()
    assert started(pools) == [False, False, False]


async def test_run_creates_the_pools_and_hands_them_to_the_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[TableBot, dict[str, Any]]] = []
    real = app.create_bot

    def recording(settings: Settings, **options: Any) -> TableBot:
        bot = real(settings, **options)
        made.append((bot, options))
        return bot

    async def start(self: TableBot, token: str, **_: Any) -> None:
        await worker_pids(self)  # the bot's pools work while it runs

    monkeypatch.setattr(app, "create_bot", recording)
    monkeypatch.setattr(TableBot, "start", start)
    assert await app._main(settings(tmp_path), sync_only=False) == 0
    [(bot, options)] = made
    assert isinstance(options["pools"], WorkerPools) and bot.pools is options["pools"]
    assert started(bot.pools) == [False, False, False]  # shut down as the bot closed
