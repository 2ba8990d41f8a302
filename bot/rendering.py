"""Board rendering off the event loop and off its interpreter lock: :class:`Renderer`, on the
render worker (a :class:`~bot.workers.WorkerPool` it is given).

Rendering is Python drawing plus PNG encoding, a few milliseconds a board. In a thread it holds
the GIL the event loop needs (under load in ``benchmarks/load.py`` the median action took twice
as long as with this worker); a worker process uses the machine's other core instead. If the
worker can't start, or dies, boards are drawn in a thread: slower under load, never missing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from bot.workers import WorkerCrashedError, WorkerPool, WorkerUnavailableError
from engines.analysis import Decision
from engines.cube import Cube
from engines.spec import spec_of
from engines.values import Phase
from render import jobs
from render.analysis_chart import WORDS as CHART_WORDS
from render.analysis_chart import ChartWords
from render.analysis_report import CARD_WORDS, CardWords
from render.common import BOARD_WORDS, BoardWords, Scene
from render.tournament import BracketMatch

if TYPE_CHECKING:
    from bot.service import MatchView

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["Renderer", "black_seat", "board_job"]


class Renderer:
    """Draws boards and the analysis report's pictures in ``pool``'s worker process (or a
    thread). A worker that had drawn boards and then died (say, killed for its memory) is
    replaced on the next board; one that never started (e.g. ``spawn`` can't re-import
    ``__main__``) won't start next time either, so boards go to threads for good."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        self.use_threads = False  # set once no worker could start: no new try on every board

    async def warm_up(self) -> None:
        """Start the worker and its imports now, so the first board is not the slow one."""
        if self.use_threads:
            return
        try:
            await self.pool.run(jobs.ready, retry=False)
        except (WorkerUnavailableError, WorkerCrashedError) as exc:
            self._failed(exc, worked=False)

    async def board(
        self, game: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[bytes, str]:
        """(PNG, alt text) of one board, drawn by the worker process (or a thread)."""
        return await self._draw(jobs.board, game, args, kwargs)

    async def chart(
        self,
        decisions: Sequence[Decision],
        names: tuple[str, str],
        match_play: bool,
        words: ChartWords = CHART_WORDS,
    ) -> tuple[bytes, str]:
        """(PNG, alt text) of an analysis' winning-chance chart (its ``words`` in the reader's
        language), drawn as boards are."""
        return await self._draw(jobs.chart, tuple(decisions), names, match_play, words)

    async def mistake(
        self,
        game: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        decision: Decision,
        words: CardWords = CARD_WORDS,
    ) -> tuple[bytes, str]:
        """(PNG, alt text) of a mistake's card: the board (``board``'s arguments) with the moves
        and its caption (in ``words``)."""
        return await self._draw(jobs.mistake, game, args, kwargs, decision, words)

    async def standings(
        self,
        title: str,
        headings: Sequence[str],
        rows: Sequence[Sequence[str]],
        highlight: int | None = None,
        legend: Sequence[str] = (),
    ) -> tuple[bytes, str]:
        """(PNG, alt text) of a tournament's table, every word given (``legend``: what its
        abbreviations mean, drawn under it)."""
        return await self._draw(
            jobs.standings, title, tuple(headings), tuple(rows), highlight, tuple(legend)
        )

    async def bracket(
        self,
        title: str,
        column_titles: Sequence[str],
        columns: Sequence[Sequence[BracketMatch]],
        bye: str,
        to_come: str,
    ) -> tuple[bytes, str]:
        """(PNG, alt text) of a knockout bracket, every word given."""
        return await self._draw(jobs.bracket, title, tuple(column_titles), columns, bye, to_come)

    async def _draw(self, job: Callable[..., T], *args: Any) -> T:
        if not self.use_threads:
            worked = self.pool.worked
            try:
                return await self.pool.run(job, *args, retry=False)
            except (WorkerUnavailableError, WorkerCrashedError) as exc:
                log.warning("the render worker failed (%s): drawing this one in a thread", exc)
                self._failed(exc, worked=worked)
        return await asyncio.to_thread(job, *args)

    def _failed(self, exc: Exception, *, worked: bool) -> None:
        """After a failure: threads for good unless the worker had drawn boards before."""
        if not worked:
            log.warning(
                "the render worker could not start (%s): rendering in threads from now on", exc
            )
            self.use_threads = True


def black_seat(view: MatchView) -> int:
    """The seat playing Black in the current checkers game."""
    return 0 if view.colours[0] == "black" else 1


def board_job(
    view: MatchView, words: BoardWords = BOARD_WORDS
) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """What render/ needs to draw this view's board: the game and the arguments its
    ``board_png`` and ``describe`` take (plain, picklable values, for the render worker); every
    transport draws from it (the Discord presenter its PNG, the terminal its text board).
    ``words``: the panels' labels in the reader's language."""
    scene = Scene(
        names=(view.players[0].name, view.players[1].name),
        score=view.score,
        match_length=view.length,
        crawford=view.crawford,
        game_number=view.game_number,
        words=words,
        finished=view.match_over or view.phase is Phase.MATCH_OVER,
        # A member playing the robot sees the board in their own numbering all match long,
        # the robot's double included (issue 33); between members it follows who acts.
        viewer=None if view.robot_seat is None else 1 - view.robot_seat,
    )
    last = (view.last_move.seat, view.last_move.move) if view.last_move else None
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = {"last_move": last}
    if not spec_of(view.kind).has_dice:
        # render.checkers takes the seat playing Black (colours alternate each game).
        args = (view.position, black_seat(view), scene)
        kwargs["draw_offered_by"] = view.draw_offered_by
    else:
        args = (view.position, view.turn, scene)
        kwargs["dice"] = view.dice
        kwargs["cube"] = Cube(view.cube_value, view.cube_owner) if view.rules.cube else None
        kwargs["cube_offered_by"] = view.cube_offered_by
    return view.kind.value, args, kwargs
