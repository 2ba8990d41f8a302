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
    """The /rules summary (Discord markdown)."""
    error_unit: str = "thousandths of equity lost per decision"
    """What the analysis report's error rate counts."""


_NANNON_RULES = (
    "**Nannon**: 6 spots, 3 checkers each, one die.\n"
    "- Start: one checker at HOME, one each on your spots 1 and 2. Your spot k is your "
    "opponent's spot 7-k.\n"
    "- Opening: each player rolls one die; the higher roll moves first and plays the "
    "*difference*. A tie is rolled again, and on a tie either player may turn the cube.\n"
    "- A checker at HOME enters on spot d; a checker on spot s moves to s+d, and past 6 it "
    "reaches SAFETY (no exact roll needed).\n"
    "- One checker per spot. You may not land on your own checker; landing on a lone "
    "opponent checker hits it back to its HOME. Checkers on adjacent spots form a prime "
    "and can't be hit.\n"
    "- You must move if you can; with no legal move the turn is forfeited.\n"
    "- Bear all 3 checkers to SAFETY to win 1 point, or 2 (a **NANNON**) if the loser has "
    "none in SAFETY, times the cube.\n"
    "- Cube: starts centred (showing 64). Before rolling, double if it is centred or yours; "
    "the opponent takes (owns it, stake doubles) or passes (loses at the old stake). "
    "A double must be answered before anything else.\n"
    "- Match play to N points (11 by default), with the Crawford rule: no doubling in the "
    "one game after a player first reaches N-1.\n"
    "- Shut your opponent out and react 📣 to shout NANNON!"
)

_BACKGAMMON_RULES = (
    "**Backgammon**: standard rules, 15 checkers each, two dice; doubles are played "
    "four times.\n"
    "- Use both dice if you can; if only one can be used, use the larger when either "
    "could be. With doubles, play as many as possible.\n"
    "- Checkers on the bar enter before anything else. Bear off only with all 15 in your "
    "home board; a higher roll bears off from the highest point only when no checker is "
    "higher.\n"
    "- Opening: one die each, the higher roll plays both numbers; ties are rolled again.\n"
    "- A game is 1 point, a gammon (loser bore off nothing) 2, a backgammon (and still has "
    "a checker on the bar or in the winner's home board) 3, times the cube.\n"
    "- Cube: double only before rolling, with a centred cube or one you own. A pass loses "
    "the stake before the double; a take owns the cube. No limit on redoubles.\n"
    "- Match play uses the Crawford rule. Money play (points 0) may use the Jacoby rule "
    "(gammons count single until the cube is turned) and automatic doubles on tied "
    "openings.\n"
    "- /resign offers single, gammon or backgammon; the opponent accepts or declines.\n"
    "- Moves in gnubg notation: `24/18 13/11`, `bar/22`, `6/off`, `8/5(2)`."
)

_CHECKERS_RULES = (
    "**American checkers** (English draughts): 8x8 board, dark squares numbered 1-32.\n"
    "- Black starts on 1-12 and moves first; White starts on 21-32. Colours alternate "
    "each game of a match.\n"
    "- Men move and jump diagonally forward only; kings move and jump both ways.\n"
    "- Capturing is mandatory; you may choose any capture, not necessarily the longest, "
    "but a jump sequence once begun must be completed.\n"
    "- A man reaching the king row is crowned and its move ends there, even mid-jump.\n"
    "- No pieces or no legal move: you lose.\n"
    "- Draws: by agreement (/draw), on the third repetition of a position with the same "
    "side to move, or after 40 moves each with no capture and no man moved.\n"
    "- Match: a win scores 1, a draw ½ each; first to the match length wins, and a final "
    "tie is a drawn match.\n"
    "- Notation: `11-15` for a move, `22x15x8` for a jump (`22x8` when unambiguous)."
)

STYLES: Mapping[GameKind, GameStyle] = MappingProxyType(
    {
        GameKind.NANNON: GameStyle(discord.Colour.from_rgb(38, 84, 64), _NANNON_RULES),
        GameKind.BACKGAMMON: GameStyle(
            discord.Colour.from_rgb(150, 62, 44), _BACKGAMMON_RULES, "mEMG per decision"
        ),
        GameKind.CHECKERS: GameStyle(
            discord.Colour.from_rgb(92, 58, 34),
            _CHECKERS_RULES,
            "thousandths of the score lost per move",
        ),
    }
)
"""Every game's style, by kind (read-only)."""


def style_of(kind: GameKind | str) -> GameStyle:
    """The style of ``kind`` (a GameKind or its value)."""
    return STYLES[GameKind(kind)]
