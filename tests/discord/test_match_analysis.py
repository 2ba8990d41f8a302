"""Post-match analysis through the fake Discord (the real bot, the real analysis runner on the
analysis worker): /analyse's refusals; a robot match analysed by itself when it ends, its
progress edited in place into the report; the report of a match asked for with /analyse in each
game (backgammon where gnubg runs), with the chart and the mistakes' cards and their alt texts;
a planted blunder heads the report; /stats' average after two analysed matches; a restart while
an analysis is queued picks it up again (its state is in the database)."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from discord.utils import escape_markdown
from fakediscord import Channel, FakeDiscord, Member, Message
from support.discord_driver import embed_text, reply_to, service_of
from support.robot_driver import bot_of, challenge_robot, play_to_the_end, robot_ready, settle

from bot.discord import wording
from bot.discord.catalogue import text
from bot.service import (
    AcceptChallenge,
    AnalysisStatus,
    GetAnalysis,
    LeaveMatch,
    MatchView,
    NewChallenge,
)
from bot.service.analysis import DEFAULT_PLY
from engines.analysis import DecisionKind
from engines.nannon_solver import Context, CubeState, NannonSolver
from render.common import BEST, PLAYED

pytestmark = pytest.mark.asyncio

needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="the gnubg wheel is not installed here"
)


async def answer(fake: FakeDiscord, command: str, by: Member, **options: Any) -> Message:
    return await reply_to(await fake.slash(command, options, by=by))


async def analysed(fake: FakeDiscord, match_id: int) -> None:
    """Until the match's analysis is done and its report shown."""
    queue = service_of(fake).analyses
    await settle(fake)
    await queue.wait_idle()
    await settle(fake)
    view = await queue.view(match_id)
    assert view.status is AnalysisStatus.DONE, view


def report_of(channel: Channel, match_id: int, locale: str = "en-US") -> Message:
    title = text("analysis.title", locale, match_id=match_id, game="")[:-2]  # up to "("
    found = [m for m in channel.messages if m.embeds and title in (m.embeds[0].get("title") or "")]
    assert found, [m.content for m in channel.messages]
    return found[-1]


def assert_pictures(report: Message) -> None:
    """The chart and one card per mistake shown, each an attachment with its alt text, each
    embed's image one of them."""
    names = [a.filename for a in report.attachments]
    mistakes = len(report.embeds) - 1
    assert names == ["chart.png", *(f"mistake{rank}.png" for rank in range(1, mistakes + 1))]
    assert all(a.description for a in report.attachments), names
    assert report.attachments[0].description.startswith("Chart of each player's")
    images = [(e.get("image") or {}).get("url") for e in report.embeds]
    assert images == [f"attachment://{name}" for name in names]


def progress_message(channel: Channel, match_id: int) -> Message:
    found = [m for m in channel.messages if f"match #{match_id}" in m.content]
    assert found, [m.content for m in channel.messages]
    return found[0]


async def test_analyse_refuses_an_unknown_match_and_one_still_on(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=False)
    alice = await fake.add_member("alice")
    reply = await answer(fake, "analyse", alice, match=4242)
    assert reply.ephemeral
    # To 3: alice may double before each roll, so the match waits for her. To 1 (a dead
    # cube) her rolls are automatic and, with only forced moves, it could end by itself.
    match_id, _thread, _ = await challenge_robot(fake, alice, "nannon", points=3)
    reply = await answer(fake, "analyse", alice, match=match_id)
    assert reply.ephemeral
    assert reply.content == (
        f"Match #{match_id} is still on: it can be analysed once it is finished."
    )


async def test_analyse_refuses_backgammon_where_gnubg_does_not_run(
    tablebot: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tablebot
    alice, bob = await fake.add_member("alice"), await fake.add_member("bob")
    service = service_of(fake)
    guild = fake.guild.id
    challenge = await service.handle(NewChallenge(
        guild, fake.channel.id, alice.id, "alice", "backgammon", opponent_id=bob.id,
        opponent_name="bob", length=1,
    ))  # fmt: skip
    match_id = (
        await service.handle(AcceptChallenge(challenge.id, guild, bob.id, "bob"))
    ).view.match_id
    assert (await service.handle(LeaveMatch(match_id, guild, alice.id))).match_over

    async def no_gnubg() -> bool:
        return False

    monkeypatch.setattr(bot_of(fake).robot_worker, "gnubg_available", no_gnubg)
    reply = await answer(fake, "analyse", bob, match=match_id)
    assert reply.ephemeral
    assert reply.content == "Analysis of Backgammon matches is not available on this bot."


async def test_a_robot_match_is_analysed_when_it_ends(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=True)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3)
    await play_to_the_end(fake, thread, match_id, alice)
    await analysed(fake, match_id)
    # One message: "queued", each game's progress edited in, then edited into the report.
    progress = progress_message(thread, match_id)
    contents = [edit.get("content") for edit in progress.edits]
    total = (await service_of(fake).handle(GetAnalysis(match_id))).games_total
    assert total is not None and total >= 2
    assert [c for c in contents if c and "game" in c] == [
        wording.analysis_progress(match_id, done, total) for done in range(total)
    ]
    report = report_of(thread, match_id)
    assert report.id == progress.id
    assert report.content == wording.analysis_done(match_id)
    text = embed_text(report)
    assert "alice" in text and "Checker play" in text
    done = await service_of(fake).handle(GetAnalysis(match_id))
    assert done.analysis is not None
    assert f"**{done.analysis.players[0].rating}**" in text  # bold, not escaped
    assert report.embeds[0]["footer"]["text"] == "Analysed by exact solver."
    assert_pictures(report)
    # The report's message is where /analyse sends the curious.
    reply = await answer(fake, "analyse", alice, match=match_id)
    assert reply.ephemeral and "analysed already" in reply.content
    assert str(report.id) in reply.content


@pytest.mark.parametrize(
    "game, points",
    [
        ("nannon", 3),
        ("checkers", 1),
        pytest.param("backgammon", 1, marks=needs_gnubg),
    ],
)
async def test_analyse_reports_a_finished_match(
    tablebot: FakeDiscord, game: str, points: int
) -> None:
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=False)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, game, points=points)
    await play_to_the_end(fake, thread, match_id, alice)
    reply = await answer(fake, "analyse", alice, match=match_id)
    assert reply.ephemeral and f"Match #{match_id} is queued for analysis" in reply.content
    again = await answer(fake, "analyse", alice, match=match_id)
    assert "being analysed already" in again.content or "analysed already" in again.content
    await analysed(fake, match_id)
    report = report_of(thread, match_id)
    assert len(report.embeds) >= 2 or "No mistakes" in embed_text(report)
    assert_pictures(report)
    assert report.embeds[0]["footer"]["text"].endswith(
        f"Analysed by GNU Backgammon at {DEFAULT_PLY}-ply." if game == "backgammon" else "."
    )


async def test_stats_average_the_analysed_matches(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=True)
    alice = await fake.add_member("alice")
    rates = []
    for _ in range(2):
        match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=1)
        await play_to_the_end(fake, thread, match_id, alice)
        await analysed(fake, match_id)
        view = await service_of(fake).handle(GetAnalysis(match_id))
        assert view.analysis is not None
        rates.append(view.analysis.players[0].error_rate)
    stats = await answer(fake, "stats", alice, game="nannon")
    expected = wording.analysis_stats_text(2, sum(rates) / 2, None)
    assert expected in embed_text(stats)


async def test_a_planted_blunder_is_the_first_mistake_shown(tablebot: FakeDiscord) -> None:
    """Alice plays the exact solver's best move every time but once, where she plays its worst
    (a blunder); the robot at master plays best: that blunder heads the report."""
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=True)
    alice = await fake.add_member("alice")
    solver = NannonSolver()
    planted: list[tuple[str, float]] = []

    def choose(view: MatchView) -> str:
        assert view.dice is not None
        context = Context.match(1, 1, CubeState())  # a match to 1: the score never changes
        ranked = solver.rank_moves(view.position, view.dice[0], context)
        best, worst = ranked[0], ranked[-1]
        if not planted and best.equity - worst.equity >= 0.2:
            planted.append((str(worst.move), best.equity - worst.equity))
            return str(worst.move)
        return str(best.move)

    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=1, level="master")
    await play_to_the_end(fake, thread, match_id, alice, choose=choose)
    assert planted, "no position offered a blunder"
    await analysed(fake, match_id)
    view = await service_of(fake).handle(GetAnalysis(match_id))
    assert view.analysis is not None
    worst = view.analysis.worst(1)[0]
    assert (worst.player, worst.played) == (0, planted[0][0])
    assert worst.equity_loss == pytest.approx(planted[0][1], abs=1e-6) and worst.is_blunder
    report = report_of(thread, match_id)
    first = report.embeds[1]
    assert first["title"].startswith("Mistake 1: alice")
    played, best = (escape_markdown(m) for m in (worst.played, worst.best))
    assert first["description"].endswith(
        f"Played {played}; best {best}. Equity lost: {worst.equity_loss:.3f}"
    )
    assert report.attachments[1].description.endswith(f"losing {worst.equity_loss:.3f}.")
    # The card's board is the one the blunder was made on: both moves are read and drawn.
    card = report.attachments[1].image().convert("RGB")
    drawn = card.crop((0, 0, card.width, 500)).getcolors(card.width * 500) or []
    for colour in (PLAYED, BEST):
        near = sum(
            n for n, c in drawn if sum(abs(a - b) for a, b in zip(c, colour, strict=True)) <= 30
        )
        assert near > 100, colour


async def test_a_restart_runs_a_queued_analysis_again(tablebot: FakeDiscord) -> None:
    fake = tablebot
    await robot_ready(fake, analyse_robot_matches=False)
    alice = await fake.add_member("alice")
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=3)
    await play_to_the_end(fake, thread, match_id, alice)
    queue = service_of(fake).analyses
    await queue.stop()  # nothing runs it here: it stays queued in the database
    reply = await answer(fake, "analyse", alice, match=match_id)
    assert f"Match #{match_id} is queued" in reply.content, reply.content
    assert (await queue.view(match_id)).status is AnalysisStatus.QUEUED
    await fake.restart_bot()
    await fake.wait_for_commands()
    await analysed(fake, match_id)
    report_of(thread, match_id)


@pytest.mark.parametrize("locale", ["en-US", "tr"])
async def test_issue_33_a_resignation_is_judged_in_the_report(
    tablebot: FakeDiscord, locale: str
) -> None:
    """Alice resigns a 1-point Nannon match at her first turn, which the robot accepts: the
    report lists the resignation among the mistakes, judged against the exact solver, in the
    server's words."""
    fake = tablebot
    await fake.set_guild_locale(locale)
    # Alice rolls herself: a 1-point match (a dead cube) with only forced moves would
    # otherwise play itself to the end before she resigns.
    await robot_ready(fake, analyse_robot_matches=True, auto_roll=False)
    alice = await fake.add_member("alice")
    # Master makes no mistake of its own: the report's mistakes are alice's.
    match_id, thread, _ = await challenge_robot(fake, alice, "nannon", points=1, level="master")
    offered = await reply_to(await fake.slash("resign", by=alice, channel=thread))
    assert offered.content == text("done.resignation_offered"), offered.content  # her app's
    await analysed(fake, match_id)
    view = await service_of(fake).handle(GetAnalysis(match_id))
    assert view.analysis is not None
    judged = [d for d in view.analysis.decisions if d.kind.resignation]
    assert [(d.kind, d.player, d.played, d.best) for d in judged] == [
        (DecisionKind.RESIGN, 0, "resign", "play on"),
        (DecisionKind.RESIGN_ANSWER, 1, "accept", "accept"),
    ]
    offer, accepted = judged
    # To 1 point the resignation loses the match (-1): it costs alice's equity playing on
    # plus one, twice her chance of winning then; accepting it costs the robot nothing.
    assert offer.equity_loss == pytest.approx(2 * offer.win_chance) and offer.win_chance > 0
    assert accepted.equity_loss == 0.0
    rank = view.analysis.worst(3).index(offer) + 1  # among the mistakes the report shows
    shown = report_of(thread, match_id, locale).embeds[rank]
    played, best = (text(f"analysis.cube_action.{key}", locale) for key in ("resign", "play_on"))
    assert played in shown["description"] and best in shown["description"]
    first = shown
    if locale == "tr":
        assert "play on" not in first["description"]
