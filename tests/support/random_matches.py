"""Real matches in a store, played with the engines alone (no service): random legal actions of
all three games, each committed as the service would (its event, the new snapshot, the
version bumped), so that every match replays from its events to its stored snapshot. For tests
of what a store keeps, such as copying a database."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.storage import NewEvent, StatUpdate, Store
from engines import new_match
from engines.actions import Action, Move, OpeningRoll, Roll
from engines.base import GameMatch, MatchRules, Phase

GUILD = 1
LENGTHS = {"nannon": 3, "backgammon": 1, "checkers": 1}


def random_action(match: GameMatch, rng: random.Random) -> Action | None:
    """A legal action for whoever must act, or None when the match is over."""
    phase = match.phase
    if phase in (Phase.OPENING, Phase.OPENING_TIE):
        return OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
    if phase is Phase.ROLL:
        dice = tuple(rng.randint(1, 6) for _ in range(match.spec.dice_count))
        return Roll(match.turn, dice)
    if phase is Phase.MOVE:
        return Move(match.turn, rng.choice(match.legal_moves().notation))
    return None


async def play_random_match(
    store: Store, game: str, players: tuple[int, int], rng: random.Random, actions: int
) -> int:
    """A match of ``game`` between ``players``, with up to ``actions`` random actions committed
    one at a time; its id."""
    rules = MatchRules(length=LENGTHS[game])
    challenge = await store.insert_challenge(
        {
            "guild_id": GUILD,
            "channel_id": 10,
            "game": game,
            "rules": '{"x": 1}',
            "challenger_id": players[0],
            "challenger_name": f"p{players[0]}",
            "opponent_id": players[1],
            "opponent_name": f"p{players[1]}",
            "status": "open",
            "created_at": 1.0,
            "expires_at": 1000.0,
        }
    )
    match = new_match(game, rules)
    values: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": 10,
        "challenge_id": challenge,
        "game": game,
        "length": rules.length,
        "rules": json.dumps(rules.to_dict()),
        "player0_id": players[0],
        "player0_name": f"p{players[0]}",
        "player1_id": players[1],
        "player1_name": f"p{players[1]}",
        "colour0": "white",
        "colour1": "black",
        "status": "active",
        "dice_commitment": "c" * 64,
        "dice_seed": rng.randbytes(32),
        "created_at": 1.0,
        "last_action_at": 1.0,
        "version": 0,
    }
    match_id = await store.create_match(challenge, values, [], match.snapshot())
    assert match_id is not None
    for version in range(actions):
        action = random_action(match, rng)
        if action is None:
            break
        games_before = len(match.games)
        match.apply(action)
        over = match.is_over()
        changes: dict[str, Any] = {
            "score0": match.score[0],
            "score1": match.score[1],
            "last_action_at": 2.0 + version,
        }
        if over:
            changes |= {"status": "finished", "winner_seat": match.winner(), "finished_at": 9.0}
        results = [
            {**result.to_dict(), "at": 3.0 + version} for result in match.games[games_before:]
        ]
        stats = [
            StatUpdate(GUILD, game, user, f"p{user}", {"points_won": 1.5, "played": 1}, {})
            for user in players
            if results
        ]
        await store.commit_action(
            match_id,
            version,
            version,
            [NewEvent(2.0 + version, players[action.player or 0], action.kind, action.to_dict())],
            match.snapshot(),
            changes,
            game_results=results,
            stat_updates=stats,
        )
    return match_id
