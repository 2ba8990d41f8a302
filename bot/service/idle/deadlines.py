"""A match's two idle deadlines: the reminder (``match.reminder``) and the win claim
(``match.claim``), keyed by the match id, due the server's ``reminder_minutes`` and
``claim_minutes`` after its last action.

They are armed again after every committed action (a subscriber of ``MatchUpdated``: a new turn
starts a new wait), for every active match at start-up (so a crash between a commit and its
arming loses nothing, and matches from before the scheduler get theirs), and for a server's
matches when its times change. A deadline that fires re-reads the match: a match that moved on,
or a time that was lengthened since, arms it again for the right second and tells nothing.
Of several processes, one fires each deadline (the scheduler's claim); the reminder is also
claimed per version (``ClaimReminder``), as before, so it is sent once per turn.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.service.commands import ClaimReminder
from bot.service.events import IdleReminder, MatchUpdated, WinClaimable
from bot.service.model import IdleMatch, MatchStatus, MatchView
from bot.service.queries import get_view, idle_item
from bot.service.settings import GuildSettings
from bot.service.state import ServiceState
from bot.service.timers import Deadline, Handlers, Rearm, TimerRunner
from bot.storage import GuildShards

log = logging.getLogger(__name__)

REMINDER = "match.reminder"
CLAIM = "match.claim"


class IdleDeadlines:
    def __init__(
        self,
        state: ServiceState,
        timers: TimerRunner,
        handle: Callable[[ClaimReminder], Awaitable[bool]],
    ) -> None:
        self._state = state
        self._timers = timers
        self._handle = handle

    def register(self, handlers: Handlers) -> None:
        handlers.register(REMINDER, self.reminder_due)
        handlers.register(CLAIM, self.claim_due)

    # --- arming ----------------------------------------------------------------------------

    async def arm(self, view: MatchView) -> None:
        """The match's deadlines for its current wait; none once it is over."""
        if view.status is not MatchStatus.ACTIVE:
            for kind in (REMINDER, CLAIM):
                await self._timers.deadlines.cancel(kind, view.match_id)
            return
        settings = await self._state.guild_settings(view.guild_id)
        for kind, due_at in _due_times(view, settings).items():
            await self._timers.arm(kind, view.match_id, due_at)

    async def match_updated(self, event: MatchUpdated) -> None:
        await self.arm(event.update.view)

    async def arm_all(self, views: list[MatchView]) -> None:
        """At start-up, every resumed match's deadlines."""
        for view in views:
            await self.arm(view)

    async def arm_guild(self, guild_id: int, guilds: GuildShards | None = None) -> None:
        """A server's times changed: its active matches' deadlines at the new times."""
        for row in await self._state.store.active_match_rows(guilds):
            if row["guild_id"] == guild_id:
                await self.arm(await get_view(self._state, row["id"]))

    # --- firing ------------------------------------------------------------------------------

    async def reminder_due(self, deadline: Deadline, now: float) -> list[Any]:
        found = await self._idle(deadline, now, REMINDER)
        if not isinstance(found, tuple):
            return found
        item, view = found
        if item.claimable:  # long idle (the bot was down): the claim says it all
            if item.reminder_due:
                await self._handle(ClaimReminder(view.match_id, view.version))
            return []
        if not item.reminder_due:
            return []  # reminded already, or the robot's turn
        if not await self._handle(ClaimReminder(view.match_id, view.version)):
            return []  # another process reminded it
        return [IdleReminder(item, now)]

    async def claim_due(self, deadline: Deadline, now: float) -> list[Any]:
        found = await self._idle(deadline, now, CLAIM)
        if not isinstance(found, tuple):
            return found
        item, view = found
        if not item.claimable:
            return []
        if item.reminder_due:  # the claim's message pings the one it waits for
            await self._handle(ClaimReminder(view.match_id, view.version))
        return [WinClaimable(item, now)]

    async def _idle(
        self, deadline: Deadline, now: float, kind: str
    ) -> tuple[IdleMatch, MatchView] | list[Any]:
        """The match's idle state when its ``kind`` deadline fired, or what to return when
        there is nothing to tell now: nothing, or a :class:`Rearm` for its right time where
        that is still to come."""
        match_id = int(deadline.key)
        row = await self._state.store.match_row(match_id)
        if row is None:  # the match is gone (a deleted server's data)
            log.warning("idle deadline %s for a match that can't be read", deadline)
            return []
        cached = self._state.loaded(match_id)
        if cached is not None and cached.record.version != row["version"]:
            self._state.evict(match_id)  # another process moved it on: read it afresh
        view = await get_view(self._state, match_id)
        settings = await self._state.guild_settings(view.guild_id)
        due_at = _due_times(view, settings).get(kind)
        if due_at is None:
            return []
        if due_at > now:  # it moved on, or the time was lengthened: wait for the new time
            return [Rearm(due_at)]
        item = idle_item(view, row["reminded_version"], settings, now)
        return [] if item is None else (item, view)


def _due_times(view: MatchView, settings: GuildSettings) -> dict[str, float]:
    """When the match's current wait makes each deadline due (none once it is over)."""
    if view.status is not MatchStatus.ACTIVE or view.actor is None:
        return {}
    return {
        REMINDER: view.last_action_at + settings.reminder_minutes * 60,
        CLAIM: view.last_action_at + settings.claim_minutes * 60,
    }
