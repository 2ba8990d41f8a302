"""The SQLite store's ``analyses`` methods (a mixin of :class:`~bot.storage.sqlite.SqliteStore`,
which keeps the connection and its helpers): queue, read, update and average post-match
analyses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.storage.types import GuildShards, Row, guild_condition

# Reset when a failed analysis is queued again.
REQUEUE_SETS = (
    "status = 'queued', ply = excluded.ply, requester_id = excluded.requester_id, "
    "requested_at = excluded.requested_at, started_at = NULL, finished_at = NULL, "
    "games_done = 0, games_total = NULL, message_id = NULL, result = NULL, error = NULL, "
    "error_rate0 = NULL, error_rate1 = NULL, pr0 = NULL, pr1 = NULL"
)


class SqliteAnalyses:
    if TYPE_CHECKING:

        async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...
        async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...
        async def _write_one(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    async def queue_analysis(
        self, match_id: int, ply: int, requester_id: int | None, at: float
    ) -> bool:
        cursor = await self._write_one(
            "INSERT INTO analyses (match_id, status, ply, requester_id, requested_at) "
            "VALUES (?, 'queued', ?, ?, ?) "
            f"ON CONFLICT (match_id) DO UPDATE SET {REQUEUE_SETS} "
            "WHERE analyses.status = 'failed'",
            (match_id, ply, requester_id, at),
        )
        return bool(cursor.rowcount == 1)

    async def analysis_row(self, match_id: int) -> Row | None:
        return await self._fetchone("SELECT * FROM analyses WHERE match_id = ?", (match_id,))

    async def pending_analyses(self, guilds: GuildShards | None = None) -> list[Row]:
        return await self._fetchall(
            "SELECT a.* FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            f"WHERE a.status IN ('queued', 'running'){guild_condition(guilds, 'm.guild_id')} "
            "ORDER BY a.requested_at, a.match_id"
        )

    async def update_analysis(self, match_id: int, **changes: Any) -> None:
        sets = ", ".join(f"{column} = ?" for column in changes)
        await self._write_one(
            f"UPDATE analyses SET {sets} WHERE match_id = ?", (*changes.values(), match_id)
        )

    async def analysis_averages(self, guild_id: int, game: str, user_id: int) -> Row:
        row = await self._fetchone(
            "SELECT COUNT(*) AS analysed, "
            "AVG(CASE WHEN m.player0_id = ?1 THEN a.error_rate0 ELSE a.error_rate1 END) "
            "AS error_rate, "
            "AVG(CASE WHEN m.player0_id = ?1 THEN a.pr0 ELSE a.pr1 END) AS pr "
            "FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            "WHERE a.status = 'done' AND m.guild_id = ?2 AND m.game = ?3 "
            "AND (m.player0_id = ?1 OR m.player1_id = ?1)",
            (user_id, guild_id, game),
        )
        assert row is not None
        return row
