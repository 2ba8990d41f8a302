"""The match actions' table: each :class:`~bot.service.commands.MatchCommand` type maps to the
function that decides its engine action (:data:`MATCH_ACTIONS`; the service's one command table,
:data:`bot.service.dispatch.HANDLERS`, runs them through the action pipeline).

A handler checks the command's own arguments (before the match is looked at) and returns its
decide function. The pipeline (:mod:`bot.service.actions`) calls that with the match's lock held,
and it picks the engine action for the acting seat, or refuses
(:class:`~bot.service.errors.Refused`). Adding a match action is one dataclass and one handler
here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.service.commands import (
    AcceptDraw,
    AcceptResignation,
    ClaimWin,
    DeclineDraw,
    DeclineResignation,
    LeaveMatch,
    MatchCommand,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RollDice,
    TakeDouble,
)
from bot.service.errors import Refusal, refused
from bot.service.model import MatchAwareDice
from bot.service.settings import GuildSettings
from bot.service.state import LiveMatch
from bot.service.views import legal
from engines import actions as engine
from engines.base import Phase, ResignLevel

__all__ = ["MATCH_ACTIONS", "Decide", "Handler", "Turn"]

MAX_MOVE_TEXT = 200


@dataclass(frozen=True)
class Turn:
    """What a decide function sees: the loaded match, the acting seat, the server's settings
    and the time."""

    live: LiveMatch
    seat: int
    settings: GuildSettings
    now: float


Decide = Callable[[Turn], engine.Action]
Handler = Callable[[Any], Decide]


def die(live: LiveMatch) -> int:
    """One die, for the state ``live.match`` is in (:class:`MatchAwareDice` are shown it)."""
    dice = live.dice
    if isinstance(dice, MatchAwareDice):
        return dice.roll_die_for(live.match)
    return dice.roll_die()


def draw(live: LiveMatch) -> tuple[int, ...]:
    return tuple(die(live) for _ in range(live.match.spec.dice_count))


def refuse_offers(live: LiveMatch, seat: int) -> None:
    """Refuse while an offer waits for an answer (whose, and what to do, in the refusal)."""
    match = live.match
    phase = match.phase
    if phase is Phase.CUBE_OFFERED:
        if match.cube_offered_by == seat:
            other = live.name(1 - seat)
            raise refused(Refusal.WAITING_FOR_TAKE, name=other)
        raise refused(Refusal.DOUBLED)
    if phase is Phase.RESIGN_OFFERED:
        assert match.resign_offer is not None  # the phase says an offer waits
        resigner = match.resign_offer[0]
        if resigner == seat:
            other = live.name(1 - seat)
            raise refused(Refusal.WAITING_FOR_RESIGN_ANSWER, name=other)
        raise refused(Refusal.ANSWER_RESIGNATION, name=live.name(resigner))
    if phase is Phase.DRAW_OFFERED:
        offerer = match.draw_offered_by
        assert offerer is not None  # the phase says an offer waits
        if offerer == seat:
            other = live.name(1 - seat)
            raise refused(Refusal.WAITING_FOR_DRAW_ANSWER, name=other)
        raise refused(Refusal.ANSWER_DRAW, name=live.name(offerer))


def roll(command: RollDice) -> Decide:
    def decide(turn: Turn) -> engine.Action:
        live, seat = turn.live, turn.seat
        match = live.match
        if not match.spec.has_dice:
            raise refused(Refusal.NO_DICE_IN_CHECKERS)
        phase = match.phase
        if phase in (Phase.OPENING, Phase.OPENING_TIE):
            return engine.OpeningRoll(seat, (die(live), die(live)))
        refuse_offers(live, seat)
        if seat != match.turn:
            raise refused(Refusal.NOT_YOUR_TURN, name=live.name(match.turn))
        if phase is Phase.MOVE:
            raise refused(Refusal.ALREADY_ROLLED)
        return engine.Roll(seat, draw(live))

    return decide


def play_move(command: PlayMove) -> Decide:
    move = command.move

    def decide(turn: Turn) -> engine.Action:
        live, seat = turn.live, turn.seat
        match = live.match
        refuse_offers(live, seat)
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            raise refused(Refusal.OPENING_ROLL_FIRST)
        if seat != match.turn:
            raise refused(Refusal.NOT_YOUR_TURN, name=live.name(match.turn))
        if match.phase is Phase.ROLL:
            raise refused(Refusal.ROLL_FIRST)
        text = move if isinstance(move, str) else match.format_move(move)
        text = text.strip()
        if not text:
            raise refused(Refusal.EMPTY_MOVE)
        if len(text) > MAX_MOVE_TEXT:
            raise refused(Refusal.MOVE_TOO_LONG)
        if match.phase is Phase.MOVE and text in legal(live):
            return engine.Move(seat, text)  # a move from the list, already in its notation
        parsed = match.parse_move(text)
        return engine.Move(seat, match.format_move(parsed))

    return decide


def offer_double(command: OfferDouble) -> Decide:
    def decide(turn: Turn) -> engine.Action:
        live, seat = turn.live, turn.seat
        match = live.match
        if not match.spec.cube:
            raise refused(Refusal.CHECKERS_NO_CUBE)
        refuse_offers(live, seat)
        if match.phase in (Phase.ROLL, Phase.MOVE) and seat != match.turn:
            raise refused(Refusal.NOT_YOUR_TURN, name=live.name(match.turn))
        return engine.Double(seat)

    return decide


def _answer_double(answer: type[engine.Take] | type[engine.Drop]) -> Decide:
    def decide(turn: Turn) -> engine.Action:
        live, seat = turn.live, turn.seat
        offered_by = live.match.cube_offered_by
        if live.match.phase is Phase.CUBE_OFFERED and offered_by == seat:
            other = live.name(1 - seat)
            raise refused(Refusal.OWN_DOUBLE, name=other)
        return answer(seat)

    return decide


def take_double(command: TakeDouble) -> Decide:
    return _answer_double(engine.Take)


def pass_double(command: PassDouble) -> Decide:
    """Pass (drop) the offered double: the game is lost at the stake before the double."""
    return _answer_double(engine.Drop)


def _resign_level(level: ResignLevel | str | int) -> ResignLevel:
    if isinstance(level, ResignLevel):
        return level
    try:
        if isinstance(level, int):
            return ResignLevel(level)
        return ResignLevel[str(level).strip().upper()]
    except (KeyError, ValueError):
        raise refused(Refusal.BAD_RESIGN_LEVEL, value=level) from None


def offer_resignation(command: OfferResignation) -> Decide:
    level = _resign_level(command.level)  # refused before the match is looked at
    return lambda turn: engine.Resign(turn.seat, level)


def accept_resignation(command: AcceptResignation) -> Decide:
    return lambda turn: engine.AcceptResign(turn.seat)


def decline_resignation(command: DeclineResignation) -> Decide:
    return lambda turn: engine.DeclineResign(turn.seat)


def offer_draw(command: OfferDraw) -> Decide:
    def decide(turn: Turn) -> engine.Action:
        if turn.live.match.phase is not Phase.MOVE:
            # An offer waiting (the player's own, or one to answer) says so plainly.
            refuse_offers(turn.live, turn.seat)
        return engine.OfferDraw(turn.seat)

    return decide


def accept_draw(command: AcceptDraw) -> Decide:
    return lambda turn: engine.AcceptDraw(turn.seat)


def decline_draw(command: DeclineDraw) -> Decide:
    return lambda turn: engine.DeclineDraw(turn.seat)


def leave_match(command: LeaveMatch) -> Decide:
    return lambda turn: engine.ConcedeMatch(turn.seat, "left")


def claim_win(command: ClaimWin) -> Decide:
    def decide(turn: Turn) -> engine.Action:
        live, seat, settings = turn.live, turn.seat, turn.settings
        idle_seat = live.match.actor
        if idle_seat is None:
            raise refused(Refusal.NOBODY_TO_CLAIM)
        if idle_seat == seat:
            raise refused(Refusal.CLAIM_OWN_WAIT)
        waited = turn.now - live.record.last_action_at
        needed = settings.claim_minutes * 60
        if waited < needed:
            left = max(1, math.ceil((needed - waited) / 60))
            raise refused(
                Refusal.CLAIM_TOO_EARLY,
                name=live.name(idle_seat),
                minutes=settings.claim_minutes,
                left=left,
            )
        return engine.ConcedeMatch(idle_seat, "timeout")

    return decide


MATCH_ACTIONS: dict[type[MatchCommand], Handler] = {
    RollDice: roll,
    PlayMove: play_move,
    OfferDouble: offer_double,
    TakeDouble: take_double,
    PassDouble: pass_double,
    OfferResignation: offer_resignation,
    AcceptResignation: accept_resignation,
    DeclineResignation: decline_resignation,
    OfferDraw: offer_draw,
    AcceptDraw: accept_draw,
    DeclineDraw: decline_draw,
    LeaveMatch: leave_match,
    ClaimWin: claim_win,
}
