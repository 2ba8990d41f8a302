"""The robot's levels, measured: `python benchmarks/robot_levels.py [--sections ...]`.

Each game's five levels against their published targets (docs/robot.md), in this process:
the engines' search and solver called directly and gnubg through
:mod:`bot.robot.gnubg_brain` in this process's main thread, never through the robot's worker.

- ``nannon``: each level's average equity lost per move decision against the solver, exactly
  from its softmax weights (:func:`engines.nannon_solver.expected_loss`), over the decisions
  with a choice in ``--nannon-games`` master self-play games (money play with the cube);
  target within 20% of :data:`engines.nannon_solver.LOSS_TARGETS`.
- ``backgammon``: ``--games`` single money games per level, each level against itself,
  cubeless (no cube decisions: the figure is checker play), written as ``.mat`` files and
  analysed by GNU Backgammon (``tablebot analyse --ply --analysis-ply``, the bot's own
  analysis); prints each level's PR, gnubg's figure over both sides' unforced moves, against
  :data:`bot.robot.levels.BACKGAMMON_PR_TARGETS` (within 3). Master is gnubg's 2-ply, the
  judge at the default analysis ply, so it is not played. ``--levels`` picks levels and
  ``--noise`` overrides their noise (one value per level given), for tuning.
- ``checkers``: balloted games (:mod:`engines.checkers_openings`, each ballot played with both
  colours) between neighbouring levels, ``--pairs`` picks them (``"1-2,2-3"``); prints the
  upper level's score (win 1, draw 1/2) against the 65-85% target. ``--budget`` caps the
  think time per move (seconds) for the slow top levels, and says so in the output.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.actions import Move, OpeningRoll, Roll
from engines.base import MatchRules, Phase
from engines.exports import mat_export
from engines.nannon_solver import (
    LOSS_TARGETS,
    TEMPERATURES,
    Level,
    NannonSolver,
    expected_loss,
    self_play_decisions,
)

SECTIONS = ("nannon", "backgammon", "checkers")


def nannon(games: int, seed: int) -> None:
    decisions = self_play_decisions(NannonSolver(), games, random.Random(seed))
    print(
        f"Nannon: equity lost per move decision against the solver, {len(decisions)} decisions "
        f"with a choice from {games} master self-play games (money, cube), seed {seed}:"
    )
    for level in Level:
        loss = sum(expected_loss(options, level) for options in decisions) / len(decisions)
        target = LOSS_TARGETS[level]
        verdict = "ok" if abs(loss - target) <= 0.2 * target else "OFF TARGET"
        print(
            f"  {level.name.lower():13} T={TEMPERATURES[level]:<6} loss {loss:.4f} "
            f"(target {target}, within 20%: {verdict})"
        )


def backgammon_game(ply: int, noise: float, rng: random.Random) -> tuple[MatchRules, list[Move]]:
    """One cubeless money game a gnubg player at ``ply`` and ``noise`` plays against itself."""
    from bot.robot import gnubg_brain
    from engines import new_match
    from engines.gnubg import match_id_of

    rules = MatchRules(length=0, cube=False)
    match = new_match("backgammon", rules)
    while True:
        first, second = rng.randint(1, 6), rng.randint(1, 6)
        match.apply(OpeningRoll(None, (first, second)))
        if match.phase is not Phase.OPENING:
            break
    while not match.is_over():
        if match.phase is Phase.ROLL:
            match.apply(Roll(match.turn, (rng.randint(1, 6), rng.randint(1, 6))))
            continue
        legal = match.legal_moves()
        if len(legal) == 1:
            match.apply(Move(match.turn, match.format_move(legal[0])))
            continue
        ranked = gnubg_brain.rank_plays(match.position_id, match_id_of(match), ply, noise)
        match.apply(Move(match.turn, ranked[0][0]))
    return rules, list(match.actions)


def analysed_pr(rules: MatchRules, actions: list[Move], ply: int, folder: Path) -> list[dict]:
    """gnubg's figures for both players of one game, through ``tablebot analyse --json``."""
    from bot.robot import analyse_cli
    from engines.base import GameKind

    path = folder / "game.mat"
    path.write_text(
        mat_export(GameKind.BACKGAMMON, rules, actions, ("A", "B"), 1, "2026-01-01"),
        encoding="utf-8",
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = analyse_cli.main([str(path), "--json", "--ply", str(ply)])
    if status:
        raise RuntimeError(f"the analysis failed ({status})")
    players: list[dict] = json.loads(out.getvalue())["players"]
    return players


def backgammon(games: int, levels: list[Level], noises: list[float], ply: int, seed: int) -> None:
    from bot.robot.levels import BACKGAMMON_LEVELS, BACKGAMMON_PR_TARGETS

    print(
        f"Backgammon: {games} cubeless money games per level against itself, analysed by "
        f"gnubg at {ply}-ply (PR = gnubg's error rate over both sides' unforced moves):"
    )
    with tempfile.TemporaryDirectory() as folder:
        for n, level in enumerate(levels):
            settings = BACKGAMMON_LEVELS[level]
            noise = noises[n] if noises else settings.noise
            rng = random.Random(seed)
            loss = 0.0
            moves = 0
            started = time.monotonic()
            for _ in range(games):
                rules, actions = backgammon_game(settings.ply, noise, rng)
                for player in analysed_pr(rules, actions, ply, Path(folder)):
                    loss += player["checker_loss"]
                    moves += player["unforced_moves"]
            pr = 500 * loss / moves if moves else 0.0
            target = BACKGAMMON_PR_TARGETS[level]
            verdict = "ok" if abs(pr - target) <= 3 else "OFF TARGET"
            print(
                f"  {level.name.lower():13} {settings.ply}-ply noise {noise:<6} PR {pr:5.1f} over "
                f"{moves} unforced moves (target {target}, within 3: {verdict}; "
                f"{time.monotonic() - started:.0f} s)",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nannon-games", type=int, default=300)
    parser.add_argument("--games", type=int, default=100, help="backgammon games per level")
    parser.add_argument("--levels", default="1,2,3,4", help="backgammon levels (1-4)")
    parser.add_argument("--noise", default="", help="backgammon noise per level, for tuning")
    parser.add_argument("--analysis-ply", type=int, default=2)
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "nannon" in sections:
        nannon(args.nannon_games, args.seed)
    if "backgammon" in sections:
        levels = [Level(int(n)) for n in args.levels.split(",")]
        noises = [float(x) for x in args.noise.split(",")] if args.noise else []
        backgammon(args.games, levels, noises, args.analysis_ply, args.seed)


if __name__ == "__main__":
    main()
