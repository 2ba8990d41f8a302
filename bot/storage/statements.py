"""What the two stores share: the statements that differ between SQLite and PostgreSQL only by
their placeholders, written once in SQLite's (``?``, or ``?1`` for a parameter used twice) and
numbered for asyncpg (``$1``) by :func:`numbered`, once, as the PostgreSQL store loads
(:data:`SQLITE`, :data:`POSTGRES`); the columns a caller may name; and the mapping of stored rows
to values. No driver here.

What really differs stays with its backend (``sqlite*.py``, ``postgres*.py``): how a new id comes
back, locking, upserts that add to a row, ignoring a duplicate, the one-statement action of
PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from bot.storage.types import (
    ROBOT_RECORD_COLUMNS,
    STAT_COLUMNS,
    EventRow,
    RobotRecordUpdate,
    Row,
    StatUpdate,
)

# --- the columns a caller may name ------------------------------------------------------------
# Statements take column names from these tuples only (:func:`columns`): a name a caller passes
# is looked up here, and what goes into SQL is the code's own text. The schema tests check them
# against the tables.

CHALLENGE_COLUMNS = (
    "guild_id", "channel_id", "game", "rules", "challenger_id", "challenger_name",
    "opponent_id", "opponent_name", "status", "created_at", "expires_at", "match_id",
    "message_id",
)  # fmt: skip
MATCH_COLUMNS = (
    "guild_id", "channel_id", "thread_id", "board_message_id", "challenge_id", "game", "length",
    "rules", "player0_id", "player0_name", "player1_id", "player1_name", "colour0", "colour1",
    "status", "score0", "score1", "winner_seat", "dice_commitment", "dice_seed", "seed_revealed",
    "dice_counter", "rating_changes", "created_at", "last_action_at", "finished_at",
    "reminded_version", "version", "robot_seat", "robot_level",
)  # fmt: skip
# What ``update_match`` sets: bookkeeping, outside the match's versioned state.
MATCH_BOOKKEEPING_COLUMNS = ("thread_id", "board_message_id", "reminded_version")
ANALYSIS_COLUMNS = (
    "status", "ply", "requester_id", "requested_at", "started_at", "finished_at", "games_done",
    "games_total", "message_id", "result", "error", "error_rate0", "error_rate1", "pr0", "pr1",
    "puzzles_mined_at",
)  # fmt: skip
# A ratings row's values that a stat update sets (its counters, STAT_COLUMNS, it adds to).
RATING_SET_COLUMNS = ("rating", "experience", "streak")
# A robot_records row: its key, name and counters.
_ROBOT_RECORD_ROW = ["guild_id", "game", "user_id", "level", "name", *ROBOT_RECORD_COLUMNS]


def columns(allowed: Sequence[str], names: Iterable[str]) -> list[str]:
    """``names``, in their order, each as spelled in ``allowed`` (the code's own column names);
    :class:`ValueError` for a name that is not one of them."""
    known = {name: name for name in allowed}
    found = []
    for name in names:
        if name not in known:
            raise ValueError(f"{name!r} is not a column that can be written here")
        found.append(known[name])
    return found


def insert_sql(table: str, allowed: Sequence[str], values: Iterable[str]) -> str:
    """An INSERT into ``table`` of the columns ``values`` names (each one of ``allowed``, see
    :func:`columns`), with ``?`` placeholders."""
    names = columns(allowed, values)
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


def set_clause(names: list[str]) -> str:
    """``a = ?, b = ?`` for ``names`` (checked by :func:`columns`)."""
    return ", ".join(f"{name} = ?" for name in names)


# --- the statements -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Statements:
    """The statements both stores run as they are, in one dialect's placeholders."""

    guild_settings: str = "SELECT data FROM guild_settings WHERE guild_id = ?"
    guilds_with_settings: str = "SELECT guild_id FROM guild_settings ORDER BY guild_id"
    save_guild_settings: str = (
        "INSERT INTO guild_settings (guild_id, data, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data, "
        "updated_at = excluded.updated_at"
    )
    member_language: str = "SELECT locale FROM member_languages WHERE user_id = ?"
    save_member_language: str = (
        "INSERT INTO member_languages (user_id, locale, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, "
        "updated_at = excluded.updated_at"
    )
    forget_member_language: str = "DELETE FROM member_languages WHERE user_id = ?"
    challenge: str = "SELECT * FROM challenges WHERE id = ?"
    set_challenge_status: str = "UPDATE challenges SET status = ? WHERE id = ? AND status = ?"
    set_challenge_message: str = "UPDATE challenges SET message_id = ? WHERE id = ?"
    accept_challenge: str = (
        "UPDATE challenges SET status = 'accepted' WHERE id = ? AND status = 'open'"
    )
    link_challenge: str = "UPDATE challenges SET match_id = ? WHERE id = ?"
    insert_snapshot: str = "INSERT INTO snapshots (match_id, version, data) VALUES (?, ?, ?)"
    insert_result: str = (
        "INSERT INTO game_results (match_id, game_number, winner_seat, kind, points, cube, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    match_row: str = "SELECT * FROM matches WHERE id = ?"
    snapshot: str = "SELECT data FROM snapshots WHERE match_id = ?"
    events: str = "SELECT * FROM events WHERE match_id = ? ORDER BY seq"
    event_count: str = "SELECT count(*) AS n FROM events WHERE match_id = ?"
    game_results: str = "SELECT * FROM game_results WHERE match_id = ? ORDER BY game_number"
    # Each seat's active matches from its own partial index (step 8), not every server's.
    active_match_ids: str = (
        "SELECT id FROM matches WHERE guild_id = ?1 AND status = 'active' AND player0_id = ?2 "
        "UNION SELECT id FROM matches WHERE guild_id = ?1 AND status = 'active' "
        "AND player1_id = ?2 ORDER BY id"
    )
    match_id_in_thread: str = (
        "SELECT id FROM matches WHERE thread_id = ? "
        "ORDER BY status = 'active' DESC, id DESC LIMIT 1"
    )
    candidate_match_ids: str = (
        "SELECT id FROM matches WHERE guild_id = ?1 AND status = 'active' AND player0_id = ?3 "
        "AND (channel_id = ?2 OR thread_id = ?2) "
        "UNION SELECT id FROM matches WHERE guild_id = ?1 AND status = 'active' "
        "AND player1_id = ?3 AND (channel_id = ?2 OR thread_id = ?2) ORDER BY id"
    )
    # Each seat's newest ``limit`` from its own index range, then the newest of both: never
    # the whole server's history (an OR of the seats reads it all and sorts it).
    history_rows: str = (
        "SELECT m.* FROM ("
        "SELECT id FROM (SELECT id FROM matches WHERE guild_id = ?1 AND player0_id = ?2 "
        "ORDER BY id DESC LIMIT ?3) AS seat0 "
        "UNION SELECT id FROM (SELECT id FROM matches WHERE guild_id = ?1 AND player1_id = ?2 "
        "ORDER BY id DESC LIMIT ?3) AS seat1) AS mine "
        # CROSS JOIN: SQLite keeps the few ids outside, each match found by its key.
        "CROSS JOIN matches AS m WHERE m.id = mine.id ORDER BY m.id DESC LIMIT ?3"
    )
    rating_board: str = (
        "SELECT r.user_id, r.name, r.rating, r.played, r.won, r.lost, r.drawn, r.points_won, "
        "r.points_lost FROM (SELECT user_id FROM ratings "
        "WHERE guild_id = ?1 AND game = ?2 AND played > 0 "
        "ORDER BY rating DESC, won DESC, user_id LIMIT ?3 OFFSET ?4) AS page "
        "CROSS JOIN ratings AS r WHERE r.guild_id = ?1 AND r.game = ?2 "
        "AND r.user_id = page.user_id ORDER BY r.rating DESC, r.won DESC, r.user_id"
    )
    # A member's place on the rating board: 1 + the players ahead of them in its order (an
    # index range of the board, not the history); no row when they are not on it.
    rating_place: str = (
        "SELECT 1 + (SELECT count(*) FROM ratings AS o WHERE o.guild_id = ?1 AND o.game = ?2 "
        "AND o.played > 0 AND o.rating > m.rating) "
        "+ (SELECT count(*) FROM ratings AS o WHERE o.guild_id = ?1 AND o.game = ?2 "
        "AND o.played > 0 AND o.rating = m.rating AND (o.won > m.won "
        "OR (o.won = m.won AND o.user_id < m.user_id))) AS place "
        "FROM ratings AS m WHERE m.guild_id = ?1 AND m.game = ?2 AND m.user_id = ?3 "
        "AND m.played > 0"
    )
    rating_board_size: str = (
        "SELECT count(*) AS n FROM ratings WHERE guild_id = ? AND game = ? AND played > 0"
    )
    stats_row: str = "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?"
    robot_records: str = (
        "SELECT * FROM robot_records WHERE guild_id = ? AND game = ? AND user_id = ? ORDER BY level"
    )
    count_shout: str = (
        "UPDATE ratings SET nannons_shouted = nannons_shouted + 1 "
        "WHERE guild_id = ? AND game = ? AND user_id = ?"
    )
    queue_analysis: str = (
        "INSERT INTO analyses (match_id, status, ply, requester_id, requested_at) "
        "VALUES (?, 'queued', ?, ?, ?) "
        # A failed analysis queued again: reset.
        "ON CONFLICT (match_id) DO UPDATE SET status = 'queued', ply = excluded.ply, "
        "requester_id = excluded.requester_id, requested_at = excluded.requested_at, "
        "started_at = NULL, finished_at = NULL, games_done = 0, games_total = NULL, "
        "message_id = NULL, result = NULL, error = NULL, error_rate0 = NULL, "
        "error_rate1 = NULL, pr0 = NULL, pr1 = NULL "
        "WHERE analyses.status = 'failed'"
    )
    analysis_row: str = "SELECT * FROM analyses WHERE match_id = ?"
    # Each seat's analysed matches from its own index range (a match of a member against
    # themselves counts once, as seat 0).
    analysis_averages: str = (
        "SELECT count(*) AS analysed, avg(error_rate) AS error_rate, avg(pr) AS pr FROM ("
        "SELECT a.error_rate0 AS error_rate, a.pr0 AS pr "
        "FROM matches AS m JOIN analyses AS a ON a.match_id = m.id "
        "WHERE m.guild_id = ?2 AND m.player0_id = ?1 AND m.game = ?3 AND a.status = 'done' "
        "UNION ALL SELECT a.error_rate1, a.pr1 "
        "FROM matches AS m JOIN analyses AS a ON a.match_id = m.id "
        "WHERE m.guild_id = ?2 AND m.player1_id = ?1 AND m.player0_id <> ?1 AND m.game = ?3 "
        "AND a.status = 'done') AS seats"
    )
    # One page of the length leaderboard, from the records step 8 keeps (see migrations.py).
    # (Both boards pick a page's members from the board's index alone, so what OFFSET skips
    # is index entries, not rows: the last page of 10,000 costs a range, then ten rows by key.)
    length_board: str = (
        "SELECT l.user_id, r.name, l.rating, l.played, l.won, l.lost, l.drawn, l.points_won, "
        "l.points_lost FROM (SELECT user_id FROM length_records "
        "WHERE guild_id = ?1 AND game = ?2 AND length = ?3 AND rating IS NOT NULL "
        "ORDER BY rating DESC, won DESC, user_id LIMIT ?4 OFFSET ?5) AS page "
        "CROSS JOIN length_records AS l CROSS JOIN ratings AS r "
        "WHERE l.guild_id = ?1 AND l.game = ?2 AND l.length = ?3 AND l.user_id = page.user_id "
        "AND r.guild_id = ?1 AND r.game = ?2 AND r.user_id = page.user_id "
        "ORDER BY l.rating DESC, l.won DESC, l.user_id"
    )
    length_place: str = (
        "SELECT 1 + (SELECT count(*) FROM length_records AS o WHERE o.guild_id = ?1 "
        "AND o.game = ?2 AND o.length = ?3 AND o.rating > m.rating) "
        "+ (SELECT count(*) FROM length_records AS o WHERE o.guild_id = ?1 AND o.game = ?2 "
        "AND o.length = ?3 AND o.rating = m.rating AND (o.won > m.won "
        "OR (o.won = m.won AND o.user_id < m.user_id))) AS place "
        "FROM length_records AS m WHERE m.guild_id = ?1 AND m.game = ?2 AND m.length = ?3 "
        "AND m.user_id = ?4 AND m.rating IS NOT NULL"
    )
    length_board_size: str = (
        "SELECT count(*) AS n FROM length_records "
        "WHERE guild_id = ? AND game = ? AND length = ? AND rating IS NOT NULL"
    )

    # Add to a player's record against the robot, making a missing row.
    robot_record_upsert: str = (
        f"{insert_sql('robot_records', _ROBOT_RECORD_ROW, _ROBOT_RECORD_ROW)} "
        "ON CONFLICT (guild_id, game, user_id, level) DO UPDATE SET name = excluded.name, "
        + ", ".join(f"{c} = robot_records.{c} + excluded.{c}" for c in ROBOT_RECORD_COLUMNS)
    )

    def for_postgres(self) -> Statements:
        """The same statements with PostgreSQL's placeholders."""
        return dataclasses.replace(
            self, **{f.name: numbered(getattr(self, f.name)) for f in dataclasses.fields(self)}
        )


def migration_summary(start: int, end: int) -> str | None:
    """The one line a store logs after migrating from schema version ``start`` to ``end`` (0: a
    new database), or None when there was nothing to do."""
    if start == end:
        return None
    if start == 0:
        return f"created the database at schema version {end}"
    return f"migrated the database from schema version {start} to {end}"


def numbered(sql: str) -> str:
    """``sql`` with SQLite's placeholders as PostgreSQL's: ``?`` as ``$1``, ``$2`` ... in
    order, ``?N`` as ``$N`` (not inside quoted strings or names)."""
    out: list[str] = []
    quote: str | None = None
    count = 0
    i = 0
    while i < len(sql):
        char = sql[i]
        i += 1
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "?":
            digits = ""
            while i < len(sql) and sql[i].isdigit():
                digits += sql[i]
                i += 1
            count += 1
            out.append(f"${digits or count}")
            continue
        out.append(char)
    return "".join(out)


def result_params(match_id: int, results: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The parameters of :attr:`Statements.insert_result` for each of a match's finished
    games."""
    return [
        (match_id, r["game_number"], r["winner"], r["kind"], r["points"], r["cube"], r["at"])
        for r in results
    ]


def stat_upserts(updates: Iterable[StatUpdate]) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """The upserts of ``updates`` into ``ratings``, in order: add the counters, set the values
    given (rating, experience, streak), make a missing row. Consecutive updates that set the
    same columns share one statement (``?`` placeholders), with a row of parameters each; a
    counter an update doesn't add to gets 0, which adds nothing."""
    for set_names, group in groupby(updates, key=lambda u: tuple(u.set)):
        batch = list(group)
        set_columns = columns(RATING_SET_COLUMNS, set_names)
        added = columns(STAT_COLUMNS, dict.fromkeys(name for u in batch for name in u.add))
        names = ["guild_id", "game", "user_id", "name", *added, *set_columns]
        sets = ", ".join(
            [
                "name = excluded.name",
                *(f"{c} = ratings.{c} + excluded.{c}" for c in added),
                *(f"{c} = excluded.{c}" for c in set_columns),
            ]
        )
        sql = (
            f"{insert_sql('ratings', names, names)} "
            f"ON CONFLICT (guild_id, game, user_id) DO UPDATE SET {sets}"
        )
        rows = [
            (
                u.guild_id,
                u.game,
                u.user_id,
                u.name,
                *(u.add.get(c, 0) for c in added),
                *(u.set[c] for c in set_columns),
            )
            for u in batch
        ]
        yield sql, rows


def robot_record_params(updates: Iterable[RobotRecordUpdate]) -> list[tuple[Any, ...]]:
    """The parameters of :attr:`Statements.robot_record_upsert` for each update."""
    return [
        (
            u.guild_id,
            u.game,
            u.user_id,
            u.level,
            u.name,
            *(u.add.get(c, 0) for c in ROBOT_RECORD_COLUMNS),
        )
        for u in updates
    ]


def event_row(row: Row) -> EventRow:
    """A stored event (a row of ``events``) as its value."""
    return EventRow(
        match_id=row["match_id"],
        seq=row["seq"],
        at=row["at"],
        actor=row["actor"],
        kind=row["kind"],
        payload=json.loads(row["payload"]),
    )


def json_object(row: Row | None, column: str = "data") -> dict[str, Any] | None:
    """A JSON object stored in ``column`` of ``row``; None without a row."""
    return None if row is None else dict(json.loads(row[column]))


SQLITE = Statements()
POSTGRES = SQLITE.for_postgres()
