"""The robot's seat in a terminal match: a thin stand-in for the transport-agnostic robot driver.

Until the service's event bus and its robot driver land, this plays the robot as the Discord
robot cog does (``bot/discord/cogs/robot.py``), without Discord: ask the service for the
robot's turn (:meth:`MatchService.robot_turn`), let :func:`bot.robot.player.choose_action`
decide in the robot's worker, send the decision as the service's command with the version it
thought about, and hand each update to the terminal to show. A stale version (the match moved
meanwhile) is thought about again. Nothing else in the adapter knows how the robot plays: the
terminal calls :meth:`RobotSeat.play` after each of the human's actions, so swapping this module
for the shared driver changes no other file of the adapter.

The robot offers a draw or a resignation at most once per :data:`REOFFER_ACTIONS` actions, as
in Discord.
"""

from __future__ import annotations

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
    MatchUpdate,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RobotTurn,
    RollDice,
    StaleActionError,
    TakeDouble,
)
from engines.base import Phase
from engines.errors import GameError

log = logging.getLogger(__name__)

Decide = Callable[..., Awaitable[Decision]]
Show = Callable[[MatchUpdate], Awaitable[None]]

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
    """Plays the robot's decisions in a match until it waits for the human."""

    def __init__(
        self,
        service: MatchService,
        *,
        decide: Decide = player.choose_action,
        rng: random.Random | None = None,
    ) -> None:
        self.service = service
        self.decide = decide
        self.rng = rng if rng is not None else random.Random()
        self._offers: dict[tuple[int, Choice], int] = {}  # (match, offer) -> its version

    async def play(self, match_id: int, show: Show) -> None:
        """Every decision the robot has in the match now, each applied and shown; returns once
        the match waits for the human (or is over). :class:`RobotFailed` when it can't decide."""
        rethinks = 0
        while True:
            try:
                if not await self._turn(match_id, show):
                    return
            except StaleActionError:
                rethinks += 1
                if rethinks > MAX_RETHINKS:
                    raise RobotFailed("the match kept changing") from None

    def _may_offer(self, turn: RobotTurn, choice: Choice) -> bool:
        last = self._offers.get((turn.match_id, choice))
        return last is None or turn.version - last >= REOFFER_ACTIONS

    async def _turn(self, match_id: int, show: Show) -> bool:
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
            update = await self.service.act(command)
        except StaleActionError:
            raise  # the human acted meanwhile: think again
        except GameError as exc:
            log.warning("match %s: the robot's %s was refused: %s", match_id, decision, exc)
            raise RobotFailed(str(exc)) from exc
        if decision.choice in (Choice.OFFER_DRAW, Choice.OFFER_RESIGNATION):
            self._offers[(match_id, decision.choice)] = update.version
        await show(update)
        return True
