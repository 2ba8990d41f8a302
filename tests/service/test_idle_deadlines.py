"""Issue 34, one scheduler: a match's reminder and win claim are deadlines of the service
(bot/service/idle), armed after each committed action and at start-up, fired on the injected
clock, told as IdleReminder and WinClaimable for the adapters to present."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import (
    AcceptChallenge,
    LeaveMatch,
    MatchService,
    MatchView,
    NewChallenge,
    RobotMatch,
    RollDice,
    UpdateSettings,
    ViewMatch,
)
from bot.service.events import IdleReminder, WinClaimable
from bot.service.idle import CLAIM, REMINDER
from engines.base import Phase
from engines.dice import FairDice

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB, ROBOT = 1, 10, 100, 200, 999


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def service(store_target: str | Path, clock: Clock) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: FairDice(bytes(32)), clock=clock
    )
    yield svc
    await svc.close()


async def started(svc: MatchService) -> MatchView:
    challenge = await svc.handle(
        NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob")
    )
    return (await svc.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))).view


async def due_at(svc: MatchService, kind: str, match_id: int) -> float | None:
    row = await svc.store.deadline(kind, str(match_id))  # type: ignore[attr-defined]
    return None if row is None or row["fired_at"] is not None else float(row["due_at"])


def told(svc: MatchService) -> list[tuple[str, int, int]]:
    """What the scheduler tells from now on: (kind, match id, version)."""
    heard: list[tuple[str, int, int]] = []
    svc.bus.subscribe(IdleReminder, lambda e: heard.append(("remind", *_key(e))))
    svc.bus.subscribe(WinClaimable, lambda e: heard.append(("claim", *_key(e))))
    return heard


def _key(event: IdleReminder | WinClaimable) -> tuple[int, int]:
    return event.item.match_id, event.item.version


async def test_issue_34_each_turn_arms_a_reminder_and_a_claim(service: MatchService) -> None:
    svc = service
    view = await started(svc)
    assert view.phase is Phase.ROLL  # the opening roll is played, someone is to roll
    start = view.last_action_at
    assert await due_at(svc, REMINDER, view.match_id) == start + 60 * 60
    assert await due_at(svc, CLAIM, view.match_id) == start + 24 * 60 * 60
    heard = told(svc)
    await svc.timers.run_due(start + 60 * 60 - 1)
    assert heard == []
    await svc.timers.run_due(start + 60 * 60)
    assert heard == [("remind", view.match_id, view.version)]
    await svc.timers.run_due(start + 2 * 60 * 60)
    assert heard == [("remind", view.match_id, view.version)]  # once per turn
    await svc.timers.run_due(start + 24 * 60 * 60)
    assert heard[-1] == ("claim", view.match_id, view.version)

    # The next action starts a new wait: both deadlines move on with it.
    svc._state.clock.now = start + 25 * 60 * 60  # type: ignore[attr-defined]
    user = ALICE if view.actor == 0 else BOB
    later = (
        await svc.handle(RollDice(view.match_id, GUILD, user, expected_version=view.version))
    ).view
    assert later.last_action_at == start + 25 * 60 * 60
    assert await due_at(svc, REMINDER, view.match_id) == later.last_action_at + 60 * 60

    # A finished match has no deadline left, not even a fired one's row.
    await svc.timers.run_due(later.last_action_at + 60 * 60)  # its reminder fires
    await svc.handle(LeaveMatch(view.match_id, GUILD, ALICE))
    for kind in (REMINDER, CLAIM):
        assert await svc.store.deadline(kind, str(view.match_id)) is None  # type: ignore[attr-defined]


async def test_issue_34_new_times_rearm_a_servers_matches(service: MatchService) -> None:
    svc = service
    view = await started(svc)
    start = view.last_action_at
    await svc.handle(UpdateSettings(GUILD, {"reminder_minutes": 5, "claim_minutes": 10}))
    assert await due_at(svc, REMINDER, view.match_id) == start + 5 * 60
    assert await due_at(svc, CLAIM, view.match_id) == start + 10 * 60
    # Lengthened after arming: the deadline that fires re-arms for the new time, tells nothing.
    heard = told(svc)
    await svc._state.settings.update(GUILD, {"reminder_minutes": 30, "claim_minutes": 60})
    await svc.timers.run_due(start + 5 * 60)
    assert heard == []
    assert await due_at(svc, REMINDER, view.match_id) == start + 30 * 60


async def test_issue_34_a_long_outage_tells_the_claim_not_a_late_reminder(
    service: MatchService,
) -> None:
    """Both deadlines are due when the scheduler starts again (the bot was down a day): as the
    sweep did, only the claim is told, and the reminder counts as sent."""
    svc = service
    view = await started(svc)
    heard = told(svc)
    await svc.timers.run_due(view.last_action_at + 2 * 24 * 60 * 60)
    assert heard == [("claim", view.match_id, view.version)]


async def test_issue_34_the_robot_is_never_reminded_and_never_claims(
    service: MatchService,
) -> None:
    svc = service
    view = (
        await svc.handle(
            RobotMatch(
                GUILD,
                CHANNEL,
                ALICE,
                "alice",
                "nannon",
                robot_id=ROBOT,
                robot_name="robot",
                level=2,
            )
        )
    ).view
    heard = told(svc)
    await svc.timers.run_due(view.last_action_at + 2 * 24 * 60 * 60)
    # The robot's turn: alice may claim the match it stopped playing, and nobody is pinged;
    # alice's turn: she is reminded, and the robot claims nothing.
    kind = "claim" if view.actor == view.robot_seat else "remind"
    assert heard == [(kind, view.match_id, view.version)]


async def test_issue_34_start_up_arms_the_matches_stored_before(
    service: MatchService,
) -> None:
    """A database from before the scheduler (or a crash between a commit and its arming):
    resume_active arms every active match's deadlines."""
    svc = service
    view = await started(svc)
    await svc.store.raw_execute("DELETE FROM deadlines")  # type: ignore[attr-defined]
    assert await due_at(svc, REMINDER, view.match_id) is None
    await svc.resume_active()
    assert await due_at(svc, REMINDER, view.match_id) == view.last_action_at + 60 * 60
    assert await due_at(svc, CLAIM, view.match_id) == view.last_action_at + 24 * 60 * 60


async def test_issue_34_a_process_that_had_the_match_cached_reads_it_afresh(
    store_target: str | Path, clock: Clock
) -> None:
    """Two processes on one database: B has the match in memory when A plays on it. B's
    scheduler fires the new turn's reminder, and tells it for the turn as it is now, not for
    the one it remembers (whose reminder could no longer be claimed, and was lost)."""
    a = await MatchService.open(store_target, dice_factory=lambda: FairDice(bytes(32)), clock=clock)
    b = await MatchService.open(store_target, dice_factory=lambda: FairDice(bytes(32)), clock=clock)
    try:
        view = await started(a)
        await b.handle(ViewMatch(view.match_id))  # now in B's memory
        clock.now = view.last_action_at + 600
        user = ALICE if view.actor == 0 else BOB
        moved = (
            await a.handle(RollDice(view.match_id, GUILD, user, expected_version=view.version))
        ).view
        assert moved.version > view.version
        heard = told(b)
        await b.timers.run_due(moved.last_action_at + 60 * 60)
        assert heard == [("remind", view.match_id, moved.version)]
    finally:
        await a.close()
        await b.close()
