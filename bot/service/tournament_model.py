"""Tournaments as the service shows them: the commands that run one (created, joined, started,
adjudicated...), the view of one (its entrants, every round's boards, its standings) and the
events its changes publish. The pairing rules are the engines' (:mod:`engines.tournament`);
the handlers are :mod:`bot.service.tournaments`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.service.commands import ChallengeOptions, Command
from bot.service.model import MatchUpdate, Player
from bot.storage import GuildShards
from engines.base import GameKind, MatchRules
from engines.tournament import RoundResult, Standing, TournamentFormat, standings

__all__ = [
    "AdjudicateMatch",
    "AdvanceTournament",
    "Board",
    "CreateTournament",
    "Decided",
    "DueTournaments",
    "Entrant",
    "JoinTournament",
    "LeaveTournament",
    "ListTournaments",
    "OverdueRounds",
    "RoundStarted",
    "SetTournamentMessage",
    "ShowTournament",
    "StartTournament",
    "TournamentChanged",
    "TournamentFinished",
    "TournamentStatus",
    "TournamentView",
    "WithdrawFromTournament",
]


class TournamentStatus(StrEnum):
    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"  # too few entrants when sign-up closed


class Decided(StrEnum):
    """How a board's result came about."""

    MATCH = "match"
    BYE = "bye"
    FORFEIT = "forfeit"  # a withdrawn player's board


@dataclass(frozen=True)
class Entrant:
    user_id: int
    name: str
    rating: float
    robot: bool
    withdrawn: bool


@dataclass(frozen=True)
class Board:
    """One pairing of a round: ``first`` in seat 0 (the robot always plays seat 1 of its
    match), ``second`` None for a bye; its match once started, its result once decided."""

    round: int
    board: int
    first: int
    second: int | None
    match_id: int | None
    points_first: float | None
    decided: Decided | None
    score: tuple[int, int] | None = None  # the match's points, first's then second's

    @property
    def finished(self) -> bool:
        return self.points_first is not None

    @property
    def winner(self) -> int | None:
        """Who won (None: undecided, or drawn)."""
        if self.points_first == 1:
            return self.first
        if self.points_first == 0:
            return self.second
        return None

    def result(self) -> RoundResult:
        assert self.points_first is not None
        return RoundResult(self.first, self.second, self.points_first)


@dataclass(frozen=True)
class TournamentView:
    id: int
    guild_id: int
    channel_id: int
    organiser: Player
    game: GameKind
    format: TournamentFormat
    rules: MatchRules
    max_players: int | None
    rounds: int | None  # planned once started (Swiss: as asked, or enough for one winner)
    round_days: float
    starts_at: float | None
    robot_level: int | None  # the robot may make up the numbers at this level; None: not
    status: TournamentStatus
    round: int  # 0 during sign-up
    version: int
    round_deadline: float | None
    message_id: int | None
    winner_id: int | None
    created_at: float
    finished_at: float | None
    entrants: tuple[Entrant, ...]
    boards: tuple[Board, ...]

    def name_of(self, user_id: int) -> str:
        for entrant in self.entrants:
            if entrant.user_id == user_id:
                return entrant.name
        return str(user_id)

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.user_id == user_id), None)

    @property
    def seeded(self) -> list[int]:
        """Entrant ids, best rating first (ties: who joined first)."""
        order = sorted(enumerate(self.entrants), key=lambda pair: (-pair[1].rating, pair[0]))
        return [entrant.user_id for _, entrant in order]

    @property
    def active(self) -> list[int]:
        """Seeded, without those who withdrew."""
        gone = {e.user_id for e in self.entrants if e.withdrawn}
        return [user for user in self.seeded if user not in gone]

    def round_boards(self, number: int) -> list[Board]:
        return [b for b in self.boards if b.round == number]

    def table(self) -> list[Standing]:
        """Standings over the finished boards: points, Buchholz, Sonneborn-Berger, seed."""
        seeded = self.seeded
        results = [b.result() for b in self.boards if b.finished]
        return standings(seeded, results, seed={user: i for i, user in enumerate(seeded)})


# --- commands ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CreateTournament(ChallengeOptions, Command[TournamentView]):
    """A tournament in this channel, signing up; its matches' rules are checked as a
    challenge's (the server's defaults for those left None). Refused in a channel where
    challenges are not allowed. ``rounds``: Swiss only (None: enough for one winner)."""

    guild_id: int
    channel_id: int
    organiser_id: int
    organiser_name: str
    game: GameKind | str
    format: TournamentFormat | str
    max_players: int | None = None
    starts_at: float | None = None
    round_days: float = 3.0
    rounds: int | None = None
    robot_level: int | None = None


@dataclass(frozen=True)
class JoinTournament(Command[TournamentView]):
    tournament_id: int
    guild_id: int
    user_id: int
    user_name: str


@dataclass(frozen=True)
class LeaveTournament(Command[TournamentView]):
    """Leave during sign-up (later: :class:`WithdrawFromTournament`)."""

    tournament_id: int
    guild_id: int
    user_id: int


@dataclass(frozen=True)
class StartTournament(Command[TournamentView]):
    """Close sign-up and start round 1: by the organiser (or a manager), or by the clock at
    ``starts_at`` (``user_id`` None; with fewer than 2 entrants the tournament is cancelled).
    ``robot_id``/``robot_name``: the robot, entered to make an even number where allowed."""

    tournament_id: int
    guild_id: int
    user_id: int | None
    robot_id: int
    robot_name: str
    manager: bool = False


@dataclass(frozen=True)
class AdvanceTournament(Command[TournamentView]):
    """Record the finished matches of the current round, start the matches it lacks, pair the
    next round once it is complete (or finish). Idempotent; the round is compare-and-set."""

    tournament_id: int


@dataclass(frozen=True)
class AdjudicateMatch(Command[MatchUpdate]):
    """The organiser (or a manager) decides an unfinished match of the current round:
    ``winner_id`` wins it, as if the other player had left the match."""

    tournament_id: int
    guild_id: int
    user_id: int
    match_id: int
    winner_id: int
    manager: bool = False


@dataclass(frozen=True)
class WithdrawFromTournament(Command[TournamentView]):
    """Leave a running tournament: the current match is conceded, later boards forfeited."""

    tournament_id: int
    guild_id: int
    user_id: int


@dataclass(frozen=True)
class ShowTournament(Command[TournamentView]):
    """Read-only."""

    tournament_id: int
    guild_id: int


@dataclass(frozen=True)
class ListTournaments(Command[list[TournamentView]]):
    """Read-only: the server's tournaments, newest first."""

    guild_id: int
    limit: int = 10


@dataclass(frozen=True)
class DueTournaments(Command[list[TournamentView]]):
    """Read-only: tournaments signing up (in ``guilds``; None: everywhere) whose start time has
    come (the caller starts them)."""

    now: float | None = None
    guilds: GuildShards | None = None


@dataclass(frozen=True)
class OverdueRounds(Command[list[TournamentView]]):
    """Running tournaments (in ``guilds``) whose round is past its deadline with matches
    unfinished, each round once (to every process together), for the organiser to
    adjudicate."""

    now: float | None = None
    guilds: GuildShards | None = None


@dataclass(frozen=True)
class SetTournamentMessage(Command[None]):
    """Bookkeeping: the tournament's announcement message (as a match's board message)."""

    tournament_id: int
    message_id: int | None


# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentChanged:
    """Sign-up changed (a join, a leave, a cancellation): the announcement shows it."""

    view: TournamentView


@dataclass(frozen=True)
class RoundStarted:
    """Round ``round`` is paired and its matches started (``matches``; byes and forfeits have
    none). Round 1 follows sign-up; a later one follows the round before it."""

    view: TournamentView
    round: int
    matches: tuple[MatchUpdate, ...]


@dataclass(frozen=True)
class TournamentFinished:
    view: TournamentView
