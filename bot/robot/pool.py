"""A worker process of one, started on first use, replaced when it dies.

The robot and post-match analysis each get one (:mod:`bot.robot.worker`): a long analysis must
not hold up the robot's next move, and gnubg's state (the match it last imported, the position
it last set) is global to its process, so the two must not share one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["RobotCrashedError", "RobotUnavailableError", "WorkerPool"]


class RobotUnavailableError(RuntimeError):
    """The robot can't play this here: no worker process can start, or GNU Backgammon's wheel
    does not exist for this platform."""


class RobotCrashedError(RuntimeError):
    """The worker died during a call, and again when the call was tried in a new one."""


class WorkerPool:
    """A ``spawn``-context pool of one process: calls run one at a time, in order. A call that
    finds the worker dead (``BrokenProcessPool``: killed, out of memory, a segfault) gets a new
    worker and is tried once more; a second death is a :class:`RobotCrashedError`."""

    def __init__(self, name: str, *, niceness: int = 0) -> None:
        self.name = name
        self.niceness = niceness  # the worker's priority this much below the bot's (Unix nice)
        self._lock = threading.Lock()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def _get(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                try:
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=_lower_priority,
                        initargs=(self.niceness,),
                    )
                except (OSError, NotImplementedError, ImportError) as exc:
                    raise RobotUnavailableError(
                        f"no {self.name} worker process here ({exc})"
                    ) from exc
            return self._pool

    def _discard(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        """Drop a broken pool; the next call starts a new worker."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, *, kill: bool = False) -> None:
        """Stop the worker (the next call starts a new one). ``kill``: don't wait for the call
        it is running (a long analysis, started again at the next start), end it now."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            # CPython's executor keeps its processes here; no public way to end them before
            # 3.14's terminate_workers().
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the worker process (``function`` must be importable there,
        by its module and name). A dead worker is replaced and the call tried once more."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._get()
            try:
                return await loop.run_in_executor(pool, function, *args)
            except BrokenProcessPool as exc:
                self._discard(pool)
                if attempt == 2:
                    raise RobotCrashedError(
                        f"the {self.name} worker died twice running {function.__name__}"
                    ) from exc
                log.warning("the %s worker died (%s): starting a new one", self.name, exc)
            except OSError as exc:  # the worker could not be started (no processes allowed)
                self._discard(pool)
                raise RobotUnavailableError(
                    f"the {self.name} worker could not start ({exc})"
                ) from exc
        raise AssertionError("unreachable")  # pragma: no cover


def _lower_priority(niceness: int) -> None:
    """In a new worker: run ``niceness`` below the bot (where the platform has ``nice``), and
    ignore Ctrl-C, which reaches the terminal's whole process group: the bot stops its worker
    itself once the work in flight is done."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)
