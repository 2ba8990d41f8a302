"""Languages as the service keeps them: a member's own (ChooseLanguage, MemberLanguage; theirs
in every server, kept across a restart) and a server's (GuildSettings.language)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.service import (
    ChooseLanguage,
    GetSettings,
    MatchService,
    MemberLanguage,
    UpdateSettings,
)
from bot.service.errors import Refusal, Refused
from bot.service.settings import LANGUAGES

pytestmark = pytest.mark.asyncio
AYSE, GUILD = 2**41, 2**42


@pytest_asyncio.fixture
async def service(store_target: str | Path) -> AsyncIterator[MatchService]:
    svc = await MatchService.open(store_target)
    yield svc
    await svc.close()


async def test_a_member_chooses_a_language_and_drops_it(
    service: MatchService, store_target: str | Path
) -> None:
    assert await service.handle(MemberLanguage(AYSE)) is None
    assert await service.handle(ChooseLanguage(AYSE, "el")) == "el"
    assert await service.handle(MemberLanguage(AYSE)) == "el"
    again = await MatchService.open(store_target)  # as after a restart
    try:
        assert await again.handle(MemberLanguage(AYSE)) == "el"
    finally:
        await again.close()
    assert await service.handle(ChooseLanguage(AYSE, None)) is None
    assert await service.handle(MemberLanguage(AYSE)) is None


@pytest.mark.parametrize("bad", ["xx", "EN", "../de", "es-419", 3])
async def test_a_language_tablebot_does_not_speak_is_refused(
    service: MatchService, bad: object
) -> None:
    with pytest.raises(Refused) as caught:
        await service.handle(ChooseLanguage(AYSE, bad))  # type: ignore[arg-type]
    assert caught.value.refusal is Refusal.UNKNOWN_LANGUAGE
    assert caught.value.params["choices"] == list(LANGUAGES)
    assert await service.handle(MemberLanguage(AYSE)) is None  # nothing lost
    with pytest.raises(Refused):
        await service.handle(UpdateSettings(GUILD, {"language": bad}))
    assert (await service.handle(GetSettings(GUILD))).language == ""


async def test_a_servers_language_is_a_setting(service: MatchService) -> None:
    assert (await service.handle(GetSettings(GUILD))).language == ""  # Discord's
    settings = await service.handle(UpdateSettings(GUILD, {"language": "it"}))
    assert settings.language == "it"
    settings = await service.handle(UpdateSettings(GUILD, {"language": ""}))
    assert settings.language == ""
