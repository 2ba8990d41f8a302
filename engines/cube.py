"""The doubling cube of Nannon and backgammon: a stake value and an owner seat.

A centred cube (``owner is None``) may be turned by either player; after a take, only its
owner may redouble. Nannon draws a centred cube as 64 (render's job): its value is still 1.

>>> cube = Cube()
>>> cube.centred, cube.may_double(0), cube.may_double(1)
(True, True, True)
>>> cube = cube.taken_by(1)
>>> cube
Cube(value=2, owner=1)
>>> cube.may_double(0), cube.may_double(1)
(False, True)
>>> Cube.from_dict(cube.to_dict()) == cube
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Cube:
    """The stake multiplier ``value`` (1, 2, 4, ...) and the seat that owns it, or None."""

    value: int = 1
    owner: int | None = None

    def __post_init__(self) -> None:
        value = self.value
        if type(value) is not int or value < 1 or value & (value - 1):
            raise ValueError(f"a cube value is a power of two, not {value!r}")
        if self.owner not in (None, 0, 1):
            raise ValueError(f"a cube owner is seat 0 or 1, or None, not {self.owner!r}")

    @property
    def centred(self) -> bool:
        return self.owner is None

    def may_double(self, seat: int) -> bool:
        """True when the cube is centred or owned by ``seat`` (match rules aside)."""
        return self.owner is None or self.owner == seat

    def taken_by(self, seat: int) -> Cube:
        """The cube after ``seat`` takes a double: twice the value, owned by the taker."""
        return Cube(self.value * 2, seat)

    def auto_doubled(self) -> Cube:
        """An automatic double (money play, tied opening roll): twice the value, still centred.

        >>> Cube().auto_doubled()
        Cube(value=2, owner=None)
        """
        return Cube(self.value * 2, self.owner)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "owner": self.owner}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cube:
        owner = data.get("owner")
        return cls(int(data["value"]), None if owner is None else int(owner))
