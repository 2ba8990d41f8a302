"""A store built without opening it, until :mod:`bot.storage` has its own.

The storage room is getting ``open_store(target)``, which returns an unopened store that
``await store.connect()`` opens (and migrates). Until then :class:`~bot.storage.Store` only opens
in ``await Store.open(path)``, so this stand-in holds the path and forwards everything to the
store it opens in :func:`connect`. When ``bot.storage.open_store`` lands, delete this module:
``bot.discord.app`` imports ``open_store`` from ``bot.storage`` and calls ``store.connect()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from bot.storage import Store


class PendingStore:
    """The database at ``path``, opened by :meth:`connect`; until then every use is refused."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._store: Store | None = None
        self._closed = False

    async def connect(self) -> None:
        """Open (creating and migrating as needed) the database. Once only."""
        if self._store is not None or self._closed:
            raise RuntimeError(f"the store at {str(self.path)!r} was opened already")
        self._store = await Store.open(self.path)

    async def close(self) -> None:
        """Close the store if it was opened; harmless otherwise, and twice."""
        self._closed = True
        if self._store is not None:
            await self._store.close()

    def __getattr__(self, name: str) -> Any:
        # Only called for what this class doesn't define: the Store API.
        store = self.__dict__.get("_store")
        if store is None:
            raise RuntimeError(f"the store at {str(self.path)!r} is not open (connect() first)")
        return getattr(store, name)


def open_store(target: str | Path) -> Store:
    """An unopened store for the database file ``target``: :func:`connect` opens it."""
    return cast(Store, PendingStore(target))


async def connect(store: Store) -> None:
    """Open a store from :func:`open_store` (one opened already by ``Store.open`` is left as
    it is)."""
    if isinstance(store, PendingStore):
        await store.connect()
