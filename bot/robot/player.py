"""The robot's next decision in a match: ``await choose_action(worker, match, seat, level, rng)``
(``worker``: the bot's :class:`~bot.robot.worker.RobotWorker`).

The game driver calls it whenever the robot's seat has something to decide and acts on the
:class:`Decision` through the service's commands (``ROLL`` -> ``RollDice``, ``DOUBLE`` ->
``OfferDouble``, ``MOVE`` -> ``PlayMove(decision.move)``, ``TAKE``/``PASS`` ->
``TakeDouble``/``PassDouble``, the resignation and draw answers likewise). The match is only
read, never changed.

- Backgammon asks GNU Backgammon in the robot's worker at the level's preset
  (:data:`bot.robot.levels.BACKGAMMON_LEVELS`): the best play as that level sees it (the lower
  levels' mistakes come from gnubg's own noise, the same for the same position), a double when
  its cube analysis says double, take or pass, and a resignation accepted when it gives at least
  what playing on is worth; in a race it can no longer win, it resigns at the level it is sure
  to lose (gnubg's cubeless chances: see :func:`bot.robot.gnubg_brain.sure_loss`).
  :class:`~bot.robot.worker.RobotUnavailableError` where gnubg does
  not run (the driver tells the player that backgammon against the robot is not available on
  this platform).
- Nannon asks the exact solver in the worker, and the level picks from its exact equities with
  ``rng`` (:func:`engines.nannon_solver.choose_move` and the others; master always the best).
  On roll, in a race, it resigns when the exact solver gives it no chance to win and its exact
  equity is what losing at a resignation level is worth (the game is decided).
- Checkers asks the alpha-beta search (:mod:`engines.checkers_search`) in the worker: its
  move at the level's depth, budget and noise (drawn with ``rng``), a draw offer in a settled,
  level position (only when ``offer_draw``: the driver says no right after an offer of its
  own), its answer to the opponent's draw offer, and a resignation of a hopeless game
  (:func:`engines.checkers_search.should_resign`).

A resignation is offered only when ``offer_resignation`` (the driver says no for a while after
the human declined one), always at the cheapest level worth the same to the opponent.

A forced move (one legal move, or ``no move``) is played without asking anyone.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.robot import gnubg_brain, jobs
from bot.robot.gnubg_brain import CannotDoubleError
from bot.robot.levels import Level
from bot.robot.worker import RobotWorker
from engines import checkers_search, spec
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    Resign,
    Roll,
    Take,
)
from engines.backgammon import Position
from engines.base import GameMatch, Phase, ResignLevel
from engines.checkers import Board, CheckersMatch
from engines.gnubg import match_id_of
from engines.match import DiceMatch
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import (
    Context,
    CubeDecision,
    choose_cube,
    choose_move,
    choose_take,
)

__all__ = [
    "Decision",
    "available",
    "checkers_history",
    "choose_action",
    "doubled_on_a_tie",
    "nannon_context",
]


@dataclass(frozen=True, slots=True)
class Decision:
    """The robot's decision: ``action`` is the kind of engine action it takes
    (:mod:`engines.actions`: ``Roll`` for an opening roll or a turn without doubling,
    ``Double``, ``Move``, ``Take``, ``Drop``, ``AcceptResign``/``DeclineResign``,
    ``AcceptDraw``/``DeclineDraw``, ``OfferDraw`` in checkers on its move, ``Resign`` at
    ``resign``), None when the seat has nothing to decide now. ``move`` is the move in the
    game's notation (``24/18 13/11``, ``H/3``, ``11-15``, ``no move``) for a ``Move``.
    ``equity`` is the robot's own estimate of the option it chose, from its side, when it asked
    an engine (None for forced moves and rolls without a cube decision)."""

    action: type[Action] | None
    move: str | None = None
    equity: float | None = None
    resign: ResignLevel | None = None


WAIT = Decision(None)


@dataclass(frozen=True, slots=True)
class Offers:
    """What the robot may offer now: a draw (checkers), a resignation; and how long master
    may think about it (seconds, None: the level's default)."""

    draw: bool = True
    resignation: bool = True
    think_s: float | None = None


Player = Callable[[RobotWorker, GameMatch, int, Level, random.Random, Offers], Awaitable[Decision]]


async def choose_action(
    worker: RobotWorker,
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    *,
    offer_draw: bool = True,
    offer_resignation: bool = True,
    think_s: float | None = None,
) -> Decision:
    """What the robot in ``seat`` does now in ``match`` at ``level``; ``rng`` draws the lower
    levels' choices where the game's engine leaves them to chance (Nannon, checkers). ``WAIT``
    when the seat has nothing to decide (the opponent is to act, or the match is over).
    ``offer_draw`` False: no draw offer now (checkers), only a move; ``offer_resignation``
    False: no resignation now. ``think_s``: master's thinking time a checkers move (the
    server's ``robot_think_s``; None: the level's default), resignation and draw checks
    included."""
    if seat not in (0, 1):
        raise ValueError(f"a seat is 0 or 1, not {seat!r}")
    phase = match.phase
    if phase is Phase.MATCH_OVER:
        return WAIT
    if phase is Phase.OPENING:
        return Decision(Roll)
    if phase is not Phase.OPENING_TIE and match.actor != seat:
        return WAIT
    offers = Offers(offer_draw, offer_resignation, think_s)
    return await _PLAYERS[match.spec](worker, match, seat, Level(level), rng, offers)


# -- forced moves --------------------------------------------------------------------------------


def _forced(match: GameMatch) -> Decision | None:
    """The only legal move, if there is just one (``no move`` included)."""
    legal = match.legal_moves()
    if len(legal) == 1:
        return Decision(Move, legal.notation[0])
    return None


# -- backgammon ----------------------------------------------------------------------------------


async def _backgammon(
    worker: RobotWorker,
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    offers: Offers,
) -> Decision:
    assert isinstance(match, DiceMatch)
    phase = match.phase
    position_id = match.position_id
    # A decided game is resigned on roll, or at the move when the service rolled (a dead cube).
    if (
        phase in (Phase.ROLL, Phase.MOVE)
        and offers.resignation
        and not gnubg_brain.has_contact(Position.from_id(position_id))
    ):
        lost = await worker.resign_offer(position_id, match_id_of(match))
        if lost:
            return _resignation(match, seat, ResignLevel(lost))
    if phase is Phase.ROLL:
        if not match.can_double(seat):
            return Decision(Roll)
        try:
            cube = await worker.cube_decision(position_id, match_id_of(match), level)
        except CannotDoubleError:  # a dead cube: a win at its value already takes the match
            return Decision(Roll)
        if cube.double:
            return Decision(Double, equity=min(cube.double_take, cube.double_pass))
        return Decision(Roll, equity=cube.no_double)
    if phase is Phase.MOVE:
        forced = _forced(match)
        if forced is not None:
            return forced
        ranked = await worker.rank_plays(position_id, match_id_of(match), level)
        play, _, equity = ranked[0]
        return Decision(Move, play, equity)
    if phase is Phase.CUBE_OFFERED:
        # The doubler is on turn: the position and Match ID are the doubler's.
        try:
            answer = await worker.take_decision(position_id, match_id_of(match), level)
        except CannotDoubleError:  # a dead cube for the doubler: taking costs nothing more
            return Decision(Take)
        if answer.take:
            return Decision(Take, equity=answer.take_equity)
        return Decision(Drop, equity=answer.pass_equity)
    if phase is Phase.RESIGN_OFFERED:
        accept, value, play_on = await worker.resign_decision(
            position_id, match_id_of(match), level
        )
        if accept:
            return Decision(AcceptResign, equity=value)
        return Decision(DeclineResign, equity=play_on)
    return WAIT


# -- Nannon --------------------------------------------------------------------------------------


def nannon_context(match: GameMatch, seat: int) -> Context:
    """The solver's context for ``seat``: the real cube and score, with or without the
    Crawford rule (:meth:`Context.of_match`)."""
    return Context.of_match(match, seat)


async def _won_equity(worker: RobotWorker, context: Context, points: int) -> float:
    """The equity of winning ``points`` now, for the side of ``context``."""
    return await worker.nannon_won_equity(context, points)


async def _nannon(
    worker: RobotWorker,
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    offers: Offers,
) -> Decision:
    phase = match.phase
    context = nannon_context(match, seat)
    position_id = match.position_id
    if phase is Phase.OPENING_TIE:
        if not match.can_double(seat):
            return Decision(Roll)
        cube = await worker.nannon_opening_cube_action(context)
        return _cube_choice(cube, choose_cube(cube, level, rng))
    # A decided game is resigned on roll, or at the move when the service rolled (a dead cube).
    if phase in (Phase.ROLL, Phase.MOVE) and offers.resignation:
        lost = await _nannon_lost(worker, match, position_id, context)
        if lost is not None:
            return _resignation(match, seat, lost)
    if phase is Phase.ROLL:
        if not match.can_double(seat):
            return Decision(Roll)
        cube = await worker.nannon_cube_action(position_id, context)
        return _cube_choice(cube, choose_cube(cube, level, rng))
    if phase is Phase.MOVE:
        forced = _forced(match)
        if forced is not None:
            return forced
        assert match.dice is not None
        ranked = await worker.nannon_rank_moves(position_id, match.dice[0], context)
        chosen = choose_move(ranked, level, rng)
        return Decision(Move, str(chosen.move), chosen.equity)
    if phase is Phase.CUBE_OFFERED:
        doubler = 1 - seat
        doubler_context = nannon_context(match, doubler)
        if doubled_on_a_tie(match):  # judged at the opening roll, not with the doubler on roll
            tie = await worker.nannon_opening_cube_action(doubler_context)
            answer = tie.answer
        else:
            answer = await worker.nannon_take_decision(position_id, doubler_context)
        if choose_take(answer, level, rng):
            return Decision(Take, equity=answer.take_equity)
        return Decision(Drop, equity=answer.pass_equity)
    if phase is Phase.RESIGN_OFFERED:
        return await _nannon_resignation(worker, match, seat, context)
    return WAIT


def doubled_on_a_tie(match: GameMatch) -> bool:
    """Whether the double waiting for an answer came after a tied opening roll: the game's
    latest opening roll is a tie (a game starts only after one that is not)."""
    dice = match.opening_dice
    return dice is not None and dice[0] == dice[1]


def _cube_choice(cube: CubeDecision, double: bool) -> Decision:
    if double:
        return Decision(Double, equity=min(cube.double_take, cube.double_pass))
    return Decision(Roll, equity=cube.no_double)


SURE = jobs.SURE


async def _nannon_lost(
    worker: RobotWorker, match: GameMatch, position_id: str, context: Context
) -> ResignLevel | None:
    """The level the side on roll is sure to lose at (:func:`bot.robot.jobs.nannon_sure_loss`),
    or None while the game is undecided. The solver is asked only in a race: while a checker
    can still hit or be hit, nobody is sure to lose."""
    if _nannon_contact(NannonPosition.from_id(position_id)):
        return None
    levels = match.spec.resign_levels
    index = await worker.nannon_sure_loss(
        position_id, context, [_stake(match, level) for level in levels]
    )
    return None if index < 0 else levels[index]


def _nannon_contact(position: NannonPosition) -> bool:
    """Whether a checker of the side on roll (at home or on a spot) is still behind one of the
    opponent's, on the track they share (their spot ``p`` is its spot ``7 - p``)."""
    on_track = [7 - place for place in position.theirs if place < 7]
    return any(place < spot for place in position.mine if place < 7 for spot in on_track)


def _stake(match: GameMatch, level: ResignLevel) -> int:
    """The points a resignation at ``level`` gives (the Jacoby rule: single while the cube is
    centred in money play)."""
    assert isinstance(match, DiceMatch)
    return match.stake(level)


def _resignation(match: GameMatch, seat: int, lost: ResignLevel) -> Decision:
    """Resign at the cheapest level that gives the opponent as much as ``lost``: a level
    above what the opponent needs for the match, or a gammon under the Jacoby rule, is worth
    no more than the level below it."""
    levels = match.spec.resign_levels
    length = match.rules.length
    need = length - int(match.score[1 - seat]) if length else None
    worth = _stake(match, lost) if need is None else min(_stake(match, lost), need)
    for level in levels:
        stake = _stake(match, level)
        if (stake if need is None else min(stake, need)) >= worth:
            return Decision(Resign, resign=level)
    return Decision(Resign, resign=lost)


async def _nannon_resignation(
    worker: RobotWorker, match: GameMatch, seat: int, context: Context
) -> Decision:
    """Accept when the resignation gives at least what playing on is worth."""
    assert match.resign_offer is not None
    _, resign_level = match.resign_offer
    value = await _won_equity(worker, context, _stake(match, resign_level))
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
    if value >= play_on - SURE:  # a decided game: the same, give or take rounding
        return Decision(AcceptResign, equity=value)
    return Decision(DeclineResign, equity=play_on)


# -- checkers ------------------------------------------------------------------------------------


async def _checkers(
    worker: RobotWorker,
    match: GameMatch,
    seat: int,
    level: Level,
    rng: random.Random,
    offers: Offers,
) -> Decision:
    assert isinstance(match, CheckersMatch)
    fen = match.board.fen
    history = checkers_history(match)
    if match.phase is Phase.DRAW_OFFERED:
        colour = match.color_of(seat).name.lower()
        accept = await worker.run(
            jobs.checkers_accept_draw, fen, history, colour, int(level), offers.think_s
        )
        if accept:
            return Decision(AcceptDraw)
        return Decision(DeclineDraw)
    if match.phase is not Phase.MOVE:
        return WAIT
    forced = _forced(match)
    if forced is not None:
        return forced
    seed = rng.getrandbits(64)
    earlier = _earlier_turns(match) if offers.resignation and _behind(match.board) else None
    move = await worker.run(
        jobs.checkers_move, fen, history, int(level), seed, offers.draw, earlier, offers.think_s
    )
    if move is None:
        return Decision(OfferDraw)
    if move == jobs.RESIGN:
        return Decision(Resign, resign=ResignLevel.SINGLE)
    return Decision(Move, move)


def _behind(board: Board) -> bool:
    """Whether the side to move is behind enough for
    :func:`engines.checkers_search.should_resign` to look further: fewer pieces, or the
    static evaluation past its margin. A cheap test on the event loop, so that the game is
    replayed for the earlier turns only then."""
    turn = board.turn
    if board.piece_count(turn) < board.piece_count(turn.opponent):
        return True
    return checkers_search.evaluate(board) <= -checkers_search.RESIGN_MARGIN


def _earlier_turns(match: CheckersMatch) -> list[str]:
    """The positions of the mover's previous turns in this game (FENs, oldest first), as many
    as :func:`engines.checkers_search.should_resign` looks at."""
    game = match.game
    boards: list[Board] = [game.start]
    for move in game.moves:
        boards.append(boards[-1].apply(move))
    wanted = checkers_search.RESIGN_TURNS - 1
    return [board.fen for board in boards[-3::-2][:wanted]][::-1]


def checkers_history(match: CheckersMatch) -> list[str]:
    """The game's positions since the last capture or man move (FENs, oldest first): the search
    scores repetitions and the 40-move rule from them."""
    return [board.fen for board in match.game.reversible_positions]


async def _always(worker: RobotWorker) -> bool:
    return True


# What the robot needs to play each game here, asked when a match against it starts.
_AVAILABLE: dict[spec.GameSpec, Callable[[RobotWorker], Awaitable[bool]]] = {
    spec.BACKGAMMON: lambda worker: worker.gnubg_available(),  # looked up when asked
    spec.NANNON: _always,
    spec.CHECKERS: _always,
}


async def available(worker: RobotWorker, game: spec.GameSpec) -> bool:
    """Whether the robot plays ``game`` on this platform: backgammon needs GNU Backgammon's
    wheel (:meth:`bot.robot.worker.RobotWorker.gnubg_available`); Nannon and checkers run
    anywhere."""
    return await _AVAILABLE[game](worker)


_PLAYERS: dict[spec.GameSpec, Player] = {
    spec.BACKGAMMON: _backgammon,
    spec.NANNON: _nannon,
    spec.CHECKERS: _checkers,
}
