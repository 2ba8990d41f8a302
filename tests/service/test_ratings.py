"""FIBS and Elo rating changes against hand-computed values."""

from __future__ import annotations

import math

import pytest

from bot.service.ratings import elo_changes, fibs_changes, fibs_k, fibs_upset_probability


def test_fibs_experience_factor() -> None:
    assert (fibs_k(0), fibs_k(150), fibs_k(400), fibs_k(5000)) == (5.0, 3.5, 1.0, 1.0)


def test_fibs_favourite_and_underdog() -> None:
    # 1850 vs 1750 in a 7-point match, both experienced.
    upset = 1 / (10 ** (100 * math.sqrt(7) / 2000) + 1)
    assert fibs_upset_probability(1850, 1750, 7) == pytest.approx(upset)
    won, lost = fibs_changes(1850, 1750, 1000, 1000, 7)  # the favourite wins: small gain
    assert won == pytest.approx(4 * math.sqrt(7) * upset) and lost == pytest.approx(-won)
    won, lost = fibs_changes(1750, 1850, 1000, 1000, 7)  # the underdog wins: big gain
    assert won == pytest.approx(4 * math.sqrt(7) * (1 - upset))
    # Each side's own experience scales its own change.
    won, lost = fibs_changes(1500, 1500, 0, 400, 1)
    assert (won, lost) == (10.0, -2.0)
    with pytest.raises(ValueError):
        fibs_changes(1500, 1500, 0, 0, 0)


def test_elo() -> None:
    assert elo_changes(1500, 1500, 0.5) == (0.0, -0.0)
    gain, loss = elo_changes(1400, 1800, 1.0)
    assert gain == pytest.approx(32 * (1 - 1 / 11)) and loss == pytest.approx(-gain)
