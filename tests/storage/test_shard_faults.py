"""Kill -9 one of two bot processes under load, on one PostgreSQL database.

Two worker subprocesses stand for two bot processes on shards 0 and 1 of 2: each plays random
rated Nannon matches in its own guilds (``(guild_id >> 22) % 2``) through the match service,
several at once among a few players, so a player's matches end at the same time, and prints
``ACK <match> <version>`` after each action's commit returned (the moment the bot would answer).
The test SIGKILLs the first under load; the second keeps acknowledging actions for its shard;
the first is started again on the same shard, resumes its own matches and plays on. Then:

- every acknowledged action is there, and every match replays from its log to its snapshot and
  its seed (the checks of test_crash_recovery.py);
- no rating update is lost: for every player, the finished matches' rating changes chain from
  the initial rating, each ``before`` the previous ``after``, to the rating stored, with none
  left over, and the player's ``played`` counts them all.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import IO, Any

import pytest
from support.db import sql_rows, sql_write
from support.ratings_audit import audit_ratings, surplus, trail_end
from test_crash_recovery import ROOT, check_database

from bot.storage import connect_store, shard_of

pytestmark = [pytest.mark.asyncio, pytest.mark.postgres]

SHARDS = 2
# Two guilds per shard (Discord-sized ids).
GUILDS = [((10**9 * SHARDS + n) << 22) | 77 for n in range(2 * SHARDS)]

WORKER = r"""
import asyncio, random, sys
from bot.service import (
    AcceptChallenge, AcceptResignation, ViewMatch, MatchService, NewChallenge, OfferDouble,
    PassDouble, PlayMove, RefuseDraw, RollDice, TakeDouble,
)
from bot.storage import GuildShards, shard_of
from engines.base import Phase
from engines.errors import GameError

url, shard, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
guilds = [int(g) for g in sys.argv[5].split(",") if shard_of(int(g), count) == shard]
TABLES = 3  # matches at once per guild, among PLAYERS players
PLAYERS = 3

def ack(update):
    print(f"ACK {update.match_id} {update.version}", flush=True)

async def play(svc, rng, view):
    while not view.match_over:
        mid, guild = view.match_id, view.guild_id
        seat = view.actor if view.actor is not None else view.turn
        user = view.players[seat].user_id
        try:
            if view.phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
                if view.phase is Phase.ROLL and view.can_double[seat] and rng.random() < 0.15:
                    update = await svc.handle(OfferDouble(mid, guild, user))
                else:
                    update = await svc.handle(RollDice(mid, guild, user))
            elif view.phase is Phase.MOVE:
                update = await svc.handle(PlayMove(mid, guild, user, rng.choice(view.legal_moves)))
            elif view.phase is Phase.CUBE_OFFERED:
                answer = TakeDouble if rng.random() < 0.7 else PassDouble
                update = await svc.handle(answer(mid, guild, user))
            elif view.phase is Phase.DRAW_OFFERED:
                update = await svc.handle(RefuseDraw(mid, guild, user))
            elif view.phase is Phase.RESIGN_OFFERED:
                update = await svc.handle(AcceptResignation(mid, guild, user))
            else:
                raise AssertionError(view.phase)
        except GameError as exc:
            print(f"REFUSED {mid} {exc}", file=sys.stderr, flush=True)
            view = await svc.handle(ViewMatch(mid))
            continue
        ack(update)
        view = update.view

async def table(svc, rng, guild, view):
    if view is not None:
        await play(svc, rng, view)  # a match this shard had going before a restart
    while True:
        a, b = rng.sample(range(PLAYERS), 2)
        ch = await svc.handle(NewChallenge(guild, 2, 100 + a, f"u{a}", "nannon",
                                           opponent_id=100 + b, opponent_name=f"u{b}", length=1))
        update = await svc.handle(AcceptChallenge(ch.id, guild, 100 + b, f"u{b}"))
        ack(update)
        await play(svc, rng, update.view)

async def main():
    rng = random.Random(seed)
    svc = await MatchService.open(url)
    mine = GuildShards(count, frozenset({shard}))
    resumed = [v for v in await svc.resume_active(mine) if not v.match_over]
    assert all(v.guild_id in guilds for v in resumed)
    tasks = []
    for guild in guilds:
        going = [v for v in resumed if v.guild_id == guild]
        for n in range(max(TABLES, len(going))):
            view = going[n] if n < len(going) else None
            tasks.append(table(svc, random.Random(rng.random()), guild, view))
    print("READY", flush=True)
    await asyncio.gather(*tasks)

asyncio.run(main())
"""


class Worker:
    """A worker subprocess on ``shard``, and what it acknowledged."""

    def __init__(self, url: str, shard: int, seed: int, acked: dict[int, int]) -> None:
        self.shard, self.acked, self.acks = shard, acked, 0
        self.log: list[tuple[int, int]] = []  # (match, version) per acknowledgement
        guilds = ",".join(str(g) for g in GUILDS)
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, url, str(shard), str(SHARDS), str(seed), guilds],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            text=True,
        )

    @property
    def stdout(self) -> IO[str]:
        assert self.process.stdout is not None
        return self.process.stdout

    def _take(self, line: str) -> None:
        if line.startswith("ACK "):
            _, match_id, version = line.split()
            self.acked[int(match_id)] = max(self.acked.get(int(match_id), -1), int(version))
            self.acks += 1
            self.log.append((int(match_id), int(version)))

    async def until_acks(self, total: int) -> None:
        """Read its lines until it has acknowledged ``total`` actions in all."""
        await self.until(lambda: self.acks >= total)

    async def until_acks_on(self, matches: Callable[[int], bool], count: int) -> None:
        """Read its lines until it has acknowledged ``count`` actions on ``matches``."""
        await self.until(lambda: sum(1 for m, _ in self.log if matches(m)) >= count)

    async def until(self, done: Callable[[], bool]) -> None:
        while not done():
            line = await asyncio.to_thread(self.stdout.readline)
            if not line:
                raise AssertionError(f"worker on shard {self.shard} ended ({self.process.wait()})")
            self._take(line)

    def kill(self) -> None:
        """SIGKILL, then count what it printed before it died: acknowledged too."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        for line in self.stdout.read().splitlines():
            self._take(line)
        self.stdout.close()
        assert self.process.returncode == -signal.SIGKILL


async def rows(url: str, sql: str) -> list[Any]:
    store = await connect_store(url)
    try:
        return await sql_rows(store, sql)
    finally:
        await store.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_kill_one_of_two_processes_under_load(postgres_database: Any) -> None:
    url = postgres_database()
    assert sorted(shard_of(g, SHARDS) for g in GUILDS) == [0, 0, 1, 1]
    acked: dict[int, int] = {}
    first = Worker(url, 0, seed=1, acked=acked)
    second = Worker(url, 1, seed=2, acked=acked)
    restarted: Worker | None = None
    try:
        await asyncio.gather(first.until_acks(150), second.until_acks(150))
        first.kill()  # under load: mid-action, its pooled connections cut
        matches = await rows(url, "SELECT id, guild_id, status FROM matches")
        newest = max(r["id"] for r in matches)
        orphans = {
            r["id"] for r in matches if r["status"] == "active" and shard_of(r["guild_id"], 2) == 0
        }
        # The other process keeps serving its shard with the first one dead: it commits
        # actions on matches it started after the kill.
        await second.until_acks_on(lambda m: m > newest, 100)
        # The first comes back on its shard: it resumes the matches it had going, plays on.
        restarted = Worker(url, 0, seed=3, acked=acked)
        if orphans:
            await restarted.until_acks_on(lambda m: m in orphans, 1)
        await restarted.until_acks(150)
        await second.until_acks(second.acks + 50)
    finally:
        for worker in (first, second, restarted):
            if worker is not None and worker.process.returncode is None:
                worker.kill()
    assert await check_database(url, acked) >= 10  # every acknowledged action is there
    store = await connect_store(url)
    try:
        audit = await audit_ratings(store)  # no rating update lost
        assert audit.changes >= 20 and audit.lost == 0 and not audit.problems, audit.problems
        found = await sql_rows(store, "SELECT DISTINCT guild_id FROM matches")
        assert {r["guild_id"] for r in found} == set(GUILDS)
        # The check bites: one rating update undone is caught.
        await sql_write(
            store,
            "UPDATE ratings SET rating = rating - 3 WHERE guild_id = ? AND user_id = 100",
            (GUILDS[0],),
        )
        audit = await audit_ratings(store)
        assert audit.lost == 1 and "the changes end at" in audit.problems[0], audit.problems
    finally:
        await store.close()


async def test_the_audit_follows_a_rating_back_to_a_value_it_had_and_finds_a_lost_one() -> None:
    # An even win and loss bring a rating back to 1500 exactly: the changes form one trail in
    # whichever order the matches are read.
    back = [(1500.0, 1488.7), (1500.0, 1516.0), (1516.0, 1500.0)]
    assert trail_end(1500.0, back) == 1488.7
    assert trail_end(1500.0, back[::-1]) == 1488.7
    assert trail_end(1500.0, []) == 1500.0
    # Two updates that both read 1500: one was lost.
    lost = [(1500.0, 1516.0), (1500.0, 1484.0)]
    assert trail_end(1500.0, lost) is None and surplus(1500.0, lost) == 1
