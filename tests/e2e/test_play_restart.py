"""Persistent buttons: an old board's button works after a restart; an out-of-date menu is
refused politely and changes nothing; open challenges, self and bot challenges."""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord, Member, Message

from bot.service import MatchView
from engines.base import Phase

from .conftest import next_board, service_of

pytestmark = pytest.mark.asyncio


async def start_open_match(fake: FakeDiscord, alice: Member, bob: Member) -> Message:
    it = await fake.slash("challenge", {"game": "nannon", "points": 3}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and "anyone" in invitation.embeds[0]["description"]
    it = await fake.click(invitation, label="Accept", by=alice)
    assert "yourself" in (await it.followup()).content
    await fake.click(invitation, label="Accept", by=bob)
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    return await next_board(fake, thread, 1, None)


async def act(fake: FakeDiscord, board: Message, view: MatchView, who: Member) -> None:
    if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
        await fake.click(board, label="Roll", by=who)
    else:
        await fake.select(board, [view.legal_moves[0]], by=who)


async def test_old_board_button_works_after_restart(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    board = await start_open_match(fake, alice, bob)
    thread = board.channel
    svc = service_of(fake)
    # The accept handler's last step records the board; only then is the bot idle.
    await fake.wait_bot_idle()
    for _ in range(200):
        # Store reads queue behind the bot's pending writes (one aiosqlite thread, FIFO).
        row = await svc.store.match_row(1)
        if row is not None and row["board_message_id"] == board.id:
            break
    before = await svc.get_view(1)
    assert before.board_message_id == board.id and before.actor is not None

    await fake.restart_bot()
    await fake.wait_for_commands()
    players = {0: alice, 1: bob}
    await act(fake, board, before, players[before.actor])
    board = await next_board(fake, thread, 1, board)
    after = await service_of(fake).get_view(1)
    assert after.version > before.version


async def test_out_of_date_menu_is_refused_and_changes_nothing(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    board = await start_open_match(fake, alice, bob)
    svc = service_of(fake)
    view = await svc.get_view(1)
    assert view.actor is not None
    players = {0: alice, 1: bob}
    it = await fake.click(board, label="Resign", by=players[view.actor])
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral
    await act(fake, board, view, players[view.actor])
    board = await next_board(fake, board.channel, 1, board)
    moved = await svc.get_view(1)

    it = await fake.click(menu, label="Resign this game", by=players[view.actor])
    refusal = await it.followup()
    assert refusal.ephemeral and "out of date" in refusal.content
    assert (await svc.get_view(1)).version == moved.version


async def test_self_and_bot_challenges_are_refused(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    robot = await fake.add_member("robot", bot=True)
    for opponent in (alice, robot):
        it = await fake.slash("challenge", {"game": "checkers", "opponent": opponent}, by=alice)
        response = await it.response()
        assert response.ephemeral and response.message is not None
        assert "challenge" in response.message.content.lower() or "Bots" in (
            response.message.content
        )
    assert not [m for m in fake.messages(fake.channel) if not m.ephemeral]
