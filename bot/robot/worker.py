"""The robot's worker process, and the async calls into it.

The robot thinks in one worker process of its own (:data:`ROBOT`, a
:class:`~bot.robot.pool.WorkerPool`), separate from the render worker (:mod:`bot.rendering`) and
from post-match analysis (:data:`ANALYSIS`), created on first use and shared by every bot in the
process. GNU
Backgammon must run in the main thread of its process and never releases the interpreter lock
(:mod:`bot.robot.gnubg_brain`), and the Nannon solver's first answer at a new score takes up to
0.6 s: in a process of their own they leave the event loop free, and a crash takes down only the
worker. A call that finds the worker dead (``BrokenProcessPool``: killed, out of memory, a
segfault) gets a new worker and is tried once more; a second death is a
:class:`RobotCrashedError`.

Calls run one at a time in the worker, in order. ``await gnubg_available()`` says whether GNU
Backgammon runs on this platform (the ``gnubg`` wheel exists for Linux x86_64, Windows AMD64
and macOS arm64); the answer is asked of the worker once and kept. Elsewhere the backgammon
calls raise :class:`RobotUnavailableError`.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bot.robot import analysis, gnubg_brain, jobs
from bot.robot.levels import BACKGAMMON_LEVELS, Level
from bot.robot.pool import RobotCrashedError, RobotUnavailableError, WorkerPool
from engines.actions import Action
from engines.analysis import Decision
from engines.base import GameKind, MatchRules
from engines.nannon_solver import Context, CubeDecision, MatchScore, RankedMove, TakeDecision

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = [
    "ANALYSIS",
    "NOT_AVAILABLE",
    "ROBOT",
    "RobotCrashedError",
    "RobotUnavailableError",
    "analyse_game",
    "cube_decision",
    "gnubg_available",
    "nannon_cube_action",
    "nannon_equity",
    "nannon_match_equity",
    "nannon_opening_cube_action",
    "nannon_rank_moves",
    "nannon_sure_loss",
    "nannon_take_decision",
    "nannon_won_equity",
    "position_equity",
    "rank_plays",
    "resign_decision",
    "resign_offer",
    "run",
    "shutdown",
    "take_decision",
    "warm_up",
]

NOT_AVAILABLE = "backgammon against the robot is not available on this platform"

ROBOT = WorkerPool("robot")
"""The robot's worker: its moves, cube and resignation decisions, and hints."""
ANALYSIS = WorkerPool("analysis", niceness=10)
"""Post-match analysis, in a worker of its own: a long analysis never delays a robot move. It
runs at a lower priority: on a machine with few cores an analysis is background work, and the
bot's event loop and the robot come first."""

_gnubg: bool | None = None  # whether gnubg runs here, once asked


def shutdown() -> None:
    """Stop the workers (the next call starts a new one). An analysis under way is ended, not
    waited for (a game can take a minute; the queue runs it again at the next start)."""
    ROBOT.shutdown()
    ANALYSIS.shutdown(kill=True)


async def run(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in the robot's worker process (see :meth:`WorkerPool.run`)."""
    return await ROBOT.run(function, *args)


async def warm_up() -> None:
    """Start the worker and load gnubg and the Nannon solver now, so the first decision is not
    the slow one. Failures are logged, not raised: the first call will meet them."""
    global _gnubg
    try:
        found = await run(jobs.warm)
    except (RobotUnavailableError, RobotCrashedError) as exc:
        log.warning("the robot worker failed to start (%s)", exc)
    else:
        _gnubg = _gnubg if _gnubg is not None else found


async def gnubg_available() -> bool:
    """Whether backgammon against the robot works here: the ``gnubg`` wheel is installed and
    runs in the worker. Asked once, then remembered."""
    global _gnubg
    if _gnubg is None:
        if importlib.util.find_spec("gnubg") is None:
            _gnubg = False
        else:
            try:
                _gnubg = await run(jobs.gnubg_available)
            except RobotCrashedError:  # importing it kills the worker
                log.warning("gnubg crashes the robot worker: no backgammon robot here")
                _gnubg = False
    return _gnubg


async def _backgammon(function: Callable[..., T], *args: Any, level: Level) -> T:
    if not await gnubg_available():
        raise RobotUnavailableError(NOT_AVAILABLE)
    settings = BACKGAMMON_LEVELS[Level(level)]
    return await run(function, *args, settings.ply, settings.noise)


# -- backgammon: gnubg -------------------------------------------------------------------------


async def rank_plays(
    position_id: str, match_id: str, level: Level = Level.MASTER
) -> list[gnubg_brain.RankedPlay]:
    """Every legal play of the roll in ``match_id``, best first as ``level`` sees them:
    (play, Position ID after it, equity of the side on roll)."""
    return await _backgammon(gnubg_brain.rank_plays, position_id, match_id, level=level)


async def cube_decision(
    position_id: str, match_id: str, level: Level = Level.MASTER
) -> CubeDecision:
    """The side on roll's cube decision before its roll
    (:func:`bot.robot.gnubg_brain.cube_decision`)."""
    return await _backgammon(gnubg_brain.cube_decision, position_id, match_id, level=level)


async def take_decision(
    position_id: str, match_id: str, level: Level = Level.MASTER
) -> TakeDecision:
    """Take or pass, from the doubler's position and Match ID; the taker's equities."""
    return await _backgammon(gnubg_brain.take_decision, position_id, match_id, level=level)


async def position_equity(position_id: str, match_id: str, level: Level = Level.MASTER) -> float:
    """The side on roll's cubeful equity (after its roll if the Match ID has dice)."""
    return await _backgammon(gnubg_brain.position_equity, position_id, match_id, level=level)


async def resign_decision(
    position_id: str, match_id: str, level: Level = Level.MASTER
) -> tuple[bool, float, float]:
    """(accept, what accepting is worth, what playing on is worth) for the player who answers
    the resignation in ``match_id``."""
    return await _backgammon(gnubg_brain.resign_decision, position_id, match_id, level=level)


async def resign_offer(position_id: str, match_id: str) -> int:
    """The resignation level (1..3) the side on roll is sure to lose at in a race, else 0
    (:func:`bot.robot.gnubg_brain.resign_offer`; the same at every level)."""
    return await _backgammon(gnubg_brain.resign_offer, position_id, match_id, level=Level.EXPERT)


# -- Nannon: the exact solver ------------------------------------------------------------------


async def nannon_rank_moves(position_id: str, roll: int, context: Context) -> list[RankedMove]:
    """Every legal move of ``roll``, best first, exact (:meth:`NannonSolver.rank_moves`)."""
    return await run(jobs.nannon_rank_moves, position_id, roll, context)


async def nannon_cube_action(position_id: str, context: Context) -> CubeDecision:
    return await run(jobs.nannon_cube_action, position_id, context)


async def nannon_opening_cube_action(context: Context) -> CubeDecision:
    return await run(jobs.nannon_opening_cube_action, context)


async def nannon_take_decision(position_id: str, context: Context) -> TakeDecision:
    return await run(jobs.nannon_take_decision, position_id, context)


async def nannon_equity(position_id: str, context: Context) -> float:
    return await run(jobs.nannon_equity, position_id, context)


async def nannon_match_equity(score: MatchScore) -> float:
    return await run(jobs.nannon_match_equity, score)


async def nannon_won_equity(context: Context, points: int) -> float:
    """The equity of winning ``points`` now for the side of ``context``
    (:func:`bot.robot.jobs.nannon_won_equity`)."""
    return await run(jobs.nannon_won_equity, context, points)


async def nannon_sure_loss(position_id: str, context: Context, stakes: list[int]) -> int:
    """The index into ``stakes`` of the resignation the side on roll is sure to lose, or -1
    (:func:`bot.robot.jobs.nannon_sure_loss`)."""
    return await run(jobs.nannon_sure_loss, position_id, context, stakes)


# -- post-match analysis -----------------------------------------------------------------------


async def analyse_game(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """Game ``game`` of a finished match analysed in the analysis worker (:data:`ANALYSIS`,
    :func:`bot.robot.analysis.analyse_game`): one call per game, so progress can be told
    between games. Backgammon needs gnubg: RobotUnavailableError where it doesn't run."""
    if analysis.needs_gnubg(kind) and not await gnubg_available():
        raise RobotUnavailableError(NOT_AVAILABLE)
    return await ANALYSIS.run(analysis.analyse_game, kind, rules, list(actions), names, game, ply)
