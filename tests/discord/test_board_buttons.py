"""Buttons and board contents through the fake Discord that other tests leave out: checkers'
**Accept draw** button (after an offer by button and by /draw) down to a drawn match; the Resign
menu's **Resign a gammon** and **Resign a backgammon** with the cube at 2; the move menu when a
roll has more than 25 plays (and when it has fewer); the Turn and Dice fields and the board's alt
text, equal to ``render``'s ``describe`` of the position; the dice seed revealed when a match ends;
and **Claim win**, refused to a bystander and then ending the match as a forfeit; a board's
custom_ids naming the command each button sends, and a board posted before (naming the button)
still working.

Dice are scripted (``faces``) except where the real dice are the point.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
import pytest_asyncio
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import (
    Clock,
    DiceScript,
    embed_text,
    fire_due,
    footer,
    next_board,
    reply_to,
    results,
    service_of,
    start,
    tablebot_factory,
)
from support.nannon_driver import faces

from bot.discord.presenter import board_job
from bot.service import GetSettings, MatchService, MatchView, Stats, VerifyMatch, ViewMatch
from engines.base import GameKind, Phase, ResignLevel, ResultKind

pytestmark = pytest.mark.asyncio


# --- helpers -----------------------------------------------------------------------------------


def fields(message: Message) -> dict[str, str]:
    return {f["name"]: f["value"] for f in message.embeds[0].get("fields", [])}


def labels(message: Message) -> list[str]:
    return [b["label"] for b in message.buttons]


def menu_options(message: Message) -> list[dict[str, Any]]:
    menus = [c for c in message.walk_components() if c.get("type") == 3]
    assert len(menus) == 1, menus
    return list(menus[0]["options"])


def expected_alt(view: MatchView) -> str:
    """The alt text ``render``'s ``describe`` gives for the view's board, with the arguments
    bot.discord.presenter's renderer builds (cut to Discord's 1024 characters)."""
    game, args, kwargs = board_job(view)
    module = importlib.import_module(f"render.{game}")
    return str(module.describe(*args, **kwargs))[:1024]


def check_alt(board: Message, view: MatchView) -> None:
    [attachment] = board.attachments
    assert attachment.filename == "board.png"
    assert attachment.description == expected_alt(view)
    assert footer(board) == f"Match #{view.match_id} · move {view.version}"


async def resign_by_menu(fake: FakeDiscord, board: Message, by: Member, label: str) -> Message:
    """Open the Resign menu on ``board`` and click ``label``: the (closed) menu."""
    it = await fake.click(board, label="Resign", by=by)
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral
    assert labels(menu) == [
        "Resign this game",
        "Resign a gammon",
        "Resign a backgammon",
        "Concede the match",
    ]
    it = await fake.click(menu, label=label, by=by)
    assert (await it.response()).type == 7  # the menu, closed in the click's answer
    await fake.wait_until(lambda: menu.content == "Done." and not menu.components)
    return menu


# --- 2. Accept draw ------------------------------------------------------------------------------


async def test_checkers_accept_draw_button_twice_draws_the_match(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="checkers")
    view = await svc.handle(ViewMatch(mid))
    assert view.colours == ("black", "white") and view.actor == 0
    check_alt(board, view)

    # Game 1: alice offers with the button, bob accepts with the button.
    await fake.click(board, label="Offer draw", by=alice)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.draw_offered_by) == (Phase.DRAW_OFFERED, 1, 0)
    assert labels(board) == ["Accept draw", "Decline draw", "Resign"]
    check_alt(board, view)
    it = await fake.click(board, label="Accept draw", by=bob)
    assert (await it.response()).type == 7  # the board, edited in the click's answer
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert not view.match_over and view.game_number == 2
    assert view.score == (0.5, 0.5)
    [game1] = view.games
    assert (game1.game_number, game1.winner, game1.kind, game1.points) == (
        1, None, ResultKind.DRAW, 0.5,
    )  # fmt: skip
    over = results(fake, thread)[-1]
    assert over.embeds[0]["title"] == "Game over · Checkers · alice vs bob · 1 game"
    assert over.embeds[0]["description"].splitlines()[:2] == [
        "Game 1 is drawn.",
        "Score: alice ½ to ½ bob (1 game).",
    ]
    # Colours swap: bob has Black and moves first in game 2.
    assert view.colours == ("white", "black") and view.actor == 1
    check_alt(board, view)

    # Game 2: bob offers with /draw, alice accepts with the button: 1-1 in a one-game match
    # is a drawn match.
    it = await fake.slash("draw", by=bob, channel=thread)
    assert (await reply_to(it)).content == "Done."
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.draw_offered_by) == (Phase.DRAW_OFFERED, 0, 1)
    assert "bob offers a draw. alice: accept or decline?" in embed_text(board)
    it = await fake.click(board, label="Accept draw", by=alice)
    assert (await it.response()).type == 7
    over = await fake.wait_until(
        lambda: next(
            (m for m in results(fake, thread) if m.embeds[0]["title"].startswith("Match over")),
            None,
        ),
        what="the match result",
    )
    await fake.wait_bot_idle()
    view = await svc.handle(ViewMatch(mid))
    assert view.match_over and view.winner_seat is None and view.score == (1.0, 1.0)
    assert [(g.winner, g.kind, g.points) for g in view.games] == [
        (None, ResultKind.DRAW, 0.5),
        (None, ResultKind.DRAW, 0.5),
    ]
    lines = over.embeds[0]["description"].splitlines()
    assert lines[:3] == [
        "Game 2 is drawn.",
        "Score: alice 1 to 1 bob (1 game).",
        "**The match is drawn.**",
    ]
    assert labels(over) == ["Export", "Rematch"]
    assert not board.components  # the last board lost its buttons
    for member in (alice, bob):
        stats = await svc.handle(Stats(fake.guild.id, member.id, GameKind.CHECKERS))
        assert (stats.played, stats.won, stats.lost, stats.drawn) == (1, 0, 0, 1)


async def test_buttons_name_their_command_and_older_boards_still_work(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="checkers")
    view = await svc.handle(ViewMatch(mid))
    ids = {b["label"]: b["custom_id"] for b in board.buttons}
    assert ids == {
        "Offer draw": f"tb:m:ProposeDraw:{mid}:{view.version}",
        "Resign": f"tb:m:resign:{mid}:{view.version}",  # a menu, not a command
    }
    # A board posted by an older tablebot names the button (tb:m:draw:...): it still works.
    [button] = [b for b in board.buttons if b["label"] == "Offer draw"]
    button["custom_id"] = f"tb:m:draw:{mid}:{view.version}"
    await fake.click(board, f"tb:m:draw:{mid}:{view.version}", by=alice)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.draw_offered_by) == (Phase.DRAW_OFFERED, 0)
    assert {b["custom_id"] for b in board.buttons} == {
        f"tb:m:AgreeDraw:{mid}:{view.version}",
        f"tb:m:RefuseDraw:{mid}:{view.version}",
        f"tb:m:resign:{mid}:{view.version}",
    }
    [decline] = [b for b in board.buttons if b["label"] == "Decline draw"]
    decline["custom_id"] = f"tb:m:drawno:{mid}:{view.version}"
    it = await fake.click(board, f"tb:m:drawno:{mid}:{view.version}", by=bob)
    assert (await it.response()).type == 7
    await fake.wait_bot_idle()
    view = await svc.handle(ViewMatch(mid))
    assert view.phase is Phase.MOVE and view.draw_offered_by is None
    # The resign menu's buttons carry the level: tb:m:OfferResignation.1, then LeaveMatch.
    board = await next_board(fake, thread, mid, board)
    it = await fake.click(board, label="Resign", by=bob)
    menu = (await it.response()).message
    assert menu is not None
    assert [b["custom_id"].split(":")[2] for b in menu.buttons] == [
        "OfferResignation.1",
        "LeaveMatch",
    ]


async def test_boards_naming_the_draw_commands_by_their_former_names_still_work(
    tablebot: FakeDiscord,
) -> None:
    """Boards posted before the draw commands were renamed (the engine's OfferDraw is not the
    service's ProposeDraw) carry tb:m:OfferDraw, AcceptDraw, DeclineDraw: each still sends
    what it meant."""
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="checkers")

    async def click_as_posted_before(board: Message, label: str, former: str, by: Member) -> None:
        view = await svc.handle(ViewMatch(mid))
        [button] = [b for b in board.buttons if b["label"] == label]
        button["custom_id"] = f"tb:m:{former}:{mid}:{view.version}"
        it = await fake.click(board, button["custom_id"], by=by)
        assert (await it.response()).type == 7
        await fake.wait_bot_idle()

    await click_as_posted_before(board, "Offer draw", "OfferDraw", alice)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.draw_offered_by) == (Phase.DRAW_OFFERED, 0)
    await click_as_posted_before(board, "Decline draw", "DeclineDraw", bob)
    view = await svc.handle(ViewMatch(mid))
    assert view.phase is Phase.MOVE and view.draw_offered_by is None
    board = await next_board(fake, thread, mid, board)
    await click_as_posted_before(board, "Offer draw", "OfferDraw", alice)
    board = await next_board(fake, thread, mid, board)
    await click_as_posted_before(board, "Accept draw", "AcceptDraw", bob)
    view = await svc.handle(ViewMatch(mid))
    assert [(g.winner, g.kind) for g in view.games][:1] == [(None, ResultKind.DRAW)]


# --- 2. Resign a gammon / a backgammon ------------------------------------------------------


async def test_resign_gammon_and_backgammon_buttons_with_the_cube_at_two(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    dice.face = faces(6, 1, then=(3,))
    mid, thread, board = await start(fake, alice, bob, game="backgammon", points=15)

    async def double_and_take(board: Message) -> Message:
        """alice plays her 6-1 opening; bob doubles; alice takes. bob (who can't redouble) is
        rolled for: 3-3."""
        view = await svc.handle(ViewMatch(mid))
        assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 0, (6, 1))
        await fake.select(board, ["13/7 8/7"], by=alice)
        board = await next_board(fake, thread, mid, board)
        await fake.click(board, label="Double", by=bob)
        board = await next_board(fake, thread, mid, board)
        await fake.click(board, label="Take", by=alice)
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        assert (view.cube_value, view.cube_owner) == (2, 0)
        assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3, 3))
        return board

    plan = [
        ("Resign a gammon", ResignLevel.GAMMON, "gammon", 4, (4.0, 0.0)),
        ("Resign a backgammon", ResignLevel.BACKGAMMON, "backgammon", 6, (10.0, 0.0)),
    ]
    for game, (label, level, word, points, score) in enumerate(plan, start=1):
        board = await double_and_take(board)
        # bob resigns from the menu (a deliberate second click); alice accepts.
        await resign_by_menu(fake, board, bob, label)
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        assert (view.phase, view.actor, view.resign_offer) == (Phase.RESIGN_OFFERED, 0, (1, level))
        assert f"bob offers to resign ({word}). alice: accept or decline?" in embed_text(board)
        assert labels(board) == ["Accept resignation", "Decline resignation", "Resign"]
        dice.face = faces(6, 1, then=(3,))  # the next game's opening
        it = await fake.click(board, label="Accept resignation", by=alice)
        assert (await it.response()).type == 7
        board = await next_board(fake, thread, mid, board)
        view = await svc.handle(ViewMatch(mid))
        result = view.games[-1]
        # level x cube: 2 x 2 for the gammon, 3 x 2 for the backgammon.
        assert (result.game_number, result.winner, result.kind) == (game, 0, ResultKind.RESIGN)
        assert (result.points, result.cube) == (points, 2) and points == int(level) * 2
        assert view.score == score and not view.match_over and view.game_number == game + 1
        assert (view.cube_value, view.cube_owner) == (1, None)  # a new game, a new cube
        over = results(fake, thread)[-1]
        assert over.embeds[0]["description"].splitlines()[:2] == [
            f"Game {game}: alice wins {points} points: bob resigned.",
            f"Score: alice {int(score[0])} to 0 bob (to 15).",
        ]
        stats = await svc.handle(Stats(fake.guild.id, alice.id, GameKind.BACKGAMMON))
        assert stats.played == 0  # games, not the match: nothing counted yet


# --- 3. The move menu ------------------------------------------------------------------------


async def test_move_menu_holds_25_and_says_use_move_when_there_are_more(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    # alice opens with 6-1 (a handful of plays); bob then rolls 3-3 (dozens).
    dice.face = faces(6, 1, then=(3,))
    mid, thread, board = await start(fake, alice, bob, game="backgammon", points=5)

    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 0, (6, 1))
    assert 1 < len(view.legal_moves) < 25
    options = menu_options(board)
    assert [o["value"] for o in options] == list(view.legal_moves)
    assert [o["label"] for o in options] == list(view.legal_moves)
    assert board.content == f"<@{alice.id}>, it's your turn."
    assert "/move" not in board.content
    await fake.select(board, ["13/7 8/7"], by=alice)
    board = await next_board(fake, thread, mid, board)
    assert board.content == f"<@{bob.id}>, it's your turn."  # no menu at all: Roll or Double
    assert not [c for c in board.walk_components() if c.get("type") == 3]

    await fake.click(board, label="Roll", by=bob)
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3, 3))
    count = len(view.legal_moves)
    assert count > 25
    options = menu_options(board)
    assert len(options) == 25
    assert [o["value"] for o in options] == list(view.legal_moves[:25])
    assert [o["label"] for o in options] == list(view.legal_moves[:25])
    assert board.content == (
        f"<@{bob.id}>, it's your turn.\n"
        f"{count} legal moves: the menu shows the first 25. Type `/move` for any other."
    )
    # One of the plays the menu leaves out, typed with /move as the message says.
    hidden = view.legal_moves[-1]
    assert hidden not in {o["value"] for o in options}
    it = await fake.slash("move", {"play": hidden}, by=bob, channel=thread)
    assert (await reply_to(it)).content == "Played."
    await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert view.last_move is not None and view.last_move.seat == 1
    assert view.last_move.text == hidden


# --- 6. Embed fields, alt text, the revealed seed ----------------------------------------------


async def test_turn_and_dice_fields_and_alt_text_from_describe(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    dice.face = faces(6, 1, then=(3,))
    mid, thread, board = await start(fake, alice, bob, game="backgammon", points=5)

    # alice's opening 6-1, to move.
    view = await svc.handle(ViewMatch(mid))
    assert fields(board)["Turn"] == "alice (white)" and fields(board)["Dice"] == "6-1"
    check_alt(board, view)
    assert board.attachments[0].description != ""
    await fake.select(board, ["13/7 8/7"], by=alice)

    # bob to roll or double: nothing rolled yet; the alt text shows alice's last move.
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert view.phase is Phase.ROLL and view.last_move is not None
    assert fields(board)["Turn"] == "bob (black)" and fields(board)["Dice"] == "not rolled"
    check_alt(board, view)
    await fake.click(board, label="Double", by=bob)

    # The double on offer: alice's turn to answer, still no dice.
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert view.phase is Phase.CUBE_OFFERED and view.cube_offered_by == 1
    assert fields(board)["Turn"] == "alice (white)" and fields(board)["Dice"] == "not rolled"
    assert fields(board)["Cube"] == "bob doubles to 2"
    check_alt(board, view)
    await fake.click(board, label="Take", by=alice)

    # bob rolled for (3-3), to move; the cube at 2 is alice's.
    board = await next_board(fake, thread, mid, board)
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.dice) == (Phase.MOVE, (3, 3))
    assert fields(board)["Turn"] == "bob (black)" and fields(board)["Dice"] == "3-3"
    assert fields(board)["Cube"] == "2, owned by alice"
    check_alt(board, view)
    # Different positions, different alt texts: the comparison is not with a constant.
    alts = {m.attachments[0].description for m in fake.messages(thread) if m.attachments}
    assert len(alts) == 4

    # Nannon too: one die, and its own describe.
    dice.face = faces(6, 1, then=(3,))
    carol = await fake.add_member("carol")
    nid, nthread, nboard = await start(fake, carol, alice, game="nannon", points=3)
    nview = await svc.handle(ViewMatch(nid))
    assert (nview.phase, nview.actor) == (Phase.ROLL, 1)  # carol's opening 5 was forced
    assert fields(nboard)["Turn"] == "alice (black)" and fields(nboard)["Dice"] == "not rolled"
    check_alt(nboard, nview)
    await fake.click(nboard, label="Roll", by=alice)
    nboard = await next_board(fake, nthread, nid, nboard)
    nview = await svc.handle(ViewMatch(nid))
    assert nview.dice == (3,) and fields(nboard)["Dice"] == "3"
    check_alt(nboard, nview)


@pytest_asyncio.fixture
async def real_dice_bot(start_fake_discord: Callable[..., Any]) -> FakeDiscord:
    """The bot with its own dice (FairDice.new: a fresh random seed per match)."""
    fake: FakeDiscord = await start_fake_discord(
        lambda fake, tmp_path: tablebot_factory(fake, cast("Path", tmp_path))
    )
    await fake.wait_for_commands()
    return fake


async def test_match_over_reveals_the_stored_seed(real_dice_bot: FakeDiscord) -> None:
    fake = real_dice_bot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mid, thread, board = await start(fake, alice, bob, game="nannon", points=3)
    view = await svc.handle(ViewMatch(mid))
    commitment = view.dice_commitment
    assert commitment is not None and view.dice_seed is None  # secret while the match is on
    assert commitment in embed_text(board)  # published at the start
    assert "Dice seed" not in embed_text(board)

    it = await fake.slash("resign", {"level": "match"}, by=alice, channel=thread)
    assert (await reply_to(it)).content == "You conceded the match."
    over = await fake.wait_until(
        lambda: next(
            (m for m in results(fake, thread) if m.embeds[0]["title"].startswith("Match over")),
            None,
        ),
        what="the match result",
    )
    await fake.wait_bot_idle()
    view = await svc.handle(ViewMatch(mid))
    seed = view.dice_seed
    assert view.match_over and seed is not None and view.dice_commitment == commitment
    report = await svc.handle(VerifyMatch(mid, fake.guild.id))
    assert report.seed == seed and report.commitment == commitment and report.ok is True
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    assert seed != "00" * len(bytes.fromhex(seed))  # a real, random seed
    lines = over.embeds[0]["description"].splitlines()
    assert lines[-1] == (
        f"Dice seed: `{seed}` (commitment `{commitment}`); check it with `/verify match:{mid}`."
    )


# --- 7. Claim win ------------------------------------------------------------------------------


async def test_claim_win_refused_to_a_bystander_then_a_forfeit(
    tablebot: FakeDiscord, dice: DiceScript, clock: Clock
) -> None:
    fake = tablebot
    svc: MatchService = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    dice.face = faces(6, 1, then=(3,))
    mid, thread, board = await start(fake, alice, bob, game="nannon", points=3)
    # alice's opening 5 was forced; bob is to roll (or double) and goes idle.
    view = await svc.handle(ViewMatch(mid))
    assert (view.phase, view.actor, view.score) == (Phase.ROLL, 1, (0.0, 0.0))
    settings = await svc.handle(GetSettings(fake.guild.id))
    start_at = view.last_action_at
    claim_at = start_at + settings.claim_minutes * 60 + 1
    assert await fire_due(fake, claim_at) == [("claim", mid)]
    claim = await fake.wait_until(
        lambda: next(
            (m for m in reversed(fake.messages(thread)) if "Claim win" in labels(m)), None
        ),
        what="the claim message",
    )
    await fake.wait_bot_idle()
    assert claim.content == (
        f"<@{alice.id}>, bob has not played in match #{mid} for {settings.claim_minutes} min. "
        "You may claim the win."
    )
    # The service checks the idle time on its own clock: move it past the claim time.
    clock.advance(settings.claim_minutes * 60 + 10)

    # carol is not playing: refused, only she sees it, nothing changes.
    # A refusal is the click's answer.
    it = await fake.click(claim, label="Claim win", by=carol)
    refusal = await reply_to(it)
    assert refusal.ephemeral and refusal.content == f"You are not playing in match #{mid}."
    # bob, the idle one, may not claim either.
    it = await fake.click(claim, label="Claim win", by=bob)
    refusal = await reply_to(it)
    assert refusal.ephemeral
    assert refusal.content == "The match is waiting for you: you can't claim it."
    await fake.wait_bot_idle()
    after = await svc.handle(ViewMatch(mid))
    assert not after.match_over and after.version == view.version
    assert labels(claim) == ["Claim win"]

    it = await fake.click(claim, label="Claim win", by=alice)
    assert (await it.response()).type == 7  # the claim message loses its button
    over = await fake.wait_until(
        lambda: next(
            (m for m in results(fake, thread) if m.embeds[0]["title"].startswith("Match over")),
            None,
        ),
        what="the match result",
    )
    await fake.wait_bot_idle()
    final = await svc.handle(ViewMatch(mid))
    assert final.match_over and final.winner_seat == 0
    assert final.score == (3.0, 0.0)
    result = final.games[-1]
    assert (result.winner, result.kind, result.points) == (0, ResultKind.FORFEIT, 3)
    lines = over.embeds[0]["description"].splitlines()
    assert lines[:3] == [
        "Game 1: alice wins 3 points: bob conceded.",
        "Score: alice 3 to 0 bob (to 3).",
        "**alice wins the match!**",
    ]
    assert not claim.components  # the claim button is gone
    assert not board.components
    for member, won in ((alice, 1), (bob, 0)):
        stats = await svc.handle(Stats(fake.guild.id, member.id, GameKind.NANNON))
        assert (stats.played, stats.won) == (1, won)
