"""Everything a member (or the robot) can ask of the service: one frozen command per
operation, handed to :meth:`bot.service.MatchService.handle`, the service's one entry point.
``Command[R]`` answers an ``R``: ``await service.handle(RollDice(...))`` is a
:class:`~bot.service.model.MatchUpdate`, ``await service.handle(NewChallenge(...))`` a
:class:`~bot.service.model.Challenge`. The table that maps each command to its handler is
:data:`bot.service.dispatch.HANDLERS`.

Match actions (:class:`MatchCommand`) name the match, the server and the member.
``expected_version`` is the match version the clicked board showed: an action on any other
version is refused as stale (an old board, a double click). Slash commands leave it ``None``.
Their handlers pick the engine action (:mod:`engines.actions`) for the acting seat.

Read-only commands (:class:`ShowBoard`) change nothing; the other reads are the service's
query methods.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from bot.service.model import Challenge, MatchUpdate, MatchView
from bot.service.settings import GuildSettings
from engines import actions as engine
from engines.base import GameKind, ResignLevel

R = TypeVar("R")


@dataclass(frozen=True)
class Command(Generic[R]):
    """A request to the service, answered with an ``R``."""


@dataclass(frozen=True)
class MatchCommand(Command[MatchUpdate]):
    """A match action. ``asks`` is the kind of engine action it asks for the acting seat (the
    robot's decision names one: :func:`asking` finds its command); None for a claim, which
    concedes for the other seat."""

    asks: ClassVar[type[engine.Action] | None]
    match_id: int
    guild_id: int
    user_id: int
    expected_version: int | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class RollDice(MatchCommand):
    """Roll the dice; also re-rolls a tied Nannon opening (either player may)."""

    asks = engine.Roll


@dataclass(frozen=True)
class PlayMove(MatchCommand):
    """Play a move given as notation (``24/18 13/11``, ``H/3``, ``22x15``) or an engine move."""

    asks = engine.Move

    move: Any


@dataclass(frozen=True)
class OfferDouble(MatchCommand):
    asks = engine.Double


@dataclass(frozen=True)
class TakeDouble(MatchCommand):
    asks = engine.Take


@dataclass(frozen=True)
class PassDouble(MatchCommand):
    asks = engine.Drop


@dataclass(frozen=True)
class OfferResignation(MatchCommand):
    """Offer to resign the game at ``level``; in checkers a resignation loses the game at once.
    ``level`` may be a :class:`ResignLevel`, its number, or its name."""

    asks = engine.Resign

    level: ResignLevel | str | int = ResignLevel.SINGLE


@dataclass(frozen=True)
class AcceptResignation(MatchCommand):
    asks = engine.AcceptResign


@dataclass(frozen=True)
class DeclineResignation(MatchCommand):
    asks = engine.DeclineResign


@dataclass(frozen=True)
class OfferDraw(MatchCommand):
    asks = engine.OfferDraw


@dataclass(frozen=True)
class AcceptDraw(MatchCommand):
    asks = engine.AcceptDraw


@dataclass(frozen=True)
class DeclineDraw(MatchCommand):
    asks = engine.DeclineDraw


@dataclass(frozen=True)
class LeaveMatch(MatchCommand):
    """Concede the whole match (either player, any time)."""

    asks = engine.ConcedeMatch


@dataclass(frozen=True)
class ClaimWin(MatchCommand):
    """The waiting player claims the match once the opponent is idle past the claim time."""

    asks = None


def command_named(name: str) -> type[MatchCommand]:
    """The match command of this name (``RollDice``); LookupError for any other."""
    for command in MatchCommand.__subclasses__():
        if command.__name__ == name:
            return command
    raise LookupError(f"no match command {name!r}")


def asking(kind: type[engine.Action]) -> type[MatchCommand]:
    """The match command that asks for an engine action of this kind (``Roll``: RollDice)."""
    for command in MatchCommand.__subclasses__():
        if command.asks is kind:
            return command
    raise LookupError(f"no command asks for {kind.__name__}")


# --- challenges and matches -------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChallengeOptions:
    """A challenge's rules; None takes the server's default."""

    length: int | None = None
    cube: bool | None = None
    crawford: bool | None = None
    jacoby: bool | None = None
    auto_doubles: int | None = None


@dataclass(frozen=True)
class NewChallenge(ChallengeOptions, Command[Challenge]):
    """Challenge a member (``opponent_id``) or anyone (None). Refuses self-challenges, bots,
    bad lengths (1..25; 0 = money, backgammon only), Jacoby/auto-doubles outside money play,
    and channels outside the server's challenge channels."""

    guild_id: int
    channel_id: int
    challenger_id: int
    challenger_name: str
    game: GameKind | str
    _: KW_ONLY
    opponent_id: int | None = None
    opponent_name: str | None = None
    opponent_is_bot: bool = False


@dataclass(frozen=True)
class AcceptChallenge(Command[MatchUpdate]):
    """Accept a challenge: the match starts (seat 0 = challenger), its opening is rolled."""

    challenge_id: int
    guild_id: int
    user_id: int
    user_name: str


@dataclass(frozen=True)
class DeclineChallenge(Command[Challenge]):
    """The named opponent declines (nobody may decline an open challenge)."""

    challenge_id: int
    guild_id: int
    user_id: int


@dataclass(frozen=True)
class CancelChallenge(Command[Challenge]):
    """The challenger withdraws an open challenge."""

    challenge_id: int
    guild_id: int
    user_id: int


@dataclass(frozen=True)
class Rematch(Command[Challenge]):
    """A named challenge to the same opponent with the same rules, from a finished match."""

    match_id: int
    guild_id: int
    user_id: int


@dataclass(frozen=True)
class RobotMatch(ChallengeOptions, Command[MatchUpdate]):
    """A match against the robot: ``robot_id`` is the bot's own user (seat 1; it plays through
    :meth:`~bot.service.MatchService.handle` like anyone), ``level`` 1 (beginner) to 5
    (master). The challenge is checked as any other and accepted at once."""

    guild_id: int
    channel_id: int
    challenger_id: int
    challenger_name: str
    game: GameKind | str
    _: KW_ONLY
    robot_id: int
    robot_name: str
    level: int


@dataclass(frozen=True)
class RobotRematch(Command[MatchUpdate]):
    """The same match against the robot again, at the same level, from a finished one."""

    match_id: int
    guild_id: int
    user_id: int


# --- settings, shouts, reads -------------------------------------------------------------------


@dataclass(frozen=True)
class UpdateSettings(Command[GuildSettings]):
    """Change a server's settings (field names of GuildSettings); refused on bad values."""

    guild_id: int
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class RecordShout(Command[bool]):
    """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
    game (the latest one when ``game_number`` is None); False otherwise."""

    match_id: int
    guild_id: int
    user_id: int
    game_number: int | None = None


@dataclass(frozen=True)
class ShowBoard(Command[MatchView]):
    """Read-only: the match as it stands (with ``guild_id``, refused for another server's).
    A robot that owes a move hears of it again (it retries after a failure)."""

    match_id: int
    guild_id: int | None = None


__all__ = [
    "AcceptChallenge",
    "AcceptDraw",
    "AcceptResignation",
    "CancelChallenge",
    "ChallengeOptions",
    "ClaimWin",
    "Command",
    "DeclineChallenge",
    "DeclineDraw",
    "DeclineResignation",
    "LeaveMatch",
    "MatchCommand",
    "NewChallenge",
    "OfferDouble",
    "OfferDraw",
    "OfferResignation",
    "PassDouble",
    "PlayMove",
    "RecordShout",
    "Rematch",
    "RobotMatch",
    "RobotRematch",
    "RollDice",
    "ShowBoard",
    "TakeDouble",
    "UpdateSettings",
    "asking",
    "command_named",
]
