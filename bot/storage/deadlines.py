"""The ``deadlines`` table's methods of the :class:`~bot.storage.protocol.Store` (issue 34, one
clock for every deadline), written once for both stores (a mixin of
:class:`~bot.storage.sqlite.SqliteStore` and :class:`~bot.storage.postgres.PostgresStore`).

A deadline is one row per ``(kind, key)``: armed (or re-armed) with its due time, claimed by one
process with a lease (a compare-and-set: of several processes asking at once exactly one
wins; a claim whose lease ran out, its process gone, may be taken again), fired once its
handler ran. Each method is one statement, so a backend never holds a transaction across an
``await`` of the caller's."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from bot.storage.types import Row

_ARM = (
    "INSERT INTO deadlines (kind, key, due_at) VALUES (?, ?, ?) "
    "ON CONFLICT (kind, key) DO UPDATE SET due_at = excluded.due_at, "
    "claimed_by = NULL, claimed_until = NULL, fired_at = NULL "
    # Armed again for the same second (a restart arming what it resumes): left as it is, so
    # a deadline that fired does not fire twice.
    "WHERE deadlines.due_at <> excluded.due_at"
)
_CLAIM = (
    "UPDATE deadlines SET claimed_by = ?, claimed_until = ? "
    "WHERE id = ? AND fired_at IS NULL AND due_at <= ? "
    "AND (claimed_until IS NULL OR claimed_until <= ?)"
)


class DeadlineOperations(ABC):
    @abstractmethod
    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    @abstractmethod
    def _dialect(self, sql: str) -> str: ...

    async def arm_deadline(self, kind: str, key: str, due_at: float) -> None:
        await self._changed(self._dialect(_ARM), (kind, key, due_at))

    async def cancel_deadline(self, kind: str, key: str) -> bool:
        pending = await self._rows(
            self._dialect(
                "SELECT id FROM deadlines WHERE kind = ? AND key = ? AND fired_at IS NULL"
            ),
            (kind, key),
        )
        await self._changed(
            self._dialect("DELETE FROM deadlines WHERE kind = ? AND key = ?"), (kind, key)
        )
        return bool(pending)

    async def deadline(self, kind: str, key: str) -> Row | None:
        rows = await self._rows(
            self._dialect("SELECT * FROM deadlines WHERE kind = ? AND key = ?"), (kind, key)
        )
        return rows[0] if rows else None

    async def due_deadlines(self, now: float, limit: int = 100) -> list[Row]:
        return await self._rows(
            self._dialect(
                "SELECT * FROM deadlines WHERE fired_at IS NULL AND due_at <= ? "
                "AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY due_at, id LIMIT ?"
            ),
            (now, now, limit),
        )

    async def next_deadline_at(self) -> float | None:
        # A deadline claimed by a runner whose handler failed may be taken again only once
        # its lease runs out: until then it is not "next", or a runner would spin on it.
        rows = await self._rows(
            "SELECT min(CASE WHEN claimed_until > due_at THEN claimed_until ELSE due_at END) "
            "AS due FROM deadlines WHERE fired_at IS NULL"
        )
        due = rows[0]["due"] if rows else None
        return None if due is None else float(due)

    async def claim_deadline(self, deadline_id: int, owner: str, now: float, lease: float) -> bool:
        changed = await self._changed(
            self._dialect(_CLAIM), (owner, now + lease, deadline_id, now, now)
        )
        return changed == 1

    async def fire_deadline(self, deadline_id: int, owner: str, at: float) -> bool:
        changed = await self._changed(
            self._dialect(
                "UPDATE deadlines SET fired_at = ? "
                "WHERE id = ? AND claimed_by = ? AND fired_at IS NULL"
            ),
            (at, deadline_id, owner),
        )
        return changed == 1
