"""`tablebot` / `python -m bot`: load `.env`, check the settings, run the bot.

`tablebot sync` syncs the slash commands globally once and exits. `tablebot hint ...` prints
the robot's analysis of a position (bot/robot/cli.py) and needs no settings.
"""

from __future__ import annotations

import logging
import sys

from dotenv import load_dotenv

from bot.config import ConfigError, Settings

log = logging.getLogger(__name__)

USAGE = (
    "usage: tablebot [sync | hint ...]\n"
    "  (no argument)  run the bot\n"
    "  sync           sync slash commands globally, then exit\n"
    "  hint ...       the robot's analysis of a position (tablebot hint --help)"
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if args and args[0] == "hint":
        from bot.robot.cli import main as hint_main

        return hint_main(args[1:])
    if args and args[0] != "sync":
        print(USAGE, file=sys.stderr)
        return 2
    load_dotenv(".env")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"tablebot: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    from bot.discord.app import run

    return run(settings, sync_only=bool(args))


if __name__ == "__main__":
    raise SystemExit(main())
