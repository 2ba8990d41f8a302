"""The SQLite and PostgreSQL schemas match, step for step: after each migration step, the same
tables, the same columns in the same order (types through a mapping, nullability, defaults,
identity), the same primary keys, unique constraints, foreign keys, and indexes by name. Read
from each engine's own catalog (``PRAGMA table_info``/``index_list``/``foreign_key_list``;
``information_schema`` and ``pg_index``/``pg_constraint``), not from the migrations' text."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.storage import connect_store, postgres_migrations
from bot.storage import migrations as sqlite_migrations

pytestmark = pytest.mark.postgres

# The one table outside the schema: PostgreSQL's record of the steps applied (SQLite keeps
# the version in PRAGMA user_version).
BOOKKEEPING = {postgres_migrations.VERSION_TABLE}

Schema = dict[str, dict[str, Any]]


def is_id(column: str) -> bool:
    """Discord ids and our own: 64 bits (``bigint``) in PostgreSQL."""
    return column in ("id", "actor") or column.endswith("_id")


def common_type(engine_type: str, column: str) -> str:
    """A column's type in words both engines share."""
    t = engine_type.lower()
    if t == "integer" and is_id(column):
        return "int64 (INTEGER / bigint)"
    mapping = {
        "integer": "int (INTEGER / integer)",
        "bigint": "int64 (INTEGER / bigint)",
        "real": "float (REAL / double precision)",
        "double precision": "float (REAL / double precision)",
        "text": "text (TEXT / text)",
        "blob": "bytes (BLOB / bytea)",
        "bytea": "bytes (BLOB / bytea)",
    }
    return mapping.get(t, f"unmapped {engine_type}")


def common_default(value: str | None) -> str | None:
    """``'1500'::double precision``, ``1500`` and ``'1500'`` are one default."""
    if value is None:
        return None
    text = re.sub(r"::[a-z ]+$", "", value.strip()).strip("'")
    try:
        return repr(float(text))
    except ValueError:
        return text


def sqlite_schema(path: Path) -> Schema:
    schema: Schema = {}
    with sqlite3.connect(path) as db:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for table in tables:
            sql = db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone()[0]
            info = db.execute(f"PRAGMA table_info({table})").fetchall()
            # cid, name, type, notnull, dflt_value, pk
            primary_key = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
            columns = [
                (
                    name,
                    common_type(kind, name),
                    not (notnull or pk),  # a primary key is never null
                    common_default(default),
                    "AUTOINCREMENT" in sql.upper() and pk == 1 and len(primary_key) == 1,
                )
                for _cid, name, kind, notnull, default, pk in info
            ]
            indexes, unique = {}, []
            for _seq, name, is_unique, origin, _partial in db.execute(
                f"PRAGMA index_list({table})"
            ):
                cols = tuple(row[2] for row in db.execute(f"PRAGMA index_info({name})"))
                if origin == "c":
                    indexes[name] = (bool(is_unique), cols)
                elif origin == "u":
                    unique.append(cols)
            foreign: dict[int, tuple[str, list[str], list[str]]] = {}
            for fk_id, _seq, ref, src, dst, *_ in db.execute(f"PRAGMA foreign_key_list({table})"):
                entry = foreign.setdefault(fk_id, (ref, [], []))
                entry[1].append(src)
                entry[2].append(dst)
            schema[table] = {
                "columns": columns,
                "primary_key": primary_key,
                "unique": sorted(unique),
                "indexes": indexes,
                "foreign_keys": sorted((tuple(s), r, tuple(d)) for r, s, d in foreign.values()),
            }
    return schema


async def postgres_schema(url: str) -> Schema:
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        tables = [
            row["table_name"]
            for row in await db.fetch(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
            )
            if row["table_name"] not in BOOKKEEPING
        ]
        schema: Schema = {}
        for table in tables:
            info = await db.fetch(
                "SELECT column_name, data_type, is_nullable, column_default, is_identity "
                "FROM information_schema.columns WHERE table_schema = 'public' "
                "AND table_name = $1 ORDER BY ordinal_position",
                table,
            )
            columns = [
                (
                    row["column_name"],
                    common_type(row["data_type"], row["column_name"]),
                    row["is_nullable"] == "YES",
                    common_default(row["column_default"]),
                    row["is_identity"] == "YES",
                )
                for row in info
            ]
            constraints = await db.fetch(
                """
                SELECT c.contype::text AS contype, c.confrelid::regclass::text AS ref,
                       i.relname AS index_name,
                       array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o)
                             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n
                             ORDER BY k.o) AS cols,
                       array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY AS k(n, o)
                             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n
                             ORDER BY k.o) AS ref_cols
                FROM pg_constraint c LEFT JOIN pg_class i ON i.oid = c.conindid
                WHERE c.conrelid = $1::regclass
                """,
                table,
            )
            backed = {row["index_name"] for row in constraints if row["contype"] in "pu"}
            index_rows = await db.fetch(
                """
                SELECT i.relname AS name, x.indisunique AS is_unique,
                       array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(n, o)
                             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n
                             ORDER BY k.o) AS cols
                FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                WHERE x.indrelid = $1::regclass
                """,
                table,
            )
            [primary_key] = [list(r["cols"]) for r in constraints if r["contype"] == "p"] or [[]]
            schema[table] = {
                "columns": columns,
                "primary_key": primary_key,
                "unique": sorted(tuple(r["cols"]) for r in constraints if r["contype"] == "u"),
                "indexes": {
                    row["name"]: (row["is_unique"], tuple(row["cols"]))
                    for row in index_rows
                    if row["name"] not in backed
                },
                "foreign_keys": sorted(
                    (tuple(r["cols"]), r["ref"], tuple(r["ref_cols"]))
                    for r in constraints
                    if r["contype"] == "f"
                ),
            }
        return schema
    finally:
        await db.close()


def test_both_dialects_have_the_same_steps() -> None:
    assert len(sqlite_migrations.MIGRATIONS) == len(postgres_migrations.MIGRATIONS) >= 1


@pytest.mark.asyncio
@pytest.mark.parametrize("steps", range(1, len(sqlite_migrations.MIGRATIONS) + 1))
async def test_the_schemas_match_after_each_step(
    steps: int,
    tmp_path: Path,
    postgres_database: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.storage.migrations.MIGRATIONS", sqlite_migrations.MIGRATIONS[:steps])
    monkeypatch.setattr(
        "bot.storage.postgres_migrations.MIGRATIONS", postgres_migrations.MIGRATIONS[:steps]
    )
    url = postgres_database(migrated=False)
    for target in (tmp_path / "t.db", url):
        store = await connect_store(target)
        await store.close()
    lite = sqlite_schema(tmp_path / "t.db")
    pg = await postgres_schema(url)
    assert sorted(pg) == sorted(lite)
    for table in lite:
        assert pg[table] == lite[table], table
    assert lite  # the comparison saw something


@pytest.mark.asyncio
async def test_the_comparison_sees_a_difference(
    tmp_path: Path, postgres_database: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A step that differs in a type, a default, an index name and a column's order.
    monkeypatch.setattr(
        "bot.storage.migrations.MIGRATIONS",
        (
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a INTEGER NOT NULL DEFAULT 1,"
            " b TEXT); CREATE INDEX t_b ON t (b)",
        ),
    )
    monkeypatch.setattr(
        "bot.storage.postgres_migrations.MIGRATIONS",
        (
            "CREATE TABLE t (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
            " b text, a bigint NOT NULL DEFAULT 2); CREATE INDEX t_b_idx ON t (b)",
        ),
    )
    url = postgres_database(migrated=False)
    for target in (tmp_path / "t.db", url):
        store = await connect_store(target)
        await store.close()
    lite = sqlite_schema(tmp_path / "t.db")["t"]
    pg = (await postgres_schema(url))["t"]
    assert lite["columns"][0] == pg["columns"][0]  # the identity column matches
    assert [c[0] for c in lite["columns"]] == ["id", "a", "b"]
    assert [c[0] for c in pg["columns"]] == ["id", "b", "a"]
    assert lite["columns"][1][1:] == ("int (INTEGER / integer)", False, "1.0", False)
    assert pg["columns"][2][1:] == ("int64 (INTEGER / bigint)", False, "2.0", False)
    assert list(lite["indexes"]) == ["t_b"] and list(pg["indexes"]) == ["t_b_idx"]
