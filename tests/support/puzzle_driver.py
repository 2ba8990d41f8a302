"""A Nannon match with blunders to mine puzzles from: one side plays its worst move every time
(ranked by the exact solver), the other its best; nobody doubles. And the analysis worker's
self-play job in this process, for seeding an empty server's puzzles."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.robot import self_play
from bot.service import AcceptChallenge, MatchService, NewChallenge, PlayMove, Refused, RollDice
from engines import replay
from engines.actions import Action, action_from_dict
from engines.base import GameKind, Phase
from engines.nannon import Position
from engines.nannon_analysis import context_of
from engines.nannon_solver import NannonSolver

SOLVER = NannonSolver()


async def actions_of(svc: MatchService, match_id: int) -> list[Action]:
    return [action_from_dict(e.payload) for e in await svc.store.events(match_id)]


async def blundering_match(
    svc: MatchService,
    guild: int,
    channel: int,
    blunderer: tuple[int, str],
    opponent: tuple[int, str],
    length: int,
) -> int:
    """A finished Nannon match (its id) that ``blunderer`` challenged and played worst."""
    challenge = await svc.handle(
        NewChallenge(
            guild, channel, blunderer[0], blunderer[1], "nannon",
            opponent_id=opponent[0], opponent_name=opponent[1], length=length,
        )
    )  # fmt: skip
    view = (await svc.handle(AcceptChallenge(challenge.id, guild, opponent[0], opponent[1]))).view
    match_id = view.match_id
    while view.phase is not Phase.MATCH_OVER:
        user = view.players[view.turn].user_id
        if view.phase is not Phase.MOVE:
            view = (await svc.handle(RollDice(match_id, guild, user))).view
            continue
        match = replay("nannon", view.rules, await actions_of(svc, match_id))
        assert match.dice is not None
        ranked = SOLVER.rank_moves(
            Position.from_id(match.position_id), match.dice[0], context_of(match, view.turn)
        )
        if ranked:
            pick = ranked[-1] if user == blunderer[0] else ranked[0]
            move = match.format_move(pick.move)
        else:
            move = match.format_move(match.legal_moves()[0])
        view = (await svc.handle(PlayMove(match_id, guild, user, move))).view
    return match_id


class SelfPlayRunner:
    """The worker's self-play job, run in this process, once a test lets it (``go``)."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.calls: list[tuple[GameKind, int, int]] = []

    async def available(self, kind: GameKind) -> bool:
        return kind is GameKind.NANNON  # the fast one; checkers' search is the worker's

    async def self_play_puzzles(
        self, kind: GameKind, games: int, seed: int, ply: int
    ) -> list[dict[str, Any]]:
        self.calls.append((kind, games, seed))
        await self.go.wait()
        return self_play.self_play_puzzles(kind, games, seed, ply)


async def refusal(svc: MatchService, command: object) -> Refused:
    """What ``command`` is refused with."""
    with pytest.raises(Refused) as caught:
        await svc.handle(command)  # type: ignore[arg-type]
    return caught.value
