"""Matches against the robot: ``/challenge game:<g> opponent:@tablebot [level]`` and the rematch
under a finished robot match. The service records the challenge as any other and the robot
accepts at once; the match gets its thread and first board as any match, and the robot cog
(:mod:`bot.discord.cogs.robot`) plays its turns from there. A game whose engine does not run
here (backgammon without GNU Backgammon) is refused politely."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.discord import invitations, permissions, presenter, wording
from bot.discord.catalogue import text
from bot.discord.locales import for_server
from bot.discord.replies import NO_MENTIONS, display_name, escape_name
from bot.discord.style import style_of
from bot.robot import player
from bot.robot.levels import LEVEL_NAMES
from bot.service import MatchUpdate, RobotMatch, RobotRematch
from bot.service.commands import ViewMatch
from engines.base import GameKind
from engines.errors import GameError
from engines.spec import spec_of

if TYPE_CHECKING:
    from bot.discord.app import TableBot

__all__ = ["LevelName", "is_robot", "robot_rematch", "start_robot_match"]

LevelName = Literal["beginner", "intermediate", "advanced", "expert", "master"]


def robot_user(bot: TableBot) -> discord.ClientUser:
    me = bot.user
    if me is None:  # only before the bot has logged in
        raise GameError(text("robot.not_ready"))
    return me


def is_robot(bot: TableBot, member: discord.abc.User | None) -> bool:
    """Whether ``member`` is tablebot itself: the robot."""
    return member is not None and bot.user is not None and member.id == bot.user.id


@for_server
async def announce(
    bot: TableBot,
    update: MatchUpdate,
    respond: Callable[..., Awaitable[discord.Message]],
    permissions_here: discord.Permissions,
) -> None:
    """Post the accepted challenge with ``respond`` (the interaction's answer, or a plain
    message), then start the match from it: its thread (where the bot may open one and post
    in it: ``permissions_here``), its first board."""
    view = update.view
    assert view.robot_seat is not None and view.robot_level is not None
    human = view.players[1 - view.robot_seat]
    robot = view.players[view.robot_seat]
    what = invitations.what_text(view.kind, view.rules)
    embed = discord.Embed(
        title=text("challenge.title", game=wording.game_title(view.kind)),
        description=wording.robot_challenge(
            escape_name(human.name), escape_name(robot.name), view.robot_level, what
        ),
        colour=style_of(view.kind).colour,
    )
    embed.set_footer(text=text("match.footer", match_id=view.match_id))
    message = await respond(embed=embed, allowed_mentions=NO_MENTIONS)
    threads = permissions.can_open_thread(permissions_here)
    await presenter.start_match(bot, update, message, threads=threads)


async def start_robot_match(
    bot: TableBot,
    interaction: discord.Interaction[TableBot],
    game: GameKind,
    level: str | None,
    **options: Any,
) -> None:
    """/challenge against tablebot: the robot accepts at once (politely refused for a game it
    can't play here)."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise GameError(text("robot.server_only"))
    if not await player.available(bot.robot_worker, spec_of(game)):
        raise GameError(wording.robot_unavailable(game))
    me = robot_user(bot)
    update = await bot.service.handle(
        RobotMatch(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            display_name(interaction.user),
            game,
            robot_id=me.id,
            robot_name=me.display_name,
            level=int(LEVEL_NAMES[level or wording.DEFAULT_LEVEL]),
            **options,
        )
    )

    async def respond(**kwargs: Any) -> discord.Message:
        await interaction.response.send_message(**kwargs)
        return await interaction.original_response()

    await announce(bot, update, respond, interaction.app_permissions)


async def robot_rematch(
    bot: TableBot, interaction: discord.Interaction[TableBot], match_id: int
) -> None:
    """Rematch under a finished robot match: a new one at once, at the same level."""
    view = await bot.service.handle(ViewMatch(match_id, interaction.guild_id or 0))
    if not await player.available(bot.robot_worker, spec_of(view.kind)):
        raise GameError(wording.robot_unavailable(view.kind))
    update = await bot.service.handle(
        RobotRematch(match_id, interaction.guild_id or 0, interaction.user.id)
    )
    channel = presenter.target_channel(bot, update.view)

    async def respond(**kwargs: Any) -> discord.Message:
        return await channel.send(**kwargs)

    await announce(bot, update, respond, interaction.app_permissions)
