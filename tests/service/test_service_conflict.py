"""Two services on one database file (e.g. a second bot process started by mistake): the store's
version check refuses the second writer, and the service turns that into a polite
StaleActionError, drops its stale copy and acts on the stored state next time."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.discord.wording import refusal_text
from bot.service import (
    AcceptChallenge,
    MatchService,
    NewChallenge,
    PlayMove,
    Refusal,
    RollDice,
    StaleActionError,
    ViewMatch,
)
from engines import replay
from engines.base import Phase
from engines.errors import GameError

GUILD, CHANNEL, ALICE, BOB = 1, 10, 100, 200


@pytest.mark.asyncio
async def test_a_version_conflict_is_a_polite_refusal_and_the_match_reloads(
    store_target: str | Path,
) -> None:
    path = store_target
    first = await MatchService.open(path)
    second = await MatchService.open(path)
    try:
        challenge = await first.handle(
            NewChallenge(
                GUILD, CHANNEL, ALICE, "alice", "backgammon", opponent_id=BOB, opponent_name="bob"
            )
        )
        start = await first.handle(AcceptChallenge(challenge.id, GUILD, BOB, "bob"))
        mid, view = start.match_id, start.view
        assert view.phase is Phase.MOVE  # the opening roll is played by its winner
        mover = view.players[view.actor].user_id
        stale = await second.handle(ViewMatch(mid))  # the second service loads the same state
        assert stale.version == view.version

        after = await first.handle(PlayMove(mid, GUILD, mover, view.legal_moves[0]))
        events = await first.store.event_count(mid)
        with pytest.raises(GameError) as refused:
            await second.handle(PlayMove(mid, GUILD, mover, stale.legal_moves[-1]))
        assert type(refused.value) is StaleActionError
        assert refused.value.refusal is Refusal.MATCH_CHANGED  # type: ignore[attr-defined]
        assert refusal_text(refused.value) == (
            "This match changed while you were acting: look at the latest board and try again."
        )
        assert await first.store.event_count(mid) == events  # nothing written

        # Next time the second service reads the stored state and acts on it.
        fresh = await second.handle(ViewMatch(mid))
        assert (fresh.version, fresh.phase, fresh.actor) == (
            after.view.version,
            after.view.phase,
            after.view.actor,
        )
        assert fresh.phase is Phase.ROLL and fresh.actor == 1 - view.actor
        done = await second.handle(RollDice(mid, GUILD, fresh.players[fresh.actor].user_id))
        assert done.view.phase is Phase.MOVE and done.view.version > fresh.version

        rows = await second.store.events(mid)
        rebuilt = replay(fresh.kind, fresh.rules, [e.payload for e in rows])
        assert rebuilt.snapshot() == await second.store.snapshot(mid)
        assert [e.seq for e in rows] == list(range(len(rows)))
    finally:
        await second.close()
        await first.close()
