"""One message per turn, within Discord's request budget, counted by the fake Discord
(``fake.stats``) over whole matches played through the real discord.py client.

A bot token may make 50 requests a second in all; the interaction endpoints (a click's answer,
follow-ups and edits through an interaction's webhook) are exempt. The target: at most 0.2
bot-token requests per action, averaged over a whole match, challenge and first board included,
so that at 50 requests a second the whole bot serves at least 250 actions a second.

- Played with the board's buttons and menus: the roll edits the board in place through the
  click's answer; the move takes the board's menu away in the answer and posts the next
  player's board, which pings them, as the click's follow-up. The bot token makes only the
  match's thread and its first board (and a NANNON's 📣).
- Played by typing /roll and /move: the board a follow-up posted is edited through that
  follow-up's webhook, so typed commands stay off the bot token too.
- What the thread shows: one board per turn (a player's roll and move share one message), and
  each pings the player it waits for.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from fakediscord import FakeDiscord, Message
from support.discord_driver import DiceScript, handlers_done, lift_rate_limit, reply_to
from support.nannon_driver import Table, ephemeral_texts, start_match

from engines.base import Phase

pytestmark = pytest.mark.asyncio

BUDGET = 0.2  # bot-token requests per action, over a whole match


async def play_out(table: Table, board: Message, *, typed: bool) -> int:
    """Play the match to its end, by buttons and menus or by typed commands (the first legal
    move each time); how many actions it took."""
    fake = table.fake
    for actions in range(400):
        view = await table.view()
        if view.match_over:
            return actions
        mark = fake.mark()
        if typed:
            who = table.players[view.actor if view.actor is not None else 0]
            if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
                it = await fake.slash("roll", {}, by=who, channel=table.thread)
            else:
                move = view.legal_moves[0]
                it = await fake.slash("move", {"play": move}, by=who, channel=table.thread)
            assert (await reply_to(it)).content in ("Rolled.", "Played.")
        else:
            await table.play_turn(board, view)
        board = await table.next_after(view, board, mark) or board
    raise AssertionError("the match did not end in 400 actions")


async def match_requests(
    fake: FakeDiscord, dice: DiceScript, *, typed: bool, points: int = 5
) -> tuple[int, Counter[str], Table]:
    """A whole Nannon match, challenge to result: its actions and its bot-token requests."""
    await lift_rate_limit(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    before = fake.stats.snapshot()
    table, board = await start_match(fake, dice, alice, bob, points)
    actions = await play_out(table, board, typed=typed)
    await table.wait_match_over()
    await handlers_done(fake)
    done = fake.stats.since(before)
    print(
        f"\n{'typed' if typed else 'clicked'}: {actions} actions, {done.bot_token_total} "
        f"bot-token requests ({done.bot_token_total / actions:.3f} per action), "
        f"{done.interaction_total} to interaction endpoints: {dict(done.bot_token)}"
    )
    return actions, done.bot_token, table


async def test_a_match_played_with_buttons_stays_within_the_request_budget(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    actions, requests, table = await match_requests(fake, dice, typed=False)
    total = sum(requests.values())
    assert actions >= 20
    assert total / actions <= BUDGET, requests
    # The thread and its first board; a NANNON's 📣 is the only other use.
    assert requests["POST /channels/{channel_id}/messages/{message_id}/threads"] == 1
    assert requests["POST /channels/{channel_id}/messages"] == 1
    assert set(requests) <= {
        "POST /channels/{channel_id}/messages/{message_id}/threads",
        "POST /channels/{channel_id}/messages",
        "PUT /channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
    }, requests
    assert_one_board_per_turn(table)


async def test_a_match_played_by_typed_commands_stays_within_the_request_budget(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    actions, requests, table = await match_requests(fake, dice, typed=True)
    total = sum(requests.values())
    assert actions >= 20
    assert total / actions <= BUDGET, requests
    # The first board, posted with the bot token, is edited with it (the roll, then the menu
    # taken away); every later board was a follow-up, edited through its webhook.
    assert requests["PATCH /channels/{channel_id}/messages/{message_id}"] <= 2
    assert_one_board_per_turn(table)


def assert_one_board_per_turn(table: Table) -> None:
    """Each board message is one player's turn, their roll and their move, and pings them:
    within a game, the boards' pings alternate. The match's result ends it, every board bare."""
    boards = table.boards()
    assert len(boards) >= 10
    games: dict[str, list[str]] = {}
    for board in boards:
        game = str(board.embeds[0]["title"]).rsplit(" · ", 1)[-1]
        if board.content.startswith("<@"):  # the opening board pings nobody
            games.setdefault(game, []).append(board.content.split(">")[0])
    for pings in games.values():
        assert all(a != b for a, b in pairwise(pings)), pings
    assert sum(len(p) for p in games.values()) >= len(boards) - len(games) - 1
    assert not any(b.components for b in boards)
    assert table.results()[-1].embeds[0]["title"].startswith("Match over")


async def test_a_slow_click_is_deferred_then_answered_through_its_webhook(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """Discord forgets a click not answered within 3 s: one whose action takes longer than the
    bot's response budget (here none at all) is deferred first, and the board is then edited
    through the interaction's webhook (@original); still no bot-token request."""
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    table, board = await start_match(fake, dice, alice, bob, 3)
    bot = fake.bot
    assert bot is not None
    bot.response_budget = 0.0  # type: ignore[attr-defined]
    before = fake.stats.snapshot()

    view = await table.view()
    mark = fake.mark()
    it = await table.play_turn(board, view)
    assert (await it.response()).type == 6  # deferred: nothing changes yet
    after = await table.next_after(view, board, mark)
    assert it.original_edits, "the board was edited through the webhook"
    assert after is not None and not fake.stats.since(before).bot_token_total
    assert ephemeral_texts(it) == []
