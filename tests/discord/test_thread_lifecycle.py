"""A match whose thread is locked, archived by a moderator or deleted, through the fake Discord:
the match goes on in the thread's parent channel, its board posted there (pinging the player on
turn) with a line saying why, and the next action, /board and the reminders all find it there.
A thread that archived itself (the match idle past its auto-archive time) keeps the match: the
next post unarchives it, though discord.py no longer has it in its cache. When the bot missed
the thread's end (it was offline), the first post Discord refuses there (403 Thread is locked,
404 Unknown Channel) moves the match the same way, and the player is not told to try /board.
A channel that refuses the bot (403) is not retried in a loop.

Nannon with scripted dice: alice wins every opening 6-1 and her 5 (2/S) is forced, so bob is
on roll with the first board.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from fakediscord.model import CREATE_PUBLIC_THREADS, SEND_MESSAGES_IN_THREADS, VIEW_CHANNEL
from support.discord_driver import (
    Clock,
    DiceScript,
    boards,
    embed_text,
    fire_due,
    handlers_done,
    next_board,
    say,
    service_of,
    start,
)
from support.nannon_driver import faces

from bot.discord.app import TableBot
from bot.discord.presenter import BOARD_NOT_POSTED
from bot.discord.wording import thread_gone
from bot.service import GetSettings, UpdateSettings, ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio

THREAD_POSTS = "/channels/{channel_id}/messages"


async def started(fake: FakeDiscord, dice: DiceScript) -> tuple[int, Channel, Message, Member]:
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="nannon", points=3)
    await handlers_done(fake)
    view = await service_of(fake).handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.thread_id) == (Phase.ROLL, 1, thread.id)
    return mid, thread, board, bob


async def new_place(fake: FakeDiscord, mid: int, old: Channel) -> Channel:
    """Where the match went from thread ``old`` (once its board is there): a new thread of the
    channel (a public one, started without a message, named as the first), or the channel."""

    def found() -> Channel | None:
        places = [fake.channel, *(c for c in fake.guild.channels if c.parent_id == fake.channel.id)]
        return next((c for c in places if c is not old and boards(fake, c, mid)), None)

    await fake.wait_until(found, what=f"match #{mid}'s board out of its closed thread")
    place = found()
    assert place is not None
    await handlers_done(fake)
    view = await service_of(fake).handle(ViewMatch(mid))
    if place.is_thread:
        assert view.thread_id == place.id
        assert place.parent_id == fake.channel.id
        assert (place.type, place.name, place.archived, place.locked) == (
            11,
            old.name,
            False,
            False,
        )
    else:
        assert view.thread_id is None
    return place


async def goes_on_in(
    fake: FakeDiscord, mid: int, thread: Channel, channel: Channel, how: str, bob: Member
) -> None:
    """The match left ``thread`` (``how``) for ``channel`` (a new thread, or the parent
    channel): its board is there, saying why and pinging bob, and the next actions, /board and a
    reminder are all there; nothing goes to the old thread."""
    svc = service_of(fake)
    board = await next_board(fake, channel, mid, None)
    await handlers_done(fake)
    mark = fake.mark()
    view = await svc.handle(ViewMatch(mid))
    assert view.board_message_id == board.id
    assert view.thread_id == (channel.id if channel.is_thread else None)
    assert thread_gone(how) in embed_text(board)
    assert board.content.startswith(f"<@{bob.id}>")
    assert {"Roll", "Double"} <= {b["label"] for b in board.buttons}

    # The next action: bob's Roll, then his move, on the board in the channel.
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7
    board = await next_board(fake, channel, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor) == (Phase.MOVE, 1)
    await fake.select(board, [view.legal_moves[0]], by=bob)
    board = await next_board(fake, channel, mid, board)
    await handlers_done(fake)
    view = await svc.handle(ViewMatch(mid))
    assert view.actor == 0 and view.board_message_id == board.id

    # /board, typed there, finds the match and posts its board there.
    alice = view.players[0]
    member = fake.guild.members[alice.user_id]
    assert await say(fake, "board", member, channel) == "Board posted."
    board = await next_board(fake, channel, mid, board)

    # A reminder for alice, idle past the reminder time, is posted there.
    settings = await svc.handle(GetSettings(fake.guild.id))
    view = await svc.handle(ViewMatch(mid))
    remind_at = view.last_action_at + settings.reminder_minutes * 60 + 1
    assert await fire_due(fake, remind_at) == [("remind", mid)]
    await handlers_done(fake)
    reminder = channel.messages[-1]
    assert reminder.content.startswith(f"<@{alice.user_id}>, match #{mid} is waiting for you")

    # Nothing was sent to the thread since it went.
    sent = [c for c in fake.calls[mark:] if str(thread.id) in c.path]
    assert sent == [], sent
    assert not fake.bot_errors


async def close(fake: FakeDiscord, thread: Channel, how: str) -> None:
    if how == "locked":
        await fake.lock_thread(thread)
    elif how == "archived and locked":  # Discord's "Close and lock"
        await fake.lock_thread(thread)
        await fake.archive_thread(thread)
    elif how == "deleted":
        await fake.delete_thread(thread)
    else:  # by a moderator, long before the thread would archive itself
        await fake.archive_thread(thread)


CLOSINGS = ["locked", "archived and locked", "deleted", "archived"]


@pytest.mark.parametrize("how", CLOSINGS)
async def test_a_closed_thread_moves_the_match_to_a_new_thread(
    tablebot: FakeDiscord, dice: DiceScript, how: str
) -> None:
    """The bot may open threads in the channel (the README's permissions): the match goes on in
    a new thread of the channel, named as the first, and the channel gets no board."""
    fake = tablebot
    mid, thread, _board, bob = await started(fake, dice)
    await close(fake, thread, how)
    place = await new_place(fake, mid, thread)
    assert place.is_thread
    # The channel shows Discord's own notice of the new thread, which leads to it.
    notices = [m for m in fake.channel.messages if m.thread_created_id == place.id]
    assert [m.content for m in notices] == [place.name]
    await goes_on_in(fake, mid, thread, place, how.split()[-1], bob)
    assert not boards(fake, fake.channel, mid)


@pytest.mark.parametrize("how", CLOSINGS)
@pytest.mark.parametrize("deny", [CREATE_PUBLIC_THREADS, SEND_MESSAGES_IN_THREADS])
async def test_a_closed_thread_moves_the_match_to_the_channel_where_no_thread_may_open(
    tablebot: FakeDiscord, dice: DiceScript, how: str, deny: int
) -> None:
    """Without Create Public Threads or Send Messages in Threads in the channel (an overwrite
    set after the match began), the match goes on in the channel itself."""
    fake = tablebot
    mid, thread, _board, bob = await started(fake, dice)
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), deny=deny)
    mark = fake.mark()
    await close(fake, thread, how)
    place = await new_place(fake, mid, thread)
    assert place is fake.channel
    assert not fake.calls_matching(
        method="POST", route="/channels/{channel_id}/threads", since=mark
    )
    await goes_on_in(fake, mid, thread, place, how.split()[-1], bob)


async def test_a_server_without_threads_gets_no_new_thread(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """The server turned threads off after the match began: a deleted thread's match goes on in
    the channel."""
    fake = tablebot
    mid, thread, _board, bob = await started(fake, dice)
    await service_of(fake).handle(UpdateSettings(fake.guild.id, {"use_threads": False}))
    await fake.delete_thread(thread)
    place = await new_place(fake, mid, thread)
    assert place is fake.channel
    await goes_on_in(fake, mid, thread, place, "deleted", bob)


async def test_a_thread_that_archived_itself_keeps_the_match(
    tablebot: FakeDiscord, dice: DiceScript, clock: Clock
) -> None:
    """bob idles past the thread's auto-archive time (a day): the thread archives itself,
    discord.py drops it from its cache, and the match stays there: the claim for alice, bob's
    roll and his move all go to the thread, and the first post unarchives it."""
    fake = tablebot
    svc = service_of(fake)
    mid, thread, board, bob = await started(fake, dice)
    day = thread.auto_archive_duration * 60
    clock.advance(day + 60)  # the service's clock
    await fake.advance(day + 60)  # the fake's: the thread archives itself
    assert thread.archived
    await handlers_done(fake)
    bot = fake.bot
    assert bot is not None and bot.get_channel(thread.id) is None  # not in discord.py's cache
    assert (await svc.handle(ViewMatch(mid))).thread_id == thread.id

    # The reminders find it: the claim for alice goes to the thread, which unarchives.
    assert await fire_due(fake, clock()) == [("claim", mid)]
    await handlers_done(fake)
    claim = fake.messages(thread)[-1]
    assert "You may claim the win." in claim.content
    assert fake.channels[thread.id].archived is False  # (not narrowed by the assert above)

    # Archived again, bob still idle for over a day: the thread's own doing, not a moderator's.
    # bob's Roll and move still play in it.
    await fake.archive_thread(thread)
    await handlers_done(fake)
    assert (await svc.handle(ViewMatch(mid))).thread_id == thread.id
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    await fake.select(board, [view.legal_moves[0]], by=bob)
    board = await next_board(fake, thread, mid, board)
    await handlers_done(fake)
    assert not thread.archived and (await svc.handle(ViewMatch(mid))).thread_id == thread.id
    assert not boards(fake, fake.channel, mid)
    assert not fake.bot_errors


async def test_an_auto_archive_heard_after_the_next_action_keeps_the_match(
    tablebot: FakeDiscord, dice: DiceScript, clock: Clock
) -> None:
    """The thread archives itself while bob idles, and his Roll and move come before the bot's
    handler of that THREAD_UPDATE runs (a busy loop starts the task late). The archive is judged
    at its archive_timestamp, not by the match's newer last action: the match stays."""
    fake = tablebot
    svc = service_of(fake)
    mid, thread, board, bob = await started(fake, dice)
    bot = fake.bot
    assert isinstance(bot, TableBot)
    cog: Any = bot.get_cog("PlayCog")
    real = cog._thread_closed
    gate, handled = asyncio.Event(), asyncio.Event()

    async def late(*args: Any, **kwargs: Any) -> None:
        await gate.wait()
        try:
            await real(*args, **kwargs)
        finally:
            handled.set()

    cog._thread_closed = late
    day = thread.auto_archive_duration * 60
    clock.advance(day + 60)
    await fake.advance(day + 60)
    assert thread.archived
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    await fake.select(board, [view.legal_moves[0]], by=bob)
    board = await next_board(fake, thread, mid, board)
    await handlers_done(fake)
    assert fake.channels[thread.id].archived is False  # the new board unarchived it

    gate.set()
    await asyncio.wait_for(handled.wait(), timeout=10)
    await handlers_done(fake)
    assert (await svc.handle(ViewMatch(mid))).thread_id == thread.id
    assert not boards(fake, fake.channel, mid)
    assert not fake.bot_errors


@pytest.mark.parametrize("how", ["locked", "deleted"])
async def test_a_thread_closed_while_the_bot_was_away_is_left_at_the_first_refusal(
    tablebot: FakeDiscord, dice: DiceScript, how: str
) -> None:
    """The bot was offline when the thread was locked or deleted, so no event told it. bob
    types /roll in the channel: the edit of the board in the thread is refused (403 Thread is
    locked, or 404 Unknown Channel), and so is a new board there; the match moves to a new
    thread, whose board says so. bob is not told to type /board."""
    fake = tablebot
    svc = service_of(fake)
    mid, thread, _board, bob = await started(fake, dice)
    await fake.stop_bot()
    if how == "locked":
        await fake.lock_thread(thread)
    else:
        await fake.delete_thread(thread)
    await fake.start_bot()
    await fake.wait_for_commands()
    svc = service_of(fake)

    mark = fake.mark()
    it = await fake.slash("roll", {}, by=bob, channel=fake.channel)
    assert (await it.followup()).content == "Rolled."
    place = await new_place(fake, mid, thread)
    assert place.is_thread
    board = await next_board(fake, place, mid, None)
    await handlers_done(fake)
    view = await svc.handle(ViewMatch(mid))
    assert view.thread_id == place.id and view.board_message_id == board.id
    assert (view.phase, view.actor) == (Phase.MOVE, 1)
    assert board.content.startswith(thread_gone("refused"))
    assert f"<@{bob.id}>" in board.content
    texts = [m.content for m in it.followups if m.ephemeral]
    assert texts == ["Rolled."] and BOARD_NOT_POSTED not in texts
    refused = [c.status for c in fake.calls[mark:] if str(thread.id) in c.path]
    assert refused == [403, 403] if how == "locked" else [404, 404]
    # Played on in the new thread.
    await fake.select(board, [view.legal_moves[0]], by=bob)
    await next_board(fake, place, mid, board)
    assert (await svc.handle(ViewMatch(mid))).actor == 0
    assert not fake.bot_errors


async def test_a_thread_closed_to_the_bot_moves_its_reminder_and_match_to_the_channel(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """The bot may no longer post in threads there (no thread event says so): bob's reminder,
    refused in the thread, goes to the channel, and so does the match."""
    fake = tablebot
    svc = service_of(fake)
    mid, _thread, _board, bob = await started(fake, dice)
    bot_member = fake.bot_member(fake.guild)
    await fake.set_overwrite(fake.channel, bot_member, deny=SEND_MESSAGES_IN_THREADS)
    view = await svc.handle(ViewMatch(mid))
    settings = await svc.handle(GetSettings(fake.guild.id))
    remind_at = view.last_action_at + settings.reminder_minutes * 60 + 1
    assert await fire_due(fake, remind_at) == [("remind", mid)]
    reminder = fake.channel.messages[-1]
    assert reminder.content.startswith(thread_gone("refused"))
    assert f"<@{bob.id}>, match #{mid} is waiting for you" in reminder.content
    assert (await svc.handle(ViewMatch(mid))).thread_id is None


async def test_a_channel_that_refuses_the_bot_is_not_retried_in_a_loop(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """The bot can no longer see the channel (nor so its thread): the reminder is tried in the
    thread and in the channel once, then not again at the next passes; the claim is tried once
    (in the channel the match moved to), then not again."""
    fake = tablebot
    svc = service_of(fake)
    mid, _thread, _board, _bob = await started(fake, dice)
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), deny=VIEW_CHANNEL)
    view = await svc.handle(ViewMatch(mid))
    settings = await svc.handle(GetSettings(fake.guild.id))
    remind_at = view.last_action_at + settings.reminder_minutes * 60 + 1
    claim_at = view.last_action_at + settings.claim_minutes * 60 + 1

    mark = fake.mark()
    # Told once each, as the scheduler fires it; Discord refuses the posts.
    assert await fire_due(fake, remind_at) == [("remind", mid)]
    posts = fake.calls_matching(method="POST", route=THREAD_POSTS, since=mark)
    assert [c.status for c in posts] == [403, 403]
    for later in (remind_at + 60, remind_at + 3600):
        assert await fire_due(fake, later) == []
    assert len(fake.calls_matching(method="POST", route=THREAD_POSTS, since=mark)) == 2

    assert await fire_due(fake, claim_at) == [("claim", mid)]
    assert await fire_due(fake, claim_at + 60) == []
    posts = fake.calls_matching(method="POST", route=THREAD_POSTS, since=mark)
    assert [c.status for c in posts] == [403, 403, 403]
    assert not fake.bot_errors
