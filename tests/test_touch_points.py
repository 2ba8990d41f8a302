"""How many files a new verb touches, measured on the code: an existing match verb and an
existing read-only command stand in for a new one, and the files that name any part of them
(the command, its handler, its engine action, the events it tells, its button) are counted.
docs/architecture.md, "To add a command", says what goes in each.

Targets: a read-only command touches at most 4 files of bot/; a match verb at most 6 of bot/
(plus, in engines/, its engine action and the rule that applies it, when the action is new),
counted with one transport (Discord); a second transport (the terminal) adds only its sentence
for what the verb tells (its typed words find every command by name)."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.discord.components import SENDS
from bot.service import HANDLERS, MatchCommand, RefuseDraw, ShowBoardAndWakeRobot
from bot.service.commands import Command
from bot.service.handlers import MATCH_ACTIONS
from bot.service.model import MatchEvent

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "bot" / "service" / "events.py"
READ_ONLY_BUDGET = 4
MATCH_VERB_BUDGET = 6


def code_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names a module's code uses or defines, and its string literals (docstrings and
    comments are not code)."""
    docstrings = {
        node.body[0].value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    names: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[-1])
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    strings -= docstrings
    return names, strings


def files_naming(words: set[str], strings: set[str] = frozenset(), *, under: str) -> set[str]:
    """The files under ``under`` whose code names one of ``words`` or holds one of
    ``strings`` as a string literal."""
    found = set()
    for path in sorted((ROOT / under).rglob("*.py")):
        names, literals = code_names(ast.parse(path.read_text(encoding="utf-8")))
        if names & words or literals & strings:
            found.add(str(path.relative_to(ROOT)))
    return found


def events_told_for(action: str) -> set[str]:
    """The events :func:`bot.service.events.step_events` tells for an engine action of this
    kind (the ``isinstance(action, <kind>)`` branch's event constructors)."""
    tree = ast.parse(EVENTS.read_text(encoding="utf-8"))
    event_names = {cls.__name__ for cls in every_subclass(MatchEvent)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if (
            isinstance(test, ast.Call)
            and ast.unparse(test.func) == "isinstance"
            and ast.unparse(test.args[1]) == action
        ):
            calls = [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
            return {ast.unparse(c.func) for c in calls} & event_names
    raise AssertionError(f"step_events tells nothing for {action}")


def every_subclass(kind: type) -> set[type]:
    found = set(kind.__subclasses__())
    for sub in tuple(found):
        found |= every_subclass(sub)
    return found


def match_verb_files(command: type[MatchCommand]) -> tuple[set[str], set[str]]:
    """(files of bot/, files of engines/) naming the verb ``command`` is."""
    assert command.asks is not None
    action = command.asks.__name__
    words = {
        command.__name__,
        MATCH_ACTIONS[command].__name__,  # its decide function
        action,  # the robot decides it by the engine action's name
        *events_told_for(action),
    }
    buttons = {button for button, sends in SENDS.items() if sends == command.__name__}
    return files_naming(words, buttons, under="bot"), files_naming({action}, under="engines")


def test_a_match_verb_touches_at_most_six_files() -> None:
    in_bot, in_engines = match_verb_files(RefuseDraw)
    second_transport = {path for path in in_bot if path.startswith("bot/terminal/")}
    assert second_transport == {"bot/terminal/wording.py"}  # the sentence for what it tells
    in_bot -= second_transport
    print(f"a match verb (RefuseDraw): {len(in_bot)} files of bot/: {sorted(in_bot)}")
    print(f"  and {len(in_engines)} of engines/ (its action and rule): {sorted(in_engines)}")
    assert {
        "bot/service/commands.py",  # the command, and the engine action it asks
        "bot/service/handlers.py",  # its decide function in MATCH_ACTIONS
        "bot/service/events.py",  # what it tells
        "bot/discord/wording.py",  # the sentence for it
    } <= in_bot
    assert len(in_bot) <= MATCH_VERB_BUDGET, sorted(in_bot)
    assert "engines/actions.py" in in_engines


def test_a_read_only_command_touches_at_most_four_files() -> None:
    handler = HANDLERS[ShowBoardAndWakeRobot]
    files = files_naming({ShowBoardAndWakeRobot.__name__, handler.__name__}, under="bot")
    print(
        f"a read-only command (ShowBoardAndWakeRobot): {len(files)} files of bot/: {sorted(files)}"
    )
    assert {"bot/service/commands.py", "bot/service/service.py"} <= files
    assert len(files) <= READ_ONLY_BUDGET, sorted(files)


def test_every_command_is_in_the_one_table() -> None:
    assert set(HANDLERS) == every_subclass(Command) - {MatchCommand}
