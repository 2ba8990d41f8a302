"""The typed turn commands through the fake Discord: /roll, /double, /take, /pass (no confirmation
step, unlike the Pass button), /resign at each level with the opponent declining and accepting,
/resign match, the Resign menu's "Concede the match" button, and what a finished match shows:
the rating changes in the match-over message and the points column of /leaderboard.

Dice are scripted (``faces``): openings 6-1, so alice (seat 0) moves first, then 3s.
"""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord
from support.discord_driver import (
    DiceScript,
    embed_text,
    next_board,
    public,
    reply_to,
    results,
    say,
    service_of,
    start,
)
from support.nannon_driver import faces

from bot.service import Stats, ViewMatch
from engines.base import GameKind, Phase, ResignLevel, ResultKind

pytestmark = pytest.mark.asyncio


def rating_line(name: str, before: float, after: float) -> str:
    """The match-over message's line for one player (bot.discord.presenter.match_over_text)."""
    sign = "+" if after >= before else ""
    return f"{name}: rating {before:.0f} -> {after:.0f} ({sign}{after - before:.1f})"


async def test_roll_double_take_pass_by_command(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="backgammon", points=5)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 0, (6, 1))

    assert await say(fake, "move", alice, thread, play="13/7 8/7") == "Played."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.can_double[1]) == (Phase.ROLL, 1, True)

    # /double, answered by /take: the cube is alice's at 2.
    assert await say(fake, "double", bob, thread) == "Doubled."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.cube_offered_by) == (Phase.CUBE_OFFERED, 0, 1)
    assert {"Take", "Pass"} <= {b["label"] for b in board.buttons}
    assert "bob doubles to 2. alice: take or pass?" in embed_text(board)
    assert await say(fake, "take", bob, thread) == "Only alice can take or pass your double."
    assert await say(fake, "take", alice, thread) == "Taken."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.cube_value, view.cube_owner) == (2, 0)
    assert "alice takes: the cube is at 2." in embed_text(board)
    assert "2, owned by alice" in embed_text(board)
    # bob can't redouble, so he was rolled for (auto-roll): /roll again is refused.
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3, 3))
    assert await say(fake, "roll", bob, thread) == "You rolled already: pick a move."
    assert (await svc.handle(ViewMatch(mid))).version == view.version

    assert await say(fake, "move", bob, thread, play=view.legal_moves[0]) == "Played."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.can_double[0]) == (Phase.ROLL, 0, True)

    # /roll for alice this time; then bob rolls by command too.
    assert await say(fake, "roll", alice, thread) == "Rolled."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 0, (3, 3))
    assert "alice rolls 3-3" in embed_text(board)
    assert await say(fake, "move", alice, thread, play=view.legal_moves[0]) == "Played."
    board = await next_board(fake, thread, mid, board)
    assert (await svc.handle(ViewMatch(mid))).phase is Phase.MOVE  # bob was rolled for again

    assert await say(
        fake, "move", bob, thread, play=(await svc.handle(ViewMatch(mid))).legal_moves[0]
    )
    board = await next_board(fake, thread, mid, board)

    # alice redoubles to 4; bob's /pass applies at once (a typed command is deliberate: no
    # "Yes, pass" step as with the button) and loses game 1 at the cube's 2.
    assert await say(fake, "double", alice, thread) == "Doubled."
    board = await next_board(fake, thread, mid, board)
    dice.face = faces(6, 1, then=(3,))  # game 2's opening
    assert await say(fake, "pass", bob, thread) == "Passed."
    view = await svc.handle(ViewMatch(mid))
    assert view.score == (2, 0) and view.game_number == 2 and not view.match_over
    assert view.games[-1].kind is ResultKind.DROP and view.games[-1].points == 2
    assert (view.cube_value, view.cube_owner) == (1, None)
    game_over = results(fake, thread)[-1]
    assert "Game 1: alice wins 2 points: bob passed the double." in embed_text(game_over)
    assert not any("Pass the double" in m.content for m in fake.messages(thread))
    await next_board(fake, thread, mid, board)


async def test_resign_each_level_declined_accepted_then_conceded(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="backgammon", points=7)

    # /resign (single by default) declined: play goes on where it was.
    assert await say(fake, "resign", alice, thread) == "Resignation offered."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert view.phase is Phase.RESIGN_OFFERED and view.resign_offer == (0, ResignLevel.SINGLE)
    assert "alice offers to resign (single). bob: accept or decline?" in embed_text(board)
    await fake.click(board, label="Decline resignation", by=bob)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.resign_offer) == (Phase.MOVE, 0, None)

    # gammon, then backgammon, accepted: 2 and 3 points to bob.
    for level, points, score in (("gammon", 2, (0, 2)), ("backgammon", 3, (0, 5))):
        assert await say(fake, "resign", alice, thread, level=level) == "Resignation offered."
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        assert view.resign_offer == (0, ResignLevel[level.upper()])
        assert f"alice offers to resign ({level})" in embed_text(board)
        dice.face = faces(6, 1, then=(3,))  # the next game's opening
        await fake.click(board, label="Accept resignation", by=bob)
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        assert view.score == score and not view.match_over
        assert view.games[-1].kind is ResultKind.RESIGN and view.games[-1].points == points
        game_over = results(fake, thread)[-1]
        assert f"bob wins {points} points: alice resigned." in embed_text(game_over)

    # /resign match: the match ends at once, bob winning the 2 points he lacked.
    assert await say(fake, "resign", alice, thread, level="match") == "You conceded the match."
    view = await svc.handle(ViewMatch(mid))
    assert view.match_over and view.winner_seat == 1 and view.score == (0, 7)
    assert view.games[-1].kind is ResultKind.FORFEIT
    over = results(fake, thread)[-1]
    text = embed_text(over)
    assert text.startswith("Match over") and "bob wins the match!" in text
    assert not any(m.components for m in public(fake, thread) if m is not over)

    # The match-over message lists both rating changes, as stored.
    stats = {
        m: await svc.handle(Stats(fake.guild.id, m.id, GameKind.BACKGAMMON)) for m in (alice, bob)
    }
    assert stats[bob].rating > 1500 > stats[alice].rating
    for member in (alice, bob):
        assert rating_line(member.name, 1500, stats[member].rating) in text

    # /leaderboard: rating, W-L and the points column (won-lost).
    it = await fake.slash("leaderboard", {"game": "backgammon"}, by=alice, channel=thread)
    leaderboard = await reply_to(it)
    assert not leaderboard.ephemeral
    lines = leaderboard.embeds[0]["description"].splitlines()
    assert lines == [
        f"**1.** bob · {stats[bob].rating:.0f} · 1-0 · 7-0 pts",
        f"**2.** alice · {stats[alice].rating:.0f} · 0-1 · 0-7 pts",
    ]
    assert leaderboard.embeds[0]["footer"]["text"] == "rank · name · rating · W-L · points won-lost"

    # Nothing more to resign.
    assert await say(fake, "resign", bob, thread) == f"Match #{mid} is over."


async def test_concede_the_match_from_the_resign_menu(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="nannon", points=3)
    view = await svc.handle(ViewMatch(mid))
    assert view.actor == 1  # alice's opening move was forced: bob is on roll

    # Nannon has no backgammons: /resign offers the level, the engine refuses it.
    answer = await say(fake, "resign", bob, thread, level="backgammon")
    assert answer == "In nannon you may resign single, a NANNON, not backgammon.", answer
    assert (await svc.handle(ViewMatch(mid))).version == view.version

    # The Resign menu is for either player, on turn or not: alice opens it off turn.
    it = await fake.click(board, label="Resign", by=alice)
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral
    assert [b["label"] for b in menu.buttons] == [
        "Resign this game",
        "Resign a gammon",
        "Concede the match",
    ]
    # Opening the menu is no action.
    assert (await svc.handle(ViewMatch(mid))).version == view.version
    await fake.click(menu, label="Concede the match", by=alice)
    over = await fake.wait_until(
        lambda: [m for m in results(fake, thread) if embed_text(m).startswith("Match over")],
        what="the match result",
    )
    await fake.wait_until(lambda: menu.content == "Done." and not menu.components)
    await fake.wait_bot_idle()
    view = await svc.handle(ViewMatch(mid))
    assert view.match_over and view.winner_seat == 1 and view.score == (0, 3)
    assert view.games[-1].kind is ResultKind.FORFEIT and view.games[-1].points == 3
    text = embed_text(over[0])
    assert "Game 1: bob wins 3 points: alice conceded." in text
    assert "bob wins the match!" in text
    for member in (alice, bob):
        rating = (await svc.handle(Stats(fake.guild.id, member.id, GameKind.NANNON))).rating
        assert rating != 1500
        assert rating_line(member.name, 1500, rating) in text
    assert {b["label"] for b in over[0].buttons} == {"Export", "Rematch"}
    assert not any(m.components for m in public(fake, thread) if m is not over[0])
