"""The NANNON shout through the fake Discord, by everyone who might try: a Nannon match to 1 that
bob wins with a NANNON; carol (not playing) and alice (the loser) react 📣 and nothing happens;
bob's 📣 gets the one shout.
"""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import FakeDiscord, Message

from bot.app import TableBot
from bot.presenter import SHOUT
from bot.service import MatchService, MatchView, NotFoundError
from engines.base import GameKind, GameMatch, Phase, ResultKind
from engines.nannon import SAFETY, Move, Position

from .conftest import DiceScript, lift_rate_limit, service_of
from .nannon_driver import MATCH_ID, start_match

pytestmark = pytest.mark.asyncio


class Steer:
    """bob (seat 1) wins the opening 6-1 and then rolls 6s; alice rolls 1s."""

    def __init__(self, service: MatchService) -> None:
        self.service, self._opening_die = service, 0

    def face(self) -> int:
        try:
            match: GameMatch | None = self.service.live_match_for_testing(MATCH_ID)
        except NotFoundError:
            match = None  # the accept rolls the opening before the match is loaded
        if match is None or match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            seat, self._opening_die = self._opening_die, 1 - self._opening_die
        else:
            seat = match.turn
        return 6 if seat == 1 else 1


def choose(view: MatchView) -> str:
    """bob races home; alice crawls, never hits and keeps out of safety when she can."""
    position = view.position
    assert isinstance(position, Position) and view.dice is not None

    def progress(text: str) -> tuple[int, int]:
        mine = position.apply(Move.parse(text, position, view.dice[0])).theirs
        return sum(1 for p in mine if p == SAFETY), sum(mine)

    moves = list(view.legal_moves)
    if view.actor == 1:
        return max(moves, key=progress)
    return min(moves, key=lambda m: ("*" in m, progress(m)))


def shouts(fake: FakeDiscord, messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.content.startswith(f"# {SHOUT} NANNON!")]


async def settled(fake: FakeDiscord) -> None:
    """Until the bot has no handler running (a reaction's handler may post nothing)."""
    bot = fake.bot
    assert isinstance(bot, TableBot)
    async with asyncio.timeout(5):
        while bot.work_in_flight:
            await asyncio.sleep(0.005)
    await fake.wait_bot_idle()


async def test_only_the_winner_can_shout(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    svc = service_of(fake)
    await lift_rate_limit(fake)
    dice.face = Steer(svc).face
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    table, board = await start_match(fake, dice, alice, bob, 1)

    for _ in range(60):
        view = await table.view()
        if view.match_over:
            break
        move = choose(view) if view.phase is Phase.MOVE else None
        mark = fake.mark()
        await table.play_turn(board, view, move)
        board = await table.next_after(view, board, mark) or board
    announcement = await table.wait_match_over()
    view = await table.view()
    assert view.match_over and view.winner_seat == 1
    assert view.games[-1].kind is ResultKind.NANNON
    assert f"<@{bob.id}>" in announcement.content and SHOUT in announcement.content
    await fake.wait_until(lambda: announcement.reaction(SHOUT), what="the bot's 📣")

    for someone in (carol, alice):
        await fake.react(announcement, SHOUT, by=someone)
        await settled(fake)
        assert not shouts(fake, fake.messages(table.thread)), someone.name
    for someone in (carol, alice):
        stats = await svc.stats(fake.guild.id, someone.id, GameKind.NANNON)
        assert stats.nannons_shouted == 0

    await fake.react(announcement, SHOUT, by=bob)
    found = await fake.wait_until(
        lambda: shouts(fake, fake.messages(table.thread)), what="bob's shout"
    )
    await settled(fake)
    assert len(shouts(fake, fake.messages(table.thread))) == 1
    assert "**bob** shouts it: a shutout in game 1!" in found[0].content
    assert (await svc.stats(fake.guild.id, bob.id, GameKind.NANNON)).nannons_shouted == 1
    assert not shouts(fake, fake.messages(fake.channel))
