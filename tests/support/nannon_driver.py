"""Helpers for the fault and mention tests: start a Nannon match through the fake Discord, wait
for boards by their version, play a turn as whoever the match waits for, and read back what the
users saw and what the service stored."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import cycle

from fakediscord import Channel, FakeDiscord, InteractionHandle, Member, Message

from bot.service import MatchView, ViewMatch
from engines import replay
from engines.base import GameMatch, Phase
from engines.nannon import SAFETY, Move, Position
from support.discord_driver import (
    DiceScript,
    boards,
    handed_out,
    handlers_done,
    results,
    service_of,
    shown_version,
)

MATCH_ID = 1  # every test starts from a fresh database


def faces(*first: int, then: Iterable[int] = (3,)) -> Callable[[], int]:
    """A die script: ``first`` in order, then ``then`` over and over."""
    queue = deque(first)
    rest = cycle(tuple(then))

    def face() -> int:
        return queue.popleft() if queue else next(rest)

    return face


def board_version(message: Message) -> int:
    """The match version a board shows (its footer says ``Match #1 · move 7``)."""
    return shown_version(message)


@dataclass
class Table:
    fake: FakeDiscord
    thread: Channel
    players: dict[int, Member]  # seat -> member

    async def view(self) -> MatchView:
        return await service_of(self.fake).handle(ViewMatch(MATCH_ID))

    async def events(self) -> int:
        return await service_of(self.fake).store.event_count(MATCH_ID)

    async def assert_log_replays(self) -> None:
        """The event log, replayed, gives the stored snapshot and the live view's position."""
        svc = service_of(self.fake)
        view = await svc.handle(ViewMatch(MATCH_ID))
        events = await svc.store.events(MATCH_ID)
        replayed = replay(view.kind, view.rules, [e.payload for e in events])
        stored = await svc.store.snapshot(MATCH_ID)
        assert json.loads(json.dumps(replayed.snapshot())) == stored
        assert replayed.score == view.score

    def boards(self) -> list[Message]:
        return boards(self.fake, self.thread, MATCH_ID)

    def results(self) -> list[Message]:
        return results(self.fake, self.thread)

    async def board_at(self, version: int) -> Message:
        """The board showing ``version`` (waits for it to be posted)."""

        def found() -> Message | None:
            hits = [b for b in self.boards() if board_version(b) == version]
            return hits[-1] if hits else None

        board = await self.fake.wait_until(found, what=f"the board of version {version}")
        return handed_out(board)

    async def latest_board(self) -> Message:
        """The board of the current version, once posted (and the bot is done posting)."""
        view = await self.view()
        board = await self.board_at(view.version)
        await handlers_done(self.fake)
        return board

    async def settled(self, previous: Message, since: int) -> None:
        """Wait until the bot has finished an action asked for after call ``since`` (a click on
        ``previous``, or a command): it was answered, and the bot has no handler running and no
        request in flight."""
        await self.fake.wait_for_call(
            lambda c: (
                c.method == "POST" and c.path.endswith("/callback") and c.status in (200, 204)
            ),
            since=since,
        )
        await handlers_done(self.fake)

    async def next_after(self, before: MatchView, clicked: Message, since: int) -> Message | None:
        """The board after the action taken on ``clicked`` (at ``before``), once the bot is done
        with it; None when that action ended the match."""

        def ready() -> Message | bool | None:
            hits = [b for b in self.boards() if board_version(b) == before.version + 1]
            if hits:
                return hits[-1]
            return any("Match over" in str(m.embeds[0]["title"]) for m in self.results())

        got = await self.fake.wait_until(ready, what=f"what follows version {before.version}")
        await self.settled(clicked, since)
        return got if isinstance(got, Message) else None

    async def play_turn(
        self, board: Message, view: MatchView, move: str | None = None
    ) -> InteractionHandle:
        """Roll, or pick ``move`` (default: the first legal one) from the menu, as the player the
        match waits for (after a tied opening either may roll: seat 0 does)."""
        who = self.players[view.actor if view.actor is not None else 0]
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            return await self.fake.click(board, label="Roll", by=who)
        assert view.phase is Phase.MOVE, view.phase
        return await self.fake.select(board, [move or view.legal_moves[0]], by=who)

    async def wait_match_over(self) -> Message:
        def over() -> Message | None:
            found = [
                m for m in self.results() if str(m.embeds[0]["title"]).startswith("Match over")
            ]
            return found[-1] if found else None

        message = await self.fake.wait_until(over, what="the match result")
        await self.fake.wait_bot_idle()
        return message


async def start_match(
    fake: FakeDiscord, dice: DiceScript, challenger: Member, opponent: Member, points: int
) -> tuple[Table, Message]:
    """``challenger`` challenges ``opponent`` to Nannon, who accepts; the table and first board."""
    it = await fake.slash(
        "challenge", {"game": "nannon", "opponent": opponent, "points": points}, by=challenger
    )
    invitation = (await it.response()).message
    assert invitation is not None
    it = await fake.click(invitation, label="Accept", by=opponent)
    assert (await it.response()).type == 7  # the invitation, edited in the click's answer
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    table = Table(fake, thread, {0: challenger, 1: opponent})
    return table, await table.latest_board()


def ephemeral_texts(it: InteractionHandle) -> list[str]:
    """What the bot told only the clicking user: an ephemeral response and follow-ups."""
    found = [m for m in it.followups if m.ephemeral]
    original = it.state.original
    if original is not None and original.ephemeral and original not in found:
        found.insert(0, original)
    return [m.content for m in found]


async def answered(fake: FakeDiscord, it: InteractionHandle) -> list[str]:
    """Wait until the bot acknowledged ``it`` and has finished with it; its ephemeral texts."""
    await it.response()
    await fake.wait_bot_idle()
    return ephemeral_texts(it)


class NannonForBob:
    """Dice for a NANNON by bob (seat 1): he wins the opening 6-1 and then rolls 6s; alice
    rolls 1s. Use ``dice.steer = NannonForBob().face`` with :func:`nannon_for_bob_move`."""

    def __init__(self) -> None:
        self._opening_die = 0

    def face(self, match: GameMatch) -> int:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            seat, self._opening_die = self._opening_die, 1 - self._opening_die
        else:
            seat = match.turn
        return 6 if seat == 1 else 1


def nannon_for_bob_move(view: MatchView) -> str:
    """bob races home; alice crawls, never hits and keeps out of safety when she can."""
    position, dice = view.position, view.dice
    assert isinstance(position, Position) and dice is not None

    def progress(text: str) -> tuple[int, int]:
        mine = position.apply(Move.parse(text, position, dice[0])).theirs
        return sum(1 for p in mine if p == SAFETY), sum(mine)

    moves = list(view.legal_moves)
    if view.actor == 1:
        return max(moves, key=progress)
    return min(moves, key=lambda m: ("*" in m, progress(m)))
