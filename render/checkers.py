"""American checkers board images and alt text.

API (all pure and thread-safe)::

    board_png(board, black_seat, scene=DEFAULT_SCENE, *, last_move=None,
              draw_offered_by=None) -> bytes
    board_image(...same...) -> PIL.Image.Image      # the picture before PNG encoding
    describe(...same...) -> str                      # plain-text alt text

``board`` is an :class:`engines.checkers.Board` (it knows whose turn it is); ``black_seat`` is
the seat playing Black in this game (``match.black_seat``: colours alternate each game).
``last_move`` is ``match.last_move``: ``(seat, Move)``. ``draw_offered_by`` is the seat that
offered a draw, if any: the panel then lights the other seat, who must accept or decline it
(``match.actor``). ``scene.score`` is in games (a draw is 0.5 each).

Orientation: seat 0's pieces are always at the bottom, for the whole match (as on the dice
boards), so the picture turns round between games when the colours swap; the square numbers
(standard 1..32, in each dark square's top-left corner, in narrowed digits tall enough for a
phone; the pieces sit towards the bottom right) turn with it. Black is near-black with a light
inner ring, White is ivory with a dark rim; a king carries a crown. The last move shows a
dashed amber ring on its start square, amber frames and a path line on every square it
touched, an amber cross on each captured square, and an amber ring on the piece that moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from PIL import Image, ImageChops, ImageDraw

from engines.checkers import Board, Color, Move
from render.common import (
    BEST,
    DEFAULT_SCENE,
    FRAME,
    FRAME_DARK,
    HEIGHT,
    HIGHLIGHT,
    INK,
    PLAYED,
    SEAT_STYLES,
    WIDTH,
    CheckerStyle,
    Lazy,
    Scene,
    SeatInfo,
    Stat,
    answering,
    checker_sprite,
    clean_name,
    draw_arrow,
    draw_panel,
    draw_text,
    drawable_name,
    encode_png,
    format_score,
    ghost_sprite,
    match_lines,
    match_words,
    palette_from,
    parsed_or_none,
    text_width,
)

__all__ = ["board_image", "board_png", "describe", "parse_choice"]

PANEL_X = 560  # a square board leaves the panel more room than on the dice boards
SQUARE = 60
BOARD = 8 * SQUARE
BOARD_X = (PANEL_X - BOARD) // 2
BOARD_Y = (HEIGHT - BOARD) // 2
PIECE = 40
# A piece sits off the square's centre, towards the bottom right, so the number in the top-left
# corner can be big enough to read on a phone (9 px high at 380 px wide) without covering it.
PIECE_OFFSET = 8
NUMBER_SIZE = 25
NUMBER_SQUEEZE = 0.72  # the digits narrowed, to keep the number clear of the piece
ICON = 34
LIGHT_SQUARE = (232, 218, 178)
DARK_SQUARE = (58, 110, 76)
NUMBER = (196, 226, 200)

# Styles by colour: White like seat 0's ivory checker, Black like the ebony one.
_STYLES = {Color.WHITE: SEAT_STYLES[0], Color.BLACK: SEAT_STYLES[1]}


def _cell(square: int, black_bottom: bool) -> tuple[int, int]:
    """(row, col) on screen of ``square``; the standard diagram has Black at the top."""
    row, index = divmod(square - 1, 4)
    col = 2 * index + (1 if row % 2 == 0 else 0)
    return (7 - row, 7 - col) if black_bottom else (row, col)


def _centre(square: int, black_bottom: bool) -> tuple[int, int]:
    row, col = _cell(square, black_bottom)
    middle = SQUARE // 2 + PIECE_OFFSET
    return BOARD_X + col * SQUARE + middle, BOARD_Y + row * SQUARE + middle


def _background(black_bottom: bool) -> Image.Image:
    canvas = Image.new("RGB", (WIDTH, HEIGHT), FRAME)
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, PANEL_X - 1, HEIGHT - 1), fill=FRAME_DARK)
    draw.rectangle((4, 4, PANEL_X - 5, HEIGHT - 5), fill=FRAME)
    draw.rectangle(
        (BOARD_X - 4, BOARD_Y - 4, BOARD_X + BOARD + 3, BOARD_Y + BOARD + 3), fill=FRAME_DARK
    )
    for row in range(8):
        for col in range(8):
            x, y = BOARD_X + col * SQUARE, BOARD_Y + row * SQUARE
            dark = (row + col) % 2 == 1
            fill = DARK_SQUARE if dark else LIGHT_SQUARE
            draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1), fill=fill)
    for square in range(1, 33):
        row, col = _cell(square, black_bottom)
        x, y = BOARD_X + col * SQUARE, BOARD_Y + row * SQUARE
        canvas.paste(_number_tile(square), (x + 1, y + 1))
    return canvas


def _number_tile(square: int) -> Image.Image:
    """The square's number on a patch of the square's colour: pasted again over a piece
    that covers the corner, so every number stays readable."""
    label = str(square)
    width = round(text_width(label, NUMBER_SIZE) * NUMBER_SQUEEZE) + 5
    tile = Image.new("RGB", (width, 2 * NUMBER_SIZE), DARK_SQUARE)
    draw_text(tile, (2, 0), label, NUMBER_SIZE, NUMBER, bold=True, squeeze=NUMBER_SQUEEZE)
    # Only as big as the digits (and a pixel round them), so the piece stays clear of them.
    ink = ImageChops.difference(tile, Image.new("RGB", tile.size, DARK_SQUARE)).getbbox()
    left, top, right, bottom = (
        (ink[0] - 1, ink[1] - 1, ink[2] + 1, ink[3] + 1) if ink else (0, 0, width, NUMBER_SIZE)
    )
    return tile.crop((max(0, left), max(0, top), min(width, right), bottom))


def _crown(size: int, colour: tuple[int, int, int], edge: tuple[int, int, int]) -> Image.Image:
    """A three-pointed crown, drawn large and shrunk."""
    s = size * 4
    big = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    outline = [
        (0.12, 0.78),
        (0.12, 0.30),
        (0.32, 0.52),
        (0.5, 0.22),
        (0.68, 0.52),
        (0.88, 0.30),
        (0.88, 0.78),
    ]
    points = [(x * s, y * s) for x, y in outline]
    draw.polygon(points, fill=colour, outline=edge, width=s // 14)
    for x, y in ((0.12, 0.26), (0.5, 0.18), (0.88, 0.26)):
        r = s * 0.07
        draw.ellipse(
            (x * s - r, y * s - r, x * s + r, y * s + r), fill=colour, outline=edge, width=s // 24
        )
    return big.resize((size, size), Image.Resampling.LANCZOS)


def _piece(style: CheckerStyle, king: bool, highlight: bool) -> Image.Image:
    piece = checker_sprite(PIECE, style, highlight=highlight).copy()
    if king:
        # The crown takes the rim colour: dark on White, light on Black; never the amber.
        crown = _crown(26, style.rim, style.fill)
        offset = (PIECE - crown.width) // 2
        piece.alpha_composite(crown, (offset, offset))
    return piece


@dataclass(frozen=True)
class _Sprites:
    pieces: dict[tuple[Color, bool, bool], Image.Image]  # (colour, king, highlighted)
    ghost: Image.Image
    numbers: tuple[Image.Image, ...]  # [square - 1]
    icons: dict[Color, Image.Image]
    backgrounds: tuple[Image.Image, Image.Image]  # White at the bottom / Black at the bottom


def _build() -> _Sprites:
    pieces = {
        (colour, king, lit): _piece(_STYLES[colour], king, lit)
        for colour in Color
        for king in (False, True)
        for lit in (False, True)
    }
    icons = {colour: checker_sprite(ICON, _STYLES[colour]) for colour in Color}
    numbers = tuple(_number_tile(square) for square in range(1, 33))
    return _Sprites(
        pieces, ghost_sprite(PIECE), numbers, icons, (_background(False), _background(True))
    )


_SPRITES = Lazy(_build)


def _cross(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    r = 14
    for line in (((x - r, y - r), (x + r, y + r)), ((x - r, y + r), (x + r, y - r))):
        draw.line(line, fill=INK, width=10)
        draw.line(line, fill=HIGHLIGHT, width=5)


def _paste_number(canvas: Image.Image, sprites: _Sprites, square: int, black_bottom: bool) -> None:
    row, col = _cell(square, black_bottom)
    canvas.paste(
        sprites.numbers[square - 1], (BOARD_X + col * SQUARE + 1, BOARD_Y + row * SQUARE + 1)
    )


def _colour_of(seat: int, black_seat: int) -> Color:
    return Color.BLACK if seat == black_seat else Color.WHITE


def board_image(
    board: Board,
    black_seat: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    last_move: tuple[int, Move] | None = None,
    draw_offered_by: int | None = None,
    choices: tuple[Move | None, Move | None] | None = None,
) -> Image.Image:
    """The board as an RGB image (see the module docstring for the arguments). ``choices``,
    for a mistake card: the move made and the best move, by the side to move, drawn as arrows
    square by square (vermillion and sky blue; None where there is nothing to draw)."""
    sprites = _SPRITES.get()
    black_bottom = black_seat == 0
    canvas = sprites.backgrounds[black_bottom].copy()
    draw = ImageDraw.Draw(canvas)

    moved_to = None
    if last_move is not None:
        move = last_move[1]
        moved_to = move.path[-1]
        for square in move.path:
            row, col = _cell(square, black_bottom)
            x, y = BOARD_X + col * SQUARE, BOARD_Y + row * SQUARE
            draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1), outline=INK, width=2)
            draw.rectangle(
                (x + 2, y + 2, x + SQUARE - 3, y + SQUARE - 3), outline=HIGHLIGHT, width=4
            )
        centres = [_centre(square, black_bottom) for square in move.path]
        draw.line(centres, fill=INK, width=10, joint="curve")
        draw.line(centres, fill=HIGHLIGHT, width=5, joint="curve")
        half = PIECE // 2
        x, y = centres[0]
        canvas.paste(sprites.ghost, (x - half, y - half), sprites.ghost)
        for square in move.captures:
            _cross(draw, *_centre(square, black_bottom))
        for square in {*move.path, *move.captures}:  # the marks must not hide the numbers
            _paste_number(canvas, sprites, square, black_bottom)

    half = PIECE // 2
    groups = (
        (board.black_men, Color.BLACK, False),
        (board.black_kings, Color.BLACK, True),
        (board.white_men, Color.WHITE, False),
        (board.white_kings, Color.WHITE, True),
    )
    for squares, colour, king in groups:
        for square in squares:
            sprite = sprites.pieces[(colour, king, square == moved_to)]
            x, y = _centre(square, black_bottom)
            canvas.paste(sprite, (x - half, y - half), sprite)  # clear of the number's ink

    if choices is not None:
        board_centre = (BOARD_X + BOARD / 2, BOARD_Y + BOARD / 2)
        for choice, paint, bend in ((choices[1], BEST, 0.3), (choices[0], PLAYED, 0.12)):
            if choice is None:
                continue
            centres = [_centre(square, black_bottom) for square in choice.path]
            for start, end in pairwise(centres):
                draw_arrow(canvas, start, end, paint, bend=bend, towards=board_centre)

    turn = black_seat if board.turn is Color.BLACK else 1 - black_seat
    lit = answering(turn, draw_offered_by, finished=scene.finished)
    seats = []
    for seat in (0, 1):
        colour = _colour_of(seat, black_seat)
        men, kings = _count(board, colour)
        words = scene.words
        pieces = (Stat(words.men, str(men)),) + ((Stat(words.kings, str(kings)),) if kings else ())
        seats.append(
            SeatInfo(
                name=drawable_name(scene.names[seat], seat),
                icon=sprites.icons[colour],
                lines=(
                    Stat(words.black if colour is Color.BLACK else words.white),
                    Stat(words.score, format_score(scene.score[seat])),
                    *pieces,
                ),
                on_turn=seat == lit,
            )
        )
    middle = match_lines(scene)
    if draw_offered_by is not None:
        middle = (*middle, Stat(scene.words.draw_offered))
    draw_panel(canvas, PANEL_X, (seats[0], seats[1]), middle, False)
    return canvas


def parse_choice(
    text: str, dice: object, board: Board, /, *args: object, **kwargs: object
) -> Move | None:
    """``text`` as a move on ``board`` by the side to move (checkers has no dice); None when it
    isn't one."""
    return parsed_or_none(Move.parse, text, board)


def _count(board: Board, colour: Color) -> tuple[int, int]:
    if colour is Color.BLACK:
        return len(board.black_men), len(board.black_kings)
    return len(board.white_men), len(board.white_kings)


def _palette() -> Image.Image:
    """The fixed palette, from sample boards that show every sprite, highlight and colour."""
    board = Board.from_fen("W:WK22,26,30:B6,K9,10,15")
    jump = (0, Move((22, 15, 8), (18, 11)))
    scene = Scene(("Sample", "Palette"), (1.5, 0.5), 3, game_number=2)
    return palette_from(
        [
            board_image(Board.initial(), 0, scene),
            board_image(board, 1, scene, last_move=jump, draw_offered_by=1),
            board_image(
                Board.initial(),
                0,
                scene,
                choices=(Move.parse("11-15", Board.initial()), Move.parse("9-13", Board.initial())),
            ),
        ]
    )


_PALETTE = Lazy(_palette)


def board_png(
    board: Board,
    black_seat: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    last_move: tuple[int, Move] | None = None,
    draw_offered_by: int | None = None,
) -> bytes:
    """The board as PNG bytes (see the module docstring for the arguments)."""
    image = board_image(
        board, black_seat, scene, last_move=last_move, draw_offered_by=draw_offered_by
    )
    return encode_png(image, _PALETTE.get())


def describe(
    board: Board,
    black_seat: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    last_move: tuple[int, Move] | None = None,
    draw_offered_by: int | None = None,
) -> str:
    """Plain-text alt text: names, colours, score, every piece by square, turn, last move."""
    names = tuple(clean_name(n, seat) for seat, n in enumerate(scene.names))
    colour_seat = {
        colour: (black_seat if colour is Color.BLACK else 1 - black_seat) for colour in Color
    }
    parts = [
        match_words("Checkers", scene),
        "Score: "
        + ", ".join(
            f"{names[seat]} ({_colour_of(seat, black_seat).name.lower()}, "
            f"{'bottom' if seat == 0 else 'top'}) {format_score(scene.score[seat])}"
            for seat in (0, 1)
        )
        + ".",
        "The game is over."
        if scene.finished
        else f"{board.turn.name.capitalize()} ({names[colour_seat[board.turn]]}) to move.",
    ]
    for colour in (Color.BLACK, Color.WHITE):
        men, kings = (
            (board.black_men, board.black_kings)
            if colour is Color.BLACK
            else (board.white_men, board.white_kings)
        )
        name = colour.name.capitalize()
        if not men and not kings:
            parts.append(f"{name} has no pieces left.")
            continue
        words = [f"men on {_squares(men)}"] if men else []
        if kings:
            words.append(f"kings on {_squares(kings)}")
        parts.append(f"{name} {' and '.join(words)}.")
    if draw_offered_by is not None:
        parts.append(f"{names[draw_offered_by]} offers a draw.")
    if last_move is not None:
        mover, move = last_move
        text = f"Last move: {names[mover]} {move}"
        if move.captures:
            text += f", capturing on {_squares(move.captures)}"
        parts.append(text + ".")
    return " ".join(parts)


def _squares(squares: frozenset[int] | tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in sorted(squares)) if squares else "none"
