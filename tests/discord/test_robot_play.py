"""Matches against the robot through the fake Discord, played to the end in every game: the
challenge to tablebot itself (accepted at once, its thread and boards as in any match), the
robot's rolls, moves, cube answers and draw answers shown after its pause with the human pinged;
its resignation of a decided game (accepted, or declined and not offered again at once);
a restart while the robot is pausing (it plays on after the restart); the robot's worker killed
during its turn (the match goes on); an engine that fails says so and /board retries."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakediscord import FakeDiscord, Message
from support.discord_driver import (
    DiceScript,
    boards,
    embed_text,
    footer,
    reply_to,
    results,
    say,
    service_of,
)
from support.robot_driver import (
    bot_of,
    challenge_robot,
    die_first_time,
    human_acts,
    play_to_the_end,
    robot_of,
    robot_ready,
    settle,
)

from bot.discord import wording
from bot.robot import jobs
from bot.robot.levels import Level
from bot.robot.player import Decision
from bot.robot.worker import RobotCrashedError
from bot.service import UpdateSettings, ViewMatch, waits_for_robot
from engines.actions import AcceptResign, Action, DeclineResign, Drop, Move, Resign, Roll, Take
from engines.base import GameMatch, Phase

pytestmark = pytest.mark.asyncio

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


def robot_choices(fake: FakeDiscord) -> list[type[Action] | None]:
    """Record what the robot decides (the real brain decides)."""
    driver = robot_of(fake)
    real = driver.decide
    made: list[type[Action] | None] = []

    async def recording(*args: Any, **kwargs: Any) -> Decision:
        decision = await real(*args, **kwargs)
        made.append(decision.action)
        return decision

    driver.decide = recording
    return made


async def test_a_nannon_match_against_the_master_robot(
    tablebot: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    made = robot_choices(fake)
    match_id, thread, invitation = await challenge_robot(
        fake, alice, "nannon", points=3, level="master"
    )
    assert embed_text(invitation).endswith(
        "alice challenges tablebot (master) to Nannon, to 3 (cube, Crawford). tablebot accepts."
    )
    assert invitation.content == f"tablebot accepted alice's challenge: match #{match_id}."
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert (view.robot_seat, view.robot_level, view.thread_id) == (1, 5, thread.id)
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.match_over and max(last.score) >= 3
    assert Move in made or Roll in made
    # Every board that waited for the human pinged her; none pinged the robot.
    for board in boards(fake, thread, match_id):
        assert f"<@{fake.bot_user.id}>" not in board.content
    assert any(f"<@{alice.id}>" in b.content for b in boards(fake, thread, match_id))
    over = results(fake, thread)[-1]
    assert "Match over" in over.embeds[0]["title"] and "rating" not in embed_text(over)
    # As any match: /export and /verify.
    exported = await reply_to(await fake.slash("export", {"match": match_id}, by=alice))
    [attachment] = exported.attachments
    assert attachment.filename == f"tablebot-{match_id}.mat"
    assert "alice" in attachment.data.decode() and "tablebot" in attachment.data.decode()
    verified = await reply_to(await fake.slash("verify", {"match": match_id}, by=alice))
    assert "checks out" in embed_text(verified)
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name != "discord"]
    assert not problems, [r.getMessage() for r in problems]


@needs_gnubg
async def test_a_backgammon_match_against_the_robot_with_the_cube(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    # The robot (seat 1) wins the openings 6-1 and rolls 6-6; the human rolls 1-2.
    opening, human = itertools.cycle([1, 6]), itertools.cycle([1, 2])

    def face(match: GameMatch) -> int:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            return next(opening)
        return 6 if match.turn == 1 else next(human)

    dice.steer = face
    made = robot_choices(fake)
    match_id, thread, _ = await challenge_robot(fake, alice, "backgammon", points=3, level="expert")
    svc = service_of(fake)
    view = await svc.handle(ViewMatch(match_id))
    assert made[0] is Move  # its opening 6-1
    # The human doubles at her first chance: the robot takes or passes.
    assert (view.phase, view.actor, view.can_double[0]) == (Phase.ROLL, 0, True)
    it = await human_acts(fake, thread, view, alice, double=True)
    await it.response()
    await settle(fake)
    assert made[1] in (Take, Drop)
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.winner_seat == 1  # sixes win
    assert made.count(Move) > 3


async def test_a_checkers_match_against_the_beginner_robot(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    robot_of(fake).rng = random.Random(5)
    made = robot_choices(fake)
    match_id, thread, _ = await challenge_robot(fake, alice, "checkers", level="beginner")
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.match_over and made.count(Move) > 5
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert view.robot_level == int(Level.BEGINNER)


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("nannon", {"points": 3, "level": "expert"}),
        pytest.param("backgammon", {"points": 1, "level": "expert"}, marks=needs_gnubg),
        ("checkers", {"level": "beginner"}),
    ],
)
async def test_a_restart_while_the_robot_pauses(
    tablebot: FakeDiscord,
    caplog: pytest.LogCaptureFixture,
    game: str,
    options: dict[str, Any],
) -> None:
    fake = tablebot
    await robot_ready(fake, robot_pause_ms=1500)
    alice = await fake.add_member("alice")
    held = asyncio.Event()
    pauses: list[float] = []

    async def hold(seconds: float) -> None:
        pauses.append(seconds)
        held.set()
        fake.poke()
        await asyncio.Event().wait()  # never over: the restart drops the turn

    robot_of(fake).sleep = hold
    svc = service_of(fake)
    robot = fake.bot_member(fake.guild)
    it = await fake.slash("challenge", {"game": game, "opponent": robot, **options}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    match_id = int(footer(invitation).split("#")[1])

    def waiting(previous: Message | None) -> Message | bool | None:
        """The robot pausing (True), or a new board that pings the human."""
        if held.is_set():
            return True
        found = boards(fake, thread, match_id)
        if not found or (previous is not None and found[-1].id == previous.id):
            return None
        board = found[-1]
        return board if f"<@{alice.id}>" in board.content and board.components else None

    previous: Message | None = None
    while not held.is_set():
        got = await fake.wait_until(lambda seen=previous: waiting(seen), what="the pause")
        if isinstance(got, Message):
            view = await svc.handle(ViewMatch(match_id))
            it = await human_acts(fake, thread, view, alice)
            await it.response()
            previous = got
    before = await svc.handle(ViewMatch(match_id))
    assert pauses == [1.5] and waits_for_robot(before)
    await svc.handle(UpdateSettings(fake.guild.id, {"robot_pause_ms": 0}))
    await fake.restart_bot()  # the held turn is dropped, with nothing applied
    await fake.wait_for_commands()
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.match_over and last.version > before.version
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name != "discord"]
    assert not problems, [r.getMessage() for r in problems]


async def test_the_worker_killed_during_the_robots_turn(
    tablebot: FakeDiscord, tmp_path: Path
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    driver = robot_of(fake)
    real = driver.decide
    marker = tmp_path / "died"
    worker = bot_of(fake).robot_worker
    first_pid = await worker.run(jobs.pid)

    async def killed_first(*args: Any, **kwargs: Any) -> Decision:
        if marker.exists():
            return await real(*args, **kwargs)
        # The worker dies running the first job; the robot's own call waits behind it.
        pid, decision = await asyncio.gather(
            worker.run(die_first_time, str(marker)), real(*args, **kwargs)
        )
        assert pid != first_pid
        return decision

    driver.decide = killed_first
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3, level="master")
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert marker.exists() and last.match_over
    assert await worker.run(jobs.pid) != first_pid


@pytest.mark.parametrize(
    "error",
    [
        RobotCrashedError("the robot worker died twice running test"),
        RuntimeError("gnubg answered something unreadable"),
    ],
    ids=["crashed", "unexpected"],
)
async def test_a_failing_engine_says_so_and_board_retries(
    tablebot: FakeDiscord, error: Exception
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    driver = robot_of(fake)
    real = driver.decide
    failing = True

    async def crashes(*args: Any, **kwargs: Any) -> Decision:
        if failing:
            raise error
        return await real(*args, **kwargs)

    driver.decide = crashes
    match_id, thread, _ = await challenge_robot(fake, alice, "checkers", level="beginner")
    svc = service_of(fake)
    view = await svc.handle(ViewMatch(match_id))
    it = await human_acts(fake, thread, view, alice)  # Black (the human) moves first
    await it.response()
    await settle(fake)
    stuck = await svc.handle(ViewMatch(match_id))
    assert stuck.actor == 1
    said = [m for m in fake.messages(thread) if m.content == wording.ROBOT_FAILED]
    assert len(said) == 1
    failing = False
    assert await say(fake, "board", alice, thread) == "Board posted."
    await settle(fake)
    moved = await svc.handle(ViewMatch(match_id))
    assert moved.version > stuck.version and moved.actor == 0


async def test_a_turn_gone_stale_is_thought_again(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    driver = robot_of(fake)
    real = driver.decide
    thinking, go_on = asyncio.Event(), asyncio.Event()
    asked: list[Phase] = []

    async def slow(match: GameMatch, *args: Any, **kwargs: Any) -> Decision:
        asked.append(match.phase)
        if not go_on.is_set():
            thinking.set()
            fake.poke()
            await go_on.wait()
        return await real(match, *args, **kwargs)

    driver.decide = slow
    match_id, thread, _ = await challenge_robot(fake, alice, "checkers", level="beginner")
    svc = service_of(fake)
    view = await svc.handle(ViewMatch(match_id))
    it = await human_acts(fake, thread, view, alice)  # Black (the human) moves first
    await it.response()
    await fake.wait_until(thinking.is_set, what="the robot thinking")
    # While the robot thinks about its move, the human offers a draw.
    board = boards(fake, thread, match_id)[-1]
    it = await fake.click(board, label="Offer draw", by=alice)
    await it.response()
    await fake.wait_bot_idle()
    offered = await svc.handle(ViewMatch(match_id))
    assert offered.phase is Phase.DRAW_OFFERED and offered.actor == 1
    go_on.set()  # its move is stale now: it thinks again, and answers the offer
    await settle(fake)
    assert asked[:2] == [Phase.MOVE, Phase.DRAW_OFFERED]
    events = await svc.store.events(match_id)
    robot_actions = [e.kind for e in events if e.actor == fake.bot_user.id]
    # The stale move was never applied: the robot's first action answers the offer (a game
    # drawn goes on with game 2, where the robot plays Black and moves first; declined, it
    # moves on in game 1).
    assert robot_actions[:2] in (["accept_draw", "move"], ["decline_draw", "move"])


async def test_the_robot_thinks_for_the_servers_time(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, robot_think_s=7)
    alice = await fake.add_member("alice")
    driver = robot_of(fake)
    real = driver.decide
    asked: list[Any] = []

    async def recording(*args: Any, **kwargs: Any) -> Decision:
        asked.append(kwargs.get("think_s"))
        return await real(*args, **kwargs)

    driver.decide = recording
    match_id, thread, _ = await challenge_robot(fake, alice, "checkers", level="beginner")
    view = await service_of(fake).handle(ViewMatch(match_id))
    it = await human_acts(fake, thread, view, alice)  # Black (the human) moves first
    await it.response()
    await fake.wait_until(lambda: bool(asked), what="the robot thinking")
    await settle(fake)
    assert set(asked) == {7}  # /config robot think_s reaches the robot's brain


async def test_the_robot_answers_a_resignation(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    made = robot_choices(fake)
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3, level="master")
    before = len(made)
    board = boards(fake, thread, match_id)[-1]
    it = await fake.click(board, label="Resign", by=alice)
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral
    it = await fake.click(menu, label="Resign this game", by=alice)
    await it.response()
    await settle(fake)
    answer = made[before]  # (then, its own turns in the game or the next one)
    assert answer in (AcceptResign, DeclineResign)
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert view.phase is not Phase.RESIGN_OFFERED
    if answer is AcceptResign:
        assert view.games and view.games[0].winner == 1


def steered_to_lose() -> Callable[[GameMatch], int]:
    """Nannon dice (found by a search) after which the robot, playing master against a human
    (seat 0) who plays the first legal move, is left in a decided game: a single game lost."""
    opening = itertools.cycle([6, 1])
    human = itertools.chain([4, 5, 6, 6, 5, 4, 5, 5, 6, 6, 4, 5, 6, 5, 5], itertools.cycle([6]))
    robot = itertools.chain([2, 4, 5, 2, 5, 4, 4, 6, 6, 3, 4, 3, 3, 4, 4], itertools.cycle([1]))

    def face(match: GameMatch) -> int:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            return next(opening)
        return next(human) if match.turn == 0 else next(robot)

    return face


async def test_the_robot_resigns_a_decided_game(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    dice.steer = steered_to_lose()
    made = robot_choices(fake)
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=1, level="master")
    svc = service_of(fake)
    offers: list[str] = []

    def note(view: Any) -> None:
        if view.phase is Phase.RESIGN_OFFERED:
            offers.append(boards(fake, thread, match_id)[-1].content)

    last = await play_to_the_end(fake, thread, match_id, alice, on_turn=note)
    assert last.match_over and last.winner_seat == 0
    assert made.count(Resign) == 1 and len(offers) == 1
    assert f"<@{alice.id}>" in offers[0]  # the human is asked to answer it
    events = await svc.store.events(match_id)
    kinds = [(e.kind, e.actor == fake.bot_user.id) for e in events]
    assert kinds[-2:] == [("resign", True), ("accept_resign", False)]


async def test_a_declined_resignation_is_not_offered_again_at_once(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    dice.steer = steered_to_lose()
    made = robot_choices(fake)
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=1, level="master")
    svc = service_of(fake)
    for _ in range(200):
        await settle(fake)
        view = await svc.handle(ViewMatch(match_id))
        if view.phase is Phase.RESIGN_OFFERED or view.match_over:
            break
        it = await human_acts(fake, thread, view, alice)
        await it.response()
    assert view.phase is Phase.RESIGN_OFFERED
    board = boards(fake, thread, match_id)[-1]
    it = await fake.click(board, label="Decline resignation", by=alice)
    await it.response()
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.match_over and last.winner_seat == 0
    assert made.count(Resign) == 1  # the game ended before it could again
