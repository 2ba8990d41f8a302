"""What the robot's worker process runs (:mod:`bot.robot.worker` sends these by reference).

Backgammon goes to GNU Backgammon (:mod:`bot.robot.gnubg_brain`), Nannon to the exact solver
(:mod:`engines.nannon_solver`), one solver per worker: a match score is solved the first time it
is asked (0.2 to 0.6 s, money play 0.17 s) and then answers in microseconds, so the first hint
at a new score must not run on the event loop. Everything takes and returns plain, picklable
values.
"""

from __future__ import annotations

import os

from bot.robot import gnubg_brain
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import (
    Context,
    CubeDecision,
    MatchScore,
    NannonSolver,
    RankedMove,
    TakeDecision,
)

_solver: NannonSolver | None = None


def pid() -> int:
    """The worker's process id."""
    return os.getpid()


def warm() -> bool:
    """Load what the first decisions need (gnubg's nets, the Nannon solver's money values);
    whether gnubg is available."""
    solver().equity(NannonPosition.initial(), Context())
    return gnubg_brain.available()


def gnubg_available() -> bool:
    return gnubg_brain.available()


def solver() -> NannonSolver:
    global _solver
    if _solver is None:
        _solver = NannonSolver()
    return _solver


# -- Nannon ------------------------------------------------------------------------------------


def nannon_rank_moves(position_id: str, roll: int, context: Context) -> list[RankedMove]:
    return solver().rank_moves(NannonPosition.from_id(position_id), roll, context)


def nannon_cube_action(position_id: str, context: Context) -> CubeDecision:
    return solver().cube_action(NannonPosition.from_id(position_id), context)


def nannon_opening_cube_action(context: Context) -> CubeDecision:
    return solver().opening_cube_action(context)


def nannon_take_decision(position_id: str, context: Context) -> TakeDecision:
    return solver().take_decision(NannonPosition.from_id(position_id), context)


def nannon_equity(position_id: str, context: Context) -> float:
    return solver().equity(NannonPosition.from_id(position_id), context)


def nannon_match_equity(score: MatchScore) -> float:
    return solver().match_equity(score)
