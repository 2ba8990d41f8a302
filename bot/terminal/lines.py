"""What a typed line asks for: a command for the service, something of the terminal's own
(help, the board, a hint, the legal moves, quit), or nothing understood (said politely).

Pure: it reads the line and the view on the board and builds the command, with the version
shown; whether the command is allowed is the service's to say. Every match command can be typed
by its name in words (``decline draw`` is :class:`~bot.service.DeclineDraw`, ``claim win``
:class:`~bot.service.ClaimWin`), found by name as the Discord buttons find theirs, so a new verb
needs nothing here; the short words (``roll``, ``take``, ``accept`` ...) name the common ones.

>>> from types import SimpleNamespace
>>> view = SimpleNamespace(match_id=7, version=3, phase=Phase.ROLL, kind=GameKind.NANNON)
>>> read_line("Roll", view, 0, 1)
RollDice(match_id=7, guild_id=0, user_id=1, expected_version=3)
>>> read_line("h/3", view, 0, 1)
PlayMove(match_id=7, guild_id=0, user_id=1, expected_version=3, move='h/3')
>>> read_line("hint", view, 0, 1)
<Local.HINT: 'hint'>
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass
from typing import Any

from bot.service import MatchCommand, OfferResignation, PlayMove
from bot.service import commands as service_commands
from bot.terminal import wording
from engines.base import GameKind, Phase
from engines.match import NO_MOVE
from engines.spec import spec_of

__all__ = ["Asked", "Local", "Unclear", "command_named", "read_line"]


class Local(enum.StrEnum):
    """What the terminal does itself."""

    HELP = "help"
    BOARD = "board"
    HINT = "hint"
    MOVES = "moves"
    QUIT = "quit"


@dataclass(frozen=True)
class Unclear:
    """Not understood: ``said`` tells the human why (the match is untouched)."""

    said: str


Asked = MatchCommand | Local | Unclear | None  # None: an empty line

LOCAL_WORDS: dict[str, Local] = {
    **{local.value: local for local in Local},
    "?": Local.HELP,
    "b": Local.BOARD,
    "h": Local.HINT,
    "m": Local.MOVES,
    "q": Local.QUIT,
    "exit": Local.QUIT,
}
# Short words for the common commands, by the command's name in words.
SHORT_WORDS: dict[str, str] = {
    "roll": "roll dice",
    "r": "roll dice",
    "double": "offer double",
    "d": "offer double",
    "take": "take double",
    "pass": "pass double",
    "drop": "pass double",
    "draw": "offer draw",
    "concede": "leave match",
}
# accept / decline answer the offer on the board: "accept" + its noun names the command.
OFFERS: dict[Phase, str] = {
    Phase.RESIGN_OFFERED: "resignation",
    Phase.DRAW_OFFERED: "draw",
}
_BASE_FIELDS = {f.name for f in dataclasses.fields(MatchCommand)}


def command_named(words: str) -> type[MatchCommand] | None:
    """The match command whose name ``words`` spell (``"decline draw"``: DeclineDraw) and
    that needs nothing more than the match and the player; None for any other words.

    >>> command_named("Decline  draw").__name__, command_named("play move"), command_named("x")
    ('DeclineDraw', None, None)
    """
    if not re.fullmatch(r"[a-z]+( [a-z]+)*", words := " ".join(words.lower().split())):
        return None
    found = getattr(service_commands, "".join(w.capitalize() for w in words.split()), None)
    if not (isinstance(found, type) and issubclass(found, MatchCommand)):
        return None
    extra = {f.name for f in dataclasses.fields(found)} - _BASE_FIELDS
    return None if found is MatchCommand or extra else found


def read_line(text: str, view: Any, guild_id: int, user_id: int) -> Asked:
    """What ``text`` asks of the match ``view`` shows (its ``match_id``, ``version``, ``phase``
    and ``kind``), for the player ``user_id``."""
    text = " ".join(text.split())
    lowered = text.lower()
    if not text:
        return None
    if lowered in LOCAL_WORDS:
        return LOCAL_WORDS[lowered]
    args = (view.match_id, guild_id, user_id)
    version = view.version
    word, _, rest = lowered.partition(" ")
    if word in ("accept", "decline") and not rest:
        if view.phase not in OFFERS:
            return Unclear(wording.NOTHING_TO_ANSWER)
        lowered = f"{word} {OFFERS[view.phase]}"
    if word == "resign":
        level = resign_level(view.kind, rest)
        if level is None:
            return Unclear(wording.bad_resign_level(view.kind, rest))
        return OfferResignation(*args, level=level, expected_version=version)
    named = command_named(SHORT_WORDS.get(lowered, lowered))
    if named is not None:
        return named(*args, expected_version=version)
    if lowered != NO_MOVE and not any(ch.isdigit() for ch in text):
        return Unclear(wording.UNKNOWN_INPUT.format(text=text[:40]))
    return PlayMove(*args, text, expected_version=version)


def resign_level(kind: GameKind, word: str) -> int | None:
    """A resignation level of the game, typed by its name ("gammon", "nannon") or the
    engine's; the cheapest when none is typed; None for anything else.

    >>> resign_level(GameKind.NANNON, "a nannon"), resign_level(GameKind.BACKGAMMON, "")
    (2, 1)
    """
    spec = spec_of(kind)
    word = word.strip().lower().removeprefix("a ")
    if not word:
        return int(min(spec.resign_levels))
    for level in spec.resign_levels:
        names = {level.name.lower(), spec.resign_level_name(level).lower().removeprefix("a ")}
        if word in names:
            return int(level)
    return None
