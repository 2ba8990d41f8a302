"""The robot's worker process, and the async calls into it.

The robot thinks in one worker process of its own: a ``spawn``-context pool of one
(``concurrent.futures.ProcessPoolExecutor``), separate from the render worker
(:mod:`bot.rendering`), created on first use and shared by every bot in the process. GNU
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

import asyncio
import concurrent.futures
import importlib.util
import logging
import multiprocessing
import threading
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.robot import analysis, gnubg_brain, jobs
from bot.robot.levels import BACKGAMMON_LEVELS, Level
from engines.actions import Action
from engines.analysis import Decision
from engines.base import GameKind, MatchRules
from engines.nannon_solver import Context, CubeDecision, MatchScore, RankedMove, TakeDecision

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = [
    "NOT_AVAILABLE",
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
    "nannon_take_decision",
    "position_equity",
    "rank_plays",
    "resign_decision",
    "run",
    "shutdown",
    "take_decision",
    "warm_up",
]

NOT_AVAILABLE = "backgammon against the robot is not available on this platform"

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_gnubg: bool | None = None  # whether gnubg runs here, once asked


class RobotUnavailableError(RuntimeError):
    """The robot can't play this here: no worker process can start, or GNU Backgammon's wheel
    does not exist for this platform."""


class RobotCrashedError(RuntimeError):
    """The worker died during a call, and again when the call was tried in a new one."""


def _get_pool() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            try:
                _pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            except (OSError, NotImplementedError, ImportError) as exc:
                raise RobotUnavailableError(f"no robot worker process here ({exc})") from exc
        return _pool


def _discard(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Drop a broken pool; the next call starts a new worker."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """Stop the worker (the next call starts a new one)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


async def run(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in the worker process (``function`` must be importable there, by
    its module and name). A dead worker is replaced and the call tried once more."""
    loop = asyncio.get_running_loop()
    for attempt in (1, 2):
        pool = _get_pool()
        try:
            return await loop.run_in_executor(pool, function, *args)
        except BrokenProcessPool as exc:
            _discard(pool)
            if attempt == 2:
                raise RobotCrashedError(
                    f"the robot worker died twice running {function.__name__}"
                ) from exc
            log.warning("the robot worker died (%s): starting a new one", exc)
        except OSError as exc:  # the worker could not be started (no processes allowed here)
            _discard(pool)
            raise RobotUnavailableError(f"the robot worker could not start ({exc})") from exc
    raise AssertionError("unreachable")  # pragma: no cover


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


# -- post-match analysis -----------------------------------------------------------------------


async def analyse_game(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """Game ``game`` of a finished match analysed in the worker
    (:func:`bot.robot.analysis.analyse_game`): one call per game, so robot moves get their
    turn between games. Backgammon needs gnubg: RobotUnavailableError where it doesn't run."""
    if analysis.ANALYSERS[GameKind(kind)].uses_ply and not await gnubg_available():
        raise RobotUnavailableError(NOT_AVAILABLE)
    return await run(analysis.analyse_game, kind, rules, list(actions), names, game, ply)
