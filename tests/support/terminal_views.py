"""A robot match as the terminal starts one, for tests that look at its first view."""

from __future__ import annotations

from pathlib import Path

from bot.service import MatchService, MatchView, RobotMatch
from bot.terminal.cli import HUMAN, ROBOT_ID
from engines.base import GameKind


async def robot_match_view(tmp_path: Path, game: GameKind, length: int = 3) -> MatchView:
    """The first view of a match of Ann against the terminal's robot ("Robo", level 2)."""
    service = await MatchService.open(tmp_path / "terminal.db")
    try:
        update = await service.handle(
            RobotMatch(
                0,
                0,
                HUMAN.user_id,
                "Ann",
                game,
                robot_id=ROBOT_ID,
                robot_name="Robo",
                level=2,
                length=length,
            )
        )
        return update.view
    finally:
        await service.close()
