"""The service's own refusals. Every refusal is a :class:`~engines.errors.GameError`; the engines'
errors pass through as they are."""

from __future__ import annotations

from engines.errors import GameError, NotYourTurnError

__all__ = ["NotFoundError", "NotYourTurnError", "StaleActionError"]


class StaleActionError(GameError):
    """The action was meant for an earlier state of the match (an old board, a double click)."""


class NotFoundError(GameError):
    """No such match or challenge in this server (also said for another server's match)."""
