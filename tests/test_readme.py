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
    assert "pip install . && tablebot" in lines
    assert "pip install -e '.[test]' && pytest" in lines


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
