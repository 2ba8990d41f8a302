"""The runner: fires each due deadline once, to the second, on the injected clock and sleep.

A pass (:meth:`TimerRunner.run_due`) reads the deadlines due by the clock's whole second, claims
each (a compare-and-set with a lease, so of several processes on one database exactly one fires
it), runs its kind's handler, marks it fired, then publishes the handler's events and a
:class:`DeadlineFired` on the bus (after the commit). A handler that raises leaves the deadline
claimed: after the lease any runner may take it again. :meth:`TimerRunner.run` loops: a pass,
then a sleep until the next deadline's second (at most ``poll`` seconds, so deadlines armed by
another process are seen). Deadlines stored before a restart are due like any other.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Callable

from bot.service.bus import EventBus
from bot.service.timers.handler import Handlers
from bot.service.timers.model import Deadline, DeadlineFired, Rearm
from bot.service.timers.repository import DeadlineRepository
from bot.storage.protocol import Store

log = logging.getLogger(__name__)

DEFAULT_LEASE = 300.0  # seconds a claim holds before another runner may take the deadline
DEFAULT_POLL = 60.0


class TimerRunner:
    def __init__(
        self,
        store: Store,
        handlers: Handlers,
        *,
        bus: EventBus | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        owner: str | None = None,
        lease: float = DEFAULT_LEASE,
        poll: float = DEFAULT_POLL,
    ) -> None:
        self.deadlines = DeadlineRepository(store)
        self.handlers = handlers
        self.bus = bus
        self._clock = clock
        self._sleep = sleep
        self.owner = owner or uuid.uuid4().hex
        self.lease = lease
        self.poll = poll
        self._stopped = False

    def now(self) -> float:
        """The clock's whole second: a deadline due at 10.0 fires at 10.x, never at 9.x."""
        return float(math.floor(self._clock()))

    async def arm(self, kind: str, key: str | int, due_at: float) -> None:
        await self.deadlines.arm(kind, key, due_at)

    async def run_due(self, now: float | None = None) -> list[Deadline]:
        """One pass at the clock's second (``now``: at that instant instead, for tests and
        tools); the deadlines this runner fired."""
        now = self.now() if now is None else now
        fired: list[Deadline] = []
        for deadline in await self.deadlines.due(now):
            if not await self.deadlines.claim(deadline, self.owner, now, self.lease):
                continue  # another runner has it
            handler = self.handlers.get(deadline.kind)
            events: list[object] = []
            if handler is None:
                log.warning("no handler for deadline kind %r", deadline.kind)
            else:
                try:
                    events = list(await handler(deadline, now))
                except Exception:
                    log.exception("deadline %r failed; retried after its lease", deadline)
                    continue
            rearm = [e for e in events if isinstance(e, Rearm)]
            events = [e for e in events if not isinstance(e, Rearm)]
            if not await self.deadlines.fired(deadline, self.owner, now):
                continue  # the lease ran out and another runner took it
            for again in rearm:  # after the firing: armed anew for its next time
                await self.deadlines.arm(deadline.kind, deadline.key, again.due_at)
            fired.append(deadline)
            events.append(DeadlineFired(deadline.kind, deadline.key, deadline.due_at, now))
            if self.bus is not None:
                await self.bus.publish(events, key=("deadline", deadline.kind, deadline.key))
        return fired

    async def wait_seconds(self) -> float:
        """How long to sleep before the next pass: until the next deadline's second, at most
        ``poll``."""
        next_at = await self.deadlines.next_at()
        if next_at is None:
            return self.poll
        return max(0.0, min(self.poll, math.ceil(next_at) - self._clock()))

    async def run(self) -> None:
        """Passes until :meth:`stop`; a pass that fails is logged and the loop goes on."""
        self._stopped = False
        while not self.stopped():
            try:
                await self.run_due()
                delay = await self.wait_seconds()
            except Exception:
                log.exception("timer pass failed")
                delay = self.poll
            if self.stopped():
                break
            await self._sleep(delay)

    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        self._stopped = True
