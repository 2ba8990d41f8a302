"""One clock for every deadline (issue 34): the ``timers`` capability of the service.

- :mod:`.model`: :class:`Deadline` (a stored deadline) and :class:`DeadlineFired` (the service
  event published after a deadline's handler committed);
- :mod:`.repository`: the deadlines' reads and writes, through the
  :class:`~bot.storage.protocol.Store` protocol only;
- :mod:`.handler`: :class:`Handlers`, a handler per deadline kind;
- :mod:`.runner`: :class:`TimerRunner`, the loop on the injected clock and sleep.
"""

from bot.service.timers.handler import DeadlineHandler, Handlers
from bot.service.timers.model import Deadline, DeadlineFired, Rearm
from bot.service.timers.repository import DeadlineRepository
from bot.service.timers.runner import DEFAULT_LEASE, TimerRunner

__all__ = [
    "DEFAULT_LEASE",
    "Deadline",
    "DeadlineFired",
    "DeadlineHandler",
    "DeadlineRepository",
    "Handlers",
    "Rearm",
    "TimerRunner",
]
