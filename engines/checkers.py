"""American checkers (English draughts): board, moves, game rules, match play and PDN.

Squares are numbered 1..32 in the standard way: Black starts on 1..12 and moves first, towards
the higher numbers; White starts on 21..32. Positions use PDN FEN and moves use standard
notation: ``11-15`` for a move, ``22x15x8`` for a jump with its full path.

>>> board = Board.initial()
>>> board.fen
'B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
>>> [str(move) for move in board.legal_moves()]
['9-13', '9-14', '10-14', '10-15', '11-15', '11-16', '12-16']
>>> board = board.apply(Move.parse("11-15", board))
>>> board.turn
<Color.WHITE: 'W'>

Captures are mandatory, and a capture sequence must be completed:

>>> board = Board.from_fen("B:W18,26:B15")
>>> [str(move) for move in board.legal_moves()]
['15x22x31']
>>> str(Move.parse("15x31", board))
'15x22x31'
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engines import actions as act
from engines.base import (
    ActionResult,
    GameKind,
    GameResult,
    MatchRules,
    Phase,
    ResultKind,
)
from engines.errors import (
    AmbiguousMoveError,
    CubeError,
    CubeErrorReason,
    GameError,
    IllegalMoveError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)
from engines.legal_moves import LegalMoves
from engines.spec import CHECKERS, GameSpec

__all__ = [
    "Board",
    "CheckersMatch",
    "Color",
    "Game",
    "Move",
    "Outcome",
    "Termination",
    "to_pdn",
]


class Color(enum.Enum):
    """A side. Black (the darker pieces) starts on 1..12 and moves first."""

    BLACK = "B"
    WHITE = "W"

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK


# --- Geometry -------------------------------------------------------------------------------
# Bit i of a mask is square i + 1. Row r (0..7, counted from Black's side) holds squares
# 4r+1..4r+4; on even rows they sit on columns 1, 3, 5, 7, on odd rows on 0, 2, 4, 6.

_FULL = (1 << 32) - 1
_BLACK_CROWN = 0xF << 28  # squares 29..32: where Black men are crowned
_WHITE_CROWN = 0xF  # squares 1..4


def _square_at(row: int, col: int) -> int | None:
    """The square (1..32) at a row and column, or None off the board or on a light square."""
    if 0 <= row < 8 and 0 <= col < 8 and (row + col) % 2 == 1:
        return 4 * row + col // 2 + 1
    return None


def _coords(square: int) -> tuple[int, int]:
    row, index = divmod(square - 1, 4)
    return row, 2 * index + (1 if row % 2 == 0 else 0)


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the squares the piece visits, and the squares of the pieces it captures.

    >>> Move((11, 15), ())
    Move(path=(11, 15), captures=())
    >>> str(Move((22, 15, 8), (18, 11)))
    '22x15x8'
    """

    path: tuple[int, ...]
    captures: tuple[int, ...] = ()

    def __str__(self) -> str:
        return ("x" if self.captures else "-").join(map(str, self.path))

    @property
    def hits(self) -> int:
        """How many pieces the move captures (menus list captures first)."""
        return len(self.captures)

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @classmethod
    def parse(cls, text: str, board: Board) -> Move:
        """The legal move that ``text`` names in ``board``.

        Accepts ``11-15``, a full jump path ``22x15x8``, or just the ends of a jump, ``22x8``,
        when only one legal jump matches. Raises InvalidNotationError for text that is not
        checkers notation, IllegalMoveError for a move the position does not allow, and
        AmbiguousMoveError when ``22x8`` fits several jumps.

        >>> board = Board.from_fen("W:WK30:B17,18,25,26")
        >>> Move.parse("30x14", board)
        Traceback (most recent call last):
        ...
        engines.errors.IllegalMoveError: '30x14' is not a legal jump in W:WK30:B17,18,25,26 (a ...
        >>> Move.parse("30x30", board)
        Traceback (most recent call last):
        ...
        engines.errors.AmbiguousMoveError: '30x30' fits 2 jumps in W:WK30:B17,18,25,26: ...
        """
        path, is_jump = _parse_notation(text, board)
        legal = board.legal_moves()
        if not is_jump:
            for move in legal:
                if move.path == path and not move.captures:
                    return move
            if legal and legal[0].captures:
                raise IllegalMoveError(
                    f"{_shown(text)} is not legal in {board.fen}: a capture is mandatory "
                    f"({_listing(legal)}).",
                    code="capture_mandatory",
                    text=_shown(text),
                    fen=board.fen,
                    listing=_listing(legal),
                )
            raise IllegalMoveError(
                f"{_shown(text)} is not a legal move in {board.fen}.",
                code="checkers_illegal_move",
                text=_shown(text),
                fen=board.fen,
            )
        jumps = [m for m in legal if m.captures]
        for move in jumps:
            if move.path == path:
                return move
        if len(path) == 2:
            fits = [m for m in jumps if m.path[0] == path[0] and m.path[-1] == path[1]]
            if len(fits) == 1:
                return fits[0]
            if fits:
                raise AmbiguousMoveError(
                    f"{_shown(text)} fits {len(fits)} jumps in {board.fen}: "
                    f"{_listing(fits)}; give the full path.",
                    code="ambiguous_jump",
                    text=_shown(text),
                    count=len(fits),
                    fen=board.fen,
                    listing=_listing(fits),
                )
        if not jumps:
            raise IllegalMoveError(
                f"{_shown(text)} is not legal in {board.fen}: no jump here.",
                code="no_jump_here",
                text=_shown(text),
                fen=board.fen,
            )
        raise IllegalMoveError(
            f"{_shown(text)} is not a legal jump in {board.fen} (a jump must be completed); "
            f"legal: {_listing(jumps)}.",
            code="jump_not_completed",
            text=_shown(text),
            fen=board.fen,
            listing=_listing(jumps),
        )


def _shown(text: str) -> str:
    """The user's input for an error message, cut short so hostile input stays readable."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _check_fen_pieces(fen: str, pieces: dict[str, tuple[set[int], set[int]]]) -> None:
    """What Board refuses of a FEN's pieces, refused in words (issue 33: the board's own
    ValueError showed "frozenset({5})")."""
    black, white = pieces["B"][0] | pieces["B"][1], pieces["W"][0] | pieces["W"][1]
    if black & white:
        square = min(black & white)
        raise InvalidNotationError(
            f"Bad position {_shown(fen)}: square {square} holds two pieces.",
            code="fen_square_shared",
            fen=_shown(fen),
            square=square,
        )
    if _mask(pieces["B"][0]) & _BLACK_CROWN or _mask(pieces["W"][0]) & _WHITE_CROWN:
        raise InvalidNotationError(
            f"Bad position {_shown(fen)}: a man stands on its crowning row; it should be a king.",
            code="fen_man_on_crown_row",
            fen=_shown(fen),
        )
    if len(black) > 12 or len(white) > 12:
        raise InvalidNotationError(
            f"Bad position {_shown(fen)}: a side has more than 12 pieces.",
            code="fen_too_many_pieces",
            fen=_shown(fen),
        )


def _listing(moves: Sequence[Move]) -> str:
    shown = ", ".join(str(m) for m in moves[:8])
    return shown + (", ..." if len(moves) > 8 else "")


_NOTATION = re.compile(r"[0-9]{1,2}(?:-[0-9]{1,2}|(?:x[0-9]{1,2})+)", re.ASCII)


def _parse_notation(text: str, board: Board) -> tuple[tuple[int, ...], bool]:
    """The squares named by ``text`` and whether it is a jump; InvalidNotationError if garbled."""
    if not isinstance(text, str):
        raise InvalidNotationError(
            f"{text!r} is not a checkers move (in {board.fen}).",
            code="not_a_checkers_move",
            text=text,
            fen=board.fen,
        )
    stripped = text.strip().lower() if len(text) <= 200 else text
    if len(stripped) > 100 or not _NOTATION.fullmatch(stripped):
        raise InvalidNotationError(
            f"{_shown(text)} is not a checkers move in {board.fen}: write 11-15 for a move "
            "or 22x15x8 for a jump.",
            code="unreadable_checkers_move",
            text=_shown(text),
            fen=board.fen,
        )
    is_jump = "x" in stripped
    path = tuple(int(part) for part in re.split("[-x]", stripped))
    if not all(1 <= square <= 32 for square in path):
        raise InvalidNotationError(
            f"{_shown(text)} names a square outside 1..32 (position {board.fen}).",
            code="square_out_of_range",
            text=_shown(text),
            fen=board.fen,
        )
    return path, is_jump


# Lookup tables, indexed by square index 0..31. Steps carry the ready-made simple Move so
# generation allocates nothing for them; jumps are (over bit, land bit, land index, over square).
_Step = tuple[int, Move]
_Jump = tuple[int, int, int, int]


def _tables(directions: Iterable[int]) -> tuple[list[tuple[_Step, ...]], list[tuple[_Jump, ...]]]:
    steps: list[tuple[_Step, ...]] = []
    jumps: list[tuple[_Jump, ...]] = []
    for square in range(1, 33):
        row, col = _coords(square)
        sq_steps: list[_Step] = []
        sq_jumps: list[_Jump] = []
        for drow in directions:
            for dcol in (-1, 1):
                to = _square_at(row + drow, col + dcol)
                if to is None:
                    continue
                sq_steps.append((1 << (to - 1), Move((square, to))))
                land = _square_at(row + 2 * drow, col + 2 * dcol)
                if land is not None:
                    sq_jumps.append((1 << (to - 1), 1 << (land - 1), land - 1, to))
        # Ascending targets keep simple moves sorted by path without a sort.
        steps.append(tuple(sorted(sq_steps, key=lambda s: s[1].path)))
        jumps.append(tuple(sq_jumps))
    return steps, jumps


_BLACK_STEPS, _BLACK_JUMPS = _tables((1,))
_WHITE_STEPS, _WHITE_JUMPS = _tables((-1,))
_KING_STEPS, _KING_JUMPS = _tables((1, -1))
# The square jumped over between two squares two apart, for rebuilding moves from paths.
_MIDDLE: dict[tuple[int, int], int] = {
    (sq, land + 1): over for sq in range(1, 33) for _, _, land, over in _KING_JUMPS[sq - 1]
}
_BYTE_SQUARES = [tuple(i + 1 for i in range(8) if byte >> i & 1) for byte in range(256)]


def _squares(mask: int) -> frozenset[int]:
    return frozenset(
        (
            *_BYTE_SQUARES[mask & 0xFF],
            *(s + 8 for s in _BYTE_SQUARES[mask >> 8 & 0xFF]),
            *(s + 16 for s in _BYTE_SQUARES[mask >> 16 & 0xFF]),
            *(s + 24 for s in _BYTE_SQUARES[mask >> 24]),
        )
    )


def _mask(squares: Iterable[int]) -> int:
    mask = 0
    for square in squares:
        mask |= 1 << (square - 1)
    return mask


def _jump_from(
    index: int,
    empty: int,
    opp: int,
    table: list[tuple[_Jump, ...]],
    crown: int,
    path: tuple[int, ...],
    caps: tuple[int, ...],
    out: list[Move],
) -> None:
    """Every maximal jump sequence continuing from ``index`` (depth-first)."""
    continued = False
    for over, land, to, over_sq in table[index]:
        if opp & over and empty & land:
            continued = True
            new_path = (*path, to + 1)
            new_caps = (*caps, over_sq)
            if land & crown:
                out.append(Move(new_path, new_caps))  # crowned: the move ends here
            else:
                # The square left behind becomes free; the captured piece is gone at once
                # (it can never be a landing square, so removing it early changes nothing).
                _jump_from(
                    to,
                    (empty | (1 << index) | over) & ~land,
                    opp & ~over,
                    table,
                    crown,
                    new_path,
                    new_caps,
                    out,
                )
    if not continued:
        out.append(Move(path, caps))


def _generate(bm: int, bk: int, wm: int, wk: int, black: bool) -> list[Move]:
    """Legal moves for the side to move, sorted by path."""
    if black:
        kings, opp, crown = bk, wm | wk, _BLACK_CROWN
        man_steps, man_jumps = _BLACK_STEPS, _BLACK_JUMPS
    else:
        kings, opp, crown = wk, bm | bk, _WHITE_CROWN
        man_steps, man_jumps = _WHITE_STEPS, _WHITE_JUMPS
    own = (bm | bk) if black else (wm | wk)
    empty = ~(own | opp) & _FULL
    jumps: list[Move] = []
    steps: list[Move] = []
    rest = own
    while rest:
        bit = rest & -rest
        rest ^= bit
        index = bit.bit_length() - 1
        if kings & bit:
            jump_table, step_row, piece_crown = _KING_JUMPS, _KING_STEPS[index], 0
        else:
            jump_table, step_row, piece_crown = man_jumps, man_steps[index], crown
        for over, land, _, _ in jump_table[index]:
            if opp & over and empty & land:
                _jump_from(index, empty, opp, jump_table, piece_crown, (index + 1,), (), jumps)
                break
        if not jumps:
            for to, move in step_row:
                if empty & to:
                    steps.append(move)
    if jumps:
        jumps.sort(key=_path_of)
        return jumps
    return steps


def _path_of(move: Move) -> tuple[int, ...]:
    return move.path


def _move_from_path(path: Sequence[int | str]) -> Move:
    """Rebuild a move from its path (trusted data, e.g. a snapshot)."""
    squares = tuple(int(s) for s in path)
    captures = tuple(_MIDDLE[(a, b)] for a, b in itertools.pairwise(squares) if (a, b) in _MIDDLE)
    return Move(squares, captures)


_FEN_PIECE = re.compile(r"(K?)([0-9]{1,2})(?:-([0-9]{1,2}))?", re.ASCII)


@dataclass(frozen=True, slots=True, eq=False)
class Board:
    """A position: where the men and kings of each side stand, and whose turn it is.

    Immutable; :meth:`apply` returns a new board.

    >>> board = Board.from_fen("W:W18,K30:B1,K9")
    >>> board
    Board.from_fen('W:W18,K30:B1,K9')
    >>> sorted(board.white_kings), board.turn
    ([30], <Color.WHITE: 'W'>)
    >>> eval(repr(board)) == board
    True
    """

    black_men: frozenset[int] = frozenset()
    black_kings: frozenset[int] = frozenset()
    white_men: frozenset[int] = frozenset()
    white_kings: frozenset[int] = frozenset()
    turn: Color = Color.BLACK
    # Bitboards mirroring the sets above, for fast move generation.
    _bm: int = field(init=False, repr=False)
    _bk: int = field(init=False, repr=False)
    _wm: int = field(init=False, repr=False)
    _wk: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        sets = (self.black_men, self.black_kings, self.white_men, self.white_kings)
        masks = []
        seen = 0
        for name, squares in zip(("_bm", "_bk", "_wm", "_wk"), sets, strict=True):
            squares = frozenset(squares)
            if not all(isinstance(s, int) and 1 <= s <= 32 for s in squares):
                raise ValueError(f"squares must be 1..32, got {sorted(squares)}")
            mask = _mask(squares)
            if mask & seen:
                raise ValueError(f"a square holds two pieces: {_squares(mask & seen)}")
            seen |= mask
            masks.append(mask)
            object.__setattr__(self, name, mask)
        for name, squares in zip(
            ("black_men", "black_kings", "white_men", "white_kings"), sets, strict=True
        ):
            object.__setattr__(self, name, frozenset(squares))
        if masks[0] & _BLACK_CROWN or masks[2] & _WHITE_CROWN:
            raise ValueError("a man stands on its crowning row; it should be a king")
        if bin(masks[0] | masks[1]).count("1") > 12 or bin(masks[2] | masks[3]).count("1") > 12:
            raise ValueError("a side has more than 12 pieces")
        if not isinstance(self.turn, Color):
            raise ValueError(f"turn must be a Color, got {self.turn!r}")

    @classmethod
    def _of(cls, bm: int, bk: int, wm: int, wk: int, turn: Color) -> Board:
        """A board from bitboards, trusted (skips validation)."""
        board = object.__new__(cls)
        setter = object.__setattr__
        setter(board, "black_men", _squares(bm))
        setter(board, "black_kings", _squares(bk))
        setter(board, "white_men", _squares(wm))
        setter(board, "white_kings", _squares(wk))
        setter(board, "turn", turn)
        setter(board, "_bm", bm)
        setter(board, "_bk", bk)
        setter(board, "_wm", wm)
        setter(board, "_wk", wk)
        return board

    @classmethod
    def initial(cls) -> Board:
        """The start position: Black on 1..12, White on 21..32, Black to move."""
        return cls._of(0xFFF, 0, 0xFFF << 20, 0, Color.BLACK)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self._bm, self._bk, self._wm, self._wk, self.turn) == (
            other._bm,
            other._bk,
            other._wm,
            other._wk,
            other.turn,
        )

    def __hash__(self) -> int:
        return hash((self._bm, self._bk, self._wm, self._wk, self.turn))

    def __repr__(self) -> str:
        return f"Board.from_fen({self.fen!r})"

    def __str__(self) -> str:
        """A text diagram, Black at the top: b/w men, B/W kings, '.' empty dark squares."""
        rows = []
        for row in range(8):
            cells = []
            for col in range(8):
                square = _square_at(row, col)
                cells.append(" " if square is None else self.piece_at(square))
            rows.append(" ".join(cells))
        return "\n".join(rows)

    def piece_at(self, square: int) -> str:
        """``b``/``w`` for a man, ``B``/``W`` for a king, ``.`` for an empty square."""
        bit = 1 << (square - 1)
        for mask, char in ((self._bm, "b"), (self._bk, "B"), (self._wm, "w"), (self._wk, "W")):
            if mask & bit:
                return char
        return "."

    @property
    def fen(self) -> str:
        """PDN FEN: turn, then White's and Black's squares (men ascending, then kings)."""

        def section(color: str, men: frozenset[int], kings: frozenset[int]) -> str:
            items = [str(s) for s in sorted(men)] + [f"K{s}" for s in sorted(kings)]
            return color + ",".join(items)

        return ":".join(
            (
                self.turn.value,
                section("W", self.white_men, self.white_kings),
                section("B", self.black_men, self.black_kings),
            )
        )

    @classmethod
    def from_fen(cls, fen: str) -> Board:
        """Parse PDN FEN such as ``B:W21,22,K30:B1,2,K9`` (sections in either order, square
        ranges like ``1-12``, an optional final ``.``). InvalidNotationError if malformed.

        >>> Board.from_fen("W:B1-3,K4:W32") == Board.from_fen("W:W32:B1,2,3,K4")
        True
        >>> Board.from_fen("B:W1:B2")
        Traceback (most recent call last):
        ...
        engines.errors.InvalidNotationError: Bad position 'B:W1:B2': a man stands on its ...
        """
        if not isinstance(fen, str):
            raise InvalidNotationError(
                f"{fen!r} is not a PDN FEN string.", code="fen_not_text", fen=fen
            )
        if len(fen) > 400:
            raise InvalidNotationError(
                f"{_shown(fen)} is too long for a PDN FEN.", code="fen_too_long", fen=_shown(fen)
            )
        text = fen.strip()
        if text.endswith("."):
            text = text[:-1]
        parts = text.split(":")
        if len(parts) != 3 or parts[0] not in ("B", "W"):
            raise InvalidNotationError(
                f"{_shown(fen)} is not a PDN FEN; expected e.g. 'B:W21,22,K30:B1,2,K9'.",
                code="not_a_fen",
                fen=_shown(fen),
            )
        pieces: dict[str, tuple[set[int], set[int]]] = {}
        for part in parts[1:]:
            color, body = part[:1], part[1:]
            if color not in ("B", "W") or color in pieces:
                raise InvalidNotationError(
                    f"Bad position {_shown(fen)}: need one 'W' and one 'B' section.",
                    code="fen_sections",
                    fen=_shown(fen),
                )
            men: set[int] = set()
            kings: set[int] = set()
            for token in body.split(",") if body else ():
                found = _FEN_PIECE.fullmatch(token)
                if not found:
                    raise InvalidNotationError(
                        f"Bad position {_shown(fen)}: {_shown(token)}.",
                        code="fen_bad_token",
                        fen=_shown(fen),
                        token=_shown(token),
                    )
                first = int(found[2])
                last = int(found[3]) if found[3] else first
                if not 1 <= first <= last <= 32:
                    raise InvalidNotationError(
                        f"Bad position {_shown(fen)}: {_shown(token)} is not within 1..32.",
                        code="fen_square_out_of_range",
                        fen=_shown(fen),
                        token=_shown(token),
                    )
                target = kings if found[1] else men
                for square in range(first, last + 1):
                    if square in men or square in kings:
                        raise InvalidNotationError(
                            f"Bad position {_shown(fen)}: square {square} is listed twice.",
                            code="fen_square_twice",
                            fen=_shown(fen),
                            square=square,
                        )
                    target.add(square)
            pieces[color] = (men, kings)
        _check_fen_pieces(fen, pieces)
        return cls(
            frozenset(pieces["B"][0]),
            frozenset(pieces["B"][1]),
            frozenset(pieces["W"][0]),
            frozenset(pieces["W"][1]),
            Color(parts[0]),
        )

    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move, sorted by path. Jumps only, when any jump exists.

        >>> [str(m) for m in Board.from_fen("B:W14,K2:BK18").legal_moves()]
        ['18x9']
        """
        return tuple(_generate(self._bm, self._bk, self._wm, self._wk, self.turn is Color.BLACK))

    def is_king(self, square: int) -> bool:
        return bool((self._bk | self._wk) >> (square - 1) & 1)

    def apply(self, move: Move) -> Board:
        """The board after ``move``; IllegalMoveError if it is not legal here."""
        if move not in self.legal_moves():
            raise IllegalMoveError(
                f"{move} is not a legal move in {self.fen}.",
                code="checkers_move_illegal",
                move=move,
                fen=self.fen,
            )
        return self._apply(move)

    def _apply(self, move: Move) -> Board:
        src = 1 << (move.path[0] - 1)
        dst = 1 << (move.path[-1] - 1)
        taken = _mask(move.captures)
        bm, bk, wm, wk = self._bm, self._bk, self._wm, self._wk
        if self.turn is Color.BLACK:
            if bk & src:
                bk = bk & ~src | dst
            elif dst & _BLACK_CROWN:
                bm, bk = bm & ~src, bk | dst
            else:
                bm = bm & ~src | dst
            wm, wk = wm & ~taken, wk & ~taken
            return Board._of(bm, bk, wm, wk, Color.WHITE)
        if wk & src:
            wk = wk & ~src | dst
        elif dst & _WHITE_CROWN:
            wm, wk = wm & ~src, wk | dst
        else:
            wm = wm & ~src | dst
        bm, bk = bm & ~taken, bk & ~taken
        return Board._of(bm, bk, wm, wk, Color.BLACK)

    def moves_a_man(self, move: Move) -> bool:
        """Whether ``move`` moves a man (not a king): an irreversible move."""
        return not self.is_king(move.path[0])

    def piece_count(self, color: Color) -> int:
        if color is Color.BLACK:
            return len(self.black_men) + len(self.black_kings)
        return len(self.white_men) + len(self.white_kings)


# --- Game: history and the end of a game ----------------------------------------------------


class Termination(enum.Enum):
    """How a game ended by rule (agreement and resignation belong to the match)."""

    NO_PIECES = "no_pieces"  # the side to move has no pieces left: it loses
    NO_MOVES = "no_moves"  # the side to move has no legal move: it loses
    THREEFOLD_REPETITION = "threefold_repetition"  # automatic draw
    FORTY_MOVE_RULE = "forty_move_rule"  # 40 moves each without capture or man move: draw


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game: how, and the winning colour (None for a draw)."""

    termination: Termination
    winner: Color | None


FORTY_MOVE_PLIES = 80  # the ACF 40-move rule: 40 moves by each side


class Game:
    """One game with its history, for threefold repetition and the 40-move rule.

    >>> game = Game()
    >>> for text in ["11-15", "24-19", "15x24", "28x19"]:
    ...     _ = game.push_text(text)
    >>> game.board.fen
    'B:W19,21,22,23,25,26,27,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12'
    >>> game.quiet_plies, game.outcome() is None
    (0, True)
    """

    def __init__(self, board: Board | None = None) -> None:
        self.start: Board = Board.initial() if board is None else board
        self._moves: list[Move] = []
        # Positions since the last capture or man move: none before it can recur.
        self._reversible: list[Board] = [self.start]

    @property
    def board(self) -> Board:
        return self._reversible[-1]

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(self._moves)

    @property
    def quiet_plies(self) -> int:
        """Plies in a row without a capture or a man moving (the 40-move rule counts these)."""
        return len(self._reversible) - 1

    @property
    def reversible_positions(self) -> tuple[Board, ...]:
        """The positions since the last capture or man move, oldest first, current last."""
        return tuple(self._reversible)

    def repetitions(self) -> int:
        """How many times the current position has occurred (same side to move)."""
        current = self.board
        return sum(1 for b in self._reversible if b == current)

    def legal_moves(self) -> tuple[Move, ...]:
        return () if self.outcome() is not None else self.board.legal_moves()

    def push(self, move: Move) -> None:
        """Play a legal move; IllegalMoveError if not legal or the game is over."""
        board = self.board
        if self.outcome() is not None:
            raise IllegalMoveError(
                f"{move} cannot be played: the game is over ({board.fen}).",
                code="checkers_game_over",
                move=move,
                fen=board.fen,
            )
        new = board.apply(move)
        self._moves.append(move)
        if move.captures or board.moves_a_man(move):
            self._reversible = [new]
        else:
            self._reversible.append(new)

    def push_text(self, text: str) -> Move:
        """Parse ``text`` in the current position and play it."""
        move = Move.parse(text, self.board)
        self.push(move)
        return move

    def outcome(self) -> Outcome | None:
        """None while the game goes on, else how it ended.

        A side to move with no piece or no legal move loses (this is checked first); the third
        occurrence of a position, or 80 plies without capture or man move, is a draw.
        """
        board = self.board
        mover = board.turn
        if board.piece_count(mover) == 0:
            return Outcome(Termination.NO_PIECES, mover.opponent)
        if not board.legal_moves():
            return Outcome(Termination.NO_MOVES, mover.opponent)
        if self.repetitions() >= 3:
            return Outcome(Termination.THREEFOLD_REPETITION, None)
        if self.quiet_plies >= FORTY_MOVE_PLIES:
            return Outcome(Termination.FORTY_MOVE_RULE, None)
        return None

    def is_over(self) -> bool:
        return self.outcome() is not None

    @classmethod
    def _restore(cls, start: Board, moves: list[Move], reversible: list[Board]) -> Game:
        game = cls(start)
        game._moves = moves
        game._reversible = reversible
        return game


# --- Match ----------------------------------------------------------------------------------


class CheckersMatch:
    """A checkers match of ``rules.length`` games won (a draw scores ½ to each seat).

    Driven only by actions. In game ``g`` (1-based) seat ``(g - 1) % 2`` plays Black. Either
    seat may offer a draw while a game is on; the other seat must then accept or decline before
    anything else but a resignation or a concession. A :class:`~engines.actions.Resign` ends the
    game at once, won by the opponent: unlike backgammon, checkers needs no acceptance. Only
    ``ResignLevel.SINGLE`` exists here. Cube actions are refused with a CubeError.
    ``spec`` (a class-level trait) is :data:`engines.spec.CHECKERS`.

    >>> from engines.actions import Move as Play, OfferDraw, AcceptDraw
    >>> match = CheckersMatch(MatchRules(length=1))
    >>> match.black_seat, match.turn
    (0, 0)
    >>> _ = match.apply(Play(player=0, move="11-15"))
    >>> _ = match.apply(OfferDraw(player=1))
    >>> match.phase, match.actor
    (<Phase.DRAW_OFFERED: 'draw_offered'>, 0)
    >>> result = match.apply(AcceptDraw(player=0))
    >>> match.score, match.game_number, match.black_seat, match.is_over()
    ((0.5, 0.5), 2, 1, False)
    """

    spec: ClassVar[GameSpec] = CHECKERS

    def __init__(self, rules: MatchRules | None = None) -> None:
        rules = MatchRules(length=1) if rules is None else rules
        if rules.length < self.spec.min_length:
            raise GameError(
                f"A checkers match is at least 1 game long, not {rules.length}.",
                code="checkers_length",
                length=rules.length,
            )
        self.kind: GameKind = GameKind.CHECKERS
        self.rules: MatchRules = rules
        self.actions: list[act.Action] = []
        self.game: Game = Game()
        self._games: list[GameResult] = []
        self._draw_offer_by: int | None = None
        self._over = False
        self._winner: int | None = None
        self.last_move: tuple[int, Move] | None = None

    # -- protocol properties --

    @property
    def game_number(self) -> int:
        """1 for the first game; after the match ends, the number of the last game played."""
        return len(self._games) + (0 if self._over else 1)

    @property
    def black_seat(self) -> int:
        return (self.game_number - 1) % 2

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def position(self) -> Board:
        """The current board (the same as :attr:`board`: the protocol's name)."""
        return self.game.board

    @property
    def phase(self) -> Phase:
        if self._over:
            return Phase.MATCH_OVER
        if self._draw_offer_by is not None:
            return Phase.DRAW_OFFERED
        return Phase.MOVE

    @property
    def turn(self) -> int:
        return self.seat_of(self.board.turn)

    @property
    def actor(self) -> int | None:
        if self._over:
            return None
        if self._draw_offer_by is not None:
            return 1 - self._draw_offer_by
        return self.turn

    @property
    def draw_offered_by(self) -> int | None:
        return self._draw_offer_by

    @property
    def score(self) -> tuple[float, float]:
        points = [0.0, 0.0]
        for result in self._games:
            if result.winner is None:
                points[0] += result.points
                points[1] += result.points
            else:
                points[result.winner] += result.points
        return points[0], points[1]

    @property
    def position_id(self) -> str:
        return self.board.fen

    @property
    def games(self) -> tuple[GameResult, ...]:
        return tuple(self._games)

    # -- protocol members a game without dice, cube or resignation offers answers neutrally --

    @property
    def dice(self) -> None:
        """Always None: checkers has no dice."""
        return None

    @property
    def opening_dice(self) -> None:
        """Always None: checkers has no opening roll."""
        return None

    @property
    def cube(self) -> None:
        """Always None: checkers has no doubling cube."""
        return None

    @property
    def cube_offered_by(self) -> None:
        return None

    @property
    def crawford_game(self) -> bool:
        return False

    @property
    def post_crawford(self) -> bool:
        return False

    @property
    def resign_offer(self) -> None:
        """Always None: a resignation ends the game at once."""
        return None

    def can_double(self, seat: int) -> bool:
        """Always False: checkers has no doubling cube."""
        return False

    def colours(self) -> tuple[str, str]:
        """Seat 0's and seat 1's colours in the current game ("black" or "white")."""
        return (self.color_of(0).name.lower(), self.color_of(1).name.lower())

    def seat_of(self, color: Color) -> int:
        """The seat playing ``color`` in the current game."""
        return self.black_seat if color is Color.BLACK else 1 - self.black_seat

    def color_of(self, seat: int) -> Color:
        return Color.BLACK if seat == self.black_seat else Color.WHITE

    def legal_moves(self) -> LegalMoves[Move]:
        """The legal moves of the side to move (none while a draw offer waits or once over),
        generated when first read."""
        if self.phase is not Phase.MOVE:
            return LegalMoves((), str)
        return LegalMoves(self.board.legal_moves, str)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text, self.board)

    def format_move(self, move: Any) -> str:
        return str(move)

    def is_over(self) -> bool:
        return self._over

    def winner(self) -> int | None:
        return self._winner

    # -- actions --

    def apply(self, action: act.Action) -> ActionResult:
        """Apply one action, or raise a GameError and change nothing."""
        result = self._dispatch(action)
        self.actions.append(action)
        return result

    def _dispatch(self, action: act.Action) -> ActionResult:
        player = action.player
        if player not in (0, 1):
            raise NotYourTurnError(
                f"{type(action).__name__} needs a player seat (0 or 1).",
                code="needs_seat",
                type_name=type(action).__name__,
            )
        if self._over:
            raise PhaseError("The match is over.", code="match_over")
        if isinstance(action, act.ConcedeMatch):
            return self._end_game(action, 1 - player, ResultKind.FORFEIT, concede=True)
        if isinstance(action, act.Resign):
            if action.level not in self.spec.resign_levels:
                raise GameError(
                    "In checkers a resignation simply loses the game (level 1).",
                    code="checkers_resign_level",
                )
            return self._end_game(action, 1 - player, ResultKind.RESIGN)
        if isinstance(action, act.Double | act.Take | act.Drop):
            raise CubeError(
                CubeErrorReason.NO_CUBE, "Checkers has no doubling cube.", code="checkers_no_cube"
            )
        if self._draw_offer_by is not None:
            if not isinstance(action, act.AcceptDraw | act.DeclineDraw):
                raise PhaseError(
                    "A draw offer is waiting for an answer: accept or decline it.",
                    code="draw_offer_waiting",
                )
            if player == self._draw_offer_by:
                raise NotYourTurnError(
                    "Your draw offer is waiting for your opponent's answer.", code="own_draw_offer"
                )
            if isinstance(action, act.AcceptDraw):
                return self._end_game(action, None, ResultKind.DRAW)
            self._draw_offer_by = None
            return ActionResult(action)
        if isinstance(action, act.OfferDraw):
            self._draw_offer_by = player
            return ActionResult(action)
        if isinstance(action, act.AcceptDraw | act.DeclineDraw):
            raise PhaseError("There is no draw offer to answer.", code="no_draw_offer")
        if isinstance(action, act.Move):
            if player != self.turn:
                raise NotYourTurnError(
                    f"It is your opponent's turn ({self.board.turn.name.lower()} to move).",
                    code="checkers_not_your_turn",
                    name=self.board.turn.name.lower(),
                )
            move = Move.parse(action.move, self.board)
            self.game.push(move)
            self.last_move = (player, move)
            outcome = self.game.outcome()
            if outcome is None:
                return ActionResult(action)
            if outcome.winner is None:
                return self._end_game(action, None, ResultKind.DRAW)
            return self._end_game(action, self.seat_of(outcome.winner), ResultKind.SINGLE)
        raise PhaseError(
            f"{type(action).__name__} does not apply to checkers.",
            code="not_a_checkers_action",
            type_name=type(action).__name__,
        )

    def _end_game(
        self, action: act.Action, winner: int | None, kind: ResultKind, concede: bool = False
    ) -> ActionResult:
        points = 0.5 if winner is None else 1.0
        if concede and winner is not None:
            # Leaving concedes the match: the winner gets what they still needed, as in the
            # dice games, so the final score shows who won.
            points = max(points, self.rules.length - self.score[winner])
        result = GameResult(self.game_number, winner, kind, points)
        self._games.append(result)
        self._draw_offer_by = None
        score = self.score
        length = self.rules.length
        if concede:
            self._over, self._winner = True, winner
        elif score[0] >= length or score[1] >= length:
            self._over = True
            # Both at the length at once can only come from a draw: a tie, a drawn match.
            self._winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
        if not self._over:
            self.game = Game()
            self.last_move = None
        return ActionResult(action, game_result=result, match_over=self._over)

    # -- persistence --

    def snapshot(self) -> dict[str, Any]:
        """The full state as plain JSON data (no action list)."""
        return {
            "kind": self.kind.value,
            "rules": self.rules.to_dict(),
            # Derived values, for people reading the store; from_snapshot ignores them.
            "phase": self.phase.value,
            "score": list(self.score),
            "game_number": self.game_number,
            "black_seat": self.black_seat,
            "position": self.board.fen,
            "games": [g.to_dict() for g in self._games],
            "over": self._over,
            "winner": self._winner,
            "draw_offer_by": self._draw_offer_by,
            "game": {
                "start": self.game.start.fen,
                "moves": [str(m) for m in self.game.moves],
                "reversible": [b.fen for b in self.game.reversible_positions],
            },
            "last_move": None
            if self.last_move is None
            else [self.last_move[0], list(self.last_move[1].path)],
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> CheckersMatch:
        """Rebuild a match from :meth:`snapshot` data (its ``actions`` list starts empty)."""
        if data.get("kind") != GameKind.CHECKERS.value:
            raise ValueError(f"not a checkers snapshot: kind {data.get('kind')!r}")
        match = cls(MatchRules.from_dict(data["rules"]))
        match._games = [GameResult.from_dict(g) for g in data["games"]]
        match._over = bool(data["over"])
        winner = data["winner"]
        match._winner = None if winner is None else int(winner)
        offer = data["draw_offer_by"]
        match._draw_offer_by = None if offer is None else int(offer)
        game = data["game"]
        moves = [_move_from_path(re.split("[-x]", text)) for text in game["moves"]]
        reversible = [Board.from_fen(fen) for fen in game["reversible"]]
        match.game = Game._restore(Board.from_fen(game["start"]), moves, reversible)
        last = data["last_move"]
        match.last_move = None if last is None else (int(last[0]), _move_from_path(last[1]))
        return match

    @classmethod
    def replay(cls, rules: MatchRules, actions: Iterable[act.Action]) -> CheckersMatch:
        """The match that ``actions`` produce; a refused action raises its GameError."""
        match = cls(rules)
        for action in actions:
            match.apply(action)
        return match


# --- PDN export -----------------------------------------------------------------------------


def _pdn_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def to_pdn(
    rules: MatchRules,
    actions: Iterable[act.Action],
    names: tuple[str, str] = ("Seat 0", "Seat 1"),
    event: str = "tablebot",
    date: str = "????.??.??",
) -> str:
    """Standard PDN for every game of a match, rebuilt from its actions.

    ``names`` are the seats' names; each game's Black and White tags follow the alternating
    colours. Result ``1-0`` means Black (who moves first) won, ``0-1`` White, ``1/2-1/2`` a
    draw, ``*`` a game still going on. Games with no move and no result are left out.

    >>> from engines.actions import Move as Play, Resign
    >>> acts = [Play(player=0, move="11-15"), Play(player=1, move="23-19"), Resign(player=1)]
    >>> print(to_pdn(MatchRules(length=1), acts, names=("Ann", "Bob"), date="2024.05.01"))
    [Event "tablebot"]
    [Date "2024.05.01"]
    [Round "1"]
    [Black "Ann"]
    [White "Bob"]
    [Result "1-0"]
    [GameType "21"]
    <BLANKLINE>
    1. 11-15 23-19 1-0
    <BLANKLINE>
    """
    match = CheckersMatch(rules)
    records: list[tuple[int, int, list[str], str]] = []  # (round, black seat, moves, result)
    moves: list[str] = []
    for action in actions:
        number, black = match.game_number, match.black_seat
        text = str(match.parse_move(action.move)) if isinstance(action, act.Move) else None
        result = match.apply(action)
        if text is not None:
            moves.append(text)
        if result.game_result is not None:
            winner = result.game_result.winner
            tag = "1/2-1/2" if winner is None else ("1-0" if winner == black else "0-1")
            records.append((number, black, moves, tag))
            moves = []
    if moves:
        records.append((match.game_number, match.black_seat, moves, "*"))
    out: list[str] = []
    for number, black, game_moves, tag in records:
        out += [
            f'[Event "{_pdn_escape(event)}"]',
            f'[Date "{_pdn_escape(date)}"]',
            f'[Round "{number}"]',
            f'[Black "{_pdn_escape(names[black])}"]',
            f'[White "{_pdn_escape(names[1 - black])}"]',
            f'[Result "{tag}"]',
            '[GameType "21"]',
            "",
        ]
        tokens: list[str] = []
        for ply, text in enumerate(game_moves):
            if ply % 2 == 0:
                tokens.append(f"{ply // 2 + 1}.")
            tokens.append(text)
        tokens.append(tag)
        line = ""
        for token in tokens:
            if line and len(line) + 1 + len(token) > 79:
                out.append(line)
                line = token
            else:
                line = f"{line} {token}" if line else token
        out += [line, ""]
    return "\n".join(out)
