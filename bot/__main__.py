"""`tablebot` / `python -m bot`: load `.env`, check the settings, run the bot.

`tablebot sync` syncs the slash commands globally once and exits; `tablebot --version`; every
subcommand answers ``--help`` and does nothing else.
`tablebot migrate-db --to postgresql://...` copies the SQLite database named by `TABLEBOT_DB`
into that (empty) PostgreSQL database, checks it, and exits.
`tablebot hint ...` prints the robot's analysis of a position (bot/robot/cli.py) and needs no
settings; `tablebot analyse FILE` analyses a match file (bot/robot/analyse_cli.py), likewise.
Exit status: 2 for a bad setting or argument (here); running, `bot.discord.app.ExitCode`.
`tablebot play` plays a match against the robot in the terminal (bot/terminal/cli.py).
An unknown command is one line and exit 2. Output cut short by its reader (``| head``) ends
quietly, with exit status 141 as a program the broken pipe killed.
`--env-file PATH` (before the command, or after `sync`/`migrate-db`) reads the settings from
that file instead of `.env` in the working directory; the start says which file it read.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

from dotenv import load_dotenv

from bot.config import ConfigError, Settings

log = logging.getLogger(__name__)

USAGE = (
    "usage: tablebot [--env-file PATH] [sync | migrate-db --to URL]\n"
    "       tablebot hint ... | analyse FILE | play ... | --version\n"
    "  (no argument)          run the bot (settings from .env; see README.md)\n"
    "  --env-file PATH        read the settings from PATH instead of ./.env\n"
    "  sync                   sync slash commands globally, then exit\n"
    "  migrate-db --to URL    copy the SQLite database (TABLEBOT_DB) into an empty\n"
    "                         PostgreSQL database (postgresql://...), check it, then exit\n"
    "  hint ...               the robot's analysis of a position (tablebot hint --help)\n"
    "  analyse FILE           analyse a .mat or .pdn match (tablebot analyse --help)\n"
    "  play ...               play the robot in the terminal (tablebot play --help)\n"
    "  --version              print tablebot's version"
)
SYNC_USAGE = (
    "usage: tablebot sync\n"
    "Sync the slash commands globally (they can take up to an hour to show), then exit.\n"
    "Needs DISCORD_TOKEN in .env. Run it once, and again after changing a command; with\n"
    "DEV_GUILD_ID set, the commands also sync to that server at every start, at once."
)
HELP = ("-h", "--help")


def version() -> str:
    """The installed tablebot's version (a checkout that is not installed has none)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("tablebot")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        status = _command(args)
        sys.stdout.flush()  # here, where a broken pipe is caught, rather than at exit
        return status
    except BrokenPipeError:
        # The reader went away (``tablebot hint ... | head``): nothing more to say, and no
        # traceback when Python flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE


BROKEN_PIPE = 128 + 13  # as a shell reports a program that SIGPIPE ended


def _command(args: list[str]) -> int:
    if args and args[0] in HELP:
        print(USAGE)
        return 0
    if args and args[0] in ("-V", "--version"):
        print(f"tablebot {version()}")
        return 0
    if args and args[0] == "hint":
        from bot.robot.cli import main as hint_main

        return hint_main(args[1:])
    if args and args[0] in ("analyse", "analyze"):
        from bot.robot.analyse_cli import main as analyse_main

        return analyse_main(args[1:])
    if args and args[0] == "play":
        from bot.terminal.cli import main as play_main

        return play_main(args[1:])
    try:
        env_file, args = _env_file_option(args)
    except ConfigError as exc:
        print(f"tablebot: {exc}", file=sys.stderr)
        return 2
    if args and args[0] == "migrate-db":
        return migrate_db(args[1:], env_file)
    if args and args[0] != "sync":
        what = "option" if args[0].startswith("-") else "command"
        print(
            f"tablebot: unknown {what} {args[0][:40]!r} ('tablebot --help' lists the commands)",
            file=sys.stderr,
        )
        return 2
    if args[1:2] and args[1] in HELP:  # nothing synced, nothing read
        print(SYNC_USAGE)
        return 0
    if args[1:]:
        print(f"tablebot sync: unexpected argument {args[1]!r}\n{SYNC_USAGE}", file=sys.stderr)
        return 2
    read = _load_settings_file(env_file)
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"tablebot: {exc}\n({read})", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    log.info("%s", read.capitalize())
    from bot.discord.app import run

    return run(settings, sync_only=bool(args))


def _env_file_option(args: list[str]) -> tuple[Path | None, list[str]]:
    """``--env-file PATH`` (or ``--env-file=PATH``) taken out of ``args``: the file, if given
    and there (ConfigError if not), and the rest."""
    rest: list[str] = []
    env_file: Path | None = None
    words = iter(args)
    for word in words:
        if word == "--env-file" or word.startswith("--env-file="):
            value = word.partition("=")[2] if "=" in word else next(words, "")
            if not value:
                raise ConfigError("--env-file needs the path of a settings file")
            env_file = Path(value)
            if not env_file.is_file():
                raise ConfigError(f"--env-file {value}: there is no such file")
        else:
            rest.append(word)
    return env_file, rest


def _load_settings_file(env_file: Path | None) -> str:
    """Load ``env_file``, or ``.env`` in the working directory; says which was read."""
    path = env_file or Path(".env")
    if env_file is None and not path.is_file():
        return f"no .env in {Path.cwd()}: settings from the environment only"
    load_dotenv(path)
    return f"settings read from {path.resolve()}"


def migrate_db(args: list[str], env_file: Path | None = None) -> int:
    """`tablebot migrate-db --to URL`: the exit code (0 copied and checked, 1 refused or failed,
    2 bad arguments). Needs no Discord token."""
    parser = argparse.ArgumentParser(
        prog="tablebot migrate-db",
        description="Copy the SQLite database named by TABLEBOT_DB into an empty PostgreSQL "
        "database, then check that every match replays to its snapshot.",
    )
    parser.add_argument("--to", required=True, metavar="URL", help="postgresql://user@host/db")
    options = parser.parse_args(args)  # exits 2 on bad arguments
    print(_load_settings_file(env_file).capitalize() + ".")
    from bot.storage import is_postgres_url

    source = os.environ.get("TABLEBOT_DB", "").strip() or "tablebot.db"
    if not is_postgres_url(options.to):
        parser.error(f"--to must be a postgresql:// URL, not {options.to!r}")
    if is_postgres_url(source):
        parser.error(
            "TABLEBOT_DB names a PostgreSQL database already; set it to the SQLite file to copy."
        )
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    import asyncio

    from bot.storage import StoreError, redact
    from bot.storage.transfer import copy_database

    target = redact(options.to)
    print(f"Copying {source} into {target} ...", flush=True)
    try:
        report = asyncio.run(copy_database(source, options.to, ProgressBar(sys.stderr)))
    except (StoreError, OSError, ValueError) as exc:
        message = str(exc).replace(options.to, target)
        print(f"tablebot migrate-db: nothing copied: {message}", file=sys.stderr)
        return 1
    print(f"Copied {report.summary()}.")
    print(f"Every one of the {report.matches_replayed} matches replays to its snapshot.")
    print(f"Now set TABLEBOT_DB={target} (with its password) and start tablebot.")
    return 0


class ProgressBar:
    """migrate-db's progress on stderr: on a terminal one bar per stage, redrawn in place;
    elsewhere (a log, a pipe) a line at each tenth of it."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._redraw = stream.isatty()
        self._shown: dict[str, int] = {}  # the tenths each stage has printed (not redrawn)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total == 0 and stage not in ("replay", "analyse"):
            return  # an empty table: nothing to show
        share = 1.0 if total == 0 else min(done / total, 1.0)
        label = {"replay": "replaying matches", "analyse": "analysing"}.get(stage, stage)
        bar = "#" * round(share * self.WIDTH)
        line = f"{label:<20} [{bar:<{self.WIDTH}}] {share:4.0%} {done:,}/{total:,}"
        if self._redraw:
            end = "\n" if done >= total else ""
            self._stream.write(f"\r{line}{end}")
        else:
            tenth = int(share * 10)
            if self._shown.get(stage, -1) >= tenth:
                return
            self._shown[stage] = tenth
            self._stream.write(f"{line}\n")
        self._stream.flush()


if __name__ == "__main__":
    raise SystemExit(main())
