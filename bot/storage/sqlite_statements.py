"""The SQLite store's statements that run inside a transaction, on aiosqlite's thread (plain
``sqlite3``): what :class:`~bot.storage.sqlite.SqliteStore`'s transactions are made of."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from typing import Any

from bot.storage.types import (
    ROBOT_RECORD_COLUMNS,
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


def insert_sql(table: str, values: dict[str, Any]) -> str:
    # Column names come from the service's own dicts, never from users.
    return f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})"


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
    db.executemany(
        "INSERT INTO game_results (match_id, game_number, winner_seat, kind, points, cube, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (match_id, r["game_number"], r["winner"], r["kind"], r["points"], r["cube"], r["at"])
            for r in results
        ],
    )


def apply_stats(db: sqlite3.Connection, updates: Sequence[StatUpdate]) -> None:
    """Add counters (and set rating/experience/streak when given), creating missing rows.

    One upsert per update, batched: consecutive updates that set the same columns share one
    ``executemany``, in order, so a later update of the same player sees the earlier one.
    Counters a row doesn't add to get 0, which adds nothing.
    """
    for set_columns, group in groupby(updates, key=lambda u: tuple(u.set)):
        batch = list(group)
        added = list(dict.fromkeys(column for u in batch for column in u.add))
        columns = ", ".join(["guild_id", "game", "user_id", "name", *added, *set_columns])
        marks = ", ".join("?" * (4 + len(added) + len(set_columns)))
        sets = ", ".join(
            [
                "name = excluded.name",
                *(f"{c} = {c} + excluded.{c}" for c in added),
                *(f"{c} = excluded.{c}" for c in set_columns),
            ]
        )
        db.executemany(
            f"INSERT INTO ratings ({columns}) VALUES ({marks}) "
            f"ON CONFLICT (guild_id, game, user_id) DO UPDATE SET {sets}",
            [
                (
                    u.guild_id,
                    u.game,
                    u.user_id,
                    u.name,
                    *(u.add.get(c, 0) for c in added),
                    *(u.set[c] for c in set_columns),
                )
                for u in batch
            ],
        )


def apply_robot_records(db: sqlite3.Connection, updates: Sequence[RobotRecordUpdate]) -> None:
    """Add to the players' records against the robot, creating missing rows."""
    if not updates:
        return
    columns = ", ".join(ROBOT_RECORD_COLUMNS)
    marks = ", ".join("?" * (5 + len(ROBOT_RECORD_COLUMNS)))
    sets = ", ".join(
        ["name = excluded.name", *(f"{c} = {c} + excluded.{c}" for c in ROBOT_RECORD_COLUMNS)]
    )
    db.executemany(
        f"INSERT INTO robot_records (guild_id, game, user_id, level, name, {columns}) "
        f"VALUES ({marks}) ON CONFLICT (guild_id, game, user_id, level) DO UPDATE SET {sets}",
        [
            (
                u.guild_id,
                u.game,
                u.user_id,
                u.level,
                u.name,
                *(u.add.get(c, 0) for c in ROBOT_RECORD_COLUMNS),
            )
            for u in updates
        ],
    )
