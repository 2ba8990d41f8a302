"""The PostgreSQL store's ``analyses`` methods (a mixin of
:class:`~bot.storage.postgres.PostgresStore`, which keeps the pool and its helpers), with the
SQLite store's semantics (:mod:`bot.storage.sqlite_analyses`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.storage.sqlite_analyses import REQUEUE_SETS
from bot.storage.types import GuildShards, Row, guild_condition


class PostgresAnalyses:
    if TYPE_CHECKING:

        async def _all(self, sql: str, *args: Any) -> list[Row]: ...
        async def _one(self, sql: str, *args: Any) -> Row | None: ...
        async def _write(self, sql: str, *args: Any) -> int: ...

    async def queue_analysis(
        self, match_id: int, ply: int, requester_id: int | None, at: float
    ) -> bool:
        changed = await self._write(
            "INSERT INTO analyses (match_id, status, ply, requester_id, requested_at) "
            "VALUES ($1, 'queued', $2, $3, $4) "
            f"ON CONFLICT (match_id) DO UPDATE SET {REQUEUE_SETS} "
            "WHERE analyses.status = 'failed'",
            match_id,
            ply,
            requester_id,
            at,
        )
        return changed == 1

    async def analysis_row(self, match_id: int) -> Row | None:
        return await self._one("SELECT * FROM analyses WHERE match_id = $1", match_id)

    async def pending_analyses(self, guilds: GuildShards | None = None) -> list[Row]:
        return await self._all(
            "SELECT a.* FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            f"WHERE a.status IN ('queued', 'running'){guild_condition(guilds, 'm.guild_id')} "
            "ORDER BY a.requested_at, a.match_id"
        )

    async def update_analysis(self, match_id: int, **changes: Any) -> None:
        sets = ", ".join(f"{column} = ${i}" for i, column in enumerate(changes, 1))
        await self._write(
            f"UPDATE analyses SET {sets} WHERE match_id = ${len(changes) + 1}",
            *changes.values(),
            match_id,
        )

    async def analysis_averages(self, guild_id: int, game: str, user_id: int) -> Row:
        row = await self._one(
            "SELECT count(*) AS analysed, "
            "avg(CASE WHEN m.player0_id = $1 THEN a.error_rate0 ELSE a.error_rate1 END) "
            "AS error_rate, "
            "avg(CASE WHEN m.player0_id = $1 THEN a.pr0 ELSE a.pr1 END) AS pr "
            "FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            "WHERE a.status = 'done' AND m.guild_id = $2 AND m.game = $3 "
            "AND (m.player0_id = $1 OR m.player1_id = $1)",
            user_id,
            guild_id,
            game,
        )
        assert row is not None
        return row
