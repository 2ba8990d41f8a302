"""Raw SQL for tests that inspect the database behind a service: whole tables, before and after,
to show that a refusal wrote nothing, or a tampered row. Through the stores' public diagnostics
(:class:`~bot.storage.RawSql`: ``raw_rows``/``raw_execute``), in SQLite's dialect (``?``
placeholders, which the PostgreSQL store numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage import RawSql
from bot.storage.postgres import PostgresStore


def raw(store: object) -> RawSql:
    """``store`` (a service's, typed as the ``Store`` it needs), as the diagnostics it is."""
    assert isinstance(store, RawSql), f"raw SQL needs one of our stores, not {store!r}"
    return store


async def sql_rows(store: object, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows (``sqlite3.Row`` or ``asyncpg.Record``, both read by column name or as tuples)
    of ``sql`` on ``store``'s own connection (SQLite) or pool (PostgreSQL).

    The store's own, not a second connection on the file: aiosqlite runs its calls in order, so
    the read sees every write queued before it, as the store's own reads do. A second
    connection could read before such a write lands, and a "nothing changed" check would pass
    when it should not. (PostgreSQL's writes are committed when their call returns.)
    """
    return list(await raw(store).raw_rows(sql, params))


async def sql_write(store: object, sql: str, params: Sequence[Any] = ()) -> None:
    """One statement on ``store`` (tampering, as someone with the database could)."""
    await raw(store).raw_execute(sql, params)


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
