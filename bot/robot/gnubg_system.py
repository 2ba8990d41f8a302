"""Which GNU Backgammon the robot uses: the ``gnubg`` wheel, or the system's program.

The wheel exists only for CPython 3.11-3.13 on Linux x86_64, Windows AMD64 and macOS 14+ arm64.
Elsewhere (a Raspberry Pi, ARM clouds, Python 3.14, Docker on arm64) the robot uses GNU
Backgammon installed from the system's packages (Debian's ``gnubg``, Homebrew's, the Windows
installer): :class:`SystemGnubg` starts ONE long-lived ``gnubg -t -q -p gnubg_bridge.py`` per
worker process and answers the wheel's calls through it (:mod:`bot.robot.gnubg_bridge`), so
:mod:`bot.robot.gnubg_brain` calls it as it calls the wheel. Measured costs and figures:
``benchmarks/gnubg_routes.py``, ``docs/robot.md``.

``TABLEBOT_GNUBG`` chooses: ``wheel``, ``system``, or unset (the wheel where it is installed,
else the program). ``TABLEBOT_GNUBG_PROGRAM`` names the program where it is not found.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from bot.robot.gnubg_bridge import tuples

__all__ = [
    "INSTALL_HINT",
    "BridgeError",
    "SystemGnubg",
    "find_program",
    "load",
    "route_possible",
]

CHOICE = "TABLEBOT_GNUBG"
PROGRAM = "TABLEBOT_GNUBG_PROGRAM"

INSTALL_HINT = (
    "no backgammon engine (GNU Backgammon) found: backgammon against the robot, hints, analysis "
    "and puzzles are off. Install it: `sudo apt install gnubg` (Debian, Ubuntu, Raspberry Pi "
    "OS), `brew install gnubg` (macOS), or the Windows installer from "
    "https://www.gnu.org/software/gnubg/ (then set TABLEBOT_GNUBG_PROGRAM to its gnubg-cli.exe)"
)

_PLACES = (
    "/usr/games/gnubg",  # Debian and Ubuntu, not on every PATH
    "/opt/homebrew/bin/gnubg",
    "/usr/local/bin/gnubg",
    r"C:\Program Files (x86)\gnubg\gnubg-cli.exe",
    r"C:\Program Files\gnubg\gnubg-cli.exe",
)
_BRIDGE = Path(__file__).with_name("gnubg_bridge.py")


class BridgeError(RuntimeError):
    """The system's GNU Backgammon did not start, died, or refused a call."""


def _choice() -> str:
    choice = os.environ.get(CHOICE, "").strip().lower()
    return choice if choice in ("wheel", "system") else "auto"


def find_program() -> str | None:
    """The system's GNU Backgammon program, or None."""
    named = os.environ.get(PROGRAM, "").strip()
    if named:
        return named if os.path.isfile(named) else None
    for name in ("gnubg", "gnubg-cli"):
        found = shutil.which(name)
        if found:
            return found
    return next((place for place in _PLACES if os.path.isfile(place)), None)


def route_possible() -> bool:
    """Whether a GNU Backgammon exists for :func:`load` (checked without starting it)."""
    choice = _choice()
    wheel = choice != "system" and importlib.util.find_spec("gnubg") is not None
    return wheel or (choice != "wheel" and find_program() is not None)


def load() -> tuple[Any, str]:
    """The ``gnubg`` module to call (the wheel, or :class:`SystemGnubg`) and what it is, for
    the log. ImportError (:data:`INSTALL_HINT`) when there is none."""
    choice = _choice()
    if choice != "system":
        try:
            import gnubg
        except ImportError:
            if choice == "wheel":
                raise
        else:
            return gnubg, f"the gnubg wheel {importlib.metadata.version('gnubg')}"
    program = find_program()
    if program is None:
        raise ImportError(INSTALL_HINT)
    bridge = SystemGnubg(program)
    return bridge, f"{bridge.version} at {program} (the system's program)"


class _GoneError(BridgeError):
    """The program stopped answering."""


class SystemGnubg:
    """The wheel's ``gnubg`` module, answered by one ``gnubg`` child process: the calls
    :mod:`bot.robot.gnubg_brain` and :mod:`bot.robot.gnubg_analysis` make, with the wheel's
    arguments and answers (tuples, dicts). ``command`` prints what the command printed to file
    descriptor 1, as the wheel does."""

    def __init__(self, program: str) -> None:
        self.program = program
        self._settings: dict[str, str] = {}  # the "set" commands given, replayed on a restart
        self.version: str = self._start()

    def _start(self) -> str:
        """Start the program; its version."""
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 (kept open: the child writes to it)
        env = {**os.environ, "TABLEBOT_GNUBG_BRIDGE_FDS": f"{requests_read},{answers_write}"}
        try:
            self._child = subprocess.Popen(
                [self.program, "-t", "-q", "-p", str(_BRIDGE)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._errors,
                pass_fds=(requests_read, answers_write),
                env=env,
            )
        except OSError as exc:
            os.close(requests_write)
            os.close(answers_read)
            raise BridgeError(f"could not start {self.program}: {exc}") from exc
        finally:
            os.close(requests_read)
            os.close(answers_write)
        self._requests: IO[str] = os.fdopen(requests_write, "w", encoding="utf-8")
        self._answers: IO[str] = os.fdopen(answers_read, "r", encoding="utf-8")
        version: str = self._answer()
        for text in self._settings.values():
            self._ask("command", (text,))
        return version

    def _answer(self) -> Any:
        line = self._answers.readline()
        if not line:
            self._errors.seek(0)
            told = self._errors.read().decode("utf-8", "replace").strip()[-400:]
            raise _GoneError(f"{self.program} stopped answering: {told or 'no message'}")
        answer = json.loads(line)
        if "error" in answer:
            raise BridgeError(f"{self.program}: {answer['error']}")
        return answer["value"]

    def _ask(self, name: str, args: tuple[Any, ...]) -> Any:
        try:
            self._requests.write(json.dumps({"call": name, "args": args}) + "\n")
            self._requests.flush()
        except OSError as exc:
            raise _GoneError(f"{self.program} is gone: {exc}") from exc
        return tuples(self._answer())

    def call(self, name: str, *args: Any) -> Any:
        """``gnubg.<name>(*args)`` in the program. A program that died (killed, out of memory)
        is started again once, with the settings it was given."""
        try:
            return self._ask(name, args)
        except _GoneError:
            self.close()
            self._start()
            return self._ask(name, args)

    def command(self, text: str) -> None:
        words = text.split()
        if len(words) > 2 and words[0] == "set" and words[1] != "gnubgid":
            self._settings[" ".join(words[:-1])] = text
        printed: str = self.call("command", text)
        sys.stdout.flush()
        os.write(1, printed.encode("utf-8"))

    def findbestmoves(self, *args: Any) -> list[dict[str, Any]]:
        return list(self.call("findbestmoves", *args))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.call(name, *args)

    def close(self) -> None:
        """Stop the program (it also stops when this process ends: its requests pipe closes)."""
        with contextlib.suppress(OSError):  # it was gone
            self._requests.close()
        try:
            self._child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        self._answers.close()
        self._errors.close()
