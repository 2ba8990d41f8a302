"""The service's analyser (:class:`bot.service.Analyser`, matched by shape: the robot room imports
no service) on the analysis worker.

A match's games are counted (:func:`bot.robot.analysis.count_games`, a replay) and each game
analysed (:func:`bot.robot.worker.analyse_game`) in :data:`bot.robot.worker.ANALYSIS`, a worker
process of its own at a lower priority, so an analysis never waits behind a robot move nor a
robot move behind an analysis, and the queue can tell its progress between games.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.robot import analysis, worker
from engines.actions import Action
from engines.analysis import Decision
from engines.base import GameKind, MatchRules

__all__ = ["WorkerAnalyser", "worker_analyser"]


class WorkerAnalyser:
    async def available(self, kind: GameKind) -> bool:
        """Backgammon's analysis is gnubg's: only where gnubg runs."""
        return not analysis.needs_gnubg(kind) or await worker.gnubg_available()

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        return analysis.details(kind, ply)

    async def count_games(
        self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]
    ) -> int:
        """Counted in the analysis worker too: a long match's replay (up to 50 ms) is not the
        event loop's to do, and the worker is free between an analysis' games."""
        return await worker.ANALYSIS.run(analysis.count_games, kind, rules, list(actions))

    async def analyse_game(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]:
        """Backgammon where gnubg doesn't run: RobotUnavailableError (the analysis fails)."""
        return await worker.analyse_game(kind, rules, actions, names, game, ply)


def worker_analyser() -> WorkerAnalyser:
    """The analyser the bot runs with (``create_bot``)."""
    return WorkerAnalyser()
