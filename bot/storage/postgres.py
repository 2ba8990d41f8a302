"""The PostgreSQL store, :class:`PostgresStore`: the same :class:`~bot.storage.protocol.Store`
as :class:`~bot.storage.sqlite.SqliteStore`, with the same semantics, on asyncpg with a pool of
connections (the schema's steps in ``bot/storage/postgres_migrations.py``). What it runs as
SQLite does (but for placeholders) is in ``statements.py`` and ``shared.py``; asyncpg's errors
leave it as :class:`~bot.storage.types.StoreError` subclasses (``store_error``).

``PostgresStore(url)`` opens nothing; ``await store.connect()`` makes the pool and migrates the
database (under an advisory lock, one transaction per step); ``await store.close()`` lets the
work already admitted finish and closes the pool.

Every write is one transaction on one pooled connection (or one autocommitted statement: most
actions, those that finish no game, are one statement, and one round trip to the server).
Several processes (and the pool's connections) write at once, so what SQLite gets from its one
writer, PostgreSQL gets from locks:

- An action keeps the optimistic version check: the match's row is updated only ``WHERE version
  = expected``; a concurrent action on the same match waits for the row, then finds the version
  moved and raises :class:`~bot.storage.types.VersionConflict`.
- A match's last action locks its players' ratings rows (``SELECT ... FOR UPDATE``, in user id
  order, so two such actions can't deadlock) before it reads them for the finisher: two matches
  of one player ending at once in two processes then rate one after the other. (A plain read
  lost about a quarter of the rating updates with 4 processes in a prototype.) A player without
  a row gets an empty one first, to have something to lock; the finisher doesn't see it, and it
  is removed again if nothing was written to it.
- Stat upserts run in user id order too, and add in SQL (``played = ratings.played +
  excluded.played``), so concurrent counters never lose a game.

An operation runs as its own task: once admitted, it runs to its end even if the caller is
cancelled (a transaction then commits or rolls back whole), and :meth:`PostgresStore.close`
waits for it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg

from bot.storage import postgres_migrations as migrations
from bot.storage.deadlines import DeadlineOperations
from bot.storage.postgres_statements import (
    DRIVER_ERRORS,
    Connection,
    Players,
    action_statement,
    append_events,
    apply_robot_records,
    apply_stats,
    encode_events,
    insert_results,
    lock_players,
    store_error,
)
from bot.storage.puzzles import PuzzleOperations
from bot.storage.shared import SharedOperations
from bot.storage.statements import (
    CHALLENGE_COLUMNS,
    MATCH_COLUMNS,
    POSTGRES,
    insert_sql,
    migration_summary,
    numbered,
)
from bot.storage.tournaments import TournamentOperations
from bot.storage.types import (
    Finisher,
    GuildShards,
    MigrationFailed,
    NewEvent,
    RobotRecordUpdate,
    Row,
    SchemaTooNew,
    StatUpdate,
    StoreNotOpen,
    VersionConflict,
    dumps,
    guild_condition,
    redact,
)

log = logging.getLogger(__name__)

_T = TypeVar("_T")

POOL_MIN_SIZE = 1
POOL_MAX_SIZE = 10


class PostgresStore(SharedOperations, TournamentOperations, PuzzleOperations, DeadlineOperations):
    """The :class:`~bot.storage.protocol.Store` on a PostgreSQL database:
    ``PostgresStore(url)``, then ``await connect()``; or ``await PostgresStore.open(url)``.
    ``close()`` when done."""

    SQL = POSTGRES

    def __init__(
        self, url: str, *, min_size: int = POOL_MIN_SIZE, max_size: int = POOL_MAX_SIZE
    ) -> None:
        """Nothing is opened yet. Once connected, the pool keeps ``min_size`` to ``max_size``
        connections."""
        if not 0 <= min_size <= max_size or max_size < 1:
            raise ValueError(f"pool sizes must be 0 <= min <= max, max >= 1: {min_size, max_size}")
        self._url = url
        self._min_size = min_size
        self._max_size = max_size
        self._pool: Any = None  # asyncpg.Pool
        self._closed = False
        self._lifecycle = asyncio.Lock()
        self._inflight: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        return self._url

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self._url)!r})"

    @classmethod
    async def open(cls, url: str, **pool: int) -> PostgresStore:
        """A connected store on the database at ``url`` (migrated as needed)."""
        store = cls(url, **pool)
        await store.connect()
        return store

    async def connect(self) -> None:
        """Make the pool and migrate the database. Does nothing when already connected; raises
        :class:`StoreError` once closed, or when the database was written by a newer tablebot.
        After a failed connect nothing is left open, and connecting may be tried again."""
        async with self._lifecycle:
            if self._closed:
                raise StoreNotOpen("The database is closed.")
            if self._pool is not None:
                return
            try:
                pool = asyncpg.create_pool(
                    self._url, min_size=self._min_size, max_size=self._max_size
                )
            except DRIVER_ERRORS as exc:  # a URL asyncpg can't read
                raise store_error(exc, self._url, connecting=True) from exc
            try:
                await pool
                await _migrate(pool)
            except DRIVER_ERRORS as exc:
                pool.terminate()
                raise store_error(exc, self._url, connecting=True) from exc
            except BaseException:
                pool.terminate()
                raise
            self._pool = pool

    async def close(self) -> None:
        """Refuse new work, let the work already admitted finish, then close the pool. Closing
        twice, or a store never connected, is harmless."""
        if self._closed:
            return
        self._closed = True
        async with self._lifecycle:  # a connect under way finishes first
            if self._inflight:
                await asyncio.wait(list(self._inflight))
            if self._pool is not None:
                await self._pool.close()

    def _admit(self) -> Any:
        """The pool, or :class:`StoreError` when the store is closed or not connected."""
        if self._closed:
            raise StoreNotOpen("The database is closed.")
        if self._pool is None:
            raise StoreNotOpen("The database is not connected yet (await connect() first).")
        return self._pool

    async def _run(
        self, work: Callable[[Connection], Awaitable[_T]], *, transaction: bool = False
    ) -> _T:
        """``work(db)`` on a pooled connection, in one transaction when ``transaction``, as its
        own task: a cancelled caller stops waiting, the work runs to its end (commits or rolls
        back whole), and :meth:`close` waits for it."""
        pool = self._admit()
        task = asyncio.ensure_future(_on_connection(pool, work, transaction, self._url))
        self._inflight.add(task)
        task.add_done_callback(self._settled)
        return await asyncio.shield(task)

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._inflight.discard(task)
        if not task.cancelled():
            task.exception()  # heard by its caller, if still there; never "never retrieved"

    async def _transaction(self, work: Callable[[Connection], Awaitable[_T]]) -> _T:
        """``work(db)`` as one transaction, rolled back if it raises."""
        return await self._run(work, transaction=True)

    async def _all(self, sql: str, *args: Any) -> list[Row]:
        rows: list[Row] = await self._run(lambda db: db.fetch(sql, *args))
        return rows

    async def _one(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = await self._run(lambda db: db.fetchrow(sql, *args))
        return row

    async def _write(self, sql: str, *args: Any) -> int:
        """One statement, its own (autocommitted) transaction; the rows it changed."""
        status: str = await self._run(lambda db: db.execute(sql, *args))
        return _row_count(status)

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._all(sql, *params)

    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int:
        return await self._write(sql, *params)

    def _dialect(self, sql: str) -> str:
        return numbered(sql)

    async def _insert(self, sql: str, params: Sequence[Any]) -> int:
        returning = f"{numbered(sql)} RETURNING id"
        new_id: int = await self._run(lambda db: db.fetchval(returning, *params))
        return new_id

    async def _guarded(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
        async def run(db: Connection) -> bool:
            (first, params), *rest = statements
            if _row_count(await db.execute(numbered(first), *params)) != 1:
                return False
            for sql, more in rest:
                await db.execute(numbered(sql), *more)
            return True

        return await self._transaction(run)

    async def schema_version(self) -> int:
        """How many migration steps the database has."""
        row = await self._one(
            f"SELECT coalesce(max(version), 0) AS version FROM {migrations.VERSION_TABLE}"
        )
        assert row is not None
        return int(row["version"])

    # --- challenges ---------------------------------------------------------------------------

    async def insert_challenge(self, values: dict[str, Any]) -> int:
        sql = f"{numbered(insert_sql('challenges', CHALLENGE_COLUMNS, values))} RETURNING id"
        params = tuple(values.values())
        challenge_id: int = await self._run(lambda db: db.fetchval(sql, *params))
        return challenge_id

    async def expire_challenges(
        self, now: float, guilds: GuildShards | None = None, ids: Sequence[int] | None = None
    ) -> list[Row]:
        only = "" if ids is None else " AND id = ANY($2::bigint[])"
        params: tuple[Any, ...] = (now,) if ids is None else (now, list(ids))

        async def expire(db: Connection) -> list[Row]:
            # Locked as read: a challenge accepted (or expired by another process) meanwhile
            # is re-checked and left out.
            rows: list[Row] = await db.fetch(
                "SELECT * FROM challenges WHERE status = 'open' AND expires_at <= $1"
                f"{only}{guild_condition(guilds)} ORDER BY id FOR UPDATE",
                *params,
            )
            if rows:
                await db.execute(
                    "UPDATE challenges SET status = 'expired' WHERE id = ANY($1::bigint[])",
                    [row["id"] for row in rows],
                )
            return rows

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
        sql = f"{numbered(insert_sql('matches', MATCH_COLUMNS, values))} RETURNING id"
        params = tuple(values.values())
        version = values.get("version", 0)
        encoded = encode_events(events)
        snapshot_text = dumps(snapshot)
        results = list(game_results)

        async def create(db: Connection) -> int | None:
            if _row_count(await db.execute(POSTGRES.accept_challenge, challenge_id)) != 1:
                return None
            match_id: int = await db.fetchval(sql, *params)
            await db.execute(POSTGRES.link_challenge, match_id, challenge_id)
            await append_events(db, match_id, 0, encoded)
            await db.execute(POSTGRES.insert_snapshot, match_id, version, snapshot_text)
            await insert_results(db, match_id, results)
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

        With ``finish``, the transaction first locks the match's row (checking its version) and
        its players' ratings rows, reads them and calls ``finish(rows)`` there; it returns more
        stat updates and match columns. Raises :class:`VersionConflict` (and writes nothing) if
        the version moved.
        """
        encoded = encode_events(events)
        snapshot_text = dumps(snapshot)
        results = list(game_results)
        stats = list(stat_updates)
        robot = list(robot_records)

        if finish is None and not results and not stats and not robot:
            # Most actions: one statement, atomic by itself, one round trip.
            sql, args = action_statement(
                match_id, expected_version, first_seq, encoded, snapshot_text, changes
            )
            written = await self._run(lambda db: db.fetchval(sql, *args))
            if written != 1:
                raise VersionConflict(match_id)
            return

        async def commit(db: Connection) -> None:
            changed = changes
            all_stats = stats
            players: Players | None = None
            if finish is not None:
                players = await lock_players(db, match_id, expected_version)
                extra_stats, extra_changes = finish(players.rows)
                all_stats = [*stats, *extra_stats]
                changed = {**changes, **extra_changes}
            sql, args = action_statement(
                match_id, expected_version, first_seq, encoded, snapshot_text, changed
            )
            if await db.fetchval(sql, *args) != 1:
                raise VersionConflict(match_id)
            await insert_results(db, match_id, results)
            await apply_stats(db, all_stats)
            await apply_robot_records(db, robot)
            if players is not None:
                await players.drop_unused(db, all_stats)

        await self._transaction(commit)

    async def claim_reminder(self, match_id: int, version: int) -> bool:
        changed = await self._write(
            "UPDATE matches SET reminded_version = $2 "
            "WHERE id = $1 AND version = $2 AND reminded_version IS DISTINCT FROM $2",
            match_id,
            version,
        )
        return changed == 1

    # --- ratings and stats --------------------------------------------------------------------

    async def record_shout(
        self, match_id: int, game_number: int, user_id: int, guild_id: int, game: str, at: float
    ) -> bool:
        """Insert the shout once per game and count it; False if already shouted."""

        async def shout(db: Connection) -> bool:
            inserted = await db.execute(
                "INSERT INTO shouts (match_id, game_number, user_id, at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                match_id,
                game_number,
                user_id,
                at,
            )
            if _row_count(inserted) != 1:
                return False
            await db.execute(POSTGRES.count_shout, guild_id, game, user_id)
            return True

        return await self._transaction(shout)


# --- scratch databases -----------------------------------------------------------------------

_DATABASE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


async def create_database(server_url: str, name: str) -> str:
    """Create the empty database ``name`` on the server of ``server_url`` (connecting to the
    database that URL names, which must exist) and return its URL: for benchmarks and tools
    that want a scratch database. :func:`drop_database` removes it."""
    await _as_owner(server_url, f'CREATE DATABASE "{_database_name(name)}"')
    return urlsplit(server_url)._replace(path=f"/{name}").geturl()


async def drop_database(server_url: str, name: str) -> None:
    """Drop the database ``name`` (if there is one) on the server of ``server_url``, ending its
    sessions."""
    await _as_owner(server_url, f'DROP DATABASE IF EXISTS "{_database_name(name)}" WITH (FORCE)')


def _database_name(name: str) -> str:
    if not _DATABASE_NAME.fullmatch(name):
        raise ValueError(f"a database name is letters, digits and _, not {name!r}")
    return name


async def _as_owner(server_url: str, statement: str) -> None:
    """Run ``statement`` on a connection of its own to ``server_url``."""
    try:
        db = await asyncpg.connect(server_url)
        try:
            await db.execute(statement)
        finally:
            await db.close()
    except DRIVER_ERRORS as exc:
        raise store_error(exc, server_url) from exc


# --- running on a pooled connection -----------------------------------------------------------


async def _on_connection(
    pool: Any, work: Callable[[Connection], Awaitable[_T]], transaction: bool, url: str
) -> _T:
    try:
        async with pool.acquire() as db:
            if not transaction:
                return await work(db)
            async with db.transaction():
                return await work(db)
    except DRIVER_ERRORS as exc:
        raise store_error(exc, url) from exc


def _row_count(status: str) -> int:
    """The rows a statement changed, from its status (``UPDATE 1``, ``INSERT 0 1``)."""
    return int(status.rsplit(" ", 1)[-1])


async def _migrate(pool: Any) -> None:
    """Bring the database to the last step of :data:`postgres_migrations.MIGRATIONS`, one
    transaction per step, under an advisory lock; refuse a database from a newer tablebot."""
    steps = migrations.MIGRATIONS
    async with pool.acquire() as db:
        await db.execute("SELECT pg_advisory_lock($1)", migrations.MIGRATION_LOCK_KEY)
        try:
            await db.execute(migrations.CREATE_VERSION_TABLE)
            current = int(
                await db.fetchval(
                    f"SELECT coalesce(max(version), 0) FROM {migrations.VERSION_TABLE}"
                )
            )
            if current > len(steps):
                raise SchemaTooNew(
                    f"The database is at schema version {current}, newer than this tablebot "
                    f"understands ({len(steps)}). Upgrade tablebot, or use another TABLEBOT_DB."
                )
            for step in range(current, len(steps)):
                try:
                    async with db.transaction():
                        await migrations.apply_step(step, db)
                except asyncpg.PostgresError as exc:
                    # The step's transaction rolled back: the database is as the last good step
                    # left it.
                    raise MigrationFailed(
                        f"Migrating the database to schema version {step + 1} failed ({exc}); "
                        f"it was left at version {step}."
                    ) from exc
            summary = migration_summary(current, len(steps))
            if summary:
                log.info(summary)
        finally:
            if not db.is_closed():
                await db.execute("SELECT pg_advisory_unlock($1)", migrations.MIGRATION_LOCK_KEY)
