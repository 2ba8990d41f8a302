"""Post-match analysis speed: `python benchmarks/analysis.py [--seed N]`.

Prints the seconds :func:`bot.robot.analysis.analyse_match` takes for:

- a Nannon match to 11 (exact best play with fixed-seed dice), with a fresh solver (cold: every
  match score solved for the first time, as for a match between two people) and again with
  the same solver (warm: the scores solved, as in the robot's worker after it played the
  match). Target: <= 2 s.
- a checkers game of fixed-seed intermediate-robot moves at the analysis depth
  (:data:`engines.checkers_analysis.DEPTH`). Target: <= 20 s.
- backgammon: benchmarks/analysis_backgammon.py's run, when gnubg and that file import
  (:func:`backgammon`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.robot import analysis, jobs  # noqa: E402
from engines import checkers_search, new_match  # noqa: E402
from engines.actions import Action, Double, Drop, Move, OpeningRoll, Roll, Take  # noqa: E402
from engines.base import GameKind, GameMatch, MatchRules, Phase  # noqa: E402
from engines.checkers import CheckersMatch  # noqa: E402
from engines.checkers_analysis import DEPTH  # noqa: E402
from engines.nannon import Position  # noqa: E402
from engines.nannon_analysis import context_of  # noqa: E402
from engines.nannon_solver import NannonSolver  # noqa: E402

NANNON_TARGET, CHECKERS_TARGET = 2.0, 20.0


def nannon_match(seed: int, length: int = 11) -> GameMatch:
    """Exact best play (cube included) with random dice."""
    rng, solver = random.Random(seed), NannonSolver()
    match = new_match("nannon", MatchRules(length=length))
    while match.phase is not Phase.MATCH_OVER:
        phase, turn = match.phase, match.turn
        action: Action
        if phase in (Phase.OPENING, Phase.OPENING_TIE):
            action = OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        elif phase is Phase.ROLL:
            position = Position.from_id(match.position_id)
            doubles = match.can_double(turn) and (
                solver.cube_action(position, context_of(match, turn)).double
            )
            action = Double(turn) if doubles else Roll(turn, (rng.randint(1, 6),))
        elif phase is Phase.CUBE_OFFERED:
            position = Position.from_id(match.position_id)
            take = solver.take_decision(position, context_of(match, turn)).take
            action = Take(1 - turn) if take else Drop(1 - turn)
        else:
            assert match.dice is not None
            ranked = solver.rank_moves(
                Position.from_id(match.position_id), match.dice[0], context_of(match, turn)
            )
            action = Move(turn, str(ranked[0].move))
        match.apply(action)
    return match


def checkers_game(seed: int) -> CheckersMatch:
    rng = random.Random(seed)
    match = CheckersMatch(MatchRules(length=1))
    while match.phase is not Phase.MATCH_OVER and len(match.actions) < 200:
        history = list(match.game.reversible_positions)
        move = checkers_search.choose_move(
            match.board, checkers_search.Level.INTERMEDIATE, rng, history=history
        )
        match.apply(Move(match.turn, str(move)))
    return match


def _timed(kind: GameKind, match: GameMatch) -> float:
    start = time.perf_counter()
    analysis.analyse_match(kind, match.rules, match.actions, ("A", "B"), 0)
    return time.perf_counter() - start


def _verdict(seconds: float, target: float) -> str:
    return f"{seconds:.2f} s (target {target:g} s: {'met' if seconds <= target else 'MISSED'})"


def nannon(seed: int) -> None:
    match = nannon_match(seed)
    jobs._solver = NannonSolver()  # cold: no score solved yet
    cold = _timed(GameKind.NANNON, match)
    warm = _timed(GameKind.NANNON, match)
    print(
        f"Nannon match to 11 ({match.game_number} games, {len(match.actions)} actions): "
        f"cold {_verdict(cold, NANNON_TARGET)}; warm {_verdict(warm, NANNON_TARGET)}"
    )


def checkers(seed: int) -> None:
    match = checkers_game(seed)
    seconds = _timed(GameKind.CHECKERS, match)
    print(
        f"Checkers game of {len(match.actions)} plies at depth {DEPTH}: "
        f"{_verdict(seconds, CHECKERS_TARGET)}"
    )


def backgammon() -> None:
    """The backgammon section: benchmarks/analysis_backgammon.py (the gnubg analysis), run
    here when it and gnubg import."""
    try:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import analysis_backgammon  # type: ignore[import-not-found, unused-ignore]
    except (ImportError, SystemExit) as exc:
        print(f"Backgammon: skipped ({exc})")
        return
    sys.argv = [sys.argv[0], "--plies", "0", "1"]
    try:
        analysis_backgammon.main()
    except SystemExit as exc:
        print(f"Backgammon: skipped ({exc})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checkers-seeds", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    nannon(args.seed)
    for seed in args.checkers_seeds:
        checkers(seed)
    backgammon()


if __name__ == "__main__":
    main()
