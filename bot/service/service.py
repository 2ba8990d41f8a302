"""MatchService: the service's one face. It composes the parts around one shared
:class:`~bot.service.state.ServiceState` (the store, the dice factory, the clock, the loaded
matches and the settings cache):

- :mod:`~bot.service.challenges`: challenges, accepting (the match starts), rematches;
- :mod:`~bot.service.actions`: :meth:`MatchService.act`, the one entry point for match actions,
  with its command table in :mod:`~bot.service.handlers`;
- :mod:`~bot.service.queries`: views, leaderboards, history, stats, exports, verification;
- :mod:`~bot.service.settings`: per-server settings.

It takes plain ids and strings, applies engine actions under one lock per match plus an
optimistic ``version`` check, commits every change to the store before answering, and returns
frozen dataclasses (:mod:`~bot.service.model`); an action's update lists what happened as events
(:mod:`~bot.service.events`), and every refusal is a :class:`~bot.service.errors.Refused` with
its code and parameters. It writes no sentences.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.service import actions, challenges, queries
from bot.service.analysis import AnalysisQueue, AnalysisRunner, RequestAnalysis
from bot.service.commands import MatchCommand
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

__all__ = ["MatchService"]


class MatchService:
    """Challenges, actions, queries. Create with a :class:`Store`, or ``await MatchService.open``.

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

    # --- challenges -------------------------------------------------------------------------

    async def challenge(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        challenger_name: str,
        game: GameKind | str,
        *,
        opponent_id: int | None = None,
        opponent_name: str | None = None,
        opponent_is_bot: bool = False,
        length: int | None = None,
        cube: bool | None = None,
        crawford: bool | None = None,
        jacoby: bool | None = None,
        auto_doubles: int | None = None,
    ) -> Challenge:
        """Record a challenge, named (``opponent_id``) or open to anyone.

        Options left None take the server's defaults. Refuses self-challenges, bots, bad lengths
        (1..25; 0 = money, backgammon only), Jacoby/auto-doubles outside money play, and
        channels outside the server's challenge channels.
        """
        return await challenges.new_challenge(
            self._state,
            guild_id,
            channel_id,
            challenger_id,
            challenger_name,
            game,
            opponent_id=opponent_id,
            opponent_name=opponent_name,
            opponent_is_bot=opponent_is_bot,
            length=length,
            cube=cube,
            crawford=crawford,
            jacoby=jacoby,
            auto_doubles=auto_doubles,
        )

    async def accept(
        self, challenge_id: int, guild_id: int, user_id: int, user_name: str
    ) -> MatchUpdate:
        """Accept a challenge: create the match (seat 0 = challenger), roll the opening."""
        return await challenges.accept(self._state, challenge_id, guild_id, user_id, user_name)

    async def decline(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The named opponent declines (for an open challenge: nobody may decline)."""
        return await challenges.decline(self._state, challenge_id, guild_id, user_id)

    async def cancel(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The challenger withdraws an open challenge."""
        return await challenges.cancel(self._state, challenge_id, guild_id, user_id)

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

    async def rematch(self, match_id: int, guild_id: int, user_id: int) -> Challenge:
        """A named challenge to the same opponent with the same rules, from a finished match."""
        return await challenges.rematch(self._state, match_id, guild_id, user_id)

    # --- the robot --------------------------------------------------------------------------

    async def robot_match(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        challenger_name: str,
        game: GameKind | str,
        *,
        robot_id: int,
        robot_name: str,
        level: int,
        length: int | None = None,
        cube: bool | None = None,
        crawford: bool | None = None,
        jacoby: bool | None = None,
        auto_doubles: int | None = None,
    ) -> MatchUpdate:
        """Start a match against the robot: ``robot_id`` is the bot's own user (it takes seat
        1 and plays through :meth:`act` like anyone), ``level`` 1 (beginner) to 5 (master).
        The challenge is checked as any other and accepted at once."""
        return await challenges.robot_match(
            self._state,
            guild_id,
            channel_id,
            challenger_id,
            challenger_name,
            game,
            robot_id=robot_id,
            robot_name=robot_name,
            level=level,
            length=length,
            cube=cube,
            crawford=crawford,
            jacoby=jacoby,
            auto_doubles=auto_doubles,
        )

    async def robot_rematch(self, match_id: int, guild_id: int, user_id: int) -> MatchUpdate:
        """The same match against the robot again, at the same level, from a finished one."""
        return await challenges.robot_rematch(self._state, match_id, guild_id, user_id)

    async def robot_turn(self, match_id: int) -> RobotTurn | None:
        """What the robot has to decide in the match now (a private copy of the match, its
        seat, level and the version to act on), or None when it has nothing to decide."""
        return await queries.robot_turn(self._state, match_id)

    async def hint_request(self, match_id: int, guild_id: int, user_id: int) -> HintRequest:
        """Allow a hint for the player (always against the robot; between people where the
        server's ``hints_in_human_matches`` is on) and say on what; the robot computes it."""
        return await queries.hint_request(self._state, match_id, guild_id, user_id)

    # --- actions ----------------------------------------------------------------------------

    async def act(self, command: MatchCommand) -> MatchUpdate:
        """Apply a player's command (:mod:`bot.service.commands`): check it, apply its action and
        the automatic steps after it, commit, answer. With ``expected_version`` (the one the
        clicked board showed), a command on any other version raises StaleActionError."""
        update = await actions.act(self._state, command)
        if update.match_over:
            await self.analyses.match_ended(update.view)
        return update

    # --- post-match analysis ----------------------------------------------------------------

    async def request_analysis(self, command: RequestAnalysis) -> AnalysisView:
        """Queue a finished match's analysis (:class:`~bot.service.analysis.AnalysisQueue`
        runs it, one at a time, and tells ``analyses.listeners``)."""
        return await self.analyses.request(command)

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

    async def record_shout(
        self, match_id: int, guild_id: int, user_id: int, game_number: int | None = None
    ) -> bool:
        """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
        game (the latest one when ``game_number`` is None); False otherwise."""
        return await queries.record_shout(self._state, match_id, guild_id, user_id, game_number)

    # --- settings and bookkeeping -----------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._state.guild_settings(guild_id)

    async def update_guild_settings(self, guild_id: int, /, **changes: Any) -> GuildSettings:
        """Validate and store changes (field names of GuildSettings); GameError on bad values."""
        return await self._state.settings.update(guild_id, changes)

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
        return views
