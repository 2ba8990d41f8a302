"""Nannon solved exactly: cubeless and cubeful values for money and match play.

Every value here is exact up to the iteration tolerance (:data:`TOLERANCE`): no neural net, no
rollouts. Nannon has 2,530 positions (:func:`engines.nannon.all_positions`), so a whole game can
be solved by value iteration: for each position and roll the successor positions are
precomputed as tuples of ints, positions are grouped into the strongly connected components of
the move graph (hits send checkers back, so positions can repeat) and each component is
iterated Gauss-Seidel style to a fixed point, sinks first, so the later components are solved
once. A component's sweep runs in batches of C-level maps (:class:`_Plan`), mostly with the
moves fixed once they have settled, and stops by the plain rule: a full sweep that moves no
value by the tolerance.

Equities are from the side on roll, before it rolls (positions are seen from that side, as in
:mod:`engines.nannon`): points for money play (a single game is 1, a NANNON 2, times the
cube), and for match play ``2 * MWC - 1`` in [-1, 1], where MWC is the match-winning chance.
A :class:`Context` says which: :data:`MONEY_CUBELESS`, :data:`MONEY` or
``Context.match(away_me, away_them, cube, crawford=...)``.

- Money play with the cube is exact without a cap: a value at cube ``v`` is ``v`` times the
  value at 1, so a redouble reads the same values at twice the stake (three vectors: cube
  centred, mine, theirs).
- Match play: a score is solved on demand (:meth:`NannonSolver.rank_moves` and the others
  solve it the first time they are asked, and keep the last 32 scores). Its cube values are
  solved from the highest down: from the first value that covers both sides' needs every win
  wins the match, the cube is dead and the game is the double-match-point one; below it, a
  double's take reads the level above. A finished game is worth the match equity of the score
  it leads to: :mod:`engines.nannon_met`, the table of every score up to 25 away, which this
  module computed from first principles (``NannonSolver(table=False)`` does it again).
- The opening roll: the higher die plays the difference; after a tie either side that may
  double may do so (the Nannon ruling), then the dice are rolled again.

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

import enum
import itertools
import math
import random
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import repeat
from operator import add, call, getitem, itemgetter, mul, sub, truediv
from typing import Any

from engines import nannon_met
from engines.base import GameKind, GameMatch
from engines.cube import Cube
from engines.nannon import Move, Places, Position, all_positions

__all__ = [
    "EQUITY_TOLERANCE",
    "LOSS_TARGETS",
    "MAX_AWAY",
    "MONEY",
    "MONEY_CUBELESS",
    "TEMPERATURES",
    "TOLERANCE",
    "Context",
    "CubeAction",
    "CubeDecision",
    "CubeOwner",
    "CubeState",
    "GameProbabilities",
    "InvalidContextError",
    "Level",
    "MatchScore",
    "NannonSolver",
    "RankedMove",
    "TakeDecision",
    "choose_cube",
    "choose_move",
    "choose_take",
    "expected_loss",
    "self_play_decisions",
]

TOLERANCE = 1e-12  # value iteration stops when no value moved more than this in a sweep
EQUITY_TOLERANCE = 1e-9
"""Two options closer than this are worth the same. The solved values are long sums, so equal
options can differ in the last bits (a dead cube's double came out 5e-14 ahead of rolling);
a decision compares equities with this slack and keeps the quiet option on a tie."""
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
        self._plans: dict[tuple[int, tuple[int, ...]], _Plan] = {}

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

    def plan(self, g: int, nexts: tuple[int, ...]) -> _Plan:
        """Group ``g``'s sweep, batched (:class:`_Plan`), for layers whose successors are in
        layers ``nexts``."""
        key = (g, nexts)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _Plan(self, self.groups[g][0], nexts)
        return plan

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


_SETTLED = 1e-3
"""A group's moves are taken as settled once a full sweep changes no value by more than this
(they then rarely change again): from there sweeps use the moves the last full sweep picked."""


_STEADY = 0.1  # two ratios of successive changes this close (relatively) count as steady


class _Plan:
    """One cyclic group's Gauss-Seidel sweep, batched so that its inner loops run in C.

    The group's positions (each layer) get a vector of their own, ``x``, in sweep order,
    followed by the zero slot, one slot per position for the sum of its successors outside
    the group (final by then: the groups are solved sinks first), one per choice that mixes
    successors inside and outside (the minimum of those outside) and one per choice for its
    minimum in the current sweep. The sweep is cut into runs in which no position reads what
    an earlier one of the same run writes, so a run's values can be computed together from
    the vector as it stands: the same arithmetic as the one-by-one sweep.
    """

    def __init__(self, graph: _Graph, group: tuple[int, ...], nexts: tuple[int, ...]) -> None:
        n = graph.size
        members = set(group)
        records = [(k, p) for p in group for k in range(len(nexts))]
        local = {record: r for r, record in enumerate(records)}
        size = len(records)
        self.size = size
        self.index = tuple(k * n + p for k, p in records)
        self.positions = tuple(p for _, p in records)
        self.layers = tuple(k for k, _ in records)
        zero = size
        top = 2 * size + 1  # past the zero slot and the outside sums
        out_forced_getters = []  # per position, its forced successors outside
        out_choice_getters: list[Any] = []  # every choice wholly outside, in order
        out_choice_picks = []  # per position, where its choices are in that order
        mixed: list[Any] = []  # per mixed choice, its successors outside
        forced_in: list[list[int]] = []
        choices_in: list[list[tuple[int, ...]]] = []
        for k, p in records:
            nk = nexts[k]
            forced: list[int] = []
            out_forced = [graph.zero, graph.zero]
            out_choices = []
            rows: list[tuple[int, ...]] = []
            for row in graph.succ[p]:
                inside = [local[(nk, q)] for q in row if q in members]
                outside = [nk * n + q for q in row if q not in members]
                if len(row) == 1:
                    (forced if inside else out_forced).extend(inside or outside)
                elif not inside:
                    out_choices.append(len(out_choice_getters))
                    out_choice_getters.append(itemgetter(*outside))
                else:
                    if outside:
                        mixed.append(itemgetter(*outside, outside[0]))
                        inside.append(top)
                        top += 1
                    rows.append(tuple(inside))
            out_forced_getters.append(itemgetter(*out_forced))
            out_choice_picks.append(out_choices)
            forced_in.append(forced)
            choices_in.append(rows)
        cuts = [0]
        for r in range(size):
            reads = forced_in[r] + [j for row in choices_in[r] for j in row]
            if any(cuts[-1] <= j < r for j in reads):
                cuts.append(r)
        cuts.append(size)
        runs = []
        for s, e in itertools.pairwise(cuts):
            first = top
            run_rows: list[tuple[int, ...]] = []
            getters = []
            for r in range(s, e):
                slots = range(top, top + len(choices_in[r]))
                top += len(slots)
                run_rows += choices_in[r]
                getters.append(itemgetter(*(size + 1 + r, zero, *forced_in[r], *slots)))
            choices = tuple(itemgetter(*row) for row in run_rows)
            runs.append(_Run(s, e, first, top, choices, tuple(getters), tuple(run_rows)))
        self.runs = tuple(runs)
        self.out_forced = tuple(out_forced_getters)
        self.out_choices = tuple(out_choice_getters)
        # Each position's minimums in the list of those choices' minimums, padded with its
        # last entry, a 0.0, so that each getter gives a tuple.
        pad = len(out_choice_getters)
        self.out_picks = tuple(itemgetter(*picks, pad, pad) for picks in out_choice_picks)
        self.mixed = tuple(mixed)
        self.length = top

    def solve(self, values: list[float], doubles: Sequence[float], tolerance: float) -> None:
        """Iterates the group to its fixed point in ``values`` (the solve's flat vector);
        ``doubles[r]`` is what a double is worth to the ``r``-th position (-inf: none).

        Each full sweep also notes the move it picks for each choice. Until the moves settle
        (:data:`_SETTLED`), a full sweep is followed by one sweep with those moves fixed; then
        by such sweeps until they move no value by the tolerance, with an Aitken jump each
        time the change shrinks by a steady ratio. A fixed move is a read instead of a
        minimum: about half the cost. Whatever these steps do, the solve stops only after a
        full sweep moves no value by the tolerance, the stopping rule of plain value
        iteration, whose fixed point is unique.
        """
        size = self.size
        x = [0.0] * self.length
        x[:size] = map(values.__getitem__, self.index)
        # What lies outside the group, read once: the sums and the mixed choices' minimums.
        least = list(map(min, map(call, self.out_choices, repeat(values))))
        least.append(0.0)
        x[size + 1 : 2 * size + 1] = map(
            add,
            map(sum, map(call, self.out_forced, repeat(values))),
            map(sum, map(call, self.out_picks, repeat(least))),
        )
        mixed = 2 * size + 1
        x[mixed : mixed + len(self.mixed)] = map(min, map(call, self.mixed, repeat(values)))
        runs = [(run, _doubles(doubles[run.start : run.end])) for run in self.runs]
        six = repeat(-6.0)
        for _ in range(_MAX_SWEEPS):
            delta = 0.0
            picks = []
            for run, double in runs:
                s, e = run.start, run.end
                seen = list(map(call, run.choices, repeat(x)))
                least = list(map(min, seen))
                x[run.first : run.last] = least
                chosen = list(map(getitem, run.rows, map(tuple.index, seen, least)))
                picks.append((s, e, run.first, run.last, chosen, run.records, double))
                new = list(map(truediv, map(sum, map(call, run.records, repeat(x))), six))
                if double is not None:
                    new = list(map(max, new, double))
                change = max(map(abs, map(sub, new, x[s:e])))
                if change > delta:
                    delta = change
                x[s:e] = new
            if delta < tolerance:
                break
            if delta > _SETTLED:
                self._sweep(x, picks)
                continue
            last, rate = math.inf, 0.0
            for _ in range(_MAX_SWEEPS):
                before = x[:size]
                delta = self._sweep(x, picks)
                if delta < tolerance:
                    break
                # Once the change shrinks by a steady ratio, the error is mostly one mode
                # shrinking by it: jump to where it tends (Aitken), then sweep on.
                if abs(delta / last - rate) < _STEADY * rate and delta / last < 0.6:
                    rate = delta / last
                    push = repeat(rate / (1.0 - rate))
                    x[:size] = map(add, x[:size], map(mul, map(sub, x[:size], before), push))
                    last, rate = math.inf, 0.0
                else:
                    last, rate = delta, delta / last
        else:  # pragma: no cover - a guard, never reached
            raise RuntimeError("value iteration did not converge")
        for i, value in zip(self.index, x, strict=False):
            values[i] = value

    @staticmethod
    def _sweep(x: list[float], picks: list[Any]) -> float:
        """A sweep with the moves ``picks`` fixed; the largest change."""
        get = x.__getitem__
        six = repeat(-6.0)
        delta = 0.0
        for s, e, first, last, chosen, records, double in picks:
            x[first:last] = map(get, chosen)
            new = list(map(truediv, map(sum, map(call, records, repeat(x))), six))
            if double is not None:
                new = list(map(max, new, double))
            change = max(map(abs, map(sub, new, x[s:e])))
            if change > delta:
                delta = change
            x[s:e] = new
        return delta


def _doubles(doubles: Sequence[float]) -> Sequence[float] | None:
    """``doubles``, or None when nobody in it may double (no maximum to take)."""
    return None if all(d == _NO_DOUBLE for d in doubles) else doubles


@dataclass(frozen=True, slots=True)
class _Run:
    """Positions ``start:end`` of a :class:`_Plan`'s sweep, computed together: ``records``
    give each one's values to sum, including its choices' minimums, which ``choices`` (the
    values of each choice, whose slots are ``rows``) give at slots ``first:last``."""

    start: int
    end: int
    first: int
    last: int
    choices: tuple[Any, ...]
    records: tuple[Any, ...]
    rows: tuple[tuple[int, ...], ...]


@cache
def _graph() -> _Graph:
    return _Graph()


@dataclass(frozen=True, slots=True)
class _Redouble:
    """A double whose take is valued in the same solve: ``min(scale * V[layer, p], cash)``.

    Money play: the cube is doubled and turned over, so the take is worth twice the taker's
    side of the same position with the cube on their side (``scale`` 2); a pass is worth
    ``cash``.
    """

    layer: int
    scale: float
    cash: float


@dataclass(frozen=True, slots=True)
class _Layer:
    """One side's positions in a solve: what a finished game is worth to the side on roll,
    the layer its successors are in (0 or 1), and, if it may double, what a double is worth:
    per position, the lower of the taker's take and pass (from the doubler), or a
    :class:`_Redouble`."""

    utilities: Utilities
    next_layer: int
    doubles: Sequence[float] | _Redouble | None = None


def _solve(
    layers: Sequence[_Layer],
    tolerance: float = TOLERANCE,
    start: Sequence[float] | None = None,
) -> list[float]:
    """Value-iterate one or two layers of positions to their fixed point.

    Returns the flat vector: layer ``k``'s equity of position ``p`` (before rolling, doubles
    included) is at ``k * size + p``. Each position's value is the average over the six rolls
    of the best move's value, which is minus the opponent's value after it; then, where the
    layer may double, the larger of that and the double's value.
    """
    graph = _graph()
    n = graph.size
    zero = graph.zero
    values = [0.0] * (2 * n + 1)
    if start is not None:  # a guess: fewer sweeps when it is close
        values[: len(start)] = start
    for k, layer in enumerate(layers):
        ws, wn, ls, ln = layer.utilities
        ends = {_LOST_SINGLE: ls, _LOST_NANNON: ln, _WON_SINGLE: ws, _WON_NANNON: wn}
        for p, status in enumerate(graph.status):
            if status != _IN_PLAY:
                values[k * n + p] = ends[status]
    tables = [graph.compiled(layer.next_layer * n) for layer in layers]
    dynamic = any(isinstance(layer.doubles, _Redouble) for layer in layers)
    nexts = tuple(layer.next_layer for layer in layers)
    for g, (group, once) in enumerate(graph.groups):
        if not once and not dynamic:
            plan = graph.plan(g, nexts)
            by_layer = [layer.doubles for layer in layers]
            worth = [
                _NO_DOUBLE if by_layer[k] is None else by_layer[k][p]  # type: ignore[index]
                for k, p in zip(plan.layers, plan.positions, strict=True)
            ]
            plan.solve(values, worth, tolerance)
            continue
        records: list[Any] = []
        for p in group:
            for k, layer in enumerate(layers):
                forced, choices = tables[k][p]
                doubles = layer.doubles
                if not dynamic:
                    double = _NO_DOUBLE if doubles is None else doubles[p]  # type: ignore[index]
                    records.append((k * n + p, forced, choices, double))
                elif isinstance(doubles, _Redouble):
                    j = doubles.layer * n + p
                    records.append((k * n + p, forced, choices, j, doubles.scale, doubles.cash))
                else:
                    assert doubles is None
                    records.append((k * n + p, forced, choices, zero, 0.0, _NO_DOUBLE))
        sweep = _sweep_redoubles if dynamic else _sweep
        # One sweep solves a position that can't come back, unless a double reads a value
        # of the same sweep.
        once = once and not dynamic
        for _ in range(_MAX_SWEEPS):
            delta = sweep(values, records)
            if once or delta < tolerance:
                break
        else:  # pragma: no cover - a guard, never reached
            raise RuntimeError("value iteration did not converge")
    return values


def _sweep(values: list[float], records: list[Any]) -> float:
    """One Gauss-Seidel sweep; the largest change. The solver's inner loop."""
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
    return delta


def _sweep_redoubles(values: list[float], records: list[Any]) -> float:
    """:func:`_sweep` where a double's take is valued in the same vector."""
    delta = 0.0
    for i, forced, choices, j, scale, cash in records:
        total = sum(forced(values))
        for choice in choices:
            total += min(choice(values))
        value = total / -6.0
        double = scale * values[j]
        if double > cash:
            double = cash
        if value < double:
            value = double
        change = abs(value - values[i])
        if change > delta:
            delta = change
        values[i] = value
    return delta


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


class CubeOwner(enum.Enum):
    """Who owns the cube, seen from the side on roll."""

    CENTRED = "centred"
    ME = "me"
    THEM = "them"

    def flipped(self) -> CubeOwner:
        """The same owner seen from the other side."""
        return _FLIPPED_OWNER[self]


_FLIPPED_OWNER = {
    CubeOwner.CENTRED: CubeOwner.CENTRED,
    CubeOwner.ME: CubeOwner.THEM,
    CubeOwner.THEM: CubeOwner.ME,
}


@dataclass(frozen=True, slots=True)
class CubeState:
    """The cube's value (a power of two) and its owner, seen from the side on roll.

    >>> CubeState(2, CubeOwner.ME).flipped()
    CubeState(value=2, owner=<CubeOwner.THEM: 'them'>)
    >>> CubeState(3)
    Traceback (most recent call last):
    engines.nannon_solver.InvalidContextError: a cube value is a power of two, not 3
    """

    value: int = 1
    owner: CubeOwner = CubeOwner.CENTRED

    def __post_init__(self) -> None:
        value = self.value
        if type(value) is not int or value < 1 or value & (value - 1):
            raise InvalidContextError(f"a cube value is a power of two, not {value!r}")
        if not isinstance(self.owner, CubeOwner):
            raise InvalidContextError(f"a cube owner is a CubeOwner, not {self.owner!r}")

    def flipped(self) -> CubeState:
        return CubeState(self.value, self.owner.flipped())


MAX_AWAY = 25
"""The longest match the solver plays: scores from 1 to 25 away."""


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Points each side still needs, the side on roll first; ``crawford`` for the Crawford
    game (one side is 1 away for the first time: nobody may double); ``crawford_rule`` False
    for a match played without the Crawford rule (no game is ever the Crawford game).

    With one side 1 away and ``crawford`` False, the game is post-Crawford.

    >>> MatchScore(1, 4, crawford=True).flipped()
    MatchScore(away_me=4, away_them=1, crawford=True)
    >>> MatchScore(3, 3, crawford=True)
    Traceback (most recent call last):
    engines.nannon_solver.InvalidContextError: the Crawford game needs one side 1 away, not 3-3
    >>> MatchScore(3, 4, crawford_rule=False).flipped()
    MatchScore(away_me=4, away_them=3, crawford_rule=False)
    """

    away_me: int
    away_them: int
    crawford: bool = False
    crawford_rule: bool = True

    def __post_init__(self) -> None:
        for away in (self.away_me, self.away_them):
            if type(away) is not int or not 1 <= away <= MAX_AWAY:
                raise InvalidContextError(f"a score is 1 to {MAX_AWAY} points away, not {away!r}")
        if self.crawford and (
            min(self.away_me, self.away_them) != 1 or self.away_me == self.away_them
        ):
            raise InvalidContextError(
                f"the Crawford game needs one side 1 away, not {self.away_me}-{self.away_them}"
            )
        if self.crawford and not self.crawford_rule:
            raise InvalidContextError("without the Crawford rule no game is the Crawford game")

    def __repr__(self) -> str:
        # The rule is named only when it is off, so that the common repr stays short.
        rule = "" if self.crawford_rule else ", crawford_rule=False"
        crawford = ", crawford=True" if self.crawford else ", crawford=False" if rule == "" else ""
        return f"MatchScore(away_me={self.away_me}, away_them={self.away_them}{crawford}{rule})"

    @property
    def post_crawford(self) -> bool:
        return not self.crawford and min(self.away_me, self.away_them) == 1

    def flipped(self) -> MatchScore:
        return MatchScore(self.away_them, self.away_me, self.crawford, self.crawford_rule)


@dataclass(frozen=True, slots=True)
class Context:
    """What an equity is about: money play (``score`` None) or a match score, and the cube
    (None: money play without the cube). Both seen from the side on roll.

    >>> Context.match(3, 5, CubeState(2, CubeOwner.THEM)).flipped()
    Context(score=MatchScore(away_me=5, away_them=3, crawford=False), \
cube=CubeState(value=2, owner=<CubeOwner.ME: 'me'>))
    >>> Context.match(3, 5, cube=None)
    Traceback (most recent call last):
    engines.nannon_solver.InvalidContextError: match play has a cube (a centred one at 1 in the \
Crawford game)
    """

    score: MatchScore | None = None
    cube: CubeState | None = CubeState()

    def __post_init__(self) -> None:
        cube, score = self.cube, self.score
        if cube is not None and not isinstance(cube, CubeState):
            raise InvalidContextError(f"not a CubeState: {cube!r}")
        if score is None:
            return
        if not isinstance(score, MatchScore):
            raise InvalidContextError(f"not a MatchScore: {score!r}")
        if cube is None:
            raise InvalidContextError(
                "match play has a cube (a centred one at 1 in the Crawford game)"
            )
        if (cube.owner is CubeOwner.CENTRED) != (cube.value == 1):
            raise InvalidContextError(
                f"in match play a cube is centred at 1 or owned at 2 or more, not {cube!r}"
            )
        if score.crawford and cube.value != 1:
            raise InvalidContextError("nobody doubles in the Crawford game: the cube is centred")

    @classmethod
    def money(cls, cube: CubeState | None = CubeState()) -> Context:
        return cls(None, cube)

    @classmethod
    def match(
        cls,
        away_me: int,
        away_them: int,
        cube: CubeState | None = CubeState(),
        *,
        crawford: bool = False,
        crawford_rule: bool = True,
    ) -> Context:
        return cls(MatchScore(away_me, away_them, crawford, crawford_rule), cube)

    @classmethod
    def of_match(cls, match: GameMatch, seat: int | None = None) -> Context:
        """The context of ``seat`` (by default the seat on turn) in a Nannon match.

        >>> from engines import new_match
        >>> from engines.actions import Double, OpeningRoll, Take
        >>> from engines.base import MatchRules
        >>> m = new_match("nannon", MatchRules(length=5))
        >>> _ = m.apply(OpeningRoll(None, (3, 3))); _ = m.apply(Double(1)); _ = m.apply(Take(0))
        >>> Context.of_match(m, 1)
        Context(score=MatchScore(away_me=5, away_them=5, crawford=False), \
cube=CubeState(value=2, owner=<CubeOwner.THEM: 'them'>))
        """
        if match.kind is not GameKind.NANNON or match.cube is None:
            raise InvalidContextError(f"not a Nannon match: {match.kind}")
        rules = match.rules
        me = match.turn if seat is None else seat
        if me not in (0, 1):
            raise InvalidContextError(f"a seat is 0 or 1, not {me!r}")
        score = match.score
        cube = match.cube
        if not rules.cube:
            # The solver has no cubeless match play: it values the match as if the cube were
            # centred (nobody may double there: can_double says so).
            cube = Cube()
        owner = CubeOwner.CENTRED
        if cube.owner is not None:
            owner = CubeOwner.ME if cube.owner == me else CubeOwner.THEM
        return cls.match(
            rules.length - int(score[me]),
            rules.length - int(score[1 - me]),
            CubeState(cube.value, owner),
            crawford=match.crawford_game,
            crawford_rule=rules.crawford,
        )

    @property
    def may_double(self) -> bool:
        """True when the rules let the side on roll double now."""
        if self.cube is None or self.cube.owner is CubeOwner.THEM:
            return False
        return self.score is None or not self.score.crawford

    @property
    def cube_dead(self) -> bool:
        """True in match play when a win at the cube's value already takes the match for the
        side on roll (double match point, the leader after the Crawford game): its double gains
        nothing, and the double's taker loses nothing by taking that a pass would not."""
        if self.score is None or self.cube is None:
            return False
        return self.cube.value >= self.score.away_me

    def flipped(self) -> Context:
        """The same context seen from the opponent."""
        return Context(
            None if self.score is None else self.score.flipped(),
            None if self.cube is None else self.cube.flipped(),
        )


MONEY_CUBELESS = Context(None, None)
"""Money play without the cube: expected points, 1 for a single game, 2 for a NANNON."""
MONEY = Context()
"""Money play with a centred cube at 1."""


@dataclass(frozen=True, slots=True)
class RankedMove:
    """A legal move, the position after it (seen from the opponent) and its equity for the
    mover."""

    move: Move
    position: Position
    equity: float


class CubeAction(enum.Enum):
    """The right cube action, gnubg's names."""

    NO_DOUBLE = "no double, take"
    DOUBLE_TAKE = "double, take"
    DOUBLE_PASS = "double, pass"
    TOO_GOOD = "too good to double, pass"


@dataclass(frozen=True, slots=True)
class TakeDecision:
    """The doubled side's decision, its own equities: take (and own the cube) or pass.
    ``dead``: the doubler's cube is dead, so a pass gives up the match and a take is never
    worse."""

    take: bool
    take_equity: float
    pass_equity: float
    dead: bool = False


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The side on roll's cube decision: its equity if it rolls without doubling, if it
    doubles and is taken, and if it doubles and is passed. ``dead``: the cube is dead for the
    side on roll (:attr:`Context.cube_dead`), and nobody should double it or pass it."""

    action: CubeAction
    no_double: float
    double_take: float
    double_pass: float
    dead: bool = False

    @classmethod
    def classify(
        cls, no_double: float, take: float, cash: float, *, dead: bool = False
    ) -> CubeDecision:
        """The right action from the three equities: double only when it gains more than
        :data:`EQUITY_TOLERANCE`, and never a dead cube."""
        taken = take <= cash + EQUITY_TOLERANCE
        if not dead and min(take, cash) > no_double + EQUITY_TOLERANCE:
            action = CubeAction.DOUBLE_TAKE if taken else CubeAction.DOUBLE_PASS
        else:
            action = CubeAction.NO_DOUBLE if dead or taken else CubeAction.TOO_GOOD
        return cls(action, no_double, take, cash, dead)

    @property
    def double(self) -> bool:
        """True when doubling is right."""
        return self.action in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS)

    @property
    def take(self) -> bool:
        """True when a double should be taken (taking a tie, and always a dead cube)."""
        return self.dead or self.double_take <= self.double_pass + EQUITY_TOLERANCE

    @property
    def equity(self) -> float:
        """The position's equity with the right decisions: :meth:`NannonSolver.equity`."""
        return max(self.no_double, min(self.double_take, self.double_pass))

    @property
    def answer(self) -> TakeDecision:
        """The taker's side of this decision."""
        return TakeDecision(self.take, -self.double_take, -self.double_pass, self.dead)


@dataclass(frozen=True, slots=True)
class _Frame:
    """One cube state at one score, ready to answer: the pre-roll equities of the side on roll
    (``mine``) and of its opponent on roll at the same cube state (``theirs``), the factor
    that makes them points (money: the cube value), and where a double leads: the side on
    roll's equities after a take (with their own factor) and a pass's value (times
    ``scale``)."""

    mine: Sequence[float]
    theirs: Sequence[float]
    scale: float
    doubled: Sequence[float] | None = None
    doubled_scale: float = 1.0
    cash: float = 0.0


@dataclass
class _Game:
    """One match score solved: seen from side A (``a`` away), against B (``b`` away).

    ``states[(value, owner)]`` holds (A on roll, B on roll) pre-roll equities, owner 0 for a
    centred cube, 1 when A owns it, 2 when B does. From the cube value ``dead`` on, every win
    wins the match: the cube is dead, and the game is the double-match-point one.
    """

    a: int
    b: int
    crawford: bool
    dead: int
    dmp: Sequence[float]
    states: dict[tuple[int, int], tuple[Sequence[float], Sequence[float]]]
    start: float = 0.0
    rule: bool = True  # the match has the Crawford rule
    tie_doubles: int = 0  # opening-tie cube states where a double is right
    tie_conflicts: int = 0  # ... where both sides would double (A is taken to act first)
    openings: dict[tuple[int, int], float] = field(default_factory=dict)  # by cube state

    def lookup(self, value: int, owner: int) -> tuple[Sequence[float], Sequence[float]]:
        if value >= self.dead:
            return self.dmp, self.dmp
        return self.states[(value, owner)]


_CENTRED, _A_OWNS, _B_OWNS = 0, 1, 2
_OTHER = {_A_OWNS: _B_OWNS, _B_OWNS: _A_OWNS}


def _flip(u: Utilities) -> Utilities:
    """The same game ends seen from the other side."""
    return (-u[2], -u[3], -u[0], -u[1])


class NannonSolver:
    """Exact Nannon values, solved on demand and cached.

    Money play is solved once (about 0.15 s); a match score the first time it is asked (0.15 to
    0.35 s), and the last ``cache_size`` scores are kept (about 0.3 MB each). The match equity
    table comes from :mod:`engines.nannon_met`; ``table=False`` computes it again from first
    principles, score by score (about 150 s for every score up to 25 away).

    >>> solver = NannonSolver()
    >>> [(str(r.move), round(r.equity, 3)) for r in solver.rank_moves(
    ...     Position.initial(), 3, MONEY_CUBELESS)]
    [('H/3', 0.301), ('1/4', -0.265)]
    >>> decision = solver.cube_action(Position.from_id("003-001"), MONEY)
    >>> decision.action, round(decision.no_double, 3), round(decision.double_take, 3)
    (<CubeAction.DOUBLE_TAKE: 'double, take'>, 0.64, 0.679)
    """

    def __init__(self, *, cache_size: int = 32, table: bool = True) -> None:
        self._cache_size = cache_size
        self._table = table
        self.tie_doubles = 0  # opening ties where a double is right, over the games solved
        self.tie_conflicts = 0  # ... where both sides would double
        self._cubeless: list[float] | None = None
        self._cubeless_probs: tuple[list[float], ...] | None = None
        self._money: tuple[list[float], list[float], list[float]] | None = None
        self._dmp: list[float] | None = None
        # Keyed (a, b, crawford, crawford_rule); see _key.
        self._met: dict[tuple[int, int, bool, bool], float] = {}
        self._games: dict[tuple[int, int, bool, bool], _Game] = {}

    # -- positions and contexts ----------------------------------------------------------------

    def _index(self, position: Position) -> int:
        if not isinstance(position, Position):
            raise InvalidContextError(f"not a Nannon position: {position!r}")
        return _graph().index[(position.mine, position.theirs)]

    def _frame(self, context: Context) -> _Frame:
        if not isinstance(context, Context):
            raise InvalidContextError(f"not a Context: {context!r}")
        cube, score = context.cube, context.score
        if cube is None:
            values = self._money_cubeless()
            return _Frame(values, values, 1.0)
        if score is None:
            centred, owned, other = self._money_cubeful()
            v = float(cube.value)
            if cube.owner is CubeOwner.CENTRED:
                return _Frame(centred, centred, v, other, 2 * v, 1.0)
            if cube.owner is CubeOwner.ME:
                return _Frame(owned, other, v, other, 2 * v, 1.0)
            return _Frame(other, owned, v)
        a, b, crawford, rule = score.away_me, score.away_them, score.crawford, score.crawford_rule
        if a <= b:
            game, me = self._game(a, b, crawford, rule), 0
        else:
            game, me = self._game(b, a, crawford, rule), 1
        owner = _CENTRED
        if cube.owner is not CubeOwner.CENTRED:
            owner = _A_OWNS if (cube.owner is CubeOwner.ME) == (me == 0) else _B_OWNS
        pair = game.lookup(cube.value, owner)
        mine, theirs = pair[me], pair[1 - me]
        if not context.may_double:
            return _Frame(mine, theirs, 1.0)
        mine_owner = _A_OWNS if me == 0 else _B_OWNS
        doubled = game.lookup(2 * cube.value, _OTHER[mine_owner])[me]
        cash = self._won(a, b, crawford, cube.value, rule)
        return _Frame(mine, theirs, 1.0, doubled, 1.0, cash)

    # -- money play ----------------------------------------------------------------------------

    def _money_cubeless(self) -> list[float]:
        if self._cubeless is None:
            self._cubeless = _solve([_Layer(_MONEY, 0)])
        return self._cubeless

    def _money_cubeful(self) -> tuple[list[float], list[float], list[float]]:
        """Money play with the cube, per unit of stake: (centred, mine, theirs).

        Exact and without a cap: in money play every value is the cube value times the value
        at a cube of 1, so when the side that owns the cube (layer 0) redoubles, the take is
        worth twice its value with the opponent owning the cube (layer 1), in the same solve.
        """
        if self._money is None:
            n = _graph().size
            owned = _solve(
                [_Layer(_MONEY, 1, _Redouble(1, 2.0, 1.0)), _Layer(_MONEY, 0)],
            )
            other = owned[n : 2 * n]
            centred = _solve([_Layer(_MONEY, 0, [min(2.0 * x, 1.0) for x in other])])
            self._money = (centred[:n], owned[:n], other)
        return self._money

    def _money_capped(self, cap: int) -> tuple[list[float], list[float], list[float]]:
        """:meth:`_money_cubeful` computed another way: one cube value at a time, from a cap
        (a cube at ``cap`` may not be redoubled) down to 1, each level's doubles valued by the
        level above. It tends to the uncapped values as the cap grows: the tests and the
        benchmark measure how fast."""
        n = _graph().size
        other = self._money_cubeless()[:n]  # at the cap nobody doubles
        owned = other
        value = cap
        while value > 1:
            value //= 2
            doubles = [min(2.0 * x, 1.0) for x in other]
            both = _solve([_Layer(_MONEY, 1, doubles), _Layer(_MONEY, 0)])
            owned, other = both[:n], both[n : 2 * n]
            if value == 1:
                centred = _solve([_Layer(_MONEY, 0, doubles)])[:n]
        if cap == 1:
            centred = owned
        return centred, owned, other

    # -- match play ----------------------------------------------------------------------------

    def _dmp_values(self) -> list[float]:
        """Double match point (or a dead cube): every win wins the match."""
        if self._dmp is None:
            self._dmp = _solve([_Layer((1.0, 1.0, -1.0, -1.0), 0)])[: _graph().size]
        return self._dmp

    @staticmethod
    def _key(a: int, b: int, crawford: bool, rule: bool) -> tuple[int, int, bool, bool]:
        """One key for the scores that are the same game: with a side 1 away (and not the
        Crawford game) the game is post-Crawford whether or not the match has the rule."""
        if a == b == 1:
            crawford = False
        if min(a, b) == 1 and not crawford:
            rule = True
        return a, b, crawford, rule

    def _met_equity(self, a: int, b: int, crawford: bool, rule: bool = True) -> float:
        """Side A's equity at the opening roll, ``a`` away against ``b`` away; ``rule`` False
        in a match without the Crawford rule."""
        if a <= 0:
            return 1.0
        if b <= 0:
            return -1.0
        key = self._key(a, b, crawford, rule)
        a, b, crawford, rule = key
        equity = self._met.get(key)
        if equity is None:
            if a > b:
                equity = -self._met_equity(b, a, crawford, rule)
            elif self._table and b <= nannon_met.LENGTH:
                if crawford:
                    equity = nannon_met.CRAWFORD[b - 1]
                else:
                    equity = (nannon_met.EQUITY if rule else nannon_met.NO_CRAWFORD)[a - 1][b - 1]
            else:
                equity = self._game(a, b, crawford, rule).start
            self._met[key] = equity
        return equity

    def _won(self, a: int, b: int, crawford: bool, points: int, rule: bool = True) -> float:
        """Side A's equity once it has won ``points`` in the game at ``a``-``b``."""
        left = a - points
        if left <= 0:
            return 1.0
        # The Crawford game follows the game in which a side first reaches 1 away.
        next_crawford = rule and not crawford and min(a, b) > 1 and left == 1
        return self._met_equity(left, b, next_crawford, rule)

    def _utilities(self, a: int, b: int, crawford: bool, value: int, rule: bool) -> Utilities:
        return (
            self._won(a, b, crawford, value, rule),
            self._won(a, b, crawford, 2 * value, rule),
            -self._won(b, a, crawford, value, rule),
            -self._won(b, a, crawford, 2 * value, rule),
        )

    def _game(self, a: int, b: int, crawford: bool, rule: bool = True) -> _Game:
        key = self._key(a, b, crawford, rule)
        a, b, crawford, rule = key
        game = self._games.pop(key, None)
        if game is None:
            game = self._solve_game(a, b, crawford, rule)
            while len(self._games) >= self._cache_size:
                del self._games[next(iter(self._games))]
        self._games[key] = game  # the most recently used last
        return game

    def _solve_game(self, a: int, b: int, crawford: bool, rule: bool = True) -> _Game:
        n = _graph().size
        dmp = self._dmp_values()
        dead = 1
        while dead < max(a, b):
            dead *= 2
        if crawford:
            dead = 2  # nobody doubles: one cube state
        game = _Game(a, b, crawford, dead, dmp, {}, rule=rule)
        states = game.states

        def halves(v: list[float]) -> tuple[array[float], array[float]]:
            return array("d", v[:n]), array("d", v[n : 2 * n])

        def guess(value: int, owner: int) -> list[float] | None:
            """A solved cube state's values, to start a solve from."""
            if (value, owner) not in states:
                return None
            mine, theirs = states[(value, owner)]
            return [*mine, *theirs]

        value = dead // 2
        while value >= 1:
            ua = self._utilities(a, b, crawford, value, rule)
            ub = _flip(ua)
            if crawford:
                states[(1, _CENTRED)] = halves(_solve([_Layer(ua, 1), _Layer(ub, 0)]))
            elif value == 1:
                da = [min(t, ua[0]) for t in game.lookup(2, _B_OWNS)[0]]
                start = guess(2, _A_OWNS)
                if a == b:
                    one = halves(_solve([_Layer(ua, 0, da)], start=start))[0]
                    states[(1, _CENTRED)] = (one, one)
                else:
                    db = [min(t, ub[0]) for t in game.lookup(2, _A_OWNS)[1]]
                    v = _solve([_Layer(ua, 1, da), _Layer(ub, 0, db)], start=start)
                    states[(1, _CENTRED)] = halves(v)
            else:
                da = [min(t, ua[0]) for t in game.lookup(2 * value, _B_OWNS)[0]]
                v = _solve([_Layer(ua, 1, da), _Layer(ub, 0)], start=guess(2 * value, _A_OWNS))
                mine, theirs = halves(v)
                states[(value, _A_OWNS)] = (mine, theirs)
                if a == b:
                    states[(value, _B_OWNS)] = (theirs, mine)
                else:
                    db = [min(t, ub[0]) for t in game.lookup(2 * value, _A_OWNS)[1]]
                    v = _solve([_Layer(ua, 1), _Layer(ub, 0, db)], start=guess(value, _A_OWNS))
                    states[(value, _B_OWNS)] = halves(v)
            value //= 2
        if dead == 1:
            states[(1, _CENTRED)] = (dmp, dmp)
        game.start = self._opening(game, 1, _CENTRED, game.openings)
        self.tie_doubles += game.tie_doubles
        self.tie_conflicts += game.tie_conflicts
        return game

    def _opening(
        self, game: _Game, value: int, owner: int, memo: dict[tuple[int, int], float]
    ) -> float:
        """Side A's equity at the opening roll with this cube: each side rolls a die, the
        higher plays the difference, and after a tie either side that may double may do so
        (the Nannon ruling) before the dice are rolled again."""
        key = (value, owner)
        if key in memo:
            return memo[key]
        graph = _graph()
        mine, theirs = game.lookup(value, owner)
        start = graph.initial
        rolled = 0.0
        for d in range(1, 6):
            row = graph.succ[start][d - 1]
            # A wins the opening (A's die is d higher), or B does: (6 - d) / 36 each.
            rolled += (6 - d) / 36 * (max(-theirs[q] for q in row) + min(mine[q] for q in row))
        no_double = rolled * 6 / 5  # a tie is rolled again
        result = no_double
        if not game.crawford and value < game.dead:
            a_doubles = b_doubles = False
            if owner != _B_OWNS:  # A may double: B takes (B owns the cube) or passes
                cash = self._won(game.a, game.b, False, value, game.rule)
                a_value = min(self._opening(game, 2 * value, _B_OWNS, memo), cash)
                a_doubles = a_value > no_double
            if owner != _A_OWNS:
                cash = -self._won(game.b, game.a, False, value, game.rule)
                b_value = max(self._opening(game, 2 * value, _A_OWNS, memo), cash)
                b_doubles = b_value < no_double
            if a_doubles:
                result = rolled + a_value / 6
            elif b_doubles:
                result = rolled + b_value / 6
            game.tie_doubles += a_doubles or b_doubles
            game.tie_conflicts += a_doubles and b_doubles
        memo[key] = result
        return result

    def _money_openings(self) -> tuple[float, float, float]:
        """Money play at the opening roll, per unit of stake: (centred, mine, theirs)."""
        graph = _graph()
        centred, owned, other = self._money_cubeful()
        row = graph.succ[graph.initial]

        def rolled(mine: Sequence[float], theirs: Sequence[float]) -> float:
            return sum(
                (6 - d)
                / 36
                * (max(-theirs[q] for q in row[d - 1]) + min(mine[q] for q in row[d - 1]))
                for d in range(1, 6)
            )

        rc, ro, rx = rolled(centred, centred), rolled(owned, other), rolled(other, owned)
        oc, oo, ox = rc * 6 / 5, ro * 6 / 5, rx * 6 / 5
        for _ in range(_MAX_SWEEPS):
            # After a tie, a side that may double does so if it gains (A first), then the
            # dice are rolled again: a contraction (a tie is 1 in 6, a double 2 to 1).
            a_doubles = min(2 * ox, 1.0)  # B takes and owns the cube, or passes
            b_doubles = max(2 * oo, -1.0)
            tie_c = a_doubles if a_doubles > oc else b_doubles if b_doubles < oc else oc
            tie_o = a_doubles if a_doubles > oo else oo
            tie_x = b_doubles if b_doubles < ox else ox
            new = (rc + tie_c / 6, ro + tie_o / 6, rx + tie_x / 6)
            if max(abs(new[0] - oc), abs(new[1] - oo), abs(new[2] - ox)) < TOLERANCE:
                return new
            oc, oo, ox = new
        raise RuntimeError("the opening did not converge")  # pragma: no cover - a guard

    def _opening_equity(self, context: Context) -> float:
        """The equity of the side of ``context`` at the opening roll of a game, before the
        dice are rolled, with the cube as ``context`` says."""
        cube, score = context.cube, context.score
        if cube is None:
            return 0.0  # no cube: the opening is the same for both sides
        if score is None:
            centred, owned, other = self._money_openings()
            normal = {CubeOwner.CENTRED: centred, CubeOwner.ME: owned, CubeOwner.THEM: other}
            return normal[cube.owner] * cube.value
        a, b, crawford, rule = score.away_me, score.away_them, score.crawford, score.crawford_rule
        game, me = (
            (self._game(a, b, crawford, rule), 0)
            if a <= b
            else (self._game(b, a, crawford, rule), 1)
        )
        owner = _CENTRED
        if cube.owner is not CubeOwner.CENTRED:
            owner = _A_OWNS if (cube.owner is CubeOwner.ME) == (me == 0) else _B_OWNS
        equity = self._opening(game, cube.value, owner, game.openings)
        return equity if me == 0 else -equity

    def opening_equity(self, context: Context) -> float:
        """The equity of the side of ``context`` at the opening roll of a game, before the
        dice are rolled (or after a tie, before either side doubles), the cube as it stands.

        >>> NannonSolver().opening_equity(MONEY)
        0.0
        """
        if not isinstance(context, Context):
            raise InvalidContextError(f"not a Context: {context!r}")
        return self._opening_equity(context)

    def opening_cube_action(self, context: Context) -> CubeDecision:
        """The cube decision after a tied opening roll, when either side may double (the
        Nannon ruling), for the side of ``context``; equities at the opening roll.

        >>> solver = NannonSolver()
        >>> solver.opening_cube_action(Context.match(2, 1)).action  # the trailer, post-Crawford
        <CubeAction.DOUBLE_TAKE: 'double, take'>
        >>> solver.opening_cube_action(MONEY).action
        <CubeAction.NO_DOUBLE: 'no double, take'>
        """
        if not isinstance(context, Context) or not context.may_double:
            raise InvalidContextError(f"the side may not double here: {context!r}")
        assert context.cube is not None
        value = context.cube.value
        no_double = self._opening_equity(context)
        doubled = Context(context.score, CubeState(2 * value, CubeOwner.THEM))
        take = self._opening_equity(doubled)
        if context.score is None:
            cash = float(value)
        else:
            score = context.score
            cash = self._won(score.away_me, score.away_them, False, value, score.crawford_rule)
        return CubeDecision.classify(no_double, take, cash, dead=context.cube_dead)

    # -- answers -------------------------------------------------------------------------------

    def equity(self, position: Position, context: Context) -> float:
        """The equity of the side on roll in ``position``, before it rolls, with the right
        cube decisions."""
        frame = self._frame(context)
        return frame.mine[self._index(position)] * frame.scale

    def won_equity(self, context: Context, points: int) -> float:
        """The equity of winning ``points`` now, for the side of ``context``: the points in
        money play, ``2 * MWC - 1`` in a match (the Crawford game follows the game in which a
        side first reaches 1 away, where the match has the rule).

        >>> solver = NannonSolver()
        >>> round(solver.won_equity(Context.match(2, 3), 1), 4)  # to 1-away: the Crawford game
        0.5474
        >>> round(solver.won_equity(Context.match(2, 3, crawford_rule=False), 1), 4)
        0.4934
        """
        score = context.score
        if score is None:
            return float(points)
        a, b = score.away_me, score.away_them
        return self._won(a, b, score.crawford, points, score.crawford_rule)

    def match_equity(self, score: MatchScore) -> float:
        """The match-winning chance (0..1) of the side ``score.away_me`` away at the opening
        roll of a game, from first principles (no external table).

        >>> solver = NannonSolver()
        >>> solver.match_equity(MatchScore(1, 1))
        0.5
        >>> round(solver.match_equity(MatchScore(1, 2, crawford=True)), 4)
        0.7467
        """
        if not isinstance(score, MatchScore):
            raise InvalidContextError(f"not a MatchScore: {score!r}")
        equity = self._met_equity(
            score.away_me, score.away_them, score.crawford, score.crawford_rule
        )
        return (1 + equity) / 2

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
        frame = self._frame(context)
        graph = _graph()
        if not graph.moves[p][roll - 1]:
            return []  # a pass: its one successor is the position seen from the opponent
        theirs, scale = frame.theirs, -frame.scale
        ranked = [
            RankedMove(move, graph.positions[q], theirs[q] * scale)
            for move, q in zip(graph.moves[p][roll - 1], graph.succ[p][roll - 1], strict=True)
        ]
        ranked.sort(key=lambda r: -r.equity)
        return ranked

    def _decision(self, position: Position, context: Context) -> CubeDecision:
        p = self._index(position)
        if not context.may_double:
            raise InvalidContextError(f"the side on roll may not double here: {context!r}")
        frame = self._frame(context)
        assert frame.doubled is not None
        theirs = frame.theirs
        rows = _graph().succ[p]
        if rows[0]:
            no_double = sum(min(theirs[q] for q in row) for row in rows) / -6.0
        else:  # the game is over
            no_double = frame.mine[p]
        no_double *= frame.scale
        take = frame.doubled[p] * frame.doubled_scale
        cash = frame.cash * frame.scale
        return CubeDecision.classify(no_double, take, cash, dead=context.cube_dead)

    def cube_action(self, position: Position, context: Context) -> CubeDecision:
        """The side on roll's cube decision before it rolls.

        InvalidContextError when the rules don't let it double (no cube, the opponent owns it,
        the Crawford game): ``context.may_double`` says so beforehand.
        """
        return self._decision(position, context)

    def take_decision(self, position: Position, context: Context) -> TakeDecision:
        """The answer to a double. ``position`` and ``context`` are the doubler's, as for
        :meth:`cube_action` (the doubler is on roll); the equities are the taker's."""
        return self._decision(position, context).answer


# -- playing levels ----------------------------------------------------------------------------


class Level(enum.IntEnum):
    """The robot's strength. Master plays the exact best; the others pick by a softmax over
    the exact equities (:data:`TEMPERATURES`)."""

    BEGINNER = 1
    INTERMEDIATE = 2
    ADVANCED = 3
    EXPERT = 4
    MASTER = 5


LOSS_TARGETS: dict[Level, float] = {
    Level.BEGINNER: 0.08,
    Level.INTERMEDIATE: 0.03,
    Level.ADVANCED: 0.01,
    Level.EXPERT: 0.003,
    Level.MASTER: 0.0,
}
"""Each level's published average equity loss per move decision (points, money play with the
cube), against the solver, over the decisions with a choice in master self-play; the
temperatures below are tuned to these (benchmarks/robot_levels.py measures them, docs/robot.md
publishes them)."""

TEMPERATURES: dict[Level, float] = {
    Level.BEGINNER: 0.49,
    Level.INTERMEDIATE: 0.2,
    Level.ADVANCED: 0.095,
    Level.EXPERT: 0.047,
    Level.MASTER: 0.0,
}
"""Softmax temperatures, in equity (points for money, 2 * MWC - 1 for a match): an option
``x`` worse than the best is picked ``exp(-x / T)`` times as often as the best."""


def _weights(equities: Sequence[float], temperature: float) -> list[float]:
    best = max(equities)
    return [math.exp((e - best) / temperature) for e in equities]


def _pick(equities: Sequence[float], level: Level, rng: random.Random) -> int:
    """The index of the option a player of ``level`` picks; for master the first one within
    :data:`EQUITY_TOLERANCE` of the best."""
    if not equities:
        raise InvalidContextError("there is nothing to choose from")
    temperature = TEMPERATURES[Level(level)]
    if temperature <= 0 or len(equities) == 1:
        best = max(equities)
        return next(i for i, e in enumerate(equities) if e >= best - EQUITY_TOLERANCE)
    return rng.choices(range(len(equities)), _weights(equities, temperature))[0]


def expected_loss(equities: Sequence[float], level: Level) -> float:
    """The equity a player of ``level`` loses on average against the best of ``equities``, the
    options of one decision: exactly, from its softmax weights (0 for master).

    >>> expected_loss([0.5, 0.5 - math.log(3)], Level.MASTER)
    0.0
    >>> round(expected_loss([0.0, -0.49], Level.BEGINNER), 4)  # picked 1 time in 1 + e
    0.1318
    """
    if not equities:
        raise InvalidContextError("there is nothing to choose from")
    temperature = TEMPERATURES[Level(level)]
    best = max(equities)
    if temperature <= 0:
        return 0.0
    weights = _weights(equities, temperature)
    return sum(w * (best - e) for w, e in zip(weights, equities, strict=True)) / sum(weights)


def self_play_decisions(solver: NannonSolver, games: int, rng: random.Random) -> list[list[float]]:
    """The decisions with a choice in ``games`` games master plays against itself (money
    play, centred cube, random dice): each as its options' equities, best first. The sample
    :data:`LOSS_TARGETS` are measured over."""
    decisions = []
    for _ in range(games):
        first, second = rng.sample(range(1, 7), 2)
        position, roll = Position.initial(), abs(first - second)
        while True:
            ranked = solver.rank_moves(position, roll, MONEY)
            if len(ranked) > 1:
                decisions.append([r.equity for r in ranked])
            position = ranked[0].position if ranked else position.pass_turn()
            if position.is_over():
                break
            roll = rng.randint(1, 6)
    return decisions


def choose_move(ranked: Sequence[RankedMove], level: Level, rng: random.Random) -> RankedMove:
    """The move a player of ``level`` makes, from :meth:`NannonSolver.rank_moves`.

    >>> import random
    >>> ranked = NannonSolver().rank_moves(Position.initial(), 3, MONEY)
    >>> str(choose_move(ranked, Level.MASTER, random.Random(1)).move)
    'H/3'
    """
    return ranked[_pick([r.equity for r in ranked], level, rng)]


def choose_cube(decision: CubeDecision, level: Level, rng: random.Random) -> bool:
    """True when a player of ``level`` doubles, from :meth:`NannonSolver.cube_action`; never
    a dead cube, at any level."""
    if decision.dead:
        return False
    doubled = min(decision.double_take, decision.double_pass)
    return _pick([decision.no_double, doubled], level, rng) == 1


def choose_take(decision: TakeDecision, level: Level, rng: random.Random) -> bool:
    """True when a player of ``level`` takes, from :meth:`NannonSolver.take_decision`; always
    a dead cube's double, at any level (a pass would give up the match)."""
    if decision.dead:
        return True
    return _pick([decision.pass_equity, decision.take_equity], level, rng) == 1
