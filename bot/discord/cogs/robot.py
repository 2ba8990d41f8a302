"""The house robot, as Discord shows it: what the robot did, when it is stuck, and /hint.

- ``/challenge game:<g> opponent:@tablebot [level]``: the play cog hands it to
  :mod:`bot.discord.robot_matches` (the robot accepts at once; thread and boards as in any
  match).
- The robot's turns are played by the bot's :class:`~bot.robot.driver.RobotDriver`
  (``TableBot.robot``), from the service's events, outside this adapter. This cog only shows
  them: the updates the robot made (:class:`~bot.service.MatchUpdated`, ``by_robot``) are
  kept until its turn ends (a member decides next, or a game ended), then its whole turn (the
  roll, the move, every forced step of either side) is one board, a line per step, pinging the
  human, shown through the human's latest interaction while its token lives
  (:func:`bot.discord.presenter.publish_robot_turn`); :class:`~bot.service.RobotStuck` is
  said once in the match's channel (/board makes the robot try again).
- /hint: the service says whether and on what (``AskHint``), the robot
  computes it in its worker (:func:`bot.robot.advice.match_hint`), the answer is ephemeral.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import presenter, wording
from bot.discord.catalogue import command_text, text
from bot.discord.locales import server_reader
from bot.discord.replies import NO_MENTIONS, resolve_match
from bot.robot import advice
from bot.robot.worker import RobotCrashedError, RobotUnavailableError
from bot.service import MatchUpdated
from bot.service.commands import AskHint, ViewMatch
from bot.service.events import RobotStuck
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)


class RobotCog(commands.Cog, name="Robot"):
    """Shows what the robot does in every robot match, and answers /hint."""

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self._unsubscribe: list[Callable[[], None]] = []

    async def cog_load(self) -> None:
        bus = self.bot.service.bus
        self._unsubscribe = [
            bus.subscribe(MatchUpdated, self.robot_acted),
            bus.subscribe(RobotStuck, self.robot_stuck),
        ]

    async def cog_unload(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    # --- showing the robot's turns ----------------------------------------------------------

    async def robot_acted(self, event: MatchUpdated) -> None:
        """Show the robot's turn once it ends (a member's action is shown by the interaction
        that asked for it). A step of a turn not over is marked shown at once: the robot's
        driver goes on."""
        update = event.update
        if not event.by_robot:
            return
        try:
            await presenter.show_robot_step(self.bot, update)
        except GameError as exc:  # Discord refused the board: the action stands
            log.warning(
                "match %s: the robot's move is applied, not shown: %s", update.match_id, exc
            )

    async def robot_stuck(self, event: RobotStuck) -> None:
        """Say (once per position: the driver tells it once) that the robot is stuck, after
        what it did of its turn."""
        view = await self.bot.service.handle(ViewMatch(event.match_id))
        try:
            await presenter.show_robot_stuck(self.bot, view)
        except discord.HTTPException as exc:
            log.warning("match %s: could not show the robot's turn: %s", event.match_id, exc)
        channel = presenter.target_channel(self.bot, view)
        try:
            said = text("robot.failed", await server_reader(self.bot, view.guild_id))
            await channel.send(said, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("match %s: could not say the robot is stuck: %s", event.match_id, exc)

    # --- /hint --------------------------------------------------------------------------------

    @app_commands.command(name="hint", description=command_text("command.hint"))
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction[TableBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await resolve_match(self.bot.service, interaction)
        request = await self.bot.service.handle(
            AskHint(view.match_id, interaction.guild_id or 0, interaction.user.id)
        )
        try:
            data = await advice.match_hint(
                self.bot.robot_worker, request.match, request.seat, request.kind.value
            )
        except RobotUnavailableError:
            raise GameError(wording.robot_unavailable(view.kind)) from None
        except RobotCrashedError:
            raise GameError(text("robot.hint_failed")) from None
        await interaction.followup.send(
            wording.hint_text(request.kind.value, data, view),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )


async def setup(bot: TableBot) -> None:
    await bot.add_cog(RobotCog(bot))
