"""Faults survived (issue 8), end to end through the fake Discord with the real bot.

- Discord trouble: a 5xx or a 429 on the interaction callback (and on the board's POST) is
  retried, the action is applied exactly once, and the thread shows every move exactly once.
  A gateway drop: the client RESUMEs, and a click made while it was away is still applied once.
- A stale board (its buttons survived because stripping them failed) is refused politely.
- Ten simultaneous clicks on the same Roll button, or the same move, apply exactly once.
- Five restarts of the bot during one match, clicking the previous process's board each time:
  the match finishes with the score its game results add up to.

The dice are scripted: the opening is 6-1 (alice moves first with a 5, forced: 2/S), then
every die is a 3, so bob is on roll at move 0 with Roll and Double, and a 3 gives him a choice.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from fakediscord import FakeDiscord, InteractionHandle, Message

from bot.discord_utils import APOLOGY
from bot.service import MatchView
from engines.base import Phase

from .conftest import DiceScript, footer, lift_rate_limit, service_of
from .nannon_driver import (
    MATCH_ID,
    Table,
    board_version,
    ephemeral_texts,
    faces,
    start_match,
)

pytestmark = pytest.mark.asyncio

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
POLITE = ("out of date", "not your turn")


async def setup_match(
    fake: FakeDiscord, dice: DiceScript, points: int = 3
) -> tuple[Table, Message]:
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    table, board = await start_match(fake, dice, alice, bob, points)
    view = await table.view()
    assert (view.phase, view.actor, board_version(board)) == (Phase.ROLL, 1, view.version)
    return table, board


def thread_posts(table: Table) -> list[Message]:
    """Messages everyone in the thread sees."""
    return [m for m in table.fake.messages(table.thread) if not m.ephemeral]


def assert_boards_unique(table: Table) -> None:
    """Each version's board was posted once, in order: nothing shown twice or skipped."""
    versions = [board_version(b) for b in table.boards()]
    assert versions == sorted(set(versions)), versions


def last_move_field(board: Message) -> str:
    fields = {f["name"]: f["value"] for f in board.embeds[0].get("fields", [])}
    return str(fields.get("Last move", ""))


async def assert_applied_once(
    table: Table,
    it: InteractionHandle,
    before: MatchView,
    events_before: int,
    clicked: Message,
    since: int,
) -> Message:
    """``it`` (a click on ``clicked``, made after call ``since``) moved the match on by exactly
    one version, posted one board, and said nothing alarming to the user; the new board."""
    board = await table.board_at(before.version + 1)
    await table.settled(clicked, since)
    after = await table.view()
    assert after.version == before.version + 1
    assert await table.events() > events_before
    assert it.state.callbacks and len(it.state.callbacks) == 1
    assert ephemeral_texts(it) == []
    assert_boards_unique(table)
    assert board_version(table.boards()[-1]) == after.version
    await table.assert_log_replays()
    return board


# --- Discord trouble -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [502, 429])
async def test_callback_and_post_failures_are_retried_and_applied_once(
    tablebot: FakeDiscord, dice: DiceScript, status: int
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]

    # Bob's Roll: the callback (the defer) fails once, then the new board's POST fails once.
    before, events = await table.view(), await table.events()
    callback_fault = fake.fail_next(status, method="POST", path=CALLBACK)
    post_fault = fake.fail_next(
        status, method="POST", path=rf"^/channels/{table.thread.id}/messages$"
    )
    mark = fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    rolled = await table.view()
    assert rolled.phase is Phase.MOVE and rolled.actor == 1 and rolled.dice == (3,)
    assert len(callback_fault.hits) == 1 and len(post_fault.hits) == 1
    callbacks = [c for c in fake.calls[mark:] if re.search(CALLBACK, c.path)]
    assert [c.status for c in callbacks] == [status, 200]
    assert callbacks[0].json == callbacks[1].json
    posts = fake.calls_matching(method="POST", route="/channels/{channel_id}/messages", since=mark)
    assert [c.status for c in posts] == [status, 200]

    # Bob's move from the menu: the callback fails once more; the move is played once.
    before, events = rolled, await table.events()
    move = before.legal_moves[-1]
    callback_fault = fake.fail_next(status, method="POST", path=CALLBACK)
    mark = fake.mark()
    it = await fake.select(board, [move], by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    assert len(callback_fault.hits) == 1
    moved = await table.view()
    assert moved.actor == 0 and moved.last_move is not None
    assert (moved.last_move.seat, moved.last_move.text) == (1, move)
    assert last_move_field(board) == f"bob: {move}"
    # The thread says bob played it exactly once.
    mentions = [b for b in table.boards() if last_move_field(b) == f"bob: {move}"]
    assert mentions == [board]
    assert not fake.bot_errors


async def test_gateway_drop_during_match_resumes_and_next_clicks_work(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    alice, bob = table.players[0], table.players[1]
    session = fake.session
    assert session is not None

    # The connection drops between two turns: the bot resumes, and the next click works.
    await fake.drop_gateway()
    assert fake.gateway_connections[-1] == "resume" and session.resumes == 1
    before, events, mark = await table.view(), await table.events(), fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)

    # It drops again, and bob picks his move while the bot is away: the click reaches the bot
    # when it resumes, and is played once.
    before, events, mark = await table.view(), await table.events(), fake.mark()
    await fake.drop_gateway(wait_resumed=False)
    it = await fake.select(board, [before.legal_moves[0]], by=bob)
    await fake.wait_resumed(2)
    board = await assert_applied_once(table, it, before, events, board, mark)
    assert fake.session is session and session.resumes == 2

    # Play goes on as usual: alice rolls on the new board.
    before, events, mark = await table.view(), await table.events(), fake.mark()
    assert before.actor == 0 and before.phase is Phase.ROLL
    it = await fake.click(board, label="Roll", by=alice)
    await assert_applied_once(table, it, before, events, board, mark)


# --- A stale board ---------------------------------------------------------------------------


async def test_stale_board_clicks_are_refused_politely_and_change_nothing(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    table, old = await setup_match(fake, dice)
    alice, bob = table.players[0], table.players[1]

    # Removing the old board's buttons fails, so they stay clickable once bob has rolled.
    strip = fake.fail_next(403, method="PATCH", path=rf"/messages/{old.id}$")
    before, events, mark = await table.view(), await table.events(), fake.mark()
    it = await fake.click(old, label="Roll", by=bob)
    board = await assert_applied_once(table, it, before, events, old, mark)
    assert len(strip.hits) == 1 and {"Roll", "Double"} <= {b["label"] for b in old.buttons}

    current, events = await table.view(), await table.events()
    posts = len(thread_posts(table))
    for label, who, says in (
        ("Roll", bob, "out of date"),
        ("Double", bob, "out of date"),
        ("Roll", alice, "not your turn"),
    ):
        it = await fake.click(old, label=label, by=who)
        refusal = await fake.wait_until(lambda it=it: ephemeral_texts(it), what="a refusal")
        assert len(refusal) == 1 and says in refusal[0], refusal
        await fake.wait_bot_idle()
        after = await table.view()
        assert (after.version, after.phase, after.dice) == (
            current.version,
            current.phase,
            current.dice,
        )
        assert await table.events() == events
        await table.assert_log_replays()
        assert len(thread_posts(table)) == posts  # nothing public
        assert_boards_unique(table)

    # The current board still works (and its menu, too, keeps its options: stripping fails).
    fake.fail_next(403, method="PATCH", path=rf"/messages/{board.id}$")
    mark = fake.mark()
    it = await fake.select(board, [current.legal_moves[0]], by=bob)
    await assert_applied_once(table, it, current, events, board, mark)

    # Bob picks a move again from that earlier menu: refused, nothing changes.
    moved, events = await table.view(), await table.events()
    it = await fake.select(board, [current.legal_moves[-1]], by=bob)
    refusal = await fake.wait_until(lambda: ephemeral_texts(it), what="a refusal")
    assert len(refusal) == 1 and any(p in refusal[0] for p in POLITE), refusal
    await fake.wait_bot_idle()
    assert (await table.view()).version == moved.version
    assert await table.events() == events
    assert_boards_unique(table)


# --- Double clicks ---------------------------------------------------------------------------


async def click_ten_times(
    table: Table, board: Message, before: MatchView, act: str
) -> list[InteractionHandle]:
    fake, bob = table.fake, table.players[1]
    if act == "roll":
        clicks = [fake.click(board, label="Roll", by=bob) for _ in range(10)]
    else:
        move = before.legal_moves[0]
        clicks = [fake.select(board, [move], by=bob) for _ in range(10)]
    mark = fake.mark()
    handles = list(await asyncio.gather(*clicks))
    # All ten reached the bot before it answered the first: they really were simultaneous.
    assert not [c for c in fake.calls[mark:] if re.search(CALLBACK, c.path)]
    return handles


@pytest.mark.parametrize("act", ["roll", "move"])
async def test_ten_simultaneous_clicks_apply_exactly_once(
    tablebot: FakeDiscord, dice: DiceScript, act: str
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    if act == "move":
        view, mark = await table.view(), fake.mark()
        await table.play_turn(board, view)
        previous, board = board, await table.board_at(view.version + 1)
        await table.settled(previous, mark)
    before, events = await table.view(), await table.events()
    assert before.phase is (Phase.ROLL if act == "roll" else Phase.MOVE)

    mark = fake.mark()
    handles = await click_ten_times(table, board, before, act)
    await table.board_at(before.version + 1)
    await fake.wait_until(
        lambda: sum(1 for it in handles if ephemeral_texts(it)) == 9, what="nine refusals"
    )
    await table.settled(board, mark)

    after = await table.view()
    assert after.version == before.version + 1
    assert_boards_unique(table)
    assert [board_version(b) for b in table.boards()][-1] == after.version
    applied = [it for it in handles if not ephemeral_texts(it)]
    refused = [it for it in handles if ephemeral_texts(it)]
    assert len(applied) == 1 and len(refused) == 9
    for it in refused:
        (text,) = ephemeral_texts(it)
        assert any(p in text for p in POLITE), text
        assert APOLOGY not in text
    for it in handles:
        assert len(it.state.callbacks) == 1  # each answered once, none left hanging
    if act == "roll":
        assert after.dice == (3,) and after.phase is Phase.MOVE
    else:
        assert after.last_move is not None and after.last_move.text == before.legal_moves[0]
        assert after.actor == 0
    # One action's events were logged, and replaying the log gives the stored snapshot.
    assert await table.events() > events
    await table.assert_log_replays()
    assert not fake.bot_errors


# --- Restarts --------------------------------------------------------------------------------


async def test_five_restarts_during_a_match_and_it_ends_with_the_right_score(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    await lift_rate_limit(fake)
    table, board = await setup_match(fake, dice, points=3)
    restarts = 0
    for actions in range(400):
        view = await table.view()
        if view.match_over:
            break
        if actions % 3 == 2 and restarts < 5:
            old_bot = fake.bot
            await fake.restart_bot()
            restarts += 1
            assert fake.bot is not old_bot
            # The board posted by the previous process must still work.
            assert board_version(board) == view.version
        events, mark = await table.events(), fake.mark()
        it = await table.play_turn(board, view)
        after_board = await table.next_after(view, board, mark)
        after = await table.view()
        assert after.version == view.version + 1
        assert await table.events() > events
        assert ephemeral_texts(it) == [], ephemeral_texts(it)
        if after_board is not None:
            board = after_board
    else:
        raise AssertionError("the match did not end in 400 actions")
    assert restarts == 5

    over = await table.wait_match_over()
    view = await table.view()
    expected = [0.0, 0.0]
    for game in view.games:
        assert game.winner is not None
        expected[game.winner] += game.points
    assert view.score == tuple(expected)
    assert view.winner_seat is not None and view.score[view.winner_seat] >= 3
    assert view.score[1 - view.winner_seat] < 3
    stored = await table_store_results(table)
    assert stored == [(g.game_number, g.winner, g.points) for g in view.games]
    # Every game was announced exactly once, the last one with the match.
    announced = [m.embeds[0]["description"] for m in table.results()]
    assert len(announced) == len(view.games)
    for number, text in enumerate(announced, start=1):
        assert text.startswith(f"Game {number}: "), text
    a, b = (f"{p:g}" for p in view.score)
    assert f"alice {a} to {b} bob" in str(over.embeds[0]["description"])
    assert_boards_unique(table)
    await table.assert_log_replays()
    assert not any(m.components for m in table.boards())
    assert footer(over) == f"Match #{MATCH_ID}" or "NANNON" in footer(over)


async def table_store_results(table: Table) -> list[tuple[int, int | None, float]]:
    rows = await service_of(table.fake).store.game_results(MATCH_ID)
    return [(row["game_number"], row["winner_seat"], row["points"]) for row in rows]
