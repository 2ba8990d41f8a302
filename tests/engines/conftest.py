"""Every engine error raised in these tests reads, in the adapter's message catalogue
(``engine.<code>`` with its parameters), exactly as its English ``str()``: moving the words
to the catalogue changed nothing a player reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.discord.wording import engine_text
from engines.errors import GameError


@pytest.fixture(autouse=True)
def engine_errors_read_as_before(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    raised: list[GameError] = []
    init = GameError.__init__

    def recording(self: GameError, message: str = "", *, code: str | None = None, **params: Any):
        init(self, message, code=code, **params)
        raised.append(self)

    monkeypatch.setattr(GameError, "__init__", recording)
    yield
    for error in raised:
        if error.code is not None:
            assert engine_text(error) == str(error), error.code
