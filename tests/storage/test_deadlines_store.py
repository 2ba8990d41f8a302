"""Issue 34, one clock for every deadline: the ``deadlines`` table (migration step 9) on every
store. A deadline is armed per (kind, key), claimed by a compare-and-set with a lease, fired
once; several stores on one database (several processes) racing fire each deadline once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.storage import Store, connect_store

pytestmark = pytest.mark.asyncio


async def test_issue_34_a_deadline_is_due_at_its_time_not_before(any_store: Store) -> None:
    store = any_store
    await store.arm_deadline("challenge.expiry", "7", 10.0)
    assert await store.next_deadline_at() == 10.0
    assert await store.due_deadlines(9.0) == []
    [row] = await store.due_deadlines(10.0)
    assert (row["kind"], row["key"], row["due_at"]) == ("challenge.expiry", "7", 10.0)


async def test_issue_34_a_claim_is_a_compare_and_set_with_a_lease(any_store: Store) -> None:
    store = any_store
    await store.arm_deadline("reminder", "3", 10.0)
    [row] = await store.due_deadlines(10.0)
    assert not await store.claim_deadline(row["id"], "a", 9.0, 300.0)  # not due yet
    assert await store.claim_deadline(row["id"], "a", 10.0, 300.0)
    assert not await store.claim_deadline(row["id"], "b", 11.0, 300.0)  # a holds it
    assert await store.due_deadlines(11.0) == []
    # Held, it is next only when its lease runs out (a runner waits, it doesn't spin on it).
    assert await store.next_deadline_at() == 310.0
    # a died: after the lease, b may take it; a's late firing then loses.
    assert [r["id"] for r in await store.due_deadlines(310.0)] == [row["id"]]
    assert await store.claim_deadline(row["id"], "b", 310.0, 300.0)
    assert not await store.fire_deadline(row["id"], "a", 311.0)
    assert await store.fire_deadline(row["id"], "b", 311.0)
    assert not await store.claim_deadline(row["id"], "c", 999.0, 300.0)  # fired: done
    assert await store.next_deadline_at() is None
    fired = await store.deadline("reminder", "3")
    assert fired is not None and (fired["claimed_by"], fired["fired_at"]) == ("b", 311.0)


async def test_issue_34_rearming_and_cancelling(any_store: Store) -> None:
    store = any_store
    await store.arm_deadline("reminder", "3", 10.0)
    [row] = await store.due_deadlines(10.0)
    assert await store.claim_deadline(row["id"], "a", 10.0, 300.0)
    assert await store.fire_deadline(row["id"], "a", 10.0)
    await store.arm_deadline("reminder", "3", 10.0)  # the same second again (a restart)
    kept = await store.deadline("reminder", "3")
    assert kept is not None and kept["fired_at"] == 10.0  # fired once stays fired
    await store.arm_deadline("reminder", "3", 50.0)  # the next turn: armed again
    again = await store.deadline("reminder", "3")
    assert again is not None and again["fired_at"] is None and again["due_at"] == 50.0
    assert await store.cancel_deadline("reminder", "3")
    assert not await store.cancel_deadline("reminder", "3")
    assert await store.deadline("reminder", "3") is None


async def test_issue_34_several_processes_fire_each_deadline_once(
    store_target: str | Path,
) -> None:
    stores = [await connect_store(store_target) for _ in range(4)]
    try:
        for n in range(20):
            await stores[0].arm_deadline("challenge.expiry", str(n), float(n))

        async def one_pass(store: Store, owner: str) -> list[str]:
            won = []
            for row in await store.due_deadlines(100.0):
                if await store.claim_deadline(row["id"], owner, 100.0, 300.0):
                    assert await store.fire_deadline(row["id"], owner, 100.0)
                    won.append(row["key"])
            return won

        results = await asyncio.gather(*(one_pass(s, f"p{i}") for i, s in enumerate(stores)))
        fired = [key for got in results for key in got]
        assert sorted(fired, key=int) == [str(n) for n in range(20)]
    finally:
        for store in stores:
            await store.close()


async def test_issue_34_a_challenge_arms_its_expiry_in_its_own_transaction(
    any_store: Store,
) -> None:
    challenge_id = await any_store.insert_challenge(
        {
            "guild_id": 1,
            "channel_id": 10,
            "game": "nannon",
            "rules": "{}",
            "challenger_id": 3,
            "challenger_name": "c",
            "status": "open",
            "created_at": 0.0,
            "expires_at": 600.0,
        }
    )
    row = await any_store.deadline("challenge.expiry", str(challenge_id))
    assert row is not None and (row["due_at"], row["fired_at"]) == (600.0, None)
    assert [r["key"] for r in await any_store.due_deadlines(600.0)] == [str(challenge_id)]
