"""Refusals and failures through the fake Discord, with the texts users see: off-turn commands
and clicks, /roll after rolling, an illegal /move, hostile /move input and its autocomplete, and
the apology (logged with the interaction's context) when the service fails unexpectedly.

Backgammon to 5 with scripted dice: alice (seat 0) wins the opening 6-1 and moves; bob (seat 1)
then rolls 3-3, which has dozens of legal plays.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, InteractionHandle, Member, Message
from support.discord_driver import DiceScript, next_board, reply_to, service_of
from support.nannon_driver import faces

from bot.discord import catalogue
from bot.discord.replies import APOLOGY
from bot.service import ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio

MATCH = 1  # a fresh database


class Table:
    def __init__(self, fake: FakeDiscord, alice: Member, bob: Member, thread: Channel) -> None:
        self.fake, self.alice, self.bob, self.thread = fake, alice, bob, thread
        self.svc = service_of(fake)

    async def say(self, command: str, by: Member, **options: Any) -> Message:
        """Type a command in the match's thread; the bot's (ephemeral) answer."""
        it = await self.fake.slash(command, options, by=by, channel=self.thread)
        return await reply_to(it)

    def public(self) -> list[Message]:
        return [m for m in self.fake.messages(self.thread) if not m.ephemeral]

    async def state(self) -> tuple[int, int, int]:
        """(match version, stored events, public messages in the thread)."""
        view = await self.svc.handle(ViewMatch(MATCH))
        return view.version, await self.svc.store.event_count(MATCH), len(self.public())


async def backgammon(fake: FakeDiscord, dice: DiceScript, bob_rolls: bool) -> tuple[Table, Message]:
    """alice challenges bob, bob accepts, alice plays her opening 6-1 by /move (bob, who may
    double, is not rolled for); with ``bob_rolls`` bob then rolls 3-3 by /roll."""
    table, board = await opened(fake, dice)
    bob = table.bob
    if bob_rolls:
        assert (await table.say("roll", bob)).content == "Rolled."
        board = await next_board(fake, table.thread, MATCH, board)
    await fake.wait_bot_idle()
    return table, board


async def opened(fake: FakeDiscord, dice: DiceScript, **options: Any) -> tuple[Table, Message]:
    """alice challenges bob (``options`` for /challenge), bob accepts, alice plays her opening
    6-1 by /move: the table and the board after it."""
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash("challenge", {"game": "backgammon", "opponent": bob, **options}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    await fake.click(invitation, label="Accept", by=bob)
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    table = Table(fake, alice, bob, thread)
    board = await next_board(fake, thread, MATCH, None)
    assert (await table.say("move", alice, play="13/7 8/7")).content == "Played."
    return table, await next_board(fake, thread, MATCH, board)


def bodies(fake: FakeDiscord, it: InteractionHandle) -> list[dict[str, Any]]:
    """Every message body the bot sent in answer to ``it``: the callback's, the follow-ups' and
    edits of the original response."""
    token = it.state.token
    found = []
    for call in fake.calls:
        if call.params.get("interaction_token") == token and isinstance(call.json, dict):
            found.append(call.json.get("data") or {})
        elif call.params.get("webhook_token") == token and isinstance(call.json, dict):
            found.append(call.json)
    return found


def assert_pings_nobody(body: dict[str, Any]) -> None:
    allowed = body.get("allowed_mentions")
    assert allowed is not None, body
    assert "everyone" not in allowed.get("parse", []) and "roles" not in allowed.get("parse", [])
    assert not allowed.get("roles") and not allowed.get("users")


async def test_off_turn_commands_and_clicks_are_refused(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    table, board = await backgammon(fake, dice, bob_rolls=False)
    alice, bob = table.alice, table.bob
    carol = await fake.add_member("carol")
    view = await table.svc.handle(ViewMatch(MATCH))
    assert (view.phase, view.actor) == (Phase.ROLL, 1)
    before = await table.state()

    # Typed: the service's refusal.
    for command, options in (("roll", {}), ("double", {}), ("move", {"play": "24/21"})):
        answer = await table.say(command, alice, **options)
        assert answer.ephemeral and answer.content == "It's bob's turn.", (command, answer)
    # Clicked: the view's quicker refusal, same meaning.
    for label in ("Roll", "Double"):
        it = await fake.click(board, label=label, by=alice)
        answer = await reply_to(it)
        assert answer.ephemeral
        assert answer.content == "It's not your turn: the match waits for bob."
    # Someone outside the match, typing in its thread.
    answer = await table.say("roll", carol)
    assert answer.ephemeral and answer.content == f"You are not playing in match #{MATCH}."
    assert await table.state() == before

    # bob rolls; /roll again is refused, and so is the Roll button of the old board.
    assert (await table.say("roll", bob)).content == "Rolled."
    board = await next_board(fake, table.thread, MATCH, board)
    before = await table.state()
    answer = await table.say("roll", bob)
    assert answer.ephemeral and answer.content == "You rolled already: pick a move."
    assert await table.state() == before


async def test_illegal_move_names_the_move_and_the_dice(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    table, _board = await backgammon(fake, dice, bob_rolls=True)
    view = await table.svc.handle(ViewMatch(MATCH))
    assert (view.phase, view.actor, view.dice) == (Phase.MOVE, 1, (3, 3))
    before = await table.state()

    answer = await table.say("move", table.bob, play="24/18 13/11")
    assert answer.ephemeral
    assert answer.content.startswith("That move is illegal: 24/18 13/11 is not possible with 3-3")
    assert f"(position {view.position_id})" in answer.content
    # Too few checkers for 3-3: the rules want all four moves played.
    answer = await table.say("move", table.bob, play="24/21")
    assert answer.ephemeral and answer.content.startswith("That move is illegal: 24/21 does not")
    assert "3-3" in answer.content
    assert await table.state() == before
    assert (await table.svc.handle(ViewMatch(MATCH))).legal_moves == view.legal_moves


HOSTILE = [
    "@everyone",
    "@here <@&123> <@1> 24/21(4)",
    "@everyone " * 600,  # 6000 characters: the longest string option Discord sends
    "13/10\x00\x07 13/10\u202e 24/21(2)\n@here\r\x1b[2J",
    "H/3",  # Nannon
    "22x15",  # checkers
    "2/S 1/4",  # Nannon again
]


async def test_hostile_move_text_is_refused_quietly_and_changes_nothing(
    tablebot: FakeDiscord, dice: DiceScript, caplog: pytest.LogCaptureFixture
) -> None:
    fake = tablebot
    table, _board = await backgammon(fake, dice, bob_rolls=True)
    view = await table.svc.handle(ViewMatch(MATCH))
    assert view.phase is Phase.MOVE and len(view.legal_moves) > 25
    before = await table.state()
    [invitation] = [m for m in fake.messages(fake.channel) if not m.ephemeral]
    caplog.clear()

    for text in HOSTILE:
        it = await fake.slash("move", {"play": text}, by=table.bob, channel=table.thread)
        response = await it.response()
        assert response.type == 5 and response.ephemeral  # deferred, only bob sees it
        answer = await reply_to(it)
        assert answer.ephemeral and answer.content != "Played."
        assert answer.content.startswith(("Cannot read", "That move is illegal")), answer.content
        assert len(answer.content) <= 2000
        # No live @everyone/@here or role mention, and nothing that could ping.
        assert "@everyone" not in answer.content and "@here" not in answer.content
        assert "<@&" not in answer.content
        sent = bodies(fake, it)
        assert sent
        for body in sent:
            if "content" in body:
                assert_pings_nobody(body)
        assert await table.state() == before, text

    # Autocomplete with the same text: at most 25 choices of at most 100 characters, and no
    # error logged.
    for text in ["", *HOSTILE, "24/", "x" * 150]:
        it = await fake.autocomplete(
            "move", {"play": text}, focused="play", by=table.bob, channel=table.thread
        )
        choices = await it.choices()
        assert len(choices) <= 25
        assert all(1 <= len(c["name"]) <= 100 and c["value"] in view.legal_moves for c in choices)
        if text == "":
            assert [c["value"] for c in choices] == list(view.legal_moves[:25])
        elif text == "24/":
            assert choices and all(c["value"].startswith("24/") for c in choices)
        else:
            assert choices == [], text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert await table.state() == before
    assert [m for m in fake.messages(fake.channel) if not m.ephemeral] == [invitation]


async def test_unexpected_error_gets_an_apology_and_is_logged_with_context(
    tablebot: FakeDiscord,
    dice: DiceScript,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = tablebot
    table, board = await backgammon(fake, dice, bob_rolls=False)
    svc, bob = table.svc, table.bob
    before = await table.state()

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(svc, "handle", broken)
    caplog.clear()
    caplog.set_level(logging.INFO)

    # A command ...
    it = await fake.slash("roll", {}, by=bob, channel=table.thread)
    answer = await reply_to(it)
    assert answer.ephemeral and answer.content == APOLOGY
    assert "disk" not in answer.content
    # ... and a click.
    click = await fake.click(board, label="Roll", by=bob)
    answer = await reply_to(click)
    assert answer.ephemeral and answer.content == APOLOGY
    await fake.wait_bot_idle()

    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2, [r.getMessage() for r in errors]
    for record, (what, interaction) in zip(
        errors, (("(roll)", it), (f"(tb:m:RollDice:{MATCH}:", click)), strict=True
    ):
        message = record.getMessage()
        assert record.name == "bot.discord.replies"
        assert message.startswith(f"unexpected error in interaction {interaction.id} {what}")
        assert f"by user {bob.id} in guild {fake.guild.id} channel {table.thread.id}" in message
        assert record.exc_info is not None and record.exc_info[0] is RuntimeError

    # Mended (the state is read through handle too): nothing changed, the same command works.
    monkeypatch.undo()
    assert await table.state() == before
    assert (await table.say("roll", bob)).content == "Rolled."
    assert (await svc.handle(ViewMatch(MATCH))).phase is Phase.MOVE


async def test_issue_33_a_dead_cube_offers_no_double_and_refuses_a_typed_one(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """A 1-point match: a win already takes the match, so the cube is dead (docs/rules.md).
    bob's board has no Double button (he is rolled for at once), and a typed /double gets the
    polite ephemeral refusal, in his language too, and changes nothing."""
    fake = tablebot
    table, board = await opened(fake, dice, points=1)
    table.bob.user.locale = "tr"  # his Discord app's language
    await fake.wait_bot_idle()
    view = await table.svc.handle(ViewMatch(MATCH))
    assert (view.phase, view.actor, view.can_double) == (Phase.MOVE, 1, (False, False))
    labels = [button.get("label") for button in board.buttons]
    assert labels and "Double" not in labels
    before = await table.state()
    answer = await table.say("double", table.bob)
    assert answer.ephemeral
    assert answer.content == catalogue.text("engine.dead_cube", "tr")
    assert answer.content.startswith("Katlama zar")  # Turkish, not English
    assert await table.state() == before
