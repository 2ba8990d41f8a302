"""The type of the render tests' ``drawn_texts`` fixture (tests/render/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

DrawnTexts = Callable[[ModuleType], list[tuple[str, int]]]
"""Start recording what a module draws: every ``(text, size)`` it passes to ``draw_text``."""
