"""Backgammon move generation speed: the median time of ``legal_plays`` per (position, roll),
over all 21 rolls of 200 positions from seeded random self-play.

Run: ``.venv/bin/python benchmarks/engine_backgammon.py``. The issue's target is <= 150 us.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

# The repository root first: benchmarks/engines.py would otherwise shadow the engines package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.backgammon import Position, clear_play_cache

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
SEED = 20240601
POSITIONS = 200
REPEATS = 3


def self_play_positions(count: int = POSITIONS, seed: int = SEED) -> list[Position]:
    """``count`` positions met in random self-play games (a new game starts when one ends)."""
    rng = random.Random(seed)
    positions: list[Position] = []
    position = Position.initial()
    while len(positions) < count:
        if position.is_over():
            position = Position.initial()
        positions.append(position)
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        position = rng.choice(plays).position if plays else position.flip()
    return positions


def bench() -> dict[str, float]:
    """Per (position, roll) microseconds: the median, mean, 90th percentile and the worst, with
    each pair timed as the best of a few calls; and the mean number of distinct plays."""
    positions = self_play_positions()
    timings: list[float] = []
    plays = 0
    clock = time.perf_counter_ns
    for position in positions:
        for d1, d2 in ROLLS:
            best = None
            for _ in range(REPEATS):
                clear_play_cache()  # time the generation itself, not a cache hit
                start = clock()
                result = position.legal_plays(d1, d2)
                elapsed = clock() - start
                best = elapsed if best is None else min(best, elapsed)
            assert best is not None
            timings.append(best / 1000)
            plays += len(result)
    timings.sort()
    return {
        "median_us": statistics.median(timings),
        "mean_us": statistics.fmean(timings),
        "p90_us": timings[int(len(timings) * 0.9)],
        "max_us": timings[-1],
        "pairs": float(len(timings)),
        "mean_plays": plays / len(timings),
    }


if __name__ == "__main__":
    results = bench()
    print(f"backgammon legal_plays over {int(results['pairs'])} (position, roll) pairs")
    print(f"  median   {results['median_us']:8.1f} us   (target <= 150 us)")
    print(f"  mean     {results['mean_us']:8.1f} us")
    print(f"  p90      {results['p90_us']:8.1f} us")
    print(f"  max      {results['max_us']:8.1f} us")
    print(f"  mean distinct plays per roll {results['mean_plays']:.1f}")
