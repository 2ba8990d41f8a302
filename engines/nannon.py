"""Nannon: six spots, three checkers a side, one die.

Positions are seen from the side on roll. Each side's checkers are a sorted 3-tuple of places
in that side's own numbering: 0 = HOME, 1..6 = spots, 7 = SAFETY. My spot ``k`` is my
opponent's spot ``7 - k``.

>>> pos = Position.initial()
>>> pos.id
'012-012'
>>> [str(m) for m in pos.legal_moves(3)]  # 2/5 would land on a prime
['H/3', '1/4']
>>> after = pos.apply(Move.parse("1/4", pos, 3))
>>> after
Position.from_id('012-024')
>>> after.legal_moves(2)
(Move(src=1, dst=3, hit=True), Move(src=2, dst=4, hit=False))
>>> after.apply(Move.parse("1/3*", after, 2)).id
'002-023'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

from engines.base import GameKind, ResignLevel, ResultKind
from engines.errors import IllegalMoveError, InvalidNotationError
from engines.spec import NANNON as SPEC

HOME = 0
SAFETY = 7
SPOTS = range(1, 7)
CHECKERS = 3

Places = tuple[int, int, int]

_ID_RE = re.compile(r"[0-7]{3}-[0-7]{3}", re.ASCII)
# src, "/" or "-", dst, optional "*"; H/HOME/0 and S/SAFETY/OFF/7 name the ends (either
# end may name either, so "3/H" is well-formed and then refused as illegal).
_MOVE_RE = re.compile(
    r"\s*(?P<src>{0})\s*[/-]\s*(?P<dst>{0})\s*(?P<hit>\*)?\s*".format("h|home|s|safety|off|[0-7]"),
    re.ASCII | re.IGNORECASE,
)
_MAX_NOTATION = 40  # longer text is garbage, whatever it says


def _listed(places: Any) -> str:
    """Places as a refusal shows them, "0, 3, 3" (never a Python tuple's repr)."""
    if isinstance(places, tuple | list):
        return ", ".join(str(p) for p in places)[:40]
    return str(places)[:40]


def _check_places(places: Any, what: str) -> Places:
    """``places`` as a sorted 3-tuple of places 0..7 with at most one checker per spot."""
    if not isinstance(places, tuple | list) or len(places) != CHECKERS:
        shown = _listed(places)
        raise InvalidNotationError(
            f"{what} must be {CHECKERS} places, not {shown!r}",
            code="places_count",
            what=what,
            CHECKERS=CHECKERS,
            places=shown,
        )
    for p in places:
        if type(p) is not int or not HOME <= p <= SAFETY:
            raise InvalidNotationError(
                f"{what}: {p!r} is not a place 0..7", code="not_a_place", what=what, p=p
            )
    a, b, c = sorted(places)
    if (a == b and HOME < a < SAFETY) or (b == c and HOME < b < SAFETY):
        raise InvalidNotationError(
            f"{what}: two checkers on one spot in {_listed(places)!r}",
            code="two_on_one_spot",
            what=what,
            places=_listed(places),
        )
    return (a, b, c)


@dataclass(frozen=True, slots=True)
class Position:
    """A Nannon position seen from the side on roll (``mine``); ``theirs`` is the opponent.

    The constructor sorts and checks the places; :meth:`from_id` parses the ``012-012`` form.

    >>> Position((2, 0, 1), (0, 1, 2)) == Position.initial()
    True
    >>> Position((1, 1, 0), (0, 0, 0))
    Traceback (most recent call last):
    engines.errors.InvalidNotationError: mine: two checkers on one spot in '1, 1, 0'
    """

    mine: Places
    theirs: Places

    def __post_init__(self) -> None:
        mine = _check_places(self.mine, "mine")
        theirs = _check_places(self.theirs, "theirs")
        clash = {p for p in mine if p in SPOTS} & {SAFETY - p for p in theirs if p in SPOTS}
        if clash:
            raise InvalidNotationError(
                f"both colours on spot {min(clash)} in {_format_id(mine, theirs)}",
                code="both_colours_on_spot",
                spot=min(clash),
                format_id=_format_id(mine, theirs),
            )
        object.__setattr__(self, "mine", mine)
        object.__setattr__(self, "theirs", theirs)

    @classmethod
    def _make(cls, mine: Places, theirs: Places) -> Position:
        # Fast path for positions derived from valid ones: skip the checks.
        pos = object.__new__(cls)
        object.__setattr__(pos, "mine", mine)
        object.__setattr__(pos, "theirs", theirs)
        return pos

    @classmethod
    def initial(cls) -> Position:
        """The start: one checker at HOME and one each on spots 1 and 2, for both sides."""
        return cls._make((0, 1, 2), (0, 1, 2))

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Parse ``"012-012"`` (on-roll side first); InvalidNotationError if malformed.

        >>> Position.from_id("013-013").theirs
        (0, 1, 3)
        >>> Position.from_id("016-012")
        Traceback (most recent call last):
        engines.errors.InvalidNotationError: both colours on spot 6 in 016-012
        """
        if not isinstance(position_id, str) or not _ID_RE.fullmatch(position_id):
            shown = position_id[:20] if isinstance(position_id, str) else position_id
            raise InvalidNotationError(
                f"{shown!r} is not a Nannon position ID like '012-012' "
                "(3 digits 0..7 for the side on roll, a dash, 3 for the opponent)",
                code="not_a_nannon_position_id",
                shown=shown,
            )
        d = [int(ch) for ch in position_id if ch != "-"]
        mine, theirs = (d[0], d[1], d[2]), (d[3], d[4], d[5])
        if list(mine) != sorted(mine) or list(theirs) != sorted(theirs):
            raise InvalidNotationError(
                f"places must be sorted ascending in {position_id!r}",
                code="places_not_sorted",
                position_id=position_id,
            )
        return cls(mine, theirs)

    @property
    def id(self) -> str:
        """The position ID: ``"012-012"``."""
        return _format_id(self.mine, self.theirs)

    def __repr__(self) -> str:
        return f"Position.from_id({self.id!r})"

    def __str__(self) -> str:
        return self.id

    def legal_moves(self, roll: int) -> tuple[Move, ...]:
        """Every legal move for ``roll`` (1..6), one per resulting position, by source place.

        Empty when the turn is forfeited, or when the game is over.

        >>> Position.from_id("034-056").legal_moves(1)  # H/1 meets a prime, 3/4 my own
        (Move(src=4, dst=5, hit=False),)
        >>> Position.from_id("034-016").legal_moves(1)  # the checker on 1 is alone: a hit
        (Move(src=0, dst=1, hit=True), Move(src=4, dst=5, hit=False))
        """
        key = (self.mine, self.theirs, roll)
        moves = _MOVES.get(key)
        if moves is None:
            if type(roll) is not int or not 1 <= roll <= 6:
                raise ValueError(f"a Nannon roll is 1..6, not {roll!r}")
            moves = _MOVES[key] = _generate(self.mine, self.theirs, roll)
        return moves

    def apply(self, move: Move) -> Position:
        """The position after ``move``, seen from the opponent (who is then on roll).

        The move is not checked: use moves from :meth:`legal_moves` or :meth:`Move.parse`.

        >>> Position.initial().apply(Move(1, 4, False)).id
        '012-024'
        """
        mine = list(self.mine)
        mine[mine.index(move.src)] = move.dst
        mine.sort()
        theirs = self.theirs
        if move.hit:
            rest = list(theirs)
            rest[rest.index(SAFETY - move.dst)] = HOME
            rest.sort()
            theirs = (rest[0], rest[1], rest[2])
        return Position._make(theirs, (mine[0], mine[1], mine[2]))

    def pass_turn(self) -> Position:
        """The same position seen from the opponent: a forfeited turn.

        >>> Position.from_id("012-034").pass_turn().id
        '034-012'
        """
        return Position._make(self.theirs, self.mine)

    def is_over(self) -> bool:
        """True once a side has all three checkers in SAFETY."""
        return self.theirs == _ALL_SAFE or self.mine == _ALL_SAFE

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on.

        In play the side that just moved (``theirs``) is the one that can have won, so
        ``winner_on_roll`` is False; it is True only for a hand-made position where the side on
        roll already has all three checkers in SAFETY.

        >>> Position.from_id("001-777").outcome()
        Outcome(winner_on_roll=False, kind=<ResultKind.NANNON: 'nannon'>, points=2)
        >>> Position.from_id("157-777").outcome().kind
        <ResultKind.SINGLE: 'single'>
        """
        if self.theirs == _ALL_SAFE:
            winner_on_roll, loser = False, self.mine
        elif self.mine == _ALL_SAFE:
            winner_on_roll, loser = True, self.theirs
        else:
            return None
        if SAFETY in loser:
            return Outcome(winner_on_roll, ResultKind.SINGLE, 1)
        return Outcome(winner_on_roll, ResultKind.NANNON, 2)


_ALL_SAFE: Places = (SAFETY, SAFETY, SAFETY)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: who won (relative to the position), single or NANNON, and points
    before the cube."""

    winner_on_roll: bool
    kind: ResultKind
    points: int


def _format_id(mine: Places, theirs: Places) -> str:
    return f"{mine[0]}{mine[1]}{mine[2]}-{theirs[0]}{theirs[1]}{theirs[2]}"


def _place_name(place: int) -> str:
    return "H" if place == HOME else "S" if place == SAFETY else str(place)


@dataclass(frozen=True, slots=True)
class Move:
    """One checker moved from ``src`` (0 = HOME) to ``dst`` (7 = SAFETY); ``hit`` if it lands
    on a lone opponent checker. Spots are numbered from the mover's side.

    >>> str(Move(0, 3, False)), str(Move(2, 5, True)), str(Move(5, 7, False))
    ('H/3', '2/5*', '5/S')
    """

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_place_name(self.src)}/{_place_name(self.dst)}{'*' if self.hit else ''}"

    @property
    def hits(self) -> int:
        """How many checkers the move hits: 0 or 1 (menus list hitting moves first)."""
        return int(self.hit)

    @classmethod
    def parse(cls, text: str, position: Position, roll: int) -> Move:
        """The legal move that ``text`` names in ``position`` with ``roll``.

        Accepts any case and spacing, ``H``/``home``/``0`` and ``S``/``safety``/``off``/``7``,
        ``/`` or ``-``, with or without the ``*`` of a hit. Raises InvalidNotationError for text
        that is not a Nannon move, IllegalMoveError for a move the rules refuse.

        >>> pos = Position.initial()
        >>> Move.parse(" h - 3 ", pos, 3)
        Move(src=0, dst=3, hit=False)
        >>> Move.parse("2/5", pos, 3)
        Traceback (most recent call last):
        engines.errors.IllegalMoveError: '2/5': 5 is blocked, that checker is in a prime and \
can't be hit (position 012-012, roll 3)
        >>> Move.parse("1/3", pos, 3)
        Traceback (most recent call last):
        engines.errors.IllegalMoveError: '1/3' does not move 3: a checker on 1 goes to 4 \
(position 012-012, roll 3)
        """
        if not isinstance(text, str) or len(text) > _MAX_NOTATION:
            shown = text[:_MAX_NOTATION] + "..." if isinstance(text, str) else str(text)[:40]
            raise InvalidNotationError(
                f"{shown!r} is not a Nannon move like H/3, 2/5 or 5/S",
                code="not_a_nannon_move",
                shown=shown,
            )
        match = _MOVE_RE.fullmatch(text)
        if match is None:
            raise InvalidNotationError(
                f"{text!r} is not a Nannon move like H/3, 2/5 or 5/S",
                code="nannon_move_unreadable",
                text=text,
            )
        src = _parse_place(match["src"])
        dst = _parse_place(match["dst"])
        where = f"(position {position.id}, roll {roll})"
        at = {"position_id": position.id, "roll": roll}  # the parameters of ``where``
        if src == SAFETY:
            raise IllegalMoveError(
                f"{text!r}: a checker in SAFETY never moves again {where}",
                code="safety_never_moves",
                text=text,
                **at,
            )
        if src not in position.mine:
            name = "HOME" if src == HOME else f"spot {src}"
            raise IllegalMoveError(
                f"{text!r}: you have no checker at {name} {where}",
                code="no_checker_home" if src == HOME else "no_checker_on_spot",
                text=text,
                spot=src,
                **at,
            )
        target = roll if src == HOME else min(src + roll, SAFETY)
        if dst != target:
            raise IllegalMoveError(
                f"{text!r} does not move {roll}: a checker on {_place_name(src)} goes to "
                f"{_place_name(target)} {where}",
                code="wrong_distance",
                text=text,
                place_name=_place_name(src),
                place_name_target=_place_name(target),
                **at,
            )
        for move in position.legal_moves(roll):
            if move.src == src:
                if match["hit"] and not move.hit:
                    raise IllegalMoveError(
                        f"{text!r}: there is nothing to hit there {where}",
                        code="nothing_to_hit",
                        text=text,
                        **at,
                    )
                return move
        if position.is_over():
            raise IllegalMoveError(
                f"{text!r}: the game is over {where}",
                code="nannon_game_over",
                text=text,
                **at,
            )
        own = dst in position.mine
        reason = (
            "your own checker is there" if own else "that checker is in a prime and can't be hit"
        )
        raise IllegalMoveError(
            f"{text!r}: {_place_name(dst)} is blocked, {reason} {where}",
            code="blocked_by_own" if own else "blocked_by_prime",
            text=text,
            place_name=_place_name(dst),
            **at,
        )


def _parse_place(token: str) -> int:
    token = token.lower()
    if token in ("h", "home"):
        return HOME
    if token in ("s", "safety", "off"):
        return SAFETY
    return int(token)


def _generate(mine: Places, theirs: Places, roll: int) -> tuple[Move, ...]:
    """The legal moves, uncached; :meth:`Position.legal_moves` memoises this."""
    if mine == _ALL_SAFE or theirs == _ALL_SAFE:
        return ()
    # Opponent checkers on spots, in the mover's numbering.
    foes = {SAFETY - p for p in theirs if HOME < p < SAFETY}
    moves: list[Move] = []
    last = -1
    for src in mine:
        if src in (last, SAFETY):
            continue  # two checkers at HOME make one move
        last = src
        dst = roll if src == HOME else src + roll
        if dst >= SAFETY:
            moves.append(Move(src, SAFETY, False))
        elif dst in mine:
            continue
        elif dst in foes:
            if dst - 1 not in foes and dst + 1 not in foes:  # a lone checker, not a prime
                moves.append(Move(src, dst, True))
        else:
            moves.append(Move(src, dst, False))
    return tuple(moves)


_MOVES: dict[tuple[Places, Places, int], tuple[Move, ...]] = {}


def all_positions() -> tuple[Position, ...]:
    """Every encodable position, sorted by ID: 2,530 of them, finished games included.

    >>> len(all_positions())
    2530
    """
    sides: list[Places] = [
        (a, b, c)
        for a, b, c in combinations_with_replacement(range(HOME, SAFETY + 1), CHECKERS)
        if not ((a == b and a in SPOTS) or (b == c and b in SPOTS))
    ]
    found = []
    for mine in sides:
        for theirs in sides:
            if not {p for p in mine if p in SPOTS} & {SAFETY - p for p in theirs if p in SPOTS}:
                found.append(Position._make(mine, theirs))
    return tuple(sorted(found, key=lambda p: p.id))


class NannonVariant:
    """Nannon as a :class:`engines.base.DiceVariant` for :class:`engines.match.DiceMatch`.

    >>> VARIANT.opening_dice(5, 2)
    (3,)
    >>> VARIANT.result(Position.from_id("017-777"))
    (<ResultKind.SINGLE: 'single'>, 1)
    """

    kind = GameKind.NANNON
    dice_count = SPEC.dice_count  # the game's traits are its spec's (engines/spec.py)
    resign_levels: tuple[ResignLevel, ...] = SPEC.resign_levels

    def initial(self) -> Position:
        return Position.initial()

    def from_id(self, position_id: str) -> Position:
        return Position.from_id(position_id)

    def position_id(self, position: Position) -> str:
        return position.id

    def opening_dice(self, high: int, low: int) -> tuple[int, ...]:
        return (high - low,)

    def legal_moves(self, position: Position, dice: tuple[int, ...]) -> tuple[Move, ...]:
        (roll,) = dice
        return position.legal_moves(roll)

    def apply(self, position: Position, move: Move) -> Position:
        return position.apply(move)

    def pass_turn(self, position: Position) -> Position:
        return position.pass_turn()

    def result(self, position: Position) -> tuple[ResultKind, int] | None:
        outcome = position.outcome()
        if outcome is None or outcome.winner_on_roll:
            # A won position for the side on roll can't arise in play: treat as not over.
            return None
        return (outcome.kind, outcome.points)

    def parse_move(self, text: str, position: Position, dice: tuple[int, ...]) -> Move:
        (roll,) = dice
        return Move.parse(text, position, roll)

    def format_move(self, move: Move) -> str:
        return str(move)

    def __repr__(self) -> str:
        return "engines.nannon.VARIANT"


VARIANT = NannonVariant()
