"""Issue 34, the smaller faults: the docs' migration step numbers are the real ones. A sentence
of docs/*.md that names "migration step N" (or steps N and M) and a table or column of the
schema names one that step N (``MIGRATIONS[N - 1]``, which brings ``user_version`` to N)
really creates or changes, on SQLite and PostgreSQL alike (translating.md once gave the
member languages' table step 4 for 6)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.storage import migrations, postgres_migrations

DOCS = Path(__file__).resolve().parents[2] / "docs"
STEP = re.compile(r"[Mm]igration steps? (\d+(?:(?:, | and )\d+)*)")
NAME = re.compile(r"`([a-z_]+(?:\.[a-z_]+)?)`")


def named_steps() -> list[tuple[str, list[int], str]]:
    """(doc, the steps a sentence gives, a schema name it gives) for every such pair."""
    schema = " ".join(migrations.MIGRATIONS)
    found = []
    for doc in sorted(DOCS.glob("*.md")):
        text = " ".join(doc.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.;])\s", text):
            steps = STEP.search(sentence)
            if steps is None:
                continue
            numbers = [int(n) for n in re.findall(r"\d+", steps.group(1))]
            for name in NAME.findall(sentence):
                word = name.split(".")[-1]
                if re.search(rf"\b{word}\b", schema):
                    found.append((doc.name, numbers, word))
    return found


def test_issue_34_the_docs_number_each_migration_step_as_it_is() -> None:
    pairs = named_steps()
    assert ("translating.md", [6], "member_languages") in pairs
    assert len(migrations.MIGRATIONS) == len(postgres_migrations.MIGRATIONS)
    for doc, steps, word in pairs:
        for dialect in (migrations.MIGRATIONS, postgres_migrations.MIGRATIONS):
            assert all(0 < n <= len(dialect) for n in steps), (doc, steps)
            if not any(re.search(rf"\b{word}\b", dialect[n - 1]) for n in steps):
                pytest.fail(f"{doc}: migration step {steps} does not make `{word}`")
