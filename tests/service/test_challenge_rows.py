"""Issue 34, the smaller faults: one builder of a challenge's row (``challenge_row``), for a
member's challenge and a tournament pairing's alike; what it builds is what the store keeps and
``challenge_from_row`` reads back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.service.challenges import challenge_from_row, challenge_row
from bot.service.model import ChallengeStatus, Player
from bot.storage import Store
from engines.base import GameKind, MatchRules

pytestmark = pytest.mark.asyncio

SERVICE = Path(__file__).resolve().parents[2] / "bot" / "service"


async def test_issue_34_one_builder_of_the_challenge_row(any_store: Store) -> None:
    """Issue 34: the row built reads back as the challenge it describes, open or named."""
    rules = MatchRules(length=5, cube=True)
    alice, bob = Player(100, "alice"), Player(200, "bob")
    for opponent in (bob, None):
        row = challenge_row(1, 10, GameKind.BACKGAMMON, rules, alice, opponent, 1000.0, 60.0)
        challenge_id = await any_store.insert_challenge(row)
        stored = await any_store.challenge(challenge_id)
        challenge = challenge_from_row(stored)
        assert (challenge.guild_id, challenge.channel_id, challenge.game) == (
            1,
            10,
            GameKind.BACKGAMMON,
        )
        assert challenge.rules == rules and challenge.challenger == alice
        assert challenge.opponent == opponent and challenge.status is ChallengeStatus.OPEN
        assert (challenge.created_at, challenge.expires_at) == (1000.0, 1060.0)


async def test_issue_34_every_challenge_row_comes_from_the_builder() -> None:
    """Issue 34: the service inserts a challenge only with the row ``challenge_row`` builds
    (the tournaments once built their own)."""
    callers = []
    for path in sorted(SERVICE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = ast.unparse(node)
                if "insert_challenge(" in body:
                    callers.append(path.name)
                    assert "challenge_row(" in body, f"{path.name}: {node.name}"
                assert '"challenger_id":' not in body or node.name == "challenge_row", node.name
    assert sorted(callers) == ["challenges.py", "tournaments.py"]
