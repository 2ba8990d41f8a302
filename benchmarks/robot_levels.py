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
  colours) between two levels, ``--pairs`` picks them (``"1-2,2-3"``; ``0`` is a random
  mover, ``old`` the master of :data:`REFERENCE_MASTER`, read from git); prints the upper
  level's score (win 1, draw 1/2) against the 65-85% target (master: at least 70% against
  expert, 60% against the old master), ``--jobs`` games at a time. ``--master-budget`` sets
  master's think time per move (seconds; default the level's 2 s, the old master's too) and
  says so in the output. ``--cpu-clock`` measures master's and the old master's time on
  the searching process's CPU clock instead of the wall clock, so that other work on the
  machine takes no thinking time from either (2 s of CPU is 2 s on an idle core).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import io
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.actions import Move, OpeningRoll, Roll
from engines.base import MatchRules, Phase
from engines.checkers import Color, Game
from engines.checkers import Move as CheckersMove
from engines.exports import mat_export
from engines.nannon_solver import (
    LOSS_TARGETS,
    TEMPERATURES,
    Level,
    NannonSolver,
    expected_loss,
    self_play_decisions,
)

SECTIONS = ("nannon", "nannon-play", "backgammon", "checkers")


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


def nannon_against_master(games: int, seed: int) -> None:
    """What a level means for a player: its share of cubeless games against master."""
    from benchmarks.nannon_solver import play

    solver = NannonSolver()
    rng = random.Random(seed)
    print(f"Nannon: each level against master, {games} cubeless games (seats alternate):")
    for level in list(Level)[:-1]:
        wins = points = 0
        for game in range(games):
            seat = game % 2
            levels = (level, Level.MASTER) if seat == 0 else (Level.MASTER, level)
            winner, score = play(solver, rng, levels)
            wins += winner == seat
            points += score if winner == seat else -score
        print(
            f"  {level.name.lower():13} wins {100 * wins / games:.1f}% "
            f"(± {100 * (0.25 / games) ** 0.5:.1f}), {points / games:+.3f} points a game"
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


def analysed_pr(
    rules: MatchRules, actions: list[Move], ply: int, folder: Path
) -> list[dict[str, Any]]:
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
    players: list[dict[str, Any]] = json.loads(out.getvalue())["players"]
    return players


def backgammon(games: int, levels: list[Level], noises: list[float], ply: int, seed: int) -> None:
    """Plays and analyses the levels' games in blocks of 20 games each in turn, printing the
    running figures after each block (a long run can be stopped with the figures so far)."""
    from bot.robot.levels import BACKGAMMON_LEVELS, BACKGAMMON_PR_TARGETS

    print(
        f"Backgammon: {games} cubeless money games per level against itself, analysed by "
        f"gnubg at {ply}-ply (PR = gnubg's error rate over both sides' unforced moves; the "
        "standard error from the spread of the games' PRs):"
    )
    rngs = [random.Random(seed) for _ in levels]
    losses = [0.0 for _ in levels]
    moves = [0 for _ in levels]
    per_game: list[list[float]] = [[] for _ in levels]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        for block in range(0, games, 20):
            for n, level in enumerate(levels):
                settings = BACKGAMMON_LEVELS[level]
                noise = noises[n] if noises else settings.noise
                for _ in range(min(20, games - block)):
                    rules, actions = backgammon_game(settings.ply, noise, rngs[n])
                    for player in analysed_pr(rules, actions, ply, Path(folder)):
                        losses[n] += player["checker_loss"]
                        moves[n] += player["unforced_moves"]
                        if player["unforced_moves"]:
                            per_game[n].append(
                                500 * player["checker_loss"] / player["unforced_moves"]
                            )
                pr = 500 * losses[n] / moves[n] if moves[n] else 0.0
                error = statistics.stdev(per_game[n]) / len(per_game[n]) ** 0.5
                target = BACKGAMMON_PR_TARGETS[level]
                verdict = "ok" if abs(pr - target) <= 3 else "OFF TARGET"
                print(
                    f"  {level.name.lower():13} {settings.ply}-ply noise {noise:<6} "
                    f"{min(games, block + 20)} games: PR {pr:5.1f} ± {error:.1f} over {moves[n]} "
                    f"unforced moves (target {target}, within 3: {verdict}; "
                    f"{time.monotonic() - started:.0f} s so far)",
                    flush=True,
                )


CheckersPlayer = Callable[[Game], CheckersMove]


REFERENCE_MASTER = "71c37fa"
"""The commit whose checkers master the issue measured ("today's master"): the same search
without reductions, memory or endgame database; ``--pairs old-5`` plays it."""


@functools.cache
def reference_search(revision: str) -> Any:
    """``engines/checkers_search.py`` as it was at ``revision``, from git."""
    from benchmarks.baseline import module_at

    module = module_at(revision, "engines/checkers_search.py")
    if module is None:
        raise SystemExit(f"the old master needs git and revision {revision}")
    return module


def checkers_player(
    level: str, seed: int, master_budget: float | None, cpu_clock: bool = False
) -> CheckersPlayer:
    """Level ``level`` ("1" to "5") as the bot plays it (master with the endgame database and
    its memory; at ``master_budget`` seconds a move if given), "0": a random mover, or "old":
    :data:`REFERENCE_MASTER`'s master at master's time; ``cpu_clock``: the budgets are seconds
    of this process's CPU time."""
    from bot.robot.endgames import brain
    from engines.checkers_search import LEVELS, choose_move
    from engines.checkers_search import Level as CheckersLevel

    rng = random.Random(seed)
    clock = time.process_time if cpu_clock else time.monotonic
    if level == "0":
        return lambda game: rng.choice(game.board.legal_moves())
    if level == "old":
        old = reference_search(REFERENCE_MASTER)
        budget = LEVELS[CheckersLevel.MASTER].budget if master_budget is None else master_budget

        def play_old(game: Game) -> CheckersMove:
            move: CheckersMove = old.search(
                game.board, game.reversible_positions, budget=budget, clock=clock
            ).move
            return move

        return play_old
    thinking = dataclasses.replace(brain(CheckersLevel(int(level)), master_budget), clock=clock)

    def play(game: Game) -> CheckersMove:
        board, history = game.board, game.reversible_positions
        return choose_move(board, CheckersLevel(int(level)), rng, history=history, brain=thinking)

    return play


def checkers_game(ballot: int, black: CheckersPlayer, white: CheckersPlayer) -> Color | None:
    """A game from deck ballot ``ballot``, played out: the winner's colour, None for a draw."""
    from benchmarks.checkers_search import play_game
    from engines.checkers_openings import THREE_MOVE_DECK

    game = Game()
    for text in THREE_MOVE_DECK[ballot % len(THREE_MOVE_DECK)].split():
        game.push_text(text)
    return play_game(game, black, white)


def checkers_result(
    lower: str, upper: str, index: int, games: int, budget: float | None, cpu_clock: bool = False
) -> float:
    """Game ``index`` of ``games`` between two levels: the upper level's points (1, ½ or 0).
    Game ``2k`` and ``2k + 1`` play the same ballot, the upper level Black in the first."""
    from engines.checkers_openings import THREE_MOVE_DECK

    ballot = index // 2 * len(THREE_MOVE_DECK) // max(1, games // 2)
    strong = checkers_player(upper, 1000 * index + 1, budget, cpu_clock)
    weak = checkers_player(lower, 1000 * index + 2, budget, cpu_clock)
    strong_colour = Color.BLACK if index % 2 == 0 else Color.WHITE
    if strong_colour is Color.BLACK:
        winner = checkers_game(ballot, strong, weak)
    else:
        winner = checkers_game(ballot, weak, strong)
    return 0.5 if winner is None else float(winner is strong_colour)


def _checkers_result(args: tuple[str, str, int, int, float | None, bool]) -> float:
    return checkers_result(*args)


def checkers(
    pairs: list[tuple[str, str]],
    games: int,
    master_budget: float | None,
    jobs: int,
    cpu_clock: bool = False,
) -> None:
    """Each pair's games, ``jobs`` at a time in processes of their own (master's memory lives
    in a process, as in the bot's robot worker)."""
    from concurrent.futures import ProcessPoolExecutor

    from engines.checkers_openings import THREE_MOVE_DECK

    shown = f", master at {master_budget} s a move" if master_budget is not None else ""
    shown += ", timed on each process's CPU clock" if cpu_clock else ""
    print(
        f"Checkers: {games} balloted games a pair (ballots spread over the {len(THREE_MOVE_DECK)}"
        f"-ballot deck, each with both colours){shown}, {jobs} at a time; the upper level's "
        "score (target 65-85%; master at least 70% against expert, 60% against old, "
        f"the master of {REFERENCE_MASTER}):"
    )
    with ProcessPoolExecutor(jobs) as pool:
        for lower, upper in pairs:
            started = time.monotonic()
            work = [
                (lower, upper, index, games, master_budget, cpu_clock) for index in range(games)
            ]
            results: list[float] = []
            for points in pool.map(_checkers_result, work):
                results.append(points)
                if len(results) % 10 == 0 and len(results) < games:
                    print(f"    after {len(results)}: {_tally(results)}", flush=True)
            share = 100 * sum(results) / games
            print(
                f"  {upper} against {lower}: {_tally(results)}, {share:.0f}% "
                f"({time.monotonic() - started:.0f} s)",
                flush=True,
            )


def _tally(results: list[float]) -> str:
    return f"+{results.count(1.0)} ={results.count(0.5)} -{results.count(0.0)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nannon-games", type=int, default=300)
    parser.add_argument("--nannon-play-games", type=int, default=4000)
    parser.add_argument("--games", type=int, default=100, help="backgammon games per level")
    parser.add_argument("--levels", default="1,2,3,4", help="backgammon levels (1-4)")
    parser.add_argument("--noise", default="", help="backgammon noise per level, for tuning")
    parser.add_argument("--analysis-ply", type=int, default=2)
    parser.add_argument("--pairs", default="1-2,2-3,3-4,4-5", help="checkers: lower-upper")
    parser.add_argument("--checkers-games", type=int, default=100, help="checkers games a pair")
    parser.add_argument("--master-budget", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=2, help="checkers games played at once")
    parser.add_argument(
        "--cpu-clock", action="store_true", help="checkers: time master on its CPU clock"
    )
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "nannon" in sections:
        nannon(args.nannon_games, args.seed)
    if "nannon-play" in sections:
        nannon_against_master(args.nannon_play_games, args.seed)
    if "backgammon" in sections:
        levels = [Level(int(n)) for n in args.levels.split(",")]
        noises = [float(x) for x in args.noise.split(",")] if args.noise else []
        backgammon(args.games, levels, noises, args.analysis_ply, args.seed)
    if "checkers" in sections:
        pairs = [(a, b) for a, b in (p.split("-") for p in args.pairs.split(","))]
        checkers(pairs, args.checkers_games, args.master_budget, args.jobs, args.cpu_clock)


if __name__ == "__main__":
    main()
