"""Lost rating updates, counted from what a database kept (tests/storage/test_shard_faults.py
and benchmarks/service.py).

Every finished match stores its rating changes (``matches.rating_changes``: per player, the
rating ``before`` and ``after``). For each (guild, game, player) those changes must chain from
the initial rating, each ``before`` the previous ``after``, to the rating the ``ratings`` row
holds, with every change used once, and the row's ``played`` must count them. Two updates that
read the same rating (one of them lost) leave a change off the chain; an update written over
another leaves the chain ending elsewhere than the stored rating.
"""

from __future__ import annotations

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
    private ``_fetchall`` (either store), and count the lost updates."""
    changes: dict[Key, list[tuple[float, float]]] = defaultdict(list)
    rows = await store._fetchall(
        "SELECT guild_id, game, rating_changes FROM matches WHERE status = 'finished'"
    )
    for row in rows:
        for change in json.loads(row["rating_changes"] or "[]"):
            key = (row["guild_id"], row["game"], change["user_id"])
            changes[key].append((change["before"], change["after"]))
    ratings = {
        (r["guild_id"], r["game"], r["user_id"]): r
        for r in await store._fetchall("SELECT * FROM ratings")
    }
    audit = RatingsAudit(changes=sum(len(edges) for edges in changes.values()))
    for key, edges in changes.items():
        left, rating = list(edges), INITIAL_RATING
        while (step := next((e for e in left if e[0] == rating), None)) is not None:
            left.remove(step)
            rating = step[1]
        row = ratings.get(key)
        stored = None if row is None else row["rating"]
        if left:
            audit.lost += len(left)
            audit.problems.append(f"{key}: no change from {rating} for {left} (lost update)")
        if rating != stored:
            audit.lost += 1
            audit.problems.append(f"{key}: the chain ends at {rating}, the row says {stored}")
        if row is not None and row["played"] != len(edges):
            audit.problems.append(f"{key}: played {row['played']}, {len(edges)} rated matches")
    return audit
