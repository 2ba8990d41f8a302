"""Issue 38, a big community server: the reads a member triggers no longer scan the server's
history (step 8: each seat's index, the rating board's index, ``length_records`` kept by
triggers), and they answer row for row as today's queries did, on a history made by today's
schema (steps 1-7) and migrated in place, and after more matches finish on the new one."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.db import sql_rows

from bot.storage import connect_store, migrations, postgres_migrations
from bot.storage.protocol import Store
from bot.storage.statements import numbered
from bot.storage.types import StatUpdate

GUILD = 1
GAMES = ("nannon", "backgammon")
LENGTHS = (1, 3, 5)
MEMBERS = range(100, 130)
TODAY = 7  # the steps today's tablebot has
pytestmark = pytest.mark.asyncio

# Today's queries (before step 8): the reference the new reads must equal (the length board
# in a form both dialects run, counting as PostgreSQL's did: SQLite's SUM said NULL, not 0,
# for a member with only draws).
TODAY_HISTORY = (
    "SELECT * FROM matches WHERE guild_id = ?1 AND (player0_id = ?2 OR player1_id = ?2) "
    "ORDER BY id DESC LIMIT ?3"
)
TODAY_AVERAGES = (
    "SELECT count(*) AS analysed, "
    "avg(CASE WHEN m.player0_id = ?1 THEN a.error_rate0 ELSE a.error_rate1 END) AS error_rate, "
    "avg(CASE WHEN m.player0_id = ?1 THEN a.pr0 ELSE a.pr1 END) AS pr "
    "FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
    "WHERE a.status = 'done' AND m.guild_id = ?2 AND m.game = ?3 "
    "AND (m.player0_id = ?1 OR m.player1_id = ?1)"
)
TODAY_LENGTH_BOARD = """
    WITH seats AS (
        SELECT player0_id AS user_id, winner_seat = 0 AS won, winner_seat = 1 AS lost,
               winner_seat IS NULL AS drawn, score0 AS pw, score1 AS pl
        FROM matches
        WHERE guild_id = ?1 AND game = ?2 AND length = ?3 AND status = 'finished'
          AND (robot_seat IS NULL OR rating_changes IS NOT NULL)
        UNION ALL
        SELECT player1_id, winner_seat = 1, winner_seat = 0, winner_seat IS NULL, score1, score0
        FROM matches
        WHERE guild_id = ?1 AND game = ?2 AND length = ?3 AND status = 'finished'
          AND (robot_seat IS NULL OR rating_changes IS NOT NULL)
    )
    SELECT s.user_id, r.name, r.rating, count(*) AS played,
           count(CASE WHEN s.won THEN 1 END) AS won, count(CASE WHEN s.lost THEN 1 END) AS lost,
           count(CASE WHEN s.drawn THEN 1 END) AS drawn,
           sum(s.pw) AS points_won, sum(s.pl) AS points_lost
    FROM seats AS s
    JOIN ratings AS r ON r.guild_id = ?1 AND r.game = ?2 AND r.user_id = s.user_id
    GROUP BY s.user_id, r.name, r.rating
    ORDER BY r.rating DESC, 5 DESC, s.user_id
"""
MATCH_COLUMNS = (
    "id, guild_id, channel_id, game, length, rules, player0_id, player0_name, player1_id, "
    "player1_name, colour0, colour1, status, score0, score1, winner_seat, dice_commitment, "
    "dice_seed, rating_changes, created_at, last_action_at, finished_at, robot_seat, robot_level"
)


def history(seed: int, matches: int) -> dict[str, list[tuple[Any, ...]]]:
    """A random server history: matches of every status and result (some against the robot,
    rated or not, some of a member against themselves, some in another guild), ratings rows
    for most players, analyses of some finished matches."""
    rng = random.Random(seed)
    rows: dict[str, list[tuple[Any, ...]]] = {"matches": [], "ratings": [], "analyses": []}
    for match_id in range(1, matches + 1):
        a, b = rng.sample(MEMBERS, 2)
        if rng.random() < 0.03:
            b = a
        status = rng.choice(("finished", "finished", "finished", "active", "abandoned"))
        winner = rng.choice((0, 1, 1, None)) if status == "finished" else None
        robot = rng.choice((None, None, None, 1))
        rated = robot is None or rng.random() < 0.5
        changes = '[{"seat": 0, "delta": 1.5}]' if rated and status == "finished" else None
        length = rng.choice(LENGTHS)
        rows["matches"].append(
            (match_id, rng.choice((GUILD, GUILD, GUILD, 2)), 9, rng.choice(GAMES), length,
             "{}", a, f"p{a}", b, f"p{b}", "white", "black", status,
             float(rng.randint(0, length)), rng.choice((0.0, 0.5, 2.0, float(length))), winner,
             "c", bytes(32), changes, float(match_id), float(match_id),
             float(match_id) if status == "finished" else None, robot, 2 if robot else None)
        )  # fmt: skip
        if status == "finished" and rng.random() < 0.4:
            rows["analyses"].append(
                (match_id, rng.choice(("done", "done", "failed")), 2, float(match_id),
                 rng.random(), rng.random(), rng.random() * 10, None)
            )  # fmt: skip
    for guild in (GUILD, 2):
        for game in GAMES:
            for user in MEMBERS:
                if rng.random() < 0.85:
                    rating = rng.choice((1500.0, 1510.0, rng.uniform(1300, 1700)))
                    played = rng.choice((0, 3, 7))
                    rows["ratings"].append((guild, game, user, f"p{user}", rating, played, 1))
    return rows


INSERTS = {
    "matches": f"INSERT INTO matches ({MATCH_COLUMNS}) VALUES ({', '.join('?' * 24)})",
    "ratings": (
        "INSERT INTO ratings (guild_id, game, user_id, name, rating, played, won) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    ),
    "analyses": (
        "INSERT INTO analyses (match_id, status, ply, requested_at, error_rate0, error_rate1, "
        "pr0, pr1) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    ),
}


def todays_sqlite(path: Path, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """A SQLite database as today's tablebot leaves it (its 7 steps), holding ``rows``."""
    db = sqlite3.connect(path, isolation_level=None)
    for step in range(TODAY):
        db.execute("BEGIN")
        migrations.apply_step(step, db)
        db.execute("COMMIT")
    for table, values in rows.items():
        db.executemany(INSERTS[table], values)
    db.close()


async def todays_postgres(url: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """A PostgreSQL database as today's tablebot leaves it (its 7 steps), holding ``rows``."""
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        await db.execute(postgres_migrations.CREATE_VERSION_TABLE)
        for step in range(TODAY):
            async with db.transaction():
                await postgres_migrations.apply_step(step, db)
        for table, values in rows.items():
            await db.executemany(numbered(INSERTS[table]), values)
    finally:
        await db.close()


def plain(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Rows as tuples, floats rounded past a sum's order of additions."""
    return [
        tuple(round(v, 9) if isinstance(v, float) else v for v in dict(row).values())
        for row in rows
    ]


async def assert_reads_as_today(store: Store, postgres: bool) -> None:
    def today(sql: str) -> str:
        return numbered(sql) if postgres else sql

    for user in (*MEMBERS, 999):
        for limit in (1, 5, 100):
            new = await store.history_rows(GUILD, user, limit)
            old = await sql_rows(store, today(TODAY_HISTORY), (GUILD, user, limit))
            assert plain(new) == plain(old), (user, limit)
        for game in GAMES:
            new_row = await store.analysis_averages(GUILD, game, user)
            old_rows = await sql_rows(store, today(TODAY_AVERAGES), (user, GUILD, game))
            assert plain([new_row]) == plain(old_rows), (user, game)
    for game in GAMES:
        for length in (*LENGTHS, 7):
            board = await sql_rows(store, today(TODAY_LENGTH_BOARD), (GUILD, game, length))
            assert plain(await store.length_board(GUILD, game, length, 1000)) == plain(board)
            # Paging: every page is its slice of the whole board, to the last rank.
            pages = [await store.length_board(GUILD, game, length, 7, n) for n in range(0, 35, 7)]
            assert [r for page in pages for r in plain(page)] == plain(board)
            await assert_places(store, game, length, board)
        whole = await store.rating_board(GUILD, game, 1000)
        pages = [await store.rating_board(GUILD, game, 4, n) for n in range(0, 40, 4)]
        assert [r for page in pages for r in plain(page)] == plain(whole)
        await assert_places(store, game, None, whole)


async def assert_places(store: Store, game: str, length: int | None, board: Sequence[Any]) -> None:
    """Each member's place (a member finds their own rank and page) is their row's rank on
    the whole board, and the board's size its last rank."""
    ranked = [row["user_id"] for row in board]
    for user in (*MEMBERS, 999):
        expected = ranked.index(user) + 1 if user in ranked else None
        assert await store.board_place(GUILD, game, length, user) == (expected, len(ranked))


async def finish_more(store: Store, rng: random.Random) -> None:
    """More matches finish on the migrated database (the triggers keep the records): some by
    their last action (with rating updates in the same transaction), some made finished."""
    ids = [
        row["id"] for row in await sql_rows(store, "SELECT id FROM matches WHERE status = 'active'")
    ]
    for match_id in ids[:15]:
        [row] = await sql_rows(store, "SELECT * FROM matches WHERE id = ?", (match_id,))
        updates = [
            StatUpdate(row["guild_id"], row["game"], row[f"player{seat}_id"], "again",
                       {"played": 1}, {"rating": rng.uniform(1300, 1700)})
            for seat in (0, 1)
        ]  # fmt: skip
        changes = {"status": "finished", "winner_seat": rng.choice((0, 1, None)), "score0": 3.0}
        await store.commit_action(
            match_id, row["version"], 0, [], {}, changes, stat_updates=updates
        )


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def test_a_big_servers_reads_answer_as_today_after_migrating_in_place(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Issue 38: a database made by today's schema migrates in place (step 8 fills the length
    records from the history) and every member's history, analysed averages, length board and
    rating board, page by page, are row for row what today's queries return; still so after
    more matches finish through the store."""
    rows = history(seed=38, matches=600)
    target: str | Path
    if backend == "sqlite":
        target = tmp_path / "today.db"
        todays_sqlite(target, rows)
    else:
        new: Callable[..., str] = request.getfixturevalue("postgres_database")
        target = new(migrated=False)
        await todays_postgres(target, rows)
    store = await connect_store(target)
    try:
        assert await store.schema_version() == len(migrations.MIGRATIONS)
        counted = await sql_rows(store, "SELECT count(*) AS n FROM length_records")
        assert counted[0]["n"] > 100  # filled from the history, not empty
        await assert_reads_as_today(store, backend == "postgres")
        await finish_more(store, random.Random(5))
        await assert_reads_as_today(store, backend == "postgres")
    finally:
        await store.close()


def member_reads(postgres: bool) -> dict[str, tuple[str, tuple[Any, ...]]]:
    """Each read a member triggers (issue 38), in the dialect, with its parameters."""
    from bot.storage.puzzles import PUZZLE_BOARD, PUZZLE_BOARD_SIZE, PUZZLE_PLACE
    from bot.storage.statements import POSTGRES, SQLITE
    from bot.storage.tournaments import _PAIRINGS

    sql = POSTGRES if postgres else SQLITE

    def own(text: str) -> str:  # a statement of the stores' mixins, numbered for asyncpg
        return numbered(text) if postgres else text

    return {
        "history": (sql.history_rows, (GUILD, 100, 20)),
        "averages": (sql.analysis_averages, (100, GUILD, "nannon")),
        "length board": (sql.length_board, (GUILD, "nannon", 3, 10, 90)),
        "rating board": (sql.rating_board, (GUILD, "nannon", 10, 90)),
        "rating place": (sql.rating_place, (GUILD, "nannon", 100)),
        "rating board size": (sql.rating_board_size, (GUILD, "nannon")),
        "length place": (sql.length_place, (GUILD, "nannon", 3, 100)),
        "length board size": (sql.length_board_size, (GUILD, "nannon", 3)),
        "puzzle board": (own(PUZZLE_BOARD), (GUILD, 10, 90)),
        "puzzle place": (own(PUZZLE_PLACE), (GUILD, 100)),
        "puzzle board size": (own(PUZZLE_BOARD_SIZE), (GUILD,)),
        "/games": (sql.active_match_ids, (GUILD, 100)),
        "candidate matches": (sql.candidate_match_ids, (GUILD, 9, 100)),
        "tournament standings": (own(_PAIRINGS), (1,)),
    }


async def test_a_members_reads_use_an_index_not_the_servers_history(tmp_path: Path) -> None:
    """Issue 38: SQLite plans each read a member triggers on an index range: no scan of
    ``matches`` (or the boards' tables) and no temporary B-tree but over the history's two
    short pages (the history, analysed averages, every board and a member's place on it,
    /games and the matches a command may mean, a tournament's standings)."""
    path = tmp_path / "plan.db"
    todays_sqlite(path, history(seed=1, matches=50))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    migrations.apply_step(TODAY, db)
    db.execute("COMMIT")
    reads = member_reads(postgres=False)
    for name, (sql, params) in reads.items():
        steps = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
        plan = " | ".join(steps)
        tables = ("matches", "analyses", "length_records", "ratings", "puzzle_ratings")
        for table in (*tables, "o", "m", "l", "r"):  # by name or by alias
            assert not any(step.split()[:2] == ["SCAN", table] for step in steps), (name, plan)
        # Sorting is only ever of the history's two short pages (at most twice the limit).
        # or of a member's few active matches (the two seats' union, in id order), or of a
        # board's one page (its members picked from the index, then read by key).
        sorted_steps = 2 if name in ("history", "/games", "candidate matches") else 0
        sorted_steps += "board" in name and "size" not in name
        assert plan.count("TEMP B-TREE") <= sorted_steps, (name, plan)
    db.close()


@pytest.mark.postgres
async def test_a_members_reads_can_use_an_index_on_postgres(
    request: pytest.FixtureRequest,
) -> None:
    """Issue 38: on PostgreSQL each read a member triggers has an index path (with
    sequential scans priced out, as on a big history, no ``Seq Scan`` of any table): the
    history, analysed averages, every board and a member's place on it, /games, a
    tournament's standings."""
    import asyncpg

    new: Callable[..., str] = request.getfixturevalue("postgres_database")
    url = new(migrated=False)
    await todays_postgres(url, history(seed=1, matches=50))
    store = await connect_store(url)  # migrates to step 8
    await store.close()
    reads = member_reads(postgres=True)
    db = await asyncpg.connect(url)
    try:
        await db.execute("SET enable_seqscan = off")
        for name, (sql, params) in reads.items():
            plan = " | ".join(row[0] for row in await db.fetch(f"EXPLAIN {sql}", *params))
            assert "Seq Scan" not in plan, (name, plan)
    finally:
        await db.close()
