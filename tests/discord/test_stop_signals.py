"""`tablebot` stopped by SIGTERM (docker stop) or SIGINT (Ctrl-C) under load: a real process.

The bot runs as `python -m bot` would, in a subprocess of its own process group, against the
fake Discord served by this test (discord.py's endpoints pointed at it before
`bot.__main__.main` runs). Members send `/challenge` as fast as the bot answers; once some are
answered the test signals the process (SIGTERM to it alone, as docker stop; SIGINT to its whole
group, workers included, as Ctrl-C in a terminal) and keeps sending. Then:

- it exits 0 within 10 s (docker stop's SIGKILL comes after 10 s), with no traceback and no
  voice warning, saying why it stopped;
- every challenge it acknowledged (its invitation posted) is in the database, with the
  invitation's message id, the handler's last write after the answer: the work in flight was
  finished, not cut;
- the store was closed: SQLite's write-ahead log is checkpointed and removed on a clean close.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest
from fakediscord import TOKEN, FakeDiscord, InteractionHandle, Member

from bot.storage.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
MEMBERS = 8
SIGNAL_AFTER = 24  # acknowledged challenges before the signal

# discord.py pointed at the fake Discord on this port, then the real command line.
LAUNCHER = r"""
import sys
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

port = int(sys.argv[1])
Route.BASE = f"http://127.0.0.1:{port}/api/v10"
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway/")
from bot.__main__ import main

raise SystemExit(main([]))
"""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class BotProcess:
    """The bot's process and what it logs (stderr), read as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._changed = asyncio.Event()  # replaced by a fresh one at every line, and at the end
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))
            self._changed.set()
            self._changed = asyncio.Event()
        self._changed.set()

    async def wait_for(self, text: str) -> None:
        """Until a line logged contains ``text`` (failing if the process ends first)."""
        async with asyncio.timeout(60):
            while True:
                changed = self._changed
                if any(text in line for line in self.lines):
                    return
                assert not self.reader.done(), f"no {text!r} in:\n{self.log}"
                await changed.wait()

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


async def start_bot(fake: FakeDiscord, tmp_path: Path) -> BotProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TABLEBOT_"))}
    env.update(
        DISCORD_TOKEN=TOKEN,
        TABLEBOT_DB=str(tmp_path / "t.db"),
        DEV_GUILD_ID=str(fake.guild.id),
        LOG_LEVEL="INFO",
        PYTHONPATH=str(ROOT),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LAUNCHER,
        str(fake.port),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    return BotProcess(process)


def invitation_of(handle: InteractionHandle) -> tuple[int, int] | None:
    """(challenge id, invitation message id) when the bot acknowledged the challenge."""
    response = handle.state.response
    message = handle.state.original
    if response is None or response.get("type") != 4 or message is None or message.ephemeral:
        return None
    for custom_id in message.custom_ids:
        if found := re.fullmatch(r"tb:c:accept:(\d+)", custom_id):
            return int(found[1]), message.id
    return None


@pytest.mark.asyncio
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_under_load_finishes_the_work_in_flight_and_exits_0(
    tmp_path: Path, signum: signal.Signals
) -> None:
    fake = FakeDiscord()
    await fake.start_server()
    bot: BotProcess | None = None
    try:
        members = [await fake.add_member(f"player{n}") for n in range(MEMBERS)]
        bot = await start_bot(fake, tmp_path)
        await bot.wait_for("logged in as")
        process = bot.process
        exited = asyncio.create_task(process.wait())
        handles: list[InteractionHandle] = []
        acknowledged = 0
        signalled = asyncio.Event()
        after_signal = 0

        async def answered(handle: InteractionHandle) -> bool:
            """Whether the bot answered before its process ended."""
            response = asyncio.create_task(handle.response(timeout=30))
            await asyncio.wait({response, exited}, return_when=asyncio.FIRST_COMPLETED)
            if not response.done():
                response.cancel()
                return False
            return response.exception() is None

        async def load(member: Member) -> None:
            nonlocal acknowledged, after_signal
            while not exited.done():
                sent_after_signal = signalled.is_set()
                handle = await fake.slash("challenge", {"game": "nannon"}, by=member)
                handles.append(handle)
                after_signal += sent_after_signal
                if not await answered(handle) or sent_after_signal:
                    return
                if invitation_of(handle) is not None:
                    acknowledged += 1
                if acknowledged >= SIGNAL_AFTER and not signalled.is_set():
                    if signum is signal.SIGINT:  # Ctrl-C: the terminal's whole job
                        os.killpg(process.pid, signum)
                    else:  # docker stop: process 1 only
                        process.send_signal(signum)
                    signalled.set()

        await asyncio.gather(*(load(member) for member in members))
        async with asyncio.timeout(10):  # docker stop: SIGKILL after 10 s
            code = await exited
        await bot.reader
        assert code == 0, bot.log
    finally:
        if bot is not None and bot.process.returncode is None:
            bot.process.kill()
            await bot.process.wait()
        await fake.stop_server()

    assert after_signal > 0  # interactions kept coming after the signal
    assert f"{signum.name}: stopping" in bot.log
    assert "Traceback" not in bot.log and "voice" not in bot.log, bot.log
    invitations = dict(filter(None, map(invitation_of, handles)))
    assert len(invitations) >= SIGNAL_AFTER
    assert not (tmp_path / "t.db-wal").exists()  # the store was closed cleanly
    store = await SqliteStore.open(tmp_path / "t.db")
    try:
        rows = await store.raw_rows("SELECT id, message_id FROM challenges")
    finally:
        await store.close()
    stored = {row["id"]: row["message_id"] for row in rows}
    # Every acknowledged challenge is there, its invitation's id recorded after the answer.
    assert {cid: stored.get(cid) for cid in invitations} == invitations


@pytest.mark.asyncio
async def test_a_signal_during_start_up_stops_it_cleanly(tmp_path: Path) -> None:
    """SIGTERM while the bot is still starting (matches resumed, the gateway not yet ready):
    the start-up stops, the store closes, exit 0."""
    fake = FakeDiscord()
    await fake.start_server()
    bot: BotProcess | None = None
    try:
        bot = await start_bot(fake, tmp_path)
        await bot.wait_for("resumed 0 active matches")
        bot.process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(10):
            code = await bot.process.wait()
        await bot.reader
    finally:
        if bot is not None and bot.process.returncode is None:
            bot.process.kill()
            await bot.process.wait()
        await fake.stop_server()
    assert code == 0, bot.log
    assert "SIGTERM: stopping" in bot.log and "Traceback" not in bot.log, bot.log
    assert "logged in as" not in bot.log  # it never got as far as ready
    assert not (tmp_path / "t.db-wal").exists()
