"""The exact Nannon solver (engines/nannon_solver.py): known figures, and every value checked
against a second, independent computation."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import pytest

from engines import nannon_met, nannon_solver
from engines.actions import Double, Drop, OpeningRoll, Roll, Take
from engines.actions import Move as MatchMove
from engines.base import MatchRules, Phase
from engines.match import DiceMatch
from engines.nannon import VARIANT, Position, all_positions
from engines.nannon_solver import (
    EQUITY_TOLERANCE,
    LOSS_TARGETS,
    MONEY,
    MONEY_CUBELESS,
    TEMPERATURES,
    Context,
    CubeAction,
    CubeOwner,
    CubeState,
    InvalidContextError,
    Level,
    MatchScore,
    NannonSolver,
    RankedMove,
    _graph,
    _policy,
    choose_cube,
    choose_move,
    choose_take,
    expected_loss,
    self_play_decisions,
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


K = TypeVar("K", bound=Hashable)


def eliminate(
    equations: Mapping[K, tuple[Mapping[K, float], float]], order: Sequence[K] | None = None
) -> dict[K, float]:
    """Solve x_v + sum(c * x_w) = rhs for every v: sparse Gaussian elimination in ``order``
    (by default the shortest rows first, a static minimum-degree order that keeps the fill-in
    small), then back-substitution."""
    rows = {v: (dict(row), rhs) for v, (row, rhs) in equations.items()}
    for v, (row, _) in rows.items():
        row[v] = row.get(v, 0.0) + 1.0
    column: dict[K, set[K]] = {}
    for v, (row, _) in rows.items():
        for w in row:
            column.setdefault(w, set()).add(v)
    if order is None:
        order = sorted(rows, key=lambda v: len(rows[v][0]))
    for k in order:
        pivot_row, pivot_rhs = rows[k]
        pivot = pivot_row[k]
        for i in list(column[k]):
            if i == k:
                continue
            row, rhs = rows[i]
            factor = row.pop(k) / pivot
            for w, c in pivot_row.items():
                if w != k:
                    if w in row:
                        row[w] -= factor * c
                    else:
                        row[w] = -factor * c
                        column.setdefault(w, set()).add(i)
            rows[i] = (row, rhs - factor * pivot_rhs)
        for w in pivot_row:
            if w != k:
                column[w].discard(k)
        column[k] = {k}
    x: dict[K, float] = {}
    for k in reversed(order):  # row k holds k and later pivots only
        row, rhs = rows[k]
        x[k] = (rhs - sum(c * x[w] for w, c in row.items() if w != k)) / row[k]
    return x


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
        equations: dict[int, tuple[dict[int, float], float]] = {}
        for p in group:
            row: dict[int, float] = {}
            rhs = 0.0
            for q in chosen[p]:
                if q in members:
                    row[q] = row.get(q, 0.0) + 1 / 6
                else:
                    rhs -= x[q] / 6
            equations[p] = (row, rhs)
        for p, value in eliminate(equations, group).items():
            x[p] = value
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


# -- match play: the fixed strategy's values by a linear solve, and Bellman's equation --------

SEATS = ("A", "B")


def reference_won(solver: NannonSolver, a: int, b: int, crawford: bool, points: int) -> float:
    """A's equity (2 MWC - 1) once A, ``a`` away against ``b``, wins ``points``."""
    left = a - points
    if left <= 0:
        return 1.0
    # The Crawford game is the one after a side first reaches 1 away.
    next_crawford = not crawford and a > 1 and b > 1 and left == 1
    return 2 * solver.match_equity(MatchScore(left, b, crawford=next_crawford)) - 1


def check_match_game(solver: NannonSolver, a: int, b: int, crawford: bool) -> None:
    """Side A is ``a`` away, B ``b`` away. Every cube state up to the first dead cube (the
    first value >= both scores), every position, A or B on roll: the solver's equities equal
    a linear solve of the strategy they imply, and no move, double, take or pass does better
    (Bellman's equation)."""
    graph = _graph()
    n = graph.size
    top = 1
    while top < max(a, b):
        top *= 2
    keys: list[tuple[int, str | None]] = [(1, None)]
    if not crawford:
        value = 2
        while value <= top:
            keys += [(value, "A"), (value, "B")]
            value *= 2
    away = {"A": (a, b), "B": (b, a)}

    def context(seat: str, key: tuple[int, str | None]) -> Context:
        value, owner = key
        mine, theirs = away[seat]
        cube_owner = (
            CubeOwner.CENTRED
            if owner is None
            else CubeOwner.ME
            if owner == seat
            else CubeOwner.THEM
        )
        return Context.match(mine, theirs, CubeState(value, cube_owner), crawford=crawford)

    def won(seat: str, points: int) -> float:
        mine, theirs = away[seat]
        return reference_won(solver, mine, theirs, crawford, points)

    def end(seat: str, value: int, p: int) -> float:
        outcome = ALL[p].outcome()
        assert outcome is not None
        other = "B" if seat == "A" else "A"
        points = outcome.points * value
        return won(seat, points) if outcome.winner_on_roll else -won(other, points)

    solved = {
        (seat, key): [solver.equity(pos, context(seat, key)) for pos in ALL]
        for seat in SEATS
        for key in keys
    }

    def double_value(seat: str, key: tuple[int, str | None], p: int, x: dict) -> float | None:
        """min(take, pass) for the doubler, or None if ``seat`` may not double here."""
        value, owner = key
        if crawford or value >= top or owner not in (None, seat):
            return None
        other = "B" if seat == "A" else "A"
        return min(x[(seat, (2 * value, other))][p], won(seat, value))

    def roll_value(seat: str, key: tuple[int, str | None], p: int, x: dict) -> float:
        other = "B" if seat == "A" else "A"
        theirs = x[(other, key)]
        return sum(min(theirs[q] for q in row) for row in graph.succ[p]) / -6

    # The strategy: the moves and cube actions the solver's values pick.
    exact: dict[tuple[str, tuple[int, str | None]], list[float]] = {}
    for key in sorted(keys, key=lambda k: -k[0]):  # the higher cubes first
        value = key[0]
        for seat in SEATS:
            exact[(seat, key)] = [0.0] * n
        for group, _ in graph.groups:
            equations: dict[tuple[str, int], tuple[dict[tuple[str, int], float], float]] = {}
            for p in group:
                for seat in SEATS:
                    other = "B" if seat == "A" else "A"
                    mine = solved[(seat, key)]
                    double = double_value(seat, key, p, solved)
                    if double is not None and double > roll_value(seat, key, p, solved):
                        # Doubled: a constant from the higher cube (or the pass).
                        equations[(seat, p)] = ({}, double_value(seat, key, p, exact) or 0.0)
                        continue
                    row: dict[tuple[str, int], float] = {}
                    rhs = 0.0
                    for succ in graph.succ[p]:
                        theirs = solved[(other, key)]
                        q = min(succ, key=lambda s: theirs[s])
                        if graph.status[q]:
                            rhs -= end(other, value, q) / 6
                        elif q in group:
                            row[(other, q)] = row.get((other, q), 0.0) + 1 / 6
                        else:
                            rhs -= exact[(other, key)][q] / 6
                    equations[(seat, p)] = (row, rhs)
                    del mine
            for (seat, p), x in eliminate(equations).items():
                exact[(seat, key)][p] = x
        for seat in SEATS:
            for p in range(n):
                if graph.status[p]:
                    exact[(seat, key)][p] = end(seat, value, p)
    for state, values in exact.items():
        assert max(abs(u - v) for u, v in zip(values, solved[state], strict=True)) < 1e-9, state
    # Bellman: nothing does better than what the strategy does.
    for (seat, key), values in exact.items():
        for p in range(n):
            if graph.status[p]:
                continue
            best = roll_value(seat, key, p, exact)
            double = double_value(seat, key, p, exact)
            if double is not None:
                best = max(best, double)
            assert best == pytest.approx(values[p], abs=1e-9)


@pytest.mark.parametrize(
    ("a", "b", "crawford"),
    [(2, 3, False), (3, 3, False), (1, 3, True)],
)
def test_match_values_agree_with_a_linear_solve_of_the_strategy(
    solver: NannonSolver, a: int, b: int, crawford: bool
) -> None:
    check_match_game(solver, a, b, crawford)


@pytest.mark.parametrize(("a", "b"), [(2, 3), (1, 2), (3, 3)])
def test_match_game_start_is_the_opening_of_its_values(
    solver: NannonSolver, a: int, b: int
) -> None:
    # The match equity at a score is the opening roll of a game: the winner of the roll plays
    # the difference; after a tie, either side that may double may do so (the Nannon ruling),
    # and the dice are rolled again.
    top = 1
    while top < max(a, b):
        top *= 2

    def opening(value: int, owner: CubeOwner) -> float:
        """A's equity at the opening roll, the cube at ``value`` owned (seen from A) by
        ``owner``."""
        cube = CubeState(value, owner)
        rolled = 0.0
        for d in range(1, 6):
            mine = solver.rank_moves(START, d, Context.match(a, b, cube))[0].equity
            theirs = solver.rank_moves(START, d, Context.match(b, a, cube.flipped()))[0]
            rolled += (6 - d) / 36 * (mine - theirs.equity)
        no_double = rolled * 6 / 5
        if value >= top:  # a dead cube: nobody gains by doubling
            return no_double
        if owner is not CubeOwner.THEM:
            doubled = opening(2 * value, CubeOwner.THEM)
            a_doubles = min(doubled, reference_won(solver, a, b, False, value))
            if a_doubles > no_double:
                return rolled + a_doubles / 6
        if owner is not CubeOwner.ME:
            doubled = opening(2 * value, CubeOwner.ME)
            b_doubles = max(doubled, -reference_won(solver, b, a, False, value))
            if b_doubles < no_double:
                return rolled + b_doubles / 6
        return no_double

    start = solver.match_equity(MatchScore(a, b))
    assert 2 * start - 1 == pytest.approx(opening(1, CubeOwner.CENTRED), abs=1e-12)


# -- money play with the cube ------------------------------------------------------------------


def test_money_cubeful_agrees_with_a_level_by_level_solve(solver: NannonSolver) -> None:
    # The solver's money values are exact with no cap: a value at cube v is v times the value
    # at 1, so a redouble reads the same vectors at twice the stake. Solving one cube value at
    # a time from a cap down (nobody redoubles a cube at the cap) tends to them; the cap's
    # effect falls about 15-fold for each doubling of the cap, 2e-5 at 64 and below 1e-10 at
    # 1024 (benchmarks/nannon_solver.py prints it).
    exact = solver._money_cubeful()
    capped = solver._money_capped(1024)
    for mine, theirs in zip(exact, capped, strict=True):
        assert max(abs(x - y) for x, y in zip(mine, theirs, strict=True)) < 1e-9


def test_money_cube_is_worth_having(solver: NannonSolver) -> None:
    # The winner of the opening roll gains from the cube: +0.0559 points against +0.0322.
    equity = opening_average(lambda d: solver.rank_moves(START, d, MONEY)[0].equity)
    assert round(equity, 4) == 0.0559
    for pos in ALL[::11]:
        if pos.is_over():
            continue
        mine = solver.equity(pos, Context.money(CubeState(1, CubeOwner.ME)))
        centred = solver.equity(pos, MONEY)
        theirs = solver.equity(pos, Context.money(CubeState(1, CubeOwner.THEM)))
        assert mine >= centred - 1e-12 and centred >= theirs - 1e-12
        # Money equities scale with the cube.
        four = solver.equity(pos, Context.money(CubeState(4, CubeOwner.ME)))
        assert four == pytest.approx(4 * mine, abs=1e-12)


@pytest.mark.parametrize(
    "context",
    [
        MONEY,
        Context.money(CubeState(2, CubeOwner.ME)),
        Context.match(3, 5),
        Context.match(5, 3, CubeState(2, CubeOwner.ME)),
        Context.match(4, 1),  # post-Crawford: the trailer doubles
    ],
)
def test_cube_decisions_are_consistent(solver: NannonSolver, context: Context) -> None:
    value = context.cube.value if context.cube else 1
    for pos in ALL:
        if pos.is_over():
            continue
        decision = solver.cube_action(pos, context)
        take = solver.take_decision(pos, context)
        assert decision.equity == pytest.approx(solver.equity(pos, context), abs=1e-12)
        # Equities compare with a tolerance: options within it are a tie (take, don't double).
        taken = take.take_equity >= take.pass_equity - EQUITY_TOLERANCE
        assert take.take == decision.take == taken
        assert take.pass_equity == -decision.double_pass
        if context.score is None:
            # After a pass the taker has lost the cube's value.
            assert take.pass_equity == -value
        if decision.action is CubeAction.DOUBLE_PASS:
            assert decision.equity == decision.double_pass
        elif decision.action is CubeAction.DOUBLE_TAKE:
            assert decision.no_double + EQUITY_TOLERANCE < decision.double_take
            assert decision.double_take <= decision.double_pass + EQUITY_TOLERANCE
        else:
            doubled = min(decision.double_take, decision.double_pass)
            assert decision.no_double >= doubled - EQUITY_TOLERANCE
            assert decision.equity == pytest.approx(decision.no_double, abs=EQUITY_TOLERANCE)


def test_one_roll_from_winning_with_the_cube(solver: NannonSolver) -> None:
    pos = Position.from_id("677-027")  # any roll bears my last checker off: a single win
    assert solver.equity(pos, MONEY) == pytest.approx(1.0, abs=1e-12)
    assert solver.equity(pos, Context.money(CubeState(4, CubeOwner.THEM))) == pytest.approx(4.0)
    decision = solver.cube_action(pos, MONEY)
    assert decision.action is CubeAction.TOO_GOOD  # they would pass; play on and win as much
    # At 3-away 5-away the single win leaves 2-away 5-away.
    context = Context.match(3, 5)
    expected = 2 * solver.match_equity(MatchScore(2, 5)) - 1
    assert solver.equity(pos, context) == pytest.approx(expected, abs=1e-12)
    # Owning a 4-cube there wins the match.
    assert solver.equity(pos, Context.match(3, 5, CubeState(4, CubeOwner.THEM))) == 1.0


# -- match play ----------------------------------------------------------------------------------


def test_the_crawford_game_has_no_doubling(solver: NannonSolver) -> None:
    for context in (Context.match(1, 3, crawford=True), Context.match(3, 1, crawford=True)):
        assert not context.may_double
        with pytest.raises(InvalidContextError):
            solver.cube_action(START, context)
    with pytest.raises(InvalidContextError):
        Context.match(1, 3, CubeState(2, CubeOwner.ME), crawford=True)
    # After the Crawford game the trailer may double, and is better off for it.
    crawford = solver.match_equity(MatchScore(3, 1, crawford=True))
    post = solver.match_equity(MatchScore(3, 1))
    assert post > crawford
    assert Context.match(3, 1).may_double


def test_match_equity_table_is_symmetric(solver: NannonSolver) -> None:
    assert solver.match_equity(MatchScore(1, 1)) == 0.5
    for a in range(1, nannon_met.LENGTH + 1):
        for b in range(1, nannon_met.LENGTH + 1):
            mine = solver.match_equity(MatchScore(a, b))
            theirs = solver.match_equity(MatchScore(b, a))
            assert mine + theirs == pytest.approx(1.0, abs=1e-15)
            if a < b:
                assert mine > 0.5  # closer to winning is better
    for b in range(2, nannon_met.LENGTH + 1):
        crawford = solver.match_equity(MatchScore(1, b, crawford=True))
        assert crawford + solver.match_equity(MatchScore(b, 1, crawford=True)) == 1.0
    # A score solved with A and B the other way round gives the same game, mirrored.
    assert solver._solve_game(3, 2, False).start == pytest.approx(
        -solver._solve_game(2, 3, False).start, abs=1e-12
    )


def test_the_table_is_what_a_fresh_solve_computes() -> None:
    fresh = NannonSolver(table=False)
    for a in range(1, 4):
        for b in range(1, 4):
            for crawford in (False, True) if min(a, b) == 1 and a != b else (False,):
                score = MatchScore(a, b, crawford)
                assert fresh.match_equity(score) == pytest.approx(
                    NannonSolver().match_equity(score), abs=1e-12
                )


# -- the batched solve against plain Gauss-Seidel value iteration -----------------------------


def plain_solve(
    layers: Sequence[Any],
    tolerance: float = nannon_solver.TOLERANCE,
    start: Sequence[float] | None = None,
) -> list[float]:
    """The solver's value iteration as it was before its sweeps were batched: every group,
    one position at a time, full Gauss-Seidel sweeps from zero until none moves a value by
    the tolerance (``start`` is ignored)."""
    graph = _graph()
    n = graph.size
    values = [0.0] * (2 * n + 1)
    for k, layer in enumerate(layers):
        ws, wn, ls, ln = layer.utilities
        for p in range(n):
            outcome = ALL[p].outcome()
            if outcome is not None:
                won = outcome.winner_on_roll
                single = outcome.points == 1
                values[k * n + p] = (ws if single else wn) if won else (ls if single else ln)
    for group, once in graph.groups:
        for _ in range(100_000):
            delta = 0.0
            for p in group:
                for k, layer in enumerate(layers):
                    offset = layer.next_layer * n
                    rows = graph.succ[p]
                    total = sum(min(values[offset + q] for q in row) for row in rows)
                    value = total / -6.0
                    doubles = layer.doubles
                    if isinstance(doubles, nannon_solver._Redouble):
                        j = doubles.layer * n + p
                        value = max(value, min(doubles.scale * values[j], doubles.cash))
                    elif doubles is not None:
                        value = max(value, doubles[p])
                    delta = max(delta, abs(value - values[k * n + p]))
                    values[k * n + p] = value
            if (
                once
                and not any(isinstance(layer.doubles, nannon_solver._Redouble) for layer in layers)
            ) or delta < tolerance:
                break
    return values


@pytest.fixture(scope="module")
def plain() -> NannonSolver:
    """A solver whose solves are :func:`plain_solve`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nannon_solver, "_solve", plain_solve)
        reference = NannonSolver()
        reference._money_cubeless()
        reference._money_cubeful()
        reference._dmp_values()
        for a, b, crawford in SAME_SCORES:
            reference._game(a, b, crawford)
    return reference


SAME_SCORES = [(2, 3, False), (3, 3, False), (1, 4, True), (1, 5, False), (5, 7, False)]


def largest_difference(x: Sequence[float], y: Sequence[float]) -> float:
    return max(abs(u - v) for u, v in zip(x, y, strict=True))


def test_batched_solves_reach_the_plain_fixed_point(
    solver: NannonSolver, plain: NannonSolver
) -> None:
    # The same fixed point within the tolerance, every position of every cube state.
    n = _graph().size
    assert largest_difference(solver._money_cubeless()[:n], plain._money_cubeless()[:n]) < 1e-10
    for mine, theirs in zip(solver._money_cubeful(), plain._money_cubeful(), strict=True):
        assert largest_difference(mine, theirs) < 1e-10
    assert largest_difference(solver._dmp_values(), plain._dmp_values()) < 1e-10
    for a, b, crawford in SAME_SCORES:
        game, reference = solver._game(a, b, crawford), plain._game(a, b, crawford)
        assert game.states.keys() == reference.states.keys()
        for key, pair in game.states.items():
            for side, expected in zip(pair, reference.states[key], strict=True):
                assert largest_difference(side, expected) < 1e-10, (a, b, crawford, key)
        assert game.start == pytest.approx(reference.start, abs=1e-10)


def test_a_solve_started_from_a_guess_reaches_the_same_values(solver: NannonSolver) -> None:
    # A start (the solved cube state above, in _solve_game) only saves sweeps.
    n = _graph().size
    layers = [
        nannon_solver._Layer((1.0, 2.0, -1.0, -2.0), 1),
        nannon_solver._Layer((1.0, 2.0, -1.0, -2.0), 0),
    ]
    cold = nannon_solver._solve(layers)
    for start in ([0.5] * (2 * n), [-1.0] * (2 * n), solver._dmp_values() * 2):
        warm = nannon_solver._solve(layers, start=start)
        assert largest_difference(warm, cold) < 1e-10


def test_a_solved_score_starts_at_its_table_entry(solver: NannonSolver) -> None:
    # Solving 4-away 6-away from the table's lower scores gives the table's own entry.
    assert solver._game(4, 6, False).start == pytest.approx(nannon_met.EQUITY[3][5], abs=1e-11)


def test_rank_moves_lists_every_legal_move_best_first(solver: NannonSolver) -> None:
    for context in (MONEY_CUBELESS, MONEY, Context.match(2, 4, CubeState(2, CubeOwner.ME))):
        for pos in ALL[::17]:
            for roll in range(1, 7):
                ranked = solver.rank_moves(pos, roll, context)
                assert [r.move for r in ranked] == sorted(
                    pos.legal_moves(roll),
                    key=lambda m: -next(r.equity for r in ranked if r.move == m),
                )
                assert len(ranked) == len(pos.legal_moves(roll))
                for r in ranked:
                    assert r.position == pos.apply(r.move)
                    after = solver.equity(r.position, context.flipped())
                    assert r.equity == pytest.approx(-after, abs=1e-12)


def test_bad_questions_are_refused(solver: NannonSolver) -> None:
    for make in (
        lambda: MatchScore(0, 3),
        lambda: MatchScore(26, 3),
        lambda: MatchScore(2, 3, crawford=True),
        lambda: CubeState(3),
        lambda: Context.match(3, 3, CubeState(2)),  # a centred cube at 2 in a match
        lambda: Context.match(3, 3, CubeState(1, CubeOwner.ME)),  # an owned cube at 1
        lambda: Context.match(3, 3, cube=None),
    ):
        with pytest.raises(InvalidContextError):
            make()
    assert issubclass(InvalidContextError, ValueError)
    with pytest.raises(InvalidContextError):
        solver.rank_moves(START, 7, MONEY)
    with pytest.raises(InvalidContextError):
        solver.cube_action(START, Context.money(CubeState(2, CubeOwner.THEM)))
    with pytest.raises(InvalidContextError):
        solver.cube_action(START, MONEY_CUBELESS)


# -- levels --------------------------------------------------------------------------------------


def sample_decisions() -> list[list[RankedMove]]:
    solver = NannonSolver()
    decisions = []
    for pos in ALL[::5]:
        for roll in (1, 4):
            ranked = solver.rank_moves(pos, roll, MONEY)
            if len(ranked) > 1:
                decisions.append(ranked)
    return decisions


def test_master_loses_nothing_and_levels_are_ordered_by_loss() -> None:
    decisions = sample_decisions()
    losses = {}
    for level in Level:
        rng = random.Random(2024)
        total = 0.0
        for _ in range(3):
            for ranked in decisions:
                total += ranked[0].equity - choose_move(ranked, level, rng).equity
        losses[level] = total / (3 * len(decisions))
    assert losses[Level.MASTER] == 0.0
    ordered = [losses[level] for level in Level]
    assert ordered == sorted(ordered, reverse=True)
    assert len(set(ordered)) == len(ordered)
    assert TEMPERATURES[Level.MASTER] == 0


def test_each_level_loses_its_published_equity_per_decision() -> None:
    # docs/robot.md publishes LOSS_TARGETS; each level's exact expected loss over a fixed
    # sample of master self-play decisions is within 20% of it, master's is 0.
    solver = NannonSolver()
    decisions = self_play_decisions(solver, 100, random.Random(2024))
    assert len(decisions) > 500
    for level in Level:
        loss = sum(expected_loss(options, level) for options in decisions) / len(decisions)
        target = LOSS_TARGETS[level]
        assert abs(loss - target) <= 0.2 * target, (level, loss, target)
    assert LOSS_TARGETS[Level.MASTER] == 0.0
    targets = [LOSS_TARGETS[level] for level in Level]
    assert targets == sorted(targets, reverse=True)


def test_expected_loss_matches_the_levels_choices() -> None:
    # The exact expectation and choose_move's picks agree: 10,000 picks among three options
    # 0, 0.2 and 0.5 worse (the sampling error is about 2%).
    played = NannonSolver().rank_moves(Position.initial(), 3, MONEY)[0]
    ranked = [dataclasses.replace(played, equity=e) for e in (0.0, -0.2, -0.5)]
    rng = random.Random(5)
    for level in (Level.BEGINNER, Level.INTERMEDIATE):
        picked = sum(-choose_move(ranked, level, rng).equity for _ in range(10_000))
        assert picked / 10_000 == pytest.approx(expected_loss([0.0, -0.2, -0.5], level), rel=0.08)


def test_cube_levels(solver: NannonSolver) -> None:
    pos = Position.from_id("003-001")  # double, take
    decision = solver.cube_action(pos, MONEY)
    take = solver.take_decision(pos, MONEY)
    rng = random.Random(7)
    assert choose_cube(decision, Level.MASTER, rng) is True
    assert choose_take(take, Level.MASTER, rng) is True
    doubles = sum(choose_cube(decision, Level.BEGINNER, rng) for _ in range(400))
    assert 0 < doubles < 400  # a beginner sometimes gets it wrong


DEAD_CUBES = [
    Context.match(1, 1),  # double match point
    Context.match(1, 4),  # the leader after the Crawford game
    Context.match(2, 3, CubeState(2, CubeOwner.ME)),  # a win at 2 takes the match
]


@pytest.mark.parametrize("context", DEAD_CUBES, ids=str)
def test_no_level_doubles_or_passes_a_dead_cube(solver: NannonSolver, context: Context) -> None:
    # Every position: doubling gains nothing, and a pass would give up the match.
    assert context.cube_dead and context.may_double
    rng = random.Random(11)
    for position in ALL:
        decision = solver.cube_action(position, context)
        assert decision.dead and decision.action is CubeAction.NO_DOUBLE, position
        answer = solver.take_decision(position, context)
        assert answer.dead and answer.take, position
        for level in Level:
            assert not choose_cube(decision, level, rng), (position, level)
            assert choose_take(answer, level, rng), (position, level)
    opening = solver.opening_cube_action(context)
    assert opening.dead and not opening.double and opening.answer.take
    assert not any(choose_cube(opening, level, rng) for level in Level)


def test_double_match_point_equities_tie_and_master_keeps_the_quiet_option(
    solver: NannonSolver,
) -> None:
    # At DMP a take changes nothing: rolling and doubling are worth the same, give or take the
    # last bits. The comparison has a tolerance, so even without the dead-cube rule master rolls.
    context = Context.match(1, 1)
    rng = random.Random(3)
    for position in ALL:
        decision = solver.cube_action(position, context)
        assert decision.double_take == pytest.approx(decision.no_double, abs=1e-12)
        alive = dataclasses.replace(decision, dead=False)
        assert not choose_cube(alive, Level.MASTER, rng), position


def test_a_live_cube_is_not_dead(solver: NannonSolver) -> None:
    assert not MONEY.cube_dead and not Context.match(2, 2).cube_dead
    assert not Context.match(4, 1).cube_dead  # the trailer post-Crawford: its double is live
    decision = solver.cube_action(Position.from_id("003-001"), Context.match(3, 3))
    assert not decision.dead and decision.double


# -- the opening tie and whole matches ---------------------------------------------------------


def test_opening_tie_decisions_match_the_table(solver: NannonSolver) -> None:
    # Not doubling a tie means rolling the opening again: worth the match equity itself (a
    # later tie may still be doubled). The trailer post-Crawford doubles at once.
    for a in range(1, 5):
        for b in range(1, 5):
            context = Context.match(a, b)
            decision = solver.opening_cube_action(context)
            mwc = solver.match_equity(MatchScore(a, b))
            assert decision.no_double == pytest.approx(2 * mwc - 1, abs=1e-12)
            assert decision.equity >= decision.no_double
    assert solver.opening_cube_action(Context.match(4, 1)).double
    assert not solver.opening_cube_action(Context.match(1, 4)).double
    with pytest.raises(InvalidContextError):
        solver.opening_cube_action(Context.match(1, 4, crawford=True))
    # Money play: the opening is even with a centred cube, and nobody should double a tie.
    money = solver.opening_cube_action(MONEY)
    assert money.no_double == pytest.approx(0.0, abs=1e-12)
    assert money.action is CubeAction.NO_DOUBLE


def play_match(
    solver: NannonSolver, length: int, levels: tuple[Level, Level], seed: int
) -> DiceMatch:
    """Two robots play a whole Nannon match through the engine, asking the solver for every
    decision: the tie doubles, doubles, takes and moves."""
    rng = random.Random(seed)
    match = DiceMatch(VARIANT, MatchRules(length=length))
    on_a_tie = False  # the double waiting for an answer came on a tied opening roll
    while not match.is_over():
        phase = match.phase
        if phase is Phase.OPENING:
            match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.OPENING_TIE:
            for seat in (0, 1):
                context = Context.of_match(match, seat)
                if match.can_double(seat) and choose_cube(
                    solver.opening_cube_action(context), levels[seat], rng
                ):
                    match.apply(Double(seat))
                    on_a_tie = True
                    break
            else:
                match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.CUBE_OFFERED:
            doubler = match.cube_offered_by
            assert doubler is not None
            context = Context.of_match(match, doubler)
            if on_a_tie:
                take = solver.opening_cube_action(context).take
                on_a_tie = False
            else:
                answer = solver.take_decision(match.position, context)
                take = choose_take(answer, levels[1 - doubler], rng)
            match.apply(Take(1 - doubler) if take else Drop(1 - doubler))
        elif phase is Phase.ROLL:
            seat = match.turn
            context = Context.of_match(match)
            if match.can_double(seat) and choose_cube(
                solver.cube_action(match.position, context), levels[seat], rng
            ):
                match.apply(Double(seat))
            else:
                match.apply(Roll(seat, (rng.randint(1, 6),)))
        else:
            assert phase is Phase.MOVE and match.dice is not None
            ranked = solver.rank_moves(match.position, match.dice[0], Context.of_match(match))
            chosen = choose_move(ranked, levels[match.turn], rng)
            match.apply(MatchMove(match.turn, str(chosen.move)))
    return match


def test_robots_play_whole_matches_through_the_engine(solver: NannonSolver) -> None:
    for seed in range(3):
        match = play_match(solver, 5, (Level.MASTER, Level.BEGINNER), seed)
        assert match.is_over()
        assert max(match.score) >= 5
