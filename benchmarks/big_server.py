"""A big community server's reads (issue 38): the time of each read a member triggers, on a
history of 1,000 and of 100,000 finished matches, side by side. Run by hand:

    python benchmarks/big_server.py [--sizes 1000 100000] [--repeats 200]

Each history is bulk-loaded through the store's own connection (``raw_execute``, a thousand
rows to a statement) into a SQLite database it migrated (its schema and the triggers that
keep ``length_records`` as the rows land): finished matches among 10,000
members of one server, the busiest member in 90% of them, a third of them analysed, ratings
rows for every member. The load is audited before timing: the length records count each
seat of each finished match once, and the rating board holds every member. Then each read
runs ``--repeats`` times through the service (``MatchService.handle``), for a typical member
and for the busiest, and p50/p99 in milliseconds are printed: /history, its match-id
autocomplete (25), /stats, the leaderboard by game and by length (first page and last page,
and My place), the puzzle solvers' board, /games.

Not measured here (issue 38's list): the live-actions load beside these reads (1,000 live
matches at 50 actions/s) and PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.service import MatchService
from bot.service.commands import (
    ActiveMatches,
    History,
    Leaderboard,
    LeaderboardPlace,
    PuzzleLeaderboard,
    PuzzlePlace,
    Stats,
)
from bot.storage import connect_store
from bot.storage.protocol import RawSql

GUILD = 1
MEMBERS = 10_000
BUSIEST = 5  # the member in 90% of the matches
TYPICAL = 4321
PAGE = 10
MATCH_COLUMNS = (
    "id, guild_id, channel_id, game, length, rules, player0_id, player0_name, player1_id, "
    "player1_name, colour0, colour1, status, score0, score1, winner_seat, dice_commitment, "
    "dice_seed, rating_changes, created_at, last_action_at, finished_at, robot_seat, robot_level"
)


def changes(a: int, b: int) -> str:
    """The rating changes as the service records them (each seat's before and after)."""
    return (
        f'[{{"seat": 0, "user_id": {a}, "before": 1500, "after": 1508}}, '
        f'{{"seat": 1, "user_id": {b}, "before": 1500, "after": 1492}}]'
    )


def matches(count: int, rng: random.Random) -> list[tuple[Any, ...]]:
    rows = []
    for match_id in range(1, count + 1):
        a = BUSIEST if rng.random() < 0.9 else rng.randrange(10, MEMBERS)
        b = rng.randrange(10, MEMBERS)
        if rng.random() < 0.5:
            a, b = b, a
        length = rng.choice((1, 3, 5))
        winner = rng.choice((0, 1))
        score = (float(length), 0.0) if winner == 0 else (0.0, float(length))
        rows.append((
            match_id, GUILD, 9, "backgammon", length, "{}", a, f"m{a}", b, f"m{b}", "white",
            "black", "finished", *score, winner, "c", bytes(32), changes(a, b),
            float(match_id), float(match_id), float(match_id), None, None,
        ))  # fmt: skip
    return rows


async def insert(db: RawSql, table: str, columns: str, rows: list[tuple[Any, ...]]) -> None:
    """``rows`` into ``table``, a thousand to a statement (the store's own connection)."""
    marks = f"({', '.join('?' * len(rows[0]))})"
    for start in range(0, len(rows), 1000):
        batch = rows[start : start + 1000]
        sql = f"INSERT INTO {table} ({columns}) VALUES {', '.join([marks] * len(batch))}"
        await db.raw_execute(sql, [value for row in batch for value in row])


async def build(path: Path, count: int) -> None:
    """The history, bulk-loaded into the migrated database through the store's own
    connection (its triggers keep the length records), then audited."""
    rng = random.Random(count)
    store = await connect_store(path)  # migrates the new file
    try:
        assert isinstance(store, RawSql)
        ratings = [(GUILD, "backgammon", user, f"m{user}", rng.uniform(1200, 1800), 1, 0)
                   for user in range(MEMBERS)]  # fmt: skip
        await insert(store, "ratings", "guild_id, game, user_id, name, rating, played, won",
                     ratings)  # fmt: skip
        solvers = [(GUILD, user, f"m{user}", rng.uniform(1200, 1800), 3, 1)
                   for user in range(MEMBERS)]  # fmt: skip
        await insert(store, "puzzle_ratings",
                     "guild_id, user_id, name, rating, attempts, solved", solvers)  # fmt: skip
        rows = matches(count, rng)
        await insert(store, "matches", MATCH_COLUMNS, rows)
        analysed = [(row[0], "done", 2, 0.0, rng.random(), rng.random(), rng.random(),
                     rng.random()) for row in rows[::3]]  # fmt: skip
        await insert(store, "analyses", "match_id, status, ply, requested_at, error_rate0, "
                     "error_rate1, pr0, pr1", analysed)  # fmt: skip
        await store.raw_execute("ANALYZE")
        # The audit: every seat of every finished match counted once, every member ranked.
        [seats] = await store.raw_rows("SELECT sum(played) AS n FROM length_records")
        assert seats["n"] == 2 * count, (seats["n"], count)
        [ranked] = await store.raw_rows("SELECT count(*) AS n FROM ratings WHERE played > 0")
        assert ranked["n"] == MEMBERS
    finally:
        await store.close()


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.99) - 1] * 1000


async def timed(call: Callable[[], Awaitable[object]], repeats: int) -> tuple[float, float]:
    await call()  # warm
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
    return percentiles(times)


async def measure(count: int, repeats: int, folder: Path) -> dict[str, tuple[float, float]]:
    path = folder / f"history{count}.db"
    began = time.perf_counter()
    await build(path, count)
    print(f"built {count} matches in {time.perf_counter() - began:.1f} s", file=sys.stderr)
    store = await connect_store(path)
    svc = MatchService(store)
    last = (MEMBERS - 1) // PAGE * PAGE
    reads: dict[str, Callable[[], Awaitable[object]]] = {
        "/history (typical)": lambda: svc.handle(History(GUILD, TYPICAL, 100)),
        "/history (busiest)": lambda: svc.handle(History(GUILD, BUSIEST, 100)),
        "autocomplete (busiest)": lambda: svc.handle(History(GUILD, BUSIEST, 25)),
        "/stats (typical)": lambda: svc.handle(Stats(GUILD, TYPICAL, "backgammon")),
        "/stats (busiest)": lambda: svc.handle(Stats(GUILD, BUSIEST, "backgammon")),
        "board first page": lambda: svc.handle(Leaderboard(GUILD, "backgammon", None, PAGE)),
        "board last page": lambda: svc.handle(Leaderboard(GUILD, "backgammon", None, PAGE, last)),
        "board My place": lambda: svc.handle(LeaderboardPlace(GUILD, "backgammon", None, TYPICAL)),
        "length board first": lambda: svc.handle(Leaderboard(GUILD, "backgammon", 3, PAGE)),
        "length board last": lambda: svc.handle(Leaderboard(GUILD, "backgammon", 3, PAGE, last)),
        "length My place": lambda: svc.handle(LeaderboardPlace(GUILD, "backgammon", 3, TYPICAL)),
        "puzzle board last": lambda: svc.handle(PuzzleLeaderboard(GUILD, PAGE, last)),
        "puzzle My place": lambda: svc.handle(PuzzlePlace(GUILD, TYPICAL)),
        "/games (busiest)": lambda: svc.handle(ActiveMatches(GUILD, BUSIEST)),
    }
    try:
        return {name: await timed(call, repeats) for name, call in reads.items()}
    finally:
        await store.close()


async def main(sizes: list[int], repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = {count: await measure(count, repeats, Path(tmp)) for count in sizes}
    header = "".join(f"{f'{count:,} p50/p99 ms':>24}" for count in sizes)
    print(f"{'SQLite read':<26}{header}")
    for name in results[sizes[0]]:
        cells = "".join(f"{results[c][name][0]:>12.2f}{results[c][name][1]:>12.2f}" for c in sizes)
        print(f"{name:<26}{cells}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.repeats))
