"""The bot at scale, through the fake Discord on an embedded PostgreSQL database: a whole match
end to end with TABLEBOT_DB a postgresql:// URL, and two bot processes (two TableBots on
disjoint shard ranges, one database, one fake Discord with two shards) that each serve their
own guilds, send each reminder once and expire each challenge once, even while their ranges
overlap (a process restarting on new shards before the old one stops)."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import discord
import pytest
import pytest_asyncio
from fakediscord import TOKEN, Channel, FakeDiscord, Guild, Member, Message
from support.discord_driver import (
    Clock,
    DiceScript,
    build_bot,
    fire_due,
    lift_rate_limit,
    next_board_or_end,
    results,
    start,
    tablebot_factory,
)

from bot.config import Settings
from bot.discord.app import TableBot
from bot.service import (
    ChallengeStatus,
    GetChallenge,
    Leaderboard,
    MatchService,
    MatchStatus,
    MatchView,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from bot.service.commands import MatchCommand, PlayMove, RollDice
from bot.service.events import ChallengeExpired
from bot.storage import GuildShards
from bot.storage.postgres import PostgresStore
from engines.base import GameMatch, Phase

pytestmark = [pytest.mark.asyncio, pytest.mark.postgres]


async def play_to_the_end(
    fake: FakeDiscord, bot: TableBot, match_id: int, thread: Channel, board: Message,
    players: dict[int, Member],
) -> None:  # fmt: skip
    """Roll, take, and play the first legal move from the board's menu, as whoever the match
    waits for, until it is over. After each action, until ``bot`` is done with it (it records
    the new board after posting it)."""
    current: Message | None = board
    for _ in range(300):
        async with asyncio.timeout(5):
            await bot.wait_idle()
        view = await bot.service.handle(ViewMatch(match_id))
        if view.status is not MatchStatus.ACTIVE:
            return
        assert current is not None
        who = players[view.actor if view.actor is not None else 0]  # an opening: either
        if view.phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
            await fake.click(current, label="Roll", by=who)
        elif view.phase is Phase.CUBE_OFFERED:
            await fake.click(current, label="Take", by=who)
        else:
            assert view.phase is Phase.MOVE, view.phase
            await fake.select(current, [view.legal_moves[0]], by=who)
        current = await next_board_or_end(fake, thread, match_id, current)
    raise AssertionError(f"match #{match_id} still going after 300 turns")


@pytest_asyncio.fixture
async def on_postgres(
    postgres_database: Callable[..., str], start_fake_discord: Callable[..., Any]
) -> FakeDiscord:
    """The real bot (create_bot) on a fresh PostgreSQL database, as `tablebot` starts it with
    TABLEBOT_DB=postgresql://..."""
    url = postgres_database()
    fake: FakeDiscord = await start_fake_discord(
        lambda fake, tmp_path: tablebot_factory(fake, tmp_path, db=url)
    )
    await fake.wait_for_commands()
    await lift_rate_limit(fake)
    return fake


async def test_a_match_end_to_end_on_postgresql(on_postgres: FakeDiscord) -> None:
    fake = on_postgres
    bot = fake.bot
    assert isinstance(bot, TableBot)
    svc = bot.service
    assert isinstance(svc.store, PostgresStore)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    match_id, thread, board = await start(fake, alice, bob, game="nannon", points=1)
    await play_to_the_end(fake, bot, match_id, thread, board, {0: alice, 1: bob})
    view = await svc.handle(ViewMatch(match_id))
    assert view.status is MatchStatus.FINISHED and view.winner_seat is not None
    await fake.wait_until(
        lambda: any(str(m.embeds[0].get("title", "")).startswith("Match over")
                    for m in results(fake, thread)),
        what="the match-over message",
    )  # fmt: skip
    report = await svc.handle(VerifyMatch(match_id, fake.guild.id))
    assert report.ok  # every die in the log, from the committed seed
    board_rows = await svc.handle(Leaderboard(fake.guild.id, "nannon"))
    assert {row.user_id for row in board_rows} == {alice.id, bob.id}
    # The bot closes, and a new one on the same database finds the finished match.
    await fake.restart_bot()
    restarted = fake.bot
    assert isinstance(restarted, TableBot) and restarted.service is not svc
    again = await restarted.service.handle(ViewMatch(match_id))
    assert again.status is MatchStatus.FINISHED and again.winner_seat == view.winner_seat


# --- two processes ------------------------------------------------------------------------------


class Process:
    """One bot process: a TableBot on some shards of the fake, on the shared database."""

    def __init__(self, fake: FakeDiscord, bot: TableBot) -> None:
        self.fake, self.bot = fake, bot

    @property
    def service(self) -> MatchService:
        return self.bot.service


@pytest_asyncio.fixture
async def two_processes(
    postgres_database: Callable[..., str],
) -> AsyncIterator[tuple[FakeDiscord, Process, Process, Guild, Guild]]:
    """A fake Discord with two shards and a guild on each, and two bot processes on one
    PostgreSQL database: the first runs shard 0 (and syncs the commands), the second shard 1.
    Their clocks are one test clock."""
    url = postgres_database()
    fake = FakeDiscord(shard_count=2)
    zero = await fake.add_guild("zero", shard=0)  # no bot yet: each gets it on IDENTIFY
    one = await fake.add_guild("one", shard=1)
    clock = Clock()

    def process(shard: int) -> Callable[..., TableBot]:
        settings = Settings(
            token=TOKEN, db_path=url, dev_guild_id=None, log_level="INFO",
            shard_count=2, shard_ids=(shard,),
        )  # fmt: skip
        # Openings never tie (a tied Nannon opening waits for either player, and nobody is
        # idle there): 6-1; the other dice at random.
        dice = DiceScript()
        opening = itertools.cycle((6, 1))
        rng = random.Random(shard)

        def steer(match: GameMatch) -> int:
            if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
                return next(opening)
            return rng.randint(1, 6)

        dice.steer = steer
        return lambda **options: build_bot(settings, clock=clock, dice_factory=dice.new, **options)

    async with fake.run(process(0)):
        first = fake.bot
        assert isinstance(first, TableBot)
        await first.tree.sync()  # what `tablebot sync` does once: global commands
        second = await fake.add_bot(process(1))
        assert isinstance(second, TableBot)
        for bot, guild in ((first, zero), (second, one)):
            # Scripted players are quicker than people (tests/discord/test_rate_limit.py);
            # challenges last longer than the reminder time (60 min).
            await bot.service.handle(
                UpdateSettings(guild.id, {"rate_limit_actions": 1000, "challenge_minutes": 180})
            )
        yield fake, Process(fake, first), Process(fake, second), zero, one


def reminders_in(fake: FakeDiscord, thread: Channel, match_id: int) -> list[Message]:
    return [
        m for m in fake.messages(thread)
        if f"match #{match_id} is waiting for you" in m.content
    ]  # fmt: skip


async def test_two_processes_each_serve_their_own_guilds(
    two_processes: tuple[FakeDiscord, Process, Process, Guild, Guild],
) -> None:
    fake, first, second, zero, one = two_processes
    assert first.bot.guild_shards == GuildShards(2, frozenset({0}))
    assert second.bot.guild_shards == GuildShards(2, frozenset({1}))
    assert zero.id in {g.id for g in first.bot.guilds} - {g.id for g in second.bot.guilds}
    assert one.id in {g.id for g in second.bot.guilds} - {g.id for g in first.bot.guilds}
    heard: dict[TableBot, list[int | None]] = {first.bot: [], second.bot: []}
    for bot, guilds in heard.items():

        async def on_interaction(
            interaction: discord.Interaction, guilds: list[int | None] = guilds
        ) -> None:
            guilds.append(interaction.guild_id)

        bot.add_listener(on_interaction)
    # A match in each guild, each played through the process that has the guild's shard.
    played = []
    for guild, process in ((zero, first), (one, second)):
        a = await fake.add_member("alice", guild)
        b = await fake.add_member("bob", guild)
        match_id, thread, board = await start_in(fake, process, a, b)
        played.append((process, match_id, thread, board, {0: a, 1: b}))
    for process, match_id, thread, board, players in played:
        await play_to_the_end(fake, process.bot, match_id, thread, board, players)
    assert heard[first.bot] and set(heard[first.bot]) == {zero.id}
    assert heard[second.bot] and set(heard[second.bot]) == {one.id}
    for process, match_id, _thread, _board, _players in played:
        assert (await process.service.handle(ViewMatch(match_id))).status is MatchStatus.FINISHED
        # The other process reads the same from the one database.
        other = second if process is first else first
        row = await other.service.store.match_row(match_id)
        assert row is not None and row["status"] == "finished"


async def start_in(
    fake: FakeDiscord, process: Process, a: Member, b: Member
) -> tuple[int, Channel, Message]:
    """``start`` reads the match back through fake.bot's service; any process's reads the same
    database, but the match is the owner's: wait until its handlers are done."""
    match_id, thread, board = await start(fake, a, b, game="nannon", points=1)
    async with asyncio.timeout(5):
        await process.bot.wait_idle()
    return match_id, thread, board


async def test_a_reminder_is_sent_once_and_a_challenge_expires_once(
    two_processes: tuple[FakeDiscord, Process, Process, Guild, Guild],
) -> None:
    fake, first, second, zero, one = two_processes
    # A match waiting in each guild, and an open challenge in each.
    matches = {}
    challenges = {}
    for guild, process in ((zero, first), (one, second)):
        a = await fake.add_member("alice", guild)
        b = await fake.add_member("bob", guild)
        match_id, thread, _board = await start_in(fake, process, a, b)
        matches[guild.id] = (match_id, thread)
        it = await fake.slash("challenge", {"game": "nannon", "points": 1}, by=b)
        invitation = (await it.response()).message
        assert invitation is not None
        async with asyncio.timeout(5):
            await process.bot.wait_idle()
        challenge_id = int(invitation.custom_ids[0].rsplit(":", 1)[1])  # tb:c:accept:<id>
        challenge = await process.service.handle(GetChallenge(challenge_id, guild.id))
        assert challenge.status is ChallengeStatus.OPEN
        challenges[guild.id] = (challenge, invitation)

    # Past the reminder time, both processes' schedulers pass at once: either fires each
    # match's reminder (a deadline is claimed once), each match is reminded once.
    view = await first.service.handle(ViewMatch(matches[zero.id][0]))
    due = view.last_action_at + 61 * 60
    done = await asyncio.gather(
        fire_due(fake, due, first.service), fire_due(fake, due, second.service)
    )
    assert sorted(done[0] + done[1]) == sorted(("remind", m) for m, _ in matches.values())
    again = await asyncio.gather(
        fire_due(fake, due, first.service), fire_due(fake, due, second.service)
    )
    assert again == [[], []]
    await fake.wait_bot_idle()
    for match_id, thread in matches.values():
        assert len(reminders_in(fake, thread, match_id)) == 1

    # A rolling restart: the second process, restarted on every shard, runs while the first
    # still runs shard 0. Both see guild zero's match and challenge; each happens once.
    second.bot.settings = replace(second.bot.settings, shard_ids=None)
    assert second.bot.guild_shards is None
    zero_match, zero_thread = matches[zero.id]
    await first.service.handle(one_step(await first.service.handle(ViewMatch(zero_match))))
    view = await first.service.handle(ViewMatch(zero_match))
    due = view.last_action_at + 61 * 60
    expiry = max(c.expires_at for c, _ in challenges.values())
    done = await asyncio.gather(
        fire_due(fake, due, first.service), fire_due(fake, due, second.service)
    )
    reminded = [m for d in done for kind, m in d if kind == "remind"]
    assert reminded == [zero_match]  # once, by whichever claimed it
    # Challenges expire on the service's scheduler: either process fires each deadline (the
    # accepted challenges' too, which expire nothing), each once.
    told: list[ChallengeExpired] = []
    for process in (first, second):
        process.service.bus.subscribe(ChallengeExpired, told.append)
    fired = await asyncio.gather(
        first.service.timers.run_due(expiry), second.service.timers.run_due(expiry)
    )
    keys = sorted(int(d.key) for f in fired for d in f if d.kind == "challenge.expiry")
    assert keys == sorted(set(keys))  # no deadline fired twice
    expired = sorted(event.challenge.id for event in told)
    assert expired == sorted(c.id for c, _ in challenges.values())  # each once
    await fake.wait_bot_idle()
    assert len(reminders_in(fake, zero_thread, zero_match)) == 2  # one per turn
    for challenge, invitation in challenges.values():
        got = await first.service.handle(GetChallenge(challenge.id, challenge.guild_id))
        assert got.status is ChallengeStatus.EXPIRED
        await fake.wait_until(lambda invitation=invitation: not invitation.components)
        assert len(invitation.edits) == 1, invitation.edits  # closed once


def one_step(view: MatchView) -> MatchCommand:
    """The command that moves the match on: the actor rolls, or plays the first legal move."""
    user = view.players[view.actor if view.actor is not None else 0].user_id
    where = (view.match_id, view.guild_id, user)
    if view.phase is Phase.MOVE:
        return PlayMove(*where, expected_version=view.version, move=view.legal_moves[0])
    return RollDice(*where, expected_version=view.version)
