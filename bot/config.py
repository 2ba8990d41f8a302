"""Settings read from the environment (and `.env`), validated before anything starts."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# A bot token is three base64url parts joined by dots: the bot's user id, a timestamp, an HMAC.
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A missing or malformed setting. The message tells the user what to put in `.env`."""


@dataclass(frozen=True)
class Settings:
    token: str
    db_path: Path
    dev_guild_id: int | None
    log_level: str

    def __repr__(self) -> str:  # never show the token, not even in a traceback's locals
        return (
            f"Settings(token='***', db_path={str(self.db_path)!r}, "
            f"dev_guild_id={self.dev_guild_id!r}, log_level={self.log_level!r})"
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
                "DISCORD_TOKEN does not look like a bot token (three dot-separated parts). "
                "Copy the whole token from the Developer Portal (Bot -> Reset Token) into .env "
                "as DISCORD_TOKEN=..., with no quotes or spaces. Not a client secret or app id."
            )
        db_path = Path(env.get("TABLEBOT_DB", "").strip() or "tablebot.db")
        if db_path.is_dir() or "\x00" in str(db_path):
            raise ConfigError(
                f"TABLEBOT_DB must be the path of a database file, not {str(db_path)!r} "
                "(a folder?). E.g. TABLEBOT_DB=tablebot.db, or /data/tablebot.db in Docker."
            )
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
        return cls(token=token, db_path=db_path, dev_guild_id=dev_guild_id, log_level=log_level)
