"""MatchService: the service's one face, and its one entry point, :meth:`MatchService.handle`.

The API another transport uses (the Discord adapter is one)::

    service = MatchService(store)                    # or await MatchService.open(path)
    service.bus.subscribe(MatchUpdated, show)        # events out (bot.service.bus)
    update = await service.handle(RollDice(match_id, guild_id, user_id, expected_version=v))
    view = await service.handle(ShowBoardAndWakeRobot(match_id, guild_id))   # a read-only command

Every command (:mod:`~bot.service.commands`) has its handler in one table, :data:`HANDLERS`:
match actions (their engine action decided in :mod:`~bot.service.handlers`, applied by the
pipeline in :mod:`~bot.service.actions`), challenges (:mod:`~bot.service.challenges`),
settings, shouts, analysis requests, reads. A handler answers and returns its events; once its
command is committed, ``handle`` publishes them on :attr:`MatchService.bus` and answers. The
subscribers, registered at start-up, react: the Discord presenter, the robot's driver
(:mod:`bot.robot.driver`), the analysis queue (here). Reads are read-only commands too
(``ViewMatch``, ``Leaderboard``, ``History``, ``Stats``, ``Export``, ``VerifyMatch``, ...), their
answers computed in :mod:`~bot.service.queries`.

It takes plain ids and strings, applies engine actions under one lock per match plus an
optimistic ``version`` check, commits every change to the store before answering, and returns
frozen dataclasses (:mod:`~bot.service.model`); an action's update lists what happened as events
(:mod:`~bot.service.events`), and every refusal is a :class:`~bot.service.errors.Refused` with
its code and parameters. It writes no sentences.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from bot.service import actions, challenges, puzzles, queries
from bot.service.analysis import (
    AnalysisQueue,
    AnalysisRunner,
    GetAnalysis,
    RequestAnalysis,
    SetAnalysisMessage,
    ViewsAfterActions,
)
from bot.service.bus import EventBus, Outcome
from bot.service.commands import (
    AcceptChallenge,
    ActiveMatches,
    AnswerPuzzle,
    AskHint,
    CancelChallenge,
    CandidateMatches,
    ChooseLanguage,
    ClaimReminder,
    Command,
    DeclineChallenge,
    Export,
    GetChallenge,
    GetRobotTurn,
    GetSettings,
    History,
    IdleMatches,
    Leaderboard,
    LeaderboardPlace,
    LegalMoves,
    MatchCommand,
    MatchInThread,
    MemberLanguage,
    NewChallenge,
    NextPuzzle,
    PostDailyPuzzle,
    PuzzleLeaderboard,
    PuzzlePlace,
    PuzzleStats,
    RecordShout,
    Rematch,
    RobotMatch,
    RobotRematch,
    SetBoardMessage,
    SetChallengeMessage,
    SetPuzzleMessage,
    SetPuzzleOptOut,
    SetThread,
    ShowBoardAndWakeRobot,
    ShowPuzzle,
    Stats,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from bot.service.events import MatchUpdated, robot_follow_up, update_events
from bot.service.handlers import MATCH_ACTIONS, Decide
from bot.service.idle import IdleDeadlines
from bot.service.model import DiceFactory, MatchUpdate, MatchView
from bot.service.puzzle_seeding import PuzzleSeeder, SelfPlay
from bot.service.settings import GuildSettings
from bot.service.state import ServiceState
from bot.service.timers import Handlers, TimerRunner
from bot.service.tournament_model import (
    AdjudicateMatch,
    AdvanceTournament,
    CreateTournament,
    DueTournaments,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    OverdueRounds,
    SetTournamentMessage,
    ShowTournament,
    StartTournament,
    TournamentView,
    WithdrawFromTournament,
)
from bot.service.tournaments import Tournaments
from bot.storage import GuildShards, Store, connect_store
from engines.dice import FairDice

log = logging.getLogger(__name__)

__all__ = ["HANDLERS", "Handler", "MatchService"]

R = TypeVar("R")


class MatchService:
    """Commands through :meth:`handle`, events on :attr:`bus`. Create with a
    :class:`Store`, or ``await MatchService.open``.

    ``dice_factory`` makes a new match's dice (tests inject a fixed seed); ``clock`` returns the
    current time in seconds; ``analysis_runner`` analyses finished matches (None: /analyse is
    refused).
    """

    def __init__(
        self,
        store: Store,
        *,
        dice_factory: DiceFactory = FairDice.new,
        clock: Callable[[], float] = time.time,
        analysis_runner: AnalysisRunner | None = None,
    ) -> None:
        self._state = ServiceState(store, dice_factory, clock)
        self.analyses = AnalysisQueue(self._state, analysis_runner)
        self.bus.subscribe(MatchUpdated, self._queue_analysis)
        self.tournaments = Tournaments(self.handle, self._state)
        self.bus.subscribe(MatchUpdated, self.tournaments.match_updated)
        keys = analysis_runner if isinstance(analysis_runner, puzzles.PuzzleKeys) else None
        self.puzzles = puzzles.PuzzleMiner(self._state, keys, self.analyses.view)
        self.analyses.listeners.append(self.puzzles.analysis_told)
        runner = analysis_runner if isinstance(analysis_runner, SelfPlay) else None
        self.seeder = PuzzleSeeder(self._state, runner)
        # The one scheduler (issue 34): each capability registers its deadlines' handlers.
        deadlines = Handlers()
        deadlines.register(challenges.EXPIRY, partial(challenges.expiry_due, self._state))
        self.timers = TimerRunner(store, deadlines, bus=self.bus, clock=clock)
        self._timer_task: asyncio.Task[None] | None = None
        self.idle = IdleDeadlines(self._state, self.timers, self.handle)
        self.idle.register(deadlines)
        self.daily = puzzles.DailyDeadlines(self._state, self.timers, self.seeder.seed)
        self.daily.register(deadlines)
        self.bus.subscribe(MatchUpdated, self.idle.match_updated)

    def start_timers(self) -> None:
        """Run the scheduler (:attr:`timers`) in a task of its own until :meth:`close`: every
        stored deadline fires once, to the second, deadlines stored before a restart too.
        Tests leave it stopped and fire what is due with ``timers.run_due(now)``."""
        if self._timer_task is None:
            self._timer_task = asyncio.get_running_loop().create_task(
                self._run_timers(), name="tablebot-timers"
            )

    async def _run_timers(self) -> None:
        try:  # the deadlines that are not a match's, armed again for databases from before
            await self.daily.arm_all()
        except Exception:
            log.exception("could not arm the daily puzzles")
        await self.timers.run()

    async def _stop_timers(self) -> None:
        task, self._timer_task = self._timer_task, None
        if task is not None:
            self.timers.stop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _queue_analysis(self, event: MatchUpdated) -> None:
        """A finished match's analysis is queued (where the server asks for it)."""
        if event.update.match_over:
            await self.analyses.match_ended(event.update.view)

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        dice_factory: DiceFactory = FairDice.new,
        clock: Callable[[], float] = time.time,
        analysis_runner: AnalysisRunner | None = None,
    ) -> MatchService:
        """Open (and migrate) the database at ``path`` and return a service on it."""
        store = await connect_store(path)
        return cls(store, dice_factory=dice_factory, clock=clock, analysis_runner=analysis_runner)

    async def close(self) -> None:
        await self._stop_timers()
        await self.analyses.stop()
        await self.puzzles.stop()
        await self.seeder.stop()
        self._state.close()
        await self.store.close()

    @property
    def store(self) -> Store:
        return self._state.store

    @property
    def clock(self) -> Callable[[], float]:
        """The clock the service was given (seconds)."""
        return self._state.clock

    @property
    def bus(self) -> EventBus:
        """Where committed commands' events are published (subscribe at start-up)."""
        return self._state.bus

    # --- the one entry point ----------------------------------------------------------------

    async def handle(self, command: Command[R]) -> R:
        """Do what ``command`` asks (:mod:`bot.service.commands`), through its handler in
        :data:`HANDLERS`: check it, commit what it changes, publish its events on
        :attr:`bus` (a subscriber's failure is logged, the command stands), answer. A match
        action with ``expected_version`` (the one the clicked board showed) on any other
        version raises StaleActionError."""
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"no handler for {type(command).__name__}")
        outcome = await handler(self, command)
        if outcome.events or outcome.slot is not None:  # a reserved slot is always filled
            key = getattr(outcome.result, "match_id", None)
            await self.bus.publish(outcome.events, key=key, slot=outcome.slot)
        return cast(R, outcome.result)

    # --- tournaments: start-up ----------------------------------------------------------------

    async def resume_tournaments(self, guilds: GuildShards | None = None) -> list[TournamentView]:
        """Move every running tournament (in ``guilds``) on as far as the store says it can go
        (a restart mid-round: results recorded, missing matches started, the next round
        paired); returns them."""
        views = []
        for view in await self.tournaments.live(guilds):
            if view.status.value == "running":
                views.append(await self.handle(AdvanceTournament(view.id)))
        return views

    async def resume_active(self, guilds: GuildShards | None = None) -> list[MatchView]:
        """Load every active match (in ``guilds``; None: everywhere) at start-up; returns
        their views."""
        views = []
        for row in await self.store.active_match_rows(guilds):
            try:
                views.append(await queries.get_view(self._state, row["id"]))
            except Exception:
                log.exception("match %d could not be resumed", row["id"])
        log.info("resumed %d active matches", len(views))
        await self.idle.arm_all(views)  # their reminders and claims, on the scheduler
        for view in views:  # the robot plays on where it owes a move
            if follow_up := robot_follow_up(view):
                await self.bus.publish(follow_up, key=view.match_id)
        return views


# --- the command table: every command's handler -------------------------------------------------

Handler = Callable[[MatchService, Any], Awaitable[Outcome[Any]]]


def match_action(decider: Callable[[Any], Decide]) -> Handler:
    """A match action's handler: its decide function through the action pipeline."""

    async def handle(svc: MatchService, command: MatchCommand) -> Outcome[MatchUpdate]:
        decide = decider(command)  # checks the command's own arguments first
        return await actions.act(svc._state, command, decide)

    return handle


def answered(work: Callable[[MatchService, Any], Awaitable[Any]]) -> Handler:
    """The handler of a command whose answer is all there is to it (no event)."""

    async def handle(svc: MatchService, command: Any) -> Outcome[Any]:
        return Outcome(await work(svc, command))

    return handle


def fields_of(command: Any) -> dict[str, Any]:
    return {f.name: getattr(command, f.name) for f in dataclasses.fields(command)}


async def started(svc: MatchService, command: Command[MatchUpdate]) -> Outcome[MatchUpdate]:
    """Accepting a challenge (or the robot's at once): the match's first update."""
    state = svc._state
    update: MatchUpdate
    match command:
        case AcceptChallenge(challenge_id, guild_id, user_id, user_name):
            update = await challenges.accept(state, challenge_id, guild_id, user_id, user_name)
        case RobotMatch():
            update = await challenges.robot_match(state, **fields_of(command))
        case RobotRematch(match_id, guild_id, user_id):
            update = await challenges.robot_rematch(state, match_id, guild_id, user_id)
        case _:
            raise TypeError(f"not a match start: {command!r}")
    return Outcome(update, update_events(command, update))


def read(query: Callable[..., Awaitable[Any]]) -> Handler:
    """The handler of a read-only command: ``query`` (of :mod:`~bot.service.queries`) called
    with the service's state and the command's fields."""
    return answered(lambda svc, c: query(svc._state, **fields_of(c)))


async def update_settings(svc: MatchService, command: UpdateSettings) -> GuildSettings:
    """Save the server's settings; new reminder or claim times re-arm its matches' deadlines,
    a new daily puzzle channel or time its daily deadline."""
    before = await svc._state.guild_settings(command.guild_id)
    after = await svc._state.settings.update(command.guild_id, dict(command.changes))
    times = ("reminder_minutes", "claim_minutes")
    if any(getattr(before, name) != getattr(after, name) for name in times):
        await svc.idle.arm_guild(command.guild_id)
    daily = ("puzzles_channel", "puzzles_time")
    if any(getattr(before, name) != getattr(after, name) for name in daily):
        await svc.daily.arm(command.guild_id)
    return after


async def claim_reminder(svc: MatchService, command: ClaimReminder) -> bool:
    won = await svc.store.claim_reminder(command.match_id, command.version)
    live = svc._state.loaded(command.match_id)
    if live is not None and live.record.version == command.version:
        live.record.reminded_version = command.version
    return won


async def set_thread(svc: MatchService, command: SetThread) -> None:
    await svc.store.update_match(command.match_id, thread_id=command.thread_id)
    live = svc._state.loaded(command.match_id)
    if live is not None:
        live.record.thread_id = command.thread_id


async def set_board_message(svc: MatchService, command: SetBoardMessage) -> None:
    await svc.store.update_match(command.match_id, board_message_id=command.message_id)
    live = svc._state.loaded(command.match_id)
    if live is not None:
        live.record.board_message_id = command.message_id


async def due_tournaments(svc: MatchService, command: DueTournaments) -> list[TournamentView]:
    at = svc.clock() if command.now is None else command.now
    return [
        view
        for view in await svc.tournaments.live(command.guilds)
        if view.status.value == "signup" and view.starts_at is not None and view.starts_at <= at
    ]


async def show_board_and_wake_robot(
    svc: MatchService, command: ShowBoardAndWakeRobot
) -> Outcome[MatchView]:
    view = await queries.get_view(svc._state, command.match_id, command.guild_id)
    return Outcome(view, robot_follow_up(view))


HANDLERS: dict[type[Command[Any]], Handler] = {
    **{kind: match_action(decider) for kind, decider in MATCH_ACTIONS.items()},
    AcceptChallenge: started,
    RobotMatch: started,
    RobotRematch: started,
    NewChallenge: answered(lambda svc, c: challenges.new_challenge(svc._state, **fields_of(c))),
    DeclineChallenge: answered(
        lambda svc, c: challenges.decline(svc._state, c.challenge_id, c.guild_id, c.user_id)
    ),
    CancelChallenge: answered(
        lambda svc, c: challenges.cancel(svc._state, c.challenge_id, c.guild_id, c.user_id)
    ),
    Rematch: answered(
        lambda svc, c: challenges.rematch(svc._state, c.match_id, c.guild_id, c.user_id)
    ),
    UpdateSettings: answered(update_settings),
    ChooseLanguage: answered(lambda svc, c: svc._state.languages.choose(c.user_id, c.language)),
    MemberLanguage: answered(lambda svc, c: svc._state.languages.get(c.user_id)),
    RecordShout: answered(lambda svc, c: queries.record_shout(svc._state, **fields_of(c))),
    RequestAnalysis: answered(lambda svc, c: svc.analyses.request(c)),
    GetAnalysis: answered(lambda svc, c: svc.analyses.view(c.match_id, c.guild_id)),
    ViewsAfterActions: answered(
        lambda svc, c: svc.analyses.views_at(c.match_id, c.guild_id, c.action_indexes)
    ),
    SetAnalysisMessage: answered(lambda svc, c: svc.analyses.set_message(c.match_id, c.message_id)),
    ShowBoardAndWakeRobot: show_board_and_wake_robot,
    # read-only
    ViewMatch: read(queries.get_view),
    ActiveMatches: read(queries.active_matches),
    MatchInThread: read(queries.match_in_thread),
    CandidateMatches: read(queries.candidate_matches),
    LegalMoves: read(queries.legal_moves),
    Leaderboard: read(queries.leaderboard),
    LeaderboardPlace: read(queries.leaderboard_place),
    History: read(queries.history),
    Stats: read(queries.stats),
    Export: read(queries.export),
    VerifyMatch: read(queries.verify_match),
    IdleMatches: read(queries.idle_matches),
    GetRobotTurn: read(queries.robot_turn),
    AskHint: read(queries.hint_request),
    GetChallenge: read(challenges.get_challenge),
    GetSettings: answered(lambda svc, c: svc._state.guild_settings(c.guild_id)),
    # the adapter's bookkeeping and the sweeps
    SetChallengeMessage: read(challenges.set_challenge_message),
    SetThread: answered(set_thread),
    SetBoardMessage: answered(set_board_message),
    ClaimReminder: answered(claim_reminder),
    # tournaments
    CreateTournament: lambda svc, c: svc.tournaments.create(c),
    JoinTournament: lambda svc, c: svc.tournaments.join(c),
    LeaveTournament: lambda svc, c: svc.tournaments.leave(c),
    StartTournament: lambda svc, c: svc.tournaments.start(c),
    AdvanceTournament: lambda svc, c: svc.tournaments.advance(c),
    AdjudicateMatch: lambda svc, c: svc.tournaments.adjudicate(c),
    WithdrawFromTournament: lambda svc, c: svc.tournaments.withdraw(c),
    ShowTournament: lambda svc, c: svc.tournaments.show(c),
    ListTournaments: lambda svc, c: svc.tournaments.listing(c),
    NextPuzzle: answered(
        lambda svc, c: puzzles.next_puzzle(
            svc._state, c.guild_id, c.user_id, c.game, c.include_own, svc.seeder.seed
        )
    ),
    AnswerPuzzle: answered(lambda svc, c: puzzles.answer_puzzle(svc._state, **fields_of(c))),
    PuzzleStats: answered(
        lambda svc, c: puzzles.puzzle_standing(svc._state, c.guild_id, c.user_id)
    ),
    PuzzleLeaderboard: answered(
        lambda svc, c: puzzles.puzzle_board(svc._state, c.guild_id, c.limit, c.offset)
    ),
    PuzzlePlace: answered(lambda svc, c: puzzles.puzzle_place(svc._state, c.guild_id, c.user_id)),
    SetPuzzleOptOut: answered(
        lambda svc, c: puzzles.set_opt_out(svc._state, c.guild_id, c.user_id, c.out)
    ),
    ShowPuzzle: answered(lambda svc, c: puzzles.show_puzzle(svc._state, **fields_of(c))),
    PostDailyPuzzle: answered(
        lambda svc, c: puzzles.post_daily(svc._state, c.guild_id, c.now, svc.seeder.seed)
    ),
    SetPuzzleMessage: answered(
        lambda svc, c: puzzles.set_puzzle_message(svc._state, **fields_of(c))
    ),
    DueTournaments: answered(due_tournaments),
    OverdueRounds: answered(
        lambda svc, c: svc.tournaments.overdue(svc.clock() if c.now is None else c.now, c.guilds)
    ),
    SetTournamentMessage: answered(
        lambda svc, c: svc.store.set_tournament_message(c.tournament_id, c.message_id)
    ),
}
"""Every command's handler: ``await handler(service, command)`` is an :class:`Outcome`."""
