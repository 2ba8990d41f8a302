"""A turn's legal moves, generated when first read and written in notation only as far as read.

``match.legal_moves()`` returns a :class:`LegalMoves`, python-chess's ``board.legal_moves`` in
spirit: a read-only sequence of the engine's move values that does no work until it is read.
A backgammon roll of doubles can have hundreds of distinct plays (792 seen under load), and
writing each in gnubg notation took 15 ms; a turn usually reads only a few (a menu shows 25, a
forced move needs one). So :attr:`LegalMoves.notation` writes each move the first time it is
read, and remembers it.

>>> legal = LegalMoves(lambda: (3, 1, 2), lambda move: f"m{move}")
>>> len(legal), legal[0], legal[-2:]
(3, 3, (1, 2))
>>> 1 in legal, "m2" in legal, "m9" in legal, legal.index("m1")
(True, True, False, 1)
>>> legal.notation[:2], legal.notation == ("m3", "m1", "m2")
(('m3', 'm1'), True)
>>> legal == (3, 1, 2), legal
(True, <LegalMoves (m3, m1, m2)>)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar, overload

__all__ = ["LegalMoves", "MoveNotation"]

M = TypeVar("M", covariant=True)


class MoveNotation(Sequence[str]):
    """``format(move)`` for each of ``moves``, in order, computed lazily; equal to the tuple of
    the same strings (``MoveNotation(...) == ("8/5 6/5",)``) and hashed alike.

    ``in`` and ``index`` are Sequence's own: they iterate, so they format only up to a match.
    """

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

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MoveNotation, tuple, list)):
            return len(other) == len(self._moves) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({tuple(self)!r})"


class LegalMoves(Sequence[M]):
    """The legal moves of one turn, as the engine's move values, in the engine's order.

    ``moves`` is the moves, or a function that generates them: it is called once, the first
    time the moves are read (``len``, indexing, iteration, ``in``), and never if they aren't.
    ``format`` writes one move in the game's notation.

    - ``len``, indexing (a slice gives a tuple), iteration, ``index`` and ``count``.
    - ``x in legal``: ``x`` is a move value, or a string compared with the moves' canonical
      notation (formatting only up to a match). Loose input such as ``"h/3"`` is
      ``match.parse_move``'s job.
    - :attr:`notation`: the moves' notation, a lazy sequence of strings equal to their tuple.
    - Equal to a tuple or list of the same moves, and hashed alike; ``match.legal_moves() ==
      ()`` outside a move.
    """

    __slots__ = ("_format", "_generate", "_moves", "_notation")

    def __init__(
        self, moves: Sequence[M] | Callable[[], Iterable[M]], format: Callable[[Any], str]
    ) -> None:
        self._moves: tuple[M, ...] | None = None
        self._generate: Callable[[], Iterable[M]] | None = None
        if isinstance(moves, Sequence):
            self._moves = tuple(moves)
        else:
            self._generate = moves
        self._format = format
        self._notation: MoveNotation | None = None

    def _all(self) -> tuple[M, ...]:
        moves = self._moves
        if moves is None:
            assert self._generate is not None
            moves = self._moves = tuple(self._generate())
            self._generate = None
        return moves

    @property
    def notation(self) -> MoveNotation:
        """Each move's canonical notation, in the same order, written as it is read."""
        if self._notation is None:
            self._notation = MoveNotation(self._all(), self._format)
        return self._notation

    def format(self, move: Any) -> str:
        """One move in the game's notation (``match.format_move``)."""
        return self._format(move)

    def sorted(self, *, key: Callable[[M], Any], reverse: bool = False) -> LegalMoves[M]:
        """The same moves in another order (``sorted``'s, stable), notation still lazy."""
        return LegalMoves(sorted(self._all(), key=key, reverse=reverse), self._format)

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> M: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[M, ...]: ...

    def __getitem__(self, index: int | slice) -> M | tuple[M, ...]:
        moves = self._all()
        if isinstance(index, slice):
            return moves[index]
        if not -len(moves) <= index < len(moves):
            raise IndexError(f"move index {index} out of range (there are {len(moves)})")
        return moves[index]

    def __iter__(self) -> Iterator[M]:
        return iter(self._all())

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self.notation
        return item in self._all()

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of a move, or of a move's notation; ValueError if absent."""
        end = len(self) if stop is None else stop
        if isinstance(value, str):
            return self.notation.index(value, start, end)
        return self._all().index(value, start, end)

    def count(self, value: Any) -> int:
        if isinstance(value, str):
            return self.notation.count(value)
        return self._all().count(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves):
            return self._all() == other._all()
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(self.notation)})>"
