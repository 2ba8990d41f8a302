"""The bot's permissions where a match is played, through the fake Discord: /challenge reads the
interaction's ``app_permissions`` and refuses, ephemerally and naming them, in a channel where
the bot lacks what a match needs (View Channels, Send Messages, Embed Links, Attach Files, Read
Message History); without only the thread permissions (Create Public Threads, Send Messages in
Threads) the match is played in the channel, and no thread is even tried.
"""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord
from fakediscord.model import (
    ATTACH_FILES,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from support.db import sql_rows
from support.discord_driver import next_board, public, reply_to, service_of

from bot.discord.wording import missing_permissions
from bot.service import GetSettings, ViewMatch

NAMES = {
    VIEW_CHANNEL: "View Channels",
    SEND_MESSAGES: "Send Messages",
    EMBED_LINKS: "Embed Links",
    ATTACH_FILES: "Attach Files",
    READ_MESSAGE_HISTORY: "Read Message History",
}

ATTRIBUTES = {
    VIEW_CHANNEL: "view_channel",
    SEND_MESSAGES: "send_messages",
    EMBED_LINKS: "embed_links",
    ATTACH_FILES: "attach_files",
    READ_MESSAGE_HISTORY: "read_message_history",
}


@pytest.mark.parametrize(
    "denied",
    [
        (VIEW_CHANNEL,),
        (SEND_MESSAGES,),
        (EMBED_LINKS,),
        (ATTACH_FILES,),
        (READ_MESSAGE_HISTORY,),
        (SEND_MESSAGES, ATTACH_FILES),
        (SEND_MESSAGES, READ_MESSAGE_HISTORY),
        (EMBED_LINKS, ATTACH_FILES, READ_MESSAGE_HISTORY),
    ],
)
@pytest.mark.asyncio
async def test_challenge_is_refused_naming_the_missing_permissions(
    tablebot: FakeDiscord, denied: tuple[int, ...]
) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    bot = fake.bot_member(fake.guild)
    mask = 0
    for bit in denied:
        mask |= bit
    await fake.set_overwrite(fake.channel, bot, deny=mask)

    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    answer = await reply_to(it)
    assert answer.ephemeral
    # Discord's implicit denies: without Send Messages, no Embed Links or Attach Files; only
    # the cause is named.
    named = set(denied)
    if SEND_MESSAGES in named:
        named -= {EMBED_LINKS, ATTACH_FILES}
    assert answer.content == missing_permissions([ATTRIBUTES[bit] for bit in sorted(named)])
    for bit in denied:
        assert (NAMES[bit] in answer.content) == (bit in named)
    assert "I can't host a match in this channel" in answer.content
    # Nothing was made, nothing posted.
    assert await sql_rows(service_of(fake).store, "SELECT id FROM challenges") == []
    assert public(fake, fake.channel) == []

    # Elsewhere, where nothing is denied, the same challenge is made.
    other = await fake.add_channel("other")
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice, channel=other)
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral


def test_the_refusal_reads_well() -> None:
    assert missing_permissions(["attach_files"]) == (
        "I can't host a match in this channel: I'm missing the Attach Files permission here. "
        "A server admin can grant it to tablebot in this channel's settings, or you can "
        "challenge in another channel."
    )
    assert "the Send Messages, Embed Links and Attach Files permissions here" in (
        missing_permissions(["send_messages", "embed_links", "attach_files"])
    )


@pytest.mark.parametrize("denied", [CREATE_PUBLIC_THREADS, SEND_MESSAGES_IN_THREADS])
@pytest.mark.asyncio
async def test_without_thread_permissions_the_match_is_played_in_the_channel(
    tablebot: FakeDiscord, denied: int
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), deny=denied)
    assert (await svc.handle(GetSettings(fake.guild.id))).use_threads

    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral
    mark = fake.mark()
    await fake.click(invitation, label="Accept", by=bob)
    board = await next_board(fake, fake.channel, 1, None)
    # No thread was tried: the bot knew from the click's app_permissions.
    assert not fake.calls_matching(
        method="POST", route="/channels/{channel_id}/messages/{message_id}/threads", since=mark
    )
    assert not fake.guild.threads
    view = await svc.handle(ViewMatch(1))
    assert view.thread_id is None and view.channel_id == fake.channel.id
    assert board.channel is fake.channel and board.components


@pytest.mark.asyncio
async def test_a_thread_discord_refuses_anyway_leaves_the_match_in_the_channel(
    tablebot: FakeDiscord,
) -> None:
    """The permissions allow a thread, but Discord refuses to create it (a guild at its limit
    of active threads answers so): the match is played in the channel all the same."""
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    refusal = fake.fail_next(400, method="POST", path=r"/messages/\d+/threads$")
    await fake.click(invitation, label="Accept", by=bob)
    board = await next_board(fake, fake.channel, 1, None)
    assert len(refusal.hits) == 1 and not fake.guild.threads
    assert (await svc.handle(ViewMatch(1))).thread_id is None
    assert board.channel is fake.channel and board.components
