"""`tablebot` start-up at scale: TABLEBOT_DB as a PostgreSQL URL, and the shard settings
(TABLEBOT_SHARD_COUNT, TABLEBOT_SHARD_IDS), with the errors a wrong one gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import GOOD_TOKEN, run_cli

from bot.config import ConfigError, Settings
from bot.discord.app import guild_shards_of, shard_options
from bot.storage import GuildShards

URL = "postgresql://tablebot:s3cret-pw@db.example:5432/tablebot"


def settings_of(**env: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": GOOD_TOKEN, **env})


def test_a_postgresql_url_is_kept_as_it_is_and_shown_without_its_password() -> None:
    settings = settings_of(TABLEBOT_DB=URL)
    assert settings.db_path == URL
    assert "s3cret-pw" not in repr(settings)
    assert "postgresql://tablebot:***@db.example:5432/tablebot" in repr(settings)
    assert settings_of(TABLEBOT_DB="postgres://u@h/d").db_path == "postgres://u@h/d"
    # A file path is still a path.
    assert settings_of(TABLEBOT_DB="/data/x.db").db_path == Path("/data/x.db")


def test_another_url_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(ConfigError, match="file path or a postgresql:// URL") as caught:
        settings_of(TABLEBOT_DB="mysql://root:hunter2@db/tablebot")
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("env", "count", "ids"),
    [
        ({}, None, None),
        ({"TABLEBOT_SHARD_COUNT": "auto"}, None, None),
        ({"TABLEBOT_SHARD_COUNT": "4"}, 4, None),
        ({"TABLEBOT_SHARD_COUNT": "4", "TABLEBOT_SHARD_IDS": "0-3"}, 4, (0, 1, 2, 3)),
        ({"TABLEBOT_SHARD_COUNT": "8", "TABLEBOT_SHARD_IDS": "4-7"}, 8, (4, 5, 6, 7)),
        ({"TABLEBOT_SHARD_COUNT": "8", "TABLEBOT_SHARD_IDS": "0, 2,5-6"}, 8, (0, 2, 5, 6)),
        ({"TABLEBOT_SHARD_COUNT": "2", "TABLEBOT_SHARD_IDS": "1"}, 2, (1,)),
    ],
)
def test_shard_settings(env: dict[str, str], count: int | None, ids: tuple[int, ...]) -> None:
    settings = settings_of(TABLEBOT_DB=URL, **env)
    assert (settings.shard_count, settings.shard_ids) == (count, ids)


def test_the_shard_settings_go_to_discord_py_and_name_the_guilds_this_process_handles() -> None:
    every = settings_of(TABLEBOT_DB=URL)
    assert shard_options(every, {}) == {"shard_count": None}  # auto: Discord advises
    assert guild_shards_of(every) is None
    assert guild_shards_of(settings_of(TABLEBOT_SHARD_COUNT="2", TABLEBOT_SHARD_IDS="0-1")) is None
    part = settings_of(TABLEBOT_DB=URL, TABLEBOT_SHARD_COUNT="4", TABLEBOT_SHARD_IDS="2-3")
    assert shard_options(part, {}) == {"shard_count": 4, "shard_ids": [2, 3]}
    assert shard_options(part, {"shard_count": 1, "shard_ids": [0]}) == {}  # the caller's own
    shards = guild_shards_of(part)
    assert shards == GuildShards(4, frozenset({2, 3}))
    assert shards.owns(2 << 22) and shards.owns((7 << 22) | 12345)
    assert not shards.owns(0) and not shards.owns(5 << 22)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TABLEBOT_SHARD_COUNT": "0"}, "TABLEBOT_SHARD_COUNT must be a number"),
        ({"TABLEBOT_SHARD_COUNT": "many"}, "TABLEBOT_SHARD_COUNT must be a number"),
        ({"TABLEBOT_SHARD_IDS": "0-1"}, "needs TABLEBOT_SHARD_COUNT set to a number"),
        ({"TABLEBOT_SHARD_COUNT": "auto", "TABLEBOT_SHARD_IDS": "0"}, "needs TABLEBOT_SHARD_COUNT"),
        ({"TABLEBOT_SHARD_COUNT": "4", "TABLEBOT_SHARD_IDS": "2-4"}, "run from 0 to 3"),
        ({"TABLEBOT_SHARD_COUNT": "4", "TABLEBOT_SHARD_IDS": "3-1"}, "run from 0 to 3"),
        ({"TABLEBOT_SHARD_COUNT": "4", "TABLEBOT_SHARD_IDS": "one"}, "like 0-3"),
        ({"TABLEBOT_SHARD_COUNT": "4", "TABLEBOT_SHARD_IDS": "0-"}, "like 0-3"),
    ],
)
def test_bad_shard_settings_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        settings_of(TABLEBOT_DB=URL, **env)


def test_sqlite_runs_every_shard_or_none() -> None:
    # Every shard in one process: SQLite is fine.
    settings = settings_of(TABLEBOT_SHARD_COUNT="2", TABLEBOT_SHARD_IDS="0-1")
    assert settings.shard_ids == (0, 1) and settings.all_shards
    with pytest.raises(ConfigError, match=r"TABLEBOT_SHARD_IDS=0-1,3 runs only some of the 8"):
        settings_of(TABLEBOT_SHARD_COUNT="8", TABLEBOT_SHARD_IDS="0-1,3")


def test_sqlite_with_part_of_the_shards_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    env = f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_SHARD_COUNT=4\nTABLEBOT_SHARD_IDS=0-1\n"
    result = run_cli(tmp_path, env)
    assert result.returncode == 2, result.stderr
    assert "TABLEBOT_SHARD_IDS=0-1 runs only some of the 4 shards" in result.stderr
    assert "postgresql://" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "tablebot.db").exists()


def test_an_unreachable_postgresql_url_exits_1_with_one_line_and_no_password(
    tmp_path: Path,
) -> None:
    # Port 1 on 127.0.0.1: nothing listens there, the connection is refused at once.
    url = "postgresql://tablebot:s3cret-pw@127.0.0.1:1/tablebot"
    result = run_cli(tmp_path, f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={url}\n")
    assert result.returncode == 1, result.stderr
    # Besides the start-up line that names the settings file read, one line says it all.
    lines = [
        line
        for line in result.stderr.splitlines()
        if line.strip() and "Settings read from" not in line
    ]
    [line] = [line for line in lines if "Can't use the database" in line]
    assert "'postgresql://tablebot:***@127.0.0.1:1/tablebot' (TABLEBOT_DB)" in line, line
    assert len(lines) == 1, result.stderr
    assert "s3cret-pw" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr and GOOD_TOKEN not in result.stderr
