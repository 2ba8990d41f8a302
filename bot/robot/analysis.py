"""Which evaluator analyses a game, and the jobs the analysis worker runs.

A game's spec names its evaluator (:attr:`engines.spec.GameSpec.evaluator`); here each name
gets its :class:`~engines.analysis.GameEvaluator`:

- ``gnubg``: GNU Backgammon's own analysis at ``ply`` plies
  (:class:`bot.robot.gnubg_analysis.GnubgEvaluator`, imported when first needed).
- ``exact solver``: Nannon's exact solver (:class:`engines.nannon_analysis.NannonEvaluator`),
  one per worker process (:func:`bot.robot.jobs.solver`), so scores the robot solved are reused.
- ``search``: the checkers search at a fixed depth
  (:class:`engines.checkers_analysis.CheckersEvaluator`), with the shipped endgame database for
  resignations (:mod:`bot.robot.endgames`, read when a resignation is first judged); ``ply``
  is not used.

The bot calls :func:`game_decisions` in the analysis worker, game by game
(:mod:`bot.robot.analysis_runner`), so progress can be shown between games; the CLI
(``tablebot analyse FILE``) calls :func:`analyse_match` here. Both give the same
:class:`~engines.analysis.Decision` values from the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.robot import endgames, jobs
from engines import analysis
from engines.actions import Action
from engines.analysis import Decision, DecisionKind, GameEvaluator, MatchAnalysis
from engines.base import GameKind, MatchRules
from engines.checkers_analysis import CheckersEvaluator, checkers_options
from engines.nannon_analysis import NannonEvaluator, nannon_options
from engines.puzzles import Option
from engines.spec import Evaluator, spec_of

__all__ = [
    "analyse_match",
    "answer_options",
    "details",
    "evaluator_for",
    "game_decisions",
    "needs_gnubg",
]


def _gnubg(ply: int) -> GameEvaluator:
    from bot.robot.gnubg_analysis import GnubgEvaluator  # gnubg: only when asked

    return GnubgEvaluator(ply)


_EVALUATORS: dict[Evaluator, Callable[[int], GameEvaluator]] = {
    Evaluator.GNUBG: _gnubg,
    Evaluator.EXACT_SOLVER: lambda ply: NannonEvaluator(jobs.solver),
    Evaluator.SEARCH: lambda ply: CheckersEvaluator(endgames=endgames.endgames),
}


def evaluator_for(kind: GameKind | str, ply: int) -> GameEvaluator:
    """The evaluator of a game of ``kind``; ``ply``: gnubg's plies (backgammon only)."""
    return _EVALUATORS[spec_of(kind).evaluator](ply)


def needs_gnubg(kind: GameKind | str) -> bool:
    """Whether the game's analysis is GNU Backgammon's (so only where the wheel runs)."""
    return spec_of(kind).evaluator is Evaluator.GNUBG


def details(kind: GameKind, ply: int) -> dict[str, object]:
    """How a game of ``kind`` is analysed, for the report and the JSON."""
    return analysis.analysis_details(kind, evaluator_for(kind, ply))


def game_decisions(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """Every decision of game ``game`` (from 1), in order, by the game's evaluator."""
    return evaluator_for(kind, ply).analyse_game(rules, actions, names, game)


def _gnubg_options(
    rules: MatchRules,
    actions: Sequence[Action],
    index: int,
    decision: DecisionKind,
    player: int,
    ply: int,
) -> list[Option]:
    from bot.robot.gnubg_analysis import backgammon_options  # gnubg: only when asked

    return backgammon_options(rules, actions, index, decision, ply)


_OPTIONS: dict[
    Evaluator,
    Callable[[MatchRules, Sequence[Action], int, DecisionKind, int, int], list[Option]],
] = {
    Evaluator.GNUBG: _gnubg_options,
    Evaluator.EXACT_SOLVER: lambda rules, actions, index, decision, player, ply: nannon_options(
        rules, actions, index, decision, player, jobs.solver()
    ),
    Evaluator.SEARCH: lambda rules, actions, index, decision, player, ply: checkers_options(
        rules, actions, index
    ),
}


def answer_options(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    action_index: int,
    decision: DecisionKind,
    player: int,
    ply: int,
) -> list[tuple[str, float]]:
    """Every option of one analysed decision with the game's evaluator's equity for the
    decider (a puzzle's answer key), as plain pairs for the trip back from the worker."""
    ranked = _OPTIONS[spec_of(kind).evaluator](rules, actions, action_index, decision, player, ply)
    return [(option.move, option.equity) for option in ranked]


def analyse_match(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    ply: int,
    progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """The whole match analysed in this process (:func:`engines.analysis.analyse_match`)."""
    evaluator = evaluator_for(kind, ply)
    return analysis.analyse_match(evaluator, kind, rules, actions, names, progress)
