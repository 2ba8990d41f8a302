"""The match service: the only code that changes match state. Transport-agnostic.

It takes plain ids and strings, applies engine actions under one lock per match plus an optimistic
``version`` check, commits every change to the store before answering, and returns frozen
dataclasses. Every refusal is a :class:`~engines.errors.GameError` whose message is fit to show the
user as is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from bot.exports import mat_export, pdn_export
from bot.move_list import MoveList
from bot.service import commands as cmd
from bot.service.commands import (
    AcceptResignation,
    ClaimWin,
    DeclineResignation,
    LeaveMatch,
    MatchCommand,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    RollDice,
    TakeDouble,
)
from bot.service.ratings import INITIAL_RATING, elo_changes, fibs_changes
from bot.storage import STAT_COLUMNS, NewEvent, StatUpdate, Store, VersionConflict
from engines import match_from_snapshot, new_match
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    ConcedeMatch,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
    action_from_dict,
)
from engines.base import (
    ActionResult,
    GameKind,
    GameMatch,
    GameResult,
    MatchRules,
    Phase,
    ResignLevel,
    ResultKind,
)
from engines.dice import FairDice, commitment, verify
from engines.errors import (
    CubeError,
    CubeErrorReason,
    GameError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)
from engines.gnubg import match_id_of
from engines.match import NO_MOVE, validate_rules

log = logging.getLogger(__name__)

__all__ = [
    "COMMAND_HANDLERS",
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
    auto_pass: bool = True  # pass a roll with no legal move at once (off: the player confirms)
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
    legal_moves: MoveList  # for the current roll, ordered helpfully; written as they are read
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

    @property
    def must_pass(self) -> bool:
        """The roll on the board can't be played: its player passes with ``no move``."""
        moves = self.legal_moves
        return self.phase is Phase.MOVE and len(moves) == 1 and moves[0] == NO_MOVE

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
    drawn: int | None = None  # dice drawn from the seed, as the match row counts them

    @property
    def message(self) -> str:
        if not self.dice:
            return f"Match #{self.match_id} has used no dice."
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
        if self.drawn is not None and self.drawn != len(self.dice):
            return (
                f"The dice of match #{self.match_id} do NOT check out: {self.drawn} dice were "
                f"drawn from seed {self.seed}, but the log shows {len(self.dice)}."
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


class MatchDice(Protocol):
    """A match's dice: FairDice, or a scripted stand-in in tests. ``counter`` dice drawn so far."""

    seed: bytes
    counter: int

    def roll_die(self) -> int: ...


DiceFactory = Callable[[], MatchDice]

_MAX_NAME = 100
_MAX_LENGTH = 25
_MAX_AUTO_DOUBLES = 8
_MAX_MOVE_TEXT = 200
_MAX_ADVANCE = 1000  # automatic steps per action; a safety net against an engine loop
_PASS_HINT = f'play "{NO_MOVE}" to pass the turn'  # when auto_pass is off
_CHANGED = "This match changed while you were acting: look at the latest board and try again."
_EXPIRED = "This challenge expired: nobody answered it in time. Start a new one."
# SQLite integers are signed 64-bit: no row has an id outside, and binding one raises
# OverflowError, so such an id is refused as not found before it reaches the store.
_SQLITE_MIN_INT = -(2**63)
_SQLITE_MAX_INT = 2**63 - 1


def _storable(*ids: int) -> bool:
    return all(_SQLITE_MIN_INT <= i <= _SQLITE_MAX_INT for i in ids)


_BOUNDS: dict[str, tuple[int, int]] = {
    "nannon_length": (1, _MAX_LENGTH),
    "backgammon_length": (0, _MAX_LENGTH),
    "checkers_length": (1, _MAX_LENGTH),
    "auto_doubles": (0, _MAX_AUTO_DOUBLES),
    "reminder_minutes": (1, 30 * 24 * 60),
    "claim_minutes": (1, 30 * 24 * 60),
    "challenge_minutes": (1, 7 * 24 * 60),
    "rate_limit_actions": (1, 1000),
    "rate_limit_seconds": (1, 3600),
}
_RESULT_WORDS = {
    ResultKind.SINGLE: "a single game",
    ResultKind.GAMMON: "a gammon",
    ResultKind.BACKGAMMON: "a backgammon",
    ResultKind.NANNON: "a NANNON",
    ResultKind.DROP: "a passed double",
    ResultKind.RESIGN: "resignation",
    ResultKind.FORFEIT: "forfeit",
    ResultKind.DRAW: "a draw",
}


def _points(value: float) -> str:
    return f"{value:g}"


def _plural(value: float, word: str) -> str:
    return f"{_points(value)} {word}{'' if value == 1 else 's'}"


def _dice_text(dice: tuple[int, ...]) -> str:
    return "-".join(str(d) for d in dice)


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())[:_MAX_NAME]
    return name or "someone"


def _game_kind(game: GameKind | str) -> GameKind:
    try:
        return GameKind(str(game).strip().lower())
    except ValueError:
        choices = ", ".join(k.value for k in GameKind)
        raise GameError(f"There is no game called {str(game)[:40]!r}: choose {choices}.") from None


# The stats counter a game's result adds to, for both players (``_for`` / ``_against``).
_COUNTERS = {
    ResultKind.GAMMON: "gammons",
    ResultKind.BACKGAMMON: "backgammons",
    ResultKind.NANNON: "nannons",
}
_RESIGNED_COUNTERS = {
    (GameKind.BACKGAMMON, ResignLevel.GAMMON): "gammons",
    (GameKind.BACKGAMMON, ResignLevel.BACKGAMMON): "backgammons",
    (GameKind.NANNON, ResignLevel.GAMMON): "nannons",  # Nannon's double win is the NANNON
}


def _hits(move: Any) -> int:
    """How many checkers a move hits or captures, to list such moves first."""
    if hasattr(move, "captures"):
        return len(move.captures)
    if hasattr(move, "moves"):
        return sum(1 for part in move.moves if getattr(part, "hit", False))
    return 1 if getattr(move, "hit", False) else 0


@dataclass
class _Record:
    """The in-memory copy of a matches row; the service is its only writer."""

    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    board_message_id: int | None
    game: GameKind
    rules: MatchRules
    players: tuple[Player, Player]
    status: MatchStatus
    winner_seat: int | None
    commitment: str
    seed: bytes
    version: int
    next_seq: int
    created_at: float
    last_action_at: float
    finished_at: float | None
    reminded_version: int | None
    rating_changes: tuple[RatingChange, ...]

    @classmethod
    def from_row(cls, row: Any, next_seq: int) -> _Record:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            thread_id=row["thread_id"],
            board_message_id=row["board_message_id"],
            game=GameKind(row["game"]),
            rules=MatchRules.from_dict(json.loads(row["rules"])),
            players=(
                Player(row["player0_id"], row["player0_name"]),
                Player(row["player1_id"], row["player1_name"]),
            ),
            status=MatchStatus(row["status"]),
            winner_seat=row["winner_seat"],
            commitment=row["dice_commitment"],
            seed=bytes(row["dice_seed"]),
            version=row["version"],
            next_seq=next_seq,
            created_at=row["created_at"],
            last_action_at=row["last_action_at"],
            finished_at=row["finished_at"],
            reminded_version=row["reminded_version"],
            rating_changes=_rating_changes_from_json(row["rating_changes"]),
        )


def _rating_changes_from_json(text: str | None) -> tuple[RatingChange, ...]:
    if not text:
        return ()
    return tuple(RatingChange(**item) for item in json.loads(text))


@dataclass
class _Live:
    """A loaded match: its row, engine object and dice, and the lock serializing its actions."""

    record: _Record
    match: Any
    dice: MatchDice
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    valid: bool = True  # False once evicted: a waiter must reload
    # The legal moves (hits first) and their notation, for the state after this many actions:
    # generating and formatting them is most of an action's engine time, so do it once.
    legal: tuple[int, tuple[Any, ...], MoveList] | None = None


@dataclass
class _Step:
    action: Action
    actor: int | None  # Discord user id, None for an automatic action
    result: ActionResult
    notes: list[str]


def _challenge_from_row(row: Any) -> Challenge:
    opponent = (
        None if row["opponent_id"] is None else Player(row["opponent_id"], row["opponent_name"])
    )
    return Challenge(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=GameKind(row["game"]),
        rules=MatchRules.from_dict(json.loads(row["rules"])),
        challenger=Player(row["challenger_id"], row["challenger_name"]),
        opponent=opponent,
        status=ChallengeStatus(row["status"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        match_id=row["match_id"],
        message_id=row["message_id"],
    )


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
        self._settings: dict[int, GuildSettings] = {}

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
        for live in self._live.values():
            live.valid = False
        self._live.clear()
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
        kind = _game_kind(game)
        if opponent_is_bot:
            raise GameError("Bots can't play: challenge a person, or leave the opponent open.")
        if opponent_id is not None and opponent_id == challenger_id:
            raise GameError("You can't challenge yourself.")
        settings = await self.guild_settings(guild_id)
        if settings.challenge_channels and channel_id not in settings.challenge_channels:
            where = ", ".join(f"<#{c}>" for c in settings.challenge_channels)
            raise GameError(f"Challenges are allowed only in {where}.")
        rules = self._rules(kind, settings, length, cube, crawford, jacoby, auto_doubles)
        now = self._clock()
        values: dict[str, Any] = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "game": kind.value,
            "rules": json.dumps(rules.to_dict()),
            "challenger_id": challenger_id,
            "challenger_name": _clean_name(challenger_name),
            "opponent_id": opponent_id,
            "opponent_name": None
            if opponent_id is None
            else _clean_name(opponent_name or str(opponent_id)),
            "status": ChallengeStatus.OPEN.value,
            "created_at": now,
            "expires_at": now + settings.challenge_minutes * 60,
        }
        challenge_id = await self.store.insert_challenge(values)
        log.info("challenge %d: %s in guild %d", challenge_id, kind.value, guild_id)
        return await self.get_challenge(challenge_id, guild_id)

    @staticmethod
    def _rules(
        kind: GameKind,
        settings: GuildSettings,
        length: int | None,
        cube: bool | None,
        crawford: bool | None,
        jacoby: bool | None,
        auto_doubles: int | None,
    ) -> MatchRules:
        points = settings.default_length(kind) if length is None else length
        if type(points) is not int:
            raise GameError(f"The match length is a whole number, not {points!r}.")
        if points == 0 and kind is not GameKind.BACKGAMMON:
            raise GameError("Money play (points: 0) is for backgammon only.")
        lowest = 0 if kind is GameKind.BACKGAMMON else 1
        if not lowest <= points <= _MAX_LENGTH:
            unit = "games" if kind is GameKind.CHECKERS else "points"
            raise GameError(
                f"A {kind.value} match is {lowest} to {_MAX_LENGTH} {unit} long, not {points}."
            )
        if kind is GameKind.CHECKERS:
            if cube or crawford or jacoby or auto_doubles:
                raise GameError("Checkers has no doubling cube: cube options don't apply.")
            return MatchRules(length=points, cube=False, crawford=False)
        money = points == 0
        if not money and (jacoby or auto_doubles):
            raise GameError(
                "Jacoby and automatic doubles are for money games only (backgammon, points: 0)."
            )
        if auto_doubles is not None and not 0 <= auto_doubles <= _MAX_AUTO_DOUBLES:
            raise GameError(
                f"Automatic doubles are 0 to {_MAX_AUTO_DOUBLES} per game, not {auto_doubles}."
            )
        use_cube = settings.cube if cube is None else bool(cube)
        rules = MatchRules(
            length=points,
            cube=use_cube,
            crawford=settings.crawford if crawford is None else bool(crawford),
            # Server defaults for money-only options apply to money games only.
            jacoby=money and use_cube and (settings.jacoby if jacoby is None else bool(jacoby)),
            auto_doubles=(settings.auto_doubles if auto_doubles is None else int(auto_doubles))
            if money and use_cube
            else 0,
        )
        if not use_cube and (jacoby or auto_doubles):
            raise GameError("Jacoby and automatic doubles need the doubling cube.")
        validate_rules(kind, rules)
        return rules

    async def accept(
        self, challenge_id: int, guild_id: int, user_id: int, user_name: str
    ) -> MatchUpdate:
        """Accept a challenge: create the match (seat 0 = challenger), roll the opening."""
        challenge = await self.get_challenge(challenge_id, guild_id)
        now = self._clock()
        self._check_open(challenge)
        if user_id == challenge.challenger.user_id:
            raise GameError("You can't play against yourself.")
        if challenge.opponent is not None and challenge.opponent.user_id != user_id:
            raise NotYourTurnError(f"This challenge is for {challenge.opponent.name}.")
        settings = await self.guild_settings(guild_id)
        players = (challenge.challenger, Player(user_id, _clean_name(user_name)))
        rules = challenge.rules
        if challenge.game is not GameKind.CHECKERS:
            # A rule of the match (replay must not depend on today's settings), taken as the
            # match starts.
            rules = replace(rules, auto_pass=settings.auto_pass)
        match = new_match(challenge.game, rules)
        dice = self._dice_factory()
        record = _Record(
            id=0,
            guild_id=guild_id,
            channel_id=challenge.channel_id,
            thread_id=None,
            board_message_id=None,
            game=challenge.game,
            rules=rules,
            players=players,
            status=MatchStatus.ACTIVE,
            winner_seat=None,
            commitment=commitment(dice.seed),
            seed=dice.seed,
            version=0,
            next_seq=0,
            created_at=now,
            last_action_at=now,
            finished_at=None,
            reminded_version=None,
            rating_changes=(),
        )
        live = _Live(record, match, dice)
        steps: list[_Step] = []
        self._advance(live, settings, steps)
        colours = self._colours(live)
        values: dict[str, Any] = {
            "guild_id": guild_id,
            "channel_id": challenge.channel_id,
            "challenge_id": challenge_id,
            "game": challenge.game.value,
            "length": rules.length,
            "rules": json.dumps(rules.to_dict()),
            "player0_id": players[0].user_id,
            "player0_name": players[0].name,
            "player1_id": players[1].user_id,
            "player1_name": players[1].name,
            "colour0": colours[0],
            "colour1": colours[1],
            "status": MatchStatus.ACTIVE.value,
            "dice_commitment": record.commitment,
            "dice_seed": dice.seed,
            "dice_counter": dice.counter,
            "created_at": now,
            "last_action_at": now,
            "version": 0,
        }
        events = [self._event(step, now) for step in steps]
        match_id = await self.store.create_match(challenge_id, values, events, match.snapshot())
        if match_id is None:
            raise StaleActionError("This challenge was already accepted, withdrawn or expired.")
        record.id = match_id
        record.next_seq = len(events)
        self._live[match_id] = live
        log.info("match %d started from challenge %d", match_id, challenge_id)
        length = challenge.rules.length
        to = "a money game" if length == 0 else f"to {_plural(length, self._unit(record))}"
        opening = [
            f"Match #{match_id}: {players[0].name} vs {players[1].name}, "
            f"{challenge.game.value} {to}. Dice commitment (SHA-256 of the secret seed): "
            f"{record.commitment}."
        ]
        return self._update(live, steps, opening)

    @staticmethod
    def _unit(record: _Record) -> str:
        return "game" if record.game is GameKind.CHECKERS else "point"

    @staticmethod
    def _check_open(challenge: Challenge) -> None:
        """Refuse to answer a challenge (as :meth:`get_challenge` gives it: expired once past
        its time, even before :meth:`expire_challenges` records it) that is no longer open.
        Accept, decline and cancel refuse alike and write nothing; the sweep records the expiry
        and closes the invitation."""
        if challenge.status is ChallengeStatus.ACCEPTED:
            raise StaleActionError("This challenge was already accepted.")
        if challenge.status is ChallengeStatus.EXPIRED:
            raise GameError(_EXPIRED)
        if challenge.status is not ChallengeStatus.OPEN:
            raise GameError(f"This challenge is {challenge.status.value}.")

    async def decline(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The named opponent declines (for an open challenge: nobody may decline)."""
        challenge = await self.get_challenge(challenge_id, guild_id)
        self._check_open(challenge)
        if challenge.opponent is None:
            raise GameError("An open challenge can't be declined: just leave it.")
        if challenge.opponent.user_id != user_id:
            raise NotYourTurnError(f"Only {challenge.opponent.name} can decline this challenge.")
        return await self._close_challenge(challenge, ChallengeStatus.DECLINED)

    async def cancel(self, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
        """The challenger withdraws an open challenge."""
        challenge = await self.get_challenge(challenge_id, guild_id)
        self._check_open(challenge)
        if challenge.challenger.user_id != user_id:
            raise NotYourTurnError(f"Only {challenge.challenger.name} can cancel this challenge.")
        return await self._close_challenge(challenge, ChallengeStatus.CANCELLED)

    async def _close_challenge(self, challenge: Challenge, status: ChallengeStatus) -> Challenge:
        if not await self.store.set_challenge_status(challenge.id, status.value):
            raise StaleActionError("This challenge was answered already.")
        return await self.get_challenge(challenge.id, challenge.guild_id)

    async def get_challenge(self, challenge_id: int, guild_id: int) -> Challenge:
        if not _storable(challenge_id):
            raise NotFoundError(f"There is no challenge #{challenge_id} in this server.")
        row = await self.store.challenge(challenge_id)
        if row is None or row["guild_id"] != guild_id:
            raise NotFoundError(f"There is no challenge #{challenge_id} in this server.")
        challenge = _challenge_from_row(row)
        if challenge.status is ChallengeStatus.OPEN and self._clock() >= challenge.expires_at:
            # Past its time, not yet swept by expire_challenges: expired all the same.
            challenge = replace(challenge, status=ChallengeStatus.EXPIRED)
        return challenge

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self.store.set_challenge_message(challenge_id, message_id)

    async def expire_challenges(self, now: float | None = None) -> list[Challenge]:
        """Mark open challenges past their expiry as expired and return them (each once, with
        its ``channel_id`` and ``message_id``, so the caller can close its invitation)."""
        rows = await self.store.expire_challenges(self._clock() if now is None else now)
        return [replace(_challenge_from_row(row), status=ChallengeStatus.EXPIRED) for row in rows]

    async def rematch(self, match_id: int, guild_id: int, user_id: int) -> Challenge:
        """A named challenge to the same opponent with the same rules, from a finished match."""
        live = await self._live_match(match_id, guild_id)
        record = live.record
        seat = self._seat(record, user_id)
        if record.status is not MatchStatus.FINISHED:
            raise PhaseError(f"Match #{match_id} is still on: finish it first.")
        me, them = record.players[seat], record.players[1 - seat]
        rules = record.rules
        return await self.challenge(
            guild_id,
            record.channel_id,
            me.user_id,
            me.name,
            record.game,
            opponent_id=them.user_id,
            opponent_name=them.name,
            length=rules.length,
            cube=rules.cube if record.game is not GameKind.CHECKERS else None,
            crawford=rules.crawford if record.game is not GameKind.CHECKERS else None,
            jacoby=rules.jacoby if record.game is not GameKind.CHECKERS else None,
            auto_doubles=rules.auto_doubles if record.game is not GameKind.CHECKERS else None,
        )

    # --- actions ----------------------------------------------------------------------------

    async def act(self, command: MatchCommand) -> MatchUpdate:
        """Apply a player's command (see :mod:`bot.service.commands`): check it, apply its action
        and the automatic steps after it, commit, answer. With ``expected_version`` (the one the
        clicked board showed), a command on any other version raises StaleActionError."""
        handler = COMMAND_HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"no handler for {type(command).__name__}")
        decide = handler(command)  # checks the command's own arguments first
        settings = await self.guild_settings(command.guild_id)
        match_id = command.match_id
        while True:
            live = await self._live_match(match_id, command.guild_id)
            async with live.lock:
                if not live.valid:
                    continue  # evicted while we waited: reload
                record = live.record
                expected = command.expected_version
                if expected is not None and expected != record.version:
                    raise StaleActionError(
                        "That board is out of date: the match has moved on. Use the latest board."
                    )
                seat = self._seat(record, command.user_id)
                if record.status is MatchStatus.FINISHED:
                    raise PhaseError(f"Match #{match_id} is over.")
                counter = live.dice.counter
                games_before = len(live.match.games)
                # An accepted resignation ends the game at the offer's level (for the stats).
                offer = getattr(live.match, "resign_offer", None)
                try:
                    action = decide(_Turn(live, seat, settings, self._clock()))
                    result = live.match.apply(action)
                except BaseException:
                    live.dice.counter = counter  # nothing changed: un-draw the dice
                    raise
                steps = [_Step(result.action, command.user_id, result, [])]
                self._describe(live, steps[0])
                try:
                    self._advance(live, settings, steps)
                    resigned = None if offer is None else ResignLevel(offer[1])
                    await self._commit(live, steps, games_before, resigned)
                except VersionConflict:
                    # Another process sharing the database committed first: our copy is stale.
                    log.warning("match %d: version conflict, reloading", match_id)
                    self._evict(match_id)
                    raise StaleActionError(_CHANGED) from None
                except BaseException:
                    # Memory is ahead of the database now: drop it, reload on next use.
                    log.exception("match %d: action not committed", match_id)
                    self._evict(match_id)
                    raise
                update = self._update(live, steps, [])
                if live.match.is_over():
                    self._evict(match_id)  # finished matches are read from the database
                return update

    def _advance(self, live: _Live, settings: GuildSettings, steps: list[_Step]) -> None:
        """Make the automatic steps: opening rolls, rolls when doubling is impossible, the only
        legal move. Stops where a player must decide."""
        match = live.match
        dice_game = live.record.game is not GameKind.CHECKERS
        for _ in range(_MAX_ADVANCE):
            phase = match.phase
            action: Action
            if phase is Phase.OPENING or (
                phase is Phase.OPENING_TIE
                and settings.auto_roll
                and not (match.can_double(0) or match.can_double(1))
            ):
                action = OpeningRoll(None, (live.dice.roll_die(), live.dice.roll_die()))
            elif (
                phase is Phase.ROLL
                and dice_game
                and settings.auto_roll
                and not match.can_double(match.turn)
            ):
                action = Roll(match.turn, _draw(live))
            elif phase is Phase.MOVE and settings.auto_move:
                texts = self._legal(live)[1]
                if len(texts) != 1 or texts[0] == NO_MOVE:
                    return  # a choice to make, or a pass the player confirms (auto_pass off)
                action = Move(match.turn, texts[0])
            else:
                return
            step = _Step(action, None, match.apply(action), [])
            self._describe(live, step)
            steps.append(step)
            if match.is_over():
                return
        raise RuntimeError(f"match {live.record.id}: automatic play did not stop")

    @staticmethod
    def _event(step: _Step, now: float) -> NewEvent:
        return NewEvent(now, step.actor, step.action.kind, step.action.to_dict())

    async def _commit(
        self,
        live: _Live,
        steps: list[_Step],
        games_before: int,
        resigned: ResignLevel | None = None,
    ) -> None:
        record, match = live.record, live.match
        now = self._clock()
        events = [self._event(step, now) for step in steps]
        finished = match.games[games_before:]
        over = match.is_over()
        score = match.score
        changes: dict[str, Any] = {
            "score0": score[0],
            "score1": score[1],
            "dice_counter": live.dice.counter,
            "last_action_at": now,
        }
        if over:
            changes |= {
                "status": MatchStatus.FINISHED.value,
                "winner_seat": match.winner(),
                "finished_at": now,
                "seed_revealed": 1,
            }
        rating_changes: list[RatingChange] = []

        winner = match.winner()

        def finish(db: sqlite3.Connection) -> tuple[list[StatUpdate], dict[str, Any]]:
            # Inside the action's transaction, on the store's thread.
            updates, rating_changes[:] = self._rate(db, record, winner)
            return updates, {"rating_changes": json.dumps([asdict(c) for c in rating_changes])}

        await self.store.commit_action(
            record.id,
            record.version,
            record.next_seq,
            events,
            match.snapshot(),
            changes,
            game_results=[{**result.to_dict(), "at": now} for result in finished],
            stat_updates=self._game_stats(record, finished, resigned),
            finish=finish if over else None,
        )
        record.version += 1
        record.next_seq += len(events)
        record.last_action_at = now
        if over:
            record.status = MatchStatus.FINISHED
            record.winner_seat = match.winner()
            record.finished_at = now
            record.rating_changes = tuple(rating_changes)

    def _game_stats(
        self,
        record: _Record,
        results: Sequence[GameResult],
        resigned: ResignLevel | None = None,
    ) -> list[StatUpdate]:
        """Per game: points won and lost, and the gammon, backgammon and NANNON counters. An
        accepted resignation counts at its level (``resigned``): a resigned gammon is a gammon
        won, and a resigned NANNON a NANNON (not a shout: that is for a shutout on the board)."""
        updates = []
        for result in results:
            for seat, player in enumerate(record.players):
                add: dict[str, float] = {}
                if result.winner is None:
                    add = {"points_won": result.points, "points_lost": result.points}
                else:
                    mine = result.winner == seat
                    add["points_won" if mine else "points_lost"] = result.points
                    counter = _COUNTERS.get(result.kind)
                    if result.kind is ResultKind.RESIGN and resigned is not None:
                        counter = _RESIGNED_COUNTERS.get((record.game, resigned))
                    if counter is not None:
                        add[f"{counter}_{'for' if mine else 'against'}"] = 1
                updates.append(
                    StatUpdate(
                        record.guild_id, record.game.value, player.user_id, player.name, add, {}
                    )
                )
        return updates

    @staticmethod
    def _rate(
        db: sqlite3.Connection, record: _Record, winner: int | None
    ) -> tuple[list[StatUpdate], list[RatingChange]]:
        """Match-end stats and ratings, read and written inside the commit's transaction (on
        the store's thread: it only reads ``db`` and computes)."""
        ids = [p.user_id for p in record.players]
        rows = Store.rating_rows(db, record.guild_id, record.game.value, ids)
        rating = [float(rows[i]["rating"]) if i in rows else INITIAL_RATING for i in ids]
        experience = [int(rows[i]["experience"]) if i in rows else 0 for i in ids]
        streak = [int(rows[i]["streak"]) if i in rows else 0 for i in ids]
        length = record.rules.length
        delta = [0.0, 0.0]
        rated = length > 0  # money games count in the stats, not in the ratings
        if rated and winner is not None and record.game is not GameKind.CHECKERS:
            won, lost = fibs_changes(
                rating[winner],
                rating[1 - winner],
                experience[winner],
                experience[1 - winner],
                length,
            )
            delta[winner], delta[1 - winner] = won, lost
        elif rated and record.game is GameKind.CHECKERS:
            score0 = 0.5 if winner is None else float(winner == 0)
            delta[0], delta[1] = elo_changes(rating[0], rating[1], score0)
        updates, changes = [], []
        for seat, player in enumerate(record.players):
            outcome = "drawn" if winner is None else ("won" if winner == seat else "lost")
            if outcome == "won":
                new_streak = streak[seat] + 1 if streak[seat] > 0 else 1
            elif outcome == "lost":
                new_streak = streak[seat] - 1 if streak[seat] < 0 else -1
            else:
                new_streak = 0
            after = rating[seat] + delta[seat]
            gained = (length if record.game is not GameKind.CHECKERS else 1) if rated else 0
            updates.append(
                StatUpdate(
                    record.guild_id,
                    record.game.value,
                    player.user_id,
                    player.name,
                    {"played": 1, outcome: 1},
                    {
                        "rating": after,
                        "experience": experience[seat] + gained,
                        "streak": new_streak,
                    },
                )
            )
            changes.append(RatingChange(seat, player.user_id, rating[seat], after))
        return updates, changes

    def _evict(self, match_id: int) -> None:
        live = self._live.pop(match_id, None)
        if live is not None:
            live.valid = False

    # --- describing what happened -----------------------------------------------------------

    def _describe(self, live: _Live, step: _Step) -> None:
        """Plain-language notes for one applied step."""
        match, action, result, notes = live.match, step.action, step.result, step.notes
        seat = action.player
        who = "" if seat is None else _name(live, seat)
        kind = live.record.game
        if isinstance(action, OpeningRoll):
            d0, d1 = action.dice
            names = (_name(live, 0), _name(live, 1))
            if d0 == d1:
                text = f"Opening roll: both roll {d0}."
                if match.phase is Phase.OPENING_TIE:
                    text += " Either player may double now, or roll again."
                else:
                    text += " Rolling again."
                    cube = getattr(match, "cube", None)
                    if cube is not None and cube.value > 1 and match.rules.auto_doubles:
                        text += f" Automatic double: the cube is at {cube.value}."
                notes.append(text)
            else:
                first = 0 if d0 > d1 else 1
                plays = (
                    f"moves first with a {abs(d0 - d1)}"
                    if kind is GameKind.NANNON
                    else f"plays {max(d0, d1)}-{min(d0, d1)} first"
                )
                notes.append(
                    f"Opening roll: {names[0]} {d0}, {names[1]} {d1}: {names[first]} {plays}."
                )
                if result.turn_forfeited:
                    notes.append(
                        f"{names[first]} has no legal move: the turn passes to {names[1 - first]}."
                    )
                elif self._must_pass(live):
                    notes.append(f"{names[first]} has no legal move: {_PASS_HINT}.")
        elif isinstance(action, Roll):
            text = f"{who} rolls {_dice_text(action.dice)}"
            if result.turn_forfeited:
                assert seat is not None
                text += f": no legal move, the turn passes to {_name(live, 1 - seat)}"
            elif self._must_pass(live):
                text += f": no legal move, {_PASS_HINT}"
            notes.append(text + ".")
        elif isinstance(action, Move) and result.turn_forfeited:
            assert seat is not None
            notes.append(f"{who} has no legal move: the turn passes to {_name(live, 1 - seat)}.")
        elif isinstance(action, Move):
            forced = " (the only legal move, played automatically)" if step.actor is None else ""
            notes.append(f"{who} plays {action.move}{forced}.")
        elif isinstance(action, Double):
            notes.append(f"{who} doubles to {match.cube.value * 2}.")
        elif isinstance(action, Take):
            notes.append(f"{who} takes: the cube is at {match.cube.value}.")
        elif isinstance(action, Drop):
            notes.append(f"{who} passes.")
        elif isinstance(action, Resign):
            if kind is GameKind.CHECKERS:
                notes.append(f"{who} resigns.")
            else:
                level = ResignLevel(action.level).name.lower()
                notes.append(f"{who} offers to resign a {level} game.")
        elif isinstance(action, AcceptResign):
            notes.append(f"{who} accepts the resignation.")
        elif isinstance(action, DeclineResign):
            notes.append(f"{who} declines the resignation: play on.")
        elif isinstance(action, OfferDraw):
            notes.append(f"{who} offers a draw.")
        elif isinstance(action, AcceptDraw):
            notes.append(f"{who} accepts the draw.")
        elif isinstance(action, DeclineDraw):
            notes.append(f"{who} declines the draw: play on.")
        elif isinstance(action, ConcedeMatch):
            assert seat is not None
            if action.reason == "timeout":
                notes.append(f"{who} was idle too long: {_name(live, 1 - seat)} claims the match.")
            else:
                notes.append(f"{who} leaves the match.")
        game = result.game_result
        if game is not None:
            notes.append(self._game_note(live, game))
            if not result.match_over and getattr(match, "crawford_game", False):
                notes.append(f"Game {match.game_number} is the Crawford game: no doubling.")
        if result.match_over:
            winner = match.winner()
            score = match.score
            if winner is None:
                notes.append(f"The match is drawn, {_points(score[0])}-{_points(score[1])}.")
            else:
                notes.append(
                    f"{_name(live, winner)} wins the match "
                    f"{_points(score[winner])}-{_points(score[1 - winner])}."
                )

    def _game_note(self, live: _Live, game: GameResult) -> str:
        score = live.match.score
        tally = f"Score: {_points(score[0])}-{_points(score[1])}."
        if game.winner is None:
            return f"Game {game.game_number} is drawn. {tally}"
        winner = _name(live, game.winner)
        if game.kind is ResultKind.NANNON:
            how = "with a NANNON!"
        else:
            how = f"by {_RESULT_WORDS[game.kind]}"
        points = _plural(game.points, self._unit(live.record))
        cube = f" (cube {game.cube})" if game.cube > 1 else ""
        return f"{winner} wins game {game.game_number} {how}: {points}{cube}. {tally}"

    def _update(self, live: _Live, steps: list[_Step], notes: list[str]) -> MatchUpdate:
        record = live.record
        results = [s.result.game_result for s in steps if s.result.game_result is not None]
        over = record.status is MatchStatus.FINISHED
        for step in steps:
            notes.extend(step.notes)
        return MatchUpdate(
            match_id=record.id,
            version=record.version,
            view=self._view(live),
            notes=tuple(notes),
            game_result=results[-1] if results else None,
            match_over=over,
            winner_seat=record.winner_seat if over else None,
            rating_changes=record.rating_changes if over else (),
            revealed_seed=record.seed.hex() if over else None,
        )

    # --- views ------------------------------------------------------------------------------

    def _colours(self, live: _Live) -> tuple[str, str]:
        match = live.match
        if live.record.game is GameKind.CHECKERS:
            return (match.color_of(0).name.lower(), match.color_of(1).name.lower())
        return ("white", "black")

    def _view(self, live: _Live) -> MatchView:
        record, match = live.record, live.match
        kind = record.game
        dice_game = kind is not GameKind.CHECKERS
        over = record.status is MatchStatus.FINISHED
        cube = getattr(match, "cube", None)
        phase = match.phase
        position = match.position if dice_game else match.board
        pips: tuple[int, int] | None = None
        gnubg_id: str | None = None
        if kind is GameKind.BACKGAMMON:
            mine, theirs = position.pips()
            pips = (mine, theirs) if match.turn == 0 else (theirs, mine)
            try:
                gnubg_id = match_id_of(match)
            except ValueError:  # a score past gnubg's 15 bits (a runaway cube): no Match ID
                gnubg_id = None
        last = getattr(match, "last_move", None)
        last_move = None if last is None else LastMove(last[0], match.format_move(last[1]), last[1])
        can_double = (match.can_double(0), match.can_double(1)) if dice_game else (False, False)
        return MatchView(
            match_id=record.id,
            guild_id=record.guild_id,
            channel_id=record.channel_id,
            thread_id=record.thread_id,
            board_message_id=record.board_message_id,
            kind=kind,
            rules=record.rules,
            status=record.status,
            version=record.version,
            players=record.players,
            colours=self._colours(live),
            phase=phase,
            turn=match.turn,
            actor=match.actor,
            score=match.score,
            game_number=match.game_number,
            crawford=bool(getattr(match, "crawford_game", False)),
            cube_value=1 if cube is None else cube.value,
            cube_owner=None if cube is None else cube.owner,
            cube_offered_by=getattr(match, "cube_offered_by", None),
            can_double=can_double,
            resign_offer=getattr(match, "resign_offer", None),
            draw_offered_by=getattr(match, "draw_offered_by", None),
            dice=getattr(match, "dice", None),
            opening_dice=getattr(match, "opening_dice", None),
            position_id=match.position_id,
            gnubg_match_id=gnubg_id,
            position=position,
            pips=pips,
            legal_moves=self._legal(live)[1],
            last_move=last_move,
            games=tuple(match.games),
            winner_seat=record.winner_seat if over else None,
            dice_commitment=record.commitment,
            dice_seed=record.seed.hex() if over else None,
            created_at=record.created_at,
            last_action_at=record.last_action_at,
        )

    @classmethod
    def _must_pass(cls, live: _Live) -> bool:
        """The roll just made can't be played and waits for its player (auto_pass off)."""
        match = live.match
        if match.rules.auto_pass or match.phase is not Phase.MOVE:
            return False
        texts = cls._legal(live)[1]
        return len(texts) == 1 and texts[0] == NO_MOVE

    @staticmethod
    def _legal(live: _Live) -> tuple[tuple[Any, ...], MoveList]:
        """The legal moves now, hits first, and their notation (written as it is read);
        computed once per state."""
        match = live.match
        applied = len(match.actions)  # apply() is the only way the service changes a match
        cached = live.legal
        if cached is not None and cached[0] == applied:
            return cached[1], cached[2]
        moves = tuple(sorted(match.legal_moves(), key=lambda m: -_hits(m)))
        texts = MoveList(moves, match.format_move)
        live.legal = (applied, moves, texts)
        return moves, texts

    # --- loading ----------------------------------------------------------------------------

    @staticmethod
    def _seat(record: _Record, user_id: int) -> int:
        for seat, player in enumerate(record.players):
            if player.user_id == user_id:
                return seat
        raise NotYourTurnError(f"You are not playing in match #{record.id}.")

    async def _live_match(self, match_id: int, guild_id: int | None) -> _Live:
        live = self._live.get(match_id)
        if live is None:
            live = await self._load(match_id)
        if guild_id is not None and live.record.guild_id != guild_id:
            raise NotFoundError(f"There is no match #{match_id} in this server.")
        return live

    async def _load(self, match_id: int) -> _Live:
        if not _storable(match_id):
            raise NotFoundError(f"There is no match #{match_id} in this server.")
        row = await self.store.match_row(match_id)
        snapshot = await self.store.snapshot(match_id)
        if row is None or snapshot is None:
            raise NotFoundError(f"There is no match #{match_id} in this server.")
        record = _Record.from_row(row, await self.store.event_count(match_id))
        dice = FairDice(record.seed, row["dice_counter"])
        live = _Live(record, match_from_snapshot(snapshot), dice)
        if record.status is MatchStatus.FINISHED:
            return live  # not cached: nothing changes any more
        # Another task may have loaded it meanwhile: keep the first, so there is one lock.
        return self._live.setdefault(match_id, live)

    # --- queries ----------------------------------------------------------------------------

    async def get_view(self, match_id: int, guild_id: int | None = None) -> MatchView:
        """The current view; with ``guild_id``, refuse a match of another server."""
        live = await self._live_match(match_id, guild_id)
        async with live.lock:  # never show state that is not committed yet
            return self._view(live)

    def live_match_for_testing(self, match_id: int) -> GameMatch:
        """TEST ONLY: the engine object of a loaded, active match, for scripted dice to peek at.

        The bot never calls this. It exists for tests (and tools) that replace the fair dice
        through the ``dice_factory`` constructor argument and must pick each face from the state
        it is rolled for: which phase, whose turn, which moves a face would allow. Such dice are
        asked for a face from inside an action, with the match's lock held and the state not yet
        committed, so :meth:`get_view` (which waits for the lock and shows committed state) can't
        serve them; this method is synchronous, takes no lock and never loads from the store.

        Fair dice are :class:`~engines.dice.FairDice` drawn from the secret seed whose SHA-256
        commitment the players are shown when the match starts. Dice that are steered instead do
        not come from that seed, so :meth:`verify_match` reports such a match as failed
        (``ok=False``): steer only throwaway matches.

        The returned object is the live one the service applies actions to: read it, never change
        it. Raises :class:`NotFoundError` when no active match ``match_id`` is loaded in this
        service: unknown, finished (finished matches are not kept), not loaded since a restart,
        or still being created (``accept`` rolls the first opening before the match has an id).
        """
        live = self._live.get(match_id)
        if live is None or not live.valid or live.record.status is not MatchStatus.ACTIVE:
            raise NotFoundError(f"No active match #{match_id} is loaded in this service.")
        match: GameMatch = live.match
        return match

    async def _views(self, sql: str, params: Sequence[int]) -> list[MatchView]:
        if not _storable(*params):
            return []  # no match has a guild, user, channel or thread id SQLite can't store
        rows = await self.store.fetchall(sql, params)
        return [await self.get_view(row["id"]) for row in rows]

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchView]:
        return await self._views(
            "SELECT id FROM matches WHERE guild_id = ? AND status = 'active' "
            "AND (player0_id = ? OR player1_id = ?) ORDER BY id",
            (guild_id, user_id, user_id),
        )

    async def match_in_thread(self, thread_id: int) -> MatchView | None:
        views = await self._views(
            "SELECT id FROM matches WHERE thread_id = ? "
            "ORDER BY status = 'active' DESC, id DESC LIMIT 1",
            (thread_id,),
        )
        return views[0] if views else None

    async def candidate_matches(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> list[MatchView]:
        """The user's active matches in this channel or thread (the bot acts when exactly one)."""
        return await self._views(
            "SELECT id FROM matches WHERE guild_id = ? AND status = 'active' "
            "AND (player0_id = ? OR player1_id = ?) AND (channel_id = ? OR thread_id = ?) "
            "ORDER BY id",
            (guild_id, user_id, user_id, channel_id, channel_id),
        )

    async def legal_moves(
        self, match_id: int, guild_id: int, user_id: int, prefix: str = "", limit: int = 25
    ) -> list[str]:
        """Autocomplete: legal moves of the user on turn that match ``prefix``; else empty."""
        view = await self.get_view(match_id, guild_id)
        if view.phase is not Phase.MOVE or view.seat_of(user_id) != view.turn:
            return []
        typed = "".join(str(prefix).split()).lower()[:_MAX_MOVE_TEXT]
        moves = list(view.legal_moves)
        starts = [m for m in moves if "".join(m.split()).lower().startswith(typed)]
        contains = [m for m in moves if m not in starts and typed in "".join(m.split()).lower()]
        return (starts + contains)[: max(0, limit)]

    async def leaderboard(
        self,
        guild_id: int,
        game: GameKind | str,
        match_length: int | None = None,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        """Players by rating; with ``match_length``, W-L and points of matches of that length."""
        kind = _game_kind(game)
        limit = max(1, min(int(limit), 100))
        if match_length is None:
            rows = await self.store.fetchall(
                "SELECT user_id, name, rating, played, won, lost, drawn, points_won, points_lost "
                "FROM ratings WHERE guild_id = ? AND game = ? AND played > 0 "
                "ORDER BY rating DESC, won DESC, user_id LIMIT ?",
                (guild_id, kind.value, limit),
            )
        else:
            rows = await self.store.length_board(guild_id, kind.value, match_length, limit)
        return [
            LeaderboardRow(
                rank=rank,
                user_id=row["user_id"],
                name=row["name"],
                rating=float(row["rating"]),
                played=row["played"],
                won=row["won"],
                lost=row["lost"],
                drawn=row["drawn"],
                points_won=float(row["points_won"]),
                points_lost=float(row["points_lost"]),
            )
            for rank, row in enumerate(rows, start=1)
        ]

    async def history(self, guild_id: int, user_id: int, limit: int = 20) -> list[HistoryEntry]:
        rows = await self.store.fetchall(
            "SELECT * FROM matches WHERE guild_id = ? AND (player0_id = ? OR player1_id = ?) "
            "ORDER BY id DESC LIMIT ?",
            (guild_id, user_id, user_id, max(1, min(int(limit), 100))),
        )
        entries = []
        for row in rows:
            seat = 0 if row["player0_id"] == user_id else 1
            other = 1 - seat
            score = (row["score0"], row["score1"])
            if row["status"] == MatchStatus.ACTIVE.value:
                result = "active"
            elif row["winner_seat"] is None:
                result = "drawn"
            else:
                result = "won" if row["winner_seat"] == seat else "lost"
            changes = _rating_changes_from_json(row["rating_changes"])
            entries.append(
                HistoryEntry(
                    match_id=row["id"],
                    game=GameKind(row["game"]),
                    length=row["length"],
                    seat=seat,
                    opponent=Player(row[f"player{other}_id"], row[f"player{other}_name"]),
                    score=(score[seat], score[other]),
                    result=result,
                    rating_change=next((c.delta for c in changes if c.seat == seat), None),
                    created_at=row["created_at"],
                    finished_at=row["finished_at"],
                )
            )
        return entries

    async def stats(self, guild_id: int, user_id: int, game: GameKind | str) -> StatLine:
        kind = _game_kind(game)
        row = await self.store.stats_row(guild_id, kind.value, user_id)
        if row is None:
            return StatLine(guild_id, kind, user_id, "", INITIAL_RATING, 0)
        counters = {name: row[name] for name in STAT_COLUMNS}
        return StatLine(
            guild_id=guild_id,
            game=kind,
            user_id=user_id,
            name=row["name"],
            rating=float(row["rating"]),
            experience=row["experience"],
            streak=row["streak"],
            **counters,
        )

    async def export(self, match_id: int, guild_id: int) -> ExportFile:
        """``.mat`` for Nannon/backgammon, ``.pdn`` for checkers, rebuilt from the event log."""
        view = await self.get_view(match_id, guild_id)
        events = await self.store.events(match_id)
        actions = [action_from_dict(e.payload) for e in events]
        names = (view.players[0].name, view.players[1].name)
        date = time.strftime("%Y.%m.%d", time.gmtime(view.created_at))
        if view.kind is GameKind.CHECKERS:
            text = pdn_export(view.rules, actions, names, match_id, date)
            return ExportFile(f"tablebot-{match_id}.pdn", text)
        text = mat_export(view.kind, view.rules, actions, names, match_id, date)
        return ExportFile(f"tablebot-{match_id}.mat", text)

    async def verify_match(self, match_id: int, guild_id: int) -> VerifyReport:
        view = await self.get_view(match_id, guild_id)
        events = await self.store.events(match_id)
        dice: list[int] = []
        for event in events:
            if event.kind in (OpeningRoll.kind, Roll.kind):
                dice.extend(int(d) for d in event.payload["dice"])
        commitment_hex = view.dice_commitment or ""
        row = await self.store.match_row(match_id)
        drawn = int(row["dice_counter"]) if row is not None else len(dice)
        if view.dice_seed is None:
            return VerifyReport(match_id, commitment_hex, None, tuple(dice), None, drawn)
        # Every die drawn must be in the log: a die drawn and not shown would be a hidden
        # re-roll, even if the dice shown all follow from the seed.
        ok = verify(commitment_hex, view.dice_seed, dice) and drawn == len(dice)
        return VerifyReport(match_id, commitment_hex, view.dice_seed, tuple(dice), ok, drawn)

    async def idle_matches(self, now: float | None = None) -> list[IdleMatch]:
        """Active matches whose actor is idle past the reminder (not yet sent) or claim time."""
        now = self._clock() if now is None else now
        found = []
        for row in await self.store.active_match_rows():
            settings = await self.guild_settings(row["guild_id"])
            idle_for = now - row["last_action_at"]
            if idle_for < settings.reminder_minutes * 60 and idle_for < settings.claim_minutes * 60:
                continue
            view = await self.get_view(row["id"])
            if view.actor is None or view.status is not MatchStatus.ACTIVE:
                continue
            reminder_due = (
                idle_for >= settings.reminder_minutes * 60
                and row["reminded_version"] != view.version
            )
            claimable = idle_for >= settings.claim_minutes * 60
            if reminder_due or claimable:
                found.append(
                    IdleMatch(
                        match_id=view.match_id,
                        guild_id=view.guild_id,
                        channel_id=view.channel_id,
                        thread_id=view.thread_id,
                        version=view.version,
                        idle=view.players[view.actor],
                        waiting=view.players[1 - view.actor],
                        idle_since=view.last_action_at,
                        reminder_due=reminder_due,
                        claimable=claimable,
                    )
                )
        return found

    async def mark_reminded(self, match_id: int, version: int) -> None:
        """Record that the reminder for this version was sent, so it is sent once."""
        await self.store.update_match(match_id, reminded_version=version)
        live = self._live.get(match_id)
        if live is not None:
            live.record.reminded_version = version

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        cached = self._settings.get(guild_id)
        if cached is not None:
            return cached
        stored = await self.store.guild_settings(guild_id)
        known = {f.name for f in fields(GuildSettings)}
        data = {k: v for k, v in stored.items() if k in known}
        if "challenge_channels" in data:
            data["challenge_channels"] = tuple(data["challenge_channels"])
        settings = GuildSettings(**data)
        self._settings[guild_id] = settings
        return settings

    async def update_guild_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Validate and store changes (field names of GuildSettings); GameError on bad values."""
        current = await self.guild_settings(guild_id)
        types = {f.name: f.type for f in fields(GuildSettings)}
        clean: dict[str, Any] = {}
        for name, value in changes.items():
            if name not in types:
                raise GameError(f"There is no setting called {str(name)[:40]!r}.")
            clean[name] = _checked_setting(name, value, getattr(current, name))
        updated = replace(current, **clean)
        if updated.claim_minutes < updated.reminder_minutes:
            raise GameError(
                "The claim time must be at least the reminder time "
                f"({updated.reminder_minutes} minutes)."
            )
        data = asdict(updated)
        data["challenge_channels"] = list(updated.challenge_channels)
        await self.store.save_guild_settings(guild_id, data, self._clock())
        self._settings[guild_id] = updated
        return updated

    async def record_shout(
        self, match_id: int, guild_id: int, user_id: int, game_number: int | None = None
    ) -> bool:
        """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
        game (the latest one when ``game_number`` is None); False otherwise."""
        view = await self.get_view(match_id, guild_id)
        seat = view.seat_of(user_id)
        nannons = [
            g
            for g in view.games
            if g.kind is ResultKind.NANNON and (game_number is None or g.game_number == game_number)
        ]
        if seat is None or not nannons or nannons[-1].winner != seat:
            return False
        return await self.store.record_shout(
            match_id, nannons[-1].game_number, user_id, guild_id, view.kind.value, self._clock()
        )

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        await self.store.update_match(match_id, thread_id=thread_id)
        live = self._live.get(match_id)
        if live is not None:
            live.record.thread_id = thread_id

    async def set_board_message(self, match_id: int, message_id: int | None) -> None:
        await self.store.update_match(match_id, board_message_id=message_id)
        live = self._live.get(match_id)
        if live is not None:
            live.record.board_message_id = message_id

    async def resume_active(self) -> list[MatchView]:
        """Load every active match (at start-up); returns their views."""
        views = []
        for row in await self.store.active_match_rows():
            try:
                views.append(await self.get_view(row["id"]))
            except Exception:
                log.exception("match %d could not be resumed", row["id"])
        log.info("resumed %d active matches", len(views))
        return views


def _checked_setting(name: str, value: Any, current: Any) -> Any:
    """``value`` converted to the type of setting ``name``; GameError if it does not fit."""
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("on", "true", "yes", "1"):
            return True
        if text in ("off", "false", "no", "0"):
            return False
        raise GameError(f"{name} is on or off, not {str(value)[:40]!r}.")
    if isinstance(current, int):
        try:
            number = int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise GameError(f"{name} is a whole number, not {str(value)[:40]!r}.") from None
        low, high = _BOUNDS[name]
        if isinstance(number, bool) or not low <= number <= high:
            raise GameError(f"{name} must be between {low} and {high}, not {str(value)[:40]}.")
        return number
    if name == "challenge_channels":
        items = value if isinstance(value, list | tuple | set | frozenset) else [value]
        channels = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int) or item <= 0:
                raise GameError(f"Challenge channels are channel ids, not {str(item)[:40]!r}.")
            channels.append(item)
        if len(channels) > 25:
            raise GameError("At most 25 challenge channels.")
        return tuple(sorted(set(channels)))
    raise GameError(f"{name} can't be changed.")


# --- the command table ------------------------------------------------------------------------
# A handler checks a command's own arguments and returns its decide function, which picks the
# engine action for the acting seat, with the match's lock held (or refuses with a GameError).


@dataclass(frozen=True)
class _Turn:
    """What a decide function sees: the loaded match, the acting seat, the server's settings
    and the time."""

    live: _Live
    seat: int
    settings: GuildSettings
    now: float


Decide = Callable[[_Turn], Action]
Handler = Callable[[Any], Decide]
_C = TypeVar("_C", bound=MatchCommand)

COMMAND_HANDLERS: dict[type[MatchCommand], Handler] = {}


def _handles(kind: type[_C]) -> Callable[[Callable[[_C], Decide]], Callable[[_C], Decide]]:
    def register(handler: Callable[[_C], Decide]) -> Callable[[_C], Decide]:
        COMMAND_HANDLERS[kind] = handler
        return handler

    return register


def _name(live: _Live, seat: int) -> str:
    return live.record.players[seat].name


def _draw(live: _Live) -> tuple[int, ...]:
    count = 1 if live.record.game is GameKind.NANNON else 2
    return tuple(live.dice.roll_die() for _ in range(count))


def _refuse_offers(live: _Live, seat: int) -> None:
    """A user-fit refusal while an offer waits for an answer."""
    match = live.match
    phase = match.phase
    if phase is Phase.CUBE_OFFERED:
        if match.cube_offered_by == seat:
            other = _name(live, 1 - seat)
            raise NotYourTurnError(f"Waiting for {other} to take or pass your double.")
        raise CubeError(CubeErrorReason.OFFER_PENDING, "You were doubled: take or pass first.")
    if phase is Phase.RESIGN_OFFERED:
        resigner = match.resign_offer[0]
        if resigner == seat:
            other = _name(live, 1 - seat)
            raise NotYourTurnError(f"Waiting for {other} to answer your resignation.")
        raise PhaseError(
            f"Answer {_name(live, resigner)}'s resignation first: accept or decline it."
        )
    if phase is Phase.DRAW_OFFERED:
        offerer = match.draw_offered_by
        if offerer == seat:
            other = _name(live, 1 - seat)
            raise NotYourTurnError(f"Waiting for {other} to answer your draw offer.")
        raise PhaseError(f"Answer {_name(live, offerer)}'s draw offer first: accept or decline it.")


@_handles(RollDice)
def _roll(command: RollDice) -> Decide:
    def decide(turn: _Turn) -> Action:
        live, seat = turn.live, turn.seat
        match = live.match
        if live.record.game is GameKind.CHECKERS:
            raise PhaseError("Checkers has no dice: pick a move.")
        phase = match.phase
        if phase in (Phase.OPENING, Phase.OPENING_TIE):
            return OpeningRoll(seat, (live.dice.roll_die(), live.dice.roll_die()))
        _refuse_offers(live, seat)
        if seat != match.turn:
            raise NotYourTurnError(f"It's {_name(live, match.turn)}'s turn.")
        if phase is Phase.MOVE:
            raise PhaseError("You rolled already: pick a move.")
        return Roll(seat, _draw(live))

    return decide


@_handles(PlayMove)
def _play(command: PlayMove) -> Decide:
    move = command.move

    def decide(turn: _Turn) -> Action:
        live, seat = turn.live, turn.seat
        match = live.match
        _refuse_offers(live, seat)
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            raise PhaseError("The opening roll comes first: roll again (either player may).")
        if seat != match.turn:
            raise NotYourTurnError(f"It's {_name(live, match.turn)}'s turn.")
        if match.phase is Phase.ROLL:
            raise PhaseError("Roll first, then move.")
        text = move if isinstance(move, str) else match.format_move(move)
        text = text.strip()
        if not text:
            raise InvalidNotationError("Type a move, e.g. one from the list.")
        if len(text) > _MAX_MOVE_TEXT:
            raise InvalidNotationError("That is far too long to be a move.")
        if match.phase is Phase.MOVE and text in MatchService._legal(live)[1]:
            return Move(seat, text)  # a move from the list, already in its notation
        parsed = match.parse_move(text)
        return Move(seat, match.format_move(parsed))

    return decide


@_handles(OfferDouble)
def _double(command: OfferDouble) -> Decide:
    def decide(turn: _Turn) -> Action:
        live, seat = turn.live, turn.seat
        match = live.match
        if live.record.game is GameKind.CHECKERS:
            raise CubeError(CubeErrorReason.NO_CUBE, "Checkers has no doubling cube.")
        _refuse_offers(live, seat)
        if match.phase in (Phase.ROLL, Phase.MOVE) and seat != match.turn:
            raise NotYourTurnError(f"It's {_name(live, match.turn)}'s turn.")
        return Double(seat)

    return decide


def _answer_double(answer: type[Take] | type[Drop]) -> Decide:
    def decide(turn: _Turn) -> Action:
        live, seat = turn.live, turn.seat
        offered_by = getattr(live.match, "cube_offered_by", None)
        if live.match.phase is Phase.CUBE_OFFERED and offered_by == seat:
            other = _name(live, 1 - seat)
            raise NotYourTurnError(f"Only {other} can take or pass your double.")
        return answer(seat)

    return decide


@_handles(TakeDouble)
def _take(command: TakeDouble) -> Decide:
    return _answer_double(Take)


@_handles(PassDouble)
def _pass(command: PassDouble) -> Decide:
    """Pass (drop) the offered double: the game is lost at the stake before the double."""
    return _answer_double(Drop)


def _resign_level(level: ResignLevel | str | int) -> ResignLevel:
    if isinstance(level, ResignLevel):
        return level
    try:
        if isinstance(level, int):
            return ResignLevel(level)
        return ResignLevel[str(level).strip().upper()]
    except (KeyError, ValueError):
        raise GameError(f"Resign single, gammon or backgammon, not {str(level)[:40]!r}.") from None


@_handles(OfferResignation)
def _resign(command: OfferResignation) -> Decide:
    level = _resign_level(command.level)  # refused before the match is looked at
    return lambda turn: Resign(turn.seat, level)


@_handles(AcceptResignation)
def _accept_resignation(command: AcceptResignation) -> Decide:
    return lambda turn: AcceptResign(turn.seat)


@_handles(DeclineResignation)
def _decline_resignation(command: DeclineResignation) -> Decide:
    return lambda turn: DeclineResign(turn.seat)


@_handles(cmd.OfferDraw)
def _offer_draw(command: cmd.OfferDraw) -> Decide:
    def decide(turn: _Turn) -> Action:
        if turn.live.match.phase is not Phase.MOVE:
            # An offer waiting (the player's own, or one to answer) says so plainly.
            _refuse_offers(turn.live, turn.seat)
        return OfferDraw(turn.seat)

    return decide


@_handles(cmd.AcceptDraw)
def _accept_draw(command: cmd.AcceptDraw) -> Decide:
    return lambda turn: AcceptDraw(turn.seat)


@_handles(cmd.DeclineDraw)
def _decline_draw(command: cmd.DeclineDraw) -> Decide:
    return lambda turn: DeclineDraw(turn.seat)


@_handles(LeaveMatch)
def _leave(command: LeaveMatch) -> Decide:
    return lambda turn: ConcedeMatch(turn.seat, "left")


@_handles(ClaimWin)
def _claim(command: ClaimWin) -> Decide:
    def decide(turn: _Turn) -> Action:
        live, seat, settings = turn.live, turn.seat, turn.settings
        idle_seat = live.match.actor
        if idle_seat is None:
            raise GameError("Either player may roll now: there is nobody to claim against.")
        if idle_seat == seat:
            raise NotYourTurnError("The match is waiting for you: you can't claim it.")
        waited = turn.now - live.record.last_action_at
        needed = settings.claim_minutes * 60
        if waited < needed:
            left = max(1, math.ceil((needed - waited) / 60))
            raise GameError(
                f"You can claim the match when {_name(live, idle_seat)} has been idle "
                f"for {settings.claim_minutes} minutes: {left} more to go."
            )
        return ConcedeMatch(idle_seat, "timeout")

    return decide
