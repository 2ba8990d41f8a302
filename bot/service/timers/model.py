"""The values of the timers capability: no sentences, no driver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Deadline:
    """A stored deadline: ``kind`` names what it is for (``"challenge.expiry"``), ``key`` the
    thing it is for (a challenge's id, as text), ``due_at`` when it falls due (seconds)."""

    id: int
    kind: str
    key: str
    due_at: float

    @classmethod
    def of(cls, row: Any) -> Deadline:
        return cls(int(row["id"]), str(row["kind"]), str(row["key"]), float(row["due_at"]))


@dataclass(frozen=True)
class Rearm:
    """What a handler returns, among its events, to have its deadline armed again for
    ``due_at`` once this firing is committed (a daily post's next day, a wait that moved on):
    it is not published."""

    due_at: float


@dataclass(frozen=True)
class DeadlineFired:
    """A service event: the deadline's handler ran and its firing is committed (``at``: the
    clock's second it fired at)."""

    kind: str
    key: str
    due_at: float
    at: float
