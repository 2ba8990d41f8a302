"""Every sentence a member reads, by message id: one catalogue per locale, English the reference.

A catalogue is a TOML file shipped with this package (``en.toml``; another locale is its own
file, named by Discord's locale code: ``de.toml``, ``pt-BR.toml``). A message id names what is
said (``refusal.not_your_turn``, ``prompt.roll``), its template has named placeholders
(``"It's {name}'s turn."``) filled by :func:`text`, the one way in. A locale without a message
falls back to English, so a partial translation never shows a hole.

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

import functools
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from types import MappingProxyType

from discord import app_commands

__all__ = [
    "DEFAULT_LOCALE",
    "ENGLISH",
    "choices",
    "command_text",
    "keys",
    "messages",
    "plural_key",
    "text",
]

DEFAULT_LOCALE = "en"


def _load(locale: str) -> Mapping[str, str] | None:
    """The catalogue file of ``locale``, or None when there is none."""
    source = resources.files(__package__).joinpath(f"{locale}.toml")
    if not source.is_file():
        return None
    loaded = tomllib.loads(source.read_text(encoding="utf-8"))
    if not all(isinstance(value, str) for value in loaded.values()):
        raise ValueError(f"{locale}.toml: every message is a string")
    return MappingProxyType(loaded)


_english = _load(DEFAULT_LOCALE)
assert _english is not None, "en.toml is missing from the package"
ENGLISH: Mapping[str, str] = _english
"""The English messages: the reference, and every other locale's fallback."""


@functools.cache
def messages(locale: str = DEFAULT_LOCALE) -> Mapping[str, str]:
    """The messages of ``locale`` (English for a locale without a catalogue)."""
    if locale == DEFAULT_LOCALE or not locale.replace("-", "").isalnum():
        return ENGLISH
    return _load(locale) or ENGLISH


def keys() -> frozenset[str]:
    """Every message id (the English catalogue's, the reference)."""
    return frozenset(ENGLISH)


def text(key: str, locale: str = DEFAULT_LOCALE, /, **params: object) -> str:
    """The message ``key`` in ``locale`` (else English) with its placeholders filled.
    An unknown key is a KeyError: a typo fails loudly in tests, not quietly in Discord."""
    template = messages(locale).get(key)
    if template is None:
        template = ENGLISH[key]
    return template.format_map(params)


def plural_key(key: str, count: float) -> str:
    """``key.one`` for a count of 1, else ``key.other``."""
    return f"{key}.one" if count == 1 else f"{key}.other"


def command_text(key: str) -> app_commands.locale_str:
    """A command's, option's or choice's words for the command tree: Discord receives the
    English message; ``extras["key"]`` is the message id a Translator looks up."""
    return app_commands.locale_str(ENGLISH[key], key=key)


def choices(option: str, values: Iterable[str]) -> list[app_commands.Choice[str]]:
    """A slash-command option's choices, each named by its message ``choice.<option>.<value>``
    (:func:`command_text`): ``@app_commands.choices(game=choices("game", GAMES))``."""
    return [
        app_commands.Choice(name=command_text(f"choice.{option}.{value}"), value=value)
        for value in values
    ]
