"""The robot's seat in a terminal match: a thin stand-in for the shared robot driver.

Until the transport-agnostic driver (``bot.robot.driver``) lands, this plays the robot as that
one will, with its surface (``start``, ``wait_idle``, ``close``): it hears
:class:`~bot.service.RobotTurnWaiting` on the service's bus, asks the service for the robot's
turn (:meth:`MatchService.robot_turn`), lets :func:`bot.robot.player.choose_action` decide in the
robot's worker, and sends the decision with :meth:`MatchService.handle` on the version it
thought about; what the robot did reaches the terminal as any command's events do. A stale
version (the match moved meanwhile) is thought about again. It plays at once (no pause), one
match at a time, and calls ``stuck(match_id)`` when it can't decide. Nothing else in the
adapter knows how the robot plays, so the shared driver replaces this module alone.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from bot.robot import player
from bot.robot.levels import Level
from bot.robot.player import Choice, Decision
from bot.service import (
    AcceptDraw,
    AcceptResignation,
    DeclineDraw,
    DeclineResignation,
    MatchCommand,
    MatchService,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RobotTurn,
    RobotTurnWaiting,
    RollDice,
    StaleActionError,
    TakeDouble,
)
from engines.base import Phase
from engines.errors import GameError

log = logging.getLogger(__name__)

Decide = Callable[..., Awaitable[Decision]]

COMMANDS: dict[Choice, type[MatchCommand]] = {
    Choice.ROLL: RollDice,
    Choice.DOUBLE: OfferDouble,
    Choice.TAKE: TakeDouble,
    Choice.PASS: PassDouble,
    Choice.ACCEPT_RESIGNATION: AcceptResignation,
    Choice.DECLINE_RESIGNATION: DeclineResignation,
    Choice.ACCEPT_DRAW: AcceptDraw,
    Choice.DECLINE_DRAW: DeclineDraw,
    Choice.OFFER_DRAW: OfferDraw,
}
REOFFER_ACTIONS = 20
MAX_RETHINKS = 5


class RobotFailed(Exception):
    """The robot could not decide (its engine failed or is not available here): the match
    waits; playing again later may work."""


def command_for(turn: RobotTurn, decision: Decision) -> MatchCommand | None:
    """The service's command for the robot's decision; None when it leaves the decision to the
    human (a roll at a tied opening the human may double)."""
    args = (turn.match_id, turn.guild_id, turn.user_id)
    if decision.choice is Choice.MOVE:
        assert decision.move is not None
        return PlayMove(*args, decision.move, expected_version=turn.version)
    tie = decision.choice is Choice.ROLL and turn.match.phase is Phase.OPENING_TIE
    if tie and turn.match.can_double(1 - turn.seat):
        return None
    if decision.choice is Choice.OFFER_RESIGNATION:
        assert decision.resign is not None
        return OfferResignation(*args, level=decision.resign, expected_version=turn.version)
    make = COMMANDS.get(decision.choice)
    return None if make is None else make(*args, expected_version=turn.version)


class RobotSeat:
    """Plays the robot's seat when the bus says a match waits for it."""

    def __init__(
        self,
        service: MatchService,
        *,
        decide: Decide = player.choose_action,
        rng: random.Random | None = None,
        stuck: Callable[[int], None] = lambda match_id: None,
    ) -> None:
        self.service = service
        self.decide = decide
        self.rng = rng if rng is not None else random.Random()
        self.stuck = stuck
        self._offers: dict[tuple[int, Choice], int] = {}  # (match, offer) -> its version
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        if self._unsubscribe is None:
            self._unsubscribe = self.service.bus.subscribe(RobotTurnWaiting, self.turn_waiting)

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self.wait_idle()

    async def wait_idle(self) -> None:
        """Until the robot has played what it had to (its events are told by then)."""
        while pending := {t for t in self._tasks if not t.done()}:
            await asyncio.wait(pending)

    def turn_waiting(self, event: RobotTurnWaiting) -> None:
        task = asyncio.get_running_loop().create_task(self.play(event.match_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def play(self, match_id: int) -> None:
        """Every decision the robot has in the match now; ``stuck`` when it can't decide."""
        rethinks = 0
        while True:
            try:
                if not await self._turn(match_id):
                    return
            except StaleActionError:
                rethinks += 1
                if rethinks > MAX_RETHINKS:
                    self.stuck(match_id)
                    return
            except RobotFailed:
                self.stuck(match_id)
                return

    def _may_offer(self, turn: RobotTurn, choice: Choice) -> bool:
        last = self._offers.get((turn.match_id, choice))
        return last is None or turn.version - last >= REOFFER_ACTIONS

    async def _turn(self, match_id: int) -> bool:
        turn = await self.service.robot_turn(match_id)
        if turn is None:
            return False
        try:
            decision = await self.decide(
                turn.match,
                turn.seat,
                Level(turn.level),
                self.rng,
                offer_draw=self._may_offer(turn, Choice.OFFER_DRAW),
                offer_resignation=self._may_offer(turn, Choice.OFFER_RESIGNATION),
            )
        except Exception as exc:
            log.warning("match %s: the robot could not decide", match_id, exc_info=True)
            raise RobotFailed(str(exc)) from exc
        command = command_for(turn, decision)
        if command is None:
            return False
        try:
            update = await self.service.handle(command)
        except StaleActionError:
            raise  # the human acted meanwhile: think again
        except GameError as exc:
            log.warning("match %s: the robot's %s was refused: %s", match_id, decision, exc)
            raise RobotFailed(str(exc)) from exc
        if decision.choice in (Choice.OFFER_DRAW, Choice.OFFER_RESIGNATION):
            self._offers[(match_id, decision.choice)] = update.version
        return True
