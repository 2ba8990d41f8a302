"""What happened in an action, in order: frozen values with seats, dice, moves, cube values and
results; no sentences. :attr:`bot.service.MatchUpdate.events` holds them, and the adapter says
them in words (``bot.discord.wording``).

Seats index the match's players (:attr:`bot.service.MatchView.players`). ``auto`` marks what the
bot did for a player (an automatic roll or the only legal move).

:func:`step_events` reads one applied engine step.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.service.commands import Command
from bot.service.model import (
    AnalysisView,
    Challenge,
    DailyPuzzle,
    IdleMatch,
    MatchEvent,
    MatchUpdate,
    MatchView,
)
from bot.service.views import must_pass
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    ConcedeMatch,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.base import ActionResult, GameKind, GameResult, Phase, ResignLevel

if TYPE_CHECKING:
    from bot.service.state import LiveMatch

__all__ = [
    "AnalysisEvent",
    "AnalysisFailed",
    "AnalysisFinished",
    "AnalysisProgressed",
    "AnalysisQueued",
    "ChallengeExpired",
    "CrawfordGame",
    "DailyPuzzleDue",
    "DiceRolled",
    "DoubleOffered",
    "DoublePassed",
    "DoubleTaken",
    "DrawAccepted",
    "DrawDeclined",
    "DrawOffered",
    "GameOver",
    "IdleReminder",
    "MatchEvent",
    "MatchLeft",
    "MatchOver",
    "MatchStarted",
    "MatchUpdated",
    "MovePlayed",
    "NoLegalMove",
    "OpeningRolled",
    "ResignationAccepted",
    "ResignationDeclined",
    "ResignationOffered",
    "Resigned",
    "RobotStuck",
    "RobotTurnWaiting",
    "Stuck",
    "WinClaimable",
    "WinClaimed",
    "robot_follow_up",
    "step_events",
    "update_events",
    "waits_for_robot",
]


class Stuck(StrEnum):
    """What happens to a roll with no legal move."""

    TURN_PASSES = "turn_passes"  # passed at once (auto_pass on)
    MUST_PASS = "must_pass"  # its player confirms the pass, playing "no move" (auto_pass off)


@dataclass(frozen=True)
class MatchStarted(MatchEvent):
    """A challenge was accepted: the match exists, its dice seed is committed to."""

    match_id: int
    game: GameKind
    length: int  # 0: a money game
    commitment: str  # SHA-256 of the secret dice seed, hex


@dataclass(frozen=True)
class OpeningRolled(MatchEvent):
    """Each player rolled one die (``dice`` per seat). ``first`` is the seat that starts, None
    on a tie; after a tie, either player may double or roll again (``either_may_double``), or
    the bot rolls again at once, the cube raised to ``auto_double`` by an automatic double."""

    dice: tuple[int, int]
    first: int | None
    either_may_double: bool = False
    auto_double: int | None = None


@dataclass(frozen=True)
class DiceRolled(MatchEvent):
    seat: int
    dice: tuple[int, ...]
    stuck: Stuck | None = None  # the roll has no legal move
    auto: bool = False


@dataclass(frozen=True)
class NoLegalMove(MatchEvent):
    """``seat`` has no legal move (after the opening roll, or a "no move" played)."""

    seat: int
    stuck: Stuck


@dataclass(frozen=True)
class MovePlayed(MatchEvent):
    seat: int
    move: str  # in the game's notation
    auto: bool = False  # the only legal move, played by the bot


@dataclass(frozen=True)
class DoubleOffered(MatchEvent):
    seat: int
    value: int  # the cube's value if taken


@dataclass(frozen=True)
class DoubleTaken(MatchEvent):
    seat: int
    value: int  # the cube's value now


@dataclass(frozen=True)
class DoublePassed(MatchEvent):
    seat: int


@dataclass(frozen=True)
class ResignationOffered(MatchEvent):
    seat: int
    level: ResignLevel


@dataclass(frozen=True)
class Resigned(MatchEvent):
    """Checkers: the game is lost at once."""

    seat: int


@dataclass(frozen=True)
class ResignationAccepted(MatchEvent):
    seat: int


@dataclass(frozen=True)
class ResignationDeclined(MatchEvent):
    seat: int


@dataclass(frozen=True)
class DrawOffered(MatchEvent):
    seat: int


@dataclass(frozen=True)
class DrawAccepted(MatchEvent):
    seat: int


@dataclass(frozen=True)
class DrawDeclined(MatchEvent):
    seat: int


@dataclass(frozen=True)
class MatchLeft(MatchEvent):
    """``seat`` conceded the match."""

    seat: int


@dataclass(frozen=True)
class WinClaimed(MatchEvent):
    """``seat`` claimed the match: ``idle`` was idle past the claim time."""

    seat: int
    idle: int


@dataclass(frozen=True)
class GameOver(MatchEvent):
    result: GameResult
    score: tuple[float, float]  # the match score after it, per seat


@dataclass(frozen=True)
class CrawfordGame(MatchEvent):
    """The next game is the Crawford game: no doubling."""

    game_number: int


@dataclass(frozen=True)
class MatchOver(MatchEvent):
    winner: int | None  # None: drawn
    score: tuple[float, float]


# --- post-match analysis (bot.service.analysis tells its listeners) ---------------------------


@dataclass(frozen=True)
class AnalysisEvent:
    """Something happened to a match's analysis; ``analysis`` is how it stands now."""

    analysis: AnalysisView


@dataclass(frozen=True)
class AnalysisQueued(AnalysisEvent):
    ahead: int  # analyses to run before this one


@dataclass(frozen=True)
class AnalysisProgressed(AnalysisEvent):
    """It started (``games_done`` 0) or finished a game."""


@dataclass(frozen=True)
class AnalysisFinished(AnalysisEvent):
    """Done: ``analysis.analysis`` holds the figures."""


@dataclass(frozen=True)
class AnalysisFailed(AnalysisEvent):
    """The analysis failed; it may be asked again."""


# --- what the bus publishes (bot.service.bus) -----------------------------------------------


@dataclass(frozen=True)
class MatchUpdated:
    """A command changed a match (an action, or an accepted challenge) and is committed:
    ``update`` says what happened, to whom (its ``events``), and the match now."""

    command: Command[Any]
    update: MatchUpdate

    @property
    def match_id(self) -> int:
        return self.update.match_id

    @property
    def by_robot(self) -> bool:
        """The robot acted (nobody is waiting on an answer to show it)."""
        view = self.update.view
        user = getattr(self.command, "user_id", None)
        return view.robot_seat is not None and view.seat_of(user or 0) == view.robot_seat


@dataclass(frozen=True)
class ChallengeExpired:
    """A challenge's expiry deadline fired and the challenge is recorded expired: its
    invitation (``challenge.channel_id``, ``challenge.message_id``) is to be closed."""

    challenge: Challenge


@dataclass(frozen=True)
class IdleReminder:
    """A match's reminder deadline fired: ``item.idle`` is to be pinged (claimed once for this
    version, so of several processes one is told), ``at`` the second it fired."""

    item: IdleMatch
    at: float


@dataclass(frozen=True)
class WinClaimable:
    """A match's claim deadline fired: ``item.waiting`` may now claim the win (the adapter
    offers the claim button), ``at`` the second it fired."""

    item: IdleMatch
    at: float


@dataclass(frozen=True)
class DailyPuzzleDue:
    """A server's daily puzzle deadline fired and the puzzle is claimed for today's post (and
    the previous one's reveal): the adapter posts it in ``daily.channel_id``."""

    daily: DailyPuzzle


@dataclass(frozen=True)
class RobotTurnWaiting:
    """The match, at ``version``, waits for the robot's seat (or for either seat, at an
    opening): the robot's driver decides and sends its command. Told after every command that
    leaves a robot match so, when its board is shown again, and for each match resumed."""

    match_id: int
    guild_id: int
    version: int


@dataclass(frozen=True)
class RobotStuck:
    """The robot could not decide (or its command was refused) in the match at ``version``:
    told once per position by its driver. A board asked for again (``ShowBoardAndWakeRobot``)
    makes it try again."""

    match_id: int
    guild_id: int
    version: int


def waits_for_robot(view: MatchView) -> bool:
    """The match (as seen in ``view``) waits for the robot's seat, or for either seat."""
    if view.robot_seat is None or view.match_over:
        return False
    return view.actor == view.robot_seat or view.phase in (Phase.OPENING, Phase.OPENING_TIE)


def robot_follow_up(view: MatchView) -> tuple[RobotTurnWaiting, ...]:
    """The event that wakes the robot when ``view`` waits for it; nothing otherwise."""
    if not waits_for_robot(view):
        return ()
    return (RobotTurnWaiting(view.match_id, view.guild_id, view.version),)


def update_events(command: Command[Any], update: MatchUpdate) -> tuple[object, ...]:
    """What the bus hears of a committed command that changed a match."""
    return (MatchUpdated(command, update), *robot_follow_up(update.view))


def step_events(
    live: LiveMatch, action: Action, result: ActionResult, *, auto: bool
) -> list[MatchEvent]:
    """What one step did, just applied to ``live`` (``auto``: by the bot)."""
    match = live.match
    seat = action.player
    events: list[MatchEvent] = []
    stuck: Stuck | None = None
    if result.turn_forfeited:
        stuck = Stuck.TURN_PASSES
    elif isinstance(action, OpeningRoll | Roll) and must_pass(live):
        stuck = Stuck.MUST_PASS
    if isinstance(action, OpeningRoll):
        d0, d1 = action.dice
        if d0 == d1:
            tie = match.phase is Phase.OPENING_TIE
            cube = match.cube
            auto_double = None
            if not tie and cube is not None and cube.value > 1 and match.rules.auto_doubles:
                auto_double = cube.value
            events.append(OpeningRolled((d0, d1), None, tie, auto_double))
        else:
            first = 0 if d0 > d1 else 1
            events.append(OpeningRolled((d0, d1), first))
            if stuck is not None:
                events.append(NoLegalMove(first, stuck))
    elif isinstance(action, Roll):
        assert seat is not None
        events.append(DiceRolled(seat, tuple(action.dice), stuck, auto))
    elif isinstance(action, Move) and result.turn_forfeited:
        assert seat is not None
        events.append(NoLegalMove(seat, Stuck.TURN_PASSES))
    elif isinstance(action, Move):
        assert seat is not None
        events.append(MovePlayed(seat, str(action.move), auto))
    elif isinstance(action, Double):
        assert seat is not None and match.cube is not None  # only a game with a cube doubles
        events.append(DoubleOffered(seat, match.cube.value * 2))
    elif isinstance(action, Take):
        assert seat is not None and match.cube is not None
        events.append(DoubleTaken(seat, match.cube.value))
    elif isinstance(action, Drop):
        assert seat is not None
        events.append(DoublePassed(seat))
    elif isinstance(action, Resign):
        assert seat is not None
        if match.spec.resign_is_offer:
            events.append(ResignationOffered(seat, ResignLevel(action.level)))
        else:
            events.append(Resigned(seat))
    elif isinstance(action, AcceptResign):
        assert seat is not None
        events.append(ResignationAccepted(seat))
    elif isinstance(action, DeclineResign):
        assert seat is not None
        events.append(ResignationDeclined(seat))
    elif isinstance(action, OfferDraw):
        assert seat is not None
        events.append(DrawOffered(seat))
    elif isinstance(action, AcceptDraw):
        assert seat is not None
        events.append(DrawAccepted(seat))
    elif isinstance(action, DeclineDraw):
        assert seat is not None
        events.append(DrawDeclined(seat))
    elif isinstance(action, ConcedeMatch):
        assert seat is not None
        if action.reason == "timeout":
            events.append(WinClaimed(1 - seat, seat))
        else:
            events.append(MatchLeft(seat))
    score = tuple(match.score)
    if result.game_result is not None:
        events.append(GameOver(result.game_result, (score[0], score[1])))
        if not result.match_over and match.crawford_game:
            events.append(CrawfordGame(match.game_number))
    if result.match_over:
        events.append(MatchOver(match.winner(), (score[0], score[1])))
    return events
