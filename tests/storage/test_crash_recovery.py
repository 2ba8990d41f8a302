"""Crash mid-action: SIGKILL a process that applies actions, 20 times, and check.

A worker subprocess plays random matches of all three games through the match service and prints
``ACK <match> <version>`` after each action's commit returned (the moment the bot would answer
the user). The test kills it with SIGKILL after a random number of acknowledgements, so the kill
lands anywhere: inside a transaction, between two, during a match's creation. After every kill:

- the database opens cleanly (and SQLite's passes ``PRAGMA integrity_check``);
- every acknowledged action is there (the match's version is at least the acknowledged one);
- every match replays from its event log to exactly its stored snapshot, and its stored dice
  counter and rolled dice agree with its seed.

The next worker continues on the same database, resuming the surviving matches. On both
stores: a SQLite file, and a PostgreSQL database (there the kill drops the worker's pooled
connections, and the server rolls back what they left open).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.storage import connect_store
from bot.storage.sqlite import SqliteStore
from engines import replay
from engines.actions import action_from_dict
from engines.base import MatchRules
from engines.dice import die_at

KILLS = 20
ROOT = Path(__file__).resolve().parents[2]

WORKER = r"""
import asyncio, random, sys
from bot.service import (
    AcceptChallenge, AcceptResignation, ViewMatch, MatchService, NewChallenge, OfferDouble,
    PassDouble, PlayMove, RefuseDraw, RollDice, TakeDouble,
)
from engines.base import Phase
from engines.errors import GameError

GUILD, CHANNEL = 1, 2

async def main(path, seed):
    rng = random.Random(seed)
    svc = await MatchService.open(path)
    active = {v.match_id: v for v in await svc.resume_active()}
    next_user = 1000 + seed * 100
    while True:
        if len(active) < 4:
            game = rng.choice(["nannon", "backgammon", "checkers"])
            length = {"nannon": 3, "backgammon": 1, "checkers": 1}[game]
            a, b = next_user, next_user + 1
            next_user += 2
            ch = await svc.handle(NewChallenge(GUILD, CHANNEL, a, f"u{a}", game, opponent_id=b,
                                     opponent_name=f"u{b}", length=length))
            update = await svc.handle(AcceptChallenge(ch.id, GUILD, b, f"u{b}"))
            active[update.match_id] = update.view
            print(f"ACK {update.match_id} {update.version}", flush=True)
            continue
        view = rng.choice(list(active.values()))
        mid = view.match_id
        seat = view.actor if view.actor is not None else view.turn
        user = view.players[seat].user_id
        try:
            if view.phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
                if view.phase is Phase.ROLL and view.can_double[seat] and rng.random() < 0.15:
                    update = await svc.handle(OfferDouble(mid, GUILD, user))
                else:
                    update = await svc.handle(RollDice(mid, GUILD, user))
            elif view.phase is Phase.MOVE:
                update = await svc.handle(PlayMove(mid, GUILD, user, rng.choice(view.legal_moves)))
            elif view.phase is Phase.CUBE_OFFERED:
                answer = TakeDouble if rng.random() < 0.7 else PassDouble
                update = await svc.handle(answer(mid, GUILD, user))
            elif view.phase is Phase.DRAW_OFFERED:
                update = await svc.handle(RefuseDraw(mid, GUILD, user))
            elif view.phase is Phase.RESIGN_OFFERED:
                update = await svc.handle(AcceptResignation(mid, GUILD, user))
            else:
                raise AssertionError(view.phase)
        except GameError as exc:
            print(f"REFUSED {mid} {exc}", file=sys.stderr, flush=True)
            active[mid] = await svc.handle(ViewMatch(mid))
            continue
        print(f"ACK {update.match_id} {update.version}", flush=True)
        if update.view.match_over:
            del active[mid]
        else:
            active[mid] = update.view

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def end_dead_sessions(url: str) -> None:
    """Wait for the killed worker's server sessions to end. The server may still be running the
    statement the worker sent just before it died; it commits or rolls back whole, but until
    then the check's separate reads could see the match row before it and the events after."""
    import asyncpg

    db = await asyncpg.connect(url)
    try:
        await db.execute(
            "SELECT pg_terminate_backend(pid, 60000) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'"
        )
    finally:
        await db.close()


async def check_database(target: str | Path, acked: dict[int, int]) -> int:
    """All the invariants after a kill; returns the number of matches checked."""
    if isinstance(target, str):
        await end_dead_sessions(target)
    store: Any = await connect_store(target)
    try:
        if isinstance(store, SqliteStore):
            [row] = await store.raw_rows("PRAGMA integrity_check")
            assert row[0] == "ok"
        matches = {row["id"]: row for row in await store.raw_rows("SELECT * FROM matches")}
        for match_id, version in acked.items():
            assert match_id in matches, f"acknowledged match {match_id} is missing"
            assert matches[match_id]["version"] >= version, (
                f"match {match_id}: version {matches[match_id]['version']} < acknowledged {version}"
            )
        for match_id, row in matches.items():
            events = await store.events(match_id)
            snapshot = await store.snapshot(match_id)
            assert snapshot is not None  # a new checkers match has no event yet
            assert [e.seq for e in events] == list(range(len(events)))
            actions = [action_from_dict(e.payload) for e in events]
            rules = MatchRules.from_dict(json.loads(row["rules"]))
            assert replay(row["game"], rules, actions).snapshot() == snapshot, match_id
            dice = [
                int(d)
                for e in events
                if e.kind in ("opening_roll", "roll")
                for d in e.payload["dice"]
            ]
            seed = bytes(row["dice_seed"])
            assert row["dice_counter"] == len(dice), match_id
            assert all(die_at(seed, i) == d for i, d in enumerate(dice)), match_id
        return len(matches)
    finally:
        await store.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.asyncio
async def test_sigkill_mid_action_loses_nothing_acknowledged(store_target: str | Path) -> None:
    # A SQLite file, or a PostgreSQL database (then the worker's connections die with it).
    path = store_target
    rng = random.Random(20240801)
    acked: dict[int, int] = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    total_acks = 0
    for kill in range(KILLS):
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), str(kill)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
            text=True,
        )
        assert worker.stdout is not None
        wanted = rng.randint(1, 60)
        seen = 0
        try:
            while seen < wanted:
                line = await asyncio.to_thread(worker.stdout.readline)
                if not line:
                    raise AssertionError(f"worker {kill} ended early ({worker.wait()})")
                _, match_id, version = line.split()
                acked[int(match_id)] = max(acked.get(int(match_id), -1), int(version))
                seen += 1
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            # Lines printed between our last read and the kill were acknowledged too.
            for line in worker.stdout.read().splitlines():
                if line.startswith("ACK "):
                    _, match_id, version = line.split()
                    acked[int(match_id)] = max(acked.get(int(match_id), -1), int(version))
                    seen += 1
            worker.stdout.close()
        assert worker.returncode == -signal.SIGKILL
        total_acks += seen
        assert await check_database(path, acked) >= 1
    assert total_acks >= KILLS
    if isinstance(path, Path):
        # The database is usable by plain sqlite3 too (nothing half-written left in the WAL).
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
