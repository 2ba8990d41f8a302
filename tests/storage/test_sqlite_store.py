"""The SQLite store: pragmas, migrations, the version check of an action's transaction."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from bot.storage import (
    Finisher,
    NewEvent,
    Row,
    StatUpdate,
    StoreError,
    VersionConflict,
)
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteStore


@pytest.mark.asyncio
async def test_fresh_database_is_migrated_with_pragmas(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        assert await store.user_version() == len(MIGRATIONS)
        assert (await store._fetchone("PRAGMA journal_mode"))[0] == "wal"  # type: ignore[index]
        assert (await store._fetchone("PRAGMA foreign_keys"))[0] == 1  # type: ignore[index]
        assert (await store._fetchone("PRAGMA synchronous"))[0] == 1  # type: ignore[index]  # NORMAL
        assert (await store._fetchone("PRAGMA busy_timeout"))[0] > 0  # type: ignore[index]
    finally:
        await store.close()
    store = await SqliteStore.open(tmp_path / "t.db")  # reopening runs no step twice
    assert await store.user_version() == len(MIGRATIONS)
    await store.close()


@pytest.mark.asyncio
async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(StoreError, match="newer than this tablebot"):
        await SqliteStore.open(path)


def table_names(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


def plain_user_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


# Where the store reads its steps: a test adds some there.
MIGRATIONS_PATH = "bot.storage.migrations.MIGRATIONS"

# Steps that fail if run twice: CREATE TABLE without IF NOT EXISTS, and a row that counts runs.
COUNTED_STEP = "CREATE TABLE step_a (x INTEGER); INSERT INTO step_a (x) VALUES (1)"
SECOND_STEP = "CREATE TABLE step_b (x INTEGER); INSERT INTO step_b (x) VALUES (2)"


@pytest.mark.asyncio
async def test_a_migrated_database_runs_no_step_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.db"
    monkeypatch.setattr(MIGRATIONS_PATH, (*MIGRATIONS, COUNTED_STEP))
    store = await SqliteStore.open(path)
    await store.close()
    for _ in range(2):  # reopening at the same version: nothing runs (a rerun would raise)
        store = await SqliteStore.open(path)
        try:
            assert await store.user_version() == len(MIGRATIONS) + 1
            assert [tuple(r) for r in await store._fetchall("SELECT x FROM step_a")] == [(1,)]
        finally:
            await store.close()
    # A newer tablebot with one more step runs that step only.
    monkeypatch.setattr(MIGRATIONS_PATH, (*MIGRATIONS, COUNTED_STEP, SECOND_STEP))
    store = await SqliteStore.open(path)
    try:
        assert await store.user_version() == len(MIGRATIONS) + 2
        assert [tuple(r) for r in await store._fetchall("SELECT x FROM step_a")] == [(1,)]
        assert [tuple(r) for r in await store._fetchall("SELECT x FROM step_b")] == [(2,)]
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_failing_migration_step_rolls_back_and_the_store_refuses_to_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.db"
    good = len(MIGRATIONS) + 1  # the version after COUNTED_STEP
    # The broken step changes things before its failing statement: all of it must roll back.
    broken = (
        "CREATE TABLE half_done (x INTEGER); INSERT INTO step_a (x) VALUES (99); "
        "INSERT INTO no_such_table VALUES (1)"
    )
    monkeypatch.setattr(MIGRATIONS_PATH, (*MIGRATIONS, COUNTED_STEP, broken, SECOND_STEP))
    for _ in range(2):  # every attempt refuses the same way, and changes nothing more
        with pytest.raises(StoreError) as refused:
            await SqliteStore.open(path)
        message = str(refused.value)
        assert f"schema version {good + 1} failed" in message
        assert "no such table: no_such_table" in message
        assert f"left at version {good}" in message
        assert isinstance(refused.value.__cause__, sqlite3.OperationalError)
        assert plain_user_version(path) == good
        tables = table_names(path)
        assert {"matches", "events", "ratings", "step_a"} <= tables  # earlier steps stay
        assert "half_done" not in tables and "step_b" not in tables  # nothing of the rest
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT x FROM step_a").fetchall() == [(1,)]
    # Once the step is fixed, the next start migrates from where the last good step left it.
    fixed = "CREATE TABLE half_done (x INTEGER)"
    monkeypatch.setattr(MIGRATIONS_PATH, (*MIGRATIONS, COUNTED_STEP, fixed, SECOND_STEP))
    store = await SqliteStore.open(path)
    try:
        assert await store.user_version() == good + 2
        assert [tuple(r) for r in await store._fetchall("SELECT x FROM step_a")] == [(1,)]
    finally:
        await store.close()
    assert {"half_done", "step_b"} <= table_names(path)


async def make_match(store: SqliteStore) -> int:
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


@pytest.mark.asyncio
async def test_commit_action_checks_the_version_and_writes_all_or_nothing(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        await store.commit_action(match_id, 0, 0, [event], {"n": 1}, {"score0": 1})
        with pytest.raises(VersionConflict):
            await store.commit_action(match_id, 0, 1, [event], {"n": 2}, {"score0": 2})
        with pytest.raises(sqlite3.IntegrityError):  # a duplicate seq: the whole action rolls back
            await store.commit_action(match_id, 1, 0, [event], {"n": 3}, {"score0": 3})
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["score0"]) == (1, 1)
        assert await store.snapshot(match_id) == {"n": 1}
        assert [e.seq for e in await store.events(match_id)] == [0]
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_concurrent_commits_on_one_version_apply_once(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        results = await asyncio.gather(
            *(
                store.commit_action(match_id, 0, 0, [event], {"n": n}, {"score0": n})
                for n in range(10)
            ),
            return_exceptions=True,
        )
        assert sum(r is None for r in results) == 1
        assert all(isinstance(r, VersionConflict) for r in results if r is not None)
        winner = results.index(None)
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["score0"]) == (1, winner)
        assert await store.snapshot(match_id) == {"n": winner}
        assert await store.event_count(match_id) == 1
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_failing_finisher_writes_nothing_and_a_closed_store_refuses(
    tmp_path: Path,
) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    match_id = await make_match(store)
    event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        assert rows == {}  # the store read them inside the transaction: no row yet
        raise RuntimeError("rating failed")

    update = StatUpdate(1, "nannon", 3, "a", {"played": 1}, {})
    with pytest.raises(RuntimeError, match="rating failed"):
        await store.commit_action(
            match_id, 0, 0, [event], {"n": 1}, {"score0": 1}, stat_updates=[update], finish=finish
        )
    row = await store.match_row(match_id)
    assert row is not None and row["version"] == 0
    assert await store.event_count(match_id) == 0
    assert await store.stats_row(1, "nannon", 3) is None
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreError, match="closed"):
        await store.match_row(match_id)


@pytest.mark.asyncio
async def test_stat_upserts_create_rows_add_in_order_and_set_last(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        games = [
            StatUpdate(1, "nannon", 3, "a", {"points_won": 1, "nannons_for": 1}, {}),
            StatUpdate(1, "nannon", 4, "b", {"points_lost": 1, "nannons_against": 1}, {}),
            StatUpdate(1, "nannon", 3, "a2", {"points_won": 2}, {}),  # same player twice
            StatUpdate(1, "nannon", 4, "b", {"points_lost": 2}, {}),
        ]

        def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
            assert rows == {}  # the game stats are written after the finisher reads
            late = [
                StatUpdate(1, "nannon", 3, "a2", {"played": 1, "won": 1}, {"rating": 1510.0}),
                StatUpdate(1, "nannon", 4, "b", {"played": 1, "lost": 1}, {"rating": 1490.0}),
            ]
            return late, {"status": "finished"}

        await store.commit_action(
            match_id, 0, 0, [event], {}, {"score0": 1}, stat_updates=games, finish=finish
        )
        a = await store.stats_row(1, "nannon", 3)
        b = await store.stats_row(1, "nannon", 4)
        assert a is not None and b is not None
        assert (a["name"], a["points_won"], a["points_lost"], a["nannons_for"]) == ("a2", 3, 0, 1)
        assert (a["played"], a["won"], a["lost"], a["rating"], a["experience"]) == (
            1,
            1,
            0,
            1510,
            0,
        )
        assert (b["points_lost"], b["nannons_against"], b["lost"], b["rating"]) == (3, 1, 1, 1490)
        row = await store.match_row(match_id)
        assert row is not None and (row["status"], row["version"]) == ("finished", 1)
        # A second match's stats add to the same rows.
        await store.commit_action(match_id, 1, 1, [], {}, {}, stat_updates=games[:1])
        a = await store.stats_row(1, "nannon", 3)
        assert a is not None and (a["name"], a["points_won"], a["rating"]) == ("a", 4, 1510)
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_write_waits_for_the_transaction_in_flight_and_survives_its_rollback(
    tmp_path: Path,
) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        inside = threading.Event()
        release = threading.Event()

        def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
            inside.set()
            release.wait(10)  # the transaction stays open while the others queue
            raise RuntimeError("rating failed")

        action = asyncio.create_task(
            store.commit_action(match_id, 0, 0, [event], {"n": 1}, {}, finish=finish)
        )
        assert await asyncio.to_thread(inside.wait, 10)
        bookkeeping = asyncio.create_task(store.update_match(match_id, thread_id=99))
        settings = asyncio.create_task(store.save_guild_settings(1, {"x": 1}, 0.0))
        reading = asyncio.create_task(store.match_row(match_id))
        await asyncio.sleep(0.05)
        # Nothing runs inside the open transaction: not a write, and not a read either.
        assert not bookkeeping.done() and not settings.done() and not reading.done()
        release.set()
        with pytest.raises(RuntimeError):
            await action
        await bookkeeping
        await settings
        before = await reading
        # Queued after the bookkeeping write, it sees that, and nothing of the rolled-back one.
        assert before is not None and (before["version"], before["thread_id"]) == (0, 99)
        row = await store.match_row(match_id)
        assert row is not None and (row["thread_id"], row["version"]) == (99, 0)
        assert await store.guild_settings(1) == {"x": 1}
        assert await store.event_count(match_id) == 0
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_cancelled_action_commits_or_rolls_back_whole_and_the_store_goes_on(
    tmp_path: Path,
) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        inside = threading.Event()
        release = threading.Event()
        outcomes: dict[str, list[int]] = {"finish": [], "fail": []}

        def finisher(kind: str) -> Finisher:
            def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
                inside.set()
                release.wait(10)  # the caller is cancelled while its transaction runs
                outcomes[kind].append(1)
                if kind == "fail":
                    raise RuntimeError("rating failed")
                return [], {"score0": 7}

            return finish

        for kind, version in (("fail", 0), ("finish", 0)):
            inside.clear()
            release.clear()
            action = asyncio.create_task(
                store.commit_action(
                    match_id, version, 0, [event], {"n": kind}, {}, finish=finisher(kind)
                )
            )
            assert await asyncio.to_thread(inside.wait, 10)
            action.cancel()
            with pytest.raises(asyncio.CancelledError):
                await action
            release.set()
            row = await store.match_row(match_id)  # queued behind the transaction
            assert row is not None
            if kind == "fail":  # rolled back whole
                assert (row["version"], row["score0"]) == (0, 0)
                assert await store.event_count(match_id) == 0
            else:  # committed whole, though nobody waited for it
                assert (row["version"], row["score0"]) == (1, 7)
                assert await store.snapshot(match_id) == {"n": "finish"}
                assert await store.event_count(match_id) == 1
        assert outcomes == {"finish": [1], "fail": [1]}
        second = NewEvent(2.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [2]})
        await store.commit_action(match_id, 1, 1, [second], {"n": 2}, {"score0": 2})
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["score0"]) == (2, 2)
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_close_lets_the_admitted_writes_finish(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    match_id = await make_match(store)
    event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
    writes = [
        asyncio.create_task(store.commit_action(match_id, 0, 0, [event], {"n": 1}, {})),
        asyncio.create_task(store.update_match(match_id, thread_id=5)),
    ]
    await asyncio.sleep(0)  # both queued on the connection
    await store.close()
    await asyncio.gather(*writes)
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["thread_id"]) == (1, 5)
    finally:
        await store.close()


async def commit_rolls(store: SqliteStore, match_id: int, first_seq: int, count: int) -> None:
    for seq in range(first_seq, first_seq + count):
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [seq % 6 + 1]})
        await store.commit_action(match_id, seq, seq, [event], {"n": seq}, {})


@pytest.mark.asyncio
async def test_checkpoints_run_off_the_write_path_and_copy_the_whole_wal(tmp_path: Path) -> None:
    # The writer never checkpoints (that fsync stalled one action in a few hundred); the
    # background loop does, on its own connection.
    store = await SqliteStore.open(tmp_path / "t.db", checkpoint_interval=3600)
    try:
        assert (await store._fetchone("PRAGMA wal_autocheckpoint"))[0] == 0  # type: ignore[index]
        match_id = await make_match(store)
        await commit_rolls(store, match_id, 0, 50)
        result = await store.checkpoint()
        assert result.complete and result.wal_frames > 0
        # Fully copied, so the next write starts the log again from the top.
        await commit_rolls(store, match_id, 50, 1)
        again = await store.checkpoint()
        assert again.complete and 0 < again.wal_frames < result.wal_frames
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_the_background_loop_checkpoints_and_keeps_the_wal_small(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    wal = Path(f"{path}-wal")
    store = await SqliteStore.open(path, checkpoint_interval=0.01)
    try:
        match_id = await make_match(store)
        sizes = []
        for batch in range(20):
            await commit_rolls(store, match_id, batch * 25, 25)
            start = store.checkpoints_run
            async with asyncio.timeout(5):
                while store.checkpoints_run < start + 2:  # one full round after the batch
                    await asyncio.sleep(0.005)
            sizes.append(wal.stat().st_size)
        # Without checkpoints the log holds all 500 actions; with them, one batch at most.
        assert max(sizes) < 3 * sizes[0]
    finally:
        await store.close()
    assert not wal.exists()  # the last connection to close checkpointed and removed it
    with pytest.raises(ValueError, match="checkpoint_interval"):
        await SqliteStore.open(path, checkpoint_interval=0)
