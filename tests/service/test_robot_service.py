"""Matches against the robot, in the service: the robot is a player like any other (its user id
is the bot's, its seat 1, its level stored with the match); ``robot_turn`` says when it has
something to decide and hands out a private copy of the match; robot matches leave ratings,
stats and leaderboards alone unless the server rates them, and always count in the human's
record against the level; the robot is never reminded and never claims; hints are allowed in
robot matches, in matches between people only where the server allows them, and only for the
player's own decision."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from support.wording import refused

from bot.service import (
    AcceptChallenge,
    AskHint,
    GetRobotTurn,
    GetSettings,
    HintKind,
    IdleMatches,
    Leaderboard,
    LeaveMatch,
    MatchService,
    MatchUpdate,
    NewChallenge,
    NotFoundError,
    OfferDouble,
    PlayMove,
    Refusal,
    RobotMatch,
    RobotRecord,
    RobotRematch,
    RollDice,
    Stats,
    TakeDouble,
    UpdateSettings,
    ViewMatch,
)
from engines.base import Phase
from engines.dice import FairDice
from engines.errors import GameError, NotYourTurnError, PhaseError

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB, ROBOT = 1, 10, 100, 200, 999


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def service(store_target: str | Path, clock: Clock) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: FairDice(bytes(32)), clock=clock
    )
    yield svc
    await svc.close()


async def robot_match(
    svc: MatchService, game: str = "nannon", level: int = 4, **options: object
) -> MatchUpdate:
    return await svc.handle(
        RobotMatch(
            GUILD,
            CHANNEL,
            ALICE,
            "alice",
            game,
            robot_id=ROBOT,
            robot_name="tablebot",
            level=level,
            **options,  # type: ignore[arg-type]
        )
    )


async def play_out(svc: MatchService, update: MatchUpdate) -> MatchUpdate:
    """Both seats play: roll, the first legal move, take every double; to the end."""
    while not update.match_over:
        view = update.view
        seat = 0 if view.actor is None else view.actor
        user = view.players[seat].user_id
        if view.phase is Phase.MOVE:
            command = PlayMove(view.match_id, GUILD, user, view.legal_moves[0])
        elif view.phase is Phase.CUBE_OFFERED:
            command = TakeDouble(view.match_id, GUILD, user)
        else:
            command = RollDice(view.match_id, GUILD, user)
        update = await svc.handle(command)
    return update


async def test_the_robot_takes_seat_1_at_its_level(service: MatchService) -> None:
    update = await robot_match(service, "backgammon", level=2, length=3)
    view = update.view
    assert [p.user_id for p in view.players] == [ALICE, ROBOT]
    assert (view.robot_seat, view.robot_level, view.length) == (1, 2, 3)
    assert view.rules.cube and view.rules.crawford  # the server's defaults, as for anyone
    again = await service.handle(ViewMatch(view.match_id))
    assert (again.robot_seat, again.robot_level) == (1, 2)
    for bad in (0, 6, "3", True):
        with refused(
            GameError,
            Refusal.BAD_ROBOT_LEVEL,
            match="beginner, intermediate, advanced, expert, master",
        ):
            await robot_match(service, level=bad)  # type: ignore[arg-type]
    with refused(GameError, Refusal.SELF_CHALLENGE, match="yourself"):
        await service.handle(
            RobotMatch(
                GUILD, CHANNEL, ALICE, "a", "nannon", robot_id=ALICE, robot_name="a", level=1
            )
        )
    with refused(GameError, Refusal.MONEY_NOT_BACKGAMMON, match="Money play"):
        await robot_match(service, "nannon", length=0)
    await service.handle(UpdateSettings(GUILD, {"challenge_channels": [55]}))
    with refused(GameError, Refusal.CHANNEL_NOT_ALLOWED, match="only in <#55>"):
        await robot_match(service)


async def test_robot_turn_says_when_the_robot_decides_on_a_private_copy(
    service: MatchService,
) -> None:
    update = await robot_match(service, "checkers", level=1)
    match_id = update.view.match_id
    # Checkers: game 1's Black (seat 0, the human) moves first.
    assert update.view.actor == 0
    assert await service.handle(GetRobotTurn(match_id)) is None
    update = await service.handle(PlayMove(match_id, GUILD, ALICE, update.view.legal_moves[0]))
    turn = await service.handle(GetRobotTurn(match_id))
    assert turn is not None
    assert (turn.seat, turn.user_id, turn.level, turn.version) == (1, ROBOT, 1, update.version)
    assert turn.match.actor == 1 and turn.match.position_id == update.view.position_id
    # The copy is the robot's own: playing on it changes nothing in the service.
    move = turn.match.legal_moves().notation[0]
    from engines.actions import Move

    turn.match.apply(Move(1, move))
    assert (await service.handle(ViewMatch(match_id))).version == update.version
    # The robot acts as any player, by the version it thought about.
    update = await service.handle(
        PlayMove(match_id, GUILD, ROBOT, move, expected_version=turn.version)
    )
    assert update.view.actor == 0 and await service.handle(GetRobotTurn(match_id)) is None
    await service.handle(LeaveMatch(match_id, GUILD, ALICE))
    assert await service.handle(GetRobotTurn(match_id)) is None  # over
    with refused(NotFoundError, Refusal.NO_SUCH_MATCH):
        await service.handle(GetRobotTurn(12345))


async def test_robot_matches_leave_ratings_alone_and_count_against_the_level(
    service: MatchService,
) -> None:
    update = await robot_match(service, "nannon", level=3, length=1, cube=False)
    update = await play_out(service, update)
    assert update.rating_changes == ()
    assert await service.store.stats_row(GUILD, "nannon", ALICE) is None
    assert await service.store.stats_row(GUILD, "nannon", ROBOT) is None
    assert await service.handle(Leaderboard(GUILD, "nannon")) == []
    assert await service.handle(Leaderboard(GUILD, "nannon", 1)) == []
    human_won = update.winner_seat == 0
    # A second one, conceded by the human.
    second = await robot_match(service, "nannon", level=3, length=1)
    await service.handle(LeaveMatch(second.view.match_id, GUILD, ALICE))
    line = await service.handle(Stats(GUILD, ALICE, "nannon"))
    assert line.played == 0 and line.rating == 1500
    [record] = line.vs_robot
    assert record == RobotRecord(
        level=3,
        played=2,
        won=int(human_won),
        lost=2 - int(human_won),
        drawn=0,
        points_won=float(human_won),
        points_lost=2.0 - float(human_won),
    )
    assert (await service.handle(Stats(GUILD, ALICE, "checkers"))).vs_robot == ()


async def test_rated_robot_matches_change_ratings_when_the_server_says_so(
    service: MatchService,
) -> None:
    await service.handle(UpdateSettings(GUILD, {"robot_rated": True}))
    update = await robot_match(service, "checkers", level=5)
    update = await service.handle(LeaveMatch(update.view.match_id, GUILD, ALICE))
    assert [(c.user_id, c.delta) for c in update.rating_changes] == [(ALICE, -16), (ROBOT, 16)]
    alice = await service.handle(Stats(GUILD, ALICE, "checkers"))
    assert (alice.played, alice.lost, alice.rating) == (1, 1, 1484)
    assert [r.level for r in alice.vs_robot] == [5]  # counted here too
    assert [row.user_id for row in await service.handle(Leaderboard(GUILD, "checkers"))] == [
        ROBOT,
        ALICE,
    ]
    assert len(await service.handle(Leaderboard(GUILD, "checkers", 1))) == 2


async def test_the_robot_is_never_reminded_and_never_claims(
    service: MatchService, clock: Clock
) -> None:
    await service.handle(UpdateSettings(GUILD, {"reminder_minutes": 5, "claim_minutes": 10}))
    update = await robot_match(service, "checkers", level=1)
    match_id = update.view.match_id
    clock.now += 3600  # the human (seat 0) is idle: reminded, but the robot won't claim
    [idle] = await service.handle(IdleMatches())
    assert (idle.idle.user_id, idle.reminder_due, idle.claimable) == (ALICE, True, False)
    await service.handle(PlayMove(match_id, GUILD, ALICE, update.view.legal_moves[0]))
    clock.now += 3600  # now the robot is idle (it stopped playing): no reminder, a claim
    [idle] = await service.handle(IdleMatches())
    assert (idle.idle.user_id, idle.reminder_due, idle.claimable) == (ROBOT, False, True)


async def test_a_robot_rematch_starts_at_once_at_the_same_level(service: MatchService) -> None:
    update = await robot_match(service, "backgammon", level=2, length=3, cube=False)
    match_id = update.view.match_id
    with refused(GameError, Refusal.MATCH_STILL_ON, match="still on"):
        await service.handle(RobotRematch(match_id, GUILD, ALICE))
    await service.handle(LeaveMatch(match_id, GUILD, ALICE))
    with refused(NotYourTurnError, Refusal.NOT_A_PLAYER, match="not playing"):
        await service.handle(RobotRematch(match_id, GUILD, ROBOT))
    again = await service.handle(RobotRematch(match_id, GUILD, ALICE))
    view = again.view
    assert view.match_id != match_id and (view.robot_seat, view.robot_level) == (1, 2)
    assert (view.length, view.rules.cube) == (3, False)
    assert [p.user_id for p in view.players] == [ALICE, ROBOT]


async def test_hints_are_for_the_players_own_decisions(service: MatchService) -> None:
    update = await robot_match(service, "backgammon", level=4, length=0)
    match_id = update.view.match_id

    async def until_human(phase: Phase) -> MatchUpdate:
        """Play both seats (roll, first legal move) until the human is to act in ``phase``."""
        nonlocal update
        while not (update.view.actor == 0 and update.view.phase is phase):
            view = update.view
            assert view.actor is not None
            user = view.players[view.actor].user_id
            if view.phase is Phase.MOVE:
                update = await service.handle(PlayMove(match_id, GUILD, user, view.legal_moves[0]))
            else:
                update = await service.handle(RollDice(match_id, GUILD, user))
        return update

    await until_human(Phase.MOVE)
    request = await service.handle(AskHint(match_id, GUILD, ALICE))
    assert (request.kind, request.seat, request.robot_match) == (HintKind.MOVES, 0, True)
    assert request.version == update.version and request.match.phase is Phase.MOVE
    assert request.match.dice == update.view.dice
    with refused(NotYourTurnError, Refusal.NOT_A_PLAYER, match="not playing"):
        await service.handle(AskHint(match_id, GUILD, BOB))
    update = await service.handle(PlayMove(match_id, GUILD, ALICE, update.view.legal_moves[0]))
    with refused(PhaseError, Refusal.NO_HINT, match="Nothing for you to decide"):
        await service.handle(AskHint(match_id, GUILD, ALICE))  # the robot's turn
    await until_human(Phase.ROLL)  # before the human's roll, with the cube centred
    assert (await service.handle(AskHint(match_id, GUILD, ALICE))).kind is HintKind.CUBE
    await until_human(Phase.MOVE)
    update = await service.handle(PlayMove(match_id, GUILD, ALICE, update.view.legal_moves[0]))
    assert (update.view.actor, update.view.phase) == (1, Phase.ROLL)  # the robot may double
    await service.handle(OfferDouble(match_id, GUILD, ROBOT))  # the robot doubles
    assert (await service.handle(AskHint(match_id, GUILD, ALICE))).kind is HintKind.TAKE
    await service.handle(LeaveMatch(match_id, GUILD, ALICE))
    with refused(PhaseError, Refusal.MATCH_OVER, match="is over"):
        await service.handle(AskHint(match_id, GUILD, ALICE))


async def test_hints_between_people_need_the_servers_setting(service: MatchService) -> None:
    challenge = await service.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", "checkers", opponent_id=BOB, opponent_name="bob"
        )
    )
    update = await service.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
    match_id = update.view.match_id
    with refused(GameError, Refusal.HINTS_OFF, match="/config robot"):
        await service.handle(AskHint(match_id, GUILD, ALICE))
    await service.handle(UpdateSettings(GUILD, {"hints_in_human_matches": True}))
    request = await service.handle(AskHint(match_id, GUILD, ALICE))
    assert (request.kind, request.robot_match) == (HintKind.MOVES, False)
    assert await service.handle(GetRobotTurn(match_id)) is None  # nobody's robot here


async def test_robot_settings_and_their_bounds(service: MatchService) -> None:
    settings = await service.handle(GetSettings(GUILD))
    assert (settings.robot_rated, settings.hints_in_human_matches, settings.robot_pause_ms) == (
        False,
        False,
        1000,
    )
    settings = await service.handle(
        UpdateSettings(GUILD, {"robot_pause_ms": "0", "robot_rated": "on"})
    )
    assert (settings.robot_pause_ms, settings.robot_rated) == (0, True)
    with refused(GameError, Refusal.SETTING_OUT_OF_RANGE, match="10000"):
        await service.handle(UpdateSettings(GUILD, {"robot_pause_ms": 10_001}))
    # Master's thinking time a checkers move, in seconds: 2 by default, 1 to 30.
    assert settings.robot_think_s == 2
    settings = await service.handle(UpdateSettings(GUILD, {"robot_think_s": "5"}))
    assert settings.robot_think_s == 5
    for wrong in (0, 31):
        with refused(GameError, Refusal.SETTING_OUT_OF_RANGE, match="30"):
            await service.handle(UpdateSettings(GUILD, {"robot_think_s": wrong}))
