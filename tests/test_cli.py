"""`tablebot` start-up: a missing or malformed token exits 2 with a helpful message."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.config import ConfigError, Settings
from bot.storage.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
GOOD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
REJECTED_TOKEN = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Fz1.REJECTEDrejectedREJECTED0123456789"


def run_cli(cwd: Path, env_file: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    if env_file is not None:
        (cwd / ".env").write_text(env_file)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TABLEBOT_"))}
    env.pop("DEV_GUILD_ID", None)
    # This checkout's code, whatever `bot` the interpreter would import from ``cwd``.
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_env_file_exits_2_with_advice(tmp_path: Path) -> None:
    result = run_cli(tmp_path, None)
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr and ".env" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_malformed_token_exits_2_without_echoing_it(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "DISCORD_TOKEN=not-a-real-token-secret\n")
    assert result.returncode == 2
    assert "does not look like a bot token" in result.stderr
    assert "not-a-real-token-secret" not in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_subcommand_exits_2(tmp_path: Path) -> None:
    """Issue 33, "tablebot foo starts nothing and says nothing useful": one line naming it,
    pointing at --help, exit 2, nothing read or started."""
    for word, what in (("foo", "command"), ("--frobnicate", "option")):
        result = run_cli(tmp_path, None, word)
        assert result.returncode == 2
        assert result.stderr == (
            f"tablebot: unknown {what} {word!r} ('tablebot --help' lists the commands)\n"
        )
        assert result.stdout == ""


def test_output_cut_short_by_its_reader_ends_quietly(tmp_path: Path) -> None:
    """Issue 33, "output piped into head ends in a BrokenPipeError traceback": the reader has
    gone before anything is written (``| head`` done reading); no traceback, exit 141."""
    env = {"PATH": "", "PYTHONPATH": str(ROOT)}
    for args in (["--help"], ["hint", "--game", "nannon", "--position", "012-012", "--roll", "3"]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # every write now fails with EPIPE
        try:
            result = subprocess.run(
                [sys.executable, "-m", "bot", *args],
                cwd=tmp_path,
                env=env,
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(write_end)
        assert result.returncode == 141, result.stderr
        assert result.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-h"],
        ["sync", "--help"],
        ["sync", "-h"],
        ["migrate-db", "--help"],
        ["hint", "--help"],
        ["analyse", "--help"],
        ["analyze", "-h"],
    ],
)
def test_every_subcommand_answers_help_and_does_nothing_else(
    tmp_path: Path, args: list[str]
) -> None:
    # Settings that would start: a run would first open TABLEBOT_DB (a missing folder: exit 1,
    # before any connection), so exit 0 with the usage shows nothing ran.
    missing = tmp_path / "no-such-folder" / "t.db"
    result = run_cli(tmp_path, f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={missing}\n", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: tablebot") and result.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"]


def test_version_and_bad_sync_arguments(tmp_path: Path) -> None:
    from bot.__main__ import version

    for flag in ("--version", "-V"):
        result = run_cli(tmp_path, None, flag)
        assert (result.returncode, result.stdout) == (0, f"tablebot {version()}\n")
    assert version()[0].isdigit()  # the venv has tablebot installed
    result = run_cli(tmp_path, None, "sync", "--now")
    assert result.returncode == 2 and "unexpected argument '--now'" in result.stderr


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345", "in quotes"),
        ("MTIzNDU2Nzg5MDEy MzQ1Njc4.GaBcDe.abcdefghijklmnopqrstu", "a space in it"),
        ("Bot MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstu", "a word before the token"),
        ("123456789012345678", "the application or user id"),
        ("abcdefghijklmnopqrstuvwxyz012345", "OAuth2 client secret"),
        ("MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe", "2 dot-separated parts, not 3"),
        ("MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefgh", "third part is 8 characters long"),
        ("MTIzNDU2Nzg5MDEyMzQ1Njc4.GaB+De.abcdefghijklmnopqrstu", "characters a token never has"),
    ],
)
def test_a_malformed_token_is_told_what_is_wrong_with_it(token: str, said: str) -> None:
    """Issue 33, "a malformed token gets a message that doesn't say what is wrong": it says,
    and shows none of the token."""
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({"DISCORD_TOKEN": token})
    message = str(raised.value)
    assert said in message
    for piece in token.strip("'").replace(" ", ".").split("."):
        assert len(piece) < 5 or piece not in message


def test_env_file_names_the_settings_file_and_the_start_says_which(tmp_path: Path) -> None:
    """Issue 33, ".env is read only from the current directory": --env-file PATH reads another
    file, and the start says which file it read (or that there was none)."""
    missing = tmp_path / "no-such-folder" / "t.db"
    settings = tmp_path / "conf" / "prod.env"
    settings.parent.mkdir()
    settings.write_text(f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={missing}\n")
    for args in (["--env-file", str(settings)], [f"--env-file={settings}"]):
        result = run_cli(tmp_path, None, *args)
        # Read: the token is good, the database folder missing (exit 1, before any connection).
        assert result.returncode == 1, result.stderr
        assert f"Settings read from {settings}" in result.stderr
    result = run_cli(tmp_path, None, "sync", "--env-file", str(settings))  # after the command
    assert result.returncode == 1 and f"Settings read from {settings}" in result.stderr
    result = run_cli(tmp_path, None, "--env-file", str(tmp_path / "nope.env"))
    assert result.returncode == 2
    assert result.stderr == f"tablebot: --env-file {tmp_path / 'nope.env'}: there is no such file\n"
    result = run_cli(tmp_path, None)  # no .env here: the message says where it looked
    assert result.returncode == 2
    assert f"(no .env in {tmp_path}: settings from the environment only)" in result.stderr
    result = run_cli(tmp_path, f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={missing}\n")
    assert result.returncode == 1 and f"Settings read from {tmp_path / '.env'}" in result.stderr


def test_settings_from_env_reads_every_variable() -> None:
    settings = Settings.from_env(
        {
            "DISCORD_TOKEN": GOOD_TOKEN,
            "TABLEBOT_DB": "/data/x.db",
            "DEV_GUILD_ID": "123456789012345678",
            "LOG_LEVEL": "debug",
        }
    )
    assert settings.db_path == Path("/data/x.db")
    assert settings.dev_guild_id == 123456789012345678
    assert settings.log_level == "DEBUG"
    assert GOOD_TOKEN not in repr(settings)


def test_settings_defaults() -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": GOOD_TOKEN})
    assert settings.db_path == Path("tablebot.db")
    assert settings.dev_guild_id is None
    assert settings.log_level == "INFO"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "DISCORD_TOKEN is not set"),
        ({"DISCORD_TOKEN": "abc"}, "does not look like a bot token"),
        ({"DISCORD_TOKEN": GOOD_TOKEN, "DEV_GUILD_ID": "my-server"}, "DEV_GUILD_ID"),
        ({"DISCORD_TOKEN": GOOD_TOKEN, "LOG_LEVEL": "loud"}, "LOG_LEVEL"),
    ],
)
def test_settings_refuse_bad_values(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_a_folder_is_not_a_database_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="TABLEBOT_DB must be the path of a database file"):
        Settings.from_env({"DISCORD_TOKEN": GOOD_TOKEN, "TABLEBOT_DB": str(tmp_path)})


async def _mark_newer(path: Path) -> None:
    """Make ``path`` a database written by a newer tablebot (a schema version past ours)."""
    store = await SqliteStore.open(path)
    try:
        await store.raw_execute("PRAGMA user_version = 9999")
    finally:
        await store.close()


def test_an_unusable_database_exits_1_before_connecting(tmp_path: Path) -> None:
    # A missing folder: reported plainly, and before any connection to Discord (none is
    # possible in tests, so a later failure would look different).
    missing = tmp_path / "no-such-folder" / "t.db"
    result = run_cli(tmp_path, f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={missing}\n")
    assert result.returncode == 1, result.stderr
    assert "Can't use the database" in result.stderr and "TABLEBOT_DB" in result.stderr
    assert "Traceback" not in result.stderr and GOOD_TOKEN not in result.stderr
    # A database written by a newer tablebot.
    newer = tmp_path / "newer.db"
    asyncio.run(_mark_newer(newer))
    result = run_cli(tmp_path, f"DISCORD_TOKEN={GOOD_TOKEN}\nTABLEBOT_DB={newer}\n")
    assert result.returncode == 1, result.stderr
    assert "newer than this tablebot" in result.stderr and "Traceback" not in result.stderr


# --- `tablebot sync` and a rejected token, against the fake Discord ---------------------------

EXPECTED_COMMANDS = {
    "challenge", "move", "roll", "double", "take", "pass", "resign", "draw", "board", "games",
    "leaderboard", "stats", "history", "export", "verify", "rules", "config", "sync", "hint",
    "analyse", "tournament", "puzzle", "puzzles", "language",
}  # fmt: skip


@pytest_asyncio.fixture
async def fake_discord() -> Any:
    """The fake Discord, with discord.py's HTTP and gateway endpoints pointed at it for the test
    (nothing may reach the real Discord)."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route
    from fakediscord import FakeDiscord

    fake = FakeDiscord()
    await fake.start_server()
    saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = f"{fake.base_url}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{fake.port}/gateway/")
    try:
        yield fake
    finally:
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved
        await fake.stop_server()


@pytest.mark.asyncio
async def test_sync_subcommand_syncs_every_command_globally_as_guild_only(
    tmp_path: Path, fake_discord: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from fakediscord import TOKEN

    from bot.discord.app import _main

    fake = fake_discord
    settings = Settings(token=TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="INFO")
    caplog.set_level(logging.INFO)
    assert await _main(settings, sync_only=True) == 0
    synced = fake.commands[None]  # the global list
    assert {c["name"] for c in synced} == EXPECTED_COMMANDS
    assert [k for k in fake.commands if k is not None] == []  # no guild sync, no gateway
    for command in synced:
        # Guild-only: Discord offers it in servers only (context 0), not in DMs or group DMs.
        assert command["contexts"] == [0], command["name"]
        assert command["dm_permission"] is False, command["name"]
        # Server installs only (integration_types unset would mean the app's default).
        assert command["integration_types"] == [0], command["name"]
    assert f"synced {len(synced)} global commands" in caplog.text
    assert TOKEN not in caplog.text


@pytest.mark.asyncio
async def test_sync_subcommand_clears_the_dev_guilds_own_copies(
    tmp_path: Path, fake_discord: Any
) -> None:
    """With DEV_GUILD_ID set, `tablebot sync` syncs globally and empties the dev guild's own
    list, where every command would otherwise show twice."""
    from fakediscord import TOKEN

    from bot.discord.app import _main

    fake = fake_discord
    guild = fake.guild
    fake.commands[guild.id] = [{"name": "challenge", "id": "1"}]  # a copy from a dev start-up
    settings = Settings(
        token=TOKEN, db_path=tmp_path / "t.db", dev_guild_id=guild.id, log_level="INFO"
    )
    assert await _main(settings, sync_only=True) == 0
    assert {c["name"] for c in fake.commands[None]} == EXPECTED_COMMANDS
    assert fake.commands[guild.id] == []


@pytest.mark.asyncio
async def test_a_rejected_token_exits_1_with_advice_and_no_token(
    tmp_path: Path, fake_discord: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.discord.app import _main

    # Well-formed, so it passes Settings, but not the fake Discord's: it answers 401.
    settings = Settings(
        token=REJECTED_TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="DEBUG"
    )
    caplog.set_level(logging.DEBUG)
    for sync_only in (False, True):
        caplog.clear()
        assert await _main(settings, sync_only=sync_only) == 1
        assert "Discord refused the bot token" in caplog.text
        for piece in (REJECTED_TOKEN, *REJECTED_TOKEN.split(".")):
            assert piece not in caplog.text
    assert any(call.status == 401 for call in fake_discord.calls)


def one_line_without_traceback(caplog: pytest.LogCaptureFixture) -> str:
    """The one ERROR logged (with no traceback, and no other ERROR), and no voice warning."""
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert errors[0].exc_info is None and "\n" not in errors[0].getMessage()
    assert "voice" not in caplog.text and "Traceback" not in caplog.text
    return errors[0].getMessage()


@pytest.mark.asyncio
async def test_refused_intents_exit_3_with_one_line(
    tmp_path: Path, fake_discord: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord closes the gateway with 4014 when the application may not use an intent it asks
    for (a privileged one not switched on): a line of its own, and exit status 3."""
    from fakediscord import TOKEN

    from bot.discord.app import ExitCode, _main

    fake_discord.allowed_intents = 0  # this application may use none: GUILDS is refused too
    settings = Settings(token=TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="INFO")
    caplog.set_level(logging.INFO)
    assert await _main(settings, sync_only=False) == ExitCode.INTENTS == 3
    assert "refused the gateway intents (close code 4014)" in one_line_without_traceback(caplog)
    assert fake_discord.identifies == 0 and TOKEN not in caplog.text


@pytest.mark.asyncio
async def test_unreachable_discord_exits_4_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No route to Discord (here a port nothing listens on): one line, exit status 4, whether
    running or syncing."""
    import socket

    from discord.http import Route

    from bot.discord.app import ExitCode, _main

    with socket.socket() as closed:  # a free port, closed again: connections are refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setattr(Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    settings = Settings(
        token=GOOD_TOKEN, db_path=tmp_path / "t.db", dev_guild_id=None, log_level="INFO"
    )
    caplog.set_level(logging.DEBUG)
    for sync_only in (False, True):
        caplog.clear()
        assert await _main(settings, sync_only=sync_only) == ExitCode.UNREACHABLE == 4
        line = one_line_without_traceback(caplog)
        assert line.startswith("Can't reach Discord (") and f"127.0.0.1:{port}" in line
        assert GOOD_TOKEN not in caplog.text


def test_the_exit_codes_are_distinct() -> None:
    from bot.discord.app import ExitCode

    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 4]


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop is not installed on Windows")
def test_the_bot_runs_on_uvloop() -> None:
    import uvloop

    from bot.discord.app import loop_factory

    assert loop_factory() is uvloop.new_event_loop


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop is not installed on Windows")
@pytest.mark.asyncio
async def test_async_tests_run_on_the_bots_event_loop() -> None:
    import asyncio

    import uvloop

    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
