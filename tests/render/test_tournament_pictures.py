"""Tournament pictures (render/tournament.py): the bracket and the tables are legible at phone
width, mark winners and the highlighted row, cut long names instead of clipping, and say it all
in their alt text."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from support.render_spy import DrawnTexts

from render.common import HIGHLIGHT, PANEL, PANEL_ON_ROLL, font
from render.tournament import (
    MAX_TABLE_ROWS,
    TEXT_SIZE,
    WIDTH,
    BracketMatch,
    bracket_picture,
    standings_picture,
)

HEADINGS = ("#", "Player", "Pts", "Buch", "SB")


def _image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def _near(pixel: object, colour: tuple[int, int, int]) -> bool:
    # The PNG's palette may shift a flat colour by a few levels.
    assert isinstance(pixel, tuple)
    return sum(abs(a - b) for a, b in zip(pixel, colour, strict=True)) <= 24


def _count(image: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> int:
    region = image.crop(box)
    return sum(
        1
        for y in range(region.height)
        for x in range(region.width)
        if _near(region.getpixel((x, y)), colour)
    )


def _band(image: Image.Image, y: int) -> bool:
    return _near(image.getpixel((WIDTH - 10, y)), PANEL_ON_ROLL)


def test_digits_are_nine_pixels_high_at_phone_width() -> None:
    _, top, _, bottom = font(TEXT_SIZE).getbbox("0123456789")
    assert (bottom - top) * 380 / WIDTH >= 9


def test_standings_table_highlights_its_row_and_says_everything() -> None:
    rows = [("1", "alice", "3", "4.5", "4"), ("2", "bob", "2", "5", "2.5")]
    png, alt = standings_picture("After round 3", HEADINGS, rows, highlight=1)
    image = _image(png)
    assert image.width == WIDTH
    assert alt == "After round 3. # Player Pts Buch SB. 1 alice 3 4.5 4. 2 bob 2 5 2.5."
    # The second data row has the highlight band (seen right of the numbers); the first not.
    band_rows = [y for y in range(image.height) if _band(image, y)]
    assert band_rows and min(band_rows) > image.height // 2
    plain = _image(standings_picture("After round 3", HEADINGS, rows)[0])
    assert not any(_band(plain, y) for y in range(plain.height))


def test_a_long_name_is_cut_with_an_ellipsis_not_clipped() -> None:
    long_name = "alice_the_magnificent_and_unbeatable"
    png, alt = standings_picture("T", HEADINGS, [("1", long_name, "10.5", "40.5", "100.25")])
    assert long_name in alt  # the alt text keeps the whole name
    image = _image(png)
    # Nothing drawn into the right margin: the name gave way to the numbers.
    assert _count(image, PANEL, (WIDTH - 8, 0, WIDTH, image.height)) == 8 * image.height


def test_a_table_refuses_more_rows_than_fit() -> None:
    rows = [(str(i), "x", "0", "0", "0") for i in range(MAX_TABLE_ROWS + 1)]
    with pytest.raises(ValueError, match="rows"):
        standings_picture("T", HEADINGS, rows)


def test_bracket_shows_winners_in_the_highlight_colour() -> None:
    columns = [
        [BracketMatch("alice", "henry", 0, ("5", "2")), BracketMatch("carol", None, 0)],
        [BracketMatch("alice", "carol")],
    ]
    png, alt = bracket_picture(
        "Cup", ("Semi-finals", "Final"), columns, bye="bye", to_come="to come"
    )
    image = _image(png)
    # The decided column has highlighted (winner) text; the final, undecided, has none.
    half = WIDTH // 2
    assert _count(image, HIGHLIGHT, (0, 100, half, image.height)) > 50
    assert _count(image, HIGHLIGHT, (half, 100, WIDTH, image.height)) == 0
    assert alt == ("Cup. Semi-finals: alice* 5 - henry 2; carol* - bye. Final: alice - carol.")


def test_bracket_names_empty_slots_by_whether_the_draw_reached_them() -> None:
    columns = [[BracketMatch("a", "b"), BracketMatch("c", "d")], [BracketMatch(None, None)]]
    _, alt = bracket_picture("Cup", ("SF", "F"), columns, bye="bye", to_come="TBD")
    assert alt.endswith("F: TBD - TBD.")


@pytest.mark.parametrize(
    "columns",
    [
        [],
        [[BracketMatch("a", "b")] * 3],  # not a power of two
        [[BracketMatch("a", "b")] * 16],  # too many for one picture
        [[BracketMatch("a", "b")] * 2, [BracketMatch("a", "b")] * 2],  # the next is not half
    ],
)
def test_bracket_refuses_a_shape_that_is_not_a_bracket(columns: list[list[BracketMatch]]) -> None:
    with pytest.raises(ValueError):
        bracket_picture("Cup", (), columns, bye="bye", to_come="TBD")


@pytest.mark.parametrize(
    "name",
    ["W" * 32, "Αλεξάνδρα Παπαδοπούλου-Κωνσταντί", "Çağlayan Büyükşehirlioğlu İğd\u0131rl"],
)
def test_issue_33_32_character_names_fit_by_width_and_stay_whole_in_the_alt_text(
    name: str, drawn_texts: DrawnTexts
) -> None:
    """Issue 33, long names: a 32-character Discord name is whole in the alt text of the
    bracket and the standings; the pictures cut it (with an ellipsis) only to fit its box."""
    import render.tournament

    drawn = drawn_texts(render.tournament)
    _, alt = standings_picture("T", HEADINGS, [("1", name, "3", "4.5", "4")])
    assert name in alt
    cell = next(t for t, _ in drawn if t.startswith(name[:4]))
    assert cell == name or (cell.endswith("…") and name.startswith(cell[:-1]))
    drawn.clear()
    _, alt = bracket_picture(
        "T", ["R1"], [[BracketMatch(name, "bob", 0, ("3", "0"))]], bye="bye", to_come="?"
    )
    assert name in alt
    cell = next(t for t, _ in drawn if t.startswith(name[:4]))
    room = WIDTH - 2 * 16 - 24 - 30 - font(TEXT_SIZE).getlength("3")
    assert font(TEXT_SIZE).getlength(cell) <= room
    assert cell == name or font(TEXT_SIZE).getlength(name) > room


def test_issue_33_the_legend_says_what_the_abbreviations_mean() -> None:
    rows = [("1", "alice", "3", "4.5", "4")]
    legend = [
        "Buch: Buchholz, the sum of the opponents' points",
        "SB: Sonneborn-Berger, " + "x " * 40,
    ]
    png, alt = standings_picture("T", HEADINGS, rows, legend=legend)
    bare = _image(standings_picture("T", HEADINGS, rows)[0])
    image = _image(png)
    assert alt.endswith(f"4.5 4. {legend[0]}. {legend[1].rstrip()}.")
    # Drawn under the table, the long line wrapped to a second: three lines more.
    assert image.height > bare.height + 3 * 30
    assert _count(image, PANEL, (WIDTH - 8, 0, WIDTH, image.height)) == 8 * image.height
