"""The checkers evaluation's weights, fitted to game results (Texel's method).

`python benchmarks/checkers_tuning.py [--games 2400] [--positions FILE]`

1. Self-play: ``--games`` games from random deck ballots, each move a ``--depth``-ply search
   (with the endgame database) or, on ``--random`` of the moves, a random legal one, so that
   the games reach varied and unbalanced positions. Every position whose mover has no capture
   is kept with the game's result for Black (1, 1/2, 0), in ``--positions`` (JSON lines:
   the four bitboards, Black to move, the result), which a later run can reuse.
2. The fit: each weight's term in a position is read from :func:`_evaluate` itself (the score
   less the score with that weight set to 0, divided by the weight), so the fit and the
   engine cannot disagree. Then, on 90% of the positions, the weights that best predict the
   results through ``1 / (1 + exp(-K * score / 100))`` (least squares, Adam steps), stopped
   where the other 10% is predicted best. K is fitted first to today's weights; material (a
   man 100, a king :data:`KING_VALUE`) stays fixed and sets the scale.

Prints each weight today and fitted, and both errors on the held-out positions. The
weights of 28 November 2026 were fitted to about 1,500 games at depth 6 with 8% random moves
(109,000 positions) and rounded; docs/robot-internals.md.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import checkers_search as cs
from engines.checkers import Color, Game
from engines.checkers_openings import THREE_MOVE_DECK

WEIGHTS = (
    "_TEMPO_OPENING",
    "_TEMPO_ENDING",
    "_BRIDGE_MAN",
    "_BRIDGE_BOTH",
    "_BACK_RANK",
    "_CENTRE_MAN",
    "_INNER_MAN",
    "_CENTRE_KING",
    "_EDGE_KING",
    "_TRAPPED_KING",
    "_MOBILITY",
    "_HUNT",
    "_CORNER_REFUGE",
    "_RUNAWAY",
    "_RUNAWAY_STEP",
)
MAX_PLIES = 300

Position = tuple[int, int, int, int, bool, float]


def self_play(seed: int, depth: int, random_share: float) -> list[Position]:
    """One game's quiet positions, each with the game's result for Black."""
    from bot.robot.endgames import endgames

    rng = random.Random(seed)
    database = endgames()
    game = Game()
    for text in THREE_MOVE_DECK[rng.randrange(len(THREE_MOVE_DECK))].split():
        game.push_text(text)
    kept: list[tuple[int, int, int, int, bool]] = []
    while game.outcome() is None and len(game.moves) < MAX_PLIES:
        board = game.board
        black = board.turn is Color.BLACK
        masks = cs._masks(board)
        if not cs.bit_moves(*masks, black)[1]:
            kept.append((*masks, black))
        legal = board.legal_moves()
        if len(legal) > 1 and rng.random() < random_share:
            move = rng.choice(legal)
        else:
            history = game.reversible_positions
            move = cs.search(board, history, depth=depth, endgames=database).move
        game.push(move)
    outcome = game.outcome()
    winner = None if outcome is None else outcome.winner
    result = 0.5 if winner is None else float(winner is Color.BLACK)
    return [(*position, result) for position in kept]


def _self_play(args: tuple[int, int, float]) -> list[Position]:
    return self_play(*args)


def generate(path: Path, games: int, depth: int, random_share: float, jobs: int) -> None:
    started = time.monotonic()
    count = 0
    with ProcessPoolExecutor(jobs) as pool, path.open("w") as out:
        work = [(seed, depth, random_share) for seed in range(games)]
        for index, positions in enumerate(pool.map(_self_play, work, chunksize=4), 1):
            for position in positions:
                out.write(json.dumps(position) + "\n")
            count += len(positions)
            if index % 200 == 0:
                print(f"  {index} games, {count} positions ({time.monotonic() - started:.0f} s)")
    print(f"{games} games, {count} positions in {time.monotonic() - started:.0f} s")


def terms(positions: list[Position]) -> tuple[list[list[float]], list[float]]:
    """Each position's term per weight and the rest of its score (material and the rest)."""
    scores = [cs._evaluate(bm, bk, wm, wk) for bm, bk, wm, wk, _, _ in positions]
    columns = []
    for name in WEIGHTS:
        weight = getattr(cs, name)
        setattr(cs, name, 0)
        try:
            without = [cs._evaluate(bm, bk, wm, wk) for bm, bk, wm, wk, _, _ in positions]
        finally:
            setattr(cs, name, weight)
        columns.append([(s - w) / weight for s, w in zip(scores, without, strict=True)])
    rows = [list(row) for row in zip(*columns, strict=True)]
    fixed = [
        score - sum(getattr(cs, n) * t for n, t in zip(WEIGHTS, row, strict=True))
        for score, row in zip(scores, rows, strict=True)
    ]
    return rows, fixed


def _error(
    weights: list[float],
    rows: list[list[float]],
    fixed: list[float],
    results: list[float],
    k: float,
) -> float:
    total = 0.0
    for row, rest, result in zip(rows, fixed, results, strict=True):
        z = k * (rest + sum(w * t for w, t in zip(weights, row, strict=True))) / 100
        total += (1 / (1 + math.exp(-max(-50.0, min(50.0, z)))) - result) ** 2
    return total / len(rows)


def fit(positions: list[Position], steps: int, seed: int) -> None:
    random.Random(seed).shuffle(positions)
    rows, fixed = terms(positions)
    results = [p[5] for p in positions]
    cut = len(positions) // 10
    test = (rows[:cut], fixed[:cut], results[:cut])
    train = (rows[cut:], fixed[cut:], results[cut:])
    today = [float(getattr(cs, name)) for name in WEIGHTS]
    k = min((step / 20 for step in range(6, 60)), key=lambda k: _error(today, *train, k))
    print(f"{len(train[0])} positions to fit, {cut} held out; K = {k:.2f}")
    weights = today[:]
    best = (_error(today, *test, k), today[:], 0)
    first, second = [0.0] * len(weights), [0.0] * len(weights)
    for step in range(1, steps + 1):
        gradient = [0.0] * len(weights)
        for row, rest, result in zip(*train, strict=True):
            z = k * (rest + sum(w * t for w, t in zip(weights, row, strict=True))) / 100
            p = 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))
            common = (p - result) * p * (1 - p)
            for i, term in enumerate(row):
                if term:
                    gradient[i] += common * term
        for i, g in enumerate(gradient):
            g /= len(train[0])
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g * g
            corrected = math.sqrt(second[i] / (1 - 0.999**step)) + 1e-12
            weights[i] -= 0.5 * first[i] / (1 - 0.9**step) / corrected
        if step % 10 == 0:
            error = _error(weights, *test, k)
            if error < best[0]:
                best = (error, weights[:], step)
    print(f"held-out error: today's weights {_error(today, *test, k):.5f}, fitted {best[0]:.5f}")
    print(f"{'weight':16} {'today':>6} {'fitted':>7}  (step {best[2]})")
    for name, now, fitted in zip(WEIGHTS, today, best[1], strict=True):
        print(f"{name:16} {now:6.0f} {fitted:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2400)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--random", type=float, default=0.08, help="share of random moves")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--positions", type=Path, default=Path("checkers-positions.jsonl"))
    parser.add_argument("--steps", type=int, default=200, help="Adam steps at most")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if not args.positions.exists():
        generate(args.positions, args.games, args.depth, args.random, args.jobs)
    with args.positions.open() as lines:
        positions = [tuple(json.loads(line)) for line in lines]
    fit(positions, args.steps, args.seed)


if __name__ == "__main__":
    main()
