"""The session with the robot's driver on the service's bus: a robot that can't decide is said
once, and 'board' (the ShowBoardAndWakeRobot command) lets it try again."""

from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

import pytest

from bot.robot import advice
from bot.robot.driver import RobotDriver
from bot.robot.player import Decision
from bot.robot.worker import RobotCrashedError, RobotWorker
from bot.service import MatchService, RobotMatch, UpdateSettings, ViewMatch
from bot.terminal import wording
from bot.terminal.cli import HUMAN, ROBOT_ID, seeded_dice
from bot.terminal.session import Console, TerminalMatch
from engines.base import GameKind, MatchRules

pytestmark = pytest.mark.asyncio

ROBOT_FIRST = 2  # with this seed the robot wins the opening roll (3 to 6)


def nannon_against_robo(*, level: int, length: int) -> RobotMatch:
    """Ann's Nannon match against Robo, as the terminal starts one."""
    return RobotMatch(
        HUMAN.guild_id, 0, HUMAN.user_id, "Ann", "nannon",
        robot_id=ROBOT_ID, robot_name="Robo", level=level, length=length,
    )  # fmt: skip


async def test_a_stuck_robot_is_said_once_and_board_lets_it_try_again(
    tmp_path: Path, robot_worker: RobotWorker
) -> None:
    service = await MatchService.open(tmp_path / "s.db", dice_factory=seeded_dice(ROBOT_FIRST))
    driver = RobotDriver(service, robot_worker)
    brain = driver.decide
    broken = True

    async def decide(*args: Any, **kwargs: Any) -> Decision:
        if broken:
            raise RobotCrashedError("the robot's worker died twice")
        return await brain(*args, **kwargs)

    driver.decide = decide
    typed = iter(["board", "board", "quit"])

    def read_line(prompt: str) -> str:
        nonlocal broken
        line = next(typed)
        if line == "board" and out.getvalue().count("> board") == 1:
            broken = False  # the second 'board' finds the robot mended
        out.write(f"{prompt}{line}\n")
        return line

    out = io.StringIO()
    session = TerminalMatch(
        service, driver, Console(read_line, out), HUMAN, hint=hint_on(robot_worker)
    )
    await service.handle(UpdateSettings(HUMAN.guild_id, {"robot_pause_ms": 0}))
    driver.start()
    detach = session.attach()
    try:
        update = await service.handle(nannon_against_robo(level=3, length=3))
        assert await session.run(update.match_id) is False
    finally:
        detach()
        await driver.close()
        await service.close()
    text = out.getvalue()
    assert "Opening roll: Ann 3, Robo 6: Robo to play first." in text
    # Told once for the position, though it failed again on the first 'board'.
    assert text.count(wording.ROBOT_FAILED) == 1
    stuck, mended = text.split("> board\n")[1:]
    assert "Waiting for Robo: type 'board' to let it play." in stuck
    assert "Robo played " in mended and "Robo played " not in stuck
    assert text.endswith(wording.QUIT.format(match_id=update.match_id) + "\n")


def hint_on(robot_worker: RobotWorker) -> Any:
    return functools.partial(advice.match_hint, robot_worker)


class BrokenAnalyser:
    """Analyses every game, and fails at it."""

    async def available(self, kind: GameKind) -> bool:
        return True

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        return {"evaluator": "a broken one"}

    async def count_games(self, kind: GameKind, rules: MatchRules, actions: Any) -> int:
        raise RuntimeError("the analysis worker died")

    async def game_decisions(self, *args: Any) -> list[Any]:
        raise AssertionError("never reached")


async def test_conceding_ends_the_match_and_a_failed_analysis_is_said(
    tmp_path: Path, robot_worker: RobotWorker
) -> None:
    service = await MatchService.open(
        tmp_path / "a.db", dice_factory=seeded_dice(1), analysis_runner=BrokenAnalyser()
    )
    driver = RobotDriver(service, robot_worker)
    out = io.StringIO()
    typed = iter(["concede"])

    def read_line(prompt: str) -> str:
        line = next(typed)
        out.write(f"{prompt}{line}\n")
        return line

    session = TerminalMatch(
        service, driver, Console(read_line, out), HUMAN, hint=hint_on(robot_worker)
    )
    await service.handle(UpdateSettings(HUMAN.guild_id, {"robot_pause_ms": 0}))
    driver.start()
    detach = session.attach()
    try:
        await service.analyses.start()
        update = await service.handle(nannon_against_robo(level=1, length=5))
        assert await session.run(update.match_id) is True
        view = await service.handle(ViewMatch(update.match_id))
    finally:
        detach()
        await driver.close()
        await service.close()
    assert view.match_over and view.winner_seat == 1
    text = out.getvalue()
    assert "Ann conceded the match." in text
    assert "Robo won the match, Ann 0, Robo 5." in text
    assert text.endswith(
        "Analysing the match (a broken one)...\n" + wording.ANALYSIS_FAILED + "\n"
        "'tablebot play --export 1' writes this match as a .mat file.\n"
    )
