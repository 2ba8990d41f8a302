"""The event bus and the one entry point, without Discord: handle(command) answers after the
commit and publishes the command's events to the subscribers, in order per match; a failing
subscriber is logged and loses nothing; the analysis queue hears of a match's end from the bus."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.service import (
    HANDLERS,
    AcceptChallenge,
    EventBus,
    GetSettings,
    MatchService,
    MatchUpdated,
    NewChallenge,
    PlayMove,
    RobotMatch,
    RobotTurnWaiting,
    RollDice,
    ShowBoardAndWakeRobot,
    UpdateSettings,
    ViewMatch,
)
from bot.service.commands import Command, LeaveMatch
from bot.storage import Store
from engines.base import Phase
from engines.dice import FairDice

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB, ROBOT = 1, 2, 10, 20, 99


async def test_subscribers_hear_in_order_and_a_failure_stops_no_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    heard: list[tuple[str, object]] = []

    def broken(event: object) -> None:
        raise RuntimeError("subscriber bug")

    async def slow(event: object) -> None:
        await asyncio.sleep(0)
        heard.append(("slow", event))

    bus.subscribe(int, broken)
    bus.subscribe(object, slow)
    unsubscribe = bus.subscribe(int, lambda e: heard.append(("plain", e)))
    await bus.publish([1, "two"], key=7)
    assert heard == [("slow", 1), ("plain", 1), ("slow", "two")]
    assert "subscriber bug" in caplog.text and caplog.records[0].levelno == logging.ERROR
    unsubscribe()
    heard.clear()
    await bus.publish([3])
    assert heard == [("slow", 3)]


async def test_one_keys_deliveries_follow_their_reserved_order() -> None:
    bus = EventBus()
    heard: list[int] = []
    bus.subscribe(int, heard.append)
    first, second = bus.reserve("match"), bus.reserve("match")
    later = asyncio.ensure_future(bus.publish([2], slot=second))
    await asyncio.sleep(0)
    assert heard == []  # the second waits for the first
    await bus.publish([1], slot=first)
    await later
    assert heard == [1, 2]


async def test_a_cancelled_caller_does_not_cut_the_delivery_short() -> None:
    bus = EventBus()
    release = asyncio.Event()
    heard: list[int] = []

    async def waits(event: int) -> None:
        await release.wait()
        heard.append(event)

    bus.subscribe(int, waits)
    caller = asyncio.ensure_future(bus.publish([1], key="m"))
    await asyncio.sleep(0)
    caller.cancel()
    release.set()
    await bus.drain()
    assert heard == [1]


async def started(service: MatchService) -> int:
    challenge = await service.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))
    update = await service.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
    return update.match_id


async def test_handle_publishes_after_the_commit(any_store: Store) -> None:
    service = MatchService(any_store)
    seen: list[tuple[str, int, int]] = []

    async def on_update(event: MatchUpdated) -> None:
        # Committed before the subscribers hear: the store has the version already.
        row = await service.store.match_row(event.match_id)
        assert row is not None and row["version"] == event.update.version
        seen.append((type(event.command).__name__, event.update.version, row["version"]))

    service.bus.subscribe(MatchUpdated, on_update)
    match_id = await started(service)
    assert seen == [("AcceptChallenge", 0, 0)]  # a new match is at version 0
    view = await service.handle(ShowBoardAndWakeRobot(match_id, GUILD))
    assert view.match_id == match_id and len(seen) == 1  # a read publishes no update
    user = ALICE if view.actor == 0 else BOB
    command: RollDice | PlayMove = RollDice(match_id, GUILD, user)
    if view.phase is Phase.MOVE:
        command = PlayMove(match_id, GUILD, user, view.legal_moves[0])
    update = await service.handle(command)
    assert seen[-1] == (type(command).__name__, update.version, update.version)
    await service.close()


async def test_a_failing_subscriber_loses_nothing(
    any_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    service = MatchService(any_store)

    def broken(event: MatchUpdated) -> None:
        raise RuntimeError("presenter down")

    service.bus.subscribe(MatchUpdated, broken)
    match_id = await started(service)
    update = await service.handle(LeaveMatch(match_id, GUILD, BOB))
    assert update.match_over
    assert (await service.handle(ViewMatch(match_id))).match_over
    failures = [r for r in caplog.records if r.exc_info and "presenter down" in str(r.exc_info[1])]
    assert len(failures) == 2  # the accept and the leave
    await service.close()


async def test_the_robot_hears_when_a_turn_waits_for_it(any_store: Store) -> None:
    service = MatchService(any_store)
    waiting: list[RobotTurnWaiting] = []
    service.bus.subscribe(RobotTurnWaiting, waiting.append)
    update = await service.handle(
        RobotMatch(
            GUILD, CHANNEL, ALICE, "alice", "nannon", robot_id=ROBOT, robot_name="bot", level=1
        )
    )
    view = update.view
    robot_owes = view.actor == 1 or view.phase in (Phase.OPENING, Phase.OPENING_TIE)
    assert [w.version for w in waiting] == ([view.version] if robot_owes else [])
    # A board asked for again tells it again (it retries after a failure).
    await service.handle(ShowBoardAndWakeRobot(update.match_id))
    assert len(waiting) == (2 if robot_owes else 0)
    # Resumed at start-up: the robot hears of every match that waits for it.
    resumed = MatchService(any_store)
    again: list[RobotTurnWaiting] = []
    resumed.bus.subscribe(RobotTurnWaiting, again.append)
    await resumed.resume_active()
    assert [w.match_id for w in again] == ([update.match_id] if robot_owes else [])
    await service.close()  # the store they share


async def test_issue_34_view_match_wakes_no_one_and_show_board_wakes_the_robot(
    any_store: Store,
) -> None:
    """Issue 34, the smaller faults: the two reads answer the same view; only
    ShowBoardAndWakeRobot (/board) tells the robot again that its turn waits."""
    seeds = iter(range(1, 100))
    service = MatchService(any_store, dice_factory=lambda: FairDice(bytes([next(seeds)]) * 32))
    waiting: list[RobotTurnWaiting] = []
    service.bus.subscribe(RobotTurnWaiting, waiting.append)
    for _ in range(20):  # until the opening leaves the robot to play
        update = await service.handle(
            RobotMatch(
                GUILD, CHANNEL, ALICE, "alice", "nannon", robot_id=ROBOT, robot_name="bot", level=1
            )
        )
        if waiting:
            break
        await service.handle(LeaveMatch(update.match_id, GUILD, ALICE))
    assert waiting, "some opening leaves the robot to play"
    told = len(waiting)
    viewed = await service.handle(ViewMatch(update.match_id, GUILD))
    assert len(waiting) == told
    shown = await service.handle(ShowBoardAndWakeRobot(update.match_id, GUILD))
    assert shown == viewed
    assert waiting[told:] == [RobotTurnWaiting(update.match_id, GUILD, viewed.version)]
    await service.close()


async def test_settings_go_through_handle(any_store: Store) -> None:
    service = MatchService(any_store)
    settings = await service.handle(UpdateSettings(GUILD, {"robot_pause_ms": 0}))
    assert settings.robot_pause_ms == 0
    assert (await service.handle(GetSettings(GUILD))).robot_pause_ms == 0
    await service.close()

    assert all(issubclass(kind, Command) for kind in HANDLERS)


async def test_issue_34_every_event_on_the_bus_is_the_services() -> None:
    """Issue 34, the smaller faults: every event type anyone subscribes to on the bus is one of
    the service's (``RobotStuck`` was the robot driver's own), named in the service's list."""
    import ast
    import importlib
    from pathlib import Path

    from bot.service import events

    root = Path(__file__).resolve().parents[2]
    heard: set[type] = set()
    for path in sorted((root / "bot").rglob("*.py")):
        module = importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "subscribe"
                and isinstance(node.args[0], ast.Name)
            ):
                heard.add(getattr(module, node.args[0].id))
    assert events.RobotStuck in heard and events.RobotTurnWaiting in heard
    for event in heard:
        assert event.__module__.startswith("bot.service."), event
    assert "RobotStuck" in events.__all__
    assert "`RobotStuck`" in (root / "docs" / "service.md").read_text(encoding="utf-8")
