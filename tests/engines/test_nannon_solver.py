"""The exact Nannon solver (engines/nannon_solver.py): known figures, and every value checked
against a second, independent computation."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from engines.nannon import Position, all_positions
from engines.nannon_solver import (
    MONEY_CUBELESS,
    NannonSolver,
    _graph,
    _policy,
)

ALL = all_positions()
START = Position.initial()
# The winner of the opening roll plays the difference d = 1..5 (ties are rolled again).
OPENING = {d: 2 * (6 - d) / 30 for d in range(1, 6)}


@pytest.fixture(scope="module")
def solver() -> NannonSolver:
    return NannonSolver()


def opening_average(value: Callable[[int], float]) -> float:
    return sum(weight * value(d) for d, weight in OPENING.items())


# -- a second computation: the fixed strategy's values by Gaussian elimination ---------------


def solve_linear(chosen: Sequence[tuple[int, ...]], ends: Callable[[int], float]) -> list[float]:
    """The values of the side on roll when both sides play ``chosen``, by a direct linear
    solve: x_p + (x_c1 + ... + x_c6) / 6 = 0 for every position in play, x_p = ends(p) for
    finished ones. Sparse Gaussian elimination and back-substitution, component by component (sinks
    first)."""
    graph = _graph()
    x = [0.0] * graph.size
    for p in range(graph.size):
        if not chosen[p]:
            x[p] = ends(p)
    for group, _ in graph.groups:
        members = set(group)
        rows: dict[int, tuple[dict[int, float], float]] = {}
        for p in group:
            row = {p: 1.0}
            rhs = 0.0
            for q in chosen[p]:
                if q in members:
                    row[q] = row.get(q, 0.0) + 1 / 6
                else:
                    rhs -= x[q] / 6
            rows[p] = (row, rhs)
        column: dict[int, set[int]] = {}
        for p, (row, _) in rows.items():
            for q in row:
                column.setdefault(q, set()).add(p)
        for k in group:
            pivot_row, pivot_rhs = rows[k]
            pivot = pivot_row[k]
            for i in list(column[k]):
                if i == k:
                    continue
                row, rhs = rows[i]
                factor = row.pop(k) / pivot
                for q, a in pivot_row.items():
                    if q != k:
                        if q in row:
                            row[q] -= factor * a
                        else:
                            row[q] = -factor * a
                            column.setdefault(q, set()).add(i)
                rows[i] = (row, rhs - factor * pivot_rhs)
            for q in pivot_row:
                if q != k:
                    column[q].discard(k)
            column[k] = {k}
        for k in reversed(group):  # row k holds k and later pivots only: back-substitute
            row, rhs = rows[k]
            x[k] = (rhs - sum(a * x[q] for q, a in row.items() if q != k)) / row[k]
    return x


def money_end(p: int) -> float:
    outcome = ALL[p].outcome()
    assert outcome is not None
    return outcome.points if outcome.winner_on_roll else -outcome.points


# -- cubeless money play -------------------------------------------------------------------


def test_opening_winner_is_worth_0_0322_points_and_wins_51_58_percent(
    solver: NannonSolver,
) -> None:
    # The known figures are averages over the opening differences d = 1..5, each weighted
    # 2 * (6 - d) / 30, of the opening winner's best play (optimal play for points).
    equity = opening_average(lambda d: solver.rank_moves(START, d, MONEY_CUBELESS)[0].equity)
    wins = opening_average(
        lambda d: solver.cubeless(solver.rank_moves(START, d, MONEY_CUBELESS)[0].position).lose
    )
    assert round(equity, 4) == 0.0322
    assert round(wins, 4) == 0.5158
    # The probabilities agree with the equity they come from.
    probs = [
        solver.cubeless(solver.rank_moves(START, d, MONEY_CUBELESS)[0].position) for d in OPENING
    ]
    assert opening_average(lambda d: -probs[d - 1].equity) == pytest.approx(equity, abs=1e-11)


def test_cubeless_values_agree_with_a_linear_solve_of_the_strategy(
    solver: NannonSolver,
) -> None:
    values = [solver.equity(pos, MONEY_CUBELESS) for pos in ALL]
    chosen = _policy(values)
    exact = solve_linear(chosen, money_end)
    assert max(abs(a - b) for a, b in zip(values, exact, strict=True)) < 1e-9
    # And the strategy is optimal: no move does better than the one chosen (Bellman).
    graph = _graph()
    for p, rows in enumerate(graph.succ):
        if chosen[p]:
            best = sum(min(exact[q] for q in row) for row in rows) / -6
            assert best == pytest.approx(exact[p], abs=1e-9)


def test_cubeless_probabilities_add_up_and_match_the_equity(solver: NannonSolver) -> None:
    for pos in ALL[::7]:
        probs = solver.cubeless(pos)
        assert probs.win + probs.lose == pytest.approx(1.0, abs=1e-10)
        assert probs.equity == pytest.approx(solver.equity(pos, MONEY_CUBELESS), abs=1e-10)


def test_one_roll_from_winning(solver: NannonSolver) -> None:
    # My last checker is on spot 6: every roll bears it off. They have one checker in SAFETY.
    pos = Position.from_id("677-027")
    assert solver.equity(pos, MONEY_CUBELESS) == pytest.approx(1.0, abs=1e-12)
    # The same with none of theirs in SAFETY: a NANNON.
    assert solver.equity(Position.from_id("677-002"), MONEY_CUBELESS) == pytest.approx(2.0)
    # A checker on 5 bears off with 2..6; with a 1 it goes to 6 and then any roll wins, unless
    # their reply wins first. Their last checker is on their 6 (my 1): they win with any roll.
    pos = Position.from_id("577-677")
    assert solver.equity(pos, MONEY_CUBELESS) == pytest.approx(5 / 6 - 1 / 6, abs=1e-12)
