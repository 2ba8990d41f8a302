"""The match service: refusals, authorization, concurrency, restarts, fair dice, idle claims."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio
from support.db import sql_rows, sql_write
from support.wording import refused

from bot.discord.wording import notes, verify_text
from bot.service import (
    AcceptChallenge,
    AcceptResignation,
    ActiveMatches,
    AgreeDraw,
    CancelChallenge,
    CandidateMatches,
    Challenge,
    ChallengeStatus,
    ClaimReminder,
    ClaimWin,
    DeclineChallenge,
    DeclineResignation,
    Export,
    GetChallenge,
    GetSettings,
    History,
    IdleMatches,
    Leaderboard,
    LeaveMatch,
    LegalMoves,
    MatchAwareDice,
    MatchInThread,
    MatchService,
    MatchUpdate,
    NewChallenge,
    NotFoundError,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    ProposeDraw,
    Refusal,
    Refused,
    RefuseDraw,
    RollDice,
    SetChallengeMessage,
    SetThread,
    StaleActionError,
    Stats,
    TakeDouble,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from bot.service.events import (
    ChallengeExpired,
    DiceRolled,
    MatchStarted,
    MovePlayed,
    OpeningRolled,
)
from engines import match_from_snapshot, replay
from engines.base import GameKind, GameMatch, Phase
from engines.dice import FairDice, die_at
from engines.errors import CubeError, GameError, IllegalMoveError, NotYourTurnError, PhaseError

GUILD, OTHER_GUILD, CHANNEL, ALICE, BOB, CAROL = 1, 2, 10, 100, 200, 300


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class ScriptedDice:
    """Dice that follow a script, then the seed: verify_match must catch the scripted ones."""

    def __init__(self, script: list[int], seed: bytes = bytes(32)) -> None:
        self.script, self.seed, self.counter = script, seed, 0

    def roll_die(self) -> int:
        i = self.counter
        self.counter += 1
        return self.script[i] if i < len(self.script) else die_at(self.seed, i)


@pytest_asyncio.fixture
async def service(store_target: str | Path) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(store_target, dice_factory=lambda: FairDice(bytes(32)))
    yield svc
    await svc.close()


async def start(svc: MatchService, game: str = "backgammon", **options: object) -> MatchUpdate:
    challenge = await svc.handle(
        NewChallenge(
            GUILD, CHANNEL, ALICE, "alice", game, opponent_id=BOB, opponent_name="bob", **options
        )
    )
    return await svc.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))


def user_on(update: MatchUpdate, seat: int | None = None) -> int:
    view = update.view
    return view.players[view.actor if seat is None else seat].user_id


# --- challenges ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_challenge_refusals(service: MatchService) -> None:
    async def refuses(code: Refusal, match: str, **kw: object) -> None:
        with refused(GameError, code, match=match):
            await service.handle(
                NewChallenge(GUILD, CHANNEL, ALICE, "alice", kw.pop("game", "nannon"), **kw)
            )  # type: ignore[arg-type]

    await refuses(Refusal.SELF_CHALLENGE, "yourself", opponent_id=ALICE, opponent_name="alice")
    await refuses(
        Refusal.BOT_OPPONENT,
        "Bots can't play",
        opponent_id=5,
        opponent_name="robot",
        opponent_is_bot=True,
    )
    await refuses(Refusal.LENGTH_OUT_OF_RANGE, "1 to 25", length=26)
    await refuses(Refusal.MONEY_NOT_BACKGAMMON, "backgammon only", game="checkers", length=0)
    await refuses(Refusal.MONEY_NOT_BACKGAMMON, "Money play .* backgammon only", length=0)
    await refuses(
        Refusal.MONEY_ONLY_OPTIONS, "money games only", game="backgammon", length=5, jacoby=True
    )
    await refuses(Refusal.UNKNOWN_GAME, "no game called", game="chess")
    await refuses(Refusal.CHECKERS_CUBE_OPTIONS, "no doubling cube", game="checkers", cube=True)
    await service.handle(UpdateSettings(GUILD, {"challenge_channels": [55]}))
    await refuses(Refusal.CHANNEL_NOT_ALLOWED, "only in <#55>")


@pytest.mark.asyncio
async def test_server_defaults_apply(service: MatchService) -> None:
    for game, length in (("nannon", 11), ("backgammon", 5), ("checkers", 1)):
        challenge = await service.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", game))
        assert challenge.rules.length == length
    rules = (await service.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "backgammon"))).rules
    assert (rules.cube, rules.crawford, rules.jacoby, rules.auto_doubles) == (True, True, False, 0)
    await service.handle(UpdateSettings(GUILD, {"nannon_length": "7", "crawford": "off"}))
    rules = (await service.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))).rules
    assert (rules.length, rules.crawford) == (7, False)


@pytest.mark.asyncio
async def test_accept_decline_cancel_refusals(service: MatchService) -> None:
    named = await service.handle(
        NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob")
    )
    with refused(GameError, Refusal.OWN_CHALLENGE, match="against yourself"):
        await service.handle(AcceptChallenge(named.id, GUILD, ALICE, "alice"))
    with refused(NotYourTurnError, Refusal.CHALLENGE_FOR_OTHER, match="for bob"):
        await service.handle(AcceptChallenge(named.id, GUILD, CAROL, "carol"))
    with pytest.raises(NotFoundError):
        await service.handle(AcceptChallenge(named.id, OTHER_GUILD, BOB, "bob"))
    with refused(NotYourTurnError, Refusal.ONLY_OPPONENT_DECLINES, match="Only bob"):
        await service.handle(DeclineChallenge(named.id, GUILD, CAROL))
    with refused(NotYourTurnError, Refusal.ONLY_CHALLENGER_CANCELS, match="Only alice"):
        await service.handle(CancelChallenge(named.id, GUILD, BOB))
    assert (await service.handle(DeclineChallenge(named.id, GUILD, BOB))).status == "declined"
    with refused(GameError, Refusal.CHALLENGE_CLOSED, match="declined"):
        await service.handle(AcceptChallenge(named.id, GUILD, BOB, "bob"))

    open_challenge = await service.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))
    update = await service.handle(AcceptChallenge(open_challenge.id, GUILD, CAROL, "carol"))
    assert update.view.players[1].user_id == CAROL
    with refused(StaleActionError, Refusal.CHALLENGE_ACCEPTED, match="already accepted"):
        await service.handle(AcceptChallenge(open_challenge.id, GUILD, BOB, "bob"))


@pytest.mark.asyncio
async def test_challenges_expire(store_target: str | Path) -> None:
    clock = Clock()
    svc = await MatchService.open(store_target, clock=clock)
    try:
        named = await svc.handle(
            NewChallenge(
                GUILD, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob"
            )
        )
        anyone = await svc.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))
        await svc.handle(SetChallengeMessage(named.id, 555))
        assert named.expires_at == clock.now + 30 * 60  # challenge_minutes' default
        clock.now = named.expires_at - 1
        assert (await svc.handle(GetChallenge(named.id, GUILD))).status is ChallengeStatus.OPEN
        told: list[ChallengeExpired] = []
        svc.bus.subscribe(ChallengeExpired, told.append)

        async def expired(at: float | None = None) -> list[Challenge]:
            """What the scheduler expires at ``at`` (default: the clock), as it tells it."""
            told.clear()
            await svc.timers.run_due(at)
            return [event.challenge for event in told]

        assert await expired() == []

        async def all_refused() -> None:
            """Accept, decline and cancel all say so, and change nothing."""
            for attempt in (
                lambda: svc.handle(AcceptChallenge(named.id, GUILD, BOB, "bob")),
                lambda: svc.handle(AcceptChallenge(anyone.id, GUILD, CAROL, "carol")),
                lambda: svc.handle(DeclineChallenge(named.id, GUILD, BOB)),
                lambda: svc.handle(CancelChallenge(named.id, GUILD, ALICE)),
                lambda: svc.handle(CancelChallenge(anyone.id, GUILD, ALICE)),
            ):
                with refused(
                    GameError, Refusal.CHALLENGE_EXPIRED, match=r"^This challenge expired"
                ) as caught:
                    await attempt()
                # A plain refusal (not a stale action): said so, nothing else to do.
                assert type(caught.value) is Refused
                assert caught.value.refusal is Refusal.CHALLENGE_EXPIRED
            assert await sql_rows(svc.store, "SELECT id FROM matches") == []

        clock.now = named.expires_at  # expired from that second on
        # Before its deadline has fired: refused, and still 'open' in the database (only the
        # deadline writes, so that the adapter is told to close its invitation).
        await all_refused()
        for challenge in (named, anyone):
            assert (
                await svc.handle(GetChallenge(challenge.id, GUILD))
            ).status is ChallengeStatus.EXPIRED
            row = await svc.store.challenge(challenge.id)
            assert row is not None and row["status"] == "open"

        swept = await expired()
        assert [(c.id, c.status, c.channel_id, c.message_id) for c in swept] == [
            (named.id, ChallengeStatus.EXPIRED, CHANNEL, 555),
            (anyone.id, ChallengeStatus.EXPIRED, CHANNEL, None),
        ]
        assert await expired(clock.now + 3600) == []  # once each
        await all_refused()
        later = await svc.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))
        assert await expired() == []
        assert [c.id for c in await expired(later.expires_at)] == [later.id]
    finally:
        await svc.close()


# --- authorization ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_authorization_refusals(service: MatchService) -> None:
    update = await start(service)
    match_id = update.match_id
    view = update.view
    assert view.phase is Phase.MOVE  # the opening winner plays the opening dice
    mover, waiter = user_on(update), user_on(update, 1 - view.actor)  # type: ignore[operator]
    with refused(NotYourTurnError, Refusal.NOT_A_PLAYER, match="not playing"):
        await service.handle(RollDice(match_id, GUILD, CAROL))
    with pytest.raises(NotFoundError):
        await service.handle(RollDice(match_id, OTHER_GUILD, mover))
    with refused(PhaseError, Refusal.ALREADY_ROLLED, match="You rolled already: pick a move"):
        await service.handle(RollDice(match_id, GUILD, mover))
    name = view.players[view.actor].name  # type: ignore[index]
    with refused(NotYourTurnError, Refusal.NOT_YOUR_TURN, match=f"It's {name}'s turn"):
        await service.handle(PlayMove(match_id, GUILD, waiter, view.legal_moves[0]))
    with pytest.raises(IllegalMoveError):
        await service.handle(PlayMove(match_id, GUILD, mover, "24/1"))
    with pytest.raises(CubeError):
        await service.handle(OfferDouble(match_id, GUILD, mover))
    update = await service.handle(PlayMove(match_id, GUILD, mover, view.legal_moves[0]))
    assert update.view.phase is Phase.ROLL and user_on(update) == waiter
    with refused(PhaseError, Refusal.ROLL_FIRST, match="Roll first"):
        await service.handle(PlayMove(match_id, GUILD, waiter, "13/7"))
    update = await service.handle(OfferDouble(match_id, GUILD, waiter))
    with refused(
        NotYourTurnError, Refusal.OWN_DOUBLE, match=r"Only .* can take or pass your double"
    ):
        await service.handle(TakeDouble(match_id, GUILD, waiter))
    with refused(CubeError, Refusal.DOUBLED, match="take or pass first"):
        await service.handle(RollDice(match_id, GUILD, mover))
    update = await service.handle(TakeDouble(match_id, GUILD, mover))
    assert update.view.cube_value == 2 and update.view.cube_owner == 1 - update.view.turn
    with refused(StaleActionError, Refusal.STALE_BOARD, match="out of date"):
        await service.handle(RollDice(match_id, GUILD, waiter, expected_version=update.version - 1))
    with refused(PhaseError, "no_draw_offers", match="no draw offers"):
        await service.handle(ProposeDraw(match_id, GUILD, waiter))
    events_before = await service.store.event_count(match_id)
    assert (await service.handle(ViewMatch(match_id, GUILD))).version == update.version
    assert await service.store.event_count(match_id) == events_before  # refusals write nothing


@pytest.mark.asyncio
async def test_leave_and_resign(service: MatchService) -> None:
    update = await start(service, "nannon", length=3)
    with refused(GameError, Refusal.BAD_RESIGN_LEVEL, match="Resign single, gammon or backgammon"):
        await service.handle(OfferResignation(update.match_id, GUILD, ALICE, "everything"))
    update = await service.handle(OfferResignation(update.match_id, GUILD, ALICE, "single"))
    assert update.view.phase is Phase.RESIGN_OFFERED
    with pytest.raises(NotYourTurnError):
        await service.handle(AcceptResignation(update.match_id, GUILD, ALICE))
    update = await service.handle(AcceptResignation(update.match_id, GUILD, BOB))
    assert update.game_result is not None and update.view.score == (0, 1)
    update = await service.handle(LeaveMatch(update.match_id, GUILD, BOB))
    assert update.match_over and update.winner_seat == 0 and update.view.score[0] == 3
    with refused(PhaseError, Refusal.MATCH_OVER, match="over"):
        await service.handle(RollDice(update.match_id, GUILD, ALICE))
    history = await service.handle(History(GUILD, ALICE))
    assert history[0].result == "won" and history[0].opponent.user_id == BOB


# --- concurrency --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_ten_simultaneous_clicks_apply_once(service: MatchService) -> None:
    update = await start(service)
    mover, move = user_on(update), update.view.legal_moves[0]
    before = await service.store.event_count(update.match_id)
    results = await asyncio.gather(
        *(
            service.handle(
                PlayMove(update.match_id, GUILD, mover, move, expected_version=update.version)
            )
            for _ in range(10)
        ),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, MatchUpdate)]
    assert len(applied) == 1
    assert all(isinstance(r, StaleActionError) for r in results if r not in applied)
    assert await service.store.event_count(update.match_id) == before + 1
    # Without a version the repeats are refused by the rules instead.
    roller = user_on(applied[0])
    rolls = await asyncio.gather(
        *(service.handle(RollDice(update.match_id, GUILD, roller)) for _ in range(5)),
        return_exceptions=True,
    )
    assert sum(isinstance(r, MatchUpdate) for r in rolls) == 1
    assert sum(isinstance(r, PhaseError) for r in rolls) == 4


async def play_randomly(svc: MatchService, update: MatchUpdate, rng: random.Random) -> None:
    while not update.match_over:
        view = update.view
        actor = view.actor if view.actor is not None else 0
        user = view.players[actor].user_id
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[actor] and rng.random() < 0.2:
                update = await svc.handle(OfferDouble(update.match_id, GUILD, user))
            else:
                update = await svc.handle(RollDice(update.match_id, GUILD, user))
        elif view.phase is Phase.CUBE_OFFERED:
            answer = TakeDouble if rng.random() < 0.7 else PassDouble
            update = await svc.handle(answer(update.match_id, GUILD, user))
        else:
            choice = rng.choice(view.legal_moves)
            update = await svc.handle(PlayMove(update.match_id, GUILD, user, choice))


@pytest.mark.asyncio
async def test_random_concurrent_matches_replay_to_their_snapshots(service: MatchService) -> None:
    rng = random.Random(7)
    starts = [
        await start(service, game, length=length)
        for game, length in [("nannon", 3), ("backgammon", 1), ("checkers", 1)] * 3
    ]
    await asyncio.gather(*(play_randomly(service, u, random.Random(rng.random())) for u in starts))
    for update in starts:
        view = await service.handle(ViewMatch(update.match_id, GUILD))
        assert view.match_over
        events = await service.store.events(update.match_id)
        rebuilt = replay(view.kind, view.rules, [e.payload for e in events])
        assert rebuilt.snapshot() == await service.store.snapshot(update.match_id)
        assert [e.seq for e in events] == list(range(len(events)))
        report = await service.handle(VerifyMatch(update.match_id, GUILD))
        assert report.ok is True


RESIGN_LEVELS = {
    GameKind.NANNON: ("single", "gammon"),
    GameKind.BACKGAMMON: ("single", "gammon", "backgammon"),
    GameKind.CHECKERS: ("single",),
}
OFFER_KINDS = {"resign", "accept_resign", "decline_resign", "offer_draw", "accept_draw"}
OFFER_KINDS |= {"decline_draw", "concede_match"}


async def assert_log_replays(svc: MatchService, match_id: int) -> None:
    view = await svc.handle(ViewMatch(match_id, GUILD))
    events = await svc.store.events(match_id)
    assert [e.seq for e in events] == list(range(len(events)))
    rebuilt = replay(view.kind, view.rules, [e.payload for e in events])
    assert rebuilt.snapshot() == await svc.store.snapshot(match_id)


async def play_with_offers(svc: MatchService, update: MatchUpdate, rng: random.Random) -> None:
    """Random play that also offers and answers resignations and draws, resigns checkers games
    and sometimes leaves the match (at any time, even with an offer waiting). After each offer,
    answer or leave, the log so far must replay to the snapshot."""
    match_id = update.match_id
    while not update.match_over:
        view = update.view
        seat = view.actor if view.actor is not None else rng.randrange(2)
        user = view.players[seat].user_id
        either = view.players[rng.randrange(2)].user_id
        checkers = view.kind is GameKind.CHECKERS
        offers_open = view.phase in (Phase.OPENING_TIE, Phase.ROLL, Phase.MOVE)
        r = rng.random()
        if r < 0.003:
            update = await svc.handle(LeaveMatch(match_id, GUILD, either))
        elif view.phase is Phase.RESIGN_OFFERED:
            answer = AcceptResignation if rng.random() < 0.4 else DeclineResignation
            update = await svc.handle(answer(match_id, GUILD, user))
        elif view.phase is Phase.DRAW_OFFERED:
            answer = AgreeDraw if rng.random() < 0.3 else RefuseDraw
            update = await svc.handle(answer(match_id, GUILD, user))
        elif view.phase is Phase.CUBE_OFFERED:
            answer = TakeDouble if rng.random() < 0.7 else PassDouble
            update = await svc.handle(answer(match_id, GUILD, user))
            continue
        elif offers_open and r < 0.03:
            if checkers and rng.random() < 0.7:
                update = await svc.handle(ProposeDraw(match_id, GUILD, either))
            else:
                level = rng.choice(RESIGN_LEVELS[view.kind])
                update = await svc.handle(OfferResignation(match_id, GUILD, either, level))
        elif view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            if view.can_double[seat] and rng.random() < 0.1:
                update = await svc.handle(OfferDouble(match_id, GUILD, user))
            else:
                update = await svc.handle(RollDice(match_id, GUILD, user))
            continue
        else:
            update = await svc.handle(PlayMove(match_id, GUILD, user, rng.choice(view.legal_moves)))
            continue
        await assert_log_replays(svc, match_id)


@pytest.mark.asyncio
async def test_random_matches_with_offers_and_leaving_replay_to_their_snapshots(
    service: MatchService,
) -> None:
    rng = random.Random(11)
    starts = [
        await start(service, game, length=length)
        for game, length in [("nannon", 3), ("backgammon", 3), ("checkers", 3)] * 4
    ]
    await asyncio.gather(
        *(play_with_offers(service, u, random.Random(rng.random())) for u in starts)
    )
    kinds: set[str] = set()
    for update in starts:
        view = await service.handle(ViewMatch(update.match_id, GUILD))
        assert view.match_over
        await assert_log_replays(service, update.match_id)
        assert (await service.handle(VerifyMatch(update.match_id, GUILD))).ok is True
        events = await service.store.events(update.match_id)
        kinds |= {e.kind for e in events}
        results = await service.store.game_results(update.match_id)
        assert [r["kind"] for r in results] == [g.kind.value for g in view.games]
    # The run covered every kind of offer and answer, and leaving.
    assert kinds >= OFFER_KINDS
    results = await sql_rows(service.store, "SELECT kind, COUNT(*) FROM game_results GROUP BY kind")
    by_kind = {row[0]: row[1] for row in results}
    assert by_kind.get("resign", 0) > 0 and by_kind.get("draw", 0) > 0
    assert by_kind.get("forfeit", 0) > 0


@pytest.mark.asyncio
async def test_listed_moves_are_never_stale_and_any_spelling_records_the_same(
    store_target: str | Path,
    new_store_target: Callable[[], str | Path],
) -> None:
    """The service keeps each state's move list: it must match a fresh engine after every
    action, and a move from the list, an engine move object or a respelled move must record
    the same events."""
    listed = await MatchService.open(store_target, dice_factory=lambda: FairDice(bytes(32)))
    other = await MatchService.open(new_store_target(), dice_factory=lambda: FairDice(bytes(32)))
    try:
        for game, length in [("nannon", 3), ("backgammon", 1), ("checkers", 1)]:
            a, b = await start(listed, game, length=length), await start(other, game, length=length)
            rng = random.Random(game)
            step = 0
            while not a.match_over:
                snapshot = await listed.store.snapshot(a.match_id)
                assert snapshot is not None
                fresh = match_from_snapshot(snapshot)
                texts = [fresh.format_move(m) for m in fresh.legal_moves()]
                assert sorted(a.view.legal_moves) == sorted(texts)
                assert b.view.legal_moves == a.view.legal_moves
                view = a.view
                user = view.players[view.actor if view.actor is not None else 0].user_id
                if view.phase is not Phase.MOVE:
                    a = await listed.handle(RollDice(a.match_id, GUILD, user))
                    b = await other.handle(RollDice(b.match_id, GUILD, user))
                    continue
                i = rng.randrange(len(texts))
                a = await listed.handle(PlayMove(a.match_id, GUILD, user, texts[i]))
                step += 1
                spelled = fresh.legal_moves()[i] if step % 2 else texts[i].replace(" ", "  ")
                b = await other.handle(PlayMove(b.match_id, GUILD, user, spelled))
            assert b.match_over and b.view.score == a.view.score
            events_a = await listed.store.events(a.match_id)
            events_b = await other.store.events(b.match_id)
            assert [(e.kind, e.payload) for e in events_a] == [
                (e.kind, e.payload) for e in events_b
            ]
    finally:
        await listed.close()
        await other.close()


# --- restarts and dice ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_close_and_reopen_mid_match_continues(store_target: str | Path) -> None:
    path = store_target
    svc = await MatchService.open(path)
    update = await start(svc, "backgammon", length=3)  # a live cube: nobody is rolled for
    update = await svc.handle(
        PlayMove(update.match_id, GUILD, user_on(update), update.view.legal_moves[0])
    )
    before = update.view
    await svc.close()

    svc = await MatchService.open(path)
    try:
        [resumed] = await svc.resume_active()
        assert (resumed.version, resumed.position_id, resumed.phase) == (
            before.version,
            before.position_id,
            before.phase,
        )
        assert resumed.dice_commitment == before.dice_commitment and resumed.dice_seed is None
        # A button from the board posted before the restart still works.
        roller = resumed.players[resumed.actor].user_id  # type: ignore[index]
        update = await svc.handle(
            RollDice(update.match_id, GUILD, roller, expected_version=before.version)
        )
        await play_randomly(svc, update, random.Random(3))
        report = await svc.handle(VerifyMatch(update.match_id, GUILD))
        assert report.ok is True and len(report.dice) > 4
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_verify_catches_dice_not_from_the_seed(store_target: str | Path) -> None:
    svc = await MatchService.open(store_target, dice_factory=lambda: ScriptedDice([6, 1]))
    try:
        update = await start(svc, "nannon", length=1)
        assert "alice 6, bob 1" in notes(update)[1]
        assert (await svc.handle(VerifyMatch(update.match_id, GUILD))).ok is None  # still secret
        update = await svc.handle(LeaveMatch(update.match_id, GUILD, BOB))
        report = await svc.handle(VerifyMatch(update.match_id, GUILD))
        assert report.dice[:2] == (6, 1) and report.ok is False
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_the_seed_commitment_is_shown_at_accept_and_matches_the_seed_revealed_at_the_end(
    store_target: str | Path,
) -> None:
    svc = await MatchService.open(store_target)  # fair dice with a fresh random seed
    try:
        first = await start(svc, "nannon", length=3)
        shown = first.view.dice_commitment
        assert shown is not None and len(shown) == 64 and int(shown, 16) >= 0
        assert notes(first)[0] == (
            f"Match #{first.match_id}: alice vs bob, nannon to 3 points. "
            f"Dice commitment (SHA-256 of the secret seed): {shown}."
        )
        assert first.view.dice_seed is None and first.revealed_seed is None
        row = await svc.store.match_row(first.match_id)
        assert row is not None and row["dice_commitment"] == shown
        assert hashlib.sha256(bytes(row["dice_seed"])).hexdigest() == shown
        # Another match gets another seed, so another commitment.
        other = await start(svc, "nannon", length=3)
        assert other.view.dice_commitment not in (None, shown)
        # The seed stays secret while the match is on, then the end reveals the committed one.
        update = first
        for _ in range(6):
            view = update.view
            user = ALICE if view.actor is None else user_on(update)  # an opening tie: either
            if view.phase is Phase.MOVE:
                update = await svc.handle(
                    PlayMove(first.match_id, GUILD, user, view.legal_moves[0])
                )
            else:
                update = await svc.handle(RollDice(first.match_id, GUILD, user))
            assert update.revealed_seed is None and update.view.dice_seed is None
            assert update.view.dice_commitment == shown
        assert (await svc.handle(ViewMatch(first.match_id, GUILD))).dice_seed is None
        end = await svc.handle(LeaveMatch(first.match_id, GUILD, ALICE))
        assert end.match_over and end.revealed_seed is not None
        assert hashlib.sha256(bytes.fromhex(end.revealed_seed)).hexdigest() == shown
        assert end.view.dice_seed == end.revealed_seed and end.view.dice_commitment == shown
        report = await svc.handle(VerifyMatch(first.match_id, GUILD))
        assert (report.commitment, report.seed, report.ok) == (shown, end.revealed_seed, True)
        assert len(report.dice) >= 5  # the opening's two dice and at least three rolls
    finally:
        await svc.close()


class PeekingDice(ScriptedDice):
    """Scripted dice that note, at each die, the match the service shows them (MatchAwareDice):
    the live engine object, its phase and turn."""

    def __init__(self, script: list[int]) -> None:
        super().__init__(script)
        self.matches: list[GameMatch] = []
        self.seen: list[tuple[Phase, int]] = []

    def roll_die_for(self, match: GameMatch) -> int:
        self.matches.append(match)
        self.seen.append((match.phase, match.turn))
        return self.roll_die()


@pytest.mark.asyncio
async def test_match_aware_dice_are_shown_the_state_each_die_is_rolled_for(
    store_target: str | Path,
) -> None:
    dice = PeekingDice([6, 1])
    assert isinstance(dice, MatchAwareDice)
    assert not isinstance(FairDice(bytes(32)), MatchAwareDice)  # fair dice need no match
    svc = await MatchService.open(store_target, dice_factory=lambda: dice)
    try:
        update = await start(svc, "nannon", length=3)  # a live cube: the roll is asked for
        assert update.match_id == 1
        # The accept rolls the opening before the match has an id: the dice see its opening.
        assert dice.seen[:2] == [(Phase.OPENING, 0), (Phase.OPENING, 0)]
        match = dice.matches[0]
        assert all(m is match for m in dice.matches)  # the live object, not a copy
        view = update.view
        assert (match.phase, match.turn, match.position_id) == (
            view.phase,
            view.turn,
            view.position_id,
        )
        # Every die rolled after that is asked for inside an action, lock held: it sees the
        # match in the phase being rolled for, on the turn it is rolled for.
        while update.view.phase is not Phase.ROLL:
            view = update.view
            update = await svc.handle(PlayMove(1, GUILD, user_on(update), view.legal_moves[0]))
        turn, rolled = update.view.turn, len(dice.seen)
        update = await svc.handle(RollDice(1, GUILD, user_on(update)))
        assert dice.seen[rolled:] == [(Phase.ROLL, turn)]
        assert dice.matches[-1] is match
        update = await svc.handle(LeaveMatch(1, GUILD, BOB))
        assert update.match_over
        # Steered dice are not the committed ones.
        assert (await svc.handle(VerifyMatch(1, GUILD))).ok is False
    finally:
        await svc.close()


# --- idle matches, settings, queries ------------------------------------------------------


@pytest.mark.asyncio
async def test_idle_reminder_and_claim(store_target: str | Path) -> None:
    clock = Clock()
    svc = await MatchService.open(store_target, clock=clock)
    try:
        update = await start(svc, "checkers")
        idle, waiting = user_on(update), user_on(update, 1 - update.view.actor)  # type: ignore[operator]
        assert await svc.handle(IdleMatches()) == []
        clock.now += 61 * 60
        [due] = await svc.handle(IdleMatches())
        assert (due.idle.user_id, due.reminder_due, due.claimable) == (idle, True, False)
        await svc.handle(ClaimReminder(due.match_id, due.version))
        assert await svc.handle(IdleMatches()) == []
        with refused(GameError, Refusal.CLAIM_TOO_EARLY, match="more to go"):
            await svc.handle(ClaimWin(update.match_id, GUILD, waiting))
        clock.now += 24 * 60 * 60
        [due] = await svc.handle(IdleMatches())
        assert due.claimable and not due.reminder_due
        with refused(NotYourTurnError, Refusal.CLAIM_OWN_WAIT, match="waiting for you"):
            await svc.handle(ClaimWin(update.match_id, GUILD, idle))
        update = await svc.handle(ClaimWin(update.match_id, GUILD, waiting))
        assert update.match_over and update.view.players[update.winner_seat].user_id == waiting  # type: ignore[index]
        assert await svc.handle(IdleMatches()) == []
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_settings_validation(service: MatchService) -> None:
    for changes, code, message in [
        ({"nannon_length": 0}, Refusal.SETTING_OUT_OF_RANGE, "between 1 and 25"),
        ({"backgammon_length": "x"}, Refusal.SETTING_NOT_A_NUMBER, "whole number"),
        ({"auto_roll": "maybe"}, Refusal.SETTING_NOT_ON_OFF, "on or off"),
        ({"auto_pass": "sometimes"}, Refusal.SETTING_NOT_ON_OFF, "auto_pass is on or off"),
        ({"colour": "red"}, Refusal.UNKNOWN_SETTING, "no setting"),
        ({"claim_minutes": 5}, Refusal.CLAIM_BEFORE_REMINDER, "at least the reminder"),
        ({"challenge_channels": ["#general"]}, Refusal.NOT_A_CHANNEL, "channel ids"),
    ]:
        with refused(GameError, code, match=message):
            await service.handle(UpdateSettings(GUILD, {**changes}))
    updated = await service.handle(
        UpdateSettings(GUILD, {"auto_roll": False, "reminder_minutes": 5})
    )
    assert not updated.auto_roll and updated.reminder_minutes == 5
    assert (await service.handle(GetSettings(OTHER_GUILD))).auto_roll  # per server
    assert (await service.handle(GetSettings(GUILD))).auto_pass  # on by default
    assert not (await service.handle(UpdateSettings(GUILD, {"auto_pass": "off"}))).auto_pass
    assert (await service.handle(GetSettings(OTHER_GUILD))).auto_pass


@pytest.mark.asyncio
async def test_auto_roll_off_waits_for_the_roll(service: MatchService) -> None:
    await service.handle(UpdateSettings(GUILD, {"auto_roll": False, "auto_move": False}))
    update = await start(service, "nannon", length=1, cube=False)
    update = await service.handle(
        PlayMove(update.match_id, GUILD, user_on(update), update.view.legal_moves[0])
    )
    assert update.view.phase is Phase.ROLL  # no cube, but auto-roll is off
    update = await service.handle(RollDice(update.match_id, GUILD, user_on(update)))
    assert update.view.phase in (Phase.MOVE, Phase.ROLL)


# Alice wins the opening 2-1: her 1 has one legal play, 2/3. Then bob's 1 has one: 2/3.
FORCED_SCRIPT = [2, 1, 1]


@pytest.mark.asyncio
async def test_the_only_legal_move_is_played_automatically_and_reported(
    store_target: str | Path,
) -> None:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: ScriptedDice(list(FORCED_SCRIPT))
    )
    try:
        fresh = await svc.handle(GetSettings(GUILD))
        assert await svc.store.guild_settings(GUILD) == {}  # nothing saved: the defaults
        assert (fresh.auto_move, fresh.auto_roll, fresh.auto_pass) == (True, True, True)
        update = await start(svc, "nannon", length=3)  # the cube on: bob must roll himself
        match_id = update.match_id
        assert notes(update)[1:] == (
            "Opening roll: alice 2, bob 1: alice moves first with a 1.",
            "alice plays 2/3 (the only legal move, played automatically).",
        )
        view = update.view
        assert (view.phase, view.turn, view.legal_moves) == (Phase.ROLL, 1, ())
        assert view.last_move is not None and (view.last_move.seat, view.last_move.text) == (
            0,
            "2/3",
        )
        update = await svc.handle(
            RollDice(match_id, GUILD, BOB)
        )  # the user's roll, then the forced move
        assert notes(update) == (
            "bob rolls 1.",
            "bob plays 2/3 (the only legal move, played automatically).",
        )
        assert (update.view.phase, update.view.turn) == (Phase.ROLL, 0)
        events = await svc.store.events(match_id)
        assert [(e.actor, e.payload) for e in events] == [
            (None, {"kind": "opening_roll", "player": None, "dice": [2, 1]}),
            (None, {"kind": "move", "player": 0, "move": "2/3"}),  # made by the bot
            (BOB, {"kind": "roll", "player": 1, "dice": [1]}),
            (None, {"kind": "move", "player": 1, "move": "2/3"}),
        ]
        rebuilt = replay(view.kind, view.rules, [e.payload for e in events])
        assert rebuilt.snapshot() == await svc.store.snapshot(match_id)
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_auto_move_off_leaves_the_only_legal_move_to_the_player(
    store_target: str | Path,
) -> None:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: ScriptedDice(list(FORCED_SCRIPT))
    )
    try:
        await svc.handle(UpdateSettings(GUILD, {"auto_move": False}))
        update = await start(svc, "nannon", length=3)
        assert notes(update)[1:] == ("Opening roll: alice 2, bob 1: alice moves first with a 1.",)
        view = update.view
        assert (view.phase, view.actor, view.legal_moves) == (Phase.MOVE, 0, ("2/3",))
        update = await svc.handle(PlayMove(update.match_id, GUILD, ALICE, "2/3"))
        assert notes(update) == ("alice plays 2/3.",)  # the player's own move: no "automatic"
        events = await svc.store.events(update.match_id)
        assert [(e.actor, e.kind) for e in events] == [(None, "opening_roll"), (ALICE, "move")]
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_results_are_events_and_refusals_are_codes_with_no_sentences(
    store_target: str | Path,
) -> None:
    """The service says what happened and to whom, and why it refused; the words are the
    adapter's (the tests above read them through bot.discord.wording)."""
    svc = await MatchService.open(
        store_target, dice_factory=lambda: ScriptedDice(list(FORCED_SCRIPT))
    )
    try:
        update = await start(svc, "nannon", length=3)
        commitment = update.view.dice_commitment
        assert commitment is not None
        assert update.events == (
            MatchStarted(update.match_id, GameKind.NANNON, 3, commitment),
            OpeningRolled((2, 1), 0),
            MovePlayed(0, "2/3", auto=True),
        )
        with pytest.raises(NotYourTurnError) as caught:
            await svc.handle(RollDice(update.match_id, GUILD, ALICE))
        error = caught.value
        assert isinstance(error, Refused) and error.refusal is Refusal.NOT_YOUR_TURN
        assert error.params == {"name": "bob"}
        assert str(error) == "not_your_turn (name='bob')"  # for logs, not for users
        update = await svc.handle(RollDice(update.match_id, GUILD, BOB))
        assert update.events == (DiceRolled(1, (1,)), MovePlayed(1, "2/3", auto=True))

        await svc.handle(UpdateSettings(GUILD, {"challenge_channels": [55, 56]}))
        with pytest.raises(Refused) as caught:
            await svc.handle(NewChallenge(GUILD, CHANNEL, ALICE, "alice", "nannon"))
        assert caught.value.refusal is Refusal.CHANNEL_NOT_ALLOWED
        assert caught.value.params == {"channels": (55, 56)}
        assert "<#" not in str(caught.value)  # no Discord markup from the service
        with pytest.raises(NotFoundError) as caught:
            await svc.handle(LeaveMatch(99, GUILD, ALICE))
        assert (caught.value.refusal, caught.value.params) == (
            Refusal.NO_SUCH_MATCH,
            {"match_id": 99},
        )
    finally:
        await svc.close()


# Bob wins the opening 2-5 and plays H/3: then alice's 4 can't move (4, 5 and 6 are a prime).
STUCK_SCRIPT = [2, 5, 4, 1]


@pytest.mark.asyncio
async def test_auto_pass_off_waits_for_the_player_to_play_no_move(store_target: str | Path) -> None:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: ScriptedDice(list(STUCK_SCRIPT))
    )
    try:
        await svc.handle(UpdateSettings(GUILD, {"auto_pass": False}))  # auto-roll and auto-move on
        update = await start(svc, "nannon", length=1, cube=False)
        match_id = update.match_id
        assert update.view.rules.auto_pass is False
        update = await svc.handle(PlayMove(match_id, GUILD, BOB, "H/3"))
        view = update.view
        # Auto-roll rolled the 4; auto-move does not play the lone "no move" for alice.
        assert (view.phase, view.actor, view.dice, view.legal_moves) == (
            Phase.MOVE,
            0,
            (4,),
            ("no move",),
        )
        assert view.must_pass
        assert 'alice rolls 4: no legal move, play "no move" to pass the turn.' in notes(update)
        assert await svc.handle(LegalMoves(match_id, GUILD, ALICE, "No")) == ["no move"]
        with pytest.raises(NotYourTurnError):
            await svc.handle(PlayMove(match_id, GUILD, BOB, "no move"))
        with refused(IllegalMoveError, "must_pass", match="no move"):
            await svc.handle(PlayMove(match_id, GUILD, ALICE, "H/4"))
        update = await svc.handle(
            PlayMove(match_id, GUILD, ALICE, "No Move", expected_version=view.version)
        )
        assert notes(update)[0] == "alice has no legal move: the turn passes to bob."
        assert update.view.turn == 1 and not update.view.must_pass
        # Changing the setting now leaves this match's rule as it started.
        await svc.handle(UpdateSettings(GUILD, {"auto_pass": True}))
        assert (await svc.handle(ViewMatch(match_id, GUILD))).rules.auto_pass is False
        events = await svc.store.events(match_id)
        assert {"kind": "move", "player": 0, "move": "no move"} in [e.payload for e in events]
        rebuilt = replay(view.kind, view.rules, [e.payload for e in events])
        assert rebuilt.snapshot() == await svc.store.snapshot(match_id)
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_auto_pass_on_passes_a_roll_with_no_legal_move_at_once(
    store_target: str | Path,
) -> None:
    svc = await MatchService.open(
        store_target, dice_factory=lambda: ScriptedDice(list(STUCK_SCRIPT))
    )
    try:
        update = await start(svc, "nannon", length=1, cube=False)
        assert update.view.rules.auto_pass is True
        update = await svc.handle(PlayMove(update.match_id, GUILD, BOB, "H/3"))
        assert "alice rolls 4: no legal move, the turn passes to bob." in notes(update)
        assert update.view.turn == 1 and not update.view.must_pass
        assert "no move" not in update.view.legal_moves
        events = await svc.store.events(update.match_id)
        assert all(e.payload.get("move") != "no move" for e in events)
    finally:
        await svc.close()


@pytest.mark.asyncio
async def test_queries_and_guild_isolation(service: MatchService) -> None:
    update = await start(service, "backgammon")
    await service.handle(SetThread(update.match_id, 999))
    assert (await service.handle(MatchInThread(999))).match_id == update.match_id  # type: ignore[union-attr]
    assert [v.match_id for v in await service.handle(CandidateMatches(GUILD, 999, ALICE))] == [
        update.match_id
    ]
    assert await service.handle(CandidateMatches(GUILD, 999, CAROL)) == []
    assert [v.match_id for v in await service.handle(ActiveMatches(GUILD, BOB))] == [
        update.match_id
    ]
    assert await service.handle(ActiveMatches(OTHER_GUILD, BOB)) == []
    mover = user_on(update)
    moves = await service.handle(LegalMoves(update.match_id, GUILD, mover, "", limit=25))
    assert 0 < len(moves) <= 25 and list(moves) == list(update.view.legal_moves[:25])
    every = await service.handle(LegalMoves(update.match_id, GUILD, mover, ""))  # no limit: all
    assert every == list(update.view.legal_moves)
    assert await service.handle(LegalMoves(update.match_id, GUILD, mover, "", limit=1)) == moves[:1]
    prefix = moves[0][:2]
    assert all(
        prefix in m for m in await service.handle(LegalMoves(update.match_id, GUILD, mover, prefix))
    )
    waiter = BOB if mover == ALICE else ALICE
    assert await service.handle(LegalMoves(update.match_id, GUILD, waiter, "")) == []
    with pytest.raises(NotFoundError):
        await service.handle(LegalMoves(update.match_id, OTHER_GUILD, mover, ""))
    with pytest.raises(NotFoundError):
        await service.handle(Export(update.match_id, OTHER_GUILD))
    await service.handle(LeaveMatch(update.match_id, GUILD, ALICE))
    assert [r.user_id for r in await service.handle(Leaderboard(GUILD, "backgammon"))] == [
        BOB,
        ALICE,
    ]
    assert await service.handle(Leaderboard(OTHER_GUILD, "backgammon")) == []
    assert await service.handle(History(OTHER_GUILD, ALICE)) == []
    assert (await service.handle(Stats(OTHER_GUILD, BOB, "backgammon"))).played == 0


@pytest.mark.asyncio
async def test_verify_counts_every_die_drawn(service: MatchService) -> None:
    """A die drawn from the seed but missing from the log (a hidden re-roll) fails /verify,
    even though every die shown follows from the seed."""
    update = await start(service, "backgammon", length=3)
    mid = update.match_id
    await service.handle(LeaveMatch(mid, GUILD, BOB))
    report = await service.handle(VerifyMatch(mid, GUILD))
    assert report.ok is True and report.drawn == len(report.dice) >= 2
    await sql_write(  # tampering, as someone with the database could
        service.store, "UPDATE matches SET dice_counter = dice_counter + 1 WHERE id = ?", (mid,)
    )
    report = await service.handle(VerifyMatch(mid, GUILD))
    assert report.ok is False
    assert verify_text(report) == (
        f"The dice of match #{mid} do NOT check out: {len(report.dice) + 1} dice were drawn "
        f"from seed {report.seed}, but the log shows {len(report.dice)}."
    )
