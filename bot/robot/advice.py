"""Hints for a player in a match: ``await match_hint(worker, match, seat, kind)``, computed in the
robot's worker (the bot's :class:`~bot.robot.worker.RobotWorker`), as :mod:`bot.robot.hints`'s JSON.

``kind`` says what the player decides (the service's ``HintKind`` values): ``"moves"`` (every
legal move of the roll, or the checkers move, best first), ``"cube"`` (the cube action before
the roll, or at a tied Nannon opening) or ``"take"`` (take or pass the double offered). Equities
are from the player's side: points in money play, ``2 * MWC - 1`` in a match; ``{"cube": None}``
(``{"take": None}``) when doubling can't matter (a dead cube: the doubler's win already takes
the match; such a double is taken). Hints are given
at :data:`HINT_LEVEL` (master: gnubg's 2-ply, the exact Nannon solver, the checkers search's
full budget). The match is only read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.robot import hints, jobs
from bot.robot.gnubg_brain import CannotDoubleError
from bot.robot.levels import Level
from bot.robot.player import checkers_history, doubled_on_a_tie, nannon_context
from bot.robot.worker import NOT_AVAILABLE, RobotUnavailableError, RobotWorker
from engines import spec
from engines.base import GameMatch, Phase
from engines.checkers import CheckersMatch
from engines.gnubg import match_id_of
from engines.match import DiceMatch

__all__ = ["HINT_LEVEL", "KINDS", "match_hint"]

HINT_LEVEL = Level.MASTER
KINDS = ("moves", "cube", "take")

Adviser = Callable[[RobotWorker, GameMatch, int, str, Level], Awaitable[dict[str, Any]]]


async def match_hint(
    worker: RobotWorker, match: GameMatch, seat: int, kind: str, level: Level = HINT_LEVEL
) -> dict[str, Any]:
    """The hint for ``seat`` on ``kind`` (one of :data:`KINDS`) in ``match``, by the robot at
    ``level``. :class:`~bot.robot.worker.RobotUnavailableError` where the game's engine does
    not run (backgammon without gnubg)."""
    if kind not in KINDS:
        raise ValueError(f"a hint is on {', '.join(KINDS)}, not {kind!r}")
    return await _ADVISERS[match.spec](worker, match, seat, kind, Level(level))


async def _backgammon(
    worker: RobotWorker, match: GameMatch, seat: int, kind: str, level: Level
) -> dict[str, Any]:
    # gnubg's Match ID says it all: dice (the plays), a double offered (take or pass; the
    # position is the doubler's), or neither (the cube action of the side on roll).
    assert isinstance(match, DiceMatch)
    if not await worker.gnubg_available():
        raise RobotUnavailableError(NOT_AVAILABLE)
    try:
        return await worker.run(
            hints.backgammon_hint, match.position_id, match_id_of(match), int(level)
        )
    except CannotDoubleError:  # a dead cube: a win at its value already takes the match
        return {kind: None}


async def _nannon(
    worker: RobotWorker, match: GameMatch, seat: int, kind: str, level: Level
) -> dict[str, Any]:
    # Exact at every level: the solver's equities.
    context = nannon_context(match, seat)
    position_id = match.position_id
    if kind == "moves":
        assert match.dice is not None
        ranked = await worker.nannon_rank_moves(position_id, match.dice[0], context)
        return hints.moves_json([(str(r.move), r.position.id, r.equity) for r in ranked])
    if kind == "cube":
        if match.phase is Phase.OPENING_TIE:
            return hints.cube_json(await worker.nannon_opening_cube_action(context))
        return hints.cube_json(await worker.nannon_cube_action(position_id, context))
    doubler = nannon_context(match, 1 - seat)
    if doubled_on_a_tie(match):
        tie = await worker.nannon_opening_cube_action(doubler)
        return hints.take_json(tie.answer)
    return hints.take_json(await worker.nannon_take_decision(position_id, doubler))


async def _checkers(
    worker: RobotWorker, match: GameMatch, seat: int, kind: str, level: Level
) -> dict[str, Any]:
    assert isinstance(match, CheckersMatch)
    history = checkers_history(match)
    return await worker.run(jobs.checkers_hint, match.board.fen, history, int(level))


_ADVISERS: dict[spec.GameSpec, Adviser] = {
    spec.BACKGAMMON: _backgammon,
    spec.NANNON: _nannon,
    spec.CHECKERS: _checkers,
}
