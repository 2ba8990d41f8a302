"""Informational commands: /games, /leaderboard, /stats, /history, /export, /verify, /rules.

They only read. Every answer escapes user names and pings nobody; every refusal comes from the
service as a GameError and is shown as an ephemeral reply by the command tree's one error path
(``TableTree.on_error``).
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import wording
from bot.discord.components import PageButton, pager
from bot.discord.replies import NO_MENTIONS, escape_name
from bot.discord.style import style_of
from engines.base import GameKind, ResultKind
from engines.spec import spec_of

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import HistoryEntry, LeaderboardRow, MatchService, MatchView, StatLine

log = logging.getLogger(__name__)

GameName = Literal["nannon", "backgammon", "checkers"]
EMBED_COLOUR = discord.Colour(0x2E7D32)
# Discord's integer options are limited to 2**53; a match id beyond that can't exist anyway.
MatchId = app_commands.Range[int, 1, 2**53 - 1]
# The /stats words for a game's result counters (engines.spec: GameSpec.result_counters).
COUNTER_WORDS = {
    ResultKind.GAMMON: "gammons",
    ResultKind.BACKGAMMON: "backgammons",
    ResultKind.NANNON: "NANNONs",
}


def _num(value: float) -> str:
    """12 rather than 12.0, 1.5 as is."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def match_link(view: MatchView) -> str:
    """A jump link to the board message, or the match's thread, or its channel."""
    base = f"https://discord.com/channels/{view.guild_id}"
    where = view.thread_id or view.channel_id
    if view.board_message_id is not None:
        return f"{base}/{where}/{view.board_message_id}"
    return f"{base}/{where}"


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


def format_leaderboard(
    game: GameKind, rows: list[LeaderboardRow], points: int | None, page: int = 0
) -> tuple[discord.Embed, discord.ui.View | None]:
    """A page of the leaderboard and its Previous and Next (None when it fits one page)."""
    title = f"{spec_of(game).title} leaderboard"
    if points is not None:
        title += " · money games" if points == 0 else f" · matches to {points}"
    embed = discord.Embed(title=title, colour=EMBED_COLOUR)
    if not rows:
        embed.description = "Nobody has finished a match here yet."
        return embed, None
    lines = []
    for row in rows:
        lines.append(
            f"**{row.rank}.** {escape_name(row.name)} · {row.rating:.0f} · "
            f"{_record(row.won, row.lost, row.drawn)} · "
            f"{_num(row.points_won)}-{_num(row.points_lost)} pts"
        )
    pages = paginate(lines, DESCRIPTION_ROOM)
    page, shown = page_of(pages, page)
    embed.description = "\n".join(shown)
    footer = "rank · name · rating · W-L · points won-lost"
    if len(pages) > 1:
        footer += f" · {wording.page_of(page, len(pages))}"
    embed.set_footer(text=footer)
    arg = f"{game.value}.{'all' if points is None else points}"
    return embed, pager("lb", arg, page, len(pages))


def counters_text(line: StatLine) -> str:
    """The game's result counters, won-lost: "Gammons 2-1, backgammons 0-1", "NANNONs 3-0,
    shouted 2"; empty for a game without (checkers)."""
    parts = []
    for kind, counter in spec_of(line.game).result_counters:
        text = f"{COUNTER_WORDS[kind]} {getattr(line, f'{counter}_for')}-"
        text += str(getattr(line, f"{counter}_against"))
        if kind is ResultKind.NANNON:  # the result players shout (presenter.post_result)
            text += f", shouted {line.nannons_shouted}"
        parts.append(text)
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def format_stats(name: str, lines: list[StatLine]) -> discord.Embed:
    embed = discord.Embed(title=f"Stats of {escape_name(name)}", colour=EMBED_COLOUR)
    played = [
        line for line in lines if line.played or line.experience or line.vs_robot or line.analysed
    ]
    if not played:
        embed.description = "No finished matches here yet."
        return embed
    for line in played:
        parts = [
            f"Rating {line.rating:.0f} ({line.experience} exp)",
            f"Matches {line.played}: {_record(line.won, line.lost, line.drawn)}",
            f"Points {_num(line.points_won)}-{_num(line.points_lost)}",
        ]
        if line.vs_robot:
            parts.append(wording.robot_record_text(line.vs_robot))
        counters = counters_text(line)
        if counters:
            parts.append(counters)
        if line.streak:
            word = "wins" if line.streak > 0 else "losses"
            parts.append(f"Streak: {abs(line.streak)} {word}")
        analysed = wording.analysis_stats_text(line.analysed, line.error_rate, line.pr)
        if analysed:
            parts.append(analysed)
        embed.add_field(name=spec_of(line.game).title, value="\n".join(parts), inline=False)
    return embed


def format_history(
    name: str, entries: list[HistoryEntry], user_id: int = 0, page: int = 0
) -> tuple[discord.Embed, discord.ui.View | None]:
    """A page of ``user_id``'s matches (named ``name``) and its Previous and Next."""
    return history_page(f"Recent matches of {escape_name(name)}", entries, user_id, page)


def history_page(
    title: str, entries: list[HistoryEntry], user_id: int, page: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    embed = discord.Embed(title=title, colour=EMBED_COLOUR)
    if not entries:
        embed.description = "No matches here yet."
        return embed, None
    lines = []
    for entry in entries:
        length = "money" if entry.length == 0 else f"to {entry.length}"
        change = ""
        if entry.rating_change is not None:
            change = f" ({entry.rating_change:+.1f})"
        when = int(entry.finished_at or entry.created_at)
        lines.append(
            f"`#{entry.match_id}` {spec_of(entry.game).title} {length} vs "
            f"{escape_name(entry.opponent.name)}: **{entry.result}** "
            f"{_num(entry.score[0])}-{_num(entry.score[1])}{change} <t:{when}:R>"
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
        return "You have no active matches here. Start one with /challenge.", None
    lines = []
    for view in views:
        seat = view.seat_of(user_id)
        other = view.players[1 - seat] if seat is not None else view.players[1]
        length = "money" if view.length == 0 else f"to {view.length}"
        mine = seat is not None and view.actor in (seat, None)
        turn = " · **your turn**" if mine else ""
        score = (
            f"{_num(view.score[seat])}-{_num(view.score[1 - seat])}"
            if seat is not None
            else f"{_num(view.score[0])}-{_num(view.score[1])}"
        )
        lines.append(
            f"- `#{view.match_id}` {spec_of(view.kind).title} {length} vs "
            f"{escape_name(other.name)}, {score}{turn}: {match_link(view)}"
        )
    pages = paginate(lines, CONTENT_ROOM)
    page, shown = page_of(pages, page)
    text = "\n".join(["Your active matches:", *shown])
    if len(pages) > 1:
        text += f"\n{wording.page_of(page, len(pages))}"
    return text, pager("games", str(user_id), page, len(pages))


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
            views = await self.service.active_matches(guild_id, interaction.user.id)
            text, pages = format_games(views, interaction.user.id, item.page)
            await interaction.response.edit_message(
                content=text, view=pages, allowed_mentions=NO_MENTIONS
            )
            return
        if item.kind == "history":
            user_id = int(item.arg)
            entries = await self.service.history(guild_id, user_id, LIST_DEPTH)
            shown = interaction.message.embeds if interaction.message is not None else []
            title = (shown[0].title if shown else None) or "Recent matches"
            embed, pages = history_page(title, entries, user_id, item.page)
        else:
            game, length = item.arg.split(".", 1)
            kind = GameKind(game)
            points = None if length == "all" else int(length)
            rows = await self.service.leaderboard(guild_id, kind, points, LIST_DEPTH)
            embed, pages = format_leaderboard(kind, rows, points, item.page)
        await interaction.response.edit_message(
            embed=embed, view=pages, allowed_mentions=NO_MENTIONS
        )

    async def _match_id_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """The user's recent matches whose id starts with what was typed."""
        if interaction.guild_id is None:
            return []
        typed = "".join(ch for ch in str(current) if ch.isdigit())[:20]
        try:
            entries = await self.service.history(interaction.guild_id, interaction.user.id, 25)
        except Exception:
            log.exception("autocomplete of match ids failed")
            return []
        choices = []
        for entry in entries:
            if not str(entry.match_id).startswith(typed):
                continue
            label = (
                f"#{entry.match_id} {spec_of(entry.game).title} vs {entry.opponent.name} "
                f"({entry.result})"
            )
            choices.append(app_commands.Choice(name=label[:100], value=entry.match_id))
        return choices[:25]

    @app_commands.command(name="games", description="Your active matches here, with links.")
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        views = await self.service.active_matches(interaction.guild_id, interaction.user.id)
        text, pages = format_games(views, interaction.user.id)
        await interaction.response.send_message(
            text,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
            suppress_embeds=True,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="leaderboard", description="The server's best players of a game.")
    @app_commands.guild_only()
    @app_commands.describe(
        game="Which game", points="Only matches of this length (0 = backgammon money games)"
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: GameName,
        points: app_commands.Range[int, 0, 64] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        kind = GameKind(game)
        rows = await self.service.leaderboard(interaction.guild_id, kind, points, LIST_DEPTH)
        embed, pages = format_leaderboard(kind, rows, points)
        await interaction.response.send_message(
            embed=embed,
            allowed_mentions=NO_MENTIONS,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="stats", description="A player's record, rating and NANNONs.")
    @app_commands.guild_only()
    @app_commands.describe(user="Whose stats (you by default)", game="One game only")
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.Member | discord.User | None = None,
        game: GameName | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        who = user or interaction.user
        kinds = [GameKind(game)] if game else list(GameKind)
        lines = [await self.service.stats(interaction.guild_id, who.id, k) for k in kinds]
        await interaction.response.send_message(
            embed=format_stats(who.display_name, lines),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    @app_commands.command(name="history", description="A player's recent matches here.")
    @app_commands.guild_only()
    @app_commands.describe(user="Whose history (you by default)")
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.Member | discord.User | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        who = user or interaction.user
        entries = await self.service.history(interaction.guild_id, who.id, LIST_DEPTH)
        embed, pages = format_history(who.display_name, entries, who.id)
        await interaction.response.send_message(
            embed=embed,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
            view=pages if pages is not None else discord.utils.MISSING,
        )

    @app_commands.command(name="export", description="Download a match as .mat or .pdn.")
    @app_commands.guild_only()
    @app_commands.describe(match="The match number (see /history)")
    async def export(self, interaction: discord.Interaction[Any], match: MatchId) -> None:
        assert interaction.guild_id is not None
        # Refuse unknown ids before deferring: after a public defer, the refusal would be
        # public too. Rebuilding from the event log may take a moment on a long match.
        await self.service.get_view(match, interaction.guild_id)
        await interaction.response.defer(thinking=True)
        exported = await self.service.export(match, interaction.guild_id)
        data = io.BytesIO(exported.text.encode("utf-8"))
        await interaction.followup.send(
            f"Match #{match}: `{exported.filename}`",
            file=discord.File(data, filename=exported.filename),
            allowed_mentions=NO_MENTIONS,
        )

    @app_commands.command(name="verify", description="Check a match's dice against its seed.")
    @app_commands.guild_only()
    @app_commands.describe(match="The match number (see /history)")
    async def verify(self, interaction: discord.Interaction[Any], match: MatchId) -> None:
        assert interaction.guild_id is not None
        await self.service.get_view(match, interaction.guild_id)  # as in /export
        await interaction.response.defer(thinking=True)
        report = await self.service.verify_match(match, interaction.guild_id)
        if report.ok is None:
            colour, verdict = discord.Colour.light_grey(), "Seed still secret"
        elif report.ok:
            colour, verdict = discord.Colour.green(), "Every roll checks out ✅"
        else:
            colour, verdict = discord.Colour.red(), "The rolls do NOT match the seed ❌"
        embed = discord.Embed(
            title=f"Dice of match #{report.match_id}: {verdict}",
            description=wording.verify_text(report),
            colour=colour,
        )
        embed.add_field(name="Commitment (SHA-256)", value=f"`{report.commitment}`")
        embed.add_field(
            name="Seed", value=f"`{report.seed}`" if report.seed else "revealed at the end"
        )
        embed.add_field(name="Dice rolled", value=str(len(report.dice)))
        await interaction.followup.send(embed=embed, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="rules", description="A short summary of a game's rules.")
    @app_commands.guild_only()
    @app_commands.describe(game="Which game")
    async def rules(self, interaction: discord.Interaction[Any], game: GameName) -> None:
        kind = GameKind(game)
        embed = discord.Embed(description=style_of(kind).rules, colour=EMBED_COLOUR)
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
