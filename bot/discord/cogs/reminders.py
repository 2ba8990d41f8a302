"""Reminders and win claims for idle matches (extension ``bot.discord.cogs.reminders``).

A background task makes one pass every :attr:`Reminders.interval` seconds. It asks the service
for idle matches:

- past the server's reminder time, the idle player is pinged once per turn: the service's
  ``ClaimReminder`` claims it first (a compare-and-set), so of several processes one sends it;
- past the claim time, the waiting player gets a **Claim win** button
  (:class:`~bot.discord.components.ClaimWinButton`, answered here). Its ``custom_id`` holds the
  match id and version, so it works after a restart and is refused as stale if the idle player
  moved in the meantime. The service decides whether the claim is allowed.

Each process handles its own guilds (``bot.guild_shards``, its shards'): it reminds their idle
matches, and nothing else. Challenges expire on the service's scheduler
(:attr:`bot.service.MatchService.timers`), not here: :mod:`bot.discord.cogs.play` closes the
invitation when the service says so (``ChallengeExpired``).

Last, each pass posts the servers' daily puzzles that are due (:mod:`bot.discord.cogs.puzzles`).

Tests call :meth:`Reminders.run_once` directly with a chosen time instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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
from bot.service.commands import ClaimReminder, IdleMatches

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


class Reminders(commands.Cog, name="Reminders"):
    """The idle-match loop. ``interval`` is in seconds; ``None`` runs no loop (tests)."""

    def __init__(self, bot: TableBot, interval: float | None = DEFAULT_INTERVAL) -> None:
        self.bot = bot
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._pass_lock = asyncio.Lock()
        # (match id, version) whose claim button was posted. In memory only: after a restart a
        # still-idle match gets its button once more, which is harmless.
        self._claims_posted: set[tuple[int, int]] = set()

    @property
    def service(self) -> MatchService:
        return self.bot.service

    async def cog_load(self) -> None:
        self.bot.route_clicks(ClaimWinButton, self.claim_win)
        if self.interval is not None:
            self._task = asyncio.create_task(self._loop(self.interval), name="tablebot-reminders")

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(ClaimWinButton)
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
        """One pass: send due reminders and claim buttons, start and report tournaments, post
        the daily puzzles. Returns what was done, as ("remind" | "claim", match id),
        ("start" | "overdue", tournament id) and the daily puzzles' pairs, for tests and logs."""
        async with self._pass_lock:
            sent: list[tuple[str, int]] = []
            for item in await self.service.handle(IdleMatches(now, self.bot.guild_shards)):
                try:
                    if item.claimable:
                        if await self._post_claim(item, now):
                            sent.append(("claim", item.match_id))
                    elif item.reminder_due and await self._post_reminder(item, now):
                        sent.append(("remind", item.match_id))
                except Exception:
                    log.exception("could not notify idle match %s", item.match_id)
            try:  # tournaments: sign-up closing at its time, rounds past their deadline
                sent += await clock_pass(self.bot, now)
            except Exception:
                log.exception("the tournaments' clock pass failed")
            # The daily puzzles due (bot.discord.cogs.puzzles; an extension, reloaded as one, so
            # found by name).
            puzzles: Any = self.bot.get_cog("Puzzles")
            if puzzles is not None:
                sent += await puzzles.post_daily(now if now is not None else self.service.clock())
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

    def _minutes(self, item: IdleMatch, now: float | None) -> int:
        current = self.service.clock() if now is None else now
        return max(0, int((current - item.idle_since) // 60))

    async def _post_reminder(self, item: IdleMatch, now: float | None) -> bool:
        # Claimed before it is sent, so it is sent once even with several processes, and a
        # channel that refuses is not retried at every pass.
        if not await self.service.handle(ClaimReminder(item.match_id, item.version)):
            return False
        with reading(await server_reader(self.bot, item.guild_id)):
            return await self._send(
                item,
                reminder_text(item, self._minutes(item, now)),
                allowed_mentions=mention_only(item.idle.user_id),
            )

    async def _post_claim(self, item: IdleMatch, now: float | None) -> bool:
        key = (item.match_id, item.version)
        if key in self._claims_posted:
            return False
        self._claims_posted.add(key)  # once per turn, posted or refused
        with reading(await server_reader(self.bot, item.guild_id)):
            posted = await self._send(
                item,
                claim_text(item, self._minutes(item, now)),
                view=claim_view(item.match_id, item.version),
                allowed_mentions=mention_only(item.waiting.user_id),
            )
        if item.reminder_due:
            await self.service.handle(ClaimReminder(item.match_id, item.version))
        return posted

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
