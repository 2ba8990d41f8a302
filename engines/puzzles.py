"""Puzzles from analysed decisions: which decisions make a fair puzzle, the answer key, the menu a
solver picks from, and which puzzle to post next. Pure values; the evaluators that rank every
option (gnubg, the Nannon solver, the checkers search) and the storage live elsewhere.

A decision makes a puzzle when the move played lost at least the game's ``min_loss`` and the best
option beats the second best by at least ``margin``, so the answer is clear, not a coin flip.

>>> key = AnswerKey.of([("13/8 6/5", 0.10), ("24/18 13/8", -0.02), ("8/3 6/5", -0.05)])
>>> key.best.move, round(key.margin, 3), round(key.loss("8/3 6/5"), 3)
('13/8 6/5', 0.12, 0.15)
>>> qualifies(key, "8/3 6/5", PuzzleRule(min_loss=0.08, margin=0.04))
True
>>> [c.move for c in menu(key, "8/3 6/5", limit=2)]
['13/8 6/5', '8/3 6/5']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engines.values import GameKind

__all__ = [
    "EQUITY_TOLERANCE",
    "MENU_LIMIT",
    "AnswerKey",
    "Option",
    "PuzzleRule",
    "cube_options",
    "menu",
    "next_game",
    "qualifies",
    "take_options",
]

DOUBLE, NO_DOUBLE, TAKE, PASS = "double", "no double", "take", "pass"
"""The cube options' words, as :class:`engines.analysis.Decision` names them."""

MENU_LIMIT = 25  # a Discord select menu holds 25 options
EQUITY_TOLERANCE = 1e-9  # equities are sums of floats: a difference this small is a tie


@dataclass(frozen=True, slots=True)
class PuzzleRule:
    """When a decision is a puzzle: the move played lost at least ``min_loss`` and the best
    option leads the second by at least ``margin`` (both in the analysis' equity units)."""

    min_loss: float
    margin: float


@dataclass(frozen=True, slots=True)
class Option:
    """A legal choice (a move in the game's notation, or a cube word) and its equity."""

    move: str
    equity: float


@dataclass(frozen=True, slots=True)
class AnswerKey:
    """Every legal option with its equity, best first (ties keep the evaluator's order)."""

    options: tuple[Option, ...]

    @classmethod
    def of(cls, ranked: Iterable[tuple[str, float] | Option]) -> AnswerKey:
        options = tuple(r if isinstance(r, Option) else Option(r[0], r[1]) for r in ranked)
        if len({o.move for o in options}) != len(options):
            raise ValueError("an option is listed twice")
        if not options:
            raise ValueError("an answer key needs at least one option")
        return cls(tuple(sorted(options, key=lambda o: -o.equity)))

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def margin(self) -> float:
        """How far the best leads the second best (0 with one option)."""
        return self.options[0].equity - self.options[1].equity if len(self.options) > 1 else 0.0

    def loss(self, move: str) -> float:
        """What ``move`` gives up against the best; KeyError if it is not an option."""
        for option in self.options:
            if option.move == move:
                return self.best.equity - option.equity
        raise KeyError(move)

    def to_list(self) -> list[list[str | float]]:
        """As JSON-ready pairs, best first: ``[["13/8 6/5", 0.1], ...]``."""
        return [[o.move, o.equity] for o in self.options]

    @classmethod
    def from_list(cls, pairs: Sequence[Sequence[str | float]]) -> AnswerKey:
        return cls.of((str(move), float(equity)) for move, equity in pairs)


def qualifies(key: AnswerKey, played: str, rule: PuzzleRule) -> bool:
    """Whether the decision where ``played`` was chosen makes a fair puzzle under ``rule``."""
    if len(key.options) < 2:
        return False
    loss = key.loss(played)
    return loss >= rule.min_loss - EQUITY_TOLERANCE and key.margin >= rule.margin - EQUITY_TOLERANCE


def menu(key: AnswerKey, played: str, limit: int = MENU_LIMIT) -> tuple[Option, ...]:
    """The options a solver picks from: the best, the move played, then the next best, up to
    ``limit``; in the key's order (the caller shuffles or sorts them so the best is not first)."""
    if limit < 2:
        raise ValueError("a menu offers at least the best and the played move")
    chosen = {key.best.move, played}
    for option in key.options:
        if len(chosen) >= limit:
            break
        chosen.add(option.move)
    return tuple(o for o in key.options if o.move in chosen)


def next_game(
    pool: Mapping[GameKind, int],
    recent: Sequence[GameKind],
    rng: random.Random,
) -> GameKind | None:
    """The game of the next daily puzzle: of the games with puzzles left in ``pool``, the one
    posted longest ago (never, first) per ``recent`` (the last posts, newest last); a tie is
    drawn with ``rng``. None when the pool is empty."""
    games = [g for g, left in pool.items() if left > 0]
    if not games:
        return None

    def last_posted(game: GameKind) -> int:
        for age, posted in enumerate(reversed(recent)):
            if posted is game:
                return age
        return len(recent) + 1

    oldest = max(last_posted(g) for g in games)
    return rng.choice(sorted(g for g in games if last_posted(g) == oldest))


def cube_options(no_double: float, double_take: float, double_pass: float) -> list[Option]:
    """A cube decision's two options for the side on roll: doubling is worth the worse of
    the opponent's answers for it (they answer best), not doubling the no-double equity."""
    return [Option(DOUBLE, min(double_take, double_pass)), Option(NO_DOUBLE, no_double)]


def take_options(take_equity: float, pass_equity: float) -> list[Option]:
    """An answer to a double's two options, the taker's equities."""
    return [Option(TAKE, take_equity), Option(PASS, pass_equity)]
