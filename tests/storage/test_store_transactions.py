"""Every store, SQLite and PostgreSQL alike: migrations (each step once, in its own transaction;
a newer database refused), the version check of an action's transaction, all or nothing,
concurrent commits, stat upserts, cancellation and closing. SQLite's own behaviour (pragmas,
its one queue, checkpoints) is in test_sqlite_store.py."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from support.db import sql_rows

from bot.storage import (
    STAT_COLUMNS,
    ConstraintViolation,
    Finisher,
    MigrationFailed,
    NewEvent,
    Row,
    SchemaTooNew,
    StatementFailed,
    StatUpdate,
    Store,
    StoreNotOpen,
    VersionConflict,
    connect_store,
    postgres_migrations,
    statements,
)
from bot.storage import migrations as sqlite_migrations
from bot.storage.sqlite import SqliteStore

pytestmark = pytest.mark.asyncio

# Where each store reads its steps: a test adds some there.
MIGRATIONS_PATH = {
    "sqlite": "bot.storage.migrations.MIGRATIONS",
    "postgres": "bot.storage.postgres_migrations.MIGRATIONS",
}
MIGRATIONS = {
    "sqlite": sqlite_migrations.MIGRATIONS,
    "postgres": postgres_migrations.MIGRATIONS,
}
# What each engine says about a missing table, and the driver's error for it.
NO_SUCH_TABLE = {
    "sqlite": "no such table: no_such_table",
    "postgres": 'relation "no_such_table" does not exist',
}


def integrity_error(backend: str) -> type[Exception]:
    """The driver's error for a broken key (a duplicate event seq)."""
    if backend == "postgres":
        import asyncpg

        error: type[Exception] = asyncpg.IntegrityConstraintViolationError
        return error
    return sqlite3.IntegrityError


def undefined_table_error(backend: str) -> type[Exception]:
    if backend == "postgres":
        import asyncpg

        error: type[Exception] = asyncpg.UndefinedTableError
        return error
    return sqlite3.OperationalError


async def plain_query(target: str | Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql``'s rows on the database, through the driver itself, not a store (which would
    migrate it)."""
    if isinstance(target, Path):
        with sqlite3.connect(target) as conn:
            return [tuple(row) for row in conn.execute(sql).fetchall()]
    import asyncpg

    conn = await asyncpg.connect(target)
    try:
        return [tuple(row) for row in await conn.fetch(sql)]
    finally:
        await conn.close()


async def plain_version(target: str | Path) -> int:
    if isinstance(target, Path):
        [(version,)] = await plain_query(target, "PRAGMA user_version")
    else:
        [(version,)] = await plain_query(
            target, f"SELECT coalesce(max(version), 0) FROM {postgres_migrations.VERSION_TABLE}"
        )
    return int(version)


async def table_names(target: str | Path) -> set[str]:
    if isinstance(target, Path):
        rows = await plain_query(target, "SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = await plain_query(
            target,
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
        )
    return {name for (name,) in rows}


async def store_rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    """Raw SQL on the store's own connection (its public diagnostics)."""
    return [tuple(row) for row in await sql_rows(store, sql)]


@pytest.fixture
def blank_target(request: pytest.FixtureRequest, store_target: str | Path, backend: str) -> Any:
    """A database no tablebot has touched: a new SQLite file, or an empty PostgreSQL one."""
    if backend == "sqlite":
        return store_target
    new: Callable[..., str] = request.getfixturevalue("postgres_database")
    return new(migrated=False)


# --- migrations -------------------------------------------------------------------------------


async def test_a_fresh_database_is_migrated_once(blank_target: str | Path, backend: str) -> None:
    for _ in range(2):  # reopening runs no step twice
        store = await connect_store(blank_target)
        try:
            assert await store.schema_version() == len(MIGRATIONS[backend])  # type: ignore[attr-defined]
        finally:
            await store.close()
    assert await plain_version(blank_target) == len(MIGRATIONS[backend])
    assert {"matches", "events", "snapshots", "ratings"} <= await table_names(blank_target)


async def test_a_newer_database_is_refused(blank_target: str | Path, backend: str) -> None:
    newer = len(MIGRATIONS[backend]) + 1
    if isinstance(blank_target, Path):
        with sqlite3.connect(blank_target) as conn:
            conn.execute(f"PRAGMA user_version = {newer}")
    else:
        await plain_query(blank_target, postgres_migrations.CREATE_VERSION_TABLE)
        await plain_query(
            blank_target,
            f"INSERT INTO {postgres_migrations.VERSION_TABLE} (version) "
            f"SELECT generate_series(1, {newer})",
        )
    with pytest.raises(SchemaTooNew, match="newer than this tablebot"):
        await connect_store(blank_target)
    assert "matches" not in await table_names(blank_target)


# Steps that fail if run twice: CREATE TABLE without IF NOT EXISTS, and a row that counts runs.
COUNTED_STEP = "CREATE TABLE step_a (x INTEGER); INSERT INTO step_a (x) VALUES (1)"
SECOND_STEP = "CREATE TABLE step_b (x INTEGER); INSERT INTO step_b (x) VALUES (2)"


async def test_a_migrated_database_runs_no_step_again(
    blank_target: str | Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = MIGRATIONS[backend]
    monkeypatch.setattr(MIGRATIONS_PATH[backend], (*steps, COUNTED_STEP))
    store = await connect_store(blank_target)
    await store.close()
    for _ in range(2):  # reopening at the same version: nothing runs (a rerun would raise)
        store = await connect_store(blank_target)
        try:
            assert await store.schema_version() == len(steps) + 1  # type: ignore[attr-defined]
            assert await store_rows(store, "SELECT x FROM step_a") == [(1,)]
        finally:
            await store.close()
    # A newer tablebot with one more step runs that step only.
    monkeypatch.setattr(MIGRATIONS_PATH[backend], (*steps, COUNTED_STEP, SECOND_STEP))
    store = await connect_store(blank_target)
    try:
        assert await store.schema_version() == len(steps) + 2  # type: ignore[attr-defined]
        assert await store_rows(store, "SELECT x FROM step_a") == [(1,)]
        assert await store_rows(store, "SELECT x FROM step_b") == [(2,)]
    finally:
        await store.close()


async def test_migrating_logs_one_line(
    blank_target: str | Path,
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 33, "The docs": a new database logged seven "migrated to schema version N" lines;
    one line says it, an upgrade says from which version to which, and nothing to do logs
    nothing."""
    steps = MIGRATIONS[backend]

    async def opened() -> list[str]:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="bot.storage"):
            store = await connect_store(blank_target)
            await store.close()
        return [r.getMessage() for r in caplog.records if "schema version" in r.getMessage()]

    latest = len(steps)
    assert await opened() == [f"created the database at schema version {latest}"]
    assert await opened() == []
    monkeypatch.setattr(MIGRATIONS_PATH[backend], (*steps, COUNTED_STEP, SECOND_STEP))
    assert await opened() == [f"migrated the database from schema version {latest} to {latest + 2}"]


async def test_a_failing_migration_step_rolls_back_and_the_store_refuses_to_open(
    blank_target: str | Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = MIGRATIONS[backend]
    good = len(steps) + 1  # the version after COUNTED_STEP
    # The broken step changes things before its failing statement: all of it must roll back.
    broken = (
        "CREATE TABLE half_done (x INTEGER); INSERT INTO step_a (x) VALUES (99); "
        "INSERT INTO no_such_table VALUES (1)"
    )
    monkeypatch.setattr(MIGRATIONS_PATH[backend], (*steps, COUNTED_STEP, broken, SECOND_STEP))
    for _ in range(2):  # every attempt refuses the same way, and changes nothing more
        with pytest.raises(MigrationFailed) as refused:
            await connect_store(blank_target)
        message = str(refused.value)
        assert f"schema version {good + 1} failed" in message
        assert NO_SUCH_TABLE[backend] in message
        assert f"left at version {good}" in message
        assert isinstance(refused.value.__cause__, undefined_table_error(backend))
        assert await plain_version(blank_target) == good
        tables = await table_names(blank_target)
        assert {"matches", "events", "ratings", "step_a"} <= tables  # earlier steps stay
        assert "half_done" not in tables and "step_b" not in tables  # nothing of the rest
        assert await plain_query(blank_target, "SELECT x FROM step_a") == [(1,)]
    # Once the step is fixed, the next start migrates from where the last good step left it.
    fixed = "CREATE TABLE half_done (x INTEGER)"
    monkeypatch.setattr(MIGRATIONS_PATH[backend], (*steps, COUNTED_STEP, fixed, SECOND_STEP))
    store = await connect_store(blank_target)
    try:
        assert await store.schema_version() == good + 2  # type: ignore[attr-defined]
        assert await store_rows(store, "SELECT x FROM step_a") == [(1,)]
    finally:
        await store.close()
    assert {"half_done", "step_b"} <= await table_names(blank_target)


# --- actions ----------------------------------------------------------------------------------

EVENT = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})


async def make_match(store: Store) -> int:
    challenge = await store.insert_challenge(
        {
            "guild_id": 1,
            "channel_id": 2,
            "game": "nannon",
            "rules": "{}",
            "challenger_id": 3,
            "challenger_name": "a",
            "status": "open",
            "created_at": 0.0,
            "expires_at": 9.0,
        }
    )
    values = {
        "guild_id": 1,
        "channel_id": 2,
        "game": "nannon",
        "length": 3,
        "rules": "{}",
        "player0_id": 3,
        "player0_name": "a",
        "player1_id": 4,
        "player1_name": "b",
        "colour0": "white",
        "colour1": "black",
        "status": "active",
        "dice_commitment": "c",
        "dice_seed": bytes(32),
        "created_at": 0.0,
        "last_action_at": 0.0,
    }
    match_id = await store.create_match(challenge, values, [], {"kind": "nannon"})
    assert match_id is not None
    assert await store.create_match(challenge, values, [], {}) is None  # accepted once only
    return match_id


async def test_a_refused_statement_is_statement_failed_with_the_drivers_error(
    any_store: Store, backend: str
) -> None:
    with pytest.raises(StatementFailed, match=NO_SUCH_TABLE[backend]) as refused:
        await sql_rows(any_store, "SELECT * FROM no_such_table")
    assert isinstance(refused.value.__cause__, undefined_table_error(backend))
    assert await any_store.match_row(1) is None  # the store is still usable


async def test_commit_action_checks_the_version_and_writes_all_or_nothing(
    any_store: Store, backend: str
) -> None:
    store = any_store
    match_id = await make_match(store)
    await store.commit_action(match_id, 0, 0, [EVENT], {"n": 1}, {"score0": 1})
    with pytest.raises(VersionConflict):
        await store.commit_action(match_id, 0, 1, [EVENT], {"n": 2}, {"score0": 2})
    with pytest.raises(ConstraintViolation) as broken:  # a duplicate seq: all of it rolls back
        await store.commit_action(match_id, 1, 0, [EVENT], {"n": 3}, {"score0": 3})
    assert isinstance(broken.value.__cause__, integrity_error(backend))
    row = await store.match_row(match_id)
    assert row is not None and (row["version"], row["score0"]) == (1, 1)
    assert await store.snapshot(match_id) == {"n": 1}
    assert [e.seq for e in await store.events(match_id)] == [0]
    with pytest.raises(VersionConflict):  # a match that isn't there
        await store.commit_action(match_id + 100, 0, 0, [EVENT], {}, {})


async def test_events_keep_their_order_fields_and_payloads(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store)
    events = [
        NewEvent(1.5, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]}),
        NewEvent(2.25, None, "move", {"kind": "move", "move": "H/3", "nested": {"b": [1, 2]}}),
        NewEvent(3.0, 4, "roll", {"kind": "roll", "player": 1, "dice": [6]}),
    ]
    await store.commit_action(match_id, 0, 0, events[:2], {}, {})
    await store.commit_action(match_id, 1, 2, events[2:], {}, {})
    stored = await store.events(match_id)
    assert [(e.match_id, e.seq, e.at, e.actor, e.kind, e.payload) for e in stored] == [
        (match_id, seq, e.at, e.actor, e.kind, e.payload) for seq, e in enumerate(events)
    ]
    assert await store.event_count(match_id) == 3


async def test_concurrent_commits_on_one_version_apply_once(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store)
    results = await asyncio.gather(
        *(store.commit_action(match_id, 0, 0, [EVENT], {"n": n}, {"score0": n}) for n in range(10)),
        return_exceptions=True,
    )
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r is not None)
    winner = results.index(None)
    row = await store.match_row(match_id)
    assert row is not None and (row["version"], row["score0"]) == (1, winner)
    assert await store.snapshot(match_id) == {"n": winner}
    assert await store.event_count(match_id) == 1


async def test_a_failing_finisher_writes_nothing_and_a_closed_store_refuses(
    any_store: Store,
) -> None:
    store = any_store
    match_id = await make_match(store)

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        assert rows == {}  # the store read them inside the transaction: no row yet
        raise RuntimeError("rating failed")

    update = StatUpdate(1, "nannon", 3, "a", {"played": 1}, {})
    with pytest.raises(RuntimeError, match="rating failed"):
        await store.commit_action(
            match_id, 0, 0, [EVENT], {"n": 1}, {"score0": 1}, stat_updates=[update], finish=finish
        )
    row = await store.match_row(match_id)
    assert row is not None and row["version"] == 0
    assert await store.event_count(match_id) == 0
    assert await store.stats_row(1, "nannon", 3) is None
    assert await store.stats_row(1, "nannon", 4) is None
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreNotOpen, match="closed"):
        await store.match_row(match_id)


async def test_stat_upserts_create_rows_add_in_order_and_set_last(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store)
    games = [
        StatUpdate(1, "nannon", 4, "b", {"points_lost": 1, "nannons_against": 1}, {}),
        StatUpdate(1, "nannon", 3, "a", {"points_won": 1, "nannons_for": 1}, {}),
        StatUpdate(1, "nannon", 3, "a2", {"points_won": 2}, {}),  # same player twice
        StatUpdate(1, "nannon", 4, "b", {"points_lost": 2}, {}),
    ]

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        assert rows == {}  # the game stats are written after the finisher reads
        late = [
            StatUpdate(1, "nannon", 4, "b", {"played": 1, "lost": 1}, {"rating": 1490.0}),
            StatUpdate(1, "nannon", 3, "a2", {"played": 1, "won": 1}, {"rating": 1500.0}),
            StatUpdate(1, "nannon", 3, "a3", {}, {"rating": 1510.0}),  # the last set wins
        ]
        return late, {"status": "finished"}

    await store.commit_action(
        match_id, 0, 0, [EVENT], {}, {"score0": 1}, stat_updates=games, finish=finish
    )
    a = await store.stats_row(1, "nannon", 3)
    b = await store.stats_row(1, "nannon", 4)
    assert a is not None and b is not None
    assert (a["name"], a["points_won"], a["points_lost"], a["nannons_for"]) == ("a3", 3, 0, 1)
    assert (a["played"], a["won"], a["lost"], a["rating"], a["experience"]) == (1, 1, 0, 1510, 0)
    assert (b["points_lost"], b["nannons_against"], b["lost"], b["rating"]) == (3, 1, 1, 1490)
    row = await store.match_row(match_id)
    assert row is not None and (row["status"], row["version"]) == ("finished", 1)
    # A second action's stats add to the same rows.
    await store.commit_action(match_id, 1, 1, [], {}, {}, stat_updates=games[1:2])
    a = await store.stats_row(1, "nannon", 3)
    assert a is not None and (a["name"], a["points_won"], a["rating"]) == ("a", 4, 1510)


async def test_a_finisher_that_rates_nobody_leaves_no_ratings_row(any_store: Store) -> None:
    # PostgreSQL locks a row for each player, making an empty one if needed: it must not stay.
    store = any_store
    match_id = await make_match(store)
    seen: list[Mapping[int, Row]] = []

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        seen.append(dict(rows))
        return [StatUpdate(1, "nannon", 4, "b", {"played": 1}, {})], {"status": "finished"}

    await store.commit_action(match_id, 0, 0, [EVENT], {}, {}, finish=finish)
    assert seen == [{}]
    assert await store.stats_row(1, "nannon", 3) is None
    b = await store.stats_row(1, "nannon", 4)
    assert b is not None and (b["played"], b["rating"]) == (1, 1500)


async def test_a_cancelled_action_commits_or_rolls_back_whole(
    store_target: str | Path, any_store: Store
) -> None:
    # The caller is cancelled while its transaction runs (from inside it, by its finisher):
    # the transaction runs to its end anyway, and the caller just doesn't hear how it ended.
    store = any_store
    match_id = await make_match(store)
    loop = asyncio.get_running_loop()
    actions: list[asyncio.Task[None]] = []
    outcomes: dict[str, int] = {"finish": 0, "fail": 0}

    def finisher(kind: str) -> Finisher:
        def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
            # The finisher may run on another thread (SQLite's): cancel thread-safely.
            loop.call_soon_threadsafe(actions[-1].cancel)
            outcomes[kind] += 1
            if kind == "fail":
                raise RuntimeError("rating failed")
            return [], {"score0": 7}

        return finish

    for kind in ("fail", "finish"):
        actions.append(
            asyncio.create_task(
                store.commit_action(match_id, 0, 0, [EVENT], {"n": kind}, {}, finish=finisher(kind))
            )
        )
        with pytest.raises(asyncio.CancelledError):
            await actions[-1]
        if kind == "fail":
            await store.close()  # lets it end
            store = await connect_store(store_target)
            row = await store.match_row(match_id)
            assert row is not None and (row["version"], row["score0"]) == (0, 0)  # rolled back
            assert await store.event_count(match_id) == 0
    await store.close()  # lets the second one end
    assert outcomes == {"finish": 1, "fail": 1}
    store = await connect_store(store_target)
    try:
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["score0"]) == (1, 7)  # committed whole
        assert await store.snapshot(match_id) == {"n": "finish"}
        assert await store.event_count(match_id) == 1
    finally:
        await store.close()


async def test_close_lets_the_admitted_writes_finish(store_target: str | Path) -> None:
    store = await connect_store(store_target)
    match_id = await make_match(store)
    writes = [
        asyncio.create_task(store.commit_action(match_id, 0, 0, [EVENT], {"n": 1}, {})),
        asyncio.create_task(store.update_match(match_id, thread_id=5)),
        asyncio.create_task(store.save_guild_settings(1, {"x": 1}, 0.0)),
    ]
    await asyncio.sleep(0)  # all three admitted (under way on the store)
    await store.close()
    await asyncio.gather(*writes)
    store = await connect_store(store_target)
    try:
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["thread_id"]) == (1, 5)
        assert await store.guild_settings(1) == {"x": 1}
    finally:
        await store.close()


# --- challenges, settings, shouts -------------------------------------------------------------


async def test_challenges_move_out_of_open_once_and_expire_together(any_store: Store) -> None:
    store = any_store
    ids = []
    for n, expires in enumerate((5.0, 9.0, 3.0, 20.0)):
        ids.append(
            await store.insert_challenge(
                {
                    "guild_id": 1,
                    "channel_id": 2,
                    "game": "backgammon",
                    "rules": "{}",
                    "challenger_id": 10 + n,
                    "challenger_name": f"c{n}",
                    "opponent_id": 2**62 + n,  # Discord ids need 64 bits
                    "opponent_name": f"o{n}",
                    "status": "open",
                    "created_at": 0.0,
                    "expires_at": expires,
                }
            )
        )
    assert ids == sorted(ids) and len(set(ids)) == 4
    row = await store.challenge(ids[0])
    assert row is not None and (row["opponent_id"], row["status"]) == (2**62, "open")
    assert await store.challenge(ids[-1] + 100) is None
    await store.set_challenge_message(ids[0], 2**62 + 7)
    assert await store.set_challenge_status(ids[1], "withdrawn")
    assert not await store.set_challenge_status(ids[1], "declined")  # already out of open
    assert await store.set_challenge_status(ids[1], "open", only_if="withdrawn")
    expired = await store.expire_challenges(9.0)
    # As they were (still open), by id; the one expiring later stays open.
    assert [(r["id"], r["status"]) for r in expired] == [
        (ids[0], "open"),
        (ids[1], "open"),
        (ids[2], "open"),
    ]
    assert expired[0]["message_id"] == 2**62 + 7
    assert await store.expire_challenges(9.0) == []
    statuses = []
    for challenge_id in ids:
        row = await store.challenge(challenge_id)
        assert row is not None
        statuses.append(row["status"])
    assert statuses == ["expired", "expired", "expired", "open"]


async def test_guild_settings_are_replaced_whole(any_store: Store) -> None:
    store = any_store
    assert await store.guild_settings(2**62) == {}
    await store.save_guild_settings(2**62, {"a": 1, "channels": [2**62 + 1]}, 1.0)
    await store.save_guild_settings(2**62, {"b": "x"}, 2.0)
    assert await store.guild_settings(2**62) == {"b": "x"}
    assert await store.guild_settings(1) == {}


async def test_a_shout_counts_once_per_game(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store)
    await store.commit_action(
        match_id, 0, 0, [], {}, {}, stat_updates=[StatUpdate(1, "nannon", 3, "a", {}, {})]
    )
    assert await store.record_shout(match_id, 1, 3, 1, "nannon", 5.0)
    assert not await store.record_shout(match_id, 1, 3, 1, "nannon", 6.0)
    assert not await store.record_shout(match_id, 1, 4, 1, "nannon", 6.0)  # one per game
    assert await store.record_shout(match_id, 2, 4, 1, "nannon", 7.0)  # no row: nothing counted
    three = await store.stats_row(1, "nannon", 3)
    assert three is not None and three["nannons_shouted"] == 1
    assert await store.stats_row(1, "nannon", 4) is None


async def test_game_results_and_bookkeeping(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store)
    results = [
        {"game_number": 2, "winner": None, "kind": "draw", "points": 0.5, "cube": 1, "at": 2.0},
        {"game_number": 1, "winner": 1, "kind": "single", "points": 2, "cube": 2, "at": 1.0},
    ]
    await store.commit_action(match_id, 0, 0, [], {}, {}, game_results=results)
    rows = await store.game_results(match_id)
    assert [
        (r["game_number"], r["winner_seat"], r["kind"], r["points"], r["cube"]) for r in rows
    ] == [(1, 1, "single", 2, 2), (2, None, "draw", 0.5, 1)]
    await store.update_match(match_id, thread_id=2**62, board_message_id=2**62 + 1)
    await store.update_match(match_id, reminded_version=1)
    row = await store.match_row(match_id)
    assert row is not None
    assert (row["thread_id"], row["board_message_id"], row["reminded_version"]) == (
        2**62,
        2**62 + 1,
        1,
    )
    assert row["version"] == 1  # bookkeeping makes no new version
    assert bytes(row["dice_seed"]) == bytes(32)
    assert [r["id"] for r in await store.active_match_rows()] == [match_id]


async def test_no_statement_takes_a_column_name_outside_the_code(any_store: Store) -> None:
    """Column names a caller passes are looked up in fixed tuples (bot/storage/statements.py):
    any other name is refused before any SQL is built, and nothing is written."""
    store = any_store
    match_id = await make_match(store)
    await store.queue_analysis(match_id, 0, None, 1.0)
    before = await sql_rows(store, "SELECT * FROM matches")
    sneaky = "thread_id = 1, version"
    refusals: list[Callable[[], Awaitable[Any]]] = [
        lambda: store.update_match(match_id, version=7),  # a column, but not bookkeeping
        lambda: store.update_match(match_id, **{sneaky: 1}),
        lambda: store.update_analysis(match_id, match_id=match_id + 1),
        lambda: store.update_analysis(match_id, **{"status = 'done', error": "x"}),
        lambda: store.commit_action(match_id, 0, 0, [EVENT], {"n": 1}, {sneaky: 1}),
        lambda: store.insert_challenge({"guild_id": 1, "id) VALUES (1); --": 1}),
        lambda: store.commit_action(
            match_id,
            0,
            0,
            [EVENT],
            {"n": 1},
            {},
            stat_updates=[StatUpdate(1, "nannon", 3, "c", {"played": 1}, {"played": 99})],
        ),
    ]
    for refused in refusals:
        with pytest.raises(ValueError, match="not a column that can be written here"):
            await refused()
    assert await sql_rows(store, "SELECT * FROM matches") == before
    assert await store.event_count(match_id) == 0
    assert await store.stats_row(1, "nannon", 3) is None
    analysis = await store.analysis_row(match_id)
    assert analysis is not None and analysis["status"] == "queued"


async def test_the_writable_columns_are_the_schemas(any_store: Store) -> None:
    """The tuples of columns a caller may name are the tables' own (the key aside)."""

    async def table(name: str) -> list[str]:
        if isinstance(any_store, SqliteStore):
            return [r["name"] for r in await sql_rows(any_store, f"PRAGMA table_info({name})")]
        sql = (
            "SELECT column_name AS name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
        )
        return [r["name"] for r in await sql_rows(any_store, sql, (name,))]

    assert await table("challenges") == ["id", *statements.CHALLENGE_COLUMNS]
    assert await table("matches") == ["id", *statements.MATCH_COLUMNS]
    assert await table("analyses") == ["match_id", *statements.ANALYSIS_COLUMNS]
    assert set(statements.MATCH_BOOKKEEPING_COLUMNS) < set(statements.MATCH_COLUMNS)
    ratings = await table("ratings")
    assert ratings[:4] == ["guild_id", "game", "user_id", "name"]
    assert sorted(ratings[4:]) == sorted([*statements.RATING_SET_COLUMNS, *STAT_COLUMNS])
