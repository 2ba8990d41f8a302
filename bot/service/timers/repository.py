"""The deadlines' reads and writes, through the :class:`~bot.storage.protocol.Store` protocol
(no SQL here: the store's ``deadlines`` methods, :mod:`bot.storage.deadlines`)."""

from __future__ import annotations

from bot.service.timers.model import Deadline
from bot.storage.protocol import Store


class DeadlineRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def arm(self, kind: str, key: str | int, due_at: float) -> None:
        await self._store.arm_deadline(kind, str(key), due_at)

    async def cancel(self, kind: str, key: str | int) -> bool:
        return await self._store.cancel_deadline(kind, str(key))

    async def due(self, now: float, limit: int = 100) -> list[Deadline]:
        return [Deadline.of(row) for row in await self._store.due_deadlines(now, limit)]

    async def next_at(self) -> float | None:
        return await self._store.next_deadline_at()

    async def claim(self, deadline: Deadline, owner: str, now: float, lease: float) -> bool:
        return await self._store.claim_deadline(deadline.id, owner, now, lease)

    async def fired(self, deadline: Deadline, owner: str, at: float) -> bool:
        return await self._store.fire_deadline(deadline.id, owner, at)
