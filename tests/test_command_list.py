"""Issue 34, the smaller faults: docs/architecture.md's list of commands is the real one. Every
command the service handles (``HANDLERS``: commands.py, analysis.py, tournament_model.py ...)
is named in the list, and every command-like name the list gives is one of them (the list had
lost ``ChooseLanguage`` and ``MemberLanguage``)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.service import HANDLERS

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
NOT_COMMANDS = {"R", "MatchCommand"}  # the list's words for a command's answer and its kind


def command_list() -> str:
    """The list: the bullet "One entry point" of architecture.md, up to the next one."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index("- **One entry point.**")
    return text[start : text.index("- **One table.**", start)]


def test_issue_34_every_command_is_in_the_architectures_list_and_only_commands() -> None:
    listed = set(re.findall(r"`([A-Z]\w*)`", command_list()))
    handled = {command.__name__ for command in HANDLERS}
    assert handled - listed == set(), "commands missing from docs/architecture.md"
    assert listed - handled - NOT_COMMANDS == set(), "names in the list that are no command"
