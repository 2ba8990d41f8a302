"""The slash commands as Discord receives them and as the docs name them (issue 33): every
command registers through the fake Discord, which refuses what Discord refuses (an integer
option's min_value or max_value outside +-(2**53 - 1)), and every `/command` and
`/command subcommand` that README.md and docs/*.md name exists in the bot's command tree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.http import Route
from fakediscord import FakeDiscord
from fakediscord.limits import INTEGER_OPTION

from bot.discord.app import TableBot
from bot.discord.options import MAX_INTEGER_OPTION
from tests.discord.test_catalogue import _app_commands

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `/name` where a command can be named: not inside a path or URL (`a/b`, `:/data`, `./x`) nor
# a path's first part (`/data/tablebot.db`), nor a file (`/x.md`); then an optional second word
# (`/config show`, `/config show|lengths`), which a group's subcommand must be.
MENTION = re.compile(
    r"(?<![\w/.:~<>\"'-])/([a-z][a-z_-]*)(?![\w/-]|\.\w)"  # the command
    r"(?: ([a-z_]+(?:\\?\|[a-z_]+)*))?"  # a word after it, or several joined by |
)
# Named in the docs with a slash but no command: the Docker image's volume.
NOT_COMMANDS = {"data"}


def _integer_bounds(options: list[dict[str, Any]], path: str) -> list[tuple[str, str, int]]:
    """(option path, "min_value"/"max_value", bound) of every integer and number option."""
    found: list[tuple[str, str, int]] = []
    for option in options:
        where = f"{path} {option['name']}"
        if option["type"] in (1, 2):  # a subcommand or group: its own options
            found += _integer_bounds(option.get("options") or [], where)
        elif option["type"] in (4, 10):
            keys = [key for key in ("min_value", "max_value") if key in option]
            found += [(where, key, option[key]) for key in keys]
    return found


@pytest.mark.asyncio
async def test_every_command_registers_and_its_integer_bounds_fit_discords_limit(
    tablebot: FakeDiscord,
) -> None:
    """Issue 33, "What Discord receives": the /tournament options declared max_value 2**53,
    one above Discord's limit, and Discord may refuse the whole registration. The bot's one
    limit is Discord's, and a global sync of every command is accepted by the fake (which
    refuses what Discord refuses) with each bound within it."""
    assert MAX_INTEGER_OPTION == INTEGER_OPTION == 2**53 - 1
    bot = tablebot.bot
    assert isinstance(bot, TableBot)
    synced = await bot.sync_global()
    tree = {command.name for command in bot.tree.get_commands()}
    assert {command.name for command in synced} == tree == tablebot.command_names(None)
    bounds = [
        bound
        for command in tablebot.commands[None]
        for bound in _integer_bounds(command.get("options") or [], f"/{command['name']}")
    ]
    outside = [bound for bound in bounds if abs(bound[2]) > INTEGER_OPTION]
    assert outside == []
    assert ("/tournament join tournament", "max_value", 2**53 - 1) in bounds
    assert ("/tournament adjudicate match", "max_value", 2**53 - 1) in bounds
    assert ("/verify match", "max_value", 2**53 - 1) in bounds


@pytest.mark.asyncio
@pytest.mark.parametrize(("key", "bound"), [("max_value", 2**53), ("min_value", -(2**53))])
async def test_the_fake_refuses_a_command_whose_integer_bound_is_beyond_discords(
    tablebot: FakeDiscord, key: str, bound: int
) -> None:
    """Issue 33, "What Discord receives": a bound past +-(2**53 - 1) is 400 Invalid Form Body
    for the whole registration, as on Discord; one at the limit is accepted."""
    bot = tablebot.bot
    assert bot is not None
    route = Route(
        "PUT",
        "/applications/{application_id}/commands",
        application_id=tablebot.application_id,
    )

    def command(value: int) -> list[dict[str, Any]]:
        option = {"type": 4, "name": "id", "description": "an id", key: value}
        return [{"type": 1, "name": "probe", "description": "a probe", "options": [option]}]

    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.request(route, json=command(bound))
    assert refused.value.status == 400 and "+-(2**53 - 1)" in refused.value.text
    assert tablebot.command_names(None) == set()  # nothing registered
    limit = INTEGER_OPTION if bound > 0 else -INTEGER_OPTION
    await bot.http.request(route, json=command(limit))
    assert tablebot.command_names(None) == {"probe"}


def _tree() -> dict[str, set[str]]:
    """Each top-level command's name and its subcommands' (empty for a plain command)."""
    tree: dict[str, set[str]] = {}
    for command in _app_commands():
        top, _, sub = command.qualified_name.partition(" ")
        tree.setdefault(top, set())
        if sub:
            tree[top].add(sub.partition(" ")[0])
    return tree


def _mentions(text: str) -> list[tuple[str, list[str]]]:
    """Each `/name` and the words after it (``/config show|cube`` -> ("config", [show, cube]))."""
    return [
        (mention[1], re.split(r"\\?\|", mention[2]) if mention[2] else [])
        for mention in MENTION.finditer(text)
    ]


def test_mentions_are_read_as_commands_and_paths_are_not() -> None:
    """Issue 33, "The docs": what the docs test below reads as a command."""
    text = (
        "run `/config show|lengths`, `/config robot rated:true`, /stats shows, "
        "`/move play:<text>`, `/play ... level:`; "
        "see docs/robot.md, https://discord.com/developers, `/data/tablebot.db`, "
        '-v "$PWD":/backup, ./x and `/x.md`'
    )
    assert _mentions(text) == [
        ("config", ["show", "lengths"]),
        ("config", ["robot"]),
        ("stats", ["shows"]),
        ("move", ["play"]),
        ("play", []),
    ]


def test_every_slash_command_the_docs_name_exists() -> None:
    """Issue 33, "The docs": docs/robot.md named a `/play` command that doesn't exist. Every
    `/command` in README.md and docs/*.md is in the bot's command tree, and a word after a
    command group is one of its subcommands (`/config show`)."""
    tree = _tree()
    unknown = []
    for path in DOCS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name, words in _mentions(line):
                where = f"{path.relative_to(ROOT)}:{number}"
                if name in NOT_COMMANDS:
                    continue
                if name not in tree:
                    unknown.append(f"{where}: /{name}")
                elif tree[name]:
                    unknown += [f"{where}: /{name} {w}" for w in words if w not in tree[name]]
    assert unknown == []
