"""/language: the language tablebot speaks to a member in what only they read (ephemeral
replies), in every server; "Discord's" goes back to their Discord client's language. What
everyone reads is in the server's language (/config language, in the admin cog)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.catalogue import LOCALES, choices, command_text, member_locale, reader, text
from bot.discord.replies import NO_MENTIONS
from bot.service import ChooseLanguage

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)

# The choice that drops a member's own choice, or a server's: Discord's language is used.
DISCORD_LANGUAGE = "discord"
LANGUAGE_CHOICES = (*LOCALES, DISCORD_LANGUAGE)


def chosen_language(value: str) -> str | None:
    """A /language or /config language choice as the service keeps it (None: Discord's)."""
    return None if value == DISCORD_LANGUAGE else value


def language_name(locale: str) -> str:
    """A language by its own name ("Deutsch", "Türkçe")."""
    return text(f"choice.language.{locale}")


class LanguageCog(commands.Cog, name="Language"):
    """/language for every member."""

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot

    @app_commands.command(name="language", description=command_text("command.language"))
    @app_commands.guild_only()
    @app_commands.describe(language=command_text("command.language.language"))
    @app_commands.choices(language=choices("language", LANGUAGE_CHOICES))
    async def language(self, interaction: discord.Interaction[Any], language: str) -> None:
        kept = await self.bot.service.handle(
            ChooseLanguage(interaction.user.id, chosen_language(language))
        )
        now = member_locale(kept, interaction.locale)
        reader.set(now)  # the answer in the language just chosen
        said = (
            text("language.member_chosen", language=language_name(now))
            if kept is not None
            else text("language.member_discord", language=language_name(now))
        )
        log.info("user %s chose the language %s", interaction.user.id, kept)
        await interaction.response.send_message(said, ephemeral=True, allowed_mentions=NO_MENTIONS)


async def setup(bot: TableBot) -> None:
    await bot.add_cog(LanguageCog(bot))
