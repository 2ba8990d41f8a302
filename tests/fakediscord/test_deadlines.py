"""Interaction deadlines on the fake's clock: the initial response within 3 s (10062 after), and
the interaction token (follow-ups, the original's edits) for 15 minutes (401 50027 after)."""

from __future__ import annotations

import pytest

from fakediscord import FakeClock, FakeDiscord
from fakediscord.conftest import Rest, gate_of
from fakediscord.server import InteractionState

pytestmark = pytest.mark.asyncio
UNKNOWN_INTERACTION = {"message": "Unknown interaction", "code": 10062}
INVALID_TOKEN = {"message": "Invalid Webhook Token", "code": 50027}


async def interaction(rest: Rest, token: str) -> InteractionState:
    fake = rest.fake
    alice = await fake.add_member(f"user-{token}")
    state = InteractionState(
        id=len(fake.interactions) + 1,
        token=token,
        type=2,
        user=alice,
        channel=fake.channel,
        data={"name": "x"},
    )
    state.created_at = fake.now()
    fake.remember_interaction(state)
    return state


async def callback(rest: Rest, state: InteractionState, kind: int = 4) -> tuple[int, object]:
    body = {"type": kind, "data": {"content": "answer"} if kind == 4 else {}}
    reply = await rest.post(f"/interactions/{state.id}/{state.token}/callback", body, token=False)
    return reply.status, reply.body


async def test_the_initial_response_is_due_within_3_seconds(rest: Rest) -> None:
    fake = rest.fake
    early = await interaction(rest, "early")
    await fake.advance(2.9)
    assert (await callback(rest, early))[0] == 200
    late = await interaction(rest, "late")
    await fake.advance(3.1)
    assert await callback(rest, late) == (404, UNKNOWN_INTERACTION)
    assert late.response is None  # nothing was answered
    # A second answer is refused for what it is while the token lives.
    assert (await callback(rest, early))[1] == {
        "message": "Interaction has already been acknowledged.",
        "code": 40060,
    }


async def test_the_token_lives_15_minutes(rest: Rest) -> None:
    fake = rest.fake
    state = await interaction(rest, "tok")
    assert (await callback(rest, state, kind=5))[0] == 200  # "thinking"
    hook = f"/webhooks/{fake.application_id}/tok"
    await fake.advance(14 * 60 + 59)
    assert (await rest.post(hook, {"content": "done"}, token=False)).status == 204
    assert (
        await rest.patch(f"{hook}/messages/@original", {"content": "x"}, token=False)
    ).status == 200
    await fake.advance(2)
    for reply in (
        await rest.post(hook, {"content": "too late"}, token=False),
        await rest.patch(f"{hook}/messages/@original", {"content": "y"}, token=False),
        await rest.get(f"{hook}/messages/@original", token=False),
        await rest.delete(f"{hook}/messages/@original", token=False),
    ):
        assert (reply.status, reply.body) == (401, INVALID_TOKEN)
    assert [m.content for m in state.followups] == ["x"]  # the first follow-up, edited


async def test_discord_py_answering_after_3_seconds_gets_unknown_interaction(
    gated: FakeDiscord,
) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    bot = gate_of(fake)
    mark = fake.mark()
    it = await fake.slash("gate", by=alice)
    await fake.advance(3.5)  # the bot is still waiting at the gate
    bot.gate.set()
    await fake.wait_until(lambda: bot.failures, what="the bot's late answer to fail")
    assert bot.failures[0].status == 404 and bot.failures[0].code == 10062
    assert it.state.response is None
    callbacks = fake.calls_matching(method="POST", since=mark)
    assert [c.status for c in callbacks] == [404]


async def test_discord_py_following_up_after_15_minutes_gets_invalid_webhook_token(
    gated: FakeDiscord,
) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    bot = gate_of(fake)
    it = await fake.slash("later", by=alice)
    assert (await it.response()).deferred
    await fake.advance(15 * 60 + 1)
    bot.gate.set()
    await fake.wait_until(lambda: bot.failures, what="the bot's late follow-up to fail")
    assert bot.failures[0].status == 401 and bot.failures[0].code == 50027
    assert it.state.original is not None and it.state.original.loading  # still "thinking"


async def test_discord_py_following_up_within_15_minutes(gated: FakeDiscord) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    it = await fake.slash("later", by=alice)
    assert (await it.response()).deferred
    await fake.advance(14 * 60)
    gate_of(fake).gate.set()
    assert (await it.message()).content == "later"


async def test_the_fake_reads_an_injected_clock() -> None:
    clock = FakeClock(start=1000.0)
    fake = FakeDiscord(clock=clock)
    assert fake.now() == 1000.0
    clock.advance(2.5)  # a clock shared with the bot under test moves the fake's deadlines too
    await fake.advance(0.5)  # and the fake's own advance adds to it
    assert fake.now() == 1003.0
    with pytest.raises(ValueError):
        await fake.advance(-1)
    with pytest.raises(ValueError):
        clock.advance(-1)
    # The default clock stands still until advanced: nothing depends on the machine's speed.
    still = FakeDiscord()
    assert still.now() == still.now()
