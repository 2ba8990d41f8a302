"""Fixtures shared by the robot's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.robot import worker


@pytest.fixture
def fresh_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The module's shared workers set aside for the test, and whatever it started stopped."""
    monkeypatch.setattr(worker, "ROBOT", worker.WorkerPool("robot"))
    analysis = worker.WorkerPool("analysis", niceness=worker.ANALYSIS.niceness)
    monkeypatch.setattr(worker, "ANALYSIS", analysis)
    monkeypatch.setattr(worker, "_gnubg", None)
    yield
    worker.shutdown()
