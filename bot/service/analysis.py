"""Post-match analysis: the request (:class:`RequestAnalysis`), the runner the service is given
(:class:`AnalysisRunner`), and :class:`AnalysisQueue`, which runs one analysis at a time, stores
its state, progress and result (the ``analyses`` table, so a restart picks up what was queued or
running) and tells its listeners (:mod:`bot.service.events`' analysis events).

The runner's work is not the service's: it runs elsewhere (the analysis worker process), one
game per call, so robot moves interleave with a long analysis and progress is told between
games. The service imports no robot; the app passes the runner in.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol

from bot.service.commands import Command
from bot.service.errors import Refusal, refused
from bot.service.events import (
    AnalysisEvent,
    AnalysisFailed,
    AnalysisFinished,
    AnalysisProgressed,
    AnalysisQueued,
)
from bot.service.model import AnalysisStatus, AnalysisView, MatchStatus, MatchView
from bot.service.replay import logged, views_at
from bot.service.state import MatchRecord, ServiceState, storable
from bot.storage import GuildShards, Row
from bot.storage.types import dumps
from engines.actions import Action, action_from_dict
from engines.analysis import Decision, DecisionKind, MatchAnalysis, PlayerFigures, summarise
from engines.base import GameKind, MatchRules
from engines.spec import spec_of

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_PLY",
    "AnalysisListener",
    "AnalysisQueue",
    "AnalysisRunner",
    "GetAnalysis",
    "RequestAnalysis",
    "SetAnalysisMessage",
    "ViewsAfterActions",
    "analysis_from_json",
    "analysis_to_json",
]

DEFAULT_PLY = 2
"""The analysis' depth when none is asked: backgammon, gnubg's plies (2 is gnubg's own default
for analysis, about 13 s for a 7-point match); Nannon is exact, checkers at a fixed depth."""


@dataclass(frozen=True)
class RequestAnalysis(Command[AnalysisView]):
    """Analyse a finished match (``user_id`` None: the match's end asked for it)."""

    match_id: int
    guild_id: int
    user_id: int | None
    ply: int = DEFAULT_PLY


@dataclass(frozen=True)
class GetAnalysis(Command[AnalysisView]):
    """Read-only: the match's analysis as it stands; NO_SUCH_MATCH when it has none (or, with
    ``guild_id``, is another server's)."""

    match_id: int
    guild_id: int | None = None


@dataclass(frozen=True)
class ViewsAfterActions(Command[list[MatchView]]):
    """Read-only: the match as it stood after each of ``action_indexes`` of its actions (the
    worst mistakes' boards, a mined puzzle's), in that order, each true to its moment
    (:mod:`bot.service.replay`: active until the end, no dice seed before it)."""

    match_id: int
    guild_id: int
    action_indexes: Sequence[int]


@dataclass(frozen=True)
class SetAnalysisMessage(Command[None]):
    """Bookkeeping: the message that shows the analysis (its progress, then its report)."""

    match_id: int
    message_id: int | None


class AnalysisRunner(Protocol):
    """What the queue needs to analyse: whether a game is analysed here, how many games a
    match has, and one game's decisions (run off the event loop: the analysis worker)."""

    async def available(self, kind: GameKind) -> bool: ...

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        """How a game of ``kind`` is analysed (the evaluator, its ply), kept with the result."""
        ...

    async def count_games(
        self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]
    ) -> int: ...

    async def game_decisions(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]: ...


AnalysisListener = Callable[[AnalysisEvent], Awaitable[None]]


def analysis_to_json(analysis: MatchAnalysis) -> str:
    return dumps(asdict(analysis))


def analysis_from_json(text: str) -> MatchAnalysis:
    data = json.loads(text)
    players = tuple(PlayerFigures(**p) for p in data["players"])
    decisions = tuple(
        Decision(**{**d, "kind": DecisionKind(d["kind"]), "dice": tuple(d["dice"])})
        for d in data["decisions"]
    )
    return MatchAnalysis((players[0], players[1]), decisions, data["games"], data["details"])


class AnalysisQueue:
    """Analyses, one at a time, in the order asked. ``start(guilds)`` queues again what the
    database holds as queued or running (a restart) and starts its task; ``stop()`` stops it
    (an analysis cut short stays ``running`` in the database and runs again at the next start).
    Listeners hear every step; one that fails is logged, never stops the analysis."""

    def __init__(self, state: ServiceState, runner: AnalysisRunner | None) -> None:
        self._state = state
        self.runner = runner
        self.listeners: list[AnalysisListener] = []
        self._waiting: list[int] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None  # takes the analyses in turn
        self._telling: set[asyncio.Task[None]] = set()
        self.current: int | None = None  # the match being analysed

    # --- requests -----------------------------------------------------------------------------

    async def request(self, command: RequestAnalysis) -> AnalysisView:
        """Queue the analysis of a finished match of this guild; refused when the match is
        unknown or still on, when it is queued, running or done already (its params say where
        its message is), or when this bot has no analysis runner or can't analyse the game here
        (backgammon where gnubg doesn't run)."""
        record = await self._record(command.match_id, command.guild_id)
        if record.status is not MatchStatus.FINISHED:
            raise refused(Refusal.MATCH_NOT_FINISHED, match_id=record.id)
        if self.runner is None or not await self.runner.available(record.game):
            raise refused(Refusal.ANALYSIS_UNAVAILABLE, game=record.game.value)
        state = self._state
        if not await state.store.queue_analysis(
            record.id, command.ply, command.user_id, state.now()
        ):
            row = await state.store.analysis_row(record.id)
            assert row is not None
            where = {
                "channel_id": record.thread_id or record.channel_id,
                "guild_id": record.guild_id,
            }
            if row["status"] == AnalysisStatus.DONE:
                raise refused(
                    Refusal.ANALYSIS_DONE,
                    match_id=record.id,
                    message_id=row["message_id"],
                    **where,
                )
            raise refused(
                Refusal.ANALYSIS_PENDING,
                match_id=record.id,
                status=row["status"],
                message_id=row["message_id"],
                **where,
            )
        ahead = len(self._waiting) + (self.current is not None)
        view = await self.view(record.id)
        # Told in a task of its own: the caller (a command, a match's last action) doesn't
        # wait for Discord. It starts before the queue's task can pick the analysis up.
        told = asyncio.get_running_loop().create_task(self._tell(AnalysisQueued(view, ahead)))
        self._telling.add(told)
        told.add_done_callback(self._telling.discard)
        self._enqueue(record.id)
        return view

    def position(self, match_id: int) -> int:
        """How many analyses run before this queued one (0 when it is next or running)."""
        ahead = self._waiting.index(match_id) if match_id in self._waiting else 0
        return ahead + (self.current is not None and self.current != match_id)

    async def match_ended(self, view: MatchView) -> AnalysisView | None:
        """Queue a match that just ended when the server analyses such matches (robot matches
        by default, matches between people when asked) and the game can be analysed here; None
        otherwise."""
        if self.runner is None or not await self.runner.available(view.kind):
            return None
        settings = await self._state.guild_settings(view.guild_id)
        wanted = (
            settings.analyse_robot_matches
            if view.robot_seat is not None
            else settings.analyse_human_matches
        )
        if not wanted:
            return None
        try:
            return await self.request(RequestAnalysis(view.match_id, view.guild_id, None))
        except Exception:
            log.exception("match %s: the automatic analysis could not be queued", view.match_id)
            return None

    async def view(self, match_id: int, guild_id: int | None = None) -> AnalysisView:
        """The match's analysis as it stands; NO_SUCH_MATCH when it has none (or is another
        guild's)."""
        record = await self._record(match_id, guild_id)
        row = await self._state.store.analysis_row(record.id)
        if row is None:
            raise refused(Refusal.NO_SUCH_MATCH, match_id=match_id)
        return _view(record, row)

    async def set_message(self, match_id: int, message_id: int | None) -> None:
        """Record the message that shows the analysis (its progress, then its report)."""
        await self._state.store.update_analysis(match_id, message_id=message_id)

    async def views_at(
        self, match_id: int, guild_id: int, action_indexes: Sequence[int]
    ) -> list[MatchView]:
        """The match as it stood after each of ``action_indexes`` of its actions (the worst
        mistakes' boards), in that order. One replay, in a thread: a long match's replay takes
        tens of milliseconds, which the event loop shouldn't spend in one go."""
        record = await self._record(match_id, guild_id)
        history = logged(await self._state.store.events(record.id))
        return await asyncio.to_thread(views_at, record, history, action_indexes)

    # --- the queue's task -----------------------------------------------------------------------

    async def start(self, guilds: GuildShards | None = None) -> int:
        """Queue again the analyses left queued or running (in ``guilds``), start the task;
        how many were queued again."""
        rows = await self._state.store.pending_analyses(guilds)
        for row in rows:
            self._enqueue(row["match_id"])
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="tablebot-analysis"
            )
        return len(rows)

    async def stop(self) -> None:
        task, self._task = self._task, None
        tasks = [*self._telling, *([task] if task is not None else [])]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        self._waiting.clear()
        self.current = None
        self._idle.set()

    async def wait_idle(self) -> None:
        """Until nothing is queued or running (what a benchmark or a test waits on)."""
        await self._idle.wait()

    def _enqueue(self, match_id: int) -> None:
        if match_id != self.current and match_id not in self._waiting:
            self._waiting.append(match_id)
            self._idle.clear()
            self._wake.set()

    async def _run(self) -> None:
        while True:
            if not self._waiting:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            match_id = self._waiting.pop(0)
            self.current = match_id
            try:
                await self._analyse(match_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("match %s: the analysis queue failed", match_id)
            finally:
                self.current = None

    async def _analyse(self, match_id: int) -> None:
        state = self._state
        store = state.store
        row = await store.analysis_row(match_id)
        if row is None or row["status"] not in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING):
            return
        record = await self._record(match_id, None)
        runner = self.runner
        assert runner is not None
        ply = int(row["ply"])
        try:
            actions = await self._actions(match_id)
            names = (record.players[0].name, record.players[1].name)
            total = await runner.count_games(record.game, record.rules, actions)
            await store.update_analysis(
                match_id, status="running", games_total=total, games_done=0, started_at=state.now()
            )
            await self._tell(AnalysisProgressed(await self.view(match_id)))
            decisions: list[Decision] = []
            for game in range(1, total + 1):
                decisions += await runner.game_decisions(
                    record.game, record.rules, actions, names, game, ply
                )
                await store.update_analysis(match_id, games_done=game)
                if game < total:
                    await self._tell(AnalysisProgressed(await self.view(match_id)))
            pr_scale = spec_of(record.game).analysis_pr
            details = runner.details(record.game, ply)
            analysis = summarise(decisions, names, pr_scale=pr_scale, details=details)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("match %s: the analysis failed", match_id)
            await store.update_analysis(
                match_id, status="failed", error=repr(exc)[:500], finished_at=state.now()
            )
            await self._tell(AnalysisFailed(await self.view(match_id)))
            return
        players = analysis.players
        await store.update_analysis(
            match_id,
            status="done",
            result=analysis_to_json(analysis),
            error_rate0=players[0].error_rate,
            error_rate1=players[1].error_rate,
            pr0=players[0].pr,
            pr1=players[1].pr,
            finished_at=state.now(),
        )
        await self._tell(AnalysisFinished(await self.view(match_id)))

    # --- helpers ------------------------------------------------------------------------------

    async def _tell(self, event: AnalysisEvent) -> None:
        for listener in tuple(self.listeners):
            try:
                await listener(event)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("an analysis listener failed on match %s", event.analysis.match_id)

    async def _record(self, match_id: int, guild_id: int | None) -> MatchRecord:
        store = self._state.store
        row = await store.match_row(match_id) if storable(match_id) else None
        if row is None or (guild_id is not None and row["guild_id"] != guild_id):
            raise refused(Refusal.NO_SUCH_MATCH, match_id=match_id)
        return MatchRecord.from_row(row, 0)

    async def _actions(self, match_id: int) -> list[Action]:
        return [action_from_dict(e.payload) for e in await self._state.store.events(match_id)]


def _view(record: MatchRecord, row: Row) -> AnalysisView:
    result = row["result"]
    return AnalysisView(
        match_id=record.id,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        thread_id=record.thread_id,
        kind=record.game,
        length=record.rules.length,
        players=record.players,
        status=AnalysisStatus(row["status"]),
        ply=int(row["ply"]),
        requester_id=row["requester_id"],
        games_done=int(row["games_done"]),
        games_total=row["games_total"],
        message_id=row["message_id"],
        analysis=analysis_from_json(result) if result else None,
        error=row["error"],
    )
