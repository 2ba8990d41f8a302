"""Puzzles from robot self-play for a server with none, on both stores: the first /puzzle is
told at once that puzzles are being prepared (one seeding per server and game however often it
is asked), the seeding (the worker's job, run in this process) stores self-play puzzles with no
match nor player that satisfy the puzzle rule, with keys equal to the exact solver's ranking;
the next /puzzle serves one, and the daily post of an empty server seeds too."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from support.puzzle_driver import SOLVER, SelfPlayRunner, refusal

from bot.robot import self_play
from bot.service import MatchService, UpdateSettings
from bot.service.commands import NextPuzzle, PostDailyPuzzle
from bot.service.errors import Refusal
from bot.service.puzzle_seeding import SELF_PLAY_PLAYER, SelfPlay, self_play_view
from bot.service.puzzles import show_puzzle
from engines import replay
from engines.actions import action_from_dict
from engines.analysis import DecisionKind
from engines.base import GameKind
from engines.dice import FairDice
from engines.nannon import Position
from engines.nannon_analysis import context_of
from engines.puzzles import AnswerKey, qualifies
from engines.spec import spec_of

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB = 1, 10, 100, 200


@pytest_asyncio.fixture
async def runner() -> SelfPlayRunner:
    return SelfPlayRunner()


@pytest_asyncio.fixture
async def service(store_target: str | Path, runner: SelfPlayRunner) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(
        store_target,
        dice_factory=lambda: FairDice(bytes(32)),
        clock=lambda: 1_000_000.0,
        analysis_runner=runner,  # type: ignore[arg-type]
    )
    svc.seeder.games = {GameKind.NANNON: 30}
    svc.seeder._seeds = lambda: 7
    yield svc
    await svc.close()


async def test_the_runner_plays_itself() -> None:
    assert isinstance(SelfPlayRunner(), SelfPlay)


async def test_an_empty_server_gets_self_play_puzzles(
    service: MatchService, runner: SelfPlayRunner
) -> None:
    first = await refusal(service, NextPuzzle(GUILD, ALICE, "nannon"))
    assert first.refusal is Refusal.PUZZLES_PREPARING
    again = await refusal(service, NextPuzzle(GUILD, BOB, "nannon"))
    assert again.refusal is Refusal.PUZZLES_PREPARING
    assert service.seeder.under_way(GUILD) == {GameKind.NANNON}
    runner.go.set()
    await service.seeder.wait_idle()
    assert runner.calls == [(GameKind.NANNON, 30, 7)]  # one seeding at a time

    rows = await service.store.puzzle_candidates(GUILD, "nannon", ALICE, True, 1000)
    assert len(rows) >= 3
    rule = spec_of(GameKind.NANNON).puzzle_rule
    for row in rows:
        assert row["match_id"] is None and int(row["player_id"]) == SELF_PLAY_PLAYER
        assert DecisionKind(row["kind"]) is DecisionKind.MOVE
        key = AnswerKey.from_list(json.loads(row["answer_key"]))
        assert qualifies(key, row["played"], rule)
        board = json.loads(row["board"])
        actions = [action_from_dict(a) for a in board["actions"]]
        match = replay("nannon", self_play.RULES, actions)
        assert match.position_id == board["position_id"] and match.turn == int(row["seat"])
        assert match.dice is not None
        ranked = SOLVER.rank_moves(
            Position.from_id(match.position_id), match.dice[0], context_of(match, match.turn)
        )
        solver_key = AnswerKey.of((match.format_move(r.move), r.equity) for r in ranked)
        # the evaluator's ranking
        assert [o.move for o in key.options] == [o.move for o in solver_key.options]
        assert [o.equity for o in key.options] == pytest.approx(
            [o.equity for o in solver_key.options]
        )

    served = await service.handle(NextPuzzle(GUILD, ALICE, "nannon"))
    assert served.match_id is None
    view = self_play_view(await show_puzzle(service._state, served.puzzle_id, GUILD))
    assert view.position_id == served.board["position_id"]  # the card's board
    # A pool that has puzzles is not seeded again, even once this member has tried them all.
    assert await service.seeder.seed(GUILD, [GameKind.NANNON]) is False


async def test_no_seeding_without_a_worker_for_the_game(
    service: MatchService, runner: SelfPlayRunner
) -> None:
    assert (await refusal(service, NextPuzzle(GUILD, ALICE, "checkers"))).refusal is (
        Refusal.NO_PUZZLE
    )
    assert runner.calls == []


async def test_the_daily_post_of_an_empty_server_seeds(
    service: MatchService, runner: SelfPlayRunner
) -> None:
    await service.handle(UpdateSettings(GUILD, {"puzzles_channel": CHANNEL, "puzzles_time": 0}))
    assert await service.handle(PostDailyPuzzle(GUILD, 1_000_000.0)) is None
    runner.go.set()
    await service.seeder.wait_idle()
    daily = await service.handle(PostDailyPuzzle(GUILD, 1_000_000.0))
    assert daily is not None and daily.puzzle.game is GameKind.NANNON


async def test_any_game_on_a_server_with_no_puzzle_seeds_every_game_it_can(
    service: MatchService, runner: SelfPlayRunner
) -> None:
    assert (await refusal(service, NextPuzzle(GUILD, ALICE))).refusal is (Refusal.PUZZLES_PREPARING)
    assert service.seeder.under_way(GUILD) == {GameKind.NANNON}  # checkers: no worker here
    runner.go.set()
    await service.seeder.wait_idle()
    assert runner.calls == [(GameKind.NANNON, 30, 7)]
    assert (await service.handle(NextPuzzle(GUILD, ALICE))).game is GameKind.NANNON


async def test_a_seeding_that_found_nothing_is_not_repeated_at_once(
    service: MatchService, runner: SelfPlayRunner
) -> None:
    service.seeder.games = {GameKind.NANNON: 0}  # no games: no puzzles
    runner.go.set()
    assert (await refusal(service, NextPuzzle(GUILD, ALICE, "nannon"))).refusal is (
        Refusal.PUZZLES_PREPARING
    )
    await service.seeder.wait_idle()
    assert (await refusal(service, NextPuzzle(GUILD, ALICE, "nannon"))).refusal is (
        Refusal.NO_PUZZLE
    )
    assert runner.calls == [(GameKind.NANNON, 0, 7)]
