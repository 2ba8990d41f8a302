"""One replay of a match's log into views, each true to its moment: what analysis shows of a
mistake, a puzzle's board, and any later replay read from here.

The log is the match's events in order (:func:`logged`). The view after the first ``k`` actions
is the match as it stood then: active until the log's end, at the version the board had then
(each command's commit is one version, and its first event is the only one with an actor; the
start's automatic opening is version 0), with the time of its last action, and no dice seed:
the seed is revealed only on the view at the end of a finished match, which is the record as
it stands. Pure: no store, no clock, no dice drawn (the log holds every roll).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from bot.service.model import MatchStatus, MatchView
from bot.service.state import LiveMatch, MatchRecord
from bot.service.views import build_view
from bot.storage import EventRow
from engines import new_match
from engines.actions import Action, action_from_dict

__all__ = ["LoggedAction", "logged", "replay_views", "views_at"]


@dataclass(frozen=True)
class LoggedAction:
    """One action of a match's log: ``actor`` the member whose command it began (the robot's
    id for the robot's), None for an automatic step; ``at`` when it was committed."""

    action: Action
    actor: int | None = None
    at: float = 0.0


def logged(events: Iterable[EventRow]) -> list[LoggedAction]:
    """The stored events as the replay reads them."""
    return [LoggedAction(action_from_dict(e.payload), e.actor, e.at) for e in events]


def replay_views(record: MatchRecord, log: Sequence[LoggedAction]) -> Iterator[MatchView]:
    """Every moment of the match in order: before its first action, then after each."""
    return _views(record, log, range(len(log) + 1))


def views_at(
    record: MatchRecord, log: Sequence[LoggedAction], action_indexes: Sequence[int]
) -> list[MatchView]:
    """The match as it stood after each of ``action_indexes`` of its actions (clamped to the
    log), in the order asked; one replay for all of them."""
    wanted = sorted({_clamp(i, len(log)) for i in action_indexes})
    found = dict(zip(wanted, _views(record, log, wanted), strict=True))
    return [found[_clamp(i, len(log))] for i in action_indexes]


def _clamp(index: int, length: int) -> int:
    return max(0, min(index, length))


def _views(
    record: MatchRecord, log: Sequence[LoggedAction], ascending: Iterable[int]
) -> Iterator[MatchView]:
    match = new_match(record.game, record.rules, recorded=True)
    live = LiveMatch(record, match, _NoDice())
    done = version = 0
    for index in ascending:
        for entry in log[done:index]:
            match.apply(entry.action)
            version += entry.actor is not None
        done = index
        live.record = record if index == len(log) else _moment(record, log, index, version)
        yield build_view(live)


def _moment(
    record: MatchRecord, log: Sequence[LoggedAction], index: int, version: int
) -> MatchRecord:
    """The record as it stood after ``index`` actions (fewer than all): active, unrevealed."""
    return replace(
        record,
        status=MatchStatus.ACTIVE,
        winner_seat=None,
        seed=b"",
        version=version,
        last_action_at=log[index - 1].at if index else record.created_at,
        finished_at=None,
        rating_changes=(),
    )


class _NoDice:
    """A replay's dice: the log holds every roll, so none is drawn."""

    seed = b""
    counter = 0

    def roll_die(self) -> int:
        raise RuntimeError("a replay draws no dice: its log holds them")
