"""Settings read from the environment (and `.env`), validated before anything starts."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.storage import is_postgres_url, redact

log = logging.getLogger(__name__)

# A bot token is three base64url parts joined by dots: the bot's user id, a timestamp, an HMAC.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A missing or malformed setting. The message tells the user what to put in `.env`."""


@dataclass(frozen=True)
class Settings:
    """``db_path`` is what ``TABLEBOT_DB`` names: a SQLite file (a Path) or a ``postgresql://``
    URL (a str). ``shard_count`` None asks Discord (``auto``); ``shard_ids`` None runs every
    shard in this process."""

    token: str
    db_path: str | Path
    dev_guild_id: int | None
    log_level: str
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None

    def __repr__(self) -> str:  # never show the token or a password, not even in a traceback
        return (
            f"Settings(token='***', db_path={redact(str(self.db_path))!r}, "
            f"dev_guild_id={self.dev_guild_id!r}, log_level={self.log_level!r}, "
            f"shard_count={self.shard_count!r}, shard_ids={self.shard_ids!r})"
        )

    @property
    def all_shards(self) -> bool:
        """Whether this process runs every shard (no TABLEBOT_SHARD_IDS, or all of them)."""
        return self.shard_ids is None or (
            self.shard_count is not None and set(self.shard_ids) == set(range(self.shard_count))
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "DISCORD_TOKEN is not set. Put your bot token in .env, e.g.\n"
                "    DISCORD_TOKEN=<the token from the Developer Portal, Bot -> Reset Token>\n"
                "(copy .env.example to .env to start; see README.md)."
            )
        if not _TOKEN_RE.match(token):
            raise ConfigError(
                f"DISCORD_TOKEN does not look like a bot token: {token_problem(token)}. "
                "A bot token is three parts joined by dots (about 70 characters). Copy the "
                "whole token from the Developer Portal (Bot -> Reset Token) into .env as "
                "DISCORD_TOKEN=..., with no quotes or spaces."
            )
        db_path = _database(env.get("TABLEBOT_DB", "").strip() or "tablebot.db")
        raw_guild = env.get("DEV_GUILD_ID", "").strip()
        dev_guild_id: int | None = None
        if raw_guild:
            if not raw_guild.isdigit() or not 15 <= len(raw_guild) <= 21:
                raise ConfigError(
                    f"DEV_GUILD_ID must be a server id (a 17-20 digit number), not {raw_guild!r}. "
                    "Enable Developer Mode in Discord, right-click the server, Copy Server ID; "
                    "or leave it empty to sync commands globally."
                )
            dev_guild_id = int(raw_guild)
        log_level = (env.get("LOG_LEVEL", "").strip() or "INFO").upper()
        if log_level not in _LOG_LEVELS:
            choices = ", ".join(_LOG_LEVELS)
            raise ConfigError(f"LOG_LEVEL must be one of {choices}, not {log_level!r}.")
        shard_count = _shard_count(env.get("TABLEBOT_SHARD_COUNT", "").strip())
        shard_ids = _shard_ids(env.get("TABLEBOT_SHARD_IDS", "").strip(), shard_count)
        settings = cls(
            token=token,
            db_path=db_path,
            dev_guild_id=dev_guild_id,
            log_level=log_level,
            shard_count=shard_count,
            shard_ids=shard_ids,
        )
        if not settings.all_shards and not is_postgres_url(db_path):
            raise ConfigError(
                f"TABLEBOT_SHARD_IDS={_ranges(shard_ids or ())} runs only some of the "
                f"{shard_count} shards, so other processes run the rest, and they must share "
                "one PostgreSQL database: set TABLEBOT_DB to a postgresql:// URL (`tablebot "
                "migrate-db --to URL` moves a SQLite database there), or leave "
                "TABLEBOT_SHARD_IDS empty to run every shard in this process on SQLite."
            )
        return settings


def token_problem(token: str) -> str:
    """What is wrong with a malformed bot token, without showing any of it."""
    if token[0] in "\"'" or token[-1] in "\"'":
        return "it is in quotes; leave them out"
    if token.lower().startswith(("bot ", "bot:", "bearer")):
        return "it starts with a word before the token; only the token goes there"
    if any(c.isspace() for c in token):
        return "it has a space in it; copy it again in one piece"
    bad = sorted({c for c in token if not (c.isascii() and (c.isalnum() or c in "-_."))})
    if bad:
        return f"it has characters a token never has ({' '.join(map(repr, bad))[:40]})"
    parts = token.split(".")
    if len(parts) == 1 and token.isdigit():
        return "it is a number: that is the application or user id, not the token"
    if len(parts) == 1 and len(token) == 32:
        return "it looks like the OAuth2 client secret (32 characters, no dots), not the token"
    if len(parts) != 3:
        return f"it has {len(parts)} dot-separated part{'s' * (len(parts) != 1)}, not 3"
    for name, part, least in zip(("first", "second", "third"), parts, (18, 4, 20), strict=True):
        if len(part) < least:
            return (
                f"its {name} part is {len(part)} characters long, shorter than a token's "
                f"({least} or more); part of it is missing"
            )
    return "it is not in a token's shape"


def _database(raw: str) -> str | Path:
    """TABLEBOT_DB: a postgresql:// URL as it is, else the path of a SQLite file."""
    if is_postgres_url(raw):
        return raw
    if "://" in raw:
        raise ConfigError(
            f"TABLEBOT_DB must be a file path or a postgresql:// URL, not {redact(raw)!r}."
        )
    path = Path(raw)
    if path.is_dir() or "\x00" in raw:
        raise ConfigError(
            f"TABLEBOT_DB must be the path of a database file, not {raw!r} "
            "(a folder?). E.g. TABLEBOT_DB=tablebot.db, or /data/tablebot.db in Docker; "
            "or a postgresql://user:password@host:5432/tablebot URL."
        )
    return path


def _shard_count(raw: str) -> int | None:
    """TABLEBOT_SHARD_COUNT: a number, or ``auto`` (or nothing): as many as Discord advises."""
    if raw.lower() in ("", "auto"):
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise ConfigError(
            f"TABLEBOT_SHARD_COUNT must be a number of shards (1 or more) or auto, not {raw!r}."
        )
    return int(raw)


def _shard_ids(raw: str, count: int | None) -> tuple[int, ...] | None:
    """TABLEBOT_SHARD_IDS: shard ids and ranges, e.g. ``0-3`` or ``0,2,4-5``; nothing: all."""
    if not raw:
        return None
    if count is None:
        raise ConfigError(
            f"TABLEBOT_SHARD_IDS={raw} needs TABLEBOT_SHARD_COUNT set to a number (every "
            "process must agree on it; auto could differ between them)."
        )
    ids: set[int] = set()
    for part in raw.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ConfigError(
                f"TABLEBOT_SHARD_IDS must be shard ids and ranges like 0-3 or 0,2,4-5, not {raw!r}."
            )
        low, high = int(first), int(last) if dash else int(first)
        if low > high or high >= count:
            raise ConfigError(
                f"TABLEBOT_SHARD_IDS={raw}: shard ids run from 0 to {count - 1} "
                f"(TABLEBOT_SHARD_COUNT={count})."
            )
        ids.update(range(low, high + 1))
    return tuple(sorted(ids))


def _ranges(ids: tuple[int, ...]) -> str:
    """``(0, 1, 2, 5)`` -> ``0-2,5``."""
    parts: list[str] = []
    for i in ids:
        if parts and i - 1 == int(parts[-1].rpartition("-")[2]):
            parts[-1] = f"{parts[-1].partition('-')[0]}-{i}"
        else:
            parts.append(str(i))
    return ",".join(parts)
