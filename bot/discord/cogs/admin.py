"""Server settings (/config ..., Manage Server only) and the owner-only global command sync.

Every /config subcommand checks Manage Server at run time as well: ``default_permissions`` only
hides the command, and server admins may grant it to anyone. Values are validated by the
service (``UpdateSettings``); a refusal changes nothing and is shown ephemerally (by the
command tree's one error path, ``TableTree.on_error``).

The per-member rate limit of commands and clicks (:mod:`bot.discord.ratelimit`) reads its
numbers from the settings here: a change invalidates the bot's cached limit for the server.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal, get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import wording
from bot.discord.catalogue import choices, command_text, plural_key, text
from bot.discord.cogs.language import LANGUAGE_CHOICES, chosen_language, language_name
from bot.discord.replies import NO_MENTIONS
from bot.service import UpdateSettings
from bot.service.commands import GetSettings
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import GuildSettings, MatchService

log = logging.getLogger(__name__)

NOT_MANAGER = text("refusal.not_manager")
NOT_OWNER = text("refusal.not_owner")
# UI bounds only (Discord enforces them in the client); the service decides what is valid.
Minutes = app_commands.Range[int, 1, 30 * 24 * 60]
Length = app_commands.Range[int, 0, 64]
ChannelsAction = Literal["add", "remove", "only", "anywhere"]


def is_manager(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server (or Administrator) in this server, as Discord resolved it for the call."""
    if interaction.guild_id is None:
        return False
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def _onoff(value: bool) -> str:
    return text("settings.on" if value else "settings.off")


def describe_settings(settings: GuildSettings) -> str:
    channels = (
        wording.listed([f"<#{cid}>" for cid in settings.challenge_channels])
        if settings.challenge_channels
        else text("settings.any_channel")
    )
    return "\n".join(
        [
            text("settings.title"),
            text(
                plural_key("settings.lengths", settings.checkers_length),
                nannon=settings.nannon_length,
                backgammon=settings.backgammon_length,
                checkers=settings.checkers_length,
            ),
            text(
                "settings.cube",
                cube=_onoff(settings.cube),
                crawford=_onoff(settings.crawford),
                jacoby=_onoff(settings.jacoby),
                auto_doubles=settings.auto_doubles,
            ),
            text(
                "settings.automation",
                auto_roll=_onoff(settings.auto_roll),
                auto_move=_onoff(settings.auto_move),
                auto_pass=_onoff(settings.auto_pass),
            ),
            text(
                "settings.times",
                reminder=settings.reminder_minutes,
                claim=settings.claim_minutes,
                challenge=settings.challenge_minutes,
            ),
            text("settings.threads", threads=_onoff(settings.use_threads)),
            text("settings.channels", channels=channels),
            text(
                plural_key("settings.rate_limit", settings.rate_limit_actions),
                actions=settings.rate_limit_actions,
                seconds=settings.rate_limit_seconds,
            ),
            wording.robot_settings_line(
                settings.robot_rated, settings.hints_in_human_matches, settings.robot_pause_ms
            ),
            wording.analysis_settings_line(
                settings.analyse_robot_matches, settings.analyse_human_matches
            ),
            text(
                "settings.tournaments",
                role=f"<@&{settings.tournament_role}>"
                if settings.tournament_role
                else text("settings.managers_only"),
            ),
            puzzles_line(settings),
            text(
                "settings.language",
                language=language_name(settings.language)
                if settings.language
                else text("settings.discord_language"),
            ),
        ]
    )


def parse_time(value: str) -> int:
    """``HH:MM`` (UTC) as minutes after midnight; a clear refusal otherwise."""
    hours, colon, minutes = value.strip().partition(":")
    clock = colon and hours.isdigit() and minutes.isdigit() and len(minutes) == 2
    if clock and int(hours) < 24 and int(minutes) < 60:
        return int(hours) * 60 + int(minutes)
    raise GameError(text("refusal.puzzle_time", value=value[:20]))


def puzzles_line(settings: GuildSettings) -> str:
    minutes = settings.puzzles_time
    where = (
        f"<#{settings.puzzles_channel}>" if settings.puzzles_channel else text("puzzle.config.off")
    )
    return text(
        "puzzle.config",
        where=where,
        time=f"{minutes // 60:02d}:{minutes % 60:02d}",
        names=_onoff(settings.puzzles_name_players),
    )


class AdminCog(commands.Cog, name="Admin"):
    """/config for server managers, /sync for the owner."""

    config = app_commands.Group(
        name="config",
        description=command_text("command.config"),
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
        default_permissions=discord.Permissions(manage_guild=True),
    )

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot

    @property
    def service(self) -> MatchService:
        return self.bot.service

    async def _update(self, interaction: discord.Interaction[Any], **changes: Any) -> None:
        """Check the caller, apply ``changes`` (None values dropped), answer with the result."""
        if not is_manager(interaction):
            raise GameError(text("refusal.not_manager"))
        assert interaction.guild_id is not None
        wanted = {key: value for key, value in changes.items() if value is not None}
        if wanted:
            settings = await self.service.handle(UpdateSettings(interaction.guild_id, wanted))
            log.info(
                "guild %s settings changed by %s: %s",
                interaction.guild_id,
                interaction.user.id,
                sorted(wanted),
            )
            self.bot.rate_limit.invalidate(interaction.guild_id)
            said = text("settings.saved", settings=describe_settings(settings))
        else:
            settings = await self.service.handle(GetSettings(interaction.guild_id))
            said = describe_settings(settings)
        await interaction.response.send_message(said, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @config.command(name="show", description=command_text("command.config.show"))
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        await self._update(interaction)

    @config.command(name="lengths", description=command_text("command.config.lengths"))
    @app_commands.describe(
        nannon=command_text("command.config.lengths.nannon"),
        backgammon=command_text("command.config.lengths.backgammon"),
        checkers=command_text("command.config.lengths.checkers"),
    )
    async def lengths(
        self,
        interaction: discord.Interaction[Any],
        nannon: Length | None = None,
        backgammon: Length | None = None,
        checkers: Length | None = None,
    ) -> None:
        await self._update(
            interaction,
            nannon_length=nannon,
            backgammon_length=backgammon,
            checkers_length=checkers,
        )

    @config.command(name="cube", description=command_text("command.config.cube"))
    @app_commands.describe(
        cube=command_text("command.config.cube.cube"),
        crawford=command_text("command.config.cube.crawford"),
        jacoby=command_text("command.config.cube.jacoby"),
        auto_doubles=command_text("command.config.cube.auto_doubles"),
    )
    async def cube(
        self,
        interaction: discord.Interaction[Any],
        cube: bool | None = None,
        crawford: bool | None = None,
        jacoby: bool | None = None,
        auto_doubles: app_commands.Range[int, 0, 64] | None = None,
    ) -> None:
        await self._update(
            interaction, cube=cube, crawford=crawford, jacoby=jacoby, auto_doubles=auto_doubles
        )

    @config.command(name="automation", description=command_text("command.config.automation"))
    @app_commands.describe(
        auto_roll=command_text("command.config.automation.auto_roll"),
        auto_move=command_text("command.config.automation.auto_move"),
        auto_pass=command_text("command.config.automation.auto_pass"),
    )
    async def automation(
        self,
        interaction: discord.Interaction[Any],
        auto_roll: bool | None = None,
        auto_move: bool | None = None,
        auto_pass: bool | None = None,
    ) -> None:
        await self._update(
            interaction, auto_roll=auto_roll, auto_move=auto_move, auto_pass=auto_pass
        )

    @config.command(name="times", description=command_text("command.config.times"))
    @app_commands.describe(
        reminder=command_text("command.config.times.reminder"),
        claim=command_text("command.config.times.claim"),
        challenge=command_text("command.config.times.challenge"),
    )
    async def times(
        self,
        interaction: discord.Interaction[Any],
        reminder: Minutes | None = None,
        claim: Minutes | None = None,
        challenge: Minutes | None = None,
    ) -> None:
        await self._update(
            interaction,
            reminder_minutes=reminder,
            claim_minutes=claim,
            challenge_minutes=challenge,
        )

    @config.command(name="threads", description=command_text("command.config.threads"))
    @app_commands.describe(enabled=command_text("command.config.threads.enabled"))
    async def threads(self, interaction: discord.Interaction[Any], enabled: bool) -> None:
        await self._update(interaction, use_threads=enabled)

    @config.command(name="channels", description=command_text("command.config.channels"))
    @app_commands.describe(
        action=command_text("command.config.channels.action"),
        channel=command_text("command.config.channels.channel"),
    )
    @app_commands.choices(action=choices("channels", get_args(ChannelsAction)))
    async def channels(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        channel: discord.TextChannel | None = None,
    ) -> None:
        if not is_manager(interaction):
            raise GameError(text("refusal.not_manager"))
        assert interaction.guild_id is not None
        if action == "anywhere":
            await self._update(interaction, challenge_channels=())
            return
        if channel is None:
            raise GameError(text("refusal.which_channel", action=action))
        current = (await self.service.handle(GetSettings(interaction.guild_id))).challenge_channels
        if action == "add":
            wanted = (*[c for c in current if c != channel.id], channel.id)
        elif action == "remove":
            if channel.id not in current:
                raise GameError(text("refusal.channel_not_listed", channel=channel.mention))
            wanted = tuple(c for c in current if c != channel.id)
        else:
            wanted = (channel.id,)
        await self._update(interaction, challenge_channels=wanted)

    @config.command(name="ratelimit", description=command_text("command.config.ratelimit"))
    @app_commands.describe(
        actions=command_text("command.config.ratelimit.actions"),
        seconds=command_text("command.config.ratelimit.seconds"),
    )
    async def ratelimit_(
        self,
        interaction: discord.Interaction[Any],
        actions: app_commands.Range[int, 1, 1000] | None = None,
        seconds: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        await self._update(interaction, rate_limit_actions=actions, rate_limit_seconds=seconds)

    @config.command(name="robot", description=command_text("command.config.robot"))
    @app_commands.describe(
        rated=command_text("command.config.robot.rated"),
        hints=command_text("command.config.robot.hints"),
        pause_ms=command_text("command.config.robot.pause_ms"),
        think_s=command_text("command.config.robot.think_s"),
    )
    async def robot(
        self,
        interaction: discord.Interaction[Any],
        rated: bool | None = None,
        hints: bool | None = None,
        pause_ms: app_commands.Range[int, 0, 10_000] | None = None,
        think_s: app_commands.Range[int, 1, 30] | None = None,
    ) -> None:
        await self._update(
            interaction,
            robot_rated=rated,
            hints_in_human_matches=hints,
            robot_pause_ms=pause_ms,
            robot_think_s=think_s,
        )

    @config.command(name="analysis", description=command_text("command.config.analysis"))
    @app_commands.describe(
        robot=command_text("command.config.analysis.robot"),
        people=command_text("command.config.analysis.people"),
    )
    async def analysis(
        self,
        interaction: discord.Interaction[Any],
        robot: bool | None = None,
        people: bool | None = None,
    ) -> None:
        await self._update(interaction, analyse_robot_matches=robot, analyse_human_matches=people)

    @config.command(name="tournaments", description=command_text("command.config.tournaments"))
    @app_commands.describe(
        role=command_text("command.config.tournaments.role"),
        managers_only=command_text("command.config.tournaments.managers_only"),
    )
    async def tournaments(
        self,
        interaction: discord.Interaction[Any],
        role: discord.Role | None = None,
        managers_only: bool | None = None,
    ) -> None:
        chosen = 0 if managers_only else (role.id if role is not None else None)
        await self._update(interaction, tournament_role=chosen)

    @config.command(name="puzzles", description=command_text("command.config.puzzles"))
    @app_commands.describe(
        channel=command_text("command.config.puzzles.channel"),
        time=command_text("command.config.puzzles.time"),
        name_players=command_text("command.config.puzzles.name_players"),
        off=command_text("command.config.puzzles.off"),
    )
    async def puzzles(
        self,
        interaction: discord.Interaction[Any],
        channel: discord.TextChannel | None = None,
        time: str | None = None,
        name_players: bool | None = None,
        off: bool | None = None,
    ) -> None:
        await self._update(
            interaction,
            puzzles_channel=0 if off else (channel.id if channel is not None else None),
            puzzles_time=parse_time(time) if time is not None else None,
            puzzles_name_players=name_players,
        )

    @config.command(name="language", description=command_text("command.config.language"))
    @app_commands.describe(language=command_text("command.config.language.language"))
    @app_commands.choices(language=choices("language", LANGUAGE_CHOICES))
    async def language(self, interaction: discord.Interaction[Any], language: str) -> None:
        await self._update(interaction, language=chosen_language(language) or "")

    @app_commands.command(name="sync", description=command_text("command.sync"))
    @app_commands.guild_only()
    @app_commands.default_permissions(administrator=True)
    async def sync(self, interaction: discord.Interaction[Any]) -> None:
        if not await self.bot.is_owner(interaction.user):
            raise GameError(text("refusal.not_owner"))
        await interaction.response.defer(ephemeral=True, thinking=True)
        synced = await self.bot.sync_global()
        log.info("global sync by the owner: %d commands", len(synced))
        await interaction.followup.send(
            text(plural_key("sync.done", len(synced)), count=len(synced)),
            ephemeral=True,
        )


async def setup(bot: TableBot) -> None:
    await bot.add_cog(AdminCog(bot))
