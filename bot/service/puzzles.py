"""Puzzles from the server's own games: mining them when an analysis ends, serving one to a
member, judging an answer (once per member per puzzle; both Glicko-2 ratings move), the
daily post's choice and reveal, stats and the solvers' board.

Mining (:class:`PuzzleMiner`) listens to the analysis queue: when a match's analysis is done,
every unforced decision that lost at least the game's ``puzzle_rule.min_loss``
(:attr:`engines.spec.GameSpec.puzzle_rule`) is ranked again, every legal option with its equity,
by the game's evaluator in the analysis worker (the runner's ``answer_options``); the decision
is kept when it :func:`~engines.puzzles.qualifies` (the best option leads the second by the
margin), once per position, dice and kind in the guild. Nothing here searches: a member's
puzzle is read from the pool the miner filled.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Protocol, runtime_checkable

from bot.service.errors import Refusal, refused
from bot.service.events import AnalysisEvent, AnalysisFinished, DailyPuzzleDue
from bot.service.glicko import Glicko
from bot.service.model import (
    AnalysisView,
    BoardPlace,
    DailyPuzzle,
    PuzzleResult,
    PuzzleReveal,
    PuzzleStanding,
    PuzzleView,
)
from bot.service.replay import LoggedAction, logged, views_at
from bot.service.state import MatchRecord, ServiceState
from bot.service.timers import Deadline, Handlers, Rearm, TimerRunner
from bot.storage import GuildShards, Row
from bot.storage.types import dumps
from engines.actions import Action
from engines.analysis import Decision, DecisionKind, puzzle_candidates
from engines.base import GameKind, MatchRules
from engines.puzzles import (
    EQUITY_TOLERANCE,
    AnswerKey,
    menu,
    next_game,
    qualifies,
)
from engines.spec import spec_of

log = logging.getLogger(__name__)

__all__ = [
    "PuzzleKeys",
    "PuzzleMiner",
    "answer_puzzle",
    "next_puzzle",
    "post_daily",
    "puzzle_board",
    "puzzle_standing",
    "puzzle_view",
    "set_opt_out",
    "set_puzzle_message",
    "show_puzzle",
]

CANDIDATES = 50  # puzzles read to pick a member's next one from

Seed = Callable[[int, Sequence[GameKind]], Awaitable[bool]]
"""Start filling a guild's empty pools of the games from self-play; whether any is under way
(:meth:`bot.service.puzzle_seeding.PuzzleSeeder.seed`)."""


@runtime_checkable
class PuzzleKeys(Protocol):
    """What mining needs of the analysis runner: every option of one analysed decision with
    its equity for the decider (off the event loop)."""

    async def answer_options(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        action_index: int,
        decision: DecisionKind,
        player: int,
        ply: int,
    ) -> list[tuple[str, float]]: ...


# --- reads and answers --------------------------------------------------------------------------


def puzzle_view(row: Row) -> PuzzleView:
    key = AnswerKey.from_list(json.loads(row["answer_key"]))
    options = sorted(o.move for o in menu(key, row["played"]))
    return PuzzleView(
        puzzle_id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        game=GameKind(row["game"]),
        kind=DecisionKind(row["kind"]),
        match_id=None if row["match_id"] is None else int(row["match_id"]),
        action_index=int(row["action_index"]),
        seat=int(row["seat"]),
        board=json.loads(row["board"]),
        options=tuple(options),
        rating=float(row["rating"]),
        attempts=int(row["attempts"]),
        solved=int(row["solved"]),
        post_channel_id=row["post_channel_id"],
        post_message_id=row["post_message_id"],
    )


async def show_puzzle(state: ServiceState, puzzle_id: int, guild_id: int) -> PuzzleView:
    return puzzle_view(await _puzzle_row(state, puzzle_id, guild_id))


async def _puzzle_row(state: ServiceState, puzzle_id: int, guild_id: int) -> Row:
    row = await state.store.puzzle_row(puzzle_id)
    if row is None or int(row["guild_id"]) != guild_id:
        raise refused(Refusal.NO_SUCH_PUZZLE, puzzle_id=puzzle_id)
    return row


DAY = 24 * 60 * 60
RECENT_POSTS = 10  # the daily posts next_game looks back on


async def post_daily(
    state: ServiceState, guild_id: int, now: float, seed: Seed | None = None
) -> DailyPuzzle | None:
    """The daily puzzle due at ``now`` (UTC days; the server's ``puzzles_time`` in each), claimed
    so it is posted once; the previous post's puzzle comes with it to be revealed. The game is
    the one posted longest ago of those with puzzles left (:func:`engines.puzzles.next_game`).
    None when the server has no puzzle channel, it is not time yet, today's is out, or the pool
    is empty (then ``seed``, the self-play seeder, fills it for a later pass)."""
    settings = await state.guild_settings(guild_id)
    if not settings.puzzles_channel:
        return None
    due = now // DAY * DAY + settings.puzzles_time * 60
    if now < due:
        return None
    store = state.store
    recent = await store.posted_puzzles(guild_id, RECENT_POSTS)
    if recent and float(recent[0]["posted_at"]) >= due:
        return None
    pool = {GameKind(game): left for game, left in (await store.puzzle_pool(guild_id)).items()}
    games = [GameKind(row["game"]) for row in reversed(recent)]
    game = next_game(pool, games, random.Random(int(due)))
    if game is None:
        if seed is not None:
            await seed(guild_id, list(GameKind))
        return None
    row = await store.unposted_puzzle(guild_id, game.value)
    if row is None or not await store.claim_puzzle_post(int(row["id"]), now):
        return None
    previous = await _reveal(state, recent[0], settings.puzzles_name_players) if recent else None
    names = None
    if settings.puzzles_name_players and row["match_id"] is not None:
        match = await store.match_row(int(row["match_id"]))
        if match is not None:
            names = (str(match["player0_name"]), str(match["player1_name"]))
    return DailyPuzzle(puzzle_view(row), settings.puzzles_channel, previous, names)


DAILY = "puzzle.daily"
"""The deadline kind of a server's daily puzzle, keyed by the guild id (issue 34)."""
RETRY = 5 * 60
"""An empty pool is being filled by self-play: the post is tried again this much later."""


async def daily_due_at(
    state: ServiceState, guild_id: int, now: float, *, retry: bool = False
) -> float | None:
    """When the server's next daily post is due (None: no daily puzzle): today's time, or
    tomorrow's once today's is out; ``now`` when today's time has passed without a post (with
    ``retry``, :data:`RETRY` later: a firing that posted nothing)."""
    settings = await state.guild_settings(guild_id)
    if not settings.puzzles_channel:
        return None
    due = now // DAY * DAY + settings.puzzles_time * 60
    recent = await state.store.posted_puzzles(guild_id, 1)
    if recent and float(recent[0]["posted_at"]) >= due:
        return due + DAY
    if now < due:
        return due
    return now + RETRY if retry else now


class DailyDeadlines:
    """Each server's daily puzzle on the service's scheduler: armed when the server sets
    its channel or time and at start-up, fired as :class:`DailyPuzzleDue` (the post claimed
    once, even with several processes), then armed for the next day."""

    def __init__(self, state: ServiceState, timers: TimerRunner, seed: Seed | None) -> None:
        self._state = state
        self._timers = timers
        self._seed = seed

    def register(self, handlers: Handlers) -> None:
        handlers.register(DAILY, self.fired)

    async def arm(self, guild_id: int, *, retry: bool = False) -> None:
        due_at = await daily_due_at(self._state, guild_id, self._state.now(), retry=retry)
        if due_at is None:
            await self._timers.deadlines.cancel(DAILY, guild_id)
        else:
            await self._timers.arm(DAILY, guild_id, due_at)

    async def arm_all(self) -> None:
        """At start-up: every server's with a daily puzzle (a database from before gets its
        deadlines here)."""
        for guild_id in await self._state.store.guilds_with_settings():
            if (await self._state.guild_settings(guild_id)).puzzles_channel:
                await self.arm(guild_id)

    async def fired(self, deadline: Deadline, now: float) -> list[DailyPuzzleDue | Rearm]:
        guild_id = int(deadline.key)
        daily = await post_daily(self._state, guild_id, now, self._seed)
        due_at = await daily_due_at(self._state, guild_id, now, retry=daily is None)
        told: list[DailyPuzzleDue | Rearm] = [] if daily is None else [DailyPuzzleDue(daily)]
        return told if due_at is None else [*told, Rearm(due_at)]


async def _reveal(state: ServiceState, row: Row, name_player: bool) -> PuzzleReveal:
    store = state.store
    puzzle_id = int(row["id"])
    fresh = await store.puzzle_row(puzzle_id)
    assert fresh is not None
    await store.update_puzzle(puzzle_id, revealed_at=state.now())
    player = None
    if name_player and fresh["match_id"] is not None:
        match = await store.match_row(int(fresh["match_id"]))
        if match is not None:
            player = str(match[f"player{int(fresh['seat'])}_name"])
    return PuzzleReveal(
        puzzle=puzzle_view(fresh),
        key=AnswerKey.from_list(json.loads(fresh["answer_key"])),
        played=str(fresh["played"]),
        solvers=tuple(await store.puzzle_solvers(puzzle_id)),
        player=player,
    )


async def set_puzzle_message(
    state: ServiceState, puzzle_id: int, channel_id: int, message_id: int
) -> None:
    await state.store.update_puzzle(
        puzzle_id, post_channel_id=channel_id, post_message_id=message_id
    )


async def next_puzzle(
    state: ServiceState,
    guild_id: int,
    user_id: int,
    game: str | None,
    include_own: bool,
    seed: Seed | None = None,
) -> PuzzleView:
    """A puzzle the member has not tried, the one rated nearest the member (lichess' way),
    the oldest of equals; NO_PUZZLE when the pool has none for them, PUZZLES_PREPARING when
    ``seed`` (the self-play seeder) is filling the server's empty pool of the game (any game:
    every game, when the server has no puzzle at all)."""
    kind = GameKind(game).value if game is not None else None
    rows = await state.store.puzzle_candidates(guild_id, kind, user_id, include_own, CANDIDATES)
    if not rows:
        if kind is not None:
            games = [GameKind(kind)]
        else:  # any game: only a server with no puzzle at all is seeded
            games = [] if await state.store.puzzle_games(guild_id) else list(GameKind)
        if seed is not None and games and await seed(guild_id, games):
            raise refused(Refusal.PUZZLES_PREPARING, game=kind)
        raise refused(Refusal.NO_PUZZLE, game=kind)
    mine = await _member_rating(state, guild_id, user_id)
    row = min(rows, key=lambda r: (abs(float(r["rating"]) - mine.rating), int(r["id"])))
    return puzzle_view(row)


async def answer_puzzle(
    state: ServiceState,
    puzzle_id: int,
    guild_id: int,
    user_id: int,
    user_name: str,
    choice: str,
) -> PuzzleResult:
    """Judge the member's one answer and move both ratings (one transaction). A choice tied
    with the best is right. Refused: an unknown puzzle, a choice that is not an option, a
    second answer (which changes nothing)."""
    store = state.store
    row = await _puzzle_row(state, puzzle_id, guild_id)
    key = AnswerKey.from_list(json.loads(row["answer_key"]))
    chosen = choice.strip()
    try:
        loss = key.loss(chosen)
    except KeyError:
        raise refused(Refusal.NOT_A_PUZZLE_OPTION, puzzle_id=puzzle_id, given=choice) from None
    earlier = await store.puzzle_attempt(puzzle_id, user_id)
    if earlier is not None:
        raise _answered(earlier)
    correct = loss <= EQUITY_TOLERANCE
    member = await _member_rating(state, guild_id, user_id)
    puzzle = Glicko(float(row["rating"]), float(row["deviation"]), float(row["volatility"]))
    member_after = member.updated([(puzzle, 1.0 if correct else 0.0)])
    puzzle_after = puzzle.updated([(member, 0.0 if correct else 1.0)])
    recorded = await store.record_puzzle_attempt(
        {
            "puzzle_id": puzzle_id,
            "user_id": user_id,
            "choice": chosen,
            "correct": correct,
            "at": state.now(),
        },
        {"guild_id": guild_id, "name": user_name, **_glicko_columns(member_after)},
        _glicko_columns(puzzle_after),
    )
    if not recorded:  # another answer of theirs got in first
        earlier = await store.puzzle_attempt(puzzle_id, user_id)
        assert earlier is not None
        raise _answered(earlier)
    return PuzzleResult(
        puzzle_id, user_id, chosen, correct, loss, key, member.rating, member_after.rating
    )


async def puzzle_standing(state: ServiceState, guild_id: int, user_id: int) -> PuzzleStanding:
    """The member's puzzle rating and counts (the starting rating before any attempt)."""
    row = await state.store.puzzle_rating_row(guild_id, user_id)
    if row is None:
        start = Glicko()
        return PuzzleStanding(user_id, "", start.rating, start.deviation, 0, 0)
    return _standing(row)


async def puzzle_board(
    state: ServiceState, guild_id: int, limit: int, offset: int = 0
) -> list[PuzzleStanding]:
    rows = await state.store.puzzle_board(guild_id, max(1, min(int(limit), 100)), max(0, offset))
    return [_standing(row) for row in rows]


async def puzzle_place(state: ServiceState, guild_id: int, user_id: int) -> BoardPlace:
    """The member's rank among the solvers and how many there are."""
    rank, size = await state.store.puzzle_place(guild_id, user_id)
    return BoardPlace(rank, size)


async def set_opt_out(state: ServiceState, guild_id: int, user_id: int, out: bool) -> bool:
    """Keep the member's games out of puzzles (or let them in); the choice now in force.
    Their puzzles mined already are no longer served nor posted."""
    await state.store.set_puzzle_opt_out(guild_id, user_id, out, state.now())
    return out


def _answered(attempt: Row) -> Exception:
    return refused(
        Refusal.PUZZLE_ANSWERED,
        puzzle_id=int(attempt["puzzle_id"]),
        choice=attempt["choice"],
        correct=bool(attempt["correct"]),
    )


async def _member_rating(state: ServiceState, guild_id: int, user_id: int) -> Glicko:
    row = await state.store.puzzle_rating_row(guild_id, user_id)
    if row is None:
        return Glicko()
    return Glicko(float(row["rating"]), float(row["deviation"]), float(row["volatility"]))


def _glicko_columns(rating: Glicko) -> dict[str, float]:
    return {
        "rating": rating.rating,
        "deviation": rating.deviation,
        "volatility": rating.volatility,
    }


def _standing(row: Row) -> PuzzleStanding:
    return PuzzleStanding(
        user_id=int(row["user_id"]),
        name=str(row["name"]),
        rating=float(row["rating"]),
        deviation=float(row["deviation"]),
        attempts=int(row["attempts"]),
        solved=int(row["solved"]),
    )


# --- mining -------------------------------------------------------------------------------------


class PuzzleMiner:
    """Turns the blunders of each finished analysis into puzzles. :meth:`analysis_told` is
    an analysis queue listener; the mining runs in a task of its own (the queue and the other
    listeners don't wait for it); :meth:`start` mines what was left unmined. ``keys`` None:
    nothing is mined (no worker to rank)."""

    def __init__(
        self,
        state: ServiceState,
        keys: PuzzleKeys | None,
        views: Callable[[int], Awaitable[AnalysisView]],
    ) -> None:
        self._state = state
        self.keys = keys
        self._views = views  # a done analysis as the queue tells it (AnalysisQueue.view)
        self._tasks: set[asyncio.Task[int]] = set()

    async def analysis_told(self, event: AnalysisEvent) -> None:
        if isinstance(event, AnalysisFinished) and self.keys is not None:
            self._spawn(self.mine(event.analysis))

    def start(self, guilds: GuildShards | None = None) -> None:
        """Mine, one after another in a task of its own, the analyses done but not mined (in
        ``guilds``' guilds): those a stop cut short, and those from before puzzles."""
        if self.keys is not None:
            self._spawn(self._backlog(guilds))

    async def _backlog(self, guilds: GuildShards | None) -> int:
        added = 0
        for match_id in await self._state.store.unmined_analyses(guilds):
            try:
                view = await self._views(match_id)
            except Exception:
                log.exception("match %s: its analysis could not be read for puzzles", match_id)
                continue
            added += await self.mine(view)
        return added

    def _spawn(self, work: Coroutine[Any, Any, int]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Until the mining under way is done (what a test waits on)."""
        while self._tasks:
            await asyncio.wait(tuple(self._tasks))

    async def stop(self) -> None:
        tasks = tuple(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def mine(self, view: AnalysisView) -> int:
        """Store the analysed match's puzzles and mark it mined; how many were new. A failure
        is logged (and the analysis is mined again at the next start)."""
        try:
            added = await self._mine(view)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("match %s: mining puzzles failed", view.match_id)
            return 0
        await self._state.store.update_analysis(view.match_id, puzzles_mined_at=self._state.now())
        return added

    async def _mine(self, view: AnalysisView) -> int:
        analysis, keys = view.analysis, self.keys
        if analysis is None or keys is None:
            return 0
        store = self._state.store
        rule = spec_of(view.kind).puzzle_rule
        row = await store.match_row(view.match_id)
        assert row is not None
        record = MatchRecord.from_row(row, 0)
        opted_out = {
            seat
            for seat, player in enumerate(record.players)
            if await store.puzzle_opted_out(record.guild_id, player.user_id)
        }
        seats = {0, 1} - opted_out
        blunders = puzzle_candidates(analysis.decisions, rule, seats)
        if not blunders:
            return 0
        history = logged(await store.events(view.match_id))
        actions = [entry.action for entry in history]
        boards = await asyncio.to_thread(_boards, record, history, blunders)
        added = 0
        for decision, board in zip(blunders, boards, strict=True):
            ranked = await keys.answer_options(
                record.game,
                record.rules,
                actions,
                decision.action_index,
                decision.kind,
                decision.player,
                view.ply,
            )
            key = AnswerKey.of(ranked)
            if not any(o.move == decision.played for o in key.options):
                log.warning(
                    "match %s action %s: %r is not among the ranked options",
                    view.match_id,
                    decision.action_index,
                    decision.played,
                )
                continue
            if not qualifies(key, decision.played, rule):
                continue
            puzzle_id = await store.insert_puzzle(
                {
                    "guild_id": record.guild_id,
                    "game": record.game.value,
                    "kind": decision.kind.value,
                    "match_id": record.id,
                    "action_index": decision.action_index,
                    "seat": decision.player,
                    "player_id": record.players[decision.player].user_id,
                    "board": dumps(board),
                    "played": decision.played,
                    "answer_key": dumps(key.to_list()),
                    "position_key": position_key(decision),
                    "created_at": self._state.now(),
                }
            )
            added += puzzle_id is not None
        log.info("match %s: %d new puzzles", view.match_id, added)
        return added


def position_key(decision: Decision) -> str:
    """What makes two decisions the same puzzle: the kind, the board and the dice."""
    dice = "-".join(str(d) for d in decision.dice)
    return f"{decision.kind.value}|{decision.position_id}|{dice}"


def _boards(
    record: MatchRecord, history: Sequence[LoggedAction], decisions: Sequence[Decision]
) -> list[dict[str, Any]]:
    """What the picture of each decision needs besides the match: the position, the dice,
    whose decision, the score and the length (one replay for all of them)."""
    views = views_at(record, history, [d.action_index for d in decisions])
    return [
        {
            "position_id": decision.position_id or view.position_id,
            "dice": list(decision.dice),
            "seat": decision.player,
            "score": list(view.score),
            "length": record.rules.length,
        }
        for decision, view in zip(decisions, views, strict=True)
    ]
