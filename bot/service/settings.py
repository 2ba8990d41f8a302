"""Per-server settings: the options, their bounds, and the checked, cached copy the service
reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from bot.service.errors import Refusal, refused
from bot.storage import Store
from engines.base import GameKind

__all__ = ["MAX_AUTO_DOUBLES", "MAX_LENGTH", "GuildSettings", "SettingsBook"]

MAX_LENGTH = 25
MAX_AUTO_DOUBLES = 8
MAX_CHALLENGE_CHANNELS = 25


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
    robot_rated: bool = False  # matches against the robot change ratings and leaderboards
    hints_in_human_matches: bool = False  # /hint in matches between people (robot: always)
    robot_pause_ms: int = 1000  # the robot shows its move after this pause (milliseconds)
    robot_think_s: int = 2  # the master robot thinks up to this long a checkers move (seconds)
    analyse_robot_matches: bool = True  # a robot match is analysed when it ends
    analyse_human_matches: bool = False  # a match between people is analysed when it ends

    def default_length(self, game: GameKind) -> int:
        length: int = getattr(self, f"{GameKind(game).value}_length")  # one field per game
        return length


BOUNDS: dict[str, tuple[int, int]] = {
    "nannon_length": (1, MAX_LENGTH),
    "backgammon_length": (0, MAX_LENGTH),
    "checkers_length": (1, MAX_LENGTH),
    "auto_doubles": (0, MAX_AUTO_DOUBLES),
    "reminder_minutes": (1, 30 * 24 * 60),
    "claim_minutes": (1, 30 * 24 * 60),
    "challenge_minutes": (1, 7 * 24 * 60),
    "rate_limit_actions": (1, 1000),
    "rate_limit_seconds": (1, 3600),
    "robot_pause_ms": (0, 10_000),
    "robot_think_s": (1, 30),
}


def checked_setting(name: str, value: Any, current: Any) -> Any:
    """``value`` converted to the type of setting ``name``; refused if it does not fit."""
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("on", "true", "yes", "1"):
            return True
        if text in ("off", "false", "no", "0"):
            return False
        raise refused(Refusal.SETTING_NOT_ON_OFF, setting=name, value=value)
    if isinstance(current, int):
        try:
            number = int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise refused(Refusal.SETTING_NOT_A_NUMBER, setting=name, value=value) from None
        low, high = BOUNDS[name]
        if isinstance(number, bool) or not low <= number <= high:
            raise refused(
                Refusal.SETTING_OUT_OF_RANGE, setting=name, low=low, high=high, value=value
            )
        return number
    if name == "challenge_channels":
        items = value if isinstance(value, list | tuple | set | frozenset) else [value]
        channels = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int) or item <= 0:
                raise refused(Refusal.NOT_A_CHANNEL, value=item)
            channels.append(item)
        if len(channels) > MAX_CHALLENGE_CHANNELS:
            raise refused(Refusal.TOO_MANY_CHANNELS, most=MAX_CHALLENGE_CHANNELS)
        return tuple(sorted(set(channels)))
    raise refused(Refusal.SETTING_FIXED, setting=name)


def changed(current: GuildSettings, changes: dict[str, Any]) -> GuildSettings:
    """``current`` with ``changes`` (field names of GuildSettings) checked and applied."""
    types = {f.name: f.type for f in fields(GuildSettings)}
    clean: dict[str, Any] = {}
    for name, value in changes.items():
        if name not in types:
            raise refused(Refusal.UNKNOWN_SETTING, setting=name)
        clean[name] = checked_setting(name, value, getattr(current, name))
    updated = replace(current, **clean)
    if updated.claim_minutes < updated.reminder_minutes:
        raise refused(Refusal.CLAIM_BEFORE_REMINDER, reminder_minutes=updated.reminder_minutes)
    return updated


class SettingsBook:
    """Every server's settings, read from the store once and cached; the service's only writer."""

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock
        self._cache: dict[int, GuildSettings] = {}

    async def get(self, guild_id: int) -> GuildSettings:
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        stored = await self._store.guild_settings(guild_id)
        known = {f.name for f in fields(GuildSettings)}
        data = {k: v for k, v in stored.items() if k in known}
        if "challenge_channels" in data:
            data["challenge_channels"] = tuple(data["challenge_channels"])
        settings = GuildSettings(**data)
        self._cache[guild_id] = settings
        return settings

    async def update(self, guild_id: int, changes: dict[str, Any]) -> GuildSettings:
        updated = changed(await self.get(guild_id), changes)
        data = asdict(updated)
        data["challenge_channels"] = list(updated.challenge_channels)
        await self._store.save_guild_settings(guild_id, data, self._clock())
        self._cache[guild_id] = updated
        return updated
