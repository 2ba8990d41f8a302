"""Nannon move-generation speed: `python benchmarks/engine_nannon.py`.

Times legal-move generation over every one of the 2,530 positions and all six rolls. Two numbers:
``median_us`` is ``Position.legal_moves`` as the engine serves it (memoised by position and
roll, the table filled once); ``uncached_median_us`` is the generator itself on every call.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import nannon

REPEAT = 50  # calls per (position, roll), to get above the clock's resolution


def _median_us(calls: list[tuple[Any, int]], generate: Callable[[Any, int], object]) -> float:
    """Median over ``calls`` of the mean time of REPEAT calls to ``generate``, in us."""
    per_call = []
    clock = time.perf_counter_ns
    for target, roll in calls:
        start = clock()
        for _ in range(REPEAT):
            generate(target, roll)
        per_call.append((clock() - start) / REPEAT / 1000)
    return statistics.median(per_call)


def bench() -> dict[str, float]:
    positions = nannon.all_positions()
    rolls = range(1, 7)
    start = time.perf_counter()
    for pos in positions:  # fill the memo table once, as a long-running bot would
        for roll in rolls:
            pos.legal_moves(roll)
    fill_ms = (time.perf_counter() - start) * 1000
    cached = [(pos, roll) for pos in positions for roll in rolls]
    raw = [((pos.mine, pos.theirs), roll) for pos in positions for roll in rolls]
    median = _median_us(cached, nannon.Position.legal_moves)
    # The lambda's call overhead is included: a conservative figure for the bare generator.
    uncached = _median_us(raw, lambda sides, roll: nannon._generate(sides[0], sides[1], roll))
    return {
        "median_us": median,
        "uncached_median_us": uncached,
        "table_fill_ms": fill_ms,
        "position_rolls": float(len(cached)),
    }


if __name__ == "__main__":
    results = bench()
    print(f"Nannon: {int(results['position_rolls'])} (position, roll) pairs")
    print(f"  legal_moves (memoised)     median {results['median_us']:.2f} us  (target <= 5)")
    print(f"  generator (uncached)       median {results['uncached_median_us']:.2f} us")
    print(f"  filling the memo table     {results['table_fill_ms']:.1f} ms")
