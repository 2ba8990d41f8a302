"""``tablebot play``: a match against the robot at the terminal, no Discord needed.

    tablebot play [--game nannon|backgammon|checkers] [--level beginner..master] [--length N]
                  [--cube | --no-cube] [--name NAME] [--db PATH] [--png DIR] [--seed N]
                  [--new] [--no-analysis]
    tablebot play --export [MATCH] [--db PATH]

The match is stored like any other (the same service, store and robot as the bot), in its own
SQLite file: ``--db``, by default ``$XDG_DATA_HOME/tablebot/play.db`` (``~/.local/share/...``).
``quit`` (or the end of the input) leaves the match there, and the next ``tablebot play``
resumes it: the latest unfinished match, or with ``--game`` the latest of that game, saying
which, at what level and score, and which of the options given only a new match takes. ``--new``
starts a new match even so. ``--export`` writes the latest finished match (or match MATCH) as
the Discord bot's ``/export`` does, ``tablebot-<id>.mat`` or ``.pdn`` in the working directory,
for ``tablebot analyse`` or another program, and plays nothing. Lengths, the cube and the other
options left out take the service's defaults (Nannon 11 points, backgammon 5, checkers 1 game).
``--seed`` makes a new match's dice, and the robot's own draws, the same every time (for trying
things and for tests); without it the dice are fair and secret as in Discord.

Exit status: 0 when the match ended or was left to resume (or was exported), 130 after Ctrl-C
(the match is saved all the same: every action is committed as it is made), 1 when the robot
can't play here (backgammon without GNU Backgammon) or there is no finished match to export or
its file can't be written, 2 for bad arguments, options the service refuses or no such match.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from bot.robot import advice, player
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.driver import RobotDriver
from bot.robot.levels import LEVEL_NAMES, Level, parse_level
from bot.robot.worker import RobotWorker
from bot.service import MatchService, MatchView, RobotMatch, UpdateSettings
from bot.service.commands import ActiveMatches, Export, History
from bot.service.model import DiceFactory
from bot.storage import StoreError
from bot.terminal import wording
from bot.terminal.session import Console, Human, ReadLine, TerminalMatch
from bot.workers import WorkerPools
from engines.base import GameKind
from engines.dice import FairDice
from engines.errors import GameError
from engines.spec import spec_of

__all__ = ["HUMAN", "ROBOT_ID", "ROBOT_NAME", "default_db", "main"]

# The terminal's own ids in the service: one server, one channel, one human, the robot.
HUMAN = Human(guild_id=0, user_id=1)
CHANNEL_ID = 0
ROBOT_ID = 2
ROBOT_NAME = "tablebot"
DEFAULT_GAME = GameKind.NANNON
DEFAULT_LEVEL = Level.INTERMEDIATE
DEFAULT_NAME = "You"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"tablebot play: {message}\n")


def _level(text: str) -> Level:
    try:
        return parse_level(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tablebot play",
        description="Play a match against the robot in the terminal. Type 'help' at the "
        "prompt for the commands; 'quit' saves the match for the next 'tablebot play'.",
    )
    games = [kind.value for kind in GameKind]
    parser.add_argument("--game", choices=games, help=f"the game (default {DEFAULT_GAME.value})")
    parser.add_argument(
        "--level",
        type=_level,
        help=f"the robot's level: {', '.join(LEVEL_NAMES)} or 1-5 "
        f"(default {DEFAULT_LEVEL.name.lower()})",
    )
    parser.add_argument("--length", type=int, help="points (games in checkers); 0: money game")
    parser.add_argument(
        "--cube", action=argparse.BooleanOptionalAction, default=None, help="the doubling cube"
    )
    parser.add_argument("--name", help="your name on the board (default You)")
    parser.add_argument(
        "--db", type=Path, metavar="PATH", help=f"the SQLite file (default {default_db()})"
    )
    parser.add_argument("--png", type=Path, metavar="DIR", help="also draw each board as a PNG")
    parser.add_argument("--seed", type=int, help="the same dice (and robot) every time")
    parser.add_argument("--new", action="store_true", help="a new match, not the saved one")
    parser.add_argument("--no-analysis", action="store_true", help="no analysis at the end")
    parser.add_argument(
        "--export",
        nargs="?",
        type=int,
        const=0,
        metavar="MATCH",
        help="write the latest finished match (or match MATCH) as a .mat or .pdn file here, "
        "then exit",
    )
    return parser


def default_db() -> Path:
    """``$XDG_DATA_HOME/tablebot/play.db``, or ``~/.local/share/tablebot/play.db``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tablebot" / "play.db"


def seeded_dice(seed: int) -> DiceFactory:
    """A new match's dice, the same for the same ``seed``."""
    secret = hashlib.sha256(f"tablebot play {seed}".encode()).digest()
    return lambda: FairDice(secret)


def main(argv: Sequence[str], *, read_line: ReadLine = input, out: TextIO | None = None) -> int:
    """Run ``tablebot play``; ``read_line`` and ``out`` are the terminal (tests script them)."""
    try:
        options = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    console = Console(read_line, out)
    try:
        return asyncio.run(play(options, console))
    except KeyboardInterrupt:  # Ctrl-C: the match is saved as after every action
        console.say("")
        console.say(wording.INTERRUPTED)
        return 130


async def play(options: argparse.Namespace, console: Console) -> int:
    db: Path = options.db or default_db()
    dice = FairDice.new if options.seed is None else seeded_dice(options.seed)
    pools = WorkerPools.create()  # no process starts before its first call
    robot_worker = RobotWorker(pools.robot)
    runner = WorkerAnalysisRunner(pools.analysis, robot_worker)
    try:
        if options.png is not None:
            options.png.mkdir(parents=True, exist_ok=True)
        db.parent.mkdir(parents=True, exist_ok=True)
        service = await MatchService.open(db, dice_factory=dice, analysis_runner=runner)
    except (OSError, StoreError) as exc:
        console.say(wording.CANNOT_OPEN.format(error=" ".join(str(exc).split())))
        return 2
    if options.export is not None:
        try:
            return await export(service, options.export, console, Path.cwd())
        finally:
            await service.close()
            pools.shutdown()
    robot = RobotDriver(service, robot_worker)  # the bot's own robot driver, on the bus
    robot.rng = random.Random(options.seed)
    hint = functools.partial(advice.match_hint, robot_worker)
    session = TerminalMatch(service, robot, console, HUMAN, png_dir=options.png, hint=hint)
    robot.start()
    detach = session.attach()
    try:
        # The terminal's own server: the robot answers at once; the match is analysed at its
        # end unless asked not to.
        settings = {"robot_pause_ms": 0, "analyse_robot_matches": not options.no_analysis}
        await service.handle(UpdateSettings(HUMAN.guild_id, settings))
        try:
            match_id = await _match(service, robot_worker, options, console)
        except NoMatch as exc:
            console.say(exc.message)
            return exc.status
        await service.analyses.start()
        service.start_timers()  # the one scheduler, as in the bot (stopped by close)
        await session.run(match_id)
        return 0
    finally:
        detach()
        await robot.close()
        await service.close()
        pools.shutdown()


async def export(service: MatchService, match_id: int, console: Console, folder: Path) -> int:
    """Write match ``match_id`` (0: the latest finished one) into ``folder``: the exit status."""
    if match_id == 0:
        recent = await service.handle(History(HUMAN.guild_id, HUMAN.user_id, limit=100))
        finished = [entry.match_id for entry in recent if entry.result != "active"]
        if not finished:
            console.say(wording.NOTHING_TO_EXPORT)
            return 1
        match_id = finished[0]  # newest first
    try:
        exported = await service.handle(Export(match_id, HUMAN.guild_id))
    except GameError as exc:
        console.say(wording.refusal_text(exc))
        return 2
    path = folder / exported.filename
    try:
        path.write_text(exported.text, encoding="utf-8")
    except OSError as exc:
        console.say(wording.CANNOT_EXPORT.format(error=" ".join(str(exc).split())))
        return 1
    console.say(wording.EXPORTED.format(path=exported.filename, match_id=match_id))
    return 0


class NoMatch(Exception):
    """No match to play: ``message`` says why, ``status`` is the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


async def _match(
    service: MatchService, robot_worker: RobotWorker, options: argparse.Namespace, console: Console
) -> int:
    """The match to play: the saved one to resume, or a new one."""
    if not options.new:
        saved = await _saved(service, options.game)
        if saved is not None:
            console.say(wording.resuming(saved, _not_for(saved, options)))
            return saved.match_id
    game = GameKind(options.game or DEFAULT_GAME)
    if not await player.available(robot_worker, spec_of(game)):
        raise NoMatch(wording.ROBOT_UNAVAILABLE.format(game=spec_of(game).title.lower()), 1)
    try:
        start = RobotMatch(
            HUMAN.guild_id,
            CHANNEL_ID,
            HUMAN.user_id,
            options.name or DEFAULT_NAME,
            game,
            robot_id=ROBOT_ID,
            robot_name=ROBOT_NAME,
            level=int(DEFAULT_LEVEL if options.level is None else options.level),
            length=options.length,
            cube=options.cube,
        )
        update = await service.handle(start)
    except GameError as exc:
        raise NoMatch(wording.refusal_text(exc), 2) from None
    return update.match_id  # its first events were told as the bus published them


def _not_for(saved: MatchView, options: argparse.Namespace) -> list[str]:
    """The options given for a new match that the saved one doesn't have, as typed."""
    given = []
    if options.level is not None and int(options.level) != saved.robot_level:
        given.append(f"--level {options.level.name.lower()}")
    if options.length is not None and options.length != saved.length:
        given.append(f"--length {options.length}")
    if options.cube is not None and options.cube != saved.rules.cube:
        given.append("--cube" if options.cube else "--no-cube")
    if options.name is not None and options.name != saved.players[0].name:
        given.append(f"--name {options.name}")
    return given


async def _saved(service: MatchService, game: str | None) -> MatchView | None:
    """The latest unfinished match at this terminal (of ``game``, when given)."""
    views = await service.handle(ActiveMatches(HUMAN.guild_id, HUMAN.user_id))
    views = [v for v in views if game is None or v.kind.value == game]
    return max(views, key=lambda v: v.match_id, default=None)
