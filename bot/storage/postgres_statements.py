"""The PostgreSQL store's statements that run inside a transaction (or make one statement of
an action): what :class:`~bot.storage.postgres.PostgresStore`'s transactions are made of, on
an asyncpg connection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg

from bot.storage.statements import (
    MATCH_COLUMNS,
    POSTGRES,
    numbered,
    result_params,
    robot_record_params,
    stat_upserts,
)
from bot.storage.statements import columns as known_columns
from bot.storage.types import (
    ConstraintViolation,
    NewEvent,
    RobotRecordUpdate,
    Row,
    StatementFailed,
    StatUpdate,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    dumps,
    redact,
)

# An asyncpg connection (asyncpg ships no type information).
Connection = Any

# What says the server can't be reached or used at all: the network, the login, the database
# named, a connection lost or refused (asyncpg's InterfaceError: a closed pool or connection).
_UNAVAILABLE = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.InvalidAuthorizationSpecificationError,
    asyncpg.InvalidCatalogNameError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
)
# Every error of the driver (and of the network under it) that the store turns into its own.
DRIVER_ERRORS = (*_UNAVAILABLE, asyncpg.PostgresError)


def store_error(exc: BaseException, url: str, *, connecting: bool = False) -> StoreError:
    """The store's error for what asyncpg raised (raise it ``from exc``), its message without
    ``url``'s password: while ``connecting`` every error is :class:`StoreUnavailable`."""
    message = str(exc).replace(url, redact(url)) or type(exc).__name__
    if connecting or isinstance(exc, _UNAVAILABLE):
        return StoreUnavailable(message)
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return ConstraintViolation(message)
    return StatementFailed(message)


class Players:
    """A finishing match's players' ratings rows, locked for its transaction: ``rows`` for the
    finisher (by user id, without the rows made just to be locked), and the empty rows made
    (``made``) to remove if no stat update wrote to them."""

    def __init__(self, guild_id: int, game: str, rows: dict[int, Row], made: set[int]) -> None:
        self.guild_id = guild_id
        self.game = game
        self.rows = rows
        self.made = made

    async def drop_unused(self, db: Connection, updates: Sequence[StatUpdate]) -> None:
        written = {u.user_id for u in updates if (u.guild_id, u.game) == (self.guild_id, self.game)}
        unused = sorted(self.made - written)
        if unused:
            await db.execute(
                "DELETE FROM ratings WHERE guild_id = $1 AND game = $2 "
                "AND user_id = ANY($3::bigint[])",
                self.guild_id,
                self.game,
                unused,
            )


async def lock_players(db: Connection, match_id: int, expected_version: int) -> Players:
    """Lock the match's row (raising :class:`VersionConflict` if its version moved) and its
    players' ratings rows in its guild and game, in user id order; read them."""
    match = await db.fetchrow(
        "SELECT version, guild_id, game, player0_id, player0_name, player1_id, player1_name "
        "FROM matches WHERE id = $1 FOR UPDATE",
        match_id,
    )
    if match is None or match["version"] != expected_version:
        raise VersionConflict(match_id)
    names = {match["player0_id"]: match["player0_name"], match["player1_id"]: match["player1_name"]}
    ids = sorted(names)
    guild_id, game = match["guild_id"], match["game"]
    # A row to lock for a player without one. Inserting waits for another transaction that is
    # inserting the same row, and then finds it: two first matches can't both start from none.
    made = await db.fetch(
        "INSERT INTO ratings (guild_id, game, user_id, name) "
        "SELECT $1, $2, p.user_id, p.name "
        "FROM unnest($3::bigint[], $4::text[]) AS p(user_id, name) "
        "ORDER BY p.user_id ON CONFLICT DO NOTHING RETURNING user_id",
        guild_id,
        game,
        ids,
        [names[i] for i in ids],
    )
    rows = await db.fetch(
        "SELECT * FROM ratings WHERE guild_id = $1 AND game = $2 AND user_id = ANY($3::bigint[]) "
        "ORDER BY user_id FOR UPDATE",
        guild_id,
        game,
        ids,
    )
    made_ids = {row["user_id"] for row in made}
    return Players(
        guild_id,
        game,
        {row["user_id"]: row for row in rows if row["user_id"] not in made_ids},
        made_ids,
    )


def action_statement(
    match_id: int,
    expected_version: int,
    first_seq: int,
    events: EventColumns,
    snapshot_text: str,
    changes: dict[str, Any],
) -> tuple[str, list[Any]]:
    """An action's writes as one statement: the version-checked update of the match row, its
    events appended and its snapshot replaced only if that update found the row (``m``); it
    returns how many match rows it updated (0: the version moved, nothing written)."""
    names = known_columns(MATCH_COLUMNS, changes)
    sets = "".join(f"{name} = ${i}, " for i, name in enumerate(names, 1))
    n = len(names)
    sql = (
        f"WITH m AS (UPDATE matches SET {sets}version = version + 1 "
        f"WHERE id = ${n + 1} AND version = ${n + 2} RETURNING id), "
        "e AS (INSERT INTO events (match_id, seq, at, actor, kind, payload) "
        f"SELECT m.id, ${n + 3} + x.n - 1, x.at, x.actor, x.kind, x.payload FROM m, "
        f"unnest(${n + 4}::double precision[], ${n + 5}::bigint[], ${n + 6}::text[], "
        f"${n + 7}::text[]) WITH ORDINALITY AS x(at, actor, kind, payload, n)), "
        f"s AS (UPDATE snapshots SET version = ${n + 8}, data = ${n + 9} FROM m "
        "WHERE snapshots.match_id = m.id) "
        "SELECT count(*) FROM m"
    )
    args = [
        *changes.values(),
        match_id,
        expected_version,
        first_seq,
        *events,
        expected_version + 1,
        snapshot_text,
    ]
    return sql, args


# The events to append, by column: at, actor, kind, payload.
EventColumns = tuple[list[float], list[int | None], list[str], list[str]]


def encode_events(events: Sequence[NewEvent]) -> EventColumns:
    return (
        [e.at for e in events],
        [e.actor for e in events],
        [e.kind for e in events],
        [dumps(e.payload) for e in events],
    )


async def append_events(
    db: Connection, match_id: int, first_seq: int, events: EventColumns
) -> None:
    if not events[0]:
        return
    # One statement however many events an action has.
    await db.execute(
        "INSERT INTO events (match_id, seq, at, actor, kind, payload) "
        "SELECT $1, $2 + e.n - 1, e.at, e.actor, e.kind, e.payload "
        "FROM unnest($3::double precision[], $4::bigint[], $5::text[], $6::text[]) "
        "WITH ORDINALITY AS e(at, actor, kind, payload, n)",
        match_id,
        first_seq,
        *events,
    )


async def insert_results(db: Connection, match_id: int, results: Sequence[dict[str, Any]]) -> None:
    if not results:
        return
    await db.executemany(POSTGRES.insert_result, result_params(match_id, results))


def _ratings_key(update: StatUpdate) -> tuple[int, str, int]:
    return (update.guild_id, update.game, update.user_id)


async def apply_stats(db: Connection, updates: Sequence[StatUpdate]) -> None:
    """Add counters (and set rating/experience/streak when given), creating missing rows.

    As the SQLite store's (the same upserts), with the updates in ratings-key order first
    (stable: one player's updates keep their order, so the result is the same), so that
    transactions lock the rows they write in one order and never deadlock.
    """
    for sql, rows in stat_upserts(sorted(updates, key=_ratings_key)):
        await db.executemany(numbered(sql), rows)


async def apply_robot_records(db: Connection, updates: Sequence[RobotRecordUpdate]) -> None:
    """Add to the players' records against the robot, creating missing rows (in key order, as
    :func:`apply_stats`)."""
    if updates:
        ordered = sorted(updates, key=lambda u: (u.guild_id, u.game, u.user_id, u.level))
        await db.executemany(POSTGRES.robot_record_upsert, robot_record_params(ordered))
