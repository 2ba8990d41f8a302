"""A server with no puzzles through the fake Discord: /puzzle answers at once, politely and
privately, that puzzles are being prepared (the self-play seeding, held back here, runs in the
background), and once the seeding is done serves a self-play puzzle with its board and menu,
naming no player."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import reply_to, service_of
from support.puzzle_driver import SelfPlayRunner

from bot.service.puzzle_seeding import SELF_PLAY_PLAYER
from engines.base import GameKind

pytestmark = pytest.mark.asyncio


async def answer(fake: FakeDiscord, command: str, by: Member, **options: Any) -> Message:
    return await reply_to(await fake.slash(command, options, by=by))


async def test_an_empty_server_is_told_then_served_a_self_play_puzzle(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    service = service_of(fake)
    runner = SelfPlayRunner()  # in this process, held until ``go``
    service.seeder.runner = runner
    service.seeder.games = {GameKind.NANNON: 30}
    service.seeder._seeds = lambda: 7
    alice = await fake.add_member("alice")

    told = await answer(fake, "puzzle", alice, game="nannon")
    assert told.ephemeral and "being prepared" in told.content
    assert service.seeder.under_way(fake.guild.id) == {GameKind.NANNON}  # started, not awaited
    assert not [c for c in told.walk_components() if c.get("type") == 3]

    runner.go.set()
    await service.seeder.wait_idle()
    assert runner.calls == [(GameKind.NANNON, 30, 7)]
    card = await answer(fake, "puzzle", alice, game="nannon")
    assert card.ephemeral
    assert card.attachments and card.attachments[0].filename == "puzzle.png"
    assert "Find the best move" in (card.embeds[0].get("description") or "")
    [menu] = [c for c in card.walk_components() if c.get("type") == 3]
    puzzle_id = int(menu["custom_id"].rsplit(":", 1)[1])
    row = await service.store.puzzle_row(puzzle_id)
    assert row is not None and row["match_id"] is None
    assert int(row["player_id"]) == SELF_PLAY_PLAYER
    assert "alice" not in json.dumps(card.embeds)
