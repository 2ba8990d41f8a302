"""The rooms of bot/: the service is transport-agnostic (no discord, no database driver, no
adapter) with one command table covering every command; only the Discord adapter imports
discord; no module in bot/ is over 700 lines."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.service import HANDLERS, Command, MatchCommand, MatchService

ROOM = Path(__file__).resolve().parents[1] / "bot" / "service"
BANNED = ("discord", "aiosqlite", "bot.discord")
MAX_LINES = 700


def imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(module, only for type checking) for every import in ``tree``."""
    found: list[tuple[str, bool]] = []
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING",):
            typing_only |= {id(n) for child in node.body for n in ast.walk(child)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in typing_only) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, id(node) in typing_only))
    return found


def test_the_service_imports_no_transport_and_no_database_driver() -> None:
    for path in sorted(ROOM.glob("*.py")):
        for module, _ in imports(ast.parse(path.read_text(encoding="utf-8"))):
            assert not module.startswith(BANNED), f"{path.name} imports {module}"
            assert module != "sqlite3", f"{path.name} imports sqlite3"


def test_no_module_in_bot_is_over_700_lines() -> None:
    for path in sorted(ROOM.parent.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(ROOM.parent)}: {lines} lines"


def test_only_the_discord_adapter_imports_discord() -> None:
    adapter = ROOM.parent / "discord"
    for path in sorted(ROOM.parent.rglob("*.py")):
        if adapter in path.parents:
            continue
        for module, _ in imports(ast.parse(path.read_text(encoding="utf-8"))):
            assert module.split(".")[0] != "discord", f"{path} imports {module}"


def every_subclass(kind: type) -> set[type]:
    found = set(kind.__subclasses__())
    for sub in tuple(found):
        found |= every_subclass(sub)
    return found


def test_every_command_has_a_handler_and_handle_is_the_only_entry() -> None:
    commands = set(MatchCommand.__subclasses__())
    assert len(commands) == 13 and commands <= set(HANDLERS)
    # One table: every command type (match actions, challenges, settings, shouts, analysis
    # requests, read-only commands) has its handler, and nothing else is in it.
    assert set(HANDLERS) == every_subclass(Command) - {MatchCommand}
    for old in ("roll", "play", "double", "take", "pass_", "resign_offer", "claim_win", "act"):
        assert not hasattr(MatchService, old), old
    # Reads are commands too: the service's face is handle, its bus and its life cycle.
    public = {name for name in vars(MatchService) if not name.startswith("_")}
    lifecycle = {"open", "close", "resume_active", "resume_tournaments", "start_timers"}
    assert public == {"store", "clock", "bus", "handle"} | lifecycle


def handled_chains() -> set[str]:
    """What the handlers reach on the service (``svc.analyses.views_at`` ...), as dotted chains
    after ``svc``: each is a command's work, which only ``handle`` may do."""
    tree = ast.parse((ROOM / "service.py").read_text(encoding="utf-8"))
    chains = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called = ast.unparse(node.func)
            if called.startswith("svc.") and called.count(".") >= 2:
                chains.add(called.removeprefix("svc."))
    return chains


def test_issue_34_the_transports_do_a_commands_work_only_through_handle() -> None:
    """Issue 34, the smaller faults: no transport calls around ``handle`` what a command's
    handler calls (a cog once read ``service.analyses.views_at`` for a puzzle's board)."""
    chains = handled_chains()
    assert "analyses.views_at" in chains and "tournaments.adjudicate" in chains
    for room in ("discord", "terminal", "robot"):
        for path in sorted((ROOM.parent / room).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute):
                    said = ast.unparse(node)
                    for chain in chains:
                        assert not said.endswith("." + chain), f"{path.name}: {said}"


def test_issue_34_a_match_record_and_a_match_file_are_two_names() -> None:
    """Issue 34, the smaller faults: the service's in-memory matches row (``MatchRecord``) and
    a match read from a file (``MatchFile``) were both called ``MatchRecord``."""
    defined: dict[str, list[str]] = {"MatchRecord": [], "MatchFile": []}
    root = ROOM.parents[1]
    for room in ("engines", "render", "bot"):
        for path in sorted((root / room).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name in defined:
                    defined[node.name].append(path.relative_to(root).as_posix())
    assert defined == {
        "MatchRecord": ["bot/service/state.py"],
        "MatchFile": ["engines/match_files.py"],
    }
