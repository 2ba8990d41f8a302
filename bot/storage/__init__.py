"""The storage room: all SQL lives here, behind the :class:`Store` protocol
(``bot/storage/protocol.py``) and its plain values (``bot/storage/types.py``).

:func:`open_store` picks the implementation for a target: today SQLite
(:class:`bot.storage.sqlite.SqliteStore`, aiosqlite) for a file path. This package imports no
database driver itself: the service imports it freely, and the driver loads when a store is made.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.protocol import Store
from bot.storage.types import (
    STAT_COLUMNS,
    CheckpointResult,
    EventRow,
    Finisher,
    NewEvent,
    Row,
    StatUpdate,
    StoreError,
    VersionConflict,
)

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(target: str | Path) -> Store:
    """A store for ``target``, not yet open (``await store.connect()``): a SQLite database at a
    file path. A ``postgresql://`` URL raises :class:`StoreError`: PostgreSQL is not supported
    yet."""
    if isinstance(target, str) and target.lower().startswith(_POSTGRES_SCHEMES):
        raise StoreError(
            "PostgreSQL is not supported yet: TABLEBOT_DB must be the path of a SQLite "
            "database file."
        )
    from bot.storage.sqlite import SqliteStore  # the driver loads here, not with the package

    return SqliteStore(target)


async def connect_store(target: str | Path) -> Store:
    """:func:`open_store`, connected (opened and migrated)."""
    store = open_store(target)
    await store.connect()
    return store


__all__ = [
    "STAT_COLUMNS",
    "CheckpointResult",
    "EventRow",
    "Finisher",
    "NewEvent",
    "Row",
    "StatUpdate",
    "Store",
    "StoreError",
    "VersionConflict",
    "connect_store",
    "open_store",
]
