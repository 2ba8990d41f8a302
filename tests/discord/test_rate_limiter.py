"""Every persistent component's ``interaction_check`` counts the click against the member's rate
limit (the buckets slash commands use) and, over it, answers ephemerally before any service call.

The end-to-end behaviour is in tests/discord/test_rate_limit.py; this covers each component class,
including the ones that flow does not click (Export/Rematch, Claim win).
"""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.discord import ratelimit
from bot.discord.components import (
    ChallengeButton,
    ClaimWinButton,
    FinishedButton,
    MatchButton,
    MoveSelect,
    check_click,
)
from bot.discord.ratelimit import CommandRateLimit, Limit, refusal_text

GUILD = 10
USER = 20


class _Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content: str, **kwargs: Any) -> None:
        self.sent.append((content, kwargs))

    async def send(self, content: str, **kwargs: Any) -> None:
        self.sent.append((content, kwargs))


class _NoService:
    """Any use of the service fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the service was used: {name}")


class _User:
    id = USER


class _Client:
    def __init__(self, limits: CommandRateLimit | None) -> None:
        self.rate_limit = limits
        self.service = _NoService()


class _Interaction:
    def __init__(
        self,
        client: _Client,
        kind: discord.InteractionType = discord.InteractionType.component,
    ) -> None:
        self.client = client
        self.type = kind
        self.guild_id = GUILD
        self.channel_id = 1
        self.user = _User()
        self.id = 1
        self.locale = discord.Locale.american_english  # as every interaction carries
        self.data: dict[str, Any] = {}
        self.response = _Response()
        self.followup = self.response


def limits(actions: int) -> CommandRateLimit:
    async def load(guild_id: int) -> Limit:
        return Limit(actions, 3600)

    now = [0.0]
    return CommandRateLimit(load, clock=lambda: now[0])


ITEMS = {
    "roll": lambda: MatchButton("roll", 1, 3),
    "resign": lambda: MatchButton("resign", 1, 3),
    "move": lambda: MoveSelect(1, 3, ["6/S"]),
    "accept": lambda: ChallengeButton("accept", 1),
    "export": lambda: FinishedButton("export", 1),
    "rematch": lambda: FinishedButton("rematch", 1),
    "claim": lambda: ClaimWinButton(1, 3),
}


@pytest.mark.parametrize("name", sorted(ITEMS))
@pytest.mark.asyncio
async def test_a_click_over_the_limit_is_refused_before_any_service_call(name: str) -> None:
    shared = limits(2)
    # A slash command and a click already spent the budget: one bucket for both.
    assert await shared.retry_after(GUILD, USER) == 0.0
    assert await check_click(_Interaction(_Client(shared))) is True  # type: ignore[arg-type]
    interaction = _Interaction(_Client(shared))
    allowed = await ITEMS[name]().interaction_check(interaction)  # type: ignore[arg-type]
    assert allowed is False
    [(content, kwargs)] = interaction.response.sent
    assert content == refusal_text(1800.0) and kwargs["ephemeral"] is True
    # Nor may the member run a command now.
    assert await shared.retry_after(GUILD, USER) > 0


@pytest.mark.parametrize("name", ["accept", "export", "rematch", "claim"])
@pytest.mark.asyncio
async def test_a_click_within_the_limit_passes_and_takes_a_token(name: str) -> None:
    shared = limits(1)
    interaction = _Interaction(_Client(shared))
    assert await ITEMS[name]().interaction_check(interaction) is True  # type: ignore[arg-type]
    assert interaction.response.sent == []
    assert await shared.retry_after(GUILD, USER) > 0  # the click took the only token


@pytest.mark.asyncio
async def test_without_a_limiter_clicks_are_allowed() -> None:
    interaction = _Interaction(_Client(None))
    assert await ratelimit.allow_component(interaction) is True  # type: ignore[arg-type]
    assert await check_click(interaction) is True  # type: ignore[arg-type]
    assert interaction.response.sent == []


@pytest.mark.asyncio
async def test_autocomplete_is_never_counted() -> None:
    shared = limits(1)
    for _ in range(50):
        typing = _Interaction(_Client(shared), discord.InteractionType.autocomplete)
        assert await ratelimit.allow_interaction(shared, typing) is True  # type: ignore[arg-type]
        assert typing.response.sent == []
    assert await shared.retry_after(GUILD, USER) == 0.0  # the token is still there


@pytest.mark.asyncio
async def test_a_failing_limiter_lets_the_click_through(monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(interaction: Any) -> bool:
        raise RuntimeError("boom")

    monkeypatch.setattr(ratelimit, "allow_component", broken)
    interaction = _Interaction(_Client(limits(1)))
    assert await check_click(interaction) is True  # type: ignore[arg-type]
