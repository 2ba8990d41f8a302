"""Issue 34, one clock for every deadline: :class:`bot.service.timers.TimerRunner` on the
injected clock and sleep (no real sleeps): a deadline fires at its second, not before; two
runners on one database fire it once; a restarted runner picks up deadlines armed before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.service.bus import EventBus
from bot.service.timers import Deadline, DeadlineFired, Handlers, TimerRunner
from bot.storage import Store, connect_store

pytestmark = pytest.mark.asyncio


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def recording(seen: list[tuple[str, float]]) -> Handlers:
    handlers = Handlers()

    async def expire(deadline: Deadline, now: float) -> list[object]:
        seen.append((deadline.key, now))
        return [("expired", deadline.key)]

    handlers.register("challenge.expiry", expire)
    return handlers


async def test_issue_34_a_deadline_fires_exactly_at_its_second(any_store: Store) -> None:
    clock = Clock(100.0)
    seen: list[tuple[str, float]] = []
    bus = EventBus()
    heard: list[object] = []
    bus.subscribe(object, heard.append)
    runner = TimerRunner(any_store, recording(seen), bus=bus, clock=clock, sleep=clock.sleep)
    await runner.arm("challenge.expiry", 7, 110.0)
    clock.now = 109.999
    assert await runner.run_due() == [] and seen == []
    assert await runner.wait_seconds() == pytest.approx(0.001)
    clock.now = 110.4
    [fired] = await runner.run_due()
    assert (fired.key, seen) == ("7", [("7", 110.0)])
    assert heard == [("expired", "7"), DeadlineFired("challenge.expiry", "7", 110.0, 110.0)]
    assert await runner.run_due() == []  # once
    assert len(seen) == 1


async def test_issue_34_the_loop_sleeps_to_the_next_deadline(any_store: Store) -> None:
    clock = Clock(100.0)
    seen: list[tuple[str, float]] = []
    runner = TimerRunner(any_store, recording(seen), clock=clock, sleep=clock.sleep, poll=60.0)
    await runner.arm("challenge.expiry", 1, 103.0)
    await runner.arm("challenge.expiry", 2, 130.0)

    async def stop_after_second() -> None:
        while len(seen) < 2:
            await asyncio.sleep(0)
        runner.stop()

    real_sleep = clock.sleep

    async def sleep(seconds: float) -> None:
        await real_sleep(seconds)
        await asyncio.sleep(0)  # let the stopper look

    runner._sleep = sleep
    await asyncio.gather(runner.run(), stop_after_second())
    assert seen == [("1", 103.0), ("2", 130.0)]
    assert clock.slept[:2] == [3.0, 27.0]


async def test_issue_34_two_runners_fire_a_claimed_deadline_once(
    store_target: str | Path,
) -> None:
    stores = [await connect_store(store_target) for _ in range(2)]
    try:
        clock = Clock(50.0)
        seen: list[tuple[str, float]] = []
        runners = [
            TimerRunner(s, recording(seen), clock=clock, sleep=clock.sleep, owner=f"r{i}")
            for i, s in enumerate(stores)
        ]
        for n in range(10):
            await runners[0].arm("challenge.expiry", n, 40.0 + n)
        results = await asyncio.gather(*(r.run_due() for r in runners))
        assert sorted(int(d.key) for got in results for d in got) == list(range(10))
        assert sorted(int(k) for k, _ in seen) == list(range(10))
        assert [await r.run_due() for r in runners] == [[], []]
    finally:
        for store in stores:
            await store.close()


async def test_issue_34_a_failed_handler_is_retried_after_its_lease(any_store: Store) -> None:
    clock = Clock(10.0)
    calls: list[float] = []
    handlers = Handlers()

    async def flaky(deadline: Deadline, now: float) -> list[object]:
        calls.append(now)
        if len(calls) == 1:
            raise RuntimeError("the first try fails")
        return []

    handlers.register("reminder", flaky)
    runner = TimerRunner(any_store, handlers, clock=clock, sleep=clock.sleep, lease=300.0)
    await runner.arm("reminder", 5, 10.0)
    assert await runner.run_due() == []
    clock.now = 200.0
    assert await runner.run_due() == []  # still claimed
    clock.now = 310.0
    assert [d.key for d in await runner.run_due()] == ["5"]
    assert calls == [10.0, 310.0]


async def test_issue_34_a_restart_picks_up_due_deadlines(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    clock = Clock(0.0)
    seen: list[tuple[str, float]] = []
    first = await connect_store(path)
    await TimerRunner(first, recording(seen), clock=clock).arm("challenge.expiry", 9, 30.0)
    await first.close()  # the process stops before the deadline
    clock.now = 45.0
    second = await connect_store(path)
    try:
        runner = TimerRunner(second, recording(seen), clock=clock, sleep=clock.sleep)
        assert [d.key for d in await runner.run_due()] == ["9"]
        assert seen == [("9", 45.0)]
    finally:
        await second.close()


async def test_issue_34_a_failed_handler_is_retried_after_its_lease_not_spun_on(
    any_store: Store,
) -> None:
    clock = Clock(100.0)
    handlers = Handlers()
    calls: list[float] = []

    async def flaky(deadline: Deadline, now: float) -> list[object]:
        calls.append(now)
        if len(calls) == 1:
            raise RuntimeError("Discord is down")
        return []

    handlers.register("challenge.expiry", flaky)
    runner = TimerRunner(any_store, handlers, clock=clock, sleep=clock.sleep, lease=300.0)
    await runner.arm("challenge.expiry", 3, 100.0)
    assert await runner.run_due() == [] and calls == [100.0]
    assert await runner.wait_seconds() == 60.0  # held by its lease: the loop waits a poll
    clock.now = 400.0
    [fired] = await runner.run_due()
    assert fired.key == "3" and calls == [100.0, 400.0]


async def test_issue_34_the_service_runs_its_scheduler_until_it_closes(tmp_path: Path) -> None:
    """``MatchService.start_timers`` (what the bot and ``tablebot play`` call at start-up):
    a challenge's expiry stored before fires on the first pass, told as ChallengeExpired."""
    from bot.service import MatchService, NewChallenge
    from bot.service.events import ChallengeExpired

    clock = Clock(1_000_000.0)
    service = await MatchService.open(tmp_path / "timers.db", clock=clock)
    told = asyncio.Event()
    heard: list[ChallengeExpired] = []

    def expired(event: ChallengeExpired) -> None:
        heard.append(event)
        told.set()

    service.bus.subscribe(ChallengeExpired, expired)
    try:
        challenge = await service.handle(NewChallenge(1, 10, 100, "alice", "nannon"))
        clock.now = challenge.expires_at + 1  # the process was down at the expiry time
        service.start_timers()
        async with asyncio.timeout(10):
            await told.wait()
        assert [(e.challenge.id, e.challenge.status.value) for e in heard] == [
            (challenge.id, "expired")
        ]
    finally:
        await service.close()
    assert service._timer_task is None  # stopped with the service


async def test_issue_34_a_handler_rearms_its_deadline_after_the_firing(any_store: Store) -> None:
    """A daily deadline: each firing returns a Rearm for the next day, which is armed once the
    firing is committed, and is not published."""
    from bot.service.timers import Rearm

    clock = Clock(100.0)
    handlers = Handlers()

    async def daily(deadline: Deadline, now: float) -> list[object]:
        return [("posted", now), Rearm(now + 86_400)]

    handlers.register("puzzle.daily", daily)
    bus = EventBus()
    heard: list[object] = []
    bus.subscribe(object, heard.append)
    runner = TimerRunner(any_store, handlers, bus=bus, clock=clock, sleep=clock.sleep)
    await runner.arm("puzzle.daily", 1, 100.0)
    [fired] = await runner.run_due()
    assert fired.key == "1"
    assert heard == [("posted", 100.0), DeadlineFired("puzzle.daily", "1", 100.0, 100.0)]
    assert await runner.deadlines.next_at() == 86_500.0
    assert await runner.run_due(86_499.0) == []
    assert [d.key for d in await runner.run_due(86_500.0)] == ["1"]
