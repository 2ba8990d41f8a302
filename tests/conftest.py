"""Shared fixtures. The fake Discord is imported lazily: engine-only runs never load discord.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from fakediscord import FakeDiscord


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Async tests run on the event loop `tablebot` runs on (bot.discord.app.loop_factory): uvloop
    where it is installed, else asyncio's own."""
    from bot.discord.app import loop_factory

    factory = loop_factory()
    if factory is None:
        return {"asyncio": asyncio.new_event_loop}
    return {"uvloop": factory}


@pytest_asyncio.fixture
async def start_fake_discord(
    tmp_path: Path,
) -> AsyncIterator[Callable[..., Any]]:
    """`fake = await start_fake_discord(lambda fake, tmp_path: bot_factory, **FakeDiscord_opts)`.

    Starts a FakeDiscord with the bot built by `bot_factory(**client_options)` and ready; stops it
    (and runs the strict end-of-test checks) at teardown. See tests/fakediscord/__init__.py.
    """
    from fakediscord import FakeDiscord

    async with AsyncExitStack() as stack:

        async def start(
            bot_factory_for: Callable[[FakeDiscord, Path], Callable[..., Any]], **options: Any
        ) -> FakeDiscord:
            fake = FakeDiscord(**options)
            return await stack.enter_async_context(fake.run(bot_factory_for(fake, tmp_path)))

        yield start
