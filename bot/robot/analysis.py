"""Post-match analysis, one game at a time: runs in the analysis worker process (the Discord
side calls :func:`analyse_game` through :mod:`bot.robot.worker`, game by game, so a long
analysis never holds up a robot move for long and progress can be shown between games), and
whole in the CLI (:func:`analyse_match`, ``tablebot analyse FILE``). Both give the same
:class:`~engines.analysis.Decision` values from the same code.

- Backgammon: GNU Backgammon's own analysis at ``ply`` plies
  (:func:`bot.robot.gnubg_analysis.analyse_backgammon_game`, imported when first needed).
- Nannon: the exact solver (:func:`engines.nannon_analysis.analyse_nannon_game`), one per
  worker process (:func:`bot.robot.jobs.solver`), so scores the robot solved are reused.
- Checkers: the alpha-beta search at a fixed depth
  (:func:`engines.checkers_analysis.analyse_checkers_game`); ``ply`` is not used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.robot import jobs
from engines import new_match
from engines.actions import Action
from engines.analysis import Decision, MatchAnalysis, summarise
from engines.base import GameKind, MatchRules
from engines.checkers_analysis import DEPTH, analyse_checkers_game
from engines.nannon_analysis import analyse_nannon_game
from engines.spec import Evaluator, spec_of

__all__ = [
    "ANALYSERS",
    "Analyser",
    "analyse_game",
    "analyse_match",
    "analyser_of",
    "count_games",
    "needs_gnubg",
]

GameAnalyser = Callable[[MatchRules, Sequence[Action], tuple[str, str], int, int], list[Decision]]


@dataclass(frozen=True, slots=True)
class Analyser:
    """How one game is analysed: the function, and what to call the evaluator in reports."""

    analyse: GameAnalyser
    evaluator: str
    uses_ply: bool


def _backgammon(
    rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int, ply: int
) -> list[Decision]:
    from bot.robot.gnubg_analysis import analyse_backgammon_game  # gnubg: only when asked

    return analyse_backgammon_game(rules, actions, names, game, ply)


def _nannon(
    rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int, ply: int
) -> list[Decision]:
    return analyse_nannon_game(rules, actions, names, game, jobs.solver())


def _checkers(
    rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int, ply: int
) -> list[Decision]:
    return analyse_checkers_game(rules, actions, names, game, DEPTH)


ANALYSERS: dict[Evaluator, Analyser] = {
    Evaluator.GNUBG: Analyser(_backgammon, "GNU Backgammon", True),
    Evaluator.EXACT_SOLVER: Analyser(_nannon, "exact solver", False),
    Evaluator.SEARCH: Analyser(_checkers, f"alpha-beta search, {DEPTH} plies", False),
}


def analyser_of(kind: GameKind | str) -> Analyser:
    """How a game is analysed: its spec's :attr:`~engines.spec.GameSpec.evaluator`."""
    return ANALYSERS[spec_of(kind).evaluator]


def needs_gnubg(kind: GameKind | str) -> bool:
    """Whether the game's analysis is GNU Backgammon's (so only where the wheel runs)."""
    return spec_of(kind).evaluator is Evaluator.GNUBG


def count_games(kind: GameKind, rules: MatchRules, actions: Sequence[Action]) -> int:
    """How many games the actions play into (a game with any action counts)."""
    match = new_match(kind, rules)
    games = 0
    for action in actions:
        games = max(games, match.game_number)
        match.apply(action)
    return games


def analyse_game(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """Every decision of game ``game`` (from 1), in order. ``ply``: gnubg's plies
    (backgammon only)."""
    return analyser_of(kind).analyse(rules, actions, names, game, ply)


def analyse_match(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    ply: int,
    progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """The whole match analysed here, game by game (``progress(game, games)`` before each),
    and summed up by :func:`engines.analysis.summarise`."""
    kind = GameKind(kind)
    total = count_games(kind, rules, actions)
    decisions: list[Decision] = []
    for game in range(1, total + 1):
        if progress is not None:
            progress(game, total)
        decisions += analyse_game(kind, rules, actions, names, game, ply)
    return summarise(
        decisions,
        names,
        pr_scale=spec_of(kind).analysis_pr,
        details=details(kind, ply),
    )


def details(kind: GameKind, ply: int) -> dict[str, object]:
    """How a game of ``kind`` is analysed, for the report and the JSON."""
    analyser = analyser_of(kind)
    out: dict[str, object] = {"game": GameKind(kind).value, "evaluator": analyser.evaluator}
    if analyser.uses_ply:
        out["ply"] = ply
    return out
