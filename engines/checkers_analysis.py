"""A checkers game analysed by the alpha-beta search (:mod:`engines.checkers_search`): every
move, scored against the best at a fixed depth.

Each position is searched to :data:`DEPTH` plies (then through every capture) by
:func:`engines.checkers_search.analyse`, with no time budget, so the figures are the same on
every machine and every run. Every legal move gets a score in hundredths of a man; the score
is mapped onto an expected result in [-1, 1] (win 1, draw 0, loss -1) by
:func:`engines.checkers_search.equity`, ``tanh(score / 400)``, which is the logistic
``2 / (1 + exp(-score / 200)) - 1``: a man up is +0.24, two men +0.46, a forced win 1. So a
move's loss is equity-like, and the same error (0.02) and blunder (0.08) bounds apply: a
blunder is about a third of a man given away, an error a twelfth.

A move with no alternative (one legal move; captures are compulsory) is ``forced``. There are
no dice, so ``luck`` is None. Draw offers and answers are not decisions. ``win_chance`` is
seat 0's expected score in the game after each move, ``(1 + equity) / 2``: a draw is a half.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.actions import Action, Move
from engines.analysis import Decision, DecisionKind
from engines.base import MatchRules, Phase
from engines.checkers import CheckersMatch
from engines.checkers_search import analyse

__all__ = ["DEPTH", "CheckersEvaluator", "analyse_checkers_game"]

DEPTH = 6
"""The search depth in plies (then captures). Measured: a 98-ply game in 2.6 s, a 200-ply one
with a long king ending in 10.5 s (depth 8: 11.7 s for the 98 plies, minutes for the 200)."""


class CheckersEvaluator:
    """Checkers' :class:`~engines.analysis.GameEvaluator`: the search at ``depth`` plies."""

    details: dict[str, object]

    def __init__(self, depth: int = DEPTH) -> None:
        self.depth = depth
        self.details = {"evaluator": f"alpha-beta search, {depth} plies"}

    def analyse_game(
        self, rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int
    ) -> list[Decision]:
        return analyse_checkers_game(rules, actions, names, game, self.depth)


def analyse_checkers_game(
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    depth: int = DEPTH,
) -> list[Decision]:
    """Every move of game ``game`` (from 1) of the checkers match ``actions`` replay, in
    order; a GameError (a ValueError) where the actions don't fit the rules."""
    match = CheckersMatch(rules)
    decisions: list[Decision] = []
    for index, action in enumerate(actions):
        if match.phase is Phase.MATCH_OVER or match.game_number > game:
            break
        if match.game_number == game and isinstance(action, Move):
            decisions.append(_decision(match, index, action, game, depth))
        match.apply(action)
    return decisions


def _decision(match: CheckersMatch, index: int, action: Move, game: int, depth: int) -> Decision:
    seat, board = match.turn, match.board
    played = match.parse_move(action.move)
    ranked = analyse(board, match.game.reversible_positions, depth=depth)
    mine = next((scored for scored in ranked if scored.move == played), None)
    if mine is None:  # pragma: no cover - analyse scores every legal move
        raise ValueError(f"{played} is not a legal move in {board.fen}")
    best = ranked[0]
    equity = mine.equity
    seat0 = equity if seat == 0 else -equity
    return Decision(
        game=game,
        action_index=index,
        player=seat,
        kind=DecisionKind.MOVE,
        played=str(played),
        best=str(best.move),
        equity_loss=max(0.0, best.equity - equity),
        forced=len(ranked) == 1,
        luck=None,
        win_chance=(1.0 + seat0) / 2.0,
        position_id=board.fen,
    )
