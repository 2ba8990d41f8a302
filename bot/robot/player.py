"""The robot's next decision in a match: ``await choose_action(match, seat, level, rng)``.

The game driver calls it whenever the robot's seat has something to decide and acts on the
:class:`Decision` through the service's commands (``ROLL`` -> ``RollDice``, ``DOUBLE`` ->
``OfferDouble``, ``MOVE`` -> ``PlayMove(decision.move)``, ``TAKE``/``PASS`` ->
``TakeDouble``/``PassDouble``, the resignation and draw answers likewise). The match is only
read, never changed.

- Backgammon asks GNU Backgammon in the robot's worker at the level's preset
  (:data:`bot.robot.levels.BACKGAMMON_LEVELS`): the best play as that level sees it (the lower
  levels' mistakes come from gnubg's own noise, the same for the same position), a double when
  its cube analysis says double, take or pass, and a resignation accepted when it gives at least
  what playing on is worth. :class:`~bot.robot.worker.RobotUnavailableError` where gnubg does
  not run (the driver tells the player that backgammon against the robot is not available on
  this platform).
- Nannon asks the exact solver in the worker, and the level picks from its exact equities with
  ``rng`` (:func:`engines.nannon_solver.choose_move` and the others; master always the best).
- Checkers asks the alpha-beta search (:mod:`engines.checkers_search`) in the worker: its
  move at the level's depth, budget and noise (drawn with ``rng``), a draw offer in a settled,
  level position (only when ``offer_draw``: the driver says no right after an offer of its
  own), and its answer to the opponent's draw offer.

A forced move (one legal move, or ``no move``) is played without asking anyone.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.robot import jobs, worker
from bot.robot.gnubg_brain import CannotDoubleError
from bot.robot.levels import Level
from engines import spec
from engines.base import GameMatch, Phase
from engines.checkers import CheckersMatch
from engines.gnubg import match_id_of
from engines.match import DiceMatch
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import (
    Context,
    CubeDecision,
    CubeState,
    InvalidContextError,
    MatchScore,
    TakeDecision,
    choose_cube,
    choose_move,
    choose_take,
)

__all__ = [
    "Choice",
    "Decision",
    "available",
    "checkers_history",
    "choose_action",
    "doubled_on_a_tie",
    "nannon_context",
]


class Choice(enum.StrEnum):
    """What the robot does."""

    ROLL = "roll"  # roll the dice (an opening roll, or a turn without doubling)
    DOUBLE = "double"
    MOVE = "move"  # play Decision.move
    TAKE = "take"
    PASS = "pass"
    ACCEPT_RESIGNATION = "accept resignation"
    DECLINE_RESIGNATION = "decline resignation"
    ACCEPT_DRAW = "accept draw"
    DECLINE_DRAW = "decline draw"
    OFFER_DRAW = "offer draw"  # checkers, on the robot's move (it moves after the answer)
    WAIT = "wait"  # nothing for this seat to decide now


@dataclass(frozen=True, slots=True)
class Decision:
    """The robot's decision; ``move`` is the move in the game's notation (``24/18 13/11``,
    ``H/3``, ``11-15``, ``no move``) when ``choice`` is MOVE. ``equity`` is the robot's own
    estimate of the option it chose, from its side, when it asked an engine (None for forced
    moves and rolls without a cube decision)."""

    choice: Choice
    move: str | None = None
    equity: float | None = None


WAIT = Decision(Choice.WAIT)

Player = Callable[[GameMatch, int, Level, random.Random, bool], Awaitable[Decision]]


async def choose_action(
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    *,
    offer_draw: bool = True,
) -> Decision:
    """What the robot in ``seat`` does now in ``match`` at ``level``; ``rng`` draws the lower
    levels' choices where the game's engine leaves them to chance (Nannon, checkers). ``WAIT``
    when the seat has nothing to decide (the opponent is to act, or the match is over).
    ``offer_draw`` False: no draw offer now (checkers), only a move."""
    if seat not in (0, 1):
        raise ValueError(f"a seat is 0 or 1, not {seat!r}")
    phase = match.phase
    if phase is Phase.MATCH_OVER:
        return WAIT
    if phase is Phase.OPENING:
        return Decision(Choice.ROLL)
    if phase is not Phase.OPENING_TIE and match.actor != seat:
        return WAIT
    return await _PLAYERS[match.spec](match, seat, Level(level), rng, offer_draw)


# -- forced moves --------------------------------------------------------------------------------


def _forced(match: GameMatch) -> Decision | None:
    """The only legal move, if there is just one (``no move`` included)."""
    legal = match.legal_moves()
    if len(legal) == 1:
        return Decision(Choice.MOVE, legal.notation[0])
    return None


# -- backgammon ----------------------------------------------------------------------------------


async def _backgammon(
    match: GameMatch, seat: int, level: Level, rng: random.Random, offer_draw: bool
) -> Decision:
    assert isinstance(match, DiceMatch)
    phase = match.phase
    position_id = match.position_id
    if phase is Phase.ROLL:
        if not match.can_double(seat):
            return Decision(Choice.ROLL)
        try:
            cube = await worker.cube_decision(position_id, match_id_of(match), level)
        except CannotDoubleError:  # a dead cube: a win at its value already takes the match
            return Decision(Choice.ROLL)
        if cube.double:
            return Decision(Choice.DOUBLE, equity=min(cube.double_take, cube.double_pass))
        return Decision(Choice.ROLL, equity=cube.no_double)
    if phase is Phase.MOVE:
        forced = _forced(match)
        if forced is not None:
            return forced
        ranked = await worker.rank_plays(position_id, match_id_of(match), level)
        play, _, equity = ranked[0]
        return Decision(Choice.MOVE, play, equity)
    if phase is Phase.CUBE_OFFERED:
        # The doubler is on turn: the position and Match ID are the doubler's.
        try:
            answer = await worker.take_decision(position_id, match_id_of(match), level)
        except CannotDoubleError:  # a dead cube for the doubler: taking costs nothing more
            return Decision(Choice.TAKE)
        if answer.take:
            return Decision(Choice.TAKE, equity=answer.take_equity)
        return Decision(Choice.PASS, equity=answer.pass_equity)
    if phase is Phase.RESIGN_OFFERED:
        accept, value, play_on = await worker.resign_decision(
            position_id, match_id_of(match), level
        )
        if accept:
            return Decision(Choice.ACCEPT_RESIGNATION, equity=value)
        return Decision(Choice.DECLINE_RESIGNATION, equity=play_on)
    return WAIT


# -- Nannon --------------------------------------------------------------------------------------


def nannon_context(match: GameMatch, seat: int) -> Context:
    """The solver's context for ``seat``. A match without the cube or the Crawford rule is
    played as if it had them (the robot then never doubles: the rules don't let it)."""
    try:
        return Context.of_match(match, seat)
    except InvalidContextError:
        length = match.rules.length
        score = match.score
        return Context.match(length - int(score[seat]), length - int(score[1 - seat]), CubeState())


async def _won_equity(context: Context, points: int) -> float:
    """The equity (``2 * MWC - 1``) of winning ``points`` now, for the side of ``context``."""
    score = context.score
    assert score is not None
    left, theirs = score.away_me - points, score.away_them
    if left <= 0:
        return 1.0
    # The Crawford game follows the game in which a side first reaches 1 away.
    crawford = not score.crawford and min(score.away_me, theirs) > 1 and left == 1
    return 2.0 * await worker.nannon_match_equity(MatchScore(left, theirs, crawford)) - 1.0


async def _nannon(
    match: GameMatch, seat: int, level: Level, rng: random.Random, offer_draw: bool
) -> Decision:
    phase = match.phase
    context = nannon_context(match, seat)
    position_id = match.position_id
    if phase is Phase.OPENING_TIE:
        if not match.can_double(seat):
            return Decision(Choice.ROLL)
        cube = await worker.nannon_opening_cube_action(context)
        return _cube_choice(cube, choose_cube(cube, level, rng))
    if phase is Phase.ROLL:
        if not match.can_double(seat):
            return Decision(Choice.ROLL)
        cube = await worker.nannon_cube_action(position_id, context)
        return _cube_choice(cube, choose_cube(cube, level, rng))
    if phase is Phase.MOVE:
        forced = _forced(match)
        if forced is not None:
            return forced
        assert match.dice is not None
        ranked = await worker.nannon_rank_moves(position_id, match.dice[0], context)
        chosen = choose_move(ranked, level, rng)
        return Decision(Choice.MOVE, str(chosen.move), chosen.equity)
    if phase is Phase.CUBE_OFFERED:
        doubler = 1 - seat
        doubler_context = nannon_context(match, doubler)
        if doubled_on_a_tie(match):  # judged at the opening roll, not with the doubler on roll
            tie = await worker.nannon_opening_cube_action(doubler_context)
            answer = TakeDecision(tie.take, -tie.double_take, -tie.double_pass)
        else:
            answer = await worker.nannon_take_decision(position_id, doubler_context)
        if choose_take(answer, level, rng):
            return Decision(Choice.TAKE, equity=answer.take_equity)
        return Decision(Choice.PASS, equity=answer.pass_equity)
    if phase is Phase.RESIGN_OFFERED:
        return await _nannon_resignation(match, seat, context)
    return WAIT


def doubled_on_a_tie(match: GameMatch) -> bool:
    """Whether the double waiting for an answer came after a tied opening roll: the game's
    latest opening roll is a tie (a game starts only after one that is not)."""
    dice = match.opening_dice
    return dice is not None and dice[0] == dice[1]


def _cube_choice(cube: CubeDecision, double: bool) -> Decision:
    if double:
        return Decision(Choice.DOUBLE, equity=min(cube.double_take, cube.double_pass))
    return Decision(Choice.ROLL, equity=cube.no_double)


async def _nannon_resignation(match: GameMatch, seat: int, context: Context) -> Decision:
    """Accept when the resignation gives at least what playing on is worth."""
    assert match.resign_offer is not None and match.cube is not None
    _, resign_level = match.resign_offer
    value = await _won_equity(context, int(resign_level) * match.cube.value)
    on_turn = match.turn
    turn_context = context if on_turn == seat else nannon_context(match, on_turn)
    if match.dice:  # rolled: the best move's equity for the side on turn
        ranked = await worker.nannon_rank_moves(match.position_id, match.dice[0], turn_context)
        if ranked:
            equity = ranked[0].equity
        else:  # the roll can't be played: the opponent is on roll next
            passed = NannonPosition.from_id(match.position_id).pass_turn().id
            equity = -await worker.nannon_equity(passed, turn_context.flipped())
    else:
        equity = await worker.nannon_equity(match.position_id, turn_context)
    play_on = equity if on_turn == seat else -equity
    if value >= play_on:
        return Decision(Choice.ACCEPT_RESIGNATION, equity=value)
    return Decision(Choice.DECLINE_RESIGNATION, equity=play_on)


# -- checkers ------------------------------------------------------------------------------------


async def _checkers(
    match: GameMatch, seat: int, level: Level, rng: random.Random, offer_draw: bool
) -> Decision:
    assert isinstance(match, CheckersMatch)
    fen = match.board.fen
    history = checkers_history(match)
    if match.phase is Phase.DRAW_OFFERED:
        colour = match.color_of(seat).name.lower()
        if await worker.run(jobs.checkers_accept_draw, fen, history, colour, int(level)):
            return Decision(Choice.ACCEPT_DRAW)
        return Decision(Choice.DECLINE_DRAW)
    if match.phase is not Phase.MOVE:
        return WAIT
    forced = _forced(match)
    if forced is not None:
        return forced
    seed = rng.getrandbits(64)
    move = await worker.run(jobs.checkers_move, fen, history, int(level), seed, offer_draw)
    if move is None:
        return Decision(Choice.OFFER_DRAW)
    return Decision(Choice.MOVE, move)


def checkers_history(match: CheckersMatch) -> list[str]:
    """The game's positions since the last capture or man move (FENs, oldest first): the search
    scores repetitions and the 40-move rule from them."""
    return [board.fen for board in match.game.reversible_positions]


async def _always() -> bool:
    return True


# What the robot needs to play each game here, asked when a match against it starts.
_AVAILABLE: dict[spec.GameSpec, Callable[[], Awaitable[bool]]] = {
    spec.BACKGAMMON: lambda: worker.gnubg_available(),  # looked up when asked
    spec.NANNON: _always,
    spec.CHECKERS: _always,
}


async def available(game: spec.GameSpec) -> bool:
    """Whether the robot plays ``game`` on this platform: backgammon needs GNU Backgammon's
    wheel (:func:`bot.robot.worker.gnubg_available`); Nannon and checkers run anywhere."""
    return await _AVAILABLE[game]()


_PLAYERS: dict[spec.GameSpec, Player] = {
    spec.BACKGAMMON: _backgammon,
    spec.NANNON: _nannon,
    spec.CHECKERS: _checkers,
}
