"""Per-member rate limiting of slash commands, button clicks and menu choices: one token bucket
per (guild, user), shared by all three.

A member may send ``rate_limit_actions`` commands or clicks in any ``rate_limit_seconds`` window
(the server's :class:`~bot.service.GuildSettings`); beyond that the interaction is refused with
an ephemeral "slow down" and never reaches the service. Autocomplete requests are not counted:
Discord sends one per keystroke, they only read, and they cannot carry a refusal message.

:class:`bot.discord.app.TableBot` holds one :class:`CommandRateLimit` as ``bot.rate_limit``. Its
command tree counts every slash command in its ``interaction_check``; components are not routed
through the tree, so every persistent component's ``interaction_check`` calls
:func:`allow_component` (via :func:`bot.discord.components.check_click`), which counts the click
in the same buckets.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.catalogue import plural_key, text

if TYPE_CHECKING:
    from bot.service import MatchService

log = logging.getLogger(__name__)

DEFAULT_ACTIONS = 20
DEFAULT_SECONDS = 10
# Guild settings are re-read at most this often (the admin cog invalidates on /config).
SETTINGS_TTL = 60.0
# Every this many hits, buckets that are full again are forgotten (bounded memory).
PRUNE_EVERY = 1024


@dataclass
class _Bucket:
    tokens: float
    updated: float
    full_at: float  # when it will have refilled completely, if left alone


@dataclass(frozen=True)
class Limit:
    actions: int
    seconds: float

    @property
    def rate(self) -> float:
        """Tokens refilled per second."""
        return self.actions / self.seconds


class RateLimiter:
    """Token buckets keyed by (guild, user). ``clock`` is monotonic seconds (tests inject one)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[tuple[int, int], _Bucket] = {}
        self._calls = 0

    def __len__(self) -> int:
        return len(self._buckets)

    def hit(self, guild_id: int, user_id: int, limit: Limit, now: float | None = None) -> float:
        """Take one token. Returns 0.0 when allowed, else the seconds until one is free."""
        now = self._clock() if now is None else now
        self._calls += 1
        if self._calls % PRUNE_EVERY == 0:
            self._prune(now)
        key = (guild_id, user_id)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(limit.actions), now, now)
        else:
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(float(limit.actions), bucket.tokens + elapsed * limit.rate)
            bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            bucket.full_at = now + (limit.actions - bucket.tokens) / limit.rate
            return 0.0
        return (1.0 - bucket.tokens) / limit.rate

    def _prune(self, now: float) -> None:
        # A bucket that has refilled completely is the same as no bucket: drop it.
        stale = [k for k, b in self._buckets.items() if b.full_at <= now]
        for key in stale:
            del self._buckets[key]


SettingsLoader = Callable[[int], Awaitable[Limit]]


class CommandRateLimit:
    """The limiter plus a per-guild cache of the configured limit."""

    def __init__(
        self,
        load_limit: SettingsLoader,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limiter = RateLimiter(clock)
        self._clock = clock
        self._load_limit = load_limit
        self._cache: dict[int, tuple[float, Limit]] = {}

    def invalidate(self, guild_id: int | None = None) -> None:
        """Forget cached limits (after /config changed them)."""
        if guild_id is None:
            self._cache.clear()
        else:
            self._cache.pop(guild_id, None)

    async def limit_for(self, guild_id: int) -> Limit:
        now = self._clock()
        cached = self._cache.get(guild_id)
        if cached is not None and now - cached[0] < SETTINGS_TTL:
            return cached[1]
        try:
            limit = await self._load_limit(guild_id)
        except Exception:
            # Never let a settings read failure lock everyone out; fall back to the default.
            log.exception("could not read the rate limit of guild %s", guild_id)
            limit = Limit(DEFAULT_ACTIONS, DEFAULT_SECONDS)
        self._cache[guild_id] = (now, limit)
        return limit

    async def retry_after(self, guild_id: int, user_id: int) -> float:
        """0.0 if this command may run (a token is taken), else seconds to wait."""
        limit = await self.limit_for(guild_id)
        return self.limiter.hit(guild_id, user_id, limit)


def refusal_text(retry_after: float) -> str:
    seconds = max(1, math.ceil(retry_after))
    return text(plural_key("refusal.slow_down", seconds), seconds=seconds)


async def allow_interaction(
    limits: CommandRateLimit, interaction: discord.Interaction[Any]
) -> bool:
    """Count ``interaction``; when over the limit, answer with an ephemeral refusal and say no."""
    if interaction.type is discord.InteractionType.autocomplete:
        return True
    guild_id = interaction.guild_id
    if guild_id is None:  # commands are guild-only and components are only posted in servers
        return True
    wait = await limits.retry_after(guild_id, interaction.user.id)
    if wait <= 0.0:
        return True
    log.info(
        "rate limited user %s in guild %s (retry in %.1fs)", interaction.user.id, guild_id, wait
    )
    try:
        if interaction.response.is_done():
            await interaction.followup.send(refusal_text(wait), ephemeral=True)
        else:
            await interaction.response.send_message(refusal_text(wait), ephemeral=True)
    except discord.HTTPException:
        log.warning("could not send the rate-limit refusal", exc_info=True)
    return False


async def allow_component(interaction: discord.Interaction[Any]) -> bool:
    """:func:`allow_interaction` for a button click or menu choice, with the client's limiter
    (``bot.rate_limit``: the same buckets as commands); True for a client without one."""
    limits: CommandRateLimit | None = getattr(interaction.client, "rate_limit", None)
    if limits is None:
        return True
    return await allow_interaction(limits, interaction)


def guild_limits(service: MatchService) -> SettingsLoader:
    """The loader of each server's limit: its ``rate_limit_*`` settings (defaults if unusable)."""

    async def load(guild_id: int) -> Limit:
        settings = await service.guild_settings(guild_id)
        actions = int(settings.rate_limit_actions)
        seconds = float(settings.rate_limit_seconds)
        if actions <= 0 or seconds <= 0:
            return Limit(DEFAULT_ACTIONS, DEFAULT_SECONDS)
        return Limit(actions, seconds)

    return load
