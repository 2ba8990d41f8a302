"""The script the system's GNU Backgammon runs (``gnubg -t -q -p gnubg_bridge.py``): it answers
:mod:`bot.robot.gnubg_system`'s calls with the program's embedded ``gnubg`` module.

It runs in the program's own Python (3.11 in Debian bookworm's 1.07.001), so it imports nothing
of the project. Requests come one JSON line at a time on the file descriptor named first in
``TABLEBOT_GNUBG_BRIDGE_FDS``, answers go on the second: ``{"call": name, "args": [...]}`` is
answered ``{"value": ...}`` or ``{"error": text}``. The program prints to its stdout, so
``command`` answers with what the command printed.

Where the 1.07 module differs from the wheel's (1.1), this gives the wheel's answer:

- ``findbestmoves(board, cubeinfo, evalcontext, dice)`` is missing: the position goes in as a
  GNUbg ID, the chequer-play evaluation is set from ``evalcontext``, and ``hint()`` ranks the
  plays (gnubg's own search and move filters, as the hint command). Each play's move tuple is
  written out in full (the wheel cuts it at the first bear-off), and the evaluation settings
  are put back as they were;
- ``cubeinfo()`` without arguments needs a game in 1.07: it is the wheel's default, a money
  game with the cube centred, player 0 on roll.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
import tempfile
from typing import Any

_SETTINGS = ("plies", "cubeful", "prune", "deterministic", "noise")
_SETTING_COMMAND = re.compile(
    r"^\s*set\s+evaluation\s+chequerplay\s+evaluation\s+(plies|cubeful|prune|deterministic|noise)"
    r"\s+(\S+)\s*$",
    re.IGNORECASE,
)
_START = (
    ("plies", "0"),
    ("cubeful", "on"),
    ("prune", "on"),
    ("deterministic", "on"),
    ("noise", "0.000000"),
)
_libc: Any = None  # C's library, to flush the program's stdout (set in serve)
chequer: dict[str, Any] = {}  # the chequer-play evaluation as last set (by anyone)


def _flag(word: str) -> int:
    return 1 if word.lower() in ("on", "1", "yes", "true") else 0


def command(text: str) -> str:
    """Run a gnubg command; what it printed (as gnubg_brain.run_command: this script can't
    import the project)."""
    found = _SETTING_COMMAND.match(text)
    if found:
        name, value = found[1].lower(), found[2]
        if name == "noise":
            chequer[name] = float(value)
        else:
            chequer[name] = int(value) if name == "plies" else _flag(value)
    sys.stdout.flush()
    with tempfile.TemporaryFile() as out:
        saved = os.dup(1)
        try:
            os.dup2(out.fileno(), 1)
            try:
                gnubg.command(text)
            finally:
                _libc.fflush(None)
                os.dup2(saved, 1)
        finally:
            os.close(saved)
        out.seek(0)
        return out.read().decode("utf-8", "replace")


def _set_chequer(context: dict[str, Any]) -> None:
    for name in _SETTINGS:
        value = context[name]
        if chequer.get(name) != value:
            if name == "noise":
                word = f"{float(value):.6f}"
            else:
                word = str(int(value)) if name == "plies" else "on" if value else "off"
            command(f"set evaluation chequerplay evaluation {name} {word}")


def _steps(text: str) -> list[int]:
    """A play in gnubg's notation as the single moves (from, to, from, to, ...)."""
    return [point for pair in gnubg.parsemove(text) for point in pair]


def findbestmoves(
    board: Any, cubeinfo: dict[str, Any], context: dict[str, Any], dice: Any
) -> list[dict[str, Any]]:
    """The wheel's ``findbestmoves``: every legal play, best first, with its score."""
    before = dict(chequer)
    info = {"dice": tuple(dice), "turn": cubeinfo["move"], "resigned": 0, "doubled": 0}
    info["gamestate"] = 1
    said = command("set gnubgid " + gnubg.gnubgid(board, cubeinfo, info))
    if "Position ID" not in said and "GNUbg ID" not in said:
        raise ValueError("gnubg refused the position: " + said.strip()[-200:])
    _set_chequer(context)
    try:
        answer = gnubg.hint(100000)
    except Exception as exc:  # no legal play: the wheel answers an empty list
        if "no legal moves" in str(exc).lower() or "no moves" in str(exc).lower():
            return []
        raise
    finally:
        if before:
            _set_chequer(before)
    return [{"move": _steps(entry["move"]), "score": entry["equity"]} for entry in answer["hint"]]


def cubeinfo(*args: Any) -> Any:
    return gnubg.cubeinfo(*(args or (1, -1, 0, 0, (0, 0), 0, 0)))


CALLS = {
    "command": command,
    "findbestmoves": findbestmoves,
    "cubeinfo": cubeinfo,
}


def tuples(value: Any) -> Any:
    """JSON's lists as tuples: the C module expects them, and the wheel answers them (used on
    both sides of the pipe)."""
    if isinstance(value, list):
        return tuple(tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: tuples(item) for key, item in value.items()}
    return value


def serve() -> None:
    global _libc
    _libc = ctypes.cdll.msvcrt if os.name == "nt" else ctypes.CDLL(None)
    requests_fd, answers_fd = (int(fd) for fd in os.environ["TABLEBOT_GNUBG_BRIDGE_FDS"].split(","))
    requests = os.fdopen(requests_fd, "r", encoding="utf-8")
    answers = os.fdopen(answers_fd, "w", encoding="utf-8")
    for name, word in _START:  # known values, put back after each findbestmoves
        command(f"set evaluation chequerplay evaluation {name} {word}")
    version = command("show version").strip().splitlines()
    answers.write(json.dumps({"value": version[0] if version else "GNU Backgammon"}) + "\n")
    answers.flush()
    for line in requests:
        request = json.loads(line)
        try:
            function: Any = CALLS.get(request["call"]) or getattr(gnubg, request["call"])
            answer = {"value": function(*tuples(request["args"]))}
        except Exception as exc:  # told to the caller, who raises it
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":  # as the program runs it (never imported by the project)
    import gnubg  # the program's embedded module

    serve()
