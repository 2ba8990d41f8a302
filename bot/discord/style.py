"""What the adapter shows per game that no engine trait covers: the embed colour and the /rules
summary, one :class:`GameStyle` per game.

:data:`STYLES` is the one table in ``bot/discord`` keyed by the games themselves. Everything else
that differs between games (titles, dice, the cube, resignations, units, position IDs, stats
counters) is asked of the game's spec, :func:`engines.spec.spec_of`, rather than switched on its
:class:`GameKind`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import discord

from engines.base import GameKind

__all__ = ["STYLES", "GameStyle", "style_of"]


@dataclass(frozen=True, slots=True)
class GameStyle:
    """How the adapter dresses one game."""

    colour: discord.Colour
    """The colour of the game's match, result and invitation embeds."""
    rules: str
    """The /rules summary (Discord markdown): its message id in the catalogue."""
    error_unit: str = "analysis.unit.equity"
    """What the analysis report's error rate counts: its message id in the catalogue."""


STYLES: Mapping[GameKind, GameStyle] = MappingProxyType(
    {
        GameKind.NANNON: GameStyle(discord.Colour.from_rgb(38, 84, 64), "rules.nannon"),
        GameKind.BACKGAMMON: GameStyle(
            discord.Colour.from_rgb(150, 62, 44), "rules.backgammon", "analysis.unit.backgammon"
        ),
        GameKind.CHECKERS: GameStyle(
            discord.Colour.from_rgb(92, 58, 34),
            "rules.checkers",
            "analysis.unit.checkers",
        ),
    }
)
"""Every game's style, by kind (read-only)."""


def style_of(kind: GameKind | str) -> GameStyle:
    """The style of ``kind`` (a GameKind or its value)."""
    return STYLES[GameKind(kind)]
