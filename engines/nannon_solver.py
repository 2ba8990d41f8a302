"""Nannon solved exactly: cubeless and cubeful values for money and match play.

Every value here is exact up to the iteration tolerance (:data:`TOLERANCE`): no neural net, no
rollouts. Nannon has 2,530 positions (:func:`engines.nannon.all_positions`), so a whole game can
be solved by value iteration: for each position and roll the successor positions are
precomputed as tuples of ints, positions are grouped into the strongly connected components of
the move graph (hits send checkers back, so positions can repeat) and each component is
iterated Gauss-Seidel style to a fixed point, sinks first, so the later components are solved
once.

Equities are from the side on roll, before it rolls (positions are seen from that side, as in
:mod:`engines.nannon`): points for money play (a single game is 1, a NANNON 2), and for match
play ``2 * MWC - 1`` in [-1, 1], where MWC is the match-winning chance.

The winner of the opening roll plays the difference of the dice, 1..5, each with probability
``2 * (6 - d) / 30``. Averaged over those, with optimal play for points, the winner is worth
+0.0322 points and wins 51.58% of the games:

>>> solver = NannonSolver()
>>> start = Position.initial()
>>> def opening(f):
...     return sum(2 * (6 - d) / 30 * f(d) for d in range(1, 6))
>>> round(opening(lambda d: solver.rank_moves(start, d, MONEY_CUBELESS)[0].equity), 4)
0.0322
>>> def won(d):
...     after = solver.rank_moves(start, d, MONEY_CUBELESS)[0].position
...     return solver.cubeless(after).lose  # the opponent, on roll there, loses
>>> round(opening(won), 4)
0.5158
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any

from engines.nannon import Move, Places, Position, all_positions

__all__ = [
    "MONEY_CUBELESS",
    "TOLERANCE",
    "Context",
    "GameProbabilities",
    "InvalidContextError",
    "NannonSolver",
    "RankedMove",
]

TOLERANCE = 1e-12  # value iteration stops when no value moved more than this in a sweep
_MAX_SWEEPS = 100_000  # a guard: Nannon converges in a few dozen sweeps
_NO_DOUBLE = float("-inf")

# Terminal status of a position, for the side on roll.
_IN_PLAY = 0
_LOST_SINGLE, _LOST_NANNON = 1, 2  # the opponent (who just moved) bore off the last checker
_WON_SINGLE, _WON_NANNON = 3, 4  # hand-made: the side on roll has already won

Utilities = tuple[float, float, float, float]
"""What the end of a game is worth to the side on roll: (win single, win NANNON, lose single,
lose NANNON)."""

_MONEY: Utilities = (1.0, 2.0, -1.0, -2.0)


class InvalidContextError(ValueError):
    """A score, cube or question the solver can't answer (a malformed score, a double that the
    rules refuse here)."""


# -- the move graph ----------------------------------------------------------------------------


class _Graph:
    """Nannon's positions and moves as ints, built once (:func:`_graph`).

    ``succ[p][r - 1]`` holds the positions (indices) after each legal move of roll ``r`` from
    ``p``, seen from the opponent, aligned with ``moves[p][r - 1]``; a roll with no legal move
    passes the turn, and its one successor is ``p`` seen from the opponent.
    """

    def __init__(self) -> None:
        positions = all_positions()
        self.positions = positions
        self.size = n = len(positions)
        self.index: dict[tuple[Places, Places], int] = {
            (p.mine, p.theirs): i for i, p in enumerate(positions)
        }
        self.initial = self.index[(Position.initial().mine, Position.initial().theirs)]
        self.zero = 2 * n  # a slot that always holds 0.0 in a solve's vector
        status: list[int] = []
        moves: list[tuple[tuple[Move, ...], ...]] = []
        succ: list[tuple[tuple[int, ...], ...]] = []
        for pos in positions:
            outcome = pos.outcome()
            if outcome is None:
                status.append(_IN_PLAY)
            elif outcome.winner_on_roll:
                status.append(_WON_SINGLE if outcome.points == 1 else _WON_NANNON)
            else:
                status.append(_LOST_SINGLE if outcome.points == 1 else _LOST_NANNON)
            if outcome is not None:
                moves.append(((),) * 6)
                succ.append(((),) * 6)
                continue
            by_roll_moves = []
            by_roll_succ = []
            for roll in range(1, 7):
                legal = pos.legal_moves(roll)
                by_roll_moves.append(legal)
                if legal:
                    after = [pos.apply(m) for m in legal]
                    by_roll_succ.append(tuple(self.index[(q.mine, q.theirs)] for q in after))
                else:
                    by_roll_succ.append((self.index[(pos.theirs, pos.mine)],))
            moves.append(tuple(by_roll_moves))
            succ.append(tuple(by_roll_succ))
        self.status = tuple(status)
        self.moves = tuple(moves)
        self.succ = tuple(succ)
        self.groups = self._components()
        self._compiled: dict[int, list[tuple[Any, tuple[Any, ...]]]] = {}

    def _components(self) -> tuple[tuple[tuple[int, ...], bool], ...]:
        """The strongly connected components of the positions in play, sinks first.

        Each is ``(positions, once)``: positions ordered by progress (checkers further on
        first, which Gauss-Seidel likes), and ``once`` when one sweep solves it (a single
        position that can't come back to itself).
        """
        n = self.size
        succ = self.succ
        live = [self.status[p] == _IN_PLAY for p in range(n)]
        adjacency = [
            sorted({q for row in succ[p] for q in row if live[q]}) if live[p] else []
            for p in range(n)
        ]
        # Tarjan's algorithm, iterative; it emits components sinks first.
        order = [-1] * n
        low = [0] * n
        on_stack = [False] * n
        stack: list[int] = []
        found: list[list[int]] = []
        counter = 0
        for root in range(n):
            if not live[root] or order[root] >= 0:
                continue
            work = [(root, 0)]
            order[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack[root] = True
            while work:
                v, i = work[-1]
                if i < len(adjacency[v]):
                    work[-1] = (v, i + 1)
                    w = adjacency[v][i]
                    if order[w] < 0:
                        order[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack[w] = True
                        work.append((w, 0))
                    elif on_stack[w]:
                        low[v] = min(low[v], order[w])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == order[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        component.append(w)
                        if w == v:
                            break
                    found.append(component)

        def progress(p: int) -> int:
            pos = self.positions[p]
            return sum(pos.mine) + sum(pos.theirs)

        groups = []
        for component in found:
            component.sort(key=lambda p: (-progress(p), p))
            once = len(component) == 1 and component[0] not in adjacency[component[0]]
            groups.append((tuple(component), once))
        return tuple(groups)

    def compiled(self, offset: int) -> list[tuple[Any, tuple[Any, ...]]]:
        """Per position, getters for a solve's flat vector whose successors sit at ``offset``.

        ``(forced, choices)``: ``forced(V)`` is the tuple of the successors' values of the
        rolls with one successor (padded with the zero slot, so it is always a tuple), and each
        of ``choices`` gives the successors' values of one roll with a choice of moves.
        """
        table = self._compiled.get(offset)
        if table is None:
            table = []
            zero = self.zero
            for p in range(self.size):
                forced = [zero, zero]
                choices = []
                for row in self.succ[p]:
                    if len(row) == 1:
                        forced.append(row[0] + offset)
                    elif row:
                        choices.append(itemgetter(*(q + offset for q in row)))
                table.append((itemgetter(*forced), tuple(choices)))
            self._compiled[offset] = table
        return table


@cache
def _graph() -> _Graph:
    return _Graph()


@dataclass(frozen=True, slots=True)
class _Layer:
    """One side's positions in a solve: what a finished game is worth to the side on roll,
    where its successors are (layer 0 or 1), and, if it may double, what a double is worth
    (per position: the lower of the taker's take and pass, from the doubler)."""

    utilities: Utilities
    next_layer: int
    doubles: Sequence[float] | None = None


def _solve(layers: Sequence[_Layer], tolerance: float = TOLERANCE) -> list[float]:
    """Value-iterate one or two layers of positions to their fixed point.

    Returns the flat vector: layer ``k``'s equity of position ``p`` (before rolling, doubles
    included) is at ``k * size + p``. Each position's value is the average over the six rolls
    of the best move's value, which is minus the opponent's value after it; then, where the
    layer may double, the larger of that and the double's value.
    """
    graph = _graph()
    n = graph.size
    values = [0.0] * (2 * n + 1)
    for k, layer in enumerate(layers):
        ws, wn, ls, ln = layer.utilities
        ends = {_LOST_SINGLE: ls, _LOST_NANNON: ln, _WON_SINGLE: ws, _WON_NANNON: wn}
        for p, status in enumerate(graph.status):
            if status != _IN_PLAY:
                values[k * n + p] = ends[status]
    tables = [graph.compiled(layer.next_layer * n) for layer in layers]
    for group, once in graph.groups:
        records = []
        for p in group:
            for k, layer in enumerate(layers):
                forced, choices = tables[k][p]
                double = _NO_DOUBLE if layer.doubles is None else layer.doubles[p]
                records.append((k * n + p, forced, choices, double))
        for _ in range(_MAX_SWEEPS):
            delta = 0.0
            for i, forced, choices, double in records:
                total = sum(forced(values))
                for choice in choices:
                    total += min(choice(values))
                value = total / -6.0
                if value < double:
                    value = double
                change = abs(value - values[i])
                if change > delta:
                    delta = change
                values[i] = value
            if once or delta < tolerance:
                break
        else:  # pragma: no cover - a guard, never reached
            raise RuntimeError("value iteration did not converge")
    return values


def _policy(values: Sequence[float], offset: int = 0) -> list[tuple[int, ...]]:
    """For each position, the successor chosen for each roll by ``values`` (the opponent's
    equities at ``offset``): the lowest, the first in move order on a tie."""
    graph = _graph()
    chosen: list[tuple[int, ...]] = []
    for p in range(graph.size):
        if graph.status[p] != _IN_PLAY:
            chosen.append(())
            continue
        row_choice = []
        for row in graph.succ[p]:
            best = row[0]
            for q in row[1:]:
                if values[offset + q] < values[offset + best]:
                    best = q
            row_choice.append(best)
        chosen.append(tuple(row_choice))
    return chosen


def _probabilities(
    chosen: Sequence[tuple[int, ...]], tolerance: float = TOLERANCE
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Win single / win NANNON / lose single / lose NANNON for the side on roll in each
    position, when both sides play ``chosen`` (a policy iterated to its fixed point)."""
    graph = _graph()
    n = graph.size
    ws, wn, ls, ln = ([0.0] * n for _ in range(4))
    for p, status in enumerate(graph.status):
        if status != _IN_PLAY:
            target = {_WON_SINGLE: ws, _WON_NANNON: wn, _LOST_SINGLE: ls, _LOST_NANNON: ln}
            target[status][p] = 1.0
    for group, once in graph.groups:
        getters = [(p, itemgetter(*chosen[p])) for p in group]
        for _ in range(_MAX_SWEEPS):
            delta = 0.0
            for p, get in getters:
                # The opponent's loss is my win.
                new = (sum(get(ls)) / 6, sum(get(ln)) / 6, sum(get(ws)) / 6, sum(get(wn)) / 6)
                change = max(abs(new[0] - ws[p]), abs(new[2] - ls[p]))
                if change > delta:
                    delta = change
                ws[p], wn[p], ls[p], ln[p] = new
            if once or delta < tolerance:
                break
        else:  # pragma: no cover - a guard, never reached
            raise RuntimeError("policy evaluation did not converge")
    return ws, wn, ls, ln


# -- public values -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameProbabilities:
    """How a game ends for the side on roll, with optimal play for points (no cube).

    >>> probs = NannonSolver().cubeless(Position.from_id("677-027"))
    >>> probs.win_single, probs.win_nannon  # any roll bears my last checker off
    (1.0, 0.0)
    """

    win_single: float
    win_nannon: float
    lose_single: float
    lose_nannon: float

    @property
    def win(self) -> float:
        return self.win_single + self.win_nannon

    @property
    def lose(self) -> float:
        return self.lose_single + self.lose_nannon

    @property
    def equity(self) -> float:
        """Expected points: a single game is 1, a NANNON 2."""
        return self.win_single + 2 * self.win_nannon - self.lose_single - 2 * self.lose_nannon


@dataclass(frozen=True, slots=True)
class Context:
    """What an equity is about. Money play without the cube: :data:`MONEY_CUBELESS`."""

    cubeless: bool = True


MONEY_CUBELESS = Context()


@dataclass(frozen=True, slots=True)
class RankedMove:
    """A legal move, the position after it (seen from the opponent) and its equity for the
    mover."""

    move: Move
    position: Position
    equity: float


class NannonSolver:
    """Exact Nannon values, solved on demand and cached.

    >>> solver = NannonSolver()
    >>> [(str(r.move), round(r.equity, 3)) for r in solver.rank_moves(
    ...     Position.initial(), 3, MONEY_CUBELESS)]
    [('H/3', 0.301), ('1/4', -0.265)]
    """

    def __init__(self) -> None:
        self._cubeless: list[float] | None = None
        self._cubeless_probs: tuple[list[float], ...] | None = None

    def _index(self, position: Position) -> int:
        if not isinstance(position, Position):
            raise InvalidContextError(f"not a Nannon position: {position!r}")
        return _graph().index[(position.mine, position.theirs)]

    def _money_cubeless(self) -> list[float]:
        if self._cubeless is None:
            self._cubeless = _solve([_Layer(_MONEY, 0)])
        return self._cubeless

    def equity(self, position: Position, context: Context) -> float:
        """The equity of the side on roll in ``position``, before it rolls."""
        return self._money_cubeless()[self._index(position)]

    def cubeless(self, position: Position) -> GameProbabilities:
        """How the game ends from ``position`` (side on roll, before rolling) when both sides
        play for points without the cube."""
        if self._cubeless_probs is None:
            self._cubeless_probs = _probabilities(_policy(self._money_cubeless()))
        p = self._index(position)
        ws, wn, ls, ln = (table[p] for table in self._cubeless_probs)
        return GameProbabilities(ws, wn, ls, ln)

    def rank_moves(self, position: Position, roll: int, context: Context) -> list[RankedMove]:
        """Every legal move of ``roll``, best first, with its equity for the mover.

        Empty when no move is legal (the turn is forfeited). Equal equities keep the order of
        :meth:`Position.legal_moves`.
        """
        p = self._index(position)
        if type(roll) is not int or not 1 <= roll <= 6:
            raise InvalidContextError(f"a Nannon roll is 1..6, not {roll!r}")
        graph = _graph()
        theirs = self._money_cubeless()
        ranked = [
            RankedMove(move, graph.positions[q], -theirs[q])
            for move, q in zip(graph.moves[p][roll - 1], graph.succ[p][roll - 1], strict=True)
        ]
        ranked.sort(key=lambda r: -r.equity)
        return ranked
