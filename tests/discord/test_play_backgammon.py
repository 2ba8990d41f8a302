"""A backgammon money game through the fake Discord, with scripted dice: a Jacoby money game
challenged by /challenge, hits, entering from the bar, bearing off, moves by the menu and by
/move, and on every board the PNG with its alt text, the pip counts, the Position ID and the
gnubg Match ID (checked against the engines).

Dice are scripted without peeking at the service: every roll here is a click on Roll (with the
cube centred in a money game nobody is rolled for), so the test queues the two dice of the
player it clicks for, and the opening's two dice before the accept.
"""

from __future__ import annotations

from collections import Counter, deque
from itertools import cycle
from typing import Any

import pytest
from fakediscord import FakeDiscord, Message
from support.discord_driver import (
    DiceScript,
    embed_text,
    lift_rate_limit,
    next_board,
    next_board_or_end,
    results,
    service_of,
)

from bot.service import MatchView, ViewMatch
from engines.backgammon import Play, Position
from engines.base import Phase, ResultKind
from engines.gnubg import MatchId

pytestmark = pytest.mark.asyncio

# alice (seat 0) rolls big, bob (seat 1) rolls 2-1: the game is over in 26 rolls.
ALICE_ROLLS = ((6, 6), (5, 5), (6, 5), (4, 4))
BOB_ROLLS = ((2, 1),)


class QueuedDice:
    """The dice the next roll will show, queued by the test before it clicks Roll."""

    def __init__(self) -> None:
        self.queue: deque[int] = deque()
        self.rolls = {0: cycle(ALICE_ROLLS), 1: cycle(BOB_ROLLS)}

    def face(self) -> int:
        return self.queue.popleft()  # an unexpected roll fails loudly (IndexError)

    def next_roll_of(self, seat: int) -> None:
        self.queue.extend(next(self.rolls[seat]))


def embed_fields(message: Message) -> dict[str, str]:
    embed: dict[str, Any] = message.embeds[0]
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def parse(view: MatchView, text: str) -> Play:
    assert isinstance(view.position, Position) and view.dice is not None
    return Play.parse(text, view.position, view.dice)


def choose(view: MatchView, hunting: bool) -> str:
    """alice hits once, then races; bob never hits if he can help it and leaves blots."""

    def hits(text: str) -> int:
        return sum(m.hit for m in parse(view, text).moves)

    def pips_after(text: str) -> int:
        mine = parse(view, text).position.theirs  # seen from the opponent after the play
        return sum(point * count for point, count in enumerate(mine))

    def blots(text: str) -> int:
        mine = parse(view, text).position.theirs
        return sum(1 for point in range(1, 25) if mine[point] == 1)

    moves = view.legal_moves
    if view.actor == 1:
        return max(moves, key=lambda m: (-hits(m), blots(m), m))
    if hunting:
        return max(moves, key=lambda m: (hits(m), -pips_after(m), m))
    return max(moves, key=lambda m: (-hits(m), -pips_after(m), m))


def check_board(board: Message, view: MatchView) -> None:
    """What every backgammon board must show, against the service's view and the engines."""
    assert board.attachments and board.attachments[0].filename == "board.png"
    assert board.attachments[0].data.startswith(b"\x89PNG\r\n\x1a\n")
    alt = board.attachments[0].description
    assert alt and "alice" in alt and "bob" in alt
    fields = embed_fields(board)
    assert isinstance(view.position, Position)
    assert fields["Position ID"] == f"`{view.position.id}`" == f"`{view.position_id}`"
    assert view.gnubg_match_id is not None
    assert fields["Match ID"] == f"`{view.gnubg_match_id}`"
    mid = MatchId.decode(view.gnubg_match_id)
    assert (mid.match_length, mid.jacoby, mid.cube_value) == (0, True, 1)
    assert mid.turn == view.turn
    if view.phase is Phase.MOVE:
        assert view.dice is not None
        assert sorted(mid.dice) == sorted(view.dice)
        assert mid.player_on_roll == view.turn
    mine, theirs = view.position.pips()
    pips = (mine, theirs) if view.turn == 0 else (theirs, mine)
    assert view.pips == pips
    assert fields["Pips"] == f"alice {pips[0]}, bob {pips[1]}"
    assert fields["Cube"] == "1, centred"


async def test_backgammon_money_game_with_hits_bar_and_bear_off(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    await lift_rate_limit(fake)
    svc = service_of(fake)
    script = QueuedDice()
    dice.face = script.face
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    players = {0: alice, 1: bob}

    it = await fake.slash(
        "challenge",
        {"game": "backgammon", "opponent": bob, "points": 0, "jacoby": True},
        by=alice,
    )
    invitation = (await it.response()).message
    assert invitation is not None
    assert "money game" in embed_text(invitation) and "Jacoby" in embed_text(invitation)
    script.queue.extend((6, 1))  # the opening: alice 6, bob 1
    await fake.click(invitation, label="Accept", by=bob)
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    assert thread.name == "Backgammon · alice vs bob · money game"
    board = await next_board(fake, thread, 1, None)
    assert board.image().size == (800, 500)
    view = await svc.handle(ViewMatch(1))
    assert view.rules.length == 0 and view.rules.jacoby
    assert view.phase is Phase.MOVE and view.actor == 0 and view.dice == (6, 1)
    assert "Opening roll: alice 6, bob 1" in embed_text(board)

    seen: Counter[str] = Counter()
    hunting = True
    played: list[str] = []  # every play, ours and the automatic (only legal) ones
    for _ in range(80):
        view = await svc.handle(ViewMatch(1))
        check_board(board, view)
        if view.last_move is not None:
            mover = players[view.last_move.seat].name
            assert embed_fields(board)["Last move"] == f"{mover}: {view.last_move.text}"
            played.append(view.last_move.text)
        assert view.actor is not None
        who = players[view.actor]
        if view.phase is Phase.ROLL:
            assert {"Roll", "Double", "Resign"} <= {b["label"] for b in board.buttons}
            script.next_roll_of(view.actor)
            it = await fake.click(board, label="Roll", by=who)
            assert (await it.response()).type == 7  # the board, edited in the answer
        else:
            assert view.phase is Phase.MOVE, view.phase
            if any(m.startswith("bar/") for m in view.legal_moves):
                seen["bar entry"] += 1
            if len(view.legal_moves) > 25:
                seen["long menu"] += 1
                assert "Type `/move`" in board.content
            move = choose(view, hunting=hunting and view.actor == 0)
            if "*" in move:
                seen["hit"] += 1
                hunting = hunting and view.actor != 0
            menu = [c for c in board.walk_components() if c.get("type") == 3]
            in_menu = bool(menu) and move in {o["value"] for o in menu[0]["options"]}
            if in_menu and seen["select"] <= seen["command"]:
                seen["select"] += 1
                it = await fake.select(board, [move], by=who)
                assert (await it.response()).type == 7  # the board, edited in the answer
            else:
                seen["command"] += 1
                it = await fake.autocomplete(
                    "move", {"play": move[:3]}, focused="play", by=who, channel=thread
                )
                choices = [c["value"] for c in await it.choices()]
                # Moves starting with what was typed come first, then those containing it.
                assert move in choices or len(choices) == 25
                typed = move[:3].replace(" ", "")
                assert all(typed in c.replace(" ", "") for c in choices)
                assert choices[0].replace(" ", "").startswith(typed)
                it = await fake.slash("move", {"play": move}, by=who, channel=thread)
                assert (await it.followup()).content == "Played."
        following = await next_board_or_end(fake, thread, 1, board)
        if following is None:
            break
        board = following
    else:
        raise AssertionError(f"the game did not end: {seen}")

    view = await svc.handle(ViewMatch(1))
    assert view.match_over and view.winner_seat == 0
    if view.last_move is not None:
        played.append(view.last_move.text)
    seen["bear-off"] = sum("/off" in p for p in played)
    assert seen["hit"] >= 2 and seen["bar entry"] >= 1 and seen["bear-off"] >= 1, seen
    assert seen["select"] and seen["command"], seen
    # Jacoby: the cube was never turned, so alice's backgammon counts single.
    game = view.games[-1]
    assert (game.kind, game.points, game.cube) == (ResultKind.BACKGAMMON, 1, 1)
    over = results(fake, thread)[-1]
    text = embed_text(over)
    assert text.startswith("Match over")
    assert "alice wins 1 point with a backgammon" in text and "Jacoby" in text
    assert "alice wins the match" in text and "Dice seed" in text
    assert {b["label"] for b in over.buttons} == {"Export", "Rematch"}
