"""The exact Nannon solver: `python benchmarks/nannon_solver.py [--baseline REV] [--speed-only]`.

Prints the known figures as computed, how long each solve takes on this machine, the first
hint at a new match score (targets: <= 1 s) and later hints (p50/p99 over 1,000 random
queries; target <= 5 ms), how far a cube cap moves money values, master against a random
mover over 1,000 games, and each level's average equity loss per decision.

First, the time to solve a new match score with this solver and with the solver at git
revision ``--baseline`` (by default the last one with plain Gauss-Seidel sweeps), side by
side in the same run, interleaved, median of several repetitions (the machine may be shared).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.baseline import module_at
from engines.nannon import Position, all_positions
from engines.nannon_solver import (
    LOSS_TARGETS,
    MONEY,
    MONEY_CUBELESS,
    TEMPERATURES,
    Context,
    CubeOwner,
    CubeState,
    Level,
    MatchScore,
    NannonSolver,
    _graph,
    expected_loss,
    self_play_decisions,
)

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "9876016"  # the solver before its sweeps were batched (plain Gauss-Seidel)
START = Position.initial()
OPENING = {d: 2 * (6 - d) / 30 for d in range(1, 6)}  # the opening winner plays d


def seconds(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - start


def hint(solver: NannonSolver, position: Position, roll: int, context: Context) -> None:
    """What a hint asks: the cube action (if any) and every move ranked."""
    if context.may_double and not position.is_over():
        solver.cube_action(position, context)
    solver.rank_moves(position, roll, context)


def known_figures(solver: NannonSolver) -> None:
    def average(context: Context, value: str) -> float:
        total = 0.0
        for d, weight in OPENING.items():
            best = solver.rank_moves(START, d, context)[0]
            total += weight * (
                best.equity if value == "equity" else solver.cubeless(best.position).lose
            )
        return total

    print("Known figures (the opening winner, averaged over the differences 1..5):")
    print(
        f"  cubeless money: {average(MONEY_CUBELESS, 'equity'):+.4f} points (known +0.0322), "
        f"wins {100 * average(MONEY_CUBELESS, 'wins'):.2f}% (known 51.58%)"
    )
    print(f"  money with the cube: {average(MONEY, 'equity'):+.4f} points")
    print(
        f"  match equity 1-away 2-away post-Crawford: "
        f"{solver.match_equity(MatchScore(1, 2)):.4f}; Crawford: "
        f"{solver.match_equity(MatchScore(1, 2, crawford=True)):.4f}"
    )
    print(
        f"  5-away 7-away: {solver.match_equity(MatchScore(5, 7)):.4f}; "
        f"25-away 24-away: {solver.match_equity(MatchScore(24, 25)):.4f}"
    )


def solve_times() -> NannonSolver:
    print("Solves (a fresh solver; the move graph is built first):")
    print(f"  move graph: {1000 * seconds(_graph):.0f} ms")
    solver = NannonSolver()
    print(f"  money cubeless: {1000 * seconds(solver._money_cubeless):.0f} ms")
    print(f"  money cubeful (exact, no cap): {1000 * seconds(solver._money_cubeful):.0f} ms")
    print(f"  double match point: {1000 * seconds(solver._dmp_values):.0f} ms")
    exact = solver._money_cubeful()
    for cap in (64, 1024):
        capped = solver._money_capped(cap)
        worst = max(
            abs(x - y)
            for e, c in zip(exact, capped, strict=True)
            for x, y in zip(e, c, strict=True)
        )
        print(
            f"  money with the cube capped at {cap}: largest change {worst:.2g} (per unit of stake)"
        )
    return solver


def first_hints(solver: NannonSolver) -> None:
    print("First hint at a new score (solves that score; lower scores from the table):")
    for a, b, crawford in [
        (11, 11, False),
        (25, 25, False),
        (24, 25, False),
        (3, 17, False),
        (1, 25, False),
        (1, 25, True),
    ]:
        context = Context.match(a, b, crawford=crawford)
        took = seconds(lambda context=context: hint(solver, START, 3, context))
        label = f"{a}-away {b}-away" + (" Crawford" if crawford else "")
        print(f"  {label:28} {1000 * took:6.0f} ms  (target <= 1000)")


def later_hints(solver: NannonSolver) -> None:
    rng = random.Random(1)
    positions = [p for p in all_positions() if not p.is_over()]
    scores = [(11, 11), (25, 25), (24, 25), (3, 17)]
    queries = []
    for _ in range(1000):
        a, b = rng.choice(scores)
        if rng.random() < 0.5:
            a, b = b, a
        value = rng.choice([1, 2, 4, 8])
        owner = CubeOwner.CENTRED if value == 1 else rng.choice([CubeOwner.ME, CubeOwner.THEM])
        context = Context.match(a, b, CubeState(value, owner))
        if rng.random() < 0.2:
            context = Context.money(CubeState(value, owner))
        queries.append((rng.choice(positions), rng.randint(1, 6), context))
    times = []
    for position, roll, context in queries:
        start = time.perf_counter()
        hint(solver, position, roll, context)
        times.append(time.perf_counter() - start)
    times.sort()
    p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
    print(
        f"Later hints (1,000 random queries at solved scores): p50 {1000 * p50:.3f} ms, "
        f"p99 {1000 * p99:.3f} ms, max {1000 * times[-1]:.3f} ms  (target <= 5)"
    )


def play(
    solver: NannonSolver, rng: random.Random, levels: tuple[Level | None, Level | None]
) -> tuple[int, int]:
    """One cubeless game from the opening roll; (winner seat, points). None is a random
    mover."""
    from engines.nannon_solver import choose_move

    while True:
        d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
        if d0 != d1:
            break
    seat, roll = (0, d0 - d1) if d0 > d1 else (1, d1 - d0)
    position = START
    while True:
        ranked = solver.rank_moves(position, roll, MONEY_CUBELESS)
        if not ranked:
            position = position.pass_turn()
        else:
            level = levels[seat]
            chosen = rng.choice(ranked) if level is None else choose_move(ranked, level, rng)
            position = chosen.position
            outcome = position.outcome()
            if outcome is not None:
                return seat, outcome.points
        seat = 1 - seat
        roll = rng.randint(1, 6)


def master_vs_random(solver: NannonSolver) -> None:
    rng = random.Random(5)
    games = 1000
    wins = points = 0
    for game in range(games):
        levels = (Level.MASTER, None) if game % 2 == 0 else (None, Level.MASTER)
        master = 0 if game % 2 == 0 else 1
        winner, score = play(solver, rng, levels)
        wins += winner == master
        points += score if winner == master else -score
    print(
        f"Master against a random mover, {games} cubeless games: master wins "
        f"{100 * wins / games:.1f}%, {points / games:+.3f} points a game"
    )


def level_losses(solver: NannonSolver) -> None:
    """Each level's expected equity loss per decision (more than one legal move), exactly from
    its softmax weights, over the decisions of 300 master self-play games (money, cube); the
    same figures as benchmarks/robot_levels.py's Nannon section, against the published targets."""
    decisions = self_play_decisions(solver, 300, random.Random(9))
    print(
        f"Levels: expected equity loss per move decision ({len(decisions)} decisions "
        "with a choice, from master self-play, money with the cube):"
    )
    for level in Level:
        loss = sum(expected_loss(options, level) for options in decisions) / len(decisions)
        print(
            f"  {level.name.lower():13} T={TEMPERATURES[level]:<6} {loss:.4f} "
            f"points per decision (target {LOSS_TARGETS[level]})"
        )


def baseline_solver(revision: str) -> types.ModuleType | None:
    """engines/nannon_solver.py as it was at git ``revision``; None without git or that
    revision."""
    return module_at(revision, "engines/nannon_solver.py")


def old_and_new(revision: str, repetitions: int = 5) -> None:
    """Each score solved from scratch by the baseline and by this solver, in turn."""
    old = baseline_solver(revision)
    if old is None:
        print(f"Per-score solve, old against new: skipped (no git revision {revision})")
        return
    new_solver, old_solver = NannonSolver(), old.NannonSolver()
    old_solver._dmp_values()
    start = time.perf_counter()
    new_solver._dmp_values()
    new_solver._solve_game(1, 3, True)  # builds the batched sweeps of both layer layouts
    new_solver._solve_game(2, 3, False)
    setup = time.perf_counter() - start

    def money(solver: object) -> None:
        solver._money = solver._cubeless = None  # type: ignore[attr-defined]
        solver._money_cubeless()  # type: ignore[attr-defined]
        solver._money_cubeful()  # type: ignore[attr-defined]

    cases = [(f"{a}-away {b}-away", a, b) for a, b in [(11, 11), (9, 10), (5, 3), (2, 7)]]
    print(
        f"Per-score solve from scratch, old (git {revision}: plain Gauss-Seidel) against new, "
        f"interleaved, median of {repetitions} (CPU time):"
    )
    print(
        f"  (new: set-up, once a process: DMP, the batched sweeps, two scores: "
        f"{1000 * setup:.0f} ms)"
    )
    total_old = total_new = 0.0
    for label, a, b in [*cases, ("money (cubeless and cubeful)", 0, 0)]:
        times: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(repetitions):
            for name, solver in (("old", old_solver), ("new", new_solver)):
                begin = time.process_time()
                if a:
                    solver._solve_game(a, b, False)
                else:
                    money(solver)
                times[name].append(time.process_time() - begin)
        o, n = statistics.median(times["old"]), statistics.median(times["new"])
        if a:
            total_old, total_new = total_old + o, total_new + n
        print(f"  {label:30} old {1000 * o:6.0f} ms  new {1000 * n:6.0f} ms  x{o / n:.2f}")
    print(
        f"  the four scores: old {1000 * total_old:.0f} ms, new {1000 * total_new:.0f} ms, "
        f"x{total_old / total_new:.2f}"
    )


def cold_hint() -> None:
    """The first hint in a fresh process: the move graph, the double-match-point values and
    the score itself."""
    took = seconds(lambda: hint(NannonSolver(), START, 3, Context.match(24, 25)))
    print(f"Cold start: the first hint of a process, 24-away 25-away: {1000 * took:.0f} ms")
    _graph.cache_clear()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the old solver")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--speed-only", action="store_true", help="only old against new")
    args = parser.parse_args()
    old_and_new(args.baseline, args.repetitions)
    if args.speed_only:
        sys.exit()
    cold_hint()
    solver = solve_times()
    known_figures(solver)
    first_hints(solver)
    later_hints(solver)
    master_vs_random(solver)
    level_losses(solver)
