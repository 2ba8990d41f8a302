"""The service's analysis runner (:class:`bot.service.AnalysisRunner`, matched by shape: the robot
room imports no service) on the analysis worker.

A match's games are counted (:func:`engines.analysis.count_games`, a replay) and each game
analysed (:func:`bot.robot.analysis.game_decisions`) in the analysis worker, a process of its
own at a lower priority (a :class:`~bot.workers.WorkerPool` the bot is given), so an analysis
never waits behind a robot move nor a robot move behind an analysis, and the queue can tell its
progress between games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.robot import analysis, self_play
from bot.robot.worker import NOT_AVAILABLE, RobotUnavailableError, RobotWorker
from bot.workers import WorkerPool
from engines.actions import Action
from engines.analysis import Decision, DecisionKind, count_games
from engines.base import GameKind, MatchRules

__all__ = ["WorkerAnalysisRunner"]


class WorkerAnalysisRunner:
    """Analyses in ``pool``'s worker; ``robot_worker`` says whether gnubg runs here (asked
    once, shared with the robot)."""

    def __init__(self, pool: WorkerPool, robot_worker: RobotWorker) -> None:
        self.pool = pool
        self.robot_worker = robot_worker

    async def available(self, kind: GameKind) -> bool:
        """Backgammon's analysis is gnubg's: only where gnubg runs."""
        return not analysis.needs_gnubg(kind) or await self.robot_worker.gnubg_available()

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        return analysis.details(kind, ply)

    async def _require_evaluator(self, kind: GameKind) -> None:
        """RobotUnavailableError where the game's evaluator can't run (gnubg for backgammon)."""
        if analysis.needs_gnubg(kind) and not await self.robot_worker.gnubg_available():
            raise RobotUnavailableError(NOT_AVAILABLE)

    async def count_games(
        self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]
    ) -> int:
        """Counted in the analysis worker too: a long match's replay (up to 50 ms) is not the
        event loop's to do, and the worker is free between an analysis' games."""
        return await self.pool.run(count_games, kind, rules, list(actions))

    async def game_decisions(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]:
        """Game ``game`` of a finished match analysed in the analysis worker: one call per game,
        so progress can be told between games. Backgammon needs gnubg: RobotUnavailableError
        where it doesn't run (the analysis fails)."""
        await self._require_evaluator(kind)
        return await self.pool.run(
            analysis.game_decisions, kind, rules, list(actions), names, game, ply
        )

    async def answer_options(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        action_index: int,
        decision: DecisionKind,
        player: int,
        ply: int,
    ) -> list[tuple[str, float]]:
        """Every option of one analysed decision with its equity (a puzzle's answer key),
        ranked in the analysis worker by the game's evaluator."""
        await self._require_evaluator(kind)
        return await self.pool.run(
            analysis.answer_options, kind, rules, list(actions), action_index, decision, player, ply
        )

    async def self_play_puzzles(
        self, kind: GameKind, games: int, seed: int, ply: int
    ) -> list[dict[str, Any]]:
        """Puzzles from ``games`` robot self-play games (seeded), played, analysed and keyed in
        the analysis worker (:func:`bot.robot.self_play.self_play_puzzles`)."""
        await self._require_evaluator(kind)
        return await self.pool.run(self_play.self_play_puzzles, kind, games, seed, ply)
