"""The smaller flows through the fake Discord: Decline and Cancel on an invitation (and the
wrong people pressing them), a resignation declined then accepted, the finished match's Export
and Rematch buttons, and people clicking buttons that are not theirs."""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord, InteractionHandle, Member, Message
from support.discord_driver import embed_text, next_board, results, service_of

from bot.service import ActiveMatches, ChallengeStatus, GetChallenge, ViewMatch
from engines.base import GameKind, Phase, ResultKind

pytestmark = pytest.mark.asyncio


async def ephemeral_text(it: InteractionHandle) -> str:
    """The ephemeral answer to an interaction, whether sent at once or after a defer."""
    response = await it.response()
    if response.type == 4:
        assert response.message is not None and response.message.ephemeral
        return response.message.content
    followup = await it.followup()
    assert followup.ephemeral
    return followup.content


async def invite(fake: FakeDiscord, by: Member, opponent: Member) -> Message:
    it = await fake.slash("challenge", {"game": "nannon", "opponent": opponent, "points": 1}, by=by)
    invitation = (await it.response()).message
    assert invitation is not None
    return invitation


async def test_decline_and_cancel(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")

    # Decline: only the challenged player may; the challenger may only cancel.
    invitation = await invite(fake, alice, bob)
    for wrong in (carol, alice):
        text = await ephemeral_text(await fake.click(invitation, label="Decline", by=wrong))
        assert text and "declined" not in text
    assert (await svc.handle(GetChallenge(1, fake.guild.id))).status is ChallengeStatus.OPEN
    await fake.click(invitation, label="Decline", by=bob)
    await fake.wait_until(lambda: invitation.edits, what="the invitation closed")
    assert invitation.content == "bob declined the challenge."
    assert not invitation.components
    assert (await svc.handle(GetChallenge(1, fake.guild.id))).status is ChallengeStatus.DECLINED

    # Cancel: only the challenger may withdraw.
    invitation = await invite(fake, alice, bob)
    for wrong in (bob, carol):
        text = await ephemeral_text(await fake.click(invitation, label="Cancel", by=wrong))
        assert text and "withdrew" not in text
    assert (await svc.handle(GetChallenge(2, fake.guild.id))).status is ChallengeStatus.OPEN
    await fake.click(invitation, label="Cancel", by=alice)
    await fake.wait_until(lambda: invitation.edits, what="the invitation closed")
    assert invitation.content == "alice withdrew the challenge."
    assert not invitation.components
    assert (await svc.handle(GetChallenge(2, fake.guild.id))).status is ChallengeStatus.CANCELLED
    assert not fake.threads(fake.channel)
    assert await svc.handle(ActiveMatches(fake.guild.id, alice.id)) == []


async def test_resign_declined_then_accepted_then_export_and_rematch(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    players = {0: alice, 1: bob}

    invitation = await invite(fake, alice, bob)
    await fake.click(invitation, label="Accept", by=bob)
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    board = await next_board(fake, thread, 1, None)
    view = await svc.handle(ViewMatch(1))
    assert view.actor is not None
    resigner, other = players[view.actor], players[1 - view.actor]

    async def offer_resignation() -> Message:
        it = await fake.click(board, label="Resign", by=resigner)
        menu = (await it.response()).message
        assert menu is not None and menu.ephemeral
        assert {b["label"] for b in menu.buttons} == {
            "Resign this game",
            "Resign a gammon",
            "Concede the match",
        }
        await fake.click(menu, label="Resign this game", by=resigner)
        following = await next_board(fake, thread, 1, board)
        # The menu closes, so it cannot be clicked again.
        await fake.wait_until(lambda: menu.content == "Done." and not menu.components)
        return following

    # Somebody else can't open the resign menu of this match.
    text = await ephemeral_text(await fake.click(board, label="Resign", by=carol))
    assert "not your match" in text

    board = await offer_resignation()
    view = await svc.handle(ViewMatch(1))
    assert view.phase is Phase.RESIGN_OFFERED and view.actor == 1 - players_seat(players, resigner)
    assert {"Accept resignation", "Decline resignation"} <= {b["label"] for b in board.buttons}
    assert f"{resigner.name} offers to resign (single)" in embed_text(board)
    # The resigner can't answer their own offer, nor can carol.
    text = await ephemeral_text(await fake.click(board, label="Accept resignation", by=resigner))
    assert "not your turn" in text
    text = await ephemeral_text(await fake.click(board, label="Accept resignation", by=carol))
    assert "not your match" in text
    assert (await svc.handle(ViewMatch(1))).version == view.version

    await fake.click(board, label="Decline resignation", by=other)
    board = await next_board(fake, thread, 1, board)
    view = await svc.handle(ViewMatch(1))
    assert view.phase is not Phase.RESIGN_OFFERED and view.resign_offer is None
    assert "declines the resignation" in embed_text(board)
    assert view.actor is not None and players[view.actor] is resigner

    board = await offer_resignation()
    await fake.click(board, label="Accept resignation", by=other)
    over = await fake.wait_until(
        lambda: [m for m in results(fake, thread) if embed_text(m).startswith("Match over")],
        what="the match result",
    )
    announcement = over[0]
    view = await svc.handle(ViewMatch(1))
    assert view.match_over and view.winner_seat == players_seat(players, other)
    assert view.games[-1].kind is ResultKind.RESIGN
    text = embed_text(announcement)
    assert f"{resigner.name} resigned" in text and f"{other.name} wins the match" in text
    assert {b["label"] for b in announcement.buttons} == {"Export", "Rematch"}
    await fake.wait_until(
        lambda: not any(m.components for m in fake.messages(thread) if m is not announcement),
        what="the last board stripped",
    )

    # Export: anyone may download the record, as a file in an ephemeral answer.
    it = await fake.click(announcement, label="Export", by=carol)
    export = await it.followup()
    assert export.ephemeral and export.content == "Match #1:"
    assert export.attachments and export.attachments[0].filename.endswith(".mat")
    exported = export.attachments[0].data.decode()
    assert "alice" in exported and "bob" in exported

    # Rematch: not for carol; bob's rematch challenges alice again, same rules, in the channel.
    text = await ephemeral_text(await fake.click(announcement, label="Rematch", by=carol))
    assert "not playing" in text
    it = await fake.click(announcement, label="Rematch", by=bob)
    assert (await it.followup()).content == "Rematch offered."
    rematch = await fake.wait_until(
        lambda: [m for m in fake.messages(fake.channel) if f"<@{alice.id}>" in m.content],
        what="the rematch invitation",
    )
    invitation = rematch[-1]
    assert "bob challenges alice to Nannon, to 1" in embed_text(invitation)
    challenge = await svc.handle(GetChallenge(2, fake.guild.id))
    assert challenge.game is GameKind.NANNON and challenge.rules.length == 1
    assert challenge.challenger.user_id == bob.id and challenge.opponent is not None
    assert challenge.opponent.user_id == alice.id and challenge.message_id == invitation.id
    await fake.click(invitation, label="Accept", by=alice)
    await fake.wait_until(lambda: len(fake.threads(fake.channel)) == 2, what="the new thread")
    second = await svc.handle(ViewMatch(2))
    assert second.players[0].user_id == bob.id and second.players[1].user_id == alice.id


def players_seat(players: dict[int, Member], member: Member) -> int:
    return next(seat for seat, m in players.items() if m is member)
