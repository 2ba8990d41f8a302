"""A whole Nannon match to 3 through the fake Discord: challenge, accept, the match thread, rolls,
moves by menu and by /move, a double passed (with its confirmation), a double taken, and a
NANNON with the 📣 shout by the winner (and not by anyone else)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from support.discord_driver import (
    DiceScript,
    embed_text,
    next_board,
    next_board_or_end,
    reply_to,
    results,
    service_of,
)

from bot.discord.presenter import SHOUT
from bot.service import MatchView, Stats, ViewMatch
from engines import new_match
from engines.actions import Roll, action_from_dict
from engines.base import GameKind, GameMatch, Phase, ResultKind
from engines.nannon import SAFETY, Position

pytestmark = pytest.mark.asyncio


class Steer:
    """Dice that favour one seat: it rolls 6s (and wins openings 6-1), the other rolls 1s.
    The service shows the dice the match each die is rolled for: that says whose die it is."""

    def __init__(self) -> None:
        self.favour = 0
        self._opening_die = 0

    def face(self, match: GameMatch) -> int:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            seat, self._opening_die = self._opening_die, 1 - self._opening_die
        else:
            seat = match.turn
        return 6 if seat == self.favour else 1


def progress_after(view: MatchView, text: str) -> tuple[int, int]:
    """(checkers in safety, pips moved) for the mover after playing ``text``."""
    position = view.position
    assert isinstance(position, Position) and view.dice is not None
    from engines.nannon import Move

    after = position.apply(Move.parse(text, position, view.dice[0]))
    mine = after.theirs  # seen from the opponent now
    return sum(1 for p in mine if p == SAFETY), sum(mine)


def choose(view: MatchView, racing: bool) -> str:
    """The racer runs home and hits; the other crawls and never reaches safety if it can help it."""
    moves = list(view.legal_moves)
    if racing:
        return max(moves, key=lambda m: (progress_after(view, m), "*" in m))
    return min(moves, key=lambda m: ("*" in m, progress_after(view, m)))


class Driver:
    """Plays whatever the latest board waits for, as the right player: Roll, or a move from
    the menu and by /move (checking /move's autocomplete) in turn."""

    def __init__(
        self, fake: FakeDiscord, thread: Channel, players: dict[int, Member], racer: int
    ) -> None:
        self.fake, self.thread, self.players, self.racer = fake, thread, players, racer
        self.svc = service_of(fake)
        self.used: Counter[str] = Counter()

    async def play_turn(self, board: Message) -> None:
        fake, view = self.fake, await self.svc.handle(ViewMatch(1))
        assert view.actor is not None
        who = self.players[view.actor]
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            self.used["roll"] += 1
            it = await fake.click(board, label="Roll", by=who)
            assert (await it.response()).type == 7  # the board, edited in the answer
            return
        assert view.phase is Phase.MOVE, view.phase
        move = choose(view, racing=view.actor == self.racer)
        if sum(self.used.values()) % 2:
            self.used["command"] += 1
            it = await fake.autocomplete(
                "move", {"play": ""}, focused="play", by=who, channel=self.thread
            )
            assert [c["value"] for c in await it.choices()] == list(view.legal_moves)
            it = await fake.slash("move", {"play": move}, by=who, channel=self.thread)
            assert (await it.followup()).content == "Played."
        else:
            self.used["select"] += 1
            it = await fake.select(board, [move], by=who)
            assert (await it.response()).type == 7  # the board, edited in the answer

    async def play_until(self, board: Message, done: Callable[[MatchView], bool]) -> Message:
        for _ in range(60):
            view = await self.svc.handle(ViewMatch(1))
            if done(view):
                return board
            await self.play_turn(board)
            board = await next_board_or_end(self.fake, self.thread, 1, board) or board
        view = await self.svc.handle(ViewMatch(1))
        raise AssertionError(f"not there in 60 turns: {view.phase} {view.actor} {view.score}")


def _match_id(board: Message) -> str:
    text = board.embeds[0]["footer"]["text"]
    return text.split("#", 1)[1].split(" ", 1)[0]


async def test_nannon_match_to_3(tablebot: FakeDiscord, dice: DiceScript) -> None:
    fake = tablebot
    svc = service_of(fake)
    steer = Steer()
    dice.steer = steer.face
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    players = {0: alice, 1: bob}

    # Challenge: an invitation that pings bob only, with Accept / Decline / Cancel.
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob, "points": 3}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral
    assert f"<@{bob.id}>" in invitation.content
    assert {b["label"] for b in invitation.buttons} == {"Accept", "Decline", "Cancel"}
    assert "to 3" in embed_text(invitation)

    # Someone else can't take bob's place.
    it = await fake.click(invitation, label="Accept", by=carol)
    refusal = await reply_to(it)  # a refusal is the click's answer
    assert refusal.ephemeral and "bob" in refusal.content

    it = await fake.click(invitation, label="Accept", by=bob)
    assert (await it.response()).type == 7  # the invitation, edited in the click's answer
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    assert thread.name == "Nannon · alice vs bob · to 3"
    board = await next_board(fake, thread, 1, None)
    driver = Driver(fake, thread, players, racer=0)
    assert board.attachments and board.attachments[0].filename == "board.png"
    assert board.attachments[0].description  # alt text from render.describe
    assert board.image().size == (800, 500)
    assert embed_text(board).count("Position") == 1

    # Game 1: alice won the opening 6-1; her only move with 5 (2/S) was played for her.
    view = await svc.handle(ViewMatch(1))
    assert view.phase is Phase.ROLL and view.actor == 1
    assert "alice: 2/S" in embed_text(board)
    assert f"<@{bob.id}>" in board.content
    assert {"Roll", "Double", "Resign"} <= {b["label"] for b in board.buttons}

    # A wrong user: alice clicks bob's Roll; carol (not playing) too. Nothing changes.
    it = await fake.click(board, label="Roll", by=alice)
    assert "not your turn" in (await it.response()).message.content  # type: ignore[union-attr]
    it = await fake.click(board, label="Roll", by=carol)
    assert "not your match" in (await it.response()).message.content  # type: ignore[union-attr]
    assert (await svc.handle(ViewMatch(1))).version == view.version

    board = await driver.play_until(board, lambda v: v.phase is Phase.ROLL and v.actor == 0)

    # Alice doubles; bob passes, and confirms.
    assert (await svc.handle(ViewMatch(1))).phase is Phase.ROLL
    it = await fake.click(board, label="Double", by=alice)
    board = await next_board(fake, thread, 1, board)
    assert {"Take", "Pass"} <= {b["label"] for b in board.buttons}
    assert "doubles to 2" in embed_text(board)
    it = await fake.click(board, label="Pass", by=bob)
    confirm = (await it.response()).message
    assert confirm is not None and confirm.ephemeral
    assert (await svc.handle(ViewMatch(1))).phase is Phase.CUBE_OFFERED  # nothing passed yet
    it = await fake.click(confirm, label="Yes, pass", by=bob)
    board = await next_board(fake, thread, 1, board)
    view = await svc.handle(ViewMatch(1))
    assert view.score == (1, 0) and view.game_number == 2
    game_over = results(fake, thread)[-1]
    assert "bob passed the double" in embed_text(game_over)
    assert "Game 2 opening roll: alice 6, bob 1" in embed_text(game_over)

    # Game 2: the first player who may double does; the other takes, then races to a NANNON.
    board = await driver.play_until(
        board, lambda v: v.phase is Phase.ROLL and v.actor is not None and v.can_double[v.actor]
    )
    doubler = (await svc.handle(ViewMatch(1))).actor
    assert doubler is not None
    taker = 1 - doubler
    steer.favour = driver.racer = taker
    it = await fake.click(board, label="Double", by=players[doubler])
    board = await next_board(fake, thread, 1, board)
    it = await fake.click(board, label="Take", by=players[taker])
    board = await next_board(fake, thread, 1, board)
    view = await svc.handle(ViewMatch(1))
    winner, loser = players[taker], players[doubler]
    assert (view.cube_value, view.cube_owner) == (2, taker)
    assert f"2, owned by {winner.name}" in embed_text(board)

    await driver.play_until(board, lambda v: v.match_over)
    await fake.wait_until(
        lambda: any(embed_text(m).startswith("Match over") for m in results(fake, thread)),
        what="the match result",
    )
    view = await svc.handle(ViewMatch(1))
    assert view.match_over and view.winner_seat == taker and view.score[taker] >= 3
    assert driver.used["select"] and driver.used["command"] and driver.used["roll"]
    assert view.games[-1].kind is ResultKind.NANNON and view.games[-1].points == 4
    # Nobody was rolled for while they could double: replay the event log and check each
    # automatic roll (in game 2 they come after the take, when the doubler no longer has
    # the cube, or where the cube is dead).
    replayed = new_match(GameKind.NANNON, view.rules)
    auto_rolls = 0
    for event in await svc.store.events(1):
        action = action_from_dict(event.payload)
        if isinstance(action, Roll) and event.actor is None:
            auto_rolls += 1
            assert not replayed.can_double(replayed.turn), (event.seq, replayed.cube)
            assert (
                replayed.cube.owner == 1 - replayed.turn
                or replayed.crawford_game
                or replayed.cube_dead(replayed.turn)  # the dead-cube ruling
            )
        replayed.apply(action)
    assert auto_rolls
    announcement = results(fake, thread)[-1]
    text = embed_text(announcement)
    assert "NANNON" in announcement.content and f"<@{winner.id}>" in announcement.content
    assert f"{winner.name} wins the match" in text and "Dice seed" in text
    assert {b["label"] for b in announcement.buttons} == {"Export", "Rematch"}
    await fake.wait_until(lambda: announcement.reaction(SHOUT), what="the bot's 📣")
    assert not any(b.components for b in fake.messages(thread) if b is not announcement)

    # The 📣 shout: the loser's reaction does nothing; the winner's gets one NANNON!, once.
    await fake.react(announcement, SHOUT, by=loser)
    await fake.react(announcement, SHOUT, by=winner)
    shout = await fake.wait_until(
        lambda: [m for m in fake.messages(thread) if m.content.startswith("# 📣 NANNON!")],
        what="the shout",
    )
    assert len(shout) == 1 and f"**{winner.name}**" in shout[0].content
    await fake.unreact(announcement, SHOUT, by=winner)
    await fake.react(announcement, SHOUT, by=winner)
    await fake.wait_bot_idle()
    stats = await svc.handle(Stats(fake.guild.id, winner.id, GameKind.NANNON))
    assert stats.nannons_shouted == 1
    assert (await svc.handle(Stats(fake.guild.id, loser.id, GameKind.NANNON))).nannons_shouted == 0
    assert len([m for m in fake.messages(thread) if m.content.startswith("# 📣")]) == 1
