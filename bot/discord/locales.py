"""Whose language a message is written in (the catalogue's :data:`~bot.discord.catalogue.reader`).

- What only the member reads (an ephemeral reply, a followup, an error): their /language
  choice, else their Discord client's language (``interaction.locale``). Set for the whole
  handling of an interaction by :func:`read_by_member` (the command tree's and every
  component's first check call it).
- What everyone in the server reads (boards, invitations, results, announcements, analysis
  reports): the server's /config language, else its community language (``guild_locale``).
  The presenter's public entry points run inside :func:`for_server`.

The choice itself is pure (:func:`~bot.discord.catalogue.member_locale`,
:func:`~bot.discord.catalogue.server_locale`); this module only fetches what it needs.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import discord

from bot.discord.catalogue import member_locale, reader, reading, server_locale
from bot.service import GetSettings, MatchService, MemberLanguage

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


async def member_reader(interaction: discord.Interaction[Any]) -> str:
    """The language of what only the member behind ``interaction`` reads."""
    chosen: str | None = None
    service: MatchService | None = getattr(interaction.client, "service", None)
    if service is not None:
        try:
            chosen = await service.handle(MemberLanguage(interaction.user.id))
        except Exception:  # never in the way of a command: the client's language will do
            log.warning("no language choice for user %s", interaction.user.id, exc_info=True)
    return member_locale(chosen, interaction.locale)


def read_by_client(interaction: discord.Interaction[Any]) -> str:
    """Write in the language of the member's Discord app for the rest of this interaction's
    handling (its task): what is said before the service may be asked (slow down, restarting)."""
    locale = member_locale(None, interaction.locale)
    reader.set(locale)
    return locale


async def read_by_member(interaction: discord.Interaction[Any]) -> str:
    """Write in the member's language for the rest of this interaction's handling (its task):
    their /language choice (a service call: only once the interaction is admitted as work)."""
    locale = await member_reader(interaction)
    reader.set(locale)
    return locale


async def server_reader(client: Any, guild_id: int | None) -> str:
    """The language of what everyone in server ``guild_id`` reads."""
    if guild_id is None:
        return server_locale(None, None)
    guild = client.get_guild(guild_id) if hasattr(client, "get_guild") else None
    community = guild.preferred_locale if guild is not None else None
    chosen = ""
    service: MatchService | None = getattr(client, "service", None)
    if service is not None:
        try:
            chosen = (await service.handle(GetSettings(guild_id))).language
        except Exception:  # never in the way of a message: the community language will do
            log.warning("no settings for guild %s", guild_id, exc_info=True)
    return server_locale(chosen or None, community)


def guild_of(value: object) -> int | None:
    """The server a match view, an update (its view) or a challenge belongs to."""
    guild_id = getattr(value, "guild_id", None)
    if guild_id is None and hasattr(value, "view"):
        guild_id = getattr(value.view, "guild_id", None)
    return guild_id if isinstance(guild_id, int) else None


def for_server(
    post: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    """Run a public poster ``post(bot, about, ...)`` in the server's language (``about``: a
    match view, an update or a challenge, whose ``guild_id`` names the server)."""

    @functools.wraps(post)
    async def in_server_language(*args: P.args, **kwargs: P.kwargs) -> R:
        client, about = args[0], args[1]
        with reading(await server_reader(client, guild_of(about))):
            return await post(*args, **kwargs)

    return in_server_language
