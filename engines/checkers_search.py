"""A checkers robot: alpha-beta search for the five playing levels, hints and draw offers.

Pure Python over bitboards. A position is four 32-bit ints (Black men, Black kings, White
men, White kings; bit ``i`` is square ``i + 1``, as in :mod:`engines.checkers`) and the side
to move. Moves are generated bit-parallel: simple moves by shifting whole bitboards (every
square's diagonal neighbours are ``±3``, ``±4`` or ``±5`` bits away, by row parity), pieces
able to jump are found by shifts too, and only they follow their jump sequences square by
square. Inside the search a move is ``(from bit, to bit, captured bits)``: two jump paths that
capture the same pieces between the same squares lead to the same position, and are one move
here (the public :meth:`engines.checkers.Board.legal_moves` lists each path).

The search is negamax alpha-beta with principal-variation windows, a transposition table keyed
by Zobrist hashes (which master keeps between its moves), move ordering (the table's move,
killers, the history heuristic), late move reductions for master (a quiet move ordered after
the first three is searched a ply shallower, and again at full depth if it looks better),
quiescence over captures (a capture is mandatory, so a position with one is never quiet: the
search goes on through every capture sequence before it evaluates), iterative deepening under
a time budget read from an injected clock, and a node limit. A position that repeats one
earlier in the game or on the search path scores as a draw, as does one 80 plies after the
last capture or man move (the 40-move rule).

Scores are in hundredths of a man from the side to move: a man is 100, a king
:data:`KING_VALUE`, a draw 0, a win ``WIN - plies`` (a loss in ``n`` plies is ``n - WIN``).
:func:`equity` maps a score into [-1, 1] for hints.

A two-for-one shot: Black gives a man on 23 and takes two back, crowning on 29.

>>> board = Board.from_fen("B:W11,25,27:B15,18,19")
>>> result = search(board, depth=6)
>>> [str(move) for move in result.pv[:3]], result.score > 100
(['18-23', '27x18', '15x22x29'], True)
>>> [(str(move), score > 100) for move, score in analyse(board, depth=6)][:2]
[('18-23', True), ('19-23', False)]

Two kings beat one, even from its double corner (a forced win in 29 plies):

>>> result = search(Board.from_fen("B:WK28:BK1,K2"), depth=30)
>>> result.score, equity(result.score), str(result.move)
(9971, 1.0, '2-7')
"""

from __future__ import annotations

import enum
import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from engines.checkers import Board, Color, Move
from engines.errors import GameError

__all__ = [
    "DRAW_ACCEPT_MARGIN",
    "DRAW_OFFER_MARGIN",
    "DRAW_OFFER_QUIET_PLIES",
    "EQUITY_SCALE",
    "KING_VALUE",
    "LEVELS",
    "OPENING_PIECES",
    "RESIGN_MARGIN",
    "RESIGN_TURNS",
    "WIN",
    "BitMove",
    "Brain",
    "Clock",
    "Endgames",
    "Level",
    "LevelSettings",
    "NoLegalMoveError",
    "ScoredMove",
    "SearchResult",
    "Turn",
    "accept_draw",
    "analyse",
    "bit_moves",
    "choose_move",
    "decide",
    "equity",
    "evaluate",
    "hint",
    "in_the_opening",
    "is_win_score",
    "level_settings",
    "search",
    "should_offer_draw",
    "should_resign",
    "slip_move",
]

Clock = Callable[[], float]
"""A clock in seconds (``time.monotonic`` by default); tests pass a fake one."""

WIN = 10_000
"""The score of a won position at the root; a win in ``n`` plies scores ``WIN - n``."""
_MAX_PLY = 256  # deeper than any search goes: scores beyond WIN - _MAX_PLY are wins
_INF = 30_000
_MAX_DEPTH = 64  # iterative deepening stops here (small endgames reach it quickly)
_FORTY_MOVE_PLIES = 80  # engines.checkers.FORTY_MOVE_PLIES

KING_VALUE = 135
"""A king, in hundredths of a man."""


class Endgames(Protocol):
    """An endgame database the search probes (:class:`engines.checkers_endgame.Tablebase`):
    for a position of at most ``pieces`` pieces, its outcome for the side to move (1 win, 0
    draw, -1 loss) and the plies to the end with best play, or None if it isn't there."""

    pieces: int

    def probe(self, bm: int, bk: int, wm: int, wk: int, black: bool) -> tuple[int, int] | None: ...


class NoLegalMoveError(GameError):
    """The side to move has no legal move (or no piece): the game is over, nothing to search."""


# --- Geometry and tables ----------------------------------------------------------------------
# Row r (0..7, from Black's side) holds bits 4r..4r+3; on even rows the squares sit on columns
# 1, 3, 5, 7, on odd rows on 0, 2, 4, 6. A step up (towards White) is +4 from every square, +5
# from an even row's first three squares and +3 from an odd row's last three; a step down is
# -4, -3 from those even squares, -5 from those odd ones. A jump is two steps the same way.

_FULL = (1 << 32) - 1
_BLACK_CROWN = 0xF << 28  # squares 29..32
_WHITE_CROWN = 0xF  # squares 1..4


def _rows(rows: Iterable[int], indexes: Iterable[int]) -> int:
    wanted = tuple(indexes)
    return sum(1 << (4 * r + i) for r in rows for i in wanted)


_EVEN = _rows((0, 2, 4, 6), range(4))
_ODD = _rows((1, 3, 5, 7), range(4))
_E3 = _rows((0, 2, 4, 6), (0, 1, 2))  # even-row squares with a +5 / -3 neighbour
_O3 = _rows((1, 3, 5, 7), (1, 2, 3))  # odd-row squares with a +3 / -5 neighbour
_LEFT_OK = _rows(range(8), (1, 2, 3))  # column >= 2: room to jump towards column 0
_RIGHT_OK = _rows(range(8), (0, 1, 2))  # column <= 5: room to jump towards column 7


def _coords(index: int) -> tuple[int, int]:
    row, i = divmod(index, 4)
    return row, 2 * i + (1 if row % 2 == 0 else 0)


def _index_at(row: int, col: int) -> int | None:
    if 0 <= row < 8 and 0 <= col < 8 and (row + col) % 2 == 1:
        return 4 * row + col // 2
    return None


_Jump = tuple[int, int, int]  # (over bit, landing bit, landing index)


def _jump_table(drows: tuple[int, ...]) -> tuple[tuple[_Jump, ...], ...]:
    table = []
    for index in range(32):
        row, col = _coords(index)
        jumps = []
        for drow in drows:
            for dcol in (-1, 1):
                over = _index_at(row + drow, col + dcol)
                land = _index_at(row + 2 * drow, col + 2 * dcol)
                if over is not None and land is not None:
                    jumps.append((1 << over, 1 << land, land))
        table.append(tuple(jumps))
    return tuple(table)


_UP_JUMPS = _jump_table((1,))  # Black men
_DOWN_JUMPS = _jump_table((-1,))  # White men
_KING_JUMPS = _jump_table((1, -1))

BitMove = tuple[int, int, int]
"""A move inside the search: (from bit, to bit, captured bits)."""
_IMove = BitMove


# --- Move generation --------------------------------------------------------------------------


def _up_jumpers(pieces: int, opp: int, empty: int) -> int:
    """The pieces among ``pieces`` that can jump towards White's side."""
    land7 = empty >> 7
    land9 = empty >> 9
    return pieces & (
        (_EVEN & _LEFT_OK & (opp >> 4) & land7)
        | (_ODD & _LEFT_OK & (opp >> 3) & land7)
        | (_EVEN & _RIGHT_OK & (opp >> 5) & land9)
        | (_ODD & _RIGHT_OK & (opp >> 4) & land9)
    )


def _down_jumpers(pieces: int, opp: int, empty: int) -> int:
    """The pieces among ``pieces`` that can jump towards Black's side."""
    land7 = empty << 7
    land9 = empty << 9
    return pieces & (
        (_ODD & _RIGHT_OK & (opp << 4) & land7)
        | (_EVEN & _RIGHT_OK & (opp << 3) & land7)
        | (_EVEN & _LEFT_OK & (opp << 4) & land9)
        | (_ODD & _LEFT_OK & (opp << 5) & land9)
    )


def _follow(
    index: int,
    start: int,
    caps: int,
    opp: int,
    empty: int,
    table: tuple[tuple[_Jump, ...], ...],
    crown: int,
    out: list[_IMove],
) -> None:
    """Every maximal jump sequence from ``index``; a man that reaches ``crown`` stops there.

    ``empty`` includes the square the piece started from. A captured piece leaves ``opp`` at
    once: it cannot be jumped twice, and (by parity) no jump could ever land on it.
    """
    more = False
    for over, land, to in table[index]:
        if opp & over and empty & land:
            more = True
            if land & crown:
                out.append((start, land, caps | over))
            else:
                _follow(to, start, caps | over, opp ^ over, empty, table, crown, out)
    if not more:
        out.append((start, 1 << index, caps))


def _jumps(
    jumpers: int,
    kings: int,
    opp: int,
    empty: int,
    man_table: tuple[tuple[_Jump, ...], ...],
    crown: int,
) -> list[_IMove]:
    out: list[_IMove] = []
    while jumpers:
        bit = jumpers & -jumpers
        jumpers ^= bit
        if bit & kings:
            _follow(bit.bit_length() - 1, bit, 0, opp, empty | bit, _KING_JUMPS, 0, out)
        else:
            _follow(bit.bit_length() - 1, bit, 0, opp, empty | bit, man_table, crown, out)
    if len(out) > 1:
        out = list(dict.fromkeys(out))  # a king's loop taken either way round is one move
    return out


def _black_moves(bm: int, bk: int, wm: int, wk: int) -> tuple[list[_IMove], bool]:
    """Black's legal moves and whether they are captures (then they are all captures)."""
    opp = wm | wk
    pieces = bm | bk
    empty = _FULL ^ (pieces | opp)
    jumpers = _up_jumpers(pieces, opp, empty)
    if bk:
        jumpers |= _down_jumpers(bk, opp, empty)
    if jumpers:
        return _jumps(jumpers, bk, opp, empty, _UP_JUMPS, _BLACK_CROWN), True
    moves: list[_IMove] = []
    append = moves.append
    targets = (pieces << 4) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to >> 4, to, 0))
    targets = ((pieces & _E3) << 5) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to >> 5, to, 0))
    targets = ((pieces & _O3) << 3) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to >> 3, to, 0))
    if bk:
        _down_steps(bk, empty, append)
    return moves, False


def _white_moves(bm: int, bk: int, wm: int, wk: int) -> tuple[list[_IMove], bool]:
    """White's legal moves and whether they are captures."""
    opp = bm | bk
    pieces = wm | wk
    empty = _FULL ^ (pieces | opp)
    jumpers = _down_jumpers(pieces, opp, empty)
    if wk:
        jumpers |= _up_jumpers(wk, opp, empty)
    if jumpers:
        return _jumps(jumpers, wk, opp, empty, _DOWN_JUMPS, _WHITE_CROWN), True
    moves: list[_IMove] = []
    append = moves.append
    _down_steps(pieces, empty, append)
    if wk:
        targets = (wk << 4) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            append((to >> 4, to, 0))
        targets = ((wk & _E3) << 5) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            append((to >> 5, to, 0))
        targets = ((wk & _O3) << 3) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            append((to >> 3, to, 0))
    return moves, False


def _down_steps(pieces: int, empty: int, append: Callable[[_IMove], None]) -> None:
    targets = (pieces >> 4) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to << 4, to, 0))
    targets = ((pieces & _E3) >> 3) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to << 3, to, 0))
    targets = ((pieces & _O3) >> 5) & empty
    while targets:
        to = targets & -targets
        targets ^= to
        append((to << 5, to, 0))


def bit_moves(bm: int, bk: int, wm: int, wk: int, black: bool) -> tuple[list[BitMove], bool]:
    """The legal moves of the side to move in the search's form, ``(from bit, to bit, captured
    bits)`` over the bitboards, and whether they are captures (then all are)."""
    return _black_moves(bm, bk, wm, wk) if black else _white_moves(bm, bk, wm, wk)


def _play(
    bm: int, bk: int, wm: int, wk: int, black: bool, move: _IMove
) -> tuple[int, int, int, int]:
    """The bitboards after ``move`` (no Zobrist key: for the root and the PV, not the search)."""
    frm, to, cap = move
    if black:
        if frm & bk:
            bk ^= frm ^ to
        elif to & _BLACK_CROWN:
            bm ^= frm
            bk |= to
        else:
            bm ^= frm ^ to
        return bm, bk, wm & ~cap, wk & ~cap
    if frm & wk:
        wk ^= frm ^ to
    elif to & _WHITE_CROWN:
        wm ^= frm
        wk |= to
    else:
        wm ^= frm ^ to
    return bm & ~cap, bk & ~cap, wm, wk


# --- Zobrist keys -----------------------------------------------------------------------------

_zobrist_rng = random.Random(0x5EED_C4EC)


def _zobrist_table() -> dict[int, int]:
    return {1 << i: _zobrist_rng.getrandbits(64) for i in range(32)}


_Z_BM = _zobrist_table()
_Z_BK = _zobrist_table()
_Z_WM = _zobrist_table()
_Z_WK = _zobrist_table()
_Z_BLACK = _zobrist_rng.getrandbits(64)  # in the key when Black is to move


def _zobrist(bm: int, bk: int, wm: int, wk: int, black: bool) -> int:
    key = _Z_BLACK if black else 0
    for mask, table in ((bm, _Z_BM), (bk, _Z_BK), (wm, _Z_WM), (wk, _Z_WK)):
        while mask:
            bit = mask & -mask
            mask ^= bit
            key ^= table[bit]
    return key


def _masks(board: Board) -> tuple[int, int, int, int]:
    def mask(squares: frozenset[int]) -> int:
        return sum(1 << (s - 1) for s in squares)

    return (
        mask(board.black_men),
        mask(board.black_kings),
        mask(board.white_men),
        mask(board.white_kings),
    )


# --- Evaluation -------------------------------------------------------------------------------

# Sums of row numbers by binary digit: rows with bit k set.
_ROW_BIT0 = _rows((1, 3, 5, 7), range(4))
_ROW_BIT1 = _rows((2, 3, 6, 7), range(4))
_ROW_BIT2 = _rows((4, 5, 6, 7), range(4))
_CENTRE_MEN = sum(1 << (s - 1) for s in (14, 15, 18, 19))
_CENTRE = sum(1 << (s - 1) for s in (10, 11, 14, 15, 18, 19, 22, 23))
_INNER = sum(1 << (s - 1) for s in (10, 11, 22, 23))
_EDGE = sum(1 << (s - 1) for s in (1, 2, 3, 4, 5, 12, 13, 20, 21, 28, 29, 30, 31, 32))
_BLACK_BRIDGE = (1 << 0) | (1 << 2)  # squares 1 and 3
_WHITE_BRIDGE = (1 << 29) | (1 << 31)  # squares 30 and 32
_DOUBLE_CORNERS = sum(1 << (s - 1) for s in (1, 5, 28, 32))
_ROW_OF = tuple(_coords(i)[0] for i in range(32))
_COL_OF = tuple(_coords(i)[1] for i in range(32))


def _cone(index: int, up: bool) -> int:
    """The squares a man on ``index`` could be stopped from: every square ahead of it within
    the diagonals that widen towards the crowning row."""
    row, col = _coords(index)
    ahead = range(row + 1, 8) if up else range(row - 1, -1, -1)
    return sum(
        1 << j
        for j in range(32)
        if _ROW_OF[j] in ahead and abs(_COL_OF[j] - col) <= abs(_ROW_OF[j] - row)
    )


_BLACK_CONE = tuple(_cone(i, True) for i in range(32))
_WHITE_CONE = tuple(_cone(i, False) for i in range(32))
_BLACK_RUNNERS = _rows((5, 6), range(4))  # Black men two steps or fewer from the crown
_WHITE_RUNNERS = _rows((1, 2), range(4))
_BLACK_STEPS = tuple(
    7 - row for row in _ROW_OF
)  # a Black man's steps to the crown (White's: the row)
# Weights, in hundredths of a man, fitted to the results of about 1,500 self-play games (Texel's
# method: a logistic fit of the evaluation to each position's result; docs/robot-internals.md).
_RUNAWAY = 58  # a man nothing can stop from crowning, less _RUNAWAY_STEP per step to go
_RUNAWAY_STEP = 24
_TEMPO_OPENING = -8  # per row a man has advanced, with all 24 pieces on the board
_TEMPO_ENDING = 7  # per row, with none: men hold back early and run late
_BRIDGE_MAN = 15  # a man on its bridge square (1, 3 for Black; 30, 32 for White)
_BRIDGE_BOTH = 2  # both bridge squares held
_BACK_RANK = 9  # a man on its own back rank while the enemy has men to crown
_CENTRE_MAN = -9  # a man on 14, 15, 18 or 19: exposed to exchanges
_INNER_MAN = -7  # a man on 10, 11, 22 or 23
_CENTRE_KING = 3
_EDGE_KING = 8
_TRAPPED_KING = 40  # a king with no square to step to
_MOBILITY = 2  # per square a side's pieces can step to
_HUNT = 2  # per square of distance between a winning side's king and the nearest enemy
_CORNER_REFUGE = 4  # a losing side's king in a double corner


def _evaluate(bm: int, bk: int, wm: int, wk: int) -> int:
    """The static score from Black's side (positive: Black is better)."""
    nbm = bm.bit_count()
    nbk = bk.bit_count()
    nwm = wm.bit_count()
    nwk = wk.bit_count()
    black = 100 * nbm + KING_VALUE * nbk
    white = 100 * nwm + KING_VALUE * nwk
    score = black - white
    if score:
        # Trading down when ahead: the same lead counts for more with fewer pieces on the board.
        bonus = abs(score) * (2400 - black - white) // 4800
        score += bonus if score > 0 else -bonus
    pieces = nbm + nbk + nwm + nwk
    tempo = 0
    if bm:
        tempo += (
            (bm & _ROW_BIT0).bit_count()
            + 2 * (bm & _ROW_BIT1).bit_count()
            + 4 * (bm & _ROW_BIT2).bit_count()
        )
        score += _CENTRE_MAN * (bm & _CENTRE_MEN).bit_count()
        score += _INNER_MAN * (bm & _INNER).bit_count()
        if wm:
            bridge = (bm & _BLACK_BRIDGE).bit_count()
            score += _BRIDGE_MAN * bridge + (_BRIDGE_BOTH if bridge == 2 else 0)
            score += _BACK_RANK * (bm & _WHITE_CROWN).bit_count()
    if wm:
        tempo -= (
            7 * nwm
            - (wm & _ROW_BIT0).bit_count()
            - 2 * (wm & _ROW_BIT1).bit_count()
            - 4 * (wm & _ROW_BIT2).bit_count()
        )
        score -= _CENTRE_MAN * (wm & _CENTRE_MEN).bit_count()
        score -= _INNER_MAN * (wm & _INNER).bit_count()
        if bm:
            bridge = (wm & _WHITE_BRIDGE).bit_count()
            score -= _BRIDGE_MAN * bridge + (_BRIDGE_BOTH if bridge == 2 else 0)
            score -= _BACK_RANK * (wm & _BLACK_CROWN).bit_count()
    if tempo:
        weighted = tempo * (_TEMPO_OPENING * pieces + _TEMPO_ENDING * (24 - pieces))
        score += weighted // 24 if weighted >= 0 else -(-weighted // 24)  # same for both sides
    empty = _FULL ^ (bm | bk | wm | wk)
    if bk or wk:
        score += _CENTRE_KING * ((bk & _CENTRE).bit_count() - (wk & _CENTRE).bit_count())
        score -= _EDGE_KING * ((bk & _EDGE).bit_count() - (wk & _EDGE).bit_count())
        score -= _TRAPPED_KING * (_trapped(bk, empty) - _trapped(wk, empty))
        if black != white and pieces <= 8:
            score += _endgame(bm, bk, wm, wk, black > white)
    if not wk and bm & _BLACK_RUNNERS:
        score += _runaways(bm & _BLACK_RUNNERS, wm, _BLACK_CONE, _BLACK_STEPS)
    if not bk and wm & _WHITE_RUNNERS:
        score -= _runaways(wm & _WHITE_RUNNERS, bm, _WHITE_CONE, _ROW_OF)
    # Mobility-lite: the squares each side's pieces could step to.
    up = bm | bk
    black_to = ((up << 4) | ((up & _E3) << 5) | ((up & _O3) << 3)) & empty
    if bk:
        black_to |= ((bk >> 4) | ((bk & _E3) >> 3) | ((bk & _O3) >> 5)) & empty
    down = wm | wk
    white_to = ((down >> 4) | ((down & _E3) >> 3) | ((down & _O3) >> 5)) & empty
    if wk:
        white_to |= ((wk << 4) | ((wk & _E3) << 5) | ((wk & _O3) << 3)) & empty
    return score + _MOBILITY * (black_to.bit_count() - white_to.bit_count())


def _trapped(kings: int, empty: int) -> int:
    """How many of ``kings`` have no empty square next to them."""
    if not kings:
        return 0
    free = (
        (empty >> 4)
        | ((empty >> 5) & _E3)
        | ((empty >> 3) & _O3)
        | (empty << 4)
        | ((empty << 3) & _E3)
        | ((empty << 5) & _O3)
    )
    return (kings & ~free).bit_count()


def _runaways(runners: int, blockers: int, cones: Sequence[int], steps: Sequence[int]) -> int:
    """The bonus of the ``runners`` with no blocker in their cone, less per step to go."""
    bonus = 0
    while runners:
        bit = runners & -runners
        runners ^= bit
        index = bit.bit_length() - 1
        if not cones[index] & blockers:
            bonus += _RUNAWAY - _RUNAWAY_STEP * steps[index]
    return bonus


def _endgame(bm: int, bk: int, wm: int, wk: int, black_ahead: bool) -> int:
    """Few pieces, one side ahead: its kings hunt the enemy, whose kings hide in double corners.

    From Black's side, like :func:`_evaluate`.
    """
    hunters, prey, prey_kings = (bk, wm | wk, wk) if black_ahead else (wk, bm | bk, bk)
    bonus = 0
    while hunters:
        bit = hunters & -hunters
        hunters ^= bit
        index = bit.bit_length() - 1
        row, col = _ROW_OF[index], _COL_OF[index]
        nearest = 7
        rest = prey
        while rest:
            other = rest & -rest
            rest ^= other
            j = other.bit_length() - 1
            nearest = min(nearest, max(abs(_ROW_OF[j] - row), abs(_COL_OF[j] - col)))
        bonus -= _HUNT * nearest
    bonus -= _CORNER_REFUGE * (prey_kings & _DOUBLE_CORNERS).bit_count()
    return bonus if black_ahead else -bonus


def evaluate(board: Board) -> int:
    """The static evaluation of ``board`` from the side to move, in hundredths of a man.

    Material (a man 100, a king :data:`KING_VALUE`, a lead worth more as pieces come off),
    then terms whose weights were fitted to self-play results (benchmarks/checkers_tuning.py):
    advancement (tempo: a cost with the board full, a gain as it empties), the bridge (men on
    1 and 3, or 30 and 32) and the back rank while the enemy still has men to crown, men on
    the centre squares (a cost), kings off the edges, trapped kings, runaway men (two steps
    or fewer from the crown with no enemy man ahead and no enemy king), mobility (the squares
    a side's pieces could step to) and, with few pieces left, the stronger side's kings
    closing in. No search: a pending capture is not seen (see :func:`search`).

    >>> evaluate(Board.initial())
    0
    >>> evaluate(Board.from_fen("W:W21:BK1,K2"))  # White to move, two kings down to a man
    -199
    """
    value = _evaluate(*_masks(board))
    return value if board.turn is Color.BLACK else -value


# --- Search -----------------------------------------------------------------------------------

_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 1024  # nodes between reads of the clock
_REDUCE_FROM = 3  # late move reductions: a quiet move after this many is searched a ply less
# Entries (about 600 bytes each with their moves, measured); the table is emptied when it
# reaches this. A 2 s search from the start stores about 130,000.
_TT_LIMIT = 300_000


Table = dict[int, tuple[int, int, int, _IMove | None]]
"""A transposition table: a position's key to (depth, bound, score, best move). A robot keeps
one between its moves (:attr:`Brain.memory`) so that each search starts from what the last
one learnt."""


class _Stop(Exception):
    """The time budget or node limit ran out mid-search."""


class _Searcher:
    """One search: its transposition table, ordering tables, limits and counters."""

    def __init__(
        self,
        history_keys: Iterable[int],
        clock: Clock,
        budget: float | None,
        node_limit: int | None,
        use_tt: bool = True,
        endgames: Endgames | None = None,
        reductions: bool = False,
        table: Table | None = None,
    ) -> None:
        self.tt: Table = {} if table is None else table
        self.reductions = reductions
        self.endgames = endgames
        self.endgame_pieces = 0 if endgames is None else endgames.pieces
        self.use_tt = use_tt
        self.killers: list[list[_IMove | None]] = [[None, None] for _ in range(_MAX_PLY + 2)]
        self.history: dict[int, int] = {}
        self.seen: set[int] = set(history_keys)
        self.clock = clock
        self.start = clock()
        self.deadline = None if budget is None else self.start + budget
        self.node_limit = node_limit
        self.nodes = 0
        self.next_check = _CHECK_EVERY
        self.stoppable = False  # the first iteration always completes

    def check(self) -> None:
        """Raise :class:`_Stop` when the node limit or the deadline has passed."""
        self.next_check = self.nodes + _CHECK_EVERY
        if not self.stoppable:
            return
        if self.node_limit is not None:
            if self.nodes >= self.node_limit:
                raise _Stop
            self.next_check = min(self.next_check, self.node_limit)
        if self.deadline is not None and self.clock() >= self.deadline:
            raise _Stop

    def negamax(
        self,
        bm: int,
        bk: int,
        wm: int,
        wk: int,
        black: bool,
        key: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        quiet: int,
    ) -> int:
        """The score of the position for the side to move, searched ``depth`` plies and then
        through every capture (fail-soft: outside (alpha, beta) it is only a bound)."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        moves, capture = _black_moves(bm, bk, wm, wk) if black else _white_moves(bm, bk, wm, wk)
        if not moves:
            return ply - WIN
        kings = bk | wk
        if kings and (key in self.seen or quiet >= _FORTY_MOVE_PLIES):
            return 0  # a repetition, or the 40-move rule: a draw
        if self.endgame_pieces and (bm | bk | wm | wk).bit_count() <= self.endgame_pieces:
            known = self._endgame(bm, bk, wm, wk, black, ply, quiet)
            if known is not None:
                return known
        if depth <= 0:
            if not capture or ply >= _MAX_PLY:
                value = _evaluate(bm, bk, wm, wk)
                return value if black else -value
            return self._captures(bm, bk, wm, wk, black, key, moves, depth, alpha, beta, ply)
        tt = self.tt
        entry = tt.get(key) if self.use_tt else None
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth:
                if e_score > WIN - _MAX_PLY:
                    e_score -= ply
                elif e_score < _MAX_PLY - WIN:
                    e_score += ply
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score
        if len(moves) > 1:
            moves = self._order(moves, tt_move, ply, capture, depth)
        if kings:
            self.seen.add(key)
        original_alpha = alpha
        best = -_INF
        best_move = moves[0]
        first = True
        negamax = self.negamax
        # Late move reductions: a quiet move ordered late is searched a ply shallower first.
        reduce_from = _REDUCE_FROM if self.reductions and depth >= 3 and not capture else _INF
        for index, move in enumerate(moves):
            frm, to, cap = move
            child_quiet = 0
            crowned = False
            if black:
                nwm, nwk = wm, wk
                if frm & bk:
                    nbm, nbk = bm, bk ^ frm ^ to
                    child = key ^ _Z_BK[frm] ^ _Z_BK[to] ^ _Z_BLACK
                    if not cap:
                        child_quiet = quiet + 1
                elif to & _BLACK_CROWN:
                    nbm, nbk = bm ^ frm, bk | to
                    child = key ^ _Z_BM[frm] ^ _Z_BK[to] ^ _Z_BLACK
                    crowned = True
                else:
                    nbm, nbk = bm ^ frm ^ to, bk
                    child = key ^ _Z_BM[frm] ^ _Z_BM[to] ^ _Z_BLACK
                if cap:
                    nwm, nwk = wm & ~cap, wk & ~cap
                    rest = cap
                    while rest:
                        bit = rest & -rest
                        rest ^= bit
                        child ^= _Z_WM[bit] if bit & wm else _Z_WK[bit]
            else:
                nbm, nbk = bm, bk
                if frm & wk:
                    nwm, nwk = wm, wk ^ frm ^ to
                    child = key ^ _Z_WK[frm] ^ _Z_WK[to] ^ _Z_BLACK
                    if not cap:
                        child_quiet = quiet + 1
                elif to & _WHITE_CROWN:
                    nwm, nwk = wm ^ frm, wk | to
                    child = key ^ _Z_WM[frm] ^ _Z_WK[to] ^ _Z_BLACK
                    crowned = True
                else:
                    nwm, nwk = wm ^ frm ^ to, wk
                    child = key ^ _Z_WM[frm] ^ _Z_WM[to] ^ _Z_BLACK
                if cap:
                    nbm, nbk = bm & ~cap, bk & ~cap
                    rest = cap
                    while rest:
                        bit = rest & -rest
                        rest ^= bit
                        child ^= _Z_BM[bit] if bit & bm else _Z_BK[bit]
            if first:
                score = -negamax(
                    nbm,
                    nbk,
                    nwm,
                    nwk,
                    not black,
                    child,
                    depth - 1,
                    -beta,
                    -alpha,
                    ply + 1,
                    child_quiet,
                )
                first = False
            else:
                # A null window, first at the reduced depth; a reduced move that beats alpha
                # is searched again at the full depth before it counts.
                scout = depth - 1
                if index >= reduce_from and not crowned and not _jump_ahead(nbm, nbk, nwm, nwk):
                    scout = depth - 2
                while True:
                    score = -negamax(
                        nbm,
                        nbk,
                        nwm,
                        nwk,
                        not black,
                        child,
                        scout,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        child_quiet,
                    )
                    if score <= alpha or scout == depth - 1:
                        break
                    scout = depth - 1
                if alpha < score < beta:
                    score = -negamax(
                        nbm,
                        nbk,
                        nwm,
                        nwk,
                        not black,
                        child,
                        depth - 1,
                        -beta,
                        -score,
                        ply + 1,
                        child_quiet,
                    )
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if not cap:
                            killers = self.killers[ply]
                            if killers[0] != move:
                                killers[1] = killers[0]
                                killers[0] = move
                            slot = frm | to
                            self.history[slot] = self.history.get(slot, 0) + depth * depth
                        break
        if kings:
            self.seen.discard(key)
        # A draw with kings on the board may come from this path's repetitions or the 40-move
        # count, which the key does not hold: kept, it would follow the robot to later moves.
        if self.use_tt and not (kings and best == 0):
            if best <= original_alpha:
                flag = _UPPER
            elif best >= beta:
                flag = _LOWER
            else:
                flag = _EXACT
            stored = best
            if stored > WIN - _MAX_PLY:
                stored += ply
            elif stored < _MAX_PLY - WIN:
                stored -= ply
            if len(tt) >= _TT_LIMIT:
                tt.clear()
            tt[key] = (depth, flag, stored, best_move)
        return best

    def _endgame(
        self, bm: int, bk: int, wm: int, wk: int, black: bool, ply: int, quiet: int
    ) -> int | None:
        """The database's exact score: a draw, or a win or loss at its distance when it comes
        before the 40-move rule could end the game (else the search goes on without it)."""
        assert self.endgames is not None
        found = self.endgames.probe(bm, bk, wm, wk, black)
        if found is None:
            return None
        outcome, distance = found
        if not outcome:
            return 0
        if quiet + distance > _FORTY_MOVE_PLIES:
            return None
        return WIN - ply - distance if outcome > 0 else ply + distance - WIN

    def _captures(
        self,
        bm: int,
        bk: int,
        wm: int,
        wk: int,
        black: bool,
        key: int,
        moves: list[_IMove],
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """Quiescence: past the nominal depth, a side that must capture plays every capture
        (no standing pat: the capture is forced). Captures are irreversible: quiet resets."""
        best = -_INF
        if len(moves) > 1:
            moves.sort(key=_capture_size, reverse=True)
        for frm, to, cap in moves:
            if black:
                if frm & bk:
                    nbm, nbk = bm, bk ^ frm ^ to
                    child = key ^ _Z_BK[frm] ^ _Z_BK[to] ^ _Z_BLACK
                elif to & _BLACK_CROWN:
                    nbm, nbk = bm ^ frm, bk | to
                    child = key ^ _Z_BM[frm] ^ _Z_BK[to] ^ _Z_BLACK
                else:
                    nbm, nbk = bm ^ frm ^ to, bk
                    child = key ^ _Z_BM[frm] ^ _Z_BM[to] ^ _Z_BLACK
                nwm, nwk = wm & ~cap, wk & ~cap
                rest = cap
                while rest:
                    bit = rest & -rest
                    rest ^= bit
                    child ^= _Z_WM[bit] if bit & wm else _Z_WK[bit]
            else:
                if frm & wk:
                    nwm, nwk = wm, wk ^ frm ^ to
                    child = key ^ _Z_WK[frm] ^ _Z_WK[to] ^ _Z_BLACK
                elif to & _WHITE_CROWN:
                    nwm, nwk = wm ^ frm, wk | to
                    child = key ^ _Z_WM[frm] ^ _Z_WK[to] ^ _Z_BLACK
                else:
                    nwm, nwk = wm ^ frm ^ to, wk
                    child = key ^ _Z_WM[frm] ^ _Z_WM[to] ^ _Z_BLACK
                nbm, nbk = bm & ~cap, bk & ~cap
                rest = cap
                while rest:
                    bit = rest & -rest
                    rest ^= bit
                    child ^= _Z_BM[bit] if bit & bm else _Z_BK[bit]
            score = -self.negamax(
                nbm, nbk, nwm, nwk, not black, child, depth - 1, -beta, -alpha, ply + 1, 0
            )
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def _order(
        self, moves: list[_IMove], tt_move: _IMove | None, ply: int, capture: bool, depth: int
    ) -> list[_IMove]:
        """The table's move first; then captures by size, or killers and history."""
        if capture:
            moves.sort(key=_capture_size, reverse=True)
        else:
            if depth >= 2:
                get = self.history.get
                moves.sort(key=lambda m: get(m[0] | m[1], 0), reverse=True)
            first, second = self.killers[ply]
            if second is not None and second in moves:
                moves.remove(second)
                moves.insert(0, second)
            if first is not None and first in moves:
                moves.remove(first)
                moves.insert(0, first)
        if tt_move is not None and moves[0] != tt_move and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        return moves

    def child_args(
        self, masks: tuple[int, int, int, int], black: bool, key: int, move: _IMove
    ) -> tuple[int, int, int, int, int, bool]:
        """The child's bitboards, Zobrist key and whether the move was reversible."""
        bm, bk, wm, wk = masks
        frm, _, cap = move
        nbm, nbk, nwm, nwk = _play(bm, bk, wm, wk, black, move)
        reversible = not cap and bool(frm & (bk if black else wk))
        return nbm, nbk, nwm, nwk, _zobrist(nbm, nbk, nwm, nwk, not black), reversible


def _jump_ahead(bm: int, bk: int, wm: int, wk: int) -> bool:
    """Whether either side could jump in this position: after a quiet move, a sacrifice the
    reply must take or a threat the mover makes. Such moves are never reduced, for a shot
    begins with one."""
    black = bm | bk
    white = wm | wk
    empty = _FULL ^ (black | white)
    return bool(
        _up_jumpers(black, white, empty)
        or _down_jumpers(white, black, empty)
        or (bk and _down_jumpers(bk, white, empty))
        or (wk and _up_jumpers(wk, black, empty))
    )


def _capture_size(move: _IMove) -> int:
    return move[2].bit_count()


# --- Results ----------------------------------------------------------------------------------


def is_win_score(score: int) -> bool:
    """Whether ``score`` is a forced win (or, negated, a forced loss) found by the search."""
    return abs(score) > WIN - _MAX_PLY


EQUITY_SCALE = 400.0
"""Scores map to equity by ``tanh(score / EQUITY_SCALE)``: a man up is about +0.24, two men
+0.46, three +0.64."""


def equity(score: int) -> float:
    """A search score as an equity in [-1, 1]: ±1 for a forced win or loss, 0 for a draw,
    ``tanh(score / 400)`` otherwise (so never ±1 without a forced result).

    >>> equity(WIN - 7), equity(0), round(equity(100), 3), equity(7 - WIN)
    (1.0, 0.0, 0.245, -1.0)
    """
    if is_win_score(score):
        return 1.0 if score > 0 else -1.0
    return max(-0.9999, min(0.9999, math.tanh(score / EQUITY_SCALE)))


class ScoredMove(NamedTuple):
    """A legal move and its search score from the mover's side (see :func:`analyse`)."""

    move: Move
    score: int

    @property
    def equity(self) -> float:
        """The score as an equity in [-1, 1] (:func:`equity`)."""
        return equity(self.score)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What :func:`search` found: the best move, its score from the side to move, the depth of
    the last completed iteration, the principal variation (starting with :attr:`move`), the
    nodes searched and the seconds spent, by the search's clock."""

    move: Move
    score: int
    depth: int
    pv: tuple[Move, ...]
    nodes: int
    elapsed: float

    @property
    def equity(self) -> float:
        return equity(self.score)


# --- Entry points -----------------------------------------------------------------------------


class _Root:
    """A position prepared for searching: bitboards, key, game history and the public moves."""

    def __init__(self, board: Board, history: Sequence[Board]) -> None:
        self.board = board
        self.black = board.turn is Color.BLACK
        self.masks = _masks(board)
        self.key = _zobrist(*self.masks, self.black)
        earlier = list(history)
        if earlier and earlier[-1] == board:
            earlier.pop()
        self.history_keys = [_zobrist(*_masks(b), b.turn is Color.BLACK) for b in earlier]
        self.quiet = len(earlier)
        self.moves, _ = bit_moves(*self.masks, self.black)
        if not self.moves:
            raise NoLegalMoveError(f"No legal move in {board.fen}: the game is over.")
        self.public = board.legal_moves()

    def public_move(self, move: _IMove) -> Move:
        return _public_move(self.board, self.public, move)


def _internal(move: Move) -> _IMove:
    """The search's form of a public move."""
    return (
        1 << (move.start - 1),
        1 << (move.end - 1),
        sum(1 << (s - 1) for s in move.captures),
    )


def _public_move(board: Board, legal: Sequence[Move], move: _IMove) -> Move:
    """The first legal :class:`Move` (by path) that the search's ``move`` stands for."""
    for candidate in legal:
        if _internal(candidate) == move:
            return candidate
    raise AssertionError(f"search move {move} has no legal counterpart in {board.fen}")


def _check_limits(depth: int | None, budget: float | None, node_limit: int | None) -> None:
    if depth is None and budget is None and node_limit is None:
        raise ValueError("give the search a limit: a depth, a time budget or a node limit")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    if budget is not None and not budget > 0:
        raise ValueError(f"the time budget must be positive, not {budget}")
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"the node limit must be at least 1, not {node_limit}")


def _root_child(searcher: _Searcher, root: _Root, move: _IMove) -> tuple[Any, ...]:
    nbm, nbk, nwm, nwk, key, reversible = searcher.child_args(
        root.masks, root.black, root.key, move
    )
    quiet = root.quiet + 1 if reversible else 0
    return nbm, nbk, nwm, nwk, not root.black, key, quiet


def _search_root(
    searcher: _Searcher, root: _Root, order: list[_IMove], depth: int
) -> tuple[int, _IMove, list[_IMove]]:
    """One iteration at the root with principal-variation windows: (score, best, new order).

    On :class:`_Stop`, the best move found so far in this iteration travels in the exception's
    args when at least the first move was searched completely.
    """
    alpha, beta = -_INF, _INF
    best, best_move = -_INF, order[0]
    kings = root.masks[1] | root.masks[3]
    if kings:
        searcher.seen.add(root.key)
    try:
        for index, move in enumerate(order):
            nbm, nbk, nwm, nwk, black, key, quiet = _root_child(searcher, root, move)
            if index == 0:
                score = -searcher.negamax(
                    nbm, nbk, nwm, nwk, black, key, depth - 1, -beta, -alpha, 1, quiet
                )
            else:
                score = -searcher.negamax(
                    nbm, nbk, nwm, nwk, black, key, depth - 1, -alpha - 1, -alpha, 1, quiet
                )
                if score > alpha:
                    score = -searcher.negamax(
                        nbm, nbk, nwm, nwk, black, key, depth - 1, -beta, -score, 1, quiet
                    )
            if score > best:
                best, best_move = score, move
                alpha = max(alpha, score)
    except _Stop:
        raise _Stop((best, best_move) if best > -_INF else None) from None
    finally:
        searcher.seen.discard(root.key)
    new_order = [best_move] + [m for m in order if m != best_move]
    if searcher.use_tt:
        searcher.tt[root.key] = (depth, _EXACT, best, best_move)
    return best, best_move, new_order


def _principal_variation(
    searcher: _Searcher, root: _Root, first: _IMove, depth: int
) -> tuple[Move, ...]:
    """The best line: ``first``, then the table's moves while they are legal (up to ``depth``
    plies, stopping at a repetition)."""
    board = root.board
    line: list[Move] = []
    masks, black, move = root.masks, root.black, first
    seen = {root.key}
    for _ in range(max(depth, 1)):
        played = _public_move(board, board.legal_moves(), move)
        line.append(played)
        board = board.apply(played)
        masks = _play(*masks, black, move)
        black = not black
        key = _zobrist(*masks, black)
        if key in seen:
            break
        seen.add(key)
        entry = searcher.tt.get(key)
        if entry is None or entry[3] is None:
            break
        move = entry[3]
        if move not in bit_moves(*masks, black)[0]:
            break
    return tuple(line)


def search(
    board: Board,
    history: Sequence[Board] = (),
    *,
    depth: int | None = None,
    budget: float | None = None,
    node_limit: int | None = None,
    clock: Clock = time.monotonic,
    use_tt: bool = True,
    endgames: Endgames | None = None,
    reductions: bool = False,
    table: Table | None = None,
) -> SearchResult:
    """The best move in ``board`` by iterative deepening, to ``depth`` plies (then through
    every capture), or until ``budget`` seconds have passed on ``clock`` or ``node_limit``
    nodes were searched: give at least one of the three.

    ``history`` is the positions since the last capture or man move, oldest first, as
    :attr:`engines.checkers.Game.reversible_positions` gives them (``board`` itself may come
    last): a move back into one of them scores as a draw, and the 40-move rule counts from
    them. The first iteration (depth 1) always completes; a later one cut short by the budget
    still counts a move it completed that beat the previous best. ``use_tt=False`` searches
    without the transposition table (for tests). ``endgames``: a database to probe where few
    pieces are left (exact wins and losses at their distance, draws). NoLegalMoveError when
    the game is over.

    >>> result = search(Board.from_fen("B:W14,23:B9,K1"), depth=4)
    >>> str(result.move), [str(m) for m in result.pv][:2]
    ('9x18x27', ['9x18x27'])
    """
    _check_limits(depth, budget, node_limit)
    root = _Root(board, history)
    searcher = _Searcher(
        root.history_keys, clock, budget, node_limit, use_tt, endgames, reductions, table
    )
    order = list(root.moves)
    order.sort(key=_capture_size, reverse=True)
    best_score, best_move, reached = 0, order[0], 0
    max_depth = _MAX_DEPTH if depth is None else min(depth, _MAX_DEPTH)
    for iteration in range(1, max_depth + 1):
        try:
            best_score, best_move, order = _search_root(searcher, root, order, iteration)
        except _Stop as stop:
            partial = stop.args[0] if stop.args else None
            if partial is not None:  # the previous best was searched again, and maybe beaten
                best_score, best_move = partial
            break
        reached = iteration
        searcher.stoppable = True
        if is_win_score(best_score) and WIN - abs(best_score) <= iteration:
            break  # a forced result within the horizon: deeper search cannot change it
    pv = _principal_variation(searcher, root, best_move, reached)
    return SearchResult(
        move=root.public_move(best_move),
        score=best_score,
        depth=reached,
        pv=pv,
        nodes=searcher.nodes,
        elapsed=clock() - searcher.start,
    )


def analyse(
    board: Board,
    history: Sequence[Board] = (),
    *,
    depth: int | None = None,
    budget: float | None = None,
    node_limit: int | None = None,
    clock: Clock = time.monotonic,
    endgames: Endgames | None = None,
    reductions: bool = False,
    table: Table | None = None,
) -> list[ScoredMove]:
    """Every legal move of ``board`` with its score from the mover's side, best first.

    Each move is searched with a full window, so every score is exact at the depth reached
    (not just a bound, as in :func:`search`). Iterative deepening under the same limits as
    :func:`search` (and its ``endgames``); the scores all come from the last iteration that
    completed. Moves whose
    jump paths differ but capture the same pieces (a king's loop) get the same score. Ties
    keep the order of :meth:`~engines.checkers.Board.legal_moves`.

    >>> [(str(m), s > 100) for m, s in analyse(Board.from_fen("B:W18,27:B14"), depth=4)]
    [('14x23x32', True)]
    """
    _check_limits(depth, budget, node_limit)
    root = _Root(board, history)
    searcher = _Searcher(
        root.history_keys, clock, budget, node_limit, True, endgames, reductions, table
    )
    order = list(root.moves)
    scores: dict[_IMove, int] = {}
    max_depth = _MAX_DEPTH if depth is None else min(depth, _MAX_DEPTH)
    kings = root.masks[1] | root.masks[3]
    for iteration in range(1, max_depth + 1):
        current: dict[_IMove, int] = {}
        if kings:
            searcher.seen.add(root.key)
        try:
            for move in order:
                nbm, nbk, nwm, nwk, black, key, quiet = _root_child(searcher, root, move)
                current[move] = -searcher.negamax(
                    nbm, nbk, nwm, nwk, black, key, iteration - 1, -_INF, _INF, 1, quiet
                )
        except _Stop:
            break
        finally:
            searcher.seen.discard(root.key)
        scores = current
        searcher.stoppable = True
        order.sort(key=scores.__getitem__, reverse=True)
        if all(is_win_score(s) and WIN - abs(s) <= iteration for s in scores.values()):
            break
    ranked = [ScoredMove(m, scores[_internal(m)]) for m in root.public]
    ranked.sort(key=lambda scored: -scored.score)
    return ranked


# --- Levels -----------------------------------------------------------------------------------


class Level(enum.IntEnum):
    """The robot's strength, weakest first (the same five levels as the other games)."""

    BEGINNER = 1
    INTERMEDIATE = 2
    ADVANCED = 3
    EXPERT = 4
    MASTER = 5


@dataclass(frozen=True, slots=True)
class LevelSettings:
    """How a level plays. ``depth``: the deepest iteration (None: no limit but the budget);
    ``budget``: seconds of iterative deepening at most; ``noise``: the standard deviation, in
    hundredths of a man, of the Gaussian noise added to every move's score before the level
    picks the highest (0: the best move by :func:`search`); ``slip``: the chance, each move with
    a choice, of a human slip instead (:func:`slip_move`)."""

    depth: int | None
    budget: float
    noise: float
    slip: float = 0.0
    reductions: bool = False


LEVELS: Mapping[Level, LevelSettings] = MappingProxyType(
    {
        Level.BEGINNER: LevelSettings(depth=2, budget=0.5, noise=35.0, slip=0.12),
        Level.INTERMEDIATE: LevelSettings(depth=4, budget=1.0, noise=40.0, slip=0.10),
        Level.ADVANCED: LevelSettings(depth=6, budget=1.0, noise=38.0, slip=0.06),
        Level.EXPERT: LevelSettings(depth=6, budget=1.0, noise=30.0),
        Level.MASTER: LevelSettings(depth=None, budget=2.0, noise=0.0, reductions=True),
    }
)
"""Each level's settings, a ladder where each level scores about 65-85% against the one below
(docs/robot.md; benchmarks/robot_levels.py measures it). Beginner sees 2 plies (plus
captures), misjudges moves by 0.35 men and slips (:func:`slip_move`) on 12% of its moves;
intermediate 4 plies, noise 0.4 men, a slip in ten moves; advanced 6 plies, noise of 0.38
men, slips 6%; expert 6 plies, noise of 0.3 men, no slips. The depths are the
limits (the budgets only cap a slow move), so the four play the same on any machine. Master
deepens for its full 2 s (or the server's time) with late move reductions, its memory and the
endgame database (:class:`Brain`)."""


def level_settings(level: Level, think_s: float | None = None) -> LevelSettings:
    """``level``'s settings; ``think_s`` (a server's setting) replaces the budget of the level
    that deepens until its time is up (master), and no other.

    >>> level_settings(Level.MASTER, 5.0).budget, level_settings(Level.EXPERT, 5.0).budget
    (5.0, 1.0)
    """
    settings = LEVELS[Level(level)]
    if think_s is not None and settings.depth is None:
        if not think_s > 0:
            raise ValueError(f"the thinking time must be positive, not {think_s}")
        return replace(settings, budget=think_s)
    return settings


@dataclass(frozen=True, slots=True)
class Brain:
    """What a robot's search uses besides the level: master's thinking time (None: the level's
    own budget), the clock it is measured on, an endgame database to probe (None: none) and a
    memory, the transposition table it keeps between moves (None: each search starts afresh)."""

    think_s: float | None = None
    clock: Clock = time.monotonic
    endgames: Endgames | None = None
    memory: Table | None = None


_PLAIN = Brain()


def _brain(clock: Clock, brain: Brain | None) -> Brain:
    return Brain(clock=clock) if brain is None else brain


def _limits(level: Level, brain: Brain) -> dict[str, Any]:
    """The keyword arguments of :func:`search` and :func:`analyse` at ``level``."""
    settings = level_settings(level, brain.think_s)
    return {
        "depth": settings.depth,
        "budget": settings.budget,
        "clock": brain.clock,
        "endgames": brain.endgames,
        "reductions": settings.reductions,
        "table": brain.memory,
    }


class _Thought(NamedTuple):
    """One search at a level: the move it plays and the best score (the robot's view)."""

    move: Move
    score: int


def _think(
    board: Board,
    level: Level,
    rng: random.Random | None,
    history: Sequence[Board],
    brain: Brain,
    *,
    move_only: bool = False,
) -> _Thought:
    """The one search a turn needs: :func:`search` for a level without noise, else
    :func:`analyse` and the highest score after the noise; on a ``slip`` share of the turns
    with a choice the move is a :func:`slip_move` instead (``move_only``: a forced move is
    played without searching, and its score is 0)."""
    settings = level_settings(level, brain.think_s)
    limits = _limits(level, brain)
    legal = board.legal_moves()
    if not legal:
        raise NoLegalMoveError(f"No legal move in {board.fen}: the game is over.")
    if move_only and len(legal) == 1:
        return _Thought(legal[0], 0)
    rng = random.Random() if rng is None else rng
    slipped = len(legal) > 1 and settings.slip > 0 and rng.random() < settings.slip
    if settings.noise <= 0:
        result = search(board, history, **limits)
        thought = _Thought(result.move, result.score)
    else:
        ranked = analyse(board, history, **limits)
        noisy = [
            scored.score + (0.0 if is_win_score(scored.score) else rng.gauss(0.0, settings.noise))
            for scored in ranked
        ]
        chosen = ranked[max(range(len(ranked)), key=noisy.__getitem__)].move
        thought = _Thought(chosen, ranked[0].score)
    # A slip replaces the move, not the search: the checks still read the score it saw.
    return thought._replace(move=slip_move(board, rng)) if slipped else thought


def choose_move(
    board: Board,
    level: Level,
    rng: random.Random | None = None,
    clock: Clock = time.monotonic,
    history: Sequence[Board] = (),
    brain: Brain | None = None,
) -> Move:
    """The move a robot of ``level`` plays in ``board`` (see :data:`LEVELS`).

    A level with noise scores every move (:func:`analyse`) and plays the highest after adding
    ``rng``'s Gaussian noise; one without plays :func:`search`'s best move; a level with slips
    plays a :func:`slip_move` on that share of its moves. A forced move is played at once.
    ``brain`` (its clock replaces ``clock``): master's time and the endgame
    database. NoLegalMoveError when the game is over.

    >>> board = Board.from_fen("B:W11,25,27:B15,18,19")
    >>> str(choose_move(board, Level.ADVANCED, random.Random(1)))
    '18-23'
    """
    return _think(board, level, rng, history, _brain(clock, brain), move_only=True).move


def slip_move(board: Board, rng: random.Random) -> Move:
    """A human slip: the move a player makes who looks at their own move and not at the reply.

    With captures to choose from, the one that takes the fewest pieces (the multi-jump's
    better branch missed); otherwise the move whose position looks best at a glance (the
    static evaluation, a little noise for taste), which may leave a man hanging.

    >>> str(slip_move(Board.from_fen("B:W17,18,27:B14"), random.Random(1)))  # not 14x23x32
    '14x21'
    >>> board = Board.from_fen("W:W15,17:B7")
    >>> str(slip_move(board, random.Random(1))), str(search(board, depth=6).move)  # 7x16 next
    ('15-11', '17-13')
    """
    legal = board.legal_moves()
    if not legal:
        raise NoLegalMoveError(f"No legal move in {board.fen}: the game is over.")
    if legal[0].captures:
        fewest = min(move.hits for move in legal)
        return rng.choice([move for move in legal if move.hits == fewest])
    glance = [-evaluate(board.apply(move)) + rng.gauss(0.0, 10.0) for move in legal]
    return legal[max(range(len(legal)), key=glance.__getitem__)]


# --- Draws ------------------------------------------------------------------------------------

DRAW_ACCEPT_MARGIN = 0
"""The robot accepts a draw offer when its search score is at most this: its search says it
can't expect more than the draw (issue 33: a fifth of a man accepted equal openings)."""

OPENING_PIECES = 20
"""The opening lasts while this many pieces or more are on the board (at most two exchanges):
there the robot declines every draw offer, since nothing is settled yet."""


def in_the_opening(board: Board) -> bool:
    """Whether ``board`` is still in the opening (:data:`OPENING_PIECES` pieces or more).

    >>> in_the_opening(Board.initial()), in_the_opening(Board.from_fen("W:WK30:BK3"))
    (True, False)
    """
    return board.piece_count(Color.BLACK) + board.piece_count(Color.WHITE) >= OPENING_PIECES


DRAW_OFFER_MARGIN = 10
"""In a settled game the robot offers a draw when its search score is within this of 0."""

DRAW_OFFER_QUIET_PLIES = 20
"""A game has settled after 20 plies (10 moves each) with no capture and no man move."""


def _robot_score(
    board: Board, robot: Color, history: Sequence[Board], level: Level, brain: Brain
) -> int:
    result = search(board, history, **_limits(level, brain))
    return result.score if board.turn is robot else -result.score


def accept_draw(
    board: Board,
    robot: Color,
    history: Sequence[Board] = (),
    level: Level = Level.MASTER,
    clock: Clock = time.monotonic,
    brain: Brain | None = None,
) -> bool:
    """Whether the robot playing ``robot`` accepts a draw offered in ``board``: never in the
    opening (:func:`in_the_opening`), otherwise when its search score (at ``level``'s settings,
    no noise) is at most :data:`DRAW_ACCEPT_MARGIN`, a draw or worse. A game already over by
    rule is not searched: True if the robot has lost, else False.

    >>> accept_draw(Board.from_fen("W:WK30:BK3"), Color.BLACK, level=Level.BEGINNER)
    True
    >>> accept_draw(Board.from_fen("W:W30:BK3,K7"), Color.BLACK, level=Level.BEGINNER)
    False
    """
    if not board.legal_moves():
        return board.turn is robot
    if in_the_opening(board):
        return False
    score = _robot_score(board, robot, history, level, _brain(clock, brain))
    return score <= DRAW_ACCEPT_MARGIN


def _offers_draw_when(board: Board, history: Sequence[Board]) -> tuple[bool, bool]:
    """(whether a draw offer is considered at all, whether the game is bare kings), before
    any search."""
    earlier = len(history) - (1 if history and history[-1] == board else 0)
    kings_only = not board.black_men and not board.white_men
    bare = kings_only and len(board.black_kings) == len(board.white_kings) <= 2
    return earlier >= DRAW_OFFER_QUIET_PLIES or bare, bare


def _offers_draw_at(score: int, bare: bool) -> bool:
    if is_win_score(score):
        return False
    return bare or abs(score) <= DRAW_OFFER_MARGIN


def should_offer_draw(
    board: Board,
    history: Sequence[Board] = (),
    level: Level = Level.MASTER,
    clock: Clock = time.monotonic,
    brain: Brain | None = None,
) -> bool:
    """Whether the robot, to move in ``board``, offers a draw. It does with kings alone, equal
    in number and at most two a side, unless its search (at ``level``'s settings) finds a
    forced win or loss; otherwise when the game has settled, :data:`DRAW_OFFER_QUIET_PLIES`
    plies or more in ``history`` (the positions since the last capture or man move,
    :attr:`engines.checkers.Game.reversible_positions`), and the search score is within
    :data:`DRAW_OFFER_MARGIN` of 0.

    >>> should_offer_draw(Board.from_fen("B:WK30:BK3"), level=Level.BEGINNER)
    True
    >>> should_offer_draw(Board.initial(), level=Level.BEGINNER)
    False
    """
    if not board.legal_moves():
        return False
    considered, bare = _offers_draw_when(board, history)
    if not considered:
        return False
    score = _robot_score(board, board.turn, history, level, _brain(clock, brain))
    return _offers_draw_at(score, bare)


RESIGN_MARGIN = 300
"""The robot resigns a game it judges this far behind (three men; a lead counts for more as
pieces come off) by the static evaluation on each of its last :data:`RESIGN_TURNS` turns and by
its search now."""

RESIGN_TURNS = 3


def _resigns_when(board: Board, earlier: Sequence[Board]) -> tuple[bool, bool]:
    """(whether resigning is considered at all, whether the evaluations have been hopeless
    for :data:`RESIGN_TURNS` turns), before any search."""
    turns = [*earlier[-(RESIGN_TURNS - 1) :], board]
    streak = len(turns) == RESIGN_TURNS and all(evaluate(b) <= -RESIGN_MARGIN for b in turns)
    behind = board.piece_count(board.turn) < board.piece_count(board.turn.opponent)
    return streak or behind, streak


def _resigns_at(score: int, streak: bool) -> bool:
    if is_win_score(score):
        return score < 0
    return streak and score <= -RESIGN_MARGIN


def should_resign(
    board: Board,
    earlier: Sequence[Board] = (),
    history: Sequence[Board] = (),
    level: Level = Level.MASTER,
    clock: Clock = time.monotonic,
    brain: Brain | None = None,
) -> bool:
    """Whether the robot, to move in ``board``, resigns. ``earlier``: the positions of its
    previous turns in the game, oldest first (the same side to move). It resigns a loss its
    search (at ``level``'s settings) proves, or a game hopeless for a while: the static
    evaluation at least :data:`RESIGN_MARGIN` behind on this turn and the
    ``RESIGN_TURNS - 1`` before it, and the search agrees now. The search runs only when the
    evaluations say so (or the robot is a man or more behind in material).

    >>> lost = Board.from_fen("W:W30:BK3,K7,K11,K20")  # a man against four kings
    >>> should_resign(lost, level=Level.BEGINNER), should_resign(lost, [lost, lost], [], 1)
    (False, True)
    >>> should_resign(Board.initial(), level=Level.BEGINNER)
    False
    """
    if not board.legal_moves():
        return False
    considered, streak = _resigns_when(board, earlier)
    if not considered:
        return False
    score = _robot_score(board, board.turn, history, level, _brain(clock, brain))
    return _resigns_at(score, streak)


# --- A whole turn -----------------------------------------------------------------------------


class Turn(NamedTuple):
    """What the robot does on its move (:func:`decide`): resign, offer a draw (it moves after
    the answer), or play ``move``."""

    move: Move | None
    offer_draw: bool = False
    resign: bool = False


def decide(
    board: Board,
    level: Level,
    rng: random.Random | None = None,
    *,
    history: Sequence[Board] = (),
    earlier: Sequence[Board] | None = None,
    offer_draw: bool = True,
    brain: Brain | None = None,
) -> Turn:
    """The robot's turn in ``board`` at ``level``, from one search: whether it resigns
    (only when ``earlier`` is given: :func:`should_resign`), offers a draw (only when
    ``offer_draw``: :func:`should_offer_draw`), else its move (:func:`choose_move`). The
    checks read the score of the search that chooses the move, so a turn takes one level's
    budget (master: ``brain.think_s``), not three.

    >>> lost = Board.from_fen("W:W30:BK3,K7,K11,K20")  # a man against four kings
    >>> decide(lost, Level.BEGINNER, earlier=[lost, lost])
    Turn(move=None, offer_draw=False, resign=True)
    >>> decide(lost, Level.BEGINNER, earlier=[]).resign  # not hopeless for long enough
    False
    """
    brain = _PLAIN if brain is None else brain
    resigning, streak = (False, False) if earlier is None else _resigns_when(board, earlier)
    offering, bare = _offers_draw_when(board, history) if offer_draw else (False, False)
    if (resigning or offering) and not board.legal_moves():
        raise NoLegalMoveError(f"No legal move in {board.fen}: the game is over.")
    thought = _think(board, level, rng, history, brain, move_only=not (resigning or offering))
    if resigning and _resigns_at(thought.score, streak):
        return Turn(None, resign=True)
    if offering and _offers_draw_at(thought.score, bare):
        return Turn(None, offer_draw=True)
    return Turn(thought.move)


# --- Hints ------------------------------------------------------------------------------------


def hint(
    board: Board,
    history: Sequence[Board] = (),
    level: Level = Level.MASTER,
    clock: Clock = time.monotonic,
    brain: Brain | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Every legal move, best first, as the hint JSON: ``{"moves": [{"move": "11-15",
    "position": <FEN after it>, "equity": <float in [-1, 1]>}, ...]}``. Scored by
    :func:`analyse` at ``level``'s depth and budget (no noise); equity by :func:`equity`.

    >>> hint(Board.from_fen("B:W18,27:B14"), level=Level.BEGINNER)
    {'moves': [{'move': '14x23x32', 'position': 'W:W:BK32', 'equity': 1.0}]}
    """
    ranked = analyse(board, history, **_limits(level, _brain(clock, brain)))
    return {
        "moves": [
            {
                "move": str(scored.move),
                "position": board.apply(scored.move).fen,
                "equity": round(scored.equity, 4),
            }
            for scored in ranked
        ]
    }
