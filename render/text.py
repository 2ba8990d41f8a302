"""Boards as plain text, for a terminal: the same values the pictures take, drawn in characters.

API (all pure)::

    backgammon_text(position, turn, scene=DEFAULT_SCENE, *, dice=None, last_move=None,
                    cube=None, cube_offered_by=None) -> str
    nannon_text(...same as backgammon_text...) -> str
    checkers_text(board, black_seat, scene=DEFAULT_SCENE, *, last_move=None,
                  draw_offered_by=None) -> str
    board_text(game, args, kwargs) -> str   # the game's function, as render.jobs.board takes it

The arguments are those of each game's ``board_png`` and ``describe``, so a caller that builds
a picture's job builds the text board from the same job. The layout is the pictures': seat 0 at
the bottom for the whole match; point and spot numbers are those of the scene's viewer, else of
the player who acts now (:func:`render.common.numbered_for`). Seat 0
plays ``O`` and seat 1 ``X`` in the dice games (white and black); checkers has ``b``/``w`` men
and ``B``/``W`` kings, as :class:`engines.checkers.Board` prints them. Each line is at most 79
characters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engines.backgammon import BAR, OFF, Play
from engines.backgammon import Position as BackgammonPosition
from engines.checkers import Board, Color, Move
from engines.cube import Cube
from engines.nannon import HOME, SAFETY
from engines.nannon import Move as NannonMove
from engines.nannon import Position as NannonPosition
from render.common import (
    DEFAULT_SCENE,
    Scene,
    clean_name,
    cube_label,
    format_score,
    match_words,
    numbered_for,
)

__all__ = ["backgammon_text", "board_text", "checkers_text", "nannon_text"]

MARKS = ("O", "X")  # seat 0 (white, bottom), seat 1 (black, top) in the dice games
COLOURS = ("white", "black")
STACK_ROWS = 5  # rows per half of the backgammon board; the fifth shows a taller stack's count


# A terminal is 79 columns: two names on the score line leave 24 letters for each.
TEXT_NAME_MAX_CHARS = 24


def _names(scene: Scene) -> tuple[str, str]:
    return (
        clean_name(scene.names[0], 0, TEXT_NAME_MAX_CHARS),
        clean_name(scene.names[1], 1, TEXT_NAME_MAX_CHARS),
    )


def _score_line(scene: Scene, names: tuple[str, str]) -> str:
    return (
        f"Score: {names[0]} {format_score(scene.score[0])}, "
        f"{names[1]} {format_score(scene.score[1])}."
    )


def _seat_sides(position: Any, turn: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each seat's side of a dice position (seen from ``turn``) in its own numbering."""
    return (position.mine, position.theirs) if turn == 0 else (position.theirs, position.mine)


def _dice_lines(
    game: str,
    names: tuple[str, str],
    turn: int,
    seen: int,
    dice: Sequence[int] | None,
    cube: Cube | None,
    cube_offered_by: int | None,
    last_move: tuple[int, Any] | None,
    finished: bool = False,
) -> list[str]:
    """The lines under a dice board: the cube, the last move, who is to play what (no one once
    the game is over), numbered for seat ``seen``."""
    lines = []
    if cube is not None:
        if cube_offered_by is not None:
            taker = names[1 - cube_offered_by]
            lines.append(
                f"{names[cube_offered_by]} doubles to {cube.value * 2}: {taker} to take or pass."
            )
        elif cube.owner is None:
            lines.append(f"Cube: {cube_label(cube.value, True)} (centred).")
        else:
            lines.append(f"Cube: {cube.value}, owned by {names[cube.owner]}.")
    if last_move is not None:
        mover, move = last_move
        lines.append(f"Last move: {names[mover]} {move}.")
    numbered = f"numbered from {MARKS[seen]}'s side"  # the mark: a name may be long, or "You"
    if finished:
        lines.append(f"The game is over; {game} {numbered}.")
    elif dice:
        roll = "-".join(str(d) for d in dice)
        lines.append(f"{names[turn]} ({MARKS[turn]}) to play {roll}; {game} {numbered}.")
    elif cube_offered_by is None:
        lines.append(f"{names[turn]} ({MARKS[turn]}) on turn; {game} {numbered}.")
    else:
        lines.append(f"{game.capitalize()} {numbered}.")
    return lines


# --- backgammon ------------------------------------------------------------------------------


def _cell(count: int, mark: str, row: int) -> str:
    """Row ``row`` (0 = nearest the edge) of a stack of ``count``, three characters wide."""
    if count > STACK_ROWS and row == STACK_ROWS - 1:
        return f"{count:>2} "
    return f" {mark} " if row < count else "   "


def _point_label(point: int, seen: int) -> str:
    """Seat 0's point as seat ``seen`` numbers it, padded with dashes (gnubg's frame)."""
    return f"{point if seen == 0 else 25 - point:->2}-"


def backgammon_text(
    position: BackgammonPosition,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, Play] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
) -> str:
    """A gnubg-like diagram: seat 0 (``O``) bottom, home board bottom right; seat 1 (``X``) top,
    home board top right; the bar between the halves; borne-off checkers, score and pips beside.

    >>> text = backgammon_text(BackgammonPosition.initial(), 0, Scene(names=("Ann", "Bob")))
    >>> print(text.splitlines()[2])
    +13-14-15-16-17-18------19-20-21-22-23-24-+  X Bob (black)
    """
    names = _names(scene)
    sides = _seat_sides(position, turn)
    seen = numbered_for(scene, turn, cube_offered_by)
    # Each seat's checkers per point in seat 0's numbering (index 1..24).
    on_point = [[0] * 25, [0] * 25]
    for own in range(1, 25):
        on_point[0][own] += sides[0][own]
        on_point[1][25 - own] += sides[1][own]
    top_points = (range(13, 19), range(19, 25))
    bottom_points = (range(12, 6, -1), range(6, 0, -1))

    def row(points: tuple[range, range], bar_seat: int, r: int) -> str:
        """Screen row ``r`` of a half, counted from its edge; the bar fills from the middle."""

        def cells(span: range) -> str:
            out = ""
            for p in span:
                seat = 0 if on_point[0][p] else 1
                out += _cell(on_point[seat][p], MARKS[seat], r)
            return out

        bar = _cell(sides[bar_seat][BAR], MARKS[bar_seat], STACK_ROWS - 1 - r)
        return f"|{cells(points[0])}|{bar}|{cells(points[1])}|"

    pips = position.pips() if turn == 0 else position.pips()[::-1]
    side = [
        f"{MARKS[1]} {names[1]} ({COLOURS[1]})",
        f"  score {format_score(scene.score[1])}, pips {pips[1]}",
        f"  borne off {sides[1][OFF]}" if sides[1][OFF] else "",
    ]
    top = [row(top_points, 1, r) for r in range(STACK_ROWS)]
    bottom = [row(bottom_points, 0, r) for r in reversed(range(STACK_ROWS))]
    top_frame = "+" + "".join(_point_label(p, seen) for p in range(13, 19)) + "-----"
    top_frame += "".join(_point_label(p, seen) for p in range(19, 25)) + "+"
    bottom_frame = "+" + "".join(_point_label(p, seen) for p in range(12, 6, -1)) + "-----"
    bottom_frame += "".join(_point_label(p, seen) for p in range(6, 0, -1)) + "+"
    middle = "|" + " " * 18 + "|BAR|" + " " * 18 + "|"
    cube_note = ""
    if cube is not None and cube_offered_by is None:
        face = cube_label(cube.value, cube.owner is None)
        cube_note = f"cube {face}" + ("" if cube.owner is None else f" ({MARKS[cube.owner]})")
    board = [top_frame, *top, middle, *bottom, bottom_frame]
    # Seat 1's legend beside the top rows, seat 0's beside the bottom rows, as on the picture.
    legend = {0: side[0], 1: side[1], 2: side[2], STACK_ROWS + 1: cube_note}
    seat0 = [
        f"  borne off {sides[0][OFF]}" if sides[0][OFF] else "",
        f"  score {format_score(scene.score[0])}, pips {pips[0]}",
        f"{MARKS[0]} {names[0]} ({COLOURS[0]})",
    ]
    for k, text in enumerate(seat0):
        legend[len(board) - 3 + k] = text
    drawn = [line + ("  " + legend[i] if legend.get(i) else "") for i, line in enumerate(board)]
    header = [match_words("Backgammon", scene), _score_line(scene, names)]
    footer = _dice_lines(
        "points", names, turn, seen, dice, cube, cube_offered_by, last_move, scene.finished
    )
    footer.append(f"Position ID: {position.id}")
    return "\n".join([*header, *(line.rstrip() for line in drawn), *footer])


# --- Nannon ----------------------------------------------------------------------------------


def _tray(mark: str, count: int) -> str:
    return " ".join([mark] * count) if count else "-"


def nannon_text(
    position: NannonPosition,
    turn: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    dice: Sequence[int] | None = None,
    last_move: tuple[int, NannonMove] | None = None,
    cube: Cube | None = None,
    cube_offered_by: int | None = None,
) -> str:
    """The six spots in a row: seat 0 (``O``) runs left to right from its home (bottom left)
    to safety (bottom right); seat 1 (``X``) right to left, home top right, safety top left.

    >>> print(nannon_text(NannonPosition.initial(), 0, Scene(names=("Ann", "Bob"))))
    Nannon, money game.
    Score: Ann 0, Bob 0.
      X Bob (black)   safety: -                 home: X
              +---+---+---+---+---+---+
              | O | O |   |   | X | X |
              +---+---+---+---+---+---+
        spot    1   2   3   4   5   6
      O Ann (white)   home: O                   safety: -
    Ann (O) on turn; spots numbered from O's side.
    Position: 012-012
    """
    names = _names(scene)
    sides = _seat_sides(position, turn)
    spots = ["   "] * 7  # by seat 0's spot number, 1..6 from the left
    for seat in (0, 1):
        for place in sides[seat]:
            if place not in (HOME, SAFETY):
                spots[place if seat == 0 else 7 - place] = f" {MARKS[seat]} "
    seen = numbered_for(scene, turn, cube_offered_by)
    labels = [str(k if seen == 0 else 7 - k) for k in range(1, 7)]
    trays = [(sides[s].count(HOME), sides[s].count(SAFETY)) for s in (0, 1)]
    edge = "          +" + "---+" * 6
    top = f"  {MARKS[1]} {names[1]} ({COLOURS[1]})"
    bottom = f"  {MARKS[0]} {names[0]} ({COLOURS[0]})"
    width = max(len(top), len(bottom)) + 3
    top = f"{top:<{width}}safety: {_tray(MARKS[1], trays[1][1]):<18}home: "
    top += _tray(MARKS[1], trays[1][0])
    bottom = f"{bottom:<{width}}home: {_tray(MARKS[0], trays[0][0]):<20}safety: "
    bottom += _tray(MARKS[0], trays[0][1])
    lines = [
        match_words("Nannon", scene),
        _score_line(scene, names),
        top,
        edge,
        "          |" + "|".join(spots[1:]) + "|",
        edge,
        "    spot " + "".join(f"{label:>4}" for label in labels),
        bottom,
    ]
    lines += _dice_lines(
        "spots", names, turn, seen, dice, cube, cube_offered_by, last_move, scene.finished
    )
    lines.append(f"Position: {position.id}")
    return "\n".join(lines)


# --- checkers --------------------------------------------------------------------------------


def _screen_square(row: int, col: int, black_bottom: bool) -> int | None:
    """The square (1..32) shown at a screen row and column, or None on a light square; the
    standard diagram (Black at the top) turned round when Black plays at the bottom."""
    if black_bottom:
        row, col = 7 - row, 7 - col
    if (row + col) % 2 == 1:
        return 4 * row + col // 2 + 1
    return None


def checkers_text(
    board: Board,
    black_seat: int,
    scene: Scene = DEFAULT_SCENE,
    *,
    last_move: tuple[int, Move] | None = None,
    draw_offered_by: int | None = None,
) -> str:
    """The board with seat 0's pieces at the bottom (turned round when the colours swap), and
    beside it the square numbers in the same orientation: ``b``/``w`` men, ``B``/``W`` kings,
    ``.`` an empty dark square.

    >>> print(checkers_text(Board.initial(), 1, Scene(names=("Ann", "Bob"))).splitlines()[4])
      |   b   b   b   b |    |     1     2     3     4 |
    """
    names = _names(scene)
    colour_of = (Color.BLACK, Color.WHITE) if black_seat == 0 else (Color.WHITE, Color.BLACK)
    black_bottom = black_seat == 0
    rows = []
    for r in range(8):
        pieces, numbers = [], []
        for c in range(8):
            square = _screen_square(r, c, black_bottom)
            pieces.append(" " if square is None else board.piece_at(square))
            numbers.append("  " if square is None else f"{square:>2}")
        rows.append(f"  | {' '.join(pieces)} |    | {' '.join(numbers)} |")
    frame = "  +" + "-" * 17 + "+    +" + "-" * 25 + "+"

    def who(seat: int) -> str:
        return f"{names[seat]} ({colour_of[seat].name.lower()}), {format_score(scene.score[seat])}"

    mover = board.turn
    mover_seat = 0 if colour_of[0] is mover else 1
    lines = [
        match_words("Checkers", scene),
        _score_line(scene, names),
        f"  {who(1)}",
        frame,
        *rows,
        frame,
        f"  {who(0)}",
    ]
    if last_move is not None:
        seat, move = last_move
        lines.append(f"Last move: {names[seat]} {move}.")
    if scene.finished:
        lines.append("The game is over.")
    elif draw_offered_by is not None:
        offerer, answerer = names[draw_offered_by], names[1 - draw_offered_by]
        lines.append(f"{offerer} offers a draw: {answerer} to answer.")
    else:
        lines.append(f"{mover.name.capitalize()} ({names[mover_seat]}) to move.")
    lines.append(f"FEN: {board.fen}")
    return "\n".join(lines)


TEXT_BOARDS: dict[str, Callable[..., str]] = {
    "backgammon": backgammon_text,
    "checkers": checkers_text,
    "nannon": nannon_text,
}


def board_text(game: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The text board of a picture's job (``render.jobs.board``'s arguments)."""
    return TEXT_BOARDS[game](*args, **kwargs)
