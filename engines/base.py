"""The one protocol that all three games share, so the service treats them alike.

The plain values it speaks of (``GameKind``, ``Phase``, ``ResignLevel``, ``ResultKind``,
``MatchRules``, ``GameResult``) live in :mod:`engines.values`, a leaf module that
:mod:`engines.actions` uses too; they are re-exported here.

A *match* is a mutable object driven only by :class:`~engines.actions.Action` values; it can be
rebuilt exactly by replaying its list of actions (the event log is the source of truth), and
saved and restored through :meth:`GameMatch.snapshot` / ``from_snapshot``.

Seats: seat 0 is the challenger, seat 1 the opponent. Positions are seen from the side on turn;
the match maps them to seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engines.actions import Action
from engines.cube import Cube
from engines.legal_moves import LegalMoves
from engines.spec import GameSpec
from engines.values import GameKind, GameResult, MatchRules, Phase, ResignLevel, ResultKind

__all__ = [
    "ActionResult",
    "DiceVariant",
    "GameKind",
    "GameMatch",
    "GameResult",
    "MatchRules",
    "Phase",
    "ResignLevel",
    "ResultKind",
]


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


@runtime_checkable
class GameMatch(Protocol):
    """The protocol all three games' match objects implement, every member on every game.

    A member a game has no use for still answers, with its neutral value: checkers has no dice
    (``dice`` None), cube (``cube`` None, ``can_double`` False) or resignation offers
    (``resign_offer`` None); the dice games have no draw offers (``draw_offered_by`` None).
    ``isinstance(match, GameMatch)`` checks that every member is there.
    """

    kind: GameKind
    rules: MatchRules
    actions: list[Action]

    @property
    def spec(self) -> GameSpec:
        """The game's traits (:mod:`engines.spec`): ``spec_of(self.kind)``."""

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
    def position(self) -> Any:
        """The current position: a Nannon or backgammon ``Position`` seen from :attr:`turn`, or a
        checkers ``Board`` (whose ``turn`` is a colour)."""

    @property
    def position_id(self) -> str:
        """Nannon ``012-012``, a gnubg Position ID, or a PDN FEN."""

    @property
    def games(self) -> Sequence[GameResult]: ...

    @property
    def dice(self) -> tuple[int, ...] | None:
        """The roll to play (one die in Nannon, two in backgammon), or None: not rolled yet,
        or checkers."""

    @property
    def opening_dice(self) -> tuple[int, int] | None:
        """This game's latest opening roll (seat 0's die, seat 1's), or None (checkers)."""

    @property
    def cube(self) -> Cube | None:
        """The doubling cube, or None for a game without one (checkers). A dice match played
        without the cube (``rules.cube`` off) still has one, that nobody may turn."""

    @property
    def cube_offered_by(self) -> int | None:
        """The seat whose double waits for an answer, or None."""

    @property
    def crawford_game(self) -> bool:
        """This game is the Crawford game: nobody may double."""

    @property
    def post_crawford(self) -> bool:
        """The Crawford game has been played in this match."""

    @property
    def resign_offer(self) -> tuple[int, ResignLevel] | None:
        """(seat, level) of a resignation waiting for an answer, or None. In checkers a
        resignation ends the game at once, so there is never one."""

    @property
    def draw_offered_by(self) -> int | None:
        """The seat whose draw offer waits for an answer (checkers), or None."""

    @property
    def last_move(self) -> tuple[int, Any] | None:
        """(seat, move) of this game's latest move, for highlighting; None before one."""

    def can_double(self, seat: int) -> bool:
        """True when ``Double(seat)`` would be accepted now (always False in checkers)."""

    def colours(self) -> tuple[str, str]:
        """Seat 0's and seat 1's colour names in the current game: ``("white", "black")`` in
        the dice games; in checkers the seat playing Black is "black", swapping every game
        (``spec.seat_colours(game_number)``)."""

    def legal_moves(self) -> LegalMoves[Any]:
        """The legal moves now (none outside :attr:`Phase.MOVE`), generated when first read;
        ``.notation`` writes them in notation as far as it is read."""

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
