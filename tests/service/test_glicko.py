"""Glicko-2 (bot/service/glicko.py), the puzzle rating: Glickman's worked example and the
properties a rating must have."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.service.glicko import MAX_DEVIATION, MIN_DEVIATION, Glicko

ratings = st.builds(
    Glicko,
    st.floats(800, 2600),
    st.floats(MIN_DEVIATION, MAX_DEVIATION),
    st.floats(0.03, 0.09),
)


def test_glickmans_example() -> None:
    player = Glicko(1500, 200, 0.06)
    games = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    new = player.updated(games)
    # The paper: r' = 1464.06 (it rounds its intermediate steps), RD' = 151.52, sigma' = 0.05999.
    assert new.rating == pytest.approx(1464.05, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    player = Glicko(1700, 60, 0.06)
    idle = player.updated([])
    assert idle.rating == 1700 and idle.volatility == 0.06
    assert idle.deviation == pytest.approx((60**2 + (0.06 * 173.7178) ** 2) ** 0.5)
    assert Glicko(1500, MAX_DEVIATION).updated([]).deviation == MAX_DEVIATION


@given(ratings, ratings)
def test_expected_scores_add_up_to_one(a: Glicko, b: Glicko) -> None:
    assert 0.0 < a.expected(b) < 1.0
    if a.deviation == b.deviation:
        assert a.expected(b) + b.expected(a) == pytest.approx(1.0)


@given(ratings, ratings)
def test_a_win_raises_a_loss_lowers_and_a_game_narrows(player: Glicko, opponent: Glicko) -> None:
    won = player.updated([(opponent, 1.0)])
    lost = player.updated([(opponent, 0.0)])
    assert lost.rating < player.rating < won.rating
    for after in (won, lost):
        # At most what the period alone would make of it, at the new volatility.
        idle = Glicko(player.rating, player.deviation, after.volatility).updated([])
        assert MIN_DEVIATION <= after.deviation <= max(idle.deviation, MIN_DEVIATION) + 1e-9


def test_an_upset_moves_more_than_the_expected_result() -> None:
    player = Glicko(1500, 100)
    assert (
        player.updated([(Glicko(1900, 50), 1.0)]).rating - 1500
        > player.updated([(Glicko(1100, 50), 1.0)]).rating - 1500
    )
