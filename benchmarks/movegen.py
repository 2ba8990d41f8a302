"""Move-generation speed of every engine: `python benchmarks/movegen.py`.

Prints the median time per legal-move generation for each engine, against its target:
backgammon over all 21 rolls of 200 self-play positions, checkers over 2,000 positions from
random games, and every Nannon position and roll.

Backgammon is also timed beside GNU Backgammon in the same run, on the same (position, roll)
pairs, when ``import gnubg`` works (``pip install gnubg``): our ``legal_plays`` (every legal
play, play cache cleared) against gnubg's ``findbestmoves`` at 0-ply (every legal move generated
and evaluated by its neural net, evaluation cache off), per-call medians side by side and their
ratio, target <= 2.5. Without gnubg that column is skipped with a note. See
benchmarks/engine_backgammon.py for exactly what each column measures.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ENGINES = (
    ("nannon", "engine_nannon", "us per (position, roll)", 5.0),
    ("backgammon", "engine_backgammon", "us per (position, roll)", 150.0),
    ("checkers", "engine_checkers", "us per position", 30.0),
)


def main() -> None:
    print(f"{'engine':<12} {'median':>10}  {'target':>8}  unit")
    for name, module_name, unit, target in ENGINES:
        module = importlib.import_module(module_name)
        results = module.bench()
        median = results["median_us"]
        verdict = "ok" if median <= target else "MISSED"
        print(f"{name:<12} {median:>10.2f}  {target:>8.1f}  {unit}  {verdict}")
        if hasattr(module, "report"):  # backgammon: its side-by-side with gnubg
            print("\n".join(module.report(results, indent=" " * 13)))
            continue
        for key, value in sorted(results.items()):
            if key != "median_us":
                print(f"{'':<12} {key}: {value:.2f}")


if __name__ == "__main__":
    main()
