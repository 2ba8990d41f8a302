"""docker-compose.yml, checked without Docker: PostgreSQL, and bot processes whose shard ranges
together cover every shard once, all on that one database, each with settings the bot accepts.

Read with PyYAML where it is installed; else with a small reader of the file's own simple
layout (services at two spaces, their environment at six).

The Docker image keeps its database on the /data volume whatever .env says: checked in the files
and by running the image's entry script here; the image itself is built and run only where a
docker or podman engine answers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

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
        elif restart := re.fullmatch(r"    restart: (.+)", line):
            current["restart"] = restart[1]
        if re.fullmatch(r"    <<: \*bot", line) and (
            policy := re.search(r"\n  restart: (.+)", anchor)
        ):
            current["restart"] = policy[1]
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


def test_every_container_restarts_unless_stopped() -> None:
    """Issue 33, "The docs": the Docker example had no restart policy, so a crash or a reboot
    left the bot down. Compose's services and the `docker run -d` of docs/operations.md restart
    unless stopped."""
    assert {name: s.get("restart") for name, s in services().items()} == {
        name: "unless-stopped" for name in services()
    }
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    detached = [line for line in operations.splitlines() if line.startswith("docker run -d ")]
    assert detached and all("--restart unless-stopped" in line for line in detached)


# --- Docker: `docker run --env-file .env -v tablebot-data:/data tablebot` keeps the database ---

DOCKERFILE = ROOT / "Dockerfile"
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
ENV_EXAMPLE = ROOT / ".env.example"
IMAGE_DB = "/data/tablebot.db"


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines as `docker run --env-file` reads them: comments and blank lines skipped,
    an empty value passed as empty (which overrides the image's ENV)."""
    pairs = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value
    return pairs


def entry(cwd: Path, env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    """The image's entry script, run here with the image's ENV under ``env``."""
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *command],
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "TABLEBOT_DB": IMAGE_DB, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def container_engine() -> str | None:
    """docker or podman, when one answers `info` (a client without a running daemon does not)."""
    for name in ("docker", "podman"):
        exe = shutil.which(name)
        if exe is None:
            continue
        try:
            if subprocess.run([exe, "info"], capture_output=True, timeout=30).returncode == 0:
                return exe
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def test_the_image_keeps_its_database_on_the_data_volume() -> None:
    text = DOCKERFILE.read_text()
    assert f"TABLEBOT_DB={IMAGE_DB}" in text
    assert 'VOLUME ["/data"]' in text
    assert "COPY docker/entrypoint.sh /usr/local/bin/tablebot-entrypoint" in text
    # The entry execs tablebot (process 1, so docker stop's SIGTERM reaches it).
    assert 'ENTRYPOINT ["tablebot-entrypoint"]' in text and 'CMD ["tablebot"]' in text
    assert "exec " in ENTRYPOINT.read_text()
    # .env.example leaves TABLEBOT_DB to the image (and the bot's default outside Docker).
    assert "TABLEBOT_DB" not in env_file(ENV_EXAMPLE)


def test_the_entry_keeps_env_example_on_the_volume_and_refuses_a_relative_path(
    tmp_path: Path,
) -> None:
    show = ("sh", "-c", 'printf %s "$TABLEBOT_DB"')
    # .env.example as it is, and with TABLEBOT_DB set empty: the image's path.
    for env in (env_file(ENV_EXAMPLE), {"TABLEBOT_DB": ""}):
        result = entry(tmp_path, env, *show)
        assert (result.returncode, result.stdout, result.stderr) == (0, IMAGE_DB, "")
    for kept in ("/data/other.db", "/srv/volume/t.db", "postgresql://u:p@db:5432/tablebot"):
        assert entry(tmp_path, {"TABLEBOT_DB": kept}, *show).stdout == kept
    # A relative path would be written to the working directory, outside the volume: refused
    # in one line, and the command never runs.
    for relative in ("tablebot.db", "data/tablebot.db", "./t.db"):
        result = entry(tmp_path, {"TABLEBOT_DB": relative}, "sh", "-c", "echo ran")
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1
        assert f"TABLEBOT_DB={relative} is a relative path" in result.stderr
        assert IMAGE_DB in result.stderr


def test_compose_reads_the_postgres_password_inside_the_container() -> None:
    """The migrate recipe's password lives in .env, which compose passes to the container
    (env_file), not in the shell that types the command: single quotes keep it from the shell."""
    text = COMPOSE.read_text()
    assert "  env_file: .env\n" in text
    recipe = text.split("bot-0 \\\n", 1)[1].splitlines()[0]
    assert recipe.lstrip("# ").startswith("sh -c 'tablebot migrate-db --to ")
    assert '"postgresql://tablebot:$POSTGRES_PASSWORD@db:5432/tablebot"\'' in recipe


@pytest.mark.skipif(container_engine() is None, reason="no docker or podman engine runs here")
def test_docker_run_with_env_example_keeps_the_database_on_the_volume(tmp_path: Path) -> None:
    """The image itself, where an engine runs: built, then run with `--env-file .env.example`
    and a volume on /data (the README's docker run), and with a relative TABLEBOT_DB."""
    engine = container_engine()
    assert engine is not None
    tag = "tablebot-test-deploy"
    build = subprocess.run(
        [engine, "build", "-t", tag, str(ROOT)], capture_output=True, text=True, timeout=1800
    )
    assert build.returncode == 0, build.stderr[-2000:]
    run = [engine, "run", "--rm", "--env-file", str(ENV_EXAMPLE), "-v", f"{tmp_path}:/data"]
    where = subprocess.run(
        [*run, tag, "sh", "-c", 'printf %s "$TABLEBOT_DB"'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (where.returncode, where.stdout) == (0, IMAGE_DB), where.stderr
    refused = subprocess.run(
        [*run, "-e", "TABLEBOT_DB=tablebot.db", tag],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert refused.returncode == 2 and "is a relative path" in refused.stderr
