"""Discord cogs: each module is an extension with ``async def setup(bot)`` (see bot.discord.app)."""

import logging

log = logging.getLogger(__name__)
