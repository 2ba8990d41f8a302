"""Nannon board images and alt text.

API (all pure and thread-safe)::

    board_png(position, turn, scene=Scene(), *, dice=None, last_move=None,
              cube=None, cube_offered_by=None) -> bytes
    board_image(...same...) -> PIL.Image.Image      # the picture before PNG encoding
    describe(...same...) -> str                      # plain-text alt text

``position`` is an :class:`engines.nannon.Position` seen from seat ``turn`` (the seat on turn,
as ``match.position`` / ``match.turn`` give it). ``dice`` is the roll to play (``(4,)``) or
None. ``last_move`` is ``match.last_move``: ``(seat, Move)`` with the move in that seat's own
numbering. ``cube`` is the :class:`engines.cube.Cube` (None: no cube in play);
``cube_offered_by`` the seat that has just doubled, if any.

Fixed layout, whoever is on turn: seat 0 (ivory, plain) has HOME bottom left and SAFETY bottom
right and runs left to right along the six spots; seat 1 (black with a light inner ring) has
HOME top right and SAFETY top left and runs right to left. The spot numbers are those of the
scene's viewer, else of the player who acts now (:func:`render.common.numbered_for`). The cube
sits in the left column: middle when centred (showing 64), at the owner's edge when owned, and
in amber beside the doubler when offered (the panel then lights the player who must take or
pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engines.cube import Cube
from engines.nannon import HOME, SAFETY, Move, Position
from render.common import (
    BEST,
    DEFAULT_SCENE,
    FELT,
    FRAME,
    FRAME_DARK,
    HEIGHT,
    INK,
    LABEL,
    PANEL_X,
    PLAYED,
    POINT_DARK,
    POINT_LIGHT,
    SEAT_STYLES,
    WIDTH,
    BoardWords,
    Lazy,
    Scene,
    SeatInfo,
    Stat,
    answering,
    checker_sprite,
    clean_name,
    cube_label,
    cube_sprite,
    die_sprite,
    draw_arrow,
    draw_panel,
    draw_text,
    drawable_name,
    encode_png,
    fit,
    fit_size,
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

CHECKER = 66
SPOT = 78
SPOT_PITCH = 84
SPOT_X0 = 147  # centre of the leftmost spot
SPOT_Y = 250
SLOT = 70  # tray slot pitch
TRAY_W = 3 * SLOT + 8
TRAY_H = 84
TRAY_LEFT_X = 105
TRAY_RIGHT_X = 609 - TRAY_W
TRAY_TOP_Y = 40
TRAY_BOTTOM_Y = HEIGHT - 40 - TRAY_H
CUBE = 58
CUBE_X = 52  # centre of the cube column
DIE = 54
ICON = 34

# Tray boxes: (seat, place) -> (x, y) of the tray's top-left corner.
_TRAYS = {
    (0, HOME): (TRAY_LEFT_X, TRAY_BOTTOM_Y),
    (0, SAFETY): (TRAY_RIGHT_X, TRAY_BOTTOM_Y),
    (1, SAFETY): (TRAY_LEFT_X, TRAY_TOP_Y),
    (1, HOME): (TRAY_RIGHT_X, TRAY_TOP_Y),
}


def _spot_centre(seat: int, place: int) -> tuple[int, int]:
    """Centre of spot ``place`` (1..6) in ``seat``'s numbering."""
    column = place - 1 if seat == 0 else 6 - place
    return SPOT_X0 + column * SPOT_PITCH, SPOT_Y


def _slot_centre(seat: int, place: int, index: int) -> tuple[int, int]:
    """Centre of slot ``index`` (0..2) in ``seat``'s HOME or SAFETY tray; slots fill from the
    board's middle outwards so the trays read like a queue towards the spots."""
    x, y = _TRAYS[(seat, place)]
    # HOME fills towards the spots' start, SAFETY from the spots' end: nearest the track first.
    from_right = (seat == 0 and place == HOME) or (seat == 1 and place == SAFETY)
    column = 2 - index if from_right else index
    return x + 4 + SLOT // 2 + column * SLOT, y + TRAY_H // 2


@dataclass(frozen=True)
class _Sprites:
    checkers: tuple[Image.Image, Image.Image]
    moved: tuple[Image.Image, Image.Image]
    hit: tuple[Image.Image, Image.Image]
    ghost: Image.Image
    dice: tuple[tuple[Image.Image, ...], tuple[Image.Image, ...]]  # [seat][value - 1]
    backgrounds: tuple[Image.Image, Image.Image]  # spot numbers for seat 0 / seat 1 on turn


Text = tuple[tuple[float, float], str, int, bool]  # where (its middle), what, size, bold


def _spot_labels(turn: int) -> list[Text]:
    """The spot numbers of the player on turn, along that player's track."""
    y = SPOT_Y + 64 if turn == 0 else SPOT_Y - 64
    return [
        ((SPOT_X0 + i * SPOT_PITCH, y), str(i + 1 if turn == 0 else 6 - i), 27, True)
        for i in range(6)
    ]


def _background(turn: int) -> Image.Image:
    canvas = Image.new("RGB", (WIDTH, HEIGHT), FRAME)
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, PANEL_X - 1, HEIGHT - 1), fill=FRAME_DARK)
    draw.rectangle((4, 4, PANEL_X - 5, HEIGHT - 5), fill=FRAME)
    draw.rectangle((96, 14, PANEL_X - 14, HEIGHT - 15), fill=FELT)
    draw.rectangle((14, 14, 90, HEIGHT - 15), fill=shade(FELT, 0.8))
    # The track each seat runs, as a faint arrow: seat 0 left to right under the spots,
    # seat 1 right to left above them.
    track = shade(FELT, 1.35)
    for y, forward in ((SPOT_Y + 64, True), (SPOT_Y - 64, False)):
        x0, x1 = SPOT_X0 - 20, SPOT_X0 + 5 * SPOT_PITCH + 20
        draw.line((x0, y, x1, y), fill=track, width=4)
        tip = x1 + 14 if forward else x0 - 14
        base = x1 if forward else x0
        draw.polygon([(tip, y), (base, y - 9), (base, y + 9)], fill=track)
    for i in range(6):
        cx = SPOT_X0 + i * SPOT_PITCH
        r = SPOT // 2
        fill = POINT_LIGHT if i % 2 == 0 else POINT_DARK
        draw.ellipse((cx - r, SPOT_Y - r, cx + r, SPOT_Y + r), fill=INK)
        draw.ellipse((cx - r + 3, SPOT_Y - r + 3, cx + r - 3, SPOT_Y + r - 3), fill=fill)
    for xy, label, size, bold in _spot_labels(turn):
        draw_text(canvas, xy, label, size, fill=LABEL, anchor="mm", bold=bold)
    for x, y in _TRAYS.values():
        draw.rounded_rectangle((x, y, x + TRAY_W, y + TRAY_H), radius=12, fill=FRAME_DARK)
        draw.rounded_rectangle(
            (x + 3, y + 3, x + TRAY_W - 3, y + TRAY_H - 3), radius=10, fill=shade(FELT, 0.7)
        )
    return canvas


def _captions(words: BoardWords) -> list[Text]:
    """Each tray's name in the reader's language (drawn per image: the background is shared)."""
    out: list[Text] = []
    for (seat, place), (x, y) in _TRAYS.items():
        caption = words.home if place == HOME else words.safety
        cy = y - 13 if seat == 0 else y + TRAY_H + 13
        size = fit_size(caption, 20, TRAY_W, smallest=14)
        out.append(((x + TRAY_W / 2, cy), fit(caption, size, TRAY_W), size, False))
    return out


def _draw_tray_captions(canvas: Image.Image, words: BoardWords) -> None:
    for xy, caption, size, _ in _captions(words):
        draw_text(canvas, xy, caption, size, fill=LABEL, anchor="mm")


def _build() -> _Sprites:
    ivory, ebony = SEAT_STYLES
    return _Sprites(
        checkers=(checker_sprite(CHECKER, ivory), checker_sprite(CHECKER, ebony)),
        moved=(
            checker_sprite(CHECKER, ivory, highlight=True),
            checker_sprite(CHECKER, ebony, highlight=True),
        ),
        hit=(checker_sprite(CHECKER, ivory, hit=True), checker_sprite(CHECKER, ebony, hit=True)),
        ghost=ghost_sprite(CHECKER),
        dice=(
            tuple(die_sprite(v, DIE, ivory) for v in range(1, 7)),
            tuple(die_sprite(v, DIE, ebony) for v in range(1, 7)),
        ),
        backgrounds=(_background(0), _background(1)),
    )


_SPRITES = Lazy(_build)


def _seat_places(position: Position, turn: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each seat's places in its own numbering, indexed by seat."""
    if turn == 0:
        return position.mine, position.theirs
    return position.theirs, position.mine


def _centre(seat: int, place: int, slot: int) -> tuple[int, int]:
    if place in (HOME, SAFETY):
        return _slot_centre(seat, place, slot)
    return _spot_centre(seat, place)


def _located(places: Sequence[int]) -> list[tuple[int, int]]:
    """(place, slot) for each checker: the slot is its index among checkers in the same tray."""
    seen: dict[int, int] = {}
    out = []
    for place in places:
        out.append((place, seen.get(place, 0)))
        seen[place] = seen.get(place, 0) + 1
    return out


def board_image(
    position: Position,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Move] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
    choices: tuple[Move | None, Move | None] | None = None,
) -> Image.Image:
    """The board as an RGB image (see the module docstring for the arguments). ``choices``,
    for a mistake card: the move made and the best move, by the player on turn, drawn as
    arrows (vermillion and sky blue; None where there is nothing to draw)."""
    sprites = _SPRITES.get()
    canvas = sprites.backgrounds[numbered_for(scene, turn, cube_offered_by)].copy()
    _draw_tray_captions(canvas, scene.words)
    by_seat = _seat_places(position, turn)

    moved_to: tuple[int, int] | None = None  # (seat, place) the last move landed on
    ghost_at: tuple[int, int, int] | None = None  # (seat, place, slot) it left
    hit_seat: int | None = None
    if last_move is not None:
        mover, move = last_move
        moved_to = (mover, move.dst)
        src_slot = by_seat[mover].count(HOME) if move.src == HOME else 0
        ghost_at = (mover, move.src, src_slot)
        if move.hit:
            hit_seat = 1 - mover

    half = CHECKER // 2
    for seat in (0, 1):
        places = by_seat[seat]
        for place, slot in _located(places):
            sprite = sprites.checkers[seat]
            if moved_to == (seat, place) and (
                place not in (HOME, SAFETY) or slot == places.count(place) - 1
            ):
                sprite = sprites.moved[seat]
            elif hit_seat == seat and place == HOME and slot == places.count(HOME) - 1:
                sprite = sprites.hit[seat]
            cx, cy = _centre(seat, place, slot)
            canvas.paste(sprite, (cx - half, cy - half), sprite)
    if ghost_at is not None:
        seat, place, slot = ghost_at
        cx, cy = _centre(seat, place, slot)
        canvas.paste(sprites.ghost, (cx - half, cy - half), sprites.ghost)

    if dice:
        # The roller's die sits between their HOME and SAFETY trays.
        y = TRAY_BOTTOM_Y + TRAY_H // 2 if turn == 0 else TRAY_TOP_Y + TRAY_H // 2
        x = (TRAY_LEFT_X + TRAY_W + TRAY_RIGHT_X) // 2
        for i, value in enumerate(dice):
            sprite = sprites.dice[turn][value - 1]
            offset = (i - (len(dice) - 1) / 2) * (DIE + 6)
            canvas.paste(sprite, (int(x + offset - DIE / 2), y - DIE // 2), sprite)

    if cube is not None:
        _draw_cube(canvas, cube, cube_offered_by)

    if choices is not None:
        under = canvas.copy()
        places = by_seat[turn]
        # Away from the row of spot numbers, which lies on the mover's side of the spots.
        away = SPOT_Y + (-160 if turn == 0 else 160)
        for choice, colour, bend in ((choices[1], BEST, 0.32), (choices[0], PLAYED, 0.16)):
            if choice is None:
                continue
            src_slot = places.count(HOME) - 1 if choice.src == HOME else 0
            dst_slot = places.count(SAFETY) if choice.dst == SAFETY else 0
            start = _centre(turn, choice.src, src_slot)
            end = _centre(turn, choice.dst, dst_slot)
            towards = ((start[0] + end[0]) / 2, away)
            draw_arrow(canvas, start, end, colour, bend=bend, towards=towards)
        # An arrow out of HOME crosses the spot numbers and the tray's name: they stay on top.
        for xy, text, size, bold in (*_spot_labels(turn), *_captions(scene.words)):
            show_through(canvas, under, xy, text, size, anchor="mm", bold=bold)

    names = tuple(drawable_name(n, seat) for seat, n in enumerate(scene.names))
    seats = tuple(
        SeatInfo(
            name=names[seat],
            icon=_icon(seat),
            lines=(
                Stat(scene.words.score, format_score(scene.score[seat])),
                Stat(scene.words.in_safety, str(by_seat[seat].count(SAFETY))),
            ),
            on_turn=seat == answering(turn, cube_offered_by, finished=scene.finished),
        )
        for seat in (0, 1)
    )
    draw_panel(
        canvas,
        PANEL_X,
        (seats[0], seats[1]),
        (Stat(scene.words.nannon), *match_lines(scene))
        + (
            (Stat(scene.words.doubled_to, str(cube.value * 2)),)
            if cube is not None and cube_offered_by is not None
            else ()
        ),
        scene.crawford,
        scene.words.crawford,
    )
    return canvas


def parse_choice(
    text: str,
    dice: Sequence[int],
    position: Position,
    turn: int,
    /,
    *args: object,
    **kwargs: object,
) -> Move | None:
    """``text`` as a move on the board :func:`board_image` draws for ``position``/``turn``, by
    the player on turn with ``dice`` (or the board's own); None when it isn't one."""
    roll = roll_of(dice, kwargs)
    return parsed_or_none(Move.parse, text, position, roll[0]) if len(roll) == 1 else None


def _draw_cube(canvas: Image.Image, cube: Cube, offered_by: int | None) -> None:
    if offered_by is not None:
        sprite = _cube(cube_label(cube.value * 2, centred=False), offered=True)
        y = HEIGHT // 2 + (110 if offered_by == 0 else -110)
    else:
        sprite = _cube(cube_label(cube.value, cube.owner is None), offered=False)
        edge = TRAY_TOP_Y + TRAY_H // 2
        y = {None: HEIGHT // 2, 0: HEIGHT - edge, 1: edge}[cube.owner]
    canvas.paste(sprite, (CUBE_X - sprite.width // 2, y - sprite.height // 2), sprite)


def _cube(label: str, offered: bool) -> Image.Image:
    return cube_sprite(label, CUBE + (10 if offered else 0), offered=offered)


def _icon(seat: int) -> Image.Image:
    return checker_sprite(ICON, SEAT_STYLES[seat])


def _palette() -> Image.Image:
    """The fixed palette, from sample boards that show every sprite, highlight and colour."""
    start = Position.initial()
    scene = Scene(("Sample", "Palette"), (1, 2), 5, crawford=True)
    hit = Position((0, 0, 4), (1, 2, 7))
    return palette_from(
        [
            board_image(start, 0, scene, dice=(6,), cube=Cube()),
            board_image(hit, 0, scene, dice=(2,), last_move=(1, Move(1, 3, True)), cube=Cube(2, 1)),
            board_image(start, 1, scene, dice=(4,), cube=Cube(2, 0), cube_offered_by=1),
            board_image(
                start,
                0,
                scene,
                dice=(3,),
                choices=(Move.parse("H/3", start, 3), Move.parse("1/4", start, 3)),
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
    last_move: tuple[int, Move] | None = None,
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


def _place_words(place: int) -> str:
    if place == HOME:
        return "home"
    if place == SAFETY:
        return "safety"
    return f"spot {place}"


def describe(
    position: Position,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Move] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
) -> str:
    """Plain-text alt text: names, colours, score, every checker, the roll, cube, last move.

    Spots are numbered as on the image (:func:`render.common.numbered_for`)."""
    names = tuple(clean_name(n, seat) for seat, n in enumerate(scene.names))
    colours = ("white", "black")
    by_seat = _seat_places(position, turn)
    seen = numbered_for(scene, turn, cube_offered_by)
    parts = [
        match_words("Nannon", scene),
        f"Score: {names[0]} ({colours[0]}, bottom) {format_score(scene.score[0])}, "
        f"{names[1]} ({colours[1]}, top) {format_score(scene.score[1])}.",
    ]
    roll = f", rolled {'-'.join(str(d) for d in dice)}" if dice else ""
    numbered = f"Spots are numbered for {names[seen]}."
    if scene.finished:
        parts.append(f"The game is over. {numbered}")
    elif cube_offered_by is not None:
        parts.append(numbered)  # the cube's line says who answers
    else:
        parts.append(f"{names[turn]} to play{roll}. {numbered}")
    for seat in (0, 1):
        # Seat places into the numbering shown: spot k of the other seat is 7 - k.
        words = []
        for place in sorted(by_seat[seat]):
            shown = place if seat == seen or place in (HOME, SAFETY) else 7 - place
            words.append(_place_words(shown))
        parts.append(f"{possessive(names[seat], start=True)} checkers: {', '.join(words)}.")
    if cube is not None:
        parts.append(_cube_words(cube, cube_offered_by, names))
    if last_move is not None:
        mover, move = last_move
        parts.append(f"Last move: {names[mover]} {move}.")
    return " ".join(parts)


def _cube_words(cube: Cube, offered_by: int | None, names: Sequence[str]) -> str:
    if offered_by is not None:
        taker = names[1 - offered_by]
        return f"{names[offered_by]} doubles to {cube.value * 2}: {taker} to take or drop."
    if cube.owner is None:
        return f"Cube centred at {cube.value}."
    return f"Cube at {cube.value}, owned by {names[cube.owner]}."
