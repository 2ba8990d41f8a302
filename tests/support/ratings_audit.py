"""Lost rating updates, counted from what a database kept (tests/storage/test_shard_faults.py
and benchmarks/service.py).

Every finished match stores its rating changes (``matches.rating_changes``: per player, the
rating ``before`` and ``after``). For each (guild, game, player) those changes must form one
trail from the initial rating to the rating the ``ratings`` row holds, each change's ``before``
the previous change's ``after``, every change used once (a rating can come back to a value it
had, 1500 -> 1516 -> 1500, so the trail is found as an Euler trail, not greedily), and the row's
``played`` must count them. Two updates that read the same rating (one of them lost) leave two
changes leaving it and no trail; an update written over another leaves the trail ending
elsewhere than the stored rating.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bot.service.ratings import INITIAL_RATING

Key = tuple[int, str, int]  # guild, game, user


@dataclass
class RatingsAudit:
    changes: int = 0  # rating changes of finished matches
    lost: int = 0  # changes off their chain, plus chains that end elsewhere than stored
    problems: list[str] = field(default_factory=list)


async def audit_ratings(store: Any) -> RatingsAudit:
    """Read every finished match's rating changes and every ratings row through ``store``'s
    public diagnostics (``raw_rows``, either store), and count the lost updates."""
    changes: dict[Key, list[tuple[float, float]]] = defaultdict(list)
    rows = await store.raw_rows(
        "SELECT guild_id, game, rating_changes FROM matches WHERE status = 'finished'"
    )
    for row in rows:
        for change in json.loads(row["rating_changes"] or "[]"):
            key = (row["guild_id"], row["game"], change["user_id"])
            changes[key].append((change["before"], change["after"]))
    ratings = {
        (r["guild_id"], r["game"], r["user_id"]): r
        for r in await store.raw_rows("SELECT * FROM ratings")
    }
    audit = RatingsAudit(changes=sum(len(edges) for edges in changes.values()))
    for key, edges in changes.items():
        row = ratings.get(key)
        stored = None if row is None else row["rating"]
        end = trail_end(INITIAL_RATING, edges)
        if end is None:
            audit.lost += max(1, surplus(INITIAL_RATING, edges))
            audit.problems.append(f"{key}: no one trail through {edges} (lost update)")
        elif end != stored:
            audit.lost += 1
            audit.problems.append(f"{key}: the changes end at {end}, the row says {stored}")
        if row is not None and row["played"] != len(edges):
            audit.problems.append(f"{key}: played {row['played']}, {len(edges)} rated matches")
    return audit


def trail_end(start: float, edges: list[tuple[float, float]]) -> float | None:
    """Where a trail from ``start`` using every change (``before`` -> ``after``) once ends, or
    None when there is no such trail (Hierholzer's algorithm, then checked)."""
    following: dict[float, list[float]] = defaultdict(list)
    for before, after in edges:
        following[before].append(after)
    stack, path = [start], []
    while stack:
        if following[stack[-1]]:
            stack.append(following[stack[-1]].pop())
        else:
            path.append(stack.pop())
    path.reverse()
    if len(path) != len(edges) + 1 or sorted(itertools.pairwise(path)) != sorted(edges):
        return None
    return path[-1]


def surplus(start: float, edges: list[tuple[float, float]]) -> int:
    """How many more changes leave a rating than reach it (the start may have one): the updates
    that read a rating another update had already used."""
    balance: dict[float, int] = defaultdict(int)
    balance[start] -= 1
    for before, after in edges:
        balance[before] += 1
        balance[after] -= 1
    return sum(max(0, extra) for extra in balance.values())
