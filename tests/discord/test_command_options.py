"""Command options and settings through the fake Discord that other tests leave out: the exact
refusals of a self or bot challenge; /config times, automation and channels, each saved, shown by
/config show and visible in what the bot then does; the /challenge options cube, crawford and
auto_doubles (the stored rules and the invitation's text); /stats with its game option and the
NANNON line, /history of another user, /leaderboard filtered by match length; and /leaderboard
after a Nannon match played out click by click.

Dice are scripted (``faces``) unless a test steers them itself.
"""

from __future__ import annotations

from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from support.discord_driver import (
    DiceScript,
    accept_in_thread,
    embed_text,
    fire_due,
    lift_rate_limit,
    next_board,
    reply_to,
    service_of,
)
from support.nannon_driver import (
    NannonForBob,
    answered,
    faces,
    nannon_for_bob_move,
    start_match,
)

from bot.discord.presenter import SHOUT
from bot.service import (
    AcceptChallenge,
    ChallengeStatus,
    GetChallenge,
    GetSettings,
    Leaderboard,
    LeaderboardRow,
    LeaveMatch,
    NewChallenge,
    NotFoundError,
    Stats,
    ViewMatch,
)
from engines.base import GameKind, Phase, ResultKind

pytestmark = pytest.mark.asyncio

SELF_REFUSAL = "You can't challenge yourself. Leave the opponent empty to let anyone accept."
BOT_REFUSAL = "Bots don't play here: challenge a person, or anyone."


# --- helpers -----------------------------------------------------------------------------------


def labels(message: Message) -> list[str]:
    return [b["label"] for b in message.buttons]


async def answer(
    fake: FakeDiscord, command: str, by: Member, where: Channel | None = None, **options: Any
) -> Message:
    """The bot's answer to a slash command typed in ``where`` (the response or, after a
    defer, the follow-up)."""
    return await reply_to(await fake.slash(command, options, by=by, channel=where))


async def ephemeral(
    fake: FakeDiscord, command: str, by: Member, where: Channel | None = None, **options: Any
) -> str:
    message = await answer(fake, command, by, where, **options)
    assert message.ephemeral, message
    return message.content


async def invite(
    fake: FakeDiscord, by: Member, where: Channel | None = None, **options: Any
) -> Message:
    """/challenge by ``by`` in ``where``: the public invitation it answers with."""
    it = await fake.slash("challenge", options, by=by, channel=where)
    response = await it.response()
    assert response.type == 4 and not response.ephemeral, response
    assert response.message is not None
    return response.message


async def finished(fake: FakeDiscord, winner: Member, loser: Member, game: str, length: int) -> int:
    """A match set up through the service and conceded at once by ``loser``: its id."""
    svc = service_of(fake)
    challenge = await svc.handle(NewChallenge(
        fake.guild.id, fake.channel.id, winner.id, winner.name, game, opponent_id=loser.id,
        opponent_name=loser.name, length=length,
    ))  # fmt: skip
    view = (
        await svc.handle(AcceptChallenge(challenge.id, fake.guild.id, loser.id, loser.name))
    ).view
    update = await svc.handle(LeaveMatch(view.match_id, fake.guild.id, loser.id))
    assert update.match_over and update.view.players[update.winner_seat or 0].user_id == winner.id
    return view.match_id


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def leaderboard_line(rank: int, name: str, rating: float, won: int, lost: int, pw: float,
                     pl: float) -> str:  # fmt: skip
    """A /leaderboard line (bot.discord.cogs.info.format_leaderboard)."""
    return f"**{rank}.** {name} · {rating:.0f} · {won}-{lost} · {number(pw)}-{number(pl)} pts"


async def leaderboard_lines(fake: FakeDiscord, by: Member, **options: Any) -> list[str]:
    message = await answer(fake, "leaderboard", by, **options)
    assert not message.ephemeral
    return str(message.embeds[0]["description"]).splitlines()


# --- 1. refusals ---------------------------------------------------------------------------------


async def test_self_and_bot_challenges_get_their_exact_refusals(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    robot = await fake.add_member("robot", bot=True)
    for game in ("nannon", "checkers"):
        for opponent, refusal in ((alice, SELF_REFUSAL), (robot, BOT_REFUSAL)):
            it = await fake.slash("challenge", {"game": game, "opponent": opponent}, by=alice)
            response = await it.response()
            assert response.type == 4 and response.ephemeral and response.message is not None
            assert response.message.content == refusal
            assert not response.message.embeds and not response.message.components
    assert not [m for m in fake.messages(fake.channel) if not m.ephemeral]
    with pytest.raises(NotFoundError):
        await svc.handle(GetChallenge(1, fake.guild.id))  # nothing was recorded


# --- 4. /config --------------------------------------------------------------------------------


TIMES_LINE = "- Reminder after 5 min, claim after 10 min, challenges expire after 7 min"


async def test_config_times_saved_shown_and_used(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    mod = await fake.add_member("mod", manage_guild=True)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    default = await svc.handle(GetSettings(fake.guild.id))
    assert (default.reminder_minutes, default.claim_minutes, default.challenge_minutes) == (
        60, 24 * 60, 30,
    )  # fmt: skip

    saved = await ephemeral(fake, "config times", mod, reminder=5, claim=10, challenge=7)
    assert saved.startswith("Saved.\n") and TIMES_LINE in saved.splitlines()
    stored = await svc.handle(GetSettings(fake.guild.id))
    assert (stored.reminder_minutes, stored.claim_minutes, stored.challenge_minutes) == (5, 10, 7)
    shown = await ephemeral(fake, "config show", mod)
    assert not shown.startswith("Saved.") and TIMES_LINE in shown.splitlines()

    # A new challenge expires after 7 minutes.
    invitation = await invite(fake, alice, game="nannon", opponent=bob, points=3)
    challenge = await svc.handle(GetChallenge(1, fake.guild.id))
    assert challenge.expires_at - challenge.created_at == 7 * 60
    mid, thread = await accept_in_thread(fake, invitation, bob)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor) == (Phase.ROLL, 1)  # alice's 6-1 opening move was forced
    start = view.last_action_at

    # A second, open challenge, never answered: the service's scheduler expires it.
    await invite(fake, bob, game="nannon", points=1)
    late = await svc.handle(GetChallenge(2, fake.guild.id))
    assert late.expires_at - late.created_at == 7 * 60
    assert start <= late.created_at < start + 60

    # Reminded after 5 minutes (not the default hour), the challenge expired after 7, the win
    # claimable after 10 (not a day).
    assert await fire_due(fake, start + 5 * 60 - 1) == []
    mark = fake.mark()
    assert await fire_due(fake, start + 5 * 60 + 1) == [("remind", mid)]
    call = await fake.wait_for_call(method="POST", route="/channels/{channel_id}/messages",
                                    since=mark)  # fmt: skip
    assert call.json["content"] == (
        f"<@{bob.id}>, match #{mid} is waiting for you (idle for 5 min). alice is waiting."
    )
    assert int(call.params["channel_id"]) == thread.id
    assert await fire_due(fake, late.created_at + 7 * 60 - 1) == []
    # The challenge's expiry is the service's scheduler's, after 7 minutes.
    before = await svc.timers.run_due(late.created_at + 7 * 60 - 1)
    assert ("challenge.expiry", "2") not in {(d.kind, d.key) for d in before}
    assert (await svc.handle(GetChallenge(2, fake.guild.id))).status is ChallengeStatus.OPEN
    fired = await svc.timers.run_due(late.created_at + 7 * 60 + 1)
    assert ("challenge.expiry", "2") in {(d.kind, d.key) for d in fired}
    await fake.wait_bot_idle()
    assert (await svc.handle(GetChallenge(2, fake.guild.id))).status is ChallengeStatus.EXPIRED
    assert await fire_due(fake, start + 10 * 60 - 1) == []
    assert await fire_due(fake, start + 10 * 60 + 1) == [("claim", mid)]
    claim = await fake.wait_until(
        lambda: next((m for m in reversed(fake.messages(thread)) if m.buttons), None),
        what="the claim message",
    )
    assert claim.content == (
        f"<@{alice.id}>, bob has not played in match #{mid} for 10 min. You may claim the win."
    )
    assert labels(claim) == ["Claim win"]
    await fake.wait_bot_idle()


AUTOMATION_OFF = "- Auto-roll off, auto-move off, auto-pass on (applies to new matches)"


async def test_config_automation_off_no_auto_roll_no_forced_move(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    mod = await fake.add_member("mod", manage_guild=True)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    saved = await ephemeral(fake, "config automation", mod, auto_roll=False, auto_move=False)
    assert saved.startswith("Saved.\n") and AUTOMATION_OFF in saved.splitlines()
    settings = await svc.handle(GetSettings(fake.guild.id))
    assert (settings.auto_roll, settings.auto_move, settings.auto_pass) == (False, False, True)
    assert AUTOMATION_OFF in (await ephemeral(fake, "config show", mod)).splitlines()

    # Nannon's opening 6-1: alice plays the difference, 5, and has exactly one legal move.
    # With auto-move on it is played for her (tests/discord/test_commands.py); here it waits.
    dice.face = faces(6, 1, then=(3,))
    invitation = await invite(fake, alice, game="nannon", opponent=bob, points=3)
    mid, thread = await accept_in_thread(fake, invitation, bob)
    board = await next_board(fake, thread, mid, None)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 0, (5,))
    assert len(view.legal_moves) == 1 and view.last_move is None
    [menu] = [c for c in board.walk_components() if c.get("type") == 3]
    assert [o["value"] for o in menu["options"]] == list(view.legal_moves)
    assert f"<@{alice.id}>" in board.content
    it = await fake.select(board, [view.legal_moves[0]], by=alice)
    assert (await it.response()).type == 7  # the board, edited in the click's answer
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert view.last_move is not None and view.last_move.seat == 0

    # bob doubles, alice takes: she owns the cube, so bob can't double. With auto-roll on he
    # would be rolled for at once; here he has to click Roll himself.
    assert (view.phase, view.actor, view.can_double[1]) == (Phase.ROLL, 1, True)
    await fake.click(board, label="Double", by=bob)
    board = await next_board(fake, thread, mid, board)
    await fake.click(board, label="Take", by=alice)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.cube_value, view.cube_owner) == (2, 0)
    assert (view.phase, view.actor, view.dice, view.can_double[1]) == (
        Phase.ROLL, 1, None, False,
    )  # fmt: skip
    assert labels(board) == ["Roll", "Resign"]
    fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
    assert fields["Dice"] == "not rolled" and fields["Cube"] == "2, owned by alice"
    assert "**bob to roll.**" in board.embeds[0]["description"]
    version = view.version
    await fake.wait_bot_idle()
    assert (await svc.handle(ViewMatch(mid))).version == version  # nothing rolled behind his back
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3,))


async def test_config_channels_add_remove_anywhere(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    mod = await fake.add_member("mod", manage_guild=True)
    alice = await fake.add_member("alice")
    games = await fake.add_channel("games")
    tables = await fake.add_channel("tables")
    general = fake.channel

    saved = await ephemeral(fake, "config channels", mod, action="add", channel=games)
    assert saved.startswith("Saved.\n")
    assert f"- Challenges allowed in: <#{games.id}>" in saved.splitlines()
    saved = await ephemeral(fake, "config channels", mod, action="add", channel=tables)
    assert f"- Challenges allowed in: <#{games.id}>, <#{tables.id}>" in saved.splitlines()
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == (
        games.id,
        tables.id,
    )
    # Adding one again keeps one copy.
    await ephemeral(fake, "config channels", mod, action="add", channel=tables)
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == (
        games.id,
        tables.id,
    )

    # Elsewhere a challenge is refused with where it is allowed; in the list it is posted.
    refused = await ephemeral(fake, "challenge", alice, general, game="nannon")
    assert refused == f"Challenges are allowed only in <#{games.id}>, <#{tables.id}>."
    posted = await invite(fake, alice, tables, game="nannon")
    assert posted.channel.id == tables.id

    saved = await ephemeral(fake, "config channels", mod, action="remove", channel=games)
    assert f"- Challenges allowed in: <#{tables.id}>" in saved.splitlines()
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == (tables.id,)
    refused = await ephemeral(fake, "challenge", alice, games, game="nannon")
    assert refused == f"Challenges are allowed only in <#{tables.id}>."
    # Removing a channel that is not listed is refused and changes nothing.
    again = await ephemeral(fake, "config channels", mod, action="remove", channel=games)
    assert again == f"<#{games.id}> is not in the list of challenge channels."
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == (tables.id,)
    missing = await ephemeral(fake, "config channels", mod, action="add")
    assert missing == "Say which channel to add."

    saved = await ephemeral(fake, "config channels", mod, action="anywhere")
    assert "- Challenges allowed in: any channel" in saved.splitlines()
    assert (await svc.handle(GetSettings(fake.guild.id))).challenge_channels == ()
    shown = await ephemeral(fake, "config show", mod)
    assert "- Challenges allowed in: any channel" in shown.splitlines()
    for channel in (general, games):
        assert (await invite(fake, alice, channel, game="nannon")).channel.id == channel.id


# --- 5. /challenge options -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "described", "rules"),
    [
        (
            {"game": "nannon", "points": 3, "cube": False},
            "alice challenges bob to Nannon, to 3 (no cube).",
            {"length": 3, "cube": False, "auto_doubles": 0},
        ),
        (
            {"game": "backgammon", "points": 5, "crawford": False},
            "alice challenges bob to Backgammon, to 5 (cube, no Crawford).",
            {"length": 5, "cube": True, "crawford": False, "auto_doubles": 0},
        ),
        (
            {"game": "backgammon", "points": 0, "auto_doubles": 1},
            "alice challenges bob to Backgammon, money game (cube, up to 1 automatic doubles).",
            {"length": 0, "cube": True, "jacoby": False, "auto_doubles": 1},
        ),
    ],
    ids=["cube-false", "crawford-false", "auto-doubles-1"],
)
async def test_challenge_options_reach_the_rules(
    tablebot: FakeDiscord,
    dice: DiceScript,
    options: dict[str, Any],
    described: str,
    rules: dict[str, Any],
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    invitation = await invite(fake, alice, opponent=bob, **options)
    assert invitation.embeds[0]["description"] == described
    challenge = await svc.handle(GetChallenge(1, fake.guild.id))
    for name, value in rules.items():
        assert getattr(challenge.rules, name) == value, name

    # A tied opening first (3-3), then 6-1: with one automatic double the cube starts at 2.
    dice.face = faces(3, 3, 6, 1, then=(3,))
    mid, thread = await accept_in_thread(fake, invitation, bob)
    board = await next_board(fake, thread, mid, None)
    view = await svc.handle(ViewMatch(mid))
    for name, value in rules.items():
        assert getattr(view.rules, name) == value, name
    fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
    if not rules["cube"]:
        assert view.can_double == (False, False) and "Cube" not in fields
    elif rules["auto_doubles"]:
        assert (view.cube_value, view.cube_owner) == (2, None)
        assert fields["Cube"] == "2, centred"
    else:
        assert (view.cube_value, view.cube_owner) == (1, None)
    if options["game"] == "backgammon":
        assert (view.actor, view.dice) == (0, (6, 1))  # after the tie, alice's 6 beats bob's 1


async def test_crawford_false_leaves_the_cube_live_after_match_point(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """With Crawford on, the game after bob reaches match point minus one is the Crawford game,
    with no doubling; with crawford:false it is an ordinary game, and the cube is live."""
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    for crawford, match_id in ((False, 1), (True, 2)):
        dice.face = faces(6, 1, then=(3,))
        invitation = await invite(
            fake, alice, game="nannon", opponent=bob, points=2, crawford=crawford
        )
        mid, thread = await accept_in_thread(fake, invitation, bob)
        assert mid == match_id
        board = await next_board(fake, thread, mid, None)
        # alice resigns a single game: bob leads 1-0 in a match to 2.
        it = await fake.click(board, label="Resign", by=alice)
        menu = (await it.response()).message
        assert menu is not None and menu.ephemeral
        await fake.click(menu, label="Resign this game", by=alice)
        board = await next_board(fake, thread, mid, board)
        dice.face = faces(6, 1, then=(3,))
        await fake.click(board, label="Accept resignation", by=bob)
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        assert view.score == (0.0, 1.0) and view.game_number == 2
        assert view.rules.crawford is crawford and view.crawford is crawford
        # alice's opening move (6-1: a 5) is forced again; then it is bob's turn.
        assert view.last_move is not None and view.last_move.seat == 0
        if crawford:
            # Nobody may double in the Crawford game, so bob was rolled for at once.
            assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3,))
            assert view.can_double == (False, False) and "Double" not in labels(board)
            assert "alice 0 to 1 bob (to 2), Crawford game" in embed_text(board)
        else:
            # An ordinary game: bob, 1 away, has a dead cube (the dead-cube ruling) and is
            # rolled for; alice's cube is live, and her next turn offers the double.
            assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3,))
            assert "Score: alice 0 to 1 bob (to 2)\n" in embed_text(board)
            assert "Crawford" not in embed_text(board)
            it = await fake.slash("move", {"play": view.legal_moves[0]}, by=bob, channel=thread)
            await it.response()
            board = await next_board(fake, thread, mid, board)
            view = await svc.handle(ViewMatch(mid))
            assert (view.phase, view.actor, view.can_double) == (Phase.ROLL, 0, (True, False))
            assert labels(board) == ["Roll", "Double", "Resign"]


# --- 5. /stats, /history, /leaderboard options -------------------------------------------------


async def test_stats_game_option_history_user_option_leaderboard_points(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = None  # the real dice: each match is conceded right after its opening
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    dave = await fake.add_member("dave")
    to_one = await finished(fake, alice, bob, "nannon", 1)
    carol_alice = await finished(fake, carol, alice, "nannon", 3)
    carol_dave = await finished(fake, carol, dave, "nannon", 3)
    money = await finished(fake, alice, dave, "backgammon", 0)

    # /leaderboard points: only matches of that length count, and only their players appear.
    async def expected(rows: list[tuple[Member, int, int, float, float]]) -> list[str]:
        rated = []
        for member, won, lost, pw, pl in rows:
            rating = (await svc.handle(Stats(fake.guild.id, member.id, GameKind.NANNON))).rating
            rated.append((-rating, -won, member.id, member.name, rating, won, lost, pw, pl))
        rated.sort()
        return [
            leaderboard_line(rank, name, rating, won, lost, pw, pl)
            for rank, (*_, name, rating, won, lost, pw, pl) in enumerate(rated, start=1)
        ]

    lines = await leaderboard_lines(fake, alice, game="nannon", points=1)
    assert lines == await expected([(alice, 1, 0, 1, 0), (bob, 0, 1, 0, 1)])
    lines = await leaderboard_lines(fake, alice, game="nannon", points=3)
    assert lines == await expected([(carol, 2, 0, 6, 0), (alice, 0, 1, 0, 3), (dave, 0, 1, 0, 3)])
    lines = await leaderboard_lines(fake, alice, game="nannon")
    assert lines == await expected(
        [(carol, 2, 0, 6, 0), (alice, 1, 1, 1, 3), (bob, 0, 1, 0, 1), (dave, 0, 1, 0, 3)]
    )
    nobody = await answer(fake, "leaderboard", alice, game="nannon", points=5)
    assert nobody.embeds[0]["title"] == "Nannon leaderboard · matches to 5"
    assert nobody.embeds[0]["description"] == "Nobody has finished a match here yet."
    money_board = await answer(fake, "leaderboard", alice, game="backgammon", points=0)
    assert money_board.embeds[0]["title"] == "Backgammon leaderboard · money games"
    assert [line.split(" · ")[0] for line in money_board.embeds[0]["description"].splitlines()] \
        == ["**1.** alice", "**2.** dave"]  # fmt: skip

    # /stats game: one field, that game's; without it, every game played.
    message = await answer(fake, "stats", bob, user=alice, game="nannon")
    assert message.ephemeral
    embed = message.embeds[0]
    assert embed["title"] == "Stats of alice"
    line = await svc.handle(Stats(fake.guild.id, alice.id, GameKind.NANNON))
    assert [f["name"] for f in embed["fields"]] == ["Nannon"]
    assert embed["fields"][0]["value"].splitlines() == [
        f"Rating {line.rating:.0f} ({line.experience} exp)",
        "Matches 2: 1-1",
        "Points 1-3",
        "NANNONs 0-0, shouted 0",
        "Streak: 1 loss",
    ]
    everything = (await answer(fake, "stats", bob, user=alice)).embeds[0]
    assert [f["name"] for f in everything["fields"]] == ["Nannon", "Backgammon"]
    backgammon = (await answer(fake, "stats", alice, game="backgammon")).embeds[0]
    assert [f["name"] for f in backgammon["fields"]] == ["Backgammon"]
    assert "Gammons 0-0, backgammons 0-0" in backgammon["fields"][0]["value"].splitlines()
    none = (await answer(fake, "stats", alice, user=bob, game="checkers")).embeds[0]
    assert none["description"] == "No finished matches here yet." and not none.get("fields")

    # /history user: bob asks for carol's matches, none of which he played.
    message = await answer(fake, "history", bob, user=carol)
    assert message.ephemeral
    embed = message.embeds[0]
    assert embed["title"] == "Recent matches of carol"
    rows = embed["description"].splitlines()
    assert [row.split(" ")[0] for row in rows] == [f"`#{carol_dave}`", f"`#{carol_alice}`"]
    assert rows[0].startswith(f"`#{carol_dave}` Nannon to 3 vs dave: **won** 3-0 (+")
    assert rows[1].startswith(f"`#{carol_alice}` Nannon to 3 vs alice: **won** 3-0 (+")
    mine = (await answer(fake, "history", bob)).embeds[0]
    assert mine["title"] == "Recent matches of bob"
    assert mine["description"].startswith(f"`#{to_one}` Nannon to 1 vs alice: **lost** 0-1 (-")
    theirs = (await answer(fake, "history", bob, user=dave)).embeds[0]["description"]
    # Money games are not rated: no rating change.
    assert theirs.startswith(f"`#{money}` Backgammon money vs alice: **lost** 0-1 (+0.0) <t:")


# --- 5 and 8. A Nannon match played out: the NANNON line of /stats, then /leaderboard ----------


async def test_nannon_match_played_out_then_stats_and_leaderboard(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    await lift_rate_limit(fake)
    dice.steer = NannonForBob().face
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    table, board = await start_match(fake, dice, alice, bob, 1)

    clicks = 0
    for _ in range(60):
        view = await table.view()
        if view.match_over:
            break
        move = nannon_for_bob_move(view) if view.phase is Phase.MOVE else None
        mark = fake.mark()
        it = await table.play_turn(board, view, move)
        assert await answered(fake, it) == []  # no refusal
        clicks += 1
        board = await table.next_after(view, board, mark) or board
    announcement = await table.wait_match_over()
    view = await table.view()
    # clicks: a 1-point match has a dead cube, so the service rolls for both players.
    assert view.match_over and view.winner_seat == 1 and clicks >= 3
    assert view.games[-1].kind is ResultKind.NANNON and view.games[-1].points == 2
    assert view.score == (0.0, 2.0)

    # /stats game:nannon before and after bob's shout.
    async def nannon_field(member: Member) -> list[str]:
        message = await answer(fake, "stats", alice, table.thread, user=member, game="nannon")
        assert message.ephemeral
        [field] = message.embeds[0]["fields"]
        assert field["name"] == "Nannon"
        return str(field["value"]).splitlines()

    assert "NANNONs 1-0, shouted 0" in await nannon_field(bob)
    await fake.wait_until(lambda: announcement.reaction(SHOUT), what="the bot's 📣")
    await fake.react(announcement, SHOUT, by=bob)
    await fake.wait_until(
        lambda: any(
            m.content.startswith(f"# {SHOUT} NANNON!") for m in fake.messages(table.thread)
        ),
        what="bob's shout",
    )
    await fake.wait_bot_idle()
    stats = {m: await svc.handle(Stats(fake.guild.id, m.id, GameKind.NANNON)) for m in (alice, bob)}
    assert await nannon_field(bob) == [
        f"Rating {stats[bob].rating:.0f} ({stats[bob].experience} exp)",
        "Matches 1: 1-0",
        "Points 2-0",
        "NANNONs 1-0, shouted 1",
        "Streak: 1 win",
    ]
    assert await nannon_field(alice) == [
        f"Rating {stats[alice].rating:.0f} ({stats[alice].experience} exp)",
        "Matches 1: 0-1",
        "Points 0-2",
        "NANNONs 0-1, shouted 0",
        "Streak: 1 loss",
    ]

    # /leaderboard after the match: both players, as stored.
    assert stats[bob].rating > 1500 > stats[alice].rating
    expected = [
        leaderboard_line(1, "bob", stats[bob].rating, 1, 0, 2, 0),
        leaderboard_line(2, "alice", stats[alice].rating, 0, 1, 0, 2),
    ]
    assert await leaderboard_lines(fake, alice, game="nannon") == expected
    assert await leaderboard_lines(fake, bob, game="nannon", points=1) == expected
    rows: list[LeaderboardRow] = await svc.handle(Leaderboard(fake.guild.id, GameKind.NANNON))
    assert [(r.name, r.won, r.lost, r.points_won) for r in rows] == [
        ("bob", 1, 0, 2), ("alice", 0, 1, 0),
    ]  # fmt: skip
