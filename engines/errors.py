"""Errors raised by the engines, split by cause.

Every error is a :class:`GameError`, itself a :class:`ValueError`. Its ``code`` says what was
refused and ``params`` with what (the input, the position ID, the roll): the adapter words it
from its message catalogue (``engine.<code>``). ``str()`` is an English line for logs and
tests; it names the input and, where there is one, the position ID.

>>> from engines.errors import CubeError, CubeErrorReason, GameError
>>> err = CubeError(CubeErrorReason.CRAWFORD, "No doubling in the Crawford game.", code="crawford")
>>> isinstance(err, GameError), isinstance(err, ValueError), err.reason.name, err.code
(True, True, 'CRAWFORD', 'crawford')
"""

from __future__ import annotations

import enum
from typing import Any


class GameError(ValueError):
    """Base class: a request the rules refuse. ``code`` names the refusal (None for an error
    raised without one), ``params`` its values, for the words the user reads."""

    def __init__(self, message: str = "", *, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only fields survive pickling (errors cross the robot's worker processes).
        return (_restore, (type(self), self.args, dict(self.__dict__)))


def _restore(kind: type[GameError], args: tuple[Any, ...], state: dict[str, Any]) -> GameError:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(state)
    return error


class InvalidNotationError(GameError):
    """The text is not a move in this game's notation at all (garbled, wrong game, too long)."""


class IllegalMoveError(GameError):
    """The text parses, but the move is not legal in this position with this roll."""


class AmbiguousMoveError(GameError):
    """The text matches more than one legal move; the user must say which."""


class NotYourTurnError(GameError):
    """The acting player may not act now (the opponent is on turn, or it is not their offer)."""


class PhaseError(GameError):
    """The action does not fit this moment of the game (moving before rolling, game over, ...)."""


class CubeErrorReason(enum.Enum):
    """Why a cube action was refused."""

    NO_CUBE = "no_cube"  # the cube is off for this match
    CRAWFORD = "crawford"  # nobody doubles in the Crawford game
    DEAD = "dead"  # a win at the cube's value already takes the match: a double changes nothing
    NOT_OWNER = "not_owner"  # the opponent owns the cube
    ALREADY_ROLLED = "already_rolled"  # doubling comes before the roll
    MONEY_ONLY = "money_only"  # Jacoby and automatic doubles apply to money play only
    NO_OFFER = "no_offer"  # take/pass without a pending double
    OFFER_PENDING = "offer_pending"  # a double is waiting for an answer
    NOT_YOUR_TURN = "not_your_turn"  # only the player on turn may double


class CubeError(GameError):
    """A cube action the rules refuse; :attr:`reason` says why."""

    def __init__(
        self, reason: CubeErrorReason, message: str, *, code: str | None = None, **params: Any
    ) -> None:
        super().__init__(message, code=code, **params)
        self.reason = reason
