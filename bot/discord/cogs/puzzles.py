"""Puzzles in Discord (extension ``bot.discord.cogs.puzzles``): ``/puzzle [game] [mine]`` gives
the member a puzzle of their own, ephemeral; ``/puzzles privacy`` keeps their games out;
``/leaderboard game:puzzles`` lists the solvers by puzzle rating; the daily post
(:meth:`PuzzlesCog.daily_due`, when the service's scheduler says it is due) shows the day's
puzzle to the whole channel with a live count, and reveals yesterday's.

A puzzle's message holds its board (the match replayed to the decision, drawn by the render
worker; the players named only where the server allows it) and a select menu of its options
(:class:`PuzzleSelect`, persistent: the puzzle id is in its ``custom_id``). Choosing answers
privately: right or wrong, what the choice gave up against the best, the best. Nothing here
searches: the service reads puzzles from the pool mined when analyses ended.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import wording
from bot.discord.catalogue import choices, command_text, reading, text
from bot.discord.components import Persistent
from bot.discord.locales import server_reader
from bot.discord.presenter import board_job
from bot.discord.replies import NO_MENTIONS, display_name, escape_name
from bot.discord.style import style_of
from bot.service import MatchView, Player, ViewsAfterActions
from bot.service.commands import (
    AnswerPuzzle,
    NextPuzzle,
    SetPuzzleMessage,
    SetPuzzleOptOut,
    ShowPuzzle,
)
from bot.service.events import DailyPuzzleDue
from bot.service.model import (
    DailyPuzzle,
    PuzzleResult,
    PuzzleReveal,
    PuzzleStanding,
    PuzzleView,
)
from bot.service.puzzle_seeding import self_play_view

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import MatchService

log = logging.getLogger(__name__)

GameName = Literal["nannon", "backgammon", "checkers"]
REVEAL_LINES = 10  # the ranking's lines in a reveal
TOP_COLOUR = discord.Colour(0x6A1B9A)


class PuzzleSelect(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"tb:pz:(?P<puzzle_id>[0-9]+)",
):
    """A puzzle's options; choosing one answers the puzzle (once per member)."""

    INT_GROUPS = frozenset({"puzzle_id"})

    def __init__(self, puzzle_id: int, options: tuple[str, ...] = ()) -> None:
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"tb:pz:{puzzle_id}",
            placeholder=text("puzzle.choose"),
            options=[discord.SelectOption(label=o[:100], value=o[:100]) for o in options]
            or [discord.SelectOption(label="-", value="-")],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.puzzle_id = puzzle_id


def puzzle_menu(puzzle: PuzzleView) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PuzzleSelect(puzzle.puzzle_id, puzzle.options))
    return view


def question(puzzle: PuzzleView) -> str:
    """What the puzzle asks: the game, whose decision, the dice, the score."""
    dice = puzzle.board.get("dice") or []
    score = puzzle.board.get("score") or [0, 0]
    seat = puzzle.seat
    return text(
        f"puzzle.ask.{puzzle.kind.value}",
        game=wording.game_title(puzzle.game),
        dice="-".join(str(d) for d in dice),
        mine=f"{score[seat]:g}",
        theirs=f"{score[1 - seat]:g}",
        length=puzzle.board.get("length", 0),
    )


def count_text(puzzle: PuzzleView) -> str:
    return text("puzzle.count", tried=puzzle.attempts, solved=puzzle.solved)


def result_text(result: PuzzleResult) -> str:
    said = "puzzle.right" if result.correct else "puzzle.wrong"
    return text(
        said,
        choice=escape_name(result.choice),
        best=escape_name(result.best.move),
        loss=f"{result.loss:.3f}",
        rating=f"{result.rating_after:.0f}",
        change=f"{result.rating_after - result.rating_before:+.0f}",
    )


def solvers_embed(rows: list[PuzzleStanding], first_rank: int = 1) -> discord.Embed:
    """A page of the server's solvers by puzzle rating (``/leaderboard game:puzzles``), its
    first row ranked ``first_rank``."""
    embed = discord.Embed(title=text("puzzle.top.title"), colour=TOP_COLOUR)
    lines = [
        text(
            "puzzle.top.row",
            rank=rank,
            name=escape_name(row.name),
            rating=f"{row.rating:.0f}",
            solved=row.solved,
            tried=row.attempts,
        )
        for rank, row in enumerate(rows, first_rank)
    ]
    embed.description = "\n".join(lines) if lines else text("puzzle.top.empty")
    return embed


def reveal_text(reveal: PuzzleReveal) -> str:
    """The previous daily puzzle's answer: its ranking, the move played in the game (by whom,
    where allowed), who solved it."""
    best = reveal.key.best.equity
    lines = [text("puzzle.reveal.title", puzzle_id=reveal.puzzle.puzzle_id)]
    for rank, option in enumerate(reveal.key.options[:REVEAL_LINES], 1):
        lines.append(
            text(
                "puzzle.reveal.row",
                rank=rank,
                move=escape_name(option.move),
                loss=f"{best - option.equity:.3f}",
            )
        )
    if reveal.player is not None:
        lines.append(
            text(
                "puzzle.reveal.played_by",
                move=escape_name(reveal.played),
                name=escape_name(reveal.player),
            )
        )
    else:
        lines.append(text("puzzle.reveal.played", move=escape_name(reveal.played)))
    solved = reveal.puzzle.solved
    if reveal.solvers:
        names = wording.listed([escape_name(name) for name in reveal.solvers])
        lines.append(text("puzzle.reveal.solvers", names=names, tried=reveal.puzzle.attempts))
    else:
        lines.append(text("puzzle.reveal.nobody", tried=reveal.puzzle.attempts, solved=solved))
    return "\n".join(lines)


class PuzzlesCog(commands.Cog, name="Puzzles"):
    puzzles = app_commands.Group(
        name="puzzles",
        description=command_text("command.puzzles"),
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self._unsubscribe: Callable[[], None] = lambda: None

    @property
    def service(self) -> MatchService:
        return self.bot.service

    async def cog_load(self) -> None:
        self.bot.route_clicks(PuzzleSelect, self.answer)
        self.service.puzzles.start(self.bot.guild_shards)  # what a stop left unmined
        self._unsubscribe = self.service.bus.subscribe(DailyPuzzleDue, self.daily_due)

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(PuzzleSelect)
        self._unsubscribe()

    @app_commands.command(name="puzzle", description=command_text("command.puzzle"))
    @app_commands.guild_only()
    @app_commands.describe(
        game=command_text("command.puzzle.game"), mine=command_text("command.puzzle.mine")
    )
    @app_commands.choices(game=choices("game", get_args(GameName)))
    async def puzzle(
        self,
        interaction: discord.Interaction[Any],
        game: str | None = None,
        mine: bool = False,
    ) -> None:
        assert interaction.guild_id is not None
        puzzle = await self.service.handle(
            NextPuzzle(interaction.guild_id, interaction.user.id, game, mine)
        )
        await interaction.response.defer(ephemeral=True, thinking=True)
        embed, file = await self.card(puzzle, None)
        await interaction.followup.send(
            embed=embed,
            file=file if file is not None else discord.utils.MISSING,
            view=puzzle_menu(puzzle),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    @puzzles.command(name="privacy", description=command_text("command.puzzles.privacy"))
    @app_commands.describe(use_my_games=command_text("command.puzzles.privacy.use_my_games"))
    async def privacy(self, interaction: discord.Interaction[Any], use_my_games: bool) -> None:
        assert interaction.guild_id is not None
        await self.service.handle(
            SetPuzzleOptOut(interaction.guild_id, interaction.user.id, not use_my_games)
        )
        said = "puzzle.privacy.in" if use_my_games else "puzzle.privacy.out"
        await interaction.response.send_message(
            text(said), ephemeral=True, allowed_mentions=NO_MENTIONS
        )

    async def answer(self, item: PuzzleSelect, interaction: discord.Interaction[Any]) -> None:
        """A member's choice: judged privately; on the daily post, its count edited."""
        assert interaction.guild_id is not None
        values = item.item.values
        if not values:
            return
        result = await self.service.handle(
            AnswerPuzzle(
                item.puzzle_id,
                interaction.guild_id,
                interaction.user.id,
                display_name(interaction.user),
                values[0],
            )
        )
        await interaction.response.send_message(
            result_text(result), ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        puzzle = await self.service.handle(ShowPuzzle(item.puzzle_id, interaction.guild_id))
        message = interaction.message
        if message is not None and message.id == puzzle.post_message_id:
            try:
                await message.edit(content=count_text(puzzle), allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as exc:
                log.info("puzzle %s: the count could not be edited: %s", puzzle.puzzle_id, exc)

    # --- the daily post -------------------------------------------------------------------------

    async def daily_due(self, event: DailyPuzzleDue) -> None:
        """The service's scheduler claimed a server's daily puzzle: post it (and reveal the
        previous one). Posted over REST, so any process posts any server's."""
        try:
            await self._post(event.daily)
        except Exception:
            log.exception("guild %s: the daily puzzle failed", event.daily.puzzle.guild_id)

    async def _post(self, daily: DailyPuzzle) -> None:
        """The daily post, in the server's language (everyone reads it)."""
        with reading(await server_reader(self.bot, daily.puzzle.guild_id)):
            await self._post_daily(daily)

    async def _post_daily(self, daily: DailyPuzzle) -> None:
        channel = self.bot.get_partial_messageable(daily.channel_id, guild_id=daily.puzzle.guild_id)
        previous = daily.previous
        if previous is not None:
            await channel.send(reveal_text(previous), allowed_mentions=NO_MENTIONS)
            old = previous.puzzle
            if old.post_channel_id is not None and old.post_message_id is not None:
                try:
                    await channel.get_partial_message(old.post_message_id).edit(
                        content=count_text(old), view=None
                    )
                except discord.HTTPException as exc:
                    log.info("puzzle %s: its post could not be closed: %s", old.puzzle_id, exc)
        puzzle = daily.puzzle
        embed, file = await self.card(puzzle, daily.names)
        embed.title = text("puzzle.daily_title", title=embed.title or "")
        sent = await channel.send(
            count_text(puzzle),
            embed=embed,
            file=file if file is not None else discord.utils.MISSING,
            view=puzzle_menu(puzzle),
            allowed_mentions=NO_MENTIONS,
        )
        await self.service.handle(SetPuzzleMessage(puzzle.puzzle_id, daily.channel_id, sent.id))

    # --- the card -------------------------------------------------------------------------------

    async def card(
        self, puzzle: PuzzleView, names: tuple[str, str] | None
    ) -> tuple[discord.Embed, discord.File | None]:
        """The puzzle's embed and board picture (none if the board can't be drawn)."""
        embed = discord.Embed(
            title=text(
                "puzzle.title",
                puzzle_id=puzzle.puzzle_id,
                game=wording.game_title(puzzle.game),
                rating=f"{puzzle.rating:.0f}",
            ),
            description=question(puzzle),
            colour=style_of(puzzle.game).colour,
        )
        try:
            if puzzle.match_id is None:  # self-play: its game is in the puzzle
                view = await asyncio.to_thread(self_play_view, puzzle)
            else:
                asked = ViewsAfterActions(puzzle.match_id, puzzle.guild_id, [puzzle.action_index])
                [view] = await self.service.handle(asked)
            png, alt = await self.bot.renderer.board(*board_job(_named(view, puzzle, names)))
        except Exception:
            log.exception("puzzle %s: the board could not be drawn", puzzle.puzzle_id)
            return embed, None
        embed.set_image(url="attachment://puzzle.png")
        file = discord.File(io.BytesIO(png), filename="puzzle.png", description=alt[:1024])
        return embed, file


def _named(view: MatchView, puzzle: PuzzleView, names: tuple[str, str] | None) -> MatchView:
    """The board's players: their names where allowed, else "You" and "Opponent"."""
    if names is not None:
        shown = names
    else:
        mover, other = text("puzzle.seat.mover"), text("puzzle.seat.opponent")
        shown = (mover, other) if puzzle.seat == 0 else (other, mover)
    players = (Player(0, shown[0]), Player(0, shown[1]))
    return dataclasses.replace(view, players=players, last_move=None)


async def setup(bot: TableBot) -> None:
    await bot.add_cog(PuzzlesCog(bot))
