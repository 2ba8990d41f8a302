"""Every sentence a member reads comes from the message catalogue (bot.discord.catalogue): its
lookups, its templates, and a scan of bot/ for English that reaches Discord around it."""

from __future__ import annotations

import ast
import string
from pathlib import Path
from typing import Any

import pytest

from bot.discord import catalogue
from bot.discord.catalogue import ENGLISH, command_text, plural_key, text
from tests.support.catalogue_scan import scan_source, scan_tree

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = "bot/discord/catalogue"


# --- the lookup ----------------------------------------------------------------------------


def test_text_fills_named_placeholders() -> None:
    assert text("refusal.not_your_turn", name="bob") == "It's bob's turn."
    assert text("refusal.roll_first") == "Roll first, then move."


def test_an_unknown_locale_reads_english() -> None:
    assert text("refusal.not_your_turn", "xx", name="bob") == "It's bob's turn."
    assert catalogue.messages("ja") is ENGLISH  # a locale without a catalogue file


def test_a_locale_reads_its_file_and_english_for_what_it_lacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    german = {"refusal.roll_first": "Erst würfeln, dann ziehen."}
    monkeypatch.setattr(catalogue, "_load", lambda locale: german if locale == "de" else None)
    catalogue.messages.cache_clear()
    try:
        assert text("refusal.roll_first", "de") == "Erst würfeln, dann ziehen."
        assert text("refusal.not_your_turn", "de", name="bob") == "It's bob's turn."
        assert text("refusal.roll_first", "fr") == "Roll first, then move."
    finally:
        catalogue.messages.cache_clear()


def test_locale_codes_name_files_only() -> None:
    """A locale is Discord's code ("pt-BR"), never a path."""
    assert catalogue.messages("../../secrets") is ENGLISH


def test_an_unknown_key_fails_loudly() -> None:
    with pytest.raises(KeyError):
        text("refusal.no_such_message")


def test_plural_keys() -> None:
    assert text(plural_key("unit.point", 1), count=1) == "1 point"
    assert text(plural_key("unit.point", 3), count=3) == "3 points"


def test_command_text_is_english_with_its_key() -> None:
    described = command_text("command.roll")
    assert str(described) == ENGLISH["command.roll"]
    assert described.extras == {"key": "command.roll"}


# --- the templates -------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


@pytest.mark.parametrize("key", sorted(ENGLISH))
def test_every_template_is_well_formed(key: str) -> None:
    """Placeholders are names (no positions, no attribute access): a translator can reorder
    them, and format_map fills them."""
    for field in _fields(ENGLISH[key]):
        assert field.isidentifier(), f"{key}: placeholder {field!r}"


def test_every_literal_lookup_fills_its_placeholders() -> None:
    """``text("key", name=...)`` in bot/ passes every placeholder its English template has
    (lookups that spread a mapping, ``**params``, are checked where they run)."""
    problems = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "text"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in ENGLISH
                and all(keyword.arg is not None for keyword in node.keywords)
            ):
                continue
            key = node.args[0].value
            given = {keyword.arg for keyword in node.keywords}
            missing = _fields(ENGLISH[key]) - given
            if missing:
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {key} lacks {missing}")
    assert problems == []


def test_every_key_used_in_bot_exists() -> None:
    """A literal key passed to text() or command_text() anywhere in bot/ is in the catalogue;
    keys built at run time are checked where they are used (the Discord tests)."""
    missing = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None))
                in ("text", "command_text")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value not in ENGLISH
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.args[0].value}")
    assert not missing


# --- the scan ------------------------------------------------------------------------------


def test_no_english_reaches_members_around_the_catalogue() -> None:
    findings = scan_tree(ROOT / "bot", frozenset({CATALOGUE}))
    assert not findings, "\n".join(map(str, findings))


FLAGGED = [
    'await interaction.response.send_message("Hello")',
    'await interaction.followup.send(f"Match #{match_id} is over.")',
    'await message.edit(content="Done, " + name)',
    'await reply(interaction, "Nothing to do here.")',
    'embed = discord.Embed(title="Game over", description=desc)',
    'embed.add_field(name="Score", value=score)',
    'embed.set_footer(text=f"Match #{match_id}")',
    'button = discord.ui.Button(label="Roll", custom_id="roll")',
    'select = discord.ui.Select(placeholder="Choose your move", options=[])',
    'app_commands.describe(match="The match number")',
    'app_commands.Choice(name="Backgammon", value="backgammon")',
    'raise GameError("You can\'t do that.")',
    'await channel.send("\\n".join(["Score:", score]))',
    'def prompt(view):\n    return "Roll for the opening."',
    'NOTE = "The bot is restarting."\nasync def f(i):\n    await reply(i, NOTE)',
    '@app_commands.command(name="roll")\nasync def roll(self, interaction):\n    """Roll."""',
    'await self._act(interaction, command, "Played.")',
    'lines = ["Your active matches:", *shown]',
    'title = spec.title + " challenge"',
]
PASSED = [
    'await interaction.response.send_message(text("refusal.roll_first"))',
    "await reply(interaction, wording.refusal_text(error))",
    'log.warning("match %s: could not post the board", match_id)',
    'raise ValueError(f"no words for {event!r}")',
    'button = discord.ui.Button(label=text("button.roll"), custom_id="tablebot:roll")',
    'await interaction.followup.send(f"<@{user_id}>", ephemeral=True)',
    'app_commands.Choice(name=command_text("game.nannon"), value="nannon")',
    '@app_commands.command(name="roll", description=command_text("command.roll"))\n'
    "async def roll(self, interaction):\n    pass",
    'parser = argparse.ArgumentParser(description="Analyse a match.")',
    'SHOUT_RE = re.compile(r"Match #(\\d+) · game (\\d+) · NANNON")',
    'def f():\n    """Show the board again, with its buttons."""\n    return None',
    'raise LookupError(f"no handler for {name} (is its cog loaded?)")',
    'return f"{base}/{where}"  # not for members: a link',
    'return (  # not for members: a log line\n    f"interaction {i} by user {u}"\n)',
]


@pytest.mark.parametrize("snippet", FLAGGED)
def test_the_scan_finds_english_sent_to_members(snippet: str) -> None:
    assert scan_source(snippet), snippet


@pytest.mark.parametrize("snippet", PASSED)
def test_the_scan_passes_catalogue_lookups_and_logs(snippet: str) -> None:
    assert not scan_source(snippet), snippet


# --- the engines' errors -----------------------------------------------------------------------

ENGINE_ERRORS = {
    "GameError",
    "InvalidNotationError",
    "IllegalMoveError",
    "AmbiguousMoveError",
    "NotYourTurnError",
    "PhaseError",
    "CubeError",
}


def _engine_error_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in sorted((ROOT / "engines").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ENGINE_ERRORS
                and node.args
            ):
                calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return calls


def test_every_engine_error_has_a_code_in_the_catalogue() -> None:
    """The engines refuse with a code and its parameters; the catalogue words each code
    (tests/engines/conftest.py checks the words are the error's English, parameters filled)."""
    calls = _engine_error_calls()
    assert len(calls) > 100
    problems = []
    for where, call in calls:
        code = next((k.value for k in call.keywords if k.arg == "code"), None)
        # A code, or one of two: ``code="a" if ... else "b"``.
        codes = [code.body, code.orelse] if isinstance(code, ast.IfExp) else [code]
        for one in codes:
            if not (isinstance(one, ast.Constant) and isinstance(one.value, str)):
                problems.append(f"{where}: no code")
            elif not {f"engine.{one.value}", f"engine.{one.value}.other"} & ENGLISH.keys():
                problems.append(f"{where}: engine.{one.value} is not in the catalogue")
    assert not problems


def test_an_engine_error_reads_from_the_catalogue() -> None:
    from bot.discord.wording import refusal_text
    from engines.backgammon import Position, parse_play
    from engines.errors import InvalidNotationError

    with pytest.raises(InvalidNotationError) as caught:
        parse_play("13/x", Position.initial(), (6, 5))
    error = caught.value
    assert error.code == "unreadable_token"
    assert refusal_text(error) == text("engine.unreadable_token", **error.params)
    assert "is not like 24/18" in refusal_text(error)


def test_engine_errors_keep_their_code_across_processes() -> None:
    """The robot's workers raise in another process: the code and parameters survive."""
    import pickle

    from engines.errors import CubeError, CubeErrorReason

    error = CubeError(CubeErrorReason.CRAWFORD, "No doubling.", code="crawford", seat=1)
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.code, copy.params, copy.reason) == (
        CubeError,
        "No doubling.",
        "crawford",
        {"seat": 1},
        CubeErrorReason.CRAWFORD,
    )


def test_game_words_are_the_engines_in_english() -> None:
    """The catalogue names games and resignations as the engines' traits do (a translation
    changes the catalogue, never the engines)."""
    from bot.discord import wording
    from engines.spec import SPECS

    for kind, spec in SPECS.items():
        assert wording.game_title(kind) == spec.title
        assert wording.game_name(kind) == spec.title.lower() == kind.value
        for level in spec.resign_levels:
            assert wording.resign_level_text(kind, level) == spec.resign_level_name(level)


def test_the_robots_and_the_analysis_words_have_messages() -> None:
    """Cube actions, take answers and rating words arrive as values: each has its message."""
    from bot.discord.wording import value_key
    from engines.analysis import RATING_SCALE, rating_word
    from engines.nannon_solver import CubeAction

    for action in CubeAction:
        assert text(f"hint.action.{value_key(action.value)}") == action.value
    for answer in ("take", "pass"):
        assert text(f"hint.answer.{answer}") == answer.capitalize()
    for word in [word for _, word in RATING_SCALE] + [rating_word(99.0)]:
        assert text(f"analysis.rating.{value_key(word)}") == word


def test_every_message_is_used() -> None:
    """No message is dead: each id is spelled in bot/ (a literal, or ``key.one`` /
    ``key.other`` of a counted one), or starts with the literal head of an id built at run
    time (``f"refusal.{code}"``)."""
    literals: set[str] = set()
    heads: set[str] = set()
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif (
                isinstance(node, ast.JoinedStr)
                and node.values
                and isinstance(node.values[0], ast.Constant)
                and str(node.values[0].value).endswith(".")
            ):
                heads.add(str(node.values[0].value))
    unused = [
        key
        for key in ENGLISH
        if key not in literals
        and not (key.endswith((".one", ".other")) and key.rsplit(".", 1)[0] in literals)
        and not any(key.startswith(head) for head in heads)
        and not key.startswith(
            "name."
        )  # the command tree's names: tests/discord/test_translation.py
    ]
    assert not unused


def test_every_code_the_adapter_words_has_a_message() -> None:
    """Ids built from the service's and the engines' codes: a new code without words fails
    here, not in Discord."""
    from bot.service import ChallengeStatus, Refusal
    from engines.base import Phase, ResultKind

    wanted = [f"refusal.{refusal.value}" for refusal in Refusal]
    wanted += [f"engine.phase.{phase.value}" for phase in Phase]
    wanted += [f"result.{kind.name.lower()}" for kind in ResultKind]
    wanted += [f"result.how.{kind.name.lower()}" for kind in ResultKind]
    wanted += [f"challenge_status.{status.value}" for status in ChallengeStatus]
    # A counted one is there in its plural forms (``refusal.tournament_full.other``).
    assert [key for key in wanted if key not in ENGLISH and f"{key}.other" not in ENGLISH] == []


def _app_commands() -> list[Any]:
    """Every slash command and group the cogs declare, subcommands included."""
    import importlib

    from discord import app_commands

    found: list[Any] = []
    from bot.discord.app import EXTENSIONS

    for name in EXTENSIONS:
        module = importlib.import_module(name)
        for cog in vars(module).values():
            if isinstance(cog, type) and cog.__module__ == module.__name__:
                found += getattr(cog, "__cog_app_commands__", [])
    for group in [c for c in found if isinstance(c, app_commands.Group)]:
        found += group.commands
    return found


def test_every_command_word_is_a_catalogue_message() -> None:
    """Descriptions of commands and options, and choice names, are ``locale_str`` with their
    message id: a Translator can give each its translations (a plain string it cannot)."""
    from discord import app_commands

    def keyed(words: object) -> bool:
        return isinstance(words, app_commands.locale_str) and words.extras.get("key") in ENGLISH

    commands = _app_commands()
    assert {"challenge", "move", "config", "show", "leaderboard", "hint", "analyse"} <= {
        c.name for c in commands
    }
    problems = []
    for command in commands:
        if not keyed(command._locale_description):
            problems.append(f"/{command.name}: description")
        for parameter in getattr(command, "_params", {}).values():
            if not keyed(parameter.description):
                problems.append(f"/{command.name} {parameter.name}: description")
            problems += [
                f"/{command.name} {parameter.name}: choice {choice.value}"
                for choice in (parameter.choices or [])
                if not keyed(choice._locale_name)
            ]
    assert problems == []
