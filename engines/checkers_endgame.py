"""The checkers endgame database: every position with few pieces solved by retrograde analysis.

For each position with up to :data:`PIECES` pieces it holds the game-theoretic result for the
side to move (win, loss or draw) and the distance to the end in plies (the loser's last
position, with no piece or no move, is 0 away), both sides playing best: the winner the
fastest win, the loser the slowest loss. A draw is a position neither side can force a win
from; under the game's rules it ends by repetition or by the 40-move rule.

The 40-move rule is not in the database (a position doesn't know its count). A win or loss
``d`` plies away is certain when the game has at least ``d`` plies left before the rule could
end it; :mod:`engines.checkers_search` trusts the database only then, and otherwise searches
on as if it had none (a draw is a draw either way).

Positions are stored from the side to move, turned so that it moves up the board as Black
does: White to move is the board turned half round (square ``s`` becomes ``33 - s``) with the
colours swapped. A *signature* is the material ``(my men, my kings, their men, their kings)``;
each signature's positions are numbered by combinations (each piece group ranked among the
squares it may stand on; numbers where two groups share a square are unused). Signatures are
solved fewest pieces first, then fewest men, so that captures and crownings lead to solved
ones; a signature and its mirror (the opponent's material) are solved together, since a quiet
move leads from one to the other.

Each position is one byte: 0 a draw (or an unused number), else ``distance + 1``, so a win
(odd distance) is even and a loss (even distance) odd.

>>> base = Tablebase.build(2)
>>> base.probe_board(Board.from_fen("B:WK28:BK1"))
Probe(outcome=<Outcome.DRAW: 0>, distance=0)
>>> base.probe_board(Board.from_fen("B:W21:BK1"))  # the king catches the man in 7 plies
Probe(outcome=<Outcome.WIN: 1>, distance=7)
>>> base.probe_board(Board.from_fen("W:W21:BK1"))  # a move ahead, the man crowns: a draw
Probe(outcome=<Outcome.DRAW: 0>, distance=0)
"""

from __future__ import annotations

import enum
import itertools
import lzma
import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from engines.checkers import Board, Color
from engines.checkers_search import bit_moves

__all__ = [
    "PIECES",
    "Outcome",
    "Probe",
    "Signature",
    "Tablebase",
    "signatures",
]

PIECES = 4
"""The most pieces (both sides together) the shipped database covers."""

_FULL = (1 << 32) - 1
_CROWN = 0xF << 28  # squares 29..32: where the side to move (as Black) crowns
_MY_MEN = _FULL ^ _CROWN  # my men stand on 1..28
_THEIR_MEN = _FULL ^ 0xF  # theirs on 5..32
_MAGIC = b"TBCK1"
_MOST_PIECES = 6  # a file claiming more is not one of ours (5 would take over an hour here)


class Outcome(enum.IntEnum):
    """The result for the side to move with best play."""

    LOSS = -1
    DRAW = 0
    WIN = 1


class Probe(NamedTuple):
    """A position's entry: its outcome and the plies to the end (0 for a draw)."""

    outcome: Outcome
    distance: int


Signature = tuple[int, int, int, int]
"""Material: (my men, my kings, their men, their kings), the side to move's first."""


def signatures(pieces: int) -> list[Signature]:
    """Every signature with 2 to ``pieces`` pieces (each side at least one), in solving order:
    fewer pieces first, then fewer men."""
    found = [
        (mm, mk, tm, tk)
        for mm, mk, tm, tk in itertools.product(range(pieces), repeat=4)
        if mm + mk > 0 and tm + tk > 0 and mm + mk + tm + tk <= pieces
    ]
    found.sort(key=lambda s: (sum(s), s[0] + s[2], s))
    return found


def _mirror(sig: Signature) -> Signature:
    return sig[2], sig[3], sig[0], sig[1]


# --- Bit tricks -----------------------------------------------------------------------------

_REVERSED_BYTE = [int(f"{b:08b}"[::-1], 2) for b in range(256)]


def _turned(mask: int) -> int:
    """The mask with the board turned half round: bit ``i`` becomes bit ``31 - i``."""
    r = _REVERSED_BYTE
    return r[mask & 255] << 24 | r[mask >> 8 & 255] << 16 | r[mask >> 16 & 255] << 8 | r[mask >> 24]


def _subsets(allowed: int, count: int) -> list[int]:
    """Every mask of ``count`` bits among ``allowed``, in a fixed order."""
    bits = [1 << i for i in range(32) if allowed >> i & 1]
    return [sum(chosen) for chosen in itertools.combinations(bits, count)]


class _Group:
    """One group of pieces (my men, my kings, ...) of a given count: its masks and ranks."""

    __slots__ = ("masks", "rank", "size")

    def __init__(self, allowed: int, count: int) -> None:
        self.masks = _subsets(allowed, count)
        self.rank = {mask: i for i, mask in enumerate(self.masks)}
        self.size = len(self.masks)


_GROUPS: dict[tuple[int, int], _Group] = {}


def _group(allowed: int, count: int) -> _Group:
    key = (allowed, count)
    group = _GROUPS.get(key)
    if group is None:
        group = _GROUPS[key] = _Group(allowed, count)
    return group


class _Layout:
    """How a signature's positions are numbered."""

    __slots__ = ("groups", "size", "strides")

    def __init__(self, sig: Signature) -> None:
        mm, mk, tm, tk = sig
        self.groups = (
            _group(_MY_MEN, mm),
            _group(_FULL, mk),
            _group(_THEIR_MEN, tm),
            _group(_FULL, tk),
        )
        sizes = [g.size for g in self.groups]
        self.strides = (sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3])
        self.size = math.prod(sizes)

    def index(self, mm: int, mk: int, tm: int, tk: int) -> int:
        g0, g1, g2, g3 = self.groups
        s0, s1, s2 = self.strides
        return g0.rank[mm] * s0 + g1.rank[mk] * s1 + g2.rank[tm] * s2 + g3.rank[tk]

    def masks(self, index: int) -> tuple[int, int, int, int] | None:
        """The position numbered ``index``; None for an unused number."""
        g0, g1, g2, g3 = self.groups
        s0, s1, s2 = self.strides
        a, rest = divmod(index, s0)
        b, rest = divmod(rest, s1)
        c, d = divmod(rest, s2)
        masks = g0.masks[a], g1.masks[b], g2.masks[c], g3.masks[d]
        if (
            sum(m.bit_count() for m in masks)
            != (masks[0] | masks[1] | masks[2] | masks[3]).bit_count()
        ):
            return None
        return masks

    def positions(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(index, my men, my kings, their men, their kings) of every valid position."""
        g0, g1, g2, g3 = self.groups
        index = -1
        for a in g0.masks:
            for b in g1.masks:
                ab = a | b
                clash_ab = a & b
                for c in g2.masks:
                    abc = ab | c
                    clash_abc = clash_ab or ab & c
                    for d in g3.masks:
                        index += 1
                        if clash_abc or abc & d:
                            continue
                        yield index, a, b, c, d


_LAYOUTS: dict[Signature, _Layout] = {}


def _layout(sig: Signature) -> _Layout:
    layout = _LAYOUTS.get(sig)
    if layout is None:
        layout = _LAYOUTS[sig] = _Layout(sig)
    return layout


def _signature(mm: int, mk: int, tm: int, tk: int) -> Signature:
    return mm.bit_count(), mk.bit_count(), tm.bit_count(), tk.bit_count()


# --- The database -----------------------------------------------------------------------------


class Tablebase:
    """The solved positions of up to ``pieces`` pieces: :meth:`build` solves them,
    :meth:`save` and :meth:`load` keep them in a file (lzma-compressed)."""

    def __init__(self, pieces: int, tables: dict[Signature, bytearray]) -> None:
        self.pieces = pieces
        self._tables = tables

    # -- probing -------------------------------------------------------------------------------

    def probe(self, bm: int, bk: int, wm: int, wk: int, black: bool) -> Probe | None:
        """The entry of a position given as bitboards (bit ``i`` is square ``i + 1``) and the
        side to move; None when it has more pieces than the database or a side has none."""
        if black:
            mm, mk, tm, tk = bm, bk, wm, wk
        else:
            mm, mk, tm, tk = _turned(wm), _turned(wk), _turned(bm), _turned(bk)
        value = self._value(mm, mk, tm, tk)
        if value is None:
            return None
        return _decode(value)

    def _value(self, mm: int, mk: int, tm: int, tk: int) -> int | None:
        sig = _signature(mm, mk, tm, tk)
        table = self._tables.get(sig)
        if table is None:
            return None
        return table[_layout(sig).index(mm, mk, tm, tk)]

    def probe_board(self, board: Board) -> Probe | None:
        """:meth:`probe` for a :class:`~engines.checkers.Board`."""
        bm, bk, wm, wk = (sum(1 << (s - 1) for s in squares) for squares in _board_sets(board))
        return self.probe(bm, bk, wm, wk, board.turn is Color.BLACK)

    def items(self) -> Iterator[tuple[Signature, int, int, int, int, Probe]]:
        """Every valid position with its entry: (signature, my men, my kings, their men, their
        kings, probe), the side to move moving up as Black does."""
        for sig, table in self._tables.items():
            for index, mm, mk, tm, tk in _layout(sig).positions():
                yield sig, mm, mk, tm, tk, _decode(table[index])

    def sample(
        self, rng: random.Random, count: int, keep: Callable[[Probe], bool] = lambda _: True
    ) -> list[tuple[Board, Probe]]:
        """``count`` random positions (as boards, the side to move Black) whose entry ``keep``
        accepts, every signature alike; for tests and benchmarks. Runs on until it has them."""
        found: list[tuple[Board, Probe]] = []
        sigs = sorted(self._tables)
        while len(found) < count:
            sig = rng.choice(sigs)
            layout = _layout(sig)
            index = rng.randrange(layout.size)
            masks = layout.masks(index)
            if masks is None:
                continue
            probe = _decode(self._tables[sig][index])
            if keep(probe):
                found.append((_board(*masks), probe))
        return found

    def stats(self) -> dict[str, int]:
        """Counts over the valid positions: wins, losses, draws and the longest distance."""
        counts = {"positions": 0, "wins": 0, "losses": 0, "draws": 0, "longest": 0}
        names = {Outcome.WIN: "wins", Outcome.LOSS: "losses", Outcome.DRAW: "draws"}
        for *_, probe in self.items():
            counts["positions"] += 1
            counts[names[probe.outcome]] += 1
            counts["longest"] = max(counts["longest"], probe.distance)
        return counts

    # -- files ---------------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the database to ``path``, lzma-compressed."""
        parts = [_MAGIC, bytes([self.pieces])]
        for sig in signatures(self.pieces):
            parts.append(bytes(self._tables[sig]))
        path.write_bytes(lzma.compress(b"".join(parts), preset=9 | lzma.PRESET_EXTREME))

    @classmethod
    def load(cls, path: Path) -> Tablebase:
        """Read a database :meth:`save` wrote; ValueError when the file is not one."""
        try:
            data = lzma.decompress(path.read_bytes())
        except lzma.LZMAError as error:
            raise ValueError(f"{path} is not a checkers endgame database: {error}") from None
        if not data.startswith(_MAGIC) or len(data) <= len(_MAGIC):
            raise ValueError(f"{path} is not a checkers endgame database")
        pieces = data[len(_MAGIC)]
        if not 2 <= pieces <= _MOST_PIECES:
            raise ValueError(f"{path} claims {pieces} pieces: not a database this code makes")
        offset = len(_MAGIC) + 1
        tables: dict[Signature, bytearray] = {}
        for sig in signatures(pieces):
            size = _layout(sig).size
            tables[sig] = bytearray(data[offset : offset + size])
            offset += size
        if offset != len(data):
            raise ValueError(f"{path} is truncated or of another layout")
        return cls(pieces, tables)

    # -- solving -------------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        pieces: int = PIECES,
        progress: Callable[[int, int], None] | None = None,
        only: Callable[[Signature], bool] | None = None,
    ) -> Tablebase:
        """Solve every position of up to ``pieces`` pieces by retrograde analysis.

        ``progress(done, total)`` is told the positions solved so far (by signature pairs).
        ``only`` limits the build to the signatures it accepts (with everything they lead to:
        the caller's business, e.g. kings only); for tests.
        """
        tables: dict[Signature, bytearray] = {}
        order = [s for s in signatures(pieces) if only is None or only(s)]
        total = sum(_layout(s).size for s in order)
        done = 0
        for sig in order:
            if sig in tables:
                continue
            pair = [sig] if _mirror(sig) == sig else [sig, _mirror(sig)]
            _solve_pair(pair, tables)
            done += sum(_layout(s).size for s in pair)
            if progress is not None:
                progress(done, total)
        return cls(pieces, tables)


def _board(mm: int, mk: int, tm: int, tk: int) -> Board:
    """A database position as a board: the side to move is Black."""

    def squares(mask: int) -> frozenset[int]:
        return frozenset(i + 1 for i in range(32) if mask >> i & 1)

    return Board(squares(mm), squares(mk), squares(tm), squares(tk), Color.BLACK)


def _board_sets(board: Board) -> tuple[frozenset[int], ...]:
    return board.black_men, board.black_kings, board.white_men, board.white_kings


def _decode(value: int) -> Probe:
    if value == 0:
        return Probe(Outcome.DRAW, 0)
    distance = value - 1
    return Probe(Outcome.WIN if distance & 1 else Outcome.LOSS, distance)


def _solve_pair(pair: list[Signature], tables: dict[Signature, bytearray]) -> None:
    """Solve a signature and its mirror together (a quiet move leads from one to the other),
    every capture and crowning leading to a signature already in ``tables``.

    Retrograde analysis over the pair's game graph: positions are settled in order of their
    distance (a bucket per distance); a position is won in ``d + 1`` as soon as one successor
    is lost in ``d``, lost when all its successors are won (at one more than the longest), and
    what is never settled is a draw.
    """
    layouts = [_layout(s) for s in pair]
    offsets = [0, layouts[0].size]
    n = sum(layout.size for layout in layouts)
    # Per position: in-pair successors left unsettled, the predecessors, and what leaving the
    # pair (a capture or a crowning) gives.
    left = bytearray(n)
    preds: list[list[int]] = [[] for _ in range(n)]
    escape = bytearray(n)  # 1: a capture or crowning draws or wins, so never a loss
    slowest = bytearray(n)  # the longest loss (distance + 1) among captures and crownings
    buckets: dict[int, list[tuple[int, bool]]] = {}  # distance -> [(position, won)]
    mirror_of = {pair[0]: len(pair) - 1, pair[-1]: 0}
    probe_value = Tablebase(0, tables)._value
    for side, (sig, layout) in enumerate(zip(pair, layouts, strict=True)):
        base = offsets[side]
        other = mirror_of[sig]
        other_layout = layouts[other]
        other_base = offsets[other]
        for index, mm, mk, tm, tk in layout.positions():
            g = base + index
            moves, _ = bit_moves(mm, mk, tm, tk, True)
            if not moves:
                buckets.setdefault(0, []).append((g, False))
                continue
            fastest = 0  # the fastest win found on leaving the pair, as distance + 1
            inside = 0
            for frm, to, cap in moves:
                leaves = cap
                if frm & mk:
                    nmm, nmk = mm, mk ^ frm ^ to
                elif to & _CROWN:
                    nmm, nmk = mm ^ frm, mk | to
                    leaves = 1
                else:
                    nmm, nmk = mm ^ frm ^ to, mk
                ntm, ntk = tm & ~cap, tk & ~cap
                if not (ntm | ntk):
                    fastest = 1  # took the last piece: the opponent is lost at 0
                    continue
                # The opponent to move, turned to move up the board.
                om, ok, em, ek = _turned(ntm), _turned(ntk), _turned(nmm), _turned(nmk)
                if leaves:
                    value = probe_value(om, ok, em, ek)
                    assert value is not None, "a capture or crowning leads to an unsolved table"
                    if value == 0:
                        escape[g] = 1
                    elif value & 1:  # the opponent loses in value - 1: a win in value
                        if not fastest or value < fastest:
                            fastest = value
                    elif value > slowest[g]:
                        slowest[g] = value  # the opponent wins in value - 1: a loss in value
                    continue
                inside += 1
                preds[other_base + other_layout.index(om, ok, em, ek)].append(g)
            left[g] = inside
            if fastest:
                escape[g] = 1
                buckets.setdefault(fastest, []).append((g, True))
            elif not inside and not escape[g]:
                buckets.setdefault(slowest[g], []).append((g, False))
    result = bytearray(n)
    distance = 0
    while buckets:
        batch = buckets.pop(distance, None)
        distance += 1
        if batch is None:
            continue
        for g, won in batch:
            if result[g]:
                continue
            result[g] = distance  # distance here is the settled one + 1
            for p in preds[g]:
                if result[p]:
                    continue
                if not won:
                    buckets.setdefault(distance, []).append((p, True))
                else:
                    left[p] -= 1
                    if not left[p] and not escape[p]:
                        buckets.setdefault(max(distance, slowest[p]), []).append((p, False))
    for side, (sig, layout) in enumerate(zip(pair, layouts, strict=True)):
        base = offsets[side]
        tables[sig] = result[base : base + layout.size]
