"""The slash commands in every language tablebot speaks: discord.py's ``app_commands.Translator``
on the catalogue, set on the command tree, so a sync sends each name, description and choice
with its ``*_localizations``.

Descriptions and choice names are ``locale_str`` with their message id in ``extras["key"]``
(:func:`~bot.discord.catalogue.command_text`). Names are keyed by their place in the tree:
``name.<command path>`` for a command or group (``name.config``, ``name.config.robot``) and
``name.<command path>.<option>`` for an option (``name.challenge.opponent``), so the cogs keep
their plain names and the English payload stays as it was. A translated name that breaks
Discord's rules (:func:`valid_name`) is not sent (tests keep the catalogues clean of them).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.discord.catalogue import ENGLISH, catalogue_locale, messages

log = logging.getLogger(__name__)

# Discord's rule for command and option names (CHAT_INPUT): 1-32 letters, digits, - or _,
# lower case where the script has case.
_NAME = re.compile(r"^[-_\w\u0900-\u097F\u0E00-\u0E7F]{1,32}$")
DESCRIPTION_LIMIT = 100
NAMES = "name"  # the names' message ids: name.<command path>[.<option>]


def valid_name(name: str) -> bool:
    """Whether Discord takes ``name`` as a command's or an option's name."""
    return bool(_NAME.match(name)) and name == name.lower()


def name_key(context: app_commands.TranslationContextTypes) -> str | None:
    """The message id of the name a translation is asked for, from where it sits in the tree."""
    data: Any = context.data
    path: list[str]
    if context.location in (Where.command_name, Where.group_name):
        path = [NAMES, *data.qualified_name.split()]
    elif context.location is Where.parameter_name:
        path = [NAMES, *data.command.qualified_name.split(), str(data.name)]
    else:
        return None
    return ".".join(path)


def message_key(string: app_commands.locale_str, context: Any) -> str | None:
    """The message id of ``string``: its own (``extras["key"]``), else its name's."""
    key = string.extras.get("key")
    return key if isinstance(key, str) else name_key(context)


class CatalogueTranslator(app_commands.Translator):
    """Each command word in the catalogue of the Discord locale asked for (es-419 reads
    es-ES); None (Discord shows the English) for English, a locale without a catalogue, or
    a message the catalogue lacks."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = message_key(string, context)
        found = messages(catalogue_locale(locale))
        if found is ENGLISH or key is None:  # English, or a language without a catalogue
            return None
        translated = found.get(key)
        if translated is None:
            return None
        is_name = context.location in (Where.command_name, Where.group_name, Where.parameter_name)
        if is_name and not valid_name(translated):
            log.warning("%s: %r is not a valid command name in %s", key, translated, locale)
            return None
        return translated if is_name else translated[:DESCRIPTION_LIMIT]
