"""Issue 33: "resignations are not judged (GNU Backgammon judges an offer and its answer: judge
them the same way, in all three games, against the exact value where the game has a solver)".
Here the model, Nannon's exact solver and checkers' search; backgammon's gnubg is in
tests/robot/test_gnubg_analysis.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engines import new_match
from engines.actions import (
    AcceptResign,
    Action,
    DeclineResign,
    Move,
    OpeningRoll,
    Resign,
    Roll,
)
from engines.analysis import (
    Decision,
    DecisionKind,
    Resignation,
    ResignationValue,
    puzzle_candidates,
    summarise,
)
from engines.base import GameMatch, MatchRules, Phase
from engines.checkers_analysis import analyse_checkers_game
from engines.match_files import read_match_file
from engines.nannon import Position
from engines.nannon_analysis import analyse_nannon_game, context_of
from engines.nannon_solver import NannonSolver
from engines.spec import spec_of
from engines.values import ResignLevel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def solver() -> NannonSolver:
    return NannonSolver()


def _resignations(decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if d.kind.resignation]


# -- the model -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("play_on", "resigned", "accepted", "expected"),
    [
        # Playing on is worth -0.4, the resignation leaves -1: resigning gives away 0.6, and
        # the answerer who declines passes up those 0.6.
        (-0.4, -1.0, False, [("resign", "play on", 0.6), ("decline", "accept", 0.6)]),
        (-0.4, -1.0, True, [("resign", "play on", 0.6), ("accept", "accept", 0.0)]),
        # A sure gammon resigned as a single: the offer costs nothing (it may be declined),
        # accepting it gives back a point.
        (-2.0, -1.0, True, [("resign", "resign", 0.0), ("accept", "decline", 1.0)]),
        (-2.0, -1.0, False, [("resign", "resign", 0.0), ("decline", "decline", 0.0)]),
        # A decided game: nothing is lost either way.
        (-1.0, -1.0, True, [("resign", "resign", 0.0), ("accept", "accept", 0.0)]),
    ],
)
def test_issue_33_an_offer_and_its_answer_are_judged_as_gnubg_judges_them(
    play_on: float, resigned: float, accepted: bool, expected: list[tuple[str, str, float]]
) -> None:
    offer = Resignation(2, 40, 1, "resign", ResignationValue(play_on, resigned, 0.7, 1.0))
    judged = offer.judged((41, accepted))
    assert [(d.played, d.best, round(d.equity_loss, 6)) for d in judged] == expected
    assert [(d.kind, d.player, d.action_index, d.game) for d in judged] == [
        (DecisionKind.RESIGN, 1, 40, 2),
        (DecisionKind.RESIGN_ANSWER, 0, 41, 2),
    ]
    # Seat 0's chance: playing on, or the resignation's once accepted.
    assert judged[1].win_chance == (1.0 if accepted else 0.7)


def test_issue_33_resignations_are_listed_but_not_counted_in_the_figures() -> None:
    move = Decision(1, 0, 0, DecisionKind.MOVE, "8/4", "13/9", 0.05, False, 0.0, 0.5)
    offer, answer = Resignation(1, 5, 0, "resign", ResignationValue(0.2, -1.0, 0.6, 0.0)).judged(
        (6, False)
    )
    analysis = summarise([move, offer, answer], ("Ann", "Bob"), pr_scale=True)
    ann, bob = analysis.players
    assert (ann.unforced_decisions, ann.errors, ann.blunders) == (1, 1, 0)
    assert ann.error_rate == pytest.approx(50.0)
    assert (bob.unforced_decisions, bob.errors, bob.blunders) == (0, 0, 0)
    assert [d.played for d in analysis.worst(3)] == ["resign", "decline", "8/4"]


def test_issue_33_no_puzzle_asks_whether_to_resign() -> None:
    """A resignation that cost a lot is listed, but the miner (and self-play) skip it: no
    answer key ranks "resign" against a roll."""
    rule = spec_of("nannon").puzzle_rule
    big = rule.min_loss + 0.5
    move = Decision(1, 3, 0, DecisionKind.MOVE, "H/4", "1/5", big, False, 0.0, 0.5)
    offer, answer = Resignation(
        1, 5, 0, "resign", ResignationValue(big - 1.0, -1.0, 0.6, 0.0)
    ).judged((6, False))
    assert offer.equity_loss == answer.equity_loss == pytest.approx(big)
    assert puzzle_candidates([move, offer, answer], rule) == [move]
    assert puzzle_candidates([move, offer, answer], rule, {1}) == []


# -- Nannon: the exact solver ------------------------------------------------------------------


def _decided(solver: NannonSolver, match: GameMatch, seat: int) -> bool:
    """Whether ``seat``, on roll, can no longer do better than lose a single game."""
    position = Position.from_id(match.position_id)
    lost = -solver.won_equity(context_of(match, 1 - seat), 1)
    return solver.equity(position, context_of(match, seat)) <= lost + 1e-9


def _to_a_decided_game(solver: NannonSolver, seed: int) -> tuple[list[Action], int]:
    """Random play (no doubles) until the side on roll has lost for sure: the actions and
    that side."""
    rng = random.Random(seed)
    match = new_match("nannon", MatchRules(length=3))
    actions: list[Action] = []
    while True:
        action: Action
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            action = OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        elif match.phase is Phase.ROLL:
            if _decided(solver, match, match.turn):
                return actions, match.turn
            action = Roll(match.turn, (rng.randint(1, 6),))
        else:
            action = Move(match.turn, str(rng.choice(match.legal_moves())))
        match.apply(action)
        actions.append(action)
        assert match.game_number == 1, "the first game ended undecided"


def test_issue_33_nannon_resignations_are_judged_against_the_exact_value(
    solver: NannonSolver,
) -> None:
    rules = MatchRules(length=3)
    # At the opening roll's 4-2, seat 0 resigns; seat 1 declines, then resigns and seat 0
    # accepts.
    actions: list[Action] = [
        OpeningRoll(None, (4, 2)),
        Resign(0),
        DeclineResign(1),
        Resign(1),
        AcceptResign(0),
    ]
    judged = _resignations(analyse_nannon_game(rules, actions, ("a", "b"), 1, solver))
    match = new_match("nannon", rules)
    match.apply(actions[0])
    best = solver.rank_moves(Position.initial(), 2, context_of(match, 0))[0].equity
    single = solver.won_equity(context_of(match, 0), 1)  # seat 0 winning a single game
    expected = [
        ("resign", "play on", best + single),  # seat 0 plays on at `best`, resigns at -single
        ("decline", "accept", best + single),
        ("resign", "play on", single - best),  # seat 1 plays on at -best, resigns at -single
        ("accept", "accept", 0.0),
    ]
    assert [(d.played, d.best) for d in judged] == [(p, b) for p, b, _ in expected]
    for decision, (_, _, loss) in zip(judged, expected, strict=True):
        assert decision.equity_loss == pytest.approx(loss, abs=1e-9)
    assert judged[-1].win_chance == pytest.approx((1 + single) / 2)


def test_issue_33_a_decided_nannon_game_resigned_costs_nothing(solver: NannonSolver) -> None:
    actions, seat = _to_a_decided_game(solver, seed=7)
    actions += [Resign(seat), AcceptResign(1 - seat)]
    judged = _resignations(
        analyse_nannon_game(MatchRules(length=3), actions, ("a", "b"), 1, solver)
    )
    assert [(d.played, d.best, d.player) for d in judged] == [
        ("resign", "resign", seat),
        ("accept", "accept", 1 - seat),
    ]
    assert all(d.equity_loss < 1e-9 for d in judged)


def test_issue_33_nannon_s_double_level_is_worded_and_valued(solver: NannonSolver) -> None:
    """A NANNON (Nannon's gammon) resigned at the opening gives away two points."""
    actions: list[Action] = [OpeningRoll(None, (6, 1)), Resign(1, ResignLevel.GAMMON)]
    actions.append(AcceptResign(0))
    offer, answer = _resignations(
        analyse_nannon_game(MatchRules(length=5), actions, ("a", "b"), 1, solver)
    )
    assert (offer.played, answer.played) == ("resign a NANNON", "accept")
    single = _resignations(
        analyse_nannon_game(
            MatchRules(length=5), [*actions[:1], Resign(1), AcceptResign(0)], ("a", "b"), 1, solver
        )
    )[0]
    assert offer.equity_loss > single.equity_loss > 0


# -- checkers: the search, with the endgame database where it reaches ------------------------


def test_issue_33_a_checkers_resignation_costs_what_playing_on_was_worth() -> None:
    actions: list[Action] = [Move(0, "11-15"), Move(1, "23-19"), Resign(1)]
    decisions = analyse_checkers_game(MatchRules(length=1), actions, ("a", "b"), 1)
    offer = decisions[-1]
    assert (offer.kind, offer.player, offer.played, offer.best) == (
        DecisionKind.RESIGN,
        1,
        "resign",
        "play on",
    )
    # The opening is about even: resigning it throws away about a whole game.
    assert 0.9 < offer.equity_loss < 1.1
    assert offer.win_chance == pytest.approx(0.5, abs=0.05)


def test_issue_33_a_lost_checkers_ending_resigned_costs_nothing() -> None:
    """The shipped example ends with Black resigning a king against three pieces."""
    from bot.robot.endgames import endgames

    match = read_match_file("checkers.pdn", (EXAMPLES / "checkers.pdn").read_text())
    assert isinstance(match.actions[-1], Resign)
    decisions = analyse_checkers_game(match.rules, match.actions, ("a", "b"), 1, 6, endgames)
    offer = decisions[-1]
    assert (offer.kind, offer.played, offer.best, offer.equity_loss) == (
        DecisionKind.RESIGN,
        "resign",
        "resign",
        0.0,
    )
