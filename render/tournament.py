"""Tournament pictures: a knockout bracket and tables (Swiss standings, a round-robin
crosstable), in the boards' palette and font, legible when a phone shows them 380 px wide.

Every word drawn comes in as an argument (titles, column headings, "bye"), so the caller chooses
the language; names are cut to fit their box with an ellipsis, never clipped.

>>> png, alt = standings_picture(
...     "Spring Swiss · after round 3", ("#", "Player", "Pts", "Buch", "SB"),
...     [("1", "alice", "3", "4.5", "4"), ("2", "bob", "2", "5", "2.5")])
>>> png[:4] == b"\\x89PNG", alt
(True, 'Spring Swiss · after round 3. # Player Pts Buch SB. 1 alice 3 4.5 4. 2 bob 2 5 2.5.')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render.common import (
    HIGHLIGHT,
    PANEL,
    PANEL_ON_ROLL,
    TEXT,
    TEXT_DIM,
    clean_text,
    draw_text,
    encode_png,
    fit,
    text_width,
)

__all__ = [
    "MAX_BRACKET_MATCHES",
    "MAX_TABLE_ROWS",
    "BracketMatch",
    "bracket_picture",
    "standings_picture",
]

WIDTH = 800
TEXT_SIZE = 28  # digits are about 20 px high: 9.5 px at 380 px wide
TITLE_SIZE = 30
ROW = 44
LEGEND_SIZE = 26
LEGEND_ROW = 34
MARGIN = 16
MAX_TABLE_ROWS = 24  # a longer table is shown a page at a time by the caller
MAX_BRACKET_MATCHES = 8  # the first column of one bracket picture: 16 names
NAME_CHARS = 32


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One box of the bracket: the two names (None: a slot not filled yet, or a bye once the
    match is decided), ``winner`` 0 or 1 once decided, and each side's ``points`` (``"7"``)."""

    top: str | None
    bottom: str | None
    winner: int | None = None
    points: tuple[str, str] = ("", "")


def _canvas(height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (WIDTH, height), PANEL)
    return image, ImageDraw.Draw(image)


def _title(image: Image.Image, title: str) -> int:
    text = fit(clean_text(title, 80), TITLE_SIZE, WIDTH - 2 * MARGIN)
    draw_text(image, (MARGIN, MARGIN), text, TITLE_SIZE, HIGHLIGHT, bold=True)
    return MARGIN + TITLE_SIZE + 18


def standings_picture(
    title: str,
    headings: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    highlight: int | None = None,
    legend: Sequence[str] = (),
) -> tuple[bytes, str]:
    """A table: ``headings`` over ``rows`` (one string a cell; the second column is the
    name and takes the room the others leave). ``highlight`` marks a row (the champion, or
    the reader); ``legend`` lines say under the table what its abbreviations mean. Returns
    the PNG and its alt text."""
    if len(rows) > MAX_TABLE_ROWS:
        raise ValueError(f"at most {MAX_TABLE_ROWS} rows a picture, not {len(rows)}")
    columns = len(headings)
    widths = [
        max(text_width(str(cell), TEXT_SIZE) for cell in [headings[c], *(r[c] for r in rows)]) + 20
        for c in range(columns)
    ]
    name_column = 1 if columns > 1 else 0
    others = sum(w for c, w in enumerate(widths) if c != name_column)
    widths[name_column] = max(120, WIDTH - 2 * MARGIN - others)
    top = MARGIN + TITLE_SIZE + 18
    notes = [line for entry in legend for line in _wrapped(entry, LEGEND_SIZE, WIDTH - 2 * MARGIN)]
    legend_top = top + ROW * (len(rows) + 1) + 6
    image, draw = _canvas(legend_top + LEGEND_ROW * len(notes) + MARGIN)
    _title(image, title)
    for r, cells in enumerate([list(headings), *(list(row) for row in rows)]):
        y = top + r * ROW
        if r and highlight == r - 1:
            draw.rectangle((MARGIN // 2, y, WIDTH - MARGIN // 2, y + ROW - 4), fill=PANEL_ON_ROLL)
        x = MARGIN
        for c, cell in enumerate(cells):
            colour = TEXT_DIM if r == 0 else TEXT
            text = fit(clean_text(cell, NAME_CHARS), TEXT_SIZE, widths[c] - 12)
            if c == name_column:
                draw_text(image, (x, y + 6), text, TEXT_SIZE, colour)
            else:  # numbers line up on the right
                draw_text(image, (x + widths[c] - 12, y + 6), text, TEXT_SIZE, colour, "ra")
            x += widths[c]
        if r == 0:
            draw.line((MARGIN, y + ROW - 4, WIDTH - MARGIN, y + ROW - 4), fill=TEXT_DIM)
    for n, line in enumerate(notes):
        draw_text(image, (MARGIN, legend_top + n * LEGEND_ROW), line, LEGEND_SIZE, TEXT_DIM)
    notes_said = [entry.rstrip(" .") for entry in legend]  # each ends in one full stop
    alt = ". ".join([title, " ".join(headings), *(" ".join(row) for row in rows), *notes_said])
    alt += "."
    return _encode(image), alt


def _wrapped(text: str, size: int, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size``, broken between words."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def bracket_picture(
    title: str,
    column_titles: Sequence[str],
    columns: Sequence[Sequence[BracketMatch]],
    *,
    bye: str,
    to_come: str,
) -> tuple[bytes, str]:
    """A bracket window: ``columns[0]`` holds up to :data:`MAX_BRACKET_MATCHES` matches (a
    power of two), each next column half as many; the winner of matches 2k and 2k+1 of one
    column plays match k of the next. ``bye`` and ``to_come`` are the words for an empty slot
    after and before the draw reaches it. Winners are bright, losers dim."""
    first = len(columns[0]) if columns else 0
    if not 1 <= first <= MAX_BRACKET_MATCHES or first & (first - 1):
        raise ValueError(f"the first column holds 1 to {MAX_BRACKET_MATCHES} matches, a power of 2")
    for i, column in enumerate(columns):
        if len(column) != max(1, first >> i):
            raise ValueError("each column holds half the matches of the one before")
    top = _title_height()
    slot = ROW * 2 + 24  # one match: two names and a gap
    height = top + ROW + slot * first + MARGIN
    image, draw = _canvas(height)
    _title(image, title)
    column_width = (WIDTH - 2 * MARGIN) // max(1, len(columns))
    centres: list[list[float]] = []
    for c, column in enumerate(columns):
        x = MARGIN + c * column_width
        heading = column_titles[c] if c < len(column_titles) else ""
        draw_text(image, (x, top), fit(heading, TEXT_SIZE, column_width - 16), TEXT_SIZE, TEXT_DIM)
        span = slot * (first // len(column))
        centres.append([])
        for m, match in enumerate(column):
            y = top + ROW + m * span + span / 2 - ROW
            centres[-1].append(y + ROW)
            box = (x, y, x + column_width - 24, y + 2 * ROW)
            draw.rounded_rectangle(box, radius=8, outline=TEXT_DIM, width=2)
            draw.line((x, y + ROW, x + column_width - 24, y + ROW), fill=TEXT_DIM)
            for seat, name in enumerate((match.top, match.bottom)):
                text = name if name is not None else (bye if match.winner is not None else to_come)
                lost = match.winner is not None and match.winner != seat
                colour = TEXT_DIM if lost or name is None else TEXT
                if match.winner == seat:
                    colour = HIGHLIGHT
                score = match.points[seat]
                room = column_width - 24 - 30 - text_width(score, TEXT_SIZE)
                draw_text(
                    image,
                    (x + 10, y + seat * ROW + 6),
                    fit(clean_text(text, NAME_CHARS), TEXT_SIZE, room),
                    TEXT_SIZE,
                    colour,
                    bold=match.winner == seat,
                )
                if score:
                    right = x + column_width - 34
                    draw_text(image, (right, y + seat * ROW + 6), score, TEXT_SIZE, colour, "ra")
            if c:  # the lines from the two matches that feed this one
                for feeder in (2 * m, 2 * m + 1):
                    fy = centres[c - 1][feeder]
                    draw.line((x - 24, fy, x - 12, fy, x - 12, y + ROW, x, y + ROW), fill=TEXT_DIM)
    alt_lines = [title]
    for c, column in enumerate(columns):
        heading = column_titles[c] if c < len(column_titles) else ""
        words = []
        for match in column:
            names = [
                n if n is not None else (bye if match.winner is not None else to_come)
                for n in (match.top, match.bottom)
            ]
            sides = [  # the winner starred
                f"{names[seat]}{'*' if match.winner == seat else ''} {match.points[seat]}".strip()
                for seat in (0, 1)
            ]
            words.append(" - ".join(sides))
        alt_lines.append(f"{heading}: " + "; ".join(words))
    return _encode(image), ". ".join(alt_lines) + "."


def _title_height() -> int:
    return MARGIN + TITLE_SIZE + 18


def _encode(image: Image.Image) -> bytes:
    # Tables are rare and flat: a palette of their own colours, anti-aliased text included.
    return encode_png(image, image.quantize(64, method=Image.Quantize.MEDIANCUT))
