"""The service's value types: what it answers with (frozen dataclasses, no behaviour beyond a few
read-only properties) and the dice protocol it draws from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, Protocol, runtime_checkable

from engines.analysis import DecisionKind, MatchAnalysis
from engines.base import GameKind, GameMatch, GameResult, MatchRules, Phase, ResignLevel
from engines.legal_moves import MoveNotation
from engines.match import NO_MOVE
from engines.puzzles import AnswerKey, Option

__all__ = [
    "AnalysisStatus",
    "AnalysisView",
    "Challenge",
    "ChallengeStatus",
    "DailyPuzzle",
    "DiceFactory",
    "ExportFile",
    "HintKind",
    "HintRequest",
    "HistoryEntry",
    "IdleMatch",
    "LastMove",
    "LeaderboardRow",
    "MatchDice",
    "MatchStatus",
    "MatchUpdate",
    "MatchView",
    "Player",
    "PuzzleResult",
    "PuzzleReveal",
    "PuzzleStanding",
    "PuzzleView",
    "RatingChange",
    "RobotRecord",
    "RobotTurn",
    "StatLine",
    "VerifyReport",
]


class ChallengeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class MatchStatus(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"


@dataclass(frozen=True)
class Player:
    user_id: int
    name: str


@dataclass(frozen=True)
class Challenge:
    id: int
    guild_id: int
    channel_id: int
    game: GameKind
    rules: MatchRules
    challenger: Player
    opponent: Player | None  # None: open to anyone but the challenger
    status: ChallengeStatus
    created_at: float
    expires_at: float
    match_id: int | None = None
    message_id: int | None = None


@dataclass(frozen=True)
class LastMove:
    """The last move made, for highlighting: ``move`` is the engine's move object."""

    seat: int
    text: str
    move: Any


@dataclass(frozen=True)
class MatchView:
    """Everything a client needs to show a match. Seats index ``players``, ``score`` etc."""

    match_id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    board_message_id: int | None
    kind: GameKind
    rules: MatchRules
    status: MatchStatus
    version: int
    players: tuple[Player, Player]
    colours: tuple[str, str]  # per seat, for the current game
    phase: Phase
    turn: int  # the seat on turn in the game
    actor: int | None  # the seat expected to act next; None when either may
    score: tuple[float, float]
    game_number: int
    crawford: bool  # this game is the Crawford game
    cube_value: int
    cube_owner: int | None
    cube_offered_by: int | None
    can_double: tuple[bool, bool]  # per seat, right now
    resign_offer: tuple[int, ResignLevel] | None
    draw_offered_by: int | None
    dice: tuple[int, ...] | None
    opening_dice: tuple[int, int] | None
    position_id: str
    gnubg_match_id: str | None  # backgammon only
    position: Any  # the engine's position (or checkers board) seen from the side on turn
    pips: tuple[int, int] | None  # backgammon, per seat
    legal_moves: MoveNotation  # for the current roll, ordered helpfully; written as they are read
    last_move: LastMove | None
    games: tuple[GameResult, ...]
    winner_seat: int | None
    dice_commitment: str | None
    dice_seed: str | None  # revealed only once the match is over
    created_at: float
    last_action_at: float
    robot_seat: int | None = None  # the seat the robot plays; None between people
    robot_level: int | None = None  # the robot's level, 1 (beginner) to 5 (master)

    @property
    def length(self) -> int:
        return self.rules.length

    @property
    def match_over(self) -> bool:
        return self.status is MatchStatus.FINISHED

    @property
    def must_pass(self) -> bool:
        """The roll on the board can't be played: its player passes with ``no move``."""
        moves = self.legal_moves
        return self.phase is Phase.MOVE and len(moves) == 1 and moves[0] == NO_MOVE

    def seat_of(self, user_id: int) -> int | None:
        for seat, player in enumerate(self.players):
            if player.user_id == user_id:
                return seat
        return None


@dataclass(frozen=True)
class RatingChange:
    seat: int
    user_id: int
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class MatchUpdate:
    """The answer to every action, sent only after the commit."""

    match_id: int
    version: int
    view: MatchView
    events: tuple[MatchEvent, ...]  # what happened, in order: rolls, moves, results, ...
    game_result: GameResult | None = None  # the game that ended in this update, if any
    match_over: bool = False
    winner_seat: int | None = None
    rating_changes: tuple[RatingChange, ...] = ()
    revealed_seed: str | None = None


@dataclass(frozen=True)
class BoardPlace:
    """A member's rank on a leaderboard (None when they are not on it) and the board's last
    rank (how many it holds)."""

    rank: int | None
    size: int


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: int
    name: str
    rating: float
    played: int
    won: int
    lost: int
    drawn: int
    points_won: float
    points_lost: float


@dataclass(frozen=True)
class StatLine:
    guild_id: int
    game: GameKind
    user_id: int
    name: str
    rating: float
    experience: int
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    points_won: float = 0
    points_lost: float = 0
    gammons_for: int = 0
    gammons_against: int = 0
    backgammons_for: int = 0
    backgammons_against: int = 0
    nannons_for: int = 0
    nannons_against: int = 0
    nannons_shouted: int = 0
    streak: int = 0  # +n: n wins in a row, -n: n losses in a row
    vs_robot: tuple[RobotRecord, ...] = ()  # the record against each robot level played
    analysed: int = 0  # finished matches analysed (post-match analysis)
    error_rate: float | None = None  # their average error rate (thousandths per decision)
    pr: float | None = None  # their average PR (backgammon)
    tournaments_played: int = 0  # finished tournaments entered (in the server, any game)
    tournaments_won: int = 0


@dataclass(frozen=True)
class RobotRecord:
    """A player's record against the robot at one level (1 beginner .. 5 master) in one game,
    kept whether or not robot matches are rated."""

    level: int
    played: int
    won: int
    lost: int
    drawn: int
    points_won: float
    points_lost: float


class HintKind(StrEnum):
    """What a hint is about: the moves of the roll (or the checkers move), the cube action
    before the roll (or at a tied opening), or taking or passing a double."""

    MOVES = "moves"
    CUBE = "cube"
    TAKE = "take"


@dataclass(frozen=True)
class RobotTurn:
    """The robot's seat has something to decide: what the robot needs to think. ``match`` is a
    private copy of the engine's match at ``version`` (read it freely; nothing else sees it);
    a command built from it names ``user_id`` (the robot's) and ``expected_version=version``."""

    match_id: int
    guild_id: int
    version: int
    seat: int
    user_id: int
    level: int
    match: GameMatch


@dataclass(frozen=True)
class HintRequest:
    """A hint the service allowed: ``kind`` for ``seat`` in a private copy of the match at
    ``version``. The robot computes it (off the event loop); the service changes nothing."""

    match_id: int
    version: int
    seat: int
    kind: HintKind
    robot_match: bool
    match: GameMatch


@dataclass(frozen=True)
class HistoryEntry:
    match_id: int
    game: GameKind
    length: int
    seat: int
    opponent: Player
    score: tuple[float, float]  # (mine, theirs)
    result: str  # "won", "lost", "drawn" or "active"
    rating_change: float | None
    created_at: float
    finished_at: float | None


@dataclass(frozen=True)
class VerifyReport:
    """A match's dice checked against its seed (the adapter says the verdict in words)."""

    match_id: int
    commitment: str
    seed: str | None  # None while the match is still on
    dice: tuple[int, ...]  # every die rolled, in order
    ok: bool | None  # None while the seed is secret
    drawn: int | None = None  # dice drawn from the seed, as the match row counts them


@dataclass(frozen=True)
class IdleMatch:
    match_id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    version: int
    idle: Player  # the player the match waits for
    waiting: Player  # their opponent, who may claim the match
    idle_since: float
    reminder_due: bool  # past the reminder time and not yet reminded for this version
    claimable: bool  # past the claim time: ``waiting`` may claim the win


@dataclass(frozen=True)
class MatchEvent:
    """Base class of everything that can happen in a match (the kinds: bot.service.events)."""


class ExportFile(NamedTuple):
    filename: str
    text: str


class MatchDice(Protocol):
    """A match's dice: FairDice, or a scripted stand-in in tests. ``counter`` dice drawn so far."""

    seed: bytes
    counter: int

    def roll_die(self) -> int: ...


@runtime_checkable
class MatchAwareDice(MatchDice, Protocol):
    """Dice shown the match each die is rolled for: the engine object, mid-action (the lock
    held, nothing committed yet). Read it, never change it. Scripted dice in tests pick their
    faces by it; fair dice have no use for it and don't implement it. Steered dice are not the
    committed seed's, so ``VerifyMatch`` fails their match."""

    def roll_die_for(self, match: GameMatch) -> int: ...


DiceFactory = Callable[[], MatchDice]


class AnalysisStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class AnalysisView:
    """A match's post-match analysis as it stands: where its match is played (the report goes
    there), its progress, and once done its figures."""

    match_id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    kind: GameKind
    length: int  # the match's length (0: money play)
    players: tuple[Player, Player]
    status: AnalysisStatus
    ply: int
    requester_id: int | None  # None: queued automatically at the match's end
    games_done: int
    games_total: int | None  # None until it starts
    message_id: int | None  # the message that shows its progress, then its report
    analysis: MatchAnalysis | None = None  # once done
    error: str | None = None  # once failed: what went wrong (for the log)


# --- puzzles (bot.service.puzzles) ---------------------------------------------------------


@dataclass(frozen=True)
class PuzzleView:
    """A puzzle as a solver sees it: where it comes from (to draw the board: the match as it
    stood after ``action_index`` actions), whose decision, and the options to pick from, in
    notation order (so the best is not always first). No answer."""

    puzzle_id: int
    guild_id: int
    game: GameKind
    kind: DecisionKind
    match_id: int | None  # None: from robot self-play
    action_index: int
    seat: int
    board: dict[str, Any]
    options: tuple[str, ...]
    rating: float
    attempts: int
    solved: int
    post_channel_id: int | None = None
    post_message_id: int | None = None
    """Where the daily post showed it (None: never posted)."""


@dataclass(frozen=True)
class PuzzleReveal:
    """A daily puzzle's answer, told at the next post: the whole key, the move played in the
    game, who solved it (names, in order of their answers) and how many tried; the game's
    player only where the server allows naming them."""

    puzzle: PuzzleView
    key: AnswerKey
    played: str
    solvers: tuple[str, ...]
    player: str | None


@dataclass(frozen=True)
class DailyPuzzle:
    """A daily post due now: the puzzle to post in ``channel_id`` (claimed: posted once), the
    previous one to reveal, and the players' names where the server allows them."""

    puzzle: PuzzleView
    channel_id: int
    previous: PuzzleReveal | None
    names: tuple[str, str] | None


@dataclass(frozen=True)
class PuzzleResult:
    """A member's answer judged: right or wrong, what the choice gave up against the best,
    the whole answer key (best first) and the member's rating before and after."""

    puzzle_id: int
    user_id: int
    choice: str
    correct: bool
    loss: float
    key: AnswerKey
    rating_before: float
    rating_after: float

    @property
    def best(self) -> Option:
        return self.key.best


@dataclass(frozen=True)
class PuzzleStanding:
    """A member's puzzle record in the guild."""

    user_id: int
    name: str
    rating: float
    deviation: float
    attempts: int
    solved: int
