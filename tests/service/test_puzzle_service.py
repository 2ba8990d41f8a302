"""Puzzles in the service, on both stores: a real Nannon match (one side playing its worst
moves) analysed by the exact solver in this process, mined into puzzles whose answer keys are
the solver's own ranking; serving one to a member (never their own game unless asked),
answering once (both Glicko-2 ratings move), stats, the solvers' board, opting out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio
from support.puzzle_driver import SOLVER, actions_of, blundering_match, refusal

from bot.robot import analysis as robot_analysis
from bot.service import MatchService, RequestAnalysis, UpdateSettings
from bot.service.commands import (
    AnswerPuzzle,
    NextPuzzle,
    PostDailyPuzzle,
    PuzzleLeaderboard,
    PuzzleStats,
    SetPuzzleMessage,
    SetPuzzleOptOut,
    ShowPuzzle,
)
from bot.service.errors import Refusal
from bot.service.puzzles import PuzzleKeys
from engines.actions import Action
from engines.analysis import Decision, DecisionKind, count_games
from engines.base import GameKind, MatchRules
from engines.dice import FairDice
from engines.nannon_analysis import nannon_options
from engines.puzzles import AnswerKey, qualifies
from engines.spec import spec_of

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB, CAROL, DAVE = 1, 10, 100, 200, 300, 400


class InProcessRunner:
    """The worker's analysis and answer keys, run in this process."""

    async def available(self, kind: GameKind) -> bool:
        return True

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        return robot_analysis.details(kind, ply)

    async def count_games(
        self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]
    ) -> int:
        return count_games(kind, rules, actions)

    async def game_decisions(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]:
        return robot_analysis.game_decisions(kind, rules, actions, names, game, ply)

    async def answer_options(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        action_index: int,
        decision: DecisionKind,
        player: int,
        ply: int,
    ) -> list[tuple[str, float]]:
        return robot_analysis.answer_options(
            kind, rules, actions, action_index, decision, player, ply
        )


class Clock:
    now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def service(store_target: str | Path) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(
        store_target,
        dice_factory=lambda: FairDice(bytes(32)),
        clock=Clock(),
        analysis_runner=InProcessRunner(),
    )
    await svc.analyses.start()
    yield svc
    await svc.close()


async def mined(svc: MatchService) -> int:
    match_id = await blundering_match(svc, GUILD, CHANNEL, (ALICE, "alice"), (BOB, "bob"), 7)
    await svc.handle(RequestAnalysis(match_id, GUILD, ALICE))
    await svc.analyses.wait_idle()
    await svc.puzzles.wait_idle()
    return match_id


async def test_the_runner_ranks_puzzles() -> None:
    assert isinstance(InProcessRunner(), PuzzleKeys)


async def test_mined_puzzles_carry_the_solvers_ranking(service: MatchService) -> None:
    match_id = await mined(service)
    rows = await service.store.raw_rows(  # type: ignore[attr-defined]
        "SELECT * FROM puzzles ORDER BY id"
    )
    assert rows, "Alice's worst moves make puzzles"
    rule = spec_of("nannon").puzzle_rule
    actions = await actions_of(service, match_id)
    rules = MatchRules(length=7)
    assert len({row["position_key"] for row in rows}) == len(rows)
    for row in rows:
        assert (row["match_id"], row["player_id"], row["seat"]) == (match_id, ALICE, 0)
        key = AnswerKey.from_list(json.loads(row["answer_key"]))
        expected = nannon_options(
            rules, actions, row["action_index"], DecisionKind(row["kind"]), 0, SOLVER
        )
        assert key == AnswerKey.of(expected)
        assert qualifies(key, row["played"], rule)
        assert key.margin >= rule.margin and key.loss(row["played"]) >= rule.min_loss
    # Mining the same analysis again adds nothing: the positions are there already.
    view = await service.analyses.view(match_id)
    assert await service.puzzles.mine(view) == 0
    # An analysis a stop left unmined (or one from before puzzles) is mined at the next start.
    assert await service.store.unmined_analyses() == []
    await service.store.raw_execute("DELETE FROM puzzles")  # type: ignore[attr-defined]
    await service.store.raw_execute(  # type: ignore[attr-defined]
        "UPDATE analyses SET puzzles_mined_at = NULL"
    )
    assert await service.store.unmined_analyses() == [match_id]
    service.puzzles.start()
    await service.puzzles.wait_idle()
    assert await service.store.unmined_analyses() == []
    again = await service.store.raw_rows(  # type: ignore[attr-defined]
        "SELECT position_key FROM puzzles ORDER BY id"
    )
    assert [r["position_key"] for r in again] == [r["position_key"] for r in rows]


async def test_members_get_puzzles_answer_once_and_are_rated(service: MatchService) -> None:
    await mined(service)
    # Every puzzle is from Alice's game: she gets none unless she asks for her own.
    assert (await refusal(service, NextPuzzle(GUILD, ALICE))).refusal is Refusal.NO_PUZZLE
    own = await service.handle(NextPuzzle(GUILD, ALICE, include_own=True))
    assert own.game is GameKind.NANNON
    puzzle = await service.handle(NextPuzzle(GUILD, CAROL, "nannon"))
    assert puzzle.seat == 0 and len(puzzle.options) >= 2
    assert list(puzzle.options) == sorted(puzzle.options)
    assert "answer_key" not in puzzle.board
    row = await service.store.puzzle_row(puzzle.puzzle_id)
    assert row is not None
    key = AnswerKey.from_list(json.loads(row["answer_key"]))
    assert key.best.move in puzzle.options and row["played"] in puzzle.options

    bad = await refusal(service, AnswerPuzzle(puzzle.puzzle_id, GUILD, CAROL, "carol", "9/9"))
    assert bad.refusal is Refusal.NOT_A_PUZZLE_OPTION
    right = await service.handle(
        AnswerPuzzle(puzzle.puzzle_id, GUILD, CAROL, "carol", key.best.move)
    )
    assert right.correct and right.loss == 0 and right.key == key
    assert right.rating_after > right.rating_before == 1500
    again = await refusal(
        service, AnswerPuzzle(puzzle.puzzle_id, GUILD, CAROL, "carol", row["played"])
    )
    assert again.refusal is Refusal.PUZZLE_ANSWERED and again.params["correct"] is True
    wrong = await service.handle(AnswerPuzzle(puzzle.puzzle_id, GUILD, DAVE, "dave", row["played"]))
    assert not wrong.correct and wrong.loss == pytest.approx(key.loss(row["played"]))
    assert wrong.rating_after < wrong.rating_before

    carol = await service.handle(PuzzleStats(GUILD, CAROL))
    assert (carol.attempts, carol.solved, carol.name) == (1, 1, "carol")
    assert carol.rating == pytest.approx(right.rating_after)
    nobody = await service.handle(PuzzleStats(GUILD, BOB))
    assert (nobody.attempts, nobody.solved, nobody.rating) == (0, 0, 1500)
    board = await service.handle(PuzzleLeaderboard(GUILD))
    assert [s.user_id for s in board] == [CAROL, DAVE]
    after = await service.store.puzzle_row(puzzle.puzzle_id)
    assert after is not None and (after["attempts"], after["solved"]) == (2, 1)
    # A puzzle once tried is not served again.
    if (await service.handle(NextPuzzle(GUILD, CAROL))).puzzle_id == puzzle.puzzle_id:
        pytest.fail("a tried puzzle was served again")


async def test_an_unknown_puzzle_and_another_servers(service: MatchService) -> None:
    await mined(service)
    puzzle = await service.handle(NextPuzzle(GUILD, CAROL))
    for command in (
        AnswerPuzzle(puzzle.puzzle_id, GUILD + 1, CAROL, "carol", puzzle.options[0]),
        AnswerPuzzle(999_999, GUILD, CAROL, "carol", puzzle.options[0]),
    ):
        assert (await refusal(service, command)).refusal is Refusal.NO_SUCH_PUZZLE
    assert (await refusal(service, NextPuzzle(GUILD + 1, CAROL))).refusal is Refusal.NO_PUZZLE


async def test_opting_out_keeps_a_members_games_out(service: MatchService) -> None:
    await service.handle(SetPuzzleOptOut(GUILD, ALICE, True))
    await mined(service)
    assert await service.store.puzzle_pool(GUILD) == {}
    assert (await refusal(service, NextPuzzle(GUILD, CAROL))).refusal is Refusal.NO_PUZZLE
    # Opting out later hides the puzzles mined before.
    await service.handle(SetPuzzleOptOut(GUILD, ALICE, False))
    [analysed] = await service.store.raw_rows(  # type: ignore[attr-defined]
        "SELECT match_id FROM analyses"
    )
    view = await service.analyses.view(analysed["match_id"])
    assert await service.puzzles.mine(view) > 0
    assert (await service.handle(NextPuzzle(GUILD, CAROL))).game is GameKind.NANNON
    assert await service.handle(SetPuzzleOptOut(GUILD, ALICE, True)) is True
    assert (await refusal(service, NextPuzzle(GUILD, CAROL))).refusal is Refusal.NO_PUZZLE


DAY0 = 20_000 * 86_400.0  # a midnight UTC


async def test_the_daily_puzzle_is_posted_once_a_day_and_revealed_at_the_next(
    service: MatchService,
) -> None:
    await mined(service)
    assert await service.handle(PostDailyPuzzle(GUILD, DAY0 + 11 * 3600)) is None  # no channel
    await service.handle(UpdateSettings(GUILD, dict(puzzles_channel=CHANNEL, puzzles_time=600)))
    assert await service.handle(PostDailyPuzzle(GUILD, DAY0 + 9 * 3600)) is None  # too early
    first = await service.handle(PostDailyPuzzle(GUILD, DAY0 + 10 * 3600 + 5))
    assert first is not None and first.channel_id == CHANNEL
    assert first.previous is None and first.names is None
    assert await service.handle(PostDailyPuzzle(GUILD, DAY0 + 11 * 3600)) is None  # out today
    puzzle = first.puzzle
    await service.handle(SetPuzzleMessage(puzzle.puzzle_id, CHANNEL, 5555))
    row = await service.store.puzzle_row(puzzle.puzzle_id)
    assert row is not None
    key = AnswerKey.from_list(json.loads(row["answer_key"]))
    await service.handle(AnswerPuzzle(puzzle.puzzle_id, GUILD, CAROL, "carol", key.best.move))
    await service.handle(AnswerPuzzle(puzzle.puzzle_id, GUILD, DAVE, "dave", row["played"]))
    shown = await service.handle(ShowPuzzle(puzzle.puzzle_id, GUILD))
    assert (shown.attempts, shown.solved, shown.post_message_id) == (2, 1, 5555)
    # The next day, after a restart (a new service on the same store): the next puzzle, and
    # the first revealed, naming who solved it but not the game's player.
    second = await service.handle(PostDailyPuzzle(GUILD, DAY0 + 86_400 + 10 * 3600))
    assert second is not None and second.puzzle.puzzle_id != puzzle.puzzle_id
    assert second.previous is not None
    assert second.previous.puzzle.puzzle_id == puzzle.puzzle_id
    assert second.previous.key == key and second.previous.played == row["played"]
    assert second.previous.solvers == ("carol",) and second.previous.player is None
    # Where the server allows it, the players are named; with the pool empty, nothing is due.
    await service.handle(UpdateSettings(GUILD, dict(puzzles_name_players=True)))
    day = 2
    while (await service.store.puzzle_pool(GUILD)).get("nannon"):
        later = await service.handle(PostDailyPuzzle(GUILD, DAY0 + day * 86_400 + 10 * 3600))
        assert later is not None and later.names == ("alice", "bob")
        assert later.previous is not None and later.previous.player == "alice"
        day += 1
    assert await service.handle(PostDailyPuzzle(GUILD, DAY0 + day * 86_400 + 10 * 3600)) is None
    assert day > 2, "the pool had a third puzzle"


async def test_the_daily_post_rotates_the_games_and_keeps_one_position_once(
    service: MatchService,
) -> None:
    match_id = await mined(service)
    store = service.store
    nannon = await store.puzzle_pool(GUILD)
    key = json.dumps([["a", 0.5], ["b", 0.1]])
    for game in ("backgammon", "checkers"):
        for n in range(2):
            values = {
                "guild_id": GUILD, "game": game, "kind": "move", "match_id": match_id,
                "action_index": n, "seat": 0, "player_id": ALICE, "board": "{}",
                "played": "b", "answer_key": key, "position_key": f"move|{game}{n}|",
                "created_at": 0.0,
            }  # fmt: skip
            assert await store.insert_puzzle(values) is not None
            assert await store.insert_puzzle(values) is None  # the same position: once
    assert await store.puzzle_pool(GUILD) == {**nannon, "backgammon": 2, "checkers": 2}
    await service.handle(UpdateSettings(GUILD, dict(puzzles_channel=CHANNEL, puzzles_time=0)))
    posted = []
    for day in range(3):
        daily = await service.handle(PostDailyPuzzle(GUILD, DAY0 + day * 86_400 + 60))
        assert daily is not None
        posted.append(daily.puzzle.game)
    assert sorted(posted) == [GameKind.BACKGAMMON, GameKind.CHECKERS, GameKind.NANNON]
