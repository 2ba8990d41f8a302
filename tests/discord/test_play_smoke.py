"""Start-up: commands synced, intents minimal, the service open."""

from __future__ import annotations

import discord
import pytest
from fakediscord import FakeDiscord

from bot.discord.app import TableBot

pytestmark = pytest.mark.asyncio


async def test_bot_starts_with_minimal_intents_and_play_commands(tablebot: FakeDiscord) -> None:
    bot = tablebot.bot
    assert isinstance(bot, TableBot)
    assert bot.intents.value == (discord.Intents(guilds=True, guild_reactions=True).value)
    names = tablebot.command_names()
    for name in ("challenge", "move", "roll", "double", "take", "pass", "resign", "draw", "board"):
        assert name in names
