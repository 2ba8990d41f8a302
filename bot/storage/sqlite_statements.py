"""The SQLite store's statements that run inside a transaction, on aiosqlite's thread (plain
``sqlite3``): what :class:`~bot.storage.sqlite.SqliteStore`'s transactions are made of."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bot.storage.statements import SQLITE, result_params, robot_record_params, stat_upserts
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
)


def store_error(exc: Exception) -> StoreError:
    """The store's error for what SQLite raised in an operation (raise it ``from exc``)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return ConstraintViolation(str(exc))
    return StatementFailed(str(exc))


@contextmanager
def sqlite_errors(*, connecting: bool = False) -> Iterator[None]:
    """SQLite's errors as the store's, the driver's error as their cause: while
    ``connecting``, :class:`StoreUnavailable` (an unusable path or file); else by
    :func:`store_error`."""
    errors: tuple[type[Exception], ...] = (
        (sqlite3.Error, OSError) if connecting else (sqlite3.Error,)
    )
    try:
        yield
    except errors as exc:
        raise (StoreUnavailable(str(exc)) if connecting else store_error(exc)) from exc


def player_ratings(db: sqlite3.Connection, match_id: int) -> dict[int, Row]:
    """The current ratings rows of the match's players, by user id (a player without one is
    absent), in the match's guild and game; for a :data:`Finisher`, inside its transaction."""
    match = db.execute(
        "SELECT guild_id, game, player0_id, player1_id FROM matches WHERE id = ?", (match_id,)
    ).fetchone()
    if match is None:
        raise VersionConflict(match_id)  # as the version-checked UPDATE would
    rows = db.execute(
        "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id IN (?, ?)",
        (match["guild_id"], match["game"], match["player0_id"], match["player1_id"]),
    ).fetchall()
    return {row["user_id"]: row for row in rows}


EventParams = tuple[float, int | None, str, str]


def encode_events(events: Sequence[NewEvent]) -> list[EventParams]:
    return [(e.at, e.actor, e.kind, dumps(e.payload)) for e in events]


def append_events(
    db: sqlite3.Connection, match_id: int, first_seq: int, events: Sequence[EventParams]
) -> None:
    if not events:
        return
    # One multi-row INSERT: one statement however many events an action has.
    rows = ", ".join("(?, ?, ?, ?, ?, ?)" for _ in events)
    params: list[Any] = []
    for i, event in enumerate(events):
        params.append(match_id)
        params.append(first_seq + i)
        params.extend(event)
    db.execute(
        f"INSERT INTO events (match_id, seq, at, actor, kind, payload) VALUES {rows}", params
    )


def insert_results(
    db: sqlite3.Connection, match_id: int, results: Sequence[dict[str, Any]]
) -> None:
    if not results:
        return
    db.executemany(SQLITE.insert_result, result_params(match_id, results))


def apply_stats(db: sqlite3.Connection, updates: Sequence[StatUpdate]) -> None:
    """Add counters (and set rating/experience/streak when given), creating missing rows: the
    upserts of :func:`~bot.storage.statements.stat_upserts`, in order, so a later update of the
    same player sees the earlier one."""
    for sql, rows in stat_upserts(updates):
        db.executemany(sql, rows)


def apply_robot_records(db: sqlite3.Connection, updates: Sequence[RobotRecordUpdate]) -> None:
    """Add to the players' records against the robot, creating missing rows."""
    if updates:
        db.executemany(SQLITE.robot_record_upsert, robot_record_params(updates))
