"""The :class:`Store` protocol: everything the service and the app ask of a database, as named
methods. No SQL and no driver type crosses it; rows come back as :class:`~bot.storage.types.Row`
(read by column name), the rest as the plain values of :mod:`bot.storage.types`.

Two implementations, with the same semantics: :class:`bot.storage.sqlite.SqliteStore` (a file)
and :class:`bot.storage.postgres.PostgresStore` (a ``postgresql://`` URL); the tests of
``tests/storage`` run on both. Every write the service makes is one method, and every such method
is one transaction (or one autocommitted statement), so a backend never has a transaction open
across an ``await`` of the caller's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from bot.storage.types import (
    EventRow,
    Finisher,
    GuildShards,
    NewEvent,
    RobotRecordUpdate,
    Row,
    StatUpdate,
)


class Store(Protocol):
    """A tablebot database. ``open_store(target)`` (in :mod:`bot.storage`) makes one, unopened;
    ``await store.connect()`` opens it, ``await store.close()`` closes it.

    Every error a method raises is a :class:`~bot.storage.types.StoreError` (the driver's, if
    any, as its ``__cause__``): ``StoreNotOpen`` before ``connect`` and after ``close``,
    ``StoreUnavailable`` when the database can't be reached, ``ConstraintViolation`` for a
    write that broke a key, ``StatementFailed`` for any other refusal; ``connect`` also raises
    ``SchemaTooNew`` and ``MigrationFailed``. Except :class:`~bot.storage.types.VersionConflict`
    (:meth:`commit_action`'s compare-and-set lost), which is not an error of the database.
    """

    # --- lifecycle ----------------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the database, creating and migrating it as needed. Connecting a store that is
        already open does nothing; one that was closed raises ``StoreNotOpen``."""
        ...

    async def close(self) -> None:
        """Refuse new work, let the work already admitted finish, then close. Closing twice,
        or a store never connected, is harmless."""
        ...

    # --- guild settings -----------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        """The guild's saved settings, ``{}`` when none were saved."""
        ...

    async def save_guild_settings(self, guild_id: int, data: dict[str, Any], at: float) -> None:
        """Replace the guild's settings with ``data`` (saved at time ``at``)."""
        ...

    async def guilds_with_settings(self) -> list[int]:
        """Every guild that saved settings (one row each: read once, at start-up)."""
        ...

    async def member_language(self, user_id: int) -> str | None:
        """The language the member chose (a locale code), None when they chose none."""
        ...

    async def save_member_language(self, user_id: int, locale: str | None, at: float) -> None:
        """Keep the member's language choice (None: forget it) at time ``at``."""
        ...

    # --- challenges ---------------------------------------------------------------------------

    async def insert_challenge(self, values: dict[str, Any]) -> int:
        """Insert a challenge (``values`` by column: a name that is not one is a
        :class:`ValueError`); its new id."""
        ...

    async def challenge(self, challenge_id: int) -> Row | None:
        """The challenge's row, or None."""
        ...

    async def set_challenge_status(
        self, challenge_id: int, status: str, *, only_if: str = "open"
    ) -> bool:
        """Move a challenge out of ``only_if``; False when it had already left that status."""
        ...

    async def set_challenge_message(self, challenge_id: int, message_id: int | None) -> None:
        """Record the message that shows the challenge."""
        ...

    async def expire_challenges(
        self, now: float, guilds: GuildShards | None = None, ids: Sequence[int] | None = None
    ) -> list[Row]:
        """Mark every open challenge that expired by ``now`` (in ``guilds``' guilds; None: in
        every guild; of ``ids`` only, when given) as expired, in one transaction; their rows as
        they were before (status still ``open``). A compare-and-set: of several processes
        expiring at once, each challenge is returned to one."""
        ...

    # --- matches ------------------------------------------------------------------------------

    async def create_match(
        self,
        challenge_id: int,
        values: dict[str, Any],
        events: Sequence[NewEvent],
        snapshot: dict[str, Any],
        game_results: Iterable[dict[str, Any]] = (),
    ) -> int | None:
        """Accept the open challenge and insert its match (``values`` by column) with its first
        events (seq 0 on), snapshot and finished games, atomically.

        Returns the match id, or None when the challenge was no longer open (a double click).
        """
        ...

    async def match_row(self, match_id: int) -> Row | None:
        """The match's row, or None."""
        ...

    async def snapshot(self, match_id: int) -> dict[str, Any] | None:
        """The match's stored snapshot, or None."""
        ...

    async def events(self, match_id: int) -> list[EventRow]:
        """The match's event log, in order."""
        ...

    async def event_count(self, match_id: int) -> int:
        """How many events the match has."""
        ...

    async def commit_action(
        self,
        match_id: int,
        expected_version: int,
        first_seq: int,
        events: Sequence[NewEvent],
        snapshot: dict[str, Any],
        changes: dict[str, Any],
        game_results: Iterable[dict[str, Any]] = (),
        stat_updates: Iterable[StatUpdate] = (),
        finish: Finisher | None = None,
        robot_records: Iterable[RobotRecordUpdate] = (),
    ) -> None:
        """The one transaction of an action: append ``events`` from ``first_seq``, replace the
        snapshot, update the match row (``changes`` by column) and bump its version, record
        finished games (``game_results``), stats (``stat_updates``, applied in order) and
        records against the robot (``robot_records``, added to, rows made as needed).

        With ``finish`` (a match's last action): first, inside the same transaction, read the
        current ratings rows of the match's two players (by user id, in the match's guild and
        game), call ``finish(rows)`` (pure) and apply the stat updates and match columns it
        returns after the others. Reading there means two matches ending at once can't lose an
        update.

        Raises :class:`~bot.storage.types.VersionConflict`, and writes nothing, when the match's
        version is not ``expected_version``; any error writes nothing. Once started it runs to
        its end even if the caller is cancelled (committed or rolled back whole).
        """
        ...

    async def update_match(self, match_id: int, /, **changes: Any) -> None:
        """Set bookkeeping columns (``thread_id``, ``board_message_id``, ``reminded_version``)
        without a new version; any other name is a :class:`ValueError`, and writes nothing."""
        ...

    async def active_match_rows(self, guilds: GuildShards | None = None) -> list[Row]:
        """Every active match's row (in ``guilds``' guilds; None: in every guild), by id."""
        ...

    async def claim_reminder(self, match_id: int, version: int) -> bool:
        """Record that the idle-match reminder for ``version`` is being sent: a compare-and-set
        that succeeds only while the match is at ``version`` and not yet reminded for it. True
        for the one caller that set it (of several processes asking at once, one wins)."""
        ...

    async def game_results(self, match_id: int) -> list[Row]:
        """The match's finished games, by game number."""
        ...

    async def active_match_ids(self, guild_id: int, user_id: int) -> list[int]:
        """The ids of the user's active matches in the guild, ascending."""
        ...

    async def match_id_in_thread(self, thread_id: int) -> int | None:
        """The match played in the thread: its active one if any, else the newest; or None."""
        ...

    async def candidate_match_ids(self, guild_id: int, channel_id: int, user_id: int) -> list[int]:
        """The ids of the user's active matches in the guild whose channel or thread is
        ``channel_id``, ascending."""
        ...

    async def history_rows(self, guild_id: int, user_id: int, limit: int) -> list[Row]:
        """The rows of the user's matches in the guild (any status), newest first, at most
        ``limit``."""
        ...

    # --- ratings and stats --------------------------------------------------------------------

    async def rating_board(
        self, guild_id: int, game: str, limit: int, offset: int = 0
    ) -> list[Row]:
        """The leaderboard by rating: ratings rows of players with a played match (columns
        user_id, name, rating, played, won, lost, drawn, points_won, points_lost), by rating
        descending, then wins descending, then user id; at most ``limit``, after the first
        ``offset``."""
        ...

    async def length_board(
        self, guild_id: int, game: str, length: int, limit: int, offset: int = 0
    ) -> list[Row]:
        """The leaderboard over finished matches of one length (the same columns as
        :meth:`rating_board`, counted over those matches, with the overall rating), in the same
        order; at most ``limit``, after the first ``offset``. A match against the robot counts
        only if it was rated (its ``rating_changes`` were recorded). Read from the records
        the database keeps as matches finish (``length_records``), not from the history."""
        ...

    async def board_place(
        self, guild_id: int, game: str, length: int | None, user_id: int
    ) -> tuple[int | None, int]:
        """The member's rank (1-based) on :meth:`rating_board` (``length`` None) or on
        :meth:`length_board` of ``length``, None when they are not on it; and the number of
        rows the board holds (its last rank)."""
        ...

    async def stats_row(self, guild_id: int, game: str, user_id: int) -> Row | None:
        """The player's ratings row (rating, experience, streak and every ``STAT_COLUMNS``
        counter), or None before their first game."""
        ...

    async def robot_records(self, guild_id: int, game: str, user_id: int) -> list[Row]:
        """The player's records against the robot in ``game``, one row per level played
        (columns level and every ``ROBOT_RECORD_COLUMNS`` counter), by level."""
        ...

    async def record_shout(
        self, match_id: int, game_number: int, user_id: int, guild_id: int, game: str, at: float
    ) -> bool:
        """Record the shout once per game and count it for the user; False if already
        shouted."""
        ...

    # --- analyses -----------------------------------------------------------------------------

    async def queue_analysis(
        self, match_id: int, ply: int, requester_id: int | None, at: float
    ) -> bool:
        """Queue the match's analysis: a new ``analyses`` row, or a failed one queued again
        (its progress and result cleared). False, and nothing written, when it is queued,
        running or done already (of several callers at once, one queues it)."""
        ...

    async def analysis_row(self, match_id: int) -> Row | None:
        """The match's ``analyses`` row, or None when it was never queued."""
        ...

    async def pending_analyses(self, guilds: GuildShards | None = None) -> list[Row]:
        """The queued and running analyses (of matches in ``guilds``' guilds; None: every
        guild), oldest request first, then by match id."""
        ...

    async def update_analysis(self, match_id: int, /, **changes: Any) -> None:
        """Set columns of the match's ``analyses`` row (status, progress, message, result);
        a name that is not one of its columns (the key aside) is a :class:`ValueError`."""
        ...

    async def analysis_averages(self, guild_id: int, game: str, user_id: int) -> Row:
        """Over the player's finished analyses in the guild and game: ``analysed`` (how many),
        ``error_rate`` and ``pr`` (their averages, NULL when none)."""
        ...

    # --- tournaments --------------------------------------------------------------------------

    async def insert_tournament(self, values: dict[str, Any]) -> int:
        """Insert a tournament (``values`` by column); its new id."""
        ...

    async def tournament(self, tournament_id: int) -> Row | None:
        """The tournament's row, or None."""
        ...

    async def guild_tournaments(self, guild_id: int, limit: int) -> list[Row]:
        """The guild's tournaments, newest first."""
        ...

    async def live_tournaments(self, guilds: GuildShards | None = None) -> list[Row]:
        """Tournaments signing up or running (in ``guilds``; None: everywhere)."""
        ...

    async def update_tournament(
        self, tournament_id: int, version: int, changes: dict[str, Any]
    ) -> bool:
        """Set ``changes`` and move to the next version, only if it is on ``version``
        (compare-and-set); False when another change came first."""
        ...

    async def set_tournament_message(self, tournament_id: int, message_id: int | None) -> None:
        """Record the message that announces the tournament (bookkeeping: no new version)."""
        ...

    async def begin_round(
        self,
        tournament_id: int,
        version: int,
        changes: dict[str, Any],
        pairings: Sequence[dict[str, Any]],
    ) -> bool:
        """As :meth:`update_tournament`, inserting the round's ``pairings`` (by column) in the
        same transaction: a round is paired once, by whoever sets the version first."""
        ...

    async def add_entry(self, values: dict[str, Any]) -> bool:
        """Enter a player (``values`` by column); False when they were entered already."""
        ...

    async def remove_entry(self, tournament_id: int, user_id: int) -> bool:
        """Take an entry out (sign-up only); False when there was none."""
        ...

    async def withdraw_entry(self, tournament_id: int, user_id: int, at: float) -> bool:
        """Mark an entrant withdrawn at ``at``; False when they had withdrawn already."""
        ...

    async def tournament_entries(self, tournament_id: int) -> list[Row]:
        """The entries, in the order they joined."""
        ...

    async def tournament_pairings(self, tournament_id: int) -> list[Row]:
        """Every round's pairings, by round and board, each with its match (``match_id``,
        ``match_status``, ``winner_seat``, ``seat0_id``, the seats' ``score0`` and ``score1``;
        NULL before the match exists)."""
        ...

    async def claim_pairing_challenge(
        self, tournament_id: int, round_number: int, board: int, challenge_id: int
    ) -> bool:
        """Give the pairing the challenge its match starts from, if it has none yet."""
        ...

    async def record_pairing_result(
        self, tournament_id: int, round_number: int, board: int, points_first: float, decided: str
    ) -> bool:
        """Record the pairing's result once: False when it had one already."""
        ...

    async def tournament_of_match(self, match_id: int) -> int | None:
        """The tournament a match was played in, or None."""
        ...

    async def tournament_record(self, guild_id: int, user_id: int) -> tuple[int, int]:
        """Finished tournaments the member entered, and won, in the guild."""

    # --- puzzles ------------------------------------------------------------------------------

    async def insert_puzzle(self, values: dict[str, Any]) -> int | None:
        """Store a puzzle (``values`` by column of ``PUZZLE_COLUMNS``); its id, or None (and
        nothing written) when the guild has the same position of the game already."""
        ...

    async def puzzle_row(self, puzzle_id: int) -> Row | None: ...

    async def puzzle_candidates(
        self, guild_id: int, game: str | None, user_id: int, include_own: bool, limit: int
    ) -> list[Row]:
        """The guild's puzzles (of ``game``; None: any) the member has not tried, none from
        an opted-out player's games, and unless ``include_own`` none of the member's own; by
        id, at most ``limit``."""
        ...

    async def puzzle_games(self, guild_id: int) -> set[str]:
        """The games the guild has any puzzle of (tried, posted or not)."""
        ...

    async def puzzle_pool(self, guild_id: int) -> dict[str, int]:
        """How many puzzles per game the daily post has not shown yet (opted-out left out)."""
        ...

    async def unposted_puzzle(self, guild_id: int, game: str) -> Row | None:
        """The oldest puzzle of ``game`` the daily post has not shown (opted-out left out)."""
        ...

    async def posted_puzzles(self, guild_id: int, limit: int) -> list[Row]:
        """The daily posts' puzzles, newest first."""
        ...

    async def update_puzzle(self, puzzle_id: int, /, **changes: Any) -> None:
        """Set the daily post's columns (``PUZZLE_POST_COLUMNS``; another is a ValueError)."""
        ...

    async def claim_puzzle_post(self, puzzle_id: int, at: float) -> bool:
        """Mark the puzzle posted at ``at``; False when it was posted already (one poster)."""
        ...

    async def puzzle_solvers(self, puzzle_id: int) -> list[str]:
        """The names of the members who solved the puzzle, in order of their answers."""
        ...

    async def record_puzzle_attempt(
        self, attempt: dict[str, Any], member: dict[str, Any], puzzle: dict[str, Any]
    ) -> bool:
        """In one transaction: the member's attempt (``puzzle_id``, ``user_id``, ``choice``,
        ``correct``, ``at``), their new rating (``guild_id``, ``name``, ``rating``,
        ``deviation``, ``volatility``; attempts and solved counted) and the puzzle's (the
        same three). False, and nothing written, when the member tried it already."""
        ...

    async def puzzle_attempt(self, puzzle_id: int, user_id: int) -> Row | None: ...

    async def puzzle_attempts(self, puzzle_id: int) -> list[Row]:
        """Every attempt at the puzzle, oldest first."""
        ...

    async def puzzle_rating_row(self, guild_id: int, user_id: int) -> Row | None:
        """The member's puzzle rating and counts, None before their first attempt."""
        ...

    async def puzzle_board(self, guild_id: int, limit: int, offset: int = 0) -> list[Row]:
        """The guild's solvers by puzzle rating (then solved, then user id), at most
        ``limit``, after the first ``offset``."""
        ...

    async def puzzle_place(self, guild_id: int, user_id: int) -> tuple[int | None, int]:
        """The member's rank on :meth:`puzzle_board` (None when not on it) and how many
        solvers the board holds."""
        ...

    async def set_puzzle_opt_out(self, guild_id: int, user_id: int, out: bool, at: float) -> None:
        """Keep the member's games out of puzzles (``out``), or let them in again."""
        ...

    async def puzzle_opted_out(self, guild_id: int, user_id: int) -> bool: ...

    # --- deadlines (issue 34: one clock for every deadline) ------------------------------------

    async def arm_deadline(self, kind: str, key: str, due_at: float) -> None:
        """Arm the ``(kind, key)`` deadline at ``due_at``; re-arming one (fired or not) sets
        its new time and forgets its claim."""
        ...

    async def cancel_deadline(self, kind: str, key: str) -> bool:
        """Forget a deadline, fired or not (what it timed is over: a finished match keeps no
        rows); whether there was one not yet fired."""
        ...

    async def deadline(self, kind: str, key: str) -> Row | None:
        """The ``(kind, key)`` deadline's row, or None."""
        ...

    async def due_deadlines(self, now: float, limit: int = 100) -> list[Row]:
        """Unfired deadlines due by ``now`` and not under a live claim, soonest first."""
        ...

    async def next_deadline_at(self) -> float | None:
        """The due time of the soonest unfired deadline, None when none is armed."""
        ...

    async def claim_deadline(self, deadline_id: int, owner: str, now: float, lease: float) -> bool:
        """Compare-and-set: claim a due, unfired deadline for ``owner`` until ``now + lease``
        when no live claim holds it; of several processes asking at once exactly one wins."""
        ...

    async def fire_deadline(self, deadline_id: int, owner: str, at: float) -> bool:
        """Mark ``owner``'s claimed deadline fired at ``at``; False when the claim was lost."""
        ...

    async def unmined_analyses(self, guilds: GuildShards | None = None) -> list[int]:
        """The matches (in ``guilds``' guilds; None: every guild) whose analysis is done but
        not mined for puzzles yet, oldest first."""
        ...


@runtime_checkable
class RawSql(Protocol):
    """Raw SQL on a store's own connection, for diagnostics: operators' tools, tests and
    benchmarks that inspect (or, as someone with the database could, tamper with) the tables.
    Not part of :class:`Store`: the service says what it wants by name. Both stores are one;
    statements are written in SQLite's dialect (``?`` placeholders), which the PostgreSQL store
    numbers (``$1`` ...). Errors are :class:`~bot.storage.types.StoreError` subclasses, as
    ever."""

    async def raw_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of one query."""
        ...

    async def raw_execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement, autocommitted; how many rows it changed."""
        ...
