"""Rate limits in the fake, on its clock: the global 50 per second per bot token (interaction
endpoints exempt), per-route buckets per channel with Discord's headers, 429s as discord.py reads
them, and the request counters."""

from __future__ import annotations

import asyncio
import time

import discord
import pytest

from fakediscord import FakeDiscord
from fakediscord.conftest import Rest, gate_of
from fakediscord.ratelimits import REACTIONS, RateLimits
from fakediscord.server import InteractionState

pytestmark = pytest.mark.asyncio
MESSAGES = "/channels/{channel_id}/messages"


async def test_off_by_default_no_limits_and_no_headers(rest: Rest) -> None:
    for i in range(12):
        reply = await rest.send(rest.fake.channel, f"#{i}")
        assert reply.status == 200
        assert not any(h.lower().startswith("x-ratelimit") for h in reply.headers)


async def test_every_response_carries_its_buckets_headers(rest: Rest) -> None:
    fake = rest.fake
    fake.set_rate_limits(True)
    before = time.time()
    reply = await rest.send(fake.channel)
    headers = reply.headers
    assert reply.status == 200
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Reset-After"] == "5.000"
    assert before + 4 < float(headers["X-RateLimit-Reset"]) < time.time() + 6  # epoch seconds
    bucket = headers["X-RateLimit-Bucket"]
    await fake.advance(2)
    headers = (await rest.send(fake.channel)).headers
    assert headers["X-RateLimit-Remaining"] == "3" and headers["X-RateLimit-Reset-After"] == "3.000"
    assert headers["X-RateLimit-Bucket"] == bucket  # the same bucket
    # Errors carry them too.
    missing = await rest.get(f"/channels/{fake.channel.id}/messages/1")
    assert missing.status == 404 and "X-RateLimit-Remaining" in missing.headers


async def test_five_messages_per_five_seconds_per_channel(rest: Rest) -> None:
    fake = rest.fake
    fake.set_rate_limits(True)
    other = await fake.add_channel("other")
    for i in range(5):
        assert (await rest.send(fake.channel, f"#{i}")).status == 200
    await fake.advance(1.5)
    refused = await rest.send(fake.channel, "#5")
    assert refused.status == 429
    assert refused.body == {
        "message": "You are being rate limited.",
        "retry_after": 3.5,
        "global": False,
    }
    headers = refused.headers
    assert headers["X-RateLimit-Scope"] == "user" and headers["X-RateLimit-Remaining"] == "0"
    assert headers["Retry-After"] == "4" and headers["Via"]  # discord.py needs Via
    assert "X-RateLimit-Global" not in headers
    assert [m.content for m in fake.messages()] == [f"#{i}" for i in range(5)]
    # Another channel has its own bucket.
    assert (await rest.send(other, "elsewhere")).status == 200
    await fake.advance(3.4)
    assert (await rest.send(fake.channel, "#5")).body["retry_after"] == pytest.approx(0.1)
    await fake.advance(0.1)
    again = await rest.send(fake.channel, "#5")
    assert again.status == 200 and again.headers["X-RateLimit-Remaining"] == "4"


async def test_reactions_share_a_bucket_of_one_per_quarter_second(rest: Rest) -> None:
    fake = rest.fake
    fake.set_rate_limits(True)
    message = await rest.send(fake.channel)
    path = f"/channels/{fake.channel.id}/messages/{message.body['id']}/reactions"
    added = await rest.put(f"{path}/%F0%9F%91%8D/@me")
    assert added.status == 204 and added.headers["X-RateLimit-Limit"] == "1"
    assert added.headers["X-RateLimit-Bucket"] == REACTIONS.hash
    removed = await rest.delete(f"{path}/%F0%9F%91%8D/@me")  # another route, same bucket
    assert removed.status == 429 and removed.body["retry_after"] == 0.25
    assert removed.headers["X-RateLimit-Bucket"] == REACTIONS.hash
    await fake.advance(0.25)
    assert (await rest.delete(f"{path}/%F0%9F%91%8D/@me")).status == 204


async def test_the_global_limit_spares_the_interaction_endpoints(rest: Rest) -> None:
    fake = rest.fake
    # Roomy routes, to meet the global limit alone: 50 per second per bot token.
    fake.set_rate_limits(RateLimits(default_limit=1000))
    for _ in range(50):
        assert (await rest.get("/users/@me")).status == 200
    refused = await rest.get(f"/channels/{fake.channel.id}")
    assert refused.status == 429
    assert refused.body == {
        "message": "You are being rate limited.",
        "retry_after": 1.0,
        "global": True,
    }
    headers = refused.headers
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert headers["Retry-After"] == "1" and headers["Via"]
    assert "X-RateLimit-Bucket" not in headers

    # An interaction is answered all the same: its endpoints are not bound by it.
    alice = await fake.add_member("alice")
    state = InteractionState(
        id=1, token="tok", type=2, user=alice, channel=fake.channel, data={"name": "x"}
    )
    state.created_at = fake.now()
    fake.remember_interaction(state)
    answered = await rest.post(
        "/interactions/1/tok/callback", {"type": 4, "data": {"content": "ok"}}, token=False
    )
    assert answered.status == 200
    followed = await rest.post(
        f"/webhooks/{fake.application_id}/tok", {"content": "more"}, token=False
    )
    assert followed.status == 204

    await fake.advance(1.0)
    assert (await rest.get(f"/channels/{fake.channel.id}")).status == 200
    assert fake.stats.global_rate_limited == 1


async def test_counters_of_bot_token_requests_interactions_and_429s(rest: Rest) -> None:
    fake = rest.fake
    assert fake.stats.bot_token_total == 0
    await rest.send(fake.channel)
    before = fake.stats.snapshot()
    fake.set_rate_limits(True)
    for _ in range(6):
        await rest.send(fake.channel)
    await rest.get("/users/@me")
    await rest.get("/users/@me", token=False)  # 401: not made with the bot token
    done = fake.stats.since(before)
    assert done.bot_token == {f"POST {MESSAGES}": 6, "GET /users/@me": 1}
    assert done.bot_token_total == 7 and done.interaction_total == 0
    assert done.rate_limited == {f"POST {MESSAGES}": 1} and done.global_rate_limited == 0
    assert fake.stats.bot_token[f"POST {MESSAGES}"] == 7  # the snapshot's one too
    # Scripted 429s count too, with their route.
    fake.set_rate_limits(False)
    fake.fail_next(429, path="/users/@me$")
    await rest.get("/users/@me")
    assert fake.stats.rate_limited["GET /users/@me"] == 1


async def test_scaled_limits_keep_the_counts_and_shrink_the_windows() -> None:
    limits = RateLimits().scaled(0.01)
    assert (limits.global_limit, limits.global_window) == (50, pytest.approx(0.01))
    bucket = limits.bucket("POST", MESSAGES)
    assert (bucket.limit, bucket.window) == (5, pytest.approx(0.05))
    other = limits.bucket("GET", "/users/@me")
    assert (other.limit, other.window) == (5, pytest.approx(0.05))


# ----------------------------------------------------------------------- with discord.py


async def advance_on_429(fake: FakeDiscord, since: int) -> float:
    """Wait for a 429 and move the clock past its retry_after (discord.py sleeps that long in
    real time, then retries; the fake's clock moved first, so the retry goes through)."""
    call = await fake.wait_for_call(lambda c: c.status == 429, since=since)
    retry_after = float(call.response["retry_after"])
    await fake.advance(retry_after)
    return retry_after


async def test_discord_py_obeys_a_global_429(gated: FakeDiscord) -> None:
    fake = gated
    fake.set_rate_limits(RateLimits(global_limit=1, global_window=0.05))
    channel = gate_of(fake).get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    mark = fake.mark()
    sending = asyncio.gather(channel.send("one"), channel.send("two"))
    assert await advance_on_429(fake, mark) == 0.05
    await sending
    assert [m.content for m in fake.messages()] == ["one", "two"]
    assert fake.stats.global_rate_limited == 1
    assert [c.status for c in fake.calls_matching(since=mark)] == [200, 429, 200]


async def test_discord_py_waits_out_an_exhausted_bucket(gated: FakeDiscord) -> None:
    fake = gated
    fake.set_rate_limits(RateLimits().scaled(0.01))  # 5 messages per 50 ms
    channel = gate_of(fake).get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    mark = fake.mark()

    async def six() -> None:
        for i in range(6):
            await channel.send(f"#{i}")

    sending = asyncio.create_task(six())
    # After the fifth, discord.py read Remaining 0 and waited Reset-After (real time) before the
    # sixth; the fake's clock stood still, so the sixth met the limit and was retried.
    await advance_on_429(fake, mark)
    await sending
    assert [m.content for m in fake.messages()] == [f"#{i}" for i in range(6)]
    refused = [c for c in fake.calls_matching(since=mark) if c.status == 429]
    assert len(refused) == 1 and refused[0].response["global"] is False
