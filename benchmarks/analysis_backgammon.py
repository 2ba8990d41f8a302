"""Backgammon analysis: `python benchmarks/analysis_backgammon.py [--plies 1 2] [--mat FILE]`.

Analyses a 7-point gnubg self-play match of 300 moves (tests/data/gnubg_selfplay_7pt.mat,
made by ``tests/support/gnubg_selfplay.gnubg_selfplay_mat(7, 3)``) in this process, per ply:
ours (bot/robot/gnubg_analysis.py, game by game, as the bot asks) beside gnubg's own
``analyse match`` of the same file, with the seconds each took and each player's checker and
cube error rates (mEMG) and unforced counts. Targets: ours <= 5 s at 1-ply, <= 30 s at 2-ply.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.robot import gnubg_analysis, gnubg_brain  # noqa: E402
from engines.analysis import summarise  # noqa: E402
from engines.match_files import read_mat  # noqa: E402

TARGETS = {1: 5.0, 2: 30.0}


def ours(path: Path, ply: int) -> tuple[float, list[str]]:
    record = read_mat(path.read_text())
    rules, actions, names = record.rules, list(record.actions), record.names
    games = len(re.findall(r"^\s*Game \d+", path.read_text(), re.M))
    start = time.perf_counter()
    decisions = []
    for game in range(1, games + 1):
        decisions += gnubg_analysis.analyse_backgammon_game(rules, actions, names, game, ply)
    seconds = time.perf_counter() - start
    analysis = summarise(decisions, names, pr_scale=True)
    lines = [
        f"{p.name}: checker {p.checker_error_rate:.4f} ({p.unforced_moves}), "
        f"cube {p.cube_error_rate:.4f} ({p.unforced_cube_decisions}), PR {p.pr:.2f}"
        for p in analysis.players
    ]
    return seconds, lines


def theirs(path: Path, ply: int) -> tuple[float, list[str]]:
    gnubg_brain.gnubg_module()
    for command in (
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        f'import mat "{path}"',
    ):
        gnubg_brain.run_command(command)
    start = time.perf_counter()
    gnubg_brain.run_command("analyse match")
    seconds = time.perf_counter() - start
    text = gnubg_brain.run_command("show statistics match")
    wanted = ("Unforced moves", "Close or actual cube decisions", "Error rate mEMG")
    lines = [" ".join(line.split()) for line in text.splitlines() if line.startswith(wanted)]
    return seconds, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--mat", type=Path, default=ROOT / "tests/data/gnubg_selfplay_7pt.mat")
    args = parser.parse_args()
    if not gnubg_brain.available():
        raise SystemExit("the gnubg wheel does not import here")
    moves = len(re.findall(r"\b[1-6]{2}:", args.mat.read_text()))
    print(f"{args.mat.name}: {moves} moves")
    for ply in args.plies:
        mine, our_lines = ours(args.mat, ply)
        gnubgs, their_lines = theirs(args.mat, ply)
        target = TARGETS.get(ply)
        verdict = (
            ""
            if target is None
            else f" (target {target:g} s: {'met' if mine <= target else 'MISSED'})"
        )
        print(f"\n{ply}-ply: ours {mine:.2f} s{verdict}; gnubg's analyse match {gnubgs:.2f} s")
        print("  ours:   " + "\n          ".join(our_lines))
        print("  gnubg:  " + "\n          ".join(their_lines))


if __name__ == "__main__":
    main()
