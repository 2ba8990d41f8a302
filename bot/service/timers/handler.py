"""A handler per deadline kind: ``await handler(deadline, now)`` does the deadline's work and
returns the service events to publish once the firing is committed, and a
:class:`~bot.service.timers.model.Rearm` where the same deadline is to fire again later."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from bot.service.timers.model import Deadline

DeadlineHandler = Callable[[Deadline, float], Awaitable[Iterable[object]]]


class Handlers:
    """The handlers by kind; a kind with none is fired with no work (and a warning)."""

    def __init__(self) -> None:
        self._by_kind: dict[str, DeadlineHandler] = {}

    def register(self, kind: str, handler: DeadlineHandler) -> None:
        if kind in self._by_kind:
            raise ValueError(f"a handler for {kind!r} is registered already")
        self._by_kind[kind] = handler

    def get(self, kind: str) -> DeadlineHandler | None:
        return self._by_kind.get(kind)

    def kinds(self) -> frozenset[str]:
        return frozenset(self._by_kind)
