"""Checkers move-generation speed: `python benchmarks/engine_checkers.py`.

Collects 2,000 positions from random games (fixed seed) and prints the median time of one
``Board.legal_moves()`` call per position, in microseconds (target: <= 30 us).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.checkers import Board, Game

POSITIONS = 2_000
REPEATS = 20  # calls per position, so the timer's resolution does not matter
SEED = 20240501


def positions(count: int = POSITIONS, seed: int = SEED) -> list[Board]:
    """Positions with a move to make, from random games played to their end by rule."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        game = Game()
        while len(found) < count and not game.is_over():
            found.append(game.board)
            game.push(rng.choice(game.board.legal_moves()))
    return found


def bench() -> dict[str, float]:
    boards = positions()
    per_call: list[float] = []
    for board in boards:
        start = time.perf_counter_ns()
        for _ in range(REPEATS):
            board.legal_moves()
        per_call.append((time.perf_counter_ns() - start) / REPEATS / 1000)
    jumps = [b for b in boards if b.legal_moves()[0].captures]
    return {
        "median_us": statistics.median(per_call),
        "p90_us": statistics.quantiles(per_call, n=10)[-1],
        "positions": float(len(boards)),
        "jump_positions": float(len(jumps)),
    }


if __name__ == "__main__":
    results = bench()
    print(
        f"checkers legal_moves: median {results['median_us']:.2f} us per position "
        f"(p90 {results['p90_us']:.2f} us) over {results['positions']:.0f} positions, "
        f"{results['jump_positions']:.0f} with jumps; target <= 30 us"
    )
