"""A match against the robot at the terminal: read a line, turn it into the service's command
(or a look at the board, a hint, help), show what happened, let the robot play, and once the
match is over show its analysis.

The session holds no rule and no state of the match: every action is a command through
:meth:`MatchService.handle` with the version on the board shown; what happened (the human's
actions and the robot's) is told as the service's bus publishes it (:class:`MatchUpdated`); a
refusal is said politely and changes nothing. The robot's driver plays its seat on the bus's
word (:class:`RobotTurnWaiting`); the session waits for it before each prompt. Hints come from
:func:`bot.robot.advice.match_hint` after the service allowed them; the analysis is the
service's queue's (:class:`AnalysisQueue`).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from bot.rendering import board_job
from bot.robot.analyse_cli import summary
from bot.robot.worker import RobotCrashedError, RobotUnavailableError
from bot.service import (
    MatchCommand,
    MatchService,
    MatchView,
    ShowBoardAndWakeRobot,
)
from bot.service.commands import AskHint, ViewMatch
from bot.service.events import AnalysisEvent, AnalysisProgressed, MatchUpdated, RobotStuck
from bot.service.model import AnalysisStatus
from bot.terminal import wording
from bot.terminal.lines import Local, Unclear, read_line
from engines.errors import GameError
from engines.match_files import MatchFile
from engines.spec import spec_of
from render import jobs
from render.text import board_text

log = logging.getLogger(__name__)

Hint = Callable[[Any, int, str], Awaitable[dict[str, Any]]]
ReadLine = Callable[[str], str]  # input()'s shape: EOFError at the end


@dataclass(frozen=True)
class Human:
    """Who plays at the terminal: the ids the service knows them by."""

    guild_id: int
    user_id: int


class Console:
    """Lines in (``read_line``, ``input``'s shape), text out (``out``)."""

    def __init__(self, read_line: ReadLine = input, out: TextIO | None = None) -> None:
        self._read_line = read_line
        self.out = out if out is not None else sys.stdout

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def ask(self, prompt: str) -> str | None:
        """The next line (None at the end of the input). Read in a daemon thread: the analysis
        and the robot go on meanwhile, and Ctrl-C at the prompt is not held up by it at exit."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str | None] = loop.create_future()

        def settle(set_it: Callable[[Any], None], value: Any) -> None:
            if not answer.done():
                set_it(value)

        def read() -> None:
            try:
                line: str | None = self._read_line(prompt)
            except EOFError:
                line = None
            except BaseException as exc:  # Ctrl-C in the thread: the session's to handle
                loop.call_soon_threadsafe(settle, answer.set_exception, exc)
                return
            loop.call_soon_threadsafe(settle, answer.set_result, line)

        threading.Thread(target=read, name="tablebot-play-input", daemon=True).start()
        return await answer


class Robot(Protocol):
    """What the terminal needs of the robot's driver: to wait until it has played."""

    async def wait_idle(self) -> None: ...


class TerminalMatch:
    """Plays one match: ``await run(match_id)`` until it is over (True) or the human quits
    (False). ``png_dir``: each board shown is drawn there too and its path printed.
    ``attach()`` first: from then on every update of the human's matches is told on the
    console as the service's bus publishes it (the robot's as well as the human's)."""

    def __init__(
        self,
        service: MatchService,
        robot: Robot,
        console: Console,
        human: Human,
        *,
        png_dir: Path | None = None,
        hint: Hint,
    ) -> None:
        self.service = service
        self.robot = robot
        self.console = console
        self.human = human
        self.png_dir = png_dir
        self.hint = hint
        self._shown: int | None = None  # the version whose board was shown last

    def attach(self) -> Callable[[], None]:
        """Tell the human's matches' updates (and the robot's failures) from now on; returns
        the function that stops."""
        bus = self.service.bus
        stops = [bus.subscribe(MatchUpdated, self.told), bus.subscribe(RobotStuck, self.stuck)]

        def detach() -> None:
            for stop in stops:
                stop()

        return detach

    def stuck(self, event: RobotStuck) -> None:
        if event.guild_id == self.human.guild_id:
            self.console.say(wording.ROBOT_FAILED)

    def told(self, event: MatchUpdated) -> None:
        """An update the bus published: its events, a line each (the board waits for the
        prompt)."""
        view = event.update.view
        if view.guild_id != self.human.guild_id or view.seat_of(self.human.user_id) is None:
            return
        for line in filter(None, (wording.event_text(e, view) for e in event.update.events)):
            self.console.say(line)

    async def run(self, match_id: int) -> bool:
        say = self.console.say
        await self.show_again(match_id)  # the robot plays on if it owes a move
        while True:
            await self.robot.wait_idle()
            view = await self.service.handle(ViewMatch(match_id, self.human.guild_id))
            if view.match_over:
                await self.show_board(view)
                await self.analysis(view)
                suffix = spec_of(view.kind).export_suffix
                say(wording.EXPORT_IT.format(match_id=match_id, suffix=suffix))
                return True
            if view.version != self._shown:
                await self.show_board(view)
            say(wording.prompt(view, self._seat(view)))
            line = await self.console.ask(wording.PROMPT)
            if line is None or not await self.typed(view, line.strip()):
                say(wording.QUIT.format(match_id=match_id))
                return False

    async def show_again(self, match_id: int) -> None:
        """The board is shown again at the prompt; the robot, told, tries again if it owes a
        move (after a failure)."""
        await self.service.handle(ShowBoardAndWakeRobot(match_id, self.human.guild_id))
        self._shown = None

    async def typed(self, view: MatchView, text: str) -> bool:
        """Act on one typed line; False when it says to stop."""
        asked = read_line(text, view, self.human.guild_id, self.human.user_id)
        match asked:
            case Local.QUIT:
                return False
            case Local.HELP:
                self.console.say(wording.help_text(view.kind))
            case Local.BOARD:
                await self.show_again(view.match_id)
            case Local.MOVES:
                self.console.say(wording.moves_text(view))
            case Local.HINT:
                await self.give_hint(view)
            case Unclear(said):
                self.console.say(said)
            case MatchCommand():
                await self.act(asked)
        return True

    async def act(self, command: MatchCommand) -> None:
        """The command through the service; its events are told as the bus publishes them."""
        try:
            await self.service.handle(command)
        except GameError as exc:
            self.console.say(wording.refusal_text(exc))

    async def show_board(self, view: MatchView) -> None:
        job = board_job(view)
        text = board_text(*job)
        if view.gnubg_match_id:  # beside the Position ID, as GNU Backgammon shows the two
            text += f"\nMatch ID: {view.gnubg_match_id}"
        self.console.say(text)
        self._shown = view.version
        if self.png_dir is None:
            return
        path = self.png_dir / f"match-{view.match_id}-{view.version:04d}.png"
        try:
            png, _alt = await asyncio.to_thread(jobs.board, *job)
            await asyncio.to_thread(path.write_bytes, png)
        except OSError as exc:
            self.console.say(wording.BOARD_PNG_FAILED.format(error=exc))
            return
        self.console.say(wording.BOARD_PNG.format(path=path))

    async def give_hint(self, view: MatchView) -> None:
        human = self.human
        try:
            request = await self.service.handle(
                AskHint(view.match_id, human.guild_id, human.user_id)
            )
            data = await self.hint(request.match, request.seat, request.kind.value)
        except GameError as exc:
            self.console.say(wording.refusal_text(exc))
            return
        except RobotUnavailableError:
            self.console.say(
                wording.ROBOT_UNAVAILABLE.format(game=spec_of(view.kind).title.lower())
            )
            return
        except RobotCrashedError:
            self.console.say(wording.HINT_FAILED)
            return
        self.console.say(wording.hint_text(request.kind.value, data, view))

    async def analysis(self, view: MatchView) -> None:
        """The match's analysis, once the service's queue has run it (queued at the match's
        end when the terminal's settings ask for it and the game is analysed here)."""
        queue = self.service.analyses
        try:
            queued = await queue.view(view.match_id)
        except GameError:
            return  # none queued: analysis off, or not for this game here
        assert queue.runner is not None  # it queued the analysis
        evaluator = queue.runner.details(view.kind, queued.ply).get("evaluator", "")
        say = self.console.say
        say(wording.ANALYSING.format(evaluator=evaluator))

        async def progress(event: AnalysisEvent) -> None:
            done, total = event.analysis.games_done, event.analysis.games_total
            if isinstance(event, AnalysisProgressed) and done and total:
                say(wording.ANALYSIS_PROGRESS.format(done=done, total=total))

        queue.listeners.append(progress)
        try:
            await queue.wait_idle()
        finally:
            queue.listeners.remove(progress)
        done = await queue.view(view.match_id)
        if done.status is not AnalysisStatus.DONE or done.analysis is None:
            say(wording.ANALYSIS_FAILED)
            return
        names = (view.players[0].name, view.players[1].name)
        say(summary(MatchFile(view.kind, view.rules, (), names), done.analysis))

    def _seat(self, view: MatchView) -> int:
        seat = view.seat_of(self.human.user_id)
        assert seat is not None
        return seat
