"""A roll with no legal move, with the server's auto-pass turned off through /config: the board
shows the roll and a menu whose only choice is "no move"; the opponent can't pick it, the player
does, and the turn passes with the usual message."""

from __future__ import annotations

from typing import Any

import pytest
from fakediscord import FakeDiscord, Message
from support.discord_driver import DiceScript, embed_text, service_of
from support.nannon_driver import answered, faces, start_match

from bot.discord.components import NO_MOVE_LABEL
from engines.base import Phase

pytestmark = pytest.mark.asyncio


def menu(message: Message) -> dict[str, Any]:
    (found,) = [c for c in message.walk_components() if c.get("type") == 3]
    return found


async def test_player_confirms_the_pass_from_the_menu(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mod = await fake.add_member("mod", manage_guild=True)
    it = await fake.slash("config automation", {"auto_pass": False}, by=mod)
    saved = (await it.response()).message
    assert saved is not None and saved.content.startswith("Saved.")
    assert "auto-pass off" in saved.content

    # Bob wins the opening 2-5 and plays H/3: his checkers on 3 (and 1, 2) make a prime on
    # alice's 4, 5 and 6, so her roll of 4 can't be played.
    dice.face = faces(2, 5, 4, then=(1,))
    table, board = await start_match(fake, dice, alice, bob, points=3)
    view = await table.view()
    assert view.rules.auto_pass is False and view.actor == 1
    await table.play_turn(board, view, "H/3")
    board = await table.board_at(view.version + 1)
    view = await table.view()
    if view.phase is Phase.ROLL:  # alice may double, so she rolls herself
        await table.play_turn(board, view)
        board = await table.board_at(view.version + 1)
        view = await table.view()
    await fake.wait_bot_idle()

    # The roll stays on the board; the menu offers only the pass.
    assert (view.phase, view.actor, view.dice, view.legal_moves) == (
        Phase.MOVE,
        0,
        (4,),
        ("no move",),
    )
    text = embed_text(board)
    assert 'alice rolls 4: no legal move, play "no move" to pass the turn.' in text
    assert 'Pass with "no move"' in text
    options = menu(board)["options"]
    assert [(o["label"], o["value"]) for o in options] == [(NO_MOVE_LABEL, "no move")]

    # Not bob's to pick; alice picks it and the turn passes.
    texts = await answered(fake, await fake.select(board, ["no move"], by=bob))
    assert texts and "not your turn" in texts[0]
    assert (await table.view()).version == view.version
    await fake.select(board, ["no move"], by=alice)
    board = await table.board_at(view.version + 1)
    await fake.wait_bot_idle()
    assert "alice has no legal move: the turn passes to bob." in embed_text(board)
    after = await table.view()
    assert after.turn == 1 and not after.must_pass
    events = await svc.store.events(after.match_id)
    assert [e.payload for e in events if e.payload.get("move") == "no move"] == [
        {"kind": "move", "player": 0, "move": "no move"}
    ]
    await table.assert_log_replays()
