"""/puzzle's time to its first response: `python benchmarks/puzzles.py [--pool N] [--requests N]`.

Drives the real bot through the fake Discord (as benchmarks/robot_requests.py does) on a server
whose pool holds ``--pool`` Nannon puzzles (robot self-play puzzles made in this process by
:func:`bot.robot.self_play.self_play_puzzles`, repeated under distinct position keys up to the
pool's size), then ``--requests`` members each ask ``/puzzle`` once, while the
analysis worker seeds checkers' empty pool from self-play (asked first: its polite answer's
time is printed too). Prints
p50/p99/max of the time from the slash command to its first response (the "thinking" defer,
which Discord wants within 3 s) and to the card (the follow-up with the board picture), against
the 3 s target. Nothing is searched on the event loop: serving reads the pool.

Measured on the shared 2-core machine (other engineers' work running), pool 500, 200 requests,
checkers seeding in the analysis worker all along: the empty game's polite answer 33 ms; first
response p50 2.2-3.6 ms, p99 21-28 ms, max 32 ms; card p50 7.6-15 ms, p99 54-75 ms, max
417-439 ms (target 3 s). Without the seeding (100 requests): first response p50 2.1 ms, max
3.3 ms; card p50 6.8 ms, max 118 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the fake Discord
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakediscord import TOKEN, FakeDiscord
from support.discord_driver import service_of

from bot.config import Settings
from bot.discord.app import create_bot
from bot.robot.self_play import self_play_puzzles
from bot.service import MatchService
from bot.storage.types import dumps

TARGET_S = 3.0


async def fill_pool(service: MatchService, guild_id: int, size: int) -> int:
    """``size`` Nannon puzzles in the guild's pool (self-play, repeated under distinct keys)."""
    found = await asyncio.to_thread(self_play_puzzles, "nannon", 60, 1, 2)
    for n in range(size):
        puzzle = found[n % len(found)]
        await service.store.insert_puzzle(
            {
                "guild_id": guild_id,
                "game": "nannon",
                "kind": puzzle["kind"],
                "match_id": None,
                "action_index": puzzle["action_index"],
                "seat": puzzle["seat"],
                "player_id": 0,
                "board": dumps({**puzzle["board"], "actions": puzzle["actions"]}),
                "played": puzzle["played"],
                "answer_key": dumps(puzzle["answer_key"]),
                "position_key": f"bench|{n}",
                "created_at": 0.0,
            }
        )
    return (await service.store.puzzle_pool(guild_id)).get("nannon", 0)


def summary(label: str, times: list[float]) -> None:
    times = sorted(times)
    p50 = statistics.median(times)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(
        f"  {label:<16} p50 {p50 * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms  "
        f"max {times[-1] * 1000:7.1f} ms  (target {TARGET_S:.0f} s: "
        f"{'met' if times[-1] < TARGET_S else 'MISSED'})"
    )


async def main(pool: int, requests: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            token=TOKEN, db_path=Path(tmp) / "puzzles.db", dev_guild_id=None, log_level="WARNING"
        )
        fake = FakeDiscord(strict=False, ready_timeout=60)
        async with fake.run(lambda **o: create_bot(settings, **o)):
            bot = fake.bot
            assert bot is not None
            await bot.tree.sync()  # type: ignore[attr-defined]
            service = service_of(fake)
            stored = await fill_pool(service, fake.guild.id, pool)
            # Checkers has no puzzle here: /puzzle says at once they are being prepared, and
            # the self-play seeding runs in the analysis worker during the requests below.
            member = await fake.add_member("first-checkers")
            start = time.perf_counter()
            told = await (await fake.slash("puzzle", {"game": "checkers"}, by=member)).response()
            preparing = time.perf_counter() - start
            assert told.message is not None and "being prepared" in told.message.content
            first: list[float] = []
            card: list[float] = []
            for n in range(requests):
                member = await fake.add_member(f"solver-{n}")
                start = time.perf_counter()
                it = await fake.slash("puzzle", {"game": "nannon"}, by=member)
                response = await it.response()
                first.append(time.perf_counter() - start)
                assert response.type == 5, response  # thinking, then the card
                message = await it.followup()
                card.append(time.perf_counter() - start)
                assert message.attachments, "the card has its board"
            print(f"/puzzle of an empty game (checkers): told in {preparing * 1000:.1f} ms")
            print(f"/puzzle on a pool of {stored} puzzles, {requests} requests (one per member),")
            print(f"  checkers being seeded: {service.seeder.under_way(fake.guild.id)}")
            summary("first response", first)
            summary("card", card)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=500, help="puzzles in the server's pool")
    parser.add_argument("--requests", type=int, default=100, help="/puzzle requests")
    args = parser.parse_args()
    asyncio.run(main(args.pool, args.requests))
