"""The robot's five levels, and what each means for backgammon.

The levels are the Nannon solver's :class:`~engines.nannon_solver.Level` (``BEGINNER`` = 1 ..
``MASTER`` = 5), shared by all three games. Backgammon plays gnubg's 0-ply with noise 0.078,
0.05, 0.031 and 0.015, tuned to the published PRs of :data:`BACKGAMMON_PR_TARGETS` (30, 18,
10 and 5), and 2-ply (gnubg's "world class", with its pruning nets and move filters) for
master, the judge. ``benchmarks/robot_levels.py`` measures each level's PR by gnubg's own
analysis of its games; docs/robot.md publishes the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from engines.nannon_solver import Level

__all__ = [
    "BACKGAMMON_LEVELS",
    "BACKGAMMON_PR_TARGETS",
    "LEVEL_NAMES",
    "GnubgSettings",
    "Level",
    "parse_level",
]


@dataclass(frozen=True, slots=True)
class GnubgSettings:
    """A gnubg evaluation: ``ply`` (0 is the neural net alone, 2 looks two rolls ahead) and
    ``noise``, the standard deviation gnubg adds to its evaluations (deterministic per position,
    as in gnubg's presets)."""

    ply: int
    noise: float


BACKGAMMON_LEVELS: Final = MappingProxyType(
    {
        Level.BEGINNER: GnubgSettings(ply=0, noise=0.078),
        Level.INTERMEDIATE: GnubgSettings(ply=0, noise=0.05),
        Level.ADVANCED: GnubgSettings(ply=0, noise=0.031),
        Level.EXPERT: GnubgSettings(ply=0, noise=0.015),
        Level.MASTER: GnubgSettings(ply=2, noise=0.0),
    }
)

BACKGAMMON_PR_TARGETS: Final = MappingProxyType(
    {
        Level.BEGINNER: 30.0,
        Level.INTERMEDIATE: 18.0,
        Level.ADVANCED: 10.0,
        Level.EXPERT: 5.0,
        Level.MASTER: 0.0,
    }
)
"""Each level's published PR (gnubg's error rate: equity lost per unforced move times 500,
judged by its 2-ply), in checker play; benchmarks/robot_levels.py measures them and
docs/robot.md publishes them."""

LEVEL_NAMES: Final = MappingProxyType({level.name.lower(): level for level in Level})
"""``"beginner"`` .. ``"master"``."""


def parse_level(text: str) -> Level:
    """A level by name (``"expert"``) or number (``"4"``); ValueError otherwise.

    >>> parse_level("Master"), parse_level("1")
    (<Level.MASTER: 5>, <Level.BEGINNER: 1>)
    """
    word = text.strip().lower()
    if word in LEVEL_NAMES:
        return LEVEL_NAMES[word]
    if word.isdigit() and int(word) in {int(level) for level in Level}:
        return Level(int(word))
    names = ", ".join(LEVEL_NAMES)
    raise ValueError(f"{text[:40]!r} is not a level: {names} (or 1 to 5)")
