"""Each bot's worker processes (bot/workers.py) are its own: two bots in one process use two sets
of pools, and closing one leaves the other's working; pools passed in are their creator's to shut
down (``run`` creates them, hands them to the bot, and shuts them down after it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import Settings
from bot.discord import app
from bot.discord.app import TableBot, create_bot
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
        await bot.robot.run(os.getpid),
        await pools.analysis.run(os.getpid),
    )


async def test_closing_one_bot_leaves_the_other_bots_workers_working(tmp_path: Path) -> None:
    first, second = create_bot(settings(tmp_path / "a")), create_bot(settings(tmp_path / "b"))
    try:
        assert first.owns_pools and second.owns_pools
        mine, theirs = await worker_pids(first), await worker_pids(second)
        assert len({*mine, *theirs, os.getpid()}) == 7  # six processes of their own
        drawn = await second.renderer.board(*BOARD)
        await first.close()
        assert not any(p.started for p in (first.pools.render, first.pools.robot))
        assert not first.pools.analysis.started
        assert await worker_pids(second) == theirs  # the same processes, still answering
        assert await second.renderer.board(*BOARD) == drawn
        assert not second.renderer.use_threads
    finally:
        await first.close()
        await second.close()
    assert not second.pools.robot.started


async def test_pools_passed_in_are_not_the_bots_to_shut_down(tmp_path: Path) -> None:
    pools = WorkerPools.create()
    try:
        bot = create_bot(settings(tmp_path), pools=pools)
        assert bot.pools is pools and not bot.owns_pools
        pids = await worker_pids(bot)
        await bot.close()
        assert await worker_pids(bot) == pids
    finally:
        pools.shutdown()
    assert not (pools.render.started or pools.robot.started or pools.analysis.started)


async def test_run_creates_the_pools_hands_them_in_and_shuts_them_down_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[TableBot] = []

    async def run_bot(bot: TableBot, _settings: Settings) -> int:
        seen.append(bot)
        assert not bot.owns_pools  # main's
        await bot.robot.run(os.getpid)
        await bot.close()
        assert bot.pools.robot.started  # the bot closed, its pools still main's to stop
        return 0

    monkeypatch.setattr(app, "_run_bot", run_bot)
    assert await app._main(settings(tmp_path), sync_only=False) == 0
    [bot] = seen
    assert not bot.pools.robot.started
