"""Backgammon analysis by GNU Backgammon (bot/robot/gnubg_analysis.py), called in this process,
against gnubg's own ``analyse match`` of the same file at the same ply: every move's equity loss,
and the per-player counts and error rates of gnubg's ``show statistics match``. Skipped where the
gnubg wheel does not import."""

from __future__ import annotations

import math
import random
import re
import tempfile
from pathlib import Path

import pytest

gnubg = pytest.importorskip("gnubg")

from bot.robot import gnubg_analysis, gnubg_brain  # noqa: E402
from engines import new_match, replay  # noqa: E402
from engines.actions import Action, Move  # noqa: E402
from engines.analysis import Decision, DecisionKind, summarise  # noqa: E402
from engines.base import MatchRules  # noqa: E402
from engines.gnubg import match_id_of  # noqa: E402
from engines.match import DiceMatch  # noqa: E402
from engines.match_files import read_mat  # noqa: E402
from tests.support.gnubg_selfplay import robot_match  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data"
# gnubg against itself at 0-ply with noise (its own .mat), and our robot against itself with
# doubles, takes and passes (our export).
MATCHES = ["gnubg_selfplay_3pt.mat", "robot_selfplay_5pt.mat"]


def _ours(path: Path, ply: int) -> tuple[list[Decision], tuple[str, str]]:
    record = read_mat(path.read_text())
    rules, actions, names = record.rules, list(record.actions), record.names
    decisions: list[Decision] = []
    games = max(1, sum(1 for _ in re.finditer(r"^\s*Game \d+", path.read_text(), re.M)))
    for game in range(1, games + 1):
        decisions += gnubg_analysis.analyse_backgammon_game(rules, actions, names, game, ply)
    return decisions, names


def _gnubgs_own(path: Path, ply: int) -> tuple[str, str]:
    """gnubg's ``analyse match`` of the file itself: (the saved SGF, its statistics text)."""
    gnubg_brain.gnubg_module()
    with tempfile.TemporaryDirectory() as folder:
        sgf = Path(folder) / "match.sgf"
        for command in (
            f"set analysis chequerplay evaluation plies {ply}",
            f"set analysis cubedecision evaluation plies {ply}",
            f'import mat "{path}"',
            "analyse match",
            f'save match "{sgf}"',
        ):
            gnubg_brain.run_command(command)
        statistics = gnubg_brain.run_command("show statistics match")
        return sgf.read_text(encoding="utf-8"), statistics


def _move_losses(sgf: str) -> list[float]:
    """Every move record's loss in gnubg's SGF, read on its own: best score minus played."""
    losses = []
    for node in re.split(r"\n;", sgf)[1:]:
        if not re.match(r"[WB]\[\d\d", node):
            continue
        analysis = re.search(r"A\[(\d+)\]((?:\[[^\]]*\])+)", node)
        if analysis is None:
            losses.append(0.0)
            continue
        scores = [float(v.split()[9]) for v in re.findall(r"\[([^\]]*)\]", analysis[2])]
        losses.append(scores[0] - scores[int(analysis[1])])
    return losses


def _statistics(text: str) -> dict[str, tuple[float, float]]:
    """gnubg's statistics rows by section and name: (player 0's figure, player 1's)."""
    rows: dict[str, tuple[float, float]] = {}
    section = ""
    for line in text.splitlines():
        if line.strip().endswith("statistics"):
            section = line.strip().split()[0].lower()
        found = re.match(r"^(\S.*?)\s{2,}(\S.*)$", line)
        if found is None:
            continue
        rest = found[2]
        while "(" in rest:  # drop the MWC figures in brackets, nested ones too
            rest = re.sub(r"\([^()]*\)", "", rest)
        numbers = re.findall(r"[-+]?\d+(?:\.\d+)?", rest)
        if len(numbers) == 2:
            rows[f"{section}: {found[1]}"] = (float(numbers[0]), float(numbers[1]))
    return rows


@pytest.mark.parametrize("name", MATCHES)
def test_every_move_loss_is_gnubgs_own_at_the_same_ply(name: str) -> None:
    path = DATA / name
    ours, _ = _ours(path, 0)
    sgf, _ = _gnubgs_own(path, 0)
    theirs = _move_losses(sgf)
    moves = [d for d in ours if d.kind is DecisionKind.MOVE]
    assert len(moves) == len(theirs) > 50
    for decision, loss in zip(moves, theirs, strict=True):
        assert decision.equity_loss == pytest.approx(loss, abs=0.001), decision
    assert any(d.equity_loss > 0.02 for d in moves)  # there were errors to find


@pytest.mark.parametrize("name", MATCHES)
def test_error_rates_and_counts_agree_with_gnubgs_statistics(name: str) -> None:
    path = DATA / name
    ours, names = _ours(path, 0)
    _, text = _gnubgs_own(path, 0)
    rows = _statistics(text)
    analysis = summarise(ours, names, pr_scale=True)
    for seat, figures in enumerate(analysis.players):
        assert figures.unforced_moves == rows["chequerplay: Unforced moves"][seat]
        assert (
            figures.unforced_cube_decisions == (rows["cube: Close or actual cube decisions"][seat])
        )
        for ours_rate, row in (
            (figures.checker_error_rate, "chequerplay: Error rate mEMG (MWC)"),
            (figures.cube_error_rate, "cube: Error rate mEMG (MWC)"),
            (figures.error_rate, "overall: Error rate mEMG (MWC)"),
        ):
            reference = -rows[row][seat]
            assert ours_rate == pytest.approx(reference, rel=0.01, abs=0.01), row
        luck = rows["luck: Luck total EMG (MWC)"][seat]
        assert figures.luck == pytest.approx(luck, abs=0.001 + 1e-5 * len(ours))
    assert sum(p.unforced_cube_decisions for p in analysis.players) > 0


def test_the_decisions_name_our_actions_and_moves() -> None:
    record = read_mat((DATA / "robot_selfplay_5pt.mat").read_text())
    rules, actions, names = record.rules, list(record.actions), record.names
    decisions = gnubg_analysis.analyse_backgammon_game(rules, actions, names, 1, 0)
    kinds = {d.kind for d in decisions}
    assert kinds == {DecisionKind.MOVE, DecisionKind.CUBE, DecisionKind.TAKE}
    for d in decisions:
        action = actions[d.action_index]
        assert action.player == d.player or d.kind is DecisionKind.CUBE
        if d.kind is DecisionKind.MOVE and isinstance(action, Move):
            assert d.played == action.move and len(d.dice) == 2
        assert 0.0 <= d.win_chance <= 1.0 and d.equity_loss >= 0.0
    assert {d.played for d in decisions if d.kind is DecisionKind.TAKE} == {"take", "pass"}


def test_each_decision_has_the_match_id_of_its_board() -> None:
    """Issue 33, "where the analysis shows a Position ID, it shows the Match ID beside it":
    each decision's Match ID is the board's it was made on (a move's with its dice, a take's
    with the double offered, a cube decision's before the roll)."""
    record = read_mat((DATA / "robot_selfplay_5pt.mat").read_text())
    rules, actions, names = record.rules, list(record.actions), record.names
    decisions = gnubg_analysis.analyse_backgammon_game(rules, actions, names, 1, 0)
    checked = set()
    for d in decisions:
        if d.kind is DecisionKind.MOVE and not isinstance(actions[d.action_index], Move):
            continue  # a roll that can't be played: its Match ID has the dice the board lacks
        board = replay("backgammon", rules, actions[: d.action_index])
        assert isinstance(board, DiceMatch)
        assert (d.position_id, d.match_id) == (board.position_id, match_id_of(board)), d
        checked.add(d.kind)
    assert checked == {DecisionKind.MOVE, DecisionKind.CUBE, DecisionKind.TAKE}


def test_a_game_the_match_does_not_have_is_an_error() -> None:
    record = read_mat((DATA / "gnubg_selfplay_3pt.mat").read_text())
    rules, actions, names = record.rules, list(record.actions), record.names
    with pytest.raises(gnubg_analysis.AnalysisError):
        gnubg_analysis.analyse_backgammon_game(rules, actions, names, 9, 0)


def test_a_planted_blunder_is_the_worst_mistake() -> None:
    rules = MatchRules(length=3)
    rng = random.Random(4)
    normal = robot_match(rules, rng, cube=False, max_games=1)
    moves = [i for i, a in enumerate(normal) if isinstance(a, Move)]
    at = moves[len(moves) // 3]
    prefix: list[Action] = list(normal[:at])
    match = new_match("backgammon", rules)
    for action in prefix:
        match.apply(action)
    ranked = gnubg_brain.rank_plays(match.position_id, match_id_of(match))
    worst = ranked[-1][0]
    planted = Move(match.turn, worst)
    actions = robot_match(rules, rng, prefix=[*prefix, planted], cube=False, max_games=1)
    analysis = summarise(
        gnubg_analysis.analyse_backgammon_game(rules, actions, ("a", "b"), 1, 0),
        ("a", "b"),
        pr_scale=True,
    )
    first = analysis.worst(3)[0]
    assert (first.action_index, first.played, first.best) == (at, worst, ranked[0][0])
    assert first.is_blunder and first.player == planted.player


def test_luck_sums_to_about_zero_over_random_games() -> None:
    rng = random.Random(11)
    rules = MatchRules(length=1)
    lucks: list[float] = []
    for _ in range(30):
        actions = robot_match(rules, rng, cube=False)
        decisions = gnubg_analysis.analyse_backgammon_game(rules, actions, ("a", "b"), 1, 0)
        lucks += [d.luck for d in decisions if d.luck is not None]
    count = len(lucks)
    mean = sum(lucks) / count
    spread = math.sqrt(sum((x - mean) ** 2 for x in lucks) / (count - 1))
    assert count > 1000
    assert abs(mean) < 4 * spread / math.sqrt(count)
