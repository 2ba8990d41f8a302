"""MatchService: the service's one face, and its one entry point, :meth:`MatchService.handle`.

The API another transport uses (the Discord adapter is one)::

    service = MatchService(store)                    # or await MatchService.open(path)
    service.bus.subscribe(MatchUpdated, show)        # events out (bot.service.bus)
    update = await service.handle(RollDice(match_id, guild_id, user_id, expected_version=v))
    view = await service.handle(ShowBoard(match_id, guild_id))   # a read-only command

Every command (:mod:`~bot.service.commands`) has its handler in one table, :data:`HANDLERS`:
match actions (their engine action decided in :mod:`~bot.service.handlers`, applied by the
pipeline in :mod:`~bot.service.actions`), challenges (:mod:`~bot.service.challenges`),
settings, shouts, analysis requests, reads. A handler answers and returns its events; once its
command is committed, ``handle`` publishes them on :attr:`MatchService.bus` and answers. The
subscribers, registered at start-up, react: the Discord presenter, the robot's driver
(:mod:`bot.robot.driver`), the analysis queue (here). The other reads are query methods
(:mod:`~bot.service.queries`: views, leaderboards, history, stats, exports, verification).

It takes plain ids and strings, applies engine actions under one lock per match plus an
optimistic ``version`` check, commits every change to the store before answering, and returns
frozen dataclasses (:mod:`~bot.service.model`); an action's update lists what happened as events
(:mod:`~bot.service.events`), and every refusal is a :class:`~bot.service.errors.Refused` with
its code and parameters. It writes no sentences.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from bot.service import actions, challenges, queries
from bot.service.analysis import AnalysisQueue, AnalysisRunner, RequestAnalysis
from bot.service.bus import EventBus, Outcome
from bot.service.commands import (
    AcceptChallenge,
    CancelChallenge,
    Command,
    DeclineChallenge,
    MatchCommand,
    NewChallenge,
    RecordShout,
    Rematch,
    RobotMatch,
    RobotRematch,
    ShowBoard,
    UpdateSettings,
)
from bot.service.events import MatchUpdated, robot_follow_up, update_events
from bot.service.handlers import MATCH_ACTIONS, Decide
from bot.service.model import (
    AnalysisView,
    Challenge,
    DiceFactory,
    ExportFile,
    HintRequest,
    HistoryEntry,
    IdleMatch,
    LeaderboardRow,
    MatchUpdate,
    MatchView,
    RobotTurn,
    StatLine,
    VerifyReport,
)
from bot.service.settings import GuildSettings
from bot.service.state import ServiceState
from bot.storage import GuildShards, Store, connect_store
from engines.base import GameKind
from engines.dice import FairDice

log = logging.getLogger(__name__)

__all__ = ["HANDLERS", "Handler", "MatchService"]

R = TypeVar("R")


class MatchService:
    """Commands through :meth:`handle`, events on :attr:`bus`, queries. Create with a
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
        await self.analyses.stop()
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

    # --- conveniences for scripts and tests: each builds its command and handles it ----------

    async def challenge(self, *args: Any, **kwargs: Any) -> Challenge:
        return await self.handle(NewChallenge(*args, **kwargs))

    async def accept(
        self, challenge_id: int, guild_id: int, user_id: int, user_name: str
    ) -> MatchUpdate:
        return await self.handle(AcceptChallenge(challenge_id, guild_id, user_id, user_name))

    async def decline(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        return await self.handle(DeclineChallenge(challenge_id, guild_id, user_id))

    async def cancel(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        return await self.handle(CancelChallenge(challenge_id, guild_id, user_id))

    async def rematch(self, match_id: int, guild_id: int, user_id: int) -> Challenge:
        return await self.handle(Rematch(match_id, guild_id, user_id))

    async def robot_match(self, *args: Any, **kwargs: Any) -> MatchUpdate:
        return await self.handle(RobotMatch(*args, **kwargs))

    async def robot_rematch(self, match_id: int, guild_id: int, user_id: int) -> MatchUpdate:
        return await self.handle(RobotRematch(match_id, guild_id, user_id))

    async def update_guild_settings(self, guild_id: int, /, **changes: Any) -> GuildSettings:
        return await self.handle(UpdateSettings(guild_id, changes))

    async def record_shout(
        self, match_id: int, guild_id: int, user_id: int, game_number: int | None = None
    ) -> bool:
        return await self.handle(RecordShout(match_id, guild_id, user_id, game_number))

    async def request_analysis(self, command: RequestAnalysis) -> AnalysisView:
        return await self.handle(command)

    # --- challenges (reads and the adapter's bookkeeping) ------------------------------------

    async def get_challenge(self, challenge_id: int, guild_id: int) -> Challenge:
        """The challenge as it stands (expired once past its time, even before the sweep)."""
        return await challenges.get_challenge(self._state, challenge_id, guild_id)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await challenges.set_challenge_message(self._state, challenge_id, message_id)

    async def expire_challenges(
        self, now: float | None = None, guilds: GuildShards | None = None
    ) -> list[Challenge]:
        """Mark open challenges past their expiry (in ``guilds``; None: everywhere) as expired
        and return them (each once, even to several processes at once, with its
        ``channel_id`` and ``message_id``, so the caller can close its invitation)."""
        return await challenges.expire_challenges(self._state, now, guilds)

    # --- the robot --------------------------------------------------------------------------

    async def robot_turn(self, match_id: int) -> RobotTurn | None:
        """What the robot has to decide in the match now (a private copy of the match, its
        seat, level and the version to act on), or None when it has nothing to decide."""
        return await queries.robot_turn(self._state, match_id)

    async def hint_request(self, match_id: int, guild_id: int, user_id: int) -> HintRequest:
        """Allow a hint for the player (always against the robot; between people where the
        server's ``hints_in_human_matches`` is on) and say on what; the robot computes it."""
        return await queries.hint_request(self._state, match_id, guild_id, user_id)

    # --- queries ----------------------------------------------------------------------------

    async def get_view(self, match_id: int, guild_id: int | None = None) -> MatchView:
        """The current view; with ``guild_id``, refuse a match of another server."""
        return await queries.get_view(self._state, match_id, guild_id)

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchView]:
        return await queries.active_matches(self._state, guild_id, user_id)

    async def match_in_thread(self, thread_id: int) -> MatchView | None:
        return await queries.match_in_thread(self._state, thread_id)

    async def candidate_matches(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> list[MatchView]:
        """The user's active matches in this channel or thread (the bot acts when exactly one)."""
        return await queries.candidate_matches(self._state, guild_id, channel_id, user_id)

    async def legal_moves(
        self,
        match_id: int,
        guild_id: int,
        user_id: int,
        prefix: str = "",
        limit: int | None = None,
    ) -> list[str]:
        """Autocomplete: legal moves of the user on turn that match ``prefix`` (starting with it
        first, then containing it), at most ``limit`` (None: all); else empty."""
        return await queries.legal_moves(self._state, match_id, guild_id, user_id, prefix, limit)

    async def leaderboard(
        self,
        guild_id: int,
        game: GameKind | str,
        match_length: int | None = None,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        """Players by rating; with ``match_length``, W-L and points of matches of that length."""
        return await queries.leaderboard(self._state, guild_id, game, match_length, limit)

    async def history(self, guild_id: int, user_id: int, limit: int = 20) -> list[HistoryEntry]:
        return await queries.history(self._state, guild_id, user_id, limit)

    async def stats(self, guild_id: int, user_id: int, game: GameKind | str) -> StatLine:
        return await queries.stats(self._state, guild_id, user_id, game)

    async def export(self, match_id: int, guild_id: int) -> ExportFile:
        """``.mat`` for Nannon/backgammon, ``.pdn`` for checkers, rebuilt from the event log."""
        return await queries.export(self._state, match_id, guild_id)

    async def verify_match(self, match_id: int, guild_id: int) -> VerifyReport:
        return await queries.verify_match(self._state, match_id, guild_id)

    async def idle_matches(
        self, now: float | None = None, guilds: GuildShards | None = None
    ) -> list[IdleMatch]:
        """Active matches (in ``guilds``; None: everywhere) whose actor is idle past the
        reminder (not yet sent) or claim time."""
        return await queries.idle_matches(self._state, now, guilds)

    # --- settings and bookkeeping -----------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._state.guild_settings(guild_id)

    async def mark_reminded(self, match_id: int, version: int) -> bool:
        """Claim the reminder for this version before sending it, so it is sent once: True
        for the one caller (of every process) that may send it; False when it was claimed
        already or the match has moved on."""
        won = await self.store.claim_reminder(match_id, version)
        live = self._state.loaded(match_id)
        if live is not None and live.record.version == version:
            live.record.reminded_version = version
        return won

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        await self.store.update_match(match_id, thread_id=thread_id)
        live = self._state.loaded(match_id)
        if live is not None:
            live.record.thread_id = thread_id

    async def set_board_message(self, match_id: int, message_id: int | None) -> None:
        await self.store.update_match(match_id, board_message_id=message_id)
        live = self._state.loaded(match_id)
        if live is not None:
            live.record.board_message_id = message_id

    async def resume_active(self, guilds: GuildShards | None = None) -> list[MatchView]:
        """Load every active match (in ``guilds``; None: everywhere) at start-up; returns
        their views."""
        views = []
        for row in await self.store.active_match_rows(guilds):
            try:
                views.append(await self.get_view(row["id"]))
            except Exception:
                log.exception("match %d could not be resumed", row["id"])
        log.info("resumed %d active matches", len(views))
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


async def show_board(svc: MatchService, command: ShowBoard) -> Outcome[MatchView]:
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
    UpdateSettings: answered(
        lambda svc, c: svc._state.settings.update(c.guild_id, dict(c.changes))
    ),
    RecordShout: answered(lambda svc, c: queries.record_shout(svc._state, **fields_of(c))),
    RequestAnalysis: answered(lambda svc, c: svc.analyses.request(c)),
    ShowBoard: show_board,
}
"""Every command's handler: ``await handler(service, command)`` is an :class:`Outcome`."""
