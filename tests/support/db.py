"""Raw SQL for tests that inspect the database behind a service: whole tables, before and after,
to show that a refusal wrote nothing, or a tampered row. The :class:`~bot.storage.Store`
protocol has no raw SQL; this goes through either store's private query helpers
(``_fetchall``/``_write_one(sql, params)``, the same signatures in both), in SQLite's dialect:
``?`` placeholders become ``$1``, ``$2`` ... for PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.postgres import PostgresStore
from bot.storage.sqlite import SqliteStore


def postgres_placeholders(sql: str) -> str:
    """``?`` placeholders as ``$1``, ``$2`` ... (not inside quoted strings or names)."""
    out: list[str] = []
    quote: str | None = None
    number = 0
    for char in sql:
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return "".join(out)


def _dialect(store: object, sql: str) -> str:
    if isinstance(store, PostgresStore):
        return postgres_placeholders(sql)
    assert isinstance(store, SqliteStore), f"raw SQL needs one of our stores, not {store!r}"
    return sql


async def sql_rows(store: object, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows (``sqlite3.Row`` or ``asyncpg.Record``, both read by column name or as tuples)
    of ``sql`` on ``store``'s own connection (SQLite) or pool (PostgreSQL).

    The store's own, not a second connection on the file: aiosqlite runs its calls in order, so
    the read sees every write queued before it, as the store's own reads do. A second
    connection could read before such a write lands, and a "nothing changed" check would pass
    when it should not. (PostgreSQL's writes are committed when their call returns.)
    """
    rows = await store._fetchall(_dialect(store, sql), params)  # type: ignore[attr-defined]
    return list(rows)


async def sql_write(store: object, sql: str, params: Sequence[Any] = ()) -> None:
    """One statement on ``store`` (tampering, as someone with the database could)."""
    await store._write_one(_dialect(store, sql), params)  # type: ignore[attr-defined]


async def table_names(store: object) -> list[str]:
    """The tables of tablebot's schema, sorted (not the engine's own, nor PostgreSQL's record
    of applied migrations, which SQLite keeps in ``PRAGMA user_version``)."""
    if isinstance(store, PostgresStore):
        from bot.storage.postgres_migrations import VERSION_TABLE

        sql = (
            "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() "
            f"AND tablename <> '{VERSION_TABLE}'"
        )
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    return sorted(row["name"] for row in await sql_rows(store, sql))
