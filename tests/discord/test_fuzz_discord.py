"""Bad input, end to end: hypothesis fuzzes every free-text input a user can send
THROUGH the fake Discord to the real bot.

- ``/move`` text, and the text typed for its autocomplete, in a Nannon, a backgammon and a
  checkers match (so each sees the others' notation);
- ``/config`` values: every integer and boolean option of every subcommand, within what Discord
  delivers (each option's declared min/max, which Discord enforces), and outside it as a client
  bypassing Discord's checks would send them;
- match ids: ``/export`` and ``/verify`` (integer options, up to Discord's 2**53 - 1, and int64
  beyond it with Discord's checks bypassed), and the text typed for their autocomplete.

Inputs: huge strings (up to the 6000 characters of a string option), control characters,
markdown, @everyone/@here/role and user mention injection, unicode (RTL marks, emoji, combining
characters, other digits), notation for the wrong game, negative and huge numbers.

Allowed results, only: an ephemeral refusal with clear text (at most 2000 characters, no live
@everyone, @here, role or user mention, sent with allowed_mentions that ping nobody) after which
the database (match version, events, snapshot, settings) and the public messages are as they
were; or exactly the right result: the move the text means, the settings given, the export of
that match. No ERROR is logged and no exception escapes.

The bot runs once per test; hypothesis drives its examples inside (each reads the match as it is
then, as a played move moves it on).
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any

import pytest
import pytest_asyncio
from fakediscord import Channel, FakeDiscord, InteractionHandle, Member, Message
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support.db import sql_rows
from support.discord_driver import (
    DiceScript,
    footer,
    handlers_done,
    lift_rate_limit,
    reply_to,
    service_of,
)

from bot.discord.app import TableBot
from bot.discord.replies import APOLOGY
from bot.service import (
    AcceptChallenge,
    Export,
    GetSettings,
    History,
    MatchService,
    MatchView,
    NewChallenge,
    UpdateSettings,
    ViewMatch,
)
from engines import replay
from engines.actions import Move as MoveAction
from engines.base import GameKind, Phase
from engines.match import is_no_move

pytestmark = pytest.mark.asyncio

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MAX_STRING = 6000  # Discord's limit for a string option
MAX_INTEGER = 2**53 - 1  # and for an integer option
INT64 = 2**63 - 1
LIVE_MENTION = re.compile(r"@(everyone|here)|<@[!&]?\d")

# --- inputs ----------------------------------------------------------------------------------

NOTATION = [
    # every game's notation, so each game also sees the others'
    "H/3", "2/5*", "5/S", "1/7", "h/s", "home/safety", "24/18 13/11", "bar/22", "6/off",
    "8/5(2)", "24/21*", "25/0", "13/7 8/7", "11-15", "22x15x8", "22x8", "9-14", "32-28",
    "1x10", "0-0", "33-37", "no move", "e2-e4", "O-O-O", "Nf3",
]  # fmt: skip
HOSTILE = [
    "@everyone", "@here", "@everyone @here", "<@&{role}>", "<@{user}>", "<@!{user}>",
    "<#{channel}>", "**bold**", "__u__", "*i*", "~~s~~", "`code`", "```py\nx```", "||spoiler||",
    "> quote", "# heading", "-# small", "[link](https://example.com)", "https://x.y/@everyone",
    "\\", "\u202e", "\u200f", "\u200b", "\ufeff", "\u2028", "🎲", "👨‍👩‍👧", "e\u0301\u0301",
    "\uff11\uff11\uff0d\uff15", "٢٤/١٨", "\uff42\uff41\uff52/22", "NaN", "inf", "-0", "1e9",
    "None", "null", "'; DROP TABLE events; --", "%s%s%n", "{0}", "{play}", "\x00", "\r\n",
    "\t", "\x1b[2J", "\x07", "\x7f",
]  # fmt: skip

tokens = st.sampled_from(NOTATION + HOSTILE)
free_text: st.SearchStrategy[str] = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(max_codepoint=0x1F), max_size=20),
    st.text(st.characters(min_codepoint=0x300, max_codepoint=0x36F), max_size=20),
    st.text(st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF), max_size=20),
    tokens,
    st.lists(tokens, max_size=8).map(" ".join),
    st.lists(tokens, max_size=8).map("".join),
    st.integers(-(10**30), 10**30).map(str),
    st.builds(  # up to the 6000 characters Discord allows in a string option
        lambda s, n: (s * n)[:MAX_STRING], st.text(min_size=1, max_size=12), st.integers(1, 6000)
    ),
    st.sampled_from(["@everyone " * 600, "x" * MAX_STRING, "24/18 " * 1000]),
)


def fill(text: str, fake: FakeDiscord, member: Member) -> str:
    """Put real ids in the mention tokens, so an injected mention would ping someone."""
    role = fake.guild.role("Manager").id
    return (
        text.replace("{role}", str(role))
        .replace("{user}", str(member.id))
        .replace("{channel}", str(fake.channel.id))
    )


def respell(move: str, kind: GameKind, rng: random.Random) -> str:
    """Another spelling of the legal ``move`` that its game's notation documents as the same
    move (see tests/service/test_fuzz_inputs.py: ``rng`` is seeded by hypothesis before anything
    depends on the match)."""
    if is_no_move(move):
        return rng.choice(["No Move", "NO MOVE", "no  move", "nomove"])
    if kind is GameKind.NANNON:
        src, dst = move.rstrip("*").split("/")
        names = {"H": ["H", "h", "home", "HOME", "0"], "S": ["S", "s", "safety", "off", "7"]}
        src = rng.choice(names.get(src, [src]))
        dst = rng.choice(names.get(dst, [dst]))
        hit = rng.choice(["", "*"] if move.endswith("*") else [""])
        return src + rng.choice(["/", "-", " / "]) + dst + hit
    if kind is GameKind.BACKGAMMON:
        parts = rng.sample(move.split(), len(move.split()))
        parts = [rng.choice([p, p.replace("*", ""), p.upper()]) for p in parts]
        return rng.choice([" ", "  ", ", "]).join(parts)
    return rng.choice([move, move.upper()])


MENTIONS = ["@everyone", "@here", "<@&{role}>", "<@{user}>", "<@!{user}>", "**", "`", "||"]
# Mentions and markdown in what a refusal may quote back: glued to notation, or alone.
injection = st.lists(
    st.one_of(st.sampled_from(MENTIONS), st.sampled_from(NOTATION)), min_size=1, max_size=6
).flatmap(lambda parts: st.sampled_from(["", " ", "/", "\n"]).map(lambda sep: sep.join(parts)))

# /move: hostile text, or (spelling, index of a legal move), each kind as likely.
move_inputs: st.SearchStrategy[Any] = st.sampled_from(
    [
        free_text,
        st.sampled_from(NOTATION),
        injection,
        st.tuples(st.just("listed"), st.integers(0, 24)),
        st.tuples(st.just("respelled"), st.integers(0, 24)),
    ]
).flatmap(lambda kind: kind)

# --- the world -------------------------------------------------------------------------------


@dataclass
class Table:
    kind: GameKind
    players: tuple[Member, Member]
    match_id: int
    thread: Channel


class World:
    """The running bot, a match of each game in its thread, and who else is around. A plain
    class: hypothesis prints it with a failing example, and a dataclass's fields are huge."""

    def __init__(
        self,
        fake: FakeDiscord,
        tables: dict[GameKind, Table],
        carol: Member,  # in the server, in no match
        mod: Member,  # Manage Server
        foreign_match: int,  # a match of another server
    ) -> None:
        self.fake, self.svc, self.tables = fake, service_of(fake), tables
        self.carol, self.mod, self.foreign_match = carol, mod, foreign_match

    def __repr__(self) -> str:
        matches = {kind.value: table.match_id for kind, table in self.tables.items()}
        return f"<World matches={matches} foreign={self.foreign_match}>"


async def start_table(fake: FakeDiscord, kind: GameKind, a: Member, b: Member) -> Table:
    """``a`` challenges ``b`` (a long match), who accepts; the match thread."""
    points = {GameKind.NANNON: 25, GameKind.BACKGAMMON: 25, GameKind.CHECKERS: 9}[kind]
    it = await fake.slash("challenge", {"game": kind.value, "opponent": b, "points": points}, by=a)
    invitation = (await it.response()).message
    assert invitation is not None
    await fake.click(invitation, label="Accept", by=b)
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    board = await fake.wait_until(
        lambda: next((m for m in fake.messages(thread) if footer(m).startswith("Match #")), None),
        what="the first board",
    )
    await handlers_done(fake)
    match_id = int(footer(board).split()[1][1:])
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert view.kind is kind and view.thread_id == thread.id
    return Table(kind, (a, b), match_id, thread)


@pytest_asyncio.fixture
async def world(tablebot: FakeDiscord, dice: DiceScript) -> AsyncIterator[World]:
    fake = tablebot
    dice.face = None  # the real dice
    await lift_rate_limit(fake)
    svc = service_of(fake)
    tables = {}
    for kind in GameKind:
        a = await fake.add_member(f"{kind.value}-a")
        b = await fake.add_member(f"{kind.value}-b")
        tables[kind] = await start_table(fake, kind, a, b)
    carol = await fake.add_member("carol")
    mod = await fake.add_member("mod", manage_guild=True)
    other = await fake.add_guild("Elsewhere")
    challenge = await svc.handle(NewChallenge(
        other.id, other.text_channels[0].id, 901, "x", GameKind.NANNON, opponent_id=902,
        opponent_name="y", length=3,
    ))  # fmt: skip
    foreign = (await svc.handle(AcceptChallenge(challenge.id, other.id, 902, "y"))).view.match_id
    yield World(fake, tables, carol, mod, foreign)


def public(fake: FakeDiscord, *channels: Channel) -> list[tuple[int, str, int]]:
    """The public messages of these channels, with their content and number of edits."""
    return [
        (m.id, m.content, len(m.edits))
        for channel in channels
        for m in fake.messages(channel)
        if not m.ephemeral
    ]


async def db_state(svc: MatchService) -> list[Any]:
    """Every table an action or a setting may write."""
    state = []
    for table in ("matches", "events", "snapshots", "game_results", "guild_settings", "ratings"):
        state.append([tuple(r) for r in await sql_rows(svc.store, f"SELECT * FROM {table}")])
    return state


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR or r.exc_info
    ]


def sent_bodies(fake: FakeDiscord, it: InteractionHandle) -> list[dict[str, Any]]:
    """Every message body the bot sent for ``it``: callback data, follow-ups, edits."""
    found = []
    for call in fake.calls:
        if call.params.get("interaction_token") == it.state.token and isinstance(call.json, dict):
            found.append(call.json.get("data") or {})
        elif call.params.get("webhook_token") == it.state.token and isinstance(call.json, dict):
            found.append(call.json)
    return found


def assert_clear_refusal(fake: FakeDiscord, it: InteractionHandle, answer: Message) -> str:
    """``answer`` is an ephemeral refusal a person can read, and nothing the bot sent for
    ``it`` can ping anyone."""
    text = answer.content
    assert answer.ephemeral, text
    assert text.strip() and text != APOLOGY, text
    assert len(text) <= 2000
    assert not LIVE_MENTION.search(text), text
    assert not answer.embeds and not answer.components and not answer.attachments
    assert_pings_nobody(fake, it)
    return text


def assert_pings_nobody(
    fake: FakeDiscord, it: InteractionHandle, but: frozenset[int] = frozenset()
) -> None:
    """Nothing the bot sent for ``it`` can ping anyone, ``but`` these users (the player on turn
    after a move, whose new board, a follow-up of ``it``, pings them)."""
    bodies = [b for b in sent_bodies(fake, it) if "content" in b or "embeds" in b]
    assert bodies
    for body in bodies:
        allowed = body.get("allowed_mentions")
        assert allowed is not None, body
        assert allowed.get("parse", []) == [], allowed
        assert not allowed.get("roles"), allowed
        assert {int(u) for u in allowed.get("users") or []} <= but, allowed


async def ready_to_move(world: World, kind: GameKind) -> tuple[Table, MatchView]:
    """The table of ``kind`` with a roll to play: /roll as the match asks (a new match if it
    ended)."""
    fake, svc = world.fake, world.svc
    table = world.tables[kind]
    for _ in range(20):
        view = await svc.handle(ViewMatch(table.match_id))
        if view.match_over:
            table = world.tables[kind] = await start_table(fake, kind, *table.players)
            continue
        if view.phase is Phase.MOVE:
            return table, view
        who = table.players[view.actor if view.actor is not None else 0]
        assert view.phase in (Phase.ROLL, Phase.OPENING, Phase.OPENING_TIE), view.phase
        it = await fake.slash("roll", {}, by=who, channel=table.thread)
        assert (await reply_to(it)).content == "Rolled."
        await handlers_done(fake)  # the board is edited after the answer
    raise AssertionError(f"{kind.value}: no roll to play")


# --- /move -----------------------------------------------------------------------------------


@FUZZ
@given(
    kind=st.sampled_from(list(GameKind)),
    given_text=move_inputs,
    who=st.sampled_from(["turn", "turn", "turn", "other", "carol"]),
    spacing=st.sampled_from(["", " ", "\t", "\n "]),
    data=st.data(),
)
async def test_move_text_through_discord_is_refused_clearly_or_plays_the_right_move(
    world: World,
    caplog: pytest.LogCaptureFixture,
    kind: GameKind,
    given_text: str | tuple[str, int],
    who: str,
    spacing: str,
    data: st.DataObject,
) -> None:
    fake, svc = world.fake, world.svc
    # Drawn first, always: nothing drawn may depend on the match (its dice are random).
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="respelling seed"))
    table, view = await ready_to_move(world, kind)
    member = {
        "turn": table.players[view.turn],
        "other": table.players[1 - view.turn],
        "carol": world.carol,
    }[who]
    meant: str | None = None
    if isinstance(given_text, tuple):
        how, index = given_text
        meant = view.legal_moves[index % len(view.legal_moves)]
        text = spacing + (meant if how == "listed" else respell(meant, kind, rng)) + spacing
    else:
        text = fill(given_text, fake, member) or "?"  # Discord sends no empty required option
    log = [e.payload for e in await svc.store.events(table.match_id)]
    before_db, before_public = await db_state(svc), public(fake, table.thread, fake.channel)
    caplog.clear()

    it = await fake.slash("move", {"play": text}, by=member, channel=table.thread)
    response = await it.response()
    assert response.type == 5 and response.ephemeral  # "thinking", for the typist only
    answer = await reply_to(it)
    await handlers_done(fake)
    assert not errors(caplog), errors(caplog)
    # One answer for the typist (a board the move makes may follow it, for everyone).
    assert answer.ephemeral and len(it.state.callbacks) == 1
    assert [m for m in it.followups if m.ephemeral] == [answer]

    if answer.content != "Played.":
        assert_clear_refusal(fake, it, answer)
        assert not (meant is not None and who == "turn"), (text, answer.content)
        assert await db_state(svc) == before_db
        assert public(fake, table.thread, fake.channel) == before_public
        event(f"/move refused ({who})")
        return

    # Played: exactly the move the text means, by the engine alone, on the match before.
    event(f"/move played ({'a legal move' if meant else 'fuzzed text'})")
    assert who == "turn"
    after = await svc.handle(ViewMatch(table.match_id))
    on_turn = frozenset() if after.actor is None else {after.players[after.actor].user_id}
    assert_pings_nobody(fake, it, but=frozenset(on_turn))
    engine = replay(view.kind, view.rules, log)
    if meant is not None:
        [move] = [m for m in engine.legal_moves() if engine.format_move(m) == meant]
    else:
        move = engine.parse_move(text.strip())
    expected = engine.format_move(move)
    engine.apply(MoveAction(view.turn, expected))
    logged = [e.payload for e in await svc.store.events(table.match_id)][len(log) :]
    assert logged and logged[0] == MoveAction(view.turn, expected).to_dict(), (text, logged)
    played = replay(view.kind, view.rules, [*log, logged[0]])
    assert played.snapshot() == engine.snapshot()
    # The rest (forced moves, automatic rolls) followed from it, and a board shows the result.
    after = await svc.handle(ViewMatch(table.match_id))
    assert after.version > view.version
    assert replay(view.kind, view.rules, [*log, *logged]).position_id == after.position_id
    # A board shows it: a new message, or the board edited in place (the same player goes on).
    shown = [m for channel in (table.thread, fake.channel) for m in fake.messages(channel)]
    board = f"Match #{table.match_id} · move {after.version}"
    assert any(footer(m) == board and not m.ephemeral for m in shown)


# --- /move autocomplete ----------------------------------------------------------------------


@FUZZ
@given(
    kind=st.sampled_from(list(GameKind)),
    text=st.one_of(free_text, injection, st.sampled_from(["", " ", "2", "24/", "1", "h", "x"])),
    who=st.sampled_from(["turn", "turn", "other", "carol"]),
)
async def test_move_autocomplete_text_only_offers_legal_moves_that_match(
    world: World, caplog: pytest.LogCaptureFixture, kind: GameKind, text: str, who: str
) -> None:
    fake, svc = world.fake, world.svc
    table, view = await ready_to_move(world, kind)
    member = {
        "turn": table.players[view.turn],
        "other": table.players[1 - view.turn],
        "carol": world.carol,
    }[who]
    text = fill(text, fake, member)
    before_db, before_public = await db_state(svc), public(fake, table.thread, fake.channel)
    caplog.clear()

    it = await fake.autocomplete(
        "move", {"play": text}, focused="play", by=member, channel=table.thread
    )
    choices = await it.choices()
    await fake.wait_bot_idle()
    assert not errors(caplog), errors(caplog)
    assert len(choices) <= 25
    for choice in choices:
        assert 1 <= len(choice["name"]) <= 100 and choice["name"] == choice["value"]
        assert choice["value"] in view.legal_moves
    if who != "turn":
        assert choices == []
    else:
        typed = "".join(text.strip()[:100].split()).lower()
        for choice in choices:
            assert typed in "".join(choice["value"].split()).lower(), (typed, choice)
        if not typed:
            assert [c["value"] for c in choices] == list(view.legal_moves[:25])
        event(f"autocomplete: {'some' if choices else 'no'} choices")
    assert await db_state(svc) == before_db
    assert public(fake, table.thread, fake.channel) == before_public


# --- /config ---------------------------------------------------------------------------------

# /config subcommand -> option -> the setting it changes.
CONFIG_FIELDS: dict[str, dict[str, str]] = {
    "lengths": {
        "nannon": "nannon_length",
        "backgammon": "backgammon_length",
        "checkers": "checkers_length",
    },
    "cube": {
        "cube": "cube", "crawford": "crawford", "jacoby": "jacoby", "auto_doubles": "auto_doubles"
    },
    "automation": {"auto_roll": "auto_roll", "auto_move": "auto_move", "auto_pass": "auto_pass"},
    "times": {
        "reminder": "reminder_minutes",
        "claim": "claim_minutes",
        "challenge": "challenge_minutes",
    },
    "ratelimit": {"actions": "rate_limit_actions", "seconds": "rate_limit_seconds"},
    "threads": {"enabled": "use_threads"},
}  # fmt: skip
SCRATCH_GUILD = 5  # where the test asks the service itself what it makes of the same values


def option_values(spec: dict[str, Any], within_limits: bool) -> st.SearchStrategy[Any]:
    """What Discord delivers for this option (its type, its declared min/max), or with
    Discord's checks bypassed any int64."""
    if spec["type"] == 5:
        return st.booleans()
    assert spec["type"] == 4, spec
    if not within_limits:
        edges = [0, -1, -(2**31), 2**31, MAX_INTEGER + 1, INT64, -INT64 - 1, 10**6]
        return st.one_of(st.integers(-INT64 - 1, INT64), st.sampled_from(edges))
    low = spec.get("min_value", -MAX_INTEGER)
    high = spec.get("max_value", MAX_INTEGER)
    return st.one_of(st.integers(low, high), st.sampled_from([low, high, low + 1, high - 1]))


@st.composite
def config_commands(draw: st.DrawFn, fake: FakeDiscord) -> tuple[str, dict[str, Any], bool]:
    """(subcommand, options, within Discord's limits) for a /config subcommand with numbers or
    switches, read from the command as synced."""
    name = draw(st.sampled_from(sorted(CONFIG_FIELDS)))
    [spec] = [o for o in fake.command("config")["options"] if o["name"] == name]
    within = draw(st.sampled_from([True, True, False]))
    options: dict[str, Any] = {}
    for option in spec.get("options") or []:
        if option.get("required") or draw(st.booleans()):
            options[option["name"]] = draw(option_values(option, within))
    return name, options, within


@FUZZ
@given(data=st.data(), manager=st.sampled_from([True, True, True, False]))
async def test_config_values_are_saved_as_given_or_refused_without_a_change(
    world: World, caplog: pytest.LogCaptureFixture, data: st.DataObject, manager: bool
) -> None:
    fake, svc = world.fake, world.svc
    guild = fake.guild.id
    name, options, within = data.draw(config_commands(fake))
    assert set(options) <= set(CONFIG_FIELDS[name])
    changes = {CONFIG_FIELDS[name][key]: value for key, value in options.items()}
    # The service's own verdict on the same change, from the same settings, elsewhere.
    current = await svc.handle(GetSettings(guild))
    baseline = asdict(current)
    await svc.handle(UpdateSettings(SCRATCH_GUILD, {**baseline}))
    try:
        verdict = await svc.handle(UpdateSettings(SCRATCH_GUILD, {**changes}))
    except Exception:
        verdict = None
    member = world.mod if manager else world.carol
    before_db, before_public = await db_state(svc), public(fake, fake.channel)
    caplog.clear()

    it = await fake.slash(f"config {name}", options, by=member, within_limits=within)
    answer = await reply_to(it)
    await fake.wait_bot_idle()
    assert not errors(caplog), errors(caplog)
    assert answer.ephemeral and len(it.state.callbacks) == 1
    after = await svc.handle(GetSettings(guild))
    if answer.content.startswith("Saved.\n"):
        event("/config saved")
        assert manager and changes and verdict is not None
        assert after == verdict, (changes, after)
        assert_pings_nobody(fake, it)
        assert len(answer.content) <= 2000 and not LIVE_MENTION.search(answer.content)
        assert public(fake, fake.channel) == before_public
    elif not options and manager:
        event("/config shown")
        assert answer.content.startswith("**tablebot settings for this server**")
        assert await db_state(svc) == before_db
    else:
        event(f"/config refused ({'in' if within else 'beyond'} Discord's limits)")
        text = assert_clear_refusal(fake, it, answer)
        if manager:
            assert verdict is None, (changes, text)
        else:
            assert "Manage Server" in text
        assert after == current
        assert await db_state(svc) == before_db
        assert public(fake, fake.channel) == before_public
    # Back to where the test started (the lifted rate limit included), for the next example.
    await svc.handle(UpdateSettings(guild, {**baseline}))
    bot = world.fake.bot
    assert isinstance(bot, TableBot)
    bot.rate_limit.invalidate(guild)


# --- match ids -------------------------------------------------------------------------------


@FUZZ
@given(
    command=st.sampled_from(["export", "verify"]),
    pick=st.one_of(
        st.sampled_from(["nannon", "backgammon", "checkers", "foreign"]),
        st.integers(1, MAX_INTEGER),
        st.sampled_from([1, 2, 3, 4, 5, 6, MAX_INTEGER]),
        st.integers(-INT64 - 1, INT64),  # beyond Discord's checks
        st.sampled_from([0, -1, -(2**53), 2**53, 2**63 - 1, -(2**63)]),
    ),
    who=st.sampled_from(["player", "carol"]),
)
async def test_match_ids_export_the_right_match_or_are_refused(
    world: World,
    caplog: pytest.LogCaptureFixture,
    command: str,
    pick: str | int,
    who: str,
) -> None:
    fake, svc = world.fake, world.svc
    if isinstance(pick, str):
        match_id = (
            world.foreign_match if pick == "foreign" else world.tables[GameKind(pick)].match_id
        )
    else:
        match_id = pick
    within = 1 <= match_id <= MAX_INTEGER
    ours = {r["id"] for r in await sql_rows(
        svc.store, "SELECT id FROM matches WHERE guild_id = ?", (fake.guild.id,)
    )}  # fmt: skip
    member = world.tables[GameKind.NANNON].players[0] if who == "player" else world.carol
    before_db, before_public = await db_state(svc), public(fake, fake.channel)
    caplog.clear()

    it = await fake.slash(command, {"match": match_id}, by=member, within_limits=within)
    response = await it.response()
    if match_id not in ours:
        event(f"/{command} refused ({'in' if within else 'beyond'} Discord's limits)")
        assert response.type == 4
        answer = await it.message()
        await fake.wait_bot_idle()
        assert not errors(caplog), errors(caplog)
        text = assert_clear_refusal(fake, it, answer)
        assert f"#{match_id}" in text or "match" in text.lower(), text
        assert await db_state(svc) == before_db
        assert public(fake, fake.channel) == before_public
        return

    # A match of this server: anyone here may see it, and it is that match.
    event(f"/{command} answered")
    assert response.type == 5 and not response.ephemeral
    answer = await it.followup()
    await fake.wait_bot_idle()
    assert not errors(caplog), errors(caplog)
    assert_pings_nobody(fake, it)
    if command == "export":
        exported = await svc.handle(Export(match_id, fake.guild.id))
        assert answer.content == f"Match #{match_id}: `{exported.filename}`"
        [attachment] = answer.attachments
        assert attachment.filename == exported.filename
        assert attachment.data.decode("utf-8") == exported.text
    else:
        [embed] = answer.embeds
        assert str(embed["title"]).startswith(f"Dice of match #{match_id}: ")
    assert await db_state(svc) == before_db


@FUZZ
@given(
    command=st.sampled_from(["export", "verify"]),
    text=st.one_of(free_text, injection, st.integers(-5, 10**20).map(str)),
    who=st.booleans(),
)
async def test_match_id_autocomplete_text_offers_only_the_users_matches(
    world: World, caplog: pytest.LogCaptureFixture, command: str, text: str, who: bool
) -> None:
    fake, svc = world.fake, world.svc
    member = world.tables[GameKind.CHECKERS].players[1] if who else world.carol
    text = fill(text, fake, member)
    mine = {
        h.match_id for h in await svc.handle(History(fake.guild.id, member.id, 25))
    }  # what /history lists
    before_db = await db_state(svc)
    caplog.clear()

    it = await fake.autocomplete(command, {"match": text}, focused="match", by=member)
    choices = await it.choices()
    await fake.wait_bot_idle()
    assert not errors(caplog), errors(caplog)
    assert len(choices) <= 25
    digits = "".join(ch for ch in text if ch.isdigit())[:20]
    for choice in choices:
        assert 1 <= len(choice["name"]) <= 100
        assert choice["value"] in mine and str(choice["value"]).startswith(digits)
        assert json.dumps(choice["value"]).isdigit()
    assert await db_state(svc) == before_db
