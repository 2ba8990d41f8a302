"""The layering rules: engines/ <- render/ <- bot/. engines/ and render/ stay pure; in bot/, the
service imports no database driver and no Discord, the storage room no service or Discord, and the
robot (its driver included) no Discord, storage or database driver."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

DRIVERS = {"aiosqlite", "sqlite3", "asyncpg"}

# Per folder: the modules its code must not import, at any depth (a banned name bans its
# submodules too: "bot.discord" bans "bot.discord.app").
FORBIDDEN = {
    "engines": {"discord", "PIL", "aiosqlite", "sqlite3", "asyncio", "bot", "render"},
    "render": {"discord", "aiosqlite", "sqlite3", "bot"},
    "bot/service": {"discord", "bot.discord", *DRIVERS},
    "bot/storage": {"discord", "bot.discord", "bot.service"},
    # The robot: its driver plays through bot.service (only it: tests/robot/test_robot_rooms.py).
    "bot/robot": {"discord", "bot.discord", "bot.storage", *DRIVERS},
    "bot/terminal": {"discord", "bot.discord"},  # the second transport knows nothing of the first
}

# The storage modules that import no driver: the only ones the service may import.
DRIVER_FREE_STORAGE = {"bot.storage", "bot.storage.protocol", "bot.storage.types"}


@dataclass(frozen=True)
class Import:
    line: int
    module: str  # ``import a.b``: a.b; ``from a import b, c``: a (relative ones made absolute)
    names: tuple[str, ...]  # ``from a import b, c``: (b, c); each may be a submodule of a

    def submodules(self) -> list[str]:
        return [f"{self.module}.{name}" for name in self.names]


def imports(path: Path, *, top_level_only: bool = False) -> list[Import]:
    """Every import in the file; ``top_level_only``: the module's own statements only, not
    those inside functions. A relative import is read from the file's place under ROOT."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in tree.body if top_level_only else ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(node.lineno, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                package = list(path.relative_to(ROOT).parts[:-1])
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([module] if module else [])])
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            found.append(Import(node.lineno, module, names))
    return found


def _bans(banned: set[str], name: str) -> bool:
    return any(name == b or name.startswith(f"{b}.") for b in banned)


def forbidden_imports(package_dir: Path, banned: set[str]) -> list[str]:
    """Every import under package_dir of a banned module or of a submodule of one (``from bot
    import discord`` imports bot.discord)."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        where = path.relative_to(package_dir.parent)
        for imp in imports(path):
            if _bans(banned, imp.module):
                found.append(f"{where}:{imp.line} {imp.module}")
            else:
                found.extend(
                    f"{where}:{imp.line} {name}" for name in imp.submodules() if _bans(banned, name)
                )
    return found


def _storage_module(name: str) -> str | None:
    """The bot.storage module that importing ``name`` loads (``bot.storage.types.StatUpdate``:
    bot.storage.types; ``bot.storage.Store``: bot.storage), or None outside bot.storage."""
    parts = name.split(".")
    if parts[:2] != ["bot", "storage"]:
        return None
    if len(parts) > 2 and (
        (ROOT / "bot" / "storage" / f"{parts[2]}.py").exists()
        or (ROOT / "bot" / "storage" / parts[2]).is_dir()
    ):
        return ".".join(parts[:3])
    return "bot.storage"


def storage_modules(imp: Import) -> set[str]:
    return {m for m in map(_storage_module, [imp.module, *imp.submodules()]) if m is not None}


def storage_imports_beyond(package_dir: Path, allowed: set[str]) -> list[str]:
    """Every import under package_dir of a bot.storage module not in ``allowed``."""
    return [
        f"{path.relative_to(package_dir.parent)}:{imp.line} {module}"
        for path in sorted(package_dir.rglob("*.py"))
        for imp in imports(path)
        for module in sorted(storage_modules(imp) - allowed)
    ]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_allows(package: str) -> None:
    assert (ROOT / package / "__init__.py").exists()
    assert forbidden_imports(ROOT / package, FORBIDDEN[package]) == []


def test_the_service_imports_only_the_driver_free_storage_modules() -> None:
    assert storage_imports_beyond(ROOT / "bot" / "service", DRIVER_FREE_STORAGE) == []


def test_the_driver_free_storage_modules_import_no_driver() -> None:
    """protocol.py and types.py import no driver anywhere, and the package ``__init__`` none as
    it loads (``open_store`` loads the SQLite module when it is called)."""
    found = []
    for module in sorted(DRIVER_FREE_STORAGE):
        path = ROOT / Path(*module.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for imp in imports(path, top_level_only=path.name == "__init__.py"):
            driver = any(_bans(DRIVERS, name) for name in [imp.module, *imp.submodules()])
            if driver or storage_modules(imp) - DRIVER_FREE_STORAGE:
                found.append(f"{module}:{imp.line} {imp.module}")
    assert found == []


# Where a database driver may be imported: the storage room, and the tests of the database
# itself (old schemas made by hand, a database read without a store, a driver's error as the
# cause of the store's). Everything else goes through the Store protocol, StoreError and RawSql.
DRIVER_HOMES = ("bot/storage", "tests/storage")
# The project's Python: every folder of it.
CODE = ("benchmarks", "bot", "engines", "render", "tests")


def driver_imports(root: Path, homes: tuple[str, ...] = DRIVER_HOMES) -> list[str]:
    """Every import of a database driver in a Python file of ``root``'s :data:`CODE` folders,
    outside ``homes``."""
    found = []
    for path in sorted(p for folder in CODE for p in (root / folder).rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if any(where == home or where.startswith(f"{home}/") for home in homes):
            continue
        found.extend(
            f"{where}:{imp.line} {imp.module}"
            for imp in imports(path)
            if any(_bans(DRIVERS, name) for name in [imp.module, *imp.submodules()])
        )
    return found


def test_only_the_storage_room_imports_a_database_driver() -> None:
    """Only bot/storage/ (and the tests of the database) import sqlite3, aiosqlite or asyncpg:
    the app, the CLI, the other tests and the benchmarks catch StoreError's subclasses and read
    through the stores' public methods."""
    assert driver_imports(ROOT) == []


def test_the_driver_check_catches_an_import_outside_the_storage_room(tmp_path: Path) -> None:
    for where in ("bot/discord/app.py", "bot/storage/sqlite.py", "tests/storage/t.py", "bot/b.py"):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "bot/discord/app.py").write_text("import sqlite3\ndef f():\n    import asyncpg\n")
    (tmp_path / "bot/storage/sqlite.py").write_text("import aiosqlite\nimport sqlite3\n")
    (tmp_path / "tests/storage/t.py").write_text("import sqlite3\n")
    (tmp_path / "bot/b.py").write_text("from asyncpg import exceptions\nimport json\n")
    homes = ("bot/storage", "tests/storage")
    assert driver_imports(tmp_path, homes) == [
        "bot/b.py:1 asyncpg",
        "bot/discord/app.py:1 sqlite3",
        "bot/discord/app.py:3 asyncpg",
    ]


def test_importing_the_service_loads_no_driver_and_no_discord() -> None:
    """What the rules above add up to, checked in a fresh interpreter."""
    code = (
        "import sys, bot.service, bot.service.ratings, bot.service.commands\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'aiosqlite', 'sqlite3', '_sqlite3', 'asyncpg', 'discord'} "
        "or m.startswith(('bot.discord', 'bot.storage.sqlite', 'bot.storage.migrations'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    pkg = tmp_path / "engines"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "ok.py").write_text("import random\nfrom engines import base\n")
    (pkg / "sub" / "bad.py").write_text("def f():\n    from discord.ext import commands\n")
    (pkg / "bad2.py").write_text("import asyncio, json\nimport PIL.Image\n")
    assert forbidden_imports(pkg, FORBIDDEN["engines"]) == [
        "engines/bad2.py:1 asyncio",
        "engines/bad2.py:2 PIL.Image",
        "engines/sub/bad.py:2 discord.ext",
    ]


def test_checker_catches_what_the_service_and_storage_must_not_import(tmp_path: Path) -> None:
    service = tmp_path / "service"
    service.mkdir()
    (service / "ok.py").write_text(
        "from bot.storage import Store, StatUpdate\nfrom bot.storage.types import Row\n"
        "from bot import storage\nimport bot.storage.protocol\nfrom engines import base\n"
    )
    (service / "bad.py").write_text(
        "from bot import discord\nimport sqlite3\nfrom bot.discord.app import run\n"
        "def f():\n    import asyncpg\n    from bot.storage.sqlite import SqliteStore\n"
        "    from bot.storage import migrations, types\n    import bot.storage.sqlite\n"
    )
    assert forbidden_imports(service, FORBIDDEN["bot/service"]) == [
        "service/bad.py:1 bot.discord",
        "service/bad.py:2 sqlite3",
        "service/bad.py:3 bot.discord.app",
        "service/bad.py:5 asyncpg",
    ]
    assert storage_imports_beyond(service, DRIVER_FREE_STORAGE) == [
        "service/bad.py:6 bot.storage.sqlite",
        "service/bad.py:7 bot.storage.migrations",
        "service/bad.py:8 bot.storage.sqlite",
    ]
    storage = tmp_path / "storage"
    storage.mkdir()
    (storage / "bad.py").write_text("from bot.service.core import MatchService\nimport discord\n")
    assert forbidden_imports(storage, FORBIDDEN["bot/storage"]) == [
        "storage/bad.py:1 bot.service.core",
        "storage/bad.py:2 discord",
    ]
