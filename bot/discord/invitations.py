"""Challenge invitations: what an invitation says (the game and its options), posting one, and
closing it once the challenge expires."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.discord import components as ui
from bot.discord import wording
from bot.discord.catalogue import text
from bot.discord.delivery import length_text
from bot.discord.locales import for_server
from bot.discord.replies import NO_MENTIONS, escape_name, mention_only
from bot.discord.style import style_of
from bot.service.commands import SetChallengeMessage
from engines.base import GameKind, MatchRules
from engines.spec import spec_of

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import Challenge

log = logging.getLogger(__name__)


def what_text(game: GameKind, rules: MatchRules) -> str:
    """The game and its options, as an invitation says them: "Backgammon, to 5 (cube,
    Crawford)"."""
    spec = spec_of(game)
    what = text("what.game", game=wording.game_title(game), length=length_text(game, rules.length))
    if spec.cube:  # the cube options, said even when the cube is off
        options = [text("what.cube" if rules.cube else "what.no_cube")]
        if rules.cube and rules.length:
            options.append(text("what.crawford" if rules.crawford else "what.no_crawford"))
        if rules.jacoby:
            options.append(text("what.jacoby"))
        if rules.auto_doubles:
            options.append(text("what.auto_doubles", count=rules.auto_doubles))
        what += text("what.options", options=wording.listed(options))
    return what


def invitation(challenge: Challenge) -> tuple[str | None, discord.Embed, discord.AllowedMentions]:
    challenger = escape_name(challenge.challenger.name)
    what = what_text(challenge.game, challenge.rules)
    if challenge.opponent is not None:
        opponent = escape_name(challenge.opponent.name)
        description = text(
            "challenge.invitation", challenger=challenger, opponent=opponent, what=what
        )
        content: str | None = text("challenge.ping", user_id=challenge.opponent.user_id)
        allowed = mention_only(challenge.opponent.user_id)
    else:
        description = text("challenge.open_invitation", challenger=challenger, what=what)
        content = None
        allowed = NO_MENTIONS
    embed = discord.Embed(
        title=text("challenge.title", game=wording.game_title(challenge.game)),
        description=description,
        colour=style_of(challenge.game).colour,
    )
    embed.set_footer(text=text("challenge.footer", challenge_id=challenge.id))
    return content, embed, allowed


@for_server
async def post_invitation(bot: TableBot, challenge: Challenge) -> discord.Message:
    """Post an invitation as a plain message (rematches); /challenge answers with its own."""
    content, embed, allowed = invitation(challenge)
    channel = bot.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
    message = await channel.send(
        content, embed=embed, view=ui.invitation_view(challenge.id), allowed_mentions=allowed
    )
    await bot.service.handle(SetChallengeMessage(challenge.id, message.id))
    return message


def expired_text(challenge: Challenge) -> str:
    """What an expired invitation says once its buttons are gone."""
    challenger = escape_name(challenge.challenger.name)
    if challenge.opponent is not None:
        opponent = escape_name(challenge.opponent.name)
        return text("challenge.expired_for", challenger=challenger, opponent=opponent)
    return text("challenge.expired_open", challenger=challenger)


@for_server
async def close_expired_invitation(bot: TableBot, challenge: Challenge) -> bool:
    """Edit an expired challenge's invitation to say so, without buttons. False when there is
    nothing to edit (no message recorded, or it was deleted: both quietly) or the edit failed."""
    if challenge.message_id is None:
        return False
    channel = bot.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
    try:
        await channel.get_partial_message(challenge.message_id).edit(
            content=expired_text(challenge), view=None, allowed_mentions=NO_MENTIONS
        )
    except discord.NotFound:
        log.debug("challenge %s: its invitation is gone", challenge.id)
        return False
    except discord.HTTPException as exc:
        log.warning("challenge %s: could not close its invitation: %s", challenge.id, exc)
        return False
    return True
