"""Make the sample match files in this folder: the robot against itself, one match a game.

    python examples/make_examples.py

Each match is played by the bot's own robot (:func:`bot.robot.player.choose_action`, in its
worker process, as in Discord and ``tablebot play``) at two levels, with seeded dice and seeded
draws, and written as ``/export`` writes it (:func:`engines.exports.export_match`): Nannon and
backgammon as ``.mat``, checkers as ``.pdn``. Backgammon needs GNU Backgammon's ``gnubg`` wheel.
The same seeds make the same files, so ``git diff`` after running it shows any change in how
the robot plays.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path

from bot.robot.levels import Level
from bot.robot.player import choose_action
from bot.robot.worker import RobotWorker
from bot.workers import WorkerPool
from engines import new_match
from engines.actions import Action, Move, OpeningRoll, Resign, Roll
from engines.base import GameKind, MatchRules, Phase
from engines.exports import export_match
from engines.spec import spec_of

FOLDER = Path(__file__).resolve().parent
DATE = "2026.01.01"  # fixed, so that the files are the same every time


@dataclass(frozen=True)
class Sample:
    kind: GameKind
    rules: MatchRules
    levels: tuple[Level, Level]
    seed: int

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.kind.value}{spec_of(self.kind).export_suffix}"

    @property
    def names(self) -> tuple[str, str]:
        return (self.levels[0].name.lower(), self.levels[1].name.lower())


SAMPLES = (
    Sample(GameKind.NANNON, MatchRules(length=3), (Level.BEGINNER, Level.EXPERT), 3),
    Sample(GameKind.BACKGAMMON, MatchRules(length=3), (Level.BEGINNER, Level.ADVANCED), 5),
    Sample(GameKind.CHECKERS, MatchRules(length=1), (Level.BEGINNER, Level.ADVANCED), 2),
)


async def robot_match(worker: RobotWorker, sample: Sample) -> list[Action]:
    """The robot at ``sample.levels`` against itself; the actions, as the service would log."""
    rng = random.Random(sample.seed)
    match = new_match(sample.kind, sample.rules)
    spec = match.spec
    while match.phase is not Phase.MATCH_OVER:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            # Either side may double after a tied opening roll (Nannon): each is asked.
            for seat in (0, 1):
                if match.can_double(seat):
                    decision = await choose_action(worker, match, seat, sample.levels[seat], rng)
                    if decision.action is not Roll:
                        break
            else:
                match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
                continue
        else:
            seat = match.actor if match.actor is not None else match.turn
            decision = await choose_action(worker, match, seat, sample.levels[seat], rng)
        kind = decision.action
        if kind is None:
            raise RuntimeError(f"the robot in seat {seat} has nothing to do at {match.phase}")
        action: Action
        if kind is Roll:
            action = Roll(seat, tuple(rng.randint(1, 6) for _ in range(spec.dice_count)))
        elif kind is Move:
            action = Move(seat, str(decision.move))
        elif kind is Resign:
            assert decision.resign is not None
            action = Resign(seat, decision.resign)
        else:
            action = kind(seat)
        match.apply(action)
    return list(match.actions)


async def main() -> None:
    pool = WorkerPool("robot")
    worker = RobotWorker(pool)
    try:
        for number, sample in enumerate(SAMPLES, 1):
            actions = await robot_match(worker, sample)
            text = export_match(sample.kind, sample.rules, actions, sample.names, number, DATE)
            sample.path.write_text(text, encoding="utf-8")
            print(f"{sample.path.name}: {len(actions)} actions")
    finally:
        pool.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
