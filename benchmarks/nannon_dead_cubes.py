"""Dead cubes in Nannon matches, counted: `python benchmarks/nannon_dead_cubes.py`.

Issue 33: the Nannon robot judged the cube of a match played without the Crawford rule as if
it were centred at 1. This plays ``--matches`` 5-point matches without the Crawford rule per
level, the level against itself through the robot's own decisions
(:func:`bot.robot.player.choose_action`, the solver in this process), and prints per level
the doubles made on a dead cube (the doubler needs no more than the cube's value: a win at it
already takes the match), the passes of such doubles (each throws the match away: taking
costs nothing more) and, for comparison, all doubles and passes. ``--crawford`` plays the
matches with the Crawford rule instead. Runs on any revision (it asks the engine nothing the
fix added), so the same script measures before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.robot.player import choose_action
from bot.robot.worker import RobotWorker
from engines import new_match
from engines.actions import Action, Double, Drop, Move, OpeningRoll, Resign, Roll, Take
from engines.base import MatchRules, Phase
from engines.match import DiceMatch
from engines.nannon_solver import Level


class _HerePool:
    """The robot's worker pool replaced by this process: each job runs here."""

    async def run(self, function: Any, *args: Any) -> Any:
        return function(*args)


def _dead(match: DiceMatch, seat: int) -> bool:
    """Whether the cube is dead for ``seat``: a win at its value already takes the match."""
    return match.rules.length - int(match.score[seat]) <= match.cube.value


async def _match(worker: RobotWorker, level: Level, rules: MatchRules, rng: random.Random) -> Counter[str]:
    match = new_match("nannon", rules)
    assert isinstance(match, DiceMatch)
    counts: Counter[str] = Counter()
    dead_offer = False
    while match.phase is not Phase.MATCH_OVER:
        phase = match.phase
        seats = (0, 1) if phase is Phase.OPENING_TIE else (match.actor,)
        decision = None
        for seat in seats:  # on a tie, either side may double
            if seat is None:
                break
            decision = await choose_action(
                worker, match, seat, level, rng, offer_resignation=False
            )
            if decision.action is Double:
                break
        kind = None if decision is None else decision.action
        action: Action
        if phase in (Phase.OPENING, Phase.OPENING_TIE) and kind is not Double:
            action = OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        elif kind is Roll:
            action = Roll(seat, (rng.randint(1, 6),))
        elif kind is Double:
            counts["doubles"] += 1
            dead_offer = _dead(match, seat)
            counts["dead doubles"] += dead_offer
            action = Double(seat)
        elif kind is Take:
            action = Take(seat)
        elif kind is Drop:
            counts["passes"] += 1
            counts["dead passes"] += dead_offer
            action = Drop(seat)
        elif kind is Move:
            assert decision.move is not None
            action = Move(seat, decision.move)
        elif kind is Resign:
            raise AssertionError("resignations are off")
        else:
            raise AssertionError(f"unexpected decision {decision!r} in {match!r}")
        match.apply(action)
    counts["matches"] += 1
    return counts


async def _run(matches: int, crawford: bool, seed: int, levels: list[Level]) -> None:
    worker = RobotWorker(_HerePool())  # type: ignore[arg-type]
    rules = MatchRules(length=5, crawford=crawford)
    print(f"{matches} 5-point Nannon matches per level, {'with' if crawford else 'without'} "
          "the Crawford rule, each level against itself")
    print(f"{'level':<13} {'matches':>7} {'doubles':>8} {'dead doubles':>13} {'passes':>7} "
          f"{'dead passes':>12}")
    for level in levels:
        rng = random.Random(seed + int(level))
        total: Counter[str] = Counter()
        for _ in range(matches):
            total += await _match(worker, level, rules, rng)
        print(f"{level.name.lower():<13} {total['matches']:>7} {total['doubles']:>8} "
              f"{total['dead doubles']:>13} {total['passes']:>7} {total['dead passes']:>12}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--crawford", action="store_true")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--levels", default="1,2,3,4,5", help="levels 1 (beginner) to 5 (master)")
    args = parser.parse_args()
    levels = [Level(int(n)) for n in args.levels.split(",")]
    asyncio.run(_run(args.matches, args.crawford, args.seed, levels))


if __name__ == "__main__":
    main()
