"""What the adapter asks about each game, read from the engines rather than decided here.

The engines are getting a per-game spec (``engines.spec.spec_of(kind)``, whose
``resign_levels`` and ``draw_offers`` are these two fields). Until it lands, :func:`spec_of`
derives the same answers from what the engines have now; then this module goes and its callers
import ``spec_of`` from ``engines.spec``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engines.base import GameKind, ResignLevel


@dataclass(frozen=True)
class GameTraits:
    resign_levels: tuple[ResignLevel, ...]
    """The levels a player may resign at."""
    draw_offers: bool
    """Players may offer and agree a draw."""


@cache
def _traits() -> dict[GameKind, GameTraits]:
    from engines.backgammon import VARIANT as BACKGAMMON
    from engines.nannon import VARIANT as NANNON

    # A dice match (engines.match.DiceMatch) takes its variant's resignation levels and
    # refuses every draw action.
    traits = {
        NANNON.kind: GameTraits(NANNON.resign_levels, draw_offers=False),
        BACKGAMMON.kind: GameTraits(BACKGAMMON.resign_levels, draw_offers=False),
    }
    # engines.checkers.CheckersMatch: a resignation simply loses the game (ResignLevel.SINGLE
    # only), and either player may offer a draw while a game is on.
    traits[GameKind.CHECKERS] = GameTraits((ResignLevel.SINGLE,), draw_offers=True)
    return traits


def spec_of(kind: GameKind) -> GameTraits:
    """The traits of ``kind``."""
    return _traits()[kind]
