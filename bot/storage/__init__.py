"""The storage room: all SQL lives here, behind the :class:`Store` API; its plain values are in
``bot/storage/types.py``. SQLite (aiosqlite) is the embedded default."""

from bot.storage.sqlite import Store
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
]
