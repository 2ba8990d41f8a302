"""Backgammon: positions, legal plays, gnubg notation and IDs.

A :class:`Position` is seen from the side on roll, python-chess style: ``mine`` and ``theirs``
hold 26 counts each in that side's own numbering (1..24 points, 25 the bar, 0 borne off), so my
point p is the opponent's point 25 - p. Each :class:`Play` carries the position after it, seen
from the opponent, who is then on roll.

>>> start = Position.initial()
>>> start.id
'4HPwATDgc/ABMA'
>>> plays = start.legal_plays(3, 1)
>>> len(plays)
16
>>> play = Play.parse("8/5 6/5", start, (3, 1))
>>> str(play), play.position.pips()
('8/5 6/5', (167, 163))
>>> str(Play.parse("13/10 24/23", start, (3, 1)))
'24/23 13/10'
>>> Play.parse("24/18 13/11", start, (6, 1))
Traceback (most recent call last):
...
engines.errors.IllegalMoveError: That move is illegal: 24/18 13/11 is not possible with 6-1 \
(position 4HPwATDgc/ABMA)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from engines.base import GameKind, ResultKind
from engines.errors import AmbiguousMoveError, IllegalMoveError, InvalidNotationError
from engines.gnubg import decode_position_id, encode_position_id
from engines.spec import BACKGAMMON as SPEC

OFF = 0
BAR = 25
CHECKERS = 15
_START = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def _point_name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _show(text: str) -> str:
    """User input for an error message: cut short and without control characters."""
    text = "".join(ch if ch.isprintable() else "?" for ch in text[:60])
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True, slots=True)
class CheckerMove:
    """One checker moved by one die: ``src`` 25 is the bar, ``dst`` 0 is off; ``hit`` if it
    hit a blot on ``dst``.

    >>> str(CheckerMove(25, 22)), str(CheckerMove(6, 0)), str(CheckerMove(24, 21, hit=True))
    ('bar/22', '6/off', '24/21*')
    """

    src: int
    dst: int
    hit: bool = False

    def __post_init__(self) -> None:
        if not (1 <= self.src <= BAR and OFF <= self.dst < self.src and self.dst != BAR):
            raise ValueError(f"not a checker move: {self.src} to {self.dst}")
        if self.hit and self.dst == OFF:
            raise ValueError("bearing off cannot hit")

    def __str__(self) -> str:
        return f"{_point_name(self.src)}/{_point_name(self.dst)}{'*' if self.hit else ''}"


# Every possible CheckerMove made once, so move generation never constructs one.
_MOVES: dict[tuple[int, int, int], CheckerMove] = {
    (s, t, h): CheckerMove(s, t, bool(h))
    for s in range(1, 26)
    for t in range(0, s)
    if t != BAR
    for h in ((0, 1) if t else (0,))
}


class Outcome(NamedTuple):
    """How a finished game ended: who won (relative to the position), the kind, and its
    multiplier before the cube (1, 2 or 3)."""

    winner: Literal["mine", "theirs"]
    kind: ResultKind
    multiplier: int


@dataclass(frozen=True, slots=True)
class Position:
    """A backgammon position seen from the side on roll.

    >>> p = Position.from_id("4HPwATDgc/ABMA")
    >>> p == Position.initial(), p.pips(), p.is_over()
    (True, (167, 167), False)
    >>> p
    Position.from_id('4HPwATDgc/ABMA')
    >>> Position.from_id("not an id")
    Traceback (most recent call last):
    ...
    engines.errors.InvalidNotationError: 'not an id' is not a gnubg Position ID: \
that is 14 characters of A-Z, a-z, 0-9, + and /
    """

    mine: tuple[int, ...]
    theirs: tuple[int, ...]

    def __post_init__(self) -> None:
        for side in (self.mine, self.theirs):
            if len(side) != 26 or any(not isinstance(n, int) or n < 0 for n in side):
                raise ValueError("each side is 26 counts >= 0 (0 off, 1..24 points, 25 bar)")
            if sum(side) != CHECKERS:
                raise ValueError(f"each side has {CHECKERS} checkers, not {sum(side)}")
        for point in range(1, 25):
            if self.mine[point] and self.theirs[25 - point]:
                raise ValueError(f"both sides have checkers on point {point}")

    @classmethod
    def _make(cls, mine: tuple[int, ...], theirs: tuple[int, ...]) -> Position:
        # Move generation builds positions it knows are valid: skip the checks.
        position = object.__new__(cls)
        object.__setattr__(position, "mine", mine)
        object.__setattr__(position, "theirs", theirs)
        return position

    @classmethod
    def initial(cls) -> Position:
        return cls._make(_START, _START)

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """The position of a gnubg Position ID; InvalidNotationError if it is not a valid one."""
        mine, theirs = decode_position_id(position_id)
        return cls._make(mine, theirs)

    @property
    def id(self) -> str:
        """The gnubg Position ID."""
        return encode_position_id(self.mine, self.theirs)

    def __repr__(self) -> str:
        return f"Position.from_id({self.id!r})"

    def flip(self) -> Position:
        """The same position seen from the opponent: a turn passed without a move."""
        return Position._make(self.theirs, self.mine)

    def pips(self) -> tuple[int, int]:
        """Pip counts (mine, theirs); a checker on the bar counts 25."""
        return (
            sum(p * n for p, n in enumerate(self.mine)),
            sum(p * n for p, n in enumerate(self.theirs)),
        )

    def is_over(self) -> bool:
        return self.mine[OFF] == CHECKERS or self.theirs[OFF] == CHECKERS

    def outcome(self) -> Outcome | None:
        """None while the game goes on; else the winner and single, gammon or backgammon.

        The loser is gammoned if they bore off nothing, and backgammoned if besides they still
        have a checker on the bar or in the winner's home board (their points 19..24).

        >>> p = Position((0,) * 25 + (15,), (15,) + (0,) * 25)
        >>> p.outcome()
        Outcome(winner='theirs', kind=<ResultKind.BACKGAMMON: 'backgammon'>, multiplier=3)
        """
        if self.theirs[OFF] == CHECKERS:
            winner: Literal["mine", "theirs"] = "theirs"
            loser = self.mine
        elif self.mine[OFF] == CHECKERS:
            winner, loser = "mine", self.theirs
        else:
            return None
        if loser[OFF]:
            return Outcome(winner, ResultKind.SINGLE, 1)
        if any(loser[19:26]):
            return Outcome(winner, ResultKind.BACKGAMMON, 3)
        return Outcome(winner, ResultKind.GAMMON, 2)

    def legal_plays(self, d1: int, d2: int) -> tuple[Play, ...]:
        """Every legal play of the roll, one per distinct resulting position.

        Both dice are used when possible; if only one can be, the larger when either could;
        doubles play as many as possible, up to four. Empty when the roll cannot be played.

        >>> [str(p) for p in Position.initial().legal_plays(6, 6)][:3]
        ['24/18(2) 13/7(2)', '24/18(2) 13/7 8/2', '24/18(2) 8/2(2)']
        """
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError(f"dice are 1..6, not {d1}-{d2}")
        if self.is_over():
            return ()
        return _generate_cached(self.mine, self.theirs, d1, d2)

    def apply(self, play: Play) -> Position:
        """The position after ``play``, seen from the opponent; IllegalMoveError if the play's
        moves do not fit this position."""
        board = [*self.mine, *self.theirs[::-1]]
        for move in play.moves:
            s, t = move.src, move.dst
            if board[s] == 0 or (t and board[26 + t] > 1) or move.hit != bool(t and board[26 + t]):
                raise IllegalMoveError(
                    f"That move is illegal: {play} does not fit position {self.id}",
                    code="illegal_play_position",
                    play=play,
                    id=self.id,
                )
            board[s] -= 1
            board[t] += 1
            if move.hit:
                board[26 + t] = 0
                board[26] += 1
        after = Position._make(tuple(board[51:25:-1]), tuple(board[:26]))
        if after != play.position:
            raise IllegalMoveError(
                f"That move is illegal: {play} does not fit position {self.id}",
                code="illegal_play_position",
                play=play,
                id=self.id,
            )
        return after


# --- move generation -----------------------------------------------------------------------------
#
# The board is one list of 52 counts: 0..25 are mine (0 off, 25 bar) and 26 + p is the opponent's
# count on MY point p (so 26 is their bar and 51 their borne-off checkers). Plays are deduplicated
# by an exact integer key: the sum over moves of 16**dst - 16**src, plus 16**(26 + p) for a hit on
# p. Each point changes by at most 4, so the base-16 digits never carry and equal keys mean equal
# boards, without building a board per candidate.
#
# The rules the search follows: every way of playing the dice in order is tried, higher die first
# then lower die first (doubles in non-increasing source order, which reaches every result once
# per move set instead of once per permutation); the first way to reach a result names its moves,
# unless it used fewer dice than a later way (bearing off); the dict keeps first-found order, the
# order of the move list players see. A point the opponent holds with two or more checkers stays
# held all turn (a hit only empties a blot), so each die's possible sources are listed once per
# call; and a move is only made on the board when a deeper die needs it or a new result is kept.
_K = [16**p for p in range(26)]
_H = [16 ** (26 + p) for p in range(26)]

# What one search records per distinct result: moves made, first die, moves, the board after.
_Found = dict[int, tuple[int, int, tuple[CheckerMove, ...], tuple[int, ...], tuple[int, ...]]]


def _bear_off_source(board: list[int], d: int, top: int) -> int:
    """The point a die ``d`` bears off from, at most ``top``, or 0; only called with every
    checker home: the point ``d`` itself, or the highest point when it is below ``d``."""
    if board[d]:
        return d if d <= top else 0
    for s in range(6, 0, -1):
        if board[s]:
            return s if s < d and s <= top else 0
    return 0


def _pair(
    board: list[int],
    a: int,
    b: int,
    sources_a: list[int],
    sources_b: list[int],
    outside: int,
    theirs: tuple[int, ...],
    found: _Found,
) -> bool:
    """Play die ``a`` then die ``b`` (not a double) in every way on ``board`` (undoing as it
    goes) and record the results; True if both dice could be played somehow.

    ``sources_x`` are the points from which die x lands on a point the opponent does not hold;
    ``outside`` counts my checkers outside the home board (bar included), for the bear-off rule;
    ``theirs`` is the opponent's side, which only a hit changes.
    """
    both = False
    if board[BAR]:
        firsts: Sequence[int] = (BAR,) if board[26 + BAR - a] < 2 else ()
    elif outside:
        firsts = sources_a
    else:
        off = _bear_off_source(board, a, BAR)
        firsts = [*sources_a, off] if off else sources_a
    for s in firsts:
        if not board[s]:
            continue
        t = s - a
        if t > 0:
            opp = board[26 + t]
            board[s] -= 1
            board[t] += 1
            key = _K[t] - _K[s]
            if opp:
                board[26 + t] = 0
                board[26] += 1
                key += _H[t]
            out = outside - 1 if s > 6 >= t else outside
        else:
            t = opp = 0
            board[s] -= 1
            board[0] += 1
            key = 1 - _K[s]
            out = 0
        first = _MOVES[s, t, opp]
        if board[BAR]:
            seconds: Sequence[int] = (BAR,) if board[26 + BAR - b] < 2 else ()
        elif out:
            seconds = sources_b
        else:
            off = _bear_off_source(board, b, BAR)
            seconds = [*sources_b, off] if off else sources_b
        moved = False
        for s2 in seconds:
            if not board[s2]:
                continue
            t2 = s2 - b
            if t2 > 0:
                opp2 = board[26 + t2]
                k = key + _K[t2] - _K[s2]
                if opp2:
                    k += _H[t2]
            else:
                t2 = opp2 = 0
                k = key + 1 - _K[s2]
            moved = True
            seen = found.get(k)
            if seen is None or seen[0] == 1:
                # A new result: make the second move only now, to copy the board.
                board[s2] -= 1
                board[t2] += 1
                if opp2:
                    board[26 + t2] = 0
                    board[26] += 1
                found[k] = (
                    2,
                    a,
                    (first, _MOVES[s2, t2, opp2]),
                    tuple(board[:26]),
                    tuple(board[51:25:-1]) if opp or opp2 else theirs,
                )
                board[s2] += 1
                board[t2] -= 1
                if opp2:
                    board[26 + t2] = 1
                    board[26] -= 1
        if moved:
            both = True
        elif key not in found:
            found[key] = (
                1,
                a,
                (first,),
                tuple(board[:26]),
                tuple(board[51:25:-1]) if opp else theirs,
            )
        board[s] += 1
        board[t] -= 1
        if opp:
            board[26 + t] = 1
            board[26] -= 1
    return both


def _runs_on(
    board: list[int],
    low: int,
    high: int,
    sources_low: list[int],
    theirs: tuple[int, ...],
    found: _Found,
) -> None:
    """The lower die first, when the higher die first played both dice, nothing is on the bar and
    nothing can be borne off this turn: moving two different checkers, or a checker from a point
    that already had one, reaches a result the higher die first reached already, so only a
    checker that moves on from an empty point can find a new one."""
    for s in sources_low:
        if not board[s]:
            continue
        t = s - low
        t2 = t - high
        if board[t] or t2 <= 0 or board[26 + t2] > 1:
            continue
        opp = board[26 + t]
        opp2 = board[26 + t2]
        k = _K[t2] - _K[s]
        if opp:
            k += _H[t]
        if opp2:
            k += _H[t2]
        seen = found.get(k)
        if seen is None or seen[0] == 1:
            board[s] -= 1
            board[t2] += 1
            if opp or opp2:
                board[26 + t] = board[26 + t2] = 0
                board[26] += (opp > 0) + (opp2 > 0)
                after = tuple(board[51:25:-1])
                board[26 + t] = opp
                board[26 + t2] = opp2
                board[26] -= (opp > 0) + (opp2 > 0)
            else:
                after = theirs
            found[k] = (2, low, (_MOVES[s, t, opp], _MOVES[t, t2, opp2]), tuple(board[:26]), after)
            board[s] += 1
            board[t2] -= 1


def _doubles(
    board: list[int],
    d: int,
    i: int,
    start: int,
    top: int,
    key: int,
    moves: tuple[CheckerMove, ...],
    hit: bool,
    sources: list[int],
    outside: int,
    theirs: tuple[int, ...],
    found: _Found,
) -> None:
    """Play the ``i``-th of four dice ``d`` and the rest in every way on ``board`` (undoing as it
    goes) and record the results. Sources never rise (``top``, and ``start`` in ``sources``,
    the points from which ``d`` lands on a point the opponent does not hold), so each set of
    moves is made in one order only. Two sets never give one board (counting down from the bar,
    the board fixes how many checkers left each point), so no result is found twice."""
    moved = False
    bar = board[BAR]
    if bar:
        points: Sequence[int] = (BAR,) if board[26 + BAR - d] < 2 else ()
    else:
        points = sources[start:] if start else sources
        if not outside:
            off = _bear_off_source(board, d, top)
            if off:
                points = [*points, off]
    last = i == 3
    for s in points:
        if not board[s]:
            continue
        t = s - d
        if t > 0:
            opp = board[26 + t]
            k = key + _K[t] - _K[s]
            if opp:
                k += _H[t]
        else:
            t = opp = 0
            k = key + 1 - _K[s]
        moved = True
        move = _MOVES[s, t, opp]
        board[s] -= 1
        board[t] += 1
        if opp:
            board[26 + t] = 0
            board[26] += 1
        if last:
            found[k] = (
                4,
                d,
                (*moves, move),
                tuple(board[:26]),
                tuple(board[51:25:-1]) if hit or opp else theirs,
            )
        else:
            if bar:
                nxt = 0
            elif t > 0:
                nxt = sources.index(s, start)
            else:  # borne off: every listed source is above s
                nxt = len(sources)
            _doubles(
                board,
                d,
                i + 1,
                nxt,
                s,
                k,
                (*moves, move),
                hit or opp > 0,
                sources,
                outside - 1 if s > 6 >= t else outside,
                theirs,
                found,
            )
        board[s] += 1
        board[t] -= 1
        if opp:
            board[26 + t] = 1
            board[26] -= 1
    if not moved and i:
        found[key] = (
            i,
            d,
            moves,
            tuple(board[:26]),
            tuple(board[51:25:-1]) if hit else theirs,
        )


def _generate(mine: tuple[int, ...], theirs: tuple[int, ...], d1: int, d2: int) -> tuple[Play, ...]:
    board = [*mine, *theirs[::-1]]
    outside = sum(mine[7:26])
    found: _Found = {}
    if d1 == d2:
        sources = [s for s in range(24, d1, -1) if board[26 + s - d1] < 2]
        _doubles(board, d1, 0, 0, BAR, 0, (), False, sources, outside, theirs, found)
    else:
        high, low = (d1, d2) if d1 > d2 else (d2, d1)
        sources_high = [s for s in range(24, high, -1) if board[26 + s - high] < 2]
        sources_low = [s for s in range(24, low, -1) if board[26 + s - low] < 2]
        both = _pair(board, high, low, sources_high, sources_low, outside, theirs, found)
        if both and outside > 1 and not board[BAR]:
            _runs_on(board, low, high, sources_low, theirs, found)
        else:
            _pair(board, low, high, sources_low, sources_high, outside, theirs, found)
    if not found:
        return ()
    most = max(entry[0] for entry in found.values())
    if most == 1 and d1 != d2 and any(e[1] == max(d1, d2) for e in found.values()):
        most_die = max(d1, d2)  # only one die can be played: the larger when either could
        return tuple(
            _play(e[2], e[3], e[4]) for e in found.values() if e[0] == 1 and e[1] == most_die
        )
    return tuple(_play(e[2], e[3], e[4]) for e in found.values() if e[0] == most)


# One turn asks for the same (position, roll) several times, within milliseconds: the forfeit
# check, the move list, parsing the player's text and applying it. 32 entries serve that (58% hits
# under load); 256 kept thousands of plays alive that every full garbage collection walked.
_generate_cached = lru_cache(maxsize=32)(_generate)


def clear_play_cache() -> None:
    """Forget cached plays (benchmarks time the generation itself)."""
    _generate_cached.cache_clear()


def _play(moves: tuple[CheckerMove, ...], mine: tuple[int, ...], theirs: tuple[int, ...]) -> Play:
    # The slots' own descriptors fill the frozen objects, a third faster than object.__setattr__.
    position = _new(Position)
    _set_mine(position, theirs)
    _set_theirs(position, mine)
    play = _new(Play)
    _set_moves(play, moves)
    _set_position(play, position)
    return play


# --- notation ------------------------------------------------------------------------------------

_MAX_TEXT = 200
_TOKEN = re.compile(r"(bar|\d{1,2})((?:/(?:\d{1,2}|off)\*?)+)(?:\((\d)\))?", re.ASCII)
_HOP = re.compile(r"/(\d{1,2}|off)\*?", re.ASCII)


def _paths(play: Play) -> list[list[int]]:
    """The play's single-die moves joined into checker paths, gnubg style: moves sorted by
    source then destination, both descending, and a move chained on when it starts where the
    path ends."""
    legs = sorted(((m.src, m.dst) for m in play.moves), reverse=True)
    used = [False] * len(legs)
    paths = []
    for i, (src, dst) in enumerate(legs):
        if used[i]:
            continue
        path = [src, dst]
        for j in range(i + 1, len(legs)):
            if not used[j] and legs[j][0] == path[-1]:
                path.append(legs[j][1])
                used[j] = True
        paths.append(path)
    return paths


def _must_show(path: list[int], k: int, hits: set[int], after: Position) -> bool:
    """Whether the intermediate point ``path[k]`` is written: gnubg writes a point where the
    checker hit; we also write it when the other order of the two dice could have passed a blot
    left standing, since then ``24/13`` alone would name two plays."""
    point = path[k]
    if point in hits:
        return True
    if len(path) != 3:
        return False  # three or more steps of one checker: doubles, whose route is forced
    src, dst = path[0], path[2]
    first = src - point
    others = {point - dst} if dst else set(range(point, 7))  # bear-off may overshoot
    for other in others - {first}:
        alt = src - other
        if 1 <= alt <= 24 and alt != point and after.mine[25 - alt] == 1:
            return True
    return False


def format_play(play: Play) -> str:
    """gnubg notation: ``24/18 13/11``, ``bar/22``, ``6/off``, ``8/5(2)``, ``24/21*``,
    ``13/7*/5``; a checker moving twice is written ``24/13`` unless a point on its way matters.
    """
    if not play.moves:
        return ""
    hits = {m.dst for m in play.moves if m.hit}
    counted: list[tuple[tuple[int, ...], int]] = []
    for path in _paths(play):
        shown = [path[0]]
        shown += [
            path[k] for k in range(1, len(path) - 1) if _must_show(path, k, hits, play.position)
        ]
        shown.append(path[-1])
        for n, (other, count) in enumerate(counted):
            if other == tuple(shown):
                counted[n] = (other, count + 1)
                break
        else:
            counted.append((tuple(shown), 1))
    marked: set[int] = set()
    parts = []
    for points, count in counted:
        names = [_point_name(points[0])]
        for point in points[1:-1]:
            names.append(_point_name(point) + ("*" if point in hits else ""))
            marked.add(point)
        dst = points[-1]
        star = "*" if dst in hits and dst not in marked else ""
        marked.add(dst)
        names.append(_point_name(dst) + star)
        parts.append("/".join(names) + (f"({count})" if count > 1 else ""))
    return " ".join(parts)


def _read_point(word: str, text: str, position: Position) -> int:
    if word == "bar":
        return BAR
    if word == "off":
        return OFF
    value = int(word)
    if not 0 <= value <= 25:
        raise InvalidNotationError(
            f"Cannot read {_show(text)!r}: {value} is not a point "
            f"(1-24, bar or off; position {position.id})",
            code="not_a_point",
            text=_show(text),
            value=value,
            position_id=position.id,
        )
    return value


def parse_paths(text: str, position: Position) -> list[list[int]]:
    """The checker paths a play's text names, one list of points per checker (25 bar, 0 off),
    repeat counts expanded; InvalidNotationError if it is not backgammon notation."""
    if not isinstance(text, str):
        raise InvalidNotationError(
            f"A move is text, not {type(text).__name__}",
            code="move_not_text",
            type_name=type(text).__name__,
        )
    cleaned = text.strip().lower()
    if not cleaned or len(cleaned) > _MAX_TEXT:
        raise InvalidNotationError(
            f"Cannot read {_show(text)!r} as a backgammon move: write it like 24/18 13/11 "
            f"(position {position.id})",
            code="unreadable_move",
            text=_show(text),
            position_id=position.id,
        )
    paths: list[list[int]] = []
    for token in re.split(r"[\s,]+", cleaned):
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise InvalidNotationError(
                f"Cannot read {_show(text)!r} as a backgammon move: {_show(token)!r} is not like "
                f"24/18, bar/22, 6/off or 8/5(2) (position {position.id})",
                code="unreadable_token",
                text=_show(text),
                token=_show(token),
                position_id=position.id,
            )
        path = [_read_point(match[1], text, position)]
        path += [_read_point(word, text, position) for word in _HOP.findall(match[2])]
        if path[0] == OFF or BAR in path[1:] or OFF in path[1:-1]:
            raise InvalidNotationError(
                f"Cannot read {_show(text)!r}: a path starts on a point or the bar and may end "
                f"off the board (position {position.id})",
                code="bad_path",
                text=_show(text),
                position_id=position.id,
            )
        count = int(match[3] or 1)
        if not 1 <= count <= 4:
            raise InvalidNotationError(
                f"Cannot read {_show(text)!r}: a repeat count is 1 to 4 (position {position.id})",
                code="bad_repeat",
                text=_show(text),
                position_id=position.id,
            )
        paths.extend([path] * count)
    return paths


def _realize(position: Position, paths: list[list[int]], dice: tuple[int, ...]) -> set[Position]:
    """Every position (seen from the opponent) reachable by moving checkers along ``paths``
    with some of the dice, each step legal; intermediate points not written may be anything."""
    board = [*position.mine, *position.theirs[::-1]]
    here = [path[0] for path in paths]
    nxt = [1] * len(paths)
    results: set[Position] = set()

    def step(remaining: list[int]) -> None:
        if all(nxt[j] == len(paths[j]) for j in range(len(paths))):
            results.add(Position._make(tuple(board[51:25:-1]), tuple(board[:26])))
            return
        for j, path in enumerate(paths):
            if nxt[j] == len(path):
                continue
            s, goal = here[j], path[nxt[j]]
            for d in sorted(set(remaining)):
                t = s - d
                if board[s] == 0 or (board[BAR] and s != BAR):
                    continue
                if goal and t < goal:
                    continue
                if t > 0:
                    opp = board[26 + t]
                    if opp > 1:
                        continue
                else:
                    if goal or any(board[7:26]) or (t < 0 and any(board[s + 1 : 7])):
                        continue
                    t = opp = 0
                board[s] -= 1
                board[t] += 1
                if opp:
                    board[26 + t] = 0
                    board[26] += 1
                here[j] = t
                reached = t == goal
                nxt[j] += reached
                rest = list(remaining)
                rest.remove(d)
                step(rest)
                nxt[j] -= reached
                here[j] = s
                board[s] += 1
                board[t] -= 1
                if opp:
                    board[26 + t] = 1
                    board[26] -= 1

    step(list(dice))
    return results


def parse_play(text: str, position: Position, dice: Sequence[int]) -> Play:
    """The legal play that ``text`` names with this roll.

    Moves may come in any order, with or without ``*``; ``bar`` and ``off`` in any case;
    ``(2)`` repeats a move; a checker's two steps may be joined (``24/13``) when that names a
    single legal play. Raises InvalidNotationError (not notation), IllegalMoveError (no legal
    play matches) or AmbiguousMoveError (several do).
    """
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"a backgammon roll is two dice 1..6, not {tuple(dice)}")
    d1, d2 = dice
    roll = f"{d1}-{d2}"
    paths = parse_paths(text, position)
    shown = _show(text.strip())
    if any(path[k] <= path[k + 1] for path in paths for k in range(len(path) - 1)):
        raise IllegalMoveError(
            f"That move is illegal: in {shown} a checker moves backwards; checkers move from "
            f"higher to lower points (position {position.id})",
            code="moves_backwards",
            shown=shown,
            position_id=position.id,
        )
    plays = position.legal_plays(d1, d2)
    if not plays:
        raise IllegalMoveError(
            f"That move is illegal: no checker can move with {roll}, the turn passes "
            f"(position {position.id})",
            code="no_checker_can_move",
            roll=roll,
            position_id=position.id,
        )
    steps = (d1,) * 4 if d1 == d2 else (d1, d2)
    if len(paths) > len(steps):
        raise IllegalMoveError(
            f"That move is illegal: {shown} moves more checkers than {roll} allows "
            f"(position {position.id})",
            code="too_many_checkers",
            shown=shown,
            roll=roll,
            position_id=position.id,
        )
    reached = _realize(position, paths, steps)
    matches = [play for play in plays if play.position in reached]
    if not matches:
        if reached:
            raise IllegalMoveError(
                f"That move is illegal: {shown} does not play as much of {roll} as the rules "
                f"require (position {position.id})",
                code="not_enough_played",
                shown=shown,
                roll=roll,
                position_id=position.id,
            )
        raise IllegalMoveError(
            f"That move is illegal: {shown} is not possible with {roll} (position {position.id})",
            code="impossible_with_roll",
            shown=shown,
            roll=roll,
            position_id=position.id,
        )
    if len(matches) > 1:
        options = ", ".join(str(play) for play in matches)
        raise AmbiguousMoveError(
            f"That move is ambiguous: {shown} with {roll} could be {options} "
            f"(position {position.id})",
            code="ambiguous_move",
            shown=shown,
            roll=roll,
            options=options,
            position_id=position.id,
        )
    return matches[0]


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn's checker moves and the position after them, seen from the opponent.

    >>> play = Position.initial().legal_plays(6, 5)[0]
    >>> str(play), play.position.id
    ('24/13', '4HPwAyDgc/ABMA')
    """

    moves: tuple[CheckerMove, ...]
    position: Position

    def __str__(self) -> str:
        return format_play(self)

    @property
    def hits(self) -> int:
        """How many blots the play hits (menus list hitting plays first)."""
        return sum(1 for move in self.moves if move.hit)

    @classmethod
    def parse(cls, text: str, position: Position, dice: Sequence[int]) -> Play:
        return parse_play(text, position, dice)


_new = object.__new__
_set_mine = Position.__dict__["mine"].__set__
_set_theirs = Position.__dict__["theirs"].__set__
_set_moves = Play.__dict__["moves"].__set__
_set_position = Play.__dict__["position"].__set__


class BackgammonVariant:
    """Backgammon for :class:`engines.match.DiceMatch`."""

    kind = GameKind.BACKGAMMON
    dice_count = SPEC.dice_count  # the game's traits are its spec's (engines/spec.py)
    resign_levels = SPEC.resign_levels

    def initial(self) -> Position:
        return Position.initial()

    def from_id(self, position_id: str) -> Position:
        return Position.from_id(position_id)

    def position_id(self, position: Any) -> str:
        return str(_position(position).id)

    def opening_dice(self, high: int, low: int) -> tuple[int, ...]:
        return (high, low)

    def legal_moves(self, position: Any, dice: tuple[int, ...]) -> tuple[Play, ...]:
        d1, d2 = dice
        return _position(position).legal_plays(d1, d2)

    def apply(self, position: Any, move: Any) -> Position:
        if not isinstance(move, Play):
            raise TypeError(f"a backgammon move is a Play, not {type(move).__name__}")
        return _position(position).apply(move)

    def pass_turn(self, position: Any) -> Position:
        return _position(position).flip()

    def result(self, position: Any) -> tuple[ResultKind, int] | None:
        outcome = _position(position).outcome()
        return None if outcome is None else (outcome.kind, outcome.multiplier)

    def parse_move(self, text: str, position: Any, dice: tuple[int, ...]) -> Play:
        return parse_play(text, _position(position), dice)

    def format_move(self, move: Any) -> str:
        return str(move)


def _position(value: Any) -> Position:
    if not isinstance(value, Position):
        raise TypeError(f"a backgammon position is a Position, not {type(value).__name__}")
    return value


VARIANT = BackgammonVariant()
