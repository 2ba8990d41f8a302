"""A reader for backgammon ``.mat`` files (gnubg's or our exporter's) into our actions: for the
analysis tests and benchmark, which replay gnubg self-play matches through our engine.

Only what gnubg and our exporter write: per game numbered rows of records (``51: 13/8 24/23``,
``Doubles => 2``, ``Takes``, ``Drops``), player 0 on the left; a ``Wins n points`` that no move
or drop explains is a resignation (gnubg's own reading).
"""

from __future__ import annotations

import re
from pathlib import Path

from engines import new_match
from engines.actions import (
    AcceptResign,
    Action,
    Double,
    Drop,
    Move,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.base import MatchRules, Phase
from engines.values import ResignLevel

_RECORD = re.compile(
    r"(?P<roll>[1-6]{2}):(?P<moves>(?:\s+(?:\d{1,2}/\d{1,2}\*?))*)"
    r"|(?P<double>Doubles\s+=>\s+\d+)|(?P<take>Takes)|(?P<drop>Drops)"
    r"|(?P<wins>Wins\s+(?P<points>\d+)\s+points?)"
)
_ROW = re.compile(r"^\s*\d+\)")
_LEFT_END = 33  # a row's left column (player 0) ends here in gnubg's layout


def _point(word: str) -> str:
    value = int(word.rstrip("*"))
    return "bar" if value == 25 else "off" if value == 0 else str(value)


def _play(moves: str) -> str:
    parts = []
    for token in moves.split():
        src, dst = token.rstrip("*").split("/")
        parts.append(f"{_point(src)}/{_point(dst)}")
    return " ".join(parts)


def read_mat(text: str) -> tuple[MatchRules, list[Action], tuple[str, str]]:
    """(rules, actions, names) of a backgammon ``.mat``; ValueError where it disagrees with our
    rules (an illegal play, a game that doesn't end as written)."""
    length_found = re.search(r"^\s*(\d+) point match", text, re.M)
    if length_found is None:
        raise ValueError("no 'N point match' line")
    crawford = '[Crawford "Off"]' not in text
    rules = MatchRules(length=int(length_found[1]), crawford=crawford)
    match = new_match("backgammon", rules)
    actions: list[Action] = []
    names = ("", "")

    def apply(action: Action) -> None:
        match.apply(action)
        actions.append(action)

    lines = text.splitlines()
    for n, line in enumerate(lines):
        if re.match(r"^\s*Game \d+", line) and n + 1 < len(lines):
            score = re.match(r"^\s*(.*?)\s*:\s*\d+\s+(.*?)\s*:\s*\d+\s*$", lines[n + 1])
            if score is not None and not names[0]:
                names = (score[1], score[2])
            continue
        row = _ROW.match(line)
        if row is None and "Wins" not in line:
            continue
        start = row.end() if row is not None else 0
        for found in _RECORD.finditer(line, start):
            # The left column (player 0) ends at column 33; a result line's "Wins" is indented
            # 6 for player 0 and 34 for player 1.
            player = 0 if found.start() < (_LEFT_END if row is not None else 20) else 1
            if found["roll"]:
                dice = (int(found["roll"][0]), int(found["roll"][1]))
                if match.phase is Phase.OPENING:
                    high, low = max(dice), min(dice)
                    apply(OpeningRoll(None, (high, low) if player == 0 else (low, high)))
                else:
                    apply(Roll(player, dice))
                play = _play(found["moves"] or "")
                if play:
                    apply(Move(player, play))
            elif found["double"]:
                apply(Double(player))
            elif found["take"]:
                apply(Take(player))
            elif found["drop"]:
                apply(Drop(player))
            elif found["wins"] and match.phase in (Phase.ROLL, Phase.MOVE):
                winner = player
                points = int(found["points"])
                level = max(1, min(3, points // match.cube.value))
                apply(Resign(1 - winner, ResignLevel(level)))
                apply(AcceptResign(winner))
    return rules, list(match.actions), names  # the engine's own notation


def read_mat_file(path: Path) -> tuple[MatchRules, list[Action], tuple[str, str]]:
    return read_mat(path.read_text(encoding="utf-8"))
