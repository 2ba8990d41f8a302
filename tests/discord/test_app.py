"""How the application is put together (bot.discord.app), without a Discord: ``create_bot``
opens nothing until the bot starts, a missing extension stops the start-up, the rate limit is the
command tree's own check, and what the boards offer per game (resignation levels, draws) is what
the engines allow.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path

import discord
import pytest
from discord.ext import commands

from bot.config import Settings
from bot.discord import app
from bot.discord.app import TableTree, create_bot
from bot.service import MatchService
from engines import new_match
from engines.actions import OfferDraw, OpeningRoll, Resign
from engines.base import GameKind, GameMatch, MatchRules, ResignLevel
from engines.errors import GameError
from engines.spec import spec_of

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def settings(tmp_path: Path) -> Settings:
    return Settings(token=TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="INFO")


@pytest.mark.asyncio
async def test_create_bot_opens_nothing_until_the_bot_starts(tmp_path: Path) -> None:
    mentions = discord.AllowedMentions(users=False)
    bot = create_bot(settings(tmp_path), allowed_mentions=mentions)
    assert isinstance(bot.service, MatchService)
    assert bot.allowed_mentions is mentions  # client options go to discord.py
    assert not (tmp_path / "t.db").exists()
    await bot.close()  # never started: closing is harmless and opens nothing either
    assert not (tmp_path / "t.db").exists()


@pytest.mark.asyncio
async def test_setup_hook_connects_the_store_and_a_missing_extension_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "EXTENSIONS", ("bot.discord.cogs.nowhere", *app.EXTENSIONS))
    bot = create_bot(settings(tmp_path))
    try:
        with pytest.raises(commands.ExtensionNotFound):
            await bot.setup_hook()
        assert (tmp_path / "t.db").exists()  # the store was connected first
        assert (await bot.service.guild_settings(1)).nannon_length == 11
        assert bot.cogs == {}
    finally:
        await bot.close()


@pytest.mark.asyncio
async def test_wait_idle_returns_once_every_admitted_handler_has_finished(tmp_path: Path) -> None:
    bot = create_bot(settings(tmp_path))
    release = asyncio.Event()

    async def handler() -> None:
        assert bot.begin_work()
        await release.wait()

    try:
        await bot.wait_idle()  # nothing in flight: at once
        task = asyncio.create_task(handler())
        await asyncio.sleep(0)  # the handler registers itself
        assert bot.work_in_flight == 1
        idle = asyncio.create_task(bot.wait_idle())
        await asyncio.sleep(0)
        assert not idle.done()
        release.set()
        await idle
        assert task.done() and bot.work_in_flight == 0
    finally:
        await bot.close()


@pytest.mark.asyncio
async def test_start_up_logs_the_invite_and_warns_until_commands_are_registered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One line with the invite URL (the client id, both scopes, the permissions integer), and
    while no command is registered for the bot (globally, or in DEV_GUILD_ID), one warning
    naming `tablebot sync`."""
    from fakediscord import README_PERMISSIONS, FakeDiscord

    caplog.set_level(logging.INFO, logger="bot.discord.app")

    def lines(needle: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if needle in r.getMessage()]

    fake = FakeDiscord()
    async with fake.run(lambda **o: create_bot(settings(tmp_path), **o)):
        invite = (
            f"https://discord.com/oauth2/authorize?client_id={fake.application_id}"
            f"&scope=bot+applications.commands&permissions={README_PERMISSIONS}"
        )
        assert lines("invite") == [f"invite tablebot to a server: {invite}"]
        (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert "no slash commands are registered" in warning.getMessage()
        assert "`tablebot sync`" in warning.getMessage()
        bot = fake.bot
        assert isinstance(bot, app.TableBot)
        await bot.sync_global()
        caplog.clear()
        await fake.restart_bot()  # synced globally now: no warning
        assert len(lines("invite")) == 1 and lines("no slash commands") == []
    fake = FakeDiscord()
    caplog.clear()
    dev = dataclasses.replace(settings(tmp_path), dev_guild_id=fake.guild.id)
    async with fake.run(lambda **o: create_bot(dev, **o)):
        assert fake.command_names() and lines("no slash commands") == []


def test_the_rate_limit_is_the_command_trees_own_check(tmp_path: Path) -> None:
    bot = create_bot(settings(tmp_path))
    assert isinstance(bot.tree, TableTree)
    assert "interaction_check" not in vars(bot.tree)  # not patched onto the instance


def _playing(kind: GameKind) -> GameMatch:
    """A match of ``kind`` in its first game, the first player to move."""
    match = new_match(kind, MatchRules(length=3))
    if kind is not GameKind.CHECKERS:
        match.apply(OpeningRoll(None, (6, 1)))
    return match


def _allowed(kind: GameKind, action: object) -> bool:
    match = _playing(kind)
    try:
        match.apply(action)  # type: ignore[arg-type]
    except GameError:
        return False
    return True


@pytest.mark.parametrize("kind", list(GameKind))
def test_the_resign_menu_and_draw_button_offer_what_the_engine_allows(kind: GameKind) -> None:
    traits = spec_of(kind)
    offered = {level for level in ResignLevel if _allowed(kind, Resign(0, level))}
    assert set(traits.resign_levels) == offered and traits.resign_levels == tuple(sorted(offered))
    assert traits.draw_offers == _allowed(kind, OfferDraw(0))
