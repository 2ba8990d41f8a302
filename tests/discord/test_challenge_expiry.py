"""Expired challenges through the fake Discord: the service's scheduler fires each challenge's
expiry deadline and the bot closes its invitation (no buttons left); a click on an old Accept,
Decline or Cancel that still reaches the bot is refused ephemerally and starts nothing; a
deleted invitation is skipped; a bot started after an expiry time closes the invitation at
start-up, on its own scheduler (issue 34)."""

from __future__ import annotations

import asyncio
import copy

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.db import sql_rows
from support.discord_driver import Clock, reply_to, service_of

from bot.discord.app import TableBot
from bot.service import ActiveMatches, Challenge, ChallengeStatus, GetChallenge

pytestmark = pytest.mark.asyncio


async def expire_due(fake: FakeDiscord, at: float) -> list[tuple[str, int]]:
    """The service's scheduler fires what is due at ``at``: the challenges it expired."""
    fired = await service_of(fake).timers.run_due(at)
    return [("expire", int(d.key)) for d in fired if d.kind == "challenge.expiry"]


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

    assert await expire_due(fake, challenge.expires_at - 1) == []
    assert not invitation.edits
    mark = fake.mark()
    assert await expire_due(fake, challenge.expires_at) == [("expire", challenge.id)]
    call = await fake.wait_for_call(
        method="PATCH", route="/channels/{channel_id}/messages/{message_id}", since=mark
    )
    assert call.json["allowed_mentions"]["parse"] == []  # the edit pings nobody
    assert invitation.content == "alice's challenge to bob expired: it was not answered in time."
    assert not invitation.components
    assert invitation.embeds  # what was offered stays readable
    assert (await svc.handle(GetChallenge(1, guild))).status is ChallengeStatus.EXPIRED
    assert await expire_due(fake, challenge.expires_at + 60) == []  # closed once

    # The service's clock is the real one, well before the expiry time: the refusal comes from
    # the expiry the deadline recorded.
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
    done = await expire_due(fake, second.expires_at)
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


async def test_issue_34_a_bot_started_after_the_expiry_time_closes_the_invitation(
    tablebot: FakeDiscord, clock: Clock
) -> None:
    """The bot was down when the challenge expired: its scheduler, started with the bot (as
    ``tablebot`` runs it), fires the stored deadline at once, with no sweep of its own."""
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    invitation = await invite(fake, alice, bob)
    challenge = await recorded(fake, fake.guild.id, 1)
    clock.advance(challenge.expires_at - clock() + 5)
    fake._client_options = {**fake._client_options, "run_timers": True}
    await fake.restart_bot()
    await fake.wait_until(lambda: not invitation.components, what="the invitation closed")
    assert invitation.content == "alice's challenge to bob expired: it was not answered in time."
    got = await service_of(fake).handle(GetChallenge(1, fake.guild.id))
    assert got.status is ChallengeStatus.EXPIRED
    assert await expire_due(fake, clock() + 60) == []  # fired once
