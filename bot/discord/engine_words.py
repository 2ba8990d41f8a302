"""An engine's refusal parameters in the reader's words (issue 33: refusals showed Python values,
``frozenset({5})``, ``(7, 1)``, an action's repr, "white" in Greek): a game by its name, a colour
and a resignation by the catalogue's words, collections as "1, 2, 3"."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from bot.discord.catalogue import text
from engines.actions import Action
from engines.base import GameKind
from engines.spec import spec_of
from engines.values import ResignLevel


def spoken(value: Any) -> Any:
    """``value`` as words, never a Python repr."""
    if isinstance(value, GameKind):
        return text(f"game.{value.value}.name")
    if isinstance(value, set | frozenset):
        value = sorted(value)
    if isinstance(value, tuple | list):
        return text("list.separator").join(str(spoken(item)) for item in value)[:60]
    if isinstance(value, Enum):
        return str(value.value)
    return value.kind if isinstance(value, Action) else value


def _resign_levels(kind: Any) -> str:
    game = GameKind(kind)
    names = (
        text(f"resign_level.{game.value}.{level.name.lower()}")
        for level in spec_of(game).resign_levels
    )
    return text("list.separator").join(names)


def _resign_level(level: Any) -> Any:
    names = {lv.name.lower() for lv in ResignLevel}
    return text(f"event.resign_level.{level}") if level in names else level


# The parameters a refusal shows in other words than spoken's.
_SHOWN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "checkers_not_your_turn": lambda p: {**p, "name": text(f"colour.{p['name']}")},
    "bad_resign_level": lambda p: {
        **p,
        "kind": GameKind(p["kind"]),
        "names": _resign_levels(p["kind"]),
        "level": _resign_level(p["level"]),
    },
}


# The refusals whose words depend on a count: the parameter that picks the plural form.
PLURAL_BY = {"ambiguous_jump": "count", "bad_dice": "count", "position_id_too_many": "on_board"}


def engine_words(code: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of refusal ``code`` as its message shows them."""
    shown = _SHOWN.get(code)
    return {key: spoken(value) for key, value in (shown(params) if shown else params).items()}
