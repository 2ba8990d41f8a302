"""Adapter helpers shared by every cog and view: safe mentions, escaped names, polite replies,
error handling with context, and finding "the match this command is about".

Nothing here decides a rule; refusals come from the service as :class:`GameError` and are shown
to the user in :mod:`bot.discord.wording`'s words.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from aiohttp import ClientError

from bot.discord.catalogue import text
from bot.discord.wording import game_name, refusal_text
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.service import MatchService, MatchView

log = logging.getLogger(__name__)

# The client default: nothing pings unless a message opts one user in with mention_only().
NO_MENTIONS = discord.AllowedMentions.none()

APOLOGY = text("error.apology")
RESTARTING = text("error.restarting")
EPHEMERAL_LIMIT = 2000


def mention_only(*user_ids: int) -> discord.AllowedMentions:
    """Allowed mentions that may ping these users and never @everyone, @here or roles."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        replied_user=False,
        users=[discord.Object(id=uid) for uid in user_ids],
    )


# escape_mentions only knows ids of 17-20 digits; a zero-width space after "<" breaks any
# user, role or channel mention Discord would otherwise draw ("<@&123>").
_ANY_MENTION = re.compile(r"<(?=[@#])")
_PERSON_MENTION = re.compile(r"<(?=@)")


def escape_name(name: str, limit: int = 64) -> str:
    """A display name made inert for message content and embeds: no markdown, no mentions."""
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip() or "?"
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1] + "…"
    cleaned = discord.utils.escape_markdown(cleaned)
    return _ANY_MENTION.sub("<\u200b", discord.utils.escape_mentions(cleaned))


def inert_text(text: str) -> str:
    """Plain text from the service or the engines (which may quote player names) made inert:
    markdown escaped, no @everyone, @here, user or role mentions. Channel links (``<#id>``)
    stay: the service names challenge channels that way, and they ping no one."""
    escaped = discord.utils.escape_mentions(discord.utils.escape_markdown(text))
    return _PERSON_MENTION.sub("<\u200b", escaped)


class FormattedGameError(GameError):
    """A refusal the adapter wrote itself, names already escaped: shown as it is."""


def display_name(user: discord.abc.User) -> str:
    """The name players see (server nickname or global name), unescaped: store it as is."""
    return user.display_name


def interaction_context(interaction: discord.Interaction[Any]) -> str:
    """A one-line description of an interaction for logs (never any secret)."""
    data: dict[str, Any] = dict(interaction.data or {})
    what = data.get("name") or data.get("custom_id") or interaction.type.name
    return (  # not for members: a log line's
        f"interaction {interaction.id} ({what}) by user {interaction.user.id} "
        f"in guild {interaction.guild_id} channel {interaction.channel_id}"
    )


async def reply(
    interaction: discord.Interaction[Any],
    content: str,
    *,
    ephemeral: bool = True,
    **kwargs: Any,
) -> None:
    """Answer an interaction whether or not it was already responded to (or deferred)."""
    content = content[:EPHEMERAL_LIMIT]
    kwargs.setdefault("allowed_mentions", NO_MENTIONS)
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=ephemeral, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=ephemeral, **kwargs)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """The adapter's one error path: the command tree's ``on_error`` and every persistent
    component's callback end here. A service refusal becomes a polite ephemeral reply; anything
    else is logged with the interaction's context and the user gets a short apology. Never
    raises."""
    if isinstance(error, FormattedGameError):
        message = str(error)
    elif isinstance(error, GameError):
        message = inert_text(refusal_text(error)) or text("refusal.fallback")
    else:
        log.error("unexpected error in %s", interaction_context(interaction), exc_info=error)
        message = APOLOGY
    try:
        await reply(interaction, message)
    except discord.HTTPException:
        log.warning("could not send the error reply for %s", interaction_context(interaction))


def admit(interaction: discord.Interaction[Any]) -> bool:
    """Register this interaction's handler as work the bot waits for when it closes
    (``TableBot.begin_work``). False once the bot is closing: refuse with
    :func:`refuse_closing` and touch nothing."""
    begin = getattr(interaction.client, "begin_work", None)
    return True if begin is None else bool(begin())


async def refuse_closing(interaction: discord.Interaction[Any]) -> None:
    """Tell the user the bot is going down (best effort: the connection may be closing too)."""
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])
            return
        await reply(interaction, RESTARTING)
    except (discord.HTTPException, discord.ClientException, RuntimeError, OSError, ClientError):
        log.info("could not refuse %s while closing", interaction_context(interaction))


def candidates_message(views: Sequence[MatchView], user_id: int) -> str:
    lines = [text("match.candidates")]
    for view in views[:10]:
        seat = view.seat_of(user_id)
        other = view.players[1 - seat] if seat is not None else view.players[1]
        where = f"<#{view.thread_id}>" if view.thread_id else f"<#{view.channel_id}>"
        lines.append(
            text(
                "match.candidate",
                match_id=view.match_id,
                game=game_name(view.kind),
                name=escape_name(other.name),
                where=where,
            )
        )
    return "\n".join(lines)


async def resolve_match(service: MatchService, interaction: discord.Interaction[Any]) -> MatchView:
    """The match a command is about: the thread's match, else the user's only match in this
    channel. Raises GameError (shown to the user) when there is none or several."""
    guild_id = interaction.guild_id
    channel_id = interaction.channel_id
    if guild_id is None or channel_id is None:
        raise FormattedGameError(text("refusal.server_only"))
    in_thread = await service.match_in_thread(channel_id)
    if in_thread is not None and in_thread.guild_id == guild_id:
        return in_thread
    views = await service.candidate_matches(guild_id, channel_id, interaction.user.id)
    if len(views) == 1:
        return views[0]
    if not views:
        raise FormattedGameError(text("refusal.no_match_here"))
    raise FormattedGameError(candidates_message(views, interaction.user.id))
