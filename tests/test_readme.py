"""The README is the front door: short, its two commands exactly as CI and users type them, its
command table complete (every slash command and subcommand the cogs declare), its links alive."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord import app_commands

from bot.config import Settings
from bot.discord.app import EXTENSIONS, create_bot

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def test_the_readme_is_short_and_keeps_its_two_commands() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    lines = [line.strip() for line in text.splitlines()]
    assert "pip install ." in lines
    assert "pip install -e '.[test]' && pytest" in lines


def _quick_start() -> str:
    return README.read_text().split("\n## Quick start\n", 1)[1].split("\n### ", 1)[0]


def test_the_quick_start_installs_tablebot_before_running_it() -> None:
    """Issue 33, "The docs": the Quick start ran `tablebot sync` before the step that
    installed it. Install first; it says "Public Bot" can be turned off."""
    quick = _quick_start()
    install = quick.index("\n   pip install .\n")
    assert install < quick.index("tablebot sync") and install < quick.index("**Run it**")
    assert "**Public Bot** off" in quick


# Where the README says the gnubg wheel is, and a platform of each kind it says lacks one.
WITH_WHEEL = [
    ("3.11", "linux", "x86_64", ""),
    ("3.13", "linux", "x86_64", ""),
    ("3.12", "win32", "AMD64", ""),
    ("3.13", "darwin", "arm64", "23.0.0"),  # macOS 14 is Darwin 23
]
WITHOUT_WHEEL = [
    ("3.12", "linux", "aarch64", ""),  # a Raspberry Pi
    ("3.14", "linux", "x86_64", ""),
    ("3.12", "darwin", "arm64", "22.6.0"),  # macOS 13
    ("3.12", "darwin", "x86_64", "23.0.0"),
]


def test_the_quick_start_says_where_the_gnubg_wheel_installs_as_pyproject_does() -> None:
    """Issue 33, "The docs": where the gnubg wheel exists, and where to read what the others
    get (docs/operations.md, "Backgammon engine"); pyproject's marker installs it exactly there."""
    import tomllib

    from packaging.requirements import Requirement

    quick = " ".join(_quick_start().split())
    for words in ("CPython 3.11-3.13", "Linux x86_64", "Windows AMD64", "macOS 14+ arm64"):
        assert words in quick
    assert "Linux arm64" in quick and "Raspberry Pi" in quick and "Python 3.14+" in quick
    assert "(docs/operations.md#backgammon-engine)" in quick
    with (ROOT / "pyproject.toml").open("rb") as source:
        dependencies = tomllib.load(source)["project"]["dependencies"]
    [gnubg] = [Requirement(d) for d in dependencies if d.startswith("gnubg")]
    assert gnubg.marker is not None

    def installs(python: str, platform: str, machine: str, release: str) -> bool:
        where = {"python_version": python, "sys_platform": platform}
        assert gnubg.marker is not None
        return gnubg.marker.evaluate(
            {**where, "platform_machine": machine, "platform_release": release}
        )

    assert [installs(*where) for where in WITH_WHEEL] == [True] * len(WITH_WHEEL)
    assert [installs(*where) for where in WITHOUT_WHEEL] == [False] * len(WITHOUT_WHEEL)


def test_upgrading_is_in_operations_and_the_readme_points_at_it() -> None:
    """Issue 33, "The docs": there was no "upgrading" section (back up, pull, install,
    migrations at start)."""
    assert "(docs/operations.md#upgrading)" in README.read_text()
    operations = (ROOT / "docs" / "operations.md").read_text()
    upgrading = operations.split("\n## Upgrading\n", 1)[1].split("\n## ", 1)[0]
    for step in ("**Back up**", "`git pull`", "`pip install .`", "migrated at start"):
        assert step in upgrading


def test_every_link_to_a_file_of_the_repository_exists() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README.read_text()):
        assert (ROOT / target).exists(), target


def _declared(command: app_commands.Command[..., object] | app_commands.Group) -> set[str]:
    if isinstance(command, app_commands.Group):
        return {f"{command.name} {name}" for sub in command.commands for name in _declared(sub)}
    return {command.name}


@pytest.mark.asyncio
async def test_the_command_table_lists_every_slash_command(tmp_path: Path) -> None:
    bot = create_bot(
        Settings(token=TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="INFO")
    )
    try:
        for name in EXTENSIONS:
            await bot.load_extension(name)
        declared = set().union(*(_declared(c) for c in bot.tree.get_commands()))
    finally:
        await bot.close()
    table = README.read_text().split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    listed = set()
    for row in table.splitlines():
        if row.startswith("| `/"):
            first_cell = row.split(" | ", 1)[0]
            # A command, and a group's subcommand: a word ending at a space or the backtick
            # (an option has a colon or brackets).
            for command in re.findall(r"`/([a-z]+(?: [a-z]+(?=[ `]))?)", first_cell):
                listed.add(command)
    assert listed == declared
    assert {"analyse", "config analysis"} <= listed
