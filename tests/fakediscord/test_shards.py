"""The fake's shards: GET /gateway/bot advises ``FakeDiscord(shard_count=n)``, IDENTIFY's
``shard`` is honoured (one session per shard id), and each guild's events go to the session of
shard ``(guild_id >> 22) % n``, so two bots on disjoint shard ranges (two processes) each see
only their own guilds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands

from fakediscord import FakeDiscord, Guild

pytestmark = pytest.mark.asyncio


class ShardBot(commands.AutoShardedBot):
    """Answers /where with the shards it runs; the one with shard 0 syncs the command."""

    def __init__(self, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=discord.Intents.default(), **options
        )

    async def setup_hook(self) -> None:
        self.tree.add_command(where)
        if self.shard_ids is None or 0 in self.shard_ids:
            await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No pause: discord.py waits 5 s before each IDENTIFY but a process's first, as
        Discord allows one per 5 s; the fake allows any number."""


@app_commands.command(description="Which shards answer here")
async def where(interaction: discord.Interaction) -> None:
    bot = interaction.client
    assert isinstance(bot, ShardBot)
    await interaction.response.send_message(f"shards {bot.shard_ids} guild {interaction.guild_id}")


async def on_shards(fake: FakeDiscord) -> tuple[Guild, Guild]:
    """A guild on shard 0 and one on shard 1."""
    return await fake.add_guild("zero", shard=0), await fake.add_guild("one", shard=1)


async def seen_where_they_belong(
    fake: FakeDiscord, first: ShardBot, second: ShardBot, zero: Guild, one: Guild
) -> None:
    """A channel made in each guild (CHANNEL_CREATE) reaches the bot of that guild's shard
    (the fake waits until that bot parsed it), and only that bot."""
    zero_channel = await fake.add_channel("games", zero)
    one_channel = await fake.add_channel("games", one)
    assert first.get_channel(zero_channel.id) is not None
    assert second.get_channel(one_channel.id) is not None
    assert first.get_channel(one_channel.id) is None
    assert second.get_channel(zero_channel.id) is None


@pytest_asyncio.fixture
async def two_processes() -> AsyncIterator[tuple[FakeDiscord, ShardBot, ShardBot]]:
    """A fake with two shards, a bot on shard 0 and another on shard 1."""
    fake = FakeDiscord(shard_count=2)
    async with fake.run(lambda **o: ShardBot(shard_count=2, shard_ids=[0], **o)):
        other = await fake.add_bot(lambda **o: ShardBot(shard_count=2, shard_ids=[1], **o))
        assert isinstance(fake.bot, ShardBot) and isinstance(other, ShardBot)
        yield fake, fake.bot, other


async def test_one_bot_asks_for_the_shard_count_and_runs_every_shard() -> None:
    fake = FakeDiscord(shard_count=3)
    async with fake.run(lambda **o: ShardBot(**o)):
        zero, one = await on_shards(fake)
        bot = fake.bot
        assert isinstance(bot, ShardBot)
        assert fake.calls_matching(method="GET", route="/gateway/bot")
        assert bot.shard_count == 3 and sorted(bot.shards) == [0, 1, 2]
        assert sorted(fake.sessions) == [0, 1, 2]
        assert [(s.shard_id, s.shard_count) for s in fake.sessions.values()] == [
            (i, 3) for i in range(3)
        ]
        # Every guild, each through its own shard's session.
        assert {g.id for g in bot.guilds} == set(fake.guilds)
        for guild in fake.guilds.values():
            cached = bot.get_guild(guild.id)
            assert cached is not None and cached.shard_id == fake.shard_of(guild)
        assert fake.shard_of(zero) == 0 and fake.shard_of(one) == 1


async def test_each_process_gets_only_its_own_guilds(
    two_processes: tuple[FakeDiscord, ShardBot, ShardBot],
) -> None:
    fake, first, second = two_processes
    zero, one = await on_shards(fake)
    assert not fake.calls_matching(method="GET", route="/gateway/bot")  # the count was given
    assert (fake.sessions[0].shard_id, fake.sessions[1].shard_id) == (0, 1)
    on_zero = {g.id for g in fake.guilds.values() if fake.shard_of(g) == 0}
    assert {g.id for g in first.guilds} == on_zero
    assert {g.id for g in second.guilds} == set(fake.guilds) - on_zero
    # Events follow their guild.
    await seen_where_they_belong(fake, first, second, zero, one)


async def test_interactions_go_to_the_process_with_the_guilds_shard(
    two_processes: tuple[FakeDiscord, ShardBot, ShardBot],
) -> None:
    fake = two_processes[0]
    zero, one = await on_shards(fake)
    await fake.wait_for_commands(None)  # global
    alice = await fake.add_member("alice", zero)
    bob = await fake.add_member("bob", one)
    answer = await (await fake.slash("where", {}, by=alice)).response()
    assert answer.message is not None
    assert answer.message.content == f"shards [0] guild {zero.id}"
    answer = await (await fake.slash("where", {}, by=bob)).response()
    assert answer.message is not None
    assert answer.message.content == f"shards [1] guild {one.id}"
    # Only the process with shard 0 synced the commands.
    syncs = fake.calls_matching(method="PUT", route="/applications/{application_id}/commands")
    assert len(syncs) == 1


async def test_a_shard_reconnects_on_its_own(
    two_processes: tuple[FakeDiscord, ShardBot, ShardBot],
) -> None:
    fake, first, second = two_processes
    zero, one = await on_shards(fake)
    session = fake.sessions[1]
    assert session.ws is not None
    fake.dropped_ws.add(session.ws)
    await session.ws.close(code=4000, message=b"dropped by the test")
    await fake.wait_until(lambda: session.resumes == 1 and session.ws is not None)
    await seen_where_they_belong(fake, first, second, zero, one)
