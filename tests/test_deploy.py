"""docker-compose.yml, checked without Docker: PostgreSQL, and bot processes whose shard ranges
together cover every shard once, all on that one database, each with settings the bot accepts.

Read with PyYAML where it is installed; else with a small reader of the file's own simple
layout (services at two spaces, their environment at six)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def services() -> dict[str, dict[str, Any]]:
    """Service name -> {"environment": {...}, "depends_on": [...], "image" or "build"}."""
    text = COMPOSE.read_text()
    try:
        import yaml
    except ImportError:
        return _read_simply(text)
    found: dict[str, dict[str, Any]] = yaml.safe_load(text)["services"]
    for service in found.values():
        service.setdefault("environment", {})
        service["depends_on"] = list(service.get("depends_on") or [])
    return found


def _read_simply(text: str) -> dict[str, dict[str, Any]]:
    body = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    anchor = text.split("\nservices:\n", 1)[0]
    found: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] = {}
    for line in body.splitlines():
        if name := re.fullmatch(r"  ([\w-]+):", line):
            current = found.setdefault(name[1], {"environment": {}, "depends_on": []})
        elif pair := re.fullmatch(r"      (\w+): (.+)", line):
            current["environment"][pair[1]] = pair[2].strip().strip('"')
        elif re.fullmatch(r"    <<: \*bot", line):
            current["build"] = "." if "\n  build: .\n" in anchor else None
            current["depends_on"] = ["db"] if "\n    db:\n" in anchor else []
        elif image := re.fullmatch(r"    image: (.+)", line):
            current["image"] = image[1]
    return found


def test_postgresql_and_two_bot_processes_on_shard_ranges_that_cover_every_shard_once() -> None:
    found = services()
    assert found["db"]["image"].startswith("postgres:")
    bots = {name: s for name, s in found.items() if name.startswith("bot")}
    assert len(bots) >= 2
    owners: dict[int, str] = {}
    counts, databases = set(), set()
    for name, service in bots.items():
        assert service.get("build") == "." and "db" in service["depends_on"], name
        env = {k: str(v) for k, v in service["environment"].items()}
        db = env["TABLEBOT_DB"].replace("${POSTGRES_PASSWORD}", "secret")
        settings = Settings.from_env({**env, "TABLEBOT_DB": db, "DISCORD_TOKEN": TOKEN})
        assert settings.db_path == db and db.startswith("postgresql://tablebot:secret@db:5432/")
        assert settings.shard_count is not None and settings.shard_ids is not None, name
        counts.add(settings.shard_count)
        databases.add(db)
        for shard in settings.shard_ids:
            assert shard not in owners, f"shard {shard}: {owners.get(shard)} and {name}"
            owners[shard] = name
    assert len(counts) == 1 and len(databases) == 1  # one shard count, one database
    assert sorted(owners) == list(range(counts.pop()))  # every shard, once
