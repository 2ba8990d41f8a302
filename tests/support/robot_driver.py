"""Playing against the robot through the fake Discord: challenge tablebot itself, then play the
human's side of whatever the latest board waits for, until the match is over.

The robot's driver plays in tasks of the bot's own (``TableBot.spawn_work``), which
``bot.wait_idle()`` waits for as it waits for the handlers: after each human action this
waits for the bot's work and its REST requests, then reads the match from the service.
Nothing sleeps; the robot's pause is 0 (a server setting) unless a test holds it.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fakediscord import Channel, FakeDiscord, InteractionHandle, Member, Message

from bot.discord.app import TableBot
from bot.robot.driver import RobotDriver
from bot.service import MatchView, UpdateSettings, ViewMatch
from engines.base import Phase
from support.discord_driver import boards, footer, service_of

SETTLE_TIMEOUT = 60.0  # a master backgammon decision, on a loaded 2-core machine


def bot_of(fake: FakeDiscord) -> TableBot:
    bot = fake.bot
    assert isinstance(bot, TableBot)
    return bot


def robot_of(fake: FakeDiscord) -> RobotDriver:
    """The running bot's robot driver (``decide``, ``sleep`` and ``rng`` may be replaced)."""
    return bot_of(fake).robot


async def robot_ready(fake: FakeDiscord, **settings: Any) -> None:
    """The robot shows its moves at once (pause 0), scripted players are not rate limited, and
    a robot match's end queues no analysis (a test of the analysis turns it on); ``settings`` on
    top (stored: they hold across restarts)."""
    changes = {
        "robot_pause_ms": 0,
        "rate_limit_actions": 1000,
        "analyse_robot_matches": False,
        **settings,
    }
    await service_of(fake).handle(UpdateSettings(fake.guild.id, {**changes}))
    bot_of(fake).rate_limit.invalidate(fake.guild.id)


async def settle(fake: FakeDiscord) -> None:
    """Until the bot has finished every handler and robot turn it started, and its requests."""
    async with asyncio.timeout(SETTLE_TIMEOUT):
        await bot_of(fake).wait_idle()
    await fake.wait_bot_idle()


async def challenge_robot(
    fake: FakeDiscord, by: Member, game: str, **options: Any
) -> tuple[int, Channel, Message]:
    """``by`` challenges tablebot (``options`` of /challenge: points, level ...), which accepts
    at once: the match id, its thread and the invitation."""
    robot = fake.bot_member(fake.guild)
    it = await fake.slash("challenge", {"game": game, "opponent": robot, **options}, by=by)
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral, invitation
    match_id = int(footer(invitation).split("#")[1])
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    await settle(fake)
    return match_id, thread, invitation


def latest_board(fake: FakeDiscord, thread: Channel, match_id: int) -> Message:
    found = boards(fake, thread, match_id)
    assert found and found[-1].components, "no board with buttons"
    return found[-1]


Choose = Callable[[MatchView], str]


def first_move(view: MatchView) -> str:
    return view.legal_moves[0]


async def human_acts(
    fake: FakeDiscord,
    thread: Channel,
    view: MatchView,
    human: Member,
    *,
    choose: Choose = first_move,
    double: bool = False,
) -> InteractionHandle:
    """The human plays what the latest board waits for: a roll (or a double, with ``double``
    when they may), a move from the menu, a take, a declined draw, an accepted resignation."""
    board = latest_board(fake, thread, view.match_id)
    phase = view.phase
    if phase in (Phase.ROLL, Phase.OPENING_TIE, Phase.OPENING):
        label = "Double" if double and view.can_double[0] else "Roll"
        return await fake.click(board, label=label, by=human)
    if phase is Phase.MOVE:
        return await fake.select(board, [choose(view)], by=human)
    if phase is Phase.CUBE_OFFERED:
        return await fake.click(board, label="Take", by=human)
    if phase is Phase.DRAW_OFFERED:
        return await fake.click(board, label="Decline draw", by=human)
    if phase is Phase.RESIGN_OFFERED:
        return await fake.click(board, label="Accept resignation", by=human)
    raise AssertionError(f"the human can't play {phase}")


async def play_to_the_end(
    fake: FakeDiscord,
    thread: Channel,
    match_id: int,
    human: Member,
    *,
    choose: Choose = first_move,
    limit: int = 2000,
    on_turn: Callable[[MatchView], Any] | None = None,
) -> MatchView:
    """The human's side until the match is over (the robot plays the other): its last view."""
    for _ in range(limit):
        await settle(fake)
        view = await service_of(fake).handle(ViewMatch(match_id))
        if view.match_over:
            return view
        assert view.actor in (0, None), f"the robot should have played: {view.phase}"
        if on_turn is not None:
            on_turn(view)
        it = await human_acts(fake, thread, view, human, choose=choose)
        await it.response()
    raise AssertionError(f"match #{match_id} did not end in {limit} turns")


def die_first_time(marker: str) -> int:
    """In the robot's worker: kill it the first time (it dies during the call), answer the
    process id the next."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()
