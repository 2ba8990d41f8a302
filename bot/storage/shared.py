"""The :class:`~bot.storage.protocol.Store` methods both stores run the same way: one statement
of :mod:`bot.storage.statements`, in the store's dialect (its class-level :attr:`SQL`), its rows
mapped the same way. A mixin of :class:`~bot.storage.sqlite.SqliteStore` and
:class:`~bot.storage.postgres.PostgresStore`, which run the statements (:meth:`_rows`,
:meth:`_row`, :meth:`_changed`: one call each, autocommitted) and keep what differs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from bot.storage.statements import (
    ANALYSIS_COLUMNS,
    MATCH_BOOKKEEPING_COLUMNS,
    Statements,
    columns,
    event_row,
    json_object,
    set_clause,
)
from bot.storage.types import EventRow, GuildShards, Row, dumps, guild_condition


class SharedOperations(ABC):
    SQL: ClassVar[Statements]

    @abstractmethod
    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of one query (``sql`` in the store's dialect)."""

    async def _row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row (every caller asks for at most one)."""
        rows = await self._rows(sql, params)
        return rows[0] if rows else None

    async def _member_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of a member's read-only query that no write depends on (boards,
        /history, /stats, /games): a store may answer it beside its writes (SQLite: on the
        reader connection), seeing what was committed when it runs. Every other read keeps
        :meth:`_rows`' order with the writes asked before it."""
        return await self._rows(sql, params)

    async def _member_row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self._member_rows(sql, params)
        return rows[0] if rows else None

    @abstractmethod
    async def _changed(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement, its own (autocommitted) transaction; the rows it changed."""

    @abstractmethod
    def _dialect(self, sql: str) -> str:
        """``sql``, written with SQLite's placeholders, in the store's dialect."""

    async def _update(
        self,
        table: str,
        key: str,
        key_value: int,
        allowed: tuple[str, ...],
        changes: dict[str, Any],
    ) -> None:
        """Set ``changes`` (columns of ``allowed`` only) on ``table``'s row ``key = key_value``."""
        names = columns(allowed, changes)
        sql = f"UPDATE {table} SET {set_clause(names)} WHERE {key} = ?"
        await self._changed(self._dialect(sql), (*changes.values(), key_value))

    # --- diagnostics (RawSql) -----------------------------------------------------------------

    async def raw_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Diagnostics (:class:`~bot.storage.protocol.RawSql`): the rows of one query, written
        with SQLite's ``?`` placeholders, on the store's own connection (SQLite: in order with
        the writes queued before it) or pool."""
        return await self._rows(self._dialect(sql), params)

    async def raw_execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Diagnostics: one statement (``?`` placeholders), autocommitted; the rows it
        changed."""
        return await self._changed(self._dialect(sql), params)

    # --- guild settings -----------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        return json_object(await self._row(self.SQL.guild_settings, (guild_id,))) or {}

    async def save_guild_settings(self, guild_id: int, data: dict[str, Any], at: float) -> None:
        await self._changed(self.SQL.save_guild_settings, (guild_id, dumps(data), at))

    async def guilds_with_settings(self) -> list[int]:
        return [int(row["guild_id"]) for row in await self._rows(self.SQL.guilds_with_settings)]

    # --- member languages ---------------------------------------------------------------------

    async def member_language(self, user_id: int) -> str | None:
        row = await self._row(self.SQL.member_language, (user_id,))
        return None if row is None else str(row["locale"])

    async def save_member_language(self, user_id: int, locale: str | None, at: float) -> None:
        if locale is None:
            await self._changed(self.SQL.forget_member_language, (user_id,))
        else:
            await self._changed(self.SQL.save_member_language, (user_id, locale, at))

    # --- challenges ---------------------------------------------------------------------------

    async def challenge(self, challenge_id: int) -> Row | None:
        return await self._row(self.SQL.challenge, (challenge_id,))

    async def set_challenge_status(
        self, challenge_id: int, status: str, *, only_if: str = "open"
    ) -> bool:
        """Move a challenge out of ``only_if``; False when it had already left that status."""
        params = (status, challenge_id, only_if)
        return await self._changed(self.SQL.set_challenge_status, params) == 1

    async def set_challenge_message(self, challenge_id: int, message_id: int | None) -> None:
        await self._changed(self.SQL.set_challenge_message, (message_id, challenge_id))

    # --- matches ------------------------------------------------------------------------------

    async def match_row(self, match_id: int) -> Row | None:
        return await self._row(self.SQL.match_row, (match_id,))

    async def snapshot(self, match_id: int) -> dict[str, Any] | None:
        return json_object(await self._row(self.SQL.snapshot, (match_id,)))

    async def events(self, match_id: int) -> list[EventRow]:
        return [event_row(row) for row in await self._rows(self.SQL.events, (match_id,))]

    async def event_count(self, match_id: int) -> int:
        row = await self._row(self.SQL.event_count, (match_id,))
        assert row is not None
        return int(row["n"])

    async def update_match(self, match_id: int, /, **changes: Any) -> None:
        """Set bookkeeping columns (thread, board message, reminder) without a new version:
        only those (:data:`~bot.storage.statements.MATCH_BOOKKEEPING_COLUMNS`); another name is
        a :class:`ValueError`."""
        await self._update("matches", "id", match_id, MATCH_BOOKKEEPING_COLUMNS, changes)

    async def active_match_rows(self, guilds: GuildShards | None = None) -> list[Row]:
        return await self._rows(
            f"SELECT * FROM matches WHERE status = 'active'{guild_condition(guilds)} ORDER BY id"
        )

    async def game_results(self, match_id: int) -> list[Row]:
        return await self._rows(self.SQL.game_results, (match_id,))

    async def active_match_ids(self, guild_id: int, user_id: int) -> list[int]:
        rows = await self._member_rows(self.SQL.active_match_ids, (guild_id, user_id))
        return [row["id"] for row in rows]

    async def match_id_in_thread(self, thread_id: int) -> int | None:
        row = await self._row(self.SQL.match_id_in_thread, (thread_id,))
        return None if row is None else int(row["id"])

    async def candidate_match_ids(self, guild_id: int, channel_id: int, user_id: int) -> list[int]:
        params = (guild_id, channel_id, user_id)
        return [row["id"] for row in await self._rows(self.SQL.candidate_match_ids, params)]

    async def history_rows(self, guild_id: int, user_id: int, limit: int) -> list[Row]:
        return await self._member_rows(self.SQL.history_rows, (guild_id, user_id, limit))

    # --- ratings and stats --------------------------------------------------------------------

    async def rating_board(
        self, guild_id: int, game: str, limit: int, offset: int = 0
    ) -> list[Row]:
        """Leaderboard rows by rating, of the players with a played match."""
        return await self._member_rows(self.SQL.rating_board, (guild_id, game, limit, offset))

    async def length_board(
        self, guild_id: int, game: str, length: int, limit: int, offset: int = 0
    ) -> list[Row]:
        """Leaderboard rows over finished matches of one length, with the overall rating."""
        params = (guild_id, game, length, limit, offset)
        return await self._member_rows(self.SQL.length_board, params)

    async def board_place(
        self, guild_id: int, game: str, length: int | None, user_id: int
    ) -> tuple[int | None, int]:
        """The member's rank on the rating board (``length`` None) or the length board (None
        when not on it), and how many the board holds."""
        if length is None:
            place = await self._member_row(self.SQL.rating_place, (guild_id, game, user_id))
            size = await self._member_row(self.SQL.rating_board_size, (guild_id, game))
        else:
            place = await self._member_row(self.SQL.length_place, (guild_id, game, length, user_id))
            size = await self._member_row(self.SQL.length_board_size, (guild_id, game, length))
        assert size is not None
        return (None if place is None else int(place["place"])), int(size["n"])

    async def stats_row(self, guild_id: int, game: str, user_id: int) -> Row | None:
        return await self._row(self.SQL.stats_row, (guild_id, game, user_id))

    async def robot_records(self, guild_id: int, game: str, user_id: int) -> list[Row]:
        return await self._member_rows(self.SQL.robot_records, (guild_id, game, user_id))

    # --- analyses -----------------------------------------------------------------------------

    async def queue_analysis(
        self, match_id: int, ply: int, requester_id: int | None, at: float
    ) -> bool:
        params = (match_id, ply, requester_id, at)
        return await self._changed(self.SQL.queue_analysis, params) == 1

    async def analysis_row(self, match_id: int) -> Row | None:
        return await self._row(self.SQL.analysis_row, (match_id,))

    async def pending_analyses(self, guilds: GuildShards | None = None) -> list[Row]:
        return await self._rows(
            "SELECT a.* FROM analyses AS a JOIN matches AS m ON m.id = a.match_id "
            f"WHERE a.status IN ('queued', 'running'){guild_condition(guilds, 'm.guild_id')} "
            "ORDER BY a.requested_at, a.match_id"
        )

    async def update_analysis(self, match_id: int, /, **changes: Any) -> None:
        """Set columns of the match's ``analyses`` row (of
        :data:`~bot.storage.statements.ANALYSIS_COLUMNS`; another name is a
        :class:`ValueError`)."""
        await self._update("analyses", "match_id", match_id, ANALYSIS_COLUMNS, changes)

    async def analysis_averages(self, guild_id: int, game: str, user_id: int) -> Row:
        row = await self._member_row(self.SQL.analysis_averages, (user_id, guild_id, game))
        assert row is not None
        return row
