"""Puzzles for a server with none yet, from robot self-play (:class:`PuzzleSeeder`).

When a server's pool has no puzzle of a game (a member's first ``/puzzle``, or the daily post
finding nothing), the seeder asks the analysis worker for self-play puzzles
(:func:`bot.robot.self_play.self_play_puzzles`: a weaker level against a stronger one, seeded
dice and noise, the weaker side's blunders that qualify, each with its answer key) and stores
them as the server's: no match, no player (``player_id`` 0), the game's actions up to the
decision in the board's JSON so the card can draw it. The work runs in a task of its own; the
member is told at once that puzzles are being prepared. At most one seeding per server and game
at a time, and one that found nothing is not tried again for an hour.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from bot.service.model import MatchStatus, MatchView, Player, PuzzleView
from bot.service.replay import LoggedAction, views_at
from bot.service.state import MatchRecord, ServiceState
from bot.storage.types import dumps
from engines.actions import action_from_dict
from engines.base import GameKind, MatchRules
from engines.spec import spec_of

log = logging.getLogger(__name__)

__all__ = ["GAMES", "SELF_PLAY_PLAYER", "PuzzleSeeder", "SelfPlay"]

# Self-play games per seeding: each game's trait (spec.self_play_games).
GAMES: Mapping[GameKind, int] = {kind: spec_of(kind).self_play_games for kind in GameKind}
SELF_PLAY_PLAYER = 0  # a self-play puzzle's player_id: no member's
RETRY_S = 60 * 60  # a seeding that found nothing (or failed) is not tried again sooner
SELF_PLAY_RULES = MatchRules(length=1, cube=False)


@runtime_checkable
class SelfPlay(Protocol):
    """What seeding needs of the analysis runner (off the event loop)."""

    async def available(self, kind: GameKind) -> bool: ...

    async def self_play_puzzles(
        self, kind: GameKind, games: int, seed: int, ply: int
    ) -> list[dict[str, Any]]: ...


class PuzzleSeeder:
    """Seeds a server's pool of a game from self-play, in the background. ``runner`` None:
    nothing is seeded (no worker). ``seeds``: each seeding's random seed (tests fix it)."""

    def __init__(
        self,
        state: ServiceState,
        runner: SelfPlay | None,
        games: Mapping[GameKind, int] = GAMES,
        seeds: Callable[[], int] | None = None,
        ply: int = 2,
    ) -> None:
        self._state = state
        self.runner = runner
        self.games = games
        self._seeds = seeds or (lambda: random.getrandbits(32))
        self.ply = ply
        self._tasks: dict[tuple[int, GameKind], asyncio.Task[int]] = {}
        self._tried: dict[tuple[int, GameKind], float] = {}  # when each seeding ended

    async def seed(self, guild_id: int, games: Iterable[GameKind]) -> bool:
        """Start seeding ``games`` (those with no puzzle in the guild and a worker to play
        them) unless under way; whether any is being seeded now."""
        if self.runner is None:
            return False
        have = await self._state.store.puzzle_games(guild_id)
        seeding = False
        for game in games:
            key = (guild_id, game)
            if key in self._tasks:
                seeding = True
                continue
            if game.value in have or not await self.runner.available(game):
                continue
            if self._state.now() < self._tried.get(key, -RETRY_S) + RETRY_S:
                continue  # it found nothing a moment ago: the daily pass must not loop on it
            task = asyncio.get_running_loop().create_task(self._seed(guild_id, game))
            self._tasks[key] = task
            task.add_done_callback(functools.partial(self._done, key))
            seeding = True
        return seeding

    def under_way(self, guild_id: int) -> set[GameKind]:
        """The games being seeded in the guild now."""
        return {game for guild, game in self._tasks if guild == guild_id}

    def _done(self, key: tuple[int, GameKind], task: asyncio.Task[int]) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]
            self._tried[key] = self._state.now()

    async def wait_idle(self) -> None:
        """Until the seeding under way is done (what a test waits on)."""
        while self._tasks:
            await asyncio.wait(tuple(self._tasks.values()))

    async def stop(self) -> None:
        tasks = tuple(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _seed(self, guild_id: int, game: GameKind) -> int:
        assert self.runner is not None
        try:
            found = await self.runner.self_play_puzzles(
                game, self.games.get(game, 1), self._seeds(), self.ply
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("guild %s: self-play puzzles of %s failed", guild_id, game.value)
            return 0
        added = 0
        for puzzle in found:
            board = dict(puzzle["board"])
            board["actions"] = puzzle["actions"]
            dice = "-".join(str(d) for d in puzzle["dice"])
            puzzle_id = await self._state.store.insert_puzzle(
                {
                    "guild_id": guild_id,
                    "game": game.value,
                    "kind": puzzle["kind"],
                    "match_id": None,
                    "action_index": puzzle["action_index"],
                    "seat": puzzle["seat"],
                    "player_id": SELF_PLAY_PLAYER,
                    "board": dumps(board),
                    "played": puzzle["played"],
                    "answer_key": dumps(puzzle["answer_key"]),
                    "position_key": f"{puzzle['kind']}|{puzzle['position_id']}|{dice}",
                    "created_at": self._state.now(),
                }
            )
            added += puzzle_id is not None
        log.info("guild %s: %d self-play puzzles of %s", guild_id, added, game.value)
        return added


def self_play_view(puzzle: PuzzleView) -> MatchView:
    """A self-play puzzle's board as a match view (the game replayed to the decision)."""
    robot = Player(SELF_PLAY_PLAYER, "")  # the card names the seats
    record = MatchRecord(
        id=0,
        guild_id=puzzle.guild_id,
        channel_id=0,
        thread_id=None,
        board_message_id=None,
        game=puzzle.game,
        rules=SELF_PLAY_RULES,
        players=(robot, robot),
        status=MatchStatus.ACTIVE,
        winner_seat=None,
        commitment="",
        seed=b"",
        version=0,
        next_seq=0,
        created_at=0.0,
        last_action_at=0.0,
        finished_at=None,
        reminded_version=None,
        rating_changes=(),
    )
    history = [LoggedAction(action_from_dict(a)) for a in puzzle.board.get("actions", ())]
    [view] = views_at(record, history, [len(history)])
    return view
