"""Refusals checked by their code, and in the words users read (``bot.discord.wording``).

    with refused(NotYourTurnError, Refusal.NOT_YOUR_TURN, match="It's bob's turn"):
        await svc.handle(RollDice(...))

is ``pytest.raises`` that also checks the refusal's code (a service :class:`Refusal`, or an
engine error's ``code``) and searches ``match`` in the catalogue's words for it
(:func:`bot.discord.wording.refusal_text`; ``str()`` is a log line, not the sentence).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.discord.wording import refusal_text
from bot.service import Refusal, Refused
from engines.errors import GameError


def code_of(error: BaseException) -> Refusal | str | None:
    """The service's refusal code, or the engine error's code."""
    if isinstance(error, Refused):
        return error.refusal
    return error.code if isinstance(error, GameError) else None


@contextmanager
def refused(
    kind: type[BaseException], code: Refusal | str, *, match: str | None = None
) -> Iterator[pytest.ExceptionInfo[BaseException]]:
    with pytest.raises(kind) as caught:
        yield caught
    assert code_of(caught.value) == code, f"{code_of(caught.value)!r}, not {code!r}"
    if match is not None:
        text = refusal_text(caught.value)
        assert re.search(match, text), f"{match!r} not found in {text!r}"
