"""Checkers analysis by the fixed-depth search: a man given away is a blunder, captures that
are the only legal move are forced, and the figures are the same on every run."""

from __future__ import annotations

from engines.actions import Move
from engines.analysis import DecisionKind, analyse_match, summarise
from engines.base import GameKind, MatchRules
from engines.checkers_analysis import DEPTH, CheckersEvaluator, analyse_checkers_game

RULES = MatchRules(length=1)
# White gives a man on 14 (17-14): Black's 10x17 is the only legal move, and White retakes.
OPENING = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"]


def _moves(texts: list[str]) -> list[Move]:
    return [Move(i % 2, text) for i, text in enumerate(texts)]


def test_a_hung_man_is_the_worst_mistake_and_the_capture_is_forced() -> None:
    actions = _moves([*OPENING, "3-8"])  # 3-8 leaves White a shot: over half a point lost
    decisions = analyse_checkers_game(RULES, actions, ("Ann", "Bob"), 1, 4)
    assert [d.action_index for d in decisions] == list(range(len(actions)))
    assert all(d.kind is DecisionKind.MOVE and d.luck is None for d in decisions)
    capture = decisions[6]
    assert capture.played == "10x17" and capture.forced and capture.equity_loss == 0
    analysis = summarise(decisions, ("Ann", "Bob"), pr_scale=False)
    worst = analysis.worst(1)[0]
    assert worst.action_index == 8 and worst.is_blunder and worst.player == 0
    assert worst.played == "3-8" and worst.best == "6-10" and worst.equity_loss > 0.3
    assert 0.0 <= min(d.win_chance for d in decisions) <= max(d.win_chance for d in decisions) <= 1
    again = analyse_checkers_game(RULES, actions, ("Ann", "Bob"), 1, 4)
    assert again == decisions


def test_the_evaluator_is_the_search_behind_the_analysis_interface() -> None:
    actions = _moves([*OPENING, "3-8"])
    evaluator = CheckersEvaluator(depth=4)
    decisions = analyse_checkers_game(RULES, actions, ("Ann", "Bob"), 1, 4)
    assert evaluator.analyse_game(RULES, actions, ("Ann", "Bob"), 1) == decisions
    result = analyse_match(evaluator, GameKind.CHECKERS, RULES, actions, ("Ann", "Bob"))
    assert result.decisions == tuple(decisions) and result.games == 1
    assert result.details == {"game": "checkers", "evaluator": "alpha-beta search, 4 plies"}
    assert result.players[0].pr is None  # no PR scale outside backgammon
    assert CheckersEvaluator().details == {"evaluator": f"alpha-beta search, {DEPTH} plies"}
