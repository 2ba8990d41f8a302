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

A big history (issue 38): the replay check reads the matches a batch at a time (by id, with
one query of the batch's events), so memory stays one batch whatever the history's size, and
replays the batches in worker processes, one per core, while the next batches are read. The
copy reports its progress (each table's rows, the matches replayed) to ``progress``, which
``tablebot migrate-db`` draws on the terminal. Once checked, the target is analysed
(``ANALYZE``): the planner's statistics are there before the bot's first read.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sqlite3
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
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
# Matches replayed per query of their events (and per job of a replay worker).
REPLAY_BATCH = 200
# Below this many matches the check replays them itself: starting workers would cost more.
POOL_FROM = 2 * REPLAY_BATCH

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: a table's rows copied (``stage`` its name), the matches
replayed (``"replay"``), the target analysed (``"analyse"``)."""


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


@dataclass(frozen=True)
class CopyReport:
    """What :func:`copy_database` copied: rows per table, and the matches it replayed."""

    rows: dict[str, int]
    matches_replayed: int

    def summary(self) -> str:
        return ", ".join(f"{count} {table}" for table, count in self.rows.items())


async def copy_database(
    source: str | Path, target: str, progress: Progress = _no_progress
) -> CopyReport:
    """Copy the SQLite database at ``source`` into the empty PostgreSQL database at ``target``
    (a ``postgresql://`` URL), check it, analyse it, and commit, telling ``progress`` how far
    it got; :class:`StoreError` when the source or the target can't be used, the target holds
    data, or the copy doesn't check out."""
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
            return await store._transaction(lambda db: _copy(path, db, progress))
    finally:
        await store.close()


async def _copy(path: Path, db: Connection, progress: Progress) -> CopyReport:
    held = [table for table in TABLES if await db.fetchval(f"SELECT EXISTS (SELECT FROM {table})")]
    if held:
        raise StoreError(
            "The target database already holds data (in " + ", ".join(held) + "); "
            "migrate-db copies into an empty database only."
        )
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        rows = {table: await _copy_table(source, db, table, progress) for table in TABLES}
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
    replayed = await _check_replays(db, progress)
    # The planner's statistics, now: without them the first reads of a big copy plan as if
    # every table were empty (the length leaderboard took 24 s at 10,000 matches until
    # autovacuum came by).
    progress("analyse", 0, 1)
    await db.execute("ANALYZE")
    progress("analyse", 1, 1)
    return CopyReport(rows, replayed)


async def _copy_table(
    source: sqlite3.Connection, db: Connection, table: str, progress: Progress
) -> int:
    [(total,)] = source.execute(f"SELECT count(*) FROM {table}").fetchall()
    cursor = source.execute(f"SELECT * FROM {table} ORDER BY {ORDER[table]}")
    columns = [d[0] for d in cursor.description]
    count = 0
    progress(table, 0, total)
    while True:
        batch: list[tuple[Any, ...]] = await asyncio.to_thread(cursor.fetchmany, BATCH)
        if not batch:
            return count
        await db.copy_records_to_table(table, records=batch, columns=columns)
        count += len(batch)
        progress(table, count, max(total, count))


# One match to replay: id, game, rules (JSON), snapshot (JSON or None), its events (seq, payload).
ReplayJob = tuple[int, str, str, str | None, list[tuple[int, str]]]


async def _check_replays(db: Connection, progress: Progress) -> int:
    """Every match, read from the target a batch at a time, replays from its events to its
    snapshot; the batches are replayed in worker processes (one per core) while the next are
    read, when there are enough of them."""
    total = int(await db.fetchval("SELECT count(*) FROM matches"))
    workers = min(os.cpu_count() or 1, -(-total // REPLAY_BATCH))
    pool: Executor | None = None
    if total >= POOL_FROM and workers > 1:
        # spawn: a fork would copy this process's event loop and connection into each worker.
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    loop = asyncio.get_running_loop()
    wrong: list[str] = []
    done = 0
    pending: deque[tuple[int, asyncio.Future[list[str]]]] = deque()  # (matches, their problems)
    progress("replay", 0, total)
    try:
        last = 0
        while batch := await _replay_jobs(db, last):
            last = batch[-1][0]
            if pool is None:
                wrong += replay_problems(batch)
                done += len(batch)
                progress("replay", done, total)
                continue
            pending.append((len(batch), loop.run_in_executor(pool, replay_problems, batch)))
            while len(pending) > 2 * workers:  # read ahead, but only so far
                done += await _collect(pending, wrong)
                progress("replay", done, total)
        while pending:
            done += await _collect(pending, wrong)
            progress("replay", done, total)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    if wrong:
        shown = "; ".join(wrong[:10]) + (f"; and {len(wrong) - 10} more" if len(wrong) > 10 else "")
        raise StoreError(
            f"{len(wrong)} of {done} matches don't replay to their snapshot, so nothing "
            f"was copied: match {shown}."
        )
    return done


async def _collect(pending: deque[tuple[int, asyncio.Future[list[str]]]], wrong: list[str]) -> int:
    """The oldest batch's problems, added to ``wrong``; how many matches it held."""
    count, problems = pending.popleft()
    wrong += await problems
    return count


async def _replay_jobs(db: Connection, after: int) -> list[ReplayJob]:
    """The next batch of matches after id ``after``, with their events: two queries."""
    matches = await db.fetch(
        "SELECT m.id, m.game, m.rules, s.data FROM matches AS m "
        "LEFT JOIN snapshots AS s ON s.match_id = m.id WHERE m.id > $1 ORDER BY m.id LIMIT $2",
        after,
        REPLAY_BATCH,
    )
    events: dict[int, list[tuple[int, str]]] = {row["id"]: [] for row in matches}
    for event in await db.fetch(
        "SELECT match_id, seq, payload FROM events WHERE match_id = ANY($1::bigint[]) "
        "ORDER BY match_id, seq",
        list(events),
    ):
        events[event["match_id"]].append((event["seq"], event["payload"]))
    return [
        (row["id"], row["game"], row["rules"], row["data"], events[row["id"]]) for row in matches
    ]


def replay_problems(batch: Sequence[ReplayJob]) -> list[str]:
    """What is wrong with each match of ``batch`` that does not replay to its snapshot. Runs
    in a worker process: plain values in and out."""
    from engines import replay
    from engines.actions import action_from_dict
    from engines.base import MatchRules

    wrong = []
    for match_id, game, rules_text, data, log in batch:
        if data is None:
            wrong.append(f"{match_id} (no snapshot)")
            continue
        if [seq for seq, _ in log] != list(range(len(log))):
            wrong.append(f"{match_id} (a gap in its events)")
            continue
        try:
            rules = MatchRules.from_dict(json.loads(rules_text))
            actions = [action_from_dict(json.loads(payload)) for _, payload in log]
            same = replay(game, rules, actions).snapshot() == json.loads(data)
        except Exception as exc:  # a log the engines refuse is as wrong as a mismatch
            wrong.append(f"{match_id} ({type(exc).__name__}: {exc})")
            continue
        if not same:
            wrong.append(f"{match_id} (its replay differs from its snapshot)")
    return wrong
