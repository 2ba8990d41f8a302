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
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engines import new_match
from engines.actions import Action
from engines.base import GameKind, MatchRules
from engines.puzzles import EQUITY_TOLERANCE, PuzzleRule
from engines.spec import spec_of

__all__ = [
    "ACCEPT",
    "BLUNDER",
    "DECLINE",
    "ERROR",
    "MISTAKE",
    "PLAY_ON",
    "RATING_SCALE",
    "Decision",
    "DecisionKind",
    "GameEvaluator",
    "MatchAnalysis",
    "PlayerFigures",
    "Resignation",
    "ResignationValue",
    "Resignations",
    "analyse_match",
    "analysis_details",
    "count_games",
    "puzzle_candidates",
    "rating_word",
    "resign_words",
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
    RESIGN = "resign"  # offer a resignation rather than play on
    RESIGN_ANSWER = "resign_answer"  # accept or decline a resignation

    @property
    def resignation(self) -> bool:
        """A resignation's offer or answer: judged and listed, but, as GNU Backgammon's
        statistics, not counted in the error rates, PR or error counts."""
        return self in (DecisionKind.RESIGN, DecisionKind.RESIGN_ANSWER)


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
    "pass", "resign", "resign gammon", "play on", "accept", "decline")."""
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
        mine = [d for d in decisions if d.player == seat and not d.kind.resignation]
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


PLAY_ON = "play on"
ACCEPT = "accept"
DECLINE = "decline"


def resign_words(level_name: str) -> str:
    """A resignation as the analysis writes it: "resign" for a single game, else "resign
    gammon" (the level's name from :meth:`engines.spec.GameSpec.resign_level_name`).

    >>> resign_words("single"), resign_words("a NANNON")
    ('resign', 'resign a NANNON')
    """
    return "resign" if level_name == "single" else f"resign {level_name}"


@dataclass(frozen=True, slots=True)
class ResignationValue:
    """A resignation offer as a game's evaluator values it, in the resigner's equity (the
    units of the game's decisions), with seat 0's chance each way for the chart."""

    play_on: float
    """What playing on is worth to the resigner."""
    resigned: float
    """What the resignation, accepted, leaves the resigner (minus what it gives)."""
    chance: float
    """Seat 0's chance playing on."""
    resigned_chance: float
    """Seat 0's chance once the resignation is accepted."""


@dataclass(frozen=True, slots=True)
class Resignation:
    """One resignation offer of a game, waiting for its answer: :meth:`judged` makes the
    offer's decision and the answer's, judged as GNU Backgammon judges them. Offering costs
    what playing on was worth above what the resignation leaves; declining costs the same
    (the answerer then gets less than was offered); accepting costs what the answerer would
    have had playing on above what was offered.

    >>> offer = Resignation(1, 10, 0, "resign", ResignationValue(-0.4, -1.0, 0.3, 0.0))
    >>> [(d.played, d.best, round(d.equity_loss, 2)) for d in offer.judged((11, True))]
    [('resign', 'play on', 0.6), ('accept', 'accept', 0.0)]
    >>> lost = Resignation(1, 10, 0, "resign", ResignationValue(-1.0, -1.0, 0.0, 0.0))
    >>> [(d.played, d.best, d.equity_loss) for d in lost.judged((11, False))]
    [('resign', 'resign', 0.0), ('decline', 'accept', 0.0)]
    """

    game: int
    action_index: int
    seat: int
    played: str
    value: ResignationValue
    position_id: str = ""
    dice: tuple[int, ...] = ()
    match_id: str = ""

    def judged(self, answer: tuple[int, bool] | None) -> list[Decision]:
        """The offer's decision and, where ``answer`` (its action index, accepted) is
        given, the answer's, in playing order."""
        value = self.value
        generous = value.play_on - value.resigned  # > 0: the resigner gives away too much
        out = [
            Decision(
                self.game,
                self.action_index,
                self.seat,
                DecisionKind.RESIGN,
                self.played,
                PLAY_ON if generous >= MISTAKE else self.played,
                max(0.0, generous),
                False,
                None,
                value.chance,
                self.position_id,
                self.dice,
                self.match_id,
            )
        ]
        if answer is not None:
            index, accepted = answer
            out.append(
                Decision(
                    self.game,
                    index,
                    1 - self.seat,
                    DecisionKind.RESIGN_ANSWER,
                    ACCEPT if accepted else DECLINE,
                    ACCEPT if generous > -MISTAKE else DECLINE,
                    max(0.0, -generous if accepted else generous),
                    False,
                    None,
                    value.resigned_chance if accepted else value.chance,
                    self.position_id,
                    self.dice,
                    self.match_id,
                )
            )
        return out


class Resignations:
    """Pairs each resignation of a game with its answer, as an evaluator replays it."""

    def __init__(self) -> None:
        self.pending: Resignation | None = None
        self.decisions: list[Decision] = []

    def offered(self, offer: Resignation) -> None:
        self.close()
        self.pending = offer

    def answered(self, action_index: int, accepted: bool) -> list[Decision]:
        """The waiting offer's decisions with this answer (none when nothing waits)."""
        if self.pending is None:
            return []
        judged = self.pending.judged((action_index, accepted))
        self.pending = None
        self.decisions += judged
        return judged

    def close(self) -> list[Decision]:
        """An offer never answered (a resignation that ends the game at once, as in
        checkers, or the match conceded): the offer's decision alone."""
        if self.pending is None:
            return []
        judged = self.pending.judged(None)
        self.pending = None
        self.decisions += judged
        return judged


def puzzle_candidates(
    decisions: Iterable[Decision], rule: PuzzleRule, seats: Container[int] = (0, 1)
) -> list[Decision]:
    """The analysed decisions that may make puzzles under ``rule``: by one of ``seats``, not
    forced, not a resignation (no puzzle asks whether to resign), and losing at least the
    rule's minimum; each still has to :func:`engines.puzzles.qualifies` on its ranked options."""
    return [
        d
        for d in decisions
        if not d.forced
        and not d.kind.resignation
        and d.player in seats
        and d.equity_loss >= rule.min_loss - EQUITY_TOLERANCE
    ]


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
