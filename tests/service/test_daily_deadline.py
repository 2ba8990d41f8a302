"""Issue 34, one scheduler: a server's daily puzzle is a deadline of the service
(``puzzle.daily``, keyed by the guild), armed when the server sets its channel or time and at
start-up, armed again after each firing. The post itself, through the fake Discord, is in
tests/discord/test_puzzle_commands.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import MatchService, UpdateSettings
from bot.service.events import DailyPuzzleDue
from bot.service.puzzles import DAILY, RETRY

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL = 1, 10
DAY = 86_400.0
DAY0 = 20_500 * DAY  # a midnight UTC


class Clock:
    def __init__(self) -> None:
        self.now = DAY0 + 8 * 3600  # 08:00 UTC

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def service(store_target: str | Path, clock: Clock) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(store_target, clock=clock)
    yield svc
    await svc.close()


async def due_at(svc: MatchService) -> float | None:
    row = await svc.store.deadline(DAILY, str(GUILD))  # type: ignore[attr-defined]
    return None if row is None or row["fired_at"] is not None else float(row["due_at"])


async def test_issue_34_the_daily_puzzle_is_armed_by_its_settings(service: MatchService) -> None:
    svc = service
    assert await due_at(svc) is None  # no channel: no daily puzzle
    await svc.handle(UpdateSettings(GUILD, {"puzzles_channel": CHANNEL, "puzzles_time": 9 * 60}))
    assert await due_at(svc) == DAY0 + 9 * 3600
    await svc.handle(UpdateSettings(GUILD, {"puzzles_time": 18 * 60 + 30}))
    assert await due_at(svc) == DAY0 + 18 * 3600 + 30 * 60
    await svc.handle(UpdateSettings(GUILD, {"puzzles_channel": 0}))
    assert await due_at(svc) is None


async def test_issue_34_an_empty_pool_is_tried_again_not_every_second(
    service: MatchService, clock: Clock
) -> None:
    """No puzzle to post yet (the pool is empty): nothing is told, and the next try is
    RETRY later (the old loop looked every minute)."""
    svc = service
    told: list[DailyPuzzleDue] = []
    svc.bus.subscribe(DailyPuzzleDue, told.append)
    await svc.handle(UpdateSettings(GUILD, {"puzzles_channel": CHANNEL, "puzzles_time": 9 * 60}))
    fired = await svc.timers.run_due(DAY0 + 9 * 3600)
    assert [(d.kind, d.key) for d in fired] == [(DAILY, str(GUILD))]
    assert told == []
    assert await due_at(svc) == DAY0 + 9 * 3600 + RETRY


async def test_issue_34_start_up_arms_the_servers_daily_puzzles(
    service: MatchService, clock: Clock
) -> None:
    """A database from before the scheduler: the scheduler's start arms every server's."""
    svc = service
    await svc.handle(UpdateSettings(GUILD, {"puzzles_channel": CHANNEL, "puzzles_time": 9 * 60}))
    await svc.handle(UpdateSettings(2, {"puzzles_time": 10 * 60}))  # no channel: none
    await svc.store.raw_execute("DELETE FROM deadlines")  # type: ignore[attr-defined]
    await svc.daily.arm_all()
    assert await due_at(svc) == DAY0 + 9 * 3600
    assert await svc.store.deadline(DAILY, "2") is None  # type: ignore[attr-defined]
