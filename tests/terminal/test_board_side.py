"""Issue 33: "When the robot doubles, the terminal board and the pictures flip to the doubler's
numbering: a viewer always sees the board from one side, theirs." A member playing the robot
sees every board of the match in their own numbering; between members the board follows the
seat that acts, so a double is numbered for the one who answers it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image
from support.terminal_views import robot_match_view

from bot.rendering import board_job
from bot.service import MatchView
from engines.backgammon import Position as BackgammonPosition
from engines.base import GameKind
from engines.cube import Cube
from engines.nannon import Position as NannonPosition
from render import backgammon, nannon
from render.common import Scene, numbered_for
from render.text import backgammon_text, board_text, nannon_text

DICE_GAMES = (GameKind.BACKGAMMON, GameKind.NANNON)
NAMES = ("Ann", "Robo")


def _robot_doubled(view: MatchView) -> MatchView:
    """The robot (seat 1) on roll has doubled; the opening positions are symmetric, so the
    view's position reads the same from either seat."""
    assert view.robot_seat == 1
    return replace(view, turn=1, actor=0, dice=None, cube_offered_by=1, last_move=None)


@pytest.mark.asyncio
@pytest.mark.parametrize("game", DICE_GAMES)
async def test_issue_33_the_robot_s_double_keeps_the_member_s_numbering(
    tmp_path: Path, game: GameKind
) -> None:
    view = _robot_doubled(await robot_match_view(tmp_path, game, length=5))
    name, args, kwargs = board_job(view)
    assert args[2].viewer == 0
    text = board_text(name, args, kwargs)
    assert "numbered from O's side" in text and "X's side" not in text
    if game is GameKind.BACKGAMMON:
        # Seat 0's home board, bottom right, reads 6..1 for the member.
        frame = "+12-11-10--9--8--7-------6--5--4--3--2--1-+"
        assert any(line.startswith(frame) for line in text.splitlines())
    else:
        assert "    spot    1   2   3   4   5   6" in text.splitlines()


@pytest.mark.asyncio
@pytest.mark.parametrize("game", DICE_GAMES)
async def test_issue_33_the_robot_s_turn_keeps_the_member_s_numbering(
    tmp_path: Path, game: GameKind
) -> None:
    view = await robot_match_view(tmp_path, game, length=5)
    robot_on_roll = replace(view, turn=1, actor=1, dice=None)
    text = board_text(*board_job(robot_on_roll))
    assert "Robo (X) on turn" in text and "numbered from O's side" in text


@pytest.mark.parametrize(
    ("offered_by", "seen"), [(None, 1), (1, 0), (0, 1)], ids=["on roll", "doubled", "answers"]
)
def test_issue_33_between_members_the_board_is_numbered_for_who_acts(
    offered_by: int | None, seen: int
) -> None:
    # Seat 1 is on turn; with a double offered, the other seat answers it.
    turn = 1 if offered_by != 0 else 0
    assert numbered_for(Scene(), turn, offered_by) == seen
    assert numbered_for(Scene(viewer=0), turn, offered_by) == 0


def _labels(image: Image.Image, rows: tuple[int, int]) -> bytes:
    """The picture's band of point (or spot) numbers."""
    return image.crop((0, rows[0], image.width, rows[1])).tobytes()


def test_issue_33_the_backgammon_picture_of_a_double_is_numbered_for_the_taker() -> None:
    position, cube = BackgammonPosition.initial(), Cube(1, None)
    top = (0, backgammon.TOP)
    member = backgammon.board_image(position, 0, Scene(names=NAMES))
    doubled = backgammon.board_image(position, 1, Scene(names=NAMES), cube=cube, cube_offered_by=1)
    robot_numbering = backgammon.board_image(position, 1, Scene(names=NAMES))
    assert _labels(doubled, top) == _labels(member, top)
    assert _labels(doubled, top) != _labels(robot_numbering, top)
    alt = backgammon.describe(position, 1, Scene(names=NAMES), cube=cube, cube_offered_by=1)
    assert "Points are numbered for Ann." in alt and "Robo to play" not in alt
    assert "Ann's checkers: 24-point 2, 13-point 5, 8-point 3, 6-point 5." in alt


def test_issue_33_the_nannon_picture_of_a_double_is_numbered_for_the_taker() -> None:
    position, cube = NannonPosition.initial(), Cube(1, None)
    # The spot numbers sit just under the member's row of spots and just over the robot's.
    band = (nannon.SPOT_Y + 40, nannon.SPOT_Y + 90)
    member = nannon.board_image(position, 0, Scene(names=NAMES))
    doubled = nannon.board_image(position, 1, Scene(names=NAMES), cube=cube, cube_offered_by=1)
    robot_numbering = nannon.board_image(position, 1, Scene(names=NAMES))
    assert _labels(doubled, band) == _labels(member, band)
    assert _labels(doubled, band) != _labels(robot_numbering, band)
    alt = nannon.describe(position, 1, Scene(names=NAMES), cube=cube, cube_offered_by=1)
    assert "Spots are numbered for Ann." in alt


@pytest.mark.parametrize("draw", [backgammon_text, nannon_text])
def test_issue_33_a_text_board_with_a_viewer_keeps_their_numbering(draw: object) -> None:
    position = BackgammonPosition.initial() if draw is backgammon_text else NannonPosition.initial()
    assert callable(draw)
    text = draw(position, 1, Scene(names=NAMES, viewer=0))
    assert "Robo (X) on turn" in text and "numbered from O's side" in text
