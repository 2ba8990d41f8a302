"""The store's API: its lifecycle (construct, connect, close), :func:`open_store`, the named
queries that replaced the service's SQL, and what a finisher is given."""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bot.storage import (
    Row,
    StatUpdate,
    Store,
    StoreNotOpen,
    StoreUnavailable,
    connect_store,
    open_store,
)
from bot.storage.postgres import PostgresStore
from bot.storage.sqlite import SqliteStore

if TYPE_CHECKING:
    from support.postgres_server import EmbeddedPostgres

pytestmark = pytest.mark.asyncio

GUILD = 1


async def test_a_store_opens_nothing_until_connected_and_connects_once(
    store_target: str | Path, backend: str
) -> None:
    store = open_store(store_target)
    if backend == "sqlite":
        assert isinstance(store, SqliteStore) and store.path == store_target
        assert not Path(store_target).exists()
    else:
        assert isinstance(store, PostgresStore) and store.url == store_target
    with pytest.raises(StoreNotOpen, match="not connected"):
        await store.match_row(1)
    await store.connect()
    try:
        if backend == "sqlite":
            assert Path(store_target).exists()
        await store.connect()  # already open: nothing happens
        assert await store.match_row(1) is None
        assert isinstance(store, SqliteStore | PostgresStore)
        assert await store.schema_version() > 0
    finally:
        await store.close()
    with pytest.raises(StoreNotOpen, match="closed"):
        await store.connect()
    with pytest.raises(StoreNotOpen, match="closed"):
        await store.match_row(1)
    never = open_store(store_target)
    await never.close()  # closing a store never connected is harmless
    with pytest.raises(StoreNotOpen, match="closed"):
        await never.connect()


async def test_a_failed_connect_leaves_nothing_open_and_may_be_tried_again(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "later"
    store = SqliteStore(folder / "t.db")
    with pytest.raises(StoreUnavailable, match="unable to open") as refused:
        await store.connect()
    assert isinstance(refused.value.__cause__, sqlite3.OperationalError)
    with pytest.raises(StoreNotOpen, match="not connected"):
        await store.match_row(1)
    folder.mkdir()
    await store.connect()
    try:
        assert await store.match_row(1) is None
    finally:
        await store.close()


@pytest.mark.postgres
async def test_a_failed_postgres_connect_leaves_nothing_open_and_may_be_tried_again(
    postgres_server: EmbeddedPostgres,
) -> None:
    import asyncpg

    name = "created_later"
    store = PostgresStore(postgres_server.url(name))  # a database not created yet
    with pytest.raises(StoreUnavailable, match=name) as refused:
        await store.connect()
    assert isinstance(refused.value.__cause__, asyncpg.InvalidCatalogNameError)
    with pytest.raises(StoreNotOpen, match="not connected"):
        await store.match_row(1)
    postgres_server.create_database(name)
    try:
        await store.connect()
        try:
            assert await store.match_row(1) is None and await store.schema_version() > 0
        finally:
            await store.close()
    finally:
        postgres_server.drop_database(name)


async def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    path.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(StoreUnavailable, match="not a database") as refused:
        await SqliteStore(path).connect()
    assert isinstance(refused.value.__cause__, sqlite3.DatabaseError)


async def test_a_server_that_does_not_answer_is_unavailable_without_the_password() -> None:
    with socket.socket() as probe:  # a local port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://bot:hunter2@127.0.0.1:{port}/tablebot?password=hunter2"
    store = PostgresStore(url)
    with pytest.raises(StoreUnavailable) as refused:
        await store.connect()
    assert isinstance(refused.value.__cause__, OSError)
    assert "hunter2" not in str(refused.value) and str(refused.value)
    with pytest.raises(StoreNotOpen, match="not connected"):  # nothing left open
        await store.match_row(1)


async def test_open_store_picks_sqlite_for_a_path_and_postgresql_for_a_url(
    tmp_path: Path,
) -> None:
    for target in (tmp_path / "a.db", str(tmp_path / "b.db")):
        store = open_store(target)
        assert isinstance(store, SqliteStore) and store.path == target
        assert not Path(target).exists()  # not opened
    for url in (
        "postgresql://bot@localhost/tablebot",
        "postgres://localhost/tablebot",
        "PostgreSQL://bot:secret@db:5432/tablebot",
    ):
        pg = open_store(url)  # nothing connects: no server is listening there
        assert isinstance(pg, PostgresStore) and pg.url == url
        assert "secret" not in repr(pg)
        with pytest.raises(StoreNotOpen, match="not connected"):
            await pg.match_row(1)
    store = await connect_store(tmp_path / "c.db")  # open_store, then connect
    try:
        assert isinstance(store, SqliteStore) and await store.match_row(1) is None
    finally:
        await store.close()


async def test_connect_store_connects_what_open_store_picks(
    store_target: str | Path, backend: str
) -> None:
    store = await connect_store(store_target)
    try:
        expected = PostgresStore if backend == "postgres" else SqliteStore
        assert isinstance(store, expected) and await store.match_row(1) is None
    finally:
        await store.close()


async def test_a_postgresql_url_is_shown_without_its_password() -> None:
    from bot.storage import redact

    assert redact("postgresql://bot:s3cr@t@db:5432/tb") == "postgresql://bot:***@db:5432/tb"
    assert redact("postgresql://bot@db/tablebot") == "postgresql://bot@db/tablebot"
    assert redact("postgres://db/t?host=/run") == "postgres://db/t?host=/run"
    assert redact("postgres://u@db/t?password=pw&sslmode=require") == (
        "postgres://u@db/t?password=***&sslmode=require"
    )
    assert repr(PostgresStore("postgresql://u:pw@h/d")) == "PostgresStore('postgresql://u:***@h/d')"


async def add_match(
    store: Store,
    players: tuple[int, int],
    *,
    channel: int = 10,
    thread: int | None = None,
    status: str = "active",
    guild: int = GUILD,
    game: str = "nannon",
    length: int = 3,
    winner: int | None = None,
    scores: tuple[float, float] = (0, 0),
) -> int:
    challenge = await store.insert_challenge(
        {
            "guild_id": guild,
            "channel_id": channel,
            "game": game,
            "rules": "{}",
            "challenger_id": players[0],
            "challenger_name": f"p{players[0]}",
            "status": "open",
            "created_at": 0.0,
            "expires_at": 9.0,
        }
    )
    values: dict[str, Any] = {
        "guild_id": guild,
        "channel_id": channel,
        "thread_id": thread,
        "game": game,
        "length": length,
        "rules": "{}",
        "player0_id": players[0],
        "player0_name": f"p{players[0]}",
        "player1_id": players[1],
        "player1_name": f"p{players[1]}",
        "colour0": "white",
        "colour1": "black",
        "status": status,
        "winner_seat": winner,
        "score0": scores[0],
        "score1": scores[1],
        "dice_commitment": "c",
        "dice_seed": bytes(32),
        "created_at": 0.0,
        "last_action_at": 0.0,
    }
    match_id = await store.create_match(challenge, values, [], {})
    assert match_id is not None
    return match_id


async def test_the_match_queries(any_store: Store) -> None:
    store = any_store
    a = await add_match(store, (3, 4), channel=10, thread=50, status="finished")
    b = await add_match(store, (5, 3), channel=11, thread=50)
    c = await add_match(store, (3, 6), channel=12, thread=10)
    d = await add_match(store, (4, 5), channel=10)
    other_guild = await add_match(store, (3, 4), guild=2, channel=10)
    assert await store.active_match_ids(GUILD, 3) == [b, c]
    assert await store.active_match_ids(GUILD, 4) == [d]
    assert await store.active_match_ids(2, 3) == [other_guild]
    assert await store.active_match_ids(GUILD, 99) == []
    # The channel or the thread; active only; either seat.
    assert await store.candidate_match_ids(GUILD, 10, 3) == [c]
    assert await store.candidate_match_ids(GUILD, 10, 4) == [d]
    assert await store.candidate_match_ids(GUILD, 11, 3) == [b]
    assert await store.candidate_match_ids(GUILD, 50, 3) == [b]
    assert await store.candidate_match_ids(GUILD, 12, 5) == []
    # A thread's active match before its newest finished one; else the newest.
    assert await store.match_id_in_thread(50) == b
    assert await store.match_id_in_thread(10) == c
    assert await store.match_id_in_thread(77) is None
    newer = await add_match(store, (7, 8), thread=77, status="finished")
    older_active = await add_match(store, (7, 8), thread=78)
    newest = await add_match(store, (7, 8), thread=78, status="finished")
    assert await store.match_id_in_thread(77) == newer
    assert await store.match_id_in_thread(78) == older_active != newest
    # History: every status, newest first, at most limit, this guild only.
    assert [r["id"] for r in await store.history_rows(GUILD, 3, 10)] == [c, b, a]
    assert [r["id"] for r in await store.history_rows(GUILD, 3, 2)] == [c, b]
    assert [r["id"] for r in await store.history_rows(2, 3, 10)] == [other_guild]


def update(user: int, rating: float, won: int, played: int = 1) -> StatUpdate:
    return StatUpdate(
        GUILD,
        "nannon",
        user,
        f"p{user}",
        {"played": played, "won": won, "lost": played - won, "points_won": 2 * won},
        {"rating": rating},
    )


async def test_the_boards(any_store: Store) -> None:
    store = any_store
    m = await add_match(store, (3, 4), status="finished", winner=0, scores=(3, 1))
    await add_match(store, (4, 5), status="finished", winner=1, length=5, scores=(2, 5))
    stats = [
        update(3, 1510, won=1),
        update(4, 1490, won=1, played=2),
        update(5, 1510, won=2, played=2),  # ties 3 on rating, more wins: first
        update(6, 1600, won=0, played=0),  # never played: not on the board
        update(7, 1510, won=1),  # ties 3 on both: the lower user id first
    ]
    await store.commit_action(m, 0, 0, [], {}, {}, stat_updates=stats)
    board = await store.rating_board(GUILD, "nannon", 10)
    assert [r["user_id"] for r in board] == [5, 3, 7, 4]
    assert (board[0]["name"], board[0]["rating"], board[0]["played"]) == ("p5", 1510, 2)
    assert (board[0]["won"], board[0]["lost"], board[0]["drawn"]) == (2, 0, 0)
    assert (board[0]["points_won"], board[0]["points_lost"]) == (4, 0)
    assert [r["user_id"] for r in await store.rating_board(GUILD, "nannon", 2)] == [5, 3]
    assert await store.rating_board(GUILD, "backgammon", 10) == []
    assert await store.rating_board(2, "nannon", 10) == []
    # The length board counts the finished matches of that length only.
    board = await store.length_board(GUILD, "nannon", 3, 10)
    assert [(r["user_id"], r["won"], r["lost"], r["points_won"]) for r in board] == [
        (3, 1, 0, 3),
        (4, 0, 1, 1),
    ]


async def test_a_finisher_gets_the_players_rows_of_the_match_guild_and_game(
    any_store: Store,
) -> None:
    store = any_store
    m = await add_match(store, (3, 4))
    setup = await add_match(store, (5, 6))
    await store.commit_action(
        setup,
        0,
        0,
        [],
        {},
        {},
        stat_updates=[
            update(3, 1520, won=1),
            update(5, 1480, won=0),  # another player
            StatUpdate(2, "nannon", 4, "p4", {"played": 1}, {"rating": 1700}),  # guild
            StatUpdate(GUILD, "checkers", 4, "p4", {"played": 1}, {"rating": 1800}),  # game
        ],
    )
    seen: list[dict[int, float]] = []

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, object]]:
        seen.append({user: float(row["rating"]) for user, row in rows.items()})
        return [update(4, 1400, won=0)], {"status": "finished"}

    await store.commit_action(m, 0, 0, [], {}, {"score0": 3}, finish=finish)
    assert seen == [{3: 1520.0}]  # player 4 has no row in this guild and game yet
    row = await store.match_row(m)
    assert row is not None and (row["status"], row["score0"], row["version"]) == (
        "finished",
        3,
        1,
    )
    four = await store.stats_row(GUILD, "nannon", 4)
    assert four is not None and (four["rating"], four["played"]) == (1400, 1)


async def test_the_drivers_load_with_the_store_that_needs_them() -> None:
    # In a fresh interpreter: bot.storage loads no driver; a SQLite store loads aiosqlite and
    # not asyncpg; a PostgreSQL store loads asyncpg (still connecting to nothing).
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import bot.storage as s\n"
        "loaded = lambda: sorted(m for m in ('aiosqlite', 'asyncpg') if m in sys.modules)\n"
        "print(loaded())\n"
        "s.open_store('t.db')\n"
        "print(loaded())\n"
        "s.open_store('postgresql://nobody@nowhere/none')\n"
        "print(loaded())\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["[]", "['aiosqlite']", "['aiosqlite', 'asyncpg']"]
