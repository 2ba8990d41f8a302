"""Full matches driven through the service against a database file, with fixed dice seeds and a
seeded random player, chosen so that each match shows what it is named after (takes and passes,
a NANNON, gammons, the Crawford game, ratings)."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.discord.wording import notes
from bot.service import (
    AcceptChallenge,
    AcceptResignation,
    DeclineResignation,
    Export,
    Leaderboard,
    LeaveMatch,
    MatchService,
    MatchUpdate,
    NewChallenge,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    RecordShout,
    RollDice,
    StatLine,
    Stats,
    TakeDouble,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from engines import new_match, replay
from engines.actions import action_from_dict
from engines.base import GameKind, Phase, ResultKind
from engines.checkers import Game, Termination
from engines.dice import FairDice

GUILD, CHANNEL, ALICE, BOB, CAROL = 1, 10, 100, 200, 300


async def drive(
    service: MatchService,
    update: MatchUpdate,
    rng: random.Random,
    p_double: float,
    p_take: float,
    seen: list[MatchUpdate] | None = None,
) -> MatchUpdate:
    """Play to the end: a seeded random player that doubles and takes with given odds. Every
    update along the way, the first included, is added to ``seen`` when given."""
    match_id = update.match_id
    if seen is not None:
        seen.append(update)
    while not update.match_over:
        view = update.view
        actor = view.actor if view.actor is not None else 0
        user = view.players[actor].user_id
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[actor] and rng.random() < p_double:
                update = await service.handle(OfferDouble(match_id, GUILD, user))
            else:
                update = await service.handle(RollDice(match_id, GUILD, user))
        elif view.phase is Phase.CUBE_OFFERED:
            answer = TakeDouble if rng.random() < p_take else PassDouble
            update = await service.handle(answer(match_id, GUILD, user))
        else:
            assert view.phase is Phase.MOVE
            update = await service.handle(
                PlayMove(match_id, GUILD, user, rng.choice(view.legal_moves))
            )
        if seen is not None:
            seen.append(update)
    return update


def seeded(seed: int) -> FairDice:
    return FairDice(hashlib.sha256(str(seed).encode()).digest())


@pytest_asyncio.fixture
async def open_service(store_target: str | Path) -> AsyncIterator[object]:
    services: list[MatchService] = []

    async def make(seed: int) -> MatchService:
        service = await MatchService.open(store_target, dice_factory=lambda: seeded(seed))
        services.append(service)
        return service

    yield make
    for service in services:
        await service.close()


async def start(service: MatchService, game: str, **options: object) -> MatchUpdate:
    challenge = await service.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", game, opponent_id=BOB, opponent_name="bob", **options
        )
    )
    return await service.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))


STAT_FIELDS = (
    "played",
    "won",
    "lost",
    "drawn",
    "points_won",
    "points_lost",
    "gammons_for",
    "gammons_against",
    "backgammons_for",
    "backgammons_against",
    "experience",
    "streak",
)


def counts(line: StatLine) -> dict[str, float]:
    return {name: getattr(line, name) for name in STAT_FIELDS}


def all_notes(updates: list[MatchUpdate]) -> list[str]:
    return [note for update in updates for note in notes(update)]


async def assert_replays(service: MatchService, match_id: int) -> None:
    view = await service.handle(ViewMatch(match_id, GUILD))
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
    assert any("NANNON" in note for note in notes(end))
    bob = await service.handle(Stats(GUILD, BOB, "nannon"))
    alice = await service.handle(Stats(GUILD, ALICE, "nannon"))
    assert (bob.won, bob.lost, bob.points_won, bob.points_lost) == (1, 0, 5, 1)
    assert (bob.nannons_for, alice.nannons_against, alice.nannons_for) == (1, 1, 0)
    assert (bob.streak, alice.streak, bob.experience) == (1, -1, 3)
    # FIBS, equal ratings, 3 points, experience 0: 4 * 5 * sqrt(3) / 2 each way.
    assert bob.rating == pytest.approx(1500 + 10 * 3**0.5)
    assert alice.rating == pytest.approx(1500 - 10 * 3**0.5)
    # The NANNON shout counts once, and only for the winner.
    assert await service.handle(RecordShout(end.match_id, GUILD, ALICE)) is False
    assert await service.handle(RecordShout(end.match_id, GUILD, BOB)) is True
    assert await service.handle(RecordShout(end.match_id, GUILD, BOB)) is False
    assert (await service.handle(Stats(GUILD, BOB, "nannon"))).nannons_shouted == 1
    report = await service.handle(VerifyMatch(end.match_id, GUILD))
    assert report.ok is True and report.seed == end.revealed_seed
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_backgammon_match_reaches_a_crawford_game(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(0)
    seen: list[MatchUpdate] = []
    first = await start(service, "backgammon", length=3)
    end = await drive(service, first, random.Random(0), 0, 1, seen)
    # With the dead-cube ruling bob (1 away after the Crawford game) is rolled for at once.
    assert [(g.kind, g.winner, g.points) for g in end.view.games] == [
        (ResultKind.GAMMON, 1, 2),
        (ResultKind.SINGLE, 0, 1),
        (ResultKind.GAMMON, 1, 2),
    ]
    # Bob reached 2 = N-1 in game 1: game 2 is the Crawford game, game 3 post-Crawford.
    events = await service.store.events(end.match_id)
    match = new_match(GameKind.BACKGAMMON, end.view.rules)
    crawford: dict[int, bool] = {}
    # Per game: was doubling allowed to either seat in any state of it (before each event)?
    doubling: dict[int, bool] = {}
    for event in events:
        number = match.game_number
        crawford.setdefault(number, match.crawford_game)  # type: ignore[attr-defined]
        allowed = match.can_double(0) or match.can_double(1)  # type: ignore[attr-defined]
        doubling[number] = doubling.get(number, False) or allowed
        match.apply(action_from_dict(event.payload))
    assert crawford == {1: False, 2: True, 3: False}
    # Nobody may double in any state of the Crawford game; the game after it allows it again
    # (to alice: bob's cube is dead).
    assert doubling == {1: True, 2: False, 3: True}
    assert "Game 2 is the Crawford game: no doubling." in all_notes(seen)
    assert all(u.view.crawford == (u.view.game_number == 2) for u in seen)
    assert end.view.score == (1, 4) and end.winner_seat == 1
    bob = await service.handle(Stats(GUILD, BOB, "backgammon"))
    alice = await service.handle(Stats(GUILD, ALICE, "backgammon"))
    # FIBS by hand: equal ratings, so P_upset = 1 / (10^0 + 1) = 1/2 whoever wins; K = 5 - 0/100
    # for both newcomers; n = 3: each change is 4 * sqrt(3) * 1/2 * 5 = 10 * sqrt(3) = 17.3205...
    change = 4 * math.sqrt(3) * 0.5 * 5
    assert change == pytest.approx(17.320508)
    assert bob.rating == pytest.approx(1500 + change, abs=1e-9)
    assert alice.rating == pytest.approx(1500 - change, abs=1e-9)
    assert [(c.seat, c.user_id, c.before, c.after) for c in end.rating_changes] == [
        (0, ALICE, 1500, pytest.approx(1500 - change, abs=1e-9)),
        (1, BOB, 1500, pytest.approx(1500 + change, abs=1e-9)),
    ]
    # Bob won two gammons (2 each); alice the game in between.
    assert counts(bob) == dict(
        played=1, won=1, lost=0, drawn=0, points_won=4, points_lost=1, gammons_for=2,
        gammons_against=0, backgammons_for=0, backgammons_against=0, experience=3, streak=1,
    )  # fmt: skip
    assert counts(alice) == dict(
        played=1, won=0, lost=1, drawn=0, points_won=1, points_lost=4, gammons_for=0,
        gammons_against=2, backgammons_for=0, backgammons_against=0, experience=3, streak=-1,
    )  # fmt: skip
    board = await service.handle(Leaderboard(GUILD, "backgammon", match_length=3))
    assert [(r.user_id, r.won, r.lost) for r in board] == [(BOB, 1, 0), (ALICE, 0, 1)]
    assert await service.handle(Leaderboard(GUILD, "backgammon", match_length=5)) == []
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_crawford_match_with_cube_action_rates_by_fibs_with_experience(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(36)
    # Rolls wait for the player (auto-roll off), so every turn shows whether it may double.
    await service.handle(UpdateSettings(GUILD, {"auto_roll": False}))
    # First alice beats carol (who leaves) in a 1-point match: alice 1510, experience 1.
    challenge = await service.handle(
        NewChallenge(GUILD, CHANNEL, ALICE, "alice", "backgammon", opponent_id=CAROL, length=1)
    )
    warmup = await service.handle(AcceptChallenge(challenge.id, GUILD, CAROL, "carol"))
    warmup = await service.handle(LeaveMatch(warmup.match_id, GUILD, CAROL))
    assert warmup.match_over and warmup.winner_seat == 0
    # FIBS by hand, n = 1, equal ratings, K = 5: 4 * 1 * 1/2 * 5 = 10.
    assert (await service.handle(Stats(GUILD, ALICE, "backgammon"))).rating == pytest.approx(1510)
    assert (await service.handle(Stats(GUILD, CAROL, "backgammon"))).rating == pytest.approx(1490)

    seen: list[MatchUpdate] = []
    first = await start(service, "backgammon", length=3)
    end = await drive(service, first, random.Random(36), 0.03, 1, seen)
    match_id = end.match_id
    assert [(g.kind, g.winner, g.points, g.cube) for g in end.view.games] == [
        (ResultKind.SINGLE, 1, 2, 2),  # a double taken before the Crawford game
        (ResultKind.SINGLE, 0, 1, 1),  # the Crawford game: bob at 2 = N-1
        (ResultKind.SINGLE, 1, 2, 2),  # post-Crawford, alice's double taken (bob's is dead)
    ]
    assert end.view.score == (1, 4) and end.winner_seat == 1
    kinds_by_game: dict[int, list[str]] = {}
    match = new_match(GameKind.BACKGAMMON, end.view.rules)
    for event in await service.store.events(match_id):
        kinds_by_game.setdefault(match.game_number, []).append(event.kind)
        match.apply(action_from_dict(event.payload))
    assert [kinds_by_game[g].count("double") for g in (1, 2, 3)] == [1, 0, 1]
    assert [kinds_by_game[g].count("take") for g in (1, 2, 3)] == [1, 0, 1]

    rolls = [u.view for u in seen if u.view.phase is Phase.ROLL]
    crawford = [v for v in rolls if v.game_number == 2]
    after = [v for v in rolls if v.game_number == 3]
    assert crawford and after
    assert all(v.crawford and v.can_double == (False, False) for v in crawford)
    assert not any(v.crawford for v in rolls if v.game_number != 2)
    # Post-Crawford the cube is live again: the first roll of game 3, cube centred, may double.
    assert after[0].cube_value == 1 and after[0].can_double[after[0].turn]
    assert "Game 2 is the Crawford game: no doubling." in all_notes(seen)
    assert any(note.endswith("doubles to 2.") for note in all_notes(seen))

    # FIBS by hand. Alice 1510 (experience 1, K = 5 - 1/100 = 4.99) is the favourite over bob
    # 1500 (experience 0, K = 5); the underdog won, so P = 1 - P_upset, n = 3.
    upset = 1 / (10 ** (10 * math.sqrt(3) / 2000) + 1)
    assert upset == pytest.approx(0.4950149, abs=1e-7)
    p = 1 - upset
    bob_after = 1500 + 4 * math.sqrt(3) * p * 5
    alice_after = 1510 - 4 * math.sqrt(3) * p * 4.99
    assert bob_after == pytest.approx(1517.49320, abs=1e-5)
    assert alice_after == pytest.approx(1492.54179, abs=1e-5)
    assert [(c.user_id, c.before, c.after) for c in end.rating_changes] == [
        (ALICE, pytest.approx(1510), pytest.approx(alice_after, abs=1e-9)),
        (BOB, 1500, pytest.approx(bob_after, abs=1e-9)),
    ]
    alice = await service.handle(Stats(GUILD, ALICE, "backgammon"))
    bob = await service.handle(Stats(GUILD, BOB, "backgammon"))
    assert alice.rating == pytest.approx(alice_after, abs=1e-9)
    assert bob.rating == pytest.approx(bob_after, abs=1e-9)
    assert counts(alice) == dict(
        played=2, won=1, lost=1, drawn=0, points_won=2, points_lost=4, gammons_for=0,
        gammons_against=0, backgammons_for=0, backgammons_against=0, experience=4, streak=-1,
    )  # fmt: skip
    assert counts(bob) == dict(
        played=1, won=1, lost=0, drawn=0, points_won=4, points_lost=1, gammons_for=0,
        gammons_against=0, backgammons_for=0, backgammons_against=0, experience=3, streak=1,
    )  # fmt: skip
    assert (await service.handle(Stats(GUILD, CAROL, "backgammon"))).rating == pytest.approx(1490)
    await assert_replays(service, match_id)


@pytest.mark.asyncio
async def test_gammons_and_backgammons_count_for_winner_and_against_loser(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(4)
    first = await start(service, "backgammon", length=5, cube=False)
    end = await drive(service, first, random.Random(4), 0, 1)
    # Alice wins a gammon and the match; bob wins the one backgammon.
    assert [(g.kind, g.winner, g.points) for g in end.view.games] == [
        (ResultKind.GAMMON, 0, 2),
        (ResultKind.SINGLE, 0, 1),
        (ResultKind.SINGLE, 0, 1),
        (ResultKind.BACKGAMMON, 1, 3),
        (ResultKind.SINGLE, 0, 1),
    ]
    assert end.view.score == (5, 3) and end.winner_seat == 0
    rows = await service.store.game_results(end.match_id)
    assert [(r["kind"], r["winner_seat"], r["points"]) for r in rows] == [
        ("gammon", 0, 2),
        ("single", 0, 1),
        ("single", 0, 1),
        ("backgammon", 1, 3),
        ("single", 0, 1),
    ]
    alice = await service.handle(Stats(GUILD, ALICE, "backgammon"))
    bob = await service.handle(Stats(GUILD, BOB, "backgammon"))
    change = 4 * math.sqrt(5) * 0.5 * 5  # FIBS by hand: equal ratings, newcomers, n = 5
    assert alice.rating == pytest.approx(1500 + change, abs=1e-9)
    assert bob.rating == pytest.approx(1500 - change, abs=1e-9)
    assert counts(alice) == dict(
        played=1, won=1, lost=0, drawn=0, points_won=5, points_lost=3, gammons_for=1,
        gammons_against=0, backgammons_for=0, backgammons_against=1, experience=5, streak=1,
    )  # fmt: skip
    assert counts(bob) == dict(
        played=1, won=0, lost=1, drawn=0, points_won=3, points_lost=5, gammons_for=0,
        gammons_against=1, backgammons_for=1, backgammons_against=0, experience=5, streak=-1,
    )  # fmt: skip
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_money_game_under_jacoby_scores_an_uncubed_gammon_single(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(0)
    first = await start(service, "backgammon", length=0, jacoby=True)
    assert first.view.rules.jacoby and first.view.rules.length == 0
    end = await drive(service, first, random.Random(0), 0, 1)
    [game] = end.view.games
    assert (game.kind, game.winner, game.points, game.cube) == (ResultKind.GAMMON, 1, 1, 1)
    bob = await service.handle(Stats(GUILD, BOB, "backgammon"))
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
    won = await service.handle(Stats(GUILD, (ALICE, BOB)[winner], "checkers"))
    lost = await service.handle(Stats(GUILD, (ALICE, BOB)[1 - winner], "checkers"))
    assert (won.won, lost.lost, won.points_won, lost.points_won) == (1, 1, max(score), min(score))
    assert won.rating == pytest.approx(1516) and lost.rating == pytest.approx(1484)  # Elo, K=32
    exported = await service.handle(Export(end.match_id, GUILD))
    assert exported.filename.endswith(".pdn") and exported.text.count("[Round ") == len(
        end.view.games
    )
    await assert_replays(service, end.match_id)


@pytest.mark.asyncio
async def test_an_accepted_resignation_counts_at_its_level(open_service) -> None:  # type: ignore[no-untyped-def]
    service = await open_service(5)
    update = await start(service, "backgammon", length=7)
    for resigner, accepter, level, points in (
        (ALICE, BOB, "gammon", 2),
        (BOB, ALICE, "backgammon", 3),
        (ALICE, BOB, "single", 1),
    ):
        await service.handle(OfferResignation(update.match_id, GUILD, resigner, level))
        update = await service.handle(AcceptResignation(update.match_id, GUILD, accepter))
        assert update.game_result is not None
        assert (update.game_result.kind, update.game_result.points) == (ResultKind.RESIGN, points)
    declined = await service.handle(OfferResignation(update.match_id, GUILD, BOB, "backgammon"))
    update = await service.handle(DeclineResignation(declined.match_id, GUILD, ALICE))
    # a forfeit counts nothing
    update = await service.handle(LeaveMatch(update.match_id, GUILD, BOB))
    assert update.match_over and update.view.score == (7, 3)
    alice = await service.handle(Stats(GUILD, ALICE, "backgammon"))
    bob = await service.handle(Stats(GUILD, BOB, "backgammon"))
    assert (alice.gammons_for, alice.gammons_against) == (0, 1)
    assert (alice.backgammons_for, alice.backgammons_against) == (1, 0)
    assert (bob.gammons_for, bob.gammons_against) == (1, 0)
    assert (bob.backgammons_for, bob.backgammons_against) == (0, 1)
    await assert_replays(service, update.match_id)

    update = await start(service, "nannon", length=3)
    await service.handle(OfferResignation(update.match_id, GUILD, ALICE, "gammon"))  # a NANNON
    update = await service.handle(AcceptResignation(update.match_id, GUILD, BOB))
    assert update.view.score == (0, 2)
    await service.handle(OfferResignation(update.match_id, GUILD, BOB, "single"))
    update = await service.handle(AcceptResignation(update.match_id, GUILD, ALICE))
    assert update.view.score == (1, 2)
    alice = await service.handle(Stats(GUILD, ALICE, "nannon"))
    bob = await service.handle(Stats(GUILD, BOB, "nannon"))
    assert (bob.nannons_for, bob.nannons_against, bob.nannons_shouted) == (1, 0, 0)
    assert (alice.nannons_for, alice.nannons_against) == (0, 1)
