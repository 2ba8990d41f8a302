"""The service's analyser (:class:`bot.service.Analyser`, matched by shape: the robot room imports
no service) on the analysis worker.

Games are counted here (a replay, pure and quick); each game is analysed by
``bot.robot.analysis.analyse_game`` in :data:`bot.robot.worker.ANALYSIS`, a worker process of its
own, so an analysis never waits behind a robot move nor a robot move behind an analysis, and the
queue can tell its progress between games. That process runs at a lower priority
(:data:`NICENESS`): on a machine with few cores a long analysis is background work, and the
bot's event loop and the robot come first.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from types import ModuleType

from bot.robot import worker
from engines.actions import Action
from engines.analysis import Decision
from engines.base import GameKind, MatchRules

__all__ = ["NICENESS", "WorkerAnalyser", "analyse_in_worker", "worker_analyser"]

ENGINES = "bot.robot.analysis"
"""The analysis engines' module (its functions run in the worker, so they are named by it)."""

NICENESS = 10
"""How much lower the analysis worker's priority is than the bot's (Unix ``nice``)."""

_niced = False  # in the worker: its priority lowered already


def analyse_in_worker(
    kind: GameKind,
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """In the analysis worker: lower its priority (once), then analyse the game."""
    global _niced
    if not _niced:
        _niced = True
        if hasattr(os, "nice"):
            os.nice(NICENESS)
    module = importlib.import_module(ENGINES)
    decisions: list[Decision] = module.analyse_game(kind, rules, actions, names, game, ply)
    return decisions


class WorkerAnalyser:
    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def count_games(self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]) -> int:
        return int(self._module.count_games(kind, rules, actions))

    async def analyse_game(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]:
        return await worker.ANALYSIS.run(
            analyse_in_worker, kind, rules, list(actions), names, game, ply
        )


def worker_analyser() -> WorkerAnalyser | None:
    """The analyser, or None where the analysis engines are missing (/analyse then says
    analysis is not available)."""
    try:
        module = importlib.import_module(ENGINES)
    except ImportError:
        return None
    if not all(hasattr(module, name) for name in ("count_games", "analyse_game")):
        return None
    return WorkerAnalyser(module)
