"""The storage room: all SQL lives here, behind the :class:`Store` API. SQLite (aiosqlite) is the
embedded default."""

from bot.storage.sqlite import (
    STAT_COLUMNS,
    CheckpointResult,
    EventRow,
    NewEvent,
    StatUpdate,
    Store,
    StoreError,
    VersionConflict,
)

__all__ = [
    "STAT_COLUMNS",
    "CheckpointResult",
    "EventRow",
    "NewEvent",
    "StatUpdate",
    "Store",
    "StoreError",
    "VersionConflict",
]
