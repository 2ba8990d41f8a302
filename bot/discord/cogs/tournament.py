"""/tournament: create, join, leave, start, withdraw, adjudicate, show, list; the sign-up
announcement's buttons; and the service's tournament events shown on Discord (extension
``bot.discord.cogs.tournament``). What is shown is :mod:`bot.discord.tournament_presenter`'s;
every decision is the service's (:mod:`bot.service.tournaments`), and a refusal reaches the
member ephemerally through the command tree's one error path."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import presenter, wording
from bot.discord import tournament_presenter as shown
from bot.discord.catalogue import choices, command_text, reader, reading, text
from bot.discord.cogs.admin import is_manager
from bot.discord.components import TournamentButton
from bot.discord.locales import server_reader
from bot.discord.options import RowId
from bot.discord.replies import NO_MENTIONS, display_name, escape_name
from bot.discord.robot_matches import LevelName, robot_user
from bot.robot.levels import LEVEL_NAMES
from bot.service import (
    AdjudicateMatch,
    CreateTournament,
    JoinTournament,
    LeaveMatch,
    LeaveTournament,
    ListTournaments,
    MatchUpdate,
    RoundStarted,
    ShowTournament,
    StartTournament,
    TournamentFinished,
    TournamentView,
    WithdrawFromTournament,
)
from bot.service.commands import GetSettings
from bot.service.tournament_model import SetTournamentMessage
from engines.base import GameKind
from engines.errors import GameError
from engines.tournament import TournamentFormat

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)

GameName = Literal["nannon", "backgammon", "checkers"]
FormatName = Literal["knockout", "round_robin", "swiss"]


def _guild(interaction: discord.Interaction[Any]) -> int:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise GameError(text("robot.server_only"))
    return interaction.guild_id


class TournamentCog(commands.Cog, name="Tournaments"):
    tournament = app_commands.Group(
        name="tournament",
        description=command_text("command.tournament"),
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self._unsubscribe: list[Callable[[], None]] = []

    async def cog_load(self) -> None:
        self.bot.route_clicks(TournamentButton, self.button)
        bus = self.bot.service.bus
        self._unsubscribe = [
            bus.subscribe(RoundStarted, self.round_started),
            bus.subscribe(TournamentFinished, self.finished),
        ]

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(TournamentButton)
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    async def round_started(self, event: RoundStarted) -> None:
        await shown.round_started(self.bot, event)

    async def finished(self, event: TournamentFinished) -> None:
        await shown.finished(self.bot, event)

    async def _ephemeral(self, interaction: discord.Interaction[Any], said: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(said, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(
                said, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    # --- sign-up ----------------------------------------------------------------------------

    @tournament.command(name="create", description=command_text("command.tournament.create"))
    @app_commands.describe(
        game=command_text("command.tournament.create.game"),
        format=command_text("command.tournament.create.format"),
        points=command_text("command.tournament.create.points"),
        max_players=command_text("command.tournament.create.max_players"),
        starts=command_text("command.tournament.create.starts"),
        round_days=command_text("command.tournament.create.round_days"),
        rounds=command_text("command.tournament.create.rounds"),
        cube=command_text("command.tournament.create.cube"),
        crawford=command_text("command.tournament.create.crawford"),
        jacoby=command_text("command.tournament.create.jacoby"),
        robot=command_text("command.tournament.create.robot"),
    )
    @app_commands.choices(
        game=choices("game", get_args(GameName)),
        format=choices("format", get_args(FormatName)),
        robot=choices("level", get_args(LevelName)),
    )
    async def create(
        self,
        interaction: discord.Interaction[TableBot],
        game: str,
        format: str,
        points: app_commands.Range[int, 0, 25] | None = None,
        max_players: app_commands.Range[int, 2, 256] | None = None,
        starts: app_commands.Range[int, 1, 30 * 24 * 60] | None = None,
        round_days: app_commands.Range[int, 1, 30] = 3,
        rounds: app_commands.Range[int, 1, 20] | None = None,
        cube: bool | None = None,
        crawford: bool | None = None,
        jacoby: bool | None = None,
        robot: str | None = None,
    ) -> None:
        guild_id = _guild(interaction)
        settings = await self.bot.service.handle(GetSettings(guild_id))
        roles = {role.id for role in getattr(interaction.user, "roles", ())}
        if not is_manager(interaction) and settings.tournament_role not in roles:
            raise GameError(text("refusal.tournament_manager"))
        now = self.bot.service.clock()
        view = await self.bot.service.handle(
            CreateTournament(
                guild_id=guild_id,
                channel_id=interaction.channel_id or 0,
                organiser_id=interaction.user.id,
                organiser_name=display_name(interaction.user),
                game=GameKind(game),
                format=TournamentFormat[format.upper()],
                length=points,
                cube=cube,
                crawford=crawford,
                jacoby=jacoby,
                max_players=max_players,
                starts_at=None if starts is None else now + starts * 60,
                round_days=float(round_days),
                rounds=rounds,
                robot_level=None if robot is None else int(LEVEL_NAMES[robot]),
            )
        )
        with reading(await server_reader(self.bot, interaction.guild_id)):  # a public message
            await interaction.response.send_message(**shown.announcement_parts(view))
        message = await interaction.original_response()
        await self.bot.service.handle(SetTournamentMessage(view.id, message.id))

    @tournament.command(name="join", description=command_text("command.tournament.join"))
    @app_commands.describe(tournament=command_text("command.tournament.tournament"))
    async def join(self, interaction: discord.Interaction[TableBot], tournament: RowId) -> None:
        view = await self.bot.service.handle(
            JoinTournament(
                tournament, _guild(interaction), interaction.user.id, display_name(interaction.user)
            )
        )
        await self._ephemeral(interaction, text("tournament.joined", tournament_id=view.id))
        await shown.refresh_announcement(self.bot, view)

    @tournament.command(name="leave", description=command_text("command.tournament.leave"))
    @app_commands.describe(tournament=command_text("command.tournament.tournament"))
    async def leave(self, interaction: discord.Interaction[TableBot], tournament: RowId) -> None:
        view = await self.bot.service.handle(
            LeaveTournament(tournament, _guild(interaction), interaction.user.id)
        )
        await self._ephemeral(interaction, text("tournament.left", tournament_id=view.id))
        await shown.refresh_announcement(self.bot, view)

    async def _start(
        self, interaction: discord.Interaction[TableBot], tournament: int
    ) -> TournamentView:
        me = robot_user(self.bot)
        return await self.bot.service.handle(
            StartTournament(
                tournament,
                _guild(interaction),
                interaction.user.id,
                me.id,
                me.display_name,
                manager=is_manager(interaction),
            )
        )

    @tournament.command(name="start", description=command_text("command.tournament.start"))
    @app_commands.describe(tournament=command_text("command.tournament.tournament"))
    async def start(self, interaction: discord.Interaction[TableBot], tournament: RowId) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await self._start(interaction, tournament)
        await self._ephemeral(interaction, text("tournament.started", tournament_id=view.id))
        await shown.refresh_announcement(self.bot, view)

    async def button(
        self, item: TournamentButton, interaction: discord.Interaction[TableBot]
    ) -> None:
        """Join, Leave or Start under the announcement: the click's answer edits it."""
        guild_id = _guild(interaction)
        user = interaction.user
        if item.action == "start":
            await interaction.response.defer()
            view = await self._start(interaction, item.tournament_id)
            await interaction.edit_original_response(**shown.announcement_parts(view))
            return
        if item.action == "join":
            command: Any = JoinTournament(item.tournament_id, guild_id, user.id, display_name(user))
        else:
            command = LeaveTournament(item.tournament_id, guild_id, user.id)
        view = await self.bot.service.handle(command)
        await interaction.response.edit_message(**shown.announcement_parts(view))

    # --- running ------------------------------------------------------------------------------

    @tournament.command(name="withdraw", description=command_text("command.tournament.withdraw"))
    @app_commands.describe(tournament=command_text("command.tournament.tournament"))
    async def withdraw(self, interaction: discord.Interaction[TableBot], tournament: RowId) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        guild_id, user_id = _guild(interaction), interaction.user.id
        view = await self.bot.service.handle(ShowTournament(tournament, guild_id))
        playing = [
            b.match_id
            for b in view.round_boards(view.round)
            if user_id in (b.first, b.second) and not b.finished and b.match_id is not None
        ]
        if playing and view.entrant(user_id) is not None:
            # The current match is conceded first, and its thread shows it as any match's end.
            await self._show(
                await self.bot.service.handle(LeaveMatch(playing[0], guild_id, user_id))
            )
        view = await self.bot.service.handle(WithdrawFromTournament(tournament, guild_id, user_id))
        await self._ephemeral(interaction, text("tournament.withdrew", tournament_id=view.id))
        await shown.refresh_announcement(self.bot, view)

    @tournament.command(
        name="adjudicate", description=command_text("command.tournament.adjudicate")
    )
    @app_commands.describe(
        tournament=command_text("command.tournament.tournament"),
        match=command_text("command.tournament.adjudicate.match"),
        winner=command_text("command.tournament.adjudicate.winner"),
    )
    async def adjudicate(
        self,
        interaction: discord.Interaction[TableBot],
        tournament: RowId,
        match: RowId,
        winner: discord.Member,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        update = await self.bot.service.handle(
            AdjudicateMatch(
                tournament,
                _guild(interaction),
                interaction.user.id,
                match,
                winner.id,
                manager=is_manager(interaction),
            )
        )
        name = escape_name(display_name(winner))
        await self._ephemeral(
            interaction, text("tournament.adjudicated", match_id=match, name=name)
        )
        await self._show(update)

    async def _show(self, update: MatchUpdate) -> None:
        """The match's thread shows its end, as any match's."""
        try:
            await presenter.publish(self.bot, update)
        except GameError as exc:
            log.warning("match %s: ended, not shown: %s", update.match_id, exc)

    # --- reads --------------------------------------------------------------------------------

    @tournament.command(name="show", description=command_text("command.tournament.show"))
    @app_commands.describe(tournament=command_text("command.tournament.tournament"))
    async def show(self, interaction: discord.Interaction[TableBot], tournament: RowId) -> None:
        view = await self.bot.service.handle(ShowTournament(tournament, _guild(interaction)))
        await interaction.response.defer(thinking=True)
        reader.set(await server_reader(self.bot, interaction.guild_id))  # a public message
        drawn = await shown.picture(self.bot, view)
        await interaction.followup.send(
            embed=shown.announcement(view),
            file=drawn or discord.utils.MISSING,
            allowed_mentions=NO_MENTIONS,
        )

    @tournament.command(name="list", description=command_text("command.tournament.list"))
    async def list_(self, interaction: discord.Interaction[TableBot]) -> None:
        views = await self.bot.service.handle(ListTournaments(_guild(interaction)))
        lines = [
            text(
                "tournament.list_line",
                tournament_id=v.id,
                format=shown.format_name(v.format),
                game=wording.game_title(v.game),
                status=shown.status_line(v),
            )
            for v in views
        ]
        await self._ephemeral(interaction, "\n".join(lines) or text("tournament.list_empty"))


async def setup(bot: TableBot) -> None:
    await bot.add_cog(TournamentCog(bot))
