"""Tournaments on Discord: the sign-up announcement (its embed and Join / Leave / Start
buttons), each round's start (a message pinging the pairing, then the match's thread and first
board as an accepted challenge gets them), the pictures (a knockout bracket, a round-robin
crosstable, Swiss standings: drawn by the render worker, with alt text) after each round and on
/tournament show, the champion's announcement, and the clock's work (sign-up closing at its
time, overdue rounds reported to the organiser), which the reminders loop runs.

Every sentence comes from the catalogue."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord import invitations, permissions, presenter, wording
from bot.discord.catalogue import plural_key, text
from bot.discord.components import signup_view
from bot.discord.locales import for_server
from bot.discord.replies import NO_MENTIONS, escape_name, mention_only
from bot.robot.levels import Level
from bot.service import (
    Refused,
    RoundStarted,
    StartTournament,
    TournamentFinished,
    TournamentStatus,
    TournamentView,
)
from bot.service.tournament_model import DueTournaments, OverdueRounds
from engines.tournament import TournamentFormat
from render.common import format_score
from render.tournament import MAX_BRACKET_MATCHES, MAX_TABLE_ROWS, BracketMatch

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)

CROSSTABLE_MOST = 8  # a round robin of more players is shown as a standings table
ENTRANTS_SHOWN = 900  # characters of the entrants' field


def format_name(form: TournamentFormat) -> str:
    return text(f"tournament.format.{form.name.lower()}")


def number(points: float) -> str:
    """1, ½, 2½ as the tables show them (as a match score is shown)."""
    return format_score(points)


def status_line(view: TournamentView) -> str:
    if view.status is TournamentStatus.SIGNUP:
        if view.starts_at is not None:
            return text("tournament.signup_until", time=f"<t:{int(view.starts_at)}:R>")
        return text("tournament.signup_open")
    if view.status is TournamentStatus.RUNNING:
        return text(
            "tournament.round_on",
            round=view.round,
            rounds=view.rounds or "?",
            deadline=f"<t:{int(view.round_deadline or 0)}:R>",
        )
    if view.status is TournamentStatus.FINISHED and view.winner_id is not None:
        return text("tournament.won_by", name=escape_name(view.name_of(view.winner_id)))
    return text("tournament.cancelled")


def announcement(view: TournamentView) -> discord.Embed:
    """The tournament as its announcement shows it."""
    lines = [
        text("tournament.rules", what=invitations.what_text(view.game, view.rules)),
        text("tournament.organiser", name=escape_name(view.organiser.name)),
        text(plural_key("tournament.round_days", view.round_days), days=number(view.round_days)),
    ]
    if view.robot_level is not None:
        level = text(f"robot.level.{Level(view.robot_level).name.lower()}")
        lines.append(text("tournament.robot_allowed", level=level))
    lines.append(status_line(view))
    embed = discord.Embed(
        title=text(
            "tournament.title",
            tournament_id=view.id,
            format=format_name(view.format),
            game=wording.game_title(view.game),
        ),
        description="\n".join(lines),
    )
    names = [
        escape_name(e.name) + (text("tournament.withdrawn") if e.withdrawn else "")
        for e in view.entrants
    ]
    shown = wording.listed(names) if names else text("tournament.no_entrants")
    if len(shown) > ENTRANTS_SHOWN:
        shown = shown[:ENTRANTS_SHOWN] + "…"
    embed.add_field(name=text("tournament.entrants", count=len(names)), value=shown, inline=False)
    embed.set_footer(text=text("tournament.footer", tournament_id=view.id))
    return embed


def announcement_parts(view: TournamentView) -> dict[str, Any]:
    """The announcement's embed and buttons (none once sign-up closed)."""
    buttons = signup_view(view.id) if view.status is TournamentStatus.SIGNUP else None
    return {"embed": announcement(view), "view": buttons, "allowed_mentions": NO_MENTIONS}


def channel_of(bot: TableBot, view: TournamentView) -> discord.PartialMessageable:
    return bot.get_partial_messageable(view.channel_id, guild_id=view.guild_id)


@for_server
async def refresh_announcement(bot: TableBot, view: TournamentView) -> None:
    """Edit the announcement to show the tournament now (one request)."""
    if view.message_id is None:
        return
    message = channel_of(bot, view).get_partial_message(view.message_id)
    try:
        await message.edit(**announcement_parts(view))
    except discord.HTTPException as exc:
        log.info("tournament %d: announcement not edited: %s", view.id, exc)


# --- pictures ------------------------------------------------------------------------------------


def _bracket(view: TournamentView) -> tuple[Any, ...] | None:
    first = view.round_boards(1)
    rounds = view.rounds or 0
    if not first or len(first) > MAX_BRACKET_MATCHES or len(first) != 1 << (rounds - 1):
        return None
    columns = []
    for number_ in range(1, rounds + 1):
        boards = view.round_boards(number_)
        size = len(first) >> (number_ - 1)
        column = []
        for i in range(size):
            if i >= len(boards):
                column.append(BracketMatch(None, None))
                continue
            board = boards[i]
            winner = None
            if board.finished:
                winner = 0 if board.winner == board.first or board.second is None else 1
            second = None if board.second is None else view.name_of(board.second)
            points = ("", "") if board.score is None else (str(board.score[0]), str(board.score[1]))
            column.append(BracketMatch(view.name_of(board.first), second, winner, points))
        columns.append(column)
    titles = [
        text("tournament.final") if n == rounds else text("tournament.round_short", round=n)
        for n in range(1, rounds + 1)
    ]
    title = text("tournament.picture_title", tournament_id=view.id, format=format_name(view.format))
    return title, titles, columns, text("tournament.bye"), text("tournament.to_come")


def rounds_done(view: TournamentView) -> int:
    """Rounds played to the end (the current one once its every board is decided)."""
    current = view.round_boards(view.round)
    return view.round if current and all(b.finished for b in current) else view.round - 1


def _crosstable(view: TournamentView) -> tuple[Any, ...]:
    table = view.table()
    order = [line.id for line in table]
    scores: dict[tuple[int, int], str] = {}
    for board in view.boards:
        if board.second is not None and board.points_first is not None:
            scores[board.first, board.second] = number(board.points_first)
            scores[board.second, board.first] = number(1 - board.points_first)
    headings = [text("tournament.rank"), text("tournament.player")]
    headings += [str(i + 1) for i in range(len(order))]
    headings.append(text("tournament.points"))
    rows = []
    for i, line in enumerate(table):
        cells = [
            scores.get((line.id, other), text("tournament.unplayed"))
            if other != line.id
            else text("tournament.self")
            for other in order
        ]
        rows.append([str(i + 1), view.name_of(line.id), *cells, number(line.points)])
    title = text("tournament.crosstable_title", tournament_id=view.id, round=rounds_done(view))
    return title, headings, rows, []  # no abbreviations to explain


def _standings(view: TournamentView) -> tuple[Any, ...]:
    headings = [
        text("tournament.rank"),
        text("tournament.player"),
        text("tournament.points"),
        text("tournament.buchholz"),
        text("tournament.sonneborn_berger"),
    ]
    rows = [
        [
            str(line.rank),
            view.name_of(line.id),
            number(line.points),
            number(line.buchholz),
            number(line.sonneborn_berger),
        ]
        for line in view.table()[:MAX_TABLE_ROWS]
    ]
    title = text("tournament.standings_title", tournament_id=view.id, round=rounds_done(view))
    legend = [
        text("tournament.buchholz_legend", short=text("tournament.buchholz")),
        text("tournament.sonneborn_berger_legend", short=text("tournament.sonneborn_berger")),
    ]
    return title, headings, rows, legend


async def picture(bot: TableBot, view: TournamentView) -> discord.File | None:
    """The tournament's picture now (bracket, crosstable or standings) with its alt text; None
    when there is nothing to draw yet, or drawing failed (the text still says it all)."""
    if not view.boards:
        return None
    try:
        bracket = _bracket(view) if view.format is TournamentFormat.KNOCKOUT else None
        if bracket is not None:
            png, alt = await bot.renderer.bracket(*bracket)
        else:
            crosstable = (
                view.format is TournamentFormat.ROUND_ROBIN
                and len(view.entrants) <= CROSSTABLE_MOST
            )
            table = _crosstable(view) if crosstable else _standings(view)
            title, headings, rows, legend = table
            winner = next((i for i, r in enumerate(view.table()) if r.id == view.winner_id), None)
            png, alt = await bot.renderer.standings(title, headings, rows, winner, legend)
    except Exception:
        log.exception("tournament %d: picture failed", view.id)
        return None
    return discord.File(io.BytesIO(png), filename="tournament.png", description=alt[:1024])


# --- rounds and the end ------------------------------------------------------------------------


@for_server
async def round_started(bot: TableBot, event: RoundStarted) -> None:
    """The table after the round before (once per round), then each new match: a message
    that pings its players, its thread and first board, as an accepted challenge's."""
    view = event.view
    channel = channel_of(bot, view)
    started = [b for b in view.round_boards(event.round) if b.match_id is not None]
    if event.round > 1 and len(event.matches) == len(started):
        drawn = await picture(bot, view)
        said = text("tournament.round_over", tournament_id=view.id, round=event.round - 1)
        try:
            await channel.send(
                said, file=drawn or discord.utils.MISSING, allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as exc:
            log.warning("tournament %d: standings not posted: %s", view.id, exc)
    threads = can_open_threads(bot, view)
    for update in event.matches:
        match = update.view
        first, second = match.players
        content = text(
            "tournament.pairing",
            tournament_id=view.id,
            round=event.round,
            first=f"<@{first.user_id}>",
            second=f"<@{second.user_id}>",
        )
        try:
            message = await channel.send(
                content, allowed_mentions=mention_only(first.user_id, second.user_id)
            )
            await presenter.start_match(bot, update, message, threads=threads, close=False)
        except discord.HTTPException as exc:
            log.warning("tournament %d: match %d not shown: %s", view.id, update.match_id, exc)


def can_open_threads(bot: TableBot, view: TournamentView) -> bool:
    channel = bot.get_channel(view.channel_id)
    if not isinstance(channel, discord.TextChannel):
        return False
    return permissions.can_open_thread(channel.permissions_for(channel.guild.me))


@for_server
async def finished(bot: TableBot, event: TournamentFinished) -> None:
    """The champion, announced in the tournament's channel with the final picture; the
    announcement shows the result."""
    view = event.view
    assert view.winner_id is not None
    drawn = await picture(bot, view)
    said = text(
        "tournament.champion",
        tournament_id=view.id,
        mention=f"<@{view.winner_id}>",
        format=format_name(view.format),
        game=wording.game_title(view.game),
    )
    try:
        await channel_of(bot, view).send(
            said, file=drawn or discord.utils.MISSING, allowed_mentions=mention_only(view.winner_id)
        )
    except discord.HTTPException as exc:
        log.warning("tournament %d: champion not announced: %s", view.id, exc)
    await refresh_announcement(bot, view)


# --- the clock -----------------------------------------------------------------------------------


async def clock_pass(bot: TableBot, now: float | None) -> list[tuple[str, int]]:
    """Start the tournaments whose sign-up time is up, report overdue rounds to their
    organisers; what was done, as ("start" | "overdue", tournament id) pairs."""
    done: list[tuple[str, int]] = []
    service = bot.service
    me = bot.user
    if me is None:
        return done
    for view in await service.handle(DueTournaments(now, bot.guild_shards)):
        try:
            started = await service.handle(
                StartTournament(view.id, view.guild_id, None, me.id, me.display_name)
            )
        except Refused as exc:  # another process started it first
            log.info("tournament %d: not started by the clock: %s", view.id, exc)
            continue
        await refresh_announcement(bot, started)
        done.append(("start", view.id))
    for view in await service.handle(OverdueRounds(now, bot.guild_shards)):
        unfinished = [
            text(
                "tournament.overdue_match",
                match_id=b.match_id,
                first=escape_name(view.name_of(b.first)),
                second=escape_name(view.name_of(b.second or 0)),
            )
            for b in view.round_boards(view.round)
            if not b.finished and b.match_id is not None
        ]
        said = text(
            "tournament.overdue",
            organiser=f"<@{view.organiser.user_id}>",
            tournament_id=view.id,
            round=view.round,
            matches="\n".join(unfinished),
        )
        try:
            await channel_of(bot, view).send(
                said, allowed_mentions=mention_only(view.organiser.user_id)
            )
        except discord.HTTPException as exc:
            log.warning("tournament %d: overdue round not reported: %s", view.id, exc)
        done.append(("overdue", view.id))
    return done
