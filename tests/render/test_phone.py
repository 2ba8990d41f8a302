"""Boards on a phone: Discord shows a board about 380 px wide there, so every number on a board
(point, spot and square numbers, stack counts, the cube) must be at least 9 px high at that
width. Measured on the drawn pixels: the rows its ink covers, times 380 / the image's width."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image, ImageChops
from support.render_spy import DrawnTexts

from engines import actions as act
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.checkers import CheckersMatch
from engines.cube import Cube
from engines.values import MatchRules
from render import backgammon, checkers, common, nannon
from render.common import HEIGHT, INK, LABEL, RGB, TEXT, TEXT_DIM, WIDTH, Scene

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

# Real-looking names of up to 24 letters: none may be cut.
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


# --- the side panel ----------------------------------------------------------------------------


def number_heights(a: Image.Image, b: Image.Image, box: Box, colour: RGB) -> list[int]:
    """For each band of rows where ``a`` and ``b`` differ inside ``box`` (one per number that
    changed), how many rows the ink of ``colour`` in ``b`` covers there."""
    diff = ImageChops.difference(a.convert("L").crop(box), b.convert("L").crop(box))
    mask = diff.point(lambda v: 255 if v > 60 else 0)
    rows = [y for y in range(mask.height) if mask.crop((0, y, mask.width, y + 1)).getbbox()]
    bands: list[list[int]] = []
    for y in rows:
        if bands and y - bands[-1][-1] <= 3:
            bands[-1].append(y)
        else:
            bands.append([y])
    heights = []
    for band in bands:
        found = mask.crop((0, band[0], mask.width, band[-1] + 1)).getbbox()
        assert found is not None
        left, right = box[0] + found[0] - 2, box[0] + found[2] + 2
        heights.append(
            ink_rows(b, (left, box[1] + band[0] - 3, right, box[1] + band[-1] + 4), colour)
        )
    return heights


def _bg(position: bg.Position, scene: Scene = SCENE, **kw: object) -> Image.Image:
    return backgammon.board_image(position, 0, scene, **kw)  # type: ignore[arg-type]


def _nn(position: nn.Position, scene: Scene = SCENE, **kw: object) -> Image.Image:
    return nannon.board_image(position, 0, scene, **kw)  # type: ignore[arg-type]


def _ck(board: ck.Board, scene: Scene = SCENE) -> Image.Image:
    return checkers.board_image(board, 0, scene)  # black (seat 0) to move


def _scores(a: float, b: float, length: int = 15, game: int = 0) -> Scene:
    return Scene(("Alice", "Bob"), (a, b), length, game_number=game)


_START = bg.Position.initial()
_BEARING_OFF = [  # seat 0 bearing off from its 6-point: Off 10, Pips 30 against Off 12, Pips 18
    bg.Position((15 - n, 0, 0, 0, 0, 0, n) + (0,) * 19, (0,) * 7 + (15,) + (0,) * 18)
    for n in (5, 3)
]
_BACK_RUN = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 7) + (0,) * 12  # 167 pips against 145
_KINGS = "B:W22,26,30,K5:B6,K9,10,15,K27"  # seat 0 (black): 3 men, 2 kings; white: 3 men, 1 king

_NN = nn.Position.initial()
_CK = ck.Board.initial()
_EIGHT_BLACK = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8"
Draw = Callable[[], Image.Image]
DICE, CHECKERS = common.PANEL_X, checkers.PANEL_X

Case = tuple[str, int, Draw, Draw, int, RGB]


def _match_cases(
    game: str, panel_x: int, board: Callable[..., Image.Image], score: float
) -> list[Case]:
    """What every game's panel shows: both scores (``score`` against ``score`` + 2), the game
    and the match length, and for the dice games a double offered."""
    cases: list[Case] = [
        (
            f"{game}-score-0",
            panel_x,
            lambda: board(_scores(score, 3)),
            lambda: board(_scores(score + 2, 3)),
            1,
            TEXT,
        ),
        (
            f"{game}-score-1",
            panel_x,
            lambda: board(_scores(3, score)),
            lambda: board(_scores(3, score + 2)),
            1,
            TEXT_DIM,
        ),
        (
            f"{game}-game-and-match",
            panel_x,
            lambda: board(_scores(0, 0, 11, 2)),
            lambda: board(_scores(0, 0, 13, 3)),
            2,
            TEXT,
        ),
    ]
    if panel_x == DICE:
        offered = [
            lambda value=value: board(SCENE, cube=Cube(value), cube_offered_by=1)
            for value in (2, 4)
        ]
        cases.append((f"{game}-doubled", panel_x, offered[0], offered[1], 1, TEXT))
    return cases


# (what changes, where the panel starts, the two boards, how many numbers change between them,
# their colour: seat 0 is on turn in all of them)
PANEL_NUMBERS: list[Case] = [
    *_match_cases("bg", DICE, lambda *a, **kw: _bg(_START, *a, **kw), 10),
    *_match_cases("nn", DICE, lambda *a, **kw: _nn(_NN, *a, **kw), 10),
    *_match_cases("ck", CHECKERS, lambda *a: _ck(_CK, *a), 10.5),
    (
        "bg-pips-0",
        DICE,
        lambda: _bg(_START),
        lambda: _bg(bg.Position(_BACK_RUN, _START.theirs)),
        1,
        TEXT,
    ),
    (
        "bg-pips-1",
        DICE,
        lambda: _bg(_START),
        lambda: _bg(bg.Position(_START.mine, _BACK_RUN)),
        1,
        TEXT_DIM,
    ),
    ("bg-off-and-pips", DICE, lambda: _bg(_BEARING_OFF[0]), lambda: _bg(_BEARING_OFF[1]), 2, TEXT),
    ("nn-safety-0", DICE, lambda: _nn(_NN), lambda: _nn(nn.Position.from_id("277-012")), 1, TEXT),
    (
        "nn-safety-1",
        DICE,
        lambda: _nn(_NN),
        lambda: _nn(nn.Position.from_id("012-277")),
        1,
        TEXT_DIM,
    ),
    ("ck-men", CHECKERS, lambda: _ck(_CK), lambda: _ck(ck.Board.from_fen(_EIGHT_BLACK)), 1, TEXT),
    (
        "ck-men-and-kings",
        CHECKERS,
        lambda: _ck(ck.Board.from_fen(_KINGS)),
        lambda: _ck(ck.Board.from_fen(_KINGS.replace("K27", "27"))),
        2,
        TEXT,
    ),
]


@pytest.mark.parametrize(
    ("panel_x", "a", "b", "count", "colour"),
    [case[1:] for case in PANEL_NUMBERS],
    ids=[case[0] for case in PANEL_NUMBERS],
)
def test_panel_numbers_read_on_a_phone(
    panel_x: int, a: Draw, b: Draw, count: int, colour: RGB
) -> None:
    """Every number in the side panel: scores (10.5 too), pips (3 digits), checkers borne off,
    in safety, men and kings, the game, the match length and a double offered."""
    heights = number_heights(a(), b(), (panel_x, 0, WIDTH, HEIGHT), colour)
    assert len(heights) == count, heights
    assert all(on_phone(h) >= MIN_PHONE_PX for h in heights), heights


# --- whose block is lit ------------------------------------------------------------------------


def _lit_seats(image: Image.Image, panel_x: int) -> set[int]:
    """The seats whose block has the amber bar (seat 1's block is at the top)."""
    bar_x = panel_x + 9
    return {
        seat
        for seat, y in ((1, 40), (0, HEIGHT - 40))
        if image.getpixel((bar_x, y)) == common.HIGHLIGHT
    }


@pytest.mark.parametrize("offer_by", [None, 0, 1])
@pytest.mark.parametrize("moves", [(), ("11-15",)], ids=["black-to-move", "white-to-move"])
def test_checkers_lights_the_player_who_answers_a_draw_offer(
    offer_by: int | None, moves: tuple[str, ...]
) -> None:
    """As the engine has it: while a draw is offered the offerer's opponent acts (accepts or
    declines), so their block is lit, as the double's taker is in the dice games."""
    match = CheckersMatch(MatchRules(length=3))
    for move in moves:
        match.apply(act.Move(player=match.turn, move=move))
    if offer_by is not None:
        match.apply(act.OfferDraw(player=offer_by))
    image = checkers.board_image(
        match.board, match.black_seat, SCENE, draw_offered_by=match.draw_offered_by
    )
    assert match.actor == (match.turn if offer_by is None else 1 - offer_by)
    assert _lit_seats(image, checkers.PANEL_X) == {match.actor}


# --- labels in other languages -----------------------------------------------------------------


def test_a_long_label_shrinks_and_its_number_keeps_its_size(drawn_texts: DrawnTexts) -> None:
    """Labels will be translated: one longer than its room is drawn smaller (then cut), never
    the number, and nothing passes the block's edge."""
    drawn = drawn_texts(common)
    canvas = Image.new("RGB", (WIDTH, HEIGHT))
    icon = Image.new("RGBA", (34, 34), (0, 0, 0, 0))
    long_label = common.Stat("Verbleibende Augen insgesamt", "167")
    seat = common.SeatInfo("Alice", icon, (long_label, long_label), on_turn=True)
    middle = (common.Stat("Verdopplung angeboten auf", "64"),)
    common.draw_panel(canvas, common.PANEL_X, (seat, seat), middle, crawford=False)
    sizes = {text: size for text, size in drawn}
    assert sizes["167"] == sizes["64"] == common.VALUE_SIZE
    labels = [(text, size) for text, size in drawn if text not in ("Alice", "167", "64")]
    assert len(labels) == 5  # two rows in each block, one in the middle
    assert all(size < common.LABEL_SIZE for _, size in labels)
    whole = ("Verbleibende Augen insgesamt", "Verdopplung angeboten auf")
    assert all(any(w.startswith(text.rstrip("…")) for w in whole) for text, _ in labels)
    # No text in the blocks' right padding; the numbers as high as ever.
    for top, bottom in ((0, 200), (HEIGHT - 200, HEIGHT)):
        assert ink_rows(canvas, (WIDTH - 15, top, WIDTH, bottom), TEXT, 200) == 0
    blank = Image.new("RGB", (WIDTH, HEIGHT), common.PANEL)
    numbers = number_heights(blank, canvas, (WIDTH - 58, 0, WIDTH, HEIGHT), TEXT)
    assert len(numbers) == 5 and all(on_phone(h) >= MIN_PHONE_PX for h in numbers), numbers


# Discord names run to 32 characters (issue 33): wide ones, Greek and Turkish.
NAMES_32 = [
    "W" * 32,
    "Αλεξάνδρα Παπαδοπούλου-Κωνσταντί",
    "Çağlayan Büyükşehirlioğlu İğd\u0131rl",
]


@pytest.mark.parametrize("name", NAMES_32)
def test_issue_33_a_32_character_name_is_whole_in_the_alt_text_and_fits_the_boards(
    name: str, drawn_texts: DrawnTexts
) -> None:
    """Issue 33, long names: the alt text keeps all 32 characters; the boards shorten only
    what can't fit the panel (by measured width), so every drawn line fits."""
    assert len(name) == 32
    drawn_sized = drawn_texts(common)
    scene = Scene(("Bob", name), (0, 0), 7)
    alts = {
        "backgammon": backgammon.describe(bg.Position.initial(), 1, scene),
        "nannon": nannon.describe(nn.Position.initial(), 1, scene),
        "checkers": checkers.describe(ck.Board.initial(), 0, scene),
    }
    assert all(name in alt for alt in alts.values()), alts
    for panel_x, board in (
        (common.PANEL_X, lambda: backgammon.board_image(bg.Position.initial(), 1, scene)),
        (checkers.PANEL_X, lambda: checkers.board_image(ck.Board.initial(), 0, scene)),
    ):
        drawn_sized.clear()
        board()
        width = common.panel_name_width(panel_x)
        lines, size = common.name_lines(name, width)
        assert all(line in [t for t, _ in drawn_sized] for line in lines)
        assert all(common.text_width(line, size) + 2 <= width for line in lines)
        shown = "".join(lines).replace(" ", "").rstrip("…")
        if not lines[-1].endswith("…"):  # cut only when two whole lines can't hold it
            assert shown == name.replace(" ", "")
        else:
            assert common.text_width(name, 20) > 2 * width - 4
