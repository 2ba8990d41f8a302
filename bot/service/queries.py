"""Read queries: views of matches, the moves autocomplete offers, leaderboards, history, stats,
exports, dice verification, idle matches. They change nothing (a NANNON shout is counted once)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.service.errors import Refusal, refused
from bot.service.handlers import MAX_MOVE_TEXT
from bot.service.model import (
    BoardPlace,
    ExportFile,
    HintKind,
    HintRequest,
    HistoryEntry,
    IdleMatch,
    LeaderboardRow,
    MatchStatus,
    MatchView,
    Player,
    RobotRecord,
    RobotTurn,
    StatLine,
    VerifyReport,
)
from bot.service.ratings import INITIAL_RATING
from bot.service.settings import GuildSettings
from bot.service.state import ServiceState, game_kind, rating_changes_from_json, storable
from bot.service.views import build_view
from bot.storage import ROBOT_RECORD_COLUMNS, STAT_COLUMNS, GuildShards
from engines import match_from_snapshot
from engines.actions import OpeningRoll, Roll, action_from_dict
from engines.base import GameKind, GameMatch, Phase, ResultKind
from engines.dice import verify
from engines.exports import export_match
from engines.spec import spec_of


async def get_view(state: ServiceState, match_id: int, guild_id: int | None = None) -> MatchView:
    """The current view; with ``guild_id``, refuse a match of another server."""
    live = await state.live_match(match_id, guild_id)
    async with live.lock:  # never show state that is not committed yet
        return build_view(live)


async def _views(state: ServiceState, match_ids: Sequence[int]) -> list[MatchView]:
    return [await get_view(state, match_id) for match_id in match_ids]


async def active_matches(state: ServiceState, guild_id: int, user_id: int) -> list[MatchView]:
    if not storable(guild_id, user_id):
        return []  # no match has a guild, user, channel or thread id SQLite can't store
    return await _views(state, await state.store.active_match_ids(guild_id, user_id))


async def match_in_thread(state: ServiceState, thread_id: int) -> MatchView | None:
    if not storable(thread_id):
        return None  # no match has a guild, user, channel or thread id SQLite can't store
    match_id = await state.store.match_id_in_thread(thread_id)
    return None if match_id is None else await get_view(state, match_id)


async def candidate_matches(
    state: ServiceState, guild_id: int, channel_id: int, user_id: int
) -> list[MatchView]:
    """The user's active matches in this channel or thread (the bot acts when exactly one)."""
    if not storable(guild_id, channel_id, user_id):
        return []  # no match has a guild, user, channel or thread id SQLite can't store
    return await _views(state, await state.store.candidate_match_ids(guild_id, channel_id, user_id))


async def legal_moves(
    state: ServiceState,
    match_id: int,
    guild_id: int,
    user_id: int,
    prefix: str = "",
    limit: int | None = None,
) -> list[str]:
    """Autocomplete: legal moves of the user on turn that match ``prefix``, at most ``limit``
    (None: all); else empty."""
    view = await get_view(state, match_id, guild_id)
    if view.phase is not Phase.MOVE or view.seat_of(user_id) != view.turn:
        return []
    typed = "".join(str(prefix).split()).lower()[:MAX_MOVE_TEXT]
    moves = list(view.legal_moves)
    starts = [m for m in moves if "".join(m.split()).lower().startswith(typed)]
    contains = [m for m in moves if m not in starts and typed in "".join(m.split()).lower()]
    found = starts + contains
    return found if limit is None else found[: max(0, limit)]


async def leaderboard(
    state: ServiceState,
    guild_id: int,
    game: GameKind | str,
    match_length: int | None = None,
    limit: int = 10,
    offset: int = 0,
) -> list[LeaderboardRow]:
    """Players by rating; with ``match_length``, W-L and points of matches of that length;
    the ``limit`` after the first ``offset`` (ranks offset + 1 on)."""
    kind = game_kind(game)
    limit = max(1, min(int(limit), 100))
    offset = max(0, int(offset))
    if match_length is None:
        rows = await state.store.rating_board(guild_id, kind.value, limit, offset)
    else:
        rows = await state.store.length_board(guild_id, kind.value, match_length, limit, offset)
    return [
        LeaderboardRow(
            rank=rank,
            user_id=row["user_id"],
            name=row["name"],
            rating=float(row["rating"]),
            played=row["played"],
            won=row["won"],
            lost=row["lost"],
            drawn=row["drawn"],
            points_won=float(row["points_won"]),
            points_lost=float(row["points_lost"]),
        )
        for rank, row in enumerate(rows, start=offset + 1)
    ]


async def leaderboard_place(
    state: ServiceState, guild_id: int, game: GameKind | str, match_length: int | None, user_id: int
) -> BoardPlace:
    """The member's rank on :func:`leaderboard` and the board's size."""
    rank, size = await state.store.board_place(
        guild_id, game_kind(game).value, match_length, user_id
    )
    return BoardPlace(rank, size)


async def history(
    state: ServiceState, guild_id: int, user_id: int, limit: int = 20
) -> list[HistoryEntry]:
    rows = await state.store.history_rows(guild_id, user_id, max(1, min(int(limit), 100)))
    entries = []
    for row in rows:
        seat = 0 if row["player0_id"] == user_id else 1
        other = 1 - seat
        score = (row["score0"], row["score1"])
        if row["status"] == MatchStatus.ACTIVE.value:
            result = "active"
        elif row["winner_seat"] is None:
            result = "drawn"
        else:
            result = "won" if row["winner_seat"] == seat else "lost"
        changes = rating_changes_from_json(row["rating_changes"])
        entries.append(
            HistoryEntry(
                match_id=row["id"],
                game=GameKind(row["game"]),
                length=row["length"],
                seat=seat,
                opponent=Player(row[f"player{other}_id"], row[f"player{other}_name"]),
                score=(score[seat], score[other]),
                result=result,
                rating_change=next((c.delta for c in changes if c.seat == seat), None),
                created_at=row["created_at"],
                finished_at=row["finished_at"],
            )
        )
    return entries


async def stats(state: ServiceState, guild_id: int, user_id: int, game: GameKind | str) -> StatLine:
    kind = game_kind(game)
    if not storable(guild_id, user_id):
        return StatLine(guild_id, kind, user_id, "", INITIAL_RATING, 0)
    vs_robot = tuple(
        RobotRecord(level=r["level"], **{name: r[name] for name in ROBOT_RECORD_COLUMNS})
        for r in await state.store.robot_records(guild_id, kind.value, user_id)
    )
    analysed = await state.store.analysis_averages(guild_id, kind.value, user_id)
    averages = AnalysedAverages(
        int(analysed["analysed"]),
        _float_or_none(analysed["error_rate"]),
        _float_or_none(analysed["pr"]),
    )
    tournaments_played, tournaments_won = await state.store.tournament_record(guild_id, user_id)
    row = await state.store.stats_row(guild_id, kind.value, user_id)
    if row is None:
        return StatLine(
            guild_id,
            kind,
            user_id,
            "",
            INITIAL_RATING,
            0,
            vs_robot=vs_robot,
            analysed=averages.analysed,
            error_rate=averages.error_rate,
            pr=averages.pr,
            tournaments_played=tournaments_played,
            tournaments_won=tournaments_won,
        )
    counters = {name: row[name] for name in STAT_COLUMNS}
    return StatLine(
        guild_id=guild_id,
        game=kind,
        user_id=user_id,
        name=row["name"],
        rating=float(row["rating"]),
        experience=row["experience"],
        streak=row["streak"],
        vs_robot=vs_robot,
        analysed=averages.analysed,
        error_rate=averages.error_rate,
        pr=averages.pr,
        tournaments_played=tournaments_played,
        tournaments_won=tournaments_won,
        **counters,
    )


class AnalysedAverages(NamedTuple):
    analysed: int
    error_rate: float | None
    pr: float | None


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


async def export(state: ServiceState, match_id: int, guild_id: int) -> ExportFile:
    """``.mat`` for Nannon/backgammon, ``.pdn`` for checkers, rebuilt from the event log."""
    view = await get_view(state, match_id, guild_id)
    events = await state.store.events(match_id)
    actions = [action_from_dict(e.payload) for e in events]
    names = (view.players[0].name, view.players[1].name)
    date = time.strftime("%Y.%m.%d", time.gmtime(view.created_at))
    text = export_match(view.kind, view.rules, actions, names, match_id, date)
    return ExportFile(f"tablebot-{match_id}{spec_of(view.kind).export_suffix}", text)


async def verify_match(state: ServiceState, match_id: int, guild_id: int) -> VerifyReport:
    view = await get_view(state, match_id, guild_id)
    events = await state.store.events(match_id)
    dice: list[int] = []
    for event in events:
        if event.kind in (OpeningRoll.kind, Roll.kind):
            dice.extend(int(d) for d in event.payload["dice"])
    commitment_hex = view.dice_commitment or ""
    row = await state.store.match_row(match_id)
    drawn = int(row["dice_counter"]) if row is not None else len(dice)
    if view.dice_seed is None:
        return VerifyReport(match_id, commitment_hex, None, tuple(dice), None, drawn)
    # Every die drawn must be in the log: a die drawn and not shown would be a hidden
    # re-roll, even if the dice shown all follow from the seed.
    ok = verify(commitment_hex, view.dice_seed, dice) and drawn == len(dice)
    return VerifyReport(match_id, commitment_hex, view.dice_seed, tuple(dice), ok, drawn)


async def idle_matches(
    state: ServiceState, now: float | None = None, guilds: GuildShards | None = None
) -> list[IdleMatch]:
    """Active matches (in ``guilds``) whose actor is idle past the reminder (not yet sent) or
    claim time."""
    now = state.now() if now is None else now
    found = []
    for row in await state.store.active_match_rows(guilds):
        settings = await state.guild_settings(row["guild_id"])
        idle_for = now - row["last_action_at"]
        if idle_for < settings.reminder_minutes * 60 and idle_for < settings.claim_minutes * 60:
            continue
        view = await get_view(state, row["id"])
        item = idle_item(view, row["reminded_version"], settings, now)
        if item is not None and (item.reminder_due or item.claimable):
            found.append(item)
    return found


def idle_item(
    view: MatchView, reminded_version: int | None, settings: GuildSettings, now: float
) -> IdleMatch | None:
    """The match as idle at ``now`` under ``settings`` (None: finished, or nobody to wait
    for). The robot is never reminded (its opponent may claim a match it stopped playing),
    and it claims nothing."""
    if view.actor is None or view.status is not MatchStatus.ACTIVE:
        return None
    idle_for = now - view.last_action_at
    reminder_due = (
        idle_for >= settings.reminder_minutes * 60
        and reminded_version != view.version
        and view.actor != view.robot_seat
    )
    claimable = idle_for >= settings.claim_minutes * 60 and 1 - view.actor != view.robot_seat
    return IdleMatch(
        match_id=view.match_id,
        guild_id=view.guild_id,
        channel_id=view.channel_id,
        thread_id=view.thread_id,
        version=view.version,
        idle=view.players[view.actor],
        waiting=view.players[1 - view.actor],
        idle_since=view.last_action_at,
        reminder_due=reminder_due,
        claimable=claimable,
    )


async def record_shout(
    state: ServiceState, match_id: int, guild_id: int, user_id: int, game_number: int | None = None
) -> bool:
    """Count a NANNON shout: True only the first time, and only by the winner of a NANNON
    game (the latest one when ``game_number`` is None); False otherwise."""
    view = await get_view(state, match_id, guild_id)
    seat = view.seat_of(user_id)
    nannons = [
        g
        for g in view.games
        if g.kind is ResultKind.NANNON and (game_number is None or g.game_number == game_number)
    ]
    if seat is None or not nannons or nannons[-1].winner != seat:
        return False
    return await state.store.record_shout(
        match_id, nannons[-1].game_number, user_id, guild_id, view.kind.value, state.now()
    )


# --- the robot and hints ----------------------------------------------------------------------


def _private_copy(match: GameMatch) -> GameMatch:
    """The match rebuilt from its snapshot: the robot reads it off the lock, while the service
    goes on changing its own."""
    return match_from_snapshot(match.snapshot())


def _robot_may_act(match: GameMatch, seat: int) -> bool:
    """The robot's seat is to act, or either seat may (an opening roll, a tied opening)."""
    if match.phase is Phase.MATCH_OVER:
        return False
    return match.actor == seat or match.phase in (Phase.OPENING, Phase.OPENING_TIE)


async def robot_turn(state: ServiceState, match_id: int) -> RobotTurn | None:
    """What the robot needs to decide in the match now, or None: not a robot match, over, or
    waiting for the other player."""
    live = await state.live_match(match_id, None)
    async with live.lock:
        record = live.record
        seat, level = record.robot_seat, record.robot_level
        if seat is None or level is None or record.status is not MatchStatus.ACTIVE:
            return None
        if not live.valid or not _robot_may_act(live.match, seat):
            return None
        return RobotTurn(
            match_id=record.id,
            guild_id=record.guild_id,
            version=record.version,
            seat=seat,
            user_id=record.players[seat].user_id,
            level=level,
            match=_private_copy(live.match),
        )


def hint_kind(match: GameMatch, seat: int) -> HintKind | None:
    """What a hint for ``seat`` is about now, or None when it has nothing to decide (the
    opponent's turn, a roll it can't double before, an offer of a resignation or a draw)."""
    phase = match.phase
    if phase is Phase.MOVE and match.turn == seat:
        return HintKind.MOVES
    if phase is Phase.ROLL and match.turn == seat and match.can_double(seat):
        return HintKind.CUBE
    if phase is Phase.OPENING_TIE and match.can_double(seat):
        return HintKind.CUBE
    if phase is Phase.CUBE_OFFERED and match.actor == seat:
        return HintKind.TAKE
    return None


async def hint_request(
    state: ServiceState, match_id: int, guild_id: int, user_id: int
) -> HintRequest:
    """Whether ``user_id`` may have a hint in the match now, and on what: always in a match
    against the robot, in a match between people only where the server allows it
    (``hints_in_human_matches``); only for the player's own decision."""
    settings = await state.guild_settings(guild_id)
    live = await state.live_match(match_id, guild_id)
    async with live.lock:
        record = live.record
        seat = record.seat_of(user_id)
        if record.status is MatchStatus.FINISHED:
            raise refused(Refusal.MATCH_OVER, match_id=match_id)
        robot = record.robot_seat is not None
        if not robot and not settings.hints_in_human_matches:
            raise refused(Refusal.HINTS_OFF)
        kind = hint_kind(live.match, seat)
        if kind is None:
            raise refused(Refusal.NO_HINT)
        return HintRequest(
            match_id=record.id,
            version=record.version,
            seat=seat,
            kind=kind,
            robot_match=robot,
            match=_private_copy(live.match),
        )
