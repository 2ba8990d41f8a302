"""The SQLite store, :class:`SqliteStore`: challenges, matches, the append-only event log,
snapshots, ratings and stats. Its own SQL lives here and in ``sqlite_statements.py``; what it
runs as PostgreSQL does (but for placeholders) in ``statements.py`` and ``shared.py``; the
schema's steps in ``bot/storage/migrations.py``. The service decides what to write.
SQLite's errors leave it as :class:`~bot.storage.types.StoreError` subclasses
(``sqlite_errors``).

``SqliteStore(path)`` opens nothing; ``await store.connect()`` opens the file, creating and
migrating it as needed, and starts the checkpoints; ``await store.close()`` ends both.
``await SqliteStore.open(path)`` does the first two at once.

One aiosqlite connection in autocommit mode (``isolation_level=None``). aiosqlite runs every
call on its own thread, one at a time and in order. Every write is exactly one such call: a
transaction runs whole on that thread (``BEGIN IMMEDIATE``, its statements, ``COMMIT``, or
``ROLLBACK`` on any error) and a single-statement write is one autocommit statement. So no
statement of another coroutine can land inside a transaction, without a lock, and an action
waits for the thread once, however many statements it has. (Each statement handed to the
thread separately cost a round trip through the event loop, and each round trip under load
waited for the loop's other work: three per action made the commit the slowest part of it.)

aiosqlite has no public call that runs a function on its thread (omnilib/aiosqlite#19), so
:func:`_on_thread` uses its ``_execute`` and ``_conn``, present from 0.20 (the lowest version
pyproject.toml allows) through 0.22; pyproject.toml caps aiosqlite there.

Checkpoints stay off the write path. SQLite's automatic checkpoint runs inside the COMMIT that
crosses its threshold and fsyncs the database there, so one action in a few hundred waited for
the disk. The main connection turns it off (``wal_autocheckpoint = 0``); a second connection,
on its own thread, runs a ``PASSIVE`` checkpoint every ``checkpoint_interval`` seconds. PASSIVE
never waits for the writer, and once the log is fully copied the next write starts it again from
the top, so the WAL stays as small as one interval's writes.

Except at saturation: a writer that never pauses keeps appending while PASSIVE copies, the log is
never fully copied at the moment a write starts, so it never starts again from the top (60,000
back-to-back actions grew it to 924 MB; a paced load still peaked at 167 MB). So past
``wal_limit`` bytes (32 MB), the round follows its PASSIVE checkpoint with a ``TRUNCATE`` one,
which waits for the write in progress, holds the writer off while it copies the rest (little,
right after PASSIVE) and empties the log; writers wait meanwhile (their busy timeout). The loop
looks at the WAL file's size every 0.1 s and runs a round at once when it passes the limit, so
the log ends a little past 32 MB however fast it grows.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage import migrations
from bot.storage.deadlines import DeadlineOperations
from bot.storage.puzzles import PuzzleOperations
from bot.storage.shared import SharedOperations
from bot.storage.sqlite_statements import (
    append_events,
    apply_robot_records,
    apply_stats,
    encode_events,
    insert_results,
    player_ratings,
    sqlite_errors,
)
from bot.storage.statements import (
    CHALLENGE_COLUMNS,
    MATCH_COLUMNS,
    SQLITE,
    columns,
    insert_sql,
    migration_summary,
)
from bot.storage.tournaments import TournamentOperations
from bot.storage.types import (
    CheckpointResult,
    Finisher,
    GuildShards,
    MigrationFailed,
    NewEvent,
    RobotRecordUpdate,
    Row,
    SchemaTooNew,
    StatUpdate,
    StoreError,
    StoreNotOpen,
    VersionConflict,
    dumps,
    guild_condition,
)

log = logging.getLogger(__name__)

_T = TypeVar("_T")

BUSY_TIMEOUT_MS = 5000
CHECKPOINT_INTERVAL_S = 1.0
# Once a checkpoint resets the log, SQLite truncates a WAL file left bigger than this.
JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024
# Past this much log, a checkpoint round empties it even if it holds the writer off briefly.
WAL_LIMIT = 32 * 1024 * 1024
# How often the checkpoint loop looks at the WAL file's size (a stat, on the event loop).
WAL_WATCH_INTERVAL = 0.1
# A WAL frame: a page and its 24-byte header.
WAL_FRAME_HEADER = 24
_CHECKPOINT_MODES = ("PASSIVE", "FULL", "RESTART", "TRUNCATE")


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _probe(path: str | Path) -> None:
    """Open and close the database file (creating it if missing), raising what SQLite says."""
    sqlite3.connect(str(path)).close()


class SqliteStore(SharedOperations, TournamentOperations, PuzzleOperations, DeadlineOperations):
    """The :class:`~bot.storage.protocol.Store` on a SQLite file: ``SqliteStore(path)``, then
    ``await connect()``; or ``await SqliteStore.open(path)``. ``close()`` when done."""

    SQL = SQLITE

    def __init__(
        self,
        path: str | Path,
        *,
        checkpoint_interval: float = CHECKPOINT_INTERVAL_S,
        wal_limit: int = WAL_LIMIT,
        wal_watch_interval: float = WAL_WATCH_INTERVAL,
    ) -> None:
        """Nothing is opened yet. Background checkpoint rounds run every ``checkpoint_interval``
        seconds once connected, and as soon as the WAL file (looked at every
        ``wal_watch_interval`` seconds) holds more than ``wal_limit`` bytes; past that limit a
        round empties the log."""
        if checkpoint_interval <= 0:
            raise ValueError(f"checkpoint_interval must be positive, not {checkpoint_interval!r}")
        if wal_limit <= 0 or wal_watch_interval <= 0:
            limits = (wal_limit, wal_watch_interval)
            raise ValueError(f"wal_limit and wal_watch_interval must be positive: {limits}")
        self._wal_watch_interval = wal_watch_interval
        self._path = path
        self._checkpoint_interval = checkpoint_interval
        self._wal_limit = wal_limit
        self._frame_size = 4096 + WAL_FRAME_HEADER  # read from the database when connecting
        self._conn: aiosqlite.Connection | None = None
        self._checkpoint_conn: aiosqlite.Connection | None = None
        # A member's reads run here, beside the writer (WAL lets readers in while it writes):
        # a heavy one no longer queues every server's moves behind it on one thread.
        self._read_conn: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._closed = False
        # Held while connecting, so two connects open once and a close waits for a connect.
        self._lifecycle = asyncio.Lock()
        self.checkpoints_run = 0
        self._checkpointed = asyncio.Condition()  # notified after every checkpoint
        self.wal_resets = 0  # the rounds that emptied the log past wal_limit

    @property
    def path(self) -> str | Path:
        return self._path

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        checkpoint_interval: float = CHECKPOINT_INTERVAL_S,
        wal_limit: int = WAL_LIMIT,
        wal_watch_interval: float = WAL_WATCH_INTERVAL,
    ) -> SqliteStore:
        """A connected store on the database at ``path`` (created and migrated as needed),
        with a background checkpoint round every ``checkpoint_interval`` seconds."""
        store = cls(
            path,
            checkpoint_interval=checkpoint_interval,
            wal_limit=wal_limit,
            wal_watch_interval=wal_watch_interval,
        )
        await store.connect()
        return store

    async def connect(self) -> None:
        """Open the database, creating and migrating it as needed, and start the background
        checkpoints. Does nothing when already connected; raises :class:`StoreError` once
        closed, or when the file was written by a newer tablebot. After a failed connect
        nothing is left open, and connecting may be tried again."""
        async with self._lifecycle:
            if self._closed:
                raise StoreNotOpen("The database is closed.")
            if self._conn is not None:
                return
            with sqlite_errors(connecting=True):
                await self._open(self._path)

    async def _open(self, path: str | Path) -> None:
        # aiosqlite does not wait for its worker thread when connecting fails: the thread
        # then reports to a loop that may be closed by then (a traceback after the CLI's
        # one-line error). A plain open first makes an unusable path fail before any
        # thread starts.
        await asyncio.to_thread(_probe, path)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        checkpoint_conn: aiosqlite.Connection | None = None
        read_conn: aiosqlite.Connection | None = None
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA wal_autocheckpoint = 0")
            await conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
            await _migrate(conn)
            [page] = await conn.execute_fetchall("PRAGMA page_size")
            self._frame_size = int(page[0]) + WAL_FRAME_HEADER
            checkpoint_conn = await aiosqlite.connect(str(path), isolation_level=None)
            await checkpoint_conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await checkpoint_conn.execute("PRAGMA synchronous = NORMAL")
            read_conn = await aiosqlite.connect(str(path), isolation_level=None)
            read_conn.row_factory = sqlite3.Row
            await read_conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await read_conn.execute("PRAGMA query_only = ON")
        except BaseException:
            if read_conn is not None:
                await read_conn.close()
            if checkpoint_conn is not None:
                await checkpoint_conn.close()
            await conn.close()
            raise
        self._conn = conn
        self._checkpoint_conn = checkpoint_conn
        self._read_conn = read_conn
        self._checkpointer = asyncio.create_task(
            self._checkpoint_loop(), name=f"tablebot checkpoints {path}"
        )

    async def close(self) -> None:
        """Refuse new work, let the writes already waiting for the lock (and the reads already
        queued) finish, then close the connection. Closing twice, or a store never connected,
        is harmless."""
        if self._closed:
            return
        self._closed = True
        async with self._lifecycle:  # a connect under way finishes first
            if self._checkpointer is not None:
                self._checkpointer.cancel()
                # wait, not await: the task's CancelledError must not look like ours.
                await asyncio.wait([self._checkpointer])
            if self._checkpoint_conn is not None:
                await self._checkpoint_conn.close()
            if self._read_conn is not None:
                await self._read_conn.close()
            # aiosqlite's queue runs the writes and reads already queued, then closes. The last
            # connection to close checkpoints the WAL and removes it.
            if self._conn is not None:
                await self._conn.close()

    async def checkpoint(self, mode: str = "PASSIVE") -> CheckpointResult:
        """One checkpoint on the checkpoint connection. ``PASSIVE`` (the default) copies what it
        can of the WAL into the database without waiting for (or blocking) the writer;
        ``TRUNCATE`` waits for the write in progress, holds the writer off until the whole log
        is copied, and empties the log file (its ``wal_frames`` is then 0)."""
        if mode not in _CHECKPOINT_MODES:
            raise ValueError(f"checkpoint mode must be one of {_CHECKPOINT_MODES}, not {mode!r}")
        main = self._open_conn()
        conn = self._checkpoint_conn or main
        with sqlite_errors():
            rows = list(await conn.execute_fetchall(f"PRAGMA wal_checkpoint({mode})"))
        busy, frames, done = rows[0]
        self.checkpoints_run += 1
        async with self._checkpointed:
            self._checkpointed.notify_all()
        return CheckpointResult(bool(busy), int(frames), int(done))

    async def wait_checkpoints(self, count: int) -> None:
        """Until :attr:`checkpoints_run` reaches ``count`` (the background loop's rounds
        included): what an operator's tool or a test waits on instead of polling."""
        async with self._checkpointed:
            await self._checkpointed.wait_for(lambda: self.checkpoints_run >= count)

    def wal_bytes(self, result: CheckpointResult) -> int:
        """The size of the log a checkpoint found (its frames, whole)."""
        return result.wal_frames * self._frame_size

    async def checkpoint_round(self) -> CheckpointResult:
        """What the background loop runs: a ``PASSIVE`` checkpoint, and when the log it found
        holds more than ``wal_limit`` bytes, a ``TRUNCATE`` one right after (the log then
        starts again from the top even if the writer never pauses)."""
        result = await self.checkpoint()
        if self.wal_bytes(result) > self._wal_limit:
            log.info(
                "WAL at %.1f MB, past %.1f MB: emptying it",
                self.wal_bytes(result) / 1e6,
                self._wal_limit / 1e6,
            )
            result = await self.checkpoint("TRUNCATE")
            if not result.busy:
                self.wal_resets += 1
        return result

    def checkpoint_due(self, elapsed: float, wal_file_bytes: int) -> bool:
        """Whether the loop runs a round now: ``elapsed`` seconds after the last one, with the
        WAL file at ``wal_file_bytes``. Every ``checkpoint_interval``, and sooner once the file
        passes ``wal_limit`` (the loop looks at its size every ``wal_watch_interval``, 0.1 s: at
        saturation the log grows by tens of MB a second)."""
        return elapsed >= self._checkpoint_interval or wal_file_bytes > self._wal_limit

    async def _checkpoint_loop(self) -> None:
        loop = asyncio.get_running_loop()
        wal = Path(f"{self._path}-wal")
        last = loop.time()
        while True:
            await asyncio.sleep(min(self._checkpoint_interval, self._wal_watch_interval))
            if not self.checkpoint_due(loop.time() - last, _file_size(wal)):
                continue
            last = loop.time()
            try:
                result = await self.checkpoint_round()
            except (ValueError, StoreError):
                # The next round tries again; the WAL only grows meanwhile.
                log.warning("WAL checkpoint failed", exc_info=True)
                continue
            if not result.complete:
                log.debug("WAL checkpoint partial: %s", result)

    def _open_conn(self) -> aiosqlite.Connection:
        """The connection, or :class:`StoreError` when the store is closed or not connected."""
        if self._closed:
            raise StoreNotOpen("The database is closed.")
        if self._conn is None:
            raise StoreNotOpen("The database is not connected yet (await connect() first).")
        return self._conn

    async def _transaction(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """``work(db)`` as one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, rolled back if it
        raises, in one call on the connection's thread: nothing else runs on the connection
        meanwhile. ``work`` runs on that thread, so it must only compute and use ``db``.

        Once queued the call runs to its end even if the caller is cancelled: the transaction
        then commits or rolls back whole, and the caller just doesn't hear which."""
        conn = self._open_conn()
        with sqlite_errors():
            return await _on_thread(conn, lambda db: _in_transaction(db, work))

    async def _write_one(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Cursor:
        """One statement, its own (autocommit) transaction: one call on the thread."""
        conn = self._open_conn()
        with sqlite_errors():
            return await conn.execute(sql, params)

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of one query: one call on the writer's thread, in order with the writes
        queued (a read asked after a write sees it, one asked before does not: what the
        service's loads, the actions' checks and the sweeps rely on)."""
        return await self._fetch(self._open_conn(), sql, params)

    async def _member_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """A member's read-only query (boards, /history, /stats, /games) on the reader
        connection, beside the writer: it sees what was committed when it runs, and a heavy
        one never queues every server's moves behind it."""
        self._open_conn()
        assert self._read_conn is not None
        return await self._fetch(self._read_conn, sql, params)

    @staticmethod
    async def _fetch(conn: aiosqlite.Connection, sql: str, params: Sequence[Any]) -> list[Row]:
        with sqlite_errors():
            rows: list[Row] = list(await conn.execute_fetchall(sql, params))
        return rows

    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self._write_one(sql, params)
        return cursor.rowcount

    def _dialect(self, sql: str) -> str:
        return sql  # the statements are written in SQLite's

    async def _insert(self, sql: str, params: Sequence[Any]) -> int:
        cursor = await self._write_one(sql, params)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    async def _guarded(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
        def run(db: sqlite3.Connection) -> bool:
            (first, params), *rest = statements
            if db.execute(first, params).rowcount != 1:
                return False
            for sql, more in rest:
                db.execute(sql, more)
            return True

        return await self._transaction(run)

    async def user_version(self) -> int:
        """The schema version: how many migration steps the database has."""
        row = await self._row("PRAGMA user_version")
        assert row is not None
        return int(row["user_version"])

    async def schema_version(self) -> int:
        """How many migration steps the database has (its ``user_version``), as
        :meth:`PostgresStore.schema_version <bot.storage.postgres.PostgresStore.schema_version>`
        says."""
        return await self.user_version()

    # --- challenges ---------------------------------------------------------------------------

    async def insert_challenge(self, values: dict[str, Any]) -> int:
        sql = insert_sql("challenges", CHALLENGE_COLUMNS, values)
        cursor = await self._write_one(sql, tuple(values.values()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    async def expire_challenges(
        self, now: float, guilds: GuildShards | None = None, ids: Sequence[int] | None = None
    ) -> list[Row]:
        where = f"status = 'open' AND expires_at <= ?{guild_condition(guilds)}"
        params: tuple[Any, ...] = (now,)
        if ids is not None:
            where += f" AND id IN ({', '.join('?' for _ in ids) or 'NULL'})"
            params += tuple(ids)

        def expire(db: sqlite3.Connection) -> list[Row]:
            rows = db.execute(f"SELECT * FROM challenges WHERE {where} ORDER BY id", params)
            found = rows.fetchall()
            if found:
                db.execute(f"UPDATE challenges SET status = 'expired' WHERE {where}", params)
            return found

        return await self._transaction(expire)

    # --- matches ------------------------------------------------------------------------------

    async def create_match(
        self,
        challenge_id: int,
        values: dict[str, Any],
        events: Sequence[NewEvent],
        snapshot: dict[str, Any],
        game_results: Iterable[dict[str, Any]] = (),
    ) -> int | None:
        """Accept the open challenge and insert its match with the first events, atomically.

        Returns the match id, or None when the challenge was no longer open (a double click).
        """
        sql = insert_sql("matches", MATCH_COLUMNS, values)
        params = tuple(values.values())
        version = values.get("version", 0)
        # Encoded here, not on the connection's thread: it runs only the SQL.
        encoded = encode_events(events)
        snapshot_text = dumps(snapshot)
        results = list(game_results)

        def create(db: sqlite3.Connection) -> int | None:
            if db.execute(SQLITE.accept_challenge, (challenge_id,)).rowcount != 1:
                return None
            match_id = db.execute(sql, params).lastrowid
            assert match_id is not None
            db.execute(SQLITE.link_challenge, (match_id, challenge_id))
            append_events(db, match_id, 0, encoded)
            db.execute(SQLITE.insert_snapshot, (match_id, version, snapshot_text))
            insert_results(db, match_id, results)
            return match_id

        return await self._transaction(create)

    async def commit_action(
        self,
        match_id: int,
        expected_version: int,
        first_seq: int,
        events: Sequence[NewEvent],
        snapshot: dict[str, Any],
        changes: dict[str, Any],
        game_results: Iterable[dict[str, Any]] = (),
        stat_updates: Iterable[StatUpdate] = (),
        finish: Finisher | None = None,
        robot_records: Iterable[RobotRecordUpdate] = (),
    ) -> None:
        """The one transaction of an action: append events, replace the snapshot, update the
        match row (``changes``), record finished games, stats and records against the robot,
        bump the version.

        One call on the connection's thread (see :meth:`_transaction`). With ``finish``, the
        transaction first reads the players' ratings rows and calls ``finish(rows)`` there, on
        that thread (so two matches ending at once can't lose an update); it returns more stat
        updates and match columns. Raises :class:`VersionConflict` (and writes nothing) if the
        version moved.
        """
        encoded = encode_events(events)
        snapshot_text = dumps(snapshot)
        results = list(game_results)
        stats = list(stat_updates)
        robot = list(robot_records)

        def commit(db: sqlite3.Connection) -> None:
            changed = changes
            all_stats = stats
            if finish is not None:
                extra_stats, extra_changes = finish(player_ratings(db, match_id))
                all_stats = [*stats, *extra_stats]
                changed = {**changes, **extra_changes}
            sets = "".join(f"{name} = ?, " for name in columns(MATCH_COLUMNS, changed))
            cursor = db.execute(
                f"UPDATE matches SET {sets}version = version + 1 WHERE id = ? AND version = ?",
                (*changed.values(), match_id, expected_version),
            )
            if cursor.rowcount != 1:
                raise VersionConflict(match_id)
            append_events(db, match_id, first_seq, encoded)
            db.execute(
                "UPDATE snapshots SET version = ?, data = ? WHERE match_id = ?",
                (expected_version + 1, snapshot_text, match_id),
            )
            insert_results(db, match_id, results)
            apply_stats(db, all_stats)
            apply_robot_records(db, robot)

        await self._transaction(commit)

    async def claim_reminder(self, match_id: int, version: int) -> bool:
        cursor = await self._write_one(
            "UPDATE matches SET reminded_version = ? "
            "WHERE id = ? AND version = ? AND reminded_version IS NOT ?",
            (version, match_id, version, version),
        )
        return cursor.rowcount == 1

    # --- ratings and stats --------------------------------------------------------------------

    async def record_shout(
        self, match_id: int, game_number: int, user_id: int, guild_id: int, game: str, at: float
    ) -> bool:
        """Insert the shout once per game and count it; False if already shouted."""

        def shout(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "INSERT OR IGNORE INTO shouts (match_id, game_number, user_id, at) "
                "VALUES (?, ?, ?, ?)",
                (match_id, game_number, user_id, at),
            )
            if cursor.rowcount != 1:
                return False
            db.execute(SQLITE.count_shout, (guild_id, game, user_id))
            return True

        return await self._transaction(shout)


# --- running on the connection's thread -----------------------------------------------------


async def _on_thread(conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], _T]) -> _T:
    """``work(db)`` on aiosqlite's thread, in order with the connection's other calls, where
    ``db`` is the connection's ``sqlite3.Connection`` (private to that thread)."""
    run: Callable[..., Awaitable[_T]] = conn._execute  # untyped in aiosqlite
    return await run(lambda: work(conn._conn))


def _in_transaction(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], _T]) -> _T:
    db.execute("BEGIN IMMEDIATE")
    try:
        result = work(db)
        db.execute("COMMIT")
    except BaseException:
        # Also after a failed COMMIT, which leaves the transaction open.
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return result


async def _migrate(conn: aiosqlite.Connection) -> None:
    """Bring the database to the last step of :data:`migrations.MIGRATIONS`, one transaction
    per step; refuse a database from a newer tablebot."""
    steps = migrations.MIGRATIONS
    [row] = await conn.execute_fetchall("PRAGMA user_version")
    current = int(row[0])
    if current > len(steps):
        raise SchemaTooNew(
            f"The database is at schema version {current}, newer than this tablebot "
            f"understands ({len(steps)}). Upgrade tablebot, or use another TABLEBOT_DB."
        )
    for step in range(current, len(steps)):
        apply = partial(migrations.apply_step, step)
        try:
            await _on_thread(conn, partial(_in_transaction, work=apply))
        except sqlite3.Error as exc:
            # The step's transaction rolled back: the database is as the last good step left it.
            raise MigrationFailed(
                f"Migrating the database to schema version {step + 1} failed ({exc}); "
                f"it was left at version {step}."
            ) from exc
    summary = migration_summary(current, len(steps))
    if summary:
        log.info(summary)
