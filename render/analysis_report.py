"""The analysis report's other pictures: a "mistake card", the board a decision was made on with
the move played and the best move drawn on it, and a caption band under it (who played what,
what was best, what it cost).

The board comes from the same entry point as every board the bot shows (``render.<game>``'s
``board_image`` and ``describe``, called with the ``(game, args, kwargs)`` the adapter's
``board_job`` builds), so a card looks like the board the player saw, with two differences: the
opponent's previous move is not marked (it is not the decision), and the decision's two moves
are, as arrows, vermillion for the move played and sky blue for the best, each read from its
notation on that board (``render.<game>.parse_choice``; a cube action or an unreadable move
draws nothing). The caption's lines start with the same arrows. Its arguments are plain values,
so the render worker can run it as it runs :func:`render.jobs.board`; its words come from
:class:`CardWords`, which the caller passes (translated).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from engines.analysis import Decision
from render.common import (
    BEST,
    HIGHLIGHT,
    PANEL,
    PLAYED,
    RGB,
    TEXT,
    TEXT_DIM,
    Scene,
    clean_name,
    clean_text,
    draw_arrow,
    draw_text,
    drawable_name,
    encode_png,
    fit,
    fit_size,
    text_width,
)

__all__ = ["CAPTION_HEIGHT", "CARD_WORDS", "CardWords", "caption_words", "mistake_card"]

CAPTION_HEIGHT = 84  # two lines: the move played, the best move
_SIZE = 24
_SMALLEST = 18  # a long line shrinks to this before it is cut
_NOTATION_CHARS = 40  # notation longer than this (no real move is) is cut
_SWATCH = 34  # the arrow at the start of a line


@dataclass(frozen=True, slots=True)
class CardWords:
    """The caption's words, so the caller can pass them in the reader's language: ``{player}``
    stands for the name of who decided, ``{move}`` for a move in the game's notation."""

    played: str = "{player} played {move}"
    best: str = "best {move}"


CARD_WORDS = CardWords()


def caption_words(
    decision: Decision, player: str = "", words: CardWords = CARD_WORDS
) -> tuple[str, str, str]:
    """The caption's three parts: ``("Ann played 24/18", "best 13/7", "-0.123")`` (without a
    ``player``, ``"played 24/18"``).

    >>> from engines.analysis import DecisionKind
    >>> caption_words(Decision(1, 3, 1, DecisionKind.CUBE, "pass", "take", 0.1234, False,
    ...                        None, 0.5))
    ('played pass', 'best take', '-0.123')
    >>> caption_words(Decision(1, 3, 1, DecisionKind.MOVE, "8/4", "13/9", 0.02, False,
    ...                        None, 0.5), "Ann")[0]
    'Ann played 8/4'
    """
    played = clean_text(decision.played, _NOTATION_CHARS) or "?"
    best = clean_text(decision.best, _NOTATION_CHARS) or "?"
    return (
        words.played.format(player=player, move=played).strip(),
        words.best.format(move=best).strip(),
        f"-{decision.equity_loss:.3f}",
    )


def _scene_of(args: tuple[Any, ...]) -> Scene:
    """The board's :class:`Scene` (every game's ``board_image`` takes it third)."""
    scene = args[2] if len(args) > 2 else None
    return scene if isinstance(scene, Scene) else Scene()


def _caption_line(
    card: Image.Image, x: int, y: float, room: int, text: str, fill: RGB, arrow: RGB | None
) -> None:
    """One caption line: its arrow (when the move is drawn), then the text, shrunk to fit and
    cut only when even the smallest size is too wide."""
    if arrow is not None:
        draw_arrow(card, (x, y), (x + _SWATCH - 6, y), arrow, width=6)
    x += _SWATCH + 8
    room -= _SWATCH + 8
    size = fit_size(text, _SIZE, room, smallest=_SMALLEST)
    draw_text(card, (x, y), fit(text, size, room), size, fill=fill, anchor="lm", bold=True)


def mistake_card(
    game: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    decision: Decision,
    words: CardWords = CARD_WORDS,
) -> tuple[bytes, str]:
    """The board of ``render.<game>`` for ``args``/``kwargs`` (the position the decision was
    made on) with the move played and the best move drawn on it and the caption band below;
    the PNG and its alt text."""
    module = importlib.import_module(f"render.{game}")
    kwargs = {**kwargs, "last_move": None}
    played = module.parse_choice(decision.played, decision.dice, *args, **kwargs)
    best = module.parse_choice(decision.best, decision.dice, *args, **kwargs)
    if best is not None and best == played:
        best = None
    drawn = played is not None or best is not None
    board: Image.Image = module.board_image(
        *args, **kwargs, choices=(played, best) if drawn else None
    )
    card = Image.new("RGB", (board.width, board.height + CAPTION_HEIGHT), PANEL)
    card.paste(board.convert("RGB"), (0, 0))
    ImageDraw.Draw(card).line((0, board.height, board.width, board.height), fill=TEXT_DIM)
    names = _scene_of(args).names
    seat = decision.player
    shown = caption_words(decision, drawable_name(names[seat], seat), words)
    top = board.height + CAPTION_HEIGHT / 4
    # The cost at the right, amber for a blunder; the two lines share what is left.
    loss = shown[2]
    colour = HIGHLIGHT if decision.is_blunder else TEXT
    mid_y = board.height + CAPTION_HEIGHT / 2
    draw_text(card, (board.width - 16, mid_y), loss, _SIZE, fill=colour, anchor="rm", bold=True)
    room = board.width - 16 - text_width(loss, _SIZE) - 24 - 16
    _caption_line(card, 16, top, room, shown[0], TEXT, PLAYED if played is not None else None)
    line_2 = top + CAPTION_HEIGHT / 2
    _caption_line(card, 16, line_2, room, shown[1], TEXT_DIM, BEST if best is not None else None)
    # The game's own board palette: the band's colours are the side panel's and the arrows'.
    png = encode_png(card, module._PALETTE.get())
    alt = module.describe(*args, **kwargs)
    said = caption_words(decision, clean_name(names[seat], seat), words)
    return png, f"{alt} Mistake: {said[0]}, {said[1]}, losing {loss[1:]}."
