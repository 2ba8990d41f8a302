"""Pure game rules for tablebot: Nannon, Backgammon and American checkers.

One factory for all three games, so the service treats them alike through the
:class:`~engines.base.GameMatch` protocol. Snapshots carry their ``"kind"``.

>>> from engines.actions import OpeningRoll
>>> from engines.base import MatchRules
>>> m = new_match("nannon", MatchRules(length=3))
>>> _ = m.apply(OpeningRoll(None, (6, 1)))
>>> m.turn, m.phase.value, m.position_id
(0, 'move', '012-012')
>>> match_from_snapshot(m.snapshot()).snapshot() == m.snapshot()
True
>>> replay("nannon", m.rules, m.actions).snapshot() == m.snapshot()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, cast

from engines.actions import Action, action_from_dict
from engines.base import DiceVariant, GameKind, GameMatch, MatchRules
from engines.spec import spec_of

__all__ = ["match_from_snapshot", "new_match", "replay", "spec_of"]


def _dice_variant(kind: GameKind) -> DiceVariant:
    # Imported here: each engine module loads only when its game is played.
    if kind is GameKind.NANNON:
        from engines.nannon import VARIANT as NANNON

        return NANNON
    # By name: engines.backgammon lands separately, and mypy must not require it here.
    backgammon = importlib.import_module("engines.backgammon")
    return cast(DiceVariant, backgammon.VARIANT)


def _kind(kind: GameKind | str) -> GameKind:
    try:
        return GameKind(kind)
    except ValueError:
        raise ValueError(f"unknown game kind {kind!r}") from None


def new_match(kind: GameKind | str, rules: MatchRules, *, recorded: bool = False) -> GameMatch:
    """A fresh match of ``kind`` under ``rules``; a GameError if the rules don't fit the game.

    ``recorded`` for a match that replays a log someone already played: it accepts what the
    rules accepted when the log was written (a double on a dead cube, before that ruling).
    """
    game = _kind(kind)
    if game is GameKind.CHECKERS:
        from engines.checkers import CheckersMatch

        return CheckersMatch(rules)
    from engines.match import DiceMatch

    return DiceMatch(_dice_variant(game), rules, recorded=recorded)


def replay(
    kind: GameKind | str,
    rules: MatchRules,
    actions: Iterable[Action | Mapping[str, Any]],
) -> GameMatch:
    """A new match with ``actions`` (values or their ``to_dict()`` form) applied in order, as a
    recorded log (see :func:`new_match`)."""
    game = _kind(kind)
    values = [a if isinstance(a, Action) else action_from_dict(dict(a)) for a in actions]
    if game is GameKind.CHECKERS:
        from engines.checkers import CheckersMatch

        return CheckersMatch.replay(rules, values)
    from engines.match import DiceMatch

    return DiceMatch.replay(_dice_variant(game), rules, values)


def match_from_snapshot(data: Mapping[str, Any]) -> GameMatch:
    """Rebuild a match from its ``snapshot()``; the ``"kind"`` key picks the game."""
    if not isinstance(data, Mapping) or "kind" not in data:
        raise ValueError("a match snapshot is a mapping with a 'kind'")
    game = _kind(data["kind"])
    if game is GameKind.CHECKERS:
        from engines.checkers import CheckersMatch

        return CheckersMatch.from_snapshot(dict(data))
    from engines.match import DiceMatch

    return DiceMatch.from_snapshot(_dice_variant(game), data)
