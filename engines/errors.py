"""Errors raised by the engines, split by cause.

Every error is a :class:`GameError`, itself a :class:`ValueError`, and its message is fit to
show a player: it names the input and, where there is one, the position ID.

>>> from engines.errors import CubeError, CubeErrorReason, GameError
>>> err = CubeError(CubeErrorReason.CRAWFORD, "No doubling in the Crawford game.")
>>> isinstance(err, GameError), isinstance(err, ValueError), err.reason.name
(True, True, 'CRAWFORD')
"""

from __future__ import annotations

import enum


class GameError(ValueError):
    """Base class: a request the rules refuse. The message is shown to the user as is."""


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
    NOT_OWNER = "not_owner"  # the opponent owns the cube
    ALREADY_ROLLED = "already_rolled"  # doubling comes before the roll
    MONEY_ONLY = "money_only"  # Jacoby and automatic doubles apply to money play only
    NO_OFFER = "no_offer"  # take/pass without a pending double
    OFFER_PENDING = "offer_pending"  # a double is waiting for an answer
    NOT_YOUR_TURN = "not_your_turn"  # only the player on turn may double


class CubeError(GameError):
    """A cube action the rules refuse; :attr:`reason` says why."""

    def __init__(self, reason: CubeErrorReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
