"""The plain values the :class:`~bot.storage.protocol.Store` protocol takes and returns: no
database driver here, so the service can build and read them without importing one."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

# The counters of a ratings row that game and match results add to.
STAT_COLUMNS = (
    "played",
    "won",
    "lost",
    "drawn",
    "points_won",
    "points_lost",
    "gammons_for",
    "gammons_against",
    "backgammons_for",
    "backgammons_against",
    "nannons_for",
    "nannons_against",
    "nannons_shouted",
)


class StoreError(Exception):
    """The database can't do what was asked. Every error a store raises is one of its
    subclasses (the driver's own error, when there was one, is its ``__cause__``), so no caller
    needs to know the driver; messages name no password."""


class StoreNotOpen(StoreError):
    """The store is not connected yet, or closed."""


class StoreUnavailable(StoreError):
    """The database can't be reached or opened: a missing folder or unreadable file, a server
    that doesn't answer, a refused login, an unknown database, a lost connection."""


class SchemaTooNew(StoreError):
    """The database was written by a newer tablebot (its schema has more steps than this one
    knows)."""


class MigrationFailed(StoreError):
    """A step migrating the database failed; it rolled back, and the database is left at the
    step before."""


class ConstraintViolation(StoreError):
    """A write broke a key or constraint of the schema (a duplicate, a missing reference); it
    wrote nothing."""


class StatementFailed(StoreError):
    """The database refused a statement for another reason (a missing table, a lock not
    granted in time ...)."""


class VersionConflict(Exception):
    """The match's version changed under a write: someone else committed first."""


class Row(Protocol):
    """A result row, read by column name: ``row["rating"]``.

    What a backend's driver returns as is: ``sqlite3.Row`` and ``asyncpg.Record`` are both one
    (and so is a ``dict[str, Any]``). Not a ``Mapping``: iterating either of those rows gives its
    values, not its column names.
    """

    def __getitem__(self, key: str, /) -> Any: ...


@dataclass(frozen=True)
class EventRow:
    """One event of a match's append-only log, as stored."""

    match_id: int
    seq: int
    at: float
    actor: int | None
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class NewEvent:
    """An event to append; the store numbers it."""

    at: float
    actor: int | None  # the Discord user, or None for the bot (auto-roll, forced move)
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class StatUpdate:
    """Counter increments (``add``) and absolute values (``set``: rating, experience, streak)
    for one player's ratings row."""

    guild_id: int
    game: str
    user_id: int
    name: str
    add: dict[str, float]
    set: dict[str, float]


# The counters of a robot_records row: a player's record against one robot level in one game.
ROBOT_RECORD_COLUMNS = ("played", "won", "lost", "drawn", "points_won", "points_lost")


@dataclass(frozen=True)
class RobotRecordUpdate:
    """Counter increments (``add``, of :data:`ROBOT_RECORD_COLUMNS`) for a player's record
    against the robot at ``level`` (1..5) in ``game``."""

    guild_id: int
    game: str
    user_id: int
    name: str
    level: int
    add: dict[str, float]


@dataclass(frozen=True)
class CheckpointResult:
    """What ``PRAGMA wal_checkpoint`` reports: whether it was blocked, the frames in the WAL,
    and how many of them are now copied into the database."""

    busy: bool
    wal_frames: int
    checkpointed_frames: int

    @property
    def complete(self) -> bool:
        return not self.busy and self.checkpointed_frames == self.wal_frames


# A match's finisher: given the current ratings rows of the match's players (by user id; a
# player without a row is absent), the extra stat updates and match columns of its last action.
# A pure function: the store calls it inside that action's transaction, on whatever thread or
# connection the backend runs the transaction on, so it must only compute.
Finisher = Callable[[Mapping[int, Row]], tuple[list[StatUpdate], dict[str, Any]]]


# One encoder for all: json.dumps with options builds a new encoder per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


def dumps(data: Any) -> str:
    """JSON as both stores save it (snapshots, event payloads, settings): compact, keys sorted,
    so the same value is the same text in SQLite and in PostgreSQL."""
    return _ENCODER.encode(data)


_PASSWORD_PARAMETER = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)


def redact(url: str) -> str:
    """A database URL without its password (in the authority or a ``password=`` parameter),
    fit for a log or an error message."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    credentials, at, host = authority.rpartition("@")
    if at and ":" in credentials:
        user = credentials.split(":", 1)[0]
        authority = f"{user}:***@{host}"
    tail = _PASSWORD_PARAMETER.sub(r"\1***", tail)
    return f"{scheme}://{authority}{slash}{tail}"


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard a guild belongs to, as Discord assigns it: ``(guild_id >> 22) % shard_count``."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True)
class GuildShards:
    """Some of a sharded bot's shards: the guilds one process handles. Guild ``g`` belongs to
    shard ``(g >> 22) % count`` (:func:`shard_of`); a process owns the guilds of its ``ids``.
    The stores filter by :meth:`sql` (the same text in SQLite and PostgreSQL)."""

    count: int
    ids: frozenset[int]

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or self.count < 1:
            raise ValueError(f"a shard count is a positive number, not {self.count!r}")
        if not self.ids or any(not isinstance(i, int) or not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids must be in 0..{self.count - 1}, not {sorted(self.ids)}")

    @classmethod
    def of(cls, count: int, ids: Iterable[int]) -> GuildShards | None:
        """The filter for shards ``ids`` of ``count``; None (no filter) when they are all of
        them."""
        owned = frozenset(ids)
        return None if owned == frozenset(range(count)) else cls(count, owned)

    def owns(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    def sql(self, column: str = "guild_id") -> str:
        """A condition on ``column`` that holds for these shards' guilds. Only ints go in."""
        ids = ", ".join(str(int(i)) for i in sorted(self.ids))
        return f"(({column} >> 22) % {int(self.count)}) IN ({ids})"


def guild_condition(guilds: GuildShards | None, column: str = "guild_id") -> str:
    """`` AND <the shards' condition>``, or nothing for every guild (``guilds`` None)."""
    return "" if guilds is None else f" AND {guilds.sql(column)}"
