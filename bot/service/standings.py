"""Standings: what each finished game adds to both players' stats (points won and lost, and the
game's result counters), a pure function the action's commit stores. The match-end ratings,
streaks and experience are :func:`bot.service.ratings.rate_match`'s, run inside the commit's
transaction on the players' rating rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.service.state import MatchRecord
from bot.storage import StatUpdate
from engines.base import GameResult, ResignLevel, ResultKind
from engines.spec import spec_of


def game_stats(
    record: MatchRecord,
    results: Sequence[GameResult],
    resigned: ResignLevel | None = None,
) -> list[StatUpdate]:
    """Per game: points won and lost, and the gammon, backgammon and NANNON counters. An
    accepted resignation counts at its level (``resigned``): a resigned gammon is a gammon
    won, and a resigned NANNON a NANNON (not a shout: that is for a shutout on the board)."""
    spec = spec_of(record.game)
    updates = []
    for result in results:
        for seat, player in enumerate(record.players):
            add: dict[str, float] = {}
            if result.winner is None:
                add = {"points_won": result.points, "points_lost": result.points}
            else:
                mine = result.winner == seat
                add["points_won" if mine else "points_lost"] = result.points
                counter = spec.result_counter(result.kind)
                if result.kind is ResultKind.RESIGN and resigned is not None:
                    counter = spec.resign_counter(resigned)
                if counter is not None:
                    add[f"{counter}_{'for' if mine else 'against'}"] = 1
            updates.append(
                StatUpdate(record.guild_id, record.game.value, player.user_id, player.name, add, {})
            )
    return updates
