"""The discord.py application. Placeholder until the bot issue lands: it is replaced wholesale."""

from __future__ import annotations

import logging

from bot.config import Settings

log = logging.getLogger(__name__)


def run(settings: Settings, *, sync_only: bool = False) -> int:
    log.error("the bot is not built yet")
    return 1
