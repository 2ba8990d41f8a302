"""``tablebot hint`` (bot/robot/cli.py, bot/robot/hints.py): the JSON shapes for backgammon with
and without dice and for Nannon with and without a roll, exact Nannon values, the readable
table, and exit status 2 with a message for a bad question."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.robot import cli, hints
from engines.backgammon import Play
from engines.backgammon import Position as BgPosition
from engines.checkers import Board
from engines.gnubg import MatchId
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import MONEY_CUBELESS, Context, CubeOwner, CubeState, NannonSolver

ROOT = Path(__file__).resolve().parents[2]
START = "4HPwATDgc/ABMA"
needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


def hint(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    """Run ``tablebot hint ARGS --json`` here: (status, the JSON printed or None, stderr). The
    file-descriptor capture also catches anything gnubg might print on its own."""
    status = cli.main([*args, "--json"])
    out, err = capfd.readouterr()
    return status, json.loads(out) if status == 0 else out, err


def _moves_shape(result: Any) -> list[dict[str, Any]]:
    assert set(result) == {"moves"}
    moves: list[dict[str, Any]] = result["moves"]
    for move in moves:
        assert set(move) == {"move", "position", "equity"}
        assert isinstance(move["move"], str) and isinstance(move["position"], str)
        assert isinstance(move["equity"], float)
    equities = [move["equity"] for move in moves]
    assert equities == sorted(equities, reverse=True)
    return moves


def _cube_shape(result: Any) -> dict[str, Any]:
    assert set(result) == {"cube"}
    cube: dict[str, Any] = result["cube"]
    assert set(cube) == {"action", "no_double", "double_take", "double_pass"}
    assert cube["action"] in {"no double, take", "double, take", "double, pass",
                              "too good to double, pass"}  # fmt: skip
    return cube


@needs_gnubg
def test_backgammon_with_dice_lists_every_play(capfd: pytest.CaptureFixture[str]) -> None:
    match_id = MatchId(dice=(3, 1)).encode()
    status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START,
                             "--match-id", match_id, "--level", "expert")  # fmt: skip
    assert status == 0
    moves = _moves_shape(result)
    start = BgPosition.from_id(START)
    assert len(moves) == len(start.legal_plays(3, 1)) == 16
    assert moves[0]["move"] == "8/5 6/5" and moves[0]["position"] == "sGfwATDgc/ABMA"
    for move in moves:
        assert Play.parse(move["move"], start, (3, 1)).position.id == move["position"]


@needs_gnubg
def test_backgammon_without_dice_gives_the_cube_action(capfd: pytest.CaptureFixture[str]) -> None:
    status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START,
                             "--match-id", "cAkAAAAAAAAA")  # fmt: skip
    assert status == 0
    cube = _cube_shape(result)
    assert cube["action"] == "no double, take" and cube["double_pass"] == 1.0
    # Match play: 2 * MWC - 1, here at 7-point 2-4.
    match_id = MatchId(match_length=7, score=(2, 4)).encode()
    status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START,
                             "--match-id", match_id, "--level", "1")  # fmt: skip
    cube = _cube_shape(result)
    assert all(-1.0 <= cube[key] <= 1.0 for key in ("no_double", "double_take", "double_pass"))


@needs_gnubg
def test_backgammon_with_a_double_offered_gives_take_or_pass(
    capfd: pytest.CaptureFixture[str],
) -> None:
    offered = MatchId(turn=1, double_offered=True).encode()
    status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START,
                             "--match-id", offered)  # fmt: skip
    assert status == 0 and set(result) == {"take"}
    assert result["take"]["action"] == "take"
    assert result["take"]["take"] > result["take"]["pass"] == -1.0


@needs_gnubg
def test_issue_33_backgammon_that_may_not_double_is_told_to_roll(
    capfd: pytest.CaptureFixture[str],
) -> None:
    theirs = MatchId(cube_value=2, cube_owner=1).encode()
    status, result, err = hint(capfd, "--game", "backgammon", "--position-id", START,
                               "--match-id", theirs)  # fmt: skip
    assert status == 0 and err == ""
    assert result["no_cube_action"]["reason"] == "opponent_owns_cube"


def test_nannon_with_a_roll_gives_exact_equities(capfd: pytest.CaptureFixture[str]) -> None:
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "012-012", "--roll", "3")
    assert status == 0
    assert _moves_shape(result) == [
        {"move": "H/3", "position": "012-123", "equity": 0.468236},
        {"move": "1/4", "position": "012-024", "equity": -0.403674},
    ]
    # The same as the solver's, move by move, in a match with the cube turned.
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "013-025", "--roll", "5",
                             "--length", "5", "--score", "1-3", "--cube", "2",
                             "--owner", "them")  # fmt: skip
    context = Context.match(4, 2, CubeState(2, CubeOwner.THEM))
    solved = NannonSolver().rank_moves(NannonPosition.from_id("013-025"), 5, context)
    assert [(m["move"], m["position"]) for m in _moves_shape(result)] == [
        (str(r.move), r.position.id) for r in solved
    ]
    assert [m["equity"] for m in result["moves"]] == [round(r.equity, 6) for r in solved]


def test_the_opening_winner_is_worth_0_0322_points_without_the_cube() -> None:
    """The solver's known figure, through the hints: the opening winner plays the difference d
    of the dice (probability 2 * (6 - d) / 30) and is worth +0.0322 points."""
    solver = NannonSolver()
    best = {
        d: hints.nannon_hint(solver, "012-012", d, MONEY_CUBELESS)["moves"][0]["equity"]
        for d in range(1, 6)
    }
    assert round(sum(2 * (6 - d) / 30 * best[d] for d in best), 4) == 0.0322


def test_nannon_without_a_roll_gives_the_cube_action(capfd: pytest.CaptureFixture[str]) -> None:
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "012-012",
                             "--length", "5", "--score", "2-3")  # fmt: skip
    assert status == 0
    assert _cube_shape(result) == {
        "action": "double, take",
        "no_double": -0.153786,
        "double_take": -0.143591,
        "double_pass": 0.0,
    }
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "012-012")
    assert _cube_shape(result)["action"] == "no double, take"


def table_of(capfd: pytest.CaptureFixture[str], *args: str) -> list[str]:
    """The lines ``tablebot hint ARGS`` prints (it must succeed)."""
    assert cli.main(list(args)) == 0
    out, _ = capfd.readouterr()
    return out.splitlines()


def test_the_table_is_readable(capfd: pytest.CaptureFixture[str]) -> None:
    """A heading naming the game, the side and the unit; a header row; equities to 3 decimals
    and each one's difference from the best; Nannon's positions after the move from the mover's
    side (the JSON has them from the opponent's, as the solver does)."""
    assert table_of(capfd, "--game", "nannon", "--position", "012-012", "--roll", "3") == [
        "Nannon 012-012 (money play), roll 3; equity for the side on roll in points (cubeful); "
        "positions after the move, the mover's checkers first",
        " #  move  equity    diff  position after",
        "1.  H/3   +0.468          123-012",
        "2.  1/4   -0.404  -0.872  024-012",
    ]
    assert cli.main(["--game", "nannon", "--position", "012-012"]) == 0
    out, _ = capfd.readouterr()
    assert out.splitlines()[-1] == "Proper cube action: no double, take"
    match = ["--game", "nannon", "--position", "012-012", "--length", "5", "--score", "2-3"]
    assert table_of(capfd, *match) == [
        "Nannon 012-012 (5-point match, 2-3), before the roll; equity for the side on roll "
        "as 2 x match-winning chance - 1 (cubeful)",
        "cube action   equity    diff",
        "No double     -0.154  -0.010",
        "Double, take  -0.144",
        "Double, pass  +0.000  +0.144",
        "Proper cube action: double, take",
    ]


def test_a_side_that_may_not_double_is_told_to_roll_with_the_equity(
    capfd: pytest.CaptureFixture[str],
) -> None:
    theirs = ["--game", "nannon", "--position", "012-012", "--cube", "2", "--owner", "them"]
    assert cli.main(theirs) == 0
    out, err = capfd.readouterr()
    equity = NannonSolver().equity(
        NannonPosition.from_id("012-012"), Context.money(CubeState(2, CubeOwner.THEM))
    )
    assert out.splitlines()[1:] == [
        "Roll: you can't double (the cube is your opponent's).",
        f"Equity: {equity:+.3f}",
    ]
    assert err == ""
    crawford = ["--game", "nannon", "--position", "012-012", "--length", "5", "--score", "4-2",
                "--crawford"]  # fmt: skip
    assert cli.main(crawford) == 0
    out, _ = capfd.readouterr()
    assert "Roll: you can't double (this is the Crawford game)." in out
    # Issue 33: with --json too the answer is that no cube action is possible: roll, exit 0.
    assert cli.main([*theirs, "--json"]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    assert json.loads(out) == {
        "no_cube_action": {"action": "roll", "reason": "opponent_owns_cube",
                           "equity": round(equity, 6)}
    }  # fmt: skip
    assert cli.main([*crawford, "--json"]) == 0
    out, _ = capfd.readouterr()
    assert json.loads(out)["no_cube_action"]["reason"] == "crawford"


def test_issue_33_a_dead_nannon_cube_gets_no_cube_verdict(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A 1-point match: a win at the cube's value takes the match, so doubling changes
    nothing (the dead-cube ruling); the hint says roll, in text and in JSON."""
    one_point = ["--game", "nannon", "--position", "012-012", "--length", "1"]
    assert cli.main(one_point) == 0
    out, _ = capfd.readouterr()
    assert "Roll: you can't double (the cube is dead" in out
    assert cli.main([*one_point, "--json"]) == 0
    out, _ = capfd.readouterr()
    assert json.loads(out)["no_cube_action"]["reason"] == "dead_cube"


@needs_gnubg
def test_issue_33_a_dead_backgammon_cube_gets_the_roll_in_json(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """cAmgABAAIAAE: a 5-point match at 1-4 after the Crawford game, the 1-away side on roll."""
    status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START,
                             "--match-id", "cAmgABAAIAAE")  # fmt: skip
    assert status == 0
    assert result["no_cube_action"]["action"] == "roll"
    assert result["no_cube_action"]["reason"] == "dead_cube"


def test_checkers_hints_are_scores_for_the_side_to_move(capfd: pytest.CaptureFixture[str]) -> None:
    fen = "W:W11,25,27:B15,18,19"
    assert cli.main(["--game", "checkers", "--fen", fen, "--level", "beginner"]) == 0
    out, _ = capfd.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("Checkers, White to move; score for White: ")
    assert lines[1].split() == ["#", "move", "score", "diff", "position", "after"]
    assert len(lines) == 2 + len(Board.from_fen(fen).legal_moves())


@needs_gnubg
def test_backgammon_takes_the_dice_on_their_own(capfd: pytest.CaptureFixture[str]) -> None:
    """--dice 31 is the Match ID's dice: the same plays, the same equities."""
    money = MatchId.decode("cAkAAAAAAAAA")
    in_the_id = ["--match-id", dataclasses.replace(money, dice=(3, 1)).encode()]
    given = ["--match-id", "cAkAAAAAAAAA", "--dice", "31"]
    results = []
    for args in (in_the_id, given, [*given[:3], "1-3"]):
        status, result, _ = hint(capfd, "--game", "backgammon", "--position-id", START, *args,
                                 "--level", "expert")  # fmt: skip
        assert status == 0
        results.append(result)
    assert results[0] == results[1] == results[2]
    assert cli.main(["--game", "backgammon", "--position-id", START, *given]) == 0
    out, _ = capfd.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("Backgammon (money play), 31 to play; equity for the side on roll")
    assert lines[1].split() == ["#", "move", "equity", "diff", "position", "after"]
    assert lines[2].split()[1:3] == ["8/5", "6/5"] and len(lines) == 2 + 16


@needs_gnubg
def test_without_a_match_id_it_is_a_money_game_with_the_cube_centred(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Issue 33, "tablebot hint --position-id ... --dice 31 is refused for want of
    --match-id": without one it is a money game with the cube centred, as GNU Backgammon
    starts one, with dice and without."""
    for dice in (["--dice", "31"], []):
        status, given, _ = hint(capfd, "--game", "backgammon", "--position-id", START, *dice,
                                "--match-id", "cAkAAAAAAAAA", "--level", "expert")  # fmt: skip
        assert status == 0
        status, left_out, _ = hint(capfd, "--game", "backgammon", "--position-id", START, *dice,
                                   "--level", "expert")  # fmt: skip
        assert status == 0 and left_out == given
    money = MatchId.decode(cli.MONEY_CENTRED)
    assert (money.match_length, money.cube_value, money.cube_owner) == (0, 1, -1)
    assert table_of(capfd, "--game", "backgammon", "--position-id", START, "--dice", "31")[0] == (
        "Backgammon (money play), 31 to play; equity for the side on roll in points (cubeful)"
    )


@needs_gnubg
def test_backgammon_that_may_not_double_is_told_to_roll(capfd: pytest.CaptureFixture[str]) -> None:
    theirs = MatchId(cube_value=2, cube_owner=1).encode()
    assert cli.main(["--game", "backgammon", "--position-id", START, "--match-id", theirs]) == 0
    out, _ = capfd.readouterr()
    assert "Roll: you can't double (the cube is your opponent's)." in out
    assert re.search(r"^Equity: [+-]\d\.\d{3}$", out, re.MULTILINE)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "nannon", "--position", "012-012", "--score", "1-2"], "give --length"),
        (["--game", "nannon", "--position", "0-0"], "Nannon position"),
        (["--game", "nannon", "--position", "012-012", "--roll", "9"], "roll"),
        (["--game", "nannon", "--position", "012-012", "--length", "3", "--crawford"], "Crawford"),
        (["--game", "nannon"], "needs --position"),
        (["--game", "backgammon", "--position-id", "nope", "--match-id", "x"], "Position ID"),
        (["--game", "backgammon", "--position-id", START, "--match-id", "x"], "gnubg Match ID"),
        (["--game", "backgammon"], "needs --position-id"),
        (["--game", "nannon", "--position", "012-012", "--level", "grandmaster"], "not a level"),
        (["--game", "go"], "invalid choice"),
        (
            [
                "--game",
                "backgammon",
                "--position-id",
                START,
                "--match-id",
                "cAkAAAAAAAAA",
                "--dice",
                "71",
            ],
            "--dice is two dice",
        ),
        (["--game", "nannon", "--position", "012-012", "--dice", "31"], "--dice is for backgammon"),
    ],
)
def test_bad_questions_exit_2_with_a_message(
    capfd: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert cli.main([*args, "--json"]) == 2
    _, err = capfd.readouterr()
    assert message in err and "Traceback" not in err


def test_checkers_hints_rank_every_move(capfd: pytest.CaptureFixture[str]) -> None:
    # A two-for-one shot (engines/checkers_search.py's doctest): 18-23 gives a man, takes two.
    fen = "B:W11,25,27:B15,18,19"
    assert cli.main(["--game", "checkers", "--fen", fen, "--level", "advanced", "--json"]) == 0
    out, _ = capfd.readouterr()
    moves = json.loads(out)["moves"]
    assert moves[0]["move"] == "18-23" and moves[0]["equity"] > 0
    assert len(moves) == len(Board.from_fen(fen).legal_moves())
    assert all(-1 <= m["equity"] <= 1 for m in moves)


@pytest.mark.parametrize("game", ["nannon", pytest.param("backgammon", marks=needs_gnubg)])
def test_tablebot_hint_prints_only_the_json(game: str, tmp_path: Path) -> None:
    """The real command line, in a fresh process: stdout is the JSON alone (gnubg's own
    messages are kept out of it), without any bot settings."""
    args = {
        "nannon": ["--position", "012-012", "--roll", "3"],
        "backgammon": ["--position-id", START, "--match-id", MatchId(dice=(6, 5)).encode()],
    }[game]
    result = subprocess.run(
        [sys.executable, "-m", "bot", "hint", "--game", game, *args, "--json"],
        cwd=tmp_path,
        env={"PATH": "", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    moves = json.loads(result.stdout)["moves"]
    assert moves and result.stderr == ""


def test_issue_33_a_finished_nannon_position_gets_no_hint_but_says_the_game_is_over(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Issue 33: "A finished Nannon position gets a hint": a cube action (and "no legal move"
    with a roll) came back for a game already won. It says who won instead, exit 0."""
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "157-777")
    assert status == 0
    assert result == {"over": {"winner": "opponent", "result": "single", "points": 1}}
    status, result, _ = hint(capfd, "--game", "nannon", "--position", "777-001", "--roll", "3",
                             "--length", "5", "--cube", "2", "--owner", "me")  # fmt: skip
    assert result == {"over": {"winner": "side on roll", "result": "nannon", "points": 2}}
    lines = table_of(capfd, "--game", "nannon", "--position", "001-777", "--roll", "4")
    assert lines == [
        "Nannon 001-777: the game is over",
        "The opponent has won (a nannon, 2 points at cube 1): there is nothing to play.",
    ]
    assert hints.nannon_hint(NannonSolver(), "157-777", None, MONEY_CUBELESS) == {
        "over": {"winner": "opponent", "result": "single", "points": 1}
    }
