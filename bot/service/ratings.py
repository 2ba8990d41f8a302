"""Rating formulas: FIBS for Nannon and backgammon matches, Elo for checkers; and
:func:`rate_match`, a finished match's stats and ratings, computed purely from the players'
current ratings rows.

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
from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.storage.types import Row, StatUpdate
from engines.base import GameKind
from engines.spec import RatingSystem, spec_of

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


class RatedPlayer(Protocol):
    """A seat's player: the service's ``Player``."""

    @property
    def user_id(self) -> int: ...

    @property
    def name(self) -> str: ...


def rate_match(
    players: Sequence[RatedPlayer],
    guild_id: int,
    game: GameKind,
    length: int,
    winner: int | None,
    rows: Mapping[int, Row],
    initial: float = INITIAL_RATING,
) -> tuple[list[StatUpdate], list[tuple[float, float]]]:
    """A finished match's stats and ratings: the ratings-row updates of both seats (played,
    won/lost/drawn, new rating, experience and streak) and each seat's (rating before, rating
    after), from ``rows``, the players' current ratings rows by user id (a player without one
    starts at ``initial``). ``winner`` is the winning seat, None for a draw; ``length`` 0 is a
    money game, which counts in the stats and not in the ratings.

    Pure: the store calls it (through the service's finisher) inside the match's last
    transaction, with the rows it read there.

    >>> from types import SimpleNamespace as P
    >>> updates, ratings = rate_match(
    ...     [P(user_id=1, name="a"), P(user_id=2, name="b")], 9, GameKind.CHECKERS, 1, 0, {}
    ... )
    >>> ratings
    [(1500.0, 1516.0), (1500.0, 1484.0)]
    >>> updates[1].add, updates[1].set
    ({'played': 1, 'lost': 1}, {'rating': 1484.0, 'experience': 1, 'streak': -1})
    """
    ids = [p.user_id for p in players]
    rating = [float(rows[i]["rating"]) if i in rows else initial for i in ids]
    experience = [int(rows[i]["experience"]) if i in rows else 0 for i in ids]
    streak = [int(rows[i]["streak"]) if i in rows else 0 for i in ids]
    delta = [0.0, 0.0]
    rated = length > 0  # money games count in the stats, not in the ratings
    system = spec_of(game).rating_system
    if rated and winner is not None and system is RatingSystem.FIBS:
        won, lost = fibs_changes(
            rating[winner],
            rating[1 - winner],
            experience[winner],
            experience[1 - winner],
            length,
        )
        delta[winner], delta[1 - winner] = won, lost
    elif rated and system is RatingSystem.ELO:
        score0 = 0.5 if winner is None else float(winner == 0)
        delta[0], delta[1] = elo_changes(rating[0], rating[1], score0)
    updates, ratings = [], []
    for seat, player in enumerate(players):
        outcome = "drawn" if winner is None else ("won" if winner == seat else "lost")
        if outcome == "won":
            new_streak = streak[seat] + 1 if streak[seat] > 0 else 1
        elif outcome == "lost":
            new_streak = streak[seat] - 1 if streak[seat] < 0 else -1
        else:
            new_streak = 0
        after = rating[seat] + delta[seat]
        gained = spec_of(game).experience(length)
        updates.append(
            StatUpdate(
                guild_id,
                game.value,
                player.user_id,
                player.name,
                {"played": 1, outcome: 1},
                {
                    "rating": after,
                    "experience": experience[seat] + gained,
                    "streak": new_streak,
                },
            )
        )
        ratings.append((rating[seat], after))
    return updates, ratings
