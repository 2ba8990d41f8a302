"""The plain values every layer shares: game kinds, phases, resignation levels, results and rules.

A leaf module (stdlib only, imports nothing of the project), so that :mod:`engines.actions` and
:mod:`engines.base` (the match protocol, which names actions) can both use these values without
importing each other. :mod:`engines.base` re-exports every name here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["GameKind", "GameResult", "MatchRules", "Phase", "ResignLevel", "ResultKind"]


class GameKind(enum.StrEnum):
    NANNON = "nannon"
    BACKGAMMON = "backgammon"
    CHECKERS = "checkers"


class Phase(enum.StrEnum):
    """What the match waits for."""

    OPENING = "opening"  # a game's opening roll is due (dice games)
    OPENING_TIE = "opening_tie"  # Nannon: opening roll tied; a double may be offered, or roll again
    ROLL = "roll"  # the player on turn may double, or roll
    MOVE = "move"  # the player on turn must choose a move (dice rolled, or a checkers turn)
    CUBE_OFFERED = "cube_offered"  # the doubled player must take or drop
    RESIGN_OFFERED = "resign_offered"  # the opponent of the resigner must accept or decline
    DRAW_OFFERED = "draw_offered"  # checkers: the opponent must accept or decline a draw
    MATCH_OVER = "match_over"


class ResignLevel(enum.IntEnum):
    """How much a resignation offers, before the cube: Nannon uses SINGLE and GAMMON (a NANNON)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


class ResultKind(enum.StrEnum):
    """How a game ended."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    NANNON = "nannon"  # a Nannon shutout: the loser has no checker in SAFETY
    DROP = "drop"  # a double was passed
    RESIGN = "resign"  # a resignation was accepted
    DRAW = "draw"  # checkers: agreed, threefold repetition or the 40-move rule
    FORFEIT = "forfeit"  # the match was conceded, left or claimed on time


@dataclass(frozen=True)
class MatchRules:
    """The options a match is played under.

    ``length`` is the match length in points (dice games) or games (checkers); 0 is money play,
    a single game (backgammon only). ``auto_doubles`` is the most automatic doubles per game
    (money only; 0 turns them off). ``auto_pass`` off leaves a roll with no legal move on the
    board until its player plays ``no move`` (dice games); on, the turn passes at once. It is a
    rule of the match, not a service option, so that replaying the actions is deterministic.
    """

    length: int
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    auto_doubles: int = 0
    auto_pass: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "cube": self.cube,
            "crawford": self.crawford,
            "jacoby": self.jacoby,
            "auto_doubles": self.auto_doubles,
            "auto_pass": self.auto_pass,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRules:
        return cls(
            length=int(data["length"]),
            cube=bool(data.get("cube", True)),
            crawford=bool(data.get("crawford", True)),
            jacoby=bool(data.get("jacoby", False)),
            auto_doubles=int(data.get("auto_doubles", 0)),
            auto_pass=bool(data.get("auto_pass", True)),  # absent before the option existed
        )


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``winner`` is a seat, or None for a checkers draw.

    ``points`` is what the winner scores (result multiplier times cube, after Jacoby); a
    checkers win scores 1 and a draw ½ to each seat.
    """

    game_number: int
    winner: int | None
    kind: ResultKind
    points: float
    cube: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_number": self.game_number,
            "winner": self.winner,
            "kind": self.kind.value,
            "points": self.points,
            "cube": self.cube,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        winner = data["winner"]
        return cls(
            game_number=int(data["game_number"]),
            winner=None if winner is None else int(winner),
            kind=ResultKind(data["kind"]),
            points=data["points"],
            cube=int(data.get("cube", 1)),
        )
