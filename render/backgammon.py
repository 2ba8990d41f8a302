"""Backgammon board images and alt text.

API (all pure and thread-safe)::

    board_png(position, turn, scene=DEFAULT_SCENE, *, dice=None, last_move=None,
              cube=None, cube_offered_by=None) -> bytes
    board_image(...same...) -> PIL.Image.Image      # the picture before PNG encoding
    describe(...same...) -> str                      # plain-text alt text

``position`` is an :class:`engines.backgammon.Position` seen from seat ``turn`` (as
``match.position`` / ``match.turn`` give it). ``dice`` is the roll to play (``(6, 5)``) or
None. ``last_move`` is ``match.last_move``: ``(seat, Play)``, the play in that seat's own
numbering. ``cube`` is the :class:`engines.cube.Cube` (None: no cube in play);
``cube_offered_by`` the seat that has just doubled, if any. ``scene`` holds the names, score,
match length and Crawford flag (:class:`render.common.Scene`).

Fixed layout, whoever is on roll: seat 0 (ivory, plain) plays at the bottom, its home board
bottom right, and bears off into the bottom of the right-hand tray; seat 1 (black with a light
inner ring) plays at the top, home board top right. Point numbers along the frame are those of
the scene's viewer, else of the player who acts now (:func:`render.common.numbered_for`).
Stacks show at most five checkers; the fifth carries the count. A checker on the bar sits in
its owner's half of the bar. The cube sits on the left rail: middle when centred,
at the owner's edge when owned; an offered cube is drawn large, in amber, on the doubler's half
of the board, and the panel lights the player who must take or pass it. The dice sit on the
right half for seat 0 and the left half for seat 1, in the roller's colours. The last play shows
dashed amber rings where checkers left, amber rings on checkers that arrived, an amber cross on
checkers it hit, and amber point numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engines.backgammon import BAR, OFF, CheckerMove, Play, Position, parse_play
from engines.cube import Cube
from render.common import (
    BEST,
    DEFAULT_SCENE,
    FELT,
    FRAME,
    FRAME_DARK,
    HEIGHT,
    HIGHLIGHT,
    INK,
    LABEL,
    PANEL_X,
    PLAYED,
    POINT_DARK,
    POINT_LIGHT,
    RGB,
    SEAT_STYLES,
    TEXT,
    WIDTH,
    Lazy,
    Point,
    Scene,
    SeatInfo,
    Stat,
    answering,
    arrow_middle,
    badge_size,
    checker_sprite,
    clean_name,
    cube_label,
    cube_sprite,
    die_sprite,
    draw_arrow,
    draw_badge,
    draw_panel,
    draw_text,
    drawable_name,
    encode_png,
    format_score,
    ghost_sprite,
    match_lines,
    match_words,
    numbered_for,
    palette_from,
    parsed_or_none,
    possessive,
    roll_of,
    shade,
    show_through,
)

__all__ = ["board_image", "board_png", "describe", "parse_choice"]

CHECKER = 36
POINT_W = 38
STACK_MAX = 5  # checkers drawn per point; the last one drawn carries the count
LEFT_X = 58  # left quadrant
BAR_X = LEFT_X + 6 * POINT_W  # 286
BAR_W = 48
RIGHT_X = BAR_X + BAR_W  # 334
TRAY_X = RIGHT_X + 6 * POINT_W + 10  # 572
TRAY_W = 50
TOP = 28  # felt between the number strips
BOTTOM = HEIGHT - 28
MID = HEIGHT // 2
POINT_H = STACK_MAX * CHECKER
SLAB_W, SLAB_H, SLAB_PITCH = 42, 11, 13
DIE = 44
CUBE = 44
CUBE_X = LEFT_X // 2 + 1
ICON = 34
# Point numbers and stack counts: 9 px high even when a phone shows the board 380 px wide.
NUMBER_SIZE = 25
FACE = CHECKER - 10

# A place a checker can be: ("point", p) in seat 0's numbering, ("bar", seat), ("off", seat).
Where = tuple[str, int]


def _point_x(p: int) -> int:
    """Centre x of seat 0's point p (1..24)."""
    if p <= 6:
        return RIGHT_X + (6 - p) * POINT_W + POINT_W // 2
    if p <= 12:
        return LEFT_X + (12 - p) * POINT_W + POINT_W // 2
    if p <= 18:
        return LEFT_X + (p - 13) * POINT_W + POINT_W // 2
    return RIGHT_X + (p - 19) * POINT_W + POINT_W // 2


def _slot(where: Where, k: int) -> tuple[int, int]:
    """Centre of the k-th checker (0 = first laid down) at ``where``; for "off", the slab's."""
    kind, n = where
    half = CHECKER // 2
    if kind != "off":
        k = min(k, STACK_MAX - 1)  # a stack's extra checkers hide under its fifth
    if kind == "point":
        x = _point_x(n)
        return (x, BOTTOM - half - k * CHECKER) if n <= 12 else (x, TOP + half + k * CHECKER)
    if kind == "bar":
        x = BAR_X + BAR_W // 2
        first = half + 8
        return (x, MID + first + k * CHECKER) if n == 0 else (x, MID - first - k * CHECKER)
    x = TRAY_X + TRAY_W // 2
    if n == 0:
        return x, BOTTOM - 4 - SLAB_H // 2 - k * SLAB_PITCH
    return x, TOP + 4 + SLAB_H // 2 + k * SLAB_PITCH


def _label_pos(p: int) -> tuple[int, int]:
    return _point_x(p), (HEIGHT - TOP // 2) if p <= 12 else TOP // 2


def _label(p: int, turn: int) -> str:
    """Seat 0's point p as the player on roll numbers it."""
    return str(p if turn == 0 else 25 - p)


def _background(turn: int) -> Image.Image:
    scale = 3  # triangles are drawn large and shrunk, for smooth edges
    big = Image.new("RGB", (PANEL_X * scale, HEIGHT * scale), FRAME)
    draw = ImageDraw.Draw(big)

    def box(x0: float, y0: float, x1: float, y1: float, fill: tuple[int, int, int]) -> None:
        draw.rectangle((x0 * scale, y0 * scale, x1 * scale - 1, y1 * scale - 1), fill=fill)

    box(0, 0, PANEL_X, HEIGHT, FRAME_DARK)
    box(3, 3, PANEL_X - 3, HEIGHT - 3, FRAME)
    for x0, x1 in ((LEFT_X, BAR_X), (RIGHT_X, RIGHT_X + 6 * POINT_W)):
        box(x0 - 2, TOP - 2, x1 + 2, BOTTOM + 2, FRAME_DARK)
        box(x0, TOP, x1, BOTTOM, FELT)
    box(BAR_X + 4, TOP - 2, BAR_X + BAR_W - 4, BOTTOM + 2, FRAME_DARK)
    box(BAR_X + 6, TOP, BAR_X + BAR_W - 6, BOTTOM, shade(FRAME, 1.1))
    for y0, y1 in ((TOP, MID - 6), (MID + 6, BOTTOM)):
        box(TRAY_X - 2, y0 - 2, TRAY_X + TRAY_W + 2, y1 + 2, FRAME_DARK)
        box(TRAY_X, y0, TRAY_X + TRAY_W, y1, shade(FELT, 0.7))
    for p in range(1, 25):
        x = _point_x(p)
        fill = POINT_DARK if p % 2 else POINT_LIGHT
        half = POINT_W / 2 - 1
        base, tip = (BOTTOM, BOTTOM - POINT_H) if p <= 12 else (TOP, TOP + POINT_H)
        draw.polygon(
            [
                ((x - half) * scale, base * scale),
                ((x + half) * scale, base * scale),
                (x * scale, tip * scale),
            ],
            fill=fill,
            outline=shade(fill, 0.75),
            width=scale,
        )
    canvas = big.resize((PANEL_X, HEIGHT), Image.Resampling.LANCZOS)
    full = Image.new("RGB", (WIDTH, HEIGHT), FRAME)
    full.paste(canvas, (0, 0))
    draw = ImageDraw.Draw(full)
    for p in range(1, 25):
        draw_text(
            full, _label_pos(p), _label(p, turn), NUMBER_SIZE, fill=LABEL, anchor="mm", bold=True
        )
    return full


def _slab(seat: int, highlight: bool) -> Image.Image:
    """A borne-off checker seen edge on."""
    style = SEAT_STYLES[seat]
    image = Image.new("RGBA", (SLAB_W, SLAB_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    # A thin rim keeps the body's colour dominant: a black checker must look black edge on.
    draw.rounded_rectangle((0, 0, SLAB_W - 1, SLAB_H - 1), radius=4, fill=style.rim)
    draw.rounded_rectangle((1, 1, SLAB_W - 2, SLAB_H - 2), radius=3, fill=style.fill)
    if highlight:
        draw.rounded_rectangle((0, 0, SLAB_W - 1, SLAB_H - 1), radius=4, outline=INK, width=1)
        draw.rounded_rectangle((1, 1, SLAB_W - 2, SLAB_H - 2), radius=3, outline=HIGHLIGHT, width=3)
    return image


@dataclass(frozen=True)
class _Sprites:
    checkers: tuple[Image.Image, Image.Image]
    moved: tuple[Image.Image, Image.Image]
    hit: tuple[Image.Image, Image.Image]
    slabs: tuple[Image.Image, Image.Image]
    moved_slabs: tuple[Image.Image, Image.Image]
    ghost: Image.Image
    dice: tuple[tuple[Image.Image, ...], tuple[Image.Image, ...]]
    backgrounds: tuple[Image.Image, Image.Image]
    faces: tuple[Image.Image, Image.Image]  # a checker's plain face, under a stack's count


def _face(seat: int) -> Image.Image:
    big = Image.new("RGBA", (FACE * 4, FACE * 4), (0, 0, 0, 0))
    ImageDraw.Draw(big).ellipse((0, 0, FACE * 4 - 1, FACE * 4 - 1), fill=SEAT_STYLES[seat].fill)
    return big.resize((FACE, FACE), Image.Resampling.LANCZOS)


def _build() -> _Sprites:
    ivory, ebony = SEAT_STYLES
    return _Sprites(
        checkers=(checker_sprite(CHECKER, ivory), checker_sprite(CHECKER, ebony)),
        moved=(
            checker_sprite(CHECKER, ivory, highlight=True),
            checker_sprite(CHECKER, ebony, highlight=True),
        ),
        hit=(checker_sprite(CHECKER, ivory, hit=True), checker_sprite(CHECKER, ebony, hit=True)),
        slabs=(_slab(0, False), _slab(1, False)),
        moved_slabs=(_slab(0, True), _slab(1, True)),
        ghost=ghost_sprite(CHECKER),
        dice=(
            tuple(die_sprite(v, DIE, ivory) for v in range(1, 7)),
            tuple(die_sprite(v, DIE, ebony) for v in range(1, 7)),
        ),
        backgrounds=(_background(0), _background(1)),
        faces=(_face(0), _face(1)),
    )


_SPRITES = Lazy(_build)


def _seat_sides(position: Position, turn: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each seat's 26 counts in its own numbering, indexed by seat."""
    if turn == 0:
        return position.mine, position.theirs
    return position.theirs, position.mine


def _where(seat: int, own: int) -> Where:
    """A place in ``seat``'s own numbering (0 off, 25 bar) as a drawing location."""
    if own == BAR:
        return ("bar", seat)
    if own == OFF:
        return ("off", seat)
    return ("point", own if seat == 0 else 25 - own)


def _stacks(sides: tuple[tuple[int, ...], tuple[int, ...]]) -> dict[Where, tuple[int, int]]:
    """Every occupied location: (seat, count)."""
    out: dict[Where, tuple[int, int]] = {}
    for seat, side in enumerate(sides):
        for own, count in enumerate(side):
            if count:
                out[_where(seat, own)] = (seat, count)
    return out


@dataclass(frozen=True)
class _Marks:
    arrived: Counter[Where]
    left: Counter[Where]
    hit: int
    hit_seat: int
    points: frozenset[int]  # seat-0 point numbers whose labels light up


def _marks(last_move: tuple[int, Play] | None) -> _Marks | None:
    if last_move is None:
        return None
    mover, play = last_move
    arrived: Counter[Where] = Counter()
    left: Counter[Where] = Counter()
    hits = 0
    for m in play.moves:
        src, dst = _where(mover, m.src), _where(mover, m.dst)
        # A checker passing through a point (24/18/13) neither lands nor leaves there.
        if arrived[src] > 0:
            arrived[src] -= 1
        else:
            left[src] += 1
        arrived[dst] += 1
        hits += m.hit
    points = frozenset(n for (kind, n), c in (arrived + left).items() if kind == "point" and c)
    return _Marks(+arrived, +left, hits, 1 - mover, points)


def board_image(
    position: Position,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Play] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
    choices: tuple[Play | None, Play | None] | None = None,
) -> Image.Image:
    """The board as an RGB image (see the module docstring for the arguments). ``choices``,
    for a mistake card: the play made and the best play, by the player on roll, drawn as
    arrows (vermillion and sky blue; None where there is nothing to draw)."""
    sprites = _SPRITES.get()
    seen = numbered_for(scene, turn, cube_offered_by)
    canvas = sprites.backgrounds[seen].copy()
    draw = ImageDraw.Draw(canvas)
    sides = _seat_sides(position, turn)
    marks = _marks(last_move)

    if marks is not None:
        for p in marks.points:
            x, y = _label_pos(p)
            draw.rounded_rectangle((x - 18, y - 13, x + 18, y + 13), radius=6, fill=HIGHLIGHT)
            draw_text(
                canvas, (x, y), _label(p, seen), NUMBER_SIZE, fill=INK, anchor="mm", bold=True
            )

    half = CHECKER // 2
    for where, (seat, count) in _stacks(sides).items():
        lit = marks.arrived[where] if marks is not None else 0
        struck = marks.hit if marks is not None and where == ("bar", marks.hit_seat) else 0
        if where[0] == "off":
            for k in range(count):
                slab = sprites.moved_slabs[seat] if k >= count - lit else sprites.slabs[seat]
                x, y = _slot(where, k)
                canvas.paste(slab, (x - SLAB_W // 2, y - SLAB_H // 2), slab)
            continue
        shown = min(count, STACK_MAX)
        for k in range(shown):
            # The last `lit` checkers of a stack are the ones that just arrived.
            from_top = shown - 1 - k
            sprite = sprites.checkers[seat]
            if from_top < struck:
                sprite = sprites.hit[seat]
            elif from_top < lit:
                sprite = sprites.moved[seat]
            x, y = _slot(where, k)
            canvas.paste(sprite, (x - half, y - half), sprite)
        if count > STACK_MAX:
            x, y = _slot(where, STACK_MAX - 1)
            ink = INK if seat == 0 else TEXT
            # On a plain face (the ebony checker's ring would cross the digits), narrowed.
            canvas.paste(sprites.faces[seat], (x - FACE // 2, y - FACE // 2), sprites.faces[seat])
            draw_text(canvas, (x, y), str(count), NUMBER_SIZE, ink, "mm", bold=True, squeeze=0.8)

    if marks is not None:
        stacks = _stacks(sides)
        for where, n in marks.left.items():
            if where[0] == "off":
                continue  # nothing leaves the tray
            present = stacks.get(where, (0, 0))[1]
            for k in range(n):
                x, y = _slot(where, present + k)
                canvas.paste(sprites.ghost, (x - half, y - half), sprites.ghost)

    if dice:
        x0, x1 = (RIGHT_X, RIGHT_X + 6 * POINT_W) if turn == 0 else (LEFT_X, BAR_X)
        cx = (x0 + x1) // 2
        for i, value in enumerate(dice):
            sprite = sprites.dice[turn][value - 1]
            offset = int((i - (len(dice) - 1) / 2) * (DIE + 10))
            canvas.paste(sprite, (cx + offset - DIE // 2, MID - DIE // 2), sprite)

    if cube is not None:
        if cube_offered_by is not None:
            sprite = cube_sprite(cube_label(cube.value * 2, False), CUBE + 16, offered=True)
            x0, x1 = (RIGHT_X, RIGHT_X + 6 * POINT_W) if cube_offered_by == 0 else (LEFT_X, BAR_X)
            x = (x0 + x1) // 2
        else:
            sprite = cube_sprite(cube_label(cube.value, cube.owner is None), CUBE)
            x = CUBE_X
        y = {None: MID, 0: BOTTOM - CUBE // 2 - 4, 1: TOP + CUBE // 2 + 4}[cube.owner]
        if cube_offered_by is not None:
            y = MID
        canvas.paste(sprite, (x - sprite.width // 2, y - sprite.height // 2), sprite)

    if choices is not None:
        _draw_choices(canvas, sides, turn, choices)

    pips = position.pips() if turn == 0 else position.pips()[::-1]
    seats = tuple(
        SeatInfo(
            name=drawable_name(scene.names[seat], seat),
            icon=checker_sprite(ICON, SEAT_STYLES[seat]),
            lines=(
                Stat(scene.words.score, format_score(scene.score[seat])),
                Stat(scene.words.pips, str(pips[seat])),
            )
            + ((Stat(scene.words.off, str(sides[seat][OFF])),) if sides[seat][OFF] else ()),
            on_turn=seat == answering(turn, cube_offered_by, finished=scene.finished),
        )
        for seat in (0, 1)
    )
    middle = match_lines(scene)
    if cube is not None and cube_offered_by is not None:
        middle = (*middle, Stat(scene.words.doubled_to, str(cube.value * 2)))
    draw_panel(canvas, PANEL_X, (seats[0], seats[1]), middle, scene.crawford, scene.words.crawford)
    return canvas


def _draw_choices(
    canvas: Image.Image,
    sides: tuple[tuple[int, ...], tuple[int, ...]],
    mover: int,
    choices: tuple[Play | None, Play | None],
) -> None:
    """Each checker move of the best play, then of the play made, as an arrow from the top
    checker it moves to where it lands, bowed towards the board's middle. A move made by
    several checkers (6-6: 13/7(2)) is one arrow with a badge saying how many."""
    stacks = _stacks(sides)
    played, best = choices
    under = canvas.copy()
    shared = {(m.src, m.dst) for m in best.moves} if best is not None else set()
    counts: list[tuple[tuple[int, int], tuple[int, int], float, Point, int, int, RGB]] = []
    for play, colour, bend in ((best, BEST, 0.32), (played, PLAYED, 0.16)):
        if play is None:
            continue
        for (a, b), times in Counter((m.src, m.dst) for m in play.moves).items():
            side = -1 if play is played and (a, b) in shared else 1
            src, dst = _where(mover, a), _where(mover, b)
            owner, count = stacks.get(dst, (mover, 0))
            start = _slot(src, max(0, stacks.get(src, (mover, 1))[1] - 1))
            end = _slot(dst, count if owner == mover else 0)
            middle = ((start[0] + end[0]) / 2, MID)
            draw_arrow(canvas, start, end, colour, bend=bend, towards=middle)
            if times > 1:
                counts.append((start, end, bend, middle, side, times, colour))
    for count_args in counts:  # on top of every arrow
        _draw_count(canvas, *count_args)
    for p in range(1, 25):  # the point numbers stay on top
        show_through(
            canvas, under, _label_pos(p), _label(p, mover), NUMBER_SIZE, anchor="mm", bold=True
        )


def _draw_count(
    canvas: Image.Image,
    start: tuple[int, int],
    end: tuple[int, int],
    bend: float,
    towards: Point,
    side: int,
    times: int,
    colour: RGB,
) -> None:
    """The count ("\u00d72") beside the middle of an arrow, outside its curve (``side`` 1)
    or inside (-1: the played arrow of a move the best play makes too, whose arrow bows
    further out); kept off the point labels."""
    text = f"\u00d7{times}"
    w, h = badge_size(text)
    (x, y), (nx, ny) = arrow_middle(start, end, bend=bend, towards=towards)
    away = side * (abs(nx) * w / 2 + abs(ny) * h / 2 + 8)
    x = min(max(x + nx * away, LEFT_X + w / 2), TRAY_X + TRAY_W - w / 2)
    y = min(max(y + ny * away, TOP + h / 2 + 2), BOTTOM - h / 2 - 2)
    draw_badge(canvas, (x, y), text, colour)


def parse_choice(
    text: str,
    dice: Sequence[int],
    position: Position,
    turn: int,
    /,
    *args: object,
    **kwargs: object,
) -> Play | None:
    """``text`` as a play on the board :func:`board_image` draws for ``position``/``turn``, by
    the player on roll with ``dice`` (or the board's own); None when it isn't one."""
    roll = roll_of(dice, kwargs)
    return parsed_or_none(parse_play, text, position, roll) if len(roll) == 2 else None


def _palette() -> Image.Image:
    """The fixed palette, from sample boards that show every sprite, highlight and colour."""
    start = Position.initial()
    mine = (2, 2, 2, 2, 2, 2, 2) + (0,) * 18 + (1,)
    theirs = (5, 7, 3) + (0,) * 23
    play = Play((CheckerMove(3, 0), CheckerMove(8, 2, hit=True)), start)
    scene = Scene(("Sample", "Palette"), (1, 2), 7, crawford=True)
    return palette_from(
        [
            board_image(start, 0, scene, dice=(6, 5), cube=Cube()),
            board_image(
                Position(mine, theirs), 0, scene, dice=(3, 1), last_move=(1, play), cube=Cube(2, 1)
            ),
            board_image(start, 1, scene, dice=(4, 2), cube=Cube(4, 0), cube_offered_by=1),
            board_image(
                start,
                0,
                scene,
                dice=(6, 1),
                choices=(
                    Play.parse("13/7 8/7", start, (6, 1)),
                    Play.parse("24/18 6/5", start, (6, 1)),
                ),
            ),
        ]
    )


_PALETTE = Lazy(_palette)


def board_png(
    position: Position,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Play] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
) -> bytes:
    """The board as PNG bytes (see the module docstring for the arguments)."""
    image = board_image(
        position,
        turn,
        scene,
        dice=dice,
        last_move=last_move,
        cube=cube,
        cube_offered_by=cube_offered_by,
    )
    return encode_png(image, _PALETTE.get())


def describe(
    position: Position,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Play] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
) -> str:
    """Plain-text alt text: names, colours, score, every checker, pips, roll, cube, last move.

    Points are numbered as on the image (:func:`render.common.numbered_for`)."""
    names = tuple(clean_name(n, seat) for seat, n in enumerate(scene.names))
    sides = _seat_sides(position, turn)
    seen = numbered_for(scene, turn, cube_offered_by)
    parts = [
        match_words("Backgammon", scene),
        f"Score: {names[0]} (white, bottom) {format_score(scene.score[0])}, "
        f"{names[1]} (black, top) {format_score(scene.score[1])}.",
    ]
    roll = f", rolled {'-'.join(str(d) for d in dice)}" if dice else ""
    numbered = f"Points are numbered for {names[seen]}."
    if scene.finished:
        parts.append(f"The game is over. {numbered}")
    elif cube_offered_by is not None:
        parts.append(numbered)  # the cube's line says who answers
    else:
        parts.append(f"{names[turn]} to play{roll}. {numbered}")
    for seat in (0, 1):
        side = sides[seat]
        words = []
        if side[BAR]:
            words.append(f"bar {side[BAR]}")
        # Highest point first, as a player reads their own checkers from the back.
        shown = sorted(
            ((own if seat == seen else 25 - own, side[own]) for own in range(1, 25) if side[own]),
            reverse=seat == seen,
        )
        words += [f"{p}-point {n}" for p, n in shown]
        if side[OFF]:
            words.append(f"borne off {side[OFF]}")
        parts.append(f"{possessive(names[seat], start=True)} checkers: {', '.join(words)}.")
    pips = position.pips() if turn == 0 else position.pips()[::-1]
    parts.append(f"Pips: {names[0]} {pips[0]}, {names[1]} {pips[1]}.")
    if cube is not None:
        if cube_offered_by is not None:
            taker = names[1 - cube_offered_by]
            parts.append(
                f"{names[cube_offered_by]} doubles to {cube.value * 2}: {taker} to take or drop."
            )
        elif cube.owner is None:
            parts.append(f"Cube centred at {cube.value}.")
        else:
            parts.append(f"Cube at {cube.value}, owned by {names[cube.owner]}.")
    if last_move is not None:
        mover, play = last_move
        parts.append(f"Last move: {names[mover]} {play}.")
    return " ".join(parts)
