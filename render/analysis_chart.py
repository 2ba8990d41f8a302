"""The analysis report's chart: each player's winning chance after every decision, as a PNG.

API (pure and thread-safe)::

    win_chance_chart(decisions, names, *, match_play=True) -> bytes   # the PNG
    chart_alt_text(decisions, names, *, match_play=True) -> str       # its alt text

The x axis counts *every* decision in playing order (moves, cube and take decisions, forced
ones too): a cube blunder or a pass moves the chance as much as a move does, and each blunder
needs its own point to be marked on. Decision ``i`` (from 0) sits at :func:`decision_x`. The y
axis is 0-100 %: one line, seat 0's chance (``win_chance``; seat 1's is the rest, so a second
line would only mirror it), in seat 0's checker colour (ivory). The legend puts that line
beside seat 0's name and each seat's diamond colour beside its name. In match play the chance
is the match-winning chance, one value across the whole match, so the line runs on through
game boundaries; in money play each game stands alone and the line breaks there. Blunders
(unforced, as ``engines.analysis`` counts them) get an amber-ringed diamond on the line, in the
blunderer's colour (ivory or ebony). Every game is labelled in full ("Game 2"), on a second row
where a short game leaves no room on the first.

Every word drawn comes from :class:`ChartWords`, which the caller passes (translated).

The card is an opaque mid-tone sage: the only kind of background on which both a near-white and
a near-black line reach a WCAG contrast of 3, and it stands apart from Discord's dark and light
themes alike. Lines are drawn supersampled and pasted through a mask, so their cores keep the
exact seat colours.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engines.analysis import Decision, DecisionKind
from render.common import (
    EBONY,
    HIGHLIGHT,
    INK,
    IVORY,
    RGB,
    TEXT,
    clean_name,
    clean_text,
    draw_text,
    drawable_name,
    fit,
    fit_size,
    text_width,
)

__all__ = [
    "BLUNDER_RING",
    "CARD",
    "CHART_HEIGHT",
    "CHART_WIDTH",
    "LEGEND_Y",
    "LINE_COLOURS",
    "MAX_CHART_PNG_BYTES",
    "PLOT",
    "SEPARATOR",
    "WORDS",
    "ChartWords",
    "chart_alt_text",
    "chart_image",
    "decision_x",
    "game_labels",
    "game_runs",
    "win_chance_chart",
    "y_of",
]

CHART_WIDTH, CHART_HEIGHT = 1000, 500
MAX_CHART_PNG_BYTES = 200_000

# Colours. The card's luminance (0.19) sits where ivory and ebony both reach 3.6:1 against it;
# against Discord's backgrounds it is about 3:1 (dark) and 4:1 (light).
CARD: RGB = (96, 128, 112)
LINE_COLOURS: tuple[RGB, RGB] = (IVORY, EBONY)  # by seat, as the checkers
GRID: RGB = (84, 113, 99)
MIDLINE: RGB = (206, 214, 210)
SEPARATOR: RGB = (44, 62, 54)  # game boundaries; no other pixel has this colour
BLUNDER_RING: RGB = HIGHLIGHT

# Layout: title row, legend row, the game-label strip (two rows), the plot, the x labels.
PLOT = (78, 132, 972, 428)  # left, top, right, bottom: y = 100 % at top, 0 % at bottom
LEGEND_Y = 62  # the middle of the legend row
_LABEL_STRIP = (PLOT[1] - 48, PLOT[1])
_LABEL_ROWS = 2
_LINE_WIDTH = 4
_SS = 3  # supersampling of the lines (4 looks no better and takes twice as long)
_MARKER = 24  # the blunder marker's size in px
_TITLE_SIZE = 26
_TEXT_SIZE = 22
_SMALL_SIZE = 18


@dataclass(frozen=True, slots=True)
class ChartWords:
    """Every word the chart draws, so the caller can pass them in the reader's language.
    ``{number}`` stands for a game's number."""

    title_match: str = "Match-winning chance"
    title_money: str = "Winning chance"
    blunder: str = "Blunder"
    game: str = "Game {number}"
    axis: str = "Decisions in order (moves and cube actions)"
    axis_moves: str = "Moves in order"  # when no decision is a cube's (checkers has no cube)
    empty: str = "No decisions"


WORDS = ChartWords()


def decision_x(index: int, count: int) -> float:
    """The x of decision ``index`` (from 0) of ``count``: the middle of its slot."""
    left, _, right, _ = PLOT
    return left + (index + 0.5) * (right - left) / max(count, 1)


def _boundary_x(index: int, count: int) -> float:
    left, _, right, _ = PLOT
    return left + index * (right - left) / max(count, 1)


def _chance(value: float) -> float:
    """``value`` kept in 0..1 (NaN, which no evaluator should give, shown as even)."""
    return min(1.0, max(0.0, value)) if math.isfinite(value) else 0.5


def y_of(chance: float) -> float:
    """The y of a chance (0..1) on the plot."""
    _, top, _, bottom = PLOT
    return bottom - _chance(chance) * (bottom - top)


@dataclass(frozen=True, slots=True)
class GameRun:
    game: int
    start: int  # index of its first decision
    stop: int  # one past its last


def game_runs(decisions: Sequence[Decision]) -> list[GameRun]:
    """The games in playing order, as runs of consecutive decisions with the same ``game``."""
    runs: list[GameRun] = []
    for i, d in enumerate(decisions):
        if runs and runs[-1].game == d.game:
            runs[-1] = GameRun(d.game, runs[-1].start, i + 1)
        else:
            runs.append(GameRun(d.game, i, i + 1))
    return runs


def _blunder(d: Decision) -> bool:
    return d.is_blunder and not d.forced


def _seat_chance(d: Decision, seat: int) -> float:
    p = _chance(d.win_chance)
    return p if seat == 0 else 1.0 - p


@lru_cache(maxsize=4)
def _marker(fill: RGB, right: RGB | None = None) -> Image.Image:
    """A diamond: ink edge, amber ring, the blunderer's colour inside (RGBA); with ``right``,
    its right half in that colour (the legend's key: either player's)."""
    s = _MARKER * _SS
    big = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    h = s / 2
    for inset, colour in ((0, INK), (s * 0.07, BLUNDER_RING), (s * 0.2, INK), (s * 0.25, fill)):
        draw.polygon([(h, inset), (s - 1 - inset, h), (h, s - 1 - inset), (inset, h)], fill=colour)
    if right is not None:
        inset = s * 0.25
        draw.polygon([(h, inset), (s - 1 - inset, h), (h, s - 1 - inset)], fill=right)
    return big.resize((_MARKER, _MARKER), Image.Resampling.LANCZOS)


def _paste_marker(
    canvas: Image.Image, fill: RGB, x: float, y: float, right: RGB | None = None
) -> None:
    sprite = _marker(fill, right)
    canvas.paste(sprite, (round(x - _MARKER / 2), round(y - _MARKER / 2)), sprite)


def _nice_step(count: int) -> int:
    """A tick step from 1, 2, 5, 10, 20, 50 ... giving at most 10 ticks."""
    step = 1
    while count / step > 10:
        for factor in (2, 2.5, 2):
            step = int(step * factor)
            if count / step <= 10:
                break
    return step


def _draw_frame(
    canvas: Image.Image, count: int, match_play: bool, words: ChartWords, cube: bool
) -> None:
    """Title, grid, axes and x labels: everything that does not depend on the values (``cube``:
    some decision is a cube's, which the axis names)."""
    draw = ImageDraw.Draw(canvas)
    left, top, right, bottom = PLOT
    title = words.title_match if match_play else words.title_money
    size = fit_size(title, _TITLE_SIZE, CHART_WIDTH - 40, smallest=_SMALL_SIZE)
    draw_text(canvas, (20, 6), fit(title, size, CHART_WIDTH - 40), size, bold=True)
    for pct in (0, 25, 50, 75, 100):
        y = round(y_of(pct / 100))
        if pct not in (0, 50, 100):
            draw.line((left, y, right, y), fill=GRID, width=2)
        draw_text(canvas, (left - 10, y), f"{pct}%", _SMALL_SIZE, anchor="rm")
    draw.line((left, top, right, top), fill=GRID, width=2)
    draw.line((left, bottom, right, bottom), fill=GRID, width=2)
    # The even line, dashed so it never reads as a player's line.
    mid = round(y_of(0.5))
    for x in range(left, right, 16):
        draw.line((x, mid, min(x + 8, right), mid), fill=MIDLINE, width=2)
    if count:
        step = _nice_step(count)
        ticks = [1, *range(step, count + 1, step)] if step > 1 else list(range(1, count + 1))
        last_right = -1.0
        for number in ticks:
            tick_x = decision_x(number - 1, count)
            label = str(number)
            half = text_width(label, _SMALL_SIZE) / 2
            if tick_x - half < last_right + 8:
                continue
            draw.line((tick_x, bottom, tick_x, bottom + 6), fill=TEXT, width=1)
            draw_text(canvas, (tick_x, bottom + 9), label, _SMALL_SIZE, anchor="mt")
            last_right = tick_x + half
    caption = words.axis if cube else words.axis_moves
    size = fit_size(caption, _SMALL_SIZE, right - left, smallest=12)
    caption = fit(caption, size, right - left)
    draw_text(canvas, ((left + right) / 2, CHART_HEIGHT - 8), caption, size, anchor="md")


_KEY_ROOM = 150  # the blunder key's text, at the right of the legend


def _draw_legend(canvas: Image.Image, names: tuple[str, str], words: ChartWords) -> None:
    """Seat 0's entry (a swatch of the line and a diamond in its colour, then its name), seat
    1's (its diamond and name), then the blunder key (a diamond of both colours). Each has its
    slot, so a long name moves nothing."""
    draw = ImageDraw.Draw(canvas)
    y = LEGEND_Y
    key_x = CHART_WIDTH - 20 - _KEY_ROOM
    _paste_marker(canvas, LINE_COLOURS[0], key_x - 18, y, right=LINE_COLOURS[1])
    size = fit_size(words.blunder, _TEXT_SIZE, _KEY_ROOM, smallest=_SMALL_SIZE - 4)
    key = fit(words.blunder, size, _KEY_ROOM)
    draw_text(canvas, (key_x, y), key, size, anchor="lm")
    room = (key_x - 40 - 20) // 2  # each seat's entry
    for seat in (0, 1):
        x = 20 + seat * room
        if seat == 0:
            draw.line((x, y, x + 36, y), fill=LINE_COLOURS[0], width=_LINE_WIDTH + 2)
        _paste_marker(canvas, LINE_COLOURS[seat], x + 18, y)
        name = drawable_name(names[seat], seat)
        size = fit_size(name, _TEXT_SIZE, room - 70, smallest=_SMALL_SIZE)
        draw_text(canvas, (x + 60, y), fit(name, size, room - 70), size, anchor="lm", bold=True)


def game_labels(
    runs: list[GameRun], count: int, words: ChartWords = WORDS
) -> list[tuple[int, float, str]]:
    """Each game's label as ``(row, x, text)``: in full, starting inside its game, as far left
    as it clears the labels before it on either row (a short game's label overhangs the next
    game, whose label then goes on the other row or further right). One that can start inside
    its game on neither row (many tiny games in a row) is left out rather than shortened."""
    row_ends = [-math.inf] * _LABEL_ROWS
    right = PLOT[2]
    out = []
    for run in runs:
        label = words.game.format(number=run.game)
        width = text_width(label, _SMALL_SIZE)
        start = min(_boundary_x(run.start, count) + 5, right - width)
        last = _boundary_x(run.stop, count) - 5  # the label must start before its game ends
        x, row = min((max(start, end + 8), row) for row, end in enumerate(row_ends))
        if x <= last and x + width <= right:
            out.append((row, x, label))
            row_ends[row] = x + width
    return out


def _draw_games(canvas: Image.Image, runs: list[GameRun], count: int, words: ChartWords) -> None:
    """Separators at game boundaries (through the label strip and the plot) and the labels,
    each on a patch of the card so a separator it overhangs doesn't cross it."""
    draw = ImageDraw.Draw(canvas)
    bottom = PLOT[3]
    strip_top, strip_bottom = _LABEL_STRIP
    for run in runs[1:]:
        at = round(_boundary_x(run.start, count))
        draw.line((at, strip_top, at, bottom), fill=SEPARATOR, width=2)
    row_h = (strip_bottom - strip_top) / _LABEL_ROWS
    for row, x, label in game_labels(runs, count, words):
        mid_y = strip_top + (row + 0.5) * row_h
        width = text_width(label, _SMALL_SIZE)
        draw.rectangle((x - 3, mid_y - row_h / 2 + 2, x + width + 3, mid_y + row_h / 2 - 2), CARD)
        draw_text(canvas, (x, mid_y), label, _SMALL_SIZE, anchor="lm")


def _draw_line(
    canvas: Image.Image, decisions: Sequence[Decision], runs: list[GameRun], match_play: bool
) -> None:
    """Seat 0's line, supersampled on a mask and pasted in the seat's colour."""
    count = len(decisions)
    pad = _MARKER
    left, top, right, bottom = PLOT
    box = (left - pad, top - pad, right + pad, bottom + pad)
    size = ((box[2] - box[0]) * _SS, (box[3] - box[1]) * _SS)
    pieces = [(0, count)] if match_play else [(run.start, run.stop) for run in runs]
    width = _LINE_WIDTH * _SS
    mask = Image.new("L", size, 0)
    draw = ImageDraw.Draw(mask)
    for start, stop in pieces:
        points = [
            (
                (decision_x(i, count) - box[0]) * _SS,
                (y_of(_seat_chance(decisions[i], 0)) - box[1]) * _SS,
            )
            for i in range(start, stop)
        ]
        if len(points) > 1:
            draw.line(points, fill=255, width=width)
        # Round joints and ends (Pillow's joint="curve" is slower); a lone point is a dot.
        r = width / 2 if len(points) > 1 else width * 1.5
        for x, y in points:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=255)
    small = mask.reduce(_SS)  # a box filter, the fastest way down
    canvas.paste(LINE_COLOURS[0], box, small)


def chart_image(
    decisions: Sequence[Decision],
    names: tuple[str, str],
    *,
    match_play: bool = True,
    words: ChartWords = WORDS,
) -> Image.Image:
    """The chart as an RGB image (what :func:`win_chance_chart` encodes)."""
    canvas = Image.new("RGB", (CHART_WIDTH, CHART_HEIGHT), CARD)
    count = len(decisions)
    runs = game_runs(decisions)
    cube = any(d.kind in (DecisionKind.CUBE, DecisionKind.TAKE) for d in decisions)
    _draw_frame(canvas, count, match_play, words, cube)
    _draw_legend(canvas, names, words)
    if not count:
        left, top, right, bottom = PLOT
        draw_text(canvas, ((left + right) / 2, (top + bottom) / 2 - 30), words.empty, 24)
        return canvas
    _draw_games(canvas, runs, count, words)
    _draw_line(canvas, decisions, runs, match_play)
    for i, d in enumerate(decisions):
        if _blunder(d):
            # On the one line, in the blunderer's colour.
            x, y = decision_x(i, count), y_of(_seat_chance(d, 0))
            _paste_marker(canvas, LINE_COLOURS[d.player], x, y)
    return canvas


def win_chance_chart(
    decisions: Sequence[Decision],
    names: tuple[str, str],
    *,
    match_play: bool = True,
    words: ChartWords = WORDS,
) -> bytes:
    """The chart as PNG bytes (:data:`CHART_WIDTH` x :data:`CHART_HEIGHT`)."""
    image = chart_image(decisions, names, match_play=match_play, words=words)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)  # 8 ms; level 6 saves 15 % for 23 ms
    return out.getvalue()


# --- alt text ------------------------------------------------------------------------------


def _pct(chance: float) -> str:
    return f"{round(100 * _chance(chance))}%"


def chart_alt_text(
    decisions: Sequence[Decision], names: tuple[str, str], *, match_play: bool = True
) -> str:
    """Plain-text alt text: what the chart shows, who led, the biggest swings, the blunders.

    >>> from engines.analysis import DecisionKind as K
    >>> ds = [Decision(1, 0, 0, K.MOVE, "8/4", "8/4", 0.0, False, None, 0.6),
    ...       Decision(1, 1, 1, K.MOVE, "24/18", "13/7", 0.1, False, None, 0.9)]
    >>> print(chart_alt_text(ds, ("Ann", "Bob")))  # doctest: +NORMALIZE_WHITESPACE
    Chart of each player's match-winning chance after each of 2 decisions, 1 game. Ann was
    ahead after 2 of 2 decisions, Bob after 0. At the end: Ann 90%, Bob 10%. Biggest swing:
    decision 2, game 1, Bob played 24/18 (best 13/7), Ann 60% to 90%. Blunders (diamonds): Ann
    0, Bob 1.
    """
    who = tuple(clean_name(name, seat) for seat, name in enumerate(names))
    kind = "match-winning chance" if match_play else "winning chance"
    count = len(decisions)
    if not count:
        return f"Chart of each player's {kind}: no decisions to show."
    runs = game_runs(decisions)
    games = f"{len(runs)} game" + ("" if len(runs) == 1 else "s")
    decided = "decision" if count == 1 else "decisions"
    parts = [f"Chart of each player's {kind} after each of {count} {decided}, {games}."]
    ahead = [sum(1 for d in decisions if _seat_chance(d, s) > 0.5) for s in (0, 1)]
    parts.append(
        f"{who[0]} was ahead after {ahead[0]} of {count} {decided}, {who[1]} after {ahead[1]}."
    )
    last = decisions[-1]
    parts.append(
        f"At the end: {who[0]} {_pct(last.win_chance)}, {who[1]} {_pct(1 - last.win_chance)}."
    )
    # Swings between consecutive decisions; in money play not across a game's start.
    starts = {run.start for run in runs}
    swings = [
        (abs(_chance(decisions[i].win_chance) - _chance(decisions[i - 1].win_chance)), i)
        for i in range(1, count)
        if match_play or i not in starts
    ]
    biggest = sorted((s for s in swings if s[0] > 0), key=lambda s: (-s[0], s[1]))[:3]
    if biggest:
        words = []
        for _, i in biggest:
            d = decisions[i]
            played = clean_text(d.played, 40)
            best = clean_text(d.best, 40)
            choice = f"played {played}" + (f" (best {best})" if best and best != played else "")
            before, after = decisions[i - 1].win_chance, d.win_chance
            words.append(
                f"decision {i + 1}, game {d.game}, {who[d.player]} {choice}, "
                f"{who[0]} {_pct(before)} to {_pct(after)}"
            )
        label = "Biggest swing" if len(words) == 1 else "Biggest swings"
        parts.append(f"{label}: " + "; ".join(words) + ".")
    blunders = [sum(1 for d in decisions if _blunder(d) and d.player == s) for s in (0, 1)]
    if any(blunders):
        parts.append(f"Blunders (diamonds): {who[0]} {blunders[0]}, {who[1]} {blunders[1]}.")
    else:
        parts.append("No blunders.")
    return " ".join(parts)
