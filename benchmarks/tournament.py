"""Swiss pairing speed: `python benchmarks/tournament.py [--players 256] [--rounds 9] [--events 5]`.

Plays whole Swiss events with random results (wins, losses and the odd draw) and prints, per
round, the time `engines.tournament.pair_swiss` takes to pair it: the median and the worst over
the events. Target: a round of a 256-player Swiss paired in at most 1 s. It runs twice: with
ratings spread, and with every rating tied (all order within a score group then comes from ids).

Measured (2-core machine shared with other work), 256 players, 9 rounds, 3 events each: every
round 3-7 ms at the median, the worst round 22 ms (the ninth, where the rematch rule bites).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.tournament import BYE_POINTS, SwissPlayer, pair_swiss


def play_event(players: int, rounds: int, rng: random.Random, tied: bool) -> list[float]:
    """Each round's pairing time, in seconds."""
    ratings = {i: 1500.0 if tied else rng.gauss(1500, 200) for i in range(players)}
    score = dict.fromkeys(ratings, 0.0)
    opponents: dict[int, set[int]] = {i: set() for i in ratings}
    byes: Counter[int] = Counter()
    seats = dict.fromkeys(ratings, 0)
    times = []
    for _ in range(rounds):
        entrants = [
            SwissPlayer(i, score[i], ratings[i], frozenset(opponents[i]), byes[i] > 0, seats[i])
            for i in ratings
        ]
        start = time.perf_counter()
        pairings = pair_swiss(entrants)
        times.append(time.perf_counter() - start)
        for p in pairings:
            if p.second is None:
                byes[p.first] += 1
                score[p.first] += BYE_POINTS
                continue
            a, b = p.first, p.second
            opponents[a].add(b)
            opponents[b].add(a)
            seats[a] += 1
            seats[b] -= 1
            outcome = 0.5 if rng.random() < 0.05 else float(rng.random() < 0.5)
            score[a] += outcome
            score[b] += 1 - outcome
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--events", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    for tied in (False, True):
        runs = [
            play_event(options.players, options.rounds, rng, tied) for _ in range(options.events)
        ]
        label = "ratings tied" if tied else "ratings spread"
        print(f"Swiss, {options.players} players ({label}), {options.events} events:")
        print("round  median ms  worst ms   (target: 1000 ms)")
        for r in range(options.rounds):
            column = [run[r] * 1000 for run in runs]
            print(f"{r + 1:5}  {statistics.median(column):9.1f}  {max(column):8.1f}")
        worst = max(t for run in runs for t in run) * 1000
        print(f"worst round: {worst:.1f} ms\n")


if __name__ == "__main__":
    main()
