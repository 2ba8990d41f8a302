"""FIBS and Elo rating changes against hand-computed values; a finished match's stats and
ratings (:func:`rate_match`), a pure function of the players' rows."""

from __future__ import annotations

import doctest
import math

import pytest

import bot.service.ratings
from bot.service import Player
from bot.service.ratings import (
    elo_changes,
    fibs_changes,
    fibs_k,
    fibs_upset_probability,
    rate_match,
)
from bot.storage import StatUpdate
from engines.base import GameKind


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


def test_the_module_doctests() -> None:
    assert doctest.testmod(bot.service.ratings).failed == 0


PLAYERS = (Player(1, "ann"), Player(2, "bob"))


def test_rate_match_reads_the_rows_and_sets_rating_experience_and_streak() -> None:
    rows = {
        1: {"rating": 1600.0, "experience": 150, "streak": 2},
        2: {"rating": 1500.0, "experience": 0, "streak": -3},
    }
    updates, ratings = rate_match(PLAYERS, 7, GameKind.BACKGAMMON, 5, 1, rows)
    won, lost = fibs_changes(1500.0, 1600.0, 0, 150, 5)  # the underdog, seat 1, won
    assert ratings == [(1600.0, 1600.0 + lost), (1500.0, 1500.0 + won)]
    assert updates == [
        StatUpdate(
            7,
            "backgammon",
            1,
            "ann",
            {"played": 1, "lost": 1},
            {"rating": 1600.0 + lost, "experience": 155, "streak": -1},
        ),
        StatUpdate(
            7,
            "backgammon",
            2,
            "bob",
            {"played": 1, "won": 1},
            {"rating": 1500.0 + won, "experience": 5, "streak": 1},
        ),
    ]
    assert rows[1]["rating"] == 1600.0  # the rows are only read


def test_rate_match_newcomers_money_play_and_a_drawn_checkers_match() -> None:
    # No rows yet: both start at the initial rating; money play counts, unrated.
    updates, ratings = rate_match(PLAYERS, 7, GameKind.BACKGAMMON, 0, 0, {}, initial=1400.0)
    assert ratings == [(1400.0, 1400.0), (1400.0, 1400.0)]
    assert [u.set for u in updates] == [
        {"rating": 1400.0, "experience": 0, "streak": 1},
        {"rating": 1400.0, "experience": 0, "streak": -1},
    ]
    rows = {2: {"rating": 1700.0, "experience": 3, "streak": 4}}
    updates, ratings = rate_match(PLAYERS, 7, GameKind.CHECKERS, 2, None, rows)
    gain, loss = elo_changes(1500.0, 1700.0, 0.5)
    assert ratings == [(1500.0, 1500.0 + gain), (1700.0, 1700.0 + loss)]
    assert [u.add for u in updates] == [{"played": 1, "drawn": 1}, {"played": 1, "drawn": 1}]
    assert [u.set["experience"] for u in updates] == [1, 4]  # a checkers match counts 1
    assert [u.set["streak"] for u in updates] == [0, 0]
