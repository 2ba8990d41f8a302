"""Tournaments through the service, on both stores: knockout, round robin and Swiss played to
the end (matches ended by the loser leaving), with restarts in the middle; withdrawal,
adjudication, the deadline report, the start at ``starts``, two services racing to pair one
round, and the refusals (nothing recorded)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import (
    AdjudicateMatch,
    AdvanceTournament,
    Board,
    CreateTournament,
    DueTournaments,
    JoinTournament,
    LeaveMatch,
    LeaveTournament,
    ListTournaments,
    MatchService,
    OverdueRounds,
    Refusal,
    Refused,
    RoundStarted,
    ShowTournament,
    StartTournament,
    Stats,
    TournamentFinished,
    TournamentStatus,
    TournamentView,
    UpdateSettings,
    ViewMatch,
    WithdrawFromTournament,
)
from engines.dice import FairDice

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ORGANISER, ROBOT = 1, 10, 900, 999
PLAYERS = [101, 102, 103, 104, 105, 106, 107, 108]
DAY = 86400.0

Open = Callable[[], Awaitable[MatchService]]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def open_service(store_target: str | Path, clock: Clock) -> AsyncIterator[Open]:
    """``await open_service()``: a service on the test's database (another process, or the
    same one after a restart)."""
    services: list[MatchService] = []

    async def make() -> MatchService:
        service = await MatchService.open(
            store_target,
            dice_factory=lambda: FairDice(hashlib.sha256(b"t").digest()),
            clock=clock,
        )
        services.append(service)
        return service

    yield make
    for service in services:
        await service.close()


async def create(service: MatchService, form: str, **options: object) -> TournamentView:
    return await service.handle(
        CreateTournament(
            guild_id=GUILD,
            channel_id=CHANNEL,
            organiser_id=ORGANISER,
            organiser_name="org",
            game="nannon",
            format=form,
            length=1,
            **options,  # type: ignore[arg-type]
        )
    )


async def entered(service: MatchService, form: str, players: list[int], **options: object) -> int:
    view = await create(service, form, **options)
    for user in players:
        await service.handle(JoinTournament(view.id, GUILD, user, f"p{user}"))
    return view.id


async def start(service: MatchService, tournament_id: int) -> TournamentView:
    return await service.handle(StartTournament(tournament_id, GUILD, ORGANISER, ROBOT, "robot"))


def lower_id_wins(board: Board) -> int:
    """The loser: the higher id."""
    assert board.second is not None
    return max(board.first, board.second)


async def play_round(
    service: MatchService, tournament_id: int, loser: Callable[[Board], int] = lower_id_wins
) -> TournamentView:
    """End every open match of the current round (the loser leaves it)."""
    view = await service.handle(ShowTournament(tournament_id, GUILD))
    for board in view.round_boards(view.round):
        if not board.finished:
            assert board.match_id is not None, board
            await service.handle(LeaveMatch(board.match_id, GUILD, loser(board)))
    return await service.handle(ShowTournament(tournament_id, GUILD))


async def test_knockout_of_8_to_its_champion_with_a_restart(open_service: Open) -> None:
    service = await open_service()
    heard: list[object] = []
    service.bus.subscribe(RoundStarted, heard.append)
    service.bus.subscribe(TournamentFinished, heard.append)
    tid = await entered(service, "knockout", PLAYERS)
    view = await start(service, tid)
    assert view.status is TournamentStatus.RUNNING and view.round == 1 and view.rounds == 3
    # Seeded 1..8 by join order (equal ratings): 1 v 8, 4 v 5, 2 v 7, 3 v 6.
    assert [(b.first, b.second) for b in view.round_boards(1)] == [
        (101, 108), (104, 105), (102, 107), (103, 106)
    ]  # fmt: skip
    assert all(b.match_id is not None for b in view.round_boards(1))
    assert isinstance(heard[0], RoundStarted) and len(heard[0].matches) == 4
    view = await play_round(service, tid)
    assert view.round == 2
    assert [(b.first, b.second) for b in view.round_boards(2)] == [(101, 104), (102, 103)]
    # A crash mid-round: the first match of round 2 ended, but the process stopped before
    # its tournament heard of it.
    first = view.round_boards(2)[0]
    assert first.match_id is not None
    await service.close()
    service = await open_service()
    await service.store.raw_execute(
        "UPDATE matches SET status = 'finished', winner_seat = 0 WHERE id = ?", (first.match_id,)
    )
    await service.close()
    service = await open_service()
    resumed = await service.resume_tournaments()
    assert [v.id for v in resumed] == [tid]
    view = await play_round(service, tid)
    assert view.round == 3 and [(b.first, b.second) for b in view.round_boards(3)] == [(101, 102)]
    view = await play_round(service, tid)
    assert view.status is TournamentStatus.FINISHED and view.winner_id == 101
    stats = await service.handle(Stats(GUILD, 101, "nannon"))
    assert (stats.tournaments_played, stats.tournaments_won) == (1, 1)
    loser = await service.handle(Stats(GUILD, 108, "nannon"))
    assert (loser.tournaments_played, loser.tournaments_won, loser.played) == (1, 0, 1)


async def test_round_robin_of_5_with_restarts(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "round robin", PLAYERS[:5])
    view = await start(service, tid)
    assert view.rounds == 5
    for number in range(1, 6):
        assert view.round == number
        boards = view.round_boards(number)
        assert sum(b.second is None for b in boards) == 1  # the odd one out sits out
        view = await play_round(service, tid)
        await service.close()  # a restart between every round
        service = await open_service()
        await service.resume_tournaments()
        view = await service.handle(ShowTournament(tid, GUILD))
    assert view.status is TournamentStatus.FINISHED
    table = view.table()
    # Lower ids beat higher ones: 101 won all 4 matches (and has a bye).
    assert [line.id for line in table] == PLAYERS[:5]
    assert [line.points for line in table] == [5.0, 4.0, 3.0, 2.0, 1.0]
    assert view.winner_id == 101
    pairs = {frozenset((b.first, b.second)) for b in view.boards if b.second is not None}
    assert len(pairs) == 10  # everyone met everyone once


async def test_swiss_of_6_over_3_rounds(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "swiss", PLAYERS[:6], rounds=3)
    view = await start(service, tid)
    for _ in range(3):
        view = await play_round(service, tid)
    assert view.status is TournamentStatus.FINISHED and view.round == 3
    pairs = [frozenset((b.first, b.second)) for b in view.boards]
    assert len(pairs) == len(set(pairs)) == 9  # no rematch
    table = view.table()
    assert table[0].id == 101 and table[0].points == 3.0 and view.winner_id == 101
    # Buchholz: the sum of the opponents' points.
    points = {line.id: line.points for line in table}
    for line in table:
        met = [
            o
            for b in view.boards
            for o in (b.first, b.second)
            if line.id in (b.first, b.second) and o != line.id
        ]
        assert line.buchholz == sum(points[o] for o in met if o is not None)


async def test_swiss_with_an_odd_count_gives_one_bye_each(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "swiss", PLAYERS[:5], rounds=3)
    await start(service, tid)
    for _ in range(3):
        view = await play_round(service, tid)
    byes = [b.first for b in view.boards if b.second is None]
    assert len(byes) == 3 and len(set(byes)) == 3


async def test_withdrawal_forfeits_the_rest(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "round robin", PLAYERS[:4])
    view = await start(service, tid)
    board = next(b for b in view.round_boards(1) if 101 in (b.first, b.second))
    view = await service.handle(WithdrawFromTournament(tid, GUILD, 101))
    assert next(b for b in view.round_boards(1) if b.board == board.board).winner != 101
    with pytest.raises(Refused) as again:
        await service.handle(WithdrawFromTournament(tid, GUILD, 101))
    assert again.value.refusal is Refusal.ALREADY_WITHDRAWN
    while view.status is TournamentStatus.RUNNING:
        view = await play_round(service, tid)
    later = [b for b in view.boards if 101 in (b.first, b.second) and b.round > 1]
    assert later and all(b.decided is not None and b.decided.value == "forfeit" for b in later)
    assert all(b.match_id is None and b.winner != 101 for b in later)
    assert view.table()[-1].id == 101 and view.winner_id == 102


async def test_adjudication_by_the_organiser_only(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "knockout", PLAYERS[:2])
    view = await start(service, tid)
    board = view.round_boards(1)[0]
    assert board.match_id is not None
    with pytest.raises(Refused) as stranger:
        await service.handle(AdjudicateMatch(tid, GUILD, 101, board.match_id, 101))
    assert stranger.value.refusal is Refusal.NOT_ORGANISER
    update = await service.handle(AdjudicateMatch(tid, GUILD, ORGANISER, board.match_id, 102))
    assert update.match_over and update.view.players[update.view.winner_seat or 0].user_id == 102
    view = await service.handle(ShowTournament(tid, GUILD))
    assert view.status is TournamentStatus.FINISHED and view.winner_id == 102
    with pytest.raises(Refused) as late:
        await service.handle(AdjudicateMatch(tid, GUILD, ORGANISER, board.match_id, 101))
    assert late.value.refusal is Refusal.NOT_A_ROUND_MATCH


async def test_deadline_reported_once_and_start_at_its_time(
    open_service: Open, clock: Clock
) -> None:
    service = await open_service()
    other = await open_service()  # another process sweeping too
    tid = await entered(service, "knockout", PLAYERS[:2], starts_at=clock.now + 60, round_days=1)
    assert await service.handle(DueTournaments()) == []
    clock.now += 61
    due = await service.handle(DueTournaments())
    assert [v.id for v in due] == [tid]
    await service.handle(StartTournament(tid, GUILD, None, ROBOT, "robot"))
    assert await service.handle(OverdueRounds()) == []
    clock.now += DAY + 1
    reports = await asyncio.gather(service.handle(OverdueRounds()), other.handle(OverdueRounds()))
    assert sorted(len(r) for r in reports) == [0, 1]
    assert await service.handle(OverdueRounds()) == []


async def test_signup_closing_with_too_few_cancels(open_service: Open, clock: Clock) -> None:
    service = await open_service()
    tid = await entered(service, "knockout", PLAYERS[:1], starts_at=clock.now)
    view = await service.handle(StartTournament(tid, GUILD, None, ROBOT, "robot"))
    assert view.status is TournamentStatus.CANCELLED


async def test_robot_makes_up_the_numbers(open_service: Open) -> None:
    service = await open_service()
    tid = await entered(service, "knockout", PLAYERS[:3], robot_level=1)
    view = await start(service, tid)
    robot = view.entrant(ROBOT)
    assert robot is not None and robot.robot and len(view.entrants) == 4
    robot_boards = [b for b in view.round_boards(1) if ROBOT in (b.first, b.second)]
    assert len(robot_boards) == 1 and robot_boards[0].match_id is not None
    match = await service.handle(ViewMatch(robot_boards[0].match_id, GUILD))
    assert match.robot_seat == 1 and match.players[1].user_id == ROBOT and match.robot_level == 1


async def test_two_services_race_to_pair_one_round(open_service: Open) -> None:
    one, two = await open_service(), await open_service()
    tid = await entered(one, "round robin", PLAYERS[:4])
    view = await start(one, tid)
    for board in view.round_boards(1):
        assert board.match_id is not None
        # Ended behind both services' backs: neither heard of it.
        await one.store.raw_execute(
            "UPDATE matches SET status = 'finished', winner_seat = 0 WHERE id = ?",
            (board.match_id,),
        )
    await asyncio.gather(one.handle(AdvanceTournament(tid)), two.handle(AdvanceTournament(tid)))
    view = await one.handle(ShowTournament(tid, GUILD))
    assert view.round == 2
    assert len(view.round_boards(2)) == 2
    assert len({b.match_id for b in view.round_boards(2)}) == 2  # one match per board
    rows = await one.store.raw_rows("SELECT count(*) AS n FROM matches")
    assert rows[0]["n"] == 4


async def refused_with(work: Awaitable[object]) -> Refusal:
    with pytest.raises(Refused) as caught:
        await work
    return caught.value.refusal


async def test_refusals_record_nothing(open_service: Open) -> None:
    service = await open_service()
    await service.handle(UpdateSettings(GUILD, {"challenge_channels": [55]}))
    assert await refused_with(create(service, "knockout")) is Refusal.CHANNEL_NOT_ALLOWED
    assert await service.handle(ListTournaments(GUILD)) == []
    await service.handle(UpdateSettings(GUILD, {"challenge_channels": []}))
    assert await refused_with(create(service, "ladder")) is Refusal.BAD_FORMAT
    assert await refused_with(create(service, "swiss", round_days=0)) is Refusal.BAD_ROUND_DAYS
    assert await refused_with(create(service, "knockout", rounds=3)) is Refusal.BAD_ROUNDS
    tid = await entered(service, "knockout", PLAYERS[:1], max_players=2)
    join = JoinTournament(tid, GUILD, 101, "p101")
    assert await refused_with(service.handle(join)) is Refusal.ALREADY_ENTERED
    assert await refused_with(start(service, tid)) is Refusal.TOO_FEW_PLAYERS
    await service.handle(JoinTournament(tid, GUILD, 102, "p102"))
    third = JoinTournament(tid, GUILD, 103, "p103")
    assert await refused_with(service.handle(third)) is Refusal.TOURNAMENT_FULL
    stranger = StartTournament(tid, GUILD, 101, ROBOT, "robot")
    assert await refused_with(service.handle(stranger)) is Refusal.NOT_ORGANISER
    other_guild = ShowTournament(tid, GUILD + 1)
    assert await refused_with(service.handle(other_guild)) is Refusal.NO_SUCH_TOURNAMENT
    view = await service.handle(ShowTournament(tid, GUILD))
    assert view.status is TournamentStatus.SIGNUP and [e.user_id for e in view.entrants] == [
        101,
        102,
    ]
    assert view.boards == ()
    await service.handle(LeaveTournament(tid, GUILD, 102))
    leave = LeaveTournament(tid, GUILD, 102)
    assert await refused_with(service.handle(leave)) is Refusal.NOT_ENTERED
    listed = await service.handle(ListTournaments(GUILD))
    assert [v.id for v in listed] == [tid]


async def test_a_crash_after_pairing_or_after_claiming_a_challenge_resumes(
    open_service: Open, clock: Clock
) -> None:
    """The process stopped right after a round was paired (no match yet for board 0) and right
    after board 1 claimed its challenge (no match yet): a restart starts both, once each."""
    service = await open_service()
    tid = await entered(service, "knockout", PLAYERS[:4])
    view = await service.handle(ShowTournament(tid, GUILD))
    store = service.store
    pairings = [
        {"round": 1, "board": 0, "first_id": 101, "second_id": 104},
        {"round": 1, "board": 1, "first_id": 102, "second_id": 103},
    ]
    changes = {"status": "running", "round": 1, "rounds": 2, "round_deadline": clock.now + DAY}
    assert await store.begin_round(tid, view.version, changes, pairings)
    assert not await store.begin_round(tid, view.version, changes, pairings)  # paired once
    challenge = await store.insert_challenge(
        {
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "game": "nannon",
            "rules": '{"length": 1}',
            "challenger_id": 102,
            "challenger_name": "p102",
            "opponent_id": 103,
            "opponent_name": "p103",
            "status": "open",
            "created_at": clock.now,
            "expires_at": clock.now + DAY,
        }
    )
    assert await store.claim_pairing_challenge(tid, 1, 1, challenge)
    await service.close()
    service = await open_service()
    started: list[RoundStarted] = []
    service.bus.subscribe(RoundStarted, started.append)
    await service.resume_tournaments()
    view = await service.handle(ShowTournament(tid, GUILD))
    assert all(b.match_id is not None for b in view.round_boards(1))
    assert len(started) == 1 and len(started[0].matches) == 2
    await service.resume_tournaments()  # nothing left to start
    assert len(started) == 1
    rows = await service.store.raw_rows("SELECT count(*) AS n FROM matches")
    assert rows[0]["n"] == 2
