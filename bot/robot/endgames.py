"""The checkers endgame database the master robot probes, shipped with the bot, and its memory.

``bot/robot/data/checkers-endgame-4.xz`` holds every position of up to four pieces
(:mod:`engines.checkers_endgame`; 6.4 million positions, 1.1 MB compressed, 7.5 MB in memory).
It is shipped rather than built on first use: it is small, the same everywhere, and a build
takes about a minute of a worker's time. ``benchmarks/checkers_endgame.py --write`` builds it
again. Each worker process loads it once, when master first plays checkers (a fraction of a
second); without the file, master plays on without it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from engines import checkers_search
from engines.checkers_endgame import Tablebase

__all__ = ["PATH", "brain", "endgames"]

log = logging.getLogger(__name__)

PATH = Path(__file__).resolve().parent / "data" / "checkers-endgame-4.xz"

_loaded: dict[Path, Tablebase | None] = {}


def endgames(path: Path = PATH) -> Tablebase | None:
    """The database at ``path``, read once per process; None (logged once) when it can't be
    read."""
    if path not in _loaded:
        try:
            _loaded[path] = Tablebase.load(path)
        except (OSError, ValueError) as error:
            log.warning("no checkers endgame database, master plays without it: %s", error)
            _loaded[path] = None
    return _loaded[path]


_memory: checkers_search.Table = {}
"""Master's transposition table, kept by this process between moves (and between matches: its
entries are positions, whoever plays them). The search empties it at 300,000 entries, about
80 MB (268 bytes an entry, measured with tracemalloc)."""


def brain(level: checkers_search.Level, think_s: float | None = None) -> checkers_search.Brain:
    """What the search uses at ``level``: master thinks for ``think_s`` seconds (the server's
    setting; None: the level's default), probes the endgame database and remembers what its
    last searches learnt; the other levels play as their settings say."""
    if level is not checkers_search.Level.MASTER:
        return checkers_search.Brain()
    return checkers_search.Brain(think_s=think_s, endgames=endgames(), memory=_memory)
