"""Board images: valid small PNGs, distinct per position, highlights where the move was, alt
text that names every piece, and no trouble from hostile player names."""

from __future__ import annotations

import doctest
import io
import random
import re
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import render.common
from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.cube import Cube
from render import analysis_chart, analysis_report, backgammon, checkers, gallery, nannon
from render.common import HEIGHT, MAX_PNG_BYTES, PANEL_X, WIDTH, Scene

NAMES = Scene(("Alice", "Bob"), (1, 2), 7)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def open_png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def changed(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Whether any pixel differs between ``a`` and ``b`` inside ``box``."""
    diff = ImageChops.difference(a.convert("RGB").crop(box), b.convert("RGB").crop(box))
    return diff.getbbox() is not None


def around(xy: tuple[int, int], r: int = 10) -> tuple[int, int, int, int]:
    return (xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r)


def test_common_doctests() -> None:
    assert doctest.testmod(render.common).failed == 0


# --- every gallery board: valid, the right size, small ----------------------------------------


@pytest.mark.parametrize("board", gallery.boards(), ids=lambda b: b.name)
def test_gallery_board_is_a_small_png_of_the_board_size(board: gallery.Board) -> None:
    data = board.png()
    image = open_png(data)
    assert image.format == "PNG"
    assert image.size == (WIDTH, HEIGHT)
    assert WIDTH / HEIGHT == 1.6  # not square: Android clients crop square images
    assert len(data) < MAX_PNG_BYTES
    assert board.alt().strip()


def test_gallery_main_writes_every_board(tmp_path: object) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "gallery"
    assert gallery.main([str(out)]) == 0
    names = {p.stem for p in out.glob("*.png")}
    assert names == {b.name for b in gallery.boards()}
    assert {p.stem for p in out.glob("*.txt")} == names
    assert gallery.main([]) == 2


def test_gallery_help_says_what_it_writes_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33, "The docs": the picture gallery's script was undocumented, and
    ``--help`` drew every picture into a folder named "--help"."""
    monkeypatch.chdir(tmp_path)
    assert gallery.main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert shown.startswith("usage: python -m render.gallery [-h] OUT_DIR")
    assert "one PNG per picture and its alt text beside it (.txt)" in shown
    assert "OUT_DIR/analysis" in shown
    assert list(tmp_path.iterdir()) == []
    guide = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
    assert "`python -m render.gallery OUT_DIR` (`--help`)" in guide.read_text(encoding="utf-8")


@pytest.mark.parametrize("picture", gallery.analysis_pictures(), ids=lambda b: b.name)
def test_gallery_analysis_pictures_are_small_pngs(picture: gallery.Board) -> None:
    data = picture.png()
    image = open_png(data)
    if picture.name == "analysis-chart":
        assert image.size == (analysis_chart.CHART_WIDTH, analysis_chart.CHART_HEIGHT)
    else:
        assert image.size == (WIDTH, HEIGHT + analysis_report.CAPTION_HEIGHT)
        assert "Mistake: " in picture.alt()
    assert len(data) < analysis_chart.MAX_CHART_PNG_BYTES
    assert picture.alt().strip()


def test_gallery_main_writes_the_analysis_pictures_beside(tmp_path: object) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "gallery"
    assert gallery.main([str(out)]) == 0
    names = {p.stem for p in (out / "analysis").glob("*.png")}
    assert names == {b.name for b in gallery.analysis_pictures()}
    assert {p.stem for p in (out / "analysis").glob("*.txt")} == names


# --- distinct positions, distinct images -------------------------------------------------------


def test_distinct_positions_give_distinct_images() -> None:
    start = bg.Position.initial()
    play = bg.Play.parse("8/5 6/5", start, (3, 1))
    images = {
        backgammon.board_png(start, 0, NAMES),
        backgammon.board_png(play.position, 1, NAMES),
        backgammon.board_png(play.position.flip(), 0, NAMES),
        nannon.board_png(nn.Position.initial(), 0, NAMES),
        nannon.board_png(nn.Position.from_id("012-024"), 1, NAMES),
        nannon.board_png(nn.Position.from_id("012-034"), 1, NAMES),
        checkers.board_png(ck.Board.initial(), 0, NAMES),
        checkers.board_png(ck.Board.initial(), 1, NAMES),
        checkers.board_png(ck.Board.from_fen("W:W21,22:B1,K2"), 0, NAMES),
    }
    assert len(images) == 9


def test_same_inputs_give_the_same_bytes_from_many_threads() -> None:
    rng = random.Random(7)
    positions = _random_bg_positions(rng, 12)
    serial = [backgammon.board_png(p, t, NAMES, dice=(3, 4)) for p, t, _ in positions]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(
            pool.map(lambda a: backgammon.board_png(a[0], a[1], NAMES, dice=(3, 4)), positions)
        )
    assert threaded == serial
    assert len(set(serial)) == len(serial)


# --- the last move lights up where it happened -------------------------------------------------


def test_backgammon_last_move_marks_from_and_to_points_only() -> None:
    start = bg.Position.initial()
    play = bg.Play.parse("8/5 6/5", start, (3, 1))
    after = play.position  # seen from seat 1, on roll next
    plain = backgammon.board_image(after, 1, NAMES)
    marked = backgammon.board_image(after, 1, NAMES, last_move=(0, play))
    # Seat 0's 8 and 6 lost a checker (ghost rings), its 5 gained two (amber rings).
    assert changed(plain, marked, around(backgammon._slot(("point", 8), 2)))
    assert changed(plain, marked, around(backgammon._slot(("point", 6), 4)))
    assert changed(plain, marked, around(backgammon._slot(("point", 5), 1), 17))
    for p in (8, 6, 5):  # their point numbers light up
        assert changed(plain, marked, around(backgammon._label_pos(p), 8))
    # Nothing else: not the other points, not the panel, not the bar.
    assert not changed(plain, marked, (0, 0, PANEL_X, backgammon.MID))
    assert not changed(plain, marked, around(backgammon._slot(("point", 13), 0), 17))
    assert not changed(plain, marked, around(backgammon._slot(("point", 1), 0), 17))
    assert not changed(plain, marked, (PANEL_X, 0, WIDTH, HEIGHT))


def test_backgammon_hit_checker_on_the_bar_is_marked() -> None:
    mine = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    theirs = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0)
    before = bg.Position(mine, theirs)  # seat 0 on roll; seat 1 has a blot on our 5-point
    play = bg.Play.parse("8/5* 6/5", before, (3, 1))
    after = play.position
    assert after.mine[bg.BAR] == 1  # seat 1 now on roll, on the bar
    plain = backgammon.board_image(after, 1, NAMES)
    marked = backgammon.board_image(after, 1, NAMES, last_move=(0, play))
    assert changed(plain, marked, around(backgammon._slot(("bar", 1), 0), 12))
    assert "Last move: Alice 8/5* 6/5" in backgammon.describe(after, 1, NAMES, last_move=(0, play))


def test_nannon_last_move_marks_source_destination_and_the_hit_checker() -> None:
    before = nn.Position.from_id("012-024")  # seat 1 on roll
    move = nn.Move.parse("1/3*", before, 2)
    after = before.apply(move)  # seat 0 on roll, one checker sent home
    plain = nannon.board_image(after, 0, NAMES)
    marked = nannon.board_image(after, 0, NAMES, last_move=(1, move))
    assert changed(plain, marked, around(nannon._spot_centre(1, 1), 30))  # left spot
    assert changed(plain, marked, around(nannon._spot_centre(1, 3), 30))  # landed and hit
    home = after.mine.count(nn.HOME)
    assert changed(plain, marked, around(nannon._slot_centre(0, nn.HOME, home - 1), 30))
    assert not changed(plain, marked, around(nannon._spot_centre(0, 1), 30))
    assert not changed(plain, marked, (PANEL_X, 0, WIDTH, HEIGHT))


def test_checkers_last_move_marks_the_whole_jump_path_and_captures() -> None:
    board = ck.Board.from_fen("W:W22,26,30,18,11,K5:B6,K9,10,15,K27")
    jump = ck.Move.parse("5x14x7", board)
    assert jump.captures == (9, 10)
    after = board.apply(jump)
    plain = checkers.board_image(after, 1, NAMES)
    marked = checkers.board_image(after, 1, NAMES, last_move=(0, jump))
    for square in (*jump.path, *jump.captures):
        assert changed(plain, marked, around(checkers._centre(square, False), 20)), square
    for square in (29, 32, 4, 20):
        assert not changed(plain, marked, around(checkers._centre(square, False), 20)), square


# --- orientation: seat 0 at the bottom, always ------------------------------------------------


def _is_light(image: Image.Image, xy: tuple[int, int]) -> bool:
    r, g, b = image.convert("RGB").getpixel(xy)  # type: ignore[misc]
    return (r + g + b) / 3 > 150


def test_seat_zero_stays_at_the_bottom_whoever_is_on_roll() -> None:
    start = bg.Position.initial()
    for turn in (0, 1):
        image = backgammon.board_image(start, turn, NAMES)
        x, y = backgammon._slot(("point", 6), 0)  # seat 0's six point, bottom right
        assert y > HEIGHT // 2 and x > WIDTH // 2 - 100
        assert _is_light(image, (x, y))  # seat 0 plays ivory
        x, y = backgammon._slot(("point", 19), 0)  # seat 1's six point, top right
        assert not _is_light(image, (x, y))
    for black_seat in (0, 1):
        image = checkers.board_image(ck.Board.initial(), black_seat, NAMES)
        bottom_square = 1 if black_seat == 0 else 32  # a seat-0 piece in the back row
        x, y = checkers._centre(bottom_square, black_seat == 0)
        assert y > HEIGHT - 100
        assert _is_light(image, (x, y)) == (black_seat == 1)  # White is ivory


# --- describe names every checker -------------------------------------------------------------


BgState = tuple[bg.Position, int, tuple[int, bg.Play] | None]


def _random_bg_positions(rng: random.Random, n: int) -> list[BgState]:
    out: list[BgState] = []
    position, turn = bg.Position.initial(), 0
    last: tuple[int, bg.Play] | None = None
    while len(out) < n:
        if position.is_over():
            position, turn, last = bg.Position.initial(), 0, None
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        if plays:
            play = rng.choice(plays)
            position, last = play.position, (turn, play)
        else:
            position = position.flip()
        turn = 1 - turn
        out.append((position, turn, last))
    return out


def _bg_listed(text: str, name: str) -> dict[str, int]:
    match = re.search(rf"{name}'s checkers: ([^.]*)\.", text)
    assert match, text
    listed = {}
    for word in match.group(1).split(", "):
        where, count = word.rsplit(" ", 1)
        listed[where] = int(count)
    return listed


def test_backgammon_describe_lists_every_checker() -> None:
    for position, turn, last in _random_bg_positions(random.Random(3), 60):
        text = backgammon.describe(position, turn, NAMES, last_move=last)
        sides = (position.mine, position.theirs) if turn == 0 else (position.theirs, position.mine)
        for seat, name in enumerate(("Alice", "Bob")):
            side = sides[seat]
            expected = {}
            for own in range(1, 25):
                if side[own]:
                    shown = own if seat == turn else 25 - own  # numbered for the player on roll
                    expected[f"{shown}-point"] = side[own]
            if side[bg.BAR]:
                expected["bar"] = side[bg.BAR]
            if side[bg.OFF]:
                expected["borne off"] = side[bg.OFF]
            assert _bg_listed(text, name) == expected
        pips = position.pips() if turn == 0 else position.pips()[::-1]
        assert f"Pips: Alice {pips[0]}, Bob {pips[1]}." in text


def test_backgammon_describe_mentions_dice_cube_score_and_crawford() -> None:
    scene = Scene(("Alice", "Bob"), (6, 4), 7, crawford=True)
    text = backgammon.describe(bg.Position.initial(), 1, scene, dice=(6, 5), cube=Cube(2, 0))
    assert "Crawford game" in text and "match to 7" in text
    assert "Alice (white, bottom) 6" in text and "Bob (black, top) 4" in text
    assert "Bob to play, rolled 6-5" in text
    assert "Cube at 2, owned by Alice" in text
    offered = backgammon.describe(bg.Position.initial(), 1, scene, cube=Cube(), cube_offered_by=1)
    assert "Bob doubles to 2: Alice to take or drop." in offered


def test_nannon_describe_lists_every_checker() -> None:
    for position in nn.all_positions()[::97]:
        for turn in (0, 1):
            text = nannon.describe(position, turn, NAMES, dice=(3,), cube=Cube())
            by_seat = (
                (position.mine, position.theirs) if turn == 0 else (position.theirs, position.mine)
            )
            for seat, name in enumerate(("Alice", "Bob")):
                match = re.search(rf"{name}'s checkers: ([^.]*)\.", text)
                assert match, text
                words = sorted(match.group(1).split(", "))
                expected = []
                for place in by_seat[seat]:
                    if place == nn.HOME:
                        expected.append("home")
                    elif place == nn.SAFETY:
                        expected.append("safety")
                    else:
                        expected.append(f"spot {place if seat == turn else 7 - place}")
                assert words == sorted(expected)
            assert "Cube centred at 1." in text


def test_checkers_describe_lists_every_piece() -> None:
    rng = random.Random(11)
    board = ck.Board.initial()
    for _ in range(60):
        moves = board.legal_moves()
        if not moves:
            board = ck.Board.initial()
            continue
        move = rng.choice(moves)
        board = board.apply(move)
        text = checkers.describe(board, 0, NAMES, last_move=(0, move))
        for colour, men, kings in (
            ("Black", board.black_men, board.black_kings),
            ("White", board.white_men, board.white_kings),
        ):
            if men:
                found = re.search(rf"\. {colour} men on ([\d, ]+)", text)
                assert found and {int(s) for s in found.group(1).split(", ")} == set(men)
            if kings:
                found = re.search(rf"\. {colour} (?:men on [\d, ]+ and )?kings on ([\d, ]+)", text)
                assert found and {int(s) for s in found.group(1).split(", ")} == set(kings)
        assert f"Last move: Alice {move}" in text


# --- hostile names ----------------------------------------------------------------------------

HOSTILE = [
    "",
    " ",
    "\u200b\u200d",
    "\u202egnp.exe\u202c",
    "🎲🎲🎲👑",
    "שלום עולם",
    "مرحبا",
    "Иван Петров",
    "Ünïcødé Ørsted",
    "a\x00b\x1bc\r\nd\te",
    "Z̷̢̛a̸l̵g̶o̴" * 5,
    "W" * 1000,
    "\ud800",  # a lone surrogate
    "@everyone <@123> **bold**",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_draw_and_describe_safely(name: str) -> None:
    scene = Scene((name, name[::-1]), (0, 0), 3)
    for png, text in (
        (
            backgammon.board_png(bg.Position.initial(), 0, scene),
            backgammon.describe(bg.Position.initial(), 0, scene),
        ),
        (
            nannon.board_png(nn.Position.initial(), 1, scene),
            nannon.describe(nn.Position.initial(), 1, scene),
        ),
        (
            checkers.board_png(ck.Board.initial(), 1, scene),
            checkers.describe(ck.Board.initial(), 1, scene),
        ),
    ):
        assert open_png(png).size == (WIDTH, HEIGHT)
        assert len(png) < MAX_PNG_BYTES
        assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text)
        assert len(text) < 1200


def test_names_are_cut_and_fall_back_to_the_seat() -> None:
    from render.common import NAME_MAX_CHARS, clean_name, drawable_name

    assert len(clean_name("W" * 1000, 0)) == NAME_MAX_CHARS
    assert clean_name("\u200b", 1) == "Player 2"
    # The bundled font draws Latin with accents, Greek and Cyrillic as typed.
    assert drawable_name("Ünïcødé Łukasz", 0) == "Ünïcødé Łukasz"
    assert drawable_name("Дмитрий Σωκράτης", 0) == "Дмитрий Σωκράτης"
    # What it lacks (emoji, CJK) becomes "?", or the seat name when nothing readable is left.
    assert drawable_name("Bo 🎲", 0) == "Bo ?"
    assert drawable_name("🎲🎲", 1) == "Player 2"
    assert drawable_name("山田", 0) == "Player 1"


# --- random positions: always a valid small PNG ------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 6))
def test_random_backgammon_positions_render(seed: int, d1: int, d2: int) -> None:
    position, turn, last = _random_bg_positions(random.Random(seed), 1 + seed % 60)[-1]
    data = backgammon.board_png(
        position,
        turn,
        NAMES,
        dice=(d1, d2),
        last_move=last,
        cube=Cube(4, seed % 2),
    )
    assert open_png(data).size == (WIDTH, HEIGHT) and len(data) < MAX_PNG_BYTES


# --- whose turn the panel shows ---------------------------------------------------------------


def lit_bar(image: Image.Image, panel_x: int = PANEL_X) -> set[int]:
    """The seats whose panel block carries the amber turn bar (seat 1's block is at the top)."""
    rgb = image.convert("RGB")
    return {
        seat
        for seat, y in ((1, 24), (0, HEIGHT - 24))
        if rgb.getpixel((panel_x + 9, y)) == render.common.HIGHLIGHT
    }


@pytest.mark.parametrize("doubler", [0, 1])
def test_an_offered_double_lights_the_player_who_must_take_or_pass(doubler: int) -> None:
    start = bg.Position.initial()
    offered = backgammon.board_image(start, doubler, NAMES, cube=Cube(), cube_offered_by=doubler)
    assert lit_bar(offered) == {1 - doubler}
    assert lit_bar(backgammon.board_image(start, doubler, NAMES, cube=Cube())) == {doubler}
    position = nn.Position.initial()
    offered = nannon.board_image(position, doubler, NAMES, cube=Cube(), cube_offered_by=doubler)
    assert lit_bar(offered) == {1 - doubler}
    assert lit_bar(nannon.board_image(position, doubler, NAMES, cube=Cube())) == {doubler}


def test_issue_33_a_finished_board_shows_no_player_on_turn() -> None:
    """Issue 33: "a finished board still shows a player on turn". With ``Scene.finished`` no
    seat's bar is lit and the alt text names no one to play, in all three games."""
    over = Scene(("Alice", "Bob"), (5, 2), 5, finished=True)
    won = nn.Position.from_id("157-777")
    assert lit_bar(nannon.board_image(won, 1, NAMES, cube=Cube())) == {1}
    assert lit_bar(nannon.board_image(won, 1, over, cube=Cube())) == set()
    assert "to play" not in nannon.describe(won, 1, over)
    assert "The game is over." in nannon.describe(won, 1, over)
    start = bg.Position.initial()
    assert lit_bar(backgammon.board_image(start, 0, over, cube=Cube())) == set()
    assert "to play" not in backgammon.describe(start, 0, over)
    board = ck.Board.initial()
    assert lit_bar(checkers.board_image(board, 0, NAMES), checkers.PANEL_X) != set()
    assert lit_bar(checkers.board_image(board, 0, over), checkers.PANEL_X) == set()
    assert "to move" not in checkers.describe(board, 0, over)
