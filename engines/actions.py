"""The actions that drive a match. Each is a small frozen value that serializes to JSON,
so the store's event log can replay a match exactly.

>>> from engines.actions import Roll, action_from_dict
>>> action_from_dict(Roll(player=1, dice=(6, 5)).to_dict())
Roll(player=1, dice=(6, 5))
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engines.values import ResignLevel


@dataclass(frozen=True)
class Action:
    """Base class. ``player`` is the acting seat (0 or 1), or None for a system action."""

    kind: ClassVar[str] = ""
    player: int | None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, ResignLevel):
                value = int(value)
            data[field.name] = value
        return data


@dataclass(frozen=True)
class OpeningRoll(Action):
    """A game's opening roll: one die for each seat, (seat 0's, seat 1's)."""

    kind: ClassVar[str] = "opening_roll"
    dice: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Roll(Action):
    """The player on turn rolls: one die in Nannon, two in backgammon."""

    kind: ClassVar[str] = "roll"
    dice: tuple[int, ...] = ()


@dataclass(frozen=True)
class Move(Action):
    """A move or play in canonical notation (``2/5``, ``24/18 13/11``, ``22x15x8``)."""

    kind: ClassVar[str] = "move"
    move: str = ""


@dataclass(frozen=True)
class Double(Action):
    kind: ClassVar[str] = "double"


@dataclass(frozen=True)
class Take(Action):
    kind: ClassVar[str] = "take"


@dataclass(frozen=True)
class Drop(Action):
    """Pass (refuse) a double: the game is lost at the stake before the double."""

    kind: ClassVar[str] = "drop"


@dataclass(frozen=True)
class Resign(Action):
    """Offer to resign the game at a level (times the cube)."""

    kind: ClassVar[str] = "resign"
    level: ResignLevel = ResignLevel.SINGLE


@dataclass(frozen=True)
class AcceptResign(Action):
    kind: ClassVar[str] = "accept_resign"


@dataclass(frozen=True)
class DeclineResign(Action):
    kind: ClassVar[str] = "decline_resign"


@dataclass(frozen=True)
class OfferDraw(Action):
    kind: ClassVar[str] = "offer_draw"


@dataclass(frozen=True)
class AcceptDraw(Action):
    kind: ClassVar[str] = "accept_draw"


@dataclass(frozen=True)
class DeclineDraw(Action):
    kind: ClassVar[str] = "decline_draw"


@dataclass(frozen=True)
class ConcedeMatch(Action):
    """``player`` concedes the whole match: by leaving, or when the opponent claims on time."""

    kind: ClassVar[str] = "concede_match"
    reason: str = "left"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        OpeningRoll,
        Roll,
        Move,
        Double,
        Take,
        Drop,
        Resign,
        AcceptResign,
        DeclineResign,
        OfferDraw,
        AcceptDraw,
        DeclineDraw,
        ConcedeMatch,
    )
}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Rebuild an action from :meth:`Action.to_dict` output; ValueError if malformed."""
    try:
        cls = ACTION_TYPES[data["kind"]]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an action: {data!r}") from exc
    kwargs: dict[str, Any] = {}
    for field in fields(cls):
        if field.name not in data:
            continue
        value = data[field.name]
        if field.name == "dice":
            value = tuple(int(v) for v in value)
        elif field.name == "level":
            value = ResignLevel(int(value))
        kwargs[field.name] = value
    return cls(**kwargs)
