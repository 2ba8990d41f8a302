"""The terminal's sentences: every event of a match has one, refusals are said in words, and a
typed line becomes the service's command (or a polite word) without touching the match."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from support.terminal_views import robot_match_view

from bot.service import (
    AgreeDraw,
    ClaimWin,
    DeclineResignation,
    LeaveMatch,
    MatchService,
    MatchView,
    OfferResignation,
    PlayMove,
    RefuseDraw,
    RollDice,
)
from bot.service import events as ev
from bot.service.errors import Refusal, refused
from bot.service.events import RobotStuck
from bot.service.model import MatchEvent
from bot.terminal import wording
from bot.terminal.cli import HUMAN
from bot.terminal.lines import Asked, Local, Unclear, read_line
from bot.terminal.session import Console, TerminalMatch
from engines.base import GameKind, GameResult, Phase, ResignLevel, ResultKind
from engines.errors import IllegalMoveError

EVENTS: list[tuple[MatchEvent, str]] = [
    (ev.OpeningRolled((4, 4), None, True), "Opening roll: Ann 4, Robo 4: a tie. Either player"),
    (ev.OpeningRolled((3, 3), None, False, 2), "Opening roll: Ann 3, Robo 3: a tie. The cube"),
    (ev.OpeningRolled((6, 1), 0), "Opening roll: Ann 6, Robo 1: Ann to play first."),
    (ev.DiceRolled(1, (5,), ev.Stuck.TURN_PASSES), "Robo rolled 5. No legal move: the turn"),
    (ev.DiceRolled(0, (2,), ev.Stuck.MUST_PASS), "Ann rolled 2. No legal move: type 'no move'"),
    (ev.NoLegalMove(0, ev.Stuck.TURN_PASSES), "Ann has no legal move: the turn passes."),
    (ev.MovePlayed(1, "H/3", auto=True), "Robo played H/3 (the only move)."),
    (ev.DoubleOffered(0, 2), "Ann doubled to 2."),
    (ev.DoubleTaken(1, 2), "Robo took: the cube is at 2."),
    (ev.DoublePassed(1), "Robo passed."),
    (ev.ResignationOffered(1, ResignLevel.GAMMON), "Robo offered to resign (a NANNON)."),
    (ev.Resigned(0), "Ann resigned the game."),
    (ev.ResignationAccepted(0), "Ann accepted the resignation."),
    (ev.ResignationDeclined(0), "Ann declined the resignation."),
    (ev.DrawOffered(1), "Robo offered a draw."),
    (ev.DrawAccepted(0), "Ann accepted the draw."),
    (ev.DrawDeclined(0), "Ann declined the draw."),
    (ev.MatchLeft(0), "Ann conceded the match."),
    (ev.WinClaimed(0, 1), "Ann claimed the match: Robo was away too long."),
    (
        ev.GameOver(GameResult(1, 1, ResultKind.NANNON, 4, 2), (0, 4)),
        "Game 1: Robo won 4 points with a NANNON (Ann: no checker in safety). "
        "Score: Ann 0, Robo 4.",
    ),
    (ev.CrawfordGame(3), "Game 3 is the Crawford game: no doubling in it."),
    (ev.MatchOver(1, (1, 3)), "Robo won the match, Ann 1, Robo 3."),
    (ev.MatchOver(None, (0.5, 0.5)), "The match is drawn, Ann ½, Robo ½."),
]


@pytest.mark.asyncio
async def test_every_match_event_has_a_sentence(tmp_path: Path) -> None:
    view = await robot_match_view(tmp_path, GameKind.NANNON)
    for event, said in EVENTS:
        text = wording.event_text(event, view)
        assert text is not None and text.startswith(said), (event, text)
    started = ev.MatchStarted(view.match_id, GameKind.NANNON, 3, "c0ffee")
    assert wording.event_text(started, view) == (
        "Match #1: Nannon, a match to 3 points, against Robo (intermediate)."
    )
    kinds = {type(event) for event, _ in EVENTS} | {ev.MatchStarted}
    every = {
        cls for cls in vars(ev).values() if isinstance(cls, type) and issubclass(cls, MatchEvent)
    }
    assert every - {MatchEvent} == kinds


def test_refusals_in_words_and_the_engines_errors_as_they_are() -> None:
    assert wording.refusal_text(refused(Refusal.NOT_YOUR_TURN, name="Robo")) == "It's Robo's turn."
    assert wording.refusal_text(refused(Refusal.ROLL_FIRST)) == "Roll first, then move."
    # A refusal the terminal has no words for still gets a polite line, never a traceback.
    assert wording.refusal_text(refused(Refusal.CLAIM_OWN_WAIT)) == (
        "Sorry, that can't be done now (claim_own_wait)."
    )
    assert wording.refusal_text(IllegalMoveError("8/2 is not legal")) == "8/2 is not legal"


@pytest.mark.asyncio
async def test_typed_lines_become_the_services_commands(tmp_path: Path) -> None:
    view = await robot_match_view(tmp_path, GameKind.BACKGAMMON, length=5)
    ids = (view.match_id, HUMAN.guild_id, HUMAN.user_id)
    v = view.version

    def asked(text: str, at: MatchView = view) -> Asked:
        return read_line(text, at, HUMAN.guild_id, HUMAN.user_id)

    assert asked("  Roll ") == RollDice(*ids, expected_version=v)
    assert asked("24/18  13/11") == PlayMove(*ids, "24/18 13/11", expected_version=v)
    assert asked("bar/22") == PlayMove(*ids, "bar/22", expected_version=v)
    assert asked("no move") == PlayMove(*ids, "no move", expected_version=v)
    assert asked("resign") == OfferResignation(*ids, level=1, expected_version=v)
    assert asked("resign gammon") == OfferResignation(*ids, level=2, expected_version=v)
    assert asked("concede") == LeaveMatch(*ids, expected_version=v)
    offered = replace(view, phase=Phase.RESIGN_OFFERED)
    assert asked("decline", offered) == DeclineResignation(*ids, expected_version=v)
    assert asked("accept", replace(view, phase=Phase.DRAW_OFFERED)) == AgreeDraw(
        *ids, expected_version=v
    )
    # Any command by its name in words, as the buttons find theirs by name.
    assert asked("Decline Draw") == RefuseDraw(*ids, expected_version=v)
    assert asked("claim win") == ClaimWin(*ids, expected_version=v)
    assert isinstance(asked("play move"), Unclear)  # a move is typed as the move itself
    assert [asked(word) for word in ("?", "board", "HINT", "m", "exit", "")] == [
        Local.HELP,
        Local.BOARD,
        Local.HINT,
        Local.MOVES,
        Local.QUIT,
        None,
    ]
    assert asked("accept") == Unclear(wording.NOTHING_TO_ANSWER)
    assert asked("resign nannon") == Unclear(
        "'nannon' is not a way to resign in Backgammon: single or gammon or backgammon."
    )
    assert asked("hello") == Unclear(
        "Sorry, 'hello' is not a command or a legal move. Type 'help' for the commands."
    )


async def never_asked(*args: object) -> dict[str, object]:
    raise AssertionError("no hint is asked here")


class Idle:
    async def wait_idle(self) -> None:
        return None


@pytest.mark.asyncio
async def test_the_robot_stuck_is_said_once_told_and_other_servers_are_not_told(
    tmp_path: Path,
) -> None:
    service = await MatchService.open(tmp_path / "s.db")
    out = io.StringIO()
    session = TerminalMatch(service, Idle(), Console(out=out), HUMAN, hint=never_asked)
    detach = session.attach()
    try:
        await service.bus.publish([RobotStuck(1, HUMAN.guild_id, 3)], key=1)
        await service.bus.publish([RobotStuck(2, 99, 3)], key=2)
        detach()
        await service.bus.publish([RobotStuck(1, HUMAN.guild_id, 4)], key=1)
    finally:
        await service.close()
    assert out.getvalue().splitlines() == [wording.ROBOT_FAILED]


@pytest.mark.parametrize(
    ("kind", "example", "not_there"),
    [
        (GameKind.NANNON, "e.g. 2/5, H/3 or 5/S", "24/18"),
        (GameKind.BACKGAMMON, "e.g. 24/18 13/11, bar/22 or 6/off", "H/3"),
        (GameKind.CHECKERS, "e.g. 11-15 or 22x15", "/"),
    ],
)
def test_the_help_shows_the_games_own_moves(kind: GameKind, example: str, not_there: str) -> None:
    """Issue 33 (slips): Nannon's help showed a backgammon move, "e.g. 24/18 13/11 or H/3"."""
    line = next(line for line in wording.help_text(kind).splitlines() if "<move>" in line)
    assert line.endswith(f"play a move ({example})") and not_there not in line


@pytest.mark.asyncio
@pytest.mark.parametrize("game", list(GameKind))
async def test_issue_33_a_finished_match_board_shows_no_player_on_turn(
    tmp_path: Path, game: GameKind
) -> None:
    """Issue 33: "a finished board still shows a player on turn" (the terminal board and the
    pictures both come from ``board_job``): once the match is over no one is to play."""
    from bot.rendering import board_job
    from bot.service.model import MatchStatus
    from render.text import board_text

    view = await robot_match_view(tmp_path, game)
    playing = board_text(*board_job(view))
    assert " to play" in playing or " on turn" in playing or " to move" in playing
    finished = replace(view, status=MatchStatus.FINISHED, phase=Phase.MATCH_OVER)
    name, args, kwargs = board_job(finished)
    assert args[2].finished
    text = board_text(name, args, kwargs)
    assert "The game is over" in text
    assert " to play" not in text and " on turn" not in text and " to move" not in text
