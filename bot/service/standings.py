"""Standings: what a finished game adds to both players' stats (a pure function), and the match-end
ratings, streaks and experience.

``rate`` runs inside the action's commit transaction, on the store's thread (it reads the
players' rating rows from ``db`` and computes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.service.model import RatingChange
from bot.service.ratings import INITIAL_RATING, elo_changes, fibs_changes
from bot.service.state import MatchRecord
from bot.storage import StatUpdate, Store
from engines.base import GameKind, GameResult, ResignLevel, ResultKind

if TYPE_CHECKING:
    import sqlite3  # the store's connection, handed to rate() inside its transaction

# The stats counter a game's result adds to, for both players (``_for`` / ``_against``).
COUNTERS = {
    ResultKind.GAMMON: "gammons",
    ResultKind.BACKGAMMON: "backgammons",
    ResultKind.NANNON: "nannons",
}
RESIGNED_COUNTERS = {
    (GameKind.BACKGAMMON, ResignLevel.GAMMON): "gammons",
    (GameKind.BACKGAMMON, ResignLevel.BACKGAMMON): "backgammons",
    (GameKind.NANNON, ResignLevel.GAMMON): "nannons",  # Nannon's double win is the NANNON
}


def game_stats(
    record: MatchRecord,
    results: Sequence[GameResult],
    resigned: ResignLevel | None = None,
) -> list[StatUpdate]:
    """Per game: points won and lost, and the gammon, backgammon and NANNON counters. An
    accepted resignation counts at its level (``resigned``): a resigned gammon is a gammon
    won, and a resigned NANNON a NANNON (not a shout: that is for a shutout on the board)."""
    updates = []
    for result in results:
        for seat, player in enumerate(record.players):
            add: dict[str, float] = {}
            if result.winner is None:
                add = {"points_won": result.points, "points_lost": result.points}
            else:
                mine = result.winner == seat
                add["points_won" if mine else "points_lost"] = result.points
                counter = COUNTERS.get(result.kind)
                if result.kind is ResultKind.RESIGN and resigned is not None:
                    counter = RESIGNED_COUNTERS.get((record.game, resigned))
                if counter is not None:
                    add[f"{counter}_{'for' if mine else 'against'}"] = 1
            updates.append(
                StatUpdate(record.guild_id, record.game.value, player.user_id, player.name, add, {})
            )
    return updates


def rate(
    db: sqlite3.Connection, record: MatchRecord, winner: int | None
) -> tuple[list[StatUpdate], list[RatingChange]]:
    """Match-end stats and ratings, read and written inside the commit's transaction (on
    the store's thread: it only reads ``db`` and computes)."""
    ids = [p.user_id for p in record.players]
    rows = Store.rating_rows(db, record.guild_id, record.game.value, ids)
    rating = [float(rows[i]["rating"]) if i in rows else INITIAL_RATING for i in ids]
    experience = [int(rows[i]["experience"]) if i in rows else 0 for i in ids]
    streak = [int(rows[i]["streak"]) if i in rows else 0 for i in ids]
    length = record.rules.length
    delta = [0.0, 0.0]
    rated = length > 0  # money games count in the stats, not in the ratings
    if rated and winner is not None and record.game is not GameKind.CHECKERS:
        won, lost = fibs_changes(
            rating[winner],
            rating[1 - winner],
            experience[winner],
            experience[1 - winner],
            length,
        )
        delta[winner], delta[1 - winner] = won, lost
    elif rated and record.game is GameKind.CHECKERS:
        score0 = 0.5 if winner is None else float(winner == 0)
        delta[0], delta[1] = elo_changes(rating[0], rating[1], score0)
    updates, changes = [], []
    for seat, player in enumerate(record.players):
        outcome = "drawn" if winner is None else ("won" if winner == seat else "lost")
        if outcome == "won":
            new_streak = streak[seat] + 1 if streak[seat] > 0 else 1
        elif outcome == "lost":
            new_streak = streak[seat] - 1 if streak[seat] < 0 else -1
        else:
            new_streak = 0
        after = rating[seat] + delta[seat]
        gained = (length if record.game is not GameKind.CHECKERS else 1) if rated else 0
        updates.append(
            StatUpdate(
                record.guild_id,
                record.game.value,
                player.user_id,
                player.name,
                {"played": 1, outcome: 1},
                {
                    "rating": after,
                    "experience": experience[seat] + gained,
                    "streak": new_streak,
                },
            )
        )
        changes.append(RatingChange(seat, player.user_id, rating[seat], after))
    return updates, changes
