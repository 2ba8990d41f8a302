"""Puzzles through the fake Discord (the real bot, the analysis worker ranking the answer keys):
/puzzle gives a member an ephemeral puzzle with its board and a select of its options, never
one of their own games; answering once, privately (right or wrong, the equity against the best,
the answer), a second answer refused; the daily post at its time (the reminder loop's injected
clock) with its live count, kept over a restart and revealed at the next post with who solved
it, the game's player unnamed; /puzzles privacy keeps a member's games out."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from support.discord_driver import DiceScript, fire_due, reply_to, service_of
from support.puzzle_driver import blundering_match
from support.robot_driver import settle

from bot.service import AnalysisStatus, RequestAnalysis
from engines.puzzles import AnswerKey

pytestmark = pytest.mark.asyncio


def seeded(dice: DiceScript, seed: int) -> None:
    rng = random.Random(seed)
    dice.face = lambda: rng.randint(1, 6)


async def answer(fake: FakeDiscord, command: str, by: Member, **options: Any) -> Message:
    return await reply_to(await fake.slash(command, options, by=by))


async def mine(fake: FakeDiscord, alice: Member, bob: Member) -> int:
    """Alice blunders a Nannon match against Bob; its analysis mines the puzzles."""
    service = service_of(fake)
    guild, channel = fake.guild.id, fake.channel.id
    match_id = await blundering_match(
        service, guild, channel, (alice.id, "alice"), (bob.id, "bob"), 7
    )
    await service.handle(RequestAnalysis(match_id, guild, alice.id))
    await settle(fake)
    await service.analyses.wait_idle()
    await service.puzzles.wait_idle()
    await settle(fake)
    assert (await service.analyses.view(match_id)).status is AnalysisStatus.DONE
    return match_id


async def key_of(fake: FakeDiscord, puzzle_id: int) -> tuple[AnswerKey, str]:
    row = await service_of(fake).store.puzzle_row(puzzle_id)
    assert row is not None
    return AnswerKey.from_list(json.loads(row["answer_key"])), str(row["played"])


def puzzle_id_of(message: Message) -> int:
    [menu] = [c for c in message.walk_components() if c.get("type") == 3]
    return int(menu["custom_id"].rsplit(":", 1)[1])


def options_of(message: Message) -> list[str]:
    [menu] = [c for c in message.walk_components() if c.get("type") == 3]
    return [o["value"] for o in menu["options"]]


async def test_a_member_solves_a_puzzle_of_their_own_privately(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    seeded(dice, 5)
    alice, bob, carol = [await fake.add_member(n) for n in ("alice", "bob", "carol")]
    await mine(fake, alice, bob)
    # Alice's own blunders are not served to her unless she asks.
    refused = await answer(fake, "puzzle", alice)
    assert refused.ephemeral and "no puzzle left" in refused.content
    card = await answer(fake, "puzzle", carol, game="nannon")
    assert card.ephemeral
    assert card.attachments and card.attachments[0].filename == "puzzle.png"
    assert card.attachments[0].description  # alt text
    assert "Find the best move" in (card.embeds[0].get("description") or "")
    assert "alice" not in json.dumps(card.embeds)  # the player is not named
    puzzle_id = puzzle_id_of(card)
    key, played = await key_of(fake, puzzle_id)
    options = options_of(card)
    assert key.best.move in options and played in options and options == sorted(options)
    reply = await reply_to(await fake.select(card, [key.best.move], by=carol))
    assert reply.ephemeral and reply.content.startswith("Right:")
    again = await reply_to(await fake.select(card, [played], by=carol))
    assert again.ephemeral and "already answered" in again.content
    mine_too = await answer(fake, "puzzle", alice, mine=True)
    assert mine_too.ephemeral and mine_too.attachments
    # Alice keeps her games out: Bob finds nothing left to try.
    said = await answer(fake, "puzzles privacy", alice, use_my_games=False)
    assert said.ephemeral and "will not be used" in said.content
    assert "no puzzle left" in (await answer(fake, "puzzle", bob)).content


async def test_the_daily_post_counts_answers_and_is_revealed_after_a_restart(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    seeded(dice, 6)
    alice, bob, carol, dave = [await fake.add_member(n) for n in ("alice", "bob", "carol", "dave")]
    await mine(fake, alice, bob)
    channel: Channel = fake.channel
    admin = await fake.add_member("admin", manage_guild=True)
    bad = await answer(fake, "config puzzles", admin, time="25:00")
    assert bad.ephemeral and bad.content.startswith("25:00 is not a time")
    said = await answer(fake, "config puzzles", admin, channel=channel, time="09:00")
    assert said.ephemeral and said.content.startswith("Saved.")
    assert f"Daily puzzle: <#{channel.id}> at 09:00 UTC; puzzles name the players: off." in (
        said.content
    )

    # The post is a deadline of the service's scheduler, armed by /config for 09:00 UTC (now,
    # when today's 09:00 has passed without a post).
    row = await service_of(fake).store.deadline("puzzle.daily", str(fake.guild.id))
    assert row is not None and row["fired_at"] is None
    due = float(row["due_at"])
    assert await fire_due(fake, due - 3600) == []
    done = await fire_due(fake, due + 30)
    [(what, puzzle_id)] = done
    assert what == "puzzle"
    await settle(fake)
    post = channel.messages[-1]
    assert not post.ephemeral and post.content == "0 tried, 0 found it."
    assert post.embeds[0]["title"].startswith("Daily puzzle: Puzzle #")
    assert puzzle_id_of(post) == puzzle_id
    assert await fire_due(fake, due + 3600) == []  # once a day
    key, played = await key_of(fake, puzzle_id)
    right = await reply_to(await fake.select(post, [key.best.move], by=carol))
    assert right.ephemeral and right.content.startswith("Right:")
    wrong = await reply_to(await fake.select(post, [played], by=dave))
    assert wrong.ephemeral and wrong.content.startswith("Not quite:")
    assert f"**{key.best.move}**" in wrong.content
    await settle(fake)
    assert post.content == "2 tried, 1 found it."  # edited in place, the answer not given
    assert key.best.move not in post.content
    # A restart between the post and the reveal: the next day's pass reveals it.
    await fake.restart_bot()
    await fake.wait_for_commands()
    done = await fire_due(fake, due + 86_400)
    await settle(fake)
    reveal = next(m for m in channel.messages if "the answer" in m.content)
    assert f"#{puzzle_id}" in reveal.content and "Solved by carol (2 tried)." in reveal.content
    assert f"1. {key.best.move}" in reveal.content
    assert "alice" not in reveal.content and "dave" not in reveal.content
    assert post.content == "2 tried, 1 found it." and not list(post.walk_components())
    if done:  # the pool had a second puzzle: it is the new post
        assert channel.messages[-1].embeds[0]["title"].startswith("Daily puzzle")
    # The solvers' table, and each one's /stats.
    top = await answer(fake, "leaderboard", carol, game="puzzles")
    first, second = top.embeds[0]["description"].splitlines()
    assert first.startswith("1. carol: ") and first.endswith("(1 solved of 1)")
    assert second.startswith("2. dave: ") and second.endswith("(0 solved of 1)")
    stats = await answer(fake, "stats", carol)
    fields = {f["name"]: f["value"] for f in stats.embeds[0].get("fields", [])}
    assert fields["Puzzles"].endswith("1 solved of 1")
