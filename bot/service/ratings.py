"""Rating formulas: FIBS for Nannon and backgammon matches, Elo for checkers.

FIBS (from its ``help formula`` page): with D = |r1 - r2| and n the match length, the underdog
wins with P_upset = 1 / (10^(D * sqrt(n) / 2000) + 1). P is P_upset when the favourite wins,
1 - P_upset when the underdog wins. Each player's change is +-4 * K * sqrt(n) * P with their own
K = max(1, 5 - experience / 100); experience is the sum of the lengths of finished matches.

>>> round(fibs_changes(1500, 1500, 0, 0, 5)[0], 3)
22.361
>>> w, loser = fibs_changes(1500, 1500, 400, 400, 1)
>>> (w, loser)
(2.0, -2.0)
>>> elo_changes(1500, 1500, 1.0)
(16.0, -16.0)
"""

from __future__ import annotations

import logging
import math

log = logging.getLogger(__name__)

INITIAL_RATING = 1500.0
ELO_K = 32.0


def fibs_k(experience: int) -> float:
    """The FIBS experience factor: 5 for a newcomer, down to 1 from 400 experience on."""
    return max(1.0, 5.0 - experience / 100.0)


def fibs_upset_probability(rating_a: float, rating_b: float, length: int) -> float:
    """The chance that the lower-rated player wins an ``length``-point match."""
    diff = abs(rating_a - rating_b)
    return float(1.0 / (10.0 ** (diff * math.sqrt(length) / 2000.0) + 1.0))


def fibs_changes(
    winner_rating: float,
    loser_rating: float,
    winner_experience: int,
    loser_experience: int,
    length: int,
) -> tuple[float, float]:
    """(winner's change, loser's change) for a finished ``length``-point match."""
    if length < 1:
        raise ValueError(f"a rated match has a length of at least 1, not {length}")
    upset = fibs_upset_probability(winner_rating, loser_rating, length)
    # Equal ratings: either reading gives 1/2.
    p = upset if winner_rating >= loser_rating else 1.0 - upset
    swing = 4.0 * math.sqrt(length) * p
    return swing * fibs_k(winner_experience), -swing * fibs_k(loser_experience)


def elo_expected(rating: float, opponent: float) -> float:
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def elo_changes(rating_a: float, rating_b: float, score_a: float) -> tuple[float, float]:
    """(a's change, b's change) when a scores ``score_a`` (1 win, 0.5 draw, 0 loss) against b."""
    change = ELO_K * (score_a - elo_expected(rating_a, rating_b))
    return change, -change
