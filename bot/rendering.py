"""Board rendering off the event loop and off its interpreter lock: a worker process.

Rendering is Python drawing plus PNG encoding, a few milliseconds a board. In a thread it holds
the GIL the event loop needs (under load in ``benchmarks/load.py`` the median action took twice
as long as with this worker); a worker process uses the machine's other core instead. One pool
of one worker serves every bot in the process (tests start many bots), created on first use
with the ``spawn`` start method, which never copies the parent's threads. If the pool can't
start, or its worker dies, boards are drawn in a thread: slower under load, never missing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import threading
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from engines.analysis import Decision
from engines.cube import Cube
from engines.spec import spec_of
from render import jobs
from render.common import Scene

if TYPE_CHECKING:
    from bot.service import MatchView

log = logging.getLogger(__name__)

T = TypeVar("T")

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_pool_worked = False  # the current pool finished a job
_use_threads = False  # set once no worker could start: no new try on every board


def _get_pool() -> concurrent.futures.ProcessPoolExecutor | None:
    global _pool, _pool_worked, _use_threads
    with _lock:
        if _pool is None and not _use_threads:
            try:
                _pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
                _pool_worked = False
            except (OSError, NotImplementedError, ImportError) as exc:
                log.warning("no render worker process (%s): rendering in threads", exc)
                _use_threads = True
        return _pool


def _discard(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Drop a broken pool. A worker that had drawn boards (and then died, say killed for its
    memory) is replaced on the next board; one that never started (e.g. ``spawn`` can't
    re-import ``__main__``) won't start next time either, so boards go to threads for good."""
    global _pool, _use_threads
    with _lock:
        if _pool is pool:
            _pool = None
            if not _pool_worked:
                log.warning("the render worker could not start: rendering in threads from now on")
                _use_threads = True
    pool.shutdown(wait=False, cancel_futures=True)


def _worked(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    global _pool_worked
    if _pool is pool:
        _pool_worked = True


def black_seat(view: MatchView) -> int:
    """The seat playing Black in the current checkers game."""
    return 0 if view.colours[0] == "black" else 1


def board_job(view: MatchView) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """What render/ needs to draw this view's board: the game and the arguments its
    ``board_png`` and ``describe`` take (plain, picklable values, for the render worker); every
    transport draws from it (the Discord presenter its PNG, the terminal its text board)."""
    scene = Scene(
        names=(view.players[0].name, view.players[1].name),
        score=view.score,
        match_length=view.length,
        crawford=view.crawford,
        game_number=view.game_number,
    )
    last = (view.last_move.seat, view.last_move.move) if view.last_move else None
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = {"last_move": last}
    if not spec_of(view.kind).has_dice:
        # render.checkers takes the seat playing Black (colours alternate each game).
        args = (view.position, black_seat(view), scene)
        kwargs["draw_offered_by"] = view.draw_offered_by
    else:
        args = (view.position, view.turn, scene)
        kwargs["dice"] = view.dice
        kwargs["cube"] = Cube(view.cube_value, view.cube_owner) if view.rules.cube else None
        kwargs["cube_offered_by"] = view.cube_offered_by
    return view.kind.value, args, kwargs


async def warm_up() -> None:
    """Start the worker and its imports now, so the first board is not the slow one."""
    pool = _get_pool()
    if pool is None:
        return
    try:
        await asyncio.get_running_loop().run_in_executor(pool, jobs.ready)
        _worked(pool)
    except (BrokenProcessPool, OSError) as exc:
        log.warning("the render worker failed to start (%s)", exc)
        _discard(pool)


async def board(game: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bytes, str]:
    """(PNG, alt text) of one board, drawn by the worker process (or a thread)."""
    return await _draw(jobs.board, game, args, kwargs)


async def chart(
    decisions: Sequence[Decision], names: tuple[str, str], match_play: bool
) -> tuple[bytes, str]:
    """(PNG, alt text) of an analysis' winning-chance chart, drawn as boards are."""
    return await _draw(jobs.chart, tuple(decisions), names, match_play)


async def mistake(
    game: str, args: tuple[Any, ...], kwargs: dict[str, Any], decision: Decision
) -> tuple[bytes, str]:
    """(PNG, alt text) of a mistake's card: the board (``board``'s arguments) and its caption."""
    return await _draw(jobs.mistake, game, args, kwargs, decision)


async def _draw(job: Callable[..., T], *args: Any) -> T:
    pool = _get_pool()
    if pool is not None:
        try:
            drawn = await asyncio.get_running_loop().run_in_executor(pool, job, *args)
        except (BrokenProcessPool, OSError) as exc:
            # OSError: the worker could not be started (no processes allowed here).
            log.warning("the render worker failed (%s): drawing this one in a thread", exc)
            _discard(pool)
        else:
            _worked(pool)
            return drawn
    return await asyncio.to_thread(job, *args)
