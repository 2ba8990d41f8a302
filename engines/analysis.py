"""Post-match analysis: the report model (every decision a player made, what it cost, what the
dice gave, and each player's figures: error rates, PR, luck, errors and blunders, a word on
gnubg's scale), the :class:`GameEvaluator` interface, and :func:`analyse_match`.

The evaluators behind the interface live where their engine may run: Nannon's exact solver
(:class:`engines.nannon_analysis.NannonEvaluator`) and checkers' search
(:class:`engines.checkers_analysis.CheckersEvaluator`) here, GNU Backgammon's in the robot room
(:class:`bot.robot.gnubg_analysis.GnubgEvaluator`, run in the analysis worker). Which one judges
a game is its spec's :attr:`~engines.spec.GameSpec.evaluator` (:mod:`bot.robot.analysis`). The
report in Discord and ``tablebot analyse FILE --json`` are the same figures from the same code.

Units. ``equity_loss`` and ``luck`` are in equity points of a game at cube 1: backgammon, gnubg's
normalised equity (EMG in match play, as gnubg and XG count error rates); Nannon, the exact
solver's equity; checkers, the search's score mapped onto an expected result from -1 to 1.

>>> d = [Decision(1, 0, 0, DecisionKind.MOVE, "13/8 6/5", "13/8 6/5", 0.0, False, 0.1, 0.55),
...      Decision(1, 1, 1, DecisionKind.MOVE, "24/18", "13/7", 0.1, False, -0.05, 0.40),
...      Decision(1, 2, 0, DecisionKind.CUBE, "no double", "no double", 0.0, False, None, 0.41),
...      Decision(1, 3, 0, DecisionKind.MOVE, "8/4", "8/4", 0.0, True, 0.02, 0.42)]
>>> a = summarise(d, ("Ann", "Bob"), pr_scale=True)
>>> a.players[1].errors, a.players[1].blunders, round(a.players[1].checker_error_rate, 3)
(1, 1, 100.0)
>>> a.players[1].pr, a.players[1].rating
(50.0, 'Awful!')
>>> a.players[0].unforced_decisions, a.players[0].pr, a.players[0].rating
(2, 0.0, 'Supernatural')
>>> [x.played for x in a.worst(3)]
['24/18']
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engines import new_match
from engines.actions import Action
from engines.base import GameKind, MatchRules
from engines.spec import spec_of

__all__ = [
    "BLUNDER",
    "ERROR",
    "MISTAKE",
    "RATING_SCALE",
    "Decision",
    "DecisionKind",
    "GameEvaluator",
    "MatchAnalysis",
    "PlayerFigures",
    "analyse_match",
    "analysis_details",
    "count_games",
    "rating_word",
    "summarise",
]

ERROR = 0.02
"""An equity loss this big or bigger is an error."""
BLUNDER = 0.08
"""An equity loss this big or bigger is a blunder."""
MISTAKE = 0.0005
"""An equity loss this big or bigger is a mistake the report lists: a smaller one shows as
0.000 at the report's three decimals and is mostly float noise (issue 33: a 1.5e-15 "mistake")."""

RATING_SCALE: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
)
"""gnubg's classic rating scale: the word for an average equity loss per unforced decision below
each bound; at or above the last bound, "Awful!"."""


class DecisionKind(enum.StrEnum):
    MOVE = "move"  # a play of the dice (or a checkers move)
    CUBE = "cube"  # double or not, before rolling
    TAKE = "take"  # take or pass a double


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision, in the order played."""

    game: int
    """The game it belongs to, from 1."""
    action_index: int
    """Its action's index in the match's action list: replaying that many actions gives the
    board it was made on (for the mistake's picture)."""
    player: int
    """The seat that decided: 0 or 1."""
    kind: DecisionKind
    played: str
    """What was played, in the game's notation ("13/8 6/5", "double", "no double", "take",
    "pass")."""
    best: str
    """The best choice, in the same notation."""
    equity_loss: float
    """What the choice cost against the best, >= 0."""
    forced: bool
    """Only one choice was legal (or cube-wise, nothing close): not counted as a decision."""
    luck: float | None
    """For a play of the dice: the equity the roll gave the player against the average roll;
    None where no dice were rolled for this decision."""
    win_chance: float
    """Seat 0's chance to win (the match, in match play) right after this decision, 0 to 1."""
    position_id: str = ""
    """The board before the decision in the game's ID (drawn for the worst mistakes)."""
    dice: tuple[int, ...] = ()
    """The roll being played, for a move in a dice game."""
    match_id: str = ""
    """Backgammon: gnubg's Match ID beside ``position_id`` (the cube, the score, the dice, a
    double offered), so the two paste into GNU Backgammon or ``tablebot hint``."""

    @property
    def is_mistake(self) -> bool:
        return self.equity_loss >= MISTAKE and not self.forced

    @property
    def is_error(self) -> bool:
        return self.equity_loss >= ERROR

    @property
    def is_blunder(self) -> bool:
        return self.equity_loss >= BLUNDER


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """One player's figures over the analysed decisions."""

    name: str
    checker_error_rate: float
    """Thousandths of an equity point lost per unforced move decision."""
    cube_error_rate: float
    """Thousandths of an equity point lost per unforced cube or take decision."""
    error_rate: float
    """Thousandths lost per unforced decision of either kind."""
    pr: float | None
    """500 times the average loss per unforced decision (backgammon only, as gnubg and XG)."""
    luck: float
    """Equity the dice gave against the average roll, summed."""
    errors: int
    blunders: int
    unforced_decisions: int
    unforced_moves: int
    unforced_cube_decisions: int
    checker_loss: float
    cube_loss: float
    rating: str
    """The word for :attr:`error_rate` on :data:`RATING_SCALE`."""


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    players: tuple[PlayerFigures, PlayerFigures]
    decisions: tuple[Decision, ...]
    games: int
    details: dict[str, object] = field(default_factory=dict)
    """How it was analysed (evaluator, ply), for the report and the JSON."""

    def worst(self, count: int = 3) -> list[Decision]:
        """The costliest mistakes (:attr:`Decision.is_mistake`), worst first; ties in playing
        order."""
        mistakes = [d for d in self.decisions if d.is_mistake]
        return sorted(mistakes, key=lambda d: -d.equity_loss)[:count]


def rating_word(error_per_decision: float) -> str:
    """gnubg's classic word for an average loss per unforced decision (in equity points).

    >>> rating_word(0.0), rating_word(0.004), rating_word(0.015), rating_word(0.04)
    ('Supernatural', 'World class', 'Intermediate', 'Awful!')
    """
    for bound, word in RATING_SCALE:
        if error_per_decision < bound:
            return word
    return "Awful!"


def _per_thousand(loss: float, count: int) -> float:
    return 1000.0 * loss / count if count else 0.0


def summarise(
    decisions: Sequence[Decision],
    names: tuple[str, str],
    *,
    pr_scale: bool,
    details: dict[str, object] | None = None,
) -> MatchAnalysis:
    """Each player's figures from the decisions; ``pr_scale`` gives the PR (backgammon)."""
    figures = []
    for seat in (0, 1):
        mine = [d for d in decisions if d.player == seat]
        unforced = [d for d in mine if not d.forced]
        moves = [d for d in unforced if d.kind is DecisionKind.MOVE]
        cube = [d for d in unforced if d.kind is not DecisionKind.MOVE]
        checker_loss = sum(d.equity_loss for d in moves)
        cube_loss = sum(d.equity_loss for d in cube)
        average = (checker_loss + cube_loss) / len(unforced) if unforced else 0.0
        figures.append(
            PlayerFigures(
                name=names[seat],
                checker_error_rate=_per_thousand(checker_loss, len(moves)),
                cube_error_rate=_per_thousand(cube_loss, len(cube)),
                error_rate=1000.0 * average,
                pr=500.0 * average if pr_scale else None,
                luck=sum(d.luck for d in mine if d.luck is not None),
                errors=sum(1 for d in unforced if d.is_error),
                blunders=sum(1 for d in unforced if d.is_blunder),
                unforced_decisions=len(unforced),
                unforced_moves=len(moves),
                unforced_cube_decisions=len(cube),
                checker_loss=checker_loss,
                cube_loss=cube_loss,
                rating=rating_word(average),
            )
        )
    games = max((d.game for d in decisions), default=0)
    return MatchAnalysis((figures[0], figures[1]), tuple(decisions), games, dict(details or {}))


class GameEvaluator(Protocol):
    """What judges the decisions of one game of a finished match."""

    @property
    def details(self) -> dict[str, object]:
        """How it analyses (``{"evaluator": ..., "ply": ...}``), kept with the report."""
        ...

    def analyse_game(
        self, rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int
    ) -> list[Decision]:
        """Every decision of game ``game`` (from 1) of the match ``actions`` replay, in
        playing order; a ValueError (or the evaluator's own error) where they don't fit."""
        ...


def count_games(kind: GameKind, rules: MatchRules, actions: Sequence[Action]) -> int:
    """How many games the actions play into (a game with any action counts)."""
    match = new_match(kind, rules, recorded=True)
    games = 0
    for action in actions:
        games = max(games, match.game_number)
        match.apply(action)
    return games


def analysis_details(kind: GameKind, evaluator: GameEvaluator) -> dict[str, object]:
    """What the report keeps of how a game of ``kind`` was analysed."""
    return {"game": GameKind(kind).value, **evaluator.details}


def analyse_match(
    evaluator: GameEvaluator,
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """The whole match analysed here, game by game (``progress(game, games)`` before each),
    and summed up by :func:`summarise`."""
    kind = GameKind(kind)
    total = count_games(kind, rules, actions)
    decisions: list[Decision] = []
    for game in range(1, total + 1):
        if progress is not None:
            progress(game, total)
        decisions += evaluator.analyse_game(rules, actions, names, game)
    return summarise(
        decisions,
        names,
        pr_scale=spec_of(kind).analysis_pr,
        details=analysis_details(kind, evaluator),
    )
