"""Mistake cards: the board exactly as the bot draws it, a caption band below with the move
played, the best move and the cost (amber for a blunder), and alt text that says the same."""

from __future__ import annotations

import doctest
import io
from typing import Any

import pytest
from PIL import Image

import render.analysis_report
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.analysis import Decision, DecisionKind
from engines.cube import Cube
from render import jobs
from render.analysis_report import CAPTION_HEIGHT, mistake_card
from render.common import HEIGHT, HIGHLIGHT, MAX_PNG_BYTES, WIDTH, Scene

SCENE = Scene(("Alice", "Bob"), (1, 2), 7, game_number=2)
BOARDS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "nannon": ((nn.Position.initial(), 0, SCENE), {"dice": (3,), "cube": Cube()}),
    "backgammon": ((bg.Position.initial(), 0, SCENE), {"dice": (6, 1), "cube": Cube()}),
    "checkers": ((ck.Board.initial(), 0, SCENE), {}),
}


def mistake(loss: float, played: str = "13/7 8/7", best: str = "24/18 13/11") -> Decision:
    return Decision(2, 10, 0, DecisionKind.MOVE, played, best, loss, False, None, 0.4)


def image_of(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def amber_pixels(image: Image.Image) -> int:
    """Pixels within a few steps of amber (the board's palette holds a close neighbour)."""
    total = 0
    for count, colour in image.getcolors(maxcolors=image.width * image.height) or []:
        assert isinstance(colour, tuple)
        if sum(abs(a - b) for a, b in zip(colour, HIGHLIGHT, strict=True)) <= 12:
            total += count
    return total


def test_doctests() -> None:
    assert doctest.testmod(render.analysis_report).failed == 0


@pytest.mark.parametrize("game", BOARDS)
def test_card_is_the_bots_board_with_a_caption_band(game: str) -> None:
    args, kwargs = BOARDS[game]
    png, alt = mistake_card(game, args, kwargs, mistake(0.123))
    card = image_of(png)
    assert card.size == (WIDTH, HEIGHT + CAPTION_HEIGHT)
    assert len(png) < MAX_PNG_BYTES
    board_png, board_alt = jobs.board(game, args, kwargs)
    board = image_of(board_png)
    assert card.crop((0, 0, WIDTH, HEIGHT)).tobytes() == board.tobytes()
    assert alt.startswith(board_alt)
    assert "played 13/7 8/7" in alt and "best 24/18 13/11" in alt and "0.123" in alt


def test_caption_shows_the_decision_and_marks_a_blunder_in_amber() -> None:
    args, kwargs = BOARDS["backgammon"]
    band = (0, HEIGHT + 1, WIDTH, HEIGHT + CAPTION_HEIGHT)
    blunder = image_of(mistake_card("backgammon", args, kwargs, mistake(0.2))[0]).crop(band)
    error = image_of(mistake_card("backgammon", args, kwargs, mistake(0.03))[0]).crop(band)
    other = image_of(mistake_card("backgammon", args, kwargs, mistake(0.03, "8/2 6/5"))[0])
    assert amber_pixels(blunder) > 0
    assert amber_pixels(error) == 0
    assert other.crop(band).tobytes() != error.tobytes()


def test_long_or_hostile_notation_stays_in_the_band() -> None:
    args, kwargs = BOARDS["backgammon"]
    decision = mistake(0.5, "\u202e" + "24/23 " * 30, "x" * 200)
    png, alt = mistake_card("backgammon", args, kwargs, decision)
    card = image_of(png)
    assert card.size == (WIDTH, HEIGHT + CAPTION_HEIGHT)
    assert "\u202e" not in alt
    # The cost is still drawn, at the right.
    assert amber_pixels(card.crop((WIDTH - 120, HEIGHT + 1, WIDTH, HEIGHT + CAPTION_HEIGHT))) > 0
