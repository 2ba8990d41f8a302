"""A puzzle's answer key is the evaluator's own ranking: every legal option of an analysed
decision with its equity, the played option giving up exactly what the analysis says it lost,
for Nannon (the exact solver: moves, cube decisions, takes) and checkers (the search)."""

from __future__ import annotations

import random

import pytest

from engines import new_match
from engines.actions import Action, Double, Drop, Move, OpeningRoll, Roll, Take
from engines.analysis import DecisionKind
from engines.base import MatchRules, Phase
from engines.checkers import CheckersMatch
from engines.checkers_analysis import analyse_checkers_game, checkers_options
from engines.checkers_search import analyse
from engines.nannon_analysis import analyse_nannon_game, nannon_options
from engines.nannon_solver import NannonSolver
from engines.puzzles import AnswerKey, cube_options, take_options


@pytest.fixture(scope="module")
def solver() -> NannonSolver:
    return NannonSolver()


def random_nannon(length: int, seed: int) -> list[Action]:
    """A Nannon match of random moves, doubles, takes and passes."""
    rng = random.Random(seed)
    match = new_match("nannon", MatchRules(length=length))
    actions: list[Action] = []
    while match.phase is not Phase.MATCH_OVER:
        phase, turn = match.phase, match.turn
        action: Action
        if phase is Phase.OPENING_TIE and match.can_double(0) and rng.random() < 0.3:
            action = Double(0)
        elif phase in (Phase.OPENING, Phase.OPENING_TIE):
            action = OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        elif phase is Phase.ROLL:
            doubling = match.can_double(turn) and rng.random() < 0.15
            action = Double(turn) if doubling else Roll(turn, (rng.randint(1, 6),))
        elif phase is Phase.CUBE_OFFERED:
            answerer = 1 - (match.cube_offered_by or 0)
            action = Take(answerer) if rng.random() < 0.6 else Drop(answerer)
        else:
            action = Move(turn, match.format_move(rng.choice(match.legal_moves())))
        match.apply(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("seed", [1, 2])
def test_nannon_keys_are_the_solvers_and_price_the_played_option(
    solver: NannonSolver, seed: int
) -> None:
    rules = MatchRules(length=3)
    actions = random_nannon(3, seed)
    kinds = set()
    checked = 0
    for game in range(1, 6):
        for decision in analyse_nannon_game(rules, actions, ("a", "b"), game, solver):
            if decision.forced and decision.kind is DecisionKind.MOVE:
                continue
            options = nannon_options(
                rules, actions, decision.action_index, decision.kind, decision.player, solver
            )
            key = AnswerKey.of(options)
            assert key.loss(decision.played) == pytest.approx(decision.equity_loss, abs=1e-9)
            if decision.kind is DecisionKind.MOVE:
                match = new_match("nannon", rules)
                for action in actions[: decision.action_index]:
                    match.apply(action)
                legal = {match.format_move(m) for m in match.legal_moves()}
                assert {o.move for o in key.options} == legal
            kinds.add(decision.kind)
            checked += 1
    assert checked > 10 and kinds == {kind for kind in DecisionKind if not kind.resignation}


def test_cube_and_take_options_price_as_the_analysis_does() -> None:
    key = AnswerKey.of(cube_options(0.30, 0.55, 1.0))
    assert [(o.move, o.equity) for o in key.options] == [("double", 0.55), ("no double", 0.30)]
    too_good = AnswerKey.of(cube_options(1.2, 1.6, 1.0))  # playing on beats cashing
    assert too_good.best.move == "no double" and too_good.loss("double") == pytest.approx(0.2)
    answer = AnswerKey.of(take_options(-0.6, -1.0))
    assert answer.best.move == "take" and answer.loss("pass") == pytest.approx(0.4)


def test_checkers_keys_are_the_searchs_ranking() -> None:
    rng = random.Random(7)
    rules = MatchRules(length=1)
    match = CheckersMatch(rules)
    actions: list[Action] = []
    for _ in range(12):
        action = Move(match.turn, str(rng.choice(match.legal_moves())))
        match.apply(action)
        actions.append(action)
    decisions = analyse_checkers_game(rules, actions, ("a", "b"), 1, depth=2)
    assert len(decisions) == 12
    for decision in decisions:
        options = checkers_options(rules, actions, decision.action_index, depth=2)
        key = AnswerKey.of(options)
        assert key.loss(decision.played) == pytest.approx(decision.equity_loss, abs=1e-9)
        board = CheckersMatch.replay(rules, actions[: decision.action_index])
        ranked = analyse(board.board, board.game.reversible_positions, depth=2)
        assert [(o.move, o.equity) for o in key.options] == [
            (str(s.move), s.equity) for s in sorted(ranked, key=lambda s: -s.equity)
        ]
