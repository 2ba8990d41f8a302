"""Fixtures for the tests of the fake itself: raw REST against a served fake (no bot, exact
statuses and headers), and a small discord.py bot whose command answers wait until the test
lets them go (to answer late, on the fake's clock)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest_asyncio
from discord import app_commands
from discord.ext import commands

from fakediscord import TOKEN, FakeDiscord
from fakediscord.model import Channel, Message
from fakediscord.server import API_PREFIX


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any


class Rest:
    """The bot's REST calls made by hand: ``await rest.post("/channels/1/messages", {...})``."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        files: dict[str, tuple[str, bytes]] | None = None,
        token: bool = True,
    ) -> Reply:
        headers = {"Authorization": f"Bot {TOKEN}"} if token else {}
        data: Any = None
        if files is not None:
            form = aiohttp.FormData(quote_fields=False)
            form.add_field("payload_json", json.dumps(body or {}))
            for name, (filename, content) in files.items():
                form.add_field(name, io.BytesIO(content), filename=filename)
            data = form
        elif body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        url = f"{self.fake.base_url}{API_PREFIX}{path}"
        async with self.session.request(method, url, data=data, headers=headers) as response:
            raw = await response.read()
            parsed = json.loads(raw) if raw else None
            return Reply(response.status, dict(response.headers), parsed)

    async def get(self, path: str, **kwargs: Any) -> Reply:
        return await self.call("GET", path, **kwargs)

    async def post(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return await self.call("POST", path, body, **kwargs)

    async def patch(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return await self.call("PATCH", path, body, **kwargs)

    async def put(self, path: str, **kwargs: Any) -> Reply:
        return await self.call("PUT", path, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Reply:
        return await self.call("DELETE", path, **kwargs)

    async def send(self, channel: Channel, content: str = "hi", **body: Any) -> Reply:
        return await self.post(f"/channels/{channel.id}/messages", {"content": content, **body})

    async def thread(self, channel: Channel | None = None, name: str = "a match") -> Channel:
        """A public thread the bot starts from a message of its own in ``channel``."""
        channel = channel or self.fake.channel
        starter = await self.send(channel, "starting")
        assert starter.status == 200, starter
        made = await self.post(
            f"/channels/{channel.id}/messages/{starter.body['id']}/threads", {"name": name}
        )
        assert made.status == 200, made
        return self.fake.channels[int(made.body["id"])]

    def message(self, reply: Reply) -> Message:
        return self.fake.get_message(int(reply.body["id"]))


@pytest_asyncio.fixture
async def rest() -> AsyncIterator[Rest]:
    """A served FakeDiscord (no bot: nothing is dispatched) and a client for its REST API."""
    fake = FakeDiscord()
    await fake.start_server()
    try:
        async with aiohttp.ClientSession() as session:
            yield Rest(fake, session)
    finally:
        await fake.stop_server()


class GateBot(commands.Bot):
    """Answers /gate and /later only once the test opens ``gate``: /gate answers then, /later
    defers at once and follows up then."""

    def __init__(self, guild_id: int, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=discord.Intents.default(), **options
        )
        self.guild_id = guild_id
        self.gate = asyncio.Event()
        self.failures: list[discord.HTTPException] = []

    async def setup_hook(self) -> None:
        guild = discord.Object(self.guild_id)
        self.tree.add_command(gate_command, guild=guild)
        self.tree.add_command(later_command, guild=guild)
        await self.tree.sync(guild=guild)


@app_commands.command(name="gate", description="Answer when the test says so")
async def gate_command(interaction: discord.Interaction) -> None:
    bot = interaction.client
    assert isinstance(bot, GateBot)
    await bot.gate.wait()
    try:
        await interaction.response.send_message("through the gate")
    except discord.HTTPException as exc:
        bot.failures.append(exc)


@app_commands.command(name="later", description="Defer, then follow up when the test says so")
async def later_command(interaction: discord.Interaction) -> None:
    bot = interaction.client
    assert isinstance(bot, GateBot)
    await interaction.response.defer(thinking=True)
    await bot.gate.wait()
    try:
        await interaction.followup.send("later")
    except discord.HTTPException as exc:
        bot.failures.append(exc)


@pytest_asyncio.fixture
async def gated(start_fake_discord: Any) -> FakeDiscord:
    """A fake with a GateBot logged in, its commands synced."""
    fake: FakeDiscord = await start_fake_discord(
        lambda fake, tmp_path: lambda **o: GateBot(fake.guild.id, **o)
    )
    await fake.wait_for_commands()
    return fake


def gate_of(fake: FakeDiscord) -> GateBot:
    bot = fake.bot
    assert isinstance(bot, GateBot)
    return bot
