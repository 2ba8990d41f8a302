"""Hints: every legal move with its equity, or the cube decision, as plain data.

``{"moves": [{"move": "24/18 13/11", "position": <the position after it>, "equity": <float>},
...]}``, best first and every legal move listed, when there is a roll to play (checkers: always);
``{"cube": {"action": ..., "no_double": ..., "double_take": ..., "double_pass": ...}}`` before
the roll; ``{"take": {"action": "take" | "pass", "take": ..., "pass": ...}}`` (the taker's
equities) when a double is offered. Equities are from the side to act: points in money play,
``2 * MWC - 1`` in match play, cubeful. Actions are gnubg's names: ``no double, take``,
``double, take``, ``double, pass``, ``too good to double, pass``.

These functions compute in the calling process: ``tablebot hint`` calls them directly, the bot
through its robot worker (``await worker.run(hints.backgammon_hint, ...)``), since GNU
Backgammon must run in the main thread of a process of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.robot import endgames, gnubg_brain, gnubg_system
from bot.robot.levels import BACKGAMMON_LEVELS, GnubgSettings, Level
from engines import checkers_search
from engines.backgammon import Position as BgPosition
from engines.checkers import Board
from engines.gnubg import MatchId
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import Context, CubeDecision, NannonSolver, TakeDecision

__all__ = [
    "HintUnavailableError",
    "backgammon_equity",
    "backgammon_hint",
    "checkers_hint",
    "cube_json",
    "game_over_json",
    "moves_json",
    "nannon_hint",
    "take_json",
]

DIGITS = 6


class HintUnavailableError(RuntimeError):
    """This game's hints can't be computed here (gnubg missing)."""


def moves_json(ranked: list[tuple[str, str, float]]) -> dict[str, Any]:
    """(move, position after it, equity), best first, as the hint JSON."""
    return {
        "moves": [
            {"move": move, "position": position, "equity": round(equity, DIGITS)}
            for move, position, equity in ranked
        ]
    }


def game_over_json(position: NannonPosition) -> dict[str, Any] | None:
    """A finished Nannon position's answer (issue 33: it got a cube hint): who won, how and how
    many points (at cube 1), or None while the game goes on."""
    outcome = position.outcome()
    if outcome is None:
        return None
    winner = "side on roll" if outcome.winner_on_roll else "opponent"
    return {"over": {"winner": winner, "result": outcome.kind.value, "points": outcome.points}}


def take_json(decision: TakeDecision) -> dict[str, Any]:
    """Take or pass (the taker's equities), as the hint JSON."""
    return {
        "take": {
            "action": "take" if decision.take else "pass",
            "take": round(decision.take_equity, DIGITS),
            "pass": round(decision.pass_equity, DIGITS),
        }
    }


def cube_json(decision: CubeDecision) -> dict[str, Any]:
    return {
        "cube": {
            "action": decision.action.value,
            "no_double": round(decision.no_double, DIGITS),
            "double_take": round(decision.double_take, DIGITS),
            "double_pass": round(decision.double_pass, DIGITS),
        }
    }


def backgammon_hint(position_id: str, match_id: str, level: Level = Level.MASTER) -> dict[str, Any]:
    """The hint for a gnubg Position ID and Match ID, by GNU Backgammon at ``level``'s preset:
    the plays when the Match ID has dice, the take decision when it offers a double, else the
    cube decision (:class:`gnubg_brain.CannotDoubleError` when the side on roll may not
    double). Runs gnubg in this process: call it in a process's main thread."""
    match = MatchId.decode(match_id)
    settings = _gnubg_settings(position_id, level)
    if match.double_offered:
        return take_json(
            gnubg_brain.take_decision(position_id, match_id, settings.ply, settings.noise)
        )
    if match.dice != (0, 0):
        return moves_json(
            gnubg_brain.rank_plays(position_id, match_id, settings.ply, settings.noise)
        )
    return cube_json(gnubg_brain.cube_decision(position_id, match_id, settings.ply, settings.noise))


def backgammon_equity(position_id: str, match_id: str, level: Level = Level.MASTER) -> float:
    """The equity of the side on roll, cubeful, by GNU Backgammon at ``level``'s preset: before
    the roll with the right cube decision (what a side that may not double is told), after it
    the best play's."""
    MatchId.decode(match_id)
    settings = _gnubg_settings(position_id, level)
    equity = gnubg_brain.position_equity(position_id, match_id, settings.ply, settings.noise)
    return round(equity, DIGITS)


def _gnubg_settings(position_id: str, level: Level) -> GnubgSettings:
    """``level``'s gnubg preset, once the Position ID is known good and gnubg is here."""
    BgPosition.from_id(position_id)  # a malformed ID is refused before gnubg is looked for
    if not gnubg_brain.available():
        raise HintUnavailableError(gnubg_system.INSTALL_HINT)
    return BACKGAMMON_LEVELS[Level(level)]


def nannon_hint(
    solver: NannonSolver, position_id: str, roll: int | None, context: Context
) -> dict[str, Any]:
    """The exact hint for a Nannon position (``012-012``): the moves of ``roll``, or without a
    roll the cube decision (InvalidContextError when the side on roll may not double); a
    finished game's :func:`game_over_json`. Exact at
    every level: the levels differ in what they choose, not in what the moves are worth."""
    position = NannonPosition.from_id(position_id)
    over = game_over_json(position)
    if over is not None:
        return over
    if roll is None:
        return cube_json(solver.cube_action(position, context))
    ranked = solver.rank_moves(position, roll, context)
    return moves_json([(str(r.move), r.position.id, r.equity) for r in ranked])


def checkers_hint(
    fen: str, level: Level = Level.MASTER, history: Sequence[str] = ()
) -> dict[str, Any]:
    """Every legal move of a checkers position (a FEN) by the checkers search at ``level``'s
    depth and time budget, best first, equities in [-1, 1] from the side to move
    (:func:`engines.checkers_search.hint`). ``history``: the game's positions since the last
    capture or man move (FENs), which repetitions and the 40-move rule are judged by."""
    board = Board.from_fen(fen)
    past = [Board.from_fen(text) for text in history]
    chosen = checkers_search.Level(int(level))
    return checkers_search.hint(board, past, chosen, brain=endgames.brain(chosen))
