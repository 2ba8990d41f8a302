"""The robot: `python benchmarks/robot.py [--positions N] [--seed S]`.

Prints, through the robot's worker process (bot/robot/worker.py), as the bot would ask:
(each level's strength against its published target is benchmarks/robot_levels.py's job)

- per level, the latency p50/p99 of a backgammon move decision (every play ranked) and of a cube
  decision (targets for a move, p99: 100 ms at expert, 2 s at master);
- per level, the average equity lost per move against master's 2-ply ranking over positions
  from expert self-play (money play, centred cube: gnubg's normalised equity), and that loss
  times 500, gnubg's "PR" scale (gnubg measured its presets at about PR 24, 16, 3, 0; this is
  a cheap stand-in: 2-ply is the judge, not rollouts; rolls with one legal play are left out);
- Nannon decisions: the first at a new match score (a solve), then p50/p99 (target p99 10 ms);
- checkers master's time per move through the worker with the server's thinking time
  (``--think-s``, default 2 s: ``robot_think_s``), the resignation and draw-offer checks
  included (positions from beginner self-play where the mover is behind or the game has
  settled, so that the checks run): p50, p99 and max, against the target of the setting plus
  10%. Measured on the shared machine (load average 6 to 9), 20 moves each: 2 s, p50 2025 ms,
  p99 and max 2087 ms; 1 s, p50 1017 ms, max 1031 ms (before one search served the checks, a
  move could take three times the setting);
- the event loop's lag while 20 robot decisions are in flight (target <= 50 ms), measured by
  a task that wakes every 5 ms: p50, p99 and max of its lateness; by default the decisions
  are backgammon master and expert moves and Nannon moves (gnubg's sample positions), and
  with ``--sections lag`` alone they are checkers moves at expert (1 s each) and Nannon
  moves, so the section runs without gnubg's sample;
- end to end, through the real bot against the fake Discord (``--driver``, on by default): 20
  matches against the robot (backgammon master and expert, Nannon master, checkers expert), the
  20 humans' commands sent at once, so that 20 robots think at once; per round, the event
  loop's worst lag (the 5 ms ticker) and the robot's reply time (from the human's command to
  the robot's action applied), p50 and max, and the round's time.

``--sections backgammon,lag,nannon,driver`` picks sections (default all); ``--rounds N``
rounds in the driver section. For lag under load, run it beside two CPU-bound processes
(``yes > /dev/null &`` twice). The lag sections also say, for the ticks more than 10 ms late,
how much of their time the loop's thread ran and how much it waited for a CPU (Linux).

Measured on the shared 2-core machine (load average 3 to 7 from other work), ``--sections
lag,driver``: quiet, the lag section p50 0.1 ms, p99 8.4 ms, max 13.7 ms, the driver's 5
rounds p50 0.1 ms, p99 5.4-6.1 ms, max 11-14 ms; beside two ``yes``, lag section p50 0.1 ms,
p99 4-15 ms, max 11-24 ms, driver p50 0.1-0.2 ms, p99 7-18 ms, max 24-58 ms. Where it goes:
in asyncio's debug mode no callback took 2 ms or more in the driver's rounds, and of the late
ticks' time under load the loop's thread ran 1-7% and waited for a CPU 74-85% (the rest
between the two readings): the loop is not blocked by its own work but queued behind other
processes. Running the robot worker at a lower priority (nice +5) did not help in
alternating runs and made gnubg's 2-ply moves 2.4 times slower under that load.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import threading
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the fake Discord
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.discord.app import loop_factory
from bot.robot import jobs
from bot.robot.levels import BACKGAMMON_LEVELS, Level
from bot.robot.worker import RobotWorker
from bot.service import UpdateSettings, ViewMatch
from bot.workers import WorkerPool
from engines import checkers_search
from engines.backgammon import Position
from engines.checkers import Board, Game
from engines.checkers_search import Level as CheckersLevel
from engines.gnubg import MatchId
from engines.nannon import all_positions
from engines.nannon_solver import Context


async def sample(worker: RobotWorker, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """(Position ID, money Match ID with the roll) from games the expert level plays against
    itself with random dice: every stage of a game, each roll with at least two legal plays."""
    found: list[tuple[str, str]] = []
    position = Position.initial()
    while len(found) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(*dice)
        if len(plays) >= 2:
            match_id = MatchId(dice=dice).encode()
            found.append((position.id, match_id))
            ranked = await worker.rank_plays(position.id, match_id, Level.EXPERT)
            position = Position.from_id(ranked[0][1])
        else:
            position = plays[0].position if plays else position.flip()
        if position.is_over():
            position = Position.initial()
    return found


def pre_roll(match_id: str) -> str:
    """The same money game before the roll."""
    return MatchId().encode()


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {p50 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   max {ordered[-1] * 1000:7.1f} ms"


async def timed(call: Awaitable[Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await call
    return time.perf_counter() - start, result


async def backgammon(worker: RobotWorker, positions: list[tuple[str, str]]) -> None:
    print(f"Backgammon, {len(positions)} positions from expert self-play (money, cube centred):")
    rankings: dict[Level, list[list[tuple[str, str, float]]]] = {}
    for level in Level:
        settings = BACKGAMMON_LEVELS[level]
        moves: list[float] = []
        ranked_all = []
        for position_id, match_id in positions:
            took, ranked = await timed(worker.rank_plays(position_id, match_id, level))
            moves.append(took)
            ranked_all.append(ranked)
        rankings[level] = ranked_all
        cubes = []
        for position_id, match_id in positions[: max(20, len(positions) // 5)]:
            took, _ = await timed(worker.cube_decision(position_id, pre_roll(match_id), level))
            cubes.append(took)
        name = f"{level.name.lower()} ({settings.ply}-ply, noise {settings.noise})"
        print(f"  {name:<34} move {percentiles(moves)}")
        print(f"  {'':<34} cube {percentiles(cubes)}")
    print("  Loss per move against master's 2-ply ranking (x 500: gnubg's PR scale):")
    judge = rankings[Level.MASTER]
    for level in Level:
        losses = []
        for mine, master in zip(rankings[level], judge, strict=True):
            by_after = {after: equity for _, after, equity in master}
            losses.append(master[0][2] - by_after[mine[0][1]])
        mean = statistics.fmean(losses)
        print(f"    {level.name.lower():<13} {mean:.4f} per move   ~PR {500 * mean:5.1f}")


async def nannon(worker: RobotWorker, count: int, rng: random.Random) -> None:
    positions = [p for p in all_positions() if not p.is_over()]
    context = Context.match(7, 9)
    took, _ = await timed(worker.nannon_rank_moves("012-012", 3, context))
    print(f"Nannon: the first decision at 7-away 9-away (a solve): {took * 1000:.0f} ms")
    latencies = []
    for _ in range(count):
        position = rng.choice(positions)
        roll = rng.randint(1, 6)
        took, _ = await timed(worker.nannon_rank_moves(position.id, roll, context))
        latencies.append(took)
    print(f"  later decisions (every move ranked), {count}: {percentiles(latencies)}")


def checkers_positions(
    count: int, rng: random.Random
) -> list[tuple[Board, list[Board], list[Board]]]:
    """(position, history since the last capture or man move, the mover's earlier turns) from
    beginner self-play, the mover behind or the game settled first."""
    found: list[tuple[Board, list[Board], list[Board]]] = []
    while len(found) < count:
        game = Game()
        boards = [game.board]
        while not game.is_over() and len(boards) < 200:
            game.push(checkers_search.choose_move(game.board, CheckersLevel.BEGINNER, rng))
            boards.append(game.board)
            board = game.board
            behind = board.piece_count(board.turn) < board.piece_count(board.turn.opponent)
            settled = game.quiet_plies >= checkers_search.DRAW_OFFER_QUIET_PLIES
            if (behind or settled) and len(board.legal_moves()) > 1 and rng.random() < 0.2:
                history = list(game.reversible_positions)
                found.append((board, history, boards[-3::-2][:2][::-1]))
    return found[:count]


async def checkers(worker: RobotWorker, count: int, think_s: int, rng: random.Random) -> None:
    positions = checkers_positions(count, rng)
    times = []
    for board, history, earlier in positions:
        took, _ = await timed(
            worker.run(
                jobs.checkers_move,
                board.fen,
                [b.fen for b in history],
                int(CheckersLevel.MASTER),
                rng.getrandbits(64),
                True,
                [b.fen for b in earlier],
                think_s,
            )
        )
        times.append(took)
    limit = 1.1 * think_s
    over = sum(t > limit for t in times)
    print(
        f"Checkers master, robot_think_s {think_s} s, {count} moves with the resignation and "
        f"draw checks: {percentiles(times)} (target <= {limit * 1000:.0f} ms; {over} over)"
    )


async def lag(worker: RobotWorker, positions: list[tuple[str, str]], rng: random.Random) -> None:
    """The loop's lateness while 20 decisions wait on the worker: backgammon master and expert
    moves and Nannon moves, or without ``positions`` checkers expert moves and Nannon moves."""
    from bot.robot import jobs
    from engines.checkers_openings import THREE_MOVE_DECK, opening_game

    calls: list[Awaitable[Any]] = []
    for n in range(20):
        nannon = worker.nannon_rank_moves("012-012", 1 + n % 6, Context.match(5, 3))
        if n % 3 == 2:
            calls.append(nannon)
        elif positions:
            nannon.close()
            position_id, match_id = rng.choice(positions)
            level = Level.MASTER if n % 3 == 0 else Level.EXPERT
            calls.append(worker.rank_plays(position_id, match_id, level))
        else:
            nannon.close()
            board = opening_game(rng.randrange(len(THREE_MOVE_DECK)) + 1).board
            seed = rng.getrandbits(32)
            calls.append(worker.run(jobs.checkers_move, board.fen, [], 4, seed, False))
    what = "backgammon and Nannon" if positions else "checkers (expert) and Nannon"
    ticker = Ticker()
    took, _ = await timed(asyncio.gather(*calls))
    await ticker.stop()
    print(
        f"Event loop with 20 {what} decisions in flight ({took:.2f} s for all): lag "
        f"{ticker.summary()} (target <= 50 ms)\n  {where_it_went(ticker.slow)}"
    )


def _schedstat() -> tuple[int, int] | None:
    """This thread's time on a CPU and waiting for one (ns), where Linux tells it."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
            on_cpu, waiting, _ = stat.read().split()
    except (OSError, ValueError):
        return None
    return int(on_cpu), int(waiting)


class Ticker:
    """The event loop's lateness, seen by a task that wakes every 5 ms; for each tick more
    than 10 ms late, where the time went (Linux): the loop's thread running (callbacks, ours
    or the fake Discord's) or waiting for a CPU (other processes ahead of it)."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self.slow: list[tuple[float, float, float]] = []  # (late, running, waiting for a CPU)
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    @property
    def worst(self) -> float:
        return max(self.late, default=0.0)

    async def _run(self) -> None:
        while not self._stop.is_set():
            start, before = time.perf_counter(), _schedstat()
            await asyncio.sleep(0.005)
            late = max(0.0, time.perf_counter() - start - 0.005)
            self.late.append(late)
            after = _schedstat()
            if late > 0.010 and before is not None and after is not None:
                ran, waited = ((b - a) / 1e9 for a, b in zip(before, after, strict=True))
                self.slow.append((late, ran, waited))

    async def stop(self) -> float:
        self._stop.set()
        await self._task
        return self.worst

    def summary(self) -> str:
        return percentiles(self.late) if self.late else "no samples"


def where_it_went(slow: list[tuple[float, float, float]]) -> str:
    """How the late ticks' time was spent."""
    if not slow:
        return "no tick more than 10 ms late (or no /proc here)"
    total = sum(late + 0.005 for late, _, _ in slow)
    ran = sum(r for _, r, _ in slow)
    waited = sum(w for _, _, w in slow)
    return (
        f"{len(slow)} ticks more than 10 ms late: of their {total * 1000:.0f} ms, the loop's "
        f"thread ran {100 * ran / total:.0f}%, waited for a CPU {100 * waited / total:.0f}%"
    )


async def driver(matches: int, rounds: int) -> None:
    """``matches`` robot matches through the real bot and the fake Discord; each round sends
    every human's command at once (so the robots all think at once) and waits for the bot."""
    import tempfile

    from fakediscord import TOKEN, FakeDiscord

    from bot.config import Settings
    from bot.discord.app import TableBot, create_bot
    from bot.service import MatchUpdated
    from engines.base import Phase

    games = [
        ("backgammon", "master", 3),
        ("backgammon", "expert", 3),
        ("nannon", "master", 5),
        ("checkers", "expert", 1),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            token=TOKEN, db_path=Path(tmp) / "robot.db", dev_guild_id=None, log_level="WARNING"
        )
        fake = FakeDiscord(strict=False, ready_timeout=60, history_limit=100)
        async with fake.run(lambda **o: create_bot(settings, **o)):
            bot = fake.bot
            assert isinstance(bot, TableBot)
            svc = bot.service
            await bot.tree.sync()
            await svc.handle(
                UpdateSettings(
                    fake.guild.id,
                    {"robot_pause_ms": 0, "rate_limit_actions": 1000, "use_threads": False},
                )
            )
            acted: dict[int, float] = {}

            def note(event: MatchUpdated) -> None:
                if event.by_robot:  # the robot's action, committed
                    acted.setdefault(event.match_id, time.perf_counter())

            svc.bus.subscribe(MatchUpdated, note)
            humans, ids = [], []
            robot = fake.bot_member(fake.guild)
            for n in range(matches):
                game, level, points = games[n % len(games)]
                human = await fake.add_member(f"human{n}")
                options = {"game": game, "opponent": robot, "level": level, "points": points}
                it = await fake.slash("challenge", options, by=human)
                invitation = (await it.response(timeout=60)).message
                assert invitation is not None
                ids.append(int(invitation.embeds[0]["footer"]["text"].split("#")[1]))
                humans.append(human)
            await bot.wait_idle()
            print(f"Through the bot: {matches} robot matches ({', '.join(g for g, _, _ in games)})")
            every: list[float] = []
            slow: list[tuple[float, float, float]] = []
            for number in range(1, rounds + 1):
                sent: dict[int, float] = {}
                acted.clear()
                calls = []
                for human, match_id in zip(humans, ids, strict=True):
                    view = await svc.handle(ViewMatch(match_id))
                    if view.match_over or view.actor not in (0, None):
                        continue
                    channel = fake.channels[view.channel_id]
                    if view.phase is Phase.MOVE:
                        command, options = "move", {"play": view.legal_moves[0]}
                    elif view.phase is Phase.CUBE_OFFERED:
                        command, options = "take", {}
                    else:
                        command, options = "roll", {}
                    sent[match_id] = time.perf_counter()
                    calls.append(fake.slash(command, options, by=human, channel=channel))
                ticker = Ticker()
                start = time.perf_counter()
                for it in await asyncio.gather(*calls):
                    await it.response(timeout=60)
                await bot.wait_idle()
                took = time.perf_counter() - start
                await ticker.stop()
                every += ticker.late
                slow += ticker.slow
                replies = sorted(acted[m] - sent[m] for m in sent if m in acted)
                median = statistics.median(replies) if replies else float("nan")
                print(
                    f"  round {number}: {len(sent)} commands, {len(replies)} robot replies in "
                    f"{took:.2f} s; reply p50 {median * 1000:.0f} ms, max "
                    f"{(replies[-1] if replies else float('nan')) * 1000:.0f} ms; "
                    f"event loop lag {ticker.summary()} (target <= 50 ms)",
                    flush=True,
                )
            print(f"  all rounds: event loop lag {percentiles(every)} (target <= 50 ms)")
            print(f"  {where_it_went(slow)}")


SECTIONS = ("backgammon", "lag", "nannon", "checkers", "driver")


async def main(
    count: int, seed: int, matches: int, rounds: int, sections: set[str], think_s: int
) -> None:
    rng = random.Random(seed)
    worker = RobotWorker(WorkerPool("robot"))
    if sections - {"driver"}:
        start = time.perf_counter()
        await worker.warm_up()
        took = time.perf_counter() - start
        print(f"Worker start, gnubg and the Nannon solver loaded: {took:.2f} s")
    positions: list[tuple[str, str]] = []
    if "backgammon" in sections:
        if await worker.gnubg_available():
            positions = await sample(worker, count, rng)
            await backgammon(worker, positions)
        else:
            print("Backgammon: gnubg is not available here")
    if "lag" in sections:
        await lag(worker, positions, rng)
    if "nannon" in sections:
        await nannon(worker, 1000, rng)
    if "checkers" in sections:
        await checkers(worker, 20, think_s, rng)
    worker.pool.shutdown()
    if matches and "driver" in sections:
        await driver(matches, rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--driver", type=int, default=20, metavar="N", help="robot matches through the bot (0: no)"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--think-s", type=int, default=2, help="checkers master's time a move")
    parser.add_argument("--only-driver", action="store_true", help="the end-to-end section only")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated")
    options = parser.parse_args()
    chosen = {"driver"} if options.only_driver else set(options.sections.split(","))
    if chosen - set(SECTIONS):
        parser.error(f"sections are {', '.join(SECTIONS)}")
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(
            main(
                options.positions,
                options.seed,
                options.driver,
                options.rounds,
                chosen,
                options.think_s,
            )
        )
