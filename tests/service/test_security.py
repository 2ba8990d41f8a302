"""Security: the authorization matrix, per-guild isolation, rate limiting and the token.

The matrix runs every action for every role against the match service (the only code that changes
state): the player it belongs to, their opponent, a third member of the server, a member of
another server, and one of the players acting from another server. Each cell is allowed (the
version moves on) or refused with the right error and message, and a refusal changes nothing in
the database. /config's Manage Server check lives in the Discord adapter and is tested with the
admin cog's own callback.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from support.db import sql_rows, table_names
from support.wording import refused

from bot.service import (
    AcceptChallenge,
    AcceptResignation,
    ActiveMatches,
    AgreeDraw,
    CancelChallenge,
    CandidateMatches,
    ClaimWin,
    DeclineChallenge,
    Export,
    GetChallenge,
    GetSettings,
    History,
    Leaderboard,
    LeaveMatch,
    LegalMoves,
    MatchService,
    MatchView,
    NewChallenge,
    NotFoundError,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    ProposeDraw,
    RecordShout,
    Refusal,
    Rematch,
    RollDice,
    StaleActionError,
    Stats,
    TakeDouble,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from engines.base import GameKind, Phase
from engines.dice import FairDice
from engines.errors import GameError, NotYourTurnError

G1, G2 = 111, 222
ALICE, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004  # Carol is a third member of G1; Dave is in G2
NAMES = {ALICE: "alice", BOB: "bob", CAROL: "carol", DAVE: "dave"}
CHANNEL = 555


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def seeded_dice(seed: int = 7) -> Callable[[], FairDice]:
    counter = iter(range(seed, seed + 10_000))
    return lambda: FairDice(next(counter).to_bytes(32, "big"))


@pytest_asyncio.fixture
async def svc(store_target: str | Path) -> AsyncIterator[MatchService]:
    service = await MatchService.open(store_target, dice_factory=seeded_dice(), clock=Clock())
    # Deterministic states: nothing is rolled or moved for the players.
    for guild in (G1, G2):
        await service.handle(UpdateSettings(guild, {"auto_roll": False, "auto_move": False}))
    try:
        yield service
    finally:
        await service.close()


async def db_state(svc: MatchService) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table: a refusal must leave all of them as they were."""
    return {
        table: [tuple(row) for row in await sql_rows(svc.store, f"SELECT * FROM {table}")]
        for table in await table_names(svc.store)
    }


async def start(
    svc: MatchService, game: str = "nannon", guild: int = G1, length: int = 3
) -> MatchView:
    challenge = await svc.handle(
        NewChallenge(
            guild,
            CHANNEL,
            ALICE,
            "alice",
            game,
            opponent_id=BOB,
            opponent_name="bob",
            length=length,
        )
    )
    return (await svc.handle(AcceptChallenge(challenge.id, guild, BOB, "bob"))).view


def uid(view: MatchView, seat: int) -> int:
    return view.players[seat].user_id


async def step(svc: MatchService, view: MatchView) -> MatchView:
    """One natural action by whoever the match waits for (roll, first legal move, take)."""
    gid, mid = view.guild_id, view.match_id
    if view.phase in (Phase.OPENING, Phase.OPENING_TIE):
        return (await svc.handle(RollDice(mid, gid, uid(view, 0)))).view
    actor = uid(view, view.actor if view.actor is not None else view.turn)
    if view.phase is Phase.ROLL:
        return (await svc.handle(RollDice(mid, gid, actor))).view
    if view.phase is Phase.MOVE:
        return (await svc.handle(PlayMove(mid, gid, actor, view.legal_moves[0]))).view
    if view.phase is Phase.CUBE_OFFERED:
        return (await svc.handle(TakeDouble(mid, gid, actor))).view
    if view.phase is Phase.RESIGN_OFFERED:
        return (await svc.handle(AcceptResignation(mid, gid, actor))).view
    if view.phase is Phase.DRAW_OFFERED:
        return (await svc.handle(AgreeDraw(mid, gid, actor))).view
    raise AssertionError(f"no step from {view.phase}")


async def until(
    svc: MatchService, view: MatchView, phase: Phase, *, can_double: bool = False
) -> MatchView:
    for _ in range(500):
        if view.phase is phase and (not can_double or view.can_double[view.turn]):
            return view
        view = await step(svc, view)
    raise AssertionError(f"never reached {phase}")


async def play_out(svc: MatchService, view: MatchView) -> MatchView:
    for _ in range(5000):
        if view.match_over:
            return view
        view = await step(svc, view)
    raise AssertionError("the match did not finish")


# --- the matrix ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scene:
    """A state, the id the action applies to, and who plays each role in it."""

    target: int  # a match id, or a challenge id for cancel
    owner: int  # the user the action belongs to
    other: int  # the other player (or the named opponent, for a challenge)


Setup = Callable[[MatchService], Awaitable[Scene]]
Action = Callable[[MatchService, int, int, int], Awaitable[Any]]


async def scene_roll(svc: MatchService) -> Scene:
    view = await until(svc, await start(svc), Phase.ROLL, can_double=True)
    return Scene(view.match_id, uid(view, view.turn), uid(view, 1 - view.turn))


async def scene_move(svc: MatchService) -> Scene:
    view = await until(svc, await start(svc), Phase.MOVE)
    return Scene(view.match_id, uid(view, view.turn), uid(view, 1 - view.turn))


async def scene_doubled(svc: MatchService) -> Scene:
    view = await until(svc, await start(svc), Phase.ROLL, can_double=True)
    doubler = uid(view, view.turn)
    view = (await svc.handle(OfferDouble(view.match_id, G1, doubler))).view
    assert view.phase is Phase.CUBE_OFFERED
    return Scene(view.match_id, uid(view, 1 - view.turn), doubler)


async def scene_resigned(svc: MatchService) -> Scene:
    view = await until(svc, await start(svc), Phase.ROLL)
    resigner = uid(view, view.turn)
    view = (await svc.handle(OfferResignation(view.match_id, G1, resigner))).view
    assert view.phase is Phase.RESIGN_OFFERED
    return Scene(view.match_id, uid(view, 1 - view.turn), resigner)


async def scene_checkers(svc: MatchService) -> Scene:
    view = await start(svc, "checkers", length=1)
    return Scene(view.match_id, uid(view, view.turn), uid(view, 1 - view.turn))


async def scene_draw_offered(svc: MatchService) -> Scene:
    view = await start(svc, "checkers", length=1)
    offerer = uid(view, view.turn)
    view = (await svc.handle(ProposeDraw(view.match_id, G1, offerer))).view
    assert view.phase is Phase.DRAW_OFFERED
    return Scene(view.match_id, uid(view, 1 - view.turn), offerer)


async def scene_idle(svc: MatchService) -> Scene:
    view = await until(svc, await start(svc), Phase.ROLL)
    settings = await svc.handle(GetSettings(G1))
    svc.clock.now += settings.claim_minutes * 60 + 1  # type: ignore[attr-defined]  # a Clock
    # The claim belongs to the player who waits; the idle one is the "other".
    return Scene(view.match_id, uid(view, 1 - view.turn), uid(view, view.turn))


async def scene_challenge(svc: MatchService) -> Scene:
    challenge = await svc.handle(
        NewChallenge(G1, CHANNEL, ALICE, "alice", "nannon", opponent_id=BOB, opponent_name="bob")
    )
    return Scene(challenge.id, ALICE, BOB)


async def scene_finished(svc: MatchService) -> Scene:
    view = await start(svc)
    await svc.handle(LeaveMatch(view.match_id, G1, ALICE))
    return Scene(view.match_id, ALICE, BOB)


async def do_move(svc: MatchService, mid: int, gid: int, user: int) -> Any:
    view = await svc.handle(ViewMatch(mid))
    return await svc.handle(PlayMove(mid, gid, user, view.legal_moves[0]))


ACTIONS: dict[str, tuple[Setup, Action]] = {
    "roll": (scene_roll, lambda s, m, g, u: s.handle(RollDice(m, g, u))),
    "move": (scene_move, do_move),
    "double": (scene_roll, lambda s, m, g, u: s.handle(OfferDouble(m, g, u))),
    "take": (scene_doubled, lambda s, m, g, u: s.handle(TakeDouble(m, g, u))),
    "pass": (scene_doubled, lambda s, m, g, u: s.handle(PassDouble(m, g, u))),
    "resign": (scene_roll, lambda s, m, g, u: s.handle(OfferResignation(m, g, u))),
    "resign-accept": (scene_resigned, lambda s, m, g, u: s.handle(AcceptResignation(m, g, u))),
    "leave": (scene_move, lambda s, m, g, u: s.handle(LeaveMatch(m, g, u))),
    "draw": (scene_checkers, lambda s, m, g, u: s.handle(ProposeDraw(m, g, u))),
    "draw-accept": (scene_draw_offered, lambda s, m, g, u: s.handle(AgreeDraw(m, g, u))),
    "claim": (scene_idle, lambda s, m, g, u: s.handle(ClaimWin(m, g, u))),
    "export": (scene_finished, lambda s, m, g, u: s.handle(Export(m, g))),
    "verify": (scene_finished, lambda s, m, g, u: s.handle(VerifyMatch(m, g))),
    "rematch": (scene_finished, lambda s, m, g, u: s.handle(Rematch(m, g, u))),
    "cancel": (scene_challenge, lambda s, c, g, u: s.handle(CancelChallenge(c, g, u))),
    "decline": (scene_challenge, lambda s, c, g, u: s.handle(DeclineChallenge(c, g, u))),
    "accept": (scene_challenge, lambda s, c, g, u: s.handle(AcceptChallenge(c, g, u, NAMES[u]))),
}

OK = "allowed"
NOT_HERE_MATCH = (NotFoundError, Refusal.NO_SUCH_MATCH, r"There is no match #\d+ in this server")
NOT_HERE_CHALLENGE = (
    NotFoundError,
    Refusal.NO_SUCH_CHALLENGE,
    r"There is no challenge #\d+ in this server",
)
NOT_PLAYING = (NotYourTurnError, Refusal.NOT_A_PLAYER, r"You are not playing in match #\d+")
THEIR_TURN = (NotYourTurnError, Refusal.NOT_YOUR_TURN, r"It's (alice|bob)'s turn")

# role -> (user, guild) is resolved per scene: "owner" and "other" are the scene's two players.
ROLES = ("owner", "other", "third", "outsider", "owner-elsewhere")

MATRIX: dict[str, dict[str, Any]] = {
    "roll": {"owner": OK, "other": THEIR_TURN, "third": NOT_PLAYING},
    "move": {"owner": OK, "other": THEIR_TURN, "third": NOT_PLAYING},
    "double": {"owner": OK, "other": THEIR_TURN, "third": NOT_PLAYING},
    "take": {
        "owner": OK,
        "other": (
            NotYourTurnError,
            Refusal.OWN_DOUBLE,
            r"Only (alice|bob) can take or pass your double",
        ),
        "third": NOT_PLAYING,
    },
    "pass": {
        "owner": OK,
        "other": (
            NotYourTurnError,
            Refusal.OWN_DOUBLE,
            r"Only (alice|bob) can take or pass your double",
        ),
        "third": NOT_PLAYING,
    },
    # Resigning or leaving only ever costs the one who does it: allowed on either turn.
    "resign": {"owner": OK, "other": OK, "third": NOT_PLAYING},
    "resign-accept": {
        "owner": OK,
        "other": (
            NotYourTurnError,
            "own_resignation",
            r"opponent must accept or decline your resignation",
        ),
        "third": NOT_PLAYING,
    },
    "leave": {"owner": OK, "other": OK, "third": NOT_PLAYING},
    "draw": {"owner": OK, "other": OK, "third": NOT_PLAYING},
    "draw-accept": {
        "owner": OK,
        "other": (NotYourTurnError, "own_draw_offer", r"draw offer is waiting for your opponent"),
        "third": NOT_PLAYING,
    },
    "claim": {
        "owner": OK,
        "other": (
            NotYourTurnError,
            Refusal.CLAIM_OWN_WAIT,
            r"The match is waiting for you: you can't claim it",
        ),
        "third": NOT_PLAYING,
    },
    # A finished match is public in its own server, to anyone there.
    "export": {"owner": OK, "other": OK, "third": OK},
    "verify": {"owner": OK, "other": OK, "third": OK},
    "rematch": {"owner": OK, "other": OK, "third": NOT_PLAYING},
    "cancel": {
        "owner": OK,
        "other": (
            NotYourTurnError,
            Refusal.ONLY_CHALLENGER_CANCELS,
            r"Only alice can cancel this challenge",
        ),
        "third": (
            NotYourTurnError,
            Refusal.ONLY_CHALLENGER_CANCELS,
            r"Only alice can cancel this challenge",
        ),
    },
    "decline": {
        "owner": (
            NotYourTurnError,
            Refusal.ONLY_OPPONENT_DECLINES,
            r"Only bob can decline this challenge",
        ),
        "other": OK,
        "third": (
            NotYourTurnError,
            Refusal.ONLY_OPPONENT_DECLINES,
            r"Only bob can decline this challenge",
        ),
    },
    "accept": {
        "owner": (GameError, Refusal.OWN_CHALLENGE, r"You can't play against yourself"),
        "other": OK,
        "third": (NotYourTurnError, Refusal.CHALLENGE_FOR_OTHER, r"This challenge is for bob"),
    },
}
for _action, _cells in MATRIX.items():
    _missing = NOT_HERE_CHALLENGE if _action in ("cancel", "decline", "accept") else NOT_HERE_MATCH
    _cells.setdefault("outsider", _missing)
    _cells.setdefault("owner-elsewhere", _missing)


def _who(role: str, scene: Scene) -> tuple[int, int]:
    return {
        "owner": (scene.owner, G1),
        "other": (scene.other, G1),
        "third": (CAROL, G1),
        "outsider": (DAVE, G2),
        "owner-elsewhere": (scene.owner, G2),
    }[role]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(MATRIX))
@pytest.mark.asyncio
async def test_authorization_matrix(svc: MatchService, action: str, role: str) -> None:
    setup, act = ACTIONS[action]
    scene = await setup(svc)
    user, guild = _who(role, scene)
    expected = MATRIX[action][role]
    before = await db_state(svc)
    if expected == OK:
        await act(svc, scene.target, guild, user)
        if action not in ("export", "verify"):
            assert await db_state(svc) != before, "an allowed action changed nothing"
        return
    error, code, message = expected
    with refused(error, code, match=message):
        await act(svc, scene.target, guild, user)
    assert await db_state(svc) == before, "a refusal changed the database"


def test_matrix_covers_every_action_and_role() -> None:
    required = {"roll", "move", "double", "take", "pass", "resign", "draw", "claim", "export"}
    assert required | {"cancel"} <= set(MATRIX)
    for action, cells in MATRIX.items():
        assert set(cells) == set(ROLES), action


@pytest.mark.asyncio
async def test_claim_before_the_claim_time_is_refused(svc: MatchService) -> None:
    view = await until(svc, await start(svc), Phase.ROLL)
    waiting = uid(view, 1 - view.turn)
    before = await db_state(svc)
    with refused(
        GameError, Refusal.CLAIM_TOO_EARLY, match=r"idle for 1440 minutes: \d+ more to go"
    ):
        await svc.handle(ClaimWin(view.match_id, G1, waiting))
    assert await db_state(svc) == before


@pytest.mark.asyncio
async def test_stale_version_is_refused_for_every_player_action(svc: MatchService) -> None:
    view = await until(svc, await start(svc), Phase.ROLL, can_double=True)
    actor = uid(view, view.turn)
    stale = view.version - 1
    before = await db_state(svc)
    for command in (RollDice, OfferDouble, OfferResignation, LeaveMatch, ClaimWin):
        with refused(StaleActionError, Refusal.STALE_BOARD, match="out of date"):
            await svc.handle(command(view.match_id, G1, actor, expected_version=stale))
    assert await db_state(svc) == before


@pytest.mark.asyncio
async def test_a_finished_match_refuses_every_action(svc: MatchService) -> None:
    scene = await scene_finished(svc)
    before = await db_state(svc)
    for command in (RollDice, OfferDouble, TakeDouble, PassDouble, OfferResignation, ClaimWin):
        with refused(GameError, Refusal.MATCH_OVER, match="is over"):
            await svc.handle(command(scene.target, G1, ALICE))
    assert await db_state(svc) == before


# --- per-guild isolation --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_guilds_never_see_each_others_data(svc: MatchService) -> None:
    # The same two people play in both servers; Carol and Dave play only in G2.
    one = await play_out(svc, await start(svc, guild=G1, length=1))
    two = await play_out(svc, await start(svc, guild=G2, length=3))
    challenge = await svc.handle(
        NewChallenge(
            G2, CHANNEL, CAROL, "carol", "nannon", opponent_id=DAVE, opponent_name="dave", length=1
        )
    )
    three = await play_out(
        svc, (await svc.handle(AcceptChallenge(challenge.id, G2, DAVE, "dave"))).view
    )
    active = await start(svc, guild=G2)

    board1 = await svc.handle(Leaderboard(G1, GameKind.NANNON))
    assert {row.user_id for row in board1} == {ALICE, BOB}
    assert sum(row.won for row in board1) == 1 and sum(row.lost for row in board1) == 1
    board2 = await svc.handle(Leaderboard(G2, GameKind.NANNON))
    assert {row.user_id for row in board2} == {ALICE, BOB, CAROL, DAVE}
    assert sum(row.won for row in board2) == 2
    assert await svc.handle(Leaderboard(G1, GameKind.NANNON, 3)) == []
    assert await svc.handle(Leaderboard(333, GameKind.NANNON)) == []

    for user in (ALICE, BOB):
        stats1 = await svc.handle(Stats(G1, user, GameKind.NANNON))
        stats2 = await svc.handle(Stats(G2, user, GameKind.NANNON))
        assert stats1.played == 1 and stats2.played == 1
        assert {h.match_id for h in await svc.handle(History(G1, user))} == {one.match_id}
        assert {h.match_id for h in await svc.handle(History(G2, user))} == {
            two.match_id,
            active.match_id,
        }
        assert [v.match_id for v in await svc.handle(ActiveMatches(G1, user))] == []
        assert [v.match_id for v in await svc.handle(CandidateMatches(G1, CHANNEL, user))] == []
    assert (await svc.handle(Stats(G1, CAROL, GameKind.NANNON))).played == 0
    assert await svc.handle(History(G1, DAVE)) == []

    for match_id in (two.match_id, three.match_id, active.match_id):
        for query in (Export, VerifyMatch, ViewMatch):
            with pytest.raises(NotFoundError):
                await svc.handle(query(match_id, G1))
        with pytest.raises(NotFoundError):
            await svc.handle(LegalMoves(match_id, G1, ALICE))
        with pytest.raises(NotFoundError):
            await svc.handle(Rematch(match_id, G1, ALICE))
    assert (await svc.handle(Export(one.match_id, G1))).filename.endswith(".mat")
    with pytest.raises(NotFoundError):
        await svc.handle(Export(one.match_id, G2))
    with pytest.raises(NotFoundError):
        await svc.handle(RecordShout(two.match_id, G1, ALICE))
    with pytest.raises(NotFoundError):
        await svc.handle(GetChallenge(challenge.id, G1))


@pytest.mark.asyncio
async def test_guild_settings_are_per_guild(svc: MatchService) -> None:
    await svc.handle(UpdateSettings(G2, {"nannon_length": 7, "rate_limit_actions": 3}))
    assert (await svc.handle(GetSettings(G2))).nannon_length == 7
    assert (await svc.handle(GetSettings(G1))).nannon_length == 11
    assert (await svc.handle(GetSettings(G1))).rate_limit_actions == 20


# --- /config: Manage Server, checked at run time --------------------------------------------


class _Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content: str = "", **kwargs: Any) -> None:
        self.sent.append((content, kwargs))


class _User:
    def __init__(self, user_id: int) -> None:
        self.id = user_id


class StubInteraction:
    """Just what the admin cog reads: guild, caller, the caller's resolved permissions."""

    def __init__(self, guild_id: int, user_id: int, *, manage_guild: bool) -> None:
        import discord

        self.guild_id = guild_id
        self.channel_id = CHANNEL
        self.user = _User(user_id)
        self.permissions = discord.Permissions(manage_guild=manage_guild)
        self.response = _Response()
        self.followup = _Response()
        self.data: dict[str, Any] = {}
        self.id = 1
        self.type = discord.InteractionType.application_command


class _Bot:
    def __init__(self, service: MatchService) -> None:
        from bot.discord.ratelimit import CommandRateLimit, guild_limits

        self.service = service
        self.rate_limit = CommandRateLimit(guild_limits(service))


async def run_command(command: Any, cog: Any, interaction: Any, **options: Any) -> None:
    """Run an app command's callback as the bot's command tree does: an error it raises ends
    in the tree's one error path (TableTree.on_error -> report_error), which answers it."""
    from bot.discord.replies import report_error

    try:
        await command.callback(cog, interaction, **options)
    except Exception as exc:
        await report_error(interaction, exc)


@pytest.mark.parametrize(
    ("manage_guild", "administrator", "allowed"),
    [(True, False, True), (False, True, True), (False, False, False)],
)
@pytest.mark.asyncio
async def test_config_needs_manage_server_at_run_time(
    svc: MatchService, manage_guild: bool, administrator: bool, allowed: bool
) -> None:
    from bot.discord.cogs.admin import NOT_MANAGER, AdminCog

    cog = AdminCog(_Bot(svc))  # type: ignore[arg-type]
    interaction = StubInteraction(G1, CAROL, manage_guild=manage_guild)
    interaction.permissions.administrator = administrator
    before = await db_state(svc)
    await run_command(AdminCog.lengths, cog, interaction, nannon=5)
    [(content, kwargs)] = interaction.response.sent
    assert kwargs["ephemeral"] is True
    if allowed:
        assert content.startswith("Saved.") and "Nannon 5" in content
        assert (await svc.handle(GetSettings(G1))).nannon_length == 5
    else:
        assert content == NOT_MANAGER
        assert await db_state(svc) == before


@pytest.mark.parametrize(
    "changes",
    [
        {"nannon": 0},
        {"nannon": 26},
        {"backgammon": -1},
        {"checkers": 2**40},
    ],
)
@pytest.mark.asyncio
async def test_config_bad_values_are_refused_and_change_nothing(
    svc: MatchService, changes: dict[str, int]
) -> None:
    from bot.discord.cogs.admin import AdminCog

    cog = AdminCog(_Bot(svc))  # type: ignore[arg-type]
    interaction = StubInteraction(G1, CAROL, manage_guild=True)
    before = await db_state(svc)
    await run_command(AdminCog.lengths, cog, interaction, **changes)
    [(content, kwargs)] = interaction.response.sent
    assert kwargs["ephemeral"] is True
    assert "must be between" in content or "not" in content
    assert await db_state(svc) == before


@pytest.mark.asyncio
async def test_config_claim_shorter_than_reminder_is_refused(svc: MatchService) -> None:
    from bot.discord.cogs.admin import AdminCog

    cog = AdminCog(_Bot(svc))  # type: ignore[arg-type]
    interaction = StubInteraction(G1, CAROL, manage_guild=True)
    before = await db_state(svc)
    await run_command(AdminCog.times, cog, interaction, reminder=120, claim=60)
    [(content, _)] = interaction.response.sent
    assert "claim time must be at least the reminder time" in content
    assert await db_state(svc) == before


# --- rate limiting ------------------------------------------------------------------------


def test_token_bucket_allows_the_burst_then_refuses_until_refilled() -> None:
    from bot.discord.ratelimit import Limit, RateLimiter

    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limit = Limit(actions=5, seconds=10)
    assert [limiter.hit(G1, ALICE, limit) for _ in range(5)] == [0.0] * 5
    wait = limiter.hit(G1, ALICE, limit)
    assert wait == pytest.approx(2.0)  # one token every 2 s
    # Another member, and the same member in another server, have their own buckets.
    assert limiter.hit(G1, BOB, limit) == 0.0
    assert limiter.hit(G2, ALICE, limit) == 0.0
    now[0] = 2.0
    assert limiter.hit(G1, ALICE, limit) == 0.0
    assert limiter.hit(G1, ALICE, limit) > 0.0
    now[0] = 1000.0  # a long pause refills to the cap, not beyond
    assert [limiter.hit(G1, ALICE, limit) for _ in range(6)].count(0.0) == 5


def test_idle_buckets_are_forgotten() -> None:
    from bot.discord.ratelimit import PRUNE_EVERY, Limit, RateLimiter

    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limit = Limit(actions=2, seconds=1)
    for user in range(PRUNE_EVERY - 1):
        limiter.hit(G1, user, limit)
    assert len(limiter) == PRUNE_EVERY - 1
    now[0] = 10.0
    limiter.hit(G1, 10**9, limit)
    assert len(limiter) == 1


@pytest.mark.asyncio
async def test_rate_limit_reads_the_guild_settings(svc: MatchService) -> None:
    from bot.discord.ratelimit import CommandRateLimit, Limit

    async def load(guild_id: int) -> Limit:
        settings = await svc.handle(GetSettings(guild_id))
        return Limit(settings.rate_limit_actions, settings.rate_limit_seconds)

    now = [0.0]
    limits = CommandRateLimit(load, clock=lambda: now[0])
    await svc.handle(UpdateSettings(G2, {"rate_limit_actions": 2, "rate_limit_seconds": 60}))
    assert [await limits.retry_after(G2, ALICE) for _ in range(3)][:2] == [0.0, 0.0]
    assert await limits.retry_after(G2, ALICE) == pytest.approx(30.0)
    assert [await limits.retry_after(G1, ALICE) for _ in range(20)] == [0.0] * 20
    assert await limits.retry_after(G1, ALICE) > 0
    # A /config change takes effect once the cache is invalidated (the admin cog does it).
    await svc.handle(UpdateSettings(G2, {"rate_limit_actions": 100}))
    limits.invalidate(G2)
    assert (await limits.limit_for(G2)).actions == 100


def test_refusal_text() -> None:
    from bot.discord.ratelimit import refusal_text

    assert refusal_text(0.2) == (
        "Slow down: you're sending commands too fast. Try again in 1 second."
    )
    assert refusal_text(29.1).endswith("in 30 seconds.")


# --- the token ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_token_never_appears_in_logs_or_exceptions(
    store_target: str | Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Log in with a wrong token against the fake Discord, which answers 401."""
    import discord
    from discord.http import Route
    from fakediscord import FakeDiscord

    from bot.config import Settings
    from bot.discord.app import create_bot

    secret = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Fz1.SECRETsecretSECRETsecret0123456789ab"
    settings = Settings(token=secret, db_path=store_target, dev_guild_id=None, log_level="DEBUG")
    assert secret not in repr(settings) and secret not in str(settings)
    fake = FakeDiscord()
    await fake.start_server()
    saved = Route.BASE
    caplog.set_level(logging.DEBUG)
    try:
        Route.BASE = f"{fake.base_url}/api/v10"
        bot = create_bot(settings)
        try:
            with pytest.raises(discord.LoginFailure) as caught:
                await bot.login(settings.token)
        finally:
            await bot.close()
    finally:
        Route.BASE = saved
        await fake.stop_server()
    assert any(call.status == 401 for call in fake.calls)
    texts = [str(caught.value), repr(caught.value), repr(caught.value.__cause__)]
    texts += [caplog.text]
    texts += [record.getMessage() for record in caplog.records]
    texts += [repr(record.args) for record in caplog.records]
    pieces = [secret, *secret.split(".")]
    for text in texts:
        for piece in pieces:
            assert piece not in text


# --- double clicks --------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("phase", [Phase.ROLL, Phase.MOVE])
async def test_ten_simultaneous_identical_clicks_apply_exactly_once(
    svc: MatchService, phase: Phase
) -> None:
    import asyncio

    view = await until(svc, await start(svc), phase)
    actor = uid(view, view.turn)
    if phase is Phase.ROLL:
        clicks = [
            svc.handle(RollDice(view.match_id, G1, actor, expected_version=view.version))
            for _ in range(10)
        ]
    else:
        move = view.legal_moves[0]
        clicks = [
            svc.handle(PlayMove(view.match_id, G1, actor, move, expected_version=view.version))
            for _ in range(10)
        ]
    events_before = await svc.store.event_count(view.match_id)
    outcomes = await asyncio.gather(*clicks, return_exceptions=True)
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    refused = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(applied) == 1
    assert all(isinstance(r, StaleActionError) for r in refused), refused
    after = await svc.handle(ViewMatch(view.match_id, G1))
    assert after.version == view.version + 1
    # One action's events (the roll or move, plus any automatic step), not ten.
    new_events = (await svc.store.events(view.match_id))[events_before:]
    kinds = [e.kind for e in new_events]
    assert kinds.count("roll" if phase is Phase.ROLL else "move") == 1, kinds
