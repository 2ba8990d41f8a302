"""The match service: the only code that changes match state. Transport-agnostic.

It takes plain ids and strings, applies engine actions under one lock per match plus an optimistic
``version`` check, commits every change to the store before answering, and returns frozen
dataclasses. Every refusal is a :class:`~engines.errors.GameError` whose message is fit to show the
user as is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from bot.store import Store
from engines.base import GameKind, GameResult, MatchRules, Phase, ResignLevel
from engines.dice import FairDice
from engines.errors import GameError, NotYourTurnError

log = logging.getLogger(__name__)

__all__ = [
    "Challenge",
    "ChallengeStatus",
    "ExportFile",
    "GuildSettings",
    "HistoryEntry",
    "IdleMatch",
    "LastMove",
    "LeaderboardRow",
    "MatchService",
    "MatchStatus",
    "MatchUpdate",
    "MatchView",
    "NotFoundError",
    "NotYourTurnError",
    "Player",
    "RatingChange",
    "StaleActionError",
    "StatLine",
    "VerifyReport",
]


class StaleActionError(GameError):
    """The action was meant for an earlier state of the match (an old board, a double click)."""


class NotFoundError(GameError):
    """No such match or challenge in this server (also said for another server's match)."""


class ChallengeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class MatchStatus(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"


@dataclass(frozen=True)
class Player:
    user_id: int
    name: str


@dataclass(frozen=True)
class GuildSettings:
    """Per-server options. Times are in minutes; ``challenge_channels`` empty means anywhere."""

    nannon_length: int = 11
    backgammon_length: int = 5
    checkers_length: int = 1
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    auto_doubles: int = 0
    auto_roll: bool = True  # roll for the player when doubling is impossible
    auto_move: bool = True  # make the only legal move for the player
    use_threads: bool = True
    reminder_minutes: int = 60
    claim_minutes: int = 24 * 60
    challenge_minutes: int = 30
    challenge_channels: tuple[int, ...] = ()
    rate_limit_actions: int = 20  # at most this many commands per user ...
    rate_limit_seconds: int = 10  # ... in this many seconds (enforced by the Discord layer)

    def default_length(self, game: GameKind) -> int:
        return {
            GameKind.NANNON: self.nannon_length,
            GameKind.BACKGAMMON: self.backgammon_length,
            GameKind.CHECKERS: self.checkers_length,
        }[game]


@dataclass(frozen=True)
class Challenge:
    id: int
    guild_id: int
    channel_id: int
    game: GameKind
    rules: MatchRules
    challenger: Player
    opponent: Player | None  # None: open to anyone but the challenger
    status: ChallengeStatus
    created_at: float
    expires_at: float
    match_id: int | None = None
    message_id: int | None = None


@dataclass(frozen=True)
class LastMove:
    """The last move made, for highlighting: ``move`` is the engine's move object."""

    seat: int
    text: str
    move: Any


@dataclass(frozen=True)
class MatchView:
    """Everything a client needs to show a match. Seats index ``players``, ``score`` etc."""

    match_id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    board_message_id: int | None
    kind: GameKind
    rules: MatchRules
    status: MatchStatus
    version: int
    players: tuple[Player, Player]
    colours: tuple[str, str]  # per seat, for the current game
    phase: Phase
    turn: int  # the seat on turn in the game
    actor: int | None  # the seat expected to act next; None when either may
    score: tuple[float, float]
    game_number: int
    crawford: bool  # this game is the Crawford game
    cube_value: int
    cube_owner: int | None
    cube_offered_by: int | None
    can_double: tuple[bool, bool]  # per seat, right now
    resign_offer: tuple[int, ResignLevel] | None
    draw_offered_by: int | None
    dice: tuple[int, ...] | None
    opening_dice: tuple[int, int] | None
    position_id: str
    gnubg_match_id: str | None  # backgammon only
    position: Any  # the engine's position (or checkers board) seen from the side on turn
    pips: tuple[int, int] | None  # backgammon, per seat
    legal_moves: tuple[str, ...]  # for the current roll, ordered helpfully
    last_move: LastMove | None
    games: tuple[GameResult, ...]
    winner_seat: int | None
    dice_commitment: str | None
    dice_seed: str | None  # revealed only once the match is over
    created_at: float
    last_action_at: float

    @property
    def length(self) -> int:
        return self.rules.length

    @property
    def match_over(self) -> bool:
        return self.status is MatchStatus.FINISHED

    def seat_of(self, user_id: int) -> int | None:
        for seat, player in enumerate(self.players):
            if player.user_id == user_id:
                return seat
        return None


@dataclass(frozen=True)
class RatingChange:
    seat: int
    user_id: int
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class MatchUpdate:
    """The answer to every action, sent only after the commit."""

    match_id: int
    version: int
    view: MatchView
    notes: tuple[str, ...]  # plain language, in order: auto-rolls, forced moves, game over, ...
    game_result: GameResult | None = None  # the game that ended in this update, if any
    match_over: bool = False
    winner_seat: int | None = None
    rating_changes: tuple[RatingChange, ...] = ()
    revealed_seed: str | None = None


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: int
    name: str
    rating: float
    played: int
    won: int
    lost: int
    drawn: int
    points_won: float
    points_lost: float


@dataclass(frozen=True)
class StatLine:
    guild_id: int
    game: GameKind
    user_id: int
    name: str
    rating: float
    experience: int
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    points_won: float = 0
    points_lost: float = 0
    gammons_for: int = 0
    gammons_against: int = 0
    backgammons_for: int = 0
    backgammons_against: int = 0
    nannons_for: int = 0
    nannons_against: int = 0
    nannons_shouted: int = 0
    streak: int = 0  # +n: n wins in a row, -n: n losses in a row


@dataclass(frozen=True)
class HistoryEntry:
    match_id: int
    game: GameKind
    length: int
    seat: int
    opponent: Player
    score: tuple[float, float]  # (mine, theirs)
    result: str  # "won", "lost", "drawn" or "active"
    rating_change: float | None
    created_at: float
    finished_at: float | None


@dataclass(frozen=True)
class VerifyReport:
    match_id: int
    commitment: str
    seed: str | None  # None while the match is still on
    dice: tuple[int, ...]  # every die rolled, in order
    ok: bool | None  # None while the seed is secret

    @property
    def message(self) -> str:
        if self.ok is None:
            return (
                f"Match #{self.match_id} is still on: {len(self.dice)} dice rolled so far. "
                f"The seed (commitment {self.commitment}) is revealed when it ends."
            )
        if self.ok:
            return (
                f"All {len(self.dice)} dice of match #{self.match_id} check out against seed "
                f"{self.seed} (commitment {self.commitment})."
            )
        return f"The dice of match #{self.match_id} do NOT match the seed {self.seed}."


@dataclass(frozen=True)
class IdleMatch:
    match_id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    version: int
    idle: Player  # the player the match waits for
    waiting: Player  # their opponent, who may claim the match
    idle_since: float
    reminder_due: bool  # past the reminder time and not yet reminded for this version
    claimable: bool  # past the claim time: ``waiting`` may claim the win


class ExportFile(NamedTuple):
    filename: str
    text: str


@dataclass
class _Live:
    """A loaded match: its engine object and the lock that serializes its actions."""

    match: Any
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


DiceFactory = Callable[[], FairDice]


class MatchService:
    """Challenges, actions, queries. Create with a :class:`Store`, or ``await MatchService.open``.

    ``dice_factory`` makes a new match's dice (tests inject a fixed seed); ``clock`` returns the
    current time in seconds.
    """

    def __init__(
        self,
        store: Store,
        *,
        dice_factory: DiceFactory = FairDice.new,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self._dice_factory = dice_factory
        self._clock = clock
        self._live: dict[int, _Live] = {}

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        dice_factory: DiceFactory = FairDice.new,
        clock: Callable[[], float] = time.time,
    ) -> MatchService:
        """Open (and migrate) the database at ``path`` and return a service on it."""
        store = await Store.open(path)
        return cls(store, dice_factory=dice_factory, clock=clock)

    async def close(self) -> None:
        await self.store.close()

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
        raise NotImplementedError

    async def accept(
        self, challenge_id: int, guild_id: int, user_id: int, user_name: str
    ) -> MatchUpdate:
        """Accept a challenge: create the match (seat 0 = challenger), roll the opening."""
        raise NotImplementedError

    async def decline(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The named opponent declines (for an open challenge: nobody may decline)."""
        raise NotImplementedError

    async def cancel(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The challenger withdraws an open challenge."""
        raise NotImplementedError

    async def get_challenge(self, challenge_id: int, guild_id: int) -> Challenge:
        raise NotImplementedError

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        raise NotImplementedError

    async def expire_challenges(self, now: float | None = None) -> list[Challenge]:
        """Mark open challenges past their expiry as expired and return them."""
        raise NotImplementedError

    async def rematch(self, match_id: int, guild_id: int, user_id: int) -> Challenge:
        """A named challenge to the same opponent with the same rules, from a finished match."""
        raise NotImplementedError

    # --- actions ----------------------------------------------------------------------------
    # Each takes (match_id, guild_id, user_id, ..., expected_version=None). With a version (the
    # one the clicked board showed), an action on any other version raises StaleActionError.

    async def roll(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        """Roll the dice; also re-rolls a tied Nannon opening (either player may)."""
        raise NotImplementedError

    async def play(
        self,
        match_id: int,
        guild_id: int,
        user_id: int,
        move: Any,
        *,
        expected_version: int | None = None,
    ) -> MatchUpdate:
        """Play a move given as notation (``24/18 13/11``, ``H/3``, ``22x15``) or an engine move."""
        raise NotImplementedError

    async def double(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def take(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def pass_(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        """Pass (drop) the offered double: the game is lost at the stake before the double."""
        raise NotImplementedError

    async def resign_offer(
        self,
        match_id: int,
        guild_id: int,
        user_id: int,
        level: ResignLevel | str = ResignLevel.SINGLE,
        *,
        expected_version: int | None = None,
    ) -> MatchUpdate:
        """Offer to resign this game at ``level`` (single, gammon, backgammon)."""
        raise NotImplementedError

    async def resign_accept(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def resign_decline(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def offer_draw(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def accept_draw(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def decline_draw(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        raise NotImplementedError

    async def leave_match(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        """Concede the whole match (either player, any time)."""
        raise NotImplementedError

    async def claim_win(
        self, match_id: int, guild_id: int, user_id: int, *, expected_version: int | None = None
    ) -> MatchUpdate:
        """The waiting player claims the match once the opponent is idle past the claim time."""
        raise NotImplementedError

    # --- queries ----------------------------------------------------------------------------

    async def get_view(self, match_id: int, guild_id: int | None = None) -> MatchView:
        """The current view; with ``guild_id``, refuse a match of another server."""
        raise NotImplementedError

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchView]:
        raise NotImplementedError

    async def match_in_thread(self, thread_id: int) -> MatchView | None:
        raise NotImplementedError

    async def candidate_matches(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> list[MatchView]:
        """The user's active matches in this channel or thread (the bot acts when exactly one)."""
        raise NotImplementedError

    async def legal_moves(
        self, match_id: int, guild_id: int, user_id: int, prefix: str = "", limit: int = 25
    ) -> list[str]:
        """Autocomplete: legal moves of the user on turn that match ``prefix``; else empty."""
        raise NotImplementedError

    async def leaderboard(
        self,
        guild_id: int,
        game: GameKind | str,
        match_length: int | None = None,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        """Players by rating; with ``match_length``, W-L and points of matches of that length."""
        raise NotImplementedError

    async def history(self, guild_id: int, user_id: int, limit: int = 20) -> list[HistoryEntry]:
        raise NotImplementedError

    async def stats(self, guild_id: int, user_id: int, game: GameKind | str) -> StatLine:
        raise NotImplementedError

    async def export(self, match_id: int, guild_id: int) -> ExportFile:
        """``.mat`` for Nannon/backgammon, ``.pdn`` for checkers, rebuilt from the event log."""
        raise NotImplementedError

    async def verify_match(self, match_id: int, guild_id: int) -> VerifyReport:
        raise NotImplementedError

    async def idle_matches(self, now: float | None = None) -> list[IdleMatch]:
        """Active matches whose actor is idle past the reminder (not yet sent) or claim time."""
        raise NotImplementedError

    async def mark_reminded(self, match_id: int, version: int) -> None:
        """Record that the reminder for this version was sent, so it is sent once."""
        raise NotImplementedError

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        raise NotImplementedError

    async def update_guild_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Validate and store changes (field names of GuildSettings); GameError on bad values."""
        raise NotImplementedError

    async def record_shout(
        self, match_id: int, guild_id: int, user_id: int, game_number: int | None = None
    ) -> bool:
        """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
        game (the latest one when ``game_number`` is None); False otherwise."""
        raise NotImplementedError

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        raise NotImplementedError

    async def set_board_message(self, match_id: int, message_id: int | None) -> None:
        raise NotImplementedError

    async def resume_active(self) -> list[MatchView]:
        """Load every active match (at start-up); returns their views."""
        raise NotImplementedError
