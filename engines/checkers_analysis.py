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
no dice, so ``luck`` is None. Draw offers and answers are not decisions. A resignation ends the
game at once (a lost game, -1): it costs what playing on was worth above that, by the same
search, probing the endgame database (``endgames``) where the board has few enough pieces, so
a resignation of a lost ending costs exactly nothing (:class:`engines.analysis.Resignation`).
``win_chance`` is seat 0's expected score in the game after each move, ``(1 + equity) / 2``: a
draw is a half.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engines.actions import Action, Move, Resign
from engines.analysis import (
    Decision,
    DecisionKind,
    Resignation,
    Resignations,
    ResignationValue,
    resign_words,
)
from engines.base import MatchRules, Phase
from engines.checkers import CheckersMatch
from engines.checkers_search import Endgames, analyse
from engines.puzzles import Option

__all__ = ["DEPTH", "CheckersEvaluator", "analyse_checkers_game", "checkers_options"]

DEPTH = 6
"""The search depth in plies (then captures). Measured: a 98-ply game in 2.6 s, a 200-ply one
with a long king ending in 10.5 s (depth 8: 11.7 s for the 98 plies, minutes for the 200)."""


class CheckersEvaluator:
    """Checkers' :class:`~engines.analysis.GameEvaluator`: the search at ``depth`` plies."""

    details: dict[str, object]

    def __init__(
        self, depth: int = DEPTH, endgames: Callable[[], Endgames | None] = lambda: None
    ) -> None:
        self.depth = depth
        self.endgames = endgames  # called only when a resignation is judged
        self.details = {"evaluator": f"alpha-beta search, {depth} plies"}

    def analyse_game(
        self, rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int
    ) -> list[Decision]:
        return analyse_checkers_game(rules, actions, names, game, self.depth, self.endgames)


def analyse_checkers_game(
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    depth: int = DEPTH,
    endgames: Callable[[], Endgames | None] = lambda: None,
) -> list[Decision]:
    """Every move and resignation of game ``game`` (from 1) of the checkers match ``actions``
    replay, in order; a GameError (a ValueError) where the actions don't fit the rules."""
    match = CheckersMatch(rules)
    decisions: list[Decision] = []
    for index, action in enumerate(actions):
        if match.phase is Phase.MATCH_OVER or match.game_number > game:
            break
        if match.game_number == game and isinstance(action, Move):
            decisions.append(_decision(match, index, action, game, depth))
        elif match.game_number == game and isinstance(action, Resign):
            decisions += _resignation(match, index, action, game, depth, endgames())
        match.apply(action)
    return decisions


def _resignation(
    match: CheckersMatch,
    index: int,
    action: Resign,
    game: int,
    depth: int,
    endgames: Endgames | None,
) -> list[Decision]:
    """A resignation, which loses the game at once, against playing on."""
    board = match.board
    seat = action.player if action.player is not None else match.turn
    ranked = analyse(board, match.game.reversible_positions, depth=depth, endgames=endgames)
    if not ranked:  # nothing to play on with (the game is already lost)
        return []
    on_move = ranked[0].equity
    play_on = on_move if seat == match.turn else -on_move
    offer = Resignation(
        game,
        index,
        seat,
        resign_words(match.spec.resign_level_name(action.level)),
        ResignationValue(play_on, -1.0, _seat0_chance(play_on, seat), 0.0 if seat == 0 else 1.0),
        position_id=board.fen,
    )
    resignations = Resignations()
    resignations.offered(offer)
    return resignations.close()


def _seat0_chance(equity: float, seat: int) -> float:
    return (1.0 + (equity if seat == 0 else -equity)) / 2.0


def _decision(match: CheckersMatch, index: int, action: Move, game: int, depth: int) -> Decision:
    seat, board = match.turn, match.board
    played = match.parse_move(action.move)
    ranked = analyse(board, match.game.reversible_positions, depth=depth)
    mine = next((scored for scored in ranked if scored.move == played), None)
    if mine is None:  # pragma: no cover - analyse scores every legal move
        raise ValueError(f"{played} is not a legal move in {board.fen}")
    best = ranked[0]
    equity = mine.equity
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
        win_chance=_seat0_chance(equity, seat),
        position_id=board.fen,
    )


def checkers_options(
    rules: MatchRules, actions: Sequence[Action], action_index: int, depth: int = DEPTH
) -> list[Option]:
    """Every legal move at action ``action_index`` (a move of :func:`analyse_checkers_game`)
    with the search's equity for the mover, as the analysis scored them."""
    match = CheckersMatch.replay(rules, list(actions[:action_index]))
    ranked = analyse(match.board, match.game.reversible_positions, depth=depth)
    return [Option(str(scored.move), scored.equity) for scored in ranked]
