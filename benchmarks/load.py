"""Load test: the real bot against the fake Discord, in one process, with Discord's rate limits
on. Run by hand:

    python benchmarks/load.py [--matches 200] [--guilds 20] [--rate 50] [--seconds 30]
                              [--threads | --no-threads] [--no-rate-limits]
                              [--ramp [--ramp-factor 1.25]] [--stalls MS]
                              [--warm-seconds 30] [--warm-rate 10] [--db URL]
                              [--processes K] [--compare] [--short]
                              [--analysis [--analysis-game checkers] [--analysis-length 3]
                               [--analysis-count 1] [--analysis-ply 0] [--analysis-rounds 2]]

N matches (Nannon to 11, backgammon to 3 and checkers to 3, a third each) spread over G guilds
are challenged with /challenge and accepted with the invitation's button, and play random legal
moves through real interactions: the move select and the Roll button on the board message,
`/move`, `/roll` and `/take`, typed in the match's thread, with every board rendered. A match
that ends is replaced by a new one between the same players, so N matches stay active. With
threads on (the default) each match has its thread; ``--no-threads`` plays every match in one
channel of one guild, where the per-channel limits bind if anything does.

``--processes K`` runs K bot processes on shards 0..K-1 of K, sharing one PostgreSQL database
(``--db URL``, else a throwaway server from tests/support/postgres_server.py): each process is
this script with ``--worker k``, its own fake Discord whose guilds are all on shard k (as
Discord would route them), and its bot with ``TABLEBOT_SHARD_COUNT=K``,
``TABLEBOT_SHARD_IDS=k``; it plays N/K matches at R/K actions/s. All set up first, then play
together; their latencies are merged. (Each fake has its own global bucket of 50 requests/s,
where Discord's is shared by the bot's processes: at about 0.02 bot-token requests per action
that changes nothing here.) ``--compare`` runs SQLite with 1 process, PostgreSQL with 1 and
PostgreSQL with 2 under the same load, each on a fresh database, and prints them side by side.
After every run the database is audited (tests/support/event_audit.py): every action a driver
saw accepted is in the event log exactly once, and each match's score and state, the finished
matches and the ratings equal what replaying the event log gives. ``--short`` makes every match
Nannon to 1, so that many finish and the ratings are put to the test.

The fake Discord runs on the real clock with its rate limits on (``--no-rate-limits`` turns them
off): 50 requests a second per bot token, the interaction endpoints exempt, and per-route
buckets (5 messages per 5 s per channel, 5 edits per 5 s, ...); discord.py obeys them as it
would Discord's.

The load is open-loop: each match's actions arrive as a Poisson process with mean N/R seconds
between them, scheduled from the last arrival, not from the last answer, so slow answers don't
lower the offered rate (an arrival that finds its match's previous action still running waits
for it; that wait is counted apart, as "late"). Printed:

- latency from INTERACTION_CREATE to the callback (a click's answer, which edits the board, or
  a command's defer), and to the end of the action (the board edited or the next board posted
  and, for a slash command, its ephemeral "Played."), p50/p95/p99/max;
- offered and achieved actions per second; requests per action made with the bot token and to
  the interaction endpoints, by route; the 429s the fake sent; with ``--no-threads``, what
  players see: messages per second in the one channel, and how many other messages come
  between two boards of the same match;
- peak RSS (``resource.getrusage``), the worst event-loop lag seen by a 10 ms ticker, and memory
  per active match: the bot's own allocations (tracemalloc, the fake Discord's left out) for
  each match beyond the first half (the fixed base left out), and all told divided by N right
  after the matches are created and again after a stretch of play;
- with ``--ramp``: the highest rate at which the end-to-end p99 stays under 1 s;
- with ``--analysis``: the load alone and then while the analysis worker analyses
  ``--analysis-count`` long matches (random play, queued just before), ``--analysis-rounds``
  times in turn, p99s side by side (an analysis runs in a worker process of its own, at a lower
  priority: the load's p99 should not move);
- with ``--stalls MS``: where the event loop was when it stalled, by a thread that samples the
  loop thread's stack every 2 ms while the ticker is more than MS late (a stall profile).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import tracemalloc
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from bot.service import AcceptChallenge, GetChallenge, NewChallenge, UpdateSettings, ViewMatch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fakediscord import TOKEN, Channel, FakeDiscord, Guild, Member  # noqa: E402
from support.event_audit import Accepted, EventAudit, audit_events  # noqa: E402
from support.ratings_audit import audit_ratings  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.discord import presenter  # noqa: E402
from bot.discord.app import TableBot, create_bot, freeze_startup_objects, loop_factory  # noqa: E402
from bot.service import MatchUpdate  # noqa: E402
from bot.storage import VersionConflict, connect_store  # noqa: E402
from engines.base import Phase  # noqa: E402

log = logging.getLogger(__name__)

# (game, match length) in turn: Nannon to 11, backgammon to 3, checkers first to 3 games.
GAMES = (("nannon", 11), ("backgammon", 3), ("checkers", 3))


def rss_kb() -> int:
    """Current RSS in KB (Linux /proc), falling back to the peak."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() // 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def bot_bytes(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> int:
    """Memory the bot gained between two snapshots: every allocation still alive, except those
    made by the fake Discord (any frame of its traceback in tests/fakediscord/), which keeps
    every message, attachment and member it was sent."""
    total = 0
    for stat in after.compare_to(before, "traceback"):
        if not any("fakediscord" in frame.filename for frame in stat.traceback):
            total += stat.size_diff
    return total


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class StallSampler:
    """Samples the event loop thread's stack while the loop is stalled (its ticker late)."""

    def __init__(self, late: float, every: float = 0.002) -> None:
        self.late, self.every = late, every
        self.loop_thread = threading.get_ident()
        self.beat = float("inf")  # not measuring until the ticker runs
        self.due = 0.01
        self.stacks: Counter[tuple[str, ...]] = Counter()
        self.samples = 0
        # A collection holds the GIL, so the sampler can't see it: time them instead.
        self.gc_worst: dict[int, float] = {}
        self.gc_count: Counter[int] = Counter()
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stall sampler", daemon=True)
        self._thread.start()

    def tick(self, period: float) -> None:
        self.beat, self.due = time.perf_counter(), period

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        if self.beat == float("inf"):
            return
        generation = info["generation"]
        took = time.perf_counter() - self._gc_started
        self.gc_count[generation] += 1
        self.gc_worst[generation] = max(self.gc_worst.get(generation, 0.0), took)

    def pause(self) -> None:
        self.beat = float("inf")

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            if time.perf_counter() - self.beat < self.due + self.late:
                continue
            frame = sys._current_frames().get(self.loop_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            self.stacks[
                tuple(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in stack[-10:])
            ] += 1
            self.samples += 1

    def report(self, top: int = 12) -> None:
        self._stop.set()
        gc.callbacks.remove(self._on_gc)
        for generation in sorted(self.gc_count):
            print(
                f"gc generation {generation}: {self.gc_count[generation]} collections, "
                f"worst {self.gc_worst[generation] * 1000:.1f} ms"
            )
        ms = self.every * 1000
        print(f"stall profile: {self.samples} samples of {ms:.0f} ms while the loop was stalled")
        for stack, count in self.stacks.most_common(top):
            print(f"  {count} samples ({count * ms:.0f} ms):")
            for line in stack:
                print(f"      {line}")


class LagMeter:
    def __init__(self, period: float = 0.01, sampler: StallSampler | None = None) -> None:
        self.period = period
        self.worst = 0.0
        self.sampler = sampler
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            if self.sampler is not None:
                self.sampler.tick(self.period)
            await asyncio.sleep(self.period)
            self.worst = max(self.worst, loop.time() - start - self.period)

    def start(self) -> None:
        self.worst = 0.0
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.sampler is not None:
            self.sampler.pause()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


class RefusedHooks(logging.Handler):
    """Counts the board edits a webhook refused (the fake had forgotten the interaction past
    its history limit; Discord keeps it 15 minutes): each falls back to the bot token."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "webhook refused" in record.getMessage():
            self.count += 1


class Load:
    def __init__(self, fake: FakeDiscord, bot: TableBot, shard: int | None = None) -> None:
        self.fake, self.bot, self.svc = fake, bot, bot.service
        self.shard = shard  # of K processes: this one's shard (its guilds are on it)
        self.short = False  # --short: every match Nannon to 1
        self.conflicts = 0  # the store's version conflicts (a stale write refused)
        store: Any = self.svc._state.store
        commit = store.commit_action

        self.commits: list[float] = []  # seconds per committed action (the store's part)

        async def counted(*args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            try:
                await commit(*args, **kwargs)
            except VersionConflict:
                self.conflicts += 1
                raise
            self.commits.append(time.perf_counter() - started)

        store.commit_action = counted

        # The harness holds a click until the bot has no request in flight, so that a test's
        # click never beats discord.py to a view it registers after posting it. Discord
        # delivers a click whatever the bot is doing, and every component here is a
        # DynamicItem, found by its custom_id: no wait.
        async def no_wait(timeout: float = 0) -> None:
            return None

        fake.wait_bot_idle = no_wait  # type: ignore[method-assign]
        self.refused_hooks = RefusedHooks()
        delivery_log = logging.getLogger("bot.discord.delivery")
        delivery_log.setLevel(logging.INFO)
        delivery_log.addHandler(self.refused_hooks)
        delivery_log.propagate = False
        self.members: dict[int, Member] = {}
        # One slot per concurrent match: its guild, channel, players and game, and the match
        # being played there now (a new one replaces it when it ends).
        self.slots: list[tuple[Guild, Channel, Member, Member, str, int]] = []
        self.matches: list[int] = []
        self.first: list[float] = []  # to the callback
        self.done: list[float] = []  # to the end of the action
        self.late: list[float] = []  # arrivals that waited for their match's previous action
        self.arrivals = 0
        self.accepted: list[Accepted] = []
        self.replaced = 0
        self.errors = 0
        self.kinds: dict[str, int] = {}
        self.rng = random.Random(1)
        self.sampler: StallSampler | None = None
        self.bot_bytes_created = 0.0
        self.bot_bytes_played = 0.0
        self.bot_bytes_marginal = 0.0
        # Instrumentation: every action ends with presenter.publish (the board edited in
        # place, or the next board posted), so a per-match event set when it returns marks
        # the end of an action without re-checking every waiter.
        self.board_posted: dict[int, asyncio.Event] = {}
        real_publish = presenter.publish

        async def publish(bot: TableBot, update: MatchUpdate, via: Any = None) -> None:
            try:
                await real_publish(bot, update, via)
            finally:
                match_id = update.view.match_id
                self.note_board(match_id)
                event = self.board_posted.get(match_id)
                if event is not None:
                    event.set()

        presenter.publish = publish
        # The first board of a match, by its invitation's id (start_match waits for it).
        self.first_board: dict[int, asyncio.Event] = {}
        real_start = presenter.start_match

        async def start_match(
            bot: TableBot, update: MatchUpdate, invitation: Any, *args: Any, **kw: Any
        ) -> None:
            try:
                await real_start(bot, update, invitation, *args, **kw)
            finally:
                event = self.first_board.get(invitation.id if invitation is not None else 0)
                if event is not None:
                    event.set()

        presenter.start_match = start_match
        # Where each match is played (its thread, or the channel), and what players see in a
        # channel: for each match, the channel's message count at its latest board, and how
        # many other messages came between two of its boards.
        self.where: dict[int, Channel] = {}
        self.board_seen: dict[int, tuple[int, int]] = {}  # match -> (board id, channel count)
        self.between: list[int] = []

    async def start_match(self, slot: int) -> int:
        """A new match in ``slot``: /challenge, and the opponent clicks Accept; once its first
        board is posted (in its thread, with threads on)."""
        fake = self.fake
        guild, channel, a, b, game, length = self.slots[slot]
        it = await fake.slash(
            "challenge", {"game": game, "opponent": b, "points": length}, by=a, channel=channel
        )
        invitation = (await it.response(timeout=30)).message
        assert invitation is not None, "no invitation"
        challenge_id = int(invitation.custom_ids[0].rsplit(":", 1)[1])
        first = self.first_board[invitation.id] = asyncio.Event()
        click = await fake.click(invitation, label="Accept", by=b)
        await click.response(timeout=30)
        await asyncio.wait_for(first.wait(), timeout=60)
        del self.first_board[invitation.id]
        challenge = await self.svc.handle(GetChallenge(challenge_id, guild.id))
        assert challenge.match_id is not None
        view = await self.svc.handle(ViewMatch(challenge.match_id))
        self.where[challenge.match_id] = fake.channels[view.thread_id or view.channel_id]
        return challenge.match_id

    async def setup(
        self, n: int, guilds: int, threads: bool, warm_rate: float, warm_seconds: float
    ) -> None:
        """Create the matches, then play a while, measuring the bot's memory per active match
        after each (tracemalloc slows the bot down, so the timed runs come after it stops)."""
        fake = self.fake
        if self.shard is None:
            places = [fake.guild]
            for g in range(1, guilds if threads else 1):
                places.append(await fake.add_guild(f"guild {g}"))
        else:  # one of K processes: guilds of its own shard only
            places = [
                await fake.add_guild(f"guild {g}", shard=self.shard)
                for g in range(guilds if threads else 1)
            ]
        await self.bot.tree.sync()  # global commands: every guild has them
        for guild in places:
            await self.svc.handle(
                UpdateSettings(guild.id, {"use_threads": threads, "rate_limit_actions": 1000})
            )
            self.bot.rate_limit.invalidate(guild.id)
        for i in range(n):
            guild = places[i % len(places)]
            a = await fake.add_member(f"p{i}a", guild)
            b = await fake.add_member(f"p{i}b", guild)
            self.members[a.id], self.members[b.id] = a, b
            game, length = ("nannon", 1) if self.short else GAMES[i % len(GAMES)]
            self.slots.append((guild, guild.text_channels[0], a, b, game, length))
        gc.collect()
        tracemalloc.start(16)
        traced_before = tracemalloc.take_snapshot()
        half = n // 2
        for i in range(n):
            if i == half:
                gc.collect()
                traced_half = tracemalloc.take_snapshot()
            self.matches.append(await self.start_match(i))
        gc.collect()
        traced_all = tracemalloc.take_snapshot()
        self.bot_bytes_created = bot_bytes(traced_before, traced_all) / n
        # The cost of one more match, with the fixed base (caches, first imports) left out.
        self.bot_bytes_marginal = bot_bytes(traced_half, traced_all) / (n - half)
        # As after a restart, where setup_hook resumes these matches and then freezes them.
        freeze_startup_objects()
        if warm_seconds > 0:
            await self.run(warm_rate, warm_seconds)
            gc.collect()
            self.bot_bytes_played = bot_bytes(traced_before, tracemalloc.take_snapshot()) / n
        tracemalloc.stop()

    def note_board(self, match_id: int) -> None:
        """After an action: if the match's board is a new message, how many other messages its
        channel got since the previous one (what a player scrolls past to find it)."""
        live = self.svc._state.live.get(match_id)  # no await: the match as just committed
        board_id = live.record.board_message_id if live is not None else None
        channel = self.where.get(match_id)
        if board_id is None or channel is None:
            return
        seen = self.board_seen.get(match_id)
        count = channel.messages_sent
        if seen is not None and seen[0] != board_id:
            self.between.append(count - seen[1] - 1)
        if seen is None or seen[0] != board_id:
            self.board_seen[match_id] = (board_id, count)

    async def act(self, slot: int) -> None:
        fake, svc = self.fake, self.svc
        match_id = self.matches[slot]
        try:
            view = await svc.handle(ViewMatch(match_id))
            if view.match_over:
                self.matches[slot] = await self.start_match(slot)
                self.replaced += 1
                return
            if view.actor is None and view.phase is not Phase.OPENING_TIE:
                return
            seat = view.actor if view.actor is not None else view.turn
            who = self.members[view.players[seat].user_id]
            first = await self.svc._state.store.event_count(match_id)
            posted = self.board_posted[match_id] = asyncio.Event()
            start = time.perf_counter()
            where = self.where[match_id]
            board = fake.messages_by_id.get(view.board_message_id or 0)
            buttons = {c.get("label") for c in board.buttons} if board is not None else set()
            if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
                if "Roll" in buttons and self.rng.random() < 0.5:
                    kind = "Roll"
                    it = await fake.click(board, label="Roll", by=who)  # type: ignore[arg-type]
                else:
                    kind = "/roll"
                    it = await fake.slash("roll", {}, by=who, channel=where)
            elif view.phase is Phase.CUBE_OFFERED:
                kind = "/take"
                it = await fake.slash("take", {}, by=who, channel=where)
            elif view.phase is Phase.MOVE:
                move = self.rng.choice(view.legal_moves)
                options = [
                    o["value"]
                    for row in (board.components if board else [])
                    for c in row.get("components", [])
                    for o in c.get("options", [])
                ]
                if move in options and self.rng.random() < 0.5:
                    kind = "select"
                    it = await fake.select(board, [move], by=who)  # type: ignore[arg-type]
                else:
                    kind = "/move"
                    it = await fake.slash("move", {"play": move}, by=who, channel=where)
            else:
                return
            # From INTERACTION_CREATE: a click first waits in the harness for the bot to be
            # idle (so tests see settled views), which Discord never does.
            start = it.state.sent_at or start
            response = await it.response(timeout=30)
            self.first.append(time.perf_counter() - start)
            # The end of the action: the service moved on and the next board (or result) is up,
            # and a deferred slash command has its follow-up.
            await asyncio.wait_for(posted.wait(), timeout=30)
            if response.type == 5:
                await it.followup(timeout=30)
            self.done.append(time.perf_counter() - start)
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            # For the audit: the events this accepted action added (no other action of this
            # match runs meanwhile).
            end = await self.svc._state.store.event_count(match_id)
            self.accepted.append(Accepted(match_id, first, end, kind))
        except Exception:
            self.errors += 1
            log.exception("action on match %s failed", match_id)

    async def player(self, slot: int, think: float, until: float) -> None:
        """One slot's arrivals: a Poisson process scheduled from the previous arrival, whatever
        the answers' latency, until the run ends."""
        loop = asyncio.get_running_loop()
        arrival = loop.time() + self.rng.expovariate(1 / think)
        while arrival < until:
            wait = arrival - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            elif loop.time() >= until:
                return  # a backlog left at the end of the run is not sent
            else:
                self.late.append(-wait)
            self.arrivals += 1
            await self.act(slot)
            arrival += self.rng.expovariate(1 / think)

    async def run(self, rate: float, seconds: float) -> dict[str, Any]:
        self.first.clear()
        self.done.clear()
        self.late.clear()
        self.between.clear()
        self.arrivals = self.errors = 0
        requests = self.fake.stats.snapshot()
        refused_hooks = self.refused_hooks.count
        conflicts = self.conflicts
        self.commits.clear()
        channel = self.slots[0][1]
        posted = channel.messages_sent
        lag = LagMeter(sampler=self.sampler)
        lag.start()
        loop = asyncio.get_running_loop()
        start = loop.time()
        think = len(self.slots) / rate  # mean seconds between one match's actions
        tasks = [
            asyncio.create_task(self.player(slot, think, start + seconds))
            for slot in range(len(self.slots))
        ]
        _, pending = await asyncio.wait(tasks, timeout=seconds + 60)
        for task in pending:
            task.cancel()
        elapsed = loop.time() - start
        await lag.stop()
        made = self.fake.stats.since(requests)
        actions = max(1, len(self.done))
        return {
            "bot_token": made.bot_token_total / actions,
            "interaction": made.interaction_total / actions,
            "routes": {k: v / actions for k, v in made.bot_token.most_common()},
            "refused_hooks": self.refused_hooks.count - refused_hooks,
            "429s": made.rate_limited_total,
            "global_429s": made.global_rate_limited,
            "bot_token_rate": made.bot_token_total / elapsed,
            "channel_rate": (channel.messages_sent - posted) / elapsed,
            "between_p50": pct([float(b) for b in self.between], 0.5),
            "between_p90": pct([float(b) for b in self.between], 0.9),
            "offered": self.arrivals / seconds,
            "achieved": len(self.done) / elapsed,
            "late": len(self.late) / max(1, self.arrivals),
            "late_p99": pct(self.late, 0.99) if self.late else 0.0,
            "p50": pct(self.first, 0.5),
            "p95": pct(self.first, 0.95),
            "p99": pct(self.first, 0.99),
            "max": max(self.first, default=float("nan")),
            "done_p50": pct(self.done, 0.5),
            "done_p95": pct(self.done, 0.95),
            "done_p99": pct(self.done, 0.99),
            "done_max": max(self.done, default=float("nan")),
            "lag": lag.worst,
            "errors": self.errors,
            "conflicts": self.conflicts - conflicts,
            "commit_all": list(self.commits),
            "commit_p50": pct(self.commits, 0.5),
            "commit_p99": pct(self.commits, 0.99),
            # Raw, to merge the runs of several processes.
            "first_all": list(self.first),
            "done_all": list(self.done),
            "elapsed": elapsed,
            "arrivals": self.arrivals,
        }


TIMES = ("late_p99", "p50", "p95", "p99", "max", "done_p50", "done_p95", "done_p99")
TIMES += ("done_max", "lag")


def show(label: str, r: dict[str, Any], *, one_channel: bool = False) -> None:
    ms = {k: r[k] * 1000 for k in TIMES}
    print(
        f"{label}: offered {r['offered']:.1f}/s, achieved {r['achieved']:.1f}/s, "
        f"{r['late'] * 100:.1f}% of arrivals waited for their match (p99 {ms['late_p99']:.0f} ms); "
        f"callback p50 {ms['p50']:.0f} p95 {ms['p95']:.0f} p99 {ms['p99']:.0f} "
        f"max {ms['max']:.0f} ms; done p50 {ms['done_p50']:.0f} p95 {ms['done_p95']:.0f} "
        f"p99 {ms['done_p99']:.0f} max {ms['done_max']:.0f} ms; "
        f"loop lag {ms['lag']:.0f} ms; errors {int(r['errors'])}",
        flush=True,
    )
    routes = ", ".join(f"{route} {per:.3f}" for route, per in r["routes"].items()) or "none"
    print(
        f"  requests per action: bot token {r['bot_token']:.3f} ({routes}), interaction "
        f"endpoints {r['interaction']:.2f}; bot token {r['bot_token_rate']:.1f}/s; "
        f"429s received {r['429s']} (global {r['global_429s']}); board edits refused by a "
        f"webhook the fake had forgotten (then made with the bot token): {r['refused_hooks']}",
        flush=True,
    )
    if one_channel:
        print(
            f"  the one channel: {r['channel_rate']:.1f} new messages/s; between two boards of "
            f"a match, {r['between_p50']:.0f} other messages (p50), {r['between_p90']:.0f} "
            "(p90)",
            flush=True,
        )


def database(db: str | None, tmp: str) -> str | Path:
    """``--db``: a postgresql:// URL (an empty or tablebot database; the run's matches stay in
    it) or a SQLite file; by default a new SQLite file in ``tmp``."""
    return Path(tmp) / "load.db" if db is None else db if "://" in db else Path(db)


async def play(
    args: argparse.Namespace, target: str | Path, shard: int | None = None, processes: int = 1
) -> tuple[Load, dict[str, Any]]:
    """The bot (on shard ``shard`` of ``processes``, or on every shard) and its fake Discord:
    set up, and with ``--worker`` say READY and wait for GO, then the timed run. The Load (its
    accepted actions) and what the run measured."""
    share = 1 if shard is None else processes
    settings = Settings(
        token=TOKEN,
        db_path=target,
        dev_guild_id=None,
        log_level="WARNING",
        shard_count=None if shard is None else processes,
        shard_ids=None if shard is None else (shard,),
    )
    # The fake keeps only recent history: a real Discord's memory isn't in our process, and
    # every full garbage collection walked it (300 entries: 56 ms; 100: 25-38 ms). It keeps
    # every interaction whose follow-up is a live board, which the bot edits through its
    # webhook (Discord keeps a token 15 minutes).
    fake = FakeDiscord(
        strict=False,
        ready_timeout=60,
        history_limit=args.history,
        clock=time.monotonic,  # rate-limit windows and deadlines on the real clock
        rate_limits=args.rate_limits,
        shard_count=share,
    )
    async with fake.run(lambda **o: create_bot(settings, **o)):
        bot = fake.bot
        assert isinstance(bot, TableBot)
        load = Load(fake, bot, shard)
        load.short = args.short
        if args.stalls:
            load.sampler = StallSampler(args.stalls / 1000)
        t0 = time.perf_counter()
        before = rss_kb()
        matches, guilds = args.matches // share, max(1, args.guilds // share)
        await load.setup(matches, guilds, args.threads, args.warm_rate / share, args.warm_seconds)
        after = rss_kb()
        where = f"{guilds} guilds, a thread each" if args.threads else "one channel"
        limits = "on" if args.rate_limits else "off"
        print(
            f"{'' if shard is None else f'[process {shard}] '}rate limits {limits}; set up "
            f"{matches} matches ({where}) and played {args.warm_seconds:g} s at "
            f"{args.warm_rate / share:g}/s in {time.perf_counter() - t0:.1f} s; bot memory per "
            f"active match (tracemalloc, the fake Discord's allocations left out): "
            f"{load.bot_bytes_marginal / 1024:.1f} KB for each further match, "
            f"{load.bot_bytes_created / 1024:.1f} KB all told once created (the fixed base "
            f"shared out), {load.bot_bytes_played / 1024:.1f} KB all told after the play; "
            f"RSS {before} -> {after} KB with the fake's",
            file=sys.stderr if args.worker is not None else sys.stdout,
            flush=True,
        )
        if args.analysis:
            return load, await analysis_comparison(load, args)
        if args.worker is not None:
            print("READY", flush=True)
            assert (await asyncio.to_thread(sys.stdin.readline)).strip() == "GO"
        result = await load.run(args.rate / share, args.seconds)
        if args.worker is not None:
            return load, result
        show(f"N={args.matches} R={args.rate:g}", result, one_channel=not args.threads)
        print(f"actions by kind: {load.kinds}; matches replaced as they ended: {load.replaced}")
        if args.ramp:
            await ramp_run(load, args)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"peak RSS {peak / 1024:.0f} MB")
        print(f"median callback {statistics.median(load.first or [0]) * 1000:.0f} ms")
        if load.sampler is not None:
            load.sampler.report()
        return load, result


async def ramp_run(load: Load, args: argparse.Namespace) -> None:
    """Raise the offered rate by ``--ramp-factor`` until the end-to-end p99 reaches 1 s."""
    best = None
    rate = args.rate
    while rate <= args.max_rate:
        r = await load.run(rate, args.ramp_seconds)
        show(f"ramp R={rate:g}", r)
        # The action's whole latency: the defer plus its follow-up (the new board).
        if r["done_p99"] >= 1.0 or r["achieved"] < 0.8 * rate:
            break
        best = r
        rate *= args.ramp_factor
    if best is None:
        print("no rate tried kept the end-to-end p99 under 1 s")
    else:
        print(
            f"highest rate with end-to-end p99 < 1 s: offered {best['offered']:.1f}/s, "
            f"achieved {best['achieved']:.1f}/s (p99 {best['done_p99'] * 1000:.0f} ms)"
        )


async def worker(args: argparse.Namespace) -> None:
    """``--worker k``: bot process k of ``--processes`` (its shard k), on ``--db``; writes what
    it measured and the actions it saw accepted to ``--out``."""
    load, r = await play(args, args.db, args.worker, args.processes)
    keep = ("first_all", "done_all", "elapsed", "arrivals", "errors", "429s", "lag", "conflicts")
    keep += ("commit_all",)
    out = {key: r[key] for key in keep}
    out["bot_token_requests"] = r["bot_token"] * max(1, len(r["done_all"]))
    out["accepted"] = [[a.match_id, a.first, a.end, a.kind] for a in load.accepted]
    Path(args.out).write_text(json.dumps(out))


async def processes_run(
    args: argparse.Namespace, url: str, processes: int
) -> tuple[list[Accepted], dict[str, Any]]:
    """K worker processes (this script with ``--worker k``), each a bot on its shard with its
    own fake Discord, on one database: each sets up its share and says READY; all are told GO
    together; what they measured, merged."""
    with tempfile.TemporaryDirectory() as tmp:
        outputs = [Path(tmp) / f"worker{k}.json" for k in range(processes)]
        argv = [a for a in sys.argv[1:] if a != "--compare"]
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    *argv,
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
        try:
            for proc in workers:
                assert proc.stdout is not None
                line = await asyncio.to_thread(proc.stdout.readline)
                assert line.strip() == "READY", f"a worker said {line!r}"
            for proc in workers:
                assert proc.stdin is not None
                proc.stdin.write("GO\n")
                proc.stdin.flush()
            for proc in workers:
                code = await asyncio.to_thread(proc.wait)
                assert code == 0, f"a worker failed ({code})"
        finally:
            for proc in workers:
                if proc.poll() is None:
                    proc.kill()
        parts = [json.loads(o.read_text()) for o in outputs]
    for k, p in enumerate(parts):  # each process's own figures, to check the merged ones
        print(
            f"  process {k}: {len(p['done_all'])} actions in {p['elapsed']:.1f} s "
            f"({len(p['done_all']) / p['elapsed']:.1f}/s), the whole action p50 "
            f"{pct(p['done_all'], 0.5) * 1000:.0f} ms, p99 {pct(p['done_all'], 0.99) * 1000:.0f} "
            f"ms, max {max(p['done_all'], default=0) * 1000:.0f} ms, loop lag "
            f"{p['lag'] * 1000:.0f} ms; 429s {p['429s']}, errors "
            f"{p['errors']}, {len(p['accepted'])} actions accepted",
            flush=True,
        )
    first = [x for p in parts for x in p["first_all"]]
    commits = [x for p in parts for x in p["commit_all"]]
    done = [x for p in parts for x in p["done_all"]]
    elapsed = max(p["elapsed"] for p in parts)
    merged = {
        "achieved": len(done) / elapsed,
        "offered": sum(p["arrivals"] for p in parts) / args.seconds,
        "p99": pct(first, 0.99),
        "done_p50": pct(done, 0.5),
        "done_p99": pct(done, 0.99),
        "done_max": max(done, default=float("nan")),
        "429s": sum(p["429s"] for p in parts),
        "errors": sum(p["errors"] for p in parts),
        "conflicts": sum(p["conflicts"] for p in parts),
        "commit_p50": pct(commits, 0.5),
        "commit_p99": pct(commits, 0.99),
        "bot_token": sum(p["bot_token_requests"] for p in parts) / max(1, len(done)),
    }
    accepted = [Accepted(*a) for p in parts for a in p["accepted"]]
    return accepted, merged


async def measure(
    args: argparse.Namespace, target: str | Path, processes: int
) -> tuple[dict[str, Any], EventAudit]:
    """One configuration: K processes (K > 1 needs PostgreSQL) on ``target``, then the audit."""
    if processes == 1:
        load, result = await play(args, target)
        accepted = load.accepted
    else:
        accepted, result = await processes_run(args, str(target), processes)
    store = await connect_store(target)
    try:
        audit = await audit_events(store, accepted)
        result["lost_updates"] = (await audit_ratings(store)).lost
    finally:
        await store.close()
    print(f"audit: {audit.line()}; lost rating updates {result['lost_updates']}", flush=True)
    for problem in audit.problems[:10]:
        print(f"  {problem}")
    return result, audit


@contextlib.asynccontextmanager
async def embedded_postgres() -> AsyncIterator[Callable[[str], str]]:
    """A throwaway PostgreSQL server (tests/support/postgres_server.py); yields a function that
    makes a fresh database on it and returns its URL."""
    from support.postgres_server import EmbeddedPostgres

    server = EmbeddedPostgres.start()
    try:
        yield server.create_database
    finally:
        server.stop()


async def compare(args: argparse.Namespace) -> None:
    """SQLite with 1 process, PostgreSQL with 1 and with 2, each on a fresh database, under the
    same load, each audited; side by side."""
    rows: list[tuple[str, dict[str, Any], EventAudit]] = []
    async with embedded_postgres() as new_database:
        with tempfile.TemporaryDirectory() as tmp:
            configurations: list[tuple[str, str | Path, int]] = [
                ("SQLite, 1 process", Path(tmp) / "load.db", 1),
                ("PostgreSQL, 1 process", args.db or new_database("load1"), 1),
                ("PostgreSQL, 2 processes", new_database("load2"), 2),
            ]
            for label, target, processes in configurations:
                print(f"--- {label}", flush=True)
                result, audit = await measure(args, target, processes)
                rows.append((label, result, audit))
    print(
        f"\n{args.matches} matches, {args.rate:g} actions/s offered for {args.seconds:g} s, "
        f"rate limits {'on' if args.rate_limits else 'off'}, "
        f"{'threads' if args.threads else 'one channel'}"
    )
    print(
        f"{'':24} {'actions/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'commit p50':>10} "
        f"{'commit p99':>10} {'429s':>5} {'errors':>6} {'conflicts':>9} {'lost':>4} "
        f"{'accepted':>8} {'in log once':>11} {'dup.':>4} {'replay diff':>11} "
        f"{'finished':>8} {'ratings off':>11}"
    )
    for label, r, a in rows:
        print(
            f"{label:24} {r['achieved']:9.1f} {r['done_p50'] * 1000:7.0f} "
            f"{r['done_p99'] * 1000:7.0f} {r['commit_p50'] * 1000:10.2f} "
            f"{r['commit_p99'] * 1000:10.2f} {r['429s']:5} {r['errors']:6} {r['conflicts']:9} "
            f"{r['lost_updates']:4} "
            f"{a.accepted:8} "
            f"{a.in_log_once:11} {a.duplicates:4} {a.replay_mismatches:11} "
            f"{a.finished:8} {a.rating_mismatches:11}"
        )


async def main(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.WARNING)
    if args.worker is not None:
        await worker(args)
    elif args.compare:
        await compare(args)
    elif args.processes > 1:
        if args.db is None or "://" not in args.db:
            async with embedded_postgres() as new_database:
                result, _ = await measure(args, new_database("load"), args.processes)
        else:
            result, _ = await measure(args, args.db, args.processes)
        print(
            f"{args.processes} processes: achieved {result['achieved']:.1f}/s, the whole action "
            f"p50 {result['done_p50'] * 1000:.0f} ms, p99 {result['done_p99'] * 1000:.0f} ms, "
            f"429s {result['429s']}, errors {result['errors']}"
        )
    else:
        with tempfile.TemporaryDirectory() as tmp:
            await measure(args, database(args.db, tmp), 1)


# --- --analysis: the load's p99 with and without an analysis running --------------------------


async def finished_match(
    bot: TableBot, guild: Guild, channel: Channel, game: str, length: int
) -> int:
    """A match between two players of ``guild``, played to its end with random legal moves
    through the service (no Discord traffic): its id."""
    from bot.service import PlayMove, RefuseDraw, RollDice, TakeDouble

    svc, rng = bot.service, random.Random(7)
    ids = (9_000_000 + rng.randrange(10**6), 9_000_000 + rng.randrange(10**6))
    challenge = await svc.handle(NewChallenge(
        guild.id, channel.id, ids[0], "ann", game, opponent_id=ids[1], opponent_name="bob",
        length=length,
    ))  # fmt: skip
    update = await svc.handle(AcceptChallenge(challenge.id, guild.id, ids[1], "bob"))
    while not update.match_over:
        view = update.view
        user = view.players[0 if view.actor is None else view.actor].user_id
        command: Any
        if view.phase is Phase.MOVE:
            command = PlayMove(view.match_id, guild.id, user, rng.choice(view.legal_moves))
        elif view.phase is Phase.CUBE_OFFERED:
            command = TakeDouble(view.match_id, guild.id, user)
        elif view.phase is Phase.DRAW_OFFERED:
            command = RefuseDraw(view.match_id, guild.id, user)
        else:
            command = RollDice(view.match_id, guild.id, user)
        update = await svc.handle(command)
    return update.view.match_id


async def analysis_comparison(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    """The same load alone and then while the analysis worker analyses long matches
    (``--analysis-count`` of ``--analysis-game`` to ``--analysis-length`` at ``--analysis-ply``,
    queued just before), ``--analysis-rounds`` times in turn, p99s side by side: one pair of
    30 s runs on a shared machine is noisy. The last run's result (audited as any run's)."""
    from bot.service import AnalysisStatus, RequestAnalysis

    bot, queue = load.bot, load.bot.service.analyses
    assert queue.runner is not None, "no analysis runner in this bot"
    guild, channel = load.slots[0][0], load.slots[0][1]
    game, length, ply = args.analysis_game, args.analysis_length, args.analysis_ply
    pairs = []
    for round_ in range(1, args.analysis_rounds + 1):
        matches = [
            await finished_match(bot, guild, channel, game, length)
            for _ in range(args.analysis_count)
        ]
        alone = await load.run(args.rate, args.seconds)
        started = time.perf_counter()
        for match_id in matches:
            await bot.service.handle(RequestAnalysis(match_id, guild.id, None, ply=ply))
        during = await load.run(args.rate, args.seconds)
        busy = queue.current is not None  # still analysing when the load stopped
        views = [await queue.view(m) for m in matches]
        done = sum(v.games_done for v in views)
        total = sum(v.games_total or 0 for v in views)
        await queue.wait_idle()
        took = time.perf_counter() - started
        statuses = [(await queue.view(m)).status for m in matches]
        assert all(s is AnalysisStatus.DONE for s in statuses), statuses
        show(f"round {round_} without analysis", alone)
        show(f"round {round_} with analysis   ", during)
        print(
            f"  analysis: {len(matches)} {game} match(es) to {length} at ply {ply}, {done} of "
            f"{total} games analysed during the {args.seconds:g} s load, "
            f"{'still running' if busy else 'finished'} when it ended; all done in {took:.1f} s",
            flush=True,
        )
        pairs.append((alone, during))
    for key, what in (("p99", "callback"), ("done_p99", "end-to-end")):
        without = " ".join(f"{a[key] * 1000:.0f}" for a, _ in pairs)
        with_ = " ".join(f"{d[key] * 1000:.0f}" for _, d in pairs)
        print(f"{what} p99 (ms) by round: without analysis {without}; with analysis {with_}")
    return pairs[-1][1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--guilds", type=int, default=20)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    # tracemalloc makes the bot several times slower: the traced play runs at a low rate.
    parser.add_argument(
        "--warm-seconds", type=float, default=30.0, help="play traced for memory first"
    )
    parser.add_argument("--warm-rate", type=float, default=10.0)
    parser.add_argument("--ramp", action="store_true")
    parser.add_argument("--ramp-seconds", type=float, default=15.0)
    parser.add_argument("--ramp-factor", type=float, default=1.25)
    parser.add_argument("--max-rate", type=float, default=400.0)
    parser.add_argument("--stalls", type=float, default=0.0, metavar="MS")
    parser.add_argument(
        "--threads", action=argparse.BooleanOptionalAction, default=True,
        help="a thread per match (default), or every match in one channel",
    )  # fmt: skip
    parser.add_argument(
        "--rate-limits", action=argparse.BooleanOptionalAction, default=True,
        help="the fake Discord's rate limits (default on)",
    )  # fmt: skip
    parser.add_argument("--history", type=int, default=100, help="the fake's history limit")
    parser.add_argument("--db", help="a postgresql:// URL or a SQLite file (default: a temp one)")
    parser.add_argument(
        "--processes", type=int, default=1, metavar="K",
        help="K bot processes on shards 0..K-1, one PostgreSQL database (--db, or an embedded one)",
    )  # fmt: skip
    parser.add_argument(
        "--compare", action="store_true",
        help="SQLite with 1 process, PostgreSQL with 1 and with 2, side by side, audited",
    )  # fmt: skip
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument(
        "--short", action="store_true",
        help="every match Nannon to 1, so that many finish and are rated (for the audit)",
    )  # fmt: skip
    parser.add_argument(
        "--analysis", action="store_true",
        help="the load alone, then while a long post-match analysis runs: p99 side by side",
    )  # fmt: skip
    parser.add_argument("--analysis-game", default="checkers")
    parser.add_argument("--analysis-length", type=int, default=3)
    parser.add_argument("--analysis-count", type=int, default=1, help="matches to analyse")
    parser.add_argument("--analysis-ply", type=int, default=0)
    parser.add_argument("--analysis-rounds", type=int, default=2)
    # The bot's own event loop (uvloop where installed), as `tablebot` runs it.
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main(parser.parse_args()))
