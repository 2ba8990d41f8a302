"""The tournament tables' methods of the :class:`~bot.storage.protocol.Store`, written once for
both stores (a mixin of :class:`~bot.storage.sqlite.SqliteStore` and
:class:`~bot.storage.postgres.PostgresStore`): each is one statement, in SQLite's placeholders
put in the store's dialect, except :meth:`TournamentOperations.begin_round`, whose
compare-and-set and pairings are one transaction (the backend's :meth:`_guarded`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from bot.storage.statements import columns, insert_sql
from bot.storage.types import GuildShards, Row, guild_condition

TOURNAMENT_COLUMNS = (
    "guild_id", "channel_id", "organiser_id", "organiser_name", "game", "format", "rules",
    "max_players", "rounds", "round_days", "starts_at", "robot_level", "status", "round",
    "round_deadline", "reported_round", "message_id", "winner_id", "created_at", "finished_at",
)  # fmt: skip
ENTRY_COLUMNS = ("tournament_id", "user_id", "name", "rating", "robot", "joined_at")
PAIRING_COLUMNS = ("tournament_id", "round", "board", "first_id", "second_id", "points_first",
                   "decided")  # fmt: skip

# Each pairing with its match, found through the challenge it starts from.
_PAIRINGS = (
    "SELECT p.*, m.id AS match_id, m.status AS match_status, m.winner_seat AS winner_seat, "
    "m.player0_id AS seat0_id, m.score0 AS score0, m.score1 AS score1 "
    "FROM tournament_pairings AS p "
    "LEFT JOIN matches AS m ON m.challenge_id = p.challenge_id "
    "WHERE p.tournament_id = ? ORDER BY p.round, p.board"
)


class TournamentOperations(ABC):
    @abstractmethod
    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    @abstractmethod
    def _dialect(self, sql: str) -> str: ...

    @abstractmethod
    async def _insert(self, sql: str, params: Sequence[Any]) -> int:
        """One INSERT (SQLite's placeholders) of a row with an id column; the new id."""

    @abstractmethod
    async def _guarded(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> bool:
        """The statements (SQLite's placeholders) as one transaction when the first changes
        exactly one row; False (nothing written) when it changes none."""

    @abstractmethod
    async def _member_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """A member's read-only query no write depends on (``SharedOperations``')."""

    async def _select(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._rows(self._dialect(sql), params)

    async def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return await self._changed(self._dialect(sql), params)

    async def insert_tournament(self, values: dict[str, Any]) -> int:
        return await self._insert(
            insert_sql("tournaments", TOURNAMENT_COLUMNS, values), tuple(values.values())
        )

    async def tournament(self, tournament_id: int) -> Row | None:
        rows = await self._select("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        return rows[0] if rows else None

    async def guild_tournaments(self, guild_id: int, limit: int) -> list[Row]:
        return await self._select(
            "SELECT * FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
            (guild_id, limit),
        )

    async def live_tournaments(self, guilds: GuildShards | None = None) -> list[Row]:
        return await self._select(
            "SELECT * FROM tournaments WHERE status IN ('signup', 'running')"
            f"{guild_condition(guilds)} ORDER BY id"
        )

    def _cas(
        self, tournament_id: int, version: int, changes: dict[str, Any]
    ) -> tuple[str, tuple[Any, ...]]:
        """Set ``changes`` and the next version, only on ``version`` (compare-and-set)."""
        sets = "".join(f"{name} = ?, " for name in columns(TOURNAMENT_COLUMNS, changes))
        sql = f"UPDATE tournaments SET {sets}version = version + 1 WHERE id = ? AND version = ?"
        return sql, (*changes.values(), tournament_id, version)

    async def update_tournament(
        self, tournament_id: int, version: int, changes: dict[str, Any]
    ) -> bool:
        return await self._execute(*self._cas(tournament_id, version, changes)) == 1

    async def set_tournament_message(self, tournament_id: int, message_id: int | None) -> None:
        sql = "UPDATE tournaments SET message_id = ? WHERE id = ?"
        await self._execute(sql, (message_id, tournament_id))

    async def begin_round(
        self,
        tournament_id: int,
        version: int,
        changes: dict[str, Any],
        pairings: Sequence[dict[str, Any]],
    ) -> bool:
        statements: list[tuple[str, Sequence[Any]]] = [self._cas(tournament_id, version, changes)]
        for pairing in pairings:
            values = {"tournament_id": tournament_id, **pairing}
            statements.append(
                (insert_sql("tournament_pairings", PAIRING_COLUMNS, values), tuple(values.values()))
            )
        return await self._guarded(statements)

    async def add_entry(self, values: dict[str, Any]) -> bool:
        sql = f"{insert_sql('tournament_entries', ENTRY_COLUMNS, values)} ON CONFLICT DO NOTHING"
        return await self._execute(sql, tuple(values.values())) == 1

    async def remove_entry(self, tournament_id: int, user_id: int) -> bool:
        sql = "DELETE FROM tournament_entries WHERE tournament_id = ? AND user_id = ?"
        return await self._execute(sql, (tournament_id, user_id)) == 1

    async def withdraw_entry(self, tournament_id: int, user_id: int, at: float) -> bool:
        sql = (
            "UPDATE tournament_entries SET withdrawn_at = ? "
            "WHERE tournament_id = ? AND user_id = ? AND withdrawn_at IS NULL"
        )
        return await self._execute(sql, (at, tournament_id, user_id)) == 1

    async def tournament_entries(self, tournament_id: int) -> list[Row]:
        return await self._select(
            "SELECT * FROM tournament_entries WHERE tournament_id = ? ORDER BY joined_at, user_id",
            (tournament_id,),
        )

    async def tournament_pairings(self, tournament_id: int) -> list[Row]:
        return await self._select(_PAIRINGS, (tournament_id,))

    async def claim_pairing_challenge(
        self, tournament_id: int, round_number: int, board: int, challenge_id: int
    ) -> bool:
        sql = (
            "UPDATE tournament_pairings SET challenge_id = ? WHERE tournament_id = ? "
            "AND round = ? AND board = ? AND challenge_id IS NULL"
        )
        return await self._execute(sql, (challenge_id, tournament_id, round_number, board)) == 1

    async def record_pairing_result(
        self, tournament_id: int, round_number: int, board: int, points_first: float, decided: str
    ) -> bool:
        sql = (
            "UPDATE tournament_pairings SET points_first = ?, decided = ? WHERE tournament_id = ? "
            "AND round = ? AND board = ? AND points_first IS NULL"
        )
        params = (points_first, decided, tournament_id, round_number, board)
        return await self._execute(sql, params) == 1

    async def tournament_of_match(self, match_id: int) -> int | None:
        rows = await self._select(
            "SELECT p.tournament_id FROM tournament_pairings AS p "
            "JOIN matches AS m ON m.challenge_id = p.challenge_id WHERE m.id = ?",
            (match_id,),
        )
        return None if not rows else int(rows[0]["tournament_id"])

    async def tournament_record(self, guild_id: int, user_id: int) -> tuple[int, int]:
        sql = (
            "SELECT count(*) AS played, "
            "coalesce(sum(CASE WHEN t.winner_id = e.user_id THEN 1 ELSE 0 END), 0) AS won "
            "FROM tournament_entries AS e JOIN tournaments AS t ON t.id = e.tournament_id "
            "WHERE t.guild_id = ? AND e.user_id = ? AND t.status = 'finished'"
        )
        rows = await self._member_rows(self._dialect(sql), (guild_id, user_id))
        return int(rows[0]["played"]), int(rows[0]["won"])
