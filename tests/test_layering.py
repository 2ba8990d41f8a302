"""The layering rule: engines/ <- render/ <- bot/. engines/ and render/ stay pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "engines": {"discord", "PIL", "aiosqlite", "sqlite3", "asyncio", "bot", "render"},
    "render": {"discord", "aiosqlite", "sqlite3", "bot"},
}


def forbidden_imports(package_dir: Path, banned: set[str]) -> list[str]:
    """Every `import X` / `from X import` under package_dir whose top-level module is banned."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                if name.split(".")[0] in banned:
                    found.append(f"{path.relative_to(package_dir.parent)}:{node.lineno} {name}")
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_allows(package: str) -> None:
    assert (ROOT / package / "__init__.py").exists()
    assert forbidden_imports(ROOT / package, FORBIDDEN[package]) == []


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
