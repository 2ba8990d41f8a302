"""Tournaments run by the service: sign-up, rounds that pair and start themselves, results
recorded as matches end, adjudication, withdrawal, the champion.

State lives in the store (:meth:`~bot.storage.protocol.Store.begin_round` and friends); every
change is a command through :meth:`MatchService.handle`. :class:`AdvanceTournament` is the one
step that moves a running tournament on, and it converges: it records what the current round's
finished matches decided, starts the matches the round lacks (each from a challenge the pairing
claims once) and, once every board is decided, pairs the next round or finishes, by
compare-and-set on the tournament's version, so two processes never pair a round twice and a
restart at any moment resumes where the store says. The service runs it whenever a tournament
match ends (its subscriber on :class:`MatchUpdated`), and at start-up.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.service import challenges
from bot.service.bus import Outcome
from bot.service.commands import LeaveMatch
from bot.service.errors import Refusal, Refused, refused
from bot.service.events import MatchUpdated, robot_follow_up
from bot.service.model import ChallengeStatus, MatchUpdate, Player
from bot.service.ratings import INITIAL_RATING
from bot.service.state import ServiceState, clean_name, game_kind, storable
from bot.service.tournament_model import (
    AdjudicateMatch,
    AdvanceTournament,
    Board,
    CreateTournament,
    Decided,
    Entrant,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    RoundStarted,
    ShowTournament,
    StartTournament,
    TournamentChanged,
    TournamentFinished,
    TournamentStatus,
    TournamentView,
    WithdrawFromTournament,
)
from bot.storage import GuildShards, Row
from engines.base import MatchRules
from engines.tournament import (
    Pairing,
    SwissPlayer,
    TournamentFormat,
    knockout_first_round,
    knockout_next_round,
    knockout_rounds_needed,
    pair_swiss,
    round_robin_rounds,
    swiss_rounds_recommended,
)

log = logging.getLogger(__name__)

MAX_PLAYERS = 256
MAX_ROUND_DAYS = 30.0
MAX_SWISS_ROUNDS = 20
DAY = 86400.0


# --- reading ------------------------------------------------------------------------------------


def _board(row: Row) -> Board:
    return Board(
        round=row["round"],
        board=row["board"],
        first=row["first_id"],
        second=row["second_id"],
        match_id=row["match_id"],
        points_first=row["points_first"],
        decided=None if row["decided"] is None else Decided(row["decided"]),
        score=_match_score(row),
    )


def _match_score(row: Row) -> tuple[int, int] | None:
    """The points of the pairing's match, first's then second's (None before it exists)."""
    if row["match_id"] is None or row["score0"] is None:
        return None
    seats = (int(row["score0"]), int(row["score1"]))
    return seats if row["seat0_id"] == row["first_id"] else (seats[1], seats[0])


async def load(state: ServiceState, tournament_id: int, guild_id: int | None) -> TournamentView:
    """The tournament as stored; with ``guild_id``, refused for another server's."""
    row = await state.store.tournament(tournament_id) if storable(tournament_id) else None
    if row is None or (guild_id is not None and row["guild_id"] != guild_id):
        raise refused(Refusal.NO_SUCH_TOURNAMENT, tournament_id=tournament_id)
    entries = await state.store.tournament_entries(tournament_id)
    pairings = await state.store.tournament_pairings(tournament_id)
    return TournamentView(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        organiser=Player(row["organiser_id"], row["organiser_name"]),
        game=game_kind(row["game"]),
        format=TournamentFormat(row["format"]),
        rules=MatchRules.from_dict(json.loads(row["rules"])),
        max_players=row["max_players"],
        rounds=row["rounds"],
        round_days=row["round_days"],
        starts_at=row["starts_at"],
        robot_level=row["robot_level"],
        status=TournamentStatus(row["status"]),
        round=row["round"],
        version=row["version"],
        round_deadline=row["round_deadline"],
        message_id=row["message_id"],
        winner_id=row["winner_id"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        entrants=tuple(
            Entrant(
                e["user_id"],
                e["name"],
                e["rating"],
                bool(e["robot"]),
                e["withdrawn_at"] is not None,
            )
            for e in entries
        ),
        boards=tuple(_board(p) for p in pairings),
    )


def _match_points(row: Row, first: int) -> float:
    """What ``first`` scored in the finished match of a pairing row."""
    if row["winner_seat"] is None:
        return 0.5
    seat_of_first = 0 if row["seat0_id"] == first else 1
    return 1.0 if row["winner_seat"] == seat_of_first else 0.0


# --- the handlers ------------------------------------------------------------------------------


class Tournaments:
    """The tournament handlers, sharing one lock per tournament (in this process; the store's
    compare-and-set orders processes). ``handle`` is the service's entry point: a tournament
    ends a match (adjudication, withdrawal) as a member would."""

    def __init__(self, handle: Callable[[Any], Awaitable[Any]], state: ServiceState) -> None:
        self.handle = handle  # the service's one entry point
        self.state = state
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    def _outcome(self, view: TournamentView, events: list[object]) -> Outcome[TournamentView]:
        slot = self.state.bus.reserve(("tournament", view.id)) if events else None
        return Outcome(view, tuple(events), slot)

    async def match_updated(self, event: MatchUpdated) -> None:
        """A tournament match ended: its tournament moves on."""
        if not event.update.match_over:
            return
        tournament_id = await self.state.store.tournament_of_match(event.match_id)
        if tournament_id is not None:
            await self.handle(AdvanceTournament(tournament_id))

    # --- sign-up ----------------------------------------------------------------------------

    async def create(self, command: CreateTournament) -> Outcome[TournamentView]:
        state = self.state
        kind = game_kind(command.game)
        try:
            form = TournamentFormat(str(command.format).strip().lower())
        except ValueError:
            choices = tuple(f.value for f in TournamentFormat)
            raise refused(Refusal.BAD_FORMAT, given=command.format, choices=choices) from None
        settings = await state.guild_settings(command.guild_id)
        if settings.challenge_channels and command.channel_id not in settings.challenge_channels:
            raise refused(Refusal.CHANNEL_NOT_ALLOWED, channels=settings.challenge_channels)
        rules = challenges.challenge_rules(
            kind, settings, command.length, command.cube, command.crawford, command.jacoby, None
        )
        most = command.max_players
        if most is not None and (type(most) is not int or not 2 <= most <= MAX_PLAYERS):
            raise refused(Refusal.BAD_MAX_PLAYERS, value=most, highest=MAX_PLAYERS)
        days = command.round_days
        if not isinstance(days, int | float) or not 0 < days <= MAX_ROUND_DAYS:
            raise refused(Refusal.BAD_ROUND_DAYS, value=days, highest=MAX_ROUND_DAYS)
        rounds = command.rounds
        if rounds is not None and (
            form is not TournamentFormat.SWISS
            or type(rounds) is not int
            or not 1 <= rounds <= MAX_SWISS_ROUNDS
        ):
            raise refused(Refusal.BAD_ROUNDS, value=rounds, highest=MAX_SWISS_ROUNDS)
        level = None if command.robot_level is None else challenges.robot_level(command.robot_level)
        tournament_id = await state.store.insert_tournament(
            {
                "guild_id": command.guild_id,
                "channel_id": command.channel_id,
                "organiser_id": command.organiser_id,
                "organiser_name": clean_name(command.organiser_name),
                "game": kind.value,
                "format": form.value,
                "rules": json.dumps(rules.to_dict()),
                "max_players": most,
                "rounds": rounds,
                "round_days": float(days),
                "starts_at": command.starts_at,
                "robot_level": level,
                "status": TournamentStatus.SIGNUP.value,
                "created_at": state.now(),
            }
        )
        log.info("tournament %d: %s %s in guild %d", tournament_id, form, kind, command.guild_id)
        view = await load(state, tournament_id, None)
        return self._outcome(view, [TournamentChanged(view)])

    async def _signing_up(self, tournament_id: int, guild_id: int) -> TournamentView:
        view = await load(self.state, tournament_id, guild_id)
        if view.status is not TournamentStatus.SIGNUP:
            raise refused(Refusal.SIGNUP_CLOSED, tournament_id=tournament_id)
        return view

    async def join(self, command: JoinTournament) -> Outcome[TournamentView]:
        async with self.lock(command.tournament_id):
            view = await self._signing_up(command.tournament_id, command.guild_id)
            if view.entrant(command.user_id) is not None:
                raise refused(Refusal.ALREADY_ENTERED, tournament_id=view.id)
            if view.max_players is not None and len(view.entrants) >= view.max_players:
                raise refused(Refusal.TOURNAMENT_FULL, most=view.max_players)
            stats = await self.state.store.stats_row(
                view.guild_id, view.game.value, command.user_id
            )
            rating = INITIAL_RATING if stats is None else stats["rating"]
            entered = await self._enter(view, command.user_id, command.user_name, rating)
            if not entered:
                raise refused(Refusal.ALREADY_ENTERED, tournament_id=view.id)
            view = await load(self.state, view.id, None)
            return self._outcome(view, [TournamentChanged(view)])

    async def _enter(
        self, view: TournamentView, user_id: int, name: str, rating: float, *, robot: bool = False
    ) -> bool:
        values = {
            "tournament_id": view.id,
            "user_id": user_id,
            "name": clean_name(name),
            "rating": rating,
            "robot": int(robot),
            "joined_at": self.state.now(),
        }
        return await self.state.store.add_entry(values)

    async def leave(self, command: LeaveTournament) -> Outcome[TournamentView]:
        async with self.lock(command.tournament_id):
            view = await self._signing_up(command.tournament_id, command.guild_id)
            if not await self.state.store.remove_entry(view.id, command.user_id):
                raise refused(Refusal.NOT_ENTERED, tournament_id=view.id)
            view = await load(self.state, view.id, None)
            return self._outcome(view, [TournamentChanged(view)])

    async def start(self, command: StartTournament) -> Outcome[TournamentView]:
        async with self.lock(command.tournament_id):
            view = await self._signing_up(command.tournament_id, command.guild_id)
            if command.user_id is not None:
                self._check_organiser(view, command.user_id, command.manager)
            count = len(view.entrants)
            robot_joins = (
                view.robot_level is not None
                and view.entrant(command.robot_id) is None
                and count % 2 == 1
                and (view.max_players is None or count < view.max_players)
            )
            if count + robot_joins < 2:
                if command.user_id is not None:
                    raise refused(Refusal.TOO_FEW_PLAYERS, count=count)
                cancelled = {
                    "status": TournamentStatus.CANCELLED.value,
                    "finished_at": self.state.now(),
                }
                if not await self.state.store.update_tournament(view.id, view.version, cancelled):
                    raise refused(Refusal.TOURNAMENT_CHANGED, tournament_id=view.id)
                view = await load(self.state, view.id, None)
                return self._outcome(view, [TournamentChanged(view)])
            if robot_joins:
                await self._enter(
                    view, command.robot_id, command.robot_name, INITIAL_RATING, robot=True
                )
                view = await load(self.state, view.id, None)
            events = await self._advance(view)
            return self._outcome(latest(view, events), events)

    # --- running ----------------------------------------------------------------------------

    async def advance(self, command: AdvanceTournament) -> Outcome[TournamentView]:
        async with self.lock(command.tournament_id):
            view = await load(self.state, command.tournament_id, None)
            events = await self._advance(view)
            return self._outcome(latest(view, events), events)

    async def _advance(self, view: TournamentView) -> list[Any]:
        """Move the tournament on as far as it goes now (see the module's docstring)."""
        events: list[Any] = []
        for _ in range(MAX_PLAYERS + 2):  # each pass records, starts or pairs: it ends
            if view.status not in (TournamentStatus.SIGNUP, TournamentStatus.RUNNING):
                break
            if view.status is TournamentStatus.RUNNING:
                if await self._record_results(view):
                    view = await load(self.state, view.id, None)
                    continue
                started = await self._start_matches(view, view.round_boards(view.round))
                if started:
                    view = await load(self.state, view.id, None)
                    events.append(RoundStarted(view, view.round, tuple(started)))
                    # The robot plays its new matches (once each board is shown).
                    events += [e for u in started for e in robot_follow_up(u.view)]
                if not all(b.finished for b in view.round_boards(view.round)):
                    break
            moved = await self._next_round(view)
            view = await load(self.state, view.id, None)
            if moved is None:  # another process moved first: look again
                continue
            if view.status is TournamentStatus.FINISHED:
                events.append(TournamentFinished(view))
                break
            if not any(
                b.match_id is None and not b.finished for b in view.round_boards(view.round)
            ):
                events.append(RoundStarted(view, view.round, ()))
        return events

    async def _record_results(self, view: TournamentView) -> bool:
        """Record the current round's finished matches; True when one was new."""
        recorded = False
        rows = await self.state.store.tournament_pairings(view.id)
        for row in rows:
            if (
                row["round"] == view.round
                and row["points_first"] is None
                and row["match_status"] == "finished"
            ):
                points = _match_points(row, row["first_id"])
                recorded |= await self.state.store.record_pairing_result(
                    view.id, view.round, row["board"], points, Decided.MATCH.value
                )
        return recorded

    async def _start_matches(self, view: TournamentView, boards: list[Board]) -> list[MatchUpdate]:
        """Start the match of every undecided board of the round that has none yet."""
        updates = []
        robot = next((e.user_id for e in view.entrants if e.robot), None)
        claimed_before = {
            (row["round"], row["board"])
            for row in await self.state.store.tournament_pairings(view.id)
            if row["challenge_id"] is not None
        }
        for board in boards:
            if (
                board.finished
                or board.second is None
                or (board.round, board.board) in claimed_before
            ):
                continue
            seats = (board.first, board.second)
            if seats[0] == robot:
                seats = (seats[1], seats[0])
            first, second = (Player(seat, view.name_of(seat)) for seat in seats)
            values = challenges.challenge_row(
                view.guild_id,
                view.channel_id,
                view.game,
                view.rules,
                first,
                second,
                self.state.now(),
                view.round_days * DAY,
            )
            challenge_id = await self.state.store.insert_challenge(values)
            claimed = await self.state.store.claim_pairing_challenge(
                view.id, board.round, board.board, challenge_id
            )
            if not claimed:  # another process made this match's challenge first
                await self.state.store.set_challenge_status(challenge_id, "cancelled")
        # Every claimed board without its match starts now: just claimed, or claimed before a
        # crash; another process starting the same one at once wins or loses the accept.
        for row in await self.state.store.tournament_pairings(view.id):
            if row["round"] != view.round or row["challenge_id"] is None or row["match_id"]:
                continue
            challenge = await challenges.get_challenge(
                self.state, row["challenge_id"], view.guild_id
            )
            if challenge.status is not ChallengeStatus.OPEN or challenge.opponent is None:
                continue
            level = view.robot_level if challenge.opponent.user_id == robot else None
            try:
                update = await challenges.start_match(
                    self.state, challenge, challenge.opponent, robot_level=level
                )
            except Refused as exc:
                if exc.refusal is not Refusal.CHALLENGE_TAKEN:
                    raise
                continue  # the other process started it
            updates.append(update)
        return updates

    async def _next_round(self, view: TournamentView) -> bool | None:
        """Pair the next round, or finish: True when this call did; None when another change
        came first."""
        now = self.state.now()
        planned = view.rounds or planned_rounds(view)
        pairings = None if view.round >= planned else pair_round(view)
        if pairings is None:
            table = view.table()
            winner = (
                knockout_winner(view) if view.format is TournamentFormat.KNOCKOUT else table[0].id
            )
            changes: dict[str, Any] = {
                "status": TournamentStatus.FINISHED.value,
                "winner_id": winner,
                "finished_at": now,
                "rounds": planned,
            }
            done = await self.state.store.update_tournament(view.id, view.version, changes)
            if done:
                log.info("tournament %d: won by %d", view.id, winner)
            return True if done else None
        number = view.round + 1
        gone = {e.user_id for e in view.entrants if e.withdrawn}
        rows = []
        for board, pairing in enumerate(pairings):
            points, decided = _decided_at_pairing(pairing, gone)
            rows.append(
                {
                    "round": number,
                    "board": board,
                    "first_id": pairing.first,
                    "second_id": pairing.second,
                    "points_first": points,
                    "decided": decided,
                }
            )
        changes = {
            "status": TournamentStatus.RUNNING.value,
            "round": number,
            "round_deadline": now + view.round_days * DAY,
            "rounds": planned,
        }
        began = await self.state.store.begin_round(view.id, view.version, changes, rows)
        if began:
            log.info("tournament %d: round %d paired", view.id, number)
        return True if began else None

    # --- the organiser and the players ----------------------------------------------------

    @staticmethod
    def _check_organiser(view: TournamentView, user_id: int, manager: bool) -> None:
        if user_id != view.organiser.user_id and not manager:
            raise refused(Refusal.NOT_ORGANISER, name=view.organiser.name)

    def _current_board(self, view: TournamentView, match_id: int) -> Board:
        for board in view.round_boards(view.round):
            if board.match_id == match_id and view.status is TournamentStatus.RUNNING:
                return board
        raise refused(Refusal.NOT_A_ROUND_MATCH, match_id=match_id)

    async def adjudicate(self, command: AdjudicateMatch) -> Outcome[MatchUpdate]:
        view = await load(self.state, command.tournament_id, command.guild_id)
        self._check_organiser(view, command.user_id, command.manager)
        board = self._current_board(view, command.match_id)
        if board.finished:
            raise refused(Refusal.MATCH_OVER, match_id=command.match_id)
        if command.winner_id not in (board.first, board.second):
            raise refused(Refusal.NOT_A_PLAYER, match_id=command.match_id)
        loser = board.second if command.winner_id == board.first else board.first
        assert loser is not None
        # The loser leaves the match: it ends as any match does, and is rated, recorded and
        # moved on from by the subscriber.
        update = await self.handle(LeaveMatch(command.match_id, command.guild_id, loser))
        return Outcome(update)

    async def withdraw(self, command: WithdrawFromTournament) -> Outcome[TournamentView]:
        view = await load(self.state, command.tournament_id, command.guild_id)
        if view.status is TournamentStatus.SIGNUP:
            return await self.leave(LeaveTournament(view.id, view.guild_id, command.user_id))
        entrant = view.entrant(command.user_id)
        if view.status is not TournamentStatus.RUNNING or entrant is None:
            raise refused(Refusal.NOT_ENTERED, tournament_id=view.id)
        if not await self.state.store.withdraw_entry(view.id, command.user_id, self.state.now()):
            raise refused(Refusal.ALREADY_WITHDRAWN, tournament_id=view.id)
        for board in view.round_boards(view.round):
            if board.finished or command.user_id not in (board.first, board.second):
                continue
            if board.match_id is not None:
                await self.handle(LeaveMatch(board.match_id, view.guild_id, command.user_id))
            else:
                points = 0.0 if command.user_id == board.first else 1.0
                await self.state.store.record_pairing_result(
                    view.id, board.round, board.board, points, Decided.FORFEIT.value
                )
        return await self.advance(AdvanceTournament(view.id))

    # --- reads and the clock ----------------------------------------------------------------

    async def show(self, command: ShowTournament) -> Outcome[TournamentView]:
        return Outcome(await load(self.state, command.tournament_id, command.guild_id))

    async def listing(self, command: ListTournaments) -> Outcome[list[TournamentView]]:
        rows = await self.state.store.guild_tournaments(
            command.guild_id, max(1, min(command.limit, 25))
        )
        return Outcome([await load(self.state, row["id"], None) for row in rows])

    async def live(self, guilds: GuildShards | None) -> list[TournamentView]:
        return [
            await load(self.state, row["id"], None)
            for row in await self.state.store.live_tournaments(guilds)
        ]

    async def overdue(self, now: float, guilds: GuildShards | None) -> list[TournamentView]:
        """Running tournaments whose round passed its deadline unfinished, each once (claimed
        by compare-and-set), for the organiser to hear of."""
        found = []
        for view in await self.live(guilds):
            if (
                view.status is TournamentStatus.RUNNING
                and view.round_deadline is not None
                and view.round_deadline <= now
                and any(not b.finished for b in view.round_boards(view.round))
            ):
                row = await self.state.store.tournament(view.id)
                if row is None or row["reported_round"] >= view.round:
                    continue
                if await self.state.store.update_tournament(
                    view.id, view.version, {"reported_round": view.round}
                ):
                    found.append(await load(self.state, view.id, None))
        return found


def latest(view: TournamentView, events: list[Any]) -> TournamentView:
    """The tournament as the last of ``events`` that shows it left it (else ``view``)."""
    shown = [e.view for e in events if isinstance(e, RoundStarted | TournamentFinished)]
    return shown[-1] if shown else view


def _decided_at_pairing(pairing: Pairing, gone: set[int]) -> tuple[float | None, str | None]:
    """A bye is decided as it is paired, and so is a board with a withdrawn player."""
    if pairing.second is None:
        return 1.0, Decided.BYE.value
    first_gone, second_gone = pairing.first in gone, pairing.second in gone
    if first_gone or second_gone:
        points = 0.5 if first_gone and second_gone else 0.0 if first_gone else 1.0
        return points, Decided.FORFEIT.value
    return None, None


def planned_rounds(view: TournamentView) -> int:
    count = len(view.entrants)
    if view.format is TournamentFormat.KNOCKOUT:
        return knockout_rounds_needed(count)
    if view.format is TournamentFormat.ROUND_ROBIN:
        return len(round_robin_rounds(view.seeded))
    return view.rounds or swiss_rounds_recommended(count)


def knockout_winner(view: TournamentView) -> int:
    final = view.round_boards(view.round)
    return _advancing(view, final[0])


def _advancing(view: TournamentView, board: Board) -> int:
    """Who goes through from a knockout board: its winner; on a draw, the higher seed."""
    if board.winner is not None:
        return board.winner
    seeds = view.seeded
    if board.second is None or seeds.index(board.first) < seeds.index(board.second):
        return board.first
    return board.second


def pair_round(view: TournamentView) -> list[Pairing]:
    """The next round's pairings (the rounds so far all decided)."""
    if view.format is TournamentFormat.KNOCKOUT:
        if view.round == 0:
            return knockout_first_round(view.seeded)
        winners = [_advancing(view, b) for b in view.round_boards(view.round)]
        return knockout_next_round(winners)
    if view.format is TournamentFormat.ROUND_ROBIN:
        return round_robin_rounds(view.seeded)[view.round]
    players = []
    ratings = {e.user_id: e.rating for e in view.entrants}
    for user in view.active:
        mine = [b for b in view.boards if user in (b.first, b.second)]
        score = sum(
            (b.points_first if b.first == user else 1 - b.points_first)
            for b in mine
            if b.points_first is not None
        )
        players.append(
            SwissPlayer(
                id=user,
                score=score,
                rating=ratings[user],
                opponents=frozenset(
                    o for b in mine for o in (b.first, b.second) if o is not None and o != user
                ),
                had_bye=any(b.second is None for b in mine),
                seat_balance=sum(
                    1 if b.first == user else -1 for b in mine if b.second is not None
                ),
            )
        )
    if len(players) < 2:
        return [Pairing(p.id, None) for p in players]
    return pair_swiss(players)
