"""The plain values the :class:`~bot.storage.protocol.Store` protocol takes and returns: no
database driver here, so the service can build and read them without importing one."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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
    """The database can't be used (e.g. it was written by a newer tablebot, or it is closed)."""


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
