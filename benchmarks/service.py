"""Time per committed action: 200 concurrent matches play random legal moves on one database.

Prints the median and p99 latency of each service call (lock wait + engine + one SQLite
transaction), and the throughput:
    .venv/bin/python benchmarks/service.py [matches] [think seconds]

Think time 0 saturates the service: then the throughput is its ceiling and latency is queueing.

Target (issue 5): p99 <= 10 ms per committed action.
"""

from __future__ import annotations

import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


async def main(matches: int, think: float = THINK) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        svc = await MatchService.open(Path(tmp) / "bench.db")
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


if __name__ == "__main__":
    # The bot's own event loop (uvloop where installed), as `tablebot` runs it.
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(
            main(
                int(sys.argv[1]) if len(sys.argv) > 1 else 200,
                float(sys.argv[2]) if len(sys.argv) > 2 else THINK,
            )
        )
