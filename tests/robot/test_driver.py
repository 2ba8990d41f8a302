"""The robot's driver without Discord: a real service on a real store, a scripted brain and a
held pause. It hears the turns that wait for it from the service's bus, plays them after the
pause in one task per match, thinks again when its turn went stale, offers no draw again at
once, drops a turn still thinking when it closes (a restart plays it), and tells a failure once
per position (a board asked for again retries)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.robot.driver import DRAW_REOFFER_ACTIONS, RobotDriver
from bot.robot.levels import Level
from bot.robot.player import WAIT, Decision
from bot.robot.worker import RobotCrashedError, RobotWorker
from bot.service import (
    MatchService,
    MatchUpdated,
    MatchView,
    PlayMove,
    ProposeDraw,
    RefuseDraw,
    RobotMatch,
    RobotStuck,
    ShowBoardAndWakeRobot,
    UpdateSettings,
    ViewMatch,
    waits_for_robot,
)
from bot.storage import Store
from bot.workers import WorkerPool
from engines import actions as ea
from engines.base import GameMatch, Phase

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, ROBOT = 1, 2, 10, 99


async def plays_first(
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    *,
    offer_draw: bool = True,
    offer_resignation: bool = True,
    think_s: float | None = None,
) -> Decision:
    """A brain that rolls, plays the first legal move, takes, and declines offers."""
    phase = match.phase
    if phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
        return Decision(ea.Roll)
    if phase is Phase.MOVE:
        return Decision(ea.Move, match.legal_moves().notation[0])
    if phase is Phase.CUBE_OFFERED:
        return Decision(ea.Take)
    if phase is Phase.DRAW_OFFERED:
        return Decision(ea.DeclineDraw)
    if phase is Phase.RESIGN_OFFERED:
        return Decision(ea.AcceptResign)
    return WAIT


async def robot_match(service: MatchService, game: str = "checkers") -> MatchView:
    await service.handle(UpdateSettings(GUILD, {"robot_pause_ms": 0}))
    update = await service.handle(
        RobotMatch(GUILD, CHANNEL, ALICE, "alice", game, robot_id=ROBOT, robot_name="bot", level=1)
    )
    return update.view


async def human_moves(service: MatchService, match_id: int) -> MatchView:
    view = await service.handle(ViewMatch(match_id))
    assert view.actor == 0 and view.phase is Phase.MOVE
    update = await service.handle(PlayMove(match_id, GUILD, ALICE, view.legal_moves[0]))
    return update.view


def driver_on(service: MatchService, **options: Any) -> RobotDriver:
    # Its brain is replaced below: the worker's process is never started.
    driver = RobotDriver(service, RobotWorker(WorkerPool("robot")), **options)
    driver.decide = plays_first
    driver.start()
    return driver


async def test_the_robot_answers_each_human_move_after_its_pause(any_store: Store) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    driver.sleep = pause
    robot_said: list[int] = []
    service.bus.subscribe(
        MatchUpdated, lambda e: robot_said.append(e.update.version) if e.by_robot else None
    )
    view = await robot_match(service)  # checkers: the human (Black) moves first
    assert not waits_for_robot(view)
    await service.handle(UpdateSettings(GUILD, {"robot_pause_ms": 1500}))
    for _ in range(3):
        after = await human_moves(service, view.match_id)
        assert waits_for_robot(after)
        await driver.wait_idle()
        view = await service.handle(ViewMatch(view.match_id))
        assert view.actor == 0 and robot_said[-1] == view.version
    assert pauses == [1.5, 1.5, 1.5] and len(robot_said) == 3
    events = await service.store.events(view.match_id)
    assert [e.actor for e in events[-2:]] == [ALICE, ROBOT]
    await driver.close()
    await service.close()


async def test_a_stale_turn_is_thought_again(any_store: Store) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    asked: list[Phase] = []
    view = await robot_match(service)

    async def slow(match: GameMatch, *args: Any, **kwargs: Any) -> Decision:
        asked.append(match.phase)
        if len(asked) == 1:  # while it thinks about its move, the human offers a draw
            await service.handle(ProposeDraw(view.match_id, GUILD, ALICE))
        return await plays_first(match, *args, **kwargs)

    driver.decide = slow
    await human_moves(service, view.match_id)
    await driver.wait_idle()
    assert asked[:2] == [Phase.MOVE, Phase.DRAW_OFFERED]
    events = await service.store.events(view.match_id)
    robot = [e.kind for e in events if e.actor == ROBOT]
    assert robot[:2] == ["decline_draw", "move"]  # the stale move was never applied
    await driver.close()
    await service.close()


async def test_one_task_per_match_and_a_turn_told_meanwhile_looks_again(
    any_store: Store,
) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    view = await robot_match(service)
    go_on = asyncio.Event()
    calls = 0

    async def held(match: GameMatch, *args: Any, **kwargs: Any) -> Decision:
        nonlocal calls
        calls += 1
        await go_on.wait()
        return await plays_first(match, *args, **kwargs)

    driver.decide = held
    await human_moves(service, view.match_id)
    for _ in range(3):  # the board asked for again while the robot thinks
        await service.handle(ShowBoardAndWakeRobot(view.match_id))
    robot_tasks = [t.get_name() for t in asyncio.all_tasks() if "robot" in t.get_name()]
    assert robot_tasks == [f"tablebot-robot-{view.match_id}"]
    go_on.set()
    await driver.wait_idle()
    assert calls == 1  # it looked again, found the human on turn: nothing more to decide
    assert (await service.handle(ViewMatch(view.match_id))).actor == 0
    await driver.close()
    await service.close()


async def test_closing_drops_a_turn_still_thinking_and_a_restart_plays_it(
    any_store: Store,
) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    view = await robot_match(service)
    thinking = asyncio.Event()

    async def forever(*args: Any, **kwargs: Any) -> Decision:
        thinking.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    driver.decide = forever
    moved = await human_moves(service, view.match_id)
    await thinking.wait()
    await driver.close()
    assert (
        await service.handle(ViewMatch(view.match_id))
    ).version == moved.version  # nothing applied
    # The next start: a new service and driver on the same store resume the match.
    again = MatchService(any_store)
    restarted = driver_on(again)
    await again.resume_active()
    await restarted.wait_idle()
    after = await again.handle(ViewMatch(view.match_id))
    assert after.version > moved.version and after.actor == 0
    await restarted.close()
    await again.close()


async def test_a_failure_is_told_once_and_a_board_asked_for_retries(any_store: Store) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    stuck: list[RobotStuck] = []
    service.bus.subscribe(RobotStuck, stuck.append)
    view = await robot_match(service)
    failing = True

    async def crashes(*args: Any, **kwargs: Any) -> Decision:
        if failing:
            raise RobotCrashedError("the robot worker died twice running test")
        return await plays_first(*args, **kwargs)

    driver.decide = crashes
    moved = await human_moves(service, view.match_id)
    await driver.wait_idle()
    # A retry that fails again: not told again.
    await service.handle(ShowBoardAndWakeRobot(view.match_id))
    await driver.wait_idle()
    assert stuck == [RobotStuck(view.match_id, GUILD, moved.version)]
    failing = False
    await service.handle(ShowBoardAndWakeRobot(view.match_id))
    await driver.wait_idle()
    after = await service.handle(ViewMatch(view.match_id))
    assert after.version > moved.version and after.actor == 0
    await driver.close()
    await service.close()


async def test_no_second_draw_offer_at_once(any_store: Store) -> None:
    service = MatchService(any_store)
    driver = driver_on(service)
    view = await robot_match(service)
    allowed: list[bool] = []

    async def offers(match: GameMatch, *args: Any, offer_draw: bool, **kwargs: Any) -> Decision:
        allowed.append(offer_draw)
        if offer_draw and match.phase is Phase.MOVE:
            return Decision(ea.OfferDraw)
        return await plays_first(match, *args, **kwargs)

    driver.decide = offers
    await human_moves(service, view.match_id)
    await driver.wait_idle()
    offered = await service.handle(ViewMatch(view.match_id))
    assert offered.phase is Phase.DRAW_OFFERED and offered.actor == 0
    # Declined: the robot moves, offering nothing for DRAW_REOFFER_ACTIONS actions.
    await service.handle(RefuseDraw(view.match_id, GUILD, ALICE))
    await driver.wait_idle()
    assert allowed == [True, False] and DRAW_REOFFER_ACTIONS > 1
    assert (await service.handle(ViewMatch(view.match_id))).actor == 0
    await driver.close()
    await service.close()


async def test_the_transport_shows_a_state_before_the_robot_answers_it(
    any_store: Store,
) -> None:
    service = MatchService(any_store)
    shown: dict[int, asyncio.Event] = {}
    order: list[str] = []

    async def until_shown(match_id: int, version: int) -> None:
        order.append(f"waits for {version}")
        await shown.setdefault(version, asyncio.Event()).wait()

    driver = driver_on(service, shown=until_shown)
    service.bus.subscribe(
        MatchUpdated, lambda e: order.append(f"robot {e.update.version}") if e.by_robot else None
    )
    view = await robot_match(service)
    moved = await human_moves(service, view.match_id)
    for _ in range(3):
        await asyncio.sleep(0)
    assert order == [f"waits for {moved.version}"]  # nothing played before it is shown
    shown.setdefault(moved.version, asyncio.Event()).set()
    await driver.wait_idle()
    assert order == [f"waits for {moved.version}", f"robot {moved.version + 1}"]
    await driver.close()
    await service.close()
