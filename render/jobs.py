"""One board as a picklable job: what a render worker process runs.

The bot builds ``(game, args, kwargs)`` from its match view and sends them here, so a worker
imports only ``render`` and ``engines``. :func:`board` returns the PNG and its alt text.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

log = logging.getLogger(__name__)


def board(game: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bytes, str]:
    """``render.<game>.board_png`` and ``describe`` of the same board.

    >>> from render.common import Scene
    >>> from engines.nannon import Position
    >>> png, alt = board("nannon", (Position.initial(), 0, Scene()), {})
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n" and "Nannon" in alt
    True
    """
    module = importlib.import_module(f"render.{game}")
    return module.board_png(*args, **kwargs), module.describe(*args, **kwargs)


def chart(decisions: Any, names: tuple[str, str], match_play: bool) -> tuple[bytes, str] | None:
    """The analysis report's winning-chance chart (PNG, alt text), or None where
    ``render.analysis_chart`` is missing."""
    try:
        module = importlib.import_module("render.analysis_chart")
    except ImportError:
        return None
    png: bytes = module.win_chance_chart(decisions, names, match_play=match_play)
    describe = getattr(module, "chart_alt_text", None)
    try:
        alt = str(describe(decisions, names)) if describe is not None else ""
    except TypeError:  # another signature: the caller's own alt text stands
        alt = ""
    return png, alt


def ready() -> bool:
    """A no-op a pool runs once to start its worker (imports included) before the first board."""
    importlib.import_module("render.backgammon")
    importlib.import_module("render.checkers")
    importlib.import_module("render.nannon")
    return True
