"""Every sentence a member reads, by message id: one catalogue per locale, English the reference.

A catalogue is a TOML file shipped with this package (``en.toml``; another locale is its own
file, named by Discord's locale code: ``de.toml``, ``pt-BR.toml``). A message id names what is
said (``refusal.not_your_turn``, ``prompt.roll``), its template has named placeholders
(``"It's {name}'s turn."``) filled by :func:`text`, the one way in. A locale without a message
falls back to English, so a partial translation never shows a hole.

Counts pick a form by a suffix: :func:`plural_key` gives ``key.<CLDR category>`` by the
locale's plural rules (Babel's CLDR data): English has ``one`` and ``other``; Russian adds
``few`` and ``many``. A form a locale lacks reads its ``other``.

Whose language: :func:`text` without a locale reads the current *reader*'s (:data:`reader`, a
context variable): the adapter sets it to the member's locale when it handles an interaction
(ephemeral replies) and to the server's around a public message (:func:`reading`). Code that
knows its reader passes the locale explicitly. :func:`catalogue_locale` maps Discord's
locale codes onto the catalogues; :func:`member_locale` and :func:`server_locale` choose.

Slash-command descriptions, option descriptions and choice names are messages too:
:func:`command_text` gives the ``app_commands.locale_str`` Discord's command tree takes (its
English message, its id in ``extras["key"]`` for a translator).

>>> text("refusal.not_your_turn", name="bob")
"It's bob's turn."
>>> text("refusal.not_your_turn", "xx", name="bob")  # an unknown locale reads English
"It's bob's turn."
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from types import MappingProxyType

from babel import Locale, UnknownLocaleError
from babel.numbers import (
    get_decimal_symbol,
    get_group_symbol,
    get_minus_sign_symbol,
    get_plus_sign_symbol,
)
from discord import app_commands

__all__ = [
    "DEFAULT_LOCALE",
    "ENGLISH",
    "LOCALES",
    "catalogue_locale",
    "choices",
    "command_text",
    "keys",
    "member_locale",
    "messages",
    "number",
    "plural_key",
    "reader",
    "reading",
    "server_locale",
    "template",
    "text",
]

DEFAULT_LOCALE = "en"

LOCALES = ("en", "de", "es-ES", "fr", "it", "pt-BR", "tr", "el", "ru")
"""The languages tablebot speaks, by their catalogue's name (Discord's locale code)."""

# Discord's codes served by another language's catalogue.
_SERVED_BY = {"en-US": "en", "en-GB": "en", "es-419": "es-ES"}

reader: contextvars.ContextVar[str] = contextvars.ContextVar("reader", default=DEFAULT_LOCALE)
"""The locale of whoever reads what is being written now (see the module's docstring)."""


def catalogue_locale(code: object) -> str:
    """The catalogue serving Discord's locale ``code`` (a ``discord.Locale`` or its string):
    es-419 reads es-ES, en-US and en-GB read en, anything unsupported (or None) reads en.

    >>> catalogue_locale("es-419"), catalogue_locale("en-GB"), catalogue_locale("ja")
    ('es-ES', 'en', 'en')
    """
    value = str(getattr(code, "value", code))
    value = _SERVED_BY.get(value, value)
    return value if value in LOCALES else DEFAULT_LOCALE


def member_locale(chosen: str | None, interaction_locale: object) -> str:
    """The language of a reply only this member sees: their /language choice, else the
    language their Discord client is in."""
    return chosen if chosen in LOCALES else catalogue_locale(interaction_locale)


def server_locale(chosen: str | None, guild_locale: object) -> str:
    """The language of a message everyone in the server sees: the /config language choice,
    else the server's community language (Discord's guild_locale)."""
    return chosen if chosen in LOCALES else catalogue_locale(guild_locale)


@contextlib.contextmanager
def reading(locale: str) -> Iterator[str]:
    """Write for a reader of ``locale`` inside the block (a public message: the server's)."""
    token = reader.set(locale)
    try:
        yield locale
    finally:
        reader.reset(token)


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


def template(key: str, locale: str | None = None) -> str:
    """The message ``key`` unfilled, for code that fills it later (words drawn on images)."""
    found = messages(reader.get() if locale is None else locale)
    return found.get(key) or _plural_fallback(found, key)


def text(key: str, locale: str | None = None, /, **params: object) -> str:
    """The message ``key`` in ``locale`` (None: the current :data:`reader`'s; else English)
    with its placeholders filled. An unknown key is a KeyError: a typo fails loudly in tests,
    not quietly in Discord. A plural form a catalogue lacks (``key.few``) reads its ``other``."""
    return template(key, locale).format_map(params)


def _plural_fallback(found: Mapping[str, str], key: str) -> str:
    base, _, form = key.rpartition(".")
    if form in _PLURAL_FORMS and form != "other":
        other = f"{base}.other"
        return found.get(other) or ENGLISH.get(key) or ENGLISH[other]
    return ENGLISH[key]


_PLURAL_FORMS = frozenset({"zero", "one", "two", "few", "many", "other"})


@functools.cache
def _babel(locale: str) -> Locale:
    try:
        return Locale.parse(locale, sep="-")
    except (ValueError, UnknownLocaleError):
        return Locale.parse(DEFAULT_LOCALE)


def plural_key(key: str, count: float, locale: str | None = None) -> str:
    """``key.<form>``: the CLDR plural form of ``count`` in ``locale`` (None: the reader's),
    ``one`` or ``other`` in English, ``one``, ``few``, ``many`` or ``other`` in Russian."""
    form = _babel(reader.get() if locale is None else locale).plural_form(count)
    return f"{key}.{form}"


def number(value: float, spec: str = "g", locale: str | None = None) -> str:
    """``value`` formatted by Python's ``spec`` (``".1f"``, ``"+.3f"``, ``",d"``), then written
    with the reader's symbols: ``1,234.5`` in English, ``1.234,5`` in German, ``1 234,5`` in
    Russian. English reads exactly what ``format(value, spec)`` gives."""
    written = format(value, spec)
    where = _babel(reader.get() if locale is None else locale)
    symbols = {
        ".": get_decimal_symbol(where),
        ",": get_group_symbol(where),
        "-": get_minus_sign_symbol(where),
        "+": get_plus_sign_symbol(where),
    }
    return "".join(symbols.get(ch, ch) for ch in written)


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
