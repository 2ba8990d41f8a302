"""Every store, for sharded bot processes on one database: each process reads and expires only
its own guilds' rows (``GuildShards``, ``(guild_id >> 22) % count``), and the writes that the
reminder loop makes are compare-and-sets, so of several processes (stores) asking at once
exactly one wins."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_store_api import add_match

from bot.storage import GuildShards, Store, connect_store, shard_of

pytestmark = pytest.mark.asyncio


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A Discord-sized guild id on shard ``shard`` of ``count``."""
    guild = ((1_000_000_000 * count + shard + n * count) << 22) | 4242
    assert shard_of(guild, count) == shard
    return guild


async def add_challenge(store: Store, guild: int, expires: float) -> int:
    return await store.insert_challenge(
        {
            "guild_id": guild,
            "channel_id": 10,
            "game": "nannon",
            "rules": "{}",
            "challenger_id": 3,
            "challenger_name": "c",
            "status": "open",
            "created_at": 0.0,
            "expires_at": expires,
        }
    )


async def test_guild_shards() -> None:
    assert GuildShards.of(4, range(4)) is None  # every shard: no filter
    shards = GuildShards.of(4, [3, 1])
    assert shards == GuildShards(4, frozenset({1, 3}))
    assert shards.sql() == "((guild_id >> 22) % 4) IN (1, 3)"
    assert [shards.owns(guild_on(s, 4)) for s in range(4)] == [False, True, False, True]
    for bad in ((0, [0]), (2, []), (2, [2]), (2, [-1])):
        with pytest.raises(ValueError):
            GuildShards(bad[0], frozenset(bad[1]))


async def test_each_process_reads_and_expires_its_own_guilds(any_store: Store) -> None:
    store = any_store
    guilds = [guild_on(s, 3, n) for n in range(2) for s in range(3)]  # two per shard
    matches = {g: await add_match(store, (3, 4), guild=g) for g in guilds}
    challenges = {g: await add_challenge(store, g, expires=5.0) for g in guilds}
    mine = GuildShards(3, frozenset({0, 2}))
    owned = [g for g in guilds if mine.owns(g)]
    assert len(owned) == 4
    rows = await store.active_match_rows(mine)
    assert [r["id"] for r in rows] == sorted(matches[g] for g in owned)
    assert len(await store.active_match_rows()) == 6
    expired = await store.expire_challenges(9.0, mine)
    assert sorted(r["id"] for r in expired) == sorted(challenges[g] for g in owned)
    # The other process's guilds: still open, until it expires them.
    others = GuildShards(3, frozenset({1}))
    assert await store.expire_challenges(9.0, mine) == []
    assert len(await store.expire_challenges(9.0, others)) == 2
    assert await store.expire_challenges(9.0) == []


async def test_a_reminder_is_claimed_once_per_version(any_store: Store) -> None:
    store = any_store
    match_id = await add_match(store, (3, 4))
    assert not await store.claim_reminder(match_id, 5)  # the match is not at version 5
    assert await store.claim_reminder(match_id, 0)
    assert not await store.claim_reminder(match_id, 0)  # claimed already
    await store.commit_action(match_id, 0, 0, [], {}, {})  # version 1: a new turn
    assert not await store.claim_reminder(match_id, 0)  # moved on
    assert await store.claim_reminder(match_id, 1)
    row = await store.match_row(match_id)
    assert row is not None and (row["version"], row["reminded_version"]) == (1, 1)


async def test_several_processes_claim_and_expire_exactly_once(store_target: str | Path) -> None:
    """Four stores on one database (four processes) run the reminder loop's writes at once:
    each reminder is claimed by one, each challenge expired by one."""
    stores = [await connect_store(store_target) for _ in range(4)]
    try:
        first = stores[0]
        matches = [await add_match(first, (3, 4), guild=guild_on(0, 1, n)) for n in range(10)]
        challenges = [await add_challenge(first, guild_on(0, 1, n), 1.0) for n in range(10)]

        async def loop_pass(store: Store) -> tuple[list[int], list[int]]:
            claimed = [m for m in matches if await store.claim_reminder(m, 0)]
            expired = [row["id"] for row in await store.expire_challenges(2.0)]
            return claimed, expired

        results = await asyncio.gather(*(loop_pass(store) for store in stores))
        claimed = [m for got, _ in results for m in got]
        expired = [c for _, got in results for c in got]
        assert sorted(claimed) == matches
        assert sorted(expired) == challenges
    finally:
        for store in stores:
            await store.close()
