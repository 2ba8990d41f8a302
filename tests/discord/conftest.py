"""Fixtures for the Discord adapter's tests: the real bot (bot.discord.app.create_bot) against
the fake Discord. The helpers the tests call live in tests/support/discord_driver.py."""

from support.discord_driver import clock, dice, tablebot

__all__ = ["clock", "dice", "tablebot"]
