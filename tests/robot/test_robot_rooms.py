"""Where the robot may reach: bot/robot imports no Discord, no service, no storage and no database
driver, except its driver (bot/robot/driver.py), which plays through the service and so imports
bot.service (still no Discord, no storage, no driver); only bot/robot/gnubg_brain.py imports
gnubg, inside a function, so the bot's own process never loads it (it runs in the robot's
worker)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROBOT = ROOT / "bot" / "robot"
BANNED = ("discord", "bot.discord", "bot.service", "bot.storage", "aiosqlite", "sqlite3", "asyncpg")
# The driver sends the robot's decisions as the service's commands.
DRIVER = ROBOT / "driver.py"
DRIVER_MAY = ("bot.service",)


def _imports(path: Path) -> list[tuple[ast.stmt, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node, node.module))
            found += [(node, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _banned(name: str, banned: tuple[str, ...]) -> bool:
    return any(name == b or name.startswith(f"{b}.") for b in banned)


def test_the_robot_imports_no_transport_service_or_storage() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{node.lineno} {name}"
        for path in sorted(ROBOT.rglob("*.py"))
        for node, name in _imports(path)
        if _banned(name, BANNED) and not (path == DRIVER and _banned(name, DRIVER_MAY))
    ]
    assert bad == []


def test_only_the_driver_imports_the_service() -> None:
    where = [
        path.name
        for path in sorted(ROBOT.rglob("*.py"))
        for _, name in _imports(path)
        if _banned(name, DRIVER_MAY)
    ]
    assert set(where) == {"driver.py"}


def test_only_the_brain_imports_gnubg_and_only_when_called() -> None:
    where = [
        path.name
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for _, name in _imports(path)
        if name == "gnubg" or name.startswith("gnubg.")
    ]
    # The loader that gnubg_brain calls (issue 40: the wheel, or the system's program), and the
    # bridge the program runs (its own embedded module).
    assert where == ["gnubg_bridge.py", "gnubg_system.py"]
    for name in where:
        tree = ast.parse((ROBOT / name).read_text(encoding="utf-8"))
        top_level = [
            node
            for node in tree.body
            if isinstance(node, ast.Import) and any(a.name == "gnubg" for a in node.names)
        ]
        assert top_level == []


def test_the_bots_process_does_not_load_gnubg() -> None:
    code = (
        "import sys\n"
        "import bot.robot.player, bot.robot.worker, bot.robot.hints, bot.robot.cli\n"
        "print('gnubg' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
