"""Matches against the robot within the bot's request budget, counted by the fake Discord over
whole matches in each game, the post-match analysis included: the robot's reply (its whole turn,
the roll, the move and every forced step of either side, one board) goes through the human's
interaction (its follow-up) while that token lives, so a robot match costs the bot token about
what a match between people does; a human who waited 15 minutes gets the reply on the bot
token."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from fakediscord.ratelimits import RequestStats
from support.discord_driver import Clock, DiceScript, boards, embed_text, reply_to, service_of
from support.robot_driver import (
    challenge_robot,
    human_acts,
    play_to_the_end,
    robot_of,
    robot_ready,
    settle,
)

from bot.service import MatchView, UpdateSettings, ViewMatch
from engines.base import Phase

pytestmark = pytest.mark.asyncio

BUDGET = 0.3  # bot-token requests per human action, over a whole robot match and its analysis


async def robot_match_requests(
    fake: FakeDiscord, game: str, **options: Any
) -> tuple[int, Counter[str], int, Channel]:
    """A whole match against the robot and its analysis: the human's actions, the bot-token
    requests by route, the match and its thread."""
    await robot_ready(fake, analyse_robot_matches=True)
    alice = await fake.add_member("alice")
    before = fake.stats.snapshot()
    match_id, thread, _ = await challenge_robot(fake, alice, game, **options)
    actions: list[MatchView] = []
    await play_to_the_end(fake, thread, match_id, alice, on_turn=actions.append)
    await settle(fake)
    await service_of(fake).analyses.wait_idle()
    await settle(fake)
    done = fake.stats.since(before)
    print(
        f"\n{game}: {len(actions)} human actions, {done.bot_token_total} bot-token requests "
        f"({done.bot_token_total / len(actions):.3f} per action), {done.interaction_total} to "
        f"interaction endpoints: {dict(done.bot_token)}"
    )
    return len(actions), done.bot_token, match_id, thread


def assert_one_board_per_robot_turn(fake: FakeDiscord, thread: Channel, match_id: int) -> None:
    """The boards that wait for the human ping her; none waits for the robot after its turn:
    the robot's turn and the forced steps after it are one board, each step a line."""
    shown = boards(fake, thread, match_id)
    human = [b for b in shown if b.content.startswith("<@")]
    assert len(human) >= len(shown) // 2, [b.content for b in shown]
    assert not any(b.components for b in shown)


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("nannon", {"points": 3, "level": "beginner"}),
        ("checkers", {"level": "beginner"}),
        ("backgammon", {"points": 1, "level": "beginner"}),
    ],
)
async def test_a_robot_match_stays_within_the_request_budget(
    tablebot: FakeDiscord, game: str, options: dict[str, Any]
) -> None:
    fake = tablebot
    actions, requests, match_id, thread = await robot_match_requests(fake, game, **options)
    total = sum(requests.values())
    assert actions >= 5
    assert total / actions <= BUDGET, requests
    # The match's thread and its first board; the analysis is shown through the human's last
    # interaction (a robot's first turn, before the human ever acted, may take the bot token).
    assert requests["POST /channels/{channel_id}/messages/{message_id}/threads"] == 1
    assert requests["POST /channels/{channel_id}/messages"] <= 2, requests
    assert requests["PATCH /channels/{channel_id}/messages/{message_id}"] <= 1, requests
    assert_one_board_per_robot_turn(fake, thread, match_id)
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert view.match_over


async def test_the_robots_reply_to_a_human_who_waited_15_minutes_takes_the_bot_token(
    tablebot: FakeDiscord, dice: DiceScript, clock: Clock
) -> None:
    """The human's interaction token lives 15 minutes: the robot's reply after that (the robot
    held past it, here by the clocks moved on) goes with the bot token, and the match goes on."""
    fake = tablebot
    await robot_ready(fake)
    seeded = random.Random(7)
    dice.face = lambda: seeded.randint(1, 6)
    robot_of(fake).rng = random.Random(5)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=11, level="beginner")

    # A reply in time: the human's follow-up, no bot-token request.
    fresh = await until_the_robot_replies(fake, match_id, thread, alice)
    assert fresh.bot_token_total == 0, fresh.bot_token
    assert fresh.interaction_total >= 2

    # The robot's reply comes 15 minutes after the human's action: the bot token posts it.
    async def fifteen_minutes(seconds: float) -> None:
        clock.advance(15 * 60)
        await fake.advance(15 * 60)

    await service_of(fake).handle(UpdateSettings(fake.guild.id, {"robot_pause_ms": 1}))
    robot_of(fake).sleep = fifteen_minutes
    late = await until_the_robot_replies(fake, match_id, thread, alice)
    assert late.bot_token["POST /channels/{channel_id}/messages"] == 1, late.bot_token
    latest = boards(fake, thread, match_id)[-1]
    assert f"<@{alice.id}>" in latest.content and latest.components


async def test_the_robots_reply_to_a_typed_move_is_its_follow_up(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    """A human who types /move (not the board's menu): the robot's reply is that command's
    follow-up too."""
    fake = tablebot
    await robot_ready(fake)
    seeded = random.Random(3)
    dice.face = lambda: seeded.randint(1, 6)
    robot_of(fake).rng = random.Random(3)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=11, level="beginner")
    replied = await until_the_robot_replies(fake, match_id, thread, alice, typed=True)
    assert replied.bot_token_total == 0, replied.bot_token


async def until_the_robot_replies(
    fake: FakeDiscord, match_id: int, thread: Channel, human: Member, *, typed: bool = False
) -> RequestStats:
    """The human plays until an action of hers is answered by the robot's turn (a new board
    that pings her): the requests of that action and the reply."""
    for _ in range(50):
        await settle(fake)
        view = await service_of(fake).handle(ViewMatch(match_id))
        assert not view.match_over
        shown = len(boards(fake, thread, match_id))
        before = fake.stats.snapshot()
        if typed and view.phase is Phase.MOVE:
            play = {"play": view.legal_moves[0]}
            assert (
                await reply_to(await fake.slash("move", play, by=human, channel=thread))
            ).content
        else:
            await (await human_acts(fake, thread, view, human)).response()
        await settle(fake)
        found = boards(fake, thread, match_id)
        robot_played = len(found) > shown and "tablebot" in embed_text(found[-1])
        if robot_played and f"<@{human.id}>" in found[-1].content:
            return fake.stats.since(before)
    raise AssertionError("the robot never replied")


def step_lines(board: Message) -> list[str]:
    """The lines above a board's prompt: one per step since the board before."""
    lines = embed_text(board).splitlines()[1:]
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("**"))]


# Seeds of the dice (and the robot's draws): with 5, a run of four rolls with no legal move,
# both sides', follows the robot's move; with 1, games end and the robot opens the next.
@pytest.mark.parametrize(("seed", "passes"), [(1, 0), (5, 4)])
async def test_a_forced_sequence_is_one_board_with_a_line_per_step(
    tablebot: FakeDiscord, dice: DiceScript, seed: int, passes: int
) -> None:
    """However many forced steps follow one action (the robot's roll and move, the human's roll
    with no legal move, the robot's next roll and move ...), the thread gets one new board for
    them, a line per step, pinging the human: counted after every human action of a whole
    Nannon match with seeded dice."""
    fake = tablebot
    await robot_ready(fake)
    seeded = random.Random(seed)
    dice.face = lambda: seeded.randint(1, 6)
    robot_of(fake).rng = random.Random(seed)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=5, level="beginner")
    replies: list[list[list[str]]] = []  # per human action: the new boards, as first shown
    seen = len(boards(fake, thread, match_id))

    def count(view: MatchView) -> None:
        nonlocal seen
        posted = boards(fake, thread, match_id)[seen:]
        seen += len(posted)
        assert all(f"<@{alice.id}>" in m.content for m in posted), [m.content for m in posted]
        replies.append([step_lines(m) for m in posted])

    await play_to_the_end(fake, thread, match_id, alice, on_turn=count)
    # After each human action, at most one new board, which pings her: the robot's whole reply.
    assert all(len(posted) <= 1 for posted in replies), [len(p) for p in replies]
    robot_turns = [
        pinged[0] for pinged in replies if pinged and any("tablebot " in line for line in pinged[0])
    ]
    longest = max(robot_turns, key=len)
    print(f"\nseed {seed}: {len(replies)} human actions, {len(robot_turns)} robot turns")
    print("the longest robot turn's board:\n" + "\n".join(longest))
    # The robot's roll and its move share its board.
    for lines in robot_turns:
        moved = [i for i, line in enumerate(lines) if line.startswith("tablebot plays")]
        rolled = [
            i for i, line in enumerate(lines) if line.startswith(("tablebot rolls", "Opening"))
        ]
        assert not moved or (rolled and rolled[0] < moved[0]), lines
    # A chain of passes is one board, a line per step.
    assert max(sum("no legal move" in line for line in lines) for lines in robot_turns) >= passes
