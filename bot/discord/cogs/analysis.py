"""Post-match analysis in Discord: ``/analyse match:<id>``, and the presenter of an analysis'
progress and report.

The service queues and runs analyses (:class:`bot.service.AnalysisQueue`, one at a time; a
match's end queues one where the server wants it) and tells this cog of each step. In the match's
thread (or channel) one message says "queued", then "Analysing… game 3 of 9", edited in place
(posted and edited through the latest member's interaction in the match while its token lives,
else with the bot token), and at the end is edited into the report itself: each player's
figures over the winning-chance chart, and the three worst mistakes, each with its card (the
board it was made on, replayed to that point, with the move played, the best move and the equity
lost), all drawn by the render worker, every picture with its alt text. The message's id is
kept with the analysis, so after a restart the same message is edited on.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import delivery, presenter, wording
from bot.discord.catalogue import DEFAULT_LOCALE, command_text, reader, reading, text
from bot.discord.drawn import board_words, card_words, chart_words, embed_alt
from bot.discord.locales import server_reader
from bot.discord.replies import NO_MENTIONS, escape_name, inert_text
from bot.discord.style import style_of
from bot.service import (
    AnalysisView,
    MatchView,
    RequestAnalysis,
    SetAnalysisMessage,
    ViewsAfterActions,
)
from bot.service.events import (
    AnalysisEvent,
    AnalysisFailed,
    AnalysisFinished,
    AnalysisProgressed,
    AnalysisQueued,
)
from engines.analysis import Decision, MatchAnalysis

if TYPE_CHECKING:
    from bot.discord.app import TableBot

log = logging.getLogger(__name__)

WORST = 3  # the mistakes shown with their boards


class AnalysisCog(commands.Cog, name="Analysis"):
    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self.service = bot.service
        # Per match: its message's id as last posted (a step's view may predate the post), and
        # a lock, so the steps of one analysis show in order.
        self._messages: dict[int, int] = {}
        # Per match: the webhook that posted its message (a member's interaction's) and until
        # when (the bot's clock) it may edit it.
        self._hooks: dict[int, tuple[discord.Webhook, float]] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    async def cog_load(self) -> None:
        self.service.analyses.listeners.append(self.on_analysis)

    async def cog_unload(self) -> None:
        listeners = self.service.analyses.listeners
        if self.on_analysis in listeners:
            listeners.remove(self.on_analysis)

    @app_commands.command(name="analyse", description=command_text("command.analyse"))
    @app_commands.describe(match=command_text("command.analyse.match"))
    @app_commands.guild_only()
    async def analyse(self, interaction: discord.Interaction[TableBot], match: int) -> None:
        view = await self.service.handle(
            RequestAnalysis(match, interaction.guild_id or 0, interaction.user.id)
        )
        ahead = self.service.analyses.position(view.match_id)
        await interaction.response.send_message(
            wording.analysis_queued(view.match_id, _channel_of(view), ahead),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    # --- the presenter ------------------------------------------------------------------------

    async def on_analysis(self, event: AnalysisEvent) -> None:
        """Show a step of an analysis in its match's thread or channel."""
        match_id = event.analysis.match_id
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            with reading(await server_reader(self.bot, event.analysis.guild_id)):
                await self._present(event)
        if isinstance(event, AnalysisFinished | AnalysisFailed):
            self._locks.pop(match_id, None)
            self._messages.pop(match_id, None)
            self._hooks.pop(match_id, None)

    async def _present(self, event: AnalysisEvent) -> None:
        view = event.analysis
        if isinstance(event, AnalysisQueued):
            text = wording.analysis_progress(view.match_id, 0, None, event.ahead)
            await self._show(view, text)
        elif isinstance(event, AnalysisProgressed):
            total = view.games_total
            await self._show(view, wording.analysis_progress(view.match_id, view.games_done, total))
        elif isinstance(event, AnalysisFailed):
            await self._show(view, wording.analysis_failed(view.match_id))
        elif isinstance(event, AnalysisFinished) and view.analysis is not None:
            # The progress message becomes the report (an edit replaces its attachments).
            embeds, files = await self._report(view, view.analysis)
            await self._show(view, wording.analysis_done(view.match_id), embeds, files)

    async def _show(
        self,
        view: AnalysisView,
        text: str,
        embeds: list[discord.Embed] | None = None,
        files: list[discord.File] | None = None,
    ) -> None:
        """Edit the analysis' message to ``text`` (and the report's embeds and pictures), or
        post it where there is none or it is gone (and keep its id)."""
        embeds, files = embeds or [], files or []
        message_id = self._messages.get(view.match_id, view.message_id)
        if message_id is not None:
            fields = {"content": text, "embeds": embeds, "attachments": files}
            if await self._edit(view, message_id, fields):
                return
            for file in files:
                file.reset()
        try:
            sent = await self._post(view, text, embeds, files)
        except discord.HTTPException as exc:
            log.warning("match %s: could not show the analysis: %s", view.match_id, exc)
            return
        self._messages[view.match_id] = sent.id
        await self.service.handle(SetAnalysisMessage(view.match_id, sent.id))

    async def _edit(self, view: AnalysisView, message_id: int, fields: dict[str, Any]) -> bool:
        """Edit the analysis' message through the webhook that posted it while that lives,
        else with the bot token; False when it is gone."""
        hooked = self._hooks.get(view.match_id)
        if hooked is not None and self.bot.clock() < hooked[1]:
            try:
                await hooked[0].edit_message(message_id, allowed_mentions=NO_MENTIONS, **fields)
                return True
            except discord.HTTPException as exc:
                log.info("match %s: the analysis' webhook refused: %s", view.match_id, exc)
            for file in fields["attachments"]:
                file.reset()
        self._hooks.pop(view.match_id, None)
        message = delivery.target_channel(self.bot, view).get_partial_message(message_id)
        try:
            await message.edit(allowed_mentions=NO_MENTIONS, **fields)
        except discord.HTTPException as exc:
            log.info("match %s: analysis message gone (%s): posting anew", view.match_id, exc)
            return False
        return True

    async def _post(
        self, view: AnalysisView, text: str, embeds: list[discord.Embed], files: list[discord.File]
    ) -> discord.Message:
        """Post the analysis' message: a follow-up of the match's latest member's interaction
        while its token lives, else with the bot token."""
        via = delivery.live_interaction(self.bot, view.match_id)
        if via is not None and delivery.can_follow_up(via, _channel_of(view)):
            try:
                sent = await via.followup.send(
                    text, embeds=embeds, files=files, allowed_mentions=NO_MENTIONS, wait=True
                )
            except discord.HTTPException as exc:
                log.info("match %s: the analysis' follow-up failed: %s", view.match_id, exc)
                for file in files:
                    file.reset()
            else:
                until = self.bot.clock() + delivery.HOOK_LIFETIME
                self._hooks[view.match_id] = (via.followup, until)
                return sent
        self._hooks.pop(view.match_id, None)
        return await delivery.send_to_match(
            self.bot, view, text, embeds=embeds, files=files, allowed_mentions=NO_MENTIONS
        )

    async def _report(
        self, view: AnalysisView, analysis: MatchAnalysis
    ) -> tuple[list[discord.Embed], list[discord.File]]:
        """The report: each player's figures over the winning-chance chart, then the worst
        mistakes, each with its card (the board it was made on, the move played, the best move
        and the equity lost); every picture with its alt text."""
        style = style_of(view.kind)
        summary = discord.Embed(
            title=wording.analysis_title(view.match_id, view.kind), colour=style.colour
        )
        for seat, figures in enumerate(analysis.players):
            summary.add_field(
                name=escape_name(view.players[seat].name),
                # Our own words and numbers (the name is the field's): its markdown stays.
                value=wording.analysis_player_text(view.kind, figures, text(style.error_unit)),
                inline=True,
            )
        embeds = [summary]
        files: list[discord.File] = []
        names = (view.players[0].name, view.players[1].name)
        try:
            png, alt = await self.bot.renderer.chart(
                analysis.decisions, names, view.length > 0, chart_words()
            )
        except Exception:
            log.exception("match %s: the analysis chart failed", view.match_id)
        else:
            english = reader.get() == DEFAULT_LOCALE  # render describes its pictures in English
            files.append(
                _file(png, "chart.png", alt if alt and english else text("analysis.chart_title"))
            )
            summary.set_image(url="attachment://chart.png")
        worst = analysis.worst(WORST)
        footer = wording.analysed_by(analysis.details)
        summary.set_footer(text=f"{text('analysis.no_mistakes')} {footer}" if not worst else footer)
        try:
            indexes = [d.action_index for d in worst]
            asked = ViewsAfterActions(view.match_id, view.guild_id, indexes)
            found = await self.service.handle(asked)
            boards: list[MatchView | None] = list(found)
        except Exception:
            log.exception("match %s: the mistakes' boards failed", view.match_id)
            boards = [None] * len(worst)
        for rank, (decision, board) in enumerate(zip(worst, boards, strict=True), 1):
            embed, file = await self._mistake(view, rank, decision, board)
            embeds.append(embed)
            if file is not None:
                files.append(file)
        return embeds, files

    async def _mistake(
        self, view: AnalysisView, rank: int, decision: Decision, board: MatchView | None
    ) -> tuple[discord.Embed, discord.File | None]:
        """The mistake's embed, with its card (the board it was made on) where it was drawn."""
        decision = wording.decision_words(decision)
        name = view.players[decision.player].name
        embed = discord.Embed(
            title=inert_text(wording.mistake_title(rank, name, decision.game)),
            description=inert_text(
                wording.mistake_text(
                    decision.played, decision.best, decision.equity_loss, decision.dice
                )
            ),
            colour=style_of(view.kind).colour,
        )
        if board is None:
            return embed, None
        try:
            png, alt = await self.bot.renderer.mistake(
                *presenter.board_job(board, board_words()), decision, card_words()
            )
        except Exception:
            log.exception("match %s: the card of mistake %d failed", view.match_id, rank)
            return embed, None
        filename = f"mistake{rank}.png"
        embed.set_image(url=f"attachment://{filename}")
        english = reader.get() == DEFAULT_LOCALE  # render describes its pictures in English
        return embed, _file(png, filename, alt if english else embed_alt(embed))


def _file(png: bytes, filename: str, alt: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=filename, description=alt[:1024])


def _channel_of(view: AnalysisView) -> int:
    return view.thread_id or view.channel_id


async def setup(bot: TableBot) -> None:
    await bot.add_cog(AnalysisCog(bot))
