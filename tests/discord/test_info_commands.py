"""The informational and admin commands through the fake Discord: /leaderboard, /stats, /history,
/games, /export, /verify, /rules, /config (and its Manage Server check), the per-user rate limit,
and the idle-match reminders with their Claim win button.

Matches are set up through the service (fast); every command is a real interaction.
"""

from __future__ import annotations

from typing import Any

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import Clock, fire_due, reply_to, service_of

from bot.discord.cogs.admin import NOT_MANAGER
from bot.service import (
    AcceptChallenge,
    Export,
    GetSettings,
    Leaderboard,
    MatchService,
    MatchView,
    NewChallenge,
    PlayMove,
    RollDice,
    Stats,
    TakeDouble,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from engines.base import Phase

pytestmark = pytest.mark.asyncio


async def step(svc: MatchService, view: MatchView) -> MatchView:
    gid, mid = view.guild_id, view.match_id
    seat = view.actor if view.actor is not None else view.turn
    user = view.players[seat].user_id
    if view.phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
        return (await svc.handle(RollDice(mid, gid, user))).view
    if view.phase is Phase.MOVE:
        return (await svc.handle(PlayMove(mid, gid, user, view.legal_moves[0]))).view
    if view.phase is Phase.CUBE_OFFERED:
        return (await svc.handle(TakeDouble(mid, gid, user))).view
    raise AssertionError(view.phase)


async def new_match(
    fake: FakeDiscord, a: Member, b: Member, game: str = "nannon", length: int = 1
) -> MatchView:
    svc = service_of(fake)
    challenge = await svc.handle(NewChallenge(
        fake.guild.id, fake.channel.id, a.id, a.name, game, opponent_id=b.id,
        opponent_name=b.name, length=length,
    ))  # fmt: skip
    return (await svc.handle(AcceptChallenge(challenge.id, fake.guild.id, b.id, b.name))).view


async def finished_match(fake: FakeDiscord, a: Member, b: Member, game: str = "nannon") -> int:
    svc = service_of(fake)
    view = await new_match(fake, a, b, game)
    for _ in range(3000):
        if view.match_over:
            return view.match_id
        view = await step(svc, view)
    raise AssertionError("unfinished")


def embed(message: Message) -> dict[str, Any]:
    assert message.embeds, message.content
    return message.embeds[0]


def text_of(message: Message) -> str:
    if not message.embeds:
        return message.content
    e = embed(message)
    parts = [message.content, e.get("title", ""), e.get("description", "")]
    parts += [f"{f['name']}: {f['value']}" for f in e.get("fields", [])]
    return "\n".join(parts)


async def answer(fake: FakeDiscord, command: str, options: dict[str, Any], by: Member) -> Message:
    """The visible answer to a slash command: the response message or the first follow-up."""
    it = await fake.slash(command, options, by=by)
    response = await it.response()
    if response.type == 5:
        return await it.followup()
    assert response.message is not None
    return response.message


async def test_leaderboard_stats_history_after_played_matches(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("**carol** @everyone")
    ids = [await finished_match(fake, alice, bob) for _ in range(2)]
    ids.append(await finished_match(fake, bob, carol))
    svc = service_of(fake)
    winners = [(await svc.handle(ViewMatch(i))).winner_seat for i in ids]
    assert None not in winners

    board = await answer(fake, "leaderboard", {"game": "nannon"}, by=alice)
    assert not board.ephemeral
    body = embed(board)["description"]
    lines = body.splitlines()
    assert len(lines) == 3 and lines[0].startswith("**1.** ")
    assert "\\*\\*carol\\*\\*" in body and "@everyone" not in body.replace("@\u200beveryone", "")
    rows = await svc.handle(Leaderboard(fake.guild.id, "nannon"))
    for row, line in zip(rows, lines, strict=True):
        assert f"{row.rating:.0f}" in line and f"{row.won}-{row.lost}" in line

    to_one = await answer(fake, "leaderboard", {"game": "nannon", "points": 1}, by=alice)
    assert "matches to 1" in embed(to_one)["title"]
    empty = await answer(fake, "leaderboard", {"game": "checkers"}, by=alice)
    assert "Nobody has finished" in embed(empty)["description"]

    stats = await answer(fake, "stats", {"user": bob}, by=alice)
    assert stats.ephemeral
    line = await svc.handle(Stats(fake.guild.id, bob.id, "nannon"))
    assert line.played == 3
    assert f"Matches 3: {line.won}-{line.lost}" in text_of(stats)

    history = await answer(fake, "history", {}, by=alice)
    assert history.ephemeral
    for match_id in ids[:2]:
        assert f"`#{match_id}`" in text_of(history)
    assert f"`#{ids[2]}`" not in text_of(history)  # alice didn't play it


async def test_games_lists_my_active_matches_with_links(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    view = await new_match(fake, alice, bob, length=3)
    message = await answer(fake, "games", {}, by=alice)
    assert message.ephemeral
    assert f"`#{view.match_id}`" in message.content
    assert f"https://discord.com/channels/{fake.guild.id}/" in message.content
    nobody = await fake.add_member("dave")
    assert "no active matches" in (await answer(fake, "games", {}, by=nobody)).content


async def test_export_attaches_a_file_and_verify_checks_the_dice(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    nannon = await finished_match(fake, alice, bob)
    checkers = await finished_match(fake, alice, bob, "checkers")

    exported = await answer(fake, "export", {"match": nannon}, by=bob)
    [attachment] = exported.attachments
    assert attachment.filename == f"tablebot-{nannon}.mat"
    assert (
        attachment.data.decode()
        == (await service_of(fake).handle(Export(nannon, fake.guild.id))).text
    )
    pdn = await answer(fake, "export", {"match": checkers}, by=alice)
    assert pdn.attachments[0].filename.endswith(".pdn")

    verified = await answer(fake, "verify", {"match": nannon}, by=alice)
    report = await service_of(fake).handle(VerifyMatch(nannon, fake.guild.id))
    assert report.ok is True
    text = text_of(verified)
    assert "checks out" in text and report.commitment in text and str(report.seed) in text

    active = await new_match(fake, alice, bob, length=3)
    pending = await answer(fake, "verify", {"match": active.match_id}, by=alice)
    assert "still on" in text_of(pending) and "revealed at the end" in text_of(pending)

    missing = await answer(fake, "export", {"match": 999_999}, by=alice)
    assert missing.ephemeral and "There is no match #999999 in this server" in missing.content


async def test_another_guilds_match_is_invisible(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    match_id = await finished_match(fake, alice, bob)
    other = await fake.add_guild("Second")
    alice2 = await fake.add_member("alice", other, user=alice.user)
    assert fake.bot is not None
    await fake.bot.tree.sync()  # global commands, so the second server has them too
    for command in ("export", "verify"):
        message = await answer(fake, command, {"match": match_id}, by=alice2)
        assert message.ephemeral and "There is no match" in message.content
    board = await answer(fake, "leaderboard", {"game": "nannon"}, by=alice2)
    assert "Nobody has finished" in embed(board)["description"]
    history = await answer(fake, "history", {}, by=alice2)
    assert f"#{match_id}" not in text_of(history)


@pytest.mark.parametrize(
    ("game", "phrases"),
    [
        ("nannon", ["6 spots", "difference", "NANNON", "Crawford", "prime"]),
        ("backgammon", ["15 checkers", "bar", "gammon", "Jacoby", "Crawford"]),
        ("checkers", ["mandatory", "crowned", "40 moves", "third repetition", "22x15x8"]),
    ],
)
async def test_rules_are_a_short_ephemeral_summary(
    tablebot: FakeDiscord, game: str, phrases: list[str]
) -> None:
    alice = await tablebot.add_member("alice")
    message = await answer(tablebot, "rules", {"game": game}, by=alice)
    assert message.ephemeral
    text = text_of(message)
    assert len(text) < 2000
    for phrase in phrases:
        assert phrase in text


async def test_config_is_for_managers_and_refuses_bad_values(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    member = await fake.add_member("member")
    mod = await fake.add_member("mod", manage_guild=True)
    before = await svc.handle(GetSettings(fake.guild.id))

    refused = await answer(fake, "config lengths", {"nannon": 7}, by=member)
    assert refused.ephemeral and refused.content == NOT_MANAGER
    assert await svc.handle(GetSettings(fake.guild.id)) == before

    bad = await answer(fake, "config times", {"reminder": 120, "claim": 60}, by=mod)
    assert bad.ephemeral and "claim time must be at least the reminder time" in bad.content
    assert await svc.handle(GetSettings(fake.guild.id)) == before

    ok = await answer(fake, "config lengths", {"nannon": 7, "checkers": 3}, by=mod)
    assert ok.ephemeral and ok.content.startswith("Saved.")
    after = await svc.handle(GetSettings(fake.guild.id))
    assert (after.nannon_length, after.checkers_length) == (7, 3)

    channel = await fake.add_channel("games")
    only = await answer(fake, "config channels", {"action": "only", "channel": channel}, by=mod)
    assert f"<#{channel.id}>" in only.content
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == (channel.id,)
    shown = await answer(fake, "config show", {}, by=mod)
    assert "Nannon 7" in shown.content


async def test_rate_limit_refuses_a_flood_ephemerally(tablebot: FakeDiscord) -> None:
    fake = tablebot
    mod = await fake.add_member("mod", manage_guild=True)
    flooder = await fake.add_member("flooder")
    calm = await fake.add_member("calm")
    saved = await answer(fake, "config ratelimit", {"actions": 3, "seconds": 3600}, by=mod)
    assert saved.content.startswith("Saved.")
    for _ in range(3):
        assert "Nannon" in text_of(await answer(fake, "rules", {"game": "nannon"}, by=flooder))
    refused = await answer(fake, "rules", {"game": "nannon"}, by=flooder)
    assert refused.ephemeral and refused.content.startswith("Slow down")
    # Others are not affected.
    assert "Nannon" in text_of(await answer(fake, "rules", {"game": "nannon"}, by=calm))


async def test_reminder_then_claim_win(tablebot: FakeDiscord, clock: Clock) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    await svc.handle(UpdateSettings(fake.guild.id, {"auto_roll": False, "auto_move": False}))
    view = await new_match(fake, alice, bob, length=3)
    for _ in range(20):
        if view.phase is Phase.ROLL:
            break
        view = await step(svc, view)
    assert view.actor is not None
    idle, waiting = (alice, bob) if view.actor == 0 else (bob, alice)
    settings = await svc.handle(GetSettings(fake.guild.id))
    start = view.last_action_at

    assert await fire_due(fake, start + 60) == []
    mark = fake.mark()
    sent = await fire_due(fake, start + settings.reminder_minutes * 60 + 1)
    assert sent == [("remind", view.match_id)]
    call = await fake.wait_for_call(method="POST", route="/channels/{channel_id}/messages",
                                    since=mark)  # fmt: skip
    assert f"<@{idle.id}>" in call.json["content"]
    assert call.json["allowed_mentions"]["parse"] == []
    assert [int(u) for u in call.json["allowed_mentions"]["users"]] == [idle.id]
    # Once per turn.
    assert await fire_due(fake, start + settings.reminder_minutes * 60 + 2) == []

    claim_at = start + settings.claim_minutes * 60 + 1
    assert await fire_due(fake, claim_at) == [("claim", view.match_id)]
    assert await fire_due(fake, claim_at + 1) == []
    channel = fake.channels[view.thread_id or view.channel_id]
    message = await fake.wait_until(
        lambda: next((m for m in reversed(fake.messages(channel)) if m.buttons), None),
        what="the claim message",
    )
    assert f"<@{waiting.id}>" in message.content
    # The service checks the idle time on its own clock: move it past the claim time.
    clock.advance(settings.claim_minutes * 60 + 10)

    it = await fake.click(message, label="Claim win", by=idle)
    refusal = await reply_to(it)  # a refusal is the click's answer
    assert refusal.ephemeral and "waiting for you" in refusal.content
    assert not (await svc.handle(ViewMatch(view.match_id))).match_over

    it = await fake.click(message, label="Claim win", by=waiting)
    await it.response()
    await fake.wait_until(
        lambda: any(
            m.embeds and "Match over" in str(m.embeds[0].get("title", ""))
            for m in fake.messages(channel)
        ),
        what="the match result",
    )
    final = await svc.handle(ViewMatch(view.match_id))
    assert final.match_over and final.players[final.winner_seat or 0].user_id == waiting.id
