"""The NANNON shout through the fake Discord, by everyone who might try: a Nannon match to 1 that
bob wins with a NANNON; carol (not playing) and alice (the loser) react 📣 and nothing happens;
bob's 📣 gets the one shout.
"""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import FakeDiscord, Message
from support.discord_driver import DiceScript, lift_rate_limit, service_of
from support.nannon_driver import NannonForBob, nannon_for_bob_move, start_match

from bot.discord.app import TableBot
from bot.discord.catalogue import LOCALES, text
from bot.discord.presenter import SHOUT, SHOUT_FOOTER_RE
from bot.service import Stats
from engines.base import GameKind, Phase, ResultKind

pytestmark = pytest.mark.asyncio


def shouts(fake: FakeDiscord, messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.content.startswith(f"# {SHOUT} NANNON!")]


async def settled(fake: FakeDiscord) -> None:
    """Until the bot has no handler running (a reaction's handler may post nothing)."""
    bot = fake.bot
    assert isinstance(bot, TableBot)
    async with asyncio.timeout(5):
        await bot.wait_idle()
    await fake.wait_bot_idle()


async def test_only_the_winner_can_shout(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    svc = service_of(fake)
    await lift_rate_limit(fake)
    dice.steer = NannonForBob().face
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    table, board = await start_match(fake, dice, alice, bob, 1)

    for _ in range(60):
        view = await table.view()
        if view.match_over:
            break
        move = nannon_for_bob_move(view) if view.phase is Phase.MOVE else None
        mark = fake.mark()
        await table.play_turn(board, view, move)
        board = await table.next_after(view, board, mark) or board
    announcement = await table.wait_match_over()
    view = await table.view()
    assert view.match_over and view.winner_seat == 1
    assert view.games[-1].kind is ResultKind.NANNON
    assert f"<@{bob.id}>" in announcement.content and SHOUT in announcement.content
    await fake.wait_until(lambda: announcement.reaction(SHOUT), what="the bot's 📣")

    for someone in (carol, alice):
        await fake.react(announcement, SHOUT, by=someone)
        await settled(fake)
        assert not shouts(fake, fake.messages(table.thread)), someone.name
    for someone in (carol, alice):
        stats = await svc.handle(Stats(fake.guild.id, someone.id, GameKind.NANNON))
        assert stats.nannons_shouted == 0

    # Issue 33: after a restart the handler reads the match from the footer, which is in the
    # server's language: a Greek footer still finds it.
    bot = fake.bot
    assert isinstance(bot, TableBot)
    bot.shout_messages.clear()
    announcement.embeds[0]["footer"]["text"] = text(
        "shout.footer", "el", match_id=view.match_id, game=1
    )
    await fake.react(announcement, SHOUT, by=bob)
    found = await fake.wait_until(
        lambda: shouts(fake, fake.messages(table.thread)), what="bob's shout"
    )
    await settled(fake)
    assert len(shouts(fake, fake.messages(table.thread))) == 1
    assert "**bob** shouts it: a shutout in game 1!" in found[0].content
    assert (await svc.handle(Stats(fake.guild.id, bob.id, GameKind.NANNON))).nannons_shouted == 1
    assert not shouts(fake, fake.messages(fake.channel))


async def test_a_shout_on_someone_elses_message_costs_no_request(tablebot: FakeDiscord) -> None:
    """The 📣 handler reads the message's author from the reaction event: a 📣 on a member's
    message is dropped without a request, where it used to fetch the message; one on a
    message of the bot's that it does not know (after a restart) is still fetched once."""
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    said = await fake.say("what a game", by=alice)
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    await settled(fake)

    before, mark = fake.stats.snapshot(), fake.mark()
    for who in (alice, bob):
        await fake.react(said, SHOUT, by=who)
    # The handlers run in the order of their events: once the invitation's 📣 was fetched,
    # the two before it are done.
    await fake.react(invitation, SHOUT, by=bob)
    fetch = await fake.wait_for_call(
        method="GET", route="/channels/{channel_id}/messages/{message_id}", since=mark
    )
    await settled(fake)
    assert fetch.params["message_id"] == str(invitation.id)
    done = fake.stats.since(before)
    assert done.bot_token == {"GET /channels/{channel_id}/messages/{message_id}": 1}
    assert not shouts(fake, fake.messages(fake.channel))


@pytest.mark.parametrize("locale", LOCALES)
async def test_the_footer_names_the_match_in_every_language(locale: str) -> None:
    """Issue 33: the footer was English in every server ("· game 1 ·" in Italian). Now it is
    the server's language, and a 📣 after a restart still finds the match and game in it."""
    said = text("shout.footer", locale, match_id=12, game=3)
    found = SHOUT_FOOTER_RE.search(said)
    assert found is not None and (int(found[1]), int(found[2])) == (12, 3)
    if locale != "en":
        assert said != text("shout.footer", "en", match_id=12, game=3)
