"""Boards on a phone: Discord shows a board about 380 px wide there, so every number on a board
(point, spot and square numbers, stack counts, the cube) must be at least 9 px high at that
width. Measured on the drawn pixels: the rows its ink covers, times 380 / the image's width."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops
from support.render_spy import DrawnTexts

from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.cube import Cube
from render import backgammon, checkers, common, nannon
from render.common import HEIGHT, INK, LABEL, RGB, TEXT, WIDTH, Scene

PHONE_WIDTH = 380
MIN_PHONE_PX = 9
SCENE = Scene(("Alice", "Bob"), (1, 2), 7)
Box = tuple[int, int, int, int]


def on_phone(rows: int) -> float:
    return rows * PHONE_WIDTH / WIDTH


def ink_rows(image: Image.Image, box: Box, colour: RGB, tolerance: int = 30) -> int:
    """How many rows, first to last, hold a pixel of ``colour`` inside ``box`` (anti-aliased
    edges don't count: the measure errs small)."""
    crop = image.convert("RGB").crop(box)
    rows = [
        y
        for y in range(crop.height)
        if any(
            sum(abs(a - b) for a, b in zip(crop.getpixel((x, y)), colour, strict=True))  # type: ignore[arg-type]
            <= tolerance
            for x in range(crop.width)
        )
    ]
    return rows[-1] - rows[0] + 1 if rows else 0


def changed_rows(a: Image.Image, b: Image.Image, box: Box) -> int:
    """How many rows, first to last, differ clearly between ``a`` and ``b`` inside ``box``:
    the height of what one draws there and the other doesn't (a number against none, or
    two numbers against each other: then the taller)."""
    diff = ImageChops.difference(a.convert("L").crop(box), b.convert("L").crop(box))
    found = diff.point(lambda v: 255 if v > 60 else 0).getbbox()
    return found[3] - found[1] if found else 0


def around(xy: tuple[int, int], r: int) -> Box:
    return (xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r)


# --- backgammon --------------------------------------------------------------------------------


def _label_cell(p: int) -> Box:
    x, y = backgammon._label_pos(p)
    return (x - backgammon.POINT_W // 2, y - 14, x + backgammon.POINT_W // 2, y + 14)


@pytest.mark.parametrize("turn", [0, 1])
def test_backgammon_point_numbers_read_on_a_phone(turn: int) -> None:
    image = backgammon.board_image(bg.Position.initial(), turn, SCENE)
    for p in range(1, 25):
        assert on_phone(ink_rows(image, _label_cell(p), LABEL)) >= MIN_PHONE_PX, p


def test_backgammon_lit_point_numbers_read_on_a_phone() -> None:
    start = bg.Position.initial()
    play = bg.Play.parse("8/5 6/5", start, (3, 1))
    image = backgammon.board_image(play.position, 1, SCENE, last_move=(0, play))
    for p in (8, 6, 5):
        assert on_phone(ink_rows(image, _label_cell(p), INK, 20)) >= MIN_PHONE_PX, p


@pytest.mark.parametrize("seat", [0, 1])
def test_backgammon_stack_counts_read_on_a_phone(seat: int) -> None:
    def board(count: int) -> Image.Image:
        side = (15 - count, 0, 0, 0, 0, 0, count) + (0,) * 19  # the rest borne off
        rest = (0, 0, 0, 0, 0, 0, 0, 15) + (0,) * 18
        position = bg.Position(side, rest) if seat == 0 else bg.Position(rest, side)
        return backgammon.board_image(position, 0, SCENE)

    where = ("point", 6) if seat == 0 else ("point", 19)
    box = around(backgammon._slot(where, 4), backgammon.CHECKER // 2)
    for count in (6, 15):
        assert on_phone(changed_rows(board(5), board(count), box)) >= MIN_PHONE_PX, count
    assert ink_rows(board(15), box, INK if seat == 0 else TEXT, 12) > 0  # in the ink colour


@pytest.mark.parametrize(
    ("cubes", "offered_by"),
    [
        ((Cube(), Cube(32)), None),  # 64 (centred) against 32
        ((Cube(2), Cube(4)), None),
        ((Cube(2, 0), Cube(4, 0)), None),
        ((Cube(16, 1), Cube(32, 1)), None),
        ((Cube(), Cube(2)), 0),  # offered: 2 against 4
        ((Cube(8), Cube(16)), 1),  # 16 against 32
    ],
)
def test_cube_numbers_read_on_a_phone(cubes: tuple[Cube, Cube], offered_by: int | None) -> None:
    """Both dice games: the cube's face, wherever it is, centred, owned or offered. Two labels
    of as many digits, so the changed rows are either's height."""
    for module, position in ((backgammon, bg.Position.initial()), (nannon, nn.Position.initial())):
        images = [
            module.board_image(position, 0, SCENE, cube=cube, cube_offered_by=offered_by)  # type: ignore[attr-defined]
            for cube in cubes
        ]
        board = (0, 0, module.PANEL_X, HEIGHT)  # type: ignore[attr-defined]
        assert on_phone(changed_rows(images[0], images[1], board)) >= MIN_PHONE_PX, module


# --- Nannon and checkers -----------------------------------------------------------------------


@pytest.mark.parametrize("turn", [0, 1])
def test_nannon_spot_numbers_read_on_a_phone(turn: int) -> None:
    image = nannon.board_image(nn.Position.initial(), turn, SCENE)
    y = nannon.SPOT_Y + (64 if turn == 0 else -64)
    for i in range(6):
        x = nannon.SPOT_X0 + i * nannon.SPOT_PITCH
        assert on_phone(ink_rows(image, (x - 30, y - 20, x + 30, y + 20), LABEL)) >= MIN_PHONE_PX


@pytest.mark.parametrize("black_seat", [0, 1])
def test_checkers_square_numbers_read_on_a_phone_beside_pieces_and_marks(black_seat: int) -> None:
    board = ck.Board.from_fen("W:W22,26,30,18,11,K5:B6,K9,10,15,K27")
    jump = ck.Move.parse("5x14x7", board)
    image = checkers.board_image(board.apply(jump), black_seat, SCENE, last_move=(0, jump))
    black_bottom = black_seat == 0
    for square in range(1, 33):
        row, col = checkers._cell(square, black_bottom)
        x, y = checkers.BOARD_X + col * checkers.SQUARE, checkers.BOARD_Y + row * checkers.SQUARE
        corner = (x, y, x + checkers.SQUARE // 2, y + checkers.SQUARE // 2)
        assert on_phone(ink_rows(image, corner, checkers.NUMBER)) >= MIN_PHONE_PX, square


# --- names -------------------------------------------------------------------------------------

# Real-looking names up to NAME_MAX_CHARS (24) letters: none may be cut.
LONG_NAMES = [
    "alice_the_great",
    "maximilian_von_habsburg",
    "Александр Бенкендорф",
    "Ζωή Παπαδοπούλου",
    "Christopher Columbus",
    "Jean-Baptiste Poquelin",
    "xX_backgammon_lord_Xx",
]


@pytest.mark.parametrize("name", LONG_NAMES)
@pytest.mark.parametrize("panel_x", [common.PANEL_X, checkers.PANEL_X], ids=["dice", "checkers"])
def test_long_names_are_drawn_whole_and_readable_on_a_phone(name: str, panel_x: int) -> None:
    width = common.panel_name_width(panel_x)
    lines, size = common.name_lines(name, width)
    assert "".join(lines).replace(" ", "") == name.replace(" ", "")
    assert len(lines) <= 2
    assert all(common.text_width(line, size) + 2 <= width for line in lines)
    assert size * PHONE_WIDTH / WIDTH >= MIN_PHONE_PX


def test_only_names_wider_than_two_lines_are_ellipsized() -> None:
    lines, _ = common.name_lines("W" * 24, common.panel_name_width(common.PANEL_X))
    assert len(lines) == 2 and lines[1].endswith("…")


def test_the_boards_draw_a_long_name_whole_and_grow_its_block(drawn_texts: DrawnTexts) -> None:
    drawn_sized = drawn_texts(common)
    scene = Scene(("Bob", "alice_the_great"), (0, 0), 7)
    short = Scene(("Bob", "Alice"), (0, 0), 7)
    boards = {
        "backgammon": lambda s: backgammon.board_image(bg.Position.initial(), 1, s),
        "nannon": lambda s: nannon.board_image(nn.Position.initial(), 1, s),
        "checkers": lambda s: checkers.board_image(ck.Board.initial(), 0, s),
    }
    for game, board in boards.items():
        drawn_sized.clear()
        board(scene)
        drawn = [text for text, _ in drawn_sized]
        whole = "alice_the_great" in drawn or ("alice_the_" in drawn and "great" in drawn)
        assert whole, (game, drawn)
        assert not any("…" in text for text in drawn), game
    # Seat 1 (on turn, at the top) gets a taller block: its amber bar reaches lower.
    below = (common.PANEL_X + 9, 8 + 150 + 10)
    assert boards["backgammon"](scene).getpixel(below) == common.HIGHLIGHT
    assert boards["backgammon"](short).getpixel(below) != common.HIGHLIGHT
