"""`tablebot play` driven with scripted input: whole matches against the robot in each game,
hints, the PNG boards, bad input, quitting and resuming. The human reads only what the terminal
prints (the prompt line says what it waits for, a move prompt shows a legal move); the dice and
the robot's draws are seeded."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from bot.__main__ import main as tablebot_main
from bot.service import MatchService, MatchStatus, ViewMatch
from bot.terminal.cli import HUMAN, main
from engines.base import GameKind
from engines.gnubg import MatchId
from engines.match_files import read_match_file

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)

MOVE_PROMPT = re.compile(r"^Your move .*e\.g\. (.+?); 'moves' lists them all\.$")
MAX_LINES = 800  # a runaway script fails instead of looping


class Human:
    """Types ``script`` first, then plays what each prompt asks for: roll, the move the prompt
    shows, take, accept, a pass with no move. Everything printed goes to ``out``."""

    def __init__(self, script: Iterable[str] = (), *, then_play: bool = True) -> None:
        self.script = list(script)
        self.then_play = then_play
        self.out = io.StringIO()
        self.typed: list[str] = []
        self._read = 0

    def __call__(self, prompt: str) -> str:
        printed = self.out.getvalue()[self._read :]
        lines = [line for line in printed.splitlines() if line.strip()]
        if self.script:
            line = self.script.pop(0)
        elif self.then_play and len(self.typed) < MAX_LINES:
            line = self.answer(lines[-1] if lines else "")
        else:
            raise EOFError
        self.out.write(f"{prompt}{line}\n")
        self._read = len(self.out.getvalue())
        self.typed.append(line)
        return line

    @staticmethod
    def answer(ask: str) -> str:
        move = MOVE_PROMPT.match(ask)
        if move:
            return move.group(1)
        if ask.startswith(("Roll", "Waiting for")):
            return "roll" if ask.startswith("Roll") else "board"
        if ask.endswith("take or pass?"):
            return "take"
        if ask.endswith("accept or decline?"):
            return "accept"
        if "no move" in ask:
            return "no move"
        raise AssertionError(f"the scripted human can't answer {ask!r}")


def play(tmp_path: Path, human: Human, *args: str) -> tuple[int, str]:
    status = main(["--db", str(tmp_path / "play.db"), *args], read_line=human, out=human.out)
    return status, human.out.getvalue()


def match_status(tmp_path: Path, match_id: int) -> tuple[MatchStatus, int]:
    async def read() -> tuple[MatchStatus, int]:
        service = await MatchService.open(tmp_path / "play.db")
        try:
            view = await service.handle(ViewMatch(match_id, HUMAN.guild_id))
            return view.status, view.version
        finally:
            await service.close()

    return asyncio.run(read())


def test_a_whole_nannon_match_against_the_robot_ends_with_its_analysis(tmp_path: Path) -> None:
    status, out = play(
        tmp_path, Human(), "--game", "nannon", "--length", "3", "--level", "beginner", "--seed", "7"
    )
    assert status == 0
    assert "Match #1: Nannon, a match to 3 points, against tablebot (beginner)." in out
    assert "Opening roll: You " in out
    assert re.search(r"^tablebot played \S+", out, re.M)
    assert re.search(r"^Game 1: (You|tablebot) won \d+ points?", out, re.M)
    over = re.search(r"^(You|tablebot) won the match, You (\d+), tablebot (\d+)\.$", out, re.M)
    assert over, out[-2000:]
    assert max(int(over.group(2)), int(over.group(3))) >= 3
    assert "Analysing the match (exact solver)..." in out
    summary = out.split("Analysing the match (exact solver)...")[1]
    assert "analysed by exact solver" in summary
    assert re.search(r"^You: error rate \d", summary, re.M)
    assert re.search(r"^tablebot: error rate \d", summary, re.M)
    assert match_status(tmp_path, 1)[0] is MatchStatus.FINISHED
    # Nothing left to resume: the next run starts match #2.
    status, out = play(tmp_path, Human(["quit"]), "--length", "1", "--seed", "7")
    assert status == 0 and "Match #2: Nannon" in out and "Resuming" not in out


def test_a_finished_match_is_exported_for_tablebot_analyse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33, "a finished tablebot play match can't be exported": the end of the match says
    how, and ``tablebot play --export`` writes it (the latest finished one, or match N) as
    /export does, ready for ``tablebot analyse``."""
    monkeypatch.chdir(tmp_path)
    status, out = play(tmp_path, Human(), "--length", "1", "--seed", "7", "--no-analysis")
    assert status == 0
    assert out.rstrip().endswith("'tablebot play --export 1' writes this match as a .mat file.")
    nothing = Human([], then_play=False)
    status, _ = play(tmp_path, Human(["quit"], then_play=False), "--new", "--length", "3")
    exported = Human([], then_play=False)
    assert main(["--db", str(tmp_path / "play.db"), "--export"], out=exported.out) == 0
    assert exported.out.getvalue() == (
        "Wrote tablebot-1.mat (match #1): 'tablebot analyse tablebot-1.mat' analyses it.\n"
    )
    record = read_match_file("tablebot-1.mat", (tmp_path / "tablebot-1.mat").read_text())
    assert record.kind is GameKind.NANNON and record.names == ("You", "tablebot")
    assert tablebot_main(["analyse", "tablebot-1.mat"]) == 0
    assert "You: error rate" in capsys.readouterr().out
    # Match #2, unfinished, by its number; a match that isn't there, in a line.
    assert main(["--db", str(tmp_path / "play.db"), "--export", "2"], out=nothing.out) == 0
    assert (tmp_path / "tablebot-2.mat").exists()
    assert main(["--db", str(tmp_path / "play.db"), "--export", "9"], out=nothing.out) == 2
    assert nothing.out.getvalue().splitlines()[-1] == "There is no match #9 here."


def test_export_with_no_finished_match_says_so(tmp_path: Path) -> None:
    said = Human([], then_play=False)
    assert main(["--db", str(tmp_path / "play.db"), "--export"], out=said.out) == 1
    assert said.out.getvalue().startswith("No finished match to export yet")


def test_the_same_seed_plays_the_same_match(tmp_path: Path) -> None:
    options = ("--length", "1", "--level", "master", "--seed", "11", "--no-analysis")
    _, first = play(tmp_path / "a", Human(), *options)
    _, second = play(tmp_path / "b", Human(), *options)
    assert first == second and "won the match" in first


@needs_gnubg
def test_a_backgammon_game_against_the_robot(tmp_path: Path) -> None:
    status, out = play(
        tmp_path,
        Human(),
        *("--game", "backgammon", "--length", "1", "--level", "beginner", "--seed", "3"),
        "--no-analysis",
    )
    assert status == 0
    assert "Match #1: Backgammon, a match to 1 point, against tablebot (beginner)." in out
    assert "\n+13-14-15-16-17-18------19-20-21-22-23-24-+  X tablebot (black)\n" in out
    assert re.search(r"^Your move with \d-\d, e\.g\. ", out, re.M)
    assert re.search(r"^tablebot played \d", out, re.M)
    assert re.search(r"^(You|tablebot) won the match, You \d+, tablebot \d+\.$", out, re.M)
    assert "Analysing" not in out


@needs_gnubg
def test_a_backgammon_money_game_with_the_cube(tmp_path: Path) -> None:
    status, out = play(
        tmp_path,
        Human(),
        *("--game", "backgammon", "--length", "0", "--level", "expert", "--seed", "8"),
        "--no-analysis",
    )
    assert status == 0
    assert "Match #1: Backgammon, a money game, against tablebot (expert)." in out
    assert "Backgammon, money game, game 1." in out
    assert re.search(r"^tablebot doubled to 2\.$", out, re.M)
    assert "Cube: 2, owned by You." in out  # the scripted human takes
    assert re.search(r"^(You|tablebot) won the money game, You \d+, tablebot \d+\.$", out, re.M)


def test_a_whole_checkers_game_against_the_robot_then_its_analysis(tmp_path: Path) -> None:
    human = Human()
    status, out = play(tmp_path, human, "--game", "checkers", "--level", "beginner", "--seed", "5")
    assert status == 0
    assert "Match #1: Checkers, a match to 1 game, against tablebot (beginner)." in out
    assert "  | b   b   b   b   |    |  4     3     2     1    |" in out  # Black at the bottom
    assert len(human.typed) > 10
    assert re.search(r"^You played \d+[-x]\d+", out, re.M)
    assert re.search(r"^tablebot played \d+[-x]\d+", out, re.M)
    assert re.search(r"^(You|tablebot) won the match, You \d, tablebot \d\.$", out, re.M)
    assert "Analysing the match (alpha-beta search" in out
    assert re.search(r"^You: error rate \d", out, re.M)
    assert match_status(tmp_path, 1)[0] is MatchStatus.FINISHED


def test_resigning_a_checkers_game_loses_it_at_once(tmp_path: Path) -> None:
    human = Human(["11-15", "resign"], then_play=False)
    status, out = play(tmp_path, human, "--game", "checkers", "--seed", "5", "--no-analysis")
    assert status == 0
    assert "You played 11-15." in out
    assert re.search(r"^tablebot played \d+[-x]\d+\.$", out, re.M)
    assert "You resigned the game." in out
    assert "Game 1: tablebot won 1 game: You resigned." in out
    assert "tablebot won the match, You 0, tablebot 1." in out
    assert "Analysing" not in out


def test_hint_answers_the_decision_on_the_board(tmp_path: Path) -> None:
    human = Human(["hint", "roll", "hint", "quit"], then_play=False)
    status, out = play(tmp_path, human, "--length", "3", "--seed", "2", "--level", "master")
    assert status == 0
    cube, take = (hint.split("\n> ")[0] for hint in out.split("> hint\n")[1:])
    scale = "Equities for you, in match winning chances, from -1 (the match lost) to +1 (won)."
    # Before the roll: the cube action. After it the robot doubled: take or pass.
    assert cube.splitlines()[:4] == [
        "Cube action: no double, take.",
        "  No double:    -0.107",
        "  Double, take: -0.314",
        "  Double, pass: +0.215",
    ]
    assert cube.splitlines()[4] == scale
    assert "tablebot doubled to 2." in out
    assert take.splitlines()[:4] == ["Pass.", "  Take: -0.345", "  Pass: -0.215", scale]
    assert match_status(tmp_path, 1)[0] is MatchStatus.ACTIVE  # a hint changes nothing


def test_hint_in_checkers_ranks_the_moves(tmp_path: Path) -> None:
    human = Human(["hint", "quit"], then_play=False)
    status, out = play(tmp_path, human, "--game", "checkers", "--level", "beginner")
    assert status == 0
    # Black (the human, seat 0, game 1) is to move: the moves, best first, on the search's scale.
    hint = out.split("> hint\n")[1].splitlines()
    assert hint[0] == "Best moves (7 legal):"
    assert re.fullmatch(r"  1\. \d+-\d+ +[+-]\d\.\d{3}", hint[1])
    assert hint[4] == "Equities for you, the search's estimate, from -1 (a loss) to +1 (a win)."


def test_png_boards_are_written_and_their_paths_printed(tmp_path: Path) -> None:
    pngs = tmp_path / "boards"
    human = Human(["roll", "board", "quit"], then_play=False)
    status, out = play(tmp_path, human, "--length", "3", "--seed", "4", "--png", str(pngs))
    assert status == 0
    paths = re.findall(r"^Board picture: (.+\.png)$", out, re.M)
    assert len(paths) >= 2
    for path in paths:
        data = Path(path).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert Path(path).parent == pngs
    assert sorted(p.name for p in pngs.iterdir()) == sorted({Path(p).name for p in paths})


def test_bad_input_is_answered_politely_and_changes_nothing(tmp_path: Path) -> None:
    typed = ["foo", "24/18 13/11", "take", "accept", "resign backgammon", "roll", "roll", "quit"]
    status, out = play(tmp_path, Human(typed, then_play=False), "--length", "3", "--seed", "7")
    assert status == 0
    # What each line got back (its first line), in order; the opening tied with this seed.
    answers = [block.split("\n")[1] for block in out.split("\n> ")[1:]]
    assert answers[:5] == [
        "Sorry, 'foo' is not a command or a legal move. Type 'help' for the commands.",
        "Roll for the opening first.",
        "There is no double to answer.",  # the engine's own words
        "There is no offer to accept or decline now.",
        "'backgammon' is not a way to resign in Nannon: single or a NANNON.",
    ]
    assert answers[5].startswith("Opening roll: You 5, tablebot 3: You to play first.")
    assert answers[6] == "You rolled already: type a move."
    # None of the refused lines moved the match on: one board before the roll, the prompt the
    # same after each.
    before_roll = out.split("> roll\n")[0]
    assert before_roll.count("Position: ") == 1
    assert before_roll.count("Roll again, or double.") == 6


def test_quit_then_resume_the_same_match_then_a_new_one(tmp_path: Path) -> None:
    status, out = play(tmp_path, Human(["roll", "quit"], then_play=False), "--seed", "9")
    assert status == 0
    assert "Saved. Type 'tablebot play' to resume match #1." in out
    state, version = match_status(tmp_path, 1)
    assert state is MatchStatus.ACTIVE
    # The end of the input saves it too.
    status, out = play(tmp_path, Human([], then_play=False))
    assert status == 0 and out.startswith(
        "Resuming the unfinished match #1: Nannon, a match to 11 points, against tablebot "
        "(intermediate).\nScore: You 0, tablebot 0, game 1.\n"
        "'tablebot play --new' starts a new match instead (this one stays saved).\n"
    )
    assert match_status(tmp_path, 1) == (MatchStatus.ACTIVE, version)
    # --game of another game starts that game; --new starts another match of the same game.
    status, out = play(tmp_path, Human(["quit"], then_play=False), "--game", "checkers")
    assert "Match #2: Checkers" in out
    status, out = play(tmp_path, Human(["quit"], then_play=False), "--game", "nannon", "--new")
    assert "Match #3: Nannon" in out
    status, out = play(tmp_path, Human(["quit"], then_play=False))
    assert out.startswith("Resuming the unfinished match #3: Nannon")


def test_resuming_says_which_match_and_what_the_options_given_are_for(tmp_path: Path) -> None:
    """Issue 33, "tablebot play resumes an unfinished match silently, ignoring --level and
    --length": it says which match it resumes, at what level and score, which of the options
    given only a new match takes, and how to start one."""
    play(tmp_path, Human(["quit"], then_play=False), "--length", "3", "--level", "beginner")
    status, out = play(
        tmp_path, Human(["quit"], then_play=False), "--level", "expert", "--length", "5"
    )
    assert status == 0
    assert out.splitlines()[:3] == [
        "Resuming the unfinished match #1: Nannon, a match to 3 points, against tablebot "
        "(beginner).",
        "Score: You 0, tablebot 0, game 1.",
        "--level expert and --length 5 are for a new match: add --new to start one (this one "
        "stays saved).",
    ]
    # Options the saved match has already are not reported; --new takes the others.
    _, out = play(tmp_path, Human(["quit"], then_play=False), "--level", "beginner", "--cube")
    assert out.splitlines()[2].startswith("'tablebot play --new' starts a new match instead")
    _, out = play(tmp_path, Human(["quit"], then_play=False), "--new", "--level", "expert")
    assert out.startswith("Match #2: Nannon, a match to 11 points, against tablebot (expert).")


def test_the_backgammon_board_shows_the_match_id_beside_the_position_id(tmp_path: Path) -> None:
    """Issue 33, "where the terminal shows a Position ID, it shows the Match ID beside it"."""
    status, out = play(
        tmp_path, Human(["roll", "quit"], then_play=False), "--game", "backgammon", "--length",
        "3", "--seed", "3", "--no-analysis",
    )  # fmt: skip
    assert status == 0
    boards = re.findall(r"^Position ID: (\S+)\nMatch ID: (\S+)$", out, re.M)
    assert boards and boards[-1][0] == "4HPwATDgc/ABMA"
    assert out.count("Position ID: ") == len(boards)  # every one
    shown = MatchId.decode(boards[-1][1])
    assert (shown.match_length, shown.score, shown.cube_value) == (3, (0, 0), 1)
    assert shown.dice == (6, 1) and "You (O) to play 6-1" in out  # the opening roll's dice


class Interrupted(Human):
    def __call__(self, prompt: str) -> str:
        if not self.script:
            raise KeyboardInterrupt
        return super().__call__(prompt)


def test_ctrl_c_at_the_prompt_stops_and_keeps_the_match(tmp_path: Path) -> None:
    status, out = play(tmp_path, Interrupted(["roll"]), "--seed", "9", "--length", "3")
    assert status == 130
    assert out.endswith("Stopped. Every move so far is saved: 'tablebot play' resumes the match.\n")
    state, version = match_status(tmp_path, 1)
    assert state is MatchStatus.ACTIVE and version > 1
    status, out = play(tmp_path, Human(["quit"], then_play=False))
    assert out.startswith("Resuming the unfinished match #1: Nannon")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--level", "grandmaster"], "is not a level"),
        (["--game", "chess"], "invalid choice: 'chess'"),
        (["--length", "x"], "invalid int value"),
    ],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["--db", str(tmp_path / "p.db"), *args]) == 2
    assert said in capsys.readouterr().err


def test_options_the_service_refuses_are_said_and_exit_2(tmp_path: Path) -> None:
    status, out = play(tmp_path, Human([], then_play=False), "--length", "0")
    assert status == 2
    assert out.strip() == "Money play (--length 0) is for backgammon only."
    status, out = play(tmp_path, Human([], then_play=False), "--length", "99")
    assert status == 2 and "is 1 to 25 long, not 99" in out


def test_a_database_that_cannot_be_opened_is_said_in_a_line(tmp_path: Path) -> None:
    human = Human([], then_play=False)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert main(["--db", str(folder)], read_line=human, out=human.out) == 2
    said = human.out.getvalue().splitlines()
    assert len(said) == 1 and said[0].startswith("tablebot play: nothing to play on: ")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert main(["--db", str(blocked / "play.db")], read_line=human, out=human.out) == 2


def test_tablebot_play_is_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert tablebot_main(["play", "--help"]) == 0
    assert "usage: tablebot play" in capsys.readouterr().out
    assert tablebot_main(["--help"]) == 0
    assert "play ..." in capsys.readouterr().out
