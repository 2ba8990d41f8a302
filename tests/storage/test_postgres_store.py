"""PostgreSQL's own: several processes on one database, played here by several stores (each
with its own pool of connections). Matches ending at once rate one after the other (no lost
rating update, not even for two players' first games), concurrent stat upserts neither lose a
count nor deadlock, a version conflict is seen across processes, and processes starting at
once migrate once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest
import pytest_asyncio
from support.postgres_server import EmbeddedPostgres

from bot.storage import NewEvent, Row, StatUpdate, StoreUnavailable, VersionConflict
from bot.storage.postgres import PostgresStore, create_database, drop_database

pytestmark = [pytest.mark.asyncio, pytest.mark.postgres]

PROCESSES = 4
GUILD = 1


@pytest_asyncio.fixture
async def stores(postgres_database: Callable[..., str]) -> AsyncIterator[list[PostgresStore]]:
    """PROCESSES stores on one database, as PROCESSES bot processes would be."""
    url = postgres_database()
    opened = [await PostgresStore.open(url) for _ in range(PROCESSES)]
    try:
        yield opened
    finally:
        for store in opened:
            await store.close()


async def new_match(store: PostgresStore, players: tuple[int, int]) -> int:
    challenge = await store.insert_challenge(
        {
            "guild_id": GUILD,
            "channel_id": 2,
            "game": "nannon",
            "rules": "{}",
            "challenger_id": players[0],
            "challenger_name": f"p{players[0]}",
            "status": "open",
            "created_at": 0.0,
            "expires_at": 9.0,
        }
    )
    values: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": 2,
        "game": "nannon",
        "length": 1,
        "rules": "{}",
        "player0_id": players[0],
        "player0_name": f"p{players[0]}",
        "player1_id": players[1],
        "player1_name": f"p{players[1]}",
        "colour0": "white",
        "colour1": "black",
        "status": "active",
        "dice_commitment": "c",
        "dice_seed": bytes(32),
        "created_at": 0.0,
        "last_action_at": 0.0,
    }
    match_id = await store.create_match(challenge, values, [], {})
    assert match_id is not None
    return match_id


def plus_one(players: tuple[int, int], seen: list[float | None]) -> Any:
    """A finisher that adds 1 to both players' ratings, from the rows it is given, and notes
    what it saw of player ``players[0]``."""

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        seen.append(float(rows[players[0]]["rating"]) if players[0] in rows else None)
        updates = [
            StatUpdate(
                GUILD,
                "nannon",
                user,
                f"p{user}",
                {"played": 1},
                {"rating": (float(rows[user]["rating"]) if user in rows else 1500.0) + 1},
            )
            for user in players
        ]
        return updates, {"status": "finished"}

    return finish


async def test_matches_ending_at_once_in_several_processes_lose_no_rating_update(
    stores: list[PostgresStore],
) -> None:
    # Player 1 plays everyone, and has no ratings row yet: the first finishers race to make it.
    count = 24
    pairs = [((1, 100 + i) if i % 2 else (100 + i, 1)) for i in range(count)]
    matches = [await new_match(stores[i % PROCESSES], pair) for i, pair in enumerate(pairs)]
    seen: list[float | None] = []
    event = NewEvent(1.0, None, "roll", {"kind": "roll"})

    async def end(i: int) -> None:
        shared_first = (1, pairs[i][1]) if pairs[i][0] == 1 else (1, pairs[i][0])
        await stores[i % PROCESSES].commit_action(
            matches[i], 0, 0, [event], {}, {}, finish=plus_one(shared_first, seen)
        )

    await asyncio.gather(*(end(i) for i in range(count)))
    one = await stores[0].stats_row(GUILD, "nannon", 1)
    assert one is not None and (one["rating"], one["played"]) == (1500 + count, count)
    # One after the other: each finisher saw the rating the one before it wrote.
    assert sorted(seen, key=lambda r: -1 if r is None else r) == [
        None,
        *(1501.0 + n for n in range(count - 1)),
    ]
    for i in range(count):
        other = await stores[0].stats_row(GUILD, "nannon", 100 + i)
        assert other is not None and (other["rating"], other["played"]) == (1501, 1)


async def test_concurrent_stat_upserts_in_either_seat_order_neither_lose_nor_deadlock(
    stores: list[PostgresStore],
) -> None:
    # Matches between players 1 and 2, with the seats both ways round: each action's stat
    # updates come in seat order, so without one lock order two actions would deadlock.
    count = 16
    pairs = [((1, 2) if i % 2 else (2, 1)) for i in range(count)]
    matches = [await new_match(stores[i % PROCESSES], pair) for i, pair in enumerate(pairs)]

    async def play(i: int) -> None:
        store = stores[i % PROCESSES]
        for version in range(5):
            updates = [
                StatUpdate(GUILD, "nannon", user, f"p{user}", {"points_won": 1, "won": 1}, {})
                for user in pairs[i]
            ]
            await store.commit_action(
                matches[i], version, version, [], {}, {}, stat_updates=updates
            )

    await asyncio.gather(*(play(i) for i in range(count)))
    for user in (1, 2):
        row = await stores[0].stats_row(GUILD, "nannon", user)
        assert row is not None and (row["points_won"], row["won"]) == (count * 5, count * 5)


async def test_a_version_conflict_is_seen_across_processes(stores: list[PostgresStore]) -> None:
    match_id = await new_match(stores[0], (1, 2))
    event = NewEvent(1.0, 1, "roll", {"kind": "roll"})
    results = await asyncio.gather(
        *(
            store.commit_action(match_id, 0, 0, [event], {"by": n}, {"score0": n})
            for n, store in enumerate(stores)
        ),
        return_exceptions=True,
    )
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r is not None)
    winner = results.index(None)
    for store in stores:  # every process reads the one winner
        assert await store.snapshot(match_id) == {"by": winner}
        row = await store.match_row(match_id)
        assert row is not None and (row["version"], row["score0"]) == (1, winner)


async def test_processes_starting_at_once_migrate_once(
    postgres_database: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.storage import postgres_migrations

    counted = "CREATE TABLE step_a (x integer); INSERT INTO step_a (x) VALUES (1)"
    monkeypatch.setattr(
        "bot.storage.postgres_migrations.MIGRATIONS", (*postgres_migrations.MIGRATIONS, counted)
    )
    url = postgres_database(migrated=False)
    opened = await asyncio.gather(*(PostgresStore.open(url) for _ in range(PROCESSES)))
    try:
        for store in opened:
            assert await store.schema_version() == len(postgres_migrations.MIGRATIONS)
        assert [tuple(r) for r in await opened[0].raw_rows("SELECT x FROM step_a")] == [(1,)]
    finally:
        for store in opened:
            await store.close()


async def test_a_scratch_database_is_made_on_the_server_and_dropped(
    postgres_server: EmbeddedPostgres,
) -> None:
    server_url = postgres_server.url("postgres")
    url = await create_database(server_url, "scratch_one")
    assert url == postgres_server.url("scratch_one")
    store = await PostgresStore.open(url)  # usable: a new, empty database, migrated
    try:
        assert await store.match_row(1) is None
        [row] = await store.raw_rows("SELECT current_database() AS name")
        assert row["name"] == "scratch_one"
    finally:
        await store.close()
    await drop_database(server_url, "scratch_one")
    await drop_database(server_url, "scratch_one")  # gone already: nothing to do
    with pytest.raises(StoreUnavailable, match="scratch_one"):
        await PostgresStore.open(url)
    with pytest.raises(ValueError, match="letters, digits and _"):
        await create_database(server_url, 'x"; DROP DATABASE postgres; --')
