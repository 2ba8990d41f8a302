"""Persistent buttons: an old board's button works after a restart; an out-of-date menu is
refused politely and changes nothing; open challenges, self and bot challenges. Restarts with an
action in flight: it finishes (board posted, recorded) before the database closes, new clicks
are refused meanwhile, and a stuck handler is cancelled after the grace period."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import footer, handlers_done, next_board, reply_to, service_of

from bot.discord import presenter
from bot.discord.app import TableBot
from bot.rendering import Renderer
from bot.service import MatchView, ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio


async def start_open_match(fake: FakeDiscord, alice: Member, bob: Member) -> Message:
    it = await fake.slash("challenge", {"game": "nannon", "points": 3}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and "anyone" in invitation.embeds[0]["description"]
    it = await fake.click(invitation, label="Accept", by=alice)
    assert "yourself" in (await reply_to(it)).content  # a refusal is the click's answer
    await fake.click(invitation, label="Accept", by=bob)
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    board = await next_board(fake, thread, 1, None)
    await handlers_done(fake)  # the accept's handler has finished too
    return board


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
    # The accept handler's last step records the board's id (in the store, then in the live
    # copy of the match the view reads): wait for the bot's handlers, then for its requests.
    bot = fake.bot
    assert isinstance(bot, TableBot)
    async with asyncio.timeout(5):
        await bot.wait_idle()
    await fake.wait_bot_idle()
    before = await svc.handle(ViewMatch(1))
    assert before.board_message_id == board.id and before.actor is not None

    await fake.restart_bot()
    await fake.wait_for_commands()
    players = {0: alice, 1: bob}
    await act(fake, board, before, players[before.actor])
    board = await next_board(fake, thread, 1, board)
    after = await service_of(fake).handle(ViewMatch(1))
    assert after.version > before.version


async def test_out_of_date_menu_is_refused_and_changes_nothing(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    board = await start_open_match(fake, alice, bob)
    svc = service_of(fake)
    view = await svc.handle(ViewMatch(1))
    assert view.actor is not None
    players = {0: alice, 1: bob}
    it = await fake.click(board, label="Resign", by=players[view.actor])
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral
    await act(fake, board, view, players[view.actor])
    board = await next_board(fake, board.channel, 1, board)
    moved = await svc.handle(ViewMatch(1))

    it = await fake.click(menu, label="Resign this game", by=players[view.actor])
    refusal = await reply_to(it)
    assert refusal.ephemeral and "out of date" in refusal.content
    assert (await svc.handle(ViewMatch(1))).version == moved.version


async def test_self_and_bot_challenges_are_refused(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    robot = await fake.add_member("robot", bot=True)
    refusals = {
        alice: "You can't challenge yourself. Leave the opponent empty to let anyone accept.",
        robot: "Bots don't play here: challenge a person, or anyone.",
    }
    for opponent, refusal in refusals.items():
        it = await fake.slash("challenge", {"game": "checkers", "opponent": opponent}, by=alice)
        response = await it.response()
        assert response.ephemeral and response.message is not None
        assert response.message.content == refusal
    assert not [m for m in fake.messages(fake.channel) if not m.ephemeral]


class Hold:
    """Holds every board render until released: an action applied and not yet shown."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        original = presenter.render_board

        async def held(renderer: Renderer, view: MatchView, *rest: Any) -> Any:
            self.entered.set()
            await self.release.wait()
            return await original(renderer, view, *rest)

        monkeypatch.setattr(presenter, "render_board", held)


async def test_restart_while_an_action_is_in_flight(
    tablebot: FakeDiscord, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    players = {0: alice, 1: bob}
    board = await start_open_match(fake, alice, bob)
    thread = board.channel
    await fake.wait_bot_idle()
    before = await service_of(fake).handle(ViewMatch(1))
    assert before.actor is not None
    actor, other = players[before.actor], players[1 - before.actor]

    hold = Hold(monkeypatch)
    await act(fake, board, before, actor)
    async with asyncio.timeout(5):
        await hold.entered.wait()  # applied and committed; the board is not posted yet
    old_bot = fake.bot
    assert isinstance(old_bot, TableBot) and old_bot.work_in_flight == 1
    restart = asyncio.create_task(fake.restart_bot())
    async with asyncio.timeout(5):
        await old_bot.closing_started.wait()

    # Closing: new work is refused politely and changes nothing.
    for it in (
        await fake.click(board, label="Resign", by=other),
        await fake.slash("board", by=other, channel=thread),
    ):
        refusal = (await it.response()).message
        assert refusal is not None and refusal.ephemeral and "restarting" in refusal.content
    assert not restart.done()

    hold.release.set()
    new_bot = await restart
    assert new_bot is not old_bot
    board = await next_board(fake, thread, 1, board)
    svc = service_of(fake)
    after = await svc.handle(ViewMatch(1))
    assert after.version > before.version
    assert after.board_message_id == board.id  # recorded before the database closed
    assert f"move {after.version}" in footer(board)
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name != "discord"]
    assert not problems, [r.getMessage() for r in problems]

    # The board the old bot posted works with the new one.
    await fake.wait_for_commands()
    assert after.actor is not None
    await act(fake, board, after, players[after.actor])
    await next_board(fake, thread, 1, board)
    assert (await svc.handle(ViewMatch(1))).version > after.version


async def test_a_stuck_handler_does_not_hold_the_restart(
    tablebot: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    players = {0: alice, 1: bob}
    board = await start_open_match(fake, alice, bob)
    thread = board.channel
    await fake.wait_bot_idle()
    before = await service_of(fake).handle(ViewMatch(1))
    assert before.actor is not None
    hold = Hold(monkeypatch)
    await act(fake, board, before, players[before.actor])
    async with asyncio.timeout(5):
        await hold.entered.wait()
    old_bot = fake.bot
    assert isinstance(old_bot, TableBot)
    old_bot.close_grace = 0  # never released: cancelled at once
    monkeypatch.undo()
    await fake.restart_bot()
    await fake.wait_for_commands()

    # The action was committed before the handler was cancelled: /board shows where it stands.
    after = await service_of(fake).handle(ViewMatch(1))
    assert after.version > before.version
    assert after.actor is not None
    it = await fake.slash("board", by=players[after.actor], channel=thread)
    assert (await it.followup()).content == "Board posted."
    board = await next_board(fake, thread, 1, board)
    assert f"move {after.version}" in footer(board)
