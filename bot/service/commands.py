"""What a player asks of a match: one frozen command per action, handed to
:meth:`bot.service.MatchService.act`, the service's one entry point for match actions.

Every command names the match, the server and the member. ``expected_version`` is the match
version the clicked board showed: an action on any other version is refused as stale (an old
board, a double click). Slash commands leave it ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.base import ResignLevel


@dataclass(frozen=True)
class MatchCommand:
    match_id: int
    guild_id: int
    user_id: int
    expected_version: int | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class RollDice(MatchCommand):
    """Roll the dice; also re-rolls a tied Nannon opening (either player may)."""


@dataclass(frozen=True)
class PlayMove(MatchCommand):
    """Play a move given as notation (``24/18 13/11``, ``H/3``, ``22x15``) or an engine move."""

    move: Any


@dataclass(frozen=True)
class OfferDouble(MatchCommand):
    pass


@dataclass(frozen=True)
class TakeDouble(MatchCommand):
    pass


@dataclass(frozen=True)
class PassDouble(MatchCommand):
    pass


@dataclass(frozen=True)
class OfferResignation(MatchCommand):
    """Offer to resign the game at ``level``; in checkers a resignation loses the game at once.
    ``level`` may be a :class:`ResignLevel`, its number, or its name."""

    level: ResignLevel | str | int = ResignLevel.SINGLE


@dataclass(frozen=True)
class AcceptResignation(MatchCommand):
    pass


@dataclass(frozen=True)
class DeclineResignation(MatchCommand):
    pass


@dataclass(frozen=True)
class OfferDraw(MatchCommand):
    pass


@dataclass(frozen=True)
class AcceptDraw(MatchCommand):
    pass


@dataclass(frozen=True)
class DeclineDraw(MatchCommand):
    pass


@dataclass(frozen=True)
class LeaveMatch(MatchCommand):
    """Concede the whole match (either player, any time)."""


@dataclass(frozen=True)
class ClaimWin(MatchCommand):
    """The waiting player claims the match once the opponent is idle past the claim time."""


__all__ = [
    "AcceptDraw",
    "AcceptResignation",
    "ClaimWin",
    "DeclineDraw",
    "DeclineResignation",
    "LeaveMatch",
    "MatchCommand",
    "OfferDouble",
    "OfferDraw",
    "OfferResignation",
    "PassDouble",
    "PlayMove",
    "RollDice",
    "TakeDouble",
]
