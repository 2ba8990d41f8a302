"""The exported `.mat` imports into real GNU Backgammon, which replays every move and agrees on
the score. Runs where gnubg is installed (`.ci/run` installs Debian's `gnubg` when it can)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engines import new_match
from engines.actions import AcceptResign, Double, Drop, Move, OpeningRoll, Resign, Roll, Take
from engines.base import GameKind, MatchRules, Phase, ResignLevel
from engines.exports import mat_export

GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
pytestmark = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")

SCORE_LINE = re.compile(r"The score \(after \d+ games?\) is: alice (\d+), bob (\d+)")


def play_random_match(seed: int, rules: MatchRules) -> tuple[str, tuple[float, float]]:
    """A whole match of random legal choices, cube and resignations included, as `.mat`."""
    rng = random.Random(seed)
    match = new_match(GameKind.BACKGAMMON, rules)
    while not match.is_over():
        phase, seat = match.phase, match.turn
        if phase is Phase.OPENING:
            match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.ROLL and match.can_double(seat) and rng.random() < 0.08:
            match.apply(Double(seat))
        elif phase is Phase.ROLL and rng.random() < 0.01:
            match.apply(Resign(seat, ResignLevel.SINGLE))
        elif phase is Phase.ROLL:
            match.apply(Roll(seat, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.CUBE_OFFERED:
            assert match.actor is not None
            match.apply((Take if rng.random() < 0.7 else Drop)(match.actor))
        elif phase is Phase.RESIGN_OFFERED:
            match.apply(AcceptResign(match.actor))
        else:
            match.apply(Move(seat, match.format_move(rng.choice(match.legal_moves()))))
    text = mat_export(
        GameKind.BACKGAMMON, rules, match.actions, ("alice", "bob"), seed, "2026.11.22"
    )
    return text, match.score


def gnubg_import(path: Path) -> str:
    assert GNUBG is not None
    commands = f"import mat {path}\nshow score\n"
    result = subprocess.run(
        [GNUBG, "-t", "-q"], input=commands, capture_output=True, text=True, timeout=120
    )
    return result.stdout + result.stderr


@pytest.mark.parametrize(
    ("seed", "rules"),
    [
        (1, MatchRules(length=3)),
        (2, MatchRules(length=5)),
        (3, MatchRules(length=7)),
        (4, MatchRules(length=5, crawford=False)),
        (5, MatchRules(length=0, jacoby=True)),
    ],
)
def test_exported_match_imports_into_gnubg_with_the_same_score(
    tmp_path: Path, seed: int, rules: MatchRules
) -> None:
    text, score = play_random_match(seed, rules)
    path = tmp_path / f"match{seed}.mat"
    path.write_text(text)
    output = gnubg_import(path)
    assert "WARNING" not in output and "Invalid" not in output, output
    found = SCORE_LINE.search(output)
    assert found is not None, output
    assert (int(found[1]), int(found[2])) == score


def test_a_corrupted_move_is_rejected_by_gnubg(tmp_path: Path) -> None:
    """The check above can fail: gnubg does replay and validate every move."""
    text, _ = play_random_match(1, MatchRules(length=3))
    first_play = re.search(r"\d\d: (\d+)/(\d+)", text)
    assert first_play is not None
    bad = text.replace(
        first_play[0], f"{first_play[0][:4]}{first_play[1]}/{int(first_play[2]) - 9}", 1
    )
    path = tmp_path / "bad.mat"
    path.write_text(bad)
    assert "Invalid move" in gnubg_import(path)


def conceded_match(length: int, loser: int, reason: str) -> tuple[str, tuple[float, float]]:
    """Game 1 of a match: one roll and play each, then ``loser`` concedes the match."""
    from engines.actions import ConcedeMatch

    rules = MatchRules(length=length)
    match = new_match(GameKind.BACKGAMMON, rules)
    match.apply(OpeningRoll(None, (3, 1)))
    match.apply(Move(0, "8/5 6/5"))
    match.apply(Roll(1, (6, 4)))
    match.apply(Move(1, "24/18 13/9"))
    match.apply(ConcedeMatch(loser, reason))
    text = mat_export(GameKind.BACKGAMMON, rules, match.actions, ("alice", "bob"), 9, "2026.11.23")
    return text, match.score


def test_a_conceded_match_imports_as_the_resignation_gnubg_can_score(tmp_path: Path) -> None:
    # bob needs 3 of 3 at a cube of 1: a backgammon resigned covers it, and gnubg ends the
    # match with our score.
    text, score = conceded_match(3, 0, "left")
    assert score == (0, 3)
    assert '; [Termination "alice conceded the match; final score 0 - 3"]' in text
    assert "Wins 3 points" in text
    path = tmp_path / "conceded.mat"
    path.write_text(text)
    output = gnubg_import(path)
    assert "WARNING" not in output and "Unrecognised" not in output, output
    found = SCORE_LINE.search(output)
    assert found is not None, output
    assert (int(found[1]), int(found[2])) == score


def test_a_concession_beyond_a_backgammon_is_explained_in_the_header(tmp_path: Path) -> None:
    # alice needs 5 at a cube of 1: .mat can't say more than a backgammon resigned, so gnubg
    # stops at 3-0 and the header carries the real end.
    text, score = conceded_match(5, 1, "timeout")
    assert score == (5, 0)
    assert '; [Termination "bob lost on time; final score 5 - 0"]' in text
    path = tmp_path / "timeout.mat"
    path.write_text(text)
    output = gnubg_import(path)
    assert "WARNING" not in output and "Unrecognised" not in output, output
    found = SCORE_LINE.search(output)
    assert found is not None, output
    assert (int(found[1]), int(found[2])) == (3, 0)
