"""The load benchmark's lost-update audit (tests/support/event_audit.py) on both stores: clean
after real matches played through the service, and it finds an accepted action missing, one
counted twice, an event no accepted action made, a row that differs from its replay, and a
rating that differs from the rating of the replayed matches."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.db import sql_write
from support.event_audit import Accepted, EventAudit, audit_events

from bot.service import AcceptChallenge, MatchService, NewChallenge, PlayMove, RollDice
from bot.storage import connect_store
from engines.base import Phase

pytestmark = pytest.mark.asyncio
GUILD = 7


async def played(svc: MatchService, matches: int) -> list[Accepted]:
    """Nannon matches to 1 between the same two players, played to the end through the
    service; each action noted as the load benchmark notes it."""
    rng = random.Random(3)
    accepted = []
    for _ in range(matches):
        challenge = await svc.handle(
            NewChallenge(GUILD, 10, 1, "a", "nannon", opponent_id=2, opponent_name="b", length=1)
        )
        update = await svc.handle(AcceptChallenge(challenge.id, GUILD, 2, "b"))
        match_id = update.match_id
        while not update.match_over:
            view = update.view
            actor = view.actor if view.actor is not None else 0
            user = view.players[actor].user_id
            first = await svc._state.store.event_count(match_id)
            if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
                update, kind = await svc.handle(RollDice(match_id, GUILD, user)), "Roll"
            else:
                move = rng.choice(view.legal_moves)
                update, kind = await svc.handle(PlayMove(match_id, GUILD, user, move)), "/move"
            end = await svc._state.store.event_count(match_id)
            accepted.append(Accepted(match_id, first, end, kind))
    return accepted


async def audit(target: str | Path, accepted: list[Accepted]) -> EventAudit:
    store = await connect_store(target)
    try:
        return await audit_events(store, accepted)
    finally:
        await store.close()


async def test_the_audit_is_clean_after_real_play_and_finds_what_went_wrong(
    store_target: str | Path,
) -> None:
    svc = MatchService(await connect_store(store_target))
    try:
        accepted = await played(svc, 3)
    finally:
        await svc.close()
    clean = await audit(store_target, accepted)
    assert clean.clean, clean.problems
    assert (clean.accepted, clean.in_log_once) == (len(accepted), len(accepted))
    assert (clean.matches, clean.finished, clean.finished_replayed, clean.ratings) == (3, 3, 3, 2)

    # An action the driver never saw accepted: its events are unaccounted for. One that wrote
    # events is dropped (with real dice, the fifth from the end sometimes wrote none, and
    # dropping it left nothing out: the test failed about one run in six).
    gone = max(i for i, a in enumerate(accepted[:-1]) if a.end > a.first)
    dropped = await audit(store_target, accepted[:gone] + accepted[gone + 1 :])
    assert dropped.duplicates >= 1 and not dropped.clean
    # One accepted twice (as a replayed request would be).
    twice = await audit(store_target, [*accepted, accepted[4]])
    assert twice.duplicates >= 1 and twice.in_log_once == len(accepted)
    # An accepted action of another kind than its event, or past the log's end.
    wrong = Accepted(accepted[0].match_id, accepted[0].first, accepted[0].end, "/take")
    late = Accepted(accepted[0].match_id, 10_000, 10_001, "Roll")
    missing = await audit(store_target, [wrong, *accepted[1:], late])
    assert missing.missing == 2

    # A score, then a rating, that replaying the log doesn't give.
    store = await connect_store(store_target)
    try:
        await sql_write(store, "UPDATE matches SET score0 = 5 WHERE id = ?", (1,))
        await sql_write(store, "UPDATE ratings SET rating = rating + 1 WHERE user_id = ?", (1,))
    finally:
        await store.close()
    tampered = await audit(store_target, accepted)
    assert (tampered.replay_mismatches, tampered.rating_mismatches) == (1, 1)
