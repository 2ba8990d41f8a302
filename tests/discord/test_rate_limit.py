"""The per-member rate limit covers buttons and menus, end to end through the fake Discord.

A Manage-Server member sets a small limit with /config ratelimit. Slash commands, button clicks
and menu choices then draw on one budget per member: a click over it gets the same ephemeral
"slow down" as a command, reaches no service call and leaves the match as it was; commands spent
the budget a click needs and clicks spend the budget a command needs. Autocomplete is never
counted (Discord sends one per keystroke, and it cannot carry a refusal), so typing a move keeps
working while its author is limited.

The dice are scripted as in the fault tests: the opening is 6-1 (alice moves first, forced), then
every die is a 3, so bob is on roll with the first board.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from fakediscord import FakeDiscord, InteractionHandle, Member, Message
from support.discord_driver import Clock, DiceScript, service_of
from support.nannon_driver import Table, answered, faces, start_match

from bot.discord.ratelimit import refusal_text
from bot.service import MatchService
from engines.base import Phase

pytestmark = pytest.mark.asyncio

# "Slow down: you're sending commands too fast." (the wait that follows varies)
SLOW_DOWN = refusal_text(1).split(" Try again")[0]


class ServiceSpy:
    """Records calls to MatchService methods (the real ones still run); every command and
    every read goes through ``handle``."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, svc: MatchService, names: Iterable[str]
    ) -> None:
        self.calls: list[str] = []
        for name in names:
            original = getattr(svc, name)

            async def spy(*args: object, _name: str = name, _original: object = original,
                          **kwargs: object) -> object:  # fmt: skip
                self.calls.append(_name)
                return await _original(*args, **kwargs)  # type: ignore[operator]

            monkeypatch.setattr(svc, name, spy)


async def configure(fake: FakeDiscord, mod: Member, actions: int, seconds: int) -> None:
    it = await fake.slash("config ratelimit", {"actions": actions, "seconds": seconds}, by=mod)
    message = (await it.response()).message
    assert message is not None and message.content.startswith("Saved."), message
    what = "command or click" if actions == 1 else "commands or clicks"
    assert f"{actions} {what} per {seconds} s per member" in message.content


async def rules(fake: FakeDiscord, who: Member) -> Message:
    """/rules nannon: an ephemeral embed when allowed, an ephemeral "slow down" when not."""
    it = await fake.slash("rules", {"game": "nannon"}, by=who)
    message = (await it.response()).message
    assert message is not None and message.ephemeral
    return message


async def refused_click(fake: FakeDiscord, it: InteractionHandle) -> str:
    """The click was answered with one ephemeral message (no defer): its text."""
    response = await it.response()
    assert response.type == 4 and response.ephemeral, response
    texts = await answered(fake, it)
    assert len(texts) == 1, texts
    assert len(it.state.callbacks) == 1 and not it.followups
    return texts[0]


def is_slow_down(text: str) -> bool:
    return text.startswith(SLOW_DOWN + " Try again in ")


async def assert_unchanged(table: Table, version: int, events: int, posts: int) -> None:
    view = await table.view()
    assert view.version == version
    assert await table.events() == events
    assert len([m for m in table.fake.messages(table.thread) if not m.ephemeral]) == posts


async def test_clicks_and_commands_share_one_budget(
    tablebot: FakeDiscord, dice: DiceScript, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    mod = await fake.add_member("mod", manage_guild=True)
    await configure(fake, mod, actions=4, seconds=3600)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    # alice: /challenge (1 of 4); bob: the Accept click (1 of 4).
    table, board = await start_match(fake, dice, alice, bob, 3)
    before = await table.view()
    assert (before.phase, before.actor) == (Phase.ROLL, 1)
    events = await table.events()
    posts = len([m for m in fake.messages(table.thread) if not m.ephemeral])
    spy = ServiceSpy(monkeypatch, service_of(fake), ["handle"])  # reads too

    # Commands spend what a click needs: bob runs three, then his Roll is refused.
    for _ in range(3):
        assert (await rules(fake, bob)).embeds
    spy.calls.clear()
    text = await refused_click(fake, await fake.click(board, label="Roll", by=bob))
    assert is_slow_down(text), text
    assert spy.calls == []  # the click reached no service call
    await assert_unchanged(table, before.version, events, posts)
    assert {"Roll", "Double"} <= {b["label"] for b in fake.get_message(board.id).buttons}
    # The same words as for a command over the limit.
    command_refusal = (await rules(fake, bob)).content
    assert is_slow_down(command_refusal) and not (await rules(fake, bob)).embeds
    # Every component is counted: the Resign button (an ephemeral menu, no change) too.
    assert is_slow_down(await refused_click(fake, await fake.click(board, label="Resign", by=bob)))

    # Clicks spend what a command needs: alice's three off-turn clicks are refused by the turn
    # check (and counted), then her command is refused by the limit, and so is her next click.
    for _ in range(3):
        text = await refused_click(fake, await fake.click(board, label="Roll", by=alice))
        assert "not your turn" in text, text
    assert is_slow_down((await rules(fake, alice)).content)
    spy.calls.clear()
    text = await refused_click(fake, await fake.click(board, label="Roll", by=alice))
    assert is_slow_down(text), text  # the limit comes before any other check
    assert spy.calls == []
    await assert_unchanged(table, before.version, events, posts)

    # Another member is not limited by them.
    text = await refused_click(fake, await fake.click(board, label="Roll", by=carol))
    assert "not your match" in text, text

    # A looser limit lets bob's refused click through: the board was left intact.
    await configure(fake, mod, actions=1000, seconds=1)
    clock.advance(1.0)  # 1000 a second: his bucket has refilled
    mark = fake.mark()
    it = await fake.click(board, label="Roll", by=bob)
    assert (await it.response()).type == 7  # the board, edited in the answer
    await table.next_after(before, board, mark)
    after = await table.view()
    assert after.version == before.version + 1 and after.phase is Phase.MOVE
    assert not fake.bot_errors


async def test_menu_choices_are_limited_and_autocomplete_is_not_counted(
    tablebot: FakeDiscord, dice: DiceScript, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    mod = await fake.add_member("mod", manage_guild=True)
    await configure(fake, mod, actions=3, seconds=3600)
    dice.face = faces(6, 1, then=(3,))
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    table, board = await start_match(fake, dice, alice, bob, 3)  # bob: Accept (1 of 3)
    before = await table.view()
    mark = fake.mark()
    it = await fake.click(board, label="Roll", by=bob)  # 2 of 3
    assert (await it.response()).type == 7  # the board, edited in the answer
    board = await table.next_after(before, board, mark) or board
    rolled = await table.view()
    assert rolled.phase is Phase.MOVE and rolled.actor == 1 and rolled.legal_moves

    async def typed() -> list[str]:
        it = await fake.autocomplete(
            "move", {"play": ""}, focused="play", by=bob, channel=table.thread
        )
        return [c["value"] for c in await it.choices()]

    # Typing a move sends many autocompletes: none of them counts ...
    for _ in range(10):
        assert await typed() == list(rolled.legal_moves)
    assert (await rules(fake, bob)).embeds  # ... so the third action is still allowed.

    # Over the limit, choosing the move from the menu is refused and changes nothing.
    events = await table.events()
    posts = len([m for m in fake.messages(table.thread) if not m.ephemeral])
    spy = ServiceSpy(monkeypatch, service_of(fake), ["handle"])  # reads too
    text = await refused_click(fake, await fake.select(board, [rolled.legal_moves[0]], by=bob))
    assert is_slow_down(text), text
    assert spy.calls == []
    await assert_unchanged(table, rolled.version, events, posts)

    # Autocomplete still answers while bob is limited (it cannot carry a refusal).
    assert await typed() == list(rolled.legal_moves)
    assert not fake.bot_errors


async def test_accept_over_the_limit_starts_no_match(
    tablebot: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    mod = await fake.add_member("mod", manage_guild=True)
    await configure(fake, mod, actions=1, seconds=3600)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob, "points": 1}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None and invitation.buttons
    assert (await rules(fake, bob)).embeds  # bob's only action
    spy = ServiceSpy(monkeypatch, service_of(fake), ["handle"])
    text = await refused_click(fake, await fake.click(invitation, label="Accept", by=bob))
    assert is_slow_down(text), text
    assert spy.calls == []
    assert fake.threads(fake.channel) == []
    assert {"Accept", "Decline", "Cancel"} <= {
        b["label"] for b in fake.get_message(invitation.id).buttons
    }
    assert not fake.bot_errors
