"""Worker processes: :class:`WorkerPool`, a ``spawn``-context pool of one process, and
:class:`WorkerPools`, the three a bot runs with.

Rendering (:mod:`bot.rendering`), the robot and post-match analysis (:mod:`bot.robot.worker`)
each get a pool of their own, created in ``main`` (:func:`bot.discord.app.run`, or
``create_bot`` when none are passed) and handed to the bot, which shuts down its own pools when
it closes: nothing here is shared by two bots in one process. Separate processes because a long
analysis must not hold up the robot's next move, gnubg's state (the match it last imported, the
position it last set) is global to its process, and drawing a board in a thread would hold the
interpreter lock the event loop needs.
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
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = [
    "ANALYSIS_NICENESS",
    "WorkerCrashedError",
    "WorkerPool",
    "WorkerPools",
    "WorkerUnavailableError",
]

ANALYSIS_NICENESS = 10
"""The analysis worker's priority below the bot's: on a machine with few cores an analysis is
background work, and the bot's event loop and the robot come first."""


class WorkerUnavailableError(RuntimeError):
    """No worker process can start here (or, for the robot, GNU Backgammon's wheel does not
    exist for this platform)."""


class WorkerCrashedError(RuntimeError):
    """The worker died during a call (and, when the call was tried again, again in a new one)."""


class WorkerPool:
    """A ``spawn``-context pool of one process (``spawn`` never copies the parent's threads):
    calls run one at a time, in order. The process starts on the first call (or
    :meth:`warm_up`). A call that finds the worker dead (``BrokenProcessPool``: killed, out of
    memory, a segfault) gets a new worker and is tried once more; a second death is a
    :class:`WorkerCrashedError`. ``niceness``: the worker runs this much below the bot's
    priority (Unix nice)."""

    def __init__(self, name: str, *, niceness: int = 0) -> None:
        self.name = name
        self.niceness = niceness
        self._lock = threading.Lock()
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._worked = False  # the current process finished a call

    @property
    def started(self) -> bool:
        return self._executor is not None

    @property
    def worked(self) -> bool:
        """The current worker process has finished a call (it started and imports work)."""
        return self._executor is not None and self._worked

    def _get(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                try:
                    self._executor = concurrent.futures.ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=_start_worker,
                        initargs=(self.niceness,),
                    )
                except (OSError, NotImplementedError, ImportError) as exc:
                    raise WorkerUnavailableError(
                        f"no {self.name} worker process here ({exc})"
                    ) from exc
                self._worked = False
            return self._executor

    def _discard(self, executor: concurrent.futures.ProcessPoolExecutor) -> None:
        """Drop a broken process; the next call starts a new one."""
        with self._lock:
            if self._executor is executor:
                self._executor = None
        executor.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, *, kill: bool = False) -> None:
        """Stop the worker (the next call starts a new one). ``kill``: don't wait for the call
        it is running (a long analysis, started again at the next start), end it now."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is None:
            return
        if kill:
            # CPython's executor keeps its processes here; no public way to end them before
            # 3.14's terminate_workers().
            for process in list((getattr(executor, "_processes", None) or {}).values()):
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)

    async def run(self, function: Callable[..., T], *args: Any, retry: bool = True) -> T:
        """``function(*args)`` in the worker process (``function`` must be importable there,
        by its module and name). A dead worker is replaced and, with ``retry``, the call tried
        once more; :class:`WorkerCrashedError` when it died (again).
        :class:`WorkerUnavailableError` when no process can start."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2) if retry else (2,):
            executor = self._get()
            try:
                result = await loop.run_in_executor(executor, function, *args)
            except BrokenProcessPool as exc:
                self._discard(executor)
                if attempt == 2:
                    again = " twice" if retry else ""
                    raise WorkerCrashedError(
                        f"the {self.name} worker died{again} running {function.__name__}"
                    ) from exc
                log.warning("the %s worker died (%s): starting a new one", self.name, exc)
            except OSError as exc:  # the worker could not be started (no processes allowed)
                self._discard(executor)
                raise WorkerUnavailableError(
                    f"the {self.name} worker could not start ({exc})"
                ) from exc
            else:
                if self._executor is executor:
                    self._worked = True
                return result
        raise AssertionError("unreachable")  # pragma: no cover

    async def warm_up(self, function: Callable[[], T]) -> T | None:
        """Start the worker now with ``function`` (its imports, say), so the first real call is
        not the slow one; its answer, or None (logged, not raised: the first call will meet
        the failure)."""
        try:
            return await self.run(function)
        except (WorkerUnavailableError, WorkerCrashedError) as exc:
            log.warning("the %s worker failed to start (%s)", self.name, exc)
            return None


@dataclass(frozen=True, slots=True)
class WorkerPools:
    """The pools a bot runs with: boards, the robot's decisions and hints, post-match analysis.
    Created in ``main`` and passed in; :meth:`shutdown` stops these three and no others."""

    render: WorkerPool
    robot: WorkerPool
    analysis: WorkerPool

    @classmethod
    def create(cls) -> WorkerPools:
        """Three new pools (no process starts before its first call)."""
        return cls(
            render=WorkerPool("render"),
            robot=WorkerPool("robot"),
            analysis=WorkerPool("analysis", niceness=ANALYSIS_NICENESS),
        )

    def shutdown(self) -> None:
        """Stop the workers. An analysis under way is ended, not waited for (a game can take a
        minute; the queue runs it again at the next start)."""
        self.render.shutdown()
        self.robot.shutdown()
        self.analysis.shutdown(kill=True)


def _start_worker(niceness: int) -> None:
    """In a new worker: run ``niceness`` below the bot (where the platform has ``nice``), and
    ignore Ctrl-C, which reaches the terminal's whole process group: the bot stops its workers
    itself once the work in flight is done."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)
