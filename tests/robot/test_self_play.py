"""Puzzles from robot self-play (bot/robot/self_play.py): seeded games give the same puzzles
again, each the weaker side's unforced blunder that qualifies, its key the evaluator's own
ranking, its board replayable from the actions it carries; in the analysis worker through the
runner (Nannon); checkers' too (one game, its search the analysis' own)."""

from __future__ import annotations

import pytest

from bot.robot import analysis, self_play
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.worker import RobotWorker
from bot.workers import WorkerPools
from engines import replay
from engines.actions import action_from_dict
from engines.analysis import DecisionKind
from engines.base import GameKind
from engines.puzzles import AnswerKey, qualifies
from engines.spec import spec_of


def check(kind: GameKind, found: list[dict[str, object]]) -> None:
    rule = spec_of(kind).puzzle_rule
    for puzzle in found:
        key = AnswerKey.from_list(puzzle["answer_key"])  # type: ignore[arg-type]
        assert qualifies(key, str(puzzle["played"]), rule)
        actions = [action_from_dict(a) for a in puzzle["actions"]]  # type: ignore[attr-defined]
        match = replay(kind, self_play.RULES, actions)
        assert match.turn == puzzle["seat"]
        assert match.position_id == puzzle["board"]["position_id"]  # type: ignore[index]
        again = analysis.answer_options(
            kind, self_play.RULES, actions, len(actions), DecisionKind(puzzle["kind"]),
            int(puzzle["seat"]), 2,  # type: ignore[call-overload]
        )  # fmt: skip
        assert AnswerKey.of(again) == key


def test_seeded_nannon_self_play_gives_the_same_fair_puzzles() -> None:
    found = self_play.self_play_puzzles(GameKind.NANNON, 20, 3, 2)
    assert len(found) >= 3
    assert found == self_play.self_play_puzzles(GameKind.NANNON, 20, 3, 2)
    assert found != self_play.self_play_puzzles(GameKind.NANNON, 20, 4, 2)
    check(GameKind.NANNON, found)


def test_checkers_self_play_puzzles_are_fair() -> None:
    found = self_play.self_play_puzzles(GameKind.CHECKERS, 1, 4, 2)
    assert found  # this seed's game has one
    check(GameKind.CHECKERS, found)


@pytest.mark.asyncio
async def test_the_runner_plays_in_the_analysis_worker(
    worker_pools: WorkerPools, robot_worker: RobotWorker
) -> None:
    runner = WorkerAnalysisRunner(worker_pools.analysis, robot_worker)
    found = await runner.self_play_puzzles(GameKind.NANNON, 20, 3, 2)
    assert found == self_play.self_play_puzzles(GameKind.NANNON, 20, 3, 2)
