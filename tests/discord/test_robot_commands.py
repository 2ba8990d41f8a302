"""The robot's commands through the fake Discord: /hint (ephemeral; in robot matches, in matches
between people only once /config robot allows it, only for the player's own decision), /stats'
record against each level, ratings and leaderboards untouched by robot matches unless the server
rates them, the default level and the pause, the rematch, and the polite refusals (backgammon
where gnubg does not run, a level against a person)."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import embed_text, reply_to, results, say, service_of
from support.robot_driver import (
    bot_of,
    challenge_robot,
    human_acts,
    play_to_the_end,
    robot_of,
    robot_ready,
    settle,
)

from bot.discord import wording
from bot.robot.player import nannon_context
from bot.service import (
    AcceptChallenge,
    ActiveMatches,
    AskHint,
    MatchView,
    NewChallenge,
    Refusal,
    ViewMatch,
)
from engines.base import Phase
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import NannonSolver

pytestmark = pytest.mark.asyncio

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


async def answer(fake: FakeDiscord, command: str, by: Member, **options: Any) -> Message:
    """The visible answer to a slash command (its response, or the follow-up after a defer)."""
    return await reply_to(await fake.slash(command, options, by=by))


async def until_human(fake: FakeDiscord, match_id: int, phase: Phase, alice: Member) -> MatchView:
    """Play the human's side (rolls and first moves) until she is to act in ``phase``."""
    svc = service_of(fake)
    for _ in range(200):
        await settle(fake)
        view = await svc.handle(ViewMatch(match_id))
        assert not view.match_over
        if view.actor == 0 and view.phase is phase:
            return view
        thread = fake.channels[view.thread_id or view.channel_id]
        it = await human_acts(fake, thread, view, alice)
        await it.response()
    raise AssertionError(f"never {phase}")


async def test_hint_in_a_robot_match(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3, level="master")
    view = await until_human(fake, match_id, Phase.MOVE, alice)
    hint = await say(fake, "hint", alice, thread)
    lines = hint.splitlines()
    assert lines[0] == f"**Best moves** ({len(view.legal_moves)} legal):"
    assert lines[-1] == (
        "Equities for you, in match winning chances, from -1 (the match lost) to +1 (won)."
    )
    position = view.position
    assert isinstance(position, NannonPosition) and view.dice is not None
    request = await service_of(fake).handle(AskHint(match_id, fake.guild.id, alice.id))
    context = nannon_context(request.match, 0)  # the match's score, cube and Crawford rule
    ranked = NannonSolver().rank_moves(position, view.dice[0], context)
    best = ranked[: wording.HINT_MOVES_SHOWN]
    assert lines[1 : 1 + len(best)] == [
        f"{n}. `{r.move}` {r.equity:+.3f}" for n, r in enumerate(best, start=1)
    ]


async def test_hint_is_for_your_own_decision(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, robot_pause_ms=1000)
    alice = await fake.add_member("alice")
    held = asyncio.Event()

    async def hold(seconds: float) -> None:  # the robot keeps its turn for the test
        held.set()
        fake.poke()
        await asyncio.Event().wait()

    robot_of(fake).sleep = hold
    match_id, thread, _ = await challenge_robot(fake, alice, "checkers", level="beginner")
    view = await service_of(fake).handle(ViewMatch(match_id))
    assert view.actor == 0  # Black moves first
    it = await human_acts(fake, thread, view, alice)
    await it.response()
    await fake.wait_until(held.is_set, what="the robot's turn")
    assert (await service_of(fake).handle(ViewMatch(match_id))).actor == 1

    async def ask(who: Member) -> str:
        # Not say(): it waits for every handler, and the robot's turn is held for good here.
        answer = await reply_to(await fake.slash("hint", {}, by=who, channel=thread))
        assert answer.ephemeral, answer
        return answer.content

    assert await ask(alice) == wording.REFUSALS[Refusal.NO_HINT]({})
    outsider = await fake.add_member("carol")
    assert "You are not playing in match" in await ask(outsider)


async def test_hint_between_people_needs_the_servers_setting(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    mod = await fake.add_member("mod", manage_guild=True)
    svc = service_of(fake)
    challenge = await svc.handle(NewChallenge(
        fake.guild.id, fake.channel.id, alice.id, "alice", "nannon", opponent_id=bob.id,
        opponent_name="bob", length=3,
    ))  # fmt: skip
    update = await svc.handle(AcceptChallenge(challenge.id, fake.guild.id, bob.id, "bob"))
    view = update.view
    assert view.actor is not None
    on_turn = (alice, bob)[view.actor]
    refusal = await say(fake, "hint", on_turn, fake.channel)
    assert refusal == wording.REFUSALS[Refusal.HINTS_OFF]({})
    saved = await answer(fake, "config robot", mod, hints=True)
    assert "/hint also between people" in saved.content
    hint = await say(fake, "hint", on_turn, fake.channel)
    assert hint.startswith(("**Best moves**", "**Cube action")), hint


async def test_robot_matches_are_unrated_unless_the_server_rates_them(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    mod = await fake.add_member("mod", manage_guild=True)
    shown = await answer(fake, "config show", mod)
    assert (
        "- Robot matches unrated; /hint against the robot only; the robot's pause 0 ms"
        in shown.content.splitlines()
    )
    for _ in range(2):
        # 3 points: a live cube, so the match waits at alice's roll (a dead one rolls for her).
        _, thread, _ = await challenge_robot(fake, alice, "nannon", points=3)
        assert await say(fake, "resign", alice, thread, level="match") == (
            "You conceded the match."
        )
        await settle(fake)
        over = results(fake, thread)[-1]
        assert "tablebot wins the match" in embed_text(over)
        assert "rating" not in embed_text(over)
    stats = await answer(fake, "stats", alice, game="nannon")
    assert stats.ephemeral and "Against tablebot: intermediate 0-2" in embed_text(stats)
    assert "Matches 0: 0-0" in embed_text(stats)
    board = await answer(fake, "leaderboard", alice, game="nannon")
    assert "Nobody has finished" in embed_text(board)

    saved = await answer(fake, "config robot", mod, rated=True)
    assert "Robot matches rated (ratings and leaderboards)" in saved.content
    _, thread, _ = await challenge_robot(fake, alice, "nannon", points=1, level="master")
    await say(fake, "resign", alice, thread, level="match")
    await settle(fake)
    over = embed_text(results(fake, thread)[-1])
    assert "alice: rating 1500 -> " in over and "tablebot: rating 1500 -> " in over
    board = embed_text(await answer(fake, "leaderboard", alice, game="nannon"))
    assert "tablebot" in board and "alice" in board
    stats = await answer(fake, "stats", alice, game="nannon")
    assert "Against tablebot: intermediate 0-2, master 0-1" in embed_text(stats)
    assert "Matches 1: 0-1" in embed_text(stats)


async def test_the_default_level_the_pause_and_the_rematch(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, robot_pause_ms=1000)  # the default pause
    alice = await fake.add_member("alice")
    pauses: list[float] = []

    async def paused(seconds: float) -> None:
        pauses.append(seconds)

    robot_of(fake).sleep = paused
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3)
    svc = service_of(fake)
    assert (await svc.handle(ViewMatch(match_id))).robot_level == 2  # intermediate
    last = await play_to_the_end(fake, thread, match_id, alice)
    assert last.match_over and pauses and set(pauses) == {1.0}

    over = results(fake, thread)[-1]
    it = await fake.click(over, label="Rematch", by=alice)
    assert (await it.followup()).content == wording.ROBOT_REMATCH_STARTED
    await settle(fake)
    again = await svc.handle(ActiveMatches(fake.guild.id, alice.id))
    assert len(again) == 1 and again[0].match_id != match_id
    assert (again[0].robot_seat, again[0].robot_level, again[0].length) == (1, 2, 3)
    assert again[0].thread_id is not None and again[0].thread_id != thread.id


async def test_backgammon_against_the_robot_where_gnubg_does_not_run(
    tablebot: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")

    async def no_gnubg() -> bool:
        return False

    monkeypatch.setattr(bot_of(fake).robot_worker, "gnubg_available", no_gnubg)
    robot = fake.bot_member(fake.guild)
    it = await fake.slash("challenge", {"game": "backgammon", "opponent": robot}, by=alice)
    response = (await it.response()).message
    assert response is not None and response.ephemeral
    assert response.content == (
        "Sorry, backgammon against the robot is not available on this platform. "
        "Challenge a person instead."
    )
    assert not [m for m in fake.messages(fake.channel) if not m.ephemeral]
    assert await service_of(fake).handle(ActiveMatches(fake.guild.id, alice.id)) == []


async def test_a_level_is_for_the_robot_only(tablebot: FakeDiscord) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash(
        "challenge", {"game": "nannon", "opponent": bob, "level": "master"}, by=alice
    )
    response = (await it.response()).message
    assert response is not None and response.ephemeral
    assert response.content == wording.LEVEL_FOR_ROBOT_ONLY


@needs_gnubg
async def test_backgammon_hints_by_gnubg_in_a_money_game(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "backgammon", points=0, level="expert")
    view = await until_human(fake, match_id, Phase.MOVE, alice)
    lines = (await say(fake, "hint", alice, thread)).splitlines()
    assert lines[0] == f"**Best moves** ({len(view.legal_moves)} legal):"
    shown = [line.split("`")[1] for line in lines[1:-1]]
    assert 1 <= len(shown) <= 3 and set(shown) <= set(view.legal_moves)
    assert lines[-1] == "Equities for you, in points, for a cube of 1."
    it = await human_acts(fake, thread, view, alice)
    await it.response()
    await until_human(fake, match_id, Phase.ROLL, alice)  # before her roll: the cube
    lines = (await say(fake, "hint", alice, thread)).splitlines()
    assert lines[0].startswith("**Cube action: ") and lines[1].startswith("No double: ")
    assert [line.split(":")[0] for line in lines[1:4]] == [
        "No double",
        "Double, take",
        "Double, pass",
    ]
