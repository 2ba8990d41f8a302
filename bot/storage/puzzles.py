"""The puzzle tables' :class:`~bot.storage.protocol.Store` methods, the same in both stores: a
mixin of :class:`~bot.storage.shared.SharedOperations`' kind. Statements are written in
SQLite's dialect and put in the store's by ``_dialect``; an attempt and the two ratings it moves
are one transaction (:meth:`_guarded`, each store's own)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from bot.storage.statements import columns, insert_sql, set_clause
from bot.storage.types import GuildShards, Row, guild_condition

__all__ = ["PUZZLE_COLUMNS", "PUZZLE_POST_COLUMNS", "PuzzleOperations", "Statement"]

PUZZLE_COLUMNS = (
    "guild_id", "game", "kind", "match_id", "action_index", "seat", "player_id", "board",
    "played", "answer_key", "position_key", "created_at",
)  # fmt: skip
# What the daily post sets on its puzzle.
PUZZLE_POST_COLUMNS = ("posted_at", "post_channel_id", "post_message_id", "revealed_at")

Statement = tuple[str, Sequence[Any]]
"""One statement in SQLite's dialect and its parameters."""

_ATTEMPT = (
    "INSERT INTO puzzle_attempts (puzzle_id, user_id, choice, correct, at) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (puzzle_id, user_id) DO NOTHING"
)
_MEMBER_RATING = (
    "INSERT INTO puzzle_ratings "
    "(guild_id, user_id, name, rating, deviation, volatility, attempts, solved) "
    "VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
    "name = excluded.name, rating = excluded.rating, deviation = excluded.deviation, "
    "volatility = excluded.volatility, attempts = puzzle_ratings.attempts + 1, "
    "solved = puzzle_ratings.solved + excluded.solved"
)
_PUZZLE_RATING = (
    "UPDATE puzzles SET rating = ?, deviation = ?, volatility = ?, attempts = attempts + 1, "
    "solved = solved + ? WHERE id = ?"
)


# The solvers' board, a page of its index (puzzle_ratings_board), and a member's place on it:
# 1 + the solvers ahead of them in its order.
PUZZLE_BOARD = (
    "SELECT r.* FROM (SELECT user_id FROM puzzle_ratings WHERE guild_id = ?1 AND attempts > 0 "
    "ORDER BY rating DESC, solved DESC, user_id LIMIT ?2 OFFSET ?3) AS page "
    "CROSS JOIN puzzle_ratings AS r WHERE r.guild_id = ?1 AND r.user_id = page.user_id "
    "ORDER BY r.rating DESC, r.solved DESC, r.user_id"
)
PUZZLE_PLACE = (
    "SELECT 1 + (SELECT count(*) FROM puzzle_ratings AS o WHERE o.guild_id = ?1 "
    "AND o.attempts > 0 AND o.rating > m.rating) "
    "+ (SELECT count(*) FROM puzzle_ratings AS o WHERE o.guild_id = ?1 AND o.attempts > 0 "
    "AND o.rating = m.rating AND (o.solved > m.solved "
    "OR (o.solved = m.solved AND o.user_id < m.user_id))) AS place FROM puzzle_ratings AS m "
    "WHERE m.guild_id = ?1 AND m.user_id = ?2 AND m.attempts > 0"
)
PUZZLE_BOARD_SIZE = "SELECT count(*) AS n FROM puzzle_ratings WHERE guild_id = ? AND attempts > 0"


class PuzzleOperations(ABC):
    @abstractmethod
    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    @abstractmethod
    def _dialect(self, sql: str) -> str: ...

    @abstractmethod
    async def _guarded(self, statements: Sequence[Statement]) -> bool:
        """The statements (SQLite's dialect) in one transaction, in order; when the first
        changes no row, nothing more runs and False (the transaction changed nothing)."""

    @abstractmethod
    async def _member_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """A member's read-only query no write depends on (``SharedOperations``')."""

    async def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._rows(self._dialect(sql), params)

    async def insert_puzzle(self, values: dict[str, Any]) -> int | None:
        names = columns(PUZZLE_COLUMNS, values)
        sql = (
            f"{insert_sql('puzzles', PUZZLE_COLUMNS, names)} "
            "ON CONFLICT (guild_id, game, position_key) DO NOTHING RETURNING id"
        )
        rows = await self._query(sql, list(values.values()))
        return int(rows[0]["id"]) if rows else None

    async def puzzle_row(self, puzzle_id: int) -> Row | None:
        rows = await self._query("SELECT * FROM puzzles WHERE id = ?", (puzzle_id,))
        return rows[0] if rows else None

    async def puzzle_candidates(
        self, guild_id: int, game: str | None, user_id: int, include_own: bool, limit: int
    ) -> list[Row]:
        sql = (
            "SELECT * FROM puzzles AS p WHERE p.guild_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM puzzle_attempts AS a "
            "WHERE a.puzzle_id = p.id AND a.user_id = ?) "
            "AND NOT EXISTS (SELECT 1 FROM puzzle_opt_outs AS o "
            "WHERE o.guild_id = p.guild_id AND o.user_id = p.player_id)"
        )
        params: list[Any] = [guild_id, user_id]
        if game is not None:
            sql += " AND p.game = ?"
            params.append(game)
        if not include_own:
            sql += " AND p.player_id <> ?"
            params.append(user_id)
        sql += " ORDER BY p.id LIMIT ?"
        params.append(limit)
        return await self._query(sql, params)

    async def puzzle_games(self, guild_id: int) -> set[str]:
        rows = await self._query(
            "SELECT DISTINCT game FROM puzzles WHERE guild_id = ?", (guild_id,)
        )
        return {str(row["game"]) for row in rows}

    async def puzzle_pool(self, guild_id: int) -> dict[str, int]:
        rows = await self._query(
            "SELECT p.game, count(*) AS n FROM puzzles AS p WHERE p.guild_id = ? "
            "AND p.posted_at IS NULL AND NOT EXISTS (SELECT 1 FROM puzzle_opt_outs AS o "
            "WHERE o.guild_id = p.guild_id AND o.user_id = p.player_id) GROUP BY p.game",
            (guild_id,),
        )
        return {str(row["game"]): int(row["n"]) for row in rows}

    async def unposted_puzzle(self, guild_id: int, game: str) -> Row | None:
        rows = await self._query(
            "SELECT * FROM puzzles AS p WHERE p.guild_id = ? AND p.game = ? "
            "AND p.posted_at IS NULL AND NOT EXISTS (SELECT 1 FROM puzzle_opt_outs AS o "
            "WHERE o.guild_id = p.guild_id AND o.user_id = p.player_id) "
            "ORDER BY p.id LIMIT 1",
            (guild_id, game),
        )
        return rows[0] if rows else None

    async def posted_puzzles(self, guild_id: int, limit: int) -> list[Row]:
        return await self._query(
            "SELECT * FROM puzzles WHERE guild_id = ? AND posted_at IS NOT NULL "
            "ORDER BY posted_at DESC, id DESC LIMIT ?",
            (guild_id, limit),
        )

    async def update_puzzle(self, puzzle_id: int, /, **changes: Any) -> None:
        names = columns(PUZZLE_POST_COLUMNS, changes)
        sql = f"UPDATE puzzles SET {set_clause(names)} WHERE id = ?"
        await self._changed(self._dialect(sql), (*changes.values(), puzzle_id))

    async def claim_puzzle_post(self, puzzle_id: int, at: float) -> bool:
        sql = "UPDATE puzzles SET posted_at = ? WHERE id = ? AND posted_at IS NULL"
        return await self._changed(self._dialect(sql), (at, puzzle_id)) == 1

    async def puzzle_solvers(self, puzzle_id: int) -> list[str]:
        rows = await self._query(
            "SELECT r.name FROM puzzle_attempts AS a JOIN puzzles AS p ON p.id = a.puzzle_id "
            "JOIN puzzle_ratings AS r ON r.guild_id = p.guild_id AND r.user_id = a.user_id "
            "WHERE a.puzzle_id = ? AND a.correct = 1 ORDER BY a.at, a.user_id",
            (puzzle_id,),
        )
        return [str(row["name"]) for row in rows]

    async def record_puzzle_attempt(
        self,
        attempt: dict[str, Any],
        member: dict[str, Any],
        puzzle: dict[str, Any],
    ) -> bool:
        correct = int(bool(attempt["correct"]))
        return await self._guarded(
            [
                (
                    _ATTEMPT,
                    (
                        attempt["puzzle_id"],
                        attempt["user_id"],
                        attempt["choice"],
                        correct,
                        attempt["at"],
                    ),
                ),
                (
                    _MEMBER_RATING,
                    (
                        member["guild_id"],
                        attempt["user_id"],
                        member["name"],
                        member["rating"],
                        member["deviation"],
                        member["volatility"],
                        correct,
                    ),
                ),
                (
                    _PUZZLE_RATING,
                    (
                        puzzle["rating"],
                        puzzle["deviation"],
                        puzzle["volatility"],
                        correct,
                        attempt["puzzle_id"],
                    ),
                ),
            ]
        )

    async def puzzle_attempt(self, puzzle_id: int, user_id: int) -> Row | None:
        rows = await self._query(
            "SELECT * FROM puzzle_attempts WHERE puzzle_id = ? AND user_id = ?",
            (puzzle_id, user_id),
        )
        return rows[0] if rows else None

    async def puzzle_attempts(self, puzzle_id: int) -> list[Row]:
        return await self._query(
            "SELECT * FROM puzzle_attempts WHERE puzzle_id = ? ORDER BY at, user_id",
            (puzzle_id,),
        )

    async def puzzle_rating_row(self, guild_id: int, user_id: int) -> Row | None:
        rows = await self._query(
            "SELECT * FROM puzzle_ratings WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return rows[0] if rows else None

    async def puzzle_board(self, guild_id: int, limit: int, offset: int = 0) -> list[Row]:
        return await self._member_rows(self._dialect(PUZZLE_BOARD), (guild_id, limit, offset))

    async def puzzle_place(self, guild_id: int, user_id: int) -> tuple[int | None, int]:
        place = await self._member_rows(self._dialect(PUZZLE_PLACE), (guild_id, user_id))
        size = await self._member_rows(self._dialect(PUZZLE_BOARD_SIZE), (guild_id,))
        return (int(place[0]["place"]) if place else None), int(size[0]["n"])

    async def set_puzzle_opt_out(self, guild_id: int, user_id: int, out: bool, at: float) -> None:
        if out:
            sql = (
                "INSERT INTO puzzle_opt_outs (guild_id, user_id, at) VALUES (?, ?, ?) "
                "ON CONFLICT (guild_id, user_id) DO NOTHING"
            )
            await self._changed(self._dialect(sql), (guild_id, user_id, at))
        else:
            sql = "DELETE FROM puzzle_opt_outs WHERE guild_id = ? AND user_id = ?"
            await self._changed(self._dialect(sql), (guild_id, user_id))

    async def unmined_analyses(self, guilds: GuildShards | None = None) -> list[int]:
        rows = await self._query(
            "SELECT a.match_id FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            "WHERE a.status = 'done' AND a.puzzles_mined_at IS NULL"
            f"{guild_condition(guilds, 'm.guild_id')} ORDER BY a.finished_at, a.match_id"
        )
        return [int(row["match_id"]) for row in rows]

    async def puzzle_opted_out(self, guild_id: int, user_id: int) -> bool:
        rows = await self._query(
            "SELECT 1 AS out FROM puzzle_opt_outs WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return bool(rows)
