"""A backgammon puzzle's answer key is gnubg's ranking at the analysis' ply: every legal play
(or the cube's choices, take and pass) of an analysed decision, its best the analysis' best,
the played option losing something exactly where the analysis says it lost something."""

from __future__ import annotations

from pathlib import Path

import pytest

gnubg = pytest.importorskip("gnubg")

from bot.robot import gnubg_analysis  # noqa: E402
from engines import new_match  # noqa: E402
from engines.analysis import DecisionKind  # noqa: E402
from engines.match_files import read_mat  # noqa: E402
from engines.puzzles import AnswerKey  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data"
PLY = 0


def test_backgammon_keys_rank_as_the_analysis() -> None:
    record = read_mat((DATA / "robot_selfplay_5pt.mat").read_text())
    rules, actions = record.rules, list(record.actions)
    decisions = gnubg_analysis.analyse_backgammon_game(rules, actions, record.names, 1, PLY)
    kinds = set()
    for decision in decisions:
        if decision.forced:
            continue
        options = gnubg_analysis.backgammon_options(
            rules, actions, decision.action_index, decision.kind, PLY
        )
        key = AnswerKey.of(options)
        lost = key.loss(decision.played)
        assert (lost > 1e-6) == (decision.equity_loss > 1e-6), decision
        if decision.kind is DecisionKind.MOVE:
            match = new_match("backgammon", rules)
            for action in actions[: decision.action_index]:
                match.apply(action)
            assert len(key.options) == len(match.legal_moves())
            if key.margin > 1e-6:
                assert key.best.move == decision.best, decision
        kinds.add(decision.kind)
    assert kinds == {kind for kind in DecisionKind if not kind.resignation}  # no puzzle
