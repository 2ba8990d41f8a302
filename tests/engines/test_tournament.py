"""Tournament pairing and standings (engines/tournament.py): knockout brackets, Berger tables,
Swiss rounds, tie-breaks. Pairing rules are checked as properties over many random events."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.tournament import (
    BYE_POINTS,
    Pairing,
    RoundResult,
    SwissPlayer,
    bracket_order,
    knockout_first_round,
    knockout_next_round,
    knockout_rounds_needed,
    pair_swiss,
    round_robin_rounds,
    standings,
    swiss_rounds_recommended,
)

# --- knockout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16, 32, 64])
def test_bracket_order_is_a_permutation_with_the_top_seeds_apart(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    # Each half, quarter, ... holds exactly one of the top 2, 4, ... seeds.
    part = size
    while part > 1:
        groups = [order[i : i + part] for i in range(0, size, part)]
        top = size // part
        assert all(sum(1 for s in g if s <= top) == 1 for g in groups)
        part //= 2


def test_bracket_order_refuses_a_size_that_is_not_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="power of two"):
        bracket_order(6)


@given(st.integers(2, 70), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_knockout_seeds_one_and_two_meet_only_in_the_final(count: int, rng: random.Random) -> None:
    seeded = [100 + i for i in range(count)]  # seed k is 100 + k - 1
    rounds = knockout_rounds_needed(count)
    pairings = knockout_first_round(seeded)
    size = 1 << rounds
    byes = [p.first for p in pairings if p.is_bye]
    assert sorted(byes) == seeded[: size - count]  # the top seeds take the byes
    assert Counter(x for p in pairings for x in p.ids if x is not None) == Counter(seeded)
    for round_no in range(1, rounds + 1):
        for p in pairings:
            if {p.first, p.second} == {100, 101}:
                assert round_no == rounds  # the final
        winners = [p.first if p.is_bye or rng.random() < 0.5 else p.second for p in pairings]
        if round_no == rounds:
            assert len(winners) == 1
            break
        pairings = knockout_next_round([w for w in winners if w is not None])


def test_seeds_one_and_two_reach_the_final_when_the_favourites_win() -> None:
    pairings = knockout_first_round(list(range(1, 9)))
    assert [p.ids for p in pairings] == [(1, 8), (4, 5), (2, 7), (3, 6)]
    while len(pairings) > 1:
        pairings = knockout_next_round([min(x for x in p.ids if x is not None) for p in pairings])
    assert pairings[0].ids == (1, 2)


def test_a_knockout_needs_two_and_an_even_round() -> None:
    with pytest.raises(ValueError):
        knockout_first_round([1])
    with pytest.raises(ValueError):
        knockout_next_round([1, 2, 3])


# --- round robin -------------------------------------------------------------------------------


@pytest.mark.parametrize("count", range(2, 14))
def test_round_robin_meets_each_opponent_exactly_once(count: int) -> None:
    entrants = list(range(1, count + 1))
    rounds = round_robin_rounds(entrants)
    assert len(rounds) == (count if count % 2 else count - 1)
    met: Counter[frozenset[int]] = Counter()
    seats: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    for pairings in rounds:
        seen = [x for p in pairings for x in p.ids if x is not None]
        assert sorted(seen) == entrants  # everyone once a round
        for p in pairings:
            if p.second is None:
                byes[p.first] += 1
            else:
                met[frozenset(p.ids)] += 1
                seats[p.first] += 1
    assert set(met) == {frozenset(c) for c in itertools.combinations(entrants, 2)}
    assert set(met.values()) == {1}
    assert byes == (Counter(entrants) if count % 2 else Counter())
    games = count - 1
    for e in entrants:  # seat 0 about half the time
        assert abs(2 * seats[e] - games) <= 1 + (count % 2)


# --- Swiss -------------------------------------------------------------------------------------


def test_swiss_round_one_pairs_top_half_against_bottom_half() -> None:
    players = [SwissPlayer(id=i, rating=2000 - 10 * i) for i in range(1, 9)]
    pairs = {frozenset(p.ids) for p in pair_swiss(players)}
    assert pairs == {frozenset(x) for x in [(1, 5), (2, 6), (3, 7), (4, 8)]}


def test_swiss_odd_one_out_floats_to_the_next_group() -> None:
    players = [SwissPlayer(id=i, score=1.0, rating=100 - i) for i in range(1, 4)] + [
        SwissPlayer(id=i, score=0.0, rating=100 - i) for i in range(4, 7)
    ]
    pairs = {frozenset(p.ids) for p in pair_swiss(players)}
    # 1 meets 2 in the top group; 3 floats down to the top of the next; 5-6 remain.
    assert pairs == {frozenset((1, 2)), frozenset((3, 4)), frozenset((5, 6))}


def test_swiss_bye_goes_to_the_lowest_without_one() -> None:
    players = [SwissPlayer(id=i, score=3 - i * 0.5, rating=0) for i in range(5)]
    players[4] = SwissPlayer(id=4, score=1.0, had_bye=True)
    pairings = pair_swiss(players)
    assert [p.first for p in pairings if p.is_bye] == [3]


def test_swiss_seats_go_to_whoever_sat_there_less() -> None:
    a = SwissPlayer(id=1, score=1, rating=10, seat_balance=1)
    b = SwissPlayer(id=2, score=1, rating=5, seat_balance=-1)
    assert pair_swiss([a, b]) == [Pairing(2, 1)]
    assert pair_swiss([a, b], balance_seats=False) == [Pairing(1, 2)]


def test_swiss_rematch_only_when_nothing_else_is_possible() -> None:
    players = [
        SwissPlayer(id=1, opponents=frozenset({2})),
        SwissPlayer(id=2, opponents=frozenset({1})),
    ]
    assert {frozenset(p.ids) for p in pair_swiss(players)} == {frozenset((1, 2))}


def test_swiss_avoids_the_greedy_trap() -> None:
    # 1's natural partner (3) would leave 2 and 4, who have met: the matching sees it coming.
    players = [
        SwissPlayer(id=1, score=1, rating=4),
        SwissPlayer(id=2, score=1, rating=3, opponents=frozenset({4})),
        SwissPlayer(id=3, score=1, rating=2),
        SwissPlayer(id=4, score=1, rating=1, opponents=frozenset({2})),
    ]
    pairs = {frozenset(p.ids) for p in pair_swiss(players)}
    assert frozenset((2, 4)) not in pairs


def _pairable(ids: tuple[int, ...], met: frozenset[frozenset[int]]) -> bool:
    """Brute force: can ``ids`` all be paired without a rematch?"""

    @cache
    def solve(rest: tuple[int, ...]) -> bool:
        if not rest:
            return True
        head, tail = rest[0], rest[1:]
        return any(
            frozenset((head, o)) not in met and solve(tail[:i] + tail[i + 1 :])
            for i, o in enumerate(tail)
        )

    return solve(ids)


def _legal_pairing_exists(players: list[SwissPlayer], met: frozenset[frozenset[int]]) -> bool:
    ids = tuple(p.id for p in players)
    if len(ids) % 2 == 0:
        return _pairable(ids, met)
    may_sit_out = [p.id for p in players if not p.had_bye] or list(ids)
    return any(_pairable(tuple(i for i in ids if i != c), met) for c in may_sit_out)


@given(st.integers(2, 12), st.integers(1, 11), st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_swiss_events_keep_the_rules(count: int, rounds: int, rng: random.Random) -> None:
    """Whole events with random results: each round everyone plays once or has the bye; no
    rematch while a legal pairing exists; no second bye while someone has none; when no score
    group holds a pair that has met and every group is even, nobody leaves their group."""
    ratings = {i: rng.randint(1000, 2000) for i in range(count)}
    score = dict.fromkeys(ratings, 0.0)
    opponents: dict[int, set[int]] = {i: set() for i in ratings}
    byes: Counter[int] = Counter()
    seats = dict.fromkeys(ratings, 0)
    for _ in range(min(rounds, count - 1 + count % 2)):
        players = [
            SwissPlayer(i, score[i], ratings[i], frozenset(opponents[i]), byes[i] > 0, seats[i])
            for i in ratings
        ]
        met = frozenset(frozenset((a, b)) for a in opponents for b in opponents[a])
        pairings = pair_swiss(players)
        seen = [x for p in pairings for x in p.ids if x is not None]
        assert sorted(seen) == sorted(ratings)
        rematches = [p for p in pairings if not p.is_bye and frozenset(p.ids) in met]
        if _legal_pairing_exists(players, met):
            assert not rematches
        groups = Counter(score.values())
        quiet = all(score[a] != score[b] for a, b in map(tuple, met))
        if quiet and all(n % 2 == 0 for n in groups.values()):
            assert all(score[p.first] == score[p.second] for p in pairings if p.second is not None)
        for p in pairings:
            if p.second is None:
                assert byes[p.first] == 0 or all(byes[i] for i in ratings)
                byes[p.first] += 1
                score[p.first] += BYE_POINTS
                continue
            a, b = p.first, p.second
            opponents[a].add(b)
            opponents[b].add(a)
            seats[a] += 1
            seats[b] -= 1
            outcome = rng.choice([1.0, 0.0, 0.5])
            score[a] += outcome
            score[b] += 1 - outcome


def test_swiss_refuses_fewer_than_two_and_duplicates() -> None:
    with pytest.raises(ValueError):
        pair_swiss([SwissPlayer(1)])
    with pytest.raises(ValueError, match="twice"):
        pair_swiss([SwissPlayer(1), SwissPlayer(1)])


@pytest.mark.parametrize(("count", "rounds"), [(2, 1), (3, 2), (8, 3), (9, 4), (256, 8)])
def test_swiss_rounds_recommended(count: int, rounds: int) -> None:
    assert swiss_rounds_recommended(count) == rounds


# --- standings ---------------------------------------------------------------------------------


def test_standings_rank_by_points_then_buchholz_then_sonneborn_berger() -> None:
    results = [
        RoundResult(1, 2, 1.0),
        RoundResult(3, 4, 0.5),
        RoundResult(1, 3, 0.0),
        RoundResult(2, 4, 1.0),
        RoundResult(5, None, BYE_POINTS),
    ]
    table = standings([1, 2, 3, 4, 5], results)
    by_id = {s.id: s for s in table}
    # Points: 1:1, 2:1, 3:1.5, 4:0.5, 5:1 (the bye).
    assert [s.id for s in table][:1] == [3]
    assert by_id[1].buchholz == 1.0 + 1.5  # met 2 (1 point) and 3 (1.5)
    assert by_id[2].buchholz == 1.0 + 0.5
    assert by_id[1].sonneborn_berger == 1.0 * 1.0  # beat 2, lost to 3
    assert by_id[3].sonneborn_berger == 0.5 * 0.5 + 1.0 * 1.0
    assert by_id[5].buchholz == 0.0 and by_id[5].played == 0
    assert [s.id for s in table] == [3, 1, 2, 5, 4]
    assert (by_id[3].won, by_id[3].drawn, by_id[3].lost) == (1, 1, 0)


def test_standings_share_a_rank_when_every_tie_break_is_equal() -> None:
    table = standings([7, 8], [RoundResult(7, 8, 0.5)])
    assert [(s.rank, s.id) for s in table] == [(1, 7), (1, 8)]
    seeded = standings([7, 8], [RoundResult(7, 8, 0.5)], seed={8: 1, 7: 2})
    assert [s.id for s in seeded] == [8, 7]
