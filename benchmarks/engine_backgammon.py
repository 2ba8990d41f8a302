"""Backgammon move generation speed, beside GNU Backgammon's in the same run.

Positions: 200 met in seeded random self-play games, each with all 21 rolls (4,200 pairs; no
finished position). Every pair is timed as the best of 3 calls, ours and then gnubg's, back to
back, so a slow spell of the shared machine hits both columns alike. What each column measures:

- ours: ``Position.legal_plays(d1, d2)`` with its play cache cleared before each call: every
  legal play, one per distinct resulting position, as Play and Position objects.
- gnubg: ``gnubg.findbestmoves(board, cubeinfo, evalcontext, dice)`` of the ``gnubg`` module
  (``pip install gnubg``) at 0-ply, cubeless (money, centred cube), deterministic, no pruning
  nets, with its evaluation cache sized to 0 (a call would otherwise find the previous call's
  evaluations): it generates every legal move in C, evaluates each resulting position with the
  neural net (or a bear-off database) and returns them sorted, as Python dicts. The board and the
  contexts are built before timing.

So gnubg does more than we do (it also evaluates every play) and it does it in C: the ratio is
how far our pure-Python generator is from that. Both columns find the same number of plays per
pair (the benchmark counts them; gnubg's own move tuples stop at a play's first bear-off, but
there is one per distinct result). The gnubg column is skipped with a note when ``import gnubg``
fails; gnubg is called on the main thread only (it crashes on others) and holds the GIL.

Run: ``.venv/bin/python benchmarks/engine_backgammon.py``. Targets: <= 150 us, and at most 2.5
times gnubg's median.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

# The repository root first: benchmarks/movegen.py would otherwise shadow the engines package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.backgammon import Position, clear_play_cache

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
SEED = 20240601
POSITIONS = 200
REPEATS = 3
RATIO_TARGET = 2.5

OURS = "ours: legal_plays, every legal play as Play objects, play cache cleared"
GNUBG = "gnubg: findbestmoves at 0-ply cubeless, generates and evaluates every play, no eval cache"


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


def load_gnubg() -> tuple[ModuleType | None, str]:
    """The gnubg module set up for 0-ply timing, or None and why not."""
    if threading.current_thread() is not threading.main_thread():
        return None, "gnubg column skipped: gnubg crashes when called off the main thread"
    try:
        import gnubg  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except Exception as error:  # ImportError, or a shared library that fails to load
        return None, f"gnubg column skipped: import gnubg failed ({error!r}); pip install gnubg"
    # No evaluation cache: a repeat would find its evaluations, and we clear our cache too.
    # gnubg prints its answer with C stdio: silence it for the command.
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            gnubg.command("set cache 0")
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    version = getattr(gnubg, "__version__", "?")
    return gnubg, f"gnubg {version}: findbestmoves, 0-ply, cubeless, evaluation cache 0"


def bench() -> dict[str, Any]:
    """Per (position, roll) microseconds of ours and, when importable, gnubg's: the medians,
    their ratio, means, 90th percentiles and worst; the mean number of plays each found; and a
    ``note`` saying what the gnubg column is or why it is missing."""
    positions = self_play_positions()
    gnubg, note = load_gnubg()
    if gnubg is not None:
        cube = gnubg.cubeinfo()  # money game, centred cube, player 0 on roll
        context = gnubg.evalcontext(0, 0, 1, 0, 0.0)  # cubeless, 0-ply, deterministic
        find = gnubg.findbestmoves
    ours: list[float] = []
    theirs: list[float] = []
    our_plays = their_plays = 0
    clock = time.perf_counter_ns
    for position in positions:
        # gnubg's board: (player not on roll, player on roll), points 1..24 then the bar.
        board = (position.theirs[1:26], position.mine[1:26])
        for d1, d2 in ROLLS:
            best = 0
            for repeat in range(REPEATS):
                clear_play_cache()  # time the generation itself, not a cache hit
                start = clock()
                result = position.legal_plays(d1, d2)
                elapsed = clock() - start
                best = elapsed if not repeat or elapsed < best else best
            ours.append(best / 1000)
            our_plays += len(result)
            if gnubg is None:
                continue
            dice = (d1, d2)
            for repeat in range(REPEATS):
                start = clock()
                moves = find(board, cube, context, dice)
                elapsed = clock() - start
                best = elapsed if not repeat or elapsed < best else best
            theirs.append(best / 1000)
            their_plays += len(moves)
    results: dict[str, Any] = _summary("", ours)
    results["pairs"] = float(len(ours))
    results["mean_plays"] = our_plays / len(ours)
    results["note"] = note
    if theirs:
        results.update(_summary("gnubg_", theirs))
        results["gnubg_mean_plays"] = their_plays / len(theirs)
        results["ratio"] = results["median_us"] / results["gnubg_median_us"]
        results["pair_ratio_median"] = statistics.median(
            o / g for o, g in zip(ours, theirs, strict=True)
        )
    return results


def _summary(prefix: str, timings: list[float]) -> dict[str, Any]:
    ordered = sorted(timings)
    return {
        f"{prefix}median_us": statistics.median(ordered),
        f"{prefix}mean_us": statistics.fmean(ordered),
        f"{prefix}p90_us": ordered[int(len(ordered) * 0.9)],
        f"{prefix}max_us": ordered[-1],
    }


def report(results: dict[str, Any], indent: str = "  ") -> list[str]:
    """The side-by-side lines printed by this script and by benchmarks/movegen.py."""
    lines = [f"{indent}{results['note']}"]
    lines.append(
        f"{indent}{'per call, us':<14}{'ours':>9}{'gnubg':>9}   "
        f"over {int(results['pairs'])} (position, roll) pairs, best of {REPEATS} each"
    )
    for label, key in (
        ("median", "median_us"),
        ("mean", "mean_us"),
        ("p90", "p90_us"),
        ("max", "max_us"),
        ("plays/call", "mean_plays"),
    ):
        gnubg = results.get(f"gnubg_{key}")
        shown = f"{gnubg:9.1f}" if gnubg is not None else f"{'-':>9}"
        lines.append(f"{indent}{label:<14}{results[key]:9.1f}{shown}")
    if "ratio" in results:
        verdict = "ok" if results["ratio"] <= RATIO_TARGET else "MISSED"
        lines.append(
            f"{indent}ratio of medians ours/gnubg {results['ratio']:.2f} "
            f"(target <= {RATIO_TARGET}) {verdict}; median of per-pair ratios "
            f"{results['pair_ratio_median']:.2f}"
        )
    lines.append(f"{indent}{OURS}")
    if "ratio" in results:
        lines.append(f"{indent}{GNUBG}")
    return lines


if __name__ == "__main__":
    print("backgammon move generation (target: median <= 150 us)")
    print("\n".join(report(bench())))
