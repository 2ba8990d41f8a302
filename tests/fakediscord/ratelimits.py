"""Time and rate limits of the fake: its clock, Discord's rate limits, and request counters.

The clock
---------
Every deadline and window of the fake (the 3 s initial response, the 15-minute interaction token,
thread auto-archiving, rate-limit windows) reads ``FakeServer.now()``: the injected clock (any
``() -> float`` in seconds) plus what the test advanced (``await fake.advance(seconds)``). The
default clock is a :class:`FakeClock`, frozen unless advanced, so no test depends on how fast
the machine is. ``clock=time.monotonic`` runs the fake on real time (a benchmark).

Rate limits (``FakeDiscord(rate_limits=True)`` or ``fake.set_rate_limits(...)``)
--------------------------------------------------------------------------------
Off by default: discord.py obeys a 429 and an exhausted bucket by sleeping in real time, and an
ordinary test posts more than 5 messages in a channel within 5 s of the frozen clock. When on:

* a global limit of 50 requests per second per bot token, on every request made with the bot
  token except the interaction endpoints (the callback, and follow-ups and edits through the
  interaction's webhook), which Discord exempts. Over it: 429, ``"global": true``, headers
  ``X-RateLimit-Global: true`` and ``X-RateLimit-Scope: global``;
* per-route buckets counted per top-level resource (channel, guild, webhook), with the headers
  Discord sends on every response (``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch
  seconds), ``-Reset-After`` (seconds), ``-Bucket``). Over one: 429, ``"global": false``,
  ``X-RateLimit-Scope: user``. A window opens at its first request and resets ``window``
  seconds later (fixed windows, as the headers describe them). Discord publishes no table and
  asks bots to read the headers; the fake's values are the commonly observed ones: 5 messages
  per 5 s per channel, 5 edits per 5 s, 5 deletions per second, one reaction per 0.25 s
  (reactions share a bucket), and 5 per 5 s for any other route;
* every 429 carries the JSON body ``{"message", "retry_after" (seconds, float), "global"}`` and
  the ``Retry-After`` and ``Via`` headers (discord.py takes a 429 without ``Via`` for a
  Cloudflare ban).

A request refused by a limit is recorded (``Call.status == 429``) and does nothing.
``RateLimits().scaled(0.01)`` keeps the counts and shrinks every window, for a bot test on a
real clock that should meet the limits without waiting seconds.

Counters (``fake.stats``, always on)
-----------------------------------
Requests made with the bot token, by ``"METHOD /route/{template}"``; requests to the interaction
endpoints (exempt); the 429s sent (scripted ones from ``fail_next`` too), by route, and how many
of them were global. ``before = fake.stats.snapshot()`` ... ``fake.stats.since(before)``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace

MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = MESSAGES + "/{message_id}"
# Path parameters naming the top-level resource a bucket is counted for.
MAJOR_PARAMETERS = ("channel_id", "guild_id", "webhook_id", "webhook_token")
INTERACTION_PREFIXES = ("/interactions/", "/webhooks/")


class FakeClock:
    """Seconds that move only when the test says so (``advance``); starts at the wall time."""

    def __init__(self, start: float | None = None) -> None:
        self.time = time.time() if start is None else start

    def __call__(self) -> float:
        return self.time

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time never goes back")
        self.time += seconds


@dataclass(frozen=True)
class Bucket:
    """``limit`` requests per ``window`` seconds, per top-level resource."""

    name: str
    limit: int
    window: float

    @property
    def hash(self) -> str:
        """The X-RateLimit-Bucket value: opaque, stable, shared by the bucket's routes."""
        return hashlib.sha1(self.name.encode()).hexdigest()[:32]


REACTIONS = Bucket("reactions", 1, 0.25)
ROUTE_BUCKETS: dict[tuple[str, str], Bucket] = {
    ("POST", MESSAGES): Bucket("messages.create", 5, 5.0),
    ("PATCH", MESSAGE): Bucket("messages.edit", 5, 5.0),
    ("DELETE", MESSAGE): Bucket("messages.delete", 5, 1.0),
    ("PUT", MESSAGE + "/reactions/{emoji}/@me"): REACTIONS,
    ("DELETE", MESSAGE + "/reactions/{emoji}/@me"): REACTIONS,
    ("DELETE", MESSAGE + "/reactions/{emoji}/{user_id}"): REACTIONS,
    ("DELETE", MESSAGE + "/reactions"): REACTIONS,
}


@dataclass(frozen=True)
class RateLimits:
    """What the fake enforces when rate limits are on (see the module docstring)."""

    global_limit: int = 50
    global_window: float = 1.0
    routes: dict[tuple[str, str], Bucket] = field(default_factory=lambda: dict(ROUTE_BUCKETS))
    # Any other route: its own bucket of this size.
    default_limit: int = 5
    default_window: float = 5.0

    def bucket(self, method: str, route: str) -> Bucket:
        found = self.routes.get((method, route))
        if found is not None:
            return found
        return Bucket(f"{method} {route}", self.default_limit, self.default_window)

    def scaled(self, factor: float) -> RateLimits:
        """The same counts with every window multiplied by ``factor``."""
        routes = {k: replace(b, window=b.window * factor) for k, b in self.routes.items()}
        return replace(
            self,
            global_window=self.global_window * factor,
            routes=routes,
            default_window=self.default_window * factor,
        )


def is_interaction_endpoint(path: str) -> bool:
    """The callback and the interaction webhook's routes: exempt from the global limit."""
    return path.startswith(INTERACTION_PREFIXES)


@dataclass
class Verdict:
    """The limiter's answer for one request: headers to send, and a 429 body when refused."""

    headers: dict[str, str]
    refused: dict[str, object] | None = None
    is_global: bool = False


@dataclass
class _Window:
    resets_at: float
    used: int = 0


class RateLimiter:
    """The state of the global limit and of every route bucket, read on the fake's clock."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._recent: deque[float] = deque()  # admitted bot-token requests, oldest first
        self._windows: dict[tuple[str, str], _Window] = {}

    def admit(self, method: str, route: str, params: dict[str, str], now: float) -> Verdict:
        """Count one bot-token request at ``now`` (not an interaction endpoint's)."""
        limits = self.limits
        recent = self._recent
        while recent and recent[0] <= now - limits.global_window:
            recent.popleft()
        if len(recent) >= limits.global_limit:
            retry_after = recent[0] + limits.global_window - now
            headers = {
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": "global",
                **_retry_headers(retry_after),
            }
            body = {
                "message": "You are being rate limited.",
                "retry_after": _round(retry_after),
                "global": True,
            }
            return Verdict(headers, body, is_global=True)
        recent.append(now)
        if not route:  # an unknown route: no bucket to report
            return Verdict({})
        bucket = limits.bucket(method, route)
        major = ":".join(params[p] for p in MAJOR_PARAMETERS if p in params)
        key = (bucket.name, major)
        window = self._windows.get(key)
        if window is None or now >= window.resets_at:
            window = self._windows[key] = _Window(now + bucket.window)
        reset_after = window.resets_at - now
        headers = {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket.hash,
        }
        if window.used >= bucket.limit:
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Scope"] = "user"
            headers.update(_retry_headers(reset_after))
            body = {
                "message": "You are being rate limited.",
                "retry_after": _round(reset_after),
                "global": False,
            }
            return Verdict(headers, body)
        window.used += 1
        headers["X-RateLimit-Remaining"] = str(bucket.limit - window.used)
        return Verdict(headers)


def _round(seconds: float) -> float:
    return round(seconds, 3)


def _retry_headers(retry_after: float) -> dict[str, str]:
    # Retry-After is whole seconds; discord.py reads the body's retry_after. Via: see above.
    return {"Retry-After": str(max(1, math.ceil(retry_after))), "Via": "1.1 google"}


@dataclass
class RequestStats:
    """What the bot asked of the fake (see the module docstring); keys "METHOD /route"."""

    bot_token: Counter[str] = field(default_factory=Counter)
    interaction: Counter[str] = field(default_factory=Counter)
    rate_limited: Counter[str] = field(default_factory=Counter)  # 429s sent
    global_rate_limited: int = 0  # of which global

    @property
    def bot_token_total(self) -> int:
        return sum(self.bot_token.values())

    @property
    def interaction_total(self) -> int:
        return sum(self.interaction.values())

    @property
    def rate_limited_total(self) -> int:
        return sum(self.rate_limited.values())

    def snapshot(self) -> RequestStats:
        return RequestStats(
            Counter(self.bot_token),
            Counter(self.interaction),
            Counter(self.rate_limited),
            self.global_rate_limited,
        )

    def since(self, earlier: RequestStats) -> RequestStats:
        """What happened after the ``earlier`` snapshot."""
        return RequestStats(
            self.bot_token - earlier.bot_token,
            self.interaction - earlier.interaction,
            self.rate_limited - earlier.rate_limited,
            self.global_rate_limited - earlier.global_rate_limited,
        )
