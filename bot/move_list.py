"""The notation of a turn's legal moves, written only as far as someone reads it.

A backgammon roll of doubles can have hundreds of distinct plays (792 seen under load), and
writing each in gnubg notation took 15 ms on the event loop. A turn usually reads only its first
few: the menu shows 25, a forced move or pass needs one. :class:`MoveList` is a read-only
sequence of strings that formats each move the first time it is read, and remembers it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

log = logging.getLogger(__name__)


class MoveList(Sequence[str]):
    """``format(move)`` for each of ``moves``, in order, computed lazily; equal to the tuple of
    the same strings (``MoveList(...) == ("8/5 6/5",)``)."""

    __slots__ = ("_format", "_moves", "_texts")

    def __init__(self, moves: Sequence[Any], format: Callable[[Any], str]) -> None:
        self._moves = tuple(moves)
        self._format = format
        self._texts: list[str] = []  # the first len(_texts) moves, formatted

    def _upto(self, count: int) -> list[str]:
        """The texts of the first ``count`` moves (at most all of them)."""
        texts = self._texts
        moves = self._moves
        for i in range(len(texts), min(count, len(moves))):
            texts.append(self._format(moves[i]))
        return texts

    def __len__(self) -> int:
        return len(self._moves)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            picked = range(*index.indices(len(self._moves)))
            if picked:
                self._upto(max(picked[0], picked[-1]) + 1)
            return tuple(self._texts[i] for i in picked)
        if not -len(self._moves) <= index < len(self._moves):
            raise IndexError(f"move index {index} out of range (there are {len(self._moves)})")
        return self._upto(index % len(self._moves) + 1)[index]

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self._moves)):
            yield self._upto(i + 1)[i]

    # ``in`` and ``index`` are Sequence's own: they iterate, so they format only up to a match.

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MoveList, tuple, list)):
            return len(other) == len(self._moves) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"MoveList({tuple(self)!r})"
