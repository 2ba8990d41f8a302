"""Every store, SQLite and PostgreSQL alike: a match's robot seat and level, the records against
each robot level (added in the action's transaction, rows made as needed, read by level), and the
length leaderboard, which counts a robot match only when it was rated."""

from __future__ import annotations

import json

import pytest

from bot.storage import NewEvent, RobotRecordUpdate, StatUpdate, Store

pytestmark = pytest.mark.asyncio

EVENT = NewEvent(1.0, 3, "roll", {"kind": "roll", "player": 0, "dice": [3]})
HUMAN, ROBOT = 3, 99


async def make_match(store: Store, *, robot: bool, length: int = 3) -> int:
    challenge = await store.insert_challenge(
        {
            "guild_id": 1,
            "channel_id": 2,
            "game": "nannon",
            "rules": "{}",
            "challenger_id": HUMAN,
            "challenger_name": "a",
            "opponent_id": ROBOT if robot else 4,
            "opponent_name": "tablebot" if robot else "b",
            "status": "open",
            "created_at": 0.0,
            "expires_at": 9.0,
        }
    )
    values = {
        "guild_id": 1,
        "channel_id": 2,
        "game": "nannon",
        "length": length,
        "rules": "{}",
        "player0_id": HUMAN,
        "player0_name": "a",
        "player1_id": ROBOT if robot else 4,
        "player1_name": "tablebot" if robot else "b",
        "colour0": "white",
        "colour1": "black",
        "status": "active",
        "dice_commitment": "c",
        "dice_seed": bytes(32),
        "created_at": 0.0,
        "last_action_at": 0.0,
    }
    if robot:
        values |= {"robot_seat": 1, "robot_level": 4}
    match_id = await store.create_match(challenge, values, [], {"kind": "nannon"})
    assert match_id is not None
    return match_id


async def test_a_match_keeps_its_robot_seat_and_level(any_store: Store) -> None:
    robot = await make_match(any_store, robot=True)
    human = await make_match(any_store, robot=False)
    row = await any_store.match_row(robot)
    assert row is not None and (row["robot_seat"], row["robot_level"]) == (1, 4)
    row = await any_store.match_row(human)
    assert row is not None and (row["robot_seat"], row["robot_level"]) == (None, None)


async def test_records_against_the_robot_add_per_level(any_store: Store) -> None:
    store = any_store
    match_id = await make_match(store, robot=True)
    won = {"played": 1, "won": 1, "points_won": 3, "points_lost": 1}
    await store.commit_action(
        match_id,
        0,
        0,
        [EVENT],
        {},
        {"status": "finished"},
        robot_records=[
            RobotRecordUpdate(1, "nannon", HUMAN, "a", 4, won),
            RobotRecordUpdate(1, "nannon", HUMAN, "a", 2, {"played": 1, "lost": 1}),
        ],
    )
    # A second match at level 4 adds to the same row; the name is the latest.
    other = await make_match(store, robot=True)
    lost = {"played": 1, "lost": 1, "points_won": 2, "points_lost": 3}
    await store.commit_action(
        other,
        0,
        0,
        [EVENT],
        {},
        {"status": "finished"},
        robot_records=[RobotRecordUpdate(1, "nannon", HUMAN, "a2", 4, lost)],
    )
    rows = await store.robot_records(1, "nannon", HUMAN)
    got = [
        (r["level"], r["name"], r["played"], r["won"], r["lost"], r["drawn"], r["points_won"])
        for r in rows
    ]
    assert got == [(2, "a", 1, 0, 1, 0, 0), (4, "a2", 2, 1, 1, 0, 5)]
    assert float(rows[1]["points_lost"]) == 4
    assert await store.robot_records(1, "checkers", HUMAN) == []
    assert await store.robot_records(1, "nannon", ROBOT) == []
    # Nothing went to the ratings: the store writes what it is given, no more.
    assert await store.stats_row(1, "nannon", HUMAN) is None


async def test_the_length_board_counts_robot_matches_only_when_rated(any_store: Store) -> None:
    store = any_store
    finished = {"status": "finished", "winner_seat": 0, "score0": 3}
    human = await make_match(store, robot=False)
    unrated = await make_match(store, robot=True)
    rated = await make_match(store, robot=True)
    for match_id in (human, unrated, rated):
        changes = dict(finished)
        if match_id != unrated:  # an unrated robot match records no rating changes
            changes["rating_changes"] = json.dumps([])
        # The board joins the ratings rows: the human's exists.
        stats = [StatUpdate(1, "nannon", HUMAN, "a", {"played": 1}, {})]
        await store.commit_action(match_id, 0, 0, [EVENT], {}, changes, stat_updates=stats)
    rows = await store.length_board(1, "nannon", 3, 10)
    assert [(r["user_id"], r["played"], r["won"]) for r in rows] == [(HUMAN, 2, 2)]
