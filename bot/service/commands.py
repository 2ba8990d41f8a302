"""Everything a member (or the robot) can ask of the service: one frozen command per
operation, handed to :meth:`bot.service.MatchService.handle`, the service's one entry point.
``Command[R]`` answers an ``R``: ``await service.handle(RollDice(...))`` is a
:class:`~bot.service.model.MatchUpdate`, ``await service.handle(NewChallenge(...))`` a
:class:`~bot.service.model.Challenge`. The table that maps each command to its handler is
:data:`bot.service.service.HANDLERS`.

Match actions (:class:`MatchCommand`) name the match, the server and the member.
``expected_version`` is the match version the clicked board showed: an action on any other
version is refused as stale (an old board, a double click). Slash commands leave it ``None``.
Their handlers pick the engine action (:mod:`engines.actions`) for the acting seat.

Read-only commands (:class:`ViewMatch`, :class:`Leaderboard`, ...) change nothing;
:class:`ShowBoardAndWakeRobot` answers as :class:`ViewMatch` does and also wakes a robot that owes
a move. The adapter's bookkeeping (:class:`SetThread`, :class:`ClaimReminder`, ...) records
where a match is shown. Deadlines (a challenge's expiry) are the scheduler's, not commands
(:attr:`bot.service.MatchService.timers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from bot.service.model import (
    BoardPlace,
    Challenge,
    DailyPuzzle,
    ExportFile,
    HintRequest,
    HistoryEntry,
    IdleMatch,
    LeaderboardRow,
    MatchUpdate,
    MatchView,
    PuzzleResult,
    PuzzleStanding,
    PuzzleView,
    RobotTurn,
    StatLine,
    VerifyReport,
)
from bot.service.settings import GuildSettings
from bot.storage import GuildShards
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
class ProposeDraw(MatchCommand):
    """Offer the opponent a draw (checkers, on one's move); the engine's ``OfferDraw``."""

    asks = engine.OfferDraw


@dataclass(frozen=True)
class AgreeDraw(MatchCommand):
    """Accept the draw offered: the game is drawn; the engine's ``AcceptDraw``."""

    asks = engine.AcceptDraw


@dataclass(frozen=True)
class RefuseDraw(MatchCommand):
    """Decline the draw offered: play goes on; the engine's ``DeclineDraw``."""

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
class ChooseLanguage(Command[str | None]):
    """A member's own language (one of settings.LANGUAGES) for what only they read, in every
    server; None: their Discord client's. Answers the language kept."""

    user_id: int
    language: str | None


@dataclass(frozen=True)
class MemberLanguage(Command[str | None]):
    """Read-only: the language the member chose with ChooseLanguage, None when none."""

    user_id: int


@dataclass(frozen=True)
class RecordShout(Command[bool]):
    """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
    game (the latest one when ``game_number`` is None); False otherwise."""

    match_id: int
    guild_id: int
    user_id: int
    game_number: int | None = None


@dataclass(frozen=True)
class ShowBoardAndWakeRobot(Command[MatchView]):
    """The match as it stands (with ``guild_id``, refused for another server's), as
    :class:`ViewMatch`; and a robot that owes a move hears of it again (it retries after a
    failure): what a member's /board asks."""

    match_id: int
    guild_id: int | None = None


# --- read-only: each answers, changes nothing ----------------------------------------------------


@dataclass(frozen=True)
class ViewMatch(Command[MatchView]):
    """The match as it stands; with ``guild_id``, refused for another server's match. Wakes
    no one (:class:`ShowBoardAndWakeRobot` also wakes the robot)."""

    match_id: int
    guild_id: int | None = None


@dataclass(frozen=True)
class ActiveMatches(Command[list[MatchView]]):
    """The member's active matches on the server."""

    guild_id: int
    user_id: int


@dataclass(frozen=True)
class MatchInThread(Command[MatchView | None]):
    """The match played in this thread, if any."""

    thread_id: int


@dataclass(frozen=True)
class CandidateMatches(Command[list[MatchView]]):
    """The member's active matches in this channel or thread (the bot acts when exactly one)."""

    guild_id: int
    channel_id: int
    user_id: int


@dataclass(frozen=True)
class LegalMoves(Command[list[str]]):
    """Autocomplete: the legal moves of the member on turn that match ``prefix`` (starting with
    it first, then containing it), at most ``limit`` (None: all); else none."""

    match_id: int
    guild_id: int
    user_id: int
    prefix: str = ""
    limit: int | None = None


@dataclass(frozen=True)
class Leaderboard(Command[list[LeaderboardRow]]):
    """Players by rating; with ``match_length``, W-L and points of matches of that length."""

    guild_id: int
    game: GameKind | str
    match_length: int | None = None
    limit: int = 10
    offset: int = 0  # the ranks before the page (its first row is rank offset + 1)


@dataclass(frozen=True)
class LeaderboardPlace(Command[BoardPlace]):
    """The member's rank on :class:`Leaderboard` of the game (and length) and its size."""

    guild_id: int
    game: GameKind | str
    match_length: int | None
    user_id: int


@dataclass(frozen=True)
class History(Command[list[HistoryEntry]]):
    """The member's finished matches, newest first."""

    guild_id: int
    user_id: int
    limit: int = 20


@dataclass(frozen=True)
class Stats(Command[StatLine]):
    """The member's rating and record in one game."""

    guild_id: int
    user_id: int
    game: GameKind | str


@dataclass(frozen=True)
class Export(Command[ExportFile]):
    """``.mat`` for Nannon/backgammon, ``.pdn`` for checkers, rebuilt from the event log."""

    match_id: int
    guild_id: int


@dataclass(frozen=True)
class VerifyMatch(Command[VerifyReport]):
    """Replay the match's event log and check it against the stored match."""

    match_id: int
    guild_id: int


@dataclass(frozen=True)
class GetChallenge(Command[Challenge]):
    """The challenge as it stands (expired once past its time, even before the sweep)."""

    challenge_id: int
    guild_id: int


@dataclass(frozen=True)
class GetSettings(Command[GuildSettings]):
    """A server's settings (the defaults until changed)."""

    guild_id: int


@dataclass(frozen=True)
class IdleMatches(Command[list[IdleMatch]]):
    """Active matches (in ``guilds``; None: everywhere) whose actor is idle past the reminder
    (not yet sent) or claim time."""

    now: float | None = None
    guilds: GuildShards | None = None


@dataclass(frozen=True)
class GetRobotTurn(Command[RobotTurn | None]):
    """What the robot has to decide in the match now (a private copy of the match, its seat,
    level and the version to act on), or None when it has nothing to decide."""

    match_id: int


@dataclass(frozen=True)
class AskHint(Command[HintRequest]):
    """Allow a hint for the member (always against the robot; between people where the
    server's ``hints_in_human_matches`` is on) and say on what; the robot computes it."""

    match_id: int
    guild_id: int
    user_id: int


# --- the adapter's bookkeeping and the sweeps ----------------------------------------------------


@dataclass(frozen=True)
class SetChallengeMessage(Command[None]):
    """The message that shows the challenge."""

    challenge_id: int
    message_id: int


@dataclass(frozen=True)
class SetThread(Command[None]):
    """The thread the match is played in (None: none any more)."""

    match_id: int
    thread_id: int | None


@dataclass(frozen=True)
class SetBoardMessage(Command[None]):
    """The message that shows the match's board (None: none any more)."""

    match_id: int
    message_id: int | None


@dataclass(frozen=True)
class ClaimReminder(Command[bool]):
    """Claim the idle reminder for this version before sending it, so it is sent once: True
    for the one caller (of every process) that may send it; False when it was claimed already
    or the match has moved on."""

    match_id: int
    version: int


# --- puzzles (bot.service.puzzles) -------------------------------------------------------------


@dataclass(frozen=True)
class NextPuzzle(Command[PuzzleView]):
    """A puzzle for the member from the server's pool (of ``game``; None: any), one they have
    not tried; never one of their own games unless ``include_own``."""

    guild_id: int
    user_id: int
    game: str | None = None
    include_own: bool = False


@dataclass(frozen=True)
class AnswerPuzzle(Command[PuzzleResult]):
    """The member's one answer to a puzzle: ``choice`` is one of its options."""

    puzzle_id: int
    guild_id: int
    user_id: int
    user_name: str
    choice: str


@dataclass(frozen=True)
class PuzzleStats(Command[PuzzleStanding]):
    """The member's puzzle rating, attempts and puzzles solved."""

    guild_id: int
    user_id: int


@dataclass(frozen=True)
class PuzzleLeaderboard(Command[list[PuzzleStanding]]):
    """The server's solvers by puzzle rating."""

    guild_id: int
    limit: int = 10
    offset: int = 0


@dataclass(frozen=True)
class PuzzlePlace(Command[BoardPlace]):
    """The member's rank on :class:`PuzzleLeaderboard` and its size."""

    guild_id: int
    user_id: int


@dataclass(frozen=True)
class SetPuzzleOptOut(Command[bool]):
    """Keep the member's games out of puzzles (``out``) or let them in again."""

    guild_id: int
    user_id: int
    out: bool


@dataclass(frozen=True)
class ShowPuzzle(Command[PuzzleView]):
    """A puzzle as it stands (its counts, where the daily post showed it)."""

    puzzle_id: int
    guild_id: int


@dataclass(frozen=True)
class PostDailyPuzzle(Command[DailyPuzzle | None]):
    """The daily puzzle due at ``now`` in the guild, claimed (so it is posted once), with the
    previous one to reveal; None when the server has no daily puzzle, it is not time yet, today's
    is out already, or the pool is empty."""

    guild_id: int
    now: float


@dataclass(frozen=True)
class SetPuzzleMessage(Command[None]):
    """Record the daily post's message (its live count is edited there)."""

    puzzle_id: int
    channel_id: int
    message_id: int


__all__ = [
    "AcceptChallenge",
    "AcceptResignation",
    "ActiveMatches",
    "AgreeDraw",
    "AnswerPuzzle",
    "AskHint",
    "CancelChallenge",
    "CandidateMatches",
    "ChallengeOptions",
    "ChooseLanguage",
    "ClaimReminder",
    "ClaimWin",
    "Command",
    "DeclineChallenge",
    "DeclineResignation",
    "Export",
    "GetChallenge",
    "GetRobotTurn",
    "GetSettings",
    "History",
    "IdleMatches",
    "Leaderboard",
    "LeaderboardPlace",
    "LeaveMatch",
    "LegalMoves",
    "MatchCommand",
    "MatchInThread",
    "MemberLanguage",
    "NewChallenge",
    "NextPuzzle",
    "OfferDouble",
    "OfferResignation",
    "PassDouble",
    "PlayMove",
    "PostDailyPuzzle",
    "ProposeDraw",
    "PuzzleLeaderboard",
    "PuzzlePlace",
    "PuzzleStats",
    "RecordShout",
    "RefuseDraw",
    "Rematch",
    "RobotMatch",
    "RobotRematch",
    "RollDice",
    "SetBoardMessage",
    "SetChallengeMessage",
    "SetPuzzleMessage",
    "SetPuzzleOptOut",
    "SetThread",
    "ShowBoardAndWakeRobot",
    "ShowPuzzle",
    "Stats",
    "TakeDouble",
    "UpdateSettings",
    "VerifyMatch",
    "ViewMatch",
    "asking",
    "command_named",
]
