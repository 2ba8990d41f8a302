"""The language a member chose with /language (migration step 4), in both stores."""

from __future__ import annotations

import pytest

from bot.storage import Store

pytestmark = pytest.mark.asyncio


async def test_a_members_language_is_kept_replaced_and_forgotten(any_store: Store) -> None:
    store = any_store
    assert await store.member_language(2**62) is None
    await store.save_member_language(2**62, "el", 1.0)
    await store.save_member_language(2**62 + 1, "tr", 1.0)
    assert await store.member_language(2**62) == "el"
    await store.save_member_language(2**62, "ru", 2.0)
    assert await store.member_language(2**62) == "ru"
    await store.save_member_language(2**62, None, 3.0)
    assert await store.member_language(2**62) is None
    assert await store.member_language(2**62 + 1) == "tr"
