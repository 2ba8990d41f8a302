"""The notation of a turn's legal moves, written only as far as someone reads it.

The engine owns this now: :class:`engines.legal_moves.MoveNotation` (and ``match.legal_moves()
.notation``, the same over the engine's own order). :class:`MoveList` is kept, under its old
name, for the bot code that still builds one; the bot restructure switches to the engine's type
and removes this module.
"""

from __future__ import annotations

from engines.legal_moves import MoveNotation

__all__ = ["MoveList"]


class MoveList(MoveNotation):
    """``format(move)`` for each of ``moves``, in order, computed lazily; equal to the tuple of
    the same strings (``MoveList(...) == ("8/5 6/5",)``). Exactly
    :class:`~engines.legal_moves.MoveNotation`, under the bot's old name."""

    __slots__ = ()
