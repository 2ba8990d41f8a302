"""The house robot: matches against tablebot itself, the robot's turns, and /hint.

- ``/challenge game:<g> opponent:@tablebot [level]``: the play cog hands it to
  :mod:`bot.discord.robot_matches` (the robot accepts at once; thread and boards as in any
  match). From the first board on, this cog plays the robot's side.
- The robot's turns: the bot tells this cog of every board it shows, and of every match it
  resumes at start-up (``TableBot.turn_listeners``). When the match waits for the robot's seat
  (or either seat, at a tied Nannon opening), a task of its own (``TableBot.spawn_work``: close()
  waits for it) asks the service for the robot's turn (a private copy of the match), has
  :func:`bot.robot.player.choose_action` decide in the robot's worker while the server's pause
  (``robot_pause_ms``) runs, sends the decision through ``MatchService.act`` with the version it
  thought about, and publishes the result as a human's action is published (the board, the ping
  of the human). A stale version (the human acted meanwhile) is thought about again. One task
  per match at a time; a board shown while it runs makes it look again before it ends. While
  the bot closes, a turn still pausing or thinking is dropped (nothing was done; the next start
  plays it); one being applied finishes and is shown.
- /hint: the service says whether and on what (:meth:`MatchService.hint_request`), the robot
  computes it in its worker (:func:`bot.robot.advice.match_hint`), the answer is ephemeral.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import presenter, wording
from bot.discord.catalogue import command_text
from bot.discord.replies import NO_MENTIONS, resolve_match
from bot.robot import advice, player
from bot.robot.levels import Level
from bot.robot.player import Choice, Decision
from bot.robot.worker import RobotCrashedError, RobotUnavailableError
from bot.service import (
    AcceptDraw,
    AcceptResignation,
    DeclineDraw,
    DeclineResignation,
    MatchCommand,
    MatchUpdate,
    MatchView,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RobotTurn,
    RollDice,
    StaleActionError,
    TakeDouble,
)
from engines.base import Phase
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)

T = TypeVar("T")
Decide = Callable[..., Awaitable[Decision]]
Sleep = Callable[[float], Awaitable[None]]

# The robot's decisions, as the service's commands (a move carries its notation).
COMMANDS: dict[Choice, type[MatchCommand]] = {
    Choice.ROLL: RollDice,
    Choice.DOUBLE: OfferDouble,
    Choice.TAKE: TakeDouble,
    Choice.PASS: PassDouble,
    Choice.ACCEPT_RESIGNATION: AcceptResignation,
    Choice.DECLINE_RESIGNATION: DeclineResignation,
    Choice.ACCEPT_DRAW: AcceptDraw,
    Choice.DECLINE_DRAW: DeclineDraw,
    Choice.OFFER_DRAW: OfferDraw,
}
# After offering a draw or a resignation the robot offers none of the same until the match has
# moved on this many actions (the human declined it, or the match went on).
DRAW_REOFFER_ACTIONS = 20
RESIGN_REOFFER_ACTIONS = 20
# Turns thought about again in a row when the human keeps acting first (a stale version).
MAX_RETHINKS = 5


def robot_may_act(view: MatchView) -> bool:
    """The match (as shown) waits for the robot's seat, or for either seat."""
    if view.robot_seat is None or view.match_over:
        return False
    return view.actor == view.robot_seat or view.phase in (Phase.OPENING, Phase.OPENING_TIE)


def command_for(turn: RobotTurn, decision: Decision) -> MatchCommand | None:
    """The service's command for the robot's decision, on the version it thought about; None
    when it leaves the decision to the human (a roll at a tied opening the human may double)."""
    match = turn.match
    args = (turn.match_id, turn.guild_id, turn.user_id)
    if decision.choice is Choice.MOVE:
        assert decision.move is not None
        return PlayMove(*args, decision.move, expected_version=turn.version)
    tie = decision.choice is Choice.ROLL and match.phase is Phase.OPENING_TIE
    if tie and match.can_double(1 - turn.seat):
        return None  # the human may double or roll: their call
    if decision.choice is Choice.OFFER_RESIGNATION:
        assert decision.resign is not None
        return OfferResignation(*args, level=decision.resign, expected_version=turn.version)
    make = COMMANDS.get(decision.choice)
    return None if make is None else make(*args, expected_version=turn.version)


class RobotCog(commands.Cog, name="Robot"):
    """Plays the robot's seat in every robot match, and answers /hint. ``decide`` (the robot's
    brain), ``sleep`` (the pause) and ``rng`` (the lower levels' draws) are attributes a test
    may replace."""

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self.decide: Decide = player.choose_action
        self.sleep: Sleep = asyncio.sleep
        self.rng = random.Random()
        self._tasks: dict[int, asyncio.Task[Any]] = {}
        self._again: set[int] = set()  # boards shown while the match's task was running
        self._draw_offers: dict[int, int] = {}  # match -> the version of its last offer
        self._resign_offers: dict[int, int] = {}  # likewise for resignations
        self._failed: set[tuple[int, int]] = set()  # (match, version) apologised for

    async def cog_load(self) -> None:
        self.bot.turn_listeners.append(self.turn_shown)

    async def cog_unload(self) -> None:
        if self.turn_shown in self.bot.turn_listeners:
            self.bot.turn_listeners.remove(self.turn_shown)

    # --- the robot's turns ------------------------------------------------------------------

    def turn_shown(self, view: MatchView) -> None:
        """A board of ``view`` was shown: play the robot's turn if it has one."""
        if not robot_may_act(view):
            return
        match_id = view.match_id
        running = self._tasks.get(match_id)
        if running is not None and not running.done():
            self._again.add(match_id)
            return
        task = self.bot.spawn_work(self._play(match_id), name=f"tablebot-robot-{match_id}")
        if task is not None:
            self._tasks[match_id] = task
            task.add_done_callback(lambda done: self._forget(match_id, done))

    def _forget(self, match_id: int, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(match_id) is task:
            del self._tasks[match_id]

    async def _play(self, match_id: int) -> None:
        """The robot's turns in the match, one decision after another, until it waits for
        the human (or the match is over)."""
        rethinks = 0
        while True:
            self._again.discard(match_id)
            try:
                acted = await self._turn(match_id)
            except StaleActionError:
                rethinks += 1
                if rethinks <= MAX_RETHINKS:
                    continue  # the human moved first: think again about the new position
                log.warning("match %s: the robot gave up after %d stale turns", match_id, rethinks)
                return
            except Exception:
                log.exception("match %s: the robot's turn failed", match_id)
                return
            if not acted and match_id not in self._again:
                return

    async def _turn(self, match_id: int) -> bool:
        """One decision of the robot, applied and shown; False when there is none to make."""
        service = self.bot.service
        turn = await service.robot_turn(match_id)
        if turn is None:
            return False
        settings = await service.guild_settings(turn.guild_id)
        offered = self._draw_offers.get(match_id)
        may_offer = offered is None or turn.version - offered >= DRAW_REOFFER_ACTIONS
        resigned = self._resign_offers.get(match_id)
        may_resign = resigned is None or turn.version - resigned >= RESIGN_REOFFER_ACTIONS
        think = self.decide(
            turn.match,
            turn.seat,
            Level(turn.level),
            self.rng,
            offer_draw=may_offer,
            offer_resignation=may_resign,
        )
        try:
            decision = await self._unless_closing(self._with_pause(think, settings.robot_pause_ms))
        except (RobotUnavailableError, RobotCrashedError) as exc:
            log.warning("match %s: the robot could not decide: %s", match_id, exc)
            await self._apologise(turn)
            return False
        except Exception:
            log.exception("match %s: the robot's engine failed", match_id)
            await self._apologise(turn)
            return False
        if decision is None:
            return False  # closing: nothing was done, the next start plays this turn
        command = command_for(turn, decision)
        if command is None:
            return False
        try:
            update = await service.act(command)
        except StaleActionError:
            raise  # the human acted meanwhile: think again
        except GameError:
            log.exception("match %s: the robot's %s was refused", match_id, decision)
            await self._apologise(turn)
            return False
        if decision.choice is Choice.OFFER_DRAW:
            self._draw_offers[match_id] = update.version
        elif decision.choice is Choice.OFFER_RESIGNATION:
            self._resign_offers[match_id] = update.version
        log.debug("match %s: the robot %s at version %s", match_id, decision.choice, turn.version)
        await self._publish(update)
        return True

    async def _with_pause(self, think: Awaitable[T], pause_ms: int) -> T:
        """Think during the pause: the decision shows once both are done."""
        if pause_ms <= 0:
            return await think
        decision, _ = await asyncio.gather(think, self.sleep(pause_ms / 1000))
        return decision

    async def _unless_closing(self, work: Awaitable[T]) -> T | None:
        """``work``'s result, or None if the bot starts closing first (``work`` is dropped)."""
        task = asyncio.ensure_future(work)
        closing = asyncio.ensure_future(self.bot.closing_started.wait())
        try:
            await asyncio.wait({task, closing}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closing.cancel()
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return None

    async def _publish(self, update: MatchUpdate) -> None:
        try:
            await presenter.publish(self.bot, update)
        except GameError as exc:  # Discord refused the board: the action stands
            log.warning(
                "match %s: the robot's move is applied, not shown: %s", update.match_id, exc
            )

    async def _apologise(self, turn: RobotTurn) -> None:
        """Say once per position that the robot is stuck (the log has why)."""
        key = (turn.match_id, turn.version)
        if key in self._failed:
            return
        self._failed.add(key)
        view = await self.bot.service.get_view(turn.match_id)
        channel = presenter.target_channel(self.bot, view)
        try:
            await channel.send(wording.ROBOT_FAILED, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("match %s: could not say the robot is stuck: %s", turn.match_id, exc)

    # --- /hint --------------------------------------------------------------------------------

    @app_commands.command(name="hint", description=command_text("command.hint"))
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction[TableBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await resolve_match(self.bot.service, interaction)
        request = await self.bot.service.hint_request(
            view.match_id, interaction.guild_id or 0, interaction.user.id
        )
        try:
            data = await advice.match_hint(request.match, request.seat, request.kind.value)
        except RobotUnavailableError:
            raise GameError(wording.robot_unavailable(view.kind)) from None
        except RobotCrashedError:
            raise GameError(wording.ROBOT_HINT_FAILED) from None
        await interaction.followup.send(
            wording.hint_text(request.kind.value, data, view),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )


async def setup(bot: TableBot) -> None:
    await bot.add_cog(RobotCog(bot))
