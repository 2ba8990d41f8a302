"""Issue 34, one replay: a match's log replayed into views (bot/service/replay.py), each true to
its moment, on matches of all three games played through the service with random legal moves.
Each view at a command's commit is the very view the service answered then (its status, its
version, its time, no seed before the end); the seed is revealed only on the finished view;
and what analysis and puzzle mining draw from the replay is what they drew before it (the
positions, dice, scores and boards of the old replay of a fake finished record)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.rendering import board_job
from bot.service import (
    AcceptChallenge,
    LeaveMatch,
    MatchService,
    NewChallenge,
    PlayMove,
    RollDice,
    ViewsAfterActions,
)
from bot.service.model import MatchStatus, MatchView
from bot.service.puzzles import _boards
from bot.service.replay import LoggedAction, logged, replay_views, views_at
from bot.service.state import LiveMatch, MatchRecord
from bot.service.views import build_view
from engines import new_match, replay
from engines.analysis import Decision, DecisionKind
from engines.base import GameKind, Phase
from engines.dice import FairDice

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB = 1, 10, 100, 200
LENGTHS = {GameKind.NANNON: 3, GameKind.BACKGAMMON: 3, GameKind.CHECKERS: 1}
COMMANDS = 60  # then Alice leaves if the match is still on


class Ticking:
    """A clock a second later at each reading: every commit has its own time."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest_asyncio.fixture
async def service(store_target: str | Path) -> AsyncIterator[MatchService]:
    seeds = random.Random(34)
    svc = await MatchService.open(
        store_target, dice_factory=lambda: FairDice(seeds.randbytes(32)), clock=Ticking()
    )
    yield svc
    await svc.close()


async def played(
    svc: MatchService, game: GameKind, seed: int
) -> tuple[int, list[tuple[int, MatchView]]]:
    """A finished match of ``game`` with random legal moves, and after each commit the number
    of events then logged and the view the service answered."""
    rng = random.Random(seed)
    challenge = await svc.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", game,
            opponent_id=BOB, opponent_name="bob", length=LENGTHS[game],
        )
    )  # fmt: skip
    update = await svc.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
    match_id = update.view.match_id
    answered = [(len(await svc.store.events(match_id)), update.view)]
    for _ in range(COMMANDS):
        view = update.view
        if view.match_over:
            break
        user = view.players[view.turn if view.actor is None else view.actor].user_id
        if view.phase is Phase.MOVE:
            move = rng.choice(list(view.legal_moves))
            update = await svc.handle(PlayMove(match_id, GUILD, user, move))
        else:
            update = await svc.handle(RollDice(match_id, GUILD, user))
        answered.append((len(await svc.store.events(match_id)), update.view))
    if not update.view.match_over:
        update = await svc.handle(LeaveMatch(match_id, GUILD, ALICE))
        answered.append((len(await svc.store.events(match_id)), update.view))
    return match_id, answered


async def record_and_log(
    svc: MatchService, match_id: int
) -> tuple[MatchRecord, list[LoggedAction]]:
    row = await svc.store.match_row(match_id)
    assert row is not None
    return MatchRecord.from_row(row, 0), logged(await svc.store.events(match_id))


def old_views(record: MatchRecord, log: list[LoggedAction], indexes: list[int]) -> list[MatchView]:
    """What analysis built before one replay: the finished record itself at every moment."""
    match = new_match(record.game, record.rules)
    live = LiveMatch(record, match, FairDice(record.seed))
    views = []
    done = 0
    for index in indexes:  # ascending
        for entry in log[done:index]:
            match.apply(entry.action)
        done = index
        views.append(build_view(live))
    return views


@pytest.mark.parametrize("game", list(GameKind))
async def test_issue_34_one_replay_each_view_is_true_to_its_moment(
    service: MatchService, game: GameKind
) -> None:
    """Issue 34, one replay: status, version, time and seed of each view are those of its
    moment; at each commit the replayed view is the one the service answered then."""
    match_id, answered = await played(service, game, seed=len(game.value))
    record, log = await record_and_log(service, match_id)
    assert record.status is MatchStatus.FINISHED and len(answered) > 3
    views = list(replay_views(record, log))
    assert len(views) == len(log) + 1
    for index, view in enumerate(views[:-1]):
        assert view.status is MatchStatus.ACTIVE, index
        assert view.dice_seed is None and view.winner_seat is None, index
        assert view.version == sum(e.actor is not None for e in log[:index]), index
    last = views[-1]
    assert last.status is MatchStatus.FINISHED and last.version == record.version
    assert last.dice_seed == record.seed.hex() and last.winner_seat == record.winner_seat
    for events, view in answered:
        assert views[events] == view, (events, view.version)
    versions = [v.version for v in views]
    assert versions == sorted(versions) and versions[0] == 0


@pytest.mark.parametrize("game", list(GameKind))
async def test_issue_34_one_replay_gives_analysis_and_mining_what_they_had(
    service: MatchService, game: GameKind
) -> None:
    """Issue 34, one replay: the mistakes' boards (ViewsAfterActions) and the mined puzzles'
    boards are those of the old replay on a finished record, but for the moment's fields."""
    match_id, _ = await played(service, game, seed=7 + len(game.value))
    record, log = await record_and_log(service, match_id)
    indexes = sorted({0, 1, len(log) // 3, len(log) // 2, len(log) - 1, len(log)})
    before = old_views(record, log, indexes)
    now = await service.handle(ViewsAfterActions(match_id, GUILD, indexes))
    assert now == views_at(record, log, indexes)
    moment = ("status", "version", "dice_seed", "winner_seat", "last_action_at")
    for index, old, new in zip(indexes, before, now, strict=True):
        assert old.status is MatchStatus.FINISHED and old.dice_seed is not None
        same = dataclasses.replace(new, **{f: getattr(old, f) for f in moment})
        assert same == old, index
        if index == len(log):
            assert new == old
        else:
            assert new.status is MatchStatus.ACTIVE and new.dice_seed is None
        # The picture: the same board, drawn as the game on (not over) before the end.
        args = board_job(dataclasses.replace(new, status=old.status))
        assert args == board_job(old)
    # Mining's boards: one replay for all decisions, as the old one replay per decision.
    decisions = [
        Decision(1, i, i % 2, DecisionKind.MOVE, "a", "b", 0.5, False, None, 0.5)
        for i in reversed(indexes)
    ]
    old_boards = []
    for decision in decisions:
        match = replay(record.game, record.rules, [e.action for e in log[: decision.action_index]])
        old_boards.append(
            {
                "position_id": match.position_id,
                "dice": [],
                "seat": decision.player,
                "score": list(match.score),
                "length": record.rules.length,
            }
        )
    assert _boards(record, log, decisions) == old_boards


async def test_issue_34_one_replay_asks_for_any_indexes_in_any_order(
    service: MatchService,
) -> None:
    """Issue 34, one replay: indexes out of order, repeated or beyond the log are answered in
    the order asked, clamped to the log."""
    match_id, _ = await played(service, GameKind.NANNON, seed=3)
    record, log = await record_and_log(service, match_id)
    asked = [len(log) + 5, 2, -1, 2, 0]
    views = views_at(record, log, asked)
    every = list(replay_views(record, log))
    assert views == [every[len(log)], every[2], every[0], every[2], every[0]]
