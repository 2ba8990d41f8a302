"""Board rendering off the event loop and off its interpreter lock: a worker process.

Rendering is Python drawing plus PNG encoding, a few milliseconds a board. In a thread it holds
the GIL the event loop needs (under load that thread made the median action 4x slower in
``benchmarks/load.py``); a worker process uses the machine's other core instead. One pool of one
worker serves every bot in the process (tests start many bots), created on first use with the
``spawn`` start method, which never copies the parent's threads. If the pool can't start, or its
worker dies, boards are drawn in a thread: slower under load, never missing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import threading
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from render import jobs

log = logging.getLogger(__name__)

_lock = threading.Lock()
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_use_threads = False  # set once the pool could not start: no retry on every board


def _get_pool() -> concurrent.futures.ProcessPoolExecutor | None:
    global _pool, _use_threads
    with _lock:
        if _pool is None and not _use_threads:
            try:
                _pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            except (OSError, NotImplementedError, ImportError) as exc:
                log.warning("no render worker process (%s): rendering in threads", exc)
                _use_threads = True
        return _pool


def _discard(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Drop a broken pool; the next board starts a new one."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


async def warm_up() -> None:
    """Start the worker and its imports now, so the first board is not the slow one."""
    pool = _get_pool()
    if pool is None:
        return
    try:
        await asyncio.get_running_loop().run_in_executor(pool, jobs.ready)
    except (BrokenProcessPool, OSError) as exc:
        log.warning("the render worker failed to start (%s)", exc)
        _discard(pool)


async def board(game: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bytes, str]:
    """(PNG, alt text) of one board, drawn by the worker process (or a thread)."""
    pool = _get_pool()
    if pool is not None:
        try:
            return await asyncio.get_running_loop().run_in_executor(
                pool, jobs.board, game, args, kwargs
            )
        except (BrokenProcessPool, OSError) as exc:
            # OSError: the worker could not be started (no processes allowed here).
            log.warning("the render worker failed (%s): drawing this board in a thread", exc)
            _discard(pool)
    return await asyncio.to_thread(jobs.board, game, args, kwargs)
