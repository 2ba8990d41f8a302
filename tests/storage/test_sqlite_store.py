"""The SQLite store's own behaviour: its pragmas, its one queue (nothing lands inside a
transaction, and a cancelled action still ends whole, in order), and the WAL checkpoints. What
every store does is in test_store_api.py and test_store_transactions.py, on both backends."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from bot.storage import (
    Finisher,
    NewEvent,
    Row,
    StatUpdate,
)
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteStore


@pytest.mark.asyncio
async def test_fresh_database_is_migrated_with_pragmas(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        assert await store.user_version() == len(MIGRATIONS)
        assert (await store.raw_rows("PRAGMA journal_mode"))[0][0] == "wal"
        assert (await store.raw_rows("PRAGMA foreign_keys"))[0][0] == 1
        assert (await store.raw_rows("PRAGMA synchronous"))[0][0] == 1  # NORMAL
        assert (await store.raw_rows("PRAGMA busy_timeout"))[0][0] > 0
    finally:
        await store.close()
    store = await SqliteStore.open(tmp_path / "t.db")  # reopening runs no step twice
    assert await store.user_version() == len(MIGRATIONS)
    await store.close()


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
        for _ in range(20):
            await asyncio.sleep(0)  # let the three reach the connection's queue
        # Nothing runs inside the open transaction: not a write, and not a read either (the
        # values read below prove it too: a write inside would have been rolled back with it,
        # and a read inside would have seen its uncommitted version 1).
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
async def test_a_members_reads_run_beside_the_transaction_in_flight(tmp_path: Path) -> None:
    """Issue 38: a member's read-only queries (/history, /stats, boards, /games) run on the
    reader connection while an action's transaction is open, and see only what was committed;
    the test above shows every other read still waits its turn behind the writes."""
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        match_id = await make_match(store)
        event = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
        inside = threading.Event()
        release = threading.Event()

        def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
            inside.set()
            release.wait(10)  # the transaction stays open while the member reads
            return [], {"score0": 1}

        action = asyncio.create_task(
            store.commit_action(match_id, 0, 0, [event], {"n": 1}, {}, finish=finish)
        )
        assert await asyncio.to_thread(inside.wait, 10)
        history = await store.history_rows(1, 3, 10)
        assert [(row["id"], row["version"], row["score0"]) for row in history] == [(match_id, 0, 0)]
        assert await store.active_match_ids(1, 4) == [match_id]
        assert await store.rating_board(1, "nannon", 10) == []
        assert await store.board_place(1, "nannon", None, 3) == (None, 0)
        assert await store.board_place(1, "nannon", 1, 3) == (None, 0)
        assert await store.robot_records(1, "nannon", 3) == []
        assert (await store.analysis_averages(1, "nannon", 3))["analysed"] == 0
        assert await store.tournament_record(1, 3) == (0, 0)
        assert await store.puzzle_board(1, 10) == []
        assert await store.puzzle_place(1, 3) == (None, 0)
        assert not action.done()  # all answered while the transaction was still open
        release.set()
        await action
        assert (await store.history_rows(1, 3, 10))[0]["version"] == 1
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
        assert (await store.raw_rows("PRAGMA wal_autocheckpoint"))[0][0] == 0
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
            async with asyncio.timeout(5):  # one full round after the batch
                await store.wait_checkpoints(store.checkpoints_run + 2)
            sizes.append(wal.stat().st_size)
        # Without checkpoints the log holds all 500 actions; with them, one batch at most.
        assert max(sizes) < 3 * sizes[0]
    finally:
        await store.close()
    assert not wal.exists()  # the last connection to close checkpointed and removed it
    with pytest.raises(ValueError, match="checkpoint_interval"):
        await SqliteStore.open(path, checkpoint_interval=0)


@pytest.mark.asyncio
async def test_past_the_wal_limit_a_round_empties_the_log(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    wal = Path(f"{path}-wal")
    # No background round meanwhile: the test runs them.
    store = await SqliteStore.open(
        path, checkpoint_interval=3600, wal_limit=256 * 1024, wal_watch_interval=3600
    )
    try:
        match_id = await make_match(store)
        # The migrations' pages out of the log first (the schema alone nears the limit).
        assert (await store.checkpoint("TRUNCATE")).wal_frames == 0
        await commit_rolls(store, match_id, 0, 5)
        small = await store.checkpoint_round()  # under the limit: PASSIVE only
        assert small.complete and 0 < store.wal_bytes(small) <= 256 * 1024
        assert store.wal_resets == 0 and wal.stat().st_size > 0
        await commit_rolls(store, match_id, 5, 100)
        big = await store.checkpoint()
        assert store.wal_bytes(big) > 256 * 1024
        emptied = await store.checkpoint_round()
        assert emptied.complete and emptied.wal_frames == 0
        assert store.wal_resets == 1 and wal.stat().st_size == 0
        await commit_rolls(store, match_id, 105, 1)  # and the store goes on
        assert await store.event_count(match_id) == 106
    finally:
        await store.close()
    with pytest.raises(ValueError, match="wal_limit"):
        SqliteStore(path, wal_limit=0)
    with pytest.raises(ValueError, match="wal_watch_interval"):
        SqliteStore(path, wal_watch_interval=0)
    with pytest.raises(ValueError, match="checkpoint mode"):
        await store.checkpoint("SOMETIMES")


def test_a_round_is_due_every_interval_and_at_once_past_the_wal_limit(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "t.db", checkpoint_interval=1.0, wal_limit=1000)
    assert not store.checkpoint_due(0.5, 1000)
    assert store.checkpoint_due(1.0, 0)
    assert store.checkpoint_due(0.1, 1001)  # the file past the limit: no waiting for the second


@pytest.mark.asyncio
async def test_a_writer_that_never_pauses_still_gets_its_log_emptied(tmp_path: Path) -> None:
    # PASSIVE copies what it can while the writer keeps appending, so it never catches up and
    # the log never starts again from the top; past the limit the round empties it anyway,
    # holding the writer off for a moment: every write still lands, in order.
    path = tmp_path / "t.db"
    wal = Path(f"{path}-wal")
    store = await SqliteStore.open(
        path, checkpoint_interval=3600, wal_limit=128 * 1024, wal_watch_interval=3600
    )
    try:
        match_id = await make_match(store)
        await commit_rolls(store, match_id, 0, 300)  # never checkpointed: all in the log
        before = wal.stat().st_size
        assert before > 128 * 1024
        stop = asyncio.Event()
        written = [300]

        async def writer() -> None:
            while not stop.is_set():
                await commit_rolls(store, match_id, written[0], 1)
                written[0] += 1

        task = asyncio.create_task(writer())
        try:
            rounds = [await store.checkpoint_round() for _ in range(3)]
        finally:
            stop.set()
            await task
        assert store.wal_resets >= 1
        assert any(r.wal_frames == 0 for r in rounds)
        assert await store.event_count(match_id) == written[0]
        assert wal.stat().st_size < before  # emptied, then started again from the top
    finally:
        await store.close()
