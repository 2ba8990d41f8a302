"""Moving up: :func:`copy_database` copies a SQLite database into PostgreSQL (``tablebot
migrate-db --to postgresql://...``).

Everything is copied as stored: guild settings, challenges, matches, their events, snapshots
and finished games, ratings and stats, shouts, tournaments; ids keep their values, and the
target's id sequences continue after them. The target must be empty (it is migrated first, as
the bot would); one that already holds data is refused. The copy is one transaction on the target,
which commits only after every table's row count matches the source's and every match, read
back from the target, replays from its event log to exactly its stored snapshot: a refused or
failed copy leaves the target as empty as it was.

Stop the bot before copying: what it writes to SQLite after the copy began is not copied.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.storage import is_postgres_url
from bot.storage.postgres import PostgresStore
from bot.storage.postgres_statements import Connection
from bot.storage.sqlite import SqliteStore
from bot.storage.sqlite_statements import sqlite_errors
from bot.storage.types import StoreError, redact

# In an order that satisfies the foreign keys (a match's challenge first, its events after it).
TABLES = (
    "guild_settings",
    "challenges",
    "matches",
    "events",
    "snapshots",
    "game_results",
    "ratings",
    "shouts",
    "robot_records",
    "analyses",
    "tournaments",
    "tournament_entries",
    "tournament_pairings",
    "puzzles",
    "puzzle_attempts",
    "puzzle_ratings",
    "puzzle_opt_outs",
    "member_languages",
)
# Kept by the target's own triggers as the rows above arrive (step 8: each member's record per
# game and length), so not copied; their row counts are compared all the same.
DERIVED_TABLES = ("length_records",)
# The tables whose ids are identity columns in PostgreSQL (AUTOINCREMENT in SQLite).
IDENTITY_TABLES = ("challenges", "matches", "tournaments", "puzzles")
# Primary keys, to read in a stable order.
ORDER = {
    "guild_settings": "guild_id",
    "challenges": "id",
    "matches": "id",
    "events": "match_id, seq",
    "snapshots": "match_id",
    "game_results": "match_id, game_number",
    "ratings": "guild_id, game, user_id",
    "shouts": "match_id, game_number",
    "robot_records": "guild_id, game, user_id, level",
    "analyses": "match_id",
    "tournaments": "id",
    "tournament_entries": "tournament_id, user_id",
    "tournament_pairings": "tournament_id, round, board",
    "puzzles": "id",
    "puzzle_attempts": "puzzle_id, user_id",
    "puzzle_ratings": "guild_id, user_id",
    "puzzle_opt_outs": "guild_id, user_id",
    "member_languages": "user_id",
}
BATCH = 5000
# Matches replayed per query of their events.
REPLAY_BATCH = 200


@dataclass(frozen=True)
class CopyReport:
    """What :func:`copy_database` copied: rows per table, and the matches it replayed."""

    rows: dict[str, int]
    matches_replayed: int

    def summary(self) -> str:
        return ", ".join(f"{count} {table}" for table, count in self.rows.items())


async def copy_database(source: str | Path, target: str) -> CopyReport:
    """Copy the SQLite database at ``source`` into the empty PostgreSQL database at ``target``
    (a ``postgresql://`` URL), check it, and commit; :class:`StoreError` when the source or
    the target can't be used, the target holds data, or the copy doesn't check out."""
    if is_postgres_url(source):
        raise StoreError(f"The database to copy must be a SQLite file, not {redact(str(source))}.")
    if not is_postgres_url(target):
        raise StoreError(f"The target must be a postgresql:// URL, not {target!r}.")
    path = Path(source)
    if not path.is_file():
        raise StoreError(f"There is no SQLite database at {str(path)!r} to copy.")
    # Bring the source to this tablebot's schema (as starting the bot would), so that both
    # sides have the same columns.
    lite = SqliteStore(path)
    await lite.connect()
    await lite.close()
    store = PostgresStore(target, min_size=1, max_size=1)
    await store.connect()
    try:
        with sqlite_errors():  # reading the source (the target's errors are the store's)
            return await store._transaction(lambda db: _copy(path, db))
    finally:
        await store.close()


async def _copy(path: Path, db: Connection) -> CopyReport:
    held = [table for table in TABLES if await db.fetchval(f"SELECT EXISTS (SELECT FROM {table})")]
    if held:
        raise StoreError(
            "The target database already holds data (in " + ", ".join(held) + "); "
            "migrate-db copies into an empty database only."
        )
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        rows = {table: await _copy_table(source, db, table) for table in TABLES}
        for table in DERIVED_TABLES:
            [(rows[table],)] = source.execute(f"SELECT count(*) FROM {table}").fetchall()
        sequences = dict(source.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
    finally:
        source.close()
    for table in IDENTITY_TABLES:
        last = max(
            int(sequences.get(table, 0)),
            int(await db.fetchval(f"SELECT coalesce(max(id), 0) FROM {table}")),
        )
        if last > 0:  # the next id the target gives is the one SQLite would have given
            await db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), $1)", last)
    for table, count in rows.items():
        copied = int(await db.fetchval(f"SELECT count(*) FROM {table}"))
        if copied != count:
            raise StoreError(f"{table}: {count} rows read from SQLite, {copied} in PostgreSQL.")
    replayed = await _check_replays(db)
    # The planner's statistics, now: without them the first reads of a big copy plan as if
    # every table were empty (the length leaderboard took 24 s at 10,000 matches until
    # autovacuum came by).
    await db.execute("ANALYZE")
    return CopyReport(rows, replayed)


async def _copy_table(source: sqlite3.Connection, db: Connection, table: str) -> int:
    cursor = source.execute(f"SELECT * FROM {table} ORDER BY {ORDER[table]}")
    columns = [d[0] for d in cursor.description]
    count = 0
    while True:
        batch: list[tuple[Any, ...]] = await asyncio.to_thread(cursor.fetchmany, BATCH)
        if not batch:
            return count
        await db.copy_records_to_table(table, records=batch, columns=columns)
        count += len(batch)


async def _check_replays(db: Connection) -> int:
    """Every match, read from the target, replays from its events to its snapshot."""
    from engines import replay
    from engines.actions import action_from_dict
    from engines.base import MatchRules

    matches = await db.fetch(
        "SELECT m.id, m.game, m.rules, s.data FROM matches AS m "
        "LEFT JOIN snapshots AS s ON s.match_id = m.id ORDER BY m.id"
    )
    wrong: list[str] = []
    for start in range(0, len(matches), REPLAY_BATCH):
        chunk: Sequence[Any] = matches[start : start + REPLAY_BATCH]
        events: dict[int, list[Any]] = {row["id"]: [] for row in chunk}
        for event in await db.fetch(
            "SELECT match_id, seq, payload FROM events WHERE match_id = ANY($1::bigint[]) "
            "ORDER BY match_id, seq",
            list(events),
        ):
            events[event["match_id"]].append(event)
        for row in chunk:
            log = events[row["id"]]
            if row["data"] is None:
                wrong.append(f"{row['id']} (no snapshot)")
                continue
            if [e["seq"] for e in log] != list(range(len(log))):
                wrong.append(f"{row['id']} (a gap in its events)")
                continue
            try:
                rules = MatchRules.from_dict(json.loads(row["rules"]))
                actions = [action_from_dict(json.loads(e["payload"])) for e in log]
                same = replay(row["game"], rules, actions).snapshot() == json.loads(row["data"])
            except Exception as exc:  # a log the engines refuse is as wrong as a mismatch
                wrong.append(f"{row['id']} ({type(exc).__name__}: {exc})")
                continue
            if not same:
                wrong.append(f"{row['id']} (its replay differs from its snapshot)")
    if wrong:
        shown = "; ".join(wrong[:10]) + (f"; and {len(wrong) - 10} more" if len(wrong) > 10 else "")
        raise StoreError(
            f"{len(wrong)} of {len(matches)} matches don't replay to their snapshot, so nothing "
            f"was copied: match {shown}."
        )
    return len(matches)
