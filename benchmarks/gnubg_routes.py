"""The cost of one backgammon evaluation through each GNU Backgammon route, side by side (issue
40): the ``gnubg`` wheel in this process, and the system's program (``gnubg -t -q -p``, one
child answering over pipes: bot/robot/gnubg_system.py).

Positions: ``--positions`` (default 200) met in seeded games of random plays
(tests/support/gnubg_routes.py), each a money game or a 5- or 7-point match at a random score.
Each row times the robot's own calls, :func:`bot.robot.gnubg_brain.rank_plays` (the roll's
plays ranked: a move) and :func:`~bot.robot.gnubg_brain.cube_decision` (a cube decision), at
0-ply and 2-ply without noise, all positions through one route and then the other, and prints
the mean per call. ``--compare N`` also compares the routes' answers on N positions at both
plies: the same best play, what the system's choice costs judged by the wheel, the same cube
action, and the equity differences.

Run: ``python benchmarks/gnubg_routes.py [--positions 200] [--compare 1000]``. Needs both
routes (apt install gnubg; the wheel where it exists).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.robot import gnubg_brain
from tests.support import gnubg_routes


def _per_call(route: str, calls: list[tuple[str, str]], ply: int, cube: bool) -> float:
    """Mean seconds per call of ``calls`` through ``route``."""
    with gnubg_routes.use(route):
        gnubg_brain._use(ply, 0.0)  # the settings commands, outside the timing
        started = time.perf_counter()
        for position_id, match_id in calls:
            if cube:
                gnubg_brain.cube_decision(position_id, match_id, ply)
            else:
                gnubg_brain.rank_plays(position_id, match_id, ply)
        return (time.perf_counter() - started) / len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--compare", type=int, default=0, metavar="N")
    options = parser.parse_args()
    if not gnubg_routes.both_exist():
        sys.exit("needs both the gnubg wheel and the system's GNU Backgammon (apt install gnubg)")
    moves = list(gnubg_routes.positions(options.positions, 40))
    cubes = [(p, before) for p, m in moves if (before := gnubg_routes.cube_match(m))]
    print(f"{len(moves)} positions for moves, {len(cubes)} for cube decisions; ms per call")
    print(f"{'':16}{'wheel':>10}{'system':>10}{'ratio':>8}")
    for ply in (0, 2):
        for name, calls, cube in (("move", moves, False), ("cube", cubes, True)):
            wheel = _per_call("wheel", calls, ply, cube)
            system = _per_call("system", calls, ply, cube)
            label = f"{ply}-ply {name}"
            print(f"{label:16}{wheel * 1000:10.2f}{system * 1000:10.2f}{system / wheel:8.2f}")
    if options.compare:
        for ply in (0, 2):
            found = gnubg_routes.compare(options.compare, 40, ply)
            print(f"\n{ply}-ply, {options.compare} positions:")
            for key, value in found.items():
                print(f"  {key:24} {value:.5g}")


if __name__ == "__main__":
    main()
