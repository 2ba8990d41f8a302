"""Service refusals checked in the words users read (``bot.discord.wording``).

    with refused(NotYourTurnError, match="It's bob's turn"):
        await svc.handle(RollDice(...))

is ``pytest.raises`` whose ``match`` searches :func:`bot.discord.wording.refusal_text` of the
error (the service's ``str()`` is a neutral log line, not the sentence).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.discord.wording import refusal_text
from engines.errors import GameError


@contextmanager
def refused(
    kind: type[BaseException] = GameError, match: str | None = None
) -> Iterator[pytest.ExceptionInfo[BaseException]]:
    with pytest.raises(kind) as caught:
        yield caught
    if match is not None:
        text = refusal_text(caught.value)
        assert re.search(match, text), f"{match!r} not found in {text!r}"
