"""Values and the one protocol that all three games share, so the service treats them alike.

A *match* is a mutable object driven only by :class:`~engines.actions.Action` values; it can be
rebuilt exactly by replaying its list of actions (the event log is the source of truth), and
saved and restored through :meth:`GameMatch.snapshot` / ``from_snapshot``.

Seats: seat 0 is the challenger, seat 1 the opponent. Positions are seen from the side on turn;
the match maps them to seats.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engines.actions import Action


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


@dataclass(frozen=True)
class ActionResult:
    """What one applied action changed, for the service to report.

    ``game_result`` is set when the action ended a game; ``match_over`` when it ended the match.
    ``turn_forfeited`` is set when a roll left no legal move and the turn passed: by rule, or
    by the player's ``no move`` when ``auto_pass`` is off.
    ``opening_dice`` is set after an opening roll: (seat 0's die, seat 1's die).
    """

    action: Action
    game_result: GameResult | None = None
    match_over: bool = False
    turn_forfeited: bool = False
    opening_dice: tuple[int, int] | None = None


class GameMatch(Protocol):
    """The protocol all three games' match objects implement."""

    kind: GameKind
    rules: MatchRules
    actions: list[Action]

    @property
    def phase(self) -> Phase: ...

    @property
    def turn(self) -> int:
        """The seat whose turn it is in the game."""

    @property
    def actor(self) -> int | None:
        """The seat expected to act next, or None when either may (an opening roll)."""

    @property
    def score(self) -> tuple[float, float]: ...

    @property
    def game_number(self) -> int:
        """1 for the first game of the match."""

    @property
    def position_id(self) -> str:
        """Nannon ``012-012``, a gnubg Position ID, or a PDN FEN."""

    @property
    def games(self) -> Sequence[GameResult]: ...

    def legal_moves(self) -> tuple[Any, ...]:
        """Legal moves for the current roll (empty outside :attr:`Phase.MOVE`)."""

    def parse_move(self, text: str) -> Any:
        """The legal move that ``text`` names; raises InvalidNotation/IllegalMove/AmbiguousMove."""

    def format_move(self, move: Any) -> str:
        """The canonical notation of a move: ``parse_move(format_move(m)) == m``."""

    def apply(self, action: Action) -> ActionResult:
        """Apply one action, or raise a GameError and change nothing."""

    def is_over(self) -> bool: ...

    def winner(self) -> int | None:
        """The match winner's seat once over (None while playing, or for a drawn match)."""

    def snapshot(self) -> dict[str, Any]:
        """The full current state as plain JSON data (no action list)."""


class DiceVariant(Protocol):
    """What a dice game (Nannon, backgammon) supplies to the shared :class:`DiceMatch`.

    Positions and moves are the variant's own types; the match treats them as opaque values.
    """

    kind: GameKind
    dice_count: int  # dice per roll: 1 for Nannon, 2 for backgammon
    resign_levels: tuple[ResignLevel, ...]  # Nannon: SINGLE, GAMMON (a NANNON); backgammon: all

    def initial(self) -> Any: ...

    def from_id(self, position_id: str) -> Any: ...

    def position_id(self, position: Any) -> str: ...

    def opening_dice(self, high: int, low: int) -> tuple[int, ...]:
        """The dice the opening winner plays: Nannon (high - low,), backgammon (high, low)."""

    def legal_moves(self, position: Any, dice: tuple[int, ...]) -> tuple[Any, ...]:
        """Legal moves (plays), deduplicated by resulting position; empty when the turn is lost."""

    def apply(self, position: Any, move: Any) -> Any:
        """The position after ``move``, seen from the opponent, who is then on turn."""

    def pass_turn(self, position: Any) -> Any:
        """The same position seen from the opponent (a forfeited turn)."""

    def result(self, position: Any) -> tuple[ResultKind, int] | None:
        """For a position seen from the side now on turn: None while the game goes on, else the
        kind and multiplier (1, 2 or 3) won by the side that just moved (SINGLE, GAMMON,
        BACKGAMMON or NANNON)."""

    def parse_move(self, text: str, position: Any, dice: tuple[int, ...]) -> Any:
        """The legal move ``text`` names; raises Invalid/Illegal/AmbiguousMove errors."""

    def format_move(self, move: Any) -> str: ...
