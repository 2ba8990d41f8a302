"""Bad input: hypothesis over every free-text input the service takes from users.

`/move` text, autocomplete text, `/config` values and match ids get huge strings, control
characters, markdown and mention injection, unicode, negative and huge numbers, and notation for
the wrong game. The only outcomes allowed are a clear refusal (a GameError with a short message)
or the right move; no other exception escapes, and a refusal leaves the database as it was.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support.db import sql_rows

from bot.discord.wording import refusal_text
from bot.service import (
    AcceptChallenge,
    AcceptResignation,
    ActiveMatches,
    AgreeDraw,
    CancelChallenge,
    ClaimWin,
    DeclineChallenge,
    DeclineResignation,
    Export,
    GetChallenge,
    GetSettings,
    GuildSettings,
    LeaveMatch,
    LegalMoves,
    MatchInThread,
    MatchService,
    MatchView,
    NewChallenge,
    NotFoundError,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    ProposeDraw,
    Refusal,
    RefuseDraw,
    Rematch,
    RollDice,
    TakeDouble,
    UpdateSettings,
    VerifyMatch,
    ViewMatch,
)
from engines import replay
from engines.actions import Move as MoveAction
from engines.base import Phase
from engines.dice import FairDice
from engines.errors import GameError
from engines.match import is_no_move

G1, G2 = 11, 22
ALICE, BOB, CAROL = 101, 102, 103
CHANNEL = 7

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

NOTATION = [
    # every game's notation, so each game also sees the others'
    "H/3", "2/5*", "5/S", "1/7", "h/s", "24/18 13/11", "bar/22", "6/off", "8/5(2)", "24/21*",
    "25/0", "13/7 8/7", "11-15", "22x15x8", "22x8", "9-14", "32-28", "1x10", "0-0", "33-37",
]  # fmt: skip
HOSTILE = [
    "@everyone", "@here", "<@&123456789012345678>", "<@101>", "<#7>", "**bold**", "__u__",
    "`code`", "```py\nx```", "||spoiler||", "> quote", "[link](https://example.com)", "\\",
    "\u202e", "\u200b", "\ufeff", "🎲", "\uff11\uff11\uff0d\uff15", "٢٤/١٨",
    "\uff42\uff41\uff52/22", "NaN", "inf", "-0",
    "1e9", "None", "null", "'; DROP TABLE events; --", "%s%s%n", "{0}", "\x00", "\r\n", "\t",
]  # fmt: skip

tokens = st.sampled_from(NOTATION + HOSTILE)
hostile_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(max_codepoint=0x1F), max_size=20),
    st.text(st.characters(min_codepoint=0x300, max_codepoint=0x36F), max_size=20),
    tokens,
    st.lists(tokens, max_size=6).map(" ".join),
    st.lists(tokens, max_size=6).map("".join),
    st.integers(-(10**30), 10**30).map(str),
    st.builds(lambda s, n: s * n, st.text(min_size=1, max_size=4), st.integers(1, 30_000)),
)
# SQLite integers are 64-bit; Discord's integer options stop at 2**53.
SQLITE_MAX = 2**63 - 1
huge_ids = st.one_of(
    st.integers(-SQLITE_MAX - 1, SQLITE_MAX),
    st.sampled_from([0, -1, 1, 2, 2**31, 2**53 - 1, 2**53, SQLITE_MAX, -SQLITE_MAX - 1]),
)


@pytest_asyncio.fixture
async def svc(store_target: str | Path) -> AsyncIterator[MatchService]:
    service = await MatchService.open(store_target, dice_factory=FairDice.new)
    for guild in (G1, G2):
        await service.handle(UpdateSettings(guild, {"auto_roll": False, "auto_move": False}))
    try:
        yield service
    finally:
        await service.close()


async def match_state(svc: MatchService, match_id: int) -> list[Any]:
    """Everything an action on ``match_id`` may write, plus the shared tables."""
    state: list[Any] = []
    for sql in (
        "SELECT * FROM matches WHERE id = ?",
        "SELECT * FROM events WHERE match_id = ? ORDER BY seq",
        "SELECT * FROM snapshots WHERE match_id = ?",
        "SELECT * FROM game_results WHERE match_id = ?",
    ):
        state.append([tuple(r) for r in await sql_rows(svc.store, sql, (match_id,))])
    for sql in (
        "SELECT * FROM ratings",
        "SELECT * FROM guild_settings",
        "SELECT * FROM challenges",
    ):
        state.append([tuple(r) for r in await sql_rows(svc.store, sql)])
    return state


async def match_at_move(svc: MatchService, game: str) -> MatchView:
    """A fresh match in the MOVE phase (a roll made for dice games)."""
    length = 1 if game != "nannon" else 3
    challenge = await svc.handle(
        NewChallenge(
            G1, CHANNEL, ALICE, "alice", game, opponent_id=BOB, opponent_name="bob", length=length
        )
    )
    view = (await svc.handle(AcceptChallenge(challenge.id, G1, BOB, "bob"))).view
    for _ in range(50):
        if view.phase is Phase.MOVE:
            return view
        actor = view.actor if view.actor is not None else view.turn
        view = (await svc.handle(RollDice(view.match_id, G1, view.players[actor].user_id))).view
    raise AssertionError("no move phase")


def assert_clear_refusal(exc: BaseException) -> None:
    assert isinstance(exc, GameError), f"{type(exc).__name__}: {exc!r}"
    message = refusal_text(exc)
    assert message.strip(), "a refusal without a message"
    assert len(message) <= 1000, "a refusal message too long to show"


def respell(move: str, game: str, rng: random.Random) -> str:
    """Another way of writing the legal ``move`` that its game's notation documents as the same
    move: any case and spacing, and per game the other names of places, the other separators,
    another order, the hit's ``*`` left out. ``rng`` comes from a seed hypothesis draws first in
    every example: the move depends on the match's dice, so drawing per choice from hypothesis
    would draw differently when it replays an example."""
    if is_no_move(move):
        return rng.choice(["No Move", "NO MOVE", "no  move", "nomove"])
    if game == "nannon":  # H/home/0 and S/safety/off/7, "/" or "-", the "*" optional
        src, dst = move.rstrip("*").split("/")
        names = {"H": ["H", "h", "home", "HOME", "0"], "S": ["S", "s", "safety", "off", "7"]}
        src = rng.choice(names.get(src, [src]))
        dst = rng.choice(names.get(dst, [dst]))
        hit = rng.choice(["", "*", " *"] if move.endswith("*") else [""])
        return src + rng.choice(["/", "-", " / ", " - "]) + dst + hit
    if game == "backgammon":  # moves in any order, "*" optional, bar/off any case, commas
        parts = rng.sample(move.split(), len(move.split()))
        parts = [rng.choice([p, p.replace("*", "")]) for p in parts]
        parts = [rng.choice([p, p.upper(), p.title()]) for p in parts]
        return rng.choice([" ", "  ", ", ", ",", "\t"]).join(parts)
    return rng.choice([move, move.upper()])  # checkers: 22X15x8 is 22x15x8


# What the fuzzed /move text is, each kind as likely: hostile text, notation of any game, or
# (how to write it, which legal move), the index taken modulo the number of legal moves once
# the match is there.
move_inputs: st.SearchStrategy[Any] = st.sampled_from(
    [
        hostile_text,
        st.sampled_from(NOTATION),
        st.tuples(st.just("listed"), st.integers(0, 24)),
        st.tuples(st.just("respelled"), st.integers(0, 24)),
    ]
).flatmap(lambda kind: kind)


async def payloads(svc: MatchService, match_id: int) -> list[dict[str, Any]]:
    return [e.payload for e in await svc.store.events(match_id)]


@pytest.mark.asyncio
@FUZZ
@given(
    game=st.sampled_from(["nannon", "backgammon", "checkers"]),
    given_text=move_inputs,
    spacing=st.sampled_from(["", " ", "  ", "\t", " \n"]),
    data=st.data(),
)
async def test_move_text_is_refused_clearly_or_plays_the_right_move(
    svc: MatchService,
    game: str,
    given_text: str | tuple[str, int],
    spacing: str,
    data: st.DataObject,
) -> None:
    # Drawn first, always: nothing drawn may depend on the match (its dice are random).
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="respelling seed"))
    view = await match_at_move(svc, game)
    meant: str | None = None  # the legal move the text stands for, when it was made from one
    if isinstance(given_text, tuple):
        how, index = given_text
        meant = view.legal_moves[index % len(view.legal_moves)]
        written = meant if how == "listed" else respell(meant, game, rng)
        text = spacing + written + spacing
    else:
        text = given_text
    seat, actor = view.turn, view.players[view.turn].user_id
    log = await payloads(svc, view.match_id)
    engine = replay(view.kind, view.rules, log)  # the match before, rebuilt from its log
    assert engine.position_id == view.position_id
    before = await match_state(svc, view.match_id)
    try:
        update = await svc.handle(PlayMove(view.match_id, G1, actor, text))
    except Exception as exc:
        assert_clear_refusal(exc)
        assert meant is None, f"the legal move {meant!r}, written {text!r}, was refused: {exc}"
        assert text.strip() not in view.legal_moves, "a legal move was refused"
        assert await match_state(svc, view.match_id) == before
        event("refused")
        return
    event(f"played ({'made from a legal move' if meant is not None else 'fuzzed text'})")

    # What the text means, by the engine alone: the legal move it was made from, else the
    # engine's own reading of it in the position before.
    if meant is not None:
        [move] = [m for m in engine.legal_moves() if engine.format_move(m) == meant]
    else:
        move = engine.parse_move(text.strip())
    expected = engine.format_move(move)
    engine.apply(MoveAction(seat, expected))
    # What was played: the first event the play logged, replayed on the log before it.
    logged = (await payloads(svc, view.match_id))[len(log) :]
    assert logged, "a move was accepted but nothing was logged"
    assert logged[0] == MoveAction(seat, expected).to_dict(), (text, logged[0])
    played = replay(view.kind, view.rules, [*log, logged[0]])
    assert played.position_id == engine.position_id
    assert played.snapshot() == engine.snapshot()
    assert update.version == view.version + 1
    assert update.view.last_move is not None
    assert (update.view.last_move.seat, update.view.last_move.text) == (seat, expected)
    if meant is not None:
        assert expected == meant


@pytest.mark.asyncio
@FUZZ
@given(
    game=st.sampled_from(["nannon", "backgammon", "checkers"]),
    text=hostile_text,
    who=st.sampled_from(["turn", "other", "third"]),
    limit=st.integers(-5, 100),
)
async def test_autocomplete_text_never_raises_and_only_offers_legal_moves(
    svc: MatchService, game: str, text: str, who: str, limit: int
) -> None:
    view = await match_at_move(svc, game)
    user = {
        "turn": view.players[view.turn].user_id,
        "other": view.players[1 - view.turn].user_id,
        "third": CAROL,
    }[who]
    before = await match_state(svc, view.match_id)
    choices = await svc.handle(LegalMoves(view.match_id, G1, user, text, limit))
    assert set(choices) <= set(view.legal_moves)
    assert len(choices) <= max(0, limit)
    if who != "turn":
        assert choices == []
    assert await match_state(svc, view.match_id) == before
    with pytest.raises(NotFoundError):
        await svc.handle(LegalMoves(view.match_id, G2, user, text))


FIELDS = [f.name for f in dataclasses.fields(GuildSettings)]
config_values = st.one_of(
    st.integers(-(10**20), 10**20),
    st.sampled_from([0, -1, 1, 25, 26, 1000, 1001, 3600, 3601, 43200, 43201, 2**63, 2**64]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
    st.lists(st.one_of(st.integers(-5, 2**65), hostile_text), max_size=30),
    st.sampled_from(["on", "off", "yes", "no", " 5 ", "\uff15", "0x10", "1_000"]),
)


@pytest.mark.asyncio
@FUZZ
@given(
    changes=st.dictionaries(
        st.one_of(st.sampled_from(FIELDS), hostile_text), config_values, min_size=1, max_size=4
    )
)
async def test_config_values_are_validated_or_refused_without_a_change(
    svc: MatchService, changes: dict[str, Any]
) -> None:
    before_settings = await svc.handle(GetSettings(G1))
    before = [tuple(r) for r in await sql_rows(svc.store, "SELECT * FROM guild_settings")]
    try:
        after = await svc.handle(UpdateSettings(G1, {**changes}))
    except Exception as exc:
        assert_clear_refusal(exc)
        assert await svc.handle(GetSettings(G1)) == before_settings
        assert [tuple(r) for r in await sql_rows(svc.store, "SELECT * FROM guild_settings")] == (
            before
        )
        return
    # Accepted: the values are sane, stored, and another server is untouched.
    for name in FIELDS:
        value = getattr(after, name)
        if name == "challenge_channels":
            assert all(isinstance(c, int) and c > 0 for c in value)
        else:
            assert isinstance(value, type(getattr(GuildSettings(), name)))
    assert after.claim_minutes >= after.reminder_minutes
    assert await MatchService(svc.store).handle(GetSettings(G1)) == after
    assert (await svc.handle(GetSettings(G2))).nannon_length == GuildSettings().nannon_length


@pytest.mark.asyncio
@FUZZ
@given(match_id=huge_ids, guild=st.sampled_from([G1, G2]), user=st.sampled_from([ALICE, CAROL]))
async def test_unknown_match_and_challenge_ids_are_refused(
    svc: MatchService, match_id: int, guild: int, user: int
) -> None:
    existing = (await sql_rows(svc.store, "SELECT id FROM matches"))[:]
    if not existing:
        await match_at_move(svc, "nannon")
    known = {r["id"] for r in await sql_rows(svc.store, "SELECT id FROM matches")}
    known_challenges = {r["id"] for r in await sql_rows(svc.store, "SELECT id FROM challenges")}
    calls = [
        lambda: svc.handle(ViewMatch(match_id, guild)),
        lambda: svc.handle(Export(match_id, guild)),
        lambda: svc.handle(VerifyMatch(match_id, guild)),
        lambda: svc.handle(RollDice(match_id, guild, user)),
        lambda: svc.handle(PlayMove(match_id, guild, user, "H/3")),
        lambda: svc.handle(ClaimWin(match_id, guild, user)),
        lambda: svc.handle(LeaveMatch(match_id, guild, user)),
        lambda: svc.handle(LegalMoves(match_id, guild, user, "1")),
        lambda: svc.handle(Rematch(match_id, guild, user)),
    ]
    state = await match_state(svc, 1)
    for call in calls:
        try:
            await call()
        except Exception as exc:
            assert_clear_refusal(exc)
        else:
            assert match_id in known and guild == G1, "an unknown match answered"
    challenge_commands = [
        GetChallenge(match_id, guild),
        CancelChallenge(match_id, guild, user),
        DeclineChallenge(match_id, guild, user),
    ]
    for challenge_command in challenge_commands:
        try:
            await svc.handle(challenge_command)
        except Exception as exc:
            assert_clear_refusal(exc)
        else:
            assert match_id in known_challenges
    if match_id not in known and match_id not in known_challenges:
        assert await match_state(svc, 1) == state


@pytest.mark.asyncio
@pytest.mark.parametrize("match_id", [2**63, 2**64, -(2**63) - 1, 10**30])
async def test_ids_beyond_64_bits_are_refused_as_not_found(
    svc: MatchService, match_id: int
) -> None:
    for query in (ViewMatch, Export, VerifyMatch, GetChallenge):
        with pytest.raises(NotFoundError):
            await svc.handle(query(match_id, G1))
    user = 3
    for action in (CancelChallenge, DeclineChallenge, Rematch):
        with pytest.raises(NotFoundError):
            await svc.handle(action(match_id, G1, user))
    for command in (
        RollDice,
        OfferDouble,
        TakeDouble,
        PassDouble,
        AcceptResignation,
        DeclineResignation,
        ProposeDraw,
        AgreeDraw,
        RefuseDraw,
        LeaveMatch,
        ClaimWin,
    ):
        with pytest.raises(NotFoundError):
            await svc.handle(command(match_id, G1, user))
    with pytest.raises(NotFoundError):
        await svc.handle(AcceptChallenge(match_id, G1, user, "u"))
    with pytest.raises(NotFoundError):
        await svc.handle(PlayMove(match_id, G1, user, "1/off"))
    with pytest.raises(NotFoundError):
        await svc.handle(OfferResignation(match_id, G1, user))
    assert await svc.handle(ActiveMatches(G1, match_id)) == []
    assert await svc.handle(MatchInThread(match_id)) is None


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["guild_id", "self"])
async def test_a_setting_named_like_a_parameter_is_refused_as_unknown(
    svc: MatchService, name: str
) -> None:
    # Found by the fuzz above: "guild_id" collided with the method's own parameter (TypeError).
    before = await svc.handle(GetSettings(G1))
    with pytest.raises(GameError) as refusal:
        await svc.handle(UpdateSettings(G1, {**{name: None}}))
    assert_clear_refusal(refusal.value)
    assert refusal.value.refusal is Refusal.UNKNOWN_SETTING  # type: ignore[attr-defined]
    assert name in refusal_text(refusal.value)
    assert await svc.handle(GetSettings(G1)) == before
