"""Mistake cards: the board as the bot draws it, with the move played and the best move drawn
on it (and not the opponent's previous move), a caption band below naming the player, with the
move played, the best move and the cost (amber for a blunder), in the caller's words, and alt
text that says the same."""

from __future__ import annotations

import doctest
import importlib
import io
from typing import Any

import pytest
from PIL import Image
from support.render_spy import DrawnTexts

import render.analysis_report
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.analysis import Decision, DecisionKind
from engines.cube import Cube
from render import backgammon, jobs, nannon
from render.analysis_report import CAPTION_HEIGHT, CardWords, mistake_card
from render.common import BEST, HEIGHT, HIGHLIGHT, MAX_PNG_BYTES, PLAYED, WIDTH, Scene, text_width

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
    # A decision with no move to draw (a cube action): the card's board is the bot's exactly.
    cube = image_of(mistake_card(game, args, kwargs, mistake(0.123, "pass", "take"))[0])
    assert cube.crop((0, 0, WIDTH, HEIGHT)).tobytes() == board.tobytes()
    # With a move's arrows on the board, the panel is still the bot's.
    panel = (importlib.import_module(f"render.{game}").PANEL_X, 0, WIDTH, HEIGHT)
    assert card.crop(panel).tobytes() == board.crop(panel).tobytes()
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


# --- the moves on the board, the player named ---------------------------------------------------


def colour_pixels(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 30) -> int:
    total = 0
    for count, found in image.getcolors(maxcolors=image.width * image.height) or []:
        assert isinstance(found, tuple)
        if sum(abs(a - b) for a, b in zip(found, colour, strict=True)) <= tolerance:
            total += count
    return total


def two_moves(game: str) -> tuple[str, str]:
    """Two legal moves on the game's board in BOARDS: (played, best)."""
    args, kwargs = BOARDS[game]
    if game == "checkers":
        moves = [str(m) for m in args[0].legal_moves()]
    elif game == "nannon":
        moves = [str(m) for m in args[0].legal_moves(*kwargs["dice"])]
    else:
        moves = [str(p) for p in args[0].legal_plays(*kwargs["dice"])]
    return moves[0], moves[-1]


@pytest.mark.parametrize("game", BOARDS)
def test_the_played_and_best_moves_are_drawn_as_arrows_in_two_colours(game: str) -> None:
    args, kwargs = BOARDS[game]
    played, best = two_moves(game)
    both = image_of(mistake_card(game, args, kwargs, mistake(0.1, played, best))[0])
    board = both.crop((0, 0, WIDTH, HEIGHT))
    plain = image_of(jobs.board(game, args, kwargs)[0])
    assert colour_pixels(plain, PLAYED) == 0 and colour_pixels(plain, BEST) == 0
    assert colour_pixels(board, PLAYED) > 100
    assert colour_pixels(board, BEST) > 100
    # Each line of the caption starts with its move's arrow.
    band = both.crop((0, HEIGHT + 1, 60, HEIGHT + CAPTION_HEIGHT))
    assert colour_pixels(band, PLAYED) > 20 and colour_pixels(band, BEST) > 20
    # Only the move played (the best is unreadable here): no sky blue.
    alone = image_of(mistake_card(game, args, kwargs, mistake(0.1, played, "?!"))[0])
    assert colour_pixels(alone, PLAYED) > 100 and colour_pixels(alone, BEST) == 0


def test_the_arrows_go_where_the_moves_go() -> None:
    """Backgammon 6-1 from the start: best 13/7 8/7 (sky blue) and played 24/18 13/12 ...
    each arrow starts at its checker and ends where it lands."""
    args, kwargs = BOARDS["backgammon"]
    card = image_of(
        mistake_card("backgammon", args, kwargs, mistake(0.2, "24/18 6/5", "13/7 8/7"))[0]
    )

    def colour_near(where: tuple[str, int], k: int, colour: tuple[int, int, int]) -> bool:
        x, y = backgammon._slot(where, k)
        return colour_pixels(card.crop((x - 20, y - 20, x + 20, y + 20)), colour) > 0

    assert colour_near(("point", 24), 1, PLAYED) and colour_near(("point", 18), 0, PLAYED)
    assert colour_near(("point", 13), 4, BEST) and colour_near(("point", 7), 0, BEST)
    assert not colour_near(("point", 13), 4, PLAYED)


@pytest.mark.parametrize("game", BOARDS)
def test_the_opponents_previous_move_is_not_marked_on_the_card(game: str) -> None:
    args, kwargs = BOARDS[game]
    position = args[0]
    if game == "checkers":
        previous: Any = position.legal_moves()[0]
    elif game == "nannon":
        previous = position.legal_moves(2)[0]
    else:
        previous = position.legal_plays(2, 1)[0]
    marked = {**kwargs, "last_move": (1, previous)}
    decision = mistake(0.1, *two_moves(game))
    assert mistake_card(game, args, marked, decision) == mistake_card(game, args, kwargs, decision)
    assert jobs.board(game, args, marked)[0] != jobs.board(game, args, kwargs)[0]


@pytest.mark.parametrize("seat", [0, 1])
def test_the_caption_names_the_player(seat: int, drawn_texts: DrawnTexts) -> None:
    drawn = drawn_texts(render.analysis_report)
    args, kwargs = BOARDS["backgammon"]
    decision = Decision(
        2, 10, seat, DecisionKind.MOVE, "24/18 6/5", "13/7 8/7", 0.1, False, None, 0.4
    )
    _, alt = mistake_card("backgammon", args, kwargs, decision)
    name = SCENE.names[seat]
    assert f"{name} played 24/18 6/5" in dict(drawn)
    assert f"Mistake: {name} played 24/18 6/5, best 13/7 8/7" in alt


def test_the_caption_is_in_the_callers_words_and_a_long_line_shrinks_rather_than_cut(
    drawn_texts: DrawnTexts,
) -> None:
    drawn = drawn_texts(render.analysis_report)
    words = CardWords(
        played="{player} hat {move} gespielt (der größte Fehler)", best="besser: {move}"
    )
    args = (bg.Position.initial(), 0, Scene(("maximilian_von_habsburg", "Bob"), (1, 2), 7))
    kwargs = BOARDS["backgammon"][1]
    _, alt = mistake_card("backgammon", args, kwargs, mistake(0.1, "24/18 6/5", "13/7 8/7"), words)
    line = "maximilian_von_habsburg hat 24/18 6/5 gespielt (der größte Fehler)"
    assert line in alt and "besser: 13/7 8/7" in alt
    sizes = dict(drawn)
    assert line in sizes and sizes[line] < 24  # whole, smaller
    assert text_width(line, sizes[line]) + 42 <= WIDTH - 16 - 24 - 16 - text_width("-0.100", 24)


# --- issue 33, "pictures that say less than they should": the arrows --------------------------


TWICE = "\u00d72"  # the times sign, not a letter x


def arrows_and_badges(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Any]]:
    """Start recording the arrows backgammon draws on a board and the badges beside them."""
    backgammon._PALETTE.get()  # its sample boards draw arrows too
    arrows: list[Any] = []
    badges: list[Any] = []
    draw_arrow = backgammon.draw_arrow
    draw_badge = getattr(backgammon, "draw_badge", lambda *args: None)  # new in issue 33

    def arrow(canvas: Any, start: Any, end: Any, colour: Any, **kwargs: Any) -> None:
        arrows.append((start, end, colour))
        draw_arrow(canvas, start, end, colour, **kwargs)

    def badge(canvas: Any, centre: Any, text: str, colour: Any, *args: Any) -> None:
        badges.append((centre, text, colour))
        draw_badge(canvas, centre, text, colour, *args)

    monkeypatch.setattr(backgammon, "draw_arrow", arrow)
    monkeypatch.setattr(backgammon, "draw_badge", badge, raising=False)
    return arrows, badges


def test_issue_33_a_doubles_play_draws_one_arrow_per_move_with_its_count(
    monkeypatch: pytest.MonkeyPatch, drawn_texts: DrawnTexts
) -> None:
    """6-6 from the start, 13/7(2) 8/2(2) played where 24/18(2) 13/7(2) was best: four
    arrows, not eight drawn two by two on top of each other, each with a "\u00d72" badge in its
    colour, on the playing area, large enough for a phone."""
    arrows, badges = arrows_and_badges(monkeypatch)
    drawn = drawn_texts(render.common)
    args = (bg.Position.initial(), 0, SCENE)
    kwargs = {"dice": (6, 6), "cube": Cube()}
    decision = mistake(0.1, "13/7(2) 8/2(2)", "24/18(2) 13/7(2)")
    card = image_of(mistake_card("backgammon", args, kwargs, decision)[0])
    assert len(arrows) == len(set(arrows)) == 4
    assert sorted((text, colour) for _, text, colour in badges) == sorted(
        [(TWICE, BEST), (TWICE, BEST), (TWICE, PLAYED), (TWICE, PLAYED)]
    )
    assert [size for text, size in drawn if text == TWICE] == [25] * 4  # 9 px high on a phone
    w, h = render.common.badge_size(TWICE)
    for (x, y), _, colour in badges:
        assert backgammon.TOP + h / 2 <= y <= backgammon.BOTTOM - h / 2
        assert colour_pixels(card.crop((x - w / 2, y - h / 2, x + w / 2, y + h / 2)), colour) > 40
    # The two 13/7 arrows' badges (both plays make it) do not overlap.
    (a, _, _), (b, _, _) = sorted(
        (badge for badge in badges if backgammon._point_x(13) < badge[0][0] < backgammon.BAR_X),
        key=lambda badge: badge[2],
    )
    assert abs(a[0] - b[0]) >= w or abs(a[1] - b[1]) >= h


def test_issue_33_moves_that_chain_are_separate_arrows_and_only_repeats_are_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """5-5: 13/3 13/8(2) is 13/8 three times and 8/3 once (the checker that went on)."""
    arrows, badges = arrows_and_badges(monkeypatch)
    board = backgammon.board_image(
        bg.Position.initial(),
        0,
        dice=(5, 5),
        choices=(bg.parse_play("13/3 13/8(2)", bg.Position.initial(), (5, 5)), None),
    )
    assert board.size == (WIDTH, HEIGHT)
    starts = [backgammon._slot(("point", 13), 4), backgammon._slot(("point", 8), 2)]
    assert [start for start, _, _ in arrows] == starts
    assert [text for _, text, _ in badges] == ["\u00d73"]


def label_boxes(game: str, turn: int) -> list[tuple[int, int, int, int]]:
    """Where the board's point (spot) numbers are, and Nannon's tray names."""
    if game == "backgammon":
        spots = [(*backgammon._label_pos(p), 20, 14) for p in range(1, 25)]
    else:
        y = nannon.SPOT_Y + (64 if turn == 0 else -64)
        spots = [(nannon.SPOT_X0 + i * nannon.SPOT_PITCH, y, 16, 18) for i in range(6)]
        for (seat, _), (x, y) in nannon._TRAYS.items():
            y = y - 13 if seat == 0 else y + nannon.TRAY_H + 13
            spots.append((x + nannon.TRAY_W // 2, y, 40, 13))
    return [(x - dx, y - dy, x + dx, y + dy) for x, y, dx, dy in spots]


LABELLED = {
    # An arrow out of Nannon's HOME crosses the spot numbers and the tray's name.
    "nannon H/5": ("nannon", (nn.Position((0, 0, 4), (0, 0, 0)), 1, SCENE), (5,), "H/5", "4/S"),
    "nannon H/2": ("nannon", (nn.Position((0, 0, 4), (0, 0, 0)), 0, SCENE), (2,), "H/2", "4/6"),
    "backgammon 6-6": ("backgammon", (bg.Position.initial(), 0, SCENE), (6, 6),
                       "13/7(2) 8/2(2)", "24/18(2) 13/7(2)"),
    # Lone checkers by the top labels, and 4-4 badges.
    "backgammon 4-4": ("backgammon", (bg.Position.initial(), 1, SCENE), (4, 4),
                       "24/20(2) 13/9(2)", "13/5(2)"),
}  # fmt: skip


@pytest.mark.parametrize("case", LABELLED)
def test_issue_33_arrows_leave_the_point_labels_clear(case: str) -> None:
    """Every pixel of a number (or a tray's name) the plain board draws is the same on the
    card: no arrow, head or badge covers one, the numbers staying on top where one passes."""
    game, args, dice, played, best = LABELLED[case]
    kwargs = {"dice": dice, "cube": Cube()}
    decision = Decision(2, 10, args[1], DecisionKind.MOVE, played, best, 0.1, False, None, 0.4)
    card = image_of(mistake_card(game, args, kwargs, decision)[0])
    plain = image_of(jobs.board(game, args, kwargs)[0])
    assert card.crop((0, 0, WIDTH, HEIGHT)).tobytes() != plain.tobytes()
    covered = []
    for box in label_boxes(game, args[1]):
        before, after = plain.crop(box), card.crop(box)
        for xy in ((x, y) for x in range(before.width) for y in range(before.height)):
            colour = before.getpixel(xy)
            assert isinstance(colour, tuple)
            lit = sum(abs(a - b) for a, b in zip(colour, render.common.LABEL, strict=True)) < 60
            if lit and after.getpixel(xy) != colour:
                covered.append((box, xy))
    assert covered == []
