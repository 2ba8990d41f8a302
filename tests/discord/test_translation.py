"""The slash commands in every language (bot.discord.translator) and whose language a message
is in (bot.discord.catalogue's reader, bot.discord.locales)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord import catalogue
from bot.discord.catalogue import (
    ENGLISH,
    LOCALES,
    catalogue_locale,
    member_locale,
    number,
    plural_key,
    reading,
    server_locale,
    text,
)
from bot.discord.translator import CatalogueTranslator, valid_name
from bot.service.settings import LANGUAGES
from tests.discord.test_catalogue import _app_commands


@contextlib.contextmanager
def only_catalogue(
    monkeypatch: pytest.MonkeyPatch, locale: str, found: dict[str, str]
) -> Iterator[None]:
    """Inside: ``locale``'s catalogue is ``found``, and no other language has one."""
    monkeypatch.setattr(catalogue, "_load", lambda asked: found if asked == locale else None)
    catalogue.messages.cache_clear()
    try:
        yield
    finally:
        catalogue.messages.cache_clear()


def _tree() -> app_commands.CommandTree[Any]:
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )
    for command in _app_commands():
        if command.parent is None:
            tree.add_command(command)
    return tree


async def _payloads(translator: app_commands.Translator | None) -> list[dict[str, Any]]:
    tree = _tree()
    commands = tree.get_commands()
    if translator is None:
        return [command.to_dict(tree) for command in commands]
    return [await command.get_translated_payload(tree, translator) for command in commands]


def _without_localizations(payload: Any) -> Any:
    if isinstance(payload, dict):
        return {
            key: _without_localizations(value)
            for key, value in payload.items()
            if not key.endswith("_localizations")
        }
    if isinstance(payload, list):
        return [_without_localizations(item) for item in payload]
    return payload


def _tree_names() -> dict[str, str]:
    """name.<path>[.<option>] -> the English name, for every command, group and option."""
    names: dict[str, str] = {}
    for command in _app_commands():
        path = command.qualified_name.replace(" ", ".")
        names[f"name.{path}"] = command.name
        for parameter in getattr(command, "_params", {}).values():
            names[f"name.{path}.{parameter.name}"] = parameter.display_name
    return names


# --- whose language --------------------------------------------------------------------------


def test_discord_locales_map_onto_the_catalogues() -> None:
    assert catalogue_locale("es-419") == "es-ES"
    assert catalogue_locale(discord.Locale.latin_american_spanish) == "es-ES"
    assert catalogue_locale(discord.Locale.american_english) == "en"
    assert catalogue_locale("en-GB") == "en"
    assert catalogue_locale(discord.Locale.turkish) == "tr"
    assert catalogue_locale(discord.Locale.brazil_portuguese) == "pt-BR"
    assert catalogue_locale("ja") == "en"
    assert catalogue_locale(None) == "en"
    assert set(LOCALES) == set(LANGUAGES)


def test_a_members_choice_beats_their_client_and_a_servers_choice_its_community() -> None:
    assert member_locale(None, "tr") == "tr"
    assert member_locale("el", "tr") == "el"
    assert member_locale("xx", "tr") == "tr"  # a choice no longer offered
    assert server_locale(None, "it") == "it"
    assert server_locale("ru", "it") == "ru"
    assert server_locale(None, "en-US") == "en"


def test_the_reader_picks_the_language_of_text_without_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    german = {"refusal.roll_first": "Erst würfeln, dann ziehen."}
    with only_catalogue(monkeypatch, "de", german):
        assert text("refusal.roll_first") == "Roll first, then move."
        with reading("de"):
            assert text("refusal.roll_first") == "Erst würfeln, dann ziehen."
            assert text("refusal.roll_first", "en") == "Roll first, then move."
        assert text("refusal.roll_first") == "Roll first, then move."


# --- plurals and numbers -----------------------------------------------------------------------


def test_plural_forms_follow_cldr() -> None:
    assert [plural_key("k", n, "en") for n in (1, 2, 0, 1.5)] == ["k.one"] + ["k.other"] * 3
    assert [plural_key("k", n, "ru") for n in (1, 3, 5, 21, 1.5)] == [
        "k.one",
        "k.few",
        "k.many",
        "k.one",
        "k.other",
    ]
    assert plural_key("k", 2, "el") == "k.other"
    with reading("ru"):
        assert plural_key("k", 4) == "k.few"


def test_a_form_a_catalogue_lacks_reads_its_other(monkeypatch: pytest.MonkeyPatch) -> None:
    russian = {"unit.point.one": "{count} очко", "unit.point.other": "{count} очка"}
    with only_catalogue(monkeypatch, "ru", russian):
        assert text(plural_key("unit.point", 3, "ru"), "ru", count=3) == "3 очка"
        # English has no "few": its "other"
        assert text("unit.point.few", "en", count=3) == "3 points"


def test_numbers_in_the_readers_conventions() -> None:
    assert number(1234.5, ",.1f", "en") == "1,234.5"
    assert number(1234.5, ",.1f", "de") == "1.234,5"
    assert number(1500, ",d", "ru") == "1\xa0500"
    assert number(-0.125, "+.3f", "fr") == "-0,125"
    assert number(0.125, "+.3f", "tr") == "+0,125"
    assert number(1.5, "g", "el") == "1,5"
    with reading("it"):
        assert number(0.25, ".2f") == "0,25"
    for value, spec in ((1.5, "g"), (-0.0125, "+.3f"), (1500.0, ".0f"), (7.25, ".1f")):
        assert number(value, spec, "en") == format(value, spec)  # English as it always was


# --- the command tree ----------------------------------------------------------------------------


def test_every_name_of_the_tree_has_its_message_and_every_name_message_a_name() -> None:
    names = _tree_names()
    in_catalogue = {key: value for key, value in ENGLISH.items() if key.startswith("name.")}
    assert in_catalogue == names


@pytest.mark.asyncio
async def test_the_english_payload_is_unchanged_by_the_translator() -> None:
    plain = await _payloads(None)
    translated = await _payloads(CatalogueTranslator())
    assert _without_localizations(translated) == _without_localizations(plain)
    # and an English client gets no localisation at all
    for payload in translated:
        assert "en-US" not in payload["name_localizations"]
        assert "en-GB" not in payload["description_localizations"]


@pytest.mark.asyncio
async def test_names_descriptions_and_choices_are_translated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spanish = {
        "name.challenge": "desafiar",
        "name.challenge.opponent": "rival",
        "command.challenge": "Desafía a alguien a una partida",
        "choice.game.nannon": "nannon",
        "choice.game.checkers": "damas",
        "name.config.robot": "Robot Bad",  # breaks Discord's rules: not sent
    }
    with only_catalogue(monkeypatch, "es-ES", spanish):
        payloads = {p["name"]: p for p in await _payloads(CatalogueTranslator())}
    challenge = payloads["challenge"]
    assert challenge["name_localizations"] == {"es-ES": "desafiar", "es-419": "desafiar"}
    assert challenge["description_localizations"]["es-419"] == "Desafía a alguien a una partida"
    options = {option["name"]: option for option in challenge["options"]}
    assert options["opponent"]["name_localizations"] == {"es-ES": "rival", "es-419": "rival"}
    games = {choice["value"]: choice for choice in options["game"]["choices"]}
    assert games["checkers"]["name_localizations"]["es-ES"] == "damas"
    robot = next(o for o in payloads["config"]["options"] if o["name"] == "robot")
    assert robot.get("name_localizations", {}) == {}


def test_discords_name_rule() -> None:
    assert valid_name("challenge")
    assert valid_name("meydan-oku")
    assert valid_name("πρόκληση")
    assert valid_name("вызов")
    assert not valid_name("Challenge")
    assert not valid_name("two words")
    assert not valid_name("x" * 33)
    assert not valid_name("")


def _combined(payload: dict[str, Any], locale: str) -> int:
    """Discord's measure of a command: its names, descriptions and choice values, in one
    locale (its localisation, else the default)."""
    size = len(payload.get("name_localizations", {}).get(locale) or payload["name"])
    described = payload.get("description_localizations", {}).get(locale)
    size += len(described or payload.get("description", ""))
    for choice in payload.get("choices") or []:
        name = choice.get("name_localizations", {}).get(locale) or choice["name"]
        size += len(name) + len(str(choice["value"]))
    return size + sum(_combined(option, locale) for option in payload.get("options") or [])


@pytest.mark.asyncio
async def test_every_command_fits_discords_size_limit_in_every_language() -> None:
    """Combined names, descriptions and values of a command: at most 4000 characters."""
    locales = [locale.value for locale in discord.Locale]
    for payload in await _payloads(CatalogueTranslator()):
        assert max(_combined(payload, locale) for locale in locales) <= 4000, payload["name"]
