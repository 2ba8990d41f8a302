"""The service's refusals: what it refused and why, never how to say it.

Every refusal is a :class:`Refused` (a :class:`~engines.errors.GameError`) with a
:class:`Refusal` code and its parameters (names, numbers, ids, the input refused). Its class
keeps the engines' families, so callers may catch by kind: :class:`NotYourTurn` is a
:class:`~engines.errors.NotYourTurnError`, :class:`WrongPhase` a
:class:`~engines.errors.PhaseError`, and so on. ``str()`` is a neutral line for logs; the words
a user reads are the adapter's (``bot.discord.wording.refusal_text``).

The engines' own errors pass through the service as they are.

>>> err = refused(Refusal.NOT_YOUR_TURN, name="bob")
>>> isinstance(err, NotYourTurnError), err.refusal.name, err.params
(True, 'NOT_YOUR_TURN', {'name': 'bob'})
>>> str(err)
"not_your_turn (name='bob')"
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from engines.errors import (
    CubeError,
    CubeErrorReason,
    GameError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)

__all__ = [
    "BadNotation",
    "CubeRefused",
    "NotFoundError",
    "NotYourTurn",
    "NotYourTurnError",
    "Refusal",
    "Refused",
    "StaleActionError",
    "WrongPhase",
    "refused",
]


class Refusal(StrEnum):
    """Why the service refused. The parameters each code carries are listed beside it."""

    # Looking things up
    UNKNOWN_GAME = "unknown_game"  # given, choices
    NO_SUCH_MATCH = "no_such_match"  # match_id
    NO_SUCH_CHALLENGE = "no_such_challenge"  # challenge_id
    NOT_A_PLAYER = "not_a_player"  # match_id
    # Settings
    UNKNOWN_SETTING = "unknown_setting"  # setting
    SETTING_FIXED = "setting_fixed"  # setting
    UNKNOWN_LANGUAGE = "unknown_language"  # value, choices
    SETTING_NOT_ON_OFF = "setting_not_on_off"  # setting, value
    SETTING_NOT_A_NUMBER = "setting_not_a_number"  # setting, value
    SETTING_OUT_OF_RANGE = "setting_out_of_range"  # setting, low, high, value
    NOT_A_CHANNEL = "not_a_channel"  # value
    TOO_MANY_CHANNELS = "too_many_channels"  # most
    CLAIM_BEFORE_REMINDER = "claim_before_reminder"  # reminder_minutes
    # Challenges
    BOT_OPPONENT = "bot_opponent"
    SELF_CHALLENGE = "self_challenge"
    CHANNEL_NOT_ALLOWED = "channel_not_allowed"  # channels (ids)
    LENGTH_NOT_WHOLE = "length_not_whole"  # length
    MONEY_NOT_BACKGAMMON = "money_not_backgammon"
    LENGTH_OUT_OF_RANGE = "length_out_of_range"  # game, lowest, highest, length
    CHECKERS_CUBE_OPTIONS = "checkers_cube_options"
    MONEY_ONLY_OPTIONS = "money_only_options"
    AUTO_DOUBLES_OUT_OF_RANGE = "auto_doubles_out_of_range"  # highest, value
    CUBE_ONLY_OPTIONS = "cube_only_options"
    OWN_CHALLENGE = "own_challenge"
    CHALLENGE_FOR_OTHER = "challenge_for_other"  # name (the opponent named)
    CHALLENGE_TAKEN = "challenge_taken"  # lost the race to accept, decline or expire it
    CHALLENGE_ACCEPTED = "challenge_accepted"
    CHALLENGE_EXPIRED = "challenge_expired"
    CHALLENGE_CLOSED = "challenge_closed"  # status
    OPEN_CHALLENGE_DECLINE = "open_challenge_decline"
    ONLY_OPPONENT_DECLINES = "only_opponent_declines"  # name
    ONLY_CHALLENGER_CANCELS = "only_challenger_cancels"  # name
    CHALLENGE_ANSWERED = "challenge_answered"
    MATCH_STILL_ON = "match_still_on"  # match_id (a rematch)
    BAD_ROBOT_LEVEL = "bad_robot_level"  # value (levels are 1 to 5)
    # Hints
    HINTS_OFF = "hints_off"  # hints in matches between people are off in this server
    NO_HINT = "no_hint"  # nothing for this player to decide now
    # Analysis
    ANALYSIS_UNAVAILABLE = "analysis_unavailable"  # game: no runner, or not for this game
    MATCH_NOT_FINISHED = "match_not_finished"  # match_id
    ANALYSIS_PENDING = "analysis_pending"  # match_id, status, channel_id, message_id
    ANALYSIS_DONE = "analysis_done"  # match_id, channel_id, message_id (the report)
    # Puzzles
    NO_PUZZLE = "no_puzzle"  # game (None: any): nothing left to try in this server
    PUZZLES_PREPARING = "puzzles_preparing"  # game (None: any): self-play is filling the pool
    NO_SUCH_PUZZLE = "no_such_puzzle"  # puzzle_id
    PUZZLE_ANSWERED = "puzzle_answered"  # puzzle_id, choice (the first answer), correct
    NOT_A_PUZZLE_OPTION = "not_a_puzzle_option"  # puzzle_id, given
    # Actions
    STALE_BOARD = "stale_board"  # expected_version is not the match's
    MATCH_CHANGED = "match_changed"  # another process committed first
    MATCH_OVER = "match_over"  # match_id
    NOT_YOUR_TURN = "not_your_turn"  # name (the player on turn)
    NO_DICE_IN_CHECKERS = "no_dice_in_checkers"
    ALREADY_ROLLED = "already_rolled"
    OPENING_ROLL_FIRST = "opening_roll_first"
    ROLL_FIRST = "roll_first"
    EMPTY_MOVE = "empty_move"
    MOVE_TOO_LONG = "move_too_long"
    CHECKERS_NO_CUBE = "checkers_no_cube"
    OWN_DOUBLE = "own_double"  # name (who answers it)
    DOUBLED = "doubled"  # a double waits for this player's answer
    WAITING_FOR_TAKE = "waiting_for_take"  # name
    WAITING_FOR_RESIGN_ANSWER = "waiting_for_resign_answer"  # name
    ANSWER_RESIGNATION = "answer_resignation"  # name (who resigned)
    WAITING_FOR_DRAW_ANSWER = "waiting_for_draw_answer"  # name
    ANSWER_DRAW = "answer_draw"  # name (who offered)
    BAD_RESIGN_LEVEL = "bad_resign_level"  # value
    NOBODY_TO_CLAIM = "nobody_to_claim"
    CLAIM_OWN_WAIT = "claim_own_wait"
    CLAIM_TOO_EARLY = "claim_too_early"  # name (the idle player), minutes, left
    # Tournaments
    NO_SUCH_TOURNAMENT = "no_such_tournament"  # tournament_id
    BAD_FORMAT = "bad_format"  # given, choices
    BAD_MAX_PLAYERS = "bad_max_players"  # value, highest
    BAD_ROUND_DAYS = "bad_round_days"  # value, highest
    BAD_ROUNDS = "bad_rounds"  # value, highest (Swiss only)
    SIGNUP_CLOSED = "signup_closed"  # tournament_id
    ALREADY_ENTERED = "already_entered"  # tournament_id
    TOURNAMENT_FULL = "tournament_full"  # most
    NOT_ENTERED = "not_entered"  # tournament_id
    ALREADY_WITHDRAWN = "already_withdrawn"  # tournament_id
    TOO_FEW_PLAYERS = "too_few_players"  # count
    NOT_ORGANISER = "not_organiser"  # name (the organiser)
    NOT_A_ROUND_MATCH = "not_a_round_match"  # match_id
    TOURNAMENT_CHANGED = "tournament_changed"  # tournament_id (another change came first)


class Refused(GameError):
    """A refusal by the service: ``refusal`` says why, ``params`` with what."""

    def __init__(self, refusal: Refusal, **params: Any) -> None:
        GameError.__init__(self, _neutral(refusal, params))
        self.refusal = refusal
        self.params = params


class NotYourTurn(Refused, NotYourTurnError):
    """Not this user's to do (not in the match, not on turn, not their challenge or offer)."""


class WrongPhase(Refused, PhaseError):
    """Not at this moment of the match (before rolling, after the end, an offer waiting)."""


class BadNotation(Refused, InvalidNotationError):
    """No move at all (empty, or far too long)."""


class CubeRefused(Refused, CubeError):
    """A cube action refused before it reaches the engine; ``reason`` as the engine's."""

    def __init__(self, refusal: Refusal, reason: CubeErrorReason, **params: Any) -> None:
        Refused.__init__(self, refusal, **params)
        self.reason = reason


class StaleActionError(Refused):
    """The action was meant for an earlier state of the match (an old board, a double click)."""


class NotFoundError(Refused):
    """No such match or challenge in this server (also said for another server's match)."""


# Each refusal's class: callers catch by family, and the tests pin these.
_KINDS: dict[Refusal, type[Refused]] = {
    Refusal.NO_SUCH_MATCH: NotFoundError,
    Refusal.NO_SUCH_CHALLENGE: NotFoundError,
    Refusal.NOT_A_PLAYER: NotYourTurn,
    Refusal.CHALLENGE_FOR_OTHER: NotYourTurn,
    Refusal.CHALLENGE_TAKEN: StaleActionError,
    Refusal.CHALLENGE_ACCEPTED: StaleActionError,
    Refusal.ONLY_OPPONENT_DECLINES: NotYourTurn,
    Refusal.ONLY_CHALLENGER_CANCELS: NotYourTurn,
    Refusal.CHALLENGE_ANSWERED: StaleActionError,
    Refusal.MATCH_STILL_ON: WrongPhase,
    Refusal.STALE_BOARD: StaleActionError,
    Refusal.MATCH_CHANGED: StaleActionError,
    Refusal.MATCH_OVER: WrongPhase,
    Refusal.NOT_YOUR_TURN: NotYourTurn,
    Refusal.NO_DICE_IN_CHECKERS: WrongPhase,
    Refusal.ALREADY_ROLLED: WrongPhase,
    Refusal.OPENING_ROLL_FIRST: WrongPhase,
    Refusal.ROLL_FIRST: WrongPhase,
    Refusal.EMPTY_MOVE: BadNotation,
    Refusal.MOVE_TOO_LONG: BadNotation,
    Refusal.OWN_DOUBLE: NotYourTurn,
    Refusal.WAITING_FOR_TAKE: NotYourTurn,
    Refusal.WAITING_FOR_RESIGN_ANSWER: NotYourTurn,
    Refusal.ANSWER_RESIGNATION: WrongPhase,
    Refusal.WAITING_FOR_DRAW_ANSWER: NotYourTurn,
    Refusal.ANSWER_DRAW: WrongPhase,
    Refusal.CLAIM_OWN_WAIT: NotYourTurn,
    Refusal.NO_HINT: WrongPhase,
    Refusal.MATCH_NOT_FINISHED: WrongPhase,
    Refusal.NO_SUCH_TOURNAMENT: NotFoundError,
    Refusal.SIGNUP_CLOSED: WrongPhase,
    Refusal.NOT_ORGANISER: NotYourTurn,
    Refusal.TOURNAMENT_CHANGED: StaleActionError,
}
_CUBE_REASONS = {
    Refusal.CHECKERS_NO_CUBE: CubeErrorReason.NO_CUBE,
    Refusal.DOUBLED: CubeErrorReason.OFFER_PENDING,
}


def refused(refusal: Refusal, **params: Any) -> Refused:
    """The refusal of that code, of its class (raise it)."""
    reason = _CUBE_REASONS.get(refusal)
    if reason is not None:
        return CubeRefused(refusal, reason, **params)
    return _KINDS.get(refusal, Refused)(refusal, **params)


def _neutral(refusal: Refusal, params: dict[str, Any]) -> str:
    """A log line: the code and the parameters (long inputs cut short)."""
    if not params:
        return refusal.value
    shown = ", ".join(f"{key}={_short(value)}" for key, value in params.items())
    return f"{refusal.value} ({shown})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
