"""The storage room: all SQL lives here, behind the :class:`Store` protocol
(``bot/storage/protocol.py``) and its plain values (``bot/storage/types.py``).

:func:`open_store` picks the implementation for a target: SQLite
(:class:`bot.storage.sqlite.SqliteStore`, aiosqlite) for a file path, PostgreSQL
(:class:`bot.storage.postgres.PostgresStore`, asyncpg) for a ``postgresql://`` URL. This package
imports no database driver itself: the service imports it freely, and the driver loads when a
store is made.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.protocol import RawSql, Store
from bot.storage.types import (
    ROBOT_RECORD_COLUMNS,
    STAT_COLUMNS,
    CheckpointResult,
    ConstraintViolation,
    EventRow,
    Finisher,
    GuildShards,
    MigrationFailed,
    NewEvent,
    RobotRecordUpdate,
    Row,
    SchemaTooNew,
    StatementFailed,
    StatUpdate,
    StoreError,
    StoreNotOpen,
    StoreUnavailable,
    VersionConflict,
    redact,
    shard_of,
)

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://``
    URL) rather than a SQLite file."""
    return isinstance(target, str) and target.lower().startswith(_POSTGRES_SCHEMES)


def open_store(target: str | Path) -> Store:
    """A store for ``target``, not yet open (``await store.connect()``): a PostgreSQL database
    for a ``postgresql://`` (or ``postgres://``) URL, else a SQLite database at a file path."""
    # The drivers load here, not with the package.
    if is_postgres_url(target):
        from bot.storage.postgres import PostgresStore

        return PostgresStore(str(target))
    from bot.storage.sqlite import SqliteStore

    return SqliteStore(target)


async def connect_store(target: str | Path) -> Store:
    """:func:`open_store`, connected (opened and migrated)."""
    store = open_store(target)
    await store.connect()
    return store


__all__ = [
    "ROBOT_RECORD_COLUMNS",
    "STAT_COLUMNS",
    "CheckpointResult",
    "ConstraintViolation",
    "EventRow",
    "Finisher",
    "GuildShards",
    "MigrationFailed",
    "NewEvent",
    "RawSql",
    "RobotRecordUpdate",
    "Row",
    "SchemaTooNew",
    "StatUpdate",
    "StatementFailed",
    "Store",
    "StoreError",
    "StoreNotOpen",
    "StoreUnavailable",
    "VersionConflict",
    "connect_store",
    "is_postgres_url",
    "open_store",
    "redact",
    "shard_of",
]
