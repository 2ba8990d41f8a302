"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013): the rating of puzzle solvers
and of puzzles, as lichess rates its puzzles. Each attempt is a game between a member and a
puzzle: solved is a win for the member, missed a win for the puzzle.

>>> player = Glicko(1500.0, 200.0, 0.06)
>>> games = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
>>> new = player.updated(games)
>>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_TAU", "Glicko"]

SCALE = 173.7178  # Glicko-2's ratio between the Glicko scale and its own
DEFAULT_TAU = 0.5  # how fast volatility may change: Glickman suggests 0.3 to 1.2
CONVERGENCE = 1e-6
MAX_DEVIATION = 350.0
MIN_DEVIATION = 45.0  # a floor, as lichess keeps, so a rating never freezes


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating with its deviation (uncertainty) and volatility, on the familiar 1500 scale."""

    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    def expected(self, other: Glicko) -> float:
        """This side's expected score against ``other``."""
        mu, (mu_j, phi_j) = self._mu, other._scaled
        return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))

    def updated(self, games: Sequence[tuple[Glicko, float]], tau: float = DEFAULT_TAU) -> Glicko:
        """After one rating period with ``games`` (opponent, score 1 / 0.5 / 0); with none, only
        the deviation grows."""
        mu, phi = self._scaled
        if not games:
            grown = math.sqrt(phi * phi + self.volatility**2) * SCALE
            return Glicko(self.rating, min(MAX_DEVIATION, grown), self.volatility)
        scaled = [(other._scaled, score) for other, score in games]
        inverse_v = 0.0
        delta_sum = 0.0
        for (mu_j, phi_j), score in scaled:
            g = _g(phi_j)
            e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
            inverse_v += g * g * e * (1.0 - e)
            delta_sum += g * (score - e)
        v = 1.0 / inverse_v
        delta = v * delta_sum
        sigma = _new_volatility(phi, self.volatility, v, delta, tau)
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        new_mu = mu + new_phi * new_phi * delta_sum
        deviation = min(MAX_DEVIATION, max(MIN_DEVIATION, new_phi * SCALE))
        return Glicko(new_mu * SCALE + 1500.0, deviation, sigma)

    @property
    def _mu(self) -> float:
        return (self.rating - 1500.0) / SCALE

    @property
    def _scaled(self) -> tuple[float, float]:
        return self._mu, self.deviation / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)
