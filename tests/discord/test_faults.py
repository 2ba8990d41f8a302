"""Faults survived, end to end through the fake Discord with the real bot.

- Discord trouble: a 5xx or a 429 on a click's answer (the board edited in place, or its
  buttons taken away) and on the follow-up that posts the next board is retried, the action is
  applied exactly once, and the thread shows every move exactly once. The same for a slash
  command (/roll, /move) whose defer and follow-up get a 500 or a 503: the user sees exactly
  one answer.
  When the retries run out: if the defer never gets through, nothing is applied (the user tries
  again later, and that applies once); if the follow-up never does, the action stands, the board
  shows it, and the user is not told to try again; if the next board is never taken (as the
  follow-up, nor with the bot token), the action stands, the user is told so, and /board posts
  it once Discord is back. Either way the stored log replays to the match, and no move is lost
  or doubled.
  A gateway drop: the client RESUMEs, and a click made while it was away is still applied once.
  A drop that ends the session (close code 4009, or INVALID_SESSION with d=false): the bot
  IDENTIFYs anew; a click made while it was gone never reaches it (as on Discord), and clicks
  after it apply once.
- A stale board (as a client that has not caught up shows it) is refused politely.
- Ten simultaneous clicks on the same Roll button, or the same move, apply exactly once.
- Five restarts of the bot during one match, clicking the previous process's board each time:
  the match finishes with the score its game results add up to.

The dice are scripted: the opening is 6-1 (alice moves first with a 5, forced: 2/S), then
every die is a 3, so bob is on roll at move 0 with Roll and Double, and a 3 gives him a choice.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import types
from typing import Any

import discord.http
import discord.webhook.async_
import pytest
from fakediscord import Call, FakeDiscord, FakeDiscordError, InteractionHandle, Message
from support.db import sql_rows
from support.discord_driver import (
    DiceScript,
    footer,
    handlers_done,
    lift_rate_limit,
    service_of,
)
from support.nannon_driver import (
    MATCH_ID,
    Table,
    board_version,
    ephemeral_texts,
    faces,
    start_match,
)

from bot.discord.presenter import BOARD_NOT_POSTED, FIRST_BOARD_NOT_POSTED, RESULT_NOT_POSTED
from bot.discord.replies import APOLOGY
from bot.service import MatchView, ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
FOLLOWUP = r"^/webhooks/\d+/[^/]+$"  # POST: a follow-up (the first fills in a "thinking" defer)
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
async def test_callback_and_followup_failures_are_retried_and_applied_once(
    tablebot: FakeDiscord, dice: DiceScript, status: int
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]

    # Bob's Roll: its answer (the board, edited in place: he moves next) fails once.
    before, events = await table.view(), await table.events()
    callback_fault = fake.fail_next(status, method="POST", path=CALLBACK)
    mark = fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    rolled_board = await assert_applied_once(table, it, before, events, board, mark)
    assert rolled_board is board  # the same message, edited
    rolled = await table.view()
    assert rolled.phase is Phase.MOVE and rolled.actor == 1 and rolled.dice == (3,)
    assert len(callback_fault.hits) == 1
    callbacks = [c for c in fake.calls[mark:] if re.search(CALLBACK, c.path)]
    assert [c.status for c in callbacks] == [status, 200]
    assert callbacks[0].json == callbacks[1].json
    posts = fake.calls_matching(method="POST", route="/channels/{channel_id}/messages", since=mark)
    assert not posts

    # Bob's move from the menu: its answer (the board loses its buttons) fails once, and so
    # does the follow-up with alice's new board; the move is played once, shown once.
    before, events = rolled, await table.events()
    move = before.legal_moves[-1]
    callback_fault = fake.fail_next(status, method="POST", path=CALLBACK)
    followup_fault = fake.fail_next(status, method="POST", path=FOLLOWUP)
    mark = fake.mark()
    it = await fake.select(board, [move], by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    assert len(callback_fault.hits) == 1 and len(followup_fault.hits) == 1
    followups = webhook_calls(fake, it, FOLLOWUP, mark)
    assert [c.status for c in followups] == [status, 200]
    moved = await table.view()
    assert moved.actor == 0 and moved.last_move is not None
    assert (moved.last_move.seat, moved.last_move.text) == (1, move)
    assert last_move_field(board) == f"bob: {move}"
    # The thread says bob played it exactly once.
    mentions = [b for b in table.boards() if last_move_field(b) == f"bob: {move}"]
    assert mentions == [board]
    assert not fake.bot_errors


def webhook_calls(fake: FakeDiscord, it: InteractionHandle, pattern: str, since: int) -> list[Any]:
    """The calls made for interaction ``it`` (its callback or its follow-ups) since ``since``."""
    return [
        c
        for c in fake.calls[since:]
        if c.method == "POST"
        and re.search(pattern, c.path)
        and it.state.token in (c.params.get("interaction_token"), c.params.get("webhook_token"))
    ]


@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("command", ["roll", "move"])
async def test_slash_command_callback_and_followup_5xx_are_retried_and_answered_once(
    tablebot: FakeDiscord, dice: DiceScript, status: int, command: str
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]
    if command == "move":  # bob rolls by button first; his /move is then the typed command
        before, mark = await table.view(), fake.mark()
        await table.play_turn(board, before)
        previous, board = board, await table.board_at(before.version + 1)
        await table.settled(previous, mark)
    before, events = await table.view(), await table.events()
    options = {"play": before.legal_moves[-1]} if command == "move" else {}
    done = {"roll": "Rolled.", "move": "Played."}[command]

    # The defer fails once, and so does the follow-up that fills it in: both are retried.
    callback_fault = fake.fail_next(status, method="POST", path=CALLBACK)
    followup_fault = fake.fail_next(status, method="POST", path=FOLLOWUP)
    mark = fake.mark()
    it = await fake.slash(command, options, by=bob, channel=table.thread)
    response = await it.response()
    assert response.type == 5 and response.ephemeral
    answer = await it.followup()
    assert answer.content == done and answer.ephemeral and not answer.loading
    new_board = await table.board_at(before.version + 1)
    await table.settled(board, mark)

    assert len(callback_fault.hits) == 1 and len(followup_fault.hits) == 1
    callbacks = webhook_calls(fake, it, CALLBACK, mark)
    assert [c.status for c in callbacks] == [status, 200]
    assert callbacks[0].json == callbacks[1].json
    followups = webhook_calls(fake, it, FOLLOWUP, mark)
    # The answer's follow-up, tried twice; after a move, alice's new board is one more.
    assert [c.status for c in followups] == [status, 200, *([200] if command == "move" else [])]
    # Exactly one answer: the "thinking" message, filled in once; nothing else for bob.
    assert len(it.state.callbacks) == 1 and [m for m in it.followups if m.ephemeral] == [answer]
    assert it.state.original is answer and answer.edits == [followups[1].json]
    assert ephemeral_texts(it) == [done]
    # Applied once: one version, one board, the log replays.
    after = await table.view()
    assert after.version == before.version + 1
    assert await table.events() > events
    assert_boards_unique(table)
    assert board_version(table.boards()[-1]) == after.version
    await table.assert_log_replays()
    if command == "roll":
        assert (after.phase, after.actor, after.dice) == (Phase.MOVE, 1, (3,))
    else:
        move = options["play"]
        assert after.last_move is not None
        assert (after.last_move.seat, after.last_move.text) == (1, move)
        assert [b for b in table.boards() if last_move_field(b) == f"bob: {move}"] == [new_board]
    assert not fake.bot_errors


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """discord.py waits 1, 3, 5, 7 and 9 s between its five tries of a failing interaction
    callback or follow-up (and of a REST call answered 500, 502 or 504): cut those waits to a
    blink, for tests where every try fails. Only those two modules' view of asyncio changes."""
    real_sleep = asyncio.sleep

    async def blink(delay: float, result: Any = None) -> Any:
        return await real_sleep(min(delay, 0.01), result)

    for module in (discord.webhook.async_, discord.http):
        shim = types.SimpleNamespace(**vars(asyncio))
        shim.sleep = blink
        monkeypatch.setattr(module, "asyncio", shim)


async def test_slash_command_whose_defer_never_gets_through_is_not_applied(
    tablebot: FakeDiscord,
    dice: DiceScript,
    quick_retries: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]
    before, events, posts = await table.view(), await table.events(), len(thread_posts(table))

    # Discord refuses every callback: the defer, its retries, and the apology after them.
    outage = fake.fail_next(503, method="POST", path=CALLBACK, times=100)
    mark = fake.mark()
    it = await fake.slash("roll", {}, by=bob, channel=table.thread)
    await fake.wait_until(lambda: len(outage.hits) == 10, what="ten tries of the callback")
    await fake.wait_bot_idle()
    # Five tries of the defer and five of the apology, then the bot gives up: nothing was done.
    assert len(webhook_calls(fake, it, CALLBACK, mark)) == 10
    assert it.state.callbacks == [] and it.followups == []
    after = await table.view()
    assert (after.version, after.phase, after.dice) == (before.version, before.phase, None)
    assert await table.events() == events
    assert len(thread_posts(table)) == posts and board.components
    await table.assert_log_replays()
    # It was logged, with the interaction's context.
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and f"interaction {it.id} (roll)" in errors[0].getMessage()
    caplog.clear()

    # Discord is back: bob types /roll again, and it is applied once.
    fake.faults.remove(outage)
    mark = fake.mark()
    it = await fake.slash("roll", {}, by=bob, channel=table.thread)
    assert (await it.followup()).content == "Rolled."
    await table.board_at(before.version + 1)
    await table.settled(board, mark)
    after = await table.view()
    assert after.version == before.version + 1 and after.dice == (3,)
    assert_boards_unique(table)
    await table.assert_log_replays()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("failures", [5, 100])
async def test_slash_command_whose_followup_never_gets_through_stands_and_shows(
    tablebot: FakeDiscord,
    dice: DiceScript,
    quick_retries: None,
    caplog: pytest.LogCaptureFixture,
    failures: int,
) -> None:
    """``failures`` 5: the follow-up's five tries fail, then Discord is back; 100: it stays
    down. The roll was applied and its board posted: the user is never told to try again."""
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]
    before, events = await table.view(), await table.events()

    outage = fake.fail_next(500, method="POST", path=FOLLOWUP, times=failures)
    mark = fake.mark()
    it = await fake.slash("roll", {}, by=bob, channel=table.thread)
    assert (await it.response()).type == 5
    new_board = await table.board_at(before.version + 1)
    await table.settled(board, mark)
    await fake.wait_until(lambda: len(outage.hits) >= 5, what="five tries of the follow-up")
    await fake.wait_bot_idle()

    # Applied once, and the board shows it.
    after = await table.view()
    assert after.version == before.version + 1
    assert (after.phase, after.actor, after.dice) == (Phase.MOVE, 1, (3,))
    assert await table.events() > events
    assert_boards_unique(table)
    assert table.boards()[-1] is new_board and new_board.components
    await table.assert_log_replays()
    # bob was not asked to do it again: at most the "thinking" message stays unfilled.
    assert APOLOGY not in ephemeral_texts(it)
    assert all(text in ("", "Rolled.") for text in ephemeral_texts(it)), ephemeral_texts(it)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # A second /roll is refused as such: the first one counted.
    fake.faults.remove(outage)
    it = await fake.slash("roll", {}, by=bob, channel=table.thread)
    assert (await it.followup()).content == "You rolled already: pick a move."
    assert (await table.view()).version == after.version


def public_followup(call: Call) -> bool:
    """A follow-up everyone would see (not an ephemeral answer)."""
    return not int((call.json or {}).get("flags") or 0) & 64


@pytest.mark.parametrize("status", [500, 503])
async def test_board_that_never_gets_posted_leaves_the_action_applied_and_said(
    tablebot: FakeDiscord,
    dice: DiceScript,
    quick_retries: None,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    """Discord refuses alice's new board after bob's move, as the follow-up and then with the
    bot token, until the retries run out: the move
    stands, bob is told so (not to try again), a second try is refused, and /board posts the
    board once Discord is back."""
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]
    mark = fake.mark()
    await fake.click(board, label="Roll", by=bob)
    board = await table.board_at((await table.view()).version)
    await table.settled(board, mark)
    before, events, posts = await table.view(), await table.events(), len(thread_posts(table))

    posting = rf"^/channels/{table.thread.id}/messages$"
    outage = fake.fail_next(status, method="POST", path=posting, times=100)
    followups = fake.fail_next(
        status, method="POST", path=FOLLOWUP, predicate=public_followup, times=100
    )
    move = before.legal_moves[0]
    it = await fake.select(board, [move], by=bob)
    [said] = await fake.wait_until(lambda: ephemeral_texts(it), what="bob's answer")
    await table.settled(board, mark)
    assert said == BOARD_NOT_POSTED
    # discord.py tries a follow-up five times either way, a bot-token post a 503 once.
    assert len(followups.hits) == 5
    assert len(outage.hits) == (5 if status == 500 else 1)
    after = await table.view()
    assert after.version == before.version + 1 and after.actor == 0
    assert await table.events() > events
    await table.assert_log_replays()
    assert len(thread_posts(table)) == posts  # no board for it yet
    assert not board.components  # bob's board keeps no menu
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # Not doubled: bob's second try is refused, typed (from what his client still shows).
    it = await fake.slash("move", {"play": move}, by=bob, channel=table.thread)
    assert (await it.followup()).content == "It's alice's turn."
    assert (await table.view()).version == after.version

    # Discord is back: /board shows alice's turn, and her Roll on it is applied once.
    fake.faults.remove(outage)
    fake.faults.remove(followups)
    mark = fake.mark()
    it = await fake.slash("board", {}, by=bob, channel=table.thread)
    assert (await it.followup()).content == "Board posted."
    new_board = await table.board_at(after.version)
    await table.settled(board, mark)
    assert new_board is not board and new_board.components
    events, mark = await table.events(), fake.mark()
    it = await fake.click(new_board, label="Roll", by=table.players[0])
    await assert_applied_once(table, it, after, events, new_board, mark)
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


async def test_gateway_session_lost_mid_match_reidentifies_and_clicks_apply_once(
    tablebot: FakeDiscord, dice: DiceScript, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    alice, bob = table.players[0], table.players[1]
    # discord.py waits 5 s before any IDENTIFY but the first (Discord's identify rate limit).
    # The test lets the re-IDENTIFY through only once Bob's click has found no session: on a busy
    # machine the bot would otherwise be back before the click.
    bot = fake.bot
    assert bot is not None
    real_hook = bot.before_identify_hook
    may_identify = asyncio.Event()

    async def gated(shard_id: int | None, *, initial: bool = False) -> None:
        await may_identify.wait()
        await real_hook(shard_id, initial=True)

    monkeypatch.setattr(bot, "before_identify_hook", gated)
    first = fake.session
    assert first is not None and fake.identifies == 1

    # The connection closes with 4009 (session timed out): the bot's RESUME is refused with
    # INVALID_SESSION (d=false) and it IDENTIFYs. Bob clicks Roll while it is gone: Discord
    # can't deliver that (the user sees "interaction failed"), so nothing happens.
    await fake.drop_gateway(code=4009, resumable=False, wait_resumed=False)
    before, events = await table.view(), await table.events()
    with pytest.raises(FakeDiscordError, match="no gateway session"):
        await fake.click(board, label="Roll", by=bob)
    may_identify.set()
    second = await fake.wait_identified(first)
    assert fake.identifies == 2 and second.resumes == 0 and first.resumes == 0
    assert (await table.view()).version == before.version
    assert await table.events() == events
    # Bob clicks again on the same board: applied once.
    mark = fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    # ... and his move from the menu, after a plain RESUME this time.
    await fake.drop_gateway()
    before, events, mark = await table.view(), await table.events(), fake.mark()
    it = await fake.select(board, [before.legal_moves[0]], by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    assert fake.session is second and second.resumes == 1

    # Discord invalidates the live session (op 9, d=false) between two turns: a new IDENTIFY,
    # and alice's Roll on the board posted before it works, once.
    await fake.invalidate_session()
    assert fake.identifies == 3 and fake.session is not second
    before, events, mark = await table.view(), await table.events(), fake.mark()
    assert before.actor == 0 and before.phase is Phase.ROLL
    it = await fake.click(board, label="Roll", by=alice)
    board = await assert_applied_once(table, it, before, events, board, mark)
    # And a typed command, too: whatever the match waits for.
    before, events, mark = await table.view(), await table.events(), fake.mark()
    assert before.actor is not None
    who = table.players[before.actor]
    if before.phase is Phase.MOVE:
        it = await fake.slash("move", {"play": before.legal_moves[0]}, by=who, channel=table.thread)
        assert (await it.followup()).content == "Played."
    else:
        it = await fake.slash("roll", {}, by=who, channel=table.thread)
        assert (await it.followup()).content == "Rolled."
    await table.board_at(before.version + 1)
    await table.settled(board, mark)
    after = await table.view()
    assert after.version == before.version + 1
    assert await table.events() > events
    if before.phase is Phase.MOVE:
        assert after.last_move is not None
        assert (after.last_move.seat, after.last_move.text) == (before.actor, before.legal_moves[0])
    assert_boards_unique(table)
    await table.assert_log_replays()
    assert not fake.bot_errors


# --- A stale board ---------------------------------------------------------------------------


async def test_stale_board_clicks_are_refused_politely_and_change_nothing(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    table, board = await setup_match(fake, dice)
    alice, bob = table.players[0], table.players[1]

    # What a client that has not caught up still shows: the board with bob's Roll and Double.
    old = stale_copy(board)
    before, events, mark = await table.view(), await table.events(), fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    board = await assert_applied_once(table, it, before, events, board, mark)
    assert {"Roll", "Double"} <= {b["label"] for b in old.buttons}

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
        await handlers_done(fake)
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

    # The current board works, and its menu, as a client that has not caught up shows it,
    # keeps its options.
    menu = stale_copy(board)
    mark = fake.mark()
    it = await fake.select(board, [current.legal_moves[0]], by=bob)
    await assert_applied_once(table, it, current, events, board, mark)

    # Bob picks a move again from that earlier menu: refused, nothing changes.
    moved, events = await table.view(), await table.events()
    it = await fake.select(menu, [current.legal_moves[-1]], by=bob)
    refusal = await fake.wait_until(lambda: ephemeral_texts(it), what="a refusal")
    assert len(refusal) == 1 and any(p in refusal[0] for p in POLITE), refusal
    await handlers_done(fake)
    assert (await table.view()).version == moved.version
    assert await table.events() == events
    assert_boards_unique(table)


def stale_copy(message: Message) -> Message:
    """``message`` as a client that has not refreshed shows it, buttons and all."""
    copied = copy.copy(message)
    copied.components = copy.deepcopy(message.components)
    copied.embeds = copy.deepcopy(message.embeds)
    return copied


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


async def test_first_board_refused_at_accept_is_said_and_board_recovers(
    tablebot: FakeDiscord, dice: DiceScript, quick_retries: None
) -> None:
    """Discord refuses the match's first board: the match stands, bob (who accepted) is told
    so, not to try again, and /board posts the board once Discord is back."""
    fake = tablebot
    svc = service_of(fake)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob, "points": 1}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    # What a client that has not refreshed still shows: the invitation with its buttons.
    stale = copy.copy(invitation)
    stale.components = copy.deepcopy(invitation.components)
    # The match's thread is started from the invitation, so it has the invitation's id.
    outage = fake.fail_next(
        503, method="POST", path=rf"^/channels/{invitation.id}/messages$", times=100
    )
    it = await fake.click(invitation, label="Accept", by=bob)
    [said] = await fake.wait_until(lambda: ephemeral_texts(it), what="bob's answer")
    await fake.wait_bot_idle()
    assert said == FIRST_BOARD_NOT_POSTED
    assert outage.hits
    view = await svc.handle(ViewMatch(MATCH_ID))
    assert not view.match_over and view.thread_id == invitation.id
    thread = fake.channels[invitation.id]
    assert [m for m in fake.messages(thread) if not m.ephemeral] == []
    # A second Accept is refused as such: the match was made once.
    assert not invitation.components
    it = await fake.click(stale, label="Accept", by=bob)
    [refusal] = await fake.wait_until(lambda: ephemeral_texts(it), what="a refusal")
    assert refusal == "This challenge was already accepted."
    assert [tuple(r) for r in await sql_rows(svc.store, "SELECT id FROM matches")] == [(MATCH_ID,)]

    fake.faults.remove(outage)
    it = await fake.slash("board", {}, by=bob, channel=thread)
    assert (await it.followup()).content == "Board posted."
    [board] = [m for m in fake.messages(thread) if not m.ephemeral]
    assert board_version(board) == view.version and board.components


async def test_result_refused_at_match_end_is_said_and_the_match_is_over(
    tablebot: FakeDiscord, dice: DiceScript, quick_retries: None
) -> None:
    """Discord refuses the match-over message (as the follow-up, then with the bot token): the
    match is over all the same, its last board loses its buttons, and the player is told where
    to look instead of to try again."""
    fake = tablebot
    table, board = await setup_match(fake, dice)
    bob = table.players[1]
    posting = rf"^/channels/{table.thread.id}/messages$"
    outage = fake.fail_next(503, method="POST", path=posting, times=100)
    followups = fake.fail_next(
        503, method="POST", path=FOLLOWUP, predicate=public_followup, times=100
    )
    it = await fake.slash("resign", {"level": "match"}, by=bob, channel=table.thread)
    said = await it.followup()
    assert said.content == "You conceded the match."
    await handlers_done(fake)
    assert ephemeral_texts(it) == ["You conceded the match.", RESULT_NOT_POSTED]
    assert outage.hits and followups.hits
    view = await table.view()
    assert view.match_over and view.winner_seat == 0
    assert not board.components  # the final board keeps no buttons
    await table.assert_log_replays()
    # Nothing is left to do in it.
    fake.faults.remove(outage)
    fake.faults.remove(followups)
    it = await fake.slash("resign", {"level": "match"}, by=bob, channel=table.thread)
    assert (await it.followup()).content == f"Match #{MATCH_ID} is over."
