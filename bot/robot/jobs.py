"""What the robot's worker process runs (:mod:`bot.robot.worker` sends these by reference).

Backgammon goes to GNU Backgammon (:mod:`bot.robot.gnubg_brain`), Nannon to the exact solver
(:mod:`engines.nannon_solver`), one solver per worker: a match score is solved the first time it
is asked (0.2 to 0.6 s, money play 0.17 s) and then answers in microseconds, so the first hint
at a new score must not run on the event loop. Checkers goes to the alpha-beta search
(:mod:`engines.checkers_search`), which thinks for up to its level's budget (master: the
server's ``robot_think_s``, 2 s by default) and, at master, probes the endgame database
(:mod:`bot.robot.endgames`).
Everything takes and returns plain, picklable values (a checkers position is its FEN, its
history the FENs since the last capture or man move).
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any

from bot.robot import endgames, gnubg_brain
from engines import checkers_search
from engines.checkers import Board, Color
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import (
    Context,
    CubeDecision,
    MatchScore,
    NannonSolver,
    RankedMove,
    TakeDecision,
)

_solver: NannonSolver | None = None

SURE = 1e-9
"""The exact solver's chances and equities within this of a certain result are certain."""

RESIGN = "resign"
""":func:`checkers_move`'s answer when the robot resigns (no move is written so)."""


def pid() -> int:
    """The worker's process id."""
    return os.getpid()


def warm() -> str:
    """Load what the first decisions need (gnubg's nets, the Nannon solver's money values, the
    checkers endgame database); which GNU Backgammon runs here, or "" where none does."""
    solver().equity(NannonPosition.initial(), Context())
    endgames.endgames()
    return gnubg_brain.engine if gnubg_brain.available() else ""


def gnubg_available() -> bool:
    return gnubg_brain.available()


def solver() -> NannonSolver:
    global _solver
    if _solver is None:
        _solver = NannonSolver()
    return _solver


# -- Nannon ------------------------------------------------------------------------------------


def nannon_rank_moves(position_id: str, roll: int, context: Context) -> list[RankedMove]:
    return solver().rank_moves(NannonPosition.from_id(position_id), roll, context)


def nannon_cube_action(position_id: str, context: Context) -> CubeDecision:
    return solver().cube_action(NannonPosition.from_id(position_id), context)


def nannon_opening_cube_action(context: Context) -> CubeDecision:
    return solver().opening_cube_action(context)


def nannon_take_decision(position_id: str, context: Context) -> TakeDecision:
    return solver().take_decision(NannonPosition.from_id(position_id), context)


def nannon_equity(position_id: str, context: Context) -> float:
    return solver().equity(NannonPosition.from_id(position_id), context)


def nannon_won_equity(context: Context, points: int) -> float:
    """The equity of winning ``points`` now, for the side of ``context``: the points in money
    play, ``2 * MWC - 1`` in a match (the Crawford game follows the game in which a side
    first reaches 1 away)."""
    return solver().won_equity(context, points)


def nannon_sure_loss(position_id: str, context: Context, stakes: Sequence[int]) -> int:
    """Which resignation the side on roll is sure to lose, as an index into ``stakes`` (the
    points a single game and a NANNON give), or -1 while the game is undecided: the exact
    solver gives it no chance to win (cubeless) and no doubt about a NANNON, and its exact
    equity is what losing those points is worth (within :data:`SURE`). One call, so that the
    robot's check on every roll costs the event loop one round trip."""
    position = NannonPosition.from_id(position_id)
    chances = solver().cubeless(position)
    lose_nannon = chances.lose_nannon
    if chances.win_single + chances.win_nannon > SURE or SURE < lose_nannon < 1.0 - SURE:
        return -1
    index = 1 if lose_nannon > SURE else 0
    if index >= len(stakes):
        return -1
    lost = -nannon_won_equity(context.flipped(), stakes[index])
    return index if abs(solver().equity(position, context) - lost) <= SURE else -1


def nannon_match_equity(score: MatchScore) -> float:
    return solver().match_equity(score)


# -- checkers ------------------------------------------------------------------------------------


def _boards(history: Sequence[str]) -> list[Board]:
    return [Board.from_fen(fen) for fen in history]


def checkers_move(
    fen: str,
    history: Sequence[str],
    level: int,
    seed: int,
    offer_draw: bool,
    earlier: Sequence[str] | None = None,
    think_s: float | None = None,
) -> str | None:
    """The move the robot plays at ``level`` (``rng`` seeded with ``seed``); None when it
    offers a draw instead (only if ``offer_draw``); :data:`RESIGN` when it resigns (only if
    ``earlier``, the positions of its previous turns in the game, is given: see
    :func:`engines.checkers_search.should_resign`). One search decides all three
    (:func:`engines.checkers_search.decide`); master's takes ``think_s`` seconds (None: its
    default)."""
    chosen = checkers_search.Level(level)
    turn = checkers_search.decide(
        Board.from_fen(fen),
        chosen,
        random.Random(seed),
        history=_boards(history),
        earlier=None if earlier is None else _boards(earlier),
        offer_draw=offer_draw,
        brain=endgames.brain(chosen, think_s),
    )
    if turn.resign:
        return RESIGN
    if turn.offer_draw or turn.move is None:
        return None
    return str(turn.move)


def checkers_accept_draw(
    fen: str, history: Sequence[str], robot: str, level: int, think_s: float | None = None
) -> bool:
    """Whether the robot, playing ``robot`` ("black" or "white"), accepts a draw offer."""
    board = Board.from_fen(fen)
    colour = Color[robot.upper()]
    chosen = checkers_search.Level(level)
    return checkers_search.accept_draw(
        board, colour, _boards(history), chosen, brain=endgames.brain(chosen, think_s)
    )


def checkers_hint(fen: str, history: Sequence[str], level: int) -> dict[str, Any]:
    """Every legal move, best first, with its equity (the hint JSON)."""
    board = Board.from_fen(fen)
    chosen = checkers_search.Level(level)
    return checkers_search.hint(board, _boards(history), chosen, brain=endgames.brain(chosen))
