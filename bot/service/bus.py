"""The in-process event bus: what a command changed reaches whoever reacts to it.

The API a transport (Discord, a terminal, a test) uses::

    service = MatchService(store)                        # it owns one EventBus: service.bus
    service.bus.subscribe(MatchUpdated, show)            # at start-up, before any command
    service.bus.subscribe(RobotTurnWaiting, robot.turn_waiting)
    update = await service.handle(RollDice(match, guild, user, expected_version=v))

A command's handler returns its result and its events (:mod:`bot.service.events`); once the
command is committed, :meth:`MatchService.handle` publishes the events here before it answers.
Each event goes to every subscriber of its type or of a base of it, in the order they
subscribed. Events of one match (``key``) are delivered in commit order: the slot is taken while
the match's lock is held (:meth:`EventBus.reserve`), and a delivery waits for the one before it.

A subscriber is a function of the event, plain or async. Its exception is logged
(``log.exception``) and the other subscribers still hear of the event: the committed command
stands, and its caller gets its answer. A subscriber that acts on a match itself (the robot)
starts a task of its own rather than wait inside the delivery, which holds the match's next
delivery back. A delivery runs to its end even when the command's caller is cancelled;
:meth:`EventBus.drain` waits for those in flight.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

__all__ = ["EventBus", "Outcome", "Slot", "Subscriber"]

E = TypeVar("E")
R = TypeVar("R")
Subscriber = Callable[[E], Awaitable[None] | None]


@dataclass(frozen=True)
class Slot:
    """A place in one key's delivery order: delivered after ``after`` (the previous slot's
    ``done``), then ``done`` is set."""

    key: object
    after: asyncio.Future[None] | None
    done: asyncio.Future[None]


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """What a command's handler returns: its answer, its events, and (for a match's command)
    the place in the match's delivery order it took while the match's lock was held."""

    result: R
    events: tuple[object, ...] = ()
    slot: Slot | None = None


class EventBus:
    """Subscribers by event type; ordered delivery per key (a match id)."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[type[Any], Subscriber[Any]]] = []
        self._tails: dict[object, asyncio.Future[None]] = {}
        self._deliveries: set[asyncio.Task[None]] = set()

    def subscribe(self, kind: type[E], subscriber: Subscriber[E]) -> Callable[[], None]:
        """Call ``subscriber`` with every event of type ``kind`` (or a subtype) published from
        now on; returns the function that unsubscribes it."""
        entry: tuple[type[Any], Subscriber[Any]] = (kind, subscriber)
        self._subscribers.append(entry)

        def unsubscribe() -> None:
            if entry in self._subscribers:
                self._subscribers.remove(entry)

        return unsubscribe

    def reserve(self, key: object) -> Slot:
        """Take the next place in ``key``'s delivery order (synchronously: under the lock that
        orders the commits)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        after = self._tails.get(key)
        self._tails[key] = done
        return Slot(key, after, done)

    async def publish(
        self, events: Iterable[object], *, key: object = None, slot: Slot | None = None
    ) -> None:
        """Deliver ``events`` in order to their subscribers, after the earlier deliveries of
        the same ``key`` (or in ``slot``, reserved earlier). Returns once every subscriber has
        had them; a caller cancelled meanwhile does not cut the delivery short."""
        if slot is None:
            slot = self.reserve(key)
        task = asyncio.get_running_loop().create_task(self._deliver(tuple(events), slot))
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)
        await asyncio.shield(task)

    async def drain(self) -> None:
        """Until every delivery in flight has ended."""
        while pending := {t for t in self._deliveries if not t.done()}:
            await asyncio.wait(pending)

    async def _deliver(self, events: tuple[object, ...], slot: Slot) -> None:
        try:
            if slot.after is not None:
                await slot.after
            for event in events:
                for kind, subscriber in tuple(self._subscribers):
                    if isinstance(event, kind):
                        await self._tell(subscriber, event)
        finally:
            slot.done.set_result(None)
            if self._tails.get(slot.key) is slot.done:
                del self._tails[slot.key]

    @staticmethod
    async def _tell(subscriber: Subscriber[Any], event: object) -> None:
        try:
            result = subscriber(event)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("subscriber %r failed on %r", subscriber, event)
