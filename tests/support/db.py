"""Raw SQL for tests that inspect the SQLite database behind a service: whole tables, before and
after, to show that a refusal wrote nothing. The :class:`~bot.storage.Store` protocol has no raw
SQL; this reads through the SQLite store's private query helper instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.sqlite import SqliteStore


async def sql_rows(store: object, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows (``sqlite3.Row``) of ``sql`` on ``store``'s own connection.

    That connection, not a second one on the file: aiosqlite runs its calls in order, so the read
    sees every write queued before it, as the store's own reads do. A second connection could
    read before such a write lands, and a "nothing changed" check would pass when it should not.
    """
    assert isinstance(store, SqliteStore), f"raw SQL needs a SQLite store, not {store!r}"
    return list(await store._fetchall(sql, params))
