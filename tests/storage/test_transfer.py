"""Moving up, end to end against the throwaway PostgreSQL server: ``copy_database`` copies a
SQLite database of real matches (events, snapshots, finished games, ratings and stats,
challenges, settings, shouts, records against the robot) row for row, the target's ids go on
after the copied ones, every match replays to its snapshot; a target holding data, a match that
doesn't replay, a missing source are refused, and then nothing is copied. ``tablebot migrate-db
--to`` runs it."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.random_matches import GUILD, play_random_match

from bot.storage import RobotRecordUpdate, StatUpdate, StoreError
from bot.storage.postgres import PostgresStore
from bot.storage.sqlite import SqliteStore
from bot.storage.transfer import POOL_FROM, REPLAY_BATCH, TABLES, copy_database

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]


async def make_source(path: Path, seed: int = 7) -> dict[str, int]:
    """A SQLite database with a bit of everything; the ids it made."""
    rng = random.Random(seed)
    store = await SqliteStore.open(path)
    try:
        made = {}
        games = ["nannon", "backgammon", "checkers"]
        for n in range(9):
            players = (2**40 + 2 * n, 2**40 + 2 * n + 1)  # 64-bit Discord ids
            made[f"match{n}"] = await play_random_match(
                store, games[n % 3], players, rng, actions=rng.randint(0, 120)
            )
        made["open"] = await store.insert_challenge(
            {
                "guild_id": GUILD,
                "channel_id": 11,
                "game": "nannon",
                "rules": "{}",
                "challenger_id": 5,
                "challenger_name": "five",
                "status": "open",
                "created_at": 1.0,
                "expires_at": 3.0,
            }
        )
        await store.set_challenge_message(made["open"], 2**62)
        await store.expire_challenges(5.0)
        await store.save_guild_settings(GUILD, {"challenge_channels": [2**50]}, 4.0)
        await store.save_guild_settings(2, {}, 5.0)
        match = made["match0"]
        await store.commit_action(
            match,
            (await store.match_row(match))["version"],  # type: ignore[index]
            await store.event_count(match),
            [],
            (await store.snapshot(match)) or {},
            {"thread_id": 2**45},
            stat_updates=[
                StatUpdate(GUILD, "nannon", 2**40, "p", {"played": 1}, {"rating": 1488.5})
            ],
            robot_records=[
                RobotRecordUpdate(GUILD, "nannon", 2**40, "p", 5, {"played": 1, "won": 1})
            ],
        )
        await store.record_shout(match, 1, 2**40, GUILD, "nannon", 6.0)
        await store.update_match(made["match1"], board_message_id=2**61, reminded_version=3)
        await store.queue_analysis(match, 0, 2**40, 7.0)
        await store.update_analysis(match, status="done", result="{}", error_rate0=1.5, pr0=0.75)
        made["tournament"] = tournament = await store.insert_tournament(
            {
                "guild_id": GUILD,
                "channel_id": 11,
                "organiser_id": 2**40,
                "organiser_name": "p",
                "game": "nannon",
                "format": "knockout",
                "rules": "{}",
                "round_days": 3.0,
                "status": "signup",
                "created_at": 8.0,
            }
        )
        for user in (2**40, 2**40 + 1):
            entry = {"tournament_id": tournament, "user_id": user, "name": "p", "rating": 1500.0}
            await store.add_entry({**entry, "robot": 0, "joined_at": 9.0})
        pairing = {"round": 1, "board": 0, "first_id": 2**40, "second_id": 2**40 + 1}
        assert await store.begin_round(tournament, 0, {"status": "running", "round": 1}, [pairing])
        puzzle = await store.insert_puzzle(
            {
                "guild_id": GUILD, "game": "nannon", "kind": "move", "match_id": match,
                "action_index": 3, "seat": 0, "player_id": 2**40, "board": "{}",
                "played": "b", "answer_key": '[["a", 0.5], ["b", 0.25]]',
                "position_key": "move|x|3", "created_at": 8.0,
            }
        )  # fmt: skip
        assert puzzle is not None
        await store.record_puzzle_attempt(
            {"puzzle_id": puzzle, "user_id": 2**41, "choice": "a", "correct": True, "at": 9.0},
            {"guild_id": GUILD, "name": "q", "rating": 1600.0, "deviation": 200.0,
             "volatility": 0.06},
            {"rating": 1400.0, "deviation": 200.0, "volatility": 0.06},
        )  # fmt: skip
        await store.set_puzzle_opt_out(GUILD, 2**40 + 1, True, 10.0)
        await store.save_member_language(2**40, "tr", 8.0)
        return made
    finally:
        await store.close()


def sqlite_rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    from bot.storage.transfer import ORDER

    with sqlite3.connect(path) as db:
        return [tuple(r) for r in db.execute(f"SELECT * FROM {table} ORDER BY {ORDER[table]}")]


async def postgres_rows(url: str, table: str) -> list[tuple[Any, ...]]:
    import asyncpg

    from bot.storage.transfer import ORDER

    db = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await db.fetch(f"SELECT * FROM {table} ORDER BY {ORDER[table]}")]
    finally:
        await db.close()


@pytest.mark.asyncio
async def test_a_sqlite_database_is_copied_row_for_row_and_checked(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    source = tmp_path / "t.db"
    made = await make_source(source)
    url = postgres_database(migrated=False)  # copy_database migrates it
    report = await copy_database(source, url)
    assert report.matches_replayed == 9
    for table in TABLES:
        rows = sqlite_rows(source, table)
        assert rows, table  # the source has some of everything
        assert report.rows[table] == len(rows)
        assert await postgres_rows(url, table) == rows, table
    # The bot goes on in PostgreSQL: the stored matches read back, new ids follow the old.
    store = await PostgresStore.open(url)
    try:
        assert [r["id"] for r in await store.active_match_rows()] == [
            made[f"match{n}"] for n in range(9) if sqlite_rows(source, "matches")[n][15] == "active"
        ]
        row = await store.stats_row(GUILD, "nannon", 2**40)
        assert row is not None and row["rating"] == 1488.5 and row["nannons_shouted"] == 1
        assert await store.guild_settings(GUILD) == {"challenge_channels": [2**50]}
        challenge = await store.insert_challenge(
            {
                "guild_id": GUILD,
                "channel_id": 1,
                "game": "nannon",
                "rules": "{}",
                "challenger_id": 1,
                "challenger_name": "x",
                "status": "open",
                "created_at": 0.0,
                "expires_at": 1.0,
            }
        )
        assert challenge == made["open"] + 1
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_target_that_holds_data_is_refused(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    source = tmp_path / "t.db"
    await make_source(source)
    url = postgres_database()
    store = await PostgresStore.open(url)
    try:
        await store.save_guild_settings(99, {"mine": True}, 1.0)
    finally:
        await store.close()
    with pytest.raises(StoreError, match=r"already holds data \(in guild_settings\)"):
        await copy_database(source, url)
    assert await postgres_rows(url, "guild_settings") == [(99, '{"mine":true}', 1.0)]
    assert await postgres_rows(url, "matches") == []
    # A copy that went through is refused a second time too.
    fresh = postgres_database()
    await copy_database(source, fresh)
    with pytest.raises(StoreError, match="already holds data"):
        await copy_database(source, fresh)


@pytest.mark.asyncio
async def test_a_match_that_does_not_replay_stops_the_copy_whole(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    source = tmp_path / "t.db"
    made = await make_source(source)
    broken = made["match4"]
    with sqlite3.connect(source) as db:
        db.execute(
            "UPDATE snapshots SET data = json_set(data, '$.score', json('[5, 5]')) "
            "WHERE match_id = ?",
            (broken,),
        )
    url = postgres_database()
    with pytest.raises(StoreError, match=rf"1 of 9 matches don't replay.*match {broken} \("):
        await copy_database(source, url)
    for table in TABLES:
        assert await postgres_rows(url, table) == [], table


async def make_many(path: Path, count: int) -> list[int]:
    """``count`` short matches (a few actions each): more than one replay worker's batch."""
    rng = random.Random(3)
    store = await SqliteStore.open(path)
    try:
        return [
            await play_random_match(store, "nannon", (100 + 2 * n, 101 + 2 * n), rng, actions=3)
            for n in range(count)
        ]
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_big_copy_is_replayed_in_batches_by_workers_shown_and_analysed(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    """Issue 38: past POOL_FROM matches the replay check runs in worker processes, a batch at
    a time, and still names the match that doesn't replay; the copy reports its progress
    (every table's rows, the matches replayed) and leaves the planner its statistics
    (ANALYZE: pg_class.reltuples and pg_stats filled, not the -1 of a table never analysed)."""
    import asyncpg

    source = tmp_path / "t.db"
    count = POOL_FROM + REPLAY_BATCH // 2
    made = await make_many(source, count)
    broken = made[-3]  # in the last batch, replayed by a worker
    with sqlite3.connect(source) as db:
        [(kept,)] = db.execute("SELECT data FROM snapshots WHERE match_id = ?", (broken,))
        db.execute("UPDATE snapshots SET data = '{}' WHERE match_id = ?", (broken,))
    url = postgres_database()
    with pytest.raises(StoreError, match=rf"1 of {count} matches don't replay.*match {broken} \("):
        await copy_database(source, url)
    assert await postgres_rows(url, "matches") == []
    with sqlite3.connect(source) as db:  # mended: the copy goes through
        db.execute("UPDATE snapshots SET data = ? WHERE match_id = ?", (kept, broken))
    shown: list[tuple[str, int, int]] = []
    report = await copy_database(source, url, lambda *step: shown.append(step))
    assert report.matches_replayed == count
    replays = [(done, total) for stage, done, total in shown if stage == "replay"]
    assert replays[0] == (0, count) and replays[-1] == (count, count)
    assert len(replays) >= count // REPLAY_BATCH  # batch by batch
    assert [done for done, _ in replays] == sorted(done for done, _ in replays)
    for table in TABLES:
        assert (table, report.rows[table], report.rows[table]) in shown, table
    assert shown[-1] == ("analyse", 1, 1)
    db = await asyncpg.connect(url)
    try:
        tuples = dict(
            await db.fetch(
                "SELECT relname, reltuples FROM pg_class WHERE relname = ANY($1::text[])",
                ["matches", "events", "snapshots"],
            )
        )
        assert tuples == {
            "matches": count,
            "events": report.rows["events"],
            "snapshots": count,
        }
        assert await db.fetchval("SELECT count(*) FROM pg_stats WHERE tablename = 'matches'") > 0
    finally:
        await db.close()


@pytest.mark.asyncio
async def test_what_copy_database_refuses_up_front(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    url = postgres_database()
    with pytest.raises(StoreError, match="no SQLite database"):
        await copy_database(tmp_path / "missing.db", url)
    assert not (tmp_path / "missing.db").exists()  # not created either
    with pytest.raises(StoreError, match="must be a SQLite file"):
        await copy_database(url, url)
    with pytest.raises(StoreError, match="must be a postgresql:// URL"):
        await copy_database(tmp_path / "missing.db", str(tmp_path / "other.db"))


def run_cli(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TABLEBOT_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.asyncio
async def test_tablebot_migrate_db_copies_tablebot_db_into_the_url(
    tmp_path: Path, postgres_database: Callable[..., str]
) -> None:
    source = tmp_path / "t.db"
    await make_source(source)
    url = postgres_database()
    # No DISCORD_TOKEN needed: moving the data doesn't talk to Discord.
    done = run_cli(tmp_path, {"TABLEBOT_DB": str(source)}, "migrate-db", "--to", url)
    assert done.returncode == 0, done.stderr
    assert "9 matches" in done.stdout and "replay" in done.stdout
    # Its progress on stderr (not a terminal here: a line at each tenth of each stage).
    lines = done.stderr.splitlines()
    events = len(sqlite_rows(source, "events"))
    for label, total in (("events", events), ("replaying matches", 9), ("analysing", 1)):
        assert f"{label:<20} [{'#' * 30}] 100% {total:,}/{total:,}" in lines, lines
    assert f"{'replaying matches':<20} [{' ' * 30}]   0% 0/9" in lines
    assert f"TABLEBOT_DB={url}" in done.stdout
    assert await postgres_rows(url, "events") == sqlite_rows(source, "events")
    # Again: the target holds data now.
    again = run_cli(tmp_path, {"TABLEBOT_DB": str(source)}, "migrate-db", "--to", url)
    assert again.returncode == 1
    assert "already holds data" in again.stderr and "Traceback" not in again.stderr


def test_tablebot_migrate_db_refuses_bad_arguments(tmp_path: Path) -> None:
    missing = run_cli(tmp_path, {}, "migrate-db")
    assert missing.returncode == 2 and "--to" in missing.stderr
    not_url = run_cli(tmp_path, {}, "migrate-db", "--to", str(tmp_path / "x.db"))
    assert not_url.returncode == 2 and "postgresql://" in not_url.stderr
    no_source = run_cli(
        tmp_path,
        {"TABLEBOT_DB": str(tmp_path / "none.db")},
        "migrate-db",
        "--to",
        "postgresql://u:topsecret@127.0.0.1:9/x",
    )
    assert no_source.returncode == 1 and "no SQLite database" in no_source.stderr
    assert "topsecret" not in no_source.stderr + no_source.stdout
    assert not (tmp_path / "none.db").exists()
    from_url = run_cli(
        tmp_path, {"TABLEBOT_DB": "postgresql://a@b/c"}, "migrate-db", "--to", "postgresql://d/e"
    )
    assert from_url.returncode == 2 and "SQLite" in from_url.stderr
    sqlite3.connect(tmp_path / "src.db").close()
    unreachable = run_cli(
        tmp_path,
        {"TABLEBOT_DB": str(tmp_path / "src.db")},
        "migrate-db",
        "--to",
        f"postgresql://u:topsecret@/x?host={tmp_path}",  # no server's socket there
    )
    assert unreachable.returncode == 1, unreachable.stderr
    assert "Traceback" not in unreachable.stderr and "topsecret" not in unreachable.stderr
