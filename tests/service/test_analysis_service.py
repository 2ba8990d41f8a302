"""Post-match analysis in the service, on both stores, with an analysis runner the test steps
through: a request is queued and runs game by game, its progress stored and told between games;
analyses run one at a time in the order asked; a restart queues again what was queued or
running; the refusals (unknown or unfinished match, already queued or done, no analysis runner);
a failure may be asked again; a match's end queues its analysis where the server says so; /stats
averages the analysed matches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import (
    AcceptChallenge,
    AnalysisStatus,
    GetAnalysis,
    LeaveMatch,
    MatchService,
    NewChallenge,
    PlayMove,
    Refused,
    RequestAnalysis,
    RobotMatch,
    RollDice,
    SetAnalysisMessage,
    Stats,
    UpdateSettings,
    ViewMatch,
    ViewsAfterActions,
)
from bot.service.errors import Refusal
from bot.service.events import (
    AnalysisEvent,
    AnalysisFailed,
    AnalysisFinished,
    AnalysisProgressed,
    AnalysisQueued,
)
from engines import replay
from engines.actions import Action, action_from_dict
from engines.analysis import Decision, DecisionKind
from engines.base import GameKind, MatchRules, Phase
from engines.dice import FairDice

pytestmark = pytest.mark.asyncio

GUILD, CHANNEL, ALICE, BOB, ROBOT = 1, 10, 100, 200, 999
GAMES = 3


class SteppedRunner:
    """``GAMES`` games a match; each game's decisions: one per seat, seat 0 losing
    ``loss0[match]`` (0.05 unless set). With ``hold``, each game waits for a :meth:`step`."""

    def __init__(self, *, hold: bool = False) -> None:
        self.hold = hold
        self._permits = asyncio.Semaphore(0)
        self.started: asyncio.Queue[tuple[int, int]] = asyncio.Queue()  # (actions, game)
        self.running = 0
        self.most_at_once = 0
        self.fail_game: int | None = None
        self.loss0 = 0.05
        self.unavailable: set[GameKind] = set()

    async def available(self, kind: GameKind) -> bool:
        return kind not in self.unavailable

    def details(self, kind: GameKind, ply: int) -> dict[str, object]:
        return {"evaluator": "stepped", "ply": ply}

    def step(self, games: int = 1) -> None:
        for _ in range(games):
            self._permits.release()

    async def count_games(
        self, kind: GameKind, rules: MatchRules, actions: Sequence[Action]
    ) -> int:
        return GAMES

    async def game_decisions(
        self,
        kind: GameKind,
        rules: MatchRules,
        actions: Sequence[Action],
        names: tuple[str, str],
        game: int,
        ply: int,
    ) -> list[Decision]:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            self.started.put_nowait((len(actions), game))
            if self.hold:
                await self._permits.acquire()
            if game == self.fail_game:
                raise RuntimeError("the runner broke")
            return [
                Decision(game, 1, 0, DecisionKind.MOVE, "a", "b", self.loss0, False, None, 0.5),
                Decision(game, 2, 1, DecisionKind.MOVE, "c", "c", 0.0, False, None, 0.5),
            ]
        finally:
            self.running -= 1


class Clock:
    now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def runner() -> SteppedRunner:
    return SteppedRunner(hold=True)


async def open_service(target: str | Path, runner: SteppedRunner | None) -> MatchService:
    return await MatchService.open(
        target, dice_factory=lambda: FairDice(bytes(32)), clock=Clock(), analysis_runner=runner
    )


@pytest_asyncio.fixture
async def service(store_target: str | Path, runner: SteppedRunner) -> AsyncIterator[MatchService]:
    svc = await open_service(store_target, runner)
    await svc.analyses.start()
    yield svc
    await svc.close()


def heard(svc: MatchService) -> list[AnalysisEvent]:
    events: list[AnalysisEvent] = []

    async def listen(event: AnalysisEvent) -> None:
        events.append(event)

    svc.analyses.listeners.append(listen)
    return events


async def finished_match(svc: MatchService, *, robot: bool = False) -> int:
    """A Nannon match to 1 that Alice concedes at once."""
    if robot:
        update = await svc.handle(
            RobotMatch(
                GUILD,
                CHANNEL,
                ALICE,
                "alice",
                "nannon",
                robot_id=ROBOT,
                robot_name="tablebot",
                level=1,
            )
        )
    else:
        challenge = await svc.handle(
            NewChallenge(
                GUILD,
                CHANNEL,
                ALICE,
                "alice",
                "nannon",
                opponent_id=BOB,
                opponent_name="bob",
                length=1,
            )
        )
        update = await svc.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
    match_id = update.view.match_id
    assert (await svc.handle(LeaveMatch(match_id, GUILD, ALICE))).match_over
    return match_id


async def refusal(svc: MatchService, command: RequestAnalysis) -> Refusal:
    with pytest.raises(Refused) as caught:
        await svc.handle(command)
    return caught.value.refusal


async def test_an_analysis_runs_game_by_game_and_stores_its_report(
    service: MatchService, runner: SteppedRunner
) -> None:
    events = heard(service)
    match_id = await finished_match(service)
    view = await service.handle(RequestAnalysis(match_id, GUILD, BOB, ply=2))
    assert (view.status, view.requester_id, view.ply, view.games_total) == (
        AnalysisStatus.QUEUED,
        BOB,
        2,
        None,
    )
    for game in range(1, GAMES + 1):
        assert (await runner.started.get())[1] == game
        now = await service.handle(GetAnalysis(match_id))
        assert (now.status, now.games_done, now.games_total) == ("running", game - 1, GAMES)
        runner.step()
    await service.analyses.wait_idle()
    done = await service.handle(GetAnalysis(match_id, GUILD))
    assert done.status is AnalysisStatus.DONE and done.games_done == GAMES
    assert done.analysis is not None
    assert len(done.analysis.decisions) == 2 * GAMES
    alice = done.analysis.players[0]
    assert alice.error_rate == pytest.approx(50.0) and alice.blunders == 0 and alice.errors == 3
    assert done.analysis.worst(1)[0].played == "a"
    assert done.analysis.details == {"evaluator": "stepped", "ply": 2}
    # What the listeners heard, in order: queued, each game's progress, the end.
    assert isinstance(events[0], AnalysisQueued) and events[0].ahead == 0
    progress = [e.analysis.games_done for e in events if isinstance(e, AnalysisProgressed)]
    assert progress == list(range(GAMES))
    assert isinstance(events[-1], AnalysisFinished)
    assert events[-1].analysis.analysis == done.analysis
    # Once done, asking again points at the report.
    await service.handle(SetAnalysisMessage(match_id, 4242))
    with pytest.raises(Refused) as caught:
        await service.handle(RequestAnalysis(match_id, GUILD, ALICE))
    assert caught.value.refusal is Refusal.ANALYSIS_DONE
    assert caught.value.params["message_id"] == 4242


async def test_refusals(
    service: MatchService, runner: SteppedRunner, store_target: str | Path
) -> None:
    assert await refusal(service, RequestAnalysis(4242, GUILD, ALICE)) is Refusal.NO_SUCH_MATCH
    challenge = await service.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob", length=1
        )
    )
    live = (await service.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))).view.match_id
    assert await refusal(service, RequestAnalysis(live, GUILD, ALICE)) is (
        Refusal.MATCH_NOT_FINISHED
    )
    match_id = await finished_match(service)
    # Another server's match is unknown here.
    assert await refusal(service, RequestAnalysis(match_id, GUILD + 1, ALICE)) is (
        Refusal.NO_SUCH_MATCH
    )
    await service.handle(RequestAnalysis(match_id, GUILD, ALICE))
    assert await refusal(service, RequestAnalysis(match_id, GUILD, BOB)) is (
        Refusal.ANALYSIS_PENDING
    )
    # A game this runner can't do here (backgammon without gnubg) is refused up front.
    runner.unavailable.add(GameKind.NANNON)
    other = await finished_match(service)
    assert await refusal(service, RequestAnalysis(other, GUILD, ALICE)) is (
        Refusal.ANALYSIS_UNAVAILABLE
    )
    runner.unavailable.clear()
    # A bot without the analysis engines refuses every request for a finished match.
    bare = await open_service(store_target, None)
    try:
        other = await finished_match(bare)
        assert await refusal(bare, RequestAnalysis(other, GUILD, ALICE)) is (
            Refusal.ANALYSIS_UNAVAILABLE
        )
        assert await bare.analyses.match_ended(await bare.handle(ViewMatch(other))) is None
    finally:
        await bare.close()


async def test_one_analysis_at_a_time_in_the_order_asked(
    service: MatchService, runner: SteppedRunner
) -> None:
    events = heard(service)
    first, second, third = [await finished_match(service) for _ in range(3)]
    for match_id in (first, second, third):
        await service.handle(RequestAnalysis(match_id, GUILD, ALICE))
    await runner.started.get()
    assert service.analyses.current == first
    assert [service.analyses.position(m) for m in (first, second, third)] == [0, 1, 2]
    assert (await service.handle(GetAnalysis(second))).status is AnalysisStatus.QUEUED
    order = []
    for _ in range(3 * GAMES):
        runner.step()
        order.append(service.analyses.current)
        if len(order) < 3 * GAMES:
            await runner.started.get()
    await service.analyses.wait_idle()
    assert order == [first] * GAMES + [second] * GAMES + [third] * GAMES
    assert runner.most_at_once == 1
    assert [e.ahead for e in events if isinstance(e, AnalysisQueued)] == [0, 1, 2]
    for match_id in (first, second, third):
        assert (await service.handle(GetAnalysis(match_id))).status is AnalysisStatus.DONE


async def test_a_restart_queues_again_what_was_queued_or_running(
    store_target: str | Path, runner: SteppedRunner
) -> None:
    svc = await open_service(store_target, runner)
    await svc.analyses.start()
    running, queued = await finished_match(svc), await finished_match(svc)
    await svc.handle(RequestAnalysis(running, GUILD, ALICE))
    await svc.handle(RequestAnalysis(queued, GUILD, ALICE))
    await runner.started.get()
    runner.step()  # game 1 of the first is done: game 2 is under way when the bot stops
    await runner.started.get()
    await svc.close()
    # The database says where it stopped.
    svc = await open_service(store_target, SteppedRunner())
    try:
        stopped = await svc.handle(GetAnalysis(running))
        assert (stopped.status, stopped.games_done) == (AnalysisStatus.RUNNING, 1)
        assert (await svc.handle(GetAnalysis(queued))).status is AnalysisStatus.QUEUED
        assert await svc.analyses.start() == 2
        await svc.analyses.wait_idle()
        for match_id in (running, queued):
            view = await svc.handle(GetAnalysis(match_id))
            assert (view.status, view.games_done) == (AnalysisStatus.DONE, GAMES)
    finally:
        await svc.close()


async def test_a_failed_analysis_is_told_and_may_be_asked_again(
    service: MatchService, runner: SteppedRunner
) -> None:
    events = heard(service)
    runner.hold = False
    runner.fail_game = 2
    match_id = await finished_match(service)
    await service.handle(RequestAnalysis(match_id, GUILD, ALICE))
    await service.analyses.wait_idle()
    failed = await service.handle(GetAnalysis(match_id))
    assert failed.status is AnalysisStatus.FAILED and "the runner broke" in (failed.error or "")
    assert isinstance(events[-1], AnalysisFailed)
    runner.fail_game = None
    again = await service.handle(RequestAnalysis(match_id, GUILD, BOB))
    assert again.status is AnalysisStatus.QUEUED and again.requester_id == BOB
    await service.analyses.wait_idle()
    assert (await service.handle(GetAnalysis(match_id))).status is AnalysisStatus.DONE


async def test_a_match_end_queues_its_analysis_as_the_server_says(
    service: MatchService, runner: SteppedRunner
) -> None:
    runner.hold = False
    robot = await finished_match(service, robot=True)  # robot matches: on by default
    view = await service.handle(GetAnalysis(robot))
    assert view.requester_id is None and view.status is not AnalysisStatus.FAILED
    people = await finished_match(service)  # matches between people: off by default
    with pytest.raises(Refused):
        await service.handle(GetAnalysis(people))
    await service.handle(
        UpdateSettings(GUILD, {"analyse_robot_matches": False, "analyse_human_matches": True})
    )
    robot = await finished_match(service, robot=True)
    with pytest.raises(Refused):
        await service.handle(GetAnalysis(robot))
    runner.unavailable.add(GameKind.NANNON)  # a game not analysed here: nothing queued
    people = await finished_match(service)
    with pytest.raises(Refused):
        await service.handle(GetAnalysis(people))
    runner.unavailable.clear()
    people = await finished_match(service)
    assert (await service.handle(GetAnalysis(people))).requester_id is None
    await service.analyses.wait_idle()
    assert (await service.handle(GetAnalysis(people))).status is AnalysisStatus.DONE


async def test_stats_average_the_analysed_matches(
    service: MatchService, runner: SteppedRunner
) -> None:
    runner.hold = False
    assert (await service.handle(Stats(GUILD, ALICE, "nannon"))).analysed == 0
    for loss in (0.02, 0.06):
        runner.loss0 = loss
        match_id = await finished_match(service)
        await service.handle(RequestAnalysis(match_id, GUILD, ALICE))
        await service.analyses.wait_idle()
    await finished_match(service)  # not analysed: not counted
    alice = await service.handle(Stats(GUILD, ALICE, "nannon"))
    assert alice.analysed == 2 and alice.error_rate == pytest.approx(40.0)
    assert alice.pr is None  # Nannon has no PR
    bob = await service.handle(Stats(GUILD, BOB, "nannon"))
    assert bob.analysed == 2 and bob.error_rate == pytest.approx(0.0)


async def test_the_boards_of_mistakes_are_the_match_replayed_to_them(
    service: MatchService,
) -> None:
    challenge = await service.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob", length=3
        )
    )
    update = await service.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
    match_id = update.view.match_id
    for _ in range(12):  # both play: roll, the first legal move
        view = update.view
        user = view.players[0 if view.actor is None else view.actor].user_id
        if view.phase is Phase.MOVE:
            update = await service.handle(PlayMove(match_id, GUILD, user, view.legal_moves[0]))
        else:
            update = await service.handle(RollDice(match_id, GUILD, user))
    await service.handle(LeaveMatch(match_id, GUILD, ALICE))
    actions = [action_from_dict(e.payload) for e in await service.store.events(match_id)]
    indexes = [7, 2, len(actions), 7, 0]
    views = await service.handle(ViewsAfterActions(match_id, GUILD, indexes))
    rules = (await service.handle(ViewMatch(match_id))).rules
    for index, view in zip(indexes, views, strict=True):
        expected = replay(GameKind.NANNON, rules, actions[:index])
        assert (view.position_id, view.phase) == (expected.position_id, expected.phase), index
    with pytest.raises(Refused):
        await service.handle(ViewsAfterActions(match_id, GUILD + 1, [0]))
