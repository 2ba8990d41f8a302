"""The robot's worker process, and the async calls into it: :class:`RobotWorker`.

The robot thinks in one worker process of its own (a :class:`~bot.workers.WorkerPool` the bot
is given), separate from the render worker (:mod:`bot.rendering`) and from post-match analysis
(:mod:`bot.robot.analysis_runner`). GNU Backgammon must run in the main thread of its process
and never releases the interpreter lock (:mod:`bot.robot.gnubg_brain`), and the Nannon solver's
first answer at a new score takes up to 0.6 s: in a process of their own they leave the event
loop free, and a crash takes down only the worker. A call that finds the worker dead
(``BrokenProcessPool``: killed, out of memory, a segfault) gets a new worker and is tried once
more; a second death is a :class:`RobotCrashedError`.

Calls run one at a time in the worker, in order. ``await gnubg_available()`` says whether GNU
Backgammon runs on this platform (the ``gnubg`` wheel exists for Linux x86_64, Windows AMD64
and macOS arm64; elsewhere the system's program, :mod:`bot.robot.gnubg_system`); the answer is
asked of the worker once and kept, and the start-up logs which one it is. Without either the
backgammon calls raise :class:`RobotUnavailableError`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from bot.robot import gnubg_brain, gnubg_system, jobs
from bot.robot.levels import BACKGAMMON_LEVELS, Level
from bot.workers import WorkerCrashedError, WorkerPool, WorkerUnavailableError
from engines.nannon_solver import Context, CubeDecision, MatchScore, RankedMove, TakeDecision

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["NOT_AVAILABLE", "RobotCrashedError", "RobotUnavailableError", "RobotWorker"]

NOT_AVAILABLE = "backgammon against the robot is not available on this platform"

# The robot's names for its pool's failures.
RobotUnavailableError = WorkerUnavailableError
RobotCrashedError = WorkerCrashedError


class RobotWorker:
    """The robot's calls into its worker process, ``pool`` (one per bot, passed in): its moves,
    cube and resignation decisions, and hints. Whether gnubg runs here is asked of the worker
    once and kept."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        self._gnubg: bool | None = None  # whether gnubg runs here, once asked

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the robot's worker process (see :meth:`WorkerPool.run`)."""
        return await self.pool.run(function, *args)

    async def warm_up(self) -> None:
        """Start the worker and load gnubg and the Nannon solver now, so the first decision is
        not the slow one. Failures are logged, not raised: the first call will meet them."""
        found = await self.pool.warm_up(jobs.warm)
        if found is None:
            return
        if found:
            log.info("backgammon engine: %s", found)
        else:
            log.warning(gnubg_system.INSTALL_HINT)
        if self._gnubg is None:
            self._gnubg = bool(found)

    async def gnubg_available(self) -> bool:
        """Whether backgammon against the robot works here: the ``gnubg`` wheel or the system's
        GNU Backgammon is installed and runs in the worker. Asked once, then remembered."""
        if self._gnubg is None:
            if not gnubg_system.route_possible():
                self._gnubg = False
            else:
                try:
                    self._gnubg = await self.run(jobs.gnubg_available)
                except RobotCrashedError:  # importing it kills the worker
                    log.warning("gnubg crashes the robot worker: no backgammon robot here")
                    self._gnubg = False
        return self._gnubg

    async def _backgammon(self, function: Callable[..., T], *args: Any, level: Level) -> T:
        if not await self.gnubg_available():
            raise RobotUnavailableError(NOT_AVAILABLE)
        settings = BACKGAMMON_LEVELS[Level(level)]
        return await self.run(function, *args, settings.ply, settings.noise)

    # -- backgammon: gnubg ---------------------------------------------------------------------

    async def rank_plays(
        self, position_id: str, match_id: str, level: Level = Level.MASTER
    ) -> list[gnubg_brain.RankedPlay]:
        """Every legal play of the roll in ``match_id``, best first as ``level`` sees them:
        (play, Position ID after it, equity of the side on roll)."""
        return await self._backgammon(gnubg_brain.rank_plays, position_id, match_id, level=level)

    async def cube_decision(
        self, position_id: str, match_id: str, level: Level = Level.MASTER
    ) -> CubeDecision:
        """The side on roll's cube decision before its roll
        (:func:`bot.robot.gnubg_brain.cube_decision`)."""
        return await self._backgammon(gnubg_brain.cube_decision, position_id, match_id, level=level)

    async def take_decision(
        self, position_id: str, match_id: str, level: Level = Level.MASTER
    ) -> TakeDecision:
        """Take or pass, from the doubler's position and Match ID; the taker's equities."""
        return await self._backgammon(gnubg_brain.take_decision, position_id, match_id, level=level)

    async def position_equity(
        self, position_id: str, match_id: str, level: Level = Level.MASTER
    ) -> float:
        """The side on roll's cubeful equity (after its roll if the Match ID has dice)."""
        return await self._backgammon(
            gnubg_brain.position_equity, position_id, match_id, level=level
        )

    async def resign_decision(
        self, position_id: str, match_id: str, level: Level = Level.MASTER
    ) -> tuple[bool, float, float]:
        """(accept, what accepting is worth, what playing on is worth) for the player who answers
        the resignation in ``match_id``."""
        return await self._backgammon(
            gnubg_brain.resign_decision, position_id, match_id, level=level
        )

    async def resign_offer(self, position_id: str, match_id: str) -> int:
        """The resignation level (1..3) the side on roll is sure to lose at in a race, else 0
        (:func:`bot.robot.gnubg_brain.resign_offer`; the same at every level)."""
        return await self._backgammon(
            gnubg_brain.resign_offer, position_id, match_id, level=Level.EXPERT
        )

    # -- Nannon: the exact solver --------------------------------------------------------------

    async def nannon_rank_moves(
        self, position_id: str, roll: int, context: Context
    ) -> list[RankedMove]:
        """Every legal move of ``roll``, best first, exact (:meth:`NannonSolver.rank_moves`)."""
        return await self.run(jobs.nannon_rank_moves, position_id, roll, context)

    async def nannon_cube_action(self, position_id: str, context: Context) -> CubeDecision:
        return await self.run(jobs.nannon_cube_action, position_id, context)

    async def nannon_opening_cube_action(self, context: Context) -> CubeDecision:
        return await self.run(jobs.nannon_opening_cube_action, context)

    async def nannon_take_decision(self, position_id: str, context: Context) -> TakeDecision:
        return await self.run(jobs.nannon_take_decision, position_id, context)

    async def nannon_equity(self, position_id: str, context: Context) -> float:
        return await self.run(jobs.nannon_equity, position_id, context)

    async def nannon_match_equity(self, score: MatchScore) -> float:
        return await self.run(jobs.nannon_match_equity, score)

    async def nannon_won_equity(self, context: Context, points: int) -> float:
        """The equity of winning ``points`` now for the side of ``context``
        (:func:`bot.robot.jobs.nannon_won_equity`)."""
        return await self.run(jobs.nannon_won_equity, context, points)

    async def nannon_sure_loss(self, position_id: str, context: Context, stakes: list[int]) -> int:
        """The index into ``stakes`` of the resignation the side on roll is sure to lose, or -1
        (:func:`bot.robot.jobs.nannon_sure_loss`)."""
        return await self.run(jobs.nannon_sure_loss, position_id, context, stakes)
