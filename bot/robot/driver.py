"""The robot's driver: plays the robot's seat in every robot match, for any transport.

The API (the Discord bot builds one; a terminal or a test can too)::

    driver = RobotDriver(service, worker)  # decide, sleep, rng, spawn, shown, closing: injectable
    driver.start()                    # subscribes to RobotTurnWaiting on service.bus
    ...                               # restarts: service.resume_active() tells it again
    await driver.close()              # drops turns still pausing or thinking, waits the rest

It knows no transport. It hears :class:`~bot.service.RobotTurnWaiting` (published by the
service after every command that leaves a robot match waiting for the robot, for a board asked
for again, and for every match resumed at start-up) and plays in a task of its own, one per
match: it asks the service for the robot's turn (a private copy of the match), has
:func:`bot.robot.player.choose_action` decide in the robot's worker while the server's pause
(``robot_pause_ms``) runs, and sends the decision as the service's command with the version it
thought about. What the robot did reaches the transport as any command's events do
(:class:`~bot.service.MatchUpdated`, ``by_robot``); a failure is told once per position as
:class:`~bot.service.RobotStuck` on the bus.

- A stale version (the human acted meanwhile) is thought about again (up to
  :data:`MAX_RETHINKS` in a row); a turn told while the task runs makes it look again before
  it ends.
- After offering a draw or a resignation the robot offers none of the same for
  :data:`DRAW_REOFFER_ACTIONS` / :data:`RESIGN_REOFFER_ACTIONS` actions (in memory).
- Closing: a turn still pausing or thinking is dropped (nothing applied; the next start plays
  it); one being applied finishes, and its events are published.
- ``shown(match_id, version)``, when given, is the transport's wait until that state is shown
  (Discord: the member's answer comes before the robot's reply); the pause starts after it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.robot import player
from bot.robot.levels import Level
from bot.robot.player import Decision
from bot.robot.worker import RobotCrashedError, RobotUnavailableError, RobotWorker
from bot.service import (
    MatchCommand,
    MatchService,
    OfferResignation,
    PlayMove,
    RobotStuck,
    RobotTurn,
    RobotTurnWaiting,
    StaleActionError,
)
from bot.service.commands import GetRobotTurn, GetSettings, asking
from engines.actions import Move, OfferDraw, Resign, Roll
from engines.base import Phase
from engines.errors import GameError

log = logging.getLogger(__name__)

__all__ = [
    "DRAW_REOFFER_ACTIONS",
    "MAX_RETHINKS",
    "RESIGN_REOFFER_ACTIONS",
    "RobotDriver",
    "RobotStuck",  # the event, defined in bot.service.events
    "command_for",
]

T = TypeVar("T")
Decide = Callable[..., Awaitable[Decision]]
Sleep = Callable[[float], Awaitable[None]]
Spawn = Callable[..., "asyncio.Task[Any] | None"]
Shown = Callable[[int, int], Awaitable[None]]

# After offering a draw or a resignation the robot offers none of the same until the match has
# moved on this many actions (the human declined it, or the match went on).
DRAW_REOFFER_ACTIONS = 20
RESIGN_REOFFER_ACTIONS = 20
# Turns thought about again in a row when the human keeps acting first (a stale version).
MAX_RETHINKS = 5


def command_for(turn: RobotTurn, decision: Decision) -> MatchCommand | None:
    """The robot's decision as the service's command (the one that asks for its engine
    action), on the version it thought about; None when it has nothing to do, or leaves the
    decision to the human (a roll at a tied opening the human may double)."""
    kind = decision.action
    if kind is None:
        return None
    tie = kind is Roll and turn.match.phase is Phase.OPENING_TIE
    if tie and turn.match.can_double(1 - turn.seat):
        return None  # the human may double or roll: their call
    args = (turn.match_id, turn.guild_id, turn.user_id)
    version = turn.version
    if kind is Move:
        assert decision.move is not None
        return PlayMove(*args, decision.move, expected_version=version)
    if kind is Resign:
        assert decision.resign is not None
        return OfferResignation(*args, level=decision.resign, expected_version=version)
    return asking(kind)(*args, expected_version=version)


class RobotDriver:
    """Plays the robot's seat in every robot match of ``service``, thinking on ``worker``.
    ``decide`` (the robot's brain), ``sleep`` (the pause) and ``rng`` (the lower levels' draws)
    are attributes a test may replace; ``spawn(work, name=)`` starts a task the transport waits
    for (default: the driver's own); ``closing`` is set when the transport starts closing."""

    def __init__(
        self,
        service: MatchService,
        worker: RobotWorker,
        *,
        spawn: Spawn | None = None,
        shown: Shown | None = None,
        closing: asyncio.Event | None = None,
    ) -> None:
        self.service = service
        self.decide: Decide = functools.partial(player.choose_action, worker)
        self.sleep: Sleep = asyncio.sleep
        self.rng = random.Random()
        self.closing = closing or asyncio.Event()
        self._spawn = spawn
        self._shown = shown
        self._unsubscribe: Callable[[], None] | None = None
        self._tasks: dict[int, asyncio.Task[Any]] = {}
        self._again: set[int] = set()  # turns told while the match's task was running
        self._draw_offers: dict[int, int] = {}  # match -> the version of its last offer
        self._resign_offers: dict[int, int] = {}  # likewise for resignations
        self._stuck: set[tuple[int, int]] = set()  # (match, version) told

    def start(self) -> None:
        """Hear of the turns that wait for the robot (before the service resumes matches)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.service.bus.subscribe(RobotTurnWaiting, self.turn_waiting)

    async def close(self) -> None:
        """Stop hearing; drop the turns still pausing or thinking; wait for the rest."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.closing.set()
        await self.wait_idle()

    async def wait_idle(self) -> None:
        """Until no robot turn is running."""
        while pending := [t for t in self._tasks.values() if not t.done()]:
            await asyncio.wait(pending)

    # --- the robot's turns ------------------------------------------------------------------

    def turn_waiting(self, event: RobotTurnWaiting) -> None:
        """A match waits for the robot: play its turn, in the match's one task."""
        if self.closing.is_set():
            return
        match_id = event.match_id
        running = self._tasks.get(match_id)
        if running is not None and not running.done():
            self._again.add(match_id)
            return
        work = self._play(match_id)
        name = f"tablebot-robot-{match_id}"
        if self._spawn is None:
            task: asyncio.Task[Any] | None = asyncio.get_running_loop().create_task(work, name=name)
        else:
            task = self._spawn(work, name=name)
        if task is not None:
            self._tasks[match_id] = task
            task.add_done_callback(lambda done: self._forget(match_id, done))

    def _forget(self, match_id: int, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(match_id) is task:
            del self._tasks[match_id]

    async def _play(self, match_id: int) -> None:
        """The robot's turns in the match, one decision after another, until it waits for
        the human (or the match is over)."""
        rethinks = 0
        while True:
            self._again.discard(match_id)
            try:
                acted = await self._turn(match_id)
            except StaleActionError:
                rethinks += 1
                if rethinks <= MAX_RETHINKS:
                    continue  # the human moved first: think again about the new position
                log.warning("match %s: the robot gave up after %d stale turns", match_id, rethinks)
                return
            except Exception:
                log.exception("match %s: the robot's turn failed", match_id)
                return
            if not acted and match_id not in self._again:
                return

    async def _turn(self, match_id: int) -> bool:
        """One decision of the robot, applied; False when there is none to make."""
        service = self.service
        turn = await service.handle(GetRobotTurn(match_id))
        if turn is None:
            return False
        settings = await service.handle(GetSettings(turn.guild_id))
        offered = self._draw_offers.get(match_id)
        may_offer = offered is None or turn.version - offered >= DRAW_REOFFER_ACTIONS
        resigned = self._resign_offers.get(match_id)
        may_resign = resigned is None or turn.version - resigned >= RESIGN_REOFFER_ACTIONS
        options = {
            "offer_draw": may_offer,
            "offer_resignation": may_resign,
            "think_s": settings.robot_think_s,
        }
        try:
            decision = await self._unless_closing(
                self._think(turn, settings.robot_pause_ms, options)
            )
        except (RobotUnavailableError, RobotCrashedError) as exc:
            log.warning("match %s: the robot could not decide: %s", match_id, exc)
            await self._report(turn)
            return False
        except Exception:
            log.exception("match %s: the robot's engine failed", match_id)
            await self._report(turn)
            return False
        if decision is None:
            return False  # closing: nothing was done, the next start plays this turn
        command = command_for(turn, decision)
        if command is None:
            return False
        try:
            update = await service.handle(command)
        except StaleActionError:
            raise  # the human acted meanwhile: think again
        except GameError:
            log.exception("match %s: the robot's %s was refused", match_id, decision)
            await self._report(turn)
            return False
        if decision.action is OfferDraw:
            self._draw_offers[match_id] = update.version
        elif decision.action is Resign:
            self._resign_offers[match_id] = update.version
        log.debug("match %s: the robot %s at version %s", match_id, command, turn.version)
        return True

    async def _think(self, turn: RobotTurn, pause_ms: int, options: dict[str, Any]) -> Decision:
        """Once the transport shows the state the robot answers, decide during the server's
        pause: the decision is sent once both are done."""
        if self._shown is not None:
            await self._shown(turn.match_id, turn.version)
        think = self.decide(turn.match, turn.seat, Level(turn.level), self.rng, **options)
        if pause_ms <= 0:
            return await think
        decision, _ = await asyncio.gather(think, self.sleep(pause_ms / 1000))
        return decision

    async def _unless_closing(self, work: Awaitable[T]) -> T | None:
        """``work``'s result, or None if closing starts first (``work`` is dropped)."""
        task = asyncio.ensure_future(work)
        closing = asyncio.ensure_future(self.closing.wait())
        try:
            await asyncio.wait({task, closing}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closing.cancel()
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return None

    async def _report(self, turn: RobotTurn) -> None:
        """Tell once per position that the robot is stuck (the log has why)."""
        key = (turn.match_id, turn.version)
        if key in self._stuck:
            return
        self._stuck.add(key)
        stuck = RobotStuck(turn.match_id, turn.guild_id, turn.version)
        await self.service.bus.publish([stuck], key=turn.match_id)
