"""Bot-token requests per human action: `python benchmarks/robot_requests.py [--matches N]`.

Plays whole matches through the real bot and the fake Discord (its request counters), with the
board's buttons and menus, in each game: ``N`` matches against the robot (beginner, so that the
robot's thinking stays short; the post-match analysis on, its messages counted) and ``N``
matches between two people, and prints per game the bot-token requests per human action (the
commands' sync left out: counted from the first challenge), the requests by route, and the
requests made to the interaction endpoints (exempt from the bot's global limit of 50 a second).

The target: at most 0.3 per human action in robot matches (tests/discord/test_robot_budget.py
asserts it). Measured on the shared 2-core machine (other engineers' work running), robot
matches at beginner (Nannon to 3, checkers, backgammon to 1), the analysis on:

- before (the robot's roll and move each a board on the bot token, the analysis too; 1 match
  each): Nannon 0.59, checkers 1.10, backgammon 1.75 per human action;
- after (the robot's whole turn one board, the human's interaction's follow-up; 1-2 matches
  each): Nannon 0.10-0.15, checkers 0.08-0.17, backgammon 0.011-0.019: the match's thread and
  first board only (a short match pays them over fewer actions);
- matches between people, for comparison: Nannon 0.03-0.04, checkers 0.01-0.06, backgammon
  0.005-0.007 (a NANNON's 📣 reaction is the only other bot-token request).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the fake Discord
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakediscord import TOKEN, FakeDiscord, Member
from support.discord_driver import footer, service_of
from support.nannon_driver import ephemeral_texts
from support.robot_driver import (
    challenge_robot,
    human_acts,
    play_to_the_end,
    robot_ready,
    settle,
)

from bot.config import Settings
from bot.discord.app import create_bot
from bot.service import MatchView, ViewMatch

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("nannon", {"points": 3}),
    ("checkers", {}),
    ("backgammon", {"points": 1}),
]


async def robot_match(fake: FakeDiscord, human: Member, game: str, options: dict[str, Any]) -> int:
    """A whole match against the robot and its analysis: the human's actions."""
    match_id, thread, _ = await challenge_robot(fake, human, game, level="beginner", **options)
    actions: list[MatchView] = []
    await play_to_the_end(fake, thread, match_id, human, on_turn=actions.append)
    await settle(fake)
    await service_of(fake).analyses.wait_idle()
    await settle(fake)
    return len(actions)


async def people_match(
    fake: FakeDiscord, a: Member, b: Member, game: str, options: dict[str, Any]
) -> int:
    """A whole match between ``a`` and ``b``, both by the board's buttons: their actions."""
    it = await fake.slash("challenge", {"game": game, "opponent": b, **options}, by=a)
    invitation = (await it.response()).message
    assert invitation is not None
    match_id = int(footer(invitation).split("#")[1])
    await (await fake.click(invitation, label="Accept", by=b)).response()
    await settle(fake)
    svc = service_of(fake)
    view = await svc.handle(ViewMatch(match_id))
    thread = fake.channels[view.thread_id or view.channel_id]
    rng = random.Random(match_id)  # the first legal move for both may never end a game
    players = {0: a, 1: b} if view.players[0].user_id == a.id else {0: b, 1: a}
    for actions in range(3000):
        await settle(fake)
        view = await svc.handle(ViewMatch(match_id))
        if view.match_over:
            return actions
        who = players[view.actor if view.actor is not None else 0]
        it = await human_acts(
            fake, thread, view, who, choose=lambda v: rng.choice(v.legal_moves[:25])
        )
        await it.response()
    raise AssertionError(f"match #{match_id} did not end: {view.phase} {ephemeral_texts(it)}")


def show(label: str, actions: int, requests: Counter[str], exempt: int) -> None:
    total = sum(requests.values())
    print(
        f"  {label:<22} {actions:5d} human actions  {total:4d} bot-token requests  "
        f"{total / max(actions, 1):.3f} per action  ({exempt} to interaction endpoints)"
    )
    for route, count in sorted(requests.items()):
        print(f"      {count:4d}  {route}")


async def main(matches: int, games: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            token=TOKEN, db_path=Path(tmp) / "requests.db", dev_guild_id=None, log_level="WARNING"
        )
        fake = FakeDiscord(strict=False, ready_timeout=60)
        async with fake.run(lambda **o: create_bot(settings, **o)):
            bot = fake.bot
            assert bot is not None
            await bot.tree.sync()  # type: ignore[attr-defined]
            await robot_ready(fake, analyse_robot_matches=True)
            print(f"Bot-token requests per human action, {matches} whole match(es) each:")
            for game, options in [(g, o) for g, o in GAMES if g in games]:
                for label in ("against the robot", "between people"):
                    before = fake.stats.snapshot()
                    actions = 0
                    for n in range(matches):
                        a = await fake.add_member(f"{game}-{label[:3]}-{n}a")
                        if label == "against the robot":
                            actions += await robot_match(fake, a, game, options)
                        else:
                            b = await fake.add_member(f"{game}-{label[:3]}-{n}b")
                            actions += await people_match(fake, a, b, game, options)
                    done = fake.stats.since(before)
                    show(f"{game} {label}", actions, done.bot_token, done.interaction_total)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2, help="whole matches per game and kind")
    parser.add_argument("--games", default=",".join(g for g, _ in GAMES), help="comma-separated")
    args = parser.parse_args()
    asyncio.run(main(args.matches, args.games.split(",")))
