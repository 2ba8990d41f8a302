"""How long a board image takes, against the floor of what any board must cost.

For each game: 200 positions from seeded random games, each drawn with its dice, last move,
cube and names, then PNG-encoded (``board_png``). The floor, measured in the same run: a blank
canvas of the same size, the same number of sprite pastes (one per piece drawn, plus dice,
cube and the two name icons), encoded the same way (fixed palette, zlib level 1).

    python benchmarks/render.py

Targets (issue 4): each game <= 2x its floor and <= 15 ms per board.

The last line times the analysis report's chart (``render.analysis_chart``) of a 300-decision
match in 5 games, PNG included.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path, and its render.py (this file)
# would shadow the render package.
_ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _ROOT / "benchmarks"]
sys.path.insert(0, str(_ROOT))

from PIL import Image  # noqa: E402

from engines import backgammon as bg  # noqa: E402
from engines import checkers as ck  # noqa: E402
from engines import nannon as nn  # noqa: E402
from engines.analysis import Decision, DecisionKind  # noqa: E402
from engines.cube import Cube  # noqa: E402
from render import backgammon, checkers, nannon  # noqa: E402
from render.analysis_chart import win_chance_chart  # noqa: E402
from render.common import (  # noqa: E402
    HEIGHT,
    SEAT_STYLES,
    WIDTH,
    Scene,
    checker_sprite,
    encode_png,
)

N = 200
SCENE = Scene(("Alice", "Bob"), (3, 4), 7, game_number=2)

Job = tuple[Callable[[], bytes], int]  # (draw one board, sprite pastes it makes)


def nannon_jobs(rng: random.Random) -> list[Job]:
    jobs: list[Job] = []
    position, turn, last = nn.Position.initial(), 0, None
    while len(jobs) < N:
        if position.is_over():
            position, turn, last = nn.Position.initial(), 0, None
        roll = rng.randint(1, 6)
        pastes = 6 + 1 + 1 + 2 + (2 if last else 0)  # checkers, die, cube, icons, ghost + ring
        jobs.append(
            (
                lambda p=position, t=turn, r=roll, m=last: nannon.board_png(
                    p, t, SCENE, dice=(r,), last_move=m, cube=Cube()
                ),
                pastes,
            )
        )
        moves = position.legal_moves(roll)
        if moves:
            move = rng.choice(moves)
            position, last = position.apply(move), (turn, move)
        else:
            position = position.pass_turn()
        turn = 1 - turn
    return jobs


def _bg_pastes(position: bg.Position) -> int:
    shown = sum(min(n, 5) for side in (position.mine, position.theirs) for n in side[1:])
    off = position.mine[0] + position.theirs[0]
    return shown + off + 2 + 1 + 2  # checkers, slabs, dice, cube, icons


def backgammon_jobs(rng: random.Random) -> list[Job]:
    jobs: list[Job] = []
    position, turn, last = bg.Position.initial(), 0, None
    while len(jobs) < N:
        if position.is_over():
            position, turn, last = bg.Position.initial(), 0, None
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        jobs.append(
            (
                lambda p=position, t=turn, d=dice, m=last: backgammon.board_png(
                    p, t, SCENE, dice=d, last_move=m, cube=Cube(2, 1)
                ),
                _bg_pastes(position) + (2 if last else 0),
            )
        )
        plays = position.legal_plays(*dice)
        if plays:
            play = rng.choice(plays)
            position, last = play.position, (turn, play)
        else:
            position = position.flip()
        turn = 1 - turn
    return jobs


def checkers_jobs(rng: random.Random) -> list[Job]:
    jobs: list[Job] = []
    board, last, plies = ck.Board.initial(), None, 0
    while len(jobs) < N:
        moves = board.legal_moves()
        if not moves or plies > 120:
            board, last, plies = ck.Board.initial(), None, 0
            continue
        pieces = sum(
            len(s) for s in (board.black_men, board.black_kings, board.white_men, board.white_kings)
        )
        jobs.append(
            (
                lambda b=board, m=last: checkers.board_png(b, 0, SCENE, last_move=m),
                2 * pieces + 2 + (1 if last else 0),  # each piece re-pastes its square number
            )
        )
        move = rng.choice(moves)
        board, last, plies = board.apply(move), (plies % 2, move), plies + 1
    return jobs


def paired_medians(pairs: list[tuple[Callable[[], Any], Callable[[], Any]]]) -> tuple[float, float]:
    """Median ms of each side, timing a board and its floor back to back, so that load from
    other processes on a shared machine weighs on both alike."""
    firsts, seconds = [], []
    for first, second in pairs:
        start = time.perf_counter()
        first()
        middle = time.perf_counter()
        second()
        firsts.append(middle - start)
        seconds.append(time.perf_counter() - middle)
    return statistics.median(firsts) * 1000, statistics.median(seconds) * 1000


def floor_call(pastes: int, palette: Image.Image) -> Callable[[], bytes]:
    sprite = checker_sprite(36, SEAT_STYLES[0])
    blank = Image.new("RGB", (WIDTH, HEIGHT), (40, 80, 60))

    def call() -> bytes:
        canvas = blank.copy()
        for i in range(pastes):
            canvas.paste(sprite, ((i * 37) % 760, (i * 53) % 460), sprite)
        return encode_png(canvas, palette)

    return call


def chart_decisions(rng: random.Random, count: int = 300, games: int = 5) -> list[Decision]:
    """A random walk of seat 0's chance, with about one blunder in twenty decisions."""
    decisions, chance = [], 0.5
    for i in range(count):
        chance = min(1.0, max(0.0, chance + rng.gauss(0, 0.05)))
        loss = 0.1 if rng.random() < 0.05 else 0.0
        game, kind = 1 + i * games // count, DecisionKind.MOVE
        decisions.append(Decision(game, i, i % 2, kind, "8/4", "8/4", loss, False, None, chance))
    return decisions


def chart_line(rng: random.Random, runs: int = 30) -> str:
    decisions = chart_decisions(rng)
    size = len(win_chance_chart(decisions, ("Alice", "Bob")))  # and warms the caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        win_chance_chart(decisions, ("Alice", "Bob"))
        times.append(time.perf_counter() - start)
    median = statistics.median(times) * 1000
    return f"{'chart 300':<11} {median:>9.2f} {'':>9} {'':>6} {size / 1000:>7.1f}"


def main() -> None:
    rng = random.Random(2024)
    games = {
        "nannon": (nannon_jobs(rng), nannon._PALETTE),
        "backgammon": (backgammon_jobs(rng), backgammon._PALETTE),
        "checkers": (checkers_jobs(rng), checkers._PALETTE),
    }
    print(f"{'game':<11} {'board ms':>9} {'floor ms':>9} {'ratio':>6} {'max KB':>7}")
    for name, (jobs, palette) in games.items():
        sizes = [len(job()) for job, _ in jobs[:20]]  # warm the caches, and size a few
        board, floor = paired_medians(
            [(job, floor_call(pastes, palette.get())) for job, pastes in jobs]
        )
        print(
            f"{name:<11} {board:>9.2f} {floor:>9.2f} {board / floor:>6.2f} "
            f"{max(sizes) / 1000:>7.1f}"
        )
    print(chart_line(rng))


if __name__ == "__main__":
    main()
