"""A checkers match through the fake Discord: a short opening into a double jump typed as
``22x6`` shorthand with /move, moves from the menu, the board PNG with alt text in the right
orientation, and a draw offer declined, then offered again with /draw and accepted: a drawn game
in a one-game match leads to another game, with the colours swapped."""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import embed_text, next_board, results, service_of

from bot.service import ViewMatch
from engines.base import Phase, ResultKind
from engines.checkers import Board

pytestmark = pytest.mark.asyncio


def labels(message: Message) -> set[str]:
    return {b["label"] for b in message.buttons}


def check_board(board: Message, black: str, white: str) -> None:
    assert board.attachments and board.attachments[0].filename == "board.png"
    assert board.attachments[0].data.startswith(b"\x89PNG\r\n\x1a\n")
    alt = board.attachments[0].description
    assert alt is not None and alt.startswith("Checkers")
    # The picture is drawn for the seat playing Black, whoever is on turn.
    assert f"{black} (black" in alt and f"{white} (white" in alt


async def test_checkers_double_jump_and_draw_offers(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")

    it = await fake.slash("challenge", {"game": "checkers", "opponent": bob}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and "1 game" in embed_text(invitation)
    await fake.click(invitation, label="Accept", by=bob)
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    assert thread.name == "Checkers · alice vs bob · 1 game"
    board = await next_board(fake, thread, 1, None)
    assert board.image().size == (800, 500)
    view = await svc.handle(ViewMatch(1))
    assert view.colours == ("black", "white") and view.actor == 0  # Black moves first
    assert labels(board) == {"Offer draw", "Resign"}
    assert "alice (black) to move" in embed_text(board)
    assert f"`{Board.initial().fen}`" in embed_text(board)

    async def play(who: Member, move: str, *, by_command: bool = False) -> Message:
        if by_command:
            it = await fake.slash("move", {"play": move}, by=who, channel=thread)
            assert (await it.followup()).content == "Played."
        else:
            it = await fake.select(board, [move], by=who)
            assert (await it.response()).type == 7  # the board, edited in the answer
        following = await next_board(fake, thread, 1, board)
        check_board(following, "alice", "bob")
        return following

    board = await play(alice, "9-13")
    board = await play(bob, "21-17", by_command=True)
    board = await play(alice, "6-9")
    board = await play(bob, "17-14")
    view = await svc.handle(ViewMatch(1))
    assert set(view.legal_moves) == {"9x18", "10x17"}  # captures are compulsory
    board = await play(alice, "9x18")
    view = await svc.handle(ViewMatch(1))
    assert set(view.legal_moves) == {"22x15x6", "23x14"}
    # The double jump, typed short: 22x6 is unambiguous here.
    board = await play(bob, "22x6", by_command=True)
    view = await svc.handle(ViewMatch(1))
    assert view.last_move is not None and view.last_move.text == "22x15x6"
    assert view.last_move.move.captures and len(view.last_move.move.captures) == 2
    assert "bob: 22x15x6" in embed_text(board)
    assert isinstance(view.position, Board) and view.position.fen == view.position_id
    assert f"`{view.position_id}`" in embed_text(board)

    # alice offers a draw; bob declines; alice is still to move.
    it = await fake.click(board, label="Offer draw", by=alice)
    assert (await it.response()).type == 7  # the board, edited in the answer
    board = await next_board(fake, thread, 1, board)
    assert labels(board) == {"Accept draw", "Decline draw", "Resign"}
    assert "alice offers a draw" in embed_text(board)
    assert f"<@{bob.id}>" in board.content
    it = await fake.click(board, label="Accept draw", by=alice)  # not hers to answer
    refusal = (await it.response()).message
    assert refusal is not None and refusal.ephemeral and "not your turn" in refusal.content
    it = await fake.click(board, label="Decline draw", by=bob)
    board = await next_board(fake, thread, 1, board)
    view = await svc.handle(ViewMatch(1))
    assert view.phase is Phase.MOVE and view.actor == 0 and view.draw_offered_by is None
    assert "declines the draw" in embed_text(board)

    # Offered again with /draw, accepted with /draw: game 1 is drawn, ½ each, and with a
    # one-game match nobody has won yet, so game 2 starts with the colours swapped.
    it = await fake.slash("draw", by=alice, channel=thread)
    assert (await it.followup()).content == "Done."
    board = await next_board(fake, thread, 1, board)
    assert (await svc.handle(ViewMatch(1))).draw_offered_by == 0
    it = await fake.slash("draw", by=bob, channel=thread)
    assert (await it.followup()).content == "Done."
    board = await next_board(fake, thread, 1, board)
    view = await svc.handle(ViewMatch(1))
    assert not view.match_over and view.game_number == 2
    assert view.score == (0.5, 0.5)
    assert view.games[-1].winner is None and view.games[-1].kind is ResultKind.DRAW
    assert view.colours == ("white", "black") and view.actor == 1
    game_over = results(fake, thread)[-1]
    text = embed_text(game_over)
    assert text.startswith("Game over") and "Game 1 is drawn" in text
    assert "alice ½ to ½ bob (1 game)" in text
    check_board(board, "bob", "alice")
    assert "game 2" in embed_text(board) and "bob (black) to move" in embed_text(board)
