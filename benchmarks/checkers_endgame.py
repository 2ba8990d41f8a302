"""The checkers endgame database: `python benchmarks/checkers_endgame.py [--pieces N] [--write]`.

Builds the database of up to N pieces (default 4) with engines/checkers_endgame.py, showing a
progress bar, and prints the build time, the positions (wins, losses, draws, the longest
distance to the end), the compressed size, the load time and the probe speed. ``--write``
saves it where the bot reads it (bot/robot/data/checkers-endgame-4.xz).

Measured on the 2-core development machine shared with other work: 4 pieces, 6,408,836
positions (2,675,270 wins, 2,004,797 losses, 1,728,769 draws; the longest 109 plies) built in
53 to 75 s (peak memory 195 MB), 1.1 MB compressed (7.5 MB in memory, loaded in 0.1 s), 2.4
to 2.7 us a probe. 5 pieces would be 187 million numbered positions: one 5-piece pair (four
kings against one, 2.3 million positions) took 52 s and 460 MB, 23 us a position, which puts
the whole 5-piece database at about an hour (kings, with the most moves, are the slowest) and
its largest pair (25 million positions) at about 5 GB with this generator. So 4 pieces are
shipped, and 5 are not built.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.robot.endgames import PATH
from engines.checkers import Board
from engines.checkers_endgame import PIECES, Tablebase


def _masks(board: Board) -> tuple[int, int, int, int]:
    sets = board.black_men, board.black_kings, board.white_men, board.white_kings
    bm, bk, wm, wk = (sum(1 << (s - 1) for s in squares) for squares in sets)
    return bm, bk, wm, wk


def bar(done: int, total: int) -> None:
    width = 40
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {100 * done // total:3d}%")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=PIECES)
    parser.add_argument("--write", action="store_true", help=f"save it as {PATH}")
    args = parser.parse_args()
    start = time.perf_counter()
    base = Tablebase.build(args.pieces, bar)
    built = time.perf_counter() - start
    print(f"built {args.pieces} pieces in {built:.1f} s")
    print("positions:", base.stats())
    with tempfile.TemporaryDirectory() as folder:
        path = PATH if args.write else Path(folder) / "endgame.xz"
        base.save(path)
        print(f"compressed: {path.stat().st_size:,} bytes ({path})")
        start = time.perf_counter()
        loaded = Tablebase.load(path)
        print(f"loaded in {time.perf_counter() - start:.2f} s")
    rng = random.Random(1)
    boards = [board for board, _ in loaded.sample(rng, 20_000)]
    masks = [_masks(board) for board in boards]
    start = time.perf_counter()
    for bm, bk, wm, wk in masks:
        loaded.probe(bm, bk, wm, wk, True)
    print(f"probe: {1e6 * (time.perf_counter() - start) / len(masks):.2f} us")


if __name__ == "__main__":
    main()
