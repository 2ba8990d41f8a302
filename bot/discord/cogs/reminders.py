"""Reminders and win claims for idle matches, as the service's scheduler tells them, and the
clock pass of tournaments (extension ``bot.discord.cogs.reminders``).

A match's reminder and claim are deadlines of the service (:mod:`bot.service.idle`, on
:attr:`bot.service.MatchService.timers`); this cog only presents what they publish:

- ``IdleReminder``: past the server's reminder time, the idle player is pinged once per turn
  (the service claims it per version first, a compare-and-set, so of several processes one is
  told);
- ``WinClaimable``: past the claim time, the waiting player gets a **Claim win** button
  (:class:`~bot.discord.components.ClaimWinButton`, answered here). Its ``custom_id`` holds the
  match id and version, so it works after a restart and is refused as stale if the idle player
  moved in the meantime. The service decides whether the claim is allowed.

Challenges expire and daily puzzles are posted on the same scheduler
(:mod:`bot.discord.cogs.play` closes the invitation, :mod:`bot.discord.cogs.puzzles` posts the
puzzle). A background task still makes one pass every :attr:`Reminders.interval` seconds for
the tournaments (sign-up closing, rounds past their deadline); tests call
:meth:`Reminders.run_once` with a chosen time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord import delivery
from bot.discord.catalogue import reading, text
from bot.discord.components import ClaimWinButton, claim_view
from bot.discord.locales import server_reader
from bot.discord.presenter import publish
from bot.discord.replies import escape_name, mention_only
from bot.discord.tournament_presenter import clock_pass
from bot.service.events import IdleReminder, WinClaimable

if TYPE_CHECKING:
    from bot.discord.app import TableBot
from bot.service import IdleMatch, MatchService
from bot.service.commands import ClaimWin

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 60.0


def reminder_text(item: IdleMatch, minutes: int) -> str:
    return text(
        "reminder.idle",
        user_id=item.idle.user_id,
        match_id=item.match_id,
        minutes=minutes,
        name=escape_name(item.waiting.name),
    )


def claim_text(item: IdleMatch, minutes: int) -> str:
    return text(
        "reminder.claim",
        user_id=item.waiting.user_id,
        name=escape_name(item.idle.name),
        match_id=item.match_id,
        minutes=minutes,
    )


def _minutes(item: IdleMatch, at: float) -> int:
    return max(0, int((at - item.idle_since) // 60))


class Reminders(commands.Cog, name="Reminders"):
    """The reminders' and claims' presenter and the clock pass. ``interval`` is in seconds;
    ``None`` runs no loop (tests)."""

    def __init__(self, bot: TableBot, interval: float | None = DEFAULT_INTERVAL) -> None:
        self.bot = bot
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._pass_lock = asyncio.Lock()
        self._unsubscribe: list[Callable[[], None]] = []

    @property
    def service(self) -> MatchService:
        return self.bot.service

    async def cog_load(self) -> None:
        self.bot.route_clicks(ClaimWinButton, self.claim_win)
        bus = self.service.bus
        self._unsubscribe = [
            bus.subscribe(IdleReminder, self.remind),
            bus.subscribe(WinClaimable, self.offer_claim),
        ]
        if self.interval is not None:
            self._task = asyncio.create_task(self._loop(self.interval), name="tablebot-reminders")

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(ClaimWinButton)
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self, interval: float) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                await self.run_once()
            except Exception:
                # One bad pass (a database hiccup) must not end reminders for good.
                log.exception("reminder pass failed")
            await asyncio.sleep(interval)

    async def run_once(self, now: float | None = None) -> list[tuple[str, int]]:
        """One pass: start and report tournaments. Returns what was done, as
        ("start" | "overdue", tournament id) pairs, for tests and logs."""
        async with self._pass_lock:
            sent: list[tuple[str, int]] = []
            try:  # tournaments: sign-up closing at its time, rounds past their deadline
                sent += await clock_pass(self.bot, now)
            except Exception:
                log.exception("the tournaments' clock pass failed")
            return sent

    async def _send(self, item: IdleMatch, content: str, **kwargs: Any) -> bool:
        """Post in the match's thread, or its channel once the thread is gone, locked or closed
        to the bot (the match moves there: bot.discord.delivery.send_to_match). False when
        Discord refused it there too: logged, and not retried this turn."""
        try:
            await delivery.send_to_match(self.bot, item, content, **kwargs)
        except discord.HTTPException as exc:
            log.warning("match %s: could not post a reminder or claim: %s", item.match_id, exc)
            return False
        return True

    async def remind(self, event: IdleReminder) -> None:
        """The service's reminder deadline fired (claimed once for this turn, so a channel
        that refuses is not retried): the idle player is pinged."""
        item = event.item
        with reading(await server_reader(self.bot, item.guild_id)):
            await self._send(
                item,
                reminder_text(item, _minutes(item, event.at)),
                allowed_mentions=mention_only(item.idle.user_id),
            )

    async def offer_claim(self, event: WinClaimable) -> None:
        """The service's claim deadline fired (once per turn): the waiting player gets the
        Claim win button."""
        item = event.item
        with reading(await server_reader(self.bot, item.guild_id)):
            await self._send(
                item,
                claim_text(item, _minutes(item, event.at)),
                view=claim_view(item.match_id, item.version),
                allowed_mentions=mention_only(item.waiting.user_id),
            )

    async def claim_win(
        self, item: ClaimWinButton, interaction: discord.Interaction[TableBot]
    ) -> None:
        """A click on Claim win. Who may claim, and when, is the service's call; a refusal
        becomes an ephemeral reply."""

        async def claim() -> None:
            update = await self.service.handle(
                ClaimWin(
                    item.match_id,
                    interaction.guild_id or 0,
                    interaction.user.id,
                    expected_version=item.version,
                )
            )
            log.info("match %s claimed by user %s", item.match_id, interaction.user.id)
            # The claim message loses its button as the click's answer.
            with contextlib.suppress(discord.HTTPException):
                await delivery.answer_edit(interaction, view=None)
            await publish(self.bot, update, interaction)

        await delivery.in_time(interaction, claim(), self.bot.response_budget)


async def setup(bot: TableBot) -> None:
    await bot.add_cog(Reminders(bot))
