"""Pictures as picklable jobs: what a render worker process runs.

The bot builds ``(game, args, kwargs)`` from its match view and sends them here, so a worker
imports only ``render`` and ``engines``. :func:`board` returns the PNG and its alt text;
:func:`chart` and :func:`mistake` draw the analysis report's pictures.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Sequence
from typing import Any

from engines.analysis import Decision
from render import analysis_chart, analysis_report, tournament

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


def chart(
    decisions: Sequence[Decision],
    names: tuple[str, str],
    match_play: bool,
    words: analysis_chart.ChartWords = analysis_chart.WORDS,
) -> tuple[bytes, str]:
    """The analysis report's winning-chance chart (its ``words`` in the reader's language):
    PNG and alt text."""
    png = analysis_chart.win_chance_chart(decisions, names, match_play=match_play, words=words)
    return png, analysis_chart.chart_alt_text(decisions, names, match_play=match_play)


def mistake(
    game: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    decision: Decision,
    words: analysis_report.CardWords = analysis_report.CARD_WORDS,
) -> tuple[bytes, str]:
    """A mistake's card for the analysis report (:func:`render.analysis_report.mistake_card`):
    the board it was made on, as :func:`board` takes it, with the move played and the best
    move drawn on it and its caption (in ``words``)."""
    return analysis_report.mistake_card(game, args, kwargs, decision, words)


def standings(
    title: str,
    headings: Sequence[str],
    rows: Sequence[Sequence[str]],
    highlight: int | None,
    legend: Sequence[str] = (),
) -> tuple[bytes, str]:
    """A tournament's table (:func:`render.tournament.standings_picture`): PNG and alt text."""
    return tournament.standings_picture(title, headings, rows, highlight=highlight, legend=legend)


def bracket(
    title: str,
    column_titles: Sequence[str],
    columns: Sequence[Sequence[tournament.BracketMatch]],
    bye: str,
    to_come: str,
) -> tuple[bytes, str]:
    """A knockout bracket (:func:`render.tournament.bracket_picture`): PNG and alt text."""
    return tournament.bracket_picture(title, column_titles, columns, bye=bye, to_come=to_come)


def ready() -> bool:
    """A no-op a pool runs once to start its worker (imports included) before the first board."""
    importlib.import_module("render.backgammon")
    importlib.import_module("render.checkers")
    importlib.import_module("render.nannon")
    return True
