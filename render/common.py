"""Drawing helpers shared by the three boards: palette, fonts, sprites, names, the side panel.

Everything here is pure. Sprites are memoised (``lru_cache``: a race only draws one twice) and
backgrounds are built once under a lock by :class:`Lazy`; after that they are only read (pasted
from, copied), so the board functions are safe to call from several threads (the bot calls them
through ``asyncio.to_thread``). Callers must never draw on a cached image.

Text uses a bundled OFL font (``assets/NotoSans-Regular.ttf``, a Latin/Greek/Cyrillic subset of
Noto Sans), never a system font, so the slim Docker image draws exactly what a developer sees.
"""

from __future__ import annotations

import io
import math
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Generic, TypeVar

from PIL import Image, ImageDraw, ImageFilter, ImageFont

T = TypeVar("T")
RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

# Every board is 16:10, so no Discord client crops it, and legible when shown 400 px wide.
WIDTH, HEIGHT = 800, 500
MAX_PNG_BYTES = 150_000
# Palette PNG at zlib level 1: the fastest encoding we measured, and about 35 KB a board.
PNG_COMPRESS_LEVEL = 1

# The palette. Seats differ by lightness (ivory vs near-black) and by pattern (the dark checker
# carries a light inner ring), never by hue alone. Highlights are amber with a black edge,
# which reads on light and dark pieces and for every common kind of colour blindness.
FELT: RGB = (38, 84, 64)
FRAME: RGB = (92, 58, 34)
FRAME_DARK: RGB = (62, 38, 22)
POINT_LIGHT: RGB = (214, 190, 142)
POINT_DARK: RGB = (150, 62, 44)
PANEL: RGB = (30, 32, 38)
PANEL_ON_ROLL: RGB = (58, 62, 74)
TEXT: RGB = (245, 245, 240)
TEXT_DIM: RGB = (175, 178, 186)
LABEL: RGB = (236, 222, 196)
HIGHLIGHT: RGB = (255, 184, 0)
INK: RGB = (12, 12, 14)
IVORY: RGB = (242, 234, 214)
IVORY_RIM: RGB = (40, 34, 28)
EBONY: RGB = (34, 34, 38)
EBONY_RIM: RGB = (226, 226, 226)
CUBE_FACE: RGB = (250, 250, 246)
CRAWFORD: RGB = (200, 40, 60)
# A mistake card's two moves: what was played (vermillion) and what was best (sky blue), a pair
# that stays apart for every common kind of colour blindness, each with a black edge.
PLAYED: RGB = (232, 96, 28)
BEST: RGB = (80, 176, 240)

SEAT_NAMES_DEFAULT = ("Player 1", "Player 2")
NAME_MAX_CHARS = 32  # Discord's longest name: whole in the alt text; pictures cut by width


class Lazy(Generic[T]):
    """A value built on first use, exactly once, even when threads race for it."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._build()
                value = self._value
        return value


@dataclass(frozen=True, slots=True)
class BoardWords:
    """Every word the board panels draw, so the caller can pass them in the reader's language
    (English by default). Short labels: each is shrunk to fit its box, never clipped."""

    nannon: str = "Nannon"  # the Nannon panel's title
    score: str = "Score"
    pips: str = "Pips"
    off: str = "Off"
    in_safety: str = "In safety"
    home: str = "HOME"  # Nannon's trays: where checkers start, and where they start again
    safety: str = "SAFETY"
    men: str = "Men"
    kings: str = "Kings"
    game: str = "Game"
    match_to: str = "Match to"
    money_game: str = "Money game"
    doubled_to: str = "Doubled to"
    draw_offered: str = "Draw offered"
    crawford: str = "CRAWFORD"
    white: str = "White"  # a checkers side
    black: str = "Black"


BOARD_WORDS = BoardWords()


@dataclass(frozen=True)
class Scene:
    """What every board shows besides the pieces: the players and the match state.

    ``names`` and ``score`` are indexed by seat (seat 0, the challenger, is drawn at the
    bottom). ``match_length`` is in points (dice games) or games (checkers); 0 means money
    play. ``crawford`` marks the Crawford game; ``game_number`` (1-based; 0 hides it) is shown
    in the panel. ``note`` is one short line for the panel and the alt text, such as
    ``"Alice wins 2"`` at the end of a game (keep it under about 14 characters). ``words``:
    the panel's labels, in the reader's language. ``finished``: the game (or the match) is
    over, so no seat is on turn: no bar is lit and no one is "to play" (issue 33). ``viewer``:
    the seat whose numbering the points or spots show for the whole match (the member playing
    the robot); None numbers them for the seat that acts now (see :func:`numbered_for`).
    """

    names: tuple[str, str] = SEAT_NAMES_DEFAULT
    score: tuple[float, float] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    game_number: int = 0
    note: str = ""
    words: BoardWords = BOARD_WORDS
    finished: bool = False
    viewer: int | None = None


DEFAULT_SCENE = Scene()


# --- fonts and text ------------------------------------------------------------------------


# A bundled OFL font (a Noto Sans subset: Latin, Greek, Cyrillic), so "José" and "Ørjan" draw
# the same everywhere, the slim Docker image included. Never a system font.
FONT_FILE = resources.files("render") / "assets" / "NotoSans-Regular.ttf"


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The bundled Noto Sans at ``size`` px."""
    with resources.as_file(FONT_FILE) as path:
        return ImageFont.truetype(str(path), size)


# FreeType faces are not documented as thread-safe; text is cheap, so serialise it.
_TEXT_LOCK = threading.Lock()


def _mask_key(ch: str) -> tuple[tuple[int, int], bytes]:
    mask = font(20).getmask(ch)
    return mask.size, bytes(mask)


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """True when the bundled font draws ``ch`` (not its empty-box .notdef glyph)."""
    if ch == " ":
        return True
    with _TEXT_LOCK:
        return _mask_key(ch) != _mask_key("\U000f0000")


def clean_text(text: str, max_chars: int = NAME_MAX_CHARS) -> str:
    r"""Untrusted text made safe to show: no control or format characters (so no bidi
    overrides or zero-width tricks), whitespace collapsed, cut to ``max_chars`` with an ellipsis.

    >>> clean_text("  Al\u202eice\n\x00 ")
    'Alice'
    >>> clean_text("x" * 40)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    """
    kept = []
    for ch in unicodedata.normalize("NFC", str(text)):
        if ch.isspace():
            kept.append(" ")
        elif unicodedata.category(ch)[0] != "C":  # Cc, Cf (bidi, zero width), Cs, Co, Cn
            kept.append(ch)
    cleaned = " ".join("".join(kept).split())
    if len(cleaned) > max_chars:
        cleaned = cleaned[: max_chars - 1].rstrip() + "…"
    return cleaned


def possessive(name: str, *, start: bool = False) -> str:
    """``name``'s, as the English texts say it: "Ann's", and "your" for the terminal's default
    player "You" (issue 33: the alt text said "You's checkers").

    >>> possessive("Ann"), possessive("You"), possessive("You", start=True)
    ("Ann's", 'your', 'Your')
    """
    if name == "You":
        return "Your" if start else "your"
    return f"{name}'s"


def clean_name(name: str, seat: int, max_chars: int = NAME_MAX_CHARS) -> str:
    r""":func:`clean_text` for a player name, with a stand-in when nothing is left.

    >>> clean_name("\u200b", 1)
    'Player 2'
    """
    return clean_text(name, max_chars) or SEAT_NAMES_DEFAULT[seat]


# Letters with no decomposition, spelled the way people type them without the key.
_SPELLED = {
    "ø": "o",
    "Ø": "O",
    "ß": "ss",
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "ł": "l",
    "Ł": "L",
    "đ": "d",
    "Đ": "D",
    "þ": "th",
    "Þ": "Th",
    "ð": "d",
    "\u0131": "i",
}


def _drawable(ch: str) -> str:
    if has_glyph(ch):
        return ch
    # A letter the font lacks: draw "ǅ" as "DZ" rather than as an empty box.
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    if base and all(has_glyph(c) for c in base):
        return base
    spelled = _SPELLED.get(ch, "?")
    return spelled


def drawable_name(name: str, seat: int) -> str:
    """:func:`clean_name` in letters the bundled font can draw (Latin, Greek, Cyrillic);
    anything else it lacks (emoji, other scripts) as ``?``. The alt text keeps the real name."""
    cleaned = clean_name(name, seat)
    drawn = "".join(_drawable(ch) for ch in cleaned)
    if not drawn.strip("? "):
        return SEAT_NAMES_DEFAULT[seat]
    return drawn


@lru_cache(maxsize=8192)
def text_width(text: str, size: int) -> int:
    with _TEXT_LOCK:
        return int(font(size).getlength(text))


@lru_cache(maxsize=1024)
def fit_size(text: str, size: int, max_width: int, *, smallest: int) -> int:
    """The largest size from ``size`` down to ``smallest`` at which ``text`` is at most
    ``max_width`` px wide (``smallest`` when none is: then :func:`fit` it)."""
    while size > smallest and text_width(text, size) > max_width:
        size -= 1
    return size


@lru_cache(maxsize=4096)
def fit(text: str, size: int, max_width: int) -> str:
    """``text`` cut with an ellipsis so it is at most ``max_width`` px wide at ``size``."""
    if text_width(text, size) <= max_width:
        return text
    while text and text_width(text + "…", size) > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


_BREAK_AFTER = " _-./"  # where a long name prefers to wrap


def _split(text: str, size: int, max_width: int, nice: bool) -> tuple[str, str] | None:
    """``text`` as two lines of at most ``max_width`` px at ``size`` (bold), split after a
    space, underscore, hyphen or dot (``nice``) or between any two letters; the first line as
    full as it can be."""
    for i in range(len(text) - 1, 0, -1):
        if nice and text[i - 1] not in _BREAK_AFTER:
            continue
        first, second = text[:i].rstrip(), text[i:].lstrip()
        if text_width(first, size) + 2 <= max_width and text_width(second, size) + 2 <= max_width:
            return first, second
    return None


@lru_cache(maxsize=1024)
def name_lines(name: str, max_width: int) -> tuple[tuple[str, ...], int]:
    """A name as the panel draws it (bold): ``(lines, size)``. Whole on one line at the largest
    size that fits (24 to 22 px), else whole on two lines (22 or 20 px), which holds any name of
    :data:`NAME_MAX_CHARS` ordinary letters; only a wider one has its second line ellipsized.

    >>> name_lines("Alice", 127)
    (('Alice',), 24)
    >>> name_lines("alice_the_great", 127)
    (('alice_the_', 'great'), 22)
    """
    for size in (24, 22):
        if text_width(name, size) + 2 <= max_width:
            return (name,), size
    for nice in (True, False):
        for size in (22, 20):
            split = _split(name, size, max_width, nice)
            if split is not None:
                return split, size
    first = fit(name, 20, max_width - 2)[:-1]
    return (first, fit(name[len(first) :].lstrip(), 20, max_width - 2)), 20


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, anchor: str, bold: bool) -> tuple[Image.Image, int, int]:
    """The text's coverage mask and its offset from the anchor point. Boards repeat the same
    few strings (scores, pip counts, names), so rendering each once saves most text cost."""
    stroke = 1 if bold else 0
    with _TEXT_LOCK:
        face = font(size)
        left, top, right, bottom = face.getbbox(text, anchor=anchor, stroke_width=stroke)
        x0, y0, x1, y1 = int(left), int(top), math.ceil(right), math.ceil(bottom)
        mask = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
        ImageDraw.Draw(mask).text(
            (-x0, -y0),
            text,
            font=face,
            fill=255,
            anchor=anchor,
            stroke_width=stroke,
            stroke_fill=255,
        )
    return mask, x0, y0


@lru_cache(maxsize=256)
def _squeezed_mask(
    text: str, size: int, anchor: str, bold: bool, squeeze: float
) -> tuple[Image.Image, int, int]:
    mask, dx, dy = _text_mask(text, size, anchor, bold)
    width = max(1, round(mask.width * squeeze))
    return mask.resize((width, mask.height), Image.Resampling.LANCZOS), round(dx * squeeze), dy


def draw_text(
    canvas: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: RGB = TEXT,
    anchor: str = "la",
    bold: bool = False,
    squeeze: float = 1.0,
) -> None:
    """Text at ``xy``; ``bold`` fakes a heavier weight with a same-colour stroke; ``squeeze``
    below 1 narrows it (numbers kept tall for a phone where there is little room across)."""
    if squeeze == 1.0:
        mask, dx, dy = _text_mask(text, size, anchor, bold)
    else:
        mask, dx, dy = _squeezed_mask(text, size, anchor, bold, squeeze)
    x, y = round(xy[0]) + dx, round(xy[1]) + dy
    canvas.paste(fill, (x, y, x + mask.width, y + mask.height), mask)


def show_through(
    canvas: Image.Image,
    under: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    *,
    anchor: str = "la",
    bold: bool = False,
    halo: int = 3,
) -> None:
    """Paints ``under`` (the picture before something was drawn over it) back onto ``canvas``
    through ``text``'s shape grown by ``halo`` px: text drawn there comes back on top, ringed."""
    mask, dx, dy = _text_mask(text, size, anchor, bold)
    grown = Image.new("L", (mask.width + 2 * halo, mask.height + 2 * halo), 0)
    grown.paste(mask, (halo, halo))
    grown = grown.filter(ImageFilter.MaxFilter(2 * halo + 1))
    x, y = round(xy[0]) + dx - halo, round(xy[1]) + dy - halo
    box = (x, y, x + grown.width, y + grown.height)
    canvas.paste(under.crop(box), box[:2], grown)


def format_score(points: float) -> str:
    """``3``, ``1½``, ``½``: checkers scores come in halves, written with ½ wherever a score
    is shown (issue 33: boards said 1.5 where the messages said 1½); a quarter stays 0.25.

    >>> format_score(3), format_score(1.5), format_score(0.5), format_score(0.25)
    ('3', '1½', '½', '0.25')
    """
    whole = int(points)
    if float(points).is_integer():
        return str(whole)
    if float(points * 2).is_integer() and points > 0:
        return f"{whole}½" if whole else "½"
    return f"{points:g}"


def cube_label(value: int, centred: bool) -> str:
    """The number on the cube face: a centred cube at 1 shows 64, as on a real cube."""
    return "64" if centred and value == 1 else str(value)


# --- sprites -------------------------------------------------------------------------------

_SS = 4  # supersampling factor: sprites are drawn large and shrunk, for smooth edges


def _shrink(big: Image.Image, size: tuple[int, int]) -> Image.Image:
    return big.resize(size, Image.Resampling.LANCZOS)


@dataclass(frozen=True)
class CheckerStyle:
    fill: RGB
    rim: RGB
    ring: bool  # a second, inner ring: the pattern that tells the seats apart without colour


SEAT_STYLES = (
    CheckerStyle(IVORY, IVORY_RIM, ring=False),
    CheckerStyle(EBONY, EBONY_RIM, ring=True),
)


@lru_cache(maxsize=64)
def checker_sprite(
    diameter: int, style: CheckerStyle, *, highlight: bool = False, hit: bool = False
) -> Image.Image:
    """A round checker (RGBA). ``highlight`` adds an amber ring (a piece that just moved);
    ``hit`` adds an amber ring and a cross (a piece that was just hit)."""
    d = diameter * _SS
    big = Image.new("RGBA", (d, d), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    rim = max(_SS * 2, d // 16)
    draw.ellipse((0, 0, d - 1, d - 1), fill=style.rim)
    draw.ellipse((rim, rim, d - 1 - rim, d - 1 - rim), fill=style.fill)
    if style.ring:
        inset = d // 4
        draw.ellipse((inset, inset, d - 1 - inset, d - 1 - inset), outline=style.rim, width=rim)
    else:
        inset = d // 4
        draw.ellipse(
            (inset, inset, d - 1 - inset, d - 1 - inset),
            outline=shade(style.fill, 0.8),
            width=max(_SS, rim // 2),
        )
    if highlight or hit:
        _amber_ring(draw, d, width=d // 8)
    if hit:
        # A small cross, so the checker's own colour and ring still show around it.
        a, b = d * 0.36, d * 0.64
        for line in (((a, a), (b, b)), ((a, b), (b, a))):
            draw.line(line, fill=INK, width=d // 10)
            draw.line(line, fill=HIGHLIGHT, width=d // 20)
    return _shrink(big, (diameter, diameter))


def _amber_ring(draw: ImageDraw.ImageDraw, d: int, width: int) -> None:
    edge = max(_SS, width // 4)
    draw.ellipse((0, 0, d - 1, d - 1), outline=INK, width=width)
    draw.ellipse(
        (edge, edge, d - 1 - edge, d - 1 - edge), outline=HIGHLIGHT, width=width - 2 * edge
    )


@lru_cache(maxsize=16)
def ghost_sprite(diameter: int) -> Image.Image:
    """Where a checker just left: a dashed amber ring with a black edge."""
    d = diameter * _SS
    big = Image.new("RGBA", (d, d), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    width = d // 9
    steps = 12
    for i in range(steps):
        start = i * 360 / steps
        draw.arc((0, 0, d - 1, d - 1), start, start + 360 / steps * 0.6, fill=INK, width=width)
        inner = _SS * 2
        draw.arc(
            (inner, inner, d - 1 - inner, d - 1 - inner),
            start + 2,
            start + 360 / steps * 0.6 - 2,
            fill=HIGHLIGHT,
            width=width - 2 * inner,
        )
    return _shrink(big, (diameter, diameter))


Point = tuple[float, float]


def _control(start: Point, end: Point, bend: float, towards: Point | None) -> tuple[Point, Point]:
    """The curve's control point, and the unit normal it bows along."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    if towards is not None and (towards[0] - mx) * nx + (towards[1] - my) * ny < 0:
        nx, ny = -nx, -ny
    return (mx + nx * bend * length, my + ny * bend * length), (nx, ny)


def arrow_middle(
    start: Point, end: Point, *, bend: float = 0.0, towards: Point | None = None
) -> tuple[Point, Point]:
    """The middle of the curve :func:`draw_arrow` draws, and the unit normal it bows along."""
    (cx, cy), normal = _control(start, end, bend, towards)
    middle = ((start[0] + end[0]) / 4 + cx / 2, (start[1] + end[1]) / 4 + cy / 2)
    return middle, normal


def _bezier(start: Point, end: Point, bend: float, towards: Point | None) -> list[Point]:
    """Points along the curve from ``start`` to ``end`` bowed sideways by ``bend`` times its
    length, to the side of ``towards`` (a straight line when ``bend`` is 0)."""
    (x0, y0), (x1, y1) = start, end
    (cx, cy), _ = _control(start, end, bend, towards)
    steps = 16 if bend else 1
    return [
        (
            (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1,
            (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1,
        )
        for t in (i / steps for i in range(steps + 1))
    ]


def draw_arrow(
    canvas: Image.Image,
    start: Point,
    end: Point,
    colour: RGB,
    *,
    bend: float = 0.0,
    towards: Point | None = None,
    width: int = 7,
) -> None:
    """An arrow from ``start`` to ``end`` in ``colour`` with a black edge, drawn supersampled;
    ``bend`` bows it (a fraction of its length) towards ``towards``, so two arrows between the
    same places stay apart and a move along a row clears the checkers on it."""
    ss = 3
    points = _bezier(start, end, bend, towards)
    (ax, ay), (bx, by) = points[-2], points[-1]
    seg = math.hypot(bx - ax, by - ay) or 1.0
    ux, uy = (bx - ax) / seg, (by - ay) / seg
    head_len, head_half = width * 2.6, width * 1.6
    base = (bx - ux * head_len, by - uy * head_len)
    # The shaft stops inside the head, which then covers its end.
    shaft = [p for p in points[:-1] if math.hypot(p[0] - bx, p[1] - by) > head_len] + [base]
    if len(shaft) < 2:
        shaft = [points[0], base]
    pad = head_len + width
    left = max(0, int(min(x for x, _ in points) - pad))
    top = max(0, int(min(y for _, y in points) - pad))
    right = min(canvas.width, int(max(x for x, _ in points) + pad) + 1)
    bottom = min(canvas.height, int(max(y for _, y in points) + pad) + 1)
    if right <= left or bottom <= top:
        return
    size = ((right - left) * ss, (bottom - top) * ss)

    def local(p: Point) -> Point:
        return (p[0] - left) * ss, (p[1] - top) * ss

    for fill, grow in ((INK, 2.5), (colour, 0.0)):
        mask = Image.new("L", size, 0)
        draw = ImageDraw.Draw(mask)
        w = (width + 2 * grow) * ss
        line = [local(p) for p in shaft]
        draw.line(line, fill=255, width=round(w))
        for x, y in line:
            draw.ellipse((x - w / 2, y - w / 2, x + w / 2, y + w / 2), fill=255)
        tip = (bx + ux * grow * 1.5, by + uy * grow * 1.5)
        back = (base[0] - ux * grow, base[1] - uy * grow)
        half = head_half + grow
        head = [
            tip,
            (back[0] - uy * half, back[1] + ux * half),
            (back[0] + uy * half, back[1] - ux * half),
        ]
        draw.polygon([local(p) for p in head], fill=255)
        canvas.paste(fill, (left, top, right, bottom), mask.reduce(ss))


BADGE_SIZE = 25  # a badge's digits: 9 px high when a phone shows the board 380 px wide


def badge_size(text: str, size: int = BADGE_SIZE) -> tuple[int, int]:
    """The width and height of :func:`draw_badge`'s pill for ``text``."""
    return text_width(text, size) + 18, size + 8  # bold draws 2 px wider


def draw_badge(
    canvas: Image.Image, centre: Point, text: str, colour: RGB, size: int = BADGE_SIZE
) -> None:
    """``text`` (a count: "\u00d72") in ink on a pill of ``colour`` with an ink edge."""
    w, h = badge_size(text, size)
    big = Image.new("RGBA", (w * _SS, h * _SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = 2 * _SS
    draw.rounded_rectangle((0, 0, w * _SS - 1, h * _SS - 1), radius=h * _SS // 2, fill=INK)
    draw.rounded_rectangle(
        (edge, edge, w * _SS - 1 - edge, h * _SS - 1 - edge),
        radius=h * _SS // 2 - edge,
        fill=colour,
    )
    pill = _shrink(big, (w, h))
    x, y = round(centre[0] - w / 2), round(centre[1] - h / 2)
    canvas.paste(pill, (x, y), pill)
    draw_text(canvas, (x + w / 2, y + h / 2), text, size, fill=INK, anchor="mm", bold=True)


def roll_of(dice: Sequence[int], board_kwargs: Mapping[str, object]) -> tuple[int, ...]:
    """``dice``, or where there are none the ``dice`` a board's keyword arguments show."""
    if dice:
        return tuple(dice)
    shown = board_kwargs.get("dice")
    return tuple(int(d) for d in shown) if isinstance(shown, tuple | list) else ()


def parsed_or_none(parse: Callable[..., T], *args: object) -> T | None:
    """``parse(*args)``, or None where it raises ValueError (the engines' errors for notation
    that isn't a legal move on the board)."""
    try:
        return parse(*args)
    except ValueError:
        return None


def shade(color: RGB, factor: float) -> RGB:
    r, g, b = color
    return (
        min(255, int(r * factor)),
        min(255, int(g * factor)),
        min(255, int(b * factor)),
    )


_PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.27, 0.24), (0.73, 0.24), (0.27, 0.5), (0.73, 0.5), (0.27, 0.76), (0.73, 0.76)),
}


@lru_cache(maxsize=64)
def die_sprite(value: int, size: int, style: CheckerStyle) -> Image.Image:
    """A die showing ``value``, in the roller's colours (so whose roll it is shows twice)."""
    s = size * _SS
    big = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = max(_SS * 2, s // 20)
    draw.rounded_rectangle((0, 0, s - 1, s - 1), radius=s // 6, fill=style.rim)
    draw.rounded_rectangle(
        (edge, edge, s - 1 - edge, s - 1 - edge), radius=s // 6 - edge, fill=style.fill
    )
    r = s * 0.09
    for fx, fy in _PIPS[value]:
        cx, cy = fx * s, fy * s
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=style.rim)
    return _shrink(big, (size, size))


@lru_cache(maxsize=64)
def cube_sprite(label: str, size: int, *, offered: bool = False) -> Image.Image:
    """The doubling cube with ``label`` on its face; ``offered`` rings it in amber."""
    s = size * _SS
    big = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = max(_SS * 2, s // 18)
    if offered:
        draw.rounded_rectangle((0, 0, s - 1, s - 1), radius=s // 6, fill=INK)
        draw.rounded_rectangle(
            (edge, edge, s - 1 - edge, s - 1 - edge), radius=s // 6, fill=HIGHLIGHT
        )
        inner = edge * 3
    else:
        inner = 0
    draw.rounded_rectangle((inner, inner, s - 1 - inner, s - 1 - inner), radius=s // 7, fill=INK)
    draw.rounded_rectangle(
        (inner + edge, inner + edge, s - 1 - inner - edge, s - 1 - inner - edge),
        radius=s // 7 - edge,
        fill=CUBE_FACE,
    )
    # As large as the face allows: the number must stay readable on a phone.
    face = s - 2 * inner - 2 * edge
    text_size = int(face * 0.66)
    while text_size > 8 and text_width(label, text_size) + 2 * _SS > face * 0.86:
        text_size -= _SS
    with _TEXT_LOCK:
        draw.text(
            (s / 2, s / 2),
            label,
            font=font(text_size),
            fill=INK,
            anchor="mm",
            stroke_width=_SS,
            stroke_fill=INK,
        )
    return _shrink(big, (size, size))


# --- the side panel ------------------------------------------------------------------------

PANEL_X = 634  # backgammon's board ends here; Nannon and checkers use the same panel width


@dataclass(frozen=True)
class Stat:
    """One entry of the panel: a label and its number (``Stat("Score", "2")``); either may be
    empty. The number is drawn large and bold, so it reads on a phone; the label small beside
    it, and shrunk (never the number) where a translation runs long."""

    label: str
    value: str = ""
    label_size: int = 20  # LABEL_SIZE; a free-standing line with a number in it: NOTE_SIZE


# A number's digits are 20 px high at 25 px bold: 9.5 px when a phone shows the board 380 px wide.
VALUE_SIZE = 25
LABEL_SIZE = 20
NOTE_SIZE = 27  # regular text whose digits are as high as VALUE_SIZE's
_SMALLEST_LABEL = 12
_GAP = 7  # between a label and its number

PanelRow = Stat | tuple[Stat, ...]  # a row of the panel: one entry, or several side by side


@dataclass(frozen=True)
class SeatInfo:
    """One seat's block in the panel: who, which pieces, and rows of numbers (the first beside
    the seat's piece)."""

    name: str
    icon: Image.Image
    lines: tuple[PanelRow, ...]
    on_turn: bool


def answering(turn: int, offered_by: int | None, *, finished: bool = False) -> int | None:
    """The seat whose bar is lit: the one on turn, or, when a double (or in checkers a draw) is
    offered, the one who must answer it; None once the game is over (``Scene.finished``)."""
    if finished:
        return None
    return turn if offered_by is None else 1 - offered_by


def numbered_for(scene: Scene, turn: int, offered_by: int | None) -> int:
    """The seat whose numbering a dice board shows: the scene's viewer, else the seat that acts
    now, so a double is numbered for the one who answers it, not for the doubler (issue 33)."""
    if scene.viewer is not None:
        return scene.viewer
    return turn if offered_by is None else 1 - offered_by


_BLOCK_H = 150  # a seat's block in the panel, with its name on one line and three rows
_NAME_LINE = 26  # a name's second line adds this much
_ROW = 30  # each row beyond three adds this much
_MIDDLE_ROW = 30


def panel_name_width(x0: int) -> int:
    """How wide a name may be drawn in a panel starting at ``x0``."""
    return WIDTH - 7 - (x0 + 6) - 26


def _stat_width(stat: Stat, label_size: int) -> int:
    label = text_width(stat.label, label_size) if stat.label else 0
    value = text_width(stat.value, VALUE_SIZE) + 2 if stat.value else 0
    return label + value + (_GAP if label and value else 0)


@lru_cache(maxsize=1024)
def _label_fitted(stat: Stat, room: int) -> tuple[str, int]:
    """The label and its size, shrunk (then cut) so that it and the number fit in ``room``."""
    if not stat.label:
        return "", LABEL_SIZE
    value_w = _stat_width(Stat("", stat.value), LABEL_SIZE)
    label_room = max(1, room - value_w - (_GAP if stat.value else 0))
    size = fit_size(stat.label, stat.label_size, label_room, smallest=_SMALLEST_LABEL)
    return fit(stat.label, size, label_room), size


def _draw_stat(
    canvas: Image.Image, left: int, right: int, baseline: int, stat: Stat, fill: RGB
) -> None:
    """``stat`` in ``left..right``: the label at the left, the number at the right."""
    label, size = _label_fitted(stat, right - left)
    if label:
        draw_text(canvas, (left, baseline), label, size, fill=fill, anchor="ls")
    if stat.value:
        draw_text(canvas, (right, baseline), stat.value, VALUE_SIZE, fill, "rs", bold=True)


def _draw_centred_stat(
    canvas: Image.Image, centre: float, room: int, baseline: int, stat: Stat
) -> None:
    """``stat`` centred on ``centre``: the label, then the number beside it."""
    label, size = _label_fitted(stat, room)
    label_w = text_width(label, size) if label else 0
    value_w = _stat_width(Stat("", stat.value), LABEL_SIZE)
    gap = _GAP if label and stat.value else 0
    left = round(centre - (label_w + gap + value_w) / 2)
    if label:
        draw_text(canvas, (left, baseline), label, size, anchor="ls")
    if stat.value:
        x = left + label_w + gap
        draw_text(canvas, (x, baseline), stat.value, VALUE_SIZE, anchor="ls", bold=True)


def _rows(lines: tuple[PanelRow, ...]) -> list[tuple[Stat, ...]]:
    return [line if isinstance(line, tuple) else (line,) for line in lines]


def _block_height(info: SeatInfo, names: int) -> int:
    return _BLOCK_H + (names - 1) * _NAME_LINE + max(0, len(info.lines) - 3) * _ROW


def draw_panel(
    canvas: Image.Image,
    x0: int,
    seats: tuple[SeatInfo, SeatInfo],
    middle: tuple[Stat, ...],
    crawford: bool,
    crawford_label: str = BOARD_WORDS.crawford,
) -> None:
    """The side panel: seat 1 at the top, seat 0 at the bottom (as on the board), the match
    state between. The seat to act (see :func:`answering`) gets a lighter block and an amber bar."""
    draw = ImageDraw.Draw(canvas)
    width = WIDTH - x0
    draw.rectangle((x0, 0, WIDTH - 1, HEIGHT - 1), fill=PANEL)
    right = WIDTH - 17
    edges = [0, 0]  # the bottom of seat 1's block, the top of seat 0's
    for seat, info in enumerate(seats):
        # The name gets the block's full width, on a second line if need be (the block grows);
        # the seat's piece sits beside the first row of numbers.
        names, size = name_lines(info.name, panel_name_width(x0))
        extra = (len(names) - 1) * _NAME_LINE
        block_h = _block_height(info, len(names))
        top = 8 if seat == 1 else HEIGHT - 8 - block_h
        edges[seat] = top if seat == 0 else top + block_h
        box = (x0 + 6, top, WIDTH - 7, top + block_h)
        if info.on_turn:
            draw.rounded_rectangle(box, radius=10, fill=PANEL_ON_ROLL)
            draw.rounded_rectangle((box[0], box[1], box[0] + 7, box[3]), radius=3, fill=HIGHLIGHT)
        for i, name in enumerate(names):
            draw_text(canvas, (x0 + 18, top + 12 + i * _NAME_LINE), name, size, bold=True)
        icon = info.icon
        y = top + 50 + extra
        canvas.paste(icon, (x0 + 16, y), icon)
        colour = TEXT if info.on_turn else TEXT_DIM
        baseline = y + icon.height // 2 + 9  # the digits centred on the piece
        for i, row in enumerate(_rows(info.lines)):
            left = x0 + 22 + icon.width if i == 0 else x0 + 18
            cell = (right - left) // len(row)
            for j, stat in enumerate(row):
                cell_left = left + j * cell
                cell_right = right if j == len(row) - 1 else cell_left + cell - 2 * _GAP
                _draw_stat(canvas, cell_left, cell_right, baseline, stat, colour)
            baseline += icon.height // 2 + 15 if i == 0 else _ROW
    # The match state, centred in the room between the blocks (rows closer where it is short).
    badge_h = 40 if crawford else 0
    room = edges[0] - edges[1] - 8
    pitch = min(_MIDDLE_ROW, max(22, (room - badge_h) // max(1, len(middle))))
    y = (edges[0] + edges[1]) // 2 - (pitch * len(middle) + badge_h) // 2
    for stat in middle:
        _draw_centred_stat(canvas, x0 + width / 2, width - 16, y + pitch - 7, stat)
        y += pitch
    if crawford:
        badge = (x0 + 20, y + 4, WIDTH - 20, y + 36)
        draw.rounded_rectangle(badge, radius=8, fill=CRAWFORD)
        room = badge[2] - badge[0] - 12
        size = fit_size(crawford_label, 22, room, smallest=_SMALLEST_LABEL)
        text = fit(crawford_label, size, room)
        centre = ((badge[0] + badge[2]) / 2, y + 20)
        draw_text(canvas, centre, text, size, anchor="mm", bold=True)


def match_line(match_length: int) -> str:
    return "Money game" if match_length <= 0 else f"Match to {match_length}"


def match_stat(match_length: int, words: BoardWords = BOARD_WORDS) -> Stat:
    if match_length <= 0:
        return Stat(words.money_game)
    return Stat(words.match_to, str(match_length))


def match_lines(scene: Scene) -> tuple[Stat, ...]:
    """The panel's middle: the match length and, when known, the game number."""
    lines: tuple[Stat, ...] = (match_stat(scene.match_length, scene.words),)
    if scene.game_number > 0:
        lines = (Stat(scene.words.game, str(scene.game_number)), *lines)
    note = clean_text(scene.note)
    if note:
        lines = (*lines, Stat(note, label_size=NOTE_SIZE))
    return lines


def palette_from(samples: list[Image.Image]) -> Image.Image:
    """A fixed 256-colour palette covering every colour the sample boards use.

    Each game builds one from a few boards showing all its sprites, highlights and text."""
    width = max(sample.width for sample in samples)
    montage = Image.new("RGB", (width, sum(sample.height for sample in samples)))
    y = 0
    for sample in samples:
        montage.paste(sample, (0, y))
        y += sample.height
    return montage.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def match_words(game: str, scene: Scene) -> str:
    """The opening sentence of the alt text: ``Backgammon, match to 7, game 3, Crawford game.``"""
    words = [game, match_line(scene.match_length).lower()]
    if scene.game_number > 0:
        words.append(f"game {scene.game_number}")
    if scene.crawford:
        words.append("Crawford game")
    note = clean_text(scene.note)
    note = f" {note}." if note else ""
    return ", ".join(words) + "." + note


def encode_png(image: Image.Image, palette: Image.Image) -> bytes:
    """PNG bytes of ``image`` mapped onto the fixed ``palette`` (no dithering: the boards are
    flat colours). Palette mode encodes several times faster than RGB and is a third the size."""
    indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()
