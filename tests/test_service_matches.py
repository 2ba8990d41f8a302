"""Full matches driven through the service against a database file, with fixed dice seeds and a
seeded random player, chosen so that each match shows the events named in issue 5."""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import MatchService, MatchUpdate
from engines import new_match, replay
from engines.actions import action_from_dict
from engines.base import GameKind, Phase, ResultKind
from engines.checkers import Game, Termination
from engines.dice import FairDice

GUILD, CHANNEL, ALICE, BOB = 1, 10, 100, 200


async def drive(
    service: MatchService,
    update: MatchUpdate,
    rng: random.Random,
    p_double: float,
    p_take: float,
) -> MatchUpdate:
    """Play to the end: a seeded random player that doubles and takes with given odds."""
    match_id = update.match_id
    while not update.match_over:
        view = update.view
        actor = view.actor if view.actor is not None else 0
        user = view.players[actor].user_id
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[actor] and rng.random() < p_double:
                update = await service.double(match_id, GUILD, user)
            else:
                update = await service.roll(match_id, GUILD, user)
        elif view.phase is Phase.CUBE_OFFERED:
            answer = service.take if rng.random() < p_take else service.pass_
            update = await answer(match_id, GUILD, user)
        else:
            assert view.phase is Phase.MOVE
            update = await service.play(match_id, GUILD, user, rng.choice(view.legal_moves))
    return update


def seeded(seed: int) -> FairDice:
    return FairDice(hashlib.sha256(str(seed).encode()).digest())


@pytest_asyncio.fixture
async def open_service(tmp_path: Path) -> AsyncIterator[object]:
    services: list[MatchService] = []

    async def make(seed: int) -> MatchService:
        service = await MatchService.open(tmp_path / "t.db", dice_factory=lambda: seeded(seed))
        services.append(service)
        return service

    yield make
    for service in services:
        await service.close()


async def start(service: MatchService, game: str, **options: object) -> MatchUpdate:
    challenge = await service.challenge(
        GUILD, CHANNEL, ALICE, "alice", game, opponent_id=BOB, opponent_name="bob", **options
    )
    return await service.accept(challenge.id, GUILD, BOB, "bob")


async def assert_replays(service: MatchService, match_id: int) -> None:
    view = await service.get_view(match_id, GUILD)
    events = await service.store.events(match_id)
    rebuilt = replay(view.kind, view.rules, [e.payload for e in events])
    assert rebuilt.snapshot() == await service.store.snapshot(match_id)


@pytest.mark.asyncio
async def test_nannon_to_3_with_take_pass_and_a_nannon(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(26)
    end = await drive(
        service, await start(service, "nannon", length=3), random.Random(26), 0.3, 0.6
    )
    kinds = [e.kind for e in await service.store.events(end.match_id)]
    assert "take" in kinds and "drop" in kinds
    games = end.view.games
    assert [(g.kind, g.winner, g.points) for g in games] == [
        (ResultKind.DROP, 0, 1),
        (ResultKind.DROP, 1, 1),
        (ResultKind.NANNON, 1, 4),
    ]
    assert end.view.score == (1, 5) and end.winner_seat == 1
    assert any("NANNON" in note for note in end.notes)
    bob = await service.stats(GUILD, BOB, "nannon")
    alice = await service.stats(GUILD, ALICE, "nannon")
    assert (bob.won, bob.lost, bob.points_won, bob.points_lost) == (1, 0, 5, 1)
    assert (bob.nannons_for, alice.nannons_against, alice.nannons_for) == (1, 1, 0)
    assert (bob.streak, alice.streak, bob.experience) == (1, -1, 3)
    # FIBS, equal ratings, 3 points, experience 0: 4 * 5 * sqrt(3) / 2 each way.
    assert bob.rating == pytest.approx(1500 + 10 * 3**0.5)
    assert alice.rating == pytest.approx(1500 - 10 * 3**0.5)
    # The NANNON shout counts once, and only for the winner.
    assert await service.record_shout(end.match_id, GUILD, ALICE) is False
    assert await service.record_shout(end.match_id, GUILD, BOB) is True
    assert await service.record_shout(end.match_id, GUILD, BOB) is False
    assert (await service.stats(GUILD, BOB, "nannon")).nannons_shouted == 1
    report = await service.verify_match(end.match_id, GUILD)
    assert report.ok is True and report.seed == end.revealed_seed
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_backgammon_match_reaches_a_crawford_game(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(0)
    end = await drive(service, await start(service, "backgammon", length=3), random.Random(0), 0, 1)
    assert [(g.kind, g.winner, g.points) for g in end.view.games] == [
        (ResultKind.GAMMON, 1, 2),
        (ResultKind.SINGLE, 0, 1),
        (ResultKind.SINGLE, 0, 1),
        (ResultKind.SINGLE, 1, 1),
    ]
    # Bob reached 2 = N-1 in game 1: game 2 is the Crawford game, game 3 post-Crawford.
    events = await service.store.events(end.match_id)
    match = new_match(GameKind.BACKGAMMON, end.view.rules)
    crawford: dict[int, bool] = {}
    for event in events:
        crawford.setdefault(match.game_number, match.crawford_game)  # type: ignore[attr-defined]
        match.apply(action_from_dict(event.payload))
    assert crawford == {1: False, 2: True, 3: False, 4: False}
    assert end.view.score == (2, 3) and end.winner_seat == 1
    bob = await service.stats(GUILD, BOB, "backgammon")
    assert (bob.gammons_for, bob.won, bob.points_won) == (1, 1, 3)
    assert bob.rating > 1500 > (await service.stats(GUILD, ALICE, "backgammon")).rating
    board = await service.leaderboard(GUILD, "backgammon", match_length=3)
    assert [(r.user_id, r.won, r.lost) for r in board] == [(BOB, 1, 0), (ALICE, 0, 1)]
    assert await service.leaderboard(GUILD, "backgammon", match_length=5) == []
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_money_game_under_jacoby_scores_an_uncubed_gammon_single(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(0)
    first = await start(service, "backgammon", length=0, jacoby=True)
    assert first.view.rules.jacoby and first.view.rules.length == 0
    end = await drive(service, first, random.Random(0), 0, 1)
    [game] = end.view.games
    assert (game.kind, game.winner, game.points, game.cube) == (ResultKind.GAMMON, 1, 1, 1)
    bob = await service.stats(GUILD, BOB, "backgammon")
    assert (bob.gammons_for, bob.points_won, bob.won, bob.played) == (1, 1, 1, 1)
    assert bob.rating == 1500  # money play is not rated
    await assert_replays(service, end.match_id)


def terminations(moves: list[str]) -> list[Termination]:
    found, game = [], Game()
    for text in moves:
        game.push_text(text)
        outcome = game.outcome()
        if outcome is not None:
            found.append(outcome.termination)
            game = Game()
    return found


@pytest.mark.parametrize(
    ("seed", "ending", "score"),
    [
        (0, Termination.NO_PIECES, (0.0, 1.0)),
        (21, Termination.THREEFOLD_REPETITION, (1.5, 0.5)),
        (27, Termination.FORTY_MOVE_RULE, (0.5, 1.5)),
    ],
)
@pytest.mark.asyncio
async def test_checkers_win_threefold_and_forty_moves(  # type: ignore[no-untyped-def]
    open_service, seed: int, ending: Termination, score: tuple[float, float]
) -> None:
    service = await open_service(seed)
    end = await drive(
        service, await start(service, "checkers", length=1), random.Random(seed), 0, 0
    )
    moves = [e.payload["move"] for e in await service.store.events(end.match_id)]
    assert ending in terminations(moves)
    assert end.view.score == score
    winner = 0 if score[0] > score[1] else 1
    assert end.winner_seat == winner
    won = await service.stats(GUILD, (ALICE, BOB)[winner], "checkers")
    lost = await service.stats(GUILD, (ALICE, BOB)[1 - winner], "checkers")
    assert (won.won, lost.lost, won.points_won, lost.points_won) == (1, 1, max(score), min(score))
    assert won.rating == pytest.approx(1516) and lost.rating == pytest.approx(1484)  # Elo, K=32
    exported = await service.export(end.match_id, GUILD)
    assert exported.filename.endswith(".pdn") and exported.text.count("[Round ") == len(
        end.view.games
    )
    await assert_replays(service, end.match_id)
