"""How a match's messages reach Discord, within the bot's request budget.

Discord allows a bot token 50 requests a second in all (and 5 messages, or 5 edits, per 5 s in
one channel), but exempts the interaction endpoints: the interaction's callback, and follow-ups
and edits through its webhook. So an action answers through its own interaction wherever it can:

- a click's answer edits the clicked board in place (UPDATE_MESSAGE) when the same player
  goes on, or takes its buttons away when the turn passes (:func:`answer_edit`). Discord forgets
  an interaction not answered within 3 s: :func:`in_time` defers at ``budget`` seconds when the
  action takes longer, and the edit then goes through the webhook (@original);
- a new message (the next player's board, which pings them, or a result) is the interaction's
  follow-up when it belongs in the interaction's channel (:func:`post_board_message`);
- a board posted as a follow-up is remembered with its webhook (``bot.board_hooks``) while the
  webhook lives (15 minutes), so a typed command or a click on an ephemeral menu edits the board
  through that webhook too (:func:`edit_board`);
- the robot's reply (its whole turn, in one board) and a match's analysis are shown through
  the latest member's interaction in the match while its token lives (:func:`live_interaction`);
- the rest uses the bot token: the first board in a new thread, /board, reminders, a board
  whose webhook has expired, the robot's reply to a member who waited 15 minutes.
  :func:`send_to_match` posts in the match's thread and, when the thread is gone, locked or
  closed to the bot (404, 403), moves the match to a new thread where the bot may open one,
  else to the thread's parent channel, and posts there, once: a channel that refuses is not
  retried in a loop.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.discord import permissions, wording
from bot.discord.catalogue import plural_key, text
from bot.service.commands import GetSettings, SetThread, ViewMatch
from engines.base import GameKind
from engines.spec import spec_of

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import MatchView

log = logging.getLogger(__name__)

# An interaction's webhook takes follow-ups and edits for 15 minutes: a board's is used for 14,
# and so is a member's interaction for the robot's reply and the analysis.
HOOK_LIFETIME = 14 * 60.0
# Remembered interactions past this many are swept of the expired ones.
SWEEP_AT = 256

_LOCK = "tablebot.answer"
_FILLED = "tablebot.filled"


@dataclass
class TurnMessage:
    """A board message ready to be sent or edited in: the content (the ping), the embed, the
    board picture, the components and who may be pinged."""

    content: str | None
    embed: discord.Embed
    file: discord.File | None
    view: discord.ui.View | None
    allowed_mentions: discord.AllowedMentions

    def for_send(self) -> dict[str, Any]:
        """Keyword arguments of ``send`` (a channel's, or a follow-up's), content apart."""
        kwargs: dict[str, Any] = {"embed": self.embed, "allowed_mentions": self.allowed_mentions}
        if self.file is not None:
            self.file.reset()  # the same picture may be sent again after a refusal
            kwargs["file"] = self.file
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def for_edit(self) -> dict[str, Any]:
        """Keyword arguments of an edit that makes an earlier message this one."""
        if self.file is not None:
            self.file.reset()
        return {
            "content": self.content,
            "embed": self.embed,
            "attachments": [self.file] if self.file is not None else [],
            "view": self.view,
            "allowed_mentions": self.allowed_mentions,
        }


# --- the interaction's own answer ----------------------------------------------------------


def _lock(interaction: discord.Interaction[Any]) -> asyncio.Lock:
    lock = interaction.extras.get(_LOCK)
    if lock is None:
        lock = interaction.extras[_LOCK] = asyncio.Lock()
    return lock


def is_click(interaction: discord.Interaction[Any] | None) -> bool:
    return interaction is not None and interaction.type is discord.InteractionType.component


async def answer_edit(interaction: discord.Interaction[Any], **fields: Any) -> None:
    """Edit the message a component is on: the interaction's answer (UPDATE_MESSAGE), or,
    once it was deferred, an edit of @original through the webhook."""
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.edit_message(**fields)
        else:
            await interaction.edit_original_response(**fields)


async def defer(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge a click not answered yet (a deferred update: nothing changes)."""
    async with _lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer()


async def in_time(
    interaction: discord.Interaction[Any], work: Coroutine[Any, Any, None], budget: float
) -> None:
    """Run a click's ``work``, which answers it (:func:`answer_edit`); if it is not answered
    after ``budget`` seconds, defer it, so Discord keeps it, and let the work finish. A click
    the work did not answer is deferred at the end. The work's errors propagate, unanswered,
    to the one error path (which then answers)."""
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=budget)
        if not done:
            log.info("deferring a slow click (%.1f s)", budget)
            await defer(interaction)
        await task
    finally:
        if not task.done():
            task.cancel()
    await defer(interaction)


def mark_filled(interaction: discord.Interaction[Any]) -> None:
    """A command's "thinking" answer is filled in (its first follow-up was sent): follow-ups
    from now on are messages of their own."""
    interaction.extras[_FILLED] = True


def can_follow_up(interaction: discord.Interaction[Any] | None, channel_id: int) -> bool:
    """Whether a follow-up of ``interaction`` is a new message in ``channel_id``: a click that
    was answered, or a command whose "thinking" answer was filled in, in that channel."""
    if interaction is None or interaction.channel_id != channel_id:
        return False
    if is_click(interaction):
        return interaction.response.is_done()
    return bool(interaction.extras.get(_FILLED))


def remember_interaction(
    bot: TableBot, match_id: int, interaction: discord.Interaction[Any]
) -> None:
    """``interaction`` is the latest member's in the match: what follows it without one of
    its own (the robot's reply, the analysis) is shown through it while its token lives."""
    now = bot.clock()
    remembered = bot.match_interactions
    if len(remembered) >= SWEEP_AT:
        for expired in [m for m, (_, until) in remembered.items() if until <= now]:
            del remembered[expired]
    remembered[match_id] = (interaction, now + HOOK_LIFETIME)


def live_interaction(bot: TableBot, match_id: int) -> discord.Interaction[Any] | None:
    """The match's latest member's interaction while its token lives, else None (the bot
    token then)."""
    found = bot.match_interactions.get(match_id)
    if found is None:
        return None
    interaction, until = found
    if bot.clock() >= until:
        del bot.match_interactions[match_id]
        return None
    return interaction


# --- where a match is played ---------------------------------------------------------------


class MatchPlace(Protocol):
    """Where a match is played (a MatchView, or an IdleMatch for the reminders)."""

    @property
    def match_id(self) -> int: ...
    @property
    def guild_id(self) -> int: ...
    @property
    def channel_id(self) -> int: ...
    @property
    def thread_id(self) -> int | None: ...


# Discord archives an idle thread about its auto-archive duration after its last activity: an
# archive this much earlier than that still counts as the thread's own (clocks differ a little).
ARCHIVE_SLACK = 60.0


def archive_time(meta: dict[str, Any]) -> float | None:
    """When a thread was archived, in seconds since the epoch: its ``thread_metadata``'s
    ``archive_timestamp`` (ISO 8601), None when absent or unreadable."""
    stamp = meta.get("archive_timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def match_channel_id(view: MatchPlace) -> int:
    return view.thread_id or view.channel_id


def target_channel(bot: TableBot, view: MatchPlace) -> discord.PartialMessageable:
    """The match's thread, else its channel. A partial channel: discord.py keeps no archived
    thread in its cache, and a post needs none."""
    return bot.get_partial_messageable(match_channel_id(view), guild_id=view.guild_id)


async def send_to_match(
    bot: TableBot, match: MatchPlace, content: str | None = None, **kwargs: Any
) -> discord.Message:
    """Post in the match's thread (else channel) with the bot token. A thread that refuses
    (404: deleted; 403: locked, or closed to the bot) no longer hosts the match: the match moves
    to a new thread (:func:`new_thread`, where the bot may open one) or else to the parent
    channel, and the message is posted there, once. A refusal there is raised."""
    try:
        return await target_channel(bot, match).send(content, **kwargs)
    except (discord.NotFound, discord.Forbidden) as exc:
        if match.thread_id is None:
            raise
        log.warning(
            "match %s: thread %s refused a post (%s); the match moves to channel %s",
            match.match_id,
            match.thread_id,
            exc,
            match.channel_id,
        )
    async with moving(match.match_id):
        view = await bot.service.handle(ViewMatch(match.match_id, match.guild_id))
        thread_id = view.thread_id
        if thread_id == match.thread_id:  # not moved meanwhile by another refusal or event
            thread_id = await new_thread(bot, view)
            await bot.service.handle(SetThread(match.match_id, thread_id))
    forget_board(bot, match.match_id)
    for file in [kwargs.get("file"), *(kwargs.get("files") or [])]:
        if isinstance(file, discord.File):
            file.reset()
    place = bot.get_partial_messageable(thread_id or match.channel_id, guild_id=match.guild_id)
    moved = wording.thread_gone("refused")
    return await place.send(f"{moved}\n{content}" if content else moved, **kwargs)


_MOVING: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


def moving(match_id: int) -> asyncio.Lock:
    """The lock under which a match leaves its thread: two events or refusals at once (a
    moderator's lock, then archive) must not each open a new thread."""
    lock = _MOVING.get(match_id)
    if lock is None:
        lock = _MOVING[match_id] = asyncio.Lock()
    return lock


def length_text(kind: GameKind, length: int) -> str:
    if length == 0:
        return text("length.money")
    unit = spec_of(kind).score_unit
    if unit != "point":  # "3 games"; a match to 3 points is "to 3"
        return text(plural_key(f"unit.{unit}", length), count=length)
    return text("length.to", length=length)


def match_title(view: MatchView) -> str:
    """ "Nannon · alice vs bob · to 11": the thread name and embed title (plain text)."""
    first, second = (p.name[:32] for p in view.players)
    return text(
        "match.title",
        game=wording.game_title(view.kind),
        first=first,
        second=second,
        length=length_text(view.kind, view.length),
    )[:100]


async def new_thread(bot: TableBot, view: MatchView) -> int | None:
    """A new public thread in the match's channel for a match whose thread closed, when the
    server plays in threads and the bot may open one there and play in it (its permissions in
    the channel, from discord.py's cache); its id. None otherwise, or when Discord refuses: the
    match goes on in the channel. Started without a message: the invitation already had its
    thread, and a message has at most one."""
    settings = await bot.service.handle(GetSettings(view.guild_id))
    channel = bot.get_channel(view.channel_id)
    if not settings.use_threads or not isinstance(channel, discord.TextChannel):
        return None
    perms = channel.permissions_for(channel.guild.me)
    if not permissions.can_open_thread(perms) or permissions.match_missing(perms, in_thread=True):
        return None
    try:
        thread = await channel.create_thread(
            name=match_title(view),
            type=discord.ChannelType.public_thread,
            auto_archive_duration=1440,
        )
    except discord.HTTPException as exc:
        log.info("match %s: no new thread in channel %s: %s", view.match_id, channel.id, exc)
        return None
    log.info("match %s goes on in a new thread %s", view.match_id, thread.id)
    return thread.id


# --- the board -----------------------------------------------------------------------------


def forget_board(bot: TableBot, match_id: int) -> None:
    bot.board_hooks.pop(match_id, None)


def _hook(bot: TableBot, match_id: int, message_id: int) -> discord.Webhook | None:
    found = bot.board_hooks.get(match_id)
    if found is None:
        return None
    webhook, hooked_id, until = found
    if hooked_id != message_id or bot.clock() >= until:
        forget_board(bot, match_id)
        return None
    return webhook


async def edit_board(
    bot: TableBot,
    view: MatchView,
    message_id: int | None,
    fields: dict[str, Any],
    via: discord.Interaction[Any] | None = None,
) -> bool:
    """Edit board ``message_id`` of the match: through the click's answer when it is the
    clicked message, else through the webhook that posted it while that lives, else with the
    bot token. False when it can't be edited (gone, or its channel refuses): logged."""
    if message_id is None:
        return False
    clicked = via.message if is_click(via) and via is not None else None
    if via is not None and clicked is not None and clicked.id == message_id:
        try:
            await answer_edit(via, **fields)
            return True
        except discord.HTTPException as exc:
            log.warning("match %s: the click's answer failed: %s", view.match_id, exc)
    webhook = _hook(bot, view.match_id, message_id)
    if webhook is not None:
        try:
            await webhook.edit_message(message_id, **fields)
            return True
        except discord.HTTPException as exc:
            log.info("match %s: board %s's webhook refused: %s", view.match_id, message_id, exc)
            forget_board(bot, view.match_id)
    try:
        await target_channel(bot, view).get_partial_message(message_id).edit(**fields)
    except discord.HTTPException as exc:
        log.info("match %s: could not edit board %s: %s", view.match_id, message_id, exc)
        return False
    return True


async def post_board_message(
    bot: TableBot,
    view: MatchView,
    turn: TurnMessage,
    via: discord.Interaction[Any] | None = None,
) -> discord.Message:
    """Post a new board: the interaction's follow-up when it belongs in the interaction's
    channel (its webhook then edits it, :func:`edit_board`), else with the bot token
    (:func:`send_to_match`)."""
    if via is not None and can_follow_up(via, match_channel_id(view)):
        try:
            sent = await via.followup.send(turn.content or "", wait=True, **turn.for_send())
        except discord.HTTPException as exc:
            log.warning("match %s: the follow-up board failed: %s", view.match_id, exc)
        else:
            until = bot.clock() + HOOK_LIFETIME
            bot.board_hooks[view.match_id] = (via.followup, sent.id, until)
            return sent
    message = await send_to_match(bot, view, turn.content, **turn.for_send())
    forget_board(bot, view.match_id)
    return message


async def post_to_match(
    bot: TableBot,
    match: MatchView,
    content: str | None,
    via: discord.Interaction[Any] | None = None,
    **kwargs: Any,
) -> discord.Message:
    """Post another message of the match (a result): the interaction's follow-up where it can,
    else with the bot token."""
    if via is not None and can_follow_up(via, match_channel_id(match)):
        try:
            return await via.followup.send(content or "", wait=True, **kwargs)
        except discord.HTTPException as exc:
            log.warning("match %s: a follow-up failed: %s", match.match_id, exc)
    return await send_to_match(bot, match, content, **kwargs)
