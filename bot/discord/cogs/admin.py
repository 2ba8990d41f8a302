"""Server settings (/config ..., Manage Server only) and the owner-only global command sync.

Every /config subcommand checks Manage Server at run time as well: ``default_permissions`` only
hides the command, and server admins may grant it to anyone. Values are validated by the
service (``update_guild_settings``); a refusal changes nothing and is shown ephemerally (by the
command tree's one error path, ``TableTree.on_error``).

The per-member rate limit of commands and clicks (:mod:`bot.discord.ratelimit`) reads its
numbers from the settings here: a change invalidates the bot's cached limit for the server.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import wording
from bot.discord.replies import NO_MENTIONS
from bot.service import UpdateSettings
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import GuildSettings, MatchService

log = logging.getLogger(__name__)

NOT_MANAGER = "Only members with the Manage Server permission can change tablebot's settings."
NOT_OWNER = "Only the bot's owner can sync commands globally."
# UI bounds only (Discord enforces them in the client); the service decides what is valid.
Minutes = app_commands.Range[int, 1, 30 * 24 * 60]
Length = app_commands.Range[int, 0, 64]


def is_manager(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server (or Administrator) in this server, as Discord resolved it for the call."""
    if interaction.guild_id is None:
        return False
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def _onoff(value: bool) -> str:
    return "on" if value else "off"


def describe_settings(settings: GuildSettings) -> str:
    channels = (
        ", ".join(f"<#{cid}>" for cid in settings.challenge_channels)
        if settings.challenge_channels
        else "any channel"
    )
    return "\n".join(
        [
            "**tablebot settings for this server**",
            f"- Default lengths: Nannon {settings.nannon_length}, backgammon "
            f"{settings.backgammon_length}, checkers {settings.checkers_length} game(s)",
            f"- Cube {_onoff(settings.cube)}, Crawford {_onoff(settings.crawford)}, "
            f"Jacoby {_onoff(settings.jacoby)}, automatic doubles {settings.auto_doubles}",
            f"- Auto-roll {_onoff(settings.auto_roll)}, auto-move {_onoff(settings.auto_move)}, "
            f"auto-pass {_onoff(settings.auto_pass)} (applies to new matches)",
            f"- Reminder after {settings.reminder_minutes} min, claim after "
            f"{settings.claim_minutes} min, challenges expire after "
            f"{settings.challenge_minutes} min",
            f"- Threads for matches: {_onoff(settings.use_threads)}",
            f"- Challenges allowed in: {channels}",
            f"- Rate limit: {settings.rate_limit_actions} commands or clicks per "
            f"{settings.rate_limit_seconds} s per member",
            wording.robot_settings_line(
                settings.robot_rated, settings.hints_in_human_matches, settings.robot_pause_ms
            ),
            wording.analysis_settings_line(
                settings.analyse_robot_matches, settings.analyse_human_matches
            ),
        ]
    )


class AdminCog(commands.Cog, name="Admin"):
    """/config for server managers, /sync for the owner."""

    config = app_commands.Group(
        name="config",
        description="tablebot settings for this server (Manage Server only).",
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
            raise GameError(NOT_MANAGER)
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
            text = "Saved.\n" + describe_settings(settings)
        else:
            settings = await self.service.guild_settings(interaction.guild_id)
            text = describe_settings(settings)
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @config.command(name="show", description="Show this server's settings.")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        await self._update(interaction)

    @config.command(name="lengths", description="Default match lengths.")
    @app_commands.describe(
        nannon="Points in a Nannon match",
        backgammon="Points in a backgammon match (0 = money game)",
        checkers="Games in a checkers match",
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

    @config.command(name="cube", description="Default cube options for new matches.")
    @app_commands.describe(
        cube="Use the doubling cube",
        crawford="Crawford rule in match play",
        jacoby="Jacoby rule (money games)",
        auto_doubles="Automatic doubles on tied openings (money games; 0 = off)",
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

    @config.command(name="automation", description="Roll, move and pass automatically when forced.")
    @app_commands.describe(
        auto_roll="Roll for the player when doubling is impossible",
        auto_move="Play the only legal move",
        auto_pass="Pass a roll with no legal move at once (off: the player confirms; new matches)",
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

    @config.command(name="times", description="Reminder, claim and challenge times in minutes.")
    @app_commands.describe(
        reminder="Ping an idle player after this many minutes",
        claim="Let the opponent claim the win after this many minutes",
        challenge="Open challenges expire after this many minutes",
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

    @config.command(name="threads", description="Move each accepted match to its own thread.")
    async def threads(self, interaction: discord.Interaction[Any], enabled: bool) -> None:
        await self._update(interaction, use_threads=enabled)

    @config.command(name="channels", description="Where challenges may be posted.")
    @app_commands.describe(
        action="add/remove a channel, only this channel, or anywhere",
        channel="The channel (for add, remove and only)",
    )
    async def channels(
        self,
        interaction: discord.Interaction[Any],
        action: Literal["add", "remove", "only", "anywhere"],
        channel: discord.TextChannel | None = None,
    ) -> None:
        if not is_manager(interaction):
            raise GameError(NOT_MANAGER)
        assert interaction.guild_id is not None
        if action == "anywhere":
            await self._update(interaction, challenge_channels=())
            return
        if channel is None:
            raise GameError(f"Say which channel to {action}.")
        current = (await self.service.guild_settings(interaction.guild_id)).challenge_channels
        if action == "add":
            wanted = (*[c for c in current if c != channel.id], channel.id)
        elif action == "remove":
            if channel.id not in current:
                raise GameError(f"{channel.mention} is not in the list of challenge channels.")
            wanted = tuple(c for c in current if c != channel.id)
        else:
            wanted = (channel.id,)
        await self._update(interaction, challenge_channels=wanted)

    @config.command(name="ratelimit", description="How many commands and clicks a member may send.")
    @app_commands.describe(
        actions="Commands and clicks allowed ...", seconds="... per this many seconds"
    )
    async def ratelimit_(
        self,
        interaction: discord.Interaction[Any],
        actions: app_commands.Range[int, 1, 1000] | None = None,
        seconds: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        await self._update(interaction, rate_limit_actions=actions, rate_limit_seconds=seconds)

    @config.command(name="robot", description="Matches against tablebot, and /hint.")
    @app_commands.describe(
        rated="Robot matches change ratings and leaderboards (default off)",
        hints="Allow /hint in matches between people too (default off)",
        pause_ms="The robot shows its move after this pause, in ms (default 1000)",
        think_s="The master robot's thinking time per checkers move, in s (default 2)",
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

    @config.command(name="analysis", description="Analyse matches when they end.")
    @app_commands.describe(
        robot="Analyse matches against tablebot when they end (default on)",
        people="Analyse matches between people when they end (default off)",
    )
    async def analysis(
        self,
        interaction: discord.Interaction[Any],
        robot: bool | None = None,
        people: bool | None = None,
    ) -> None:
        await self._update(interaction, analyse_robot_matches=robot, analyse_human_matches=people)

    @app_commands.command(name="sync", description="Owner only: sync slash commands globally.")
    @app_commands.guild_only()
    @app_commands.default_permissions(administrator=True)
    async def sync(self, interaction: discord.Interaction[Any]) -> None:
        if not await self.bot.is_owner(interaction.user):
            raise GameError(NOT_OWNER)
        await interaction.response.defer(ephemeral=True, thinking=True)
        synced = await self.bot.sync_global()
        log.info("global sync by the owner: %d commands", len(synced))
        await interaction.followup.send(
            f"Synced {len(synced)} commands globally (they may take up to an hour to appear).",
            ephemeral=True,
        )


async def setup(bot: TableBot) -> None:
    await bot.add_cog(AdminCog(bot))
