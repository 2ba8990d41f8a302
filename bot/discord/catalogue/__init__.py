"""Every sentence a member reads, by message id: one catalogue per locale, English the reference.

A message id names what is said (``refusal.not_your_turn``, ``prompt.roll``), its template has
named placeholders (``"It's {name}'s turn."``) filled by :func:`text`, the one way in. A locale
without a message falls back to English, so a partial translation never shows a hole.

Counts pick a form by a suffix: :func:`plural_key` gives ``key.one`` or ``key.other`` (the
CLDR names, so locales with more forms add theirs later).

Slash-command descriptions, option descriptions and choice names are messages too:
:func:`command_text` gives the ``app_commands.locale_str`` Discord's command tree takes (its
English message, its id in ``extras["key"]`` for a translator).

>>> text("refusal.not_your_turn", name="bob")
"It's bob's turn."
>>> text("refusal.not_your_turn", "xx", name="bob")  # an unknown locale reads English
"It's bob's turn."
"""

from __future__ import annotations

from collections.abc import Mapping

from discord import app_commands

from bot.discord.catalogue import en

__all__ = [
    "DEFAULT_LOCALE",
    "command_text",
    "keys",
    "messages",
    "plural_key",
    "text",
]

DEFAULT_LOCALE = "en"
# Locale code (Discord's, e.g. "de", "es-ES", "pt-BR") -> its messages.
_CATALOGUES: dict[str, Mapping[str, str]] = {DEFAULT_LOCALE: en.MESSAGES}


def messages(locale: str = DEFAULT_LOCALE) -> Mapping[str, str]:
    """The messages of ``locale`` (English for a locale without a catalogue)."""
    return _CATALOGUES.get(locale, en.MESSAGES)


def keys() -> frozenset[str]:
    """Every message id (the English catalogue's, the reference)."""
    return frozenset(en.MESSAGES)


def text(key: str, locale: str = DEFAULT_LOCALE, /, **params: object) -> str:
    """The message ``key`` in ``locale`` (else English) with its placeholders filled.
    An unknown key is a KeyError: a typo fails loudly in tests, not quietly in Discord."""
    template = messages(locale).get(key)
    if template is None:
        template = en.MESSAGES[key]
    return template.format_map(params)


def plural_key(key: str, count: float) -> str:
    """``key.one`` for a count of 1, else ``key.other``."""
    return f"{key}.one" if count == 1 else f"{key}.other"


def command_text(key: str) -> app_commands.locale_str:
    """A command's, option's or choice's words for the command tree: Discord receives the
    English message; ``extras["key"]`` is the message id a Translator looks up."""
    return app_commands.locale_str(en.MESSAGES[key], key=key)
