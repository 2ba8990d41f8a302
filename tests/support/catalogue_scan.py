"""Finds English that reaches Discord without the catalogue: string literals (and f-strings,
and module constants holding them) passed to the places a member reads. Used by
tests/discord/test_catalogue.py on bot/, and tested there on snippets.

A sink is: the content of a send, reply or edit; an embed's title, description, fields,
footer and author; a button's or select's label and placeholder, a select option's
description; an attachment's alt text (``description``); a thread's name; a slash command's,
group's and option's descriptions and a choice's name; a GameError raised in the adapter (it
is shown to the user). A slash command without a ``description`` (discord.py would show its
docstring) is one too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ENGLISH = re.compile(r"[A-Za-z]{2}")
# A statement with this comment makes words no member reads (a log line's context, a URL).
NOT_FOR_MEMBERS = "# not for members"

# Methods whose positional arguments and ``content`` are message text.
SENDS = frozenset(
    {
        "send",
        "send_message",
        "reply",
        "edit",
        "edit_message",
        "edit_original_response",
        "followup",
        "respond",
    }
)
# Keywords a member reads, whatever the call (Embed, Button, Select, SelectOption, File,
# TextInput, Modal, command decorators, ...).
READ_KEYWORDS = frozenset({"content", "title", "description", "label", "placeholder"})
# Calls whose every keyword (or named ones) is read.
READ_CALLS: dict[str, frozenset[str] | None] = {
    "add_field": frozenset({"name", "value"}),
    "insert_field_at": frozenset({"name", "value"}),
    "set_field_at": frozenset({"name", "value"}),
    "set_footer": frozenset({"text"}),
    "set_author": frozenset({"name"}),
    "create_thread": frozenset({"name"}),
    "Choice": frozenset({"name"}),
    "describe": None,  # app_commands.describe(option="...")
}
# Errors the adapter shows to the user as they are.
SHOWN_ERRORS = frozenset(
    {
        "GameError",
        "FormattedGameError",
        "IllegalMoveError",
        "InvalidNotationError",
        "AmbiguousMoveError",
        "NotYourTurnError",
        "PhaseError",
        "CubeError",
    }
)
COMMAND_DECORATORS = frozenset({"command"})  # app_commands.command, group.command
# Two words, or one capitalised and punctuated: a phrase someone reads.
WORDS = re.compile(
    r"[A-Za-z]{2,}[^\n{}]* [^\n{}]*[A-Za-z]{2,}|^[A-Z][a-z]+[.!?:]$|^ +[A-Za-z]{2,}|[A-Za-z]{2,} +$"
)
# Calls whose string arguments are for programs and logs: errors no member sees, types,
# patterns, task names.
QUIET_CALLS = frozenset(
    {
        "ValueError",
        "TypeError",
        "RuntimeError",
        "LookupError",
        "KeyError",
        "AssertionError",
        "NotImplementedError",
        "cast",
        "compile",
        "getLogger",
        "create_task",
        "spawn_work",
    }
)
LOGGERS = frozenset({"log", "logging", "logger"})
# The terminal's, not Discord's: the command line's help.
TERMINAL_CALLS = frozenset({"ArgumentParser", "add_parser", "add_argument", "add_argument_group"})


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def _is_terminal(name: str | None) -> bool:
    return name in TERMINAL_CALLS or (name or "").endswith("Parser")


def _is_log(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in LOGGERS
    )


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _Scanner:
    def __init__(self, tree: ast.Module, path: str, lines: list[str], *, returns: bool) -> None:
        self.path = path
        self.lines = lines
        self.returns = returns
        self.tree = tree
        self.constants: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self.constants[target.id] = node.value
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                self.constants[node.target.id] = node.value

    def english(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> Iterator[Finding]:
        """The English literals an expression's value is built from (not through calls, but
        through ``str.join`` and ``str.format``, and this module's constants)."""
        match node:
            case ast.Constant(value=str(value)):
                if ENGLISH.search(value):
                    yield Finding(self.path, node.lineno, value)
            case ast.JoinedStr(values=values):
                for part in values:
                    yield from self.english(part, seen)
            case ast.FormattedValue(value=value):
                yield from self.english(value, seen)
            case ast.BinOp(left=left, right=right):
                yield from self.english(left, seen)
                yield from self.english(right, seen)
            case ast.IfExp(body=body, orelse=orelse):
                yield from self.english(body, seen)
                yield from self.english(orelse, seen)
            case ast.BoolOp(values=values):
                for value in values:
                    yield from self.english(value, seen)
            case ast.List(elts=elts) | ast.Tuple(elts=elts):
                for elt in elts:
                    yield from self.english(elt, seen)
            case ast.Subscript(value=value):
                yield from self.english(value, seen)
            case ast.Dict(values=values):
                for value in values:
                    if value is not None:
                        yield from self.english(value, seen)
            case ast.Starred(value=value):
                yield from self.english(value, seen)
            case ast.Call(func=ast.Attribute(value=receiver, attr="join" | "format"), args=args):
                yield from self.english(receiver, seen)
                for arg in args:
                    yield from self.english(arg, seen)
            case ast.Name(id=name) if name in self.constants and name not in seen:
                yield from self.english(self.constants[name], seen | {name})

    def marked_lines(self) -> set[int]:
        """The lines of every statement marked NOT_FOR_MEMBERS."""
        marked: set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef | ast.ClassDef):
                lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
                if any(NOT_FOR_MEMBERS in self.lines[n - 1] for n in lines):
                    marked.update(lines)
        return marked

    def findings(self) -> Iterator[Finding]:
        marked = self.marked_lines()
        for finding in self._findings():
            if finding.line not in marked:
                yield finding

    def _findings(self) -> Iterator[Finding]:
        if self.returns:
            yield from self.sentences()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                yield from self.call(node)
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                if _name(node.exc.func) in SHOWN_ERRORS:
                    for arg in node.exc.args:
                        yield from self.english(arg)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self.undescribed_command(node)
            elif self.returns and isinstance(node, ast.Return) and node.value is not None:
                # A helper's words reach a sink through its callers.
                yield from self.english(node.value)

    def sentences(self) -> Iterator[Finding]:
        """In the adapter, any literal of two or more words not in a docstring, a log call, a
        raised ValueError-like error, a type string or a regular expression: words reach
        members through any argument (``self._act(..., "Played.")``), not only sinks."""
        quiet: set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                quiet.add(id(node.value))  # a docstring
            elif isinstance(node, ast.Call) and (
                _name(node.func) in QUIET_CALLS
                or _is_terminal(_name(node.func))
                or _is_log(node.func)
            ):
                quiet.update(id(inner) for inner in ast.walk(node))
        for node in ast.walk(self.tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in quiet
                and WORDS.search(node.value)
            ):
                yield Finding(self.path, node.lineno, node.value)

    def call(self, node: ast.Call) -> Iterator[Finding]:
        name = _name(node.func)
        if _is_terminal(name):
            return
        if name in SENDS:
            for arg in node.args:
                yield from self.english(arg)
        read = READ_CALLS.get(name or "", frozenset())
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            if keyword.arg in READ_KEYWORDS or read is None or keyword.arg in read:
                yield from self.english(keyword.value)

    def undescribed_command(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Iterator[Finding]:
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and _name(decorator.func) in COMMAND_DECORATORS
                and not any(k.arg == "description" for k in decorator.keywords)
            ):
                doc = ast.get_docstring(node) or node.name
                yield Finding(self.path, node.lineno, f"command without description: {doc}")


def scan_source(source: str, path: str = "<snippet>", *, returns: bool = True) -> list[Finding]:
    """The English ``source`` sends to members without the catalogue; ``returns``: what its
    functions return counts too (the adapter's modules, whose helpers make words)."""
    lines = source.splitlines()
    return list(_Scanner(ast.parse(source), path, lines, returns=returns).findings())


def scan_tree(
    root: Path, exclude: frozenset[str] = frozenset(), adapter: str = "bot/discord/"
) -> list[Finding]:
    """:func:`scan_source` over every module under ``root`` (paths relative to ``root``'s
    parent), but those under the ``exclude`` prefixes; returned literals count under
    ``adapter`` only (elsewhere they are data, SQL, reprs)."""
    found: list[Finding] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        if any(relative.startswith(prefix) for prefix in exclude):
            continue
        source = path.read_text(encoding="utf-8")
        found += scan_source(source, relative, returns=relative.startswith(adapter))
    return found
