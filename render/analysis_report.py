"""The analysis report's other pictures: a "mistake card", the board a decision was made on with
a caption band under it (what was played, what was best, what it cost).

The board comes from the same entry point as every board the bot shows (``render.<game>``'s
``board_image`` and ``describe``, called with the ``(game, args, kwargs)`` the adapter's
``board_job`` builds), so a card looks exactly like the board the player saw. Its arguments are
plain values, so the render worker can run it as it runs :func:`render.jobs.board`.
"""

from __future__ import annotations

import importlib
from typing import Any

from PIL import Image, ImageDraw

from engines.analysis import Decision
from render.common import (
    HIGHLIGHT,
    PANEL,
    TEXT,
    TEXT_DIM,
    clean_text,
    draw_text,
    encode_png,
    fit,
    text_width,
)

__all__ = ["CAPTION_HEIGHT", "caption_words", "mistake_card"]

CAPTION_HEIGHT = 56
_SIZE = 24
_NOTATION_CHARS = 40  # notation longer than this (no real move is) is cut


def caption_words(decision: Decision) -> tuple[str, str, str]:
    """The caption's three parts: ``("played 24/18", "best 13/7", "-0.123")``.

    >>> from engines.analysis import DecisionKind
    >>> caption_words(Decision(1, 3, 1, DecisionKind.CUBE, "pass", "take", 0.1234, False,
    ...                        None, 0.5))
    ('played pass', 'best take', '-0.123')
    """
    played = clean_text(decision.played, _NOTATION_CHARS) or "?"
    best = clean_text(decision.best, _NOTATION_CHARS) or "?"
    return f"played {played}", f"best {best}", f"-{decision.equity_loss:.3f}"


def mistake_card(
    game: str, args: tuple[Any, ...], kwargs: dict[str, Any], decision: Decision
) -> tuple[bytes, str]:
    """The board of ``render.<game>`` for ``args``/``kwargs`` (the position the decision was
    made on) with the caption band below; the PNG and its alt text."""
    module = importlib.import_module(f"render.{game}")
    board: Image.Image = module.board_image(*args, **kwargs)
    card = Image.new("RGB", (board.width, board.height + CAPTION_HEIGHT), PANEL)
    card.paste(board.convert("RGB"), (0, 0))
    ImageDraw.Draw(card).line((0, board.height, board.width, board.height), fill=TEXT_DIM)
    played, best, loss = caption_words(decision)
    y = board.height + CAPTION_HEIGHT / 2
    # The cost at the right, amber for a blunder; the moves share what is left, half each.
    colour = HIGHLIGHT if decision.is_blunder else TEXT
    draw_text(card, (board.width - 16, y), loss, _SIZE, fill=colour, anchor="rm", bold=True)
    room = (board.width - 16 - text_width(loss, _SIZE) - 24 - 16) // 2
    draw_text(card, (16, y), fit(played, _SIZE, room - 12), _SIZE, anchor="lm", bold=True)
    draw_text(card, (16 + room, y), fit(best, _SIZE, room - 12), _SIZE, fill=TEXT_DIM, anchor="lm")
    # The game's own board palette: the band's colours are the side panel's.
    png = encode_png(card, module._PALETTE.get())
    alt = module.describe(*args, **kwargs)
    return png, f"{alt} Mistake: {played}, {best}, losing {loss[1:]}."
