"""The state the service's parts share: the store, the dice factory, the clock, the loaded
matches (each with its lock) and the settings cache. :class:`ServiceState` is the only holder of
in-memory match state; every part of the service reaches a match through it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.service.bus import EventBus
from bot.service.errors import Refusal, refused
from bot.service.model import DiceFactory, MatchDice, MatchStatus, Player, RatingChange
from bot.service.settings import GuildSettings, SettingsBook
from bot.storage import Store
from engines import match_from_snapshot
from engines.base import GameKind, GameMatch, MatchRules
from engines.dice import FairDice
from engines.legal_moves import MoveNotation

MAX_NAME = 100
# SQLite integers are signed 64-bit: no row has an id outside, and binding one raises
# OverflowError, so such an id is refused as not found before it reaches the store.
_SQLITE_MIN_INT = -(2**63)
_SQLITE_MAX_INT = 2**63 - 1


def storable(*ids: int) -> bool:
    return all(_SQLITE_MIN_INT <= i <= _SQLITE_MAX_INT for i in ids)


def clean_name(name: str) -> str:
    name = " ".join(str(name).split())[:MAX_NAME]
    return name or "someone"


def game_kind(game: GameKind | str) -> GameKind:
    try:
        return GameKind(str(game).strip().lower())
    except ValueError:
        choices = tuple(k.value for k in GameKind)
        raise refused(Refusal.UNKNOWN_GAME, given=game, choices=choices) from None


def rating_changes_from_json(text: str | None) -> tuple[RatingChange, ...]:
    if not text:
        return ()
    return tuple(RatingChange(**item) for item in json.loads(text))


@dataclass
class MatchRecord:
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
    robot_seat: int | None = None  # the seat the robot plays; None between people
    robot_level: int | None = None  # its level, 1 (beginner) to 5 (master)

    @classmethod
    def from_row(cls, row: Any, next_seq: int) -> MatchRecord:
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
            rating_changes=rating_changes_from_json(row["rating_changes"]),
            robot_seat=row["robot_seat"],
            robot_level=row["robot_level"],
        )

    def seat_of(self, user_id: int) -> int:
        """The user's seat; a refusal for anyone outside the match."""
        for seat, player in enumerate(self.players):
            if player.user_id == user_id:
                return seat
        raise refused(Refusal.NOT_A_PLAYER, match_id=self.id)


@dataclass
class LiveMatch:
    """A loaded match: its row, engine object and dice, and the lock serializing its actions."""

    record: MatchRecord
    match: GameMatch
    dice: MatchDice
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    valid: bool = True  # False once evicted: a waiter must reload
    # The legal moves (hits first) and their notation, for the state after this many actions:
    # generating and formatting them is most of an action's engine time, so do it once.
    legal: tuple[int, MoveNotation] | None = None

    def name(self, seat: int) -> str:
        return self.record.players[seat].name


class ServiceState:
    """What the service's parts share. ``clock`` returns the current time in seconds."""

    def __init__(self, store: Store, dice_factory: DiceFactory, clock: Callable[[], float]) -> None:
        self.store = store
        self.dice_factory = dice_factory
        self.clock = clock
        self.live: dict[int, LiveMatch] = {}
        self.settings = SettingsBook(store, self.now)
        self.bus = EventBus()

    def now(self) -> float:
        return self.clock()

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self.settings.get(guild_id)

    def loaded(self, match_id: int) -> LiveMatch | None:
        """The match if it is loaded (active and used since the start), else None."""
        return self.live.get(match_id)

    async def live_match(self, match_id: int, guild_id: int | None) -> LiveMatch:
        """The match, loaded if need be; with ``guild_id``, refuse a match of another server."""
        live = self.live.get(match_id)
        if live is None:
            live = await self._load(match_id)
        if guild_id is not None and live.record.guild_id != guild_id:
            raise refused(Refusal.NO_SUCH_MATCH, match_id=match_id)
        return live

    async def _load(self, match_id: int) -> LiveMatch:
        if not storable(match_id):
            raise refused(Refusal.NO_SUCH_MATCH, match_id=match_id)
        row = await self.store.match_row(match_id)
        snapshot = await self.store.snapshot(match_id)
        if row is None or snapshot is None:
            raise refused(Refusal.NO_SUCH_MATCH, match_id=match_id)
        record = MatchRecord.from_row(row, await self.store.event_count(match_id))
        dice = FairDice(record.seed, row["dice_counter"])
        live = LiveMatch(record, match_from_snapshot(snapshot), dice)
        if record.status is MatchStatus.FINISHED:
            return live  # not cached: nothing changes any more
        # Another task may have loaded it meanwhile: keep the first, so there is one lock.
        return self.live.setdefault(match_id, live)

    def keep(self, live: LiveMatch) -> None:
        """Cache a match just created."""
        self.live[live.record.id] = live

    def evict(self, match_id: int) -> None:
        live = self.live.pop(match_id, None)
        if live is not None:
            live.valid = False

    def close(self) -> None:
        for live in self.live.values():
            live.valid = False
        self.live.clear()
