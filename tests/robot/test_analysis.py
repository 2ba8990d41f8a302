"""Post-match analysis through the robot's entry points: per game in the worker, the whole
match in ``analyse_match``, and ``tablebot analyse FILE`` on the same code."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path

import pytest

from bot.__main__ import main as tablebot
from bot.robot import analysis, jobs
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.worker import RobotWorker
from bot.workers import WorkerPools
from engines import new_match, replay
from engines.actions import Move, OpeningRoll, Roll
from engines.analysis import count_games
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.exports import export_match
from engines.gnubg import MatchId
from engines.match_files import read_match_file
from engines.nannon import Position
from engines.nannon_analysis import context_of
from engines.nannon_solver import NannonSolver

DATA = Path(__file__).resolve().parent.parent / "data"


def _nannon_match(seed: int) -> GameMatch:
    """Best moves with random dice and no doubles, except one planted worst move."""
    rng, solver = random.Random(seed), NannonSolver()
    match = new_match("nannon", MatchRules(length=3))
    moves = 0
    while match.phase is not Phase.MATCH_OVER:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif match.phase is Phase.ROLL:
            match.apply(Roll(match.turn, (rng.randint(1, 6),)))
        else:
            assert match.dice is not None
            ranked = solver.rank_moves(
                Position.from_id(match.position_id), match.dice[0], context_of(match, match.turn)
            )
            moves += 1
            chosen = ranked[-1] if moves == 5 else ranked[0]
            match.apply(Move(match.turn, str(chosen.move)))
    return match


def _checkers_actions() -> list[Move]:
    texts = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14", "3-8"]
    return [Move(i % 2, text) for i, text in enumerate(texts)]


def test_count_games_and_analyse_match_with_progress() -> None:
    match = _nannon_match(3)
    games = count_games(GameKind.NANNON, match.rules, match.actions)
    assert games == match.game_number >= 2
    seen: list[tuple[int, int]] = []
    result = analysis.analyse_match(
        GameKind.NANNON,
        match.rules,
        match.actions,
        ("Ann", "Bob"),
        0,
        lambda game, total: seen.append((game, total)),
    )
    assert seen == [(g, games) for g in range(1, games + 1)]
    assert result.games == games and result.players[0].name == "Ann"
    assert result.players[0].pr is None and result.details["evaluator"] == "exact solver"
    assert result.worst()[0].equity_loss > 0
    per_game = [
        d
        for g in range(1, games + 1)
        for d in analysis.game_decisions(
            GameKind.NANNON, match.rules, match.actions, ("Ann", "Bob"), g, 0
        )
    ]
    assert tuple(per_game) == result.decisions


@pytest.mark.asyncio
async def test_a_game_analysed_in_the_worker_is_the_same(
    worker_pools: WorkerPools, robot_worker: RobotWorker
) -> None:
    runner = WorkerAnalysisRunner(worker_pools.analysis, robot_worker)
    match = _nannon_match(4)
    args = (GameKind.NANNON, match.rules, match.actions, ("A", "B"), 1, 0)
    here = analysis.game_decisions(*args)
    there = await runner.game_decisions(*args)
    assert there == here
    checkers = await runner.game_decisions(
        GameKind.CHECKERS, MatchRules(length=1), _checkers_actions(), ("A", "B"), 1, 0
    )
    assert checkers[-1].is_blunder


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = tablebot(["analyse", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_on_a_nannon_mat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = _nannon_match(5)
    path = tmp_path / "m.mat"
    path.write_text(export_match("nannon", match.rules, match.actions, ("Ann", "Bob"), 1, "x"))
    code, out, _ = _run(capsys, str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "nannon" and [p["name"] for p in data["players"]] == ["Ann", "Bob"]
    keys = {"error_rate", "pr", "luck", "errors", "blunders", "unforced_decisions", "rating"}
    assert keys <= set(data["players"][0])
    assert data["players"][0]["pr"] is None
    worst = data["decisions"][data["worst"][0]]
    assert worst["kind"] in ("move", "cube") and worst["equity_loss"] > 0.0  # it never doubles
    assert {"game", "player", "played", "best", "luck", "win_chance"} <= set(worst)
    code, out, _ = _run(capsys, str(path))
    assert code == 0 and "Ann: error rate" in out and "exact solver" in out


def test_cli_on_a_pdn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.pdn"
    rules = MatchRules(length=1)
    path.write_text(export_match("checkers", rules, _checkers_actions(), ("Cy", "Di"), 2, "x"))
    code, out, _ = _run(capsys, str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "checkers" and len(data["decisions"]) == 9
    assert data["players"][0]["blunders"] >= 1 and data["decisions"][-1]["luck"] is None


def test_cli_on_gnubgs_own_export(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("gnubg")
    pytest.importorskip("bot.robot.gnubg_analysis")
    code, out, err = _run(capsys, str(DATA / "gnubg_selfplay.mat"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "backgammon" and data["games"] == 4
    assert [p["name"] for p in data["players"]] == ["gnubg", "root"]
    assert all(p["pr"] is not None for p in data["players"])


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("x.mat", "hello", "not a match file"),
        ("x.pdn", "", "not a match file"),
        ("x.mat", " 3 point match\n Game 1\n a : 0   b : 0\n  1) 77: 1/2\n", "line 4"),
    ],
)
def test_cli_bad_files_are_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    code, _, err = _run(capsys, str(tmp_path / "missing.mat"))
    assert code == 2 and "missing.mat" in err


def test_cli_knows_each_format_by_its_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33, "tablebot analyse parses any file that isn't .mat as checkers": a .mat and a
    PDN are told apart by their content whatever their names; anything else is refused in one
    line that says what a match file looks like."""
    match = _nannon_match(5)
    mat = export_match("nannon", match.rules, match.actions, ("Ann", "Bob"), 1, "x")
    pdn = export_match("checkers", MatchRules(length=1), _checkers_actions(), ("Cy", "Di"), 2, "x")
    for name, text, game in (("nannon.txt", mat, "nannon"), ("checkers.mat", pdn, "checkers"),
                             ("checkers", pdn, "checkers"), ("m.MAT", mat, "nannon")):  # fmt: skip
        (tmp_path / name).write_text(text)
        code, out, err = _run(capsys, str(tmp_path / name), "--json")
        assert code == 0, err
        assert json.loads(out)["game"] == game
    refused = {
        "notes.txt": "Buy milk on 2024-05-01.\nCall 555-1234.\n",  # dashes, but no match
        "board.png": b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe",
        "empty.pdn": "",
    }
    for name, content in refused.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        code, out, err = _run(capsys, str(path))
        assert (code, out) == (2, "")
        assert err == (
            f"tablebot analyse: {name}: not a match file: a .mat (backgammon or Nannon) has an "
            "'N point match' line, a PDN (checkers) [Event \"...\"] tags or moves like 1. 11-15\n"
        )


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("name", "game", "ply"),
    [
        ("nannon.mat", "nannon", "2"),
        pytest.param(
            "backgammon.mat",
            "backgammon",
            "0",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("gnubg") is None, reason="no gnubg wheel here"
            ),
        ),
        ("checkers.pdn", "checkers", "2"),
    ],
)
def test_the_shipped_examples_are_finished_robot_matches_that_analyse(
    capsys: pytest.CaptureFixture[str], name: str, game: str, ply: str
) -> None:
    """Issue 33, "the repository ships no sample match files, so the README's analysis example
    can't be tried without Discord": examples/ has one match a game, the robot against itself
    (examples/make_examples.py), finished, and each analyses as the README says."""
    path = EXAMPLES / name
    record = read_match_file(name, path.read_text(encoding="utf-8"))
    assert record.kind.value == game and len(record.actions) > 20
    assert replay(game, record.rules, record.actions).phase is Phase.MATCH_OVER
    code, out, err = _run(capsys, str(path), "--ply", ply)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{game.capitalize()}, ")
    levels = [line.split(":")[0] for line in lines[2:4]]
    assert levels == list(record.names) and levels[0] == "beginner"
    worst = lines[4:]
    assert len(worst) == 3
    if game == "backgammon":  # gnubg's two IDs, ready to paste (issue 33: the Match ID beside)
        for line in worst:
            ids = re.search(r" at Position ID (\S{14}), Match ID (\S{12})$", line)
            assert ids is not None, line
            MatchId.decode(ids[2])
    assert "examples/backgammon.mat" in (EXAMPLES.parent / "README.md").read_text()


@pytest.mark.parametrize(
    ("name", "resigned"),
    [
        pytest.param(
            "backgammon.mat",
            ["resign gammon", "accept"],
            marks=pytest.mark.skipif(
                importlib.util.find_spec("gnubg") is None, reason="no gnubg wheel here"
            ),
        ),
        ("checkers.pdn", ["resign"]),
    ],
)
def test_issue_33_the_cli_judges_the_examples_resignations(
    capsys: pytest.CaptureFixture[str], name: str, resigned: list[str]
) -> None:
    """Both examples end with the robot resigning a game it can't save (gnubg's sure gammon;
    the endgame database's lost king ending): judged, each costs exactly nothing. A .mat or
    PDN file carries only an accepted resignation (as the game's result), so that is all a
    file's analysis can judge."""
    code, out, err = _run(capsys, str(EXAMPLES / name), "--ply", "0", "--json")
    assert code == 0, err
    judged = [d for d in json.loads(out)["decisions"] if d["kind"].startswith("resign")]
    assert [d["played"] for d in judged] == resigned
    assert [d["best"] for d in judged] == resigned
    assert [d["equity_loss"] for d in judged] == [0.0] * len(resigned)


def test_details_say_how_each_game_is_analysed_and_solve_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot asks for the details on its event loop: no solver is made there for them."""
    monkeypatch.setattr(jobs, "_solver", None)
    assert analysis.details(GameKind.NANNON, 2) == {"game": "nannon", "evaluator": "exact solver"}
    assert jobs._solver is None
    assert analysis.details(GameKind.CHECKERS, 2) == {
        "game": "checkers",
        "evaluator": "alpha-beta search, 6 plies",
    }
    assert analysis.details(GameKind.BACKGAMMON, 3) == {
        "game": "backgammon",
        "evaluator": "GNU Backgammon",
        "ply": 3,
    }
    assert [analysis.needs_gnubg(kind) for kind in GameKind] == [
        kind is GameKind.BACKGAMMON for kind in GameKind
    ]


def test_issue_33_point_2_float_noise_is_no_mistake_and_the_mistake_line_says_the_roll() -> None:
    """Issue 33, point 2: a 1.5e-15 loss was listed as a mistake "costing 0.0000", and the
    terminal's mistake lines left out the roll."""
    from bot.robot.analyse_cli import summary
    from engines.analysis import Decision, DecisionKind, summarise
    from engines.match_files import MatchFile

    noise = Decision(1, 0, 0, DecisionKind.MOVE, "a", "b", 1.5e-15, False, 0.0, 0.5, dice=(2, 1))
    real = Decision(1, 1, 1, DecisionKind.MOVE, "6/2", "6/4", 0.05, False, 0.0, 0.4, dice=(4, 2))
    result = summarise([noise, real], ("Ann", "Bob"), pr_scale=False)
    assert result.worst(3) == [real]
    assert not noise.is_mistake and real.is_mistake
    text = summary(MatchFile(GameKind.NANNON, MatchRules(length=0), (), ("Ann", "Bob")), result)
    assert "Bob: roll 4-2, played 6/2" in text
    assert "Ann: roll" not in text
