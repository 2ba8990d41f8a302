"""Idle matches (issue 34): each active match's reminder and win-claim deadlines on the
service's one scheduler (:mod:`bot.service.timers`).

- :mod:`.deadlines`: :class:`IdleDeadlines` arms them after every committed action and at
  start-up, and fires them: the events :class:`~bot.service.events.IdleReminder` and
  :class:`~bot.service.events.WinClaimable`, which the adapters present.
"""

from bot.service.idle.deadlines import CLAIM, REMINDER, IdleDeadlines

__all__ = ["CLAIM", "REMINDER", "IdleDeadlines"]
