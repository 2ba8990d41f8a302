"""Which match a command acts on, and where matches are played, through the fake Discord: a
command typed in the parent channel acts on the user's only match there and refuses (listing
them) when there are two; challenges outside the server's challenge channels are refused; and
when the bot may not create threads, the accepted match is played in the channel.

Nannon with scripted dice: alice (seat 0) wins every opening 6-1 and her 5 (2/S) is forced, so
bob is on roll with the first board.
"""

from __future__ import annotations

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from fakediscord.model import CREATE_PUBLIC_THREADS
from support.discord_driver import (
    DiceScript,
    next_board,
    public,
    reply_to,
    revoke_bot_permission,
    say,
    service_of,
)
from support.nannon_driver import faces

from bot.service import ActiveMatches, GetChallenge, GetSettings, ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio


async def invite(
    fake: FakeDiscord, a: Member, b: Member, channel: Channel | None = None
) -> Message:
    it = await fake.slash(
        "challenge", {"game": "nannon", "opponent": b, "points": 3}, by=a, channel=channel
    )
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral, invitation
    return invitation


async def accepted_in_thread(
    fake: FakeDiscord, invitation: Message, by: Member, match_id: int
) -> tuple[Channel, Message]:
    await fake.click(invitation, label="Accept", by=by)
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    return thread, await next_board(fake, thread, match_id, None)


async def test_parent_channel_command_finds_the_only_match_and_refuses_two(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    channel = fake.channel
    thread1, board1 = await accepted_in_thread(fake, await invite(fake, alice, bob), bob, 1)
    view = await svc.handle(ViewMatch(1))
    assert (view.phase, view.actor) == (Phase.ROLL, 1)

    # Typed in #general, not the thread: bob's only match there.
    assert await say(fake, "roll", bob, channel) == "Rolled."
    board1 = await next_board(fake, thread1, 1, board1)
    view = await svc.handle(ViewMatch(1))
    assert (view.phase, view.dice) == (Phase.MOVE, (3,))
    assert len(public(fake, channel)) == 1  # the invitation; the board went to the thread
    # carol has no match here.
    assert await say(fake, "roll", carol, channel) == (
        "You have no active match here. Start one with /challenge, or use /games to find yours."
    )

    # A second match between them, in the same channel.
    dice.face = faces(6, 1, then=(3,))
    thread2, board2 = await accepted_in_thread(fake, await invite(fake, alice, bob), bob, 2)
    versions = [(await svc.handle(ViewMatch(m))).version for m in (1, 2)]
    posts = [len(public(fake, c)) for c in (channel, thread1, thread2)]
    refusal = await say(fake, "board", bob, channel)
    assert refusal.splitlines() == [
        "You have more than one match here; use the match's thread, or one of these:",
        f"- #1 nannon vs alice in <#{thread1.id}>",
        f"- #2 nannon vs alice in <#{thread2.id}>",
    ]
    move = (await svc.handle(ViewMatch(1))).legal_moves[0]
    assert (await say(fake, "move", bob, channel, play=move)).startswith("You have more than one")
    assert [(await svc.handle(ViewMatch(m))).version for m in (1, 2)] == versions
    assert [len(public(fake, c)) for c in (channel, thread1, thread2)] == posts

    # In a thread, the thread's match, whoever else is around.
    assert await say(fake, "move", bob, thread1, play=move) == "Played."
    await next_board(fake, thread1, 1, board1)
    assert (await svc.handle(ViewMatch(1))).version > versions[0]
    assert await say(fake, "roll", bob, thread2) == "Rolled."
    await next_board(fake, thread2, 2, board2)
    assert (await svc.handle(ViewMatch(2))).phase is Phase.MOVE


async def test_challenge_outside_the_challenge_channels_is_refused(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    mod = await fake.add_member("mod", manage_guild=True)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    games = await fake.add_channel("games")
    saved = await say(fake, "config channels", mod, fake.channel, action="only", channel=games)
    assert f"- Challenges allowed in: <#{games.id}>" in saved

    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    refusal = await reply_to(it)
    assert refusal.ephemeral
    assert refusal.content == f"Challenges are allowed only in <#{games.id}>."
    assert not public(fake, fake.channel)
    assert await svc.handle(ActiveMatches(fake.guild.id, alice.id)) == []

    invitation = await invite(fake, alice, bob, games)
    assert invitation.channel is games
    assert (await svc.handle(GetChallenge(1, fake.guild.id))).channel_id == games.id


async def test_without_thread_permission_the_match_is_played_in_the_channel(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    await revoke_bot_permission(fake, CREATE_PUBLIC_THREADS)
    assert (await svc.handle(GetSettings(fake.guild.id))).use_threads

    invitation = await invite(fake, alice, bob)
    mark = fake.mark()
    await fake.click(invitation, label="Accept", by=bob)
    board = await next_board(fake, fake.channel, 1, None)
    # Not even tried: the click's app_permissions said the bot may not create threads here.
    assert not fake.calls_matching(
        method="POST", route="/channels/{channel_id}/messages/{message_id}/threads", since=mark
    )
    assert not fake.guild.threads
    view = await svc.handle(ViewMatch(1))
    assert view.thread_id is None and view.channel_id == fake.channel.id
    assert invitation.content == "bob accepted alice's challenge: match #1."
    assert f"<@{bob.id}>" in board.content

    # Played there: a click on the board and a command typed in the channel.
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7  # the board, edited in the answer
    board = await next_board(fake, fake.channel, 1, board)
    view = await svc.handle(ViewMatch(1))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3,))
    assert await say(fake, "move", bob, fake.channel, play=view.legal_moves[0]) == "Played."
    await next_board(fake, fake.channel, 1, board)
    assert (await svc.handle(ViewMatch(1))).actor == 0
    assert not fake.guild.threads
