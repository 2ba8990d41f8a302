"""Informational commands: /games, /leaderboard, /stats, /history, /export, /verify, /rules.

They only read. Every answer escapes user names and pings nobody; every refusal comes from the
service as a GameError and is shown as an ephemeral reply by the command tree's one error path
(``TableTree.on_error``).
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal, get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import wording
from bot.discord.catalogue import choices, command_text, number, plural_key, reader, text
from bot.discord.cogs.puzzles import solvers_embed
from bot.discord.components import PageButton, pager
from bot.discord.locales import server_reader
from bot.discord.options import RowId
from bot.discord.replies import NO_MENTIONS, escape_name
from bot.discord.style import style_of
from bot.service.commands import (
    ActiveMatches,
    Export,
    History,
    Leaderboard,
    LeaderboardPlace,
    PuzzleLeaderboard,
    PuzzlePlace,
    PuzzleStats,
    Stats,
    VerifyMatch,
    ViewMatch,
)
from engines.base import GameKind, ResultKind
from engines.spec import spec_of
from render.common import format_score

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import HistoryEntry, LeaderboardRow, MatchService, MatchView, StatLine
    from bot.service.model import BoardPlace, PuzzleStanding

log = logging.getLogger(__name__)

GameName = Literal["nannon", "backgammon", "checkers"]
PUZZLES = "puzzles"  # /leaderboard's board of puzzle solvers
EMBED_COLOUR = discord.Colour(0x2E7D32)


def _num(value: float) -> str:
    """12 rather than 12.0, 1½ as a match score shows it."""
    return format_score(value)


def match_link(view: MatchView) -> str:
    """A jump link to the board message, or the match's thread, or its channel."""
    base = f"https://discord.com/channels/{view.guild_id}"  # not for members: a link
    where = view.thread_id or view.channel_id
    if view.board_message_id is not None:
        return f"{base}/{where}/{view.board_message_id}"
    return f"{base}/{where}"


def _length(length: int) -> str:
    """A listed match's length: "money" or "to 5"."""
    return text("list.money") if length == 0 else text("length.to", length=length)


def _result(result: str) -> str:
    """A match's result for its player: the service says "won", "lost", "drawn" or "active"."""
    return text(f"history.result.{result}")


def _record(played_won: int, lost: int, drawn: int) -> str:
    return f"{played_won}-{lost}" + (f"-{drawn}" if drawn else "")


# --- pages ----------------------------------------------------------------------------------

# A list longer than one message is shown in pages (components.pager: Previous and Next): at
# most PAGE_LINES lines, and no more characters than Discord takes (2,000 in a message's
# content, 4,096 in an embed's description), with room left for the header and the footer.
PAGE_LINES = 10
CONTENT_ROOM = 1800
DESCRIPTION_ROOM = 3900
# How far back /history and the leaderboards read (the service's own cap is 100).
LIST_DEPTH = 100


def paginate(lines: list[str], room: int, most: int = PAGE_LINES) -> list[list[str]]:
    """``lines`` in pages of at most ``most`` lines and ``room`` characters (newlines
    included); a line longer than ``room`` is cut. At least one page, maybe empty."""
    pages: list[list[str]] = []
    current: list[str] = []
    size = 0
    for full in lines:
        line = full[:room]
        if current and (len(current) >= most or size + 1 + len(line) > room):
            pages.append(current)
            current, size = [], 0
        size += len(line) + (1 if current else 0)
        current.append(line)
    pages.append(current)
    return pages if pages[0] else [[]]


def page_of(pages: list[list[str]], page: int) -> tuple[int, list[str]]:
    """The page asked for, kept within the list (which may have shrunk since)."""
    page = max(0, min(page, len(pages) - 1))
    return page, pages[page]


def page_count(size: int) -> int:
    """The pages a board of ``size`` ranks takes (one, maybe empty, at least)."""
    return max(1, -(-size // PAGE_LINES))


def place_text(place: BoardPlace) -> str:
    """The line saying where the member who asked stands on a board ("You are #12 of 340")."""
    if place.rank is None:
        return text("leaderboard.not_placed")
    return text("leaderboard.your_place", rank=place.rank, size=place.size)


def board_footer(footer: str, page: int, pages: int) -> str:
    return f"{footer} · {wording.page_of(page, pages)}" if pages > 1 else footer


def format_leaderboard(
    game: GameKind, rows: list[LeaderboardRow], points: int | None, page: int = 0, pages: int = 1
) -> tuple[discord.Embed, discord.ui.View | None]:
    """``page`` of ``pages`` of the leaderboard (``rows``, ranked already) and its Previous,
    Next and My place (None when the board fits one page)."""
    title = text("leaderboard.title", game=wording.game_title(game))
    if points is not None:
        title += (
            text("leaderboard.money")
            if points == 0
            else text("leaderboard.matches_to", points=points)
        )
    embed = discord.Embed(title=title, colour=EMBED_COLOUR)
    if not rows:
        embed.description = text("leaderboard.empty")
        return embed, None
    lines = []
    for row in rows:
        lines.append(
            text(
                "leaderboard.row",
                rank=row.rank,
                name=escape_name(row.name),
                rating=f"{row.rating:.0f}",
                record=_record(row.won, row.lost, row.drawn),
                points=f"{_num(row.points_won)}-{_num(row.points_lost)}",
            )
        )
    embed.description = "\n".join(lines)[:DESCRIPTION_ROOM]
    embed.set_footer(text=board_footer(text("leaderboard.footer"), page, pages))
    arg = f"{game.value}.{'all' if points is None else points}"
    return embed, pager("lb", arg, page, pages, find_me=True)


def counters_text(line: StatLine) -> str:
    """The game's result counters, won-lost: "Gammons 2-1, backgammons 0-1", "NANNONs 3-0,
    shouted 2"; empty for a game without (checkers)."""
    parts = []
    for kind, counter in spec_of(line.game).result_counters:
        counted = text(
            "stats.counter",
            counter=text(f"stats.counter.{kind.name.lower()}"),
            won=getattr(line, f"{counter}_for"),
            lost=getattr(line, f"{counter}_against"),
        )
        if kind is ResultKind.NANNON:  # the result players shout (presenter.post_result)
            counted += text("stats.shouted", count=line.nannons_shouted)
        parts.append(counted)
    joined = wording.listed(parts)
    return joined[:1].upper() + joined[1:]


def format_stats(
    name: str, lines: list[StatLine], puzzles: PuzzleStanding | None = None
) -> discord.Embed:
    embed = discord.Embed(title=text("stats.title", name=escape_name(name)), colour=EMBED_COLOUR)
    played = [
        line for line in lines if line.played or line.experience or line.vs_robot or line.analysed
    ]
    solver = puzzles is not None and puzzles.attempts > 0
    if not played and not solver:
        embed.description = text("stats.empty")
        return embed
    if played and played[0].tournaments_played:  # the server's tournaments, of every game
        embed.description = text(
            "stats.tournaments", played=played[0].tournaments_played, won=played[0].tournaments_won
        )
    for line in played:
        parts = [
            text("stats.rating", rating=f"{line.rating:.0f}", experience=line.experience),
            text(
                "stats.matches",
                played=line.played,
                record=_record(line.won, line.lost, line.drawn),
            ),
            text("stats.points", points=f"{_num(line.points_won)}-{_num(line.points_lost)}"),
        ]
        if line.vs_robot:
            parts.append(wording.robot_record_text(line.vs_robot))
        counters = counters_text(line)
        if counters:
            parts.append(counters)
        if line.streak:
            streak = "stats.streak.wins" if line.streak > 0 else "stats.streak.losses"
            run = abs(line.streak)
            parts.append(text(plural_key(streak, run), count=run))
        analysed = wording.analysis_stats_text(line.analysed, line.error_rate, line.pr)
        if analysed:
            parts.append(analysed)
        embed.add_field(name=wording.game_title(line.game), value="\n".join(parts), inline=False)
    if puzzles is not None and solver:
        solved = text(
            "stats.puzzles.line",
            rating=f"{puzzles.rating:.0f}",
            solved=puzzles.solved,
            tried=puzzles.attempts,
        )
        embed.add_field(name=text("stats.puzzles"), value=solved, inline=False)
    return embed


def format_history(
    name: str, entries: list[HistoryEntry], user_id: int = 0, page: int = 0
) -> tuple[discord.Embed, discord.ui.View | None]:
    """A page of ``user_id``'s matches (named ``name``) and its Previous and Next."""
    return history_page(text("history.title", name=escape_name(name)), entries, user_id, page)


def history_page(
    title: str, entries: list[HistoryEntry], user_id: int, page: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    embed = discord.Embed(title=title, colour=EMBED_COLOUR)
    if not entries:
        embed.description = text("history.empty")
        return embed, None
    lines = []
    for entry in entries:
        length = _length(entry.length)
        change = ""
        if entry.rating_change is not None:
            change = f" ({number(entry.rating_change, '+.1f')})"
        when = int(entry.finished_at or entry.created_at)
        lines.append(
            text(
                "history.row",
                match_id=entry.match_id,
                game=wording.game_title(entry.game),
                length=length,
                name=escape_name(entry.opponent.name),
                result=_result(entry.result),
                score=f"{_num(entry.score[0])}-{_num(entry.score[1])}",
                change=change,
                when=when,
            )
        )
    pages = paginate(lines, DESCRIPTION_ROOM)
    page, shown = page_of(pages, page)
    embed.description = "\n".join(shown)
    if len(pages) > 1:
        embed.set_footer(text=wording.page_of(page, len(pages)))
    return embed, pager("history", str(user_id), page, len(pages))


def format_games(
    views: list[MatchView], user_id: int, page: int = 0
) -> tuple[str, discord.ui.View | None]:
    """A page of the user's active matches, with links, and its Previous and Next."""
    if not views:
        return text("games.empty"), None
    lines = []
    for view in views:
        seat = view.seat_of(user_id)
        other = view.players[1 - seat] if seat is not None else view.players[1]
        length = _length(view.length)
        mine = seat is not None and view.actor in (seat, None)
        turn = text("games.your_turn") if mine else ""
        score = (
            f"{_num(view.score[seat])}-{_num(view.score[1 - seat])}"
            if seat is not None
            else f"{_num(view.score[0])}-{_num(view.score[1])}"
        )
        lines.append(
            text(
                "games.row",
                match_id=view.match_id,
                game=wording.game_title(view.kind),
                length=length,
                name=escape_name(other.name),
                score=score,
                turn=turn,
                link=match_link(view),
            )
        )
    pages = paginate(lines, CONTENT_ROOM)
    page, shown = page_of(pages, page)
    listing = "\n".join([text("games.title"), *shown])
    if len(pages) > 1:
        listing += f"\n{wording.page_of(page, len(pages))}"
    return listing, pager("games", str(user_id), page, len(pages))


class InfoCog(commands.Cog, name="Info"):
    """Read-only commands about matches, players and rules."""

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.route_clicks(PageButton, self.page_button)

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(PageButton)

    @property
    def service(self) -> MatchService:
        return self.bot.service

    async def page_button(self, item: PageButton, interaction: discord.Interaction[Any]) -> None:
        """Previous or Next under a list: the list read again, the message shows that page."""
        guild_id = interaction.guild_id
        assert guild_id is not None
        if item.kind == "games":
            views = await self.service.handle(ActiveMatches(guild_id, interaction.user.id))
            listing, pages = format_games(views, interaction.user.id, item.page)
            await interaction.response.edit_message(
                content=listing, view=pages, allowed_mentions=NO_MENTIONS
            )
            return
        if item.kind == "history":
            user_id = int(item.arg)
            entries = await self.service.handle(History(guild_id, user_id, LIST_DEPTH))
            shown = interaction.message.embeds if interaction.message is not None else []
            title = (shown[0].title if shown else None) or text("history.default_title")
            embed, pages = history_page(title, entries, user_id, item.page)
        elif item.kind == "lbme":  # My place: the clicker's page, for them alone
            mine = await self.board_page(guild_id, item.arg, None, interaction.user.id)
            embed, pages = mine
            await interaction.response.send_message(
                embed=embed,
                view=pages if pages is not None else discord.utils.MISSING,
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        else:
            embed, pages = await self.board_page(guild_id, item.arg, item.page)
        await interaction.response.edit_message(
            embed=embed, view=pages, allowed_mentions=NO_MENTIONS
        )

    async def board_page(
        self, guild_id: int, board: str, page: int | None, user_id: int = 0
    ) -> tuple[discord.Embed, discord.ui.View | None]:
        """A page of a leaderboard (``board``: "puzzles", "nannon.all", "nannon.5"), read from
        the store one page at a time, to the last rank; with ``page`` None, the page where
        ``user_id`` stands, saying so (the first page when they are not on the board)."""
        if board == PUZZLES:
            place = await self.service.handle(PuzzlePlace(guild_id, user_id))
        else:
            game, length = board.split(".", 1)
            kind = GameKind(game)
            points = None if length == "all" else int(length)
            place = await self.service.handle(LeaderboardPlace(guild_id, kind, points, user_id))
        pages = page_count(place.size)
        if page is None:
            page = 0 if place.rank is None else (place.rank - 1) // PAGE_LINES
        page = max(0, min(page, pages - 1))  # the board may have shrunk since
        offset = page * PAGE_LINES
        if board == PUZZLES:
            solvers = await self.service.handle(PuzzleLeaderboard(guild_id, PAGE_LINES, offset))
            embed = solvers_embed(solvers, offset + 1)
            if pages > 1:
                embed.set_footer(text=wording.page_of(page, pages))
            view = pager("lb", PUZZLES, page, pages, find_me=True)
        else:
            rows = await self.service.handle(
                Leaderboard(guild_id, kind, points, PAGE_LINES, offset)
            )
            embed, view = format_leaderboard(kind, rows, points, page, pages)
        if user_id:
            embed.description = f"{place_text(place)}\n\n{embed.description or ''}"
        return embed, view

    async def _match_id_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """The user's recent matches whose id starts with what was typed."""
        if interaction.guild_id is None:
            return []
        typed = "".join(ch for ch in str(current) if ch.isdigit())[:20]
        try:
            entries = await self.service.handle(
                History(interaction.guild_id, interaction.user.id, 25)
            )
        except Exception:
            log.exception("autocomplete of match ids failed")
            return []
        choices = []
        for entry in entries:
            if not str(entry.match_id).startswith(typed):
                continue
            label = text(
                "history.choice",
                match_id=entry.match_id,
                game=wording.game_title(entry.game),
                name=entry.opponent.name,
                result=_result(entry.result),
            )
            choices.append(app_commands.Choice(name=label[:100], value=entry.match_id))
        return choices[:25]

    @app_commands.command(name="games", description=command_text("command.games"))
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        views = await self.service.handle(ActiveMatches(interaction.guild_id, interaction.user.id))
        listing, pages = format_games(views, interaction.user.id)
        await interaction.response.send_message(
            listing,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
            suppress_embeds=True,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="leaderboard", description=command_text("command.leaderboard"))
    @app_commands.guild_only()
    @app_commands.describe(
        game=command_text("command.leaderboard.game"),
        points=command_text("command.leaderboard.points"),
    )
    @app_commands.choices(game=choices("game", (*get_args(GameName), PUZZLES)))
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        points: app_commands.Range[int, 0, 64] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        reader.set(await server_reader(interaction.client, interaction.guild_id))  # public
        # The puzzle solvers (bot.discord.cogs.puzzles) or a game's players, a page at a time.
        board = PUZZLES if game == PUZZLES else f"{game}.{'all' if points is None else points}"
        embed, pages = await self.board_page(interaction.guild_id, board, 0)
        await interaction.response.send_message(
            embed=embed,
            allowed_mentions=NO_MENTIONS,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="stats", description=command_text("command.stats"))
    @app_commands.guild_only()
    @app_commands.describe(
        user=command_text("command.stats.user"), game=command_text("command.stats.game")
    )
    @app_commands.choices(game=choices("game", get_args(GameName)))
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.Member | discord.User | None = None,
        game: str | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        who = user or interaction.user
        kinds = [GameKind(game)] if game else list(GameKind)
        lines = [await self.service.handle(Stats(interaction.guild_id, who.id, k)) for k in kinds]
        puzzles = await self.service.handle(PuzzleStats(interaction.guild_id, who.id))
        await interaction.response.send_message(
            embed=format_stats(who.display_name, lines, puzzles),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    @app_commands.command(name="history", description=command_text("command.history"))
    @app_commands.guild_only()
    @app_commands.describe(user=command_text("command.history.user"))
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.Member | discord.User | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        who = user or interaction.user
        entries = await self.service.handle(History(interaction.guild_id, who.id, LIST_DEPTH))
        embed, pages = format_history(who.display_name, entries, who.id)
        await interaction.response.send_message(
            embed=embed,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="export", description=command_text("command.export"))
    @app_commands.guild_only()
    @app_commands.describe(match=command_text("command.export.match"))
    async def export(self, interaction: discord.Interaction[Any], match: RowId) -> None:
        assert interaction.guild_id is not None
        # Refuse unknown ids before deferring: after a public defer, the refusal would be
        # public too. Rebuilding from the event log may take a moment on a long match.
        await self.service.handle(ViewMatch(match, interaction.guild_id))
        await interaction.response.defer(thinking=True)
        exported = await self.service.handle(Export(match, interaction.guild_id))
        data = io.BytesIO(exported.text.encode("utf-8"))
        await interaction.followup.send(
            text("export.file", match_id=match, filename=exported.filename),
            file=discord.File(data, filename=exported.filename),
            allowed_mentions=NO_MENTIONS,
        )

    @app_commands.command(name="verify", description=command_text("command.verify"))
    @app_commands.guild_only()
    @app_commands.describe(match=command_text("command.verify.match"))
    async def verify(self, interaction: discord.Interaction[Any], match: RowId) -> None:
        assert interaction.guild_id is not None
        await self.service.handle(ViewMatch(match, interaction.guild_id))  # as in /export
        await interaction.response.defer(thinking=True)
        report = await self.service.handle(VerifyMatch(match, interaction.guild_id))
        reader.set(await server_reader(interaction.client, interaction.guild_id))  # public
        if report.ok is None:
            colour, verdict = discord.Colour.light_grey(), text("verify.verdict.secret")
        elif report.ok:
            colour, verdict = discord.Colour.green(), text("verify.verdict.ok")
        else:
            colour, verdict = discord.Colour.red(), text("verify.verdict.mismatch")
        embed = discord.Embed(
            title=text("verify.title", match_id=report.match_id, verdict=verdict),
            description=wording.verify_text(report),
            colour=colour,
        )
        embed.add_field(name=text("verify.commitment"), value=f"`{report.commitment}`")
        embed.add_field(
            name=text("verify.seed"),
            value=f"`{report.seed}`" if report.seed else text("verify.seed_secret"),
        )
        embed.add_field(name=text("verify.dice_rolled"), value=str(len(report.dice)))
        await interaction.followup.send(embed=embed, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="rules", description=command_text("command.rules"))
    @app_commands.guild_only()
    @app_commands.describe(game=command_text("command.rules.game"))
    @app_commands.choices(game=choices("game", get_args(GameName)))
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        kind = GameKind(game)
        embed = discord.Embed(description=text(style_of(kind).rules), colour=EMBED_COLOUR)
        await interaction.response.send_message(
            embed=embed, ephemeral=True, allowed_mentions=NO_MENTIONS
        )

    @export.autocomplete("match")
    async def _export_match(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._match_id_choices(interaction, current)

    @verify.autocomplete("match")
    async def _verify_match(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._match_id_choices(interaction, current)


async def setup(bot: TableBot) -> None:
    await bot.add_cog(InfoCog(bot))
