"""Lists that can grow stay within Discord's limits, through the fake Discord (which refuses a
message over them with 400 Invalid Form Body): /games (2,000 characters of content), /history
and the leaderboards (4,096 in an embed's description) show a page at a time with Previous and
Next, which read the list again; /config show at its longest (25 challenge channels) fits in one
message. Names are as long and as full of markdown as Discord allows, so each line is at its
longest.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fakediscord import FakeDiscord, InteractionHandle, Member, Message
from support.db import sql_write
from support.discord_driver import handlers_done, reply_to, service_of

from bot.discord.cogs.admin import describe_settings
from bot.service import AcceptChallenge, GetSettings, NewChallenge, UpdateSettings
from bot.service.commands import LeaveMatch
from bot.service.settings import MAX_CHALLENGE_CHANNELS

pytestmark = pytest.mark.asyncio

# 32 characters of markdown: escaped, each doubles; a display name is at most 32.
LONG = "*_~`|>" * 5 + "**"


async def long_named(fake: FakeDiscord, name: str) -> Member:
    return await fake.add_member(name, nick=(name + LONG)[:32])


def shown(member: Member) -> str:
    return member.nick or member.name


async def active_match(fake: FakeDiscord, a: Member, b: Member) -> int:
    svc = service_of(fake)
    challenge = await svc.handle(NewChallenge(
        fake.guild.id, fake.channel.id, a.id, shown(a), "backgammon", opponent_id=b.id,
        opponent_name=shown(b), length=25,
    ))  # fmt: skip
    update = await svc.handle(AcceptChallenge(challenge.id, fake.guild.id, b.id, shown(b)))
    return update.match_id


async def finished(fake: FakeDiscord, a: Member, b: Member) -> int:
    """A match ``b`` concedes at once."""
    match_id = await active_match(fake, a, b)
    await service_of(fake).handle(LeaveMatch(match_id, fake.guild.id, b.id))
    return match_id


async def pages_of(fake: FakeDiscord, it: InteractionHandle, by: Member) -> list[Message]:
    """The answer to ``it`` and every page after it, clicking Next until it is disabled: a
    snapshot of each page's content and embeds."""
    first = await reply_to(it)
    shown = [snapshot(first)]
    message = first
    for _ in range(20):
        nxt = message.component(label="Next")
        if nxt is None or nxt.get("disabled"):
            break
        click = await fake.click(message, label="Next", by=by)
        assert (await click.response()).type == 7  # the same message, the next page
        await handlers_done(fake)
        shown.append(snapshot(message))
    return shown


def snapshot(message: Message) -> Message:
    copied = Message(message.id, message.channel, message.author, message.content)
    copied.embeds = [dict(e) for e in message.embeds]
    copied.components = list(message.components)
    copied.flags = message.flags
    return copied


def description(message: Message) -> str:
    return str(message.embeds[0].get("description", ""))


async def test_games_pages_hold_every_match_within_the_content_limit(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    alice = await long_named(fake, "alice")
    ids = []
    for n in range(30):
        ids.append(await active_match(fake, alice, await long_named(fake, f"p{n}")))
    it = await fake.slash("games", {}, by=alice)
    pages = await pages_of(fake, it, alice)
    assert len(pages) >= 3
    listed: list[int] = []
    for number, page in enumerate(pages, start=1):
        assert page.ephemeral and len(page.content) <= 2000
        assert page.content.startswith("Your active matches:")
        assert page.content.endswith(f"Page {number} of {len(pages)}")
        listed += [int(i) for i in re.findall(r"`#(\d+)`", page.content)]
    assert listed == ids  # each once, in order
    first, last = pages[0], pages[-1]
    assert first.component(label="Previous")["disabled"]
    assert last.component(label="Next")["disabled"]
    assert not last.component(label="Previous")["disabled"]


async def test_history_pages_hold_every_match_within_the_embed_limit(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    alice = await long_named(fake, "alice")
    bob = await long_named(fake, "bob")
    ids = [await finished(fake, alice, bob) for _ in range(45)]
    it = await fake.slash("history", {"user": alice}, by=bob)
    pages = await pages_of(fake, it, bob)
    assert len(pages) == 5  # ten to a page
    listed: list[int] = []
    for number, page in enumerate(pages, start=1):
        assert page.ephemeral and len(description(page)) <= 4096
        assert page.embeds[0]["title"].startswith("Recent matches of alice")
        assert page.embeds[0]["footer"]["text"] == f"Page {number} of 5"
        listed += [int(i) for i in re.findall(r"`#(\d+)`", description(page))]
    assert listed == sorted(ids, reverse=True)  # newest first, each once


async def test_leaderboard_pages_rank_everyone_and_anyone_may_turn_them(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    players = [await long_named(fake, f"p{n}") for n in range(24)]
    for a, b in zip(players[::2], players[1::2], strict=True):
        await finished(fake, a, b)
    carol = await fake.add_member("carol")
    it = await fake.slash("leaderboard", {"game": "backgammon"}, by=carol)
    dave = await fake.add_member("dave")
    pages = await pages_of(fake, it, dave)  # a public message: anyone may turn its pages
    assert len(pages) == 3
    ranks: list[int] = []
    for number, page in enumerate(pages, start=1):
        assert not page.ephemeral and len(description(page)) <= 4096
        footer: Any = page.embeds[0]["footer"]["text"]
        assert footer == f"rank · name · rating · W-L · points won-lost · Page {number} of 3"
        ranks += [int(r) for r in re.findall(r"^\*\*(\d+)\.\*\*", description(page), re.M)]
    assert ranks == list(range(1, 25))


# Issue 38: boards of a big server, past the old cap of 100 ranks.
RANKED = 125
BOARDS = {  # /leaderboard's options, the board's arg, the footer before "Page n of m"
    "by game": ({"game": "backgammon"}, "rank · name · rating · W-L · points won-lost · "),
    "by length": (
        {"game": "backgammon", "points": 5},
        "rank · name · rating · W-L · points won-lost · ",
    ),
    "puzzles": ({"game": "puzzles"}, ""),
}


RANKING = {  # how the store keeps a rank on each board
    "ratings": "INSERT INTO ratings (guild_id, game, user_id, name, rating, played, won) "
    "VALUES (?1, 'backgammon', ?2, ?3, ?4, 2, 1)",
    "length records": "INSERT INTO length_records (guild_id, game, length, user_id, rating, "
    "played, won) VALUES (?1, 'backgammon', 5, ?2, ?4, 2, 1)",
    "solvers": "INSERT INTO puzzle_ratings (guild_id, user_id, name, rating, attempts, solved) "
    "VALUES (?1, ?2, ?3, ?4, 3, 1)",
}


async def ranked_server(fake: FakeDiscord, board: str) -> list[Member]:
    """``RANKED`` members on ``board``, rank n being players[n - 1] (ratings written as the
    store keeps them: the ratings row and the length records the triggers keep, or the
    solvers' row)."""
    store = service_of(fake)._state.store
    players = [await fake.add_member(f"m{n}") for n in range(RANKED)]
    tables = ("solvers",) if board == "puzzles" else ("ratings", "length records")
    for n, member in enumerate(players):
        for table in tables:
            values = (fake.guild.id, member.id, member.name, 2000.0 - n)
            await sql_write(store, RANKING[table], values)
    return players


def ranks_on(page: Message) -> list[int]:
    return [int(r) for r in re.findall(r"^\**(\d+)\.", description(page), re.M)]


@pytest.mark.parametrize("board", list(BOARDS))
async def test_every_leaderboard_pages_to_its_last_rank(tablebot: FakeDiscord, board: str) -> None:
    """Issue 38: each leaderboard (by game, by length, puzzles) reads a page at a time from the
    store and Next goes on to the last rank, past the 100 the boards used to stop at."""
    fake = tablebot
    options, footer = BOARDS[board]
    await ranked_server(fake, board)
    carol = await fake.add_member("carol")
    pages = await pages_of(fake, await fake.slash("leaderboard", options, by=carol), carol)
    assert len(pages) == 13
    for number, page in enumerate(pages, start=1):
        assert page.embeds[0]["footer"]["text"] == f"{footer}Page {number} of 13"
    assert [rank for page in pages for rank in ranks_on(page)] == list(range(1, RANKED + 1))
    assert "m124" in description(pages[-1])


@pytest.mark.parametrize("board", list(BOARDS))
async def test_a_member_finds_their_own_rank_and_page(tablebot: FakeDiscord, board: str) -> None:
    """Issue 38: My place under a leaderboard answers the clicker alone with their rank and
    the page they stand on (whose pages they can turn); someone not on it is told so."""
    fake = tablebot
    options, footer = BOARDS[board]
    players = await ranked_server(fake, board)
    board_message = await reply_to(await fake.slash("leaderboard", options, by=players[0]))
    click = await fake.click(board_message, label="My place", by=players[56])
    mine = await reply_to(click)
    assert mine.ephemeral
    assert description(mine).startswith("You are **#57** of 125 on this board.")
    assert mine.embeds[0]["footer"]["text"] == f"{footer}Page 6 of 13"
    assert ranks_on(mine) == list(range(51, 61)) and "m56" in description(mine)
    await (await fake.click(mine, label="Next", by=players[56])).response()
    await handlers_done(fake)
    assert ranks_on(mine) == list(range(61, 71))  # their own copy turns its pages
    assert ranks_on(board_message) == list(range(1, 11))  # the public board didn't move
    stranger = await fake.add_member("stranger")
    theirs = await reply_to(await fake.click(board_message, label="My place", by=stranger))
    assert description(theirs).startswith("You are not on this board yet")
    assert ranks_on(theirs) == list(range(1, 11))


async def test_config_show_fits_one_message_at_its_longest(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    mod = await fake.add_member("mod", manage_guild=True)
    channels = [await fake.add_channel(f"c{n}") for n in range(MAX_CHALLENGE_CHANNELS)]
    await svc.handle(
        UpdateSettings(fake.guild.id, {"challenge_channels": [c.id for c in channels]})
    )
    answer = await reply_to(await fake.slash("config show", {}, by=mod))
    settings = await svc.handle(GetSettings(fake.guild.id))
    assert answer.content == describe_settings(settings)
    assert len(answer.content) <= 2000
    assert all(f"<#{c.id}>" in answer.content for c in channels)
