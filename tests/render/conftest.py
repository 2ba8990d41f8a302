"""The render tests' shared fixture: ``drawn_texts(module)`` records every text ``module`` draws
(through its ``draw_text``) as ``(text, size)``, still drawing it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from support.render_spy import DrawnTexts


@pytest.fixture
def drawn_texts(monkeypatch: pytest.MonkeyPatch) -> DrawnTexts:
    def spy_on(module: ModuleType) -> list[tuple[str, int]]:
        drawn: list[tuple[str, int]] = []
        real = module.draw_text

        def spy(canvas: Any, xy: Any, text: str, size: int, *args: Any, **kwargs: Any) -> None:
            drawn.append((text, size))
            real(canvas, xy, text, size, *args, **kwargs)

        monkeypatch.setattr(module, "draw_text", spy)
        return drawn

    return spy_on
