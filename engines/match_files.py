"""Match files read back into our actions: ``.mat`` (backgammon, or Nannon with a
``; [Variation "Nannon"]`` header) and checkers PDN, ours (:mod:`engines.exports`) or other
programs'.

Every record is replayed on our engine as it is read, so a file that our rules disagree with
(an illegal play, a take with no double) is a :class:`MatchFileError` naming the line.

``.mat``: who acts is the engine's to say (the side on roll rolls and doubles, the other side
answers), except where the file must say it: the opening roll's winner (the column its record
is in: player 0 left, player 1 right) and who won a game that no play or pass ended (a
resignation, read as gnubg reads it: ``n / cube`` games, at least a single). A Nannon double
before a game's first roll is the Nannon ruling's double after a tied opening roll, which the
file doesn't write: a tie is put back in front of it. Read as gnubg does: ``25`` is the bar,
``0`` off, ``*`` a hit, an empty play a roll that can't be played; ``(Crawford)`` or other
marks on a score line are ignored (the engine knows the Crawford game from the scores).

PDN: each game's moves; a result that the moves don't reach is a resignation (or an agreed
draw). The match length isn't in a PDN: it is the smallest that the results finish, or one more
than the leader's score when the last game is unfinished (``*``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engines import new_match
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.errors import GameError
from engines.spec import SPECS
from engines.values import ResignLevel

__all__ = [
    "NOT_A_MATCH_FILE",
    "MatchFile",
    "MatchFileError",
    "match_file_format",
    "read_mat",
    "read_match_file",
    "read_pdn",
]


class MatchFileError(ValueError):
    """The file is not a match we can read, or our rules disagree with it; says where."""


@dataclass(frozen=True, slots=True)
class MatchFile:
    """A match read from a file: replaying ``actions`` under ``rules`` rebuilds it."""

    kind: GameKind
    rules: MatchRules
    actions: tuple[Action, ...]
    names: tuple[str, str]


_HEADER = re.compile(r'^\s*;\s*\[\s*(\w[\w ]*?)\s+"(.*)"\s*\]')
_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match", re.I)
_GAME = re.compile(r"^\s*Game\s+(\d+)", re.I)
_ROW = re.compile(r"^\s*\d+\)")
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)(?:\s*\([^)]*\)|\s*\*)?\s+(.*?)\s*:\s*(\d+)")
_WORDS = r"(?:Doubles|Takes|Accepts|Drops|Passes|Rejects|Wins)\b"
_RECORD = re.compile(
    r"(?P<roll>[1-6]{1,2}):(?P<play>(?:[ \t]+(?![1-6]{1,2}:|" + _WORDS + r")[^\s:]+)*)"
    r"|(?P<double>Doubles\s*=>\s*\d+)|(?P<take>Takes|Accepts)|(?P<drop>Drops|Passes|Rejects)"
    r"|(?P<wins>Wins\s+(?P<points>\d+)\s+points?)",
    re.I,
)
_RIGHT_COLUMN = 30  # a record starting at or after this column is player 1's (gnubg: 33)


def _phase(match: GameMatch) -> Phase:
    """The phase, read afresh (an action in between changes it; mypy would keep it narrowed)."""
    return match.phase


def _error(number: int, message: str) -> MatchFileError:
    return MatchFileError(f"line {number}: {message}")


def _mat_play(text: str) -> str:
    """A ``.mat`` play in our notation: ``25`` the bar, ``0`` off (backgammon only)."""
    out = []
    for token in text.split():
        parts = token.split("/")
        if all(re.fullmatch(r"\d+\*?(\(\d\))?", p) for p in parts):
            mapped = []
            for part in parts:
                digits = re.match(r"\d+", part)
                assert digits is not None
                value = int(digits[0])
                name = "bar" if value == 25 else "off" if value == 0 else str(value)
                mapped.append(name + part[digits.end() :])
            token = "/".join(mapped)
        out.append(token)
    return " ".join(out)


class _MatReader:
    def __init__(self, kind: GameKind, rules: MatchRules) -> None:
        self.kind = kind
        self.match: GameMatch = new_match(kind, rules, recorded=True)
        self.nannon = kind is GameKind.NANNON

    def apply(self, number: int, action: Action) -> None:
        try:
            self.match.apply(action)
        except GameError as exc:
            raise _error(number, f"{type(action).__name__.lower()}: {exc}") from None

    def record(self, number: int, found: re.Match[str], player: int, game: int) -> None:
        match = self.match
        if found["wins"]:
            if match.game_number == game and match.phase is not Phase.MATCH_OVER:
                self.resignation(number, player, int(found["points"]))
            return
        if match.phase is Phase.MATCH_OVER:
            raise _error(number, "a record after the end of the match")
        if match.game_number != game:
            raise _error(number, f"game {game} is over already: {found[0].strip()!r}")
        if found["roll"]:
            self.roll(number, found["roll"], found["play"] or "", player)
        elif found["double"]:
            if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
                if not self.nannon:
                    raise _error(number, "a double before the opening roll")
                # The Nannon ruling: a double after a tied opening roll (the tie isn't written).
                self.apply(number, OpeningRoll(None, (1, 1)))
                self.apply(number, Double(player))
            else:
                self.apply(number, Double(match.turn))
        elif found["take"] or found["drop"]:
            actor = match.actor if match.actor is not None else player
            self.apply(number, Take(actor) if found["take"] else Drop(actor))

    def roll(self, number: int, dice_text: str, play: str, player: int) -> None:
        match = self.match
        dice = tuple(int(d) for d in dice_text)
        count = SPECS[self.kind].dice_count
        if len(dice) != count:
            raise _error(number, f"{dice_text!r} is not a roll of {count} dice")
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            if self.nannon:  # the winner plays the difference of the dice
                high, low = dice[0] + 1, 1
                if high > 6:
                    raise _error(number, f"an opening roll's difference is 1 to 5, not {dice[0]}")
            else:
                high, low = max(dice), min(dice)
                if high == low:
                    raise _error(number, "an opening roll can't be a double")
            self.apply(number, OpeningRoll(None, (high, low) if player == 0 else (low, high)))
        elif match.phase is Phase.ROLL:
            self.apply(number, Roll(match.turn, dice))
        else:
            raise _error(number, f"a roll of {dice_text} when nobody may roll ({match.phase})")
        text = play.strip()
        if _phase(match) is not Phase.MOVE:  # the roll could not be played: the turn passed
            if text:
                raise _error(number, f"{dice_text}: {text} can't be played: no legal move")
            return
        if not text:
            if len(match.legal_moves()) > 1 or not match.rules.auto_pass:
                raise _error(number, f"the roll {dice_text} has a legal play, none is written")
            text = match.legal_moves().notation[0]
        self.apply(number, Move(match.turn, text if self.nannon else _mat_play(text)))

    def resignation(self, number: int, winner: int, points: int) -> None:
        match = self.match
        cube = match.cube.value if match.cube is not None else 1
        levels = SPECS[self.kind].resign_levels
        level = max(1, min(int(levels[-1]), points // cube))
        if match.phase in (Phase.CUBE_OFFERED, Phase.RESIGN_OFFERED):
            raise _error(number, f"a game ends with a {match.phase.value.replace('_', ' ')}")
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            self.apply(number, OpeningRoll(None, (2, 1)))
            if _phase(match) is Phase.MOVE:
                self.apply(number, Move(match.turn, match.legal_moves().notation[0]))
        self.apply(number, Resign(1 - winner, ResignLevel(level)))
        self.apply(number, AcceptResign(winner))


def read_mat(text: str) -> MatchFile:
    """A ``.mat`` match (backgammon, or Nannon by its variation header); MatchFileError for
    anything we can't read or our rules refuse."""
    headers: dict[str, str] = {}
    lines = text.splitlines()
    length: int | None = None
    for line in lines:
        header = _HEADER.match(line)
        if header is not None:
            headers[header[1].strip().lower()] = header[2]
        found = _LENGTH.match(line)
        if found is not None and length is None:
            length = int(found[1])
    if length is None:
        raise MatchFileError("not a .mat file: no 'N point match' line")
    variation = headers.get("variation", "").strip().lower()
    kinds = {(s.mat_variation or "").lower(): s.kind for s in SPECS.values() if s.mat_variation}
    kinds[""] = kinds["backgammon"] = GameKind.BACKGAMMON
    if variation not in kinds:
        raise MatchFileError(f"a .mat of {headers['variation']!r}, not backgammon or Nannon")
    kind = kinds[variation]
    rules = MatchRules(
        length=length,
        cube=headers.get("cubelimit", "").strip() != "1",
        crawford=headers.get("crawford", "On").strip().lower() != "off",
        jacoby=length == 0 and headers.get("jacoby", "Off").strip().lower() == "on",
    )
    try:
        reader = _MatReader(kind, rules)
    except GameError as exc:
        raise MatchFileError(f"a {length} point {SPECS[kind].title} match: {exc}") from None
    names = (headers.get("player 1", ""), headers.get("player 2", ""))
    game = 0
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith(";") or _LENGTH.match(line):
            continue
        started = _GAME.match(line)
        if started is not None:
            game = int(started[1])
            if game != reader.match.game_number or reader.match.phase is Phase.MATCH_OVER:
                raise _error(
                    number,
                    f"game {game} where the match is at game "
                    f"{reader.match.game_number} ({reader.match.phase.value})",
                )
            continue
        if game == 0:
            continue
        score = _SCORE.match(line)
        row = _ROW.match(line)
        if row is None and score is not None and "Wins" not in line:
            if not names[0]:
                names = (score[1], score[3])
            continue
        if row is None and not re.search(r"\bWins\b", line, re.I):
            if line.strip():
                raise _error(number, f"can't read {line.strip()[:40]!r}")
            continue
        start = row.end() if row is not None else 0
        for found in _RECORD.finditer(line, start):
            column = found.start()
            player = 1 if column >= (_RIGHT_COLUMN if row is not None else 20) else 0
            reader.record(number, found, player, game)
        rest = _RECORD.sub("", line[start:]).strip()
        if rest:
            raise _error(number, f"can't read {rest[:40]!r}")
    if game == 0:
        raise MatchFileError("no game in the file")
    return MatchFile(kind, rules, tuple(reader.match.actions), _names(names))


def _names(names: tuple[str, str]) -> tuple[str, str]:
    return (names[0] or "Player 1", names[1] or "Player 2")


_PDN_TAG = re.compile(r'^\s*\[(\w+)\s+"(.*)"\s*\]\s*$')
_PDN_RESULTS = {"1-0": 0, "0-1": 1, "2-0": 0, "0-2": 1, "1/2-1/2": None, "1-1": None, "*": -1}


def read_pdn(text: str) -> MatchFile:
    """A checkers match of one or more PDN games (seat 0 is game 1's Black, the seats swap
    colours each game as in our matches); MatchFileError for anything we can't read."""
    games: list[tuple[int, dict[str, str], list[tuple[int, str]]]] = []
    tags: dict[str, str] = {}
    tokens: list[tuple[int, str]] = []
    start = 0

    def close() -> None:
        if tags or tokens:
            games.append((start, dict(tags), list(tokens)))
        tags.clear()
        tokens.clear()

    comment = False
    for number, line in enumerate(text.splitlines(), 1):
        tag = _PDN_TAG.match(line)
        if tag is not None and not comment:
            if tokens:
                close()
            if not tags:
                start = number
            tags[tag[1].lower()] = tag[2]
            continue
        for word in re.findall(r"\{|\}|[^\s{}]+", line):
            if word == "{":
                comment = True
            elif word == "}":
                comment = False
            elif not comment:
                if not tags and not tokens:
                    start = number
                tokens.append((number, word))
    close()
    if not games:
        raise MatchFileError("not a PDN file: no game in it")
    names = ("", "")
    plan: list[tuple[int, list[tuple[int, str]], int | None]] = []  # (line, moves, result)
    for index, (first, game_tags, words) in enumerate(games):
        if "fen" in game_tags or game_tags.get("setup") == "1":
            raise MatchFileError(
                f"line {first}: a game from a set-up position (FEN) can't be replayed as a match"
            )
        black, white = game_tags.get("black", ""), game_tags.get("white", "")
        if index == 0:
            names = (black, white)
        result_text = game_tags.get("result", "*")
        moves: list[tuple[int, str]] = []
        for number, word in words:
            if word in _PDN_RESULTS:
                result_text = word
                continue
            word = re.sub(r"^\d+\.(\.\.)?", "", word).rstrip("!?")
            if word and not re.fullmatch(r"\d+\.*", word):
                moves.append((number, word))
        if result_text not in _PDN_RESULTS:
            raise MatchFileError(
                f"line {first}: a result is 1-0, 0-1, 1/2-1/2 or *, not {result_text!r}"
            )
        colour_result = _PDN_RESULTS[result_text]
        black_seat = index % 2
        result: int | None
        if colour_result == -1:
            result = -1
        elif colour_result is None:
            result = None
        else:
            result = black_seat if colour_result == 0 else 1 - black_seat
        plan.append((first, moves, result))
    scores = [0.0, 0.0]
    before = 0.0
    for _, _, result in plan:
        before = max(scores)
        if result is None:
            scores = [s + 0.5 for s in scores]
        elif result >= 0:
            scores[result] += 1
    top = max(scores)
    length = math.floor(top)
    if plan[-1][2] == -1 or length <= before or length < 1:
        length = math.floor(top) + 1
    match = new_match(GameKind.CHECKERS, MatchRules(length=length))
    for game, (first, moves, result) in enumerate(plan, 1):
        if match.phase is Phase.MATCH_OVER:
            raise MatchFileError(f"line {first}: a game after the end of the match")
        for number, word in moves:
            try:
                match.apply(Move(match.turn, word))
            except GameError as exc:
                raise _error(number, f"game {game}, {word}: {exc}") from None
        if match.game_number != game or _phase(match) is Phase.MATCH_OVER:  # moves ended it
            continue
        if result == -1:
            if game != len(plan):
                raise MatchFileError(f"line {first}: game {game} has no result")
            continue
        try:
            if result is None:
                match.apply(OfferDraw(match.turn))
                match.apply(AcceptDraw(1 - match.turn))
            else:
                match.apply(Resign(1 - result))
        except GameError as exc:
            raise MatchFileError(f"line {first}: game {game}'s result: {exc}") from None
    return MatchFile(GameKind.CHECKERS, match.rules, tuple(match.actions), _names(names))


_MAT_SIGN = re.compile(r"^\s*(\d+\s+point\s+match\b|Game\s+\d+\s*$)", re.I | re.M)
_PDN_SIGN = re.compile(r'^\s*\[\w+\s+"|(?:^|\s)1\.\s*\d{1,2}[-x]\d{1,2}\b', re.M)
NOT_A_MATCH_FILE = (
    "not a match file: a .mat (backgammon or Nannon) has an 'N point match' line, a PDN "
    '(checkers) [Event "..."] tags or moves like 1. 11-15'
)


def match_file_format(text: str) -> str | None:
    """``"mat"`` or ``"pdn"`` by the content (whatever the file's name), None for neither."""
    if _MAT_SIGN.search(text):
        return "mat"
    if _PDN_SIGN.search(text):
        return "pdn"
    return None


def read_match_file(name: str, text: str) -> MatchFile:
    """A ``.mat`` or a PDN, told apart by the content (``name`` is for the messages only);
    MatchFileError for a file that is neither."""
    found = match_file_format(text)
    if found == "mat":
        return read_mat(text)
    if found == "pdn":
        return read_pdn(text)
    raise MatchFileError(NOT_A_MATCH_FILE)
