"""The translated catalogues against the English one: every message there, the same
placeholders, the plural forms their language needs, command names Discord takes (unique where
they must be), descriptions within Discord's limit, and no English left behind."""

from __future__ import annotations

import re
import string
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from babel import Locale

from bot.discord.catalogue import ENGLISH, LOCALES
from bot.discord.translator import DESCRIPTION_LIMIT, valid_name
from tests.discord.test_catalogue import _app_commands

CATALOGUE = Path(__file__).resolve().parents[2] / "bot" / "discord" / "catalogue"
TRANSLATED = [locale for locale in LOCALES if locale != "en"]
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}


def _catalogue(locale: str) -> dict[str, str]:
    with (CATALOGUE / f"{locale}.toml").open("rb") as source:
        return tomllib.load(source)


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def _plural_base(key: str) -> str | None:
    """``unit.point`` for ``unit.point.few`` when English counts ``unit.point``."""
    base, _, form = key.rpartition(".")
    return base if form in PLURAL_FORMS and f"{base}.other" in ENGLISH else None


def test_every_language_has_its_catalogue() -> None:
    assert sorted(path.stem for path in CATALOGUE.glob("*.toml")) == sorted(LOCALES)


# Messages that reached en.toml after the translations were written, listed one a line: the
# only ones a catalogue may lack (they read in English there until translated).
AWAITING = frozenset(
    line
    for line in (Path(__file__).parent / "awaiting_translation.txt").read_text().splitlines()
    if line and not line.startswith("#")
)


def test_the_messages_awaiting_translation_are_english_ones_not_yet_translated() -> None:
    assert set(ENGLISH) >= AWAITING
    translated_everywhere = [
        key for key in AWAITING if all(key in _catalogue(locale) for locale in TRANSLATED)
    ]
    assert translated_everywhere == []  # translated: off the list


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_message_is_translated_and_nothing_else(locale: str) -> None:
    translated = _catalogue(locale)
    assert [key for key in ENGLISH if key not in translated and key not in AWAITING] == []
    assert [key for key in translated if key not in ENGLISH and _plural_base(key) is None] == []


@pytest.mark.parametrize("locale", TRANSLATED)
def test_placeholders_are_the_english_ones(locale: str) -> None:
    translated = _catalogue(locale)
    wrong = []
    for key, message in translated.items():
        base = _plural_base(key)
        english = ENGLISH[key] if key in ENGLISH else ENGLISH[f"{base}.other"]
        if _fields(message) != _fields(english):
            wrong.append(f"{key}: {sorted(_fields(message))} != {sorted(_fields(english))}")
    assert wrong == []


@pytest.mark.parametrize("locale", TRANSLATED)
def test_counts_have_every_plural_form_of_their_language(locale: str) -> None:
    """Russian needs one, few, many and other; Turkish and Greek one and other (CLDR): the
    forms the language uses for the counts tablebot shows (whole numbers to a thousand)."""
    rule = Locale.parse(locale, sep="-").plural_form
    forms = {rule(count) for count in range(1001)} | {"other"}
    translated = _catalogue(locale)
    bases = {
        key.rpartition(".")[0] for key in ENGLISH if key.endswith(".other") and key not in AWAITING
    }
    missing = [f"{base}.{form}" for base in sorted(bases) for form in sorted(forms)]
    assert [key for key in missing if key not in translated] == []


@pytest.mark.parametrize("locale", TRANSLATED)
def test_command_names_follow_discords_rules_and_are_unique_in_their_group(locale: str) -> None:
    translated = _catalogue(locale)
    invalid = [
        f"{key} = {name!r}"
        for key, name in translated.items()
        if key.startswith("name.") and not valid_name(name)
    ]
    assert invalid == []
    # Siblings: the top-level commands, a group's subcommands, a command's options.
    siblings: dict[str, list[str]] = {}
    for command in _app_commands():
        path = command.qualified_name.replace(" ", ".")
        parent = path.rpartition(".")[0] or "/"
        names = {**ENGLISH, **translated}  # a name awaiting translation: Discord shows English
        siblings.setdefault(parent, []).append(names[f"name.{path}"])
        options = [
            names[f"name.{path}.{parameter.name}"]
            for parameter in getattr(command, "_params", {}).values()
        ]
        siblings[f"{path} options"] = options
    clashes = {
        group: [name for name, count in Counter(names).items() if count > 1]
        for group, names in siblings.items()
    }
    assert {group: names for group, names in clashes.items() if names} == {}


@pytest.mark.parametrize("locale", TRANSLATED)
def test_descriptions_and_choices_fit_discords_limit(locale: str) -> None:
    translated = _catalogue(locale)
    long = [
        f"{key} ({len(message)})"
        for key, message in translated.items()
        if key.startswith(("command.", "choice.")) and not 1 <= len(message) <= DESCRIPTION_LIMIT
    ]
    assert long == []


# Words that read the same in English and in a language: the games' and the tools' proper names,
# notation, and the words players there say as they are (see docs/glossary/<locale>.md).
PROPER = {
    "Nannon", "nannon", "NANNON", "NANNONs", "Backgammon", "backgammon", "backgammons",
    "gammon", "gammons", "Crawford", "crawford", "CRAWFORD", "Jacoby", "jacoby", "PR", "FEN", "SHA",
    "ID", "tablebot", "Discord", "money",
}  # fmt: skip
# GNU Backgammon's names of its notations, and option names that are identifiers (pause_ms).
NOTATION = re.compile(r"\b(?:Position ID|Match ID)\b|\w+_\w+")
SAME_IN: dict[str, set[str]] = {
    "de": {"match", "Match", "Matches", "threads", "sync", "Pips", "Commitment", "Seed"},
    "es-ES": {"match", "Match", "matches", "robot", "sync", "error", "Rating", "rating",
              "Pips", "Matches", "exp", "pts"},
    "fr": {"match", "Match", "matches", "point", "points", "Points", "robot", "action",
           "actions", "stats", "sync", "Expert", "expert", "analyses", "Page", "Score",
           "Pips", "Position", "pts"},
    "it": {"match", "Match", "robot", "sync", "rating"},
    "pt-BR": {"config", "Rating", "rating", "Pips", "exp", "pts"},
    "tr": {"robot"},
    "el": set(),
    "ru": set(),
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]{2,}")


def _english_left(message: str, allowed: set[str]) -> list[str]:
    """The words of ``message`` outside its placeholders that no list allows."""
    bare = NOTATION.sub(" ", re.sub(r"\{[^}]*\}", " ", message))
    return [word for word in _WORD.findall(bare) if word not in allowed]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_no_english_is_left_except_proper_names(locale: str) -> None:
    """A message identical to the English is English left behind, unless every word in it is a
    proper name, notation, or a word the language shares (its glossary), or it names a
    language by its own name (the /language choices)."""
    allowed = PROPER | SAME_IN[locale]
    left = [
        f"{key} = {message!r}"
        for key, message in _catalogue(locale).items()
        if message == ENGLISH.get(key)
        and not key.startswith("choice.language.")
        and _english_left(message, allowed)
    ]
    assert left == []


def test_the_check_catches_english_left_behind() -> None:
    assert _english_left("It's {name}'s turn.", PROPER) == ["It", "turn"]
    assert _english_left("Match #{match_id}", PROPER) == ["Match"]
    assert _english_left("{counter} {won}-{lost}", PROPER) == []
    assert _english_left("Match ID", PROPER) == []


# A count shown before a counted noun ("{count} wins") must pick its plural form: the English
# nouns of every plural message, and these that a count may also name.
COUNTED_NOUNS = {
    *("minutes", "players", "checkers", "jumps", "moves", "rounds", "puzzles", "days"),
    *("wins", "losses", "decisions", "commands", "dice"),
}
# Numbers that are constants of the game or the bot, never 1: no plural form to choose.
CONSTANT_COUNTS = {
    "engine.match_id_form": "MATCH_ID_LENGTH",
    "engine.position_id_form": "POSITION_ID_LENGTH",
    "engine.places_count": "CHECKERS",
    "refusal.bad_max_players": "highest",
    "refusal.bad_round_days": "highest",
}
# Issue 33: counts still written without their plural forms (none may be added).
NOT_YET_PLURAL: set[str] = set()


def test_every_count_before_a_noun_uses_the_plural_forms() -> None:
    """Issue 33: /stats said "Streak: 1 wins" (and Greek copied it, "1 νίκες"): a count goes
    through the catalogue's plural forms (``key.one``, ``key.other``)."""
    before_noun = re.compile(r"\{(\w+)\}\)? ([a-z]+)\b")
    nouns = set(COUNTED_NOUNS)
    for key, message in ENGLISH.items():
        if key.endswith(".other"):
            nouns |= {
                noun
                for field, noun in before_noun.findall(message)
                if field not in ("name", "match_id")  # a match's number counts nothing
            }
    nouns -= {"is"}
    unplural = [
        f"{key}: {{{field}}} {noun}"
        for key, message in ENGLISH.items()
        if _plural_base(key) is None and key.rpartition(".")[2] not in PLURAL_FORMS
        for field, noun in before_noun.findall(message)
        if noun in nouns
        and field not in ("name", "mention", "game", "shown")
        and CONSTANT_COUNTS.get(key) != field
        and key not in NOT_YET_PLURAL
    ]
    assert unplural == []
