"""Every store, SQLite and PostgreSQL alike: a match's analysis is queued once (again only after
it failed), read back, moved through its states, picked up while queued or running (in the
process's own guilds only), and averaged per player for /stats."""

from __future__ import annotations

import pytest

from bot.storage import GuildShards, Store
from tests.storage.test_robot_records import HUMAN, ROBOT, make_match

pytestmark = pytest.mark.asyncio


async def test_an_analysis_is_queued_once_and_again_only_after_failing(any_store: Store) -> None:
    match = await make_match(any_store, robot=True)
    assert await any_store.analysis_row(match) is None
    assert await any_store.queue_analysis(match, 0, HUMAN, 10.0)
    assert not await any_store.queue_analysis(match, 0, HUMAN, 11.0)
    row = await any_store.analysis_row(match)
    assert row is not None
    assert (row["status"], row["ply"], row["requester_id"], row["requested_at"]) == (
        "queued",
        0,
        HUMAN,
        10.0,
    )
    assert (row["games_done"], row["games_total"], row["result"]) == (0, None, None)
    await any_store.update_analysis(match, status="running", games_total=3, games_done=1)
    assert not await any_store.queue_analysis(match, 0, None, 12.0)
    await any_store.update_analysis(match, status="failed", error="boom", message_id=77)
    assert await any_store.queue_analysis(match, 2, None, 13.0)
    row = await any_store.analysis_row(match)
    assert row is not None
    assert (row["status"], row["ply"], row["requester_id"], row["requested_at"]) == (
        "queued",
        2,
        None,
        13.0,
    )
    assert (row["games_done"], row["games_total"], row["error"], row["message_id"]) == (
        0,
        None,
        None,
        None,
    )


async def test_pending_analyses_are_the_queued_and_running_ones_oldest_first(
    any_store: Store,
) -> None:
    first, second, third = [await make_match(any_store, robot=True) for _ in range(3)]
    await any_store.queue_analysis(third, 0, None, 5.0)
    await any_store.queue_analysis(first, 0, None, 7.0)
    await any_store.queue_analysis(second, 0, None, 6.0)
    await any_store.update_analysis(second, status="running")
    await any_store.update_analysis(third, status="done")
    assert [row["match_id"] for row in await any_store.pending_analyses()] == [second, first]
    # Guild 1 is on shard 0 of 2: shard 1's process sees none of them.
    assert await any_store.pending_analyses(GuildShards(2, frozenset({1}))) == []
    assert len(await any_store.pending_analyses(GuildShards(2, frozenset({0})))) == 2


async def test_averages_count_the_players_finished_analyses_from_their_seat(
    any_store: Store,
) -> None:
    empty = await any_store.analysis_averages(1, "nannon", HUMAN)
    assert (empty["analysed"], empty["error_rate"], empty["pr"]) == (0, None, None)
    one, two, three = [await make_match(any_store, robot=True) for _ in range(3)]
    for match in (one, two, three):
        await any_store.queue_analysis(match, 0, None, 1.0)
    await any_store.update_analysis(
        one, status="done", error_rate0=10.0, error_rate1=2.0, pr0=5.0, pr1=1.0
    )
    await any_store.update_analysis(
        two, status="done", error_rate0=20.0, error_rate1=4.0, pr0=None, pr1=None
    )
    await any_store.update_analysis(three, status="running", error_rate0=99.0)
    human = await any_store.analysis_averages(1, "nannon", HUMAN)
    assert (human["analysed"], human["error_rate"], human["pr"]) == (2, 15.0, 5.0)
    robot = await any_store.analysis_averages(1, "nannon", ROBOT)
    assert (robot["analysed"], robot["error_rate"]) == (2, 3.0)
    assert (await any_store.analysis_averages(1, "checkers", HUMAN))["analysed"] == 0
    assert (await any_store.analysis_averages(2, "nannon", HUMAN))["analysed"] == 0
