"""Expired challenges through the fake Discord: the reminder loop's pass expires them and closes
their invitations (no buttons left); a click on an old Accept, Decline or Cancel that still
reaches the bot is refused ephemerally and starts nothing; a deleted invitation is skipped."""

from __future__ import annotations

import asyncio
import copy

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.db import sql_rows
from support.discord_driver import reply_to, service_of

from bot.discord.app import TableBot
from bot.discord.cogs.reminders import Reminders
from bot.service import ActiveMatches, Challenge, ChallengeStatus, GetChallenge

pytestmark = pytest.mark.asyncio


def reminders_of(fake: FakeDiscord) -> Reminders:
    cog = fake.bot.get_cog("Reminders")  # type: ignore[union-attr]
    # load_extension builds its own module object: compare by name, not isinstance.
    assert type(cog).__name__ == "Reminders"
    return cog  # type: ignore[return-value]


async def recorded(fake: FakeDiscord, guild_id: int, challenge_id: int) -> Challenge:
    """The challenge once /challenge has recorded its invitation's id: the handler's last step,
    after its REST calls, so wait for the bot's handlers to finish."""
    bot = fake.bot
    assert isinstance(bot, TableBot)
    async with asyncio.timeout(5):
        await bot.wait_idle()
    challenge = await service_of(fake).handle(GetChallenge(challenge_id, guild_id))
    assert challenge.message_id is not None
    return challenge


async def invite(fake: FakeDiscord, by: Member, opponent: Member | None) -> Message:
    options: dict[str, object] = {"game": "nannon", "points": 1}
    if opponent is not None:
        options["opponent"] = opponent
    it = await fake.slash("challenge", options, by=by)
    invitation = (await it.response()).message
    assert invitation is not None and invitation.buttons
    return invitation


async def test_expired_invitation_is_closed_and_its_old_buttons_refused(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    svc = service_of(fake)
    guild = fake.guild.id
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    invitation = await invite(fake, alice, bob)
    challenge = await recorded(fake, guild, 1)
    assert challenge.message_id == invitation.id and challenge.channel_id == fake.channel.id
    # What a client that has not refreshed still shows: the invitation with its buttons.
    stale = copy.copy(invitation)
    stale.components = copy.deepcopy(invitation.components)

    reminders = reminders_of(fake)
    assert await reminders.run_once(challenge.expires_at - 1) == []
    assert not invitation.edits
    mark = fake.mark()
    assert await reminders.run_once(challenge.expires_at) == [("expire", challenge.id)]
    call = await fake.wait_for_call(
        method="PATCH", route="/channels/{channel_id}/messages/{message_id}", since=mark
    )
    assert call.json["allowed_mentions"]["parse"] == []  # the edit pings nobody
    assert invitation.content == "alice's challenge to bob expired: it was not answered in time."
    assert not invitation.components
    assert invitation.embeds  # what was offered stays readable
    assert (await svc.handle(GetChallenge(1, guild))).status is ChallengeStatus.EXPIRED
    assert await reminders.run_once(challenge.expires_at + 60) == []  # closed once

    # The service's clock is the real one, well before the expiry time: the refusal comes from
    # the expiry the sweep recorded.
    for label, by in (("Accept", bob), ("Decline", bob), ("Cancel", alice)):
        it = await fake.click(stale, label=label, by=by)
        response = await it.response()
        assert response.type == 4, response  # the refusal is the answer, for bob only
        refusal = await reply_to(it)
        assert refusal.ephemeral, refusal
        assert refusal.content.startswith("This challenge expired"), refusal.content
    await fake.wait_bot_idle()
    assert await sql_rows(svc.store, "SELECT id FROM matches") == []
    assert await svc.handle(ActiveMatches(guild, bob.id)) == []
    assert not fake.threads(fake.channel)
    assert (await svc.handle(GetChallenge(1, guild))).status is ChallengeStatus.EXPIRED
    assert invitation.content.startswith("alice's challenge to bob expired")
    assert not invitation.components


async def test_a_deleted_invitation_is_skipped_quietly(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    guild = fake.guild.id
    alice = await fake.add_member("alice")
    carol = await fake.add_member("carol")
    gone = await invite(fake, alice, None)
    await recorded(fake, guild, 1)
    kept = await invite(fake, carol, None)
    second = await recorded(fake, guild, 2)
    await fake.delete_message(gone)

    mark = fake.mark()
    done = await reminders_of(fake).run_once(second.expires_at)
    assert done == [("expire", 1), ("expire", 2)]
    await fake.wait_until(lambda: kept.edits, what="the second invitation closed")
    assert kept.content == "carol's challenge expired: nobody accepted it in time."
    assert not kept.components
    edits = fake.calls_matching(
        method="PATCH", route="/channels/{channel_id}/messages/{message_id}", since=mark
    )
    assert [c.status for c in edits] == [404, 200]  # the deleted one was tried, and skipped
    for challenge_id in (1, 2):
        assert (
            await svc.handle(GetChallenge(challenge_id, guild))
        ).status is ChallengeStatus.EXPIRED
