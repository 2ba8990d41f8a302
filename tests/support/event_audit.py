"""Lost-update audit of a database after a load run (benchmarks/load.py), against the actions
the drivers saw accepted.

- Every accepted action is in the event log exactly once: the driver noted the match's next
  event number before the action and after its answer (``Accepted``); those events must be
  there, the first of the action's kind, and no two accepted actions may share an event. An
  event after a match's first accepted action that no accepted action covers is counted as
  unaccounted (a duplicate, or an action committed that its driver never saw answered); the
  events before it are the match's start (the accept's opening roll and forced moves).
- Each match's row and snapshot equal what replaying its event log gives: the score, whether
  it is finished, the winner, the snapshot.
- The finished-match counts (``played``) and ratings equal what replaying every finished match
  gives, in the order they finished, through the service's own rating function.

Reads through the store's public diagnostics (``raw_rows``, either store), as
support/ratings_audit.py does.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from bot.service.ratings import INITIAL_RATING, rate_match
from engines import replay
from engines.base import GameKind, MatchRules

# The event kinds each driver action starts with.
KINDS = {
    "Roll": ("roll", "opening_roll"),
    "/roll": ("roll", "opening_roll"),
    "select": ("move",),
    "/move": ("move",),
    "/take": ("take",),
}


@dataclass(frozen=True)
class Accepted:
    """An action its driver saw answered: events ``first`` to ``end`` (exclusive) of a match."""

    match_id: int
    first: int
    end: int
    kind: str


@dataclass
class EventAudit:
    accepted: int = 0
    in_log_once: int = 0  # accepted actions found in the log, of their kind, sharing no event
    missing: int = 0  # accepted actions not (all) in the log, or of another kind
    duplicates: int = 0  # events claimed by two accepted actions, or unaccounted for
    matches: int = 0
    replay_mismatches: int = 0  # rows or snapshots that differ from the replay
    finished: int = 0  # finished matches (rows), and by replay
    finished_replayed: int = 0
    ratings: int = 0  # ratings rows compared
    rating_mismatches: int = 0  # rating or played off the replay
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return (
            self.missing == self.duplicates == self.replay_mismatches == self.rating_mismatches
            == 0
            and self.in_log_once == self.accepted
            and self.finished == self.finished_replayed
        )  # fmt: skip

    def line(self) -> str:
        return (
            f"{self.in_log_once}/{self.accepted} accepted actions in the log exactly once "
            f"({self.missing} missing, {self.duplicates} duplicate or unaccounted events); "
            f"{self.matches} matches replayed, {self.replay_mismatches} differ from their row or "
            f"snapshot; {self.finished} finished ({self.finished_replayed} by replay); "
            f"{self.ratings} ratings rows, {self.rating_mismatches} off the replay"
        )


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


async def audit_events(store: Any, accepted: list[Accepted]) -> EventAudit:
    audit = EventAudit(accepted=len(accepted))
    events: dict[int, list[Any]] = defaultdict(list)
    for row in await store.raw_rows(
        "SELECT match_id, seq, kind, payload FROM events ORDER BY match_id, seq"
    ):
        events[row["match_id"]].append(row)
    _check_accepted(audit, events, accepted)
    rows = await store.raw_rows(
        "SELECT m.*, s.data FROM matches AS m LEFT JOIN snapshots AS s ON s.match_id = m.id "
        "ORDER BY m.id"
    )
    winners = _check_replays(audit, events, rows)
    ratings = {
        (r["guild_id"], r["game"], r["user_id"]): r
        for r in await store.raw_rows("SELECT * FROM ratings")
    }
    _check_ratings(audit, rows, winners, ratings)
    return audit


def _check_accepted(
    audit: EventAudit, events: dict[int, list[Any]], accepted: list[Accepted]
) -> None:
    owner: dict[tuple[int, int], Accepted] = {}
    first_action: dict[int, int] = {}
    for action in accepted:
        log = events.get(action.match_id, [])
        seqs = [e["seq"] for e in log[action.first : action.end]]
        kinds = KINDS.get(action.kind, ())
        if (
            action.end <= action.first
            or seqs != list(range(action.first, action.end))
            or log[action.first]["kind"] not in kinds
        ):
            audit.missing += 1
            audit.problems.append(f"{action}: not in the log as such")
            continue
        shared = [s for s in seqs if (action.match_id, s) in owner]
        if shared:
            audit.duplicates += len(shared)
            audit.problems.append(f"{action}: events {shared} also claimed by another action")
            continue
        for s in seqs:
            owner[(action.match_id, s)] = action
        first_action[action.match_id] = min(
            first_action.get(action.match_id, action.first), action.first
        )
        audit.in_log_once += 1
    for match_id, start in first_action.items():
        stray = [
            e["seq"]
            for e in events[match_id]
            if e["seq"] >= start and (match_id, e["seq"]) not in owner
        ]
        if stray:
            audit.duplicates += len(stray)
            audit.problems.append(f"match {match_id}: events {stray} of no accepted action")


def _check_replays(
    audit: EventAudit, events: dict[int, list[Any]], rows: list[Any]
) -> dict[int, int | None]:
    """Each match replayed; the winner of each match the replay finishes, by id."""
    winners: dict[int, int | None] = {}
    for row in rows:
        audit.matches += 1
        audit.finished += row["status"] == "finished"
        rules = MatchRules.from_dict(_json(row["rules"]))
        try:
            match = replay(row["game"], rules, [_json(e["payload"]) for e in events[row["id"]]])
        except Exception as exc:  # a log the engines refuse is a mismatch
            audit.replay_mismatches += 1
            audit.problems.append(f"match {row['id']}: replay fails ({exc})")
            continue
        over = match.is_over()
        same = (
            tuple(float(x) for x in match.score) == (float(row["score0"]), float(row["score1"]))
            and over == (row["status"] == "finished")
            and (not over or match.winner() == row["winner_seat"])
            and match.snapshot() == _json(row["data"])
        )
        if not same:
            audit.replay_mismatches += 1
            audit.problems.append(f"match {row['id']}: row or snapshot differs from its replay")
        if over:
            audit.finished_replayed += 1
            winners[row["id"]] = match.winner()
    return winners


def _check_ratings(
    audit: EventAudit,
    rows: list[Any],
    winners: dict[int, int | None],
    stored: dict[tuple[int, str, int], Any],
) -> None:
    """Every finished match rated again, in finishing order, from the initial ratings."""
    state: dict[tuple[int, str, int], dict[str, float]] = {}
    finished = sorted(
        (r for r in rows if r["id"] in winners), key=lambda r: (r["finished_at"], r["id"])
    )
    for row in finished:
        guild, game = row["guild_id"], row["game"]
        players = [
            SimpleNamespace(user_id=row[f"player{s}_id"], name=row[f"player{s}_name"])
            for s in (0, 1)
        ]
        current = {
            p.user_id: state[(guild, game, p.user_id)]
            for p in players
            if (guild, game, p.user_id) in state
        }
        updates, _ = rate_match(
            players, guild, GameKind(game), row["length"], winners[row["id"]], current
        )
        for update in updates:
            key = (guild, game, update.user_id)
            now = state.setdefault(key, {"rating": INITIAL_RATING, "experience": 0, "streak": 0})
            now.update(update.set)
            now["played"] = now.get("played", 0) + update.add.get("played", 0)
    for key in stored:  # a row of games played, no match finished yet
        if key not in state:
            state[key] = {"rating": INITIAL_RATING, "played": 0}
    for key, now in state.items():
        audit.ratings += 1
        row = stored.get(key)
        if (
            row is None
            or abs(float(row["rating"]) - now["rating"]) > 1e-6
            or row["played"] != now.get("played", 0)
        ):
            audit.rating_mismatches += 1
            audit.problems.append(f"{key}: stored {dict(row) if row else None}, replay {now}")
