"""Tournaments through the fake Discord, with the real discord.py client: the sign-up
announcement and its buttons, rounds that start their matches in threads (pinging both
players), matches conceded by typing /resign level:match in their threads, restarts of the bot
in the middle, the pictures after each round, the champion, withdrawal and adjudication, and
the refusals (ephemeral, nothing recorded). Each tournament match costs at most 2 bot-token
requests beyond the match's own (its thread and first board)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fakediscord import Channel, FakeDiscord, Member, Message
from support.discord_driver import (
    handlers_done,
    lift_rate_limit,
    reply_to,
    results,
    say,
    service_of,
)
from support.render_spy import DrawnTexts
from support.robot_driver import robot_of

from bot.service import (
    Board,
    ShowTournament,
    Stats,
    TournamentStatus,
    TournamentView,
    UpdateSettings,
    ViewMatch,
)

pytestmark = pytest.mark.asyncio

# Bot-token requests of a match of its own (a challenge accepted, conceded by typed command):
# its thread, its first board, and that board's buttons taken away as the match ends.
MATCH_OWN = 3
TOURNAMENT_EXTRA = 2  # the issue's budget per tournament match, beyond the match's own


async def members(fake: FakeDiscord, count: int) -> list[Member]:
    return [await fake.add_member(f"p{i + 1}") for i in range(count)]


async def create(fake: FakeDiscord, organiser: Member, form: str, **options: object) -> Message:
    it = await fake.slash(
        "tournament create",
        {"game": "nannon", "format": form, "points": 1, **options},
        by=organiser,
    )
    announcement = (await it.response()).message
    assert announcement is not None and not announcement.ephemeral
    await handlers_done(fake)
    return announcement


async def join_all(fake: FakeDiscord, announcement: Message, players: list[Member]) -> None:
    for player in players:
        it = await fake.click(announcement, label="Join", by=player)
        assert (await it.response()).type == 7  # the announcement, edited in the answer
    await handlers_done(fake)


async def signed_up(
    fake: FakeDiscord, form: str, count: int, **options: object
) -> tuple[Member, list[Member], Message]:
    """An organiser's tournament with ``count`` players joined by its button: the organiser,
    the players (p1 first) and the announcement."""
    await lift_rate_limit(fake)
    organiser = await fake.add_member("org", manage_guild=True)
    players = await members(fake, count)
    announcement = await create(fake, organiser, form, **options)
    await join_all(fake, announcement, players)
    return organiser, players, announcement


async def tournament(fake: FakeDiscord, tournament_id: int = 1) -> TournamentView:
    return await service_of(fake).handle(ShowTournament(tournament_id, fake.guild.id))


def by_id(players: list[Member]) -> dict[int, Member]:
    return {p.id: p for p in players}


def lower_id_wins(board: Board) -> int:
    assert board.second is not None
    return max(board.first, board.second)


async def play_round(
    fake: FakeDiscord, players: list[Member], loser: Callable[[Board], int] = lower_id_wins
) -> TournamentView:
    """The loser of every open match of the round types /resign level:match in its thread."""
    view = await tournament(fake)
    people = by_id(players)
    for board in view.round_boards(view.round):
        if board.finished:
            continue
        assert board.match_id is not None
        match = await service_of(fake).handle(ViewMatch(board.match_id, fake.guild.id))
        assert match.thread_id is not None  # the match has its own thread
        thread = fake.channels[match.thread_id]
        assert await say(fake, "resign", people[loser(board)], thread, level="match")
    await handlers_done(fake)
    return await tournament(fake)


async def thread_shows_the_end(fake: FakeDiscord, board: Board) -> bool:
    """The board's match thread says the match is over, as any match's does."""
    assert board.match_id is not None
    match = await service_of(fake).handle(ViewMatch(board.match_id, fake.guild.id))
    assert match.match_over and match.thread_id is not None
    return bool(results(fake, fake.channels[match.thread_id]))


def pictures(fake: FakeDiscord, channel: Channel) -> list[str]:
    """The alt text of every tournament picture posted in ``channel``."""
    return [
        a.description or ""
        for m in fake.messages(channel)
        for a in m.attachments
        if a.filename == "tournament.png"
    ]


async def test_knockout_of_8_with_a_restart_ends_with_its_champion(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser, players, announcement = await signed_up(fake, "knockout", 8)
    assert "Players (8)" in str(announcement.embeds[0]["fields"][0]["name"])
    before = fake.stats.snapshot()
    it = await fake.click(announcement, label="Start", by=organiser)
    await it.response()
    await handlers_done(fake)
    assert not announcement.components  # sign-up closed
    view = await tournament(fake)
    assert view.status is TournamentStatus.RUNNING and len(view.round_boards(1)) == 4
    pings = [m for m in fake.messages(fake.channel) if "round 1:" in m.content]
    assert len(pings) == 4 and all(m.content.count("<@") == 2 for m in pings)
    view = await play_round(fake, players)
    assert view.round == 2
    stopped = fake.stats.snapshot()
    await fake.restart_bot()
    await lift_rate_limit(fake)
    restart = fake.stats.since(stopped).bot_token_total  # logging in again, not the tournament
    view = await play_round(fake, players)
    assert view.round == 3
    view = await play_round(fake, players)
    assert view.status is TournamentStatus.FINISHED and view.winner_id == players[0].id
    champion = [m for m in fake.messages(fake.channel) if m.content.startswith("🏆")]
    assert len(champion) == 1 and f"<@{players[0].id}>" in champion[0].content
    alts = pictures(fake, fake.channel)
    assert len(alts) == 3  # after rounds 1 and 2, and the final one
    assert "Final" in alts[-1] and "p1*" in alts[-1]
    done = fake.stats.since(before)
    matches = sum(1 for b in view.boards if b.match_id is not None)
    assert matches == 7
    spent = done.bot_token_total - restart
    assert spent <= matches * (MATCH_OWN + TOURNAMENT_EXTRA), dict(done.bot_token)
    # One message pinging each pairing; a picture after rounds 1 and 2; the champion; the
    # announcement's last edit.
    assert done.bot_token["POST /channels/{channel_id}/messages"] == 7 + 7 + 2 + 1
    stats = await service_of(fake).handle(Stats(fake.guild.id, players[0].id, "nannon"))
    assert (stats.tournaments_played, stats.tournaments_won, stats.won) == (1, 1, 3)
    it = await fake.slash("stats", {"game": "nannon"}, by=players[0])
    assert "Tournaments played 1, won 1" in str((await reply_to(it)).embeds[0]["description"])


async def test_round_robin_of_5_with_restarts(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser, players, _ = await signed_up(fake, "round_robin", 5)
    it = await fake.slash("tournament start", {"tournament": 1}, by=organiser)
    assert (await reply_to(it)).ephemeral
    await handlers_done(fake)
    for number in range(1, 6):
        view = await play_round(fake, players)
        if number in (2, 4):
            await fake.restart_bot()
            await lift_rate_limit(fake)
    view = await tournament(fake)
    assert view.status is TournamentStatus.FINISHED
    assert [line.id for line in view.table()] == [p.id for p in players]
    assert [line.points for line in view.table()] == [5, 4, 3, 2, 1]  # the bye scores 1
    alts = pictures(fake, fake.channel)
    assert len(alts) == 5  # after rounds 1 to 4, and the final crosstable
    assert alts[-1].startswith("Tournament #1 · after round 5. # Player 1 2 3 4 5 Pts. 1 p1 x 1 1")


async def test_swiss_of_6_over_3_rounds_shows_its_standings(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser, players, announcement = await signed_up(fake, "swiss", 6, rounds=3)
    await (await fake.click(announcement, label="Start", by=organiser)).response()
    await handlers_done(fake)
    for _ in range(3):
        view = await play_round(fake, players)
    assert view.status is TournamentStatus.FINISHED and view.winner_id == players[0].id
    pairs = [frozenset((b.first, b.second)) for b in view.boards]
    assert len(set(pairs)) == 9
    it = await fake.slash("tournament show", {"tournament": 1}, by=players[3])
    shown = await reply_to(it)
    assert shown.attachments and "Buch SB" in (shown.attachments[0].description or "")
    # Issue 33: the picture says what Buch and SB are (drawn, and in its alt text).
    assert "Buch: Buchholz, the sum of the opponents' points. SB: Sonneborn-Berger" in (
        shown.attachments[0].description or ""
    )
    assert "Won by p1." in str(shown.embeds[0]["description"])


async def test_withdrawal_and_adjudication(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser, players, announcement = await signed_up(fake, "knockout", 4)
    await (await fake.click(announcement, label="Start", by=organiser)).response()
    await handlers_done(fake)
    view = await tournament(fake)
    withdrawing = next(b for b in view.round_boards(1) if players[3].id in (b.first, b.second))
    said = await say(fake, "tournament withdraw", players[3], fake.channel, tournament=1)
    assert said == "You withdrew from tournament #1."
    assert await thread_shows_the_end(fake, withdrawing)
    other = next(b for b in view.round_boards(1) if b.board != withdrawing.board)
    assert other.match_id is not None
    # Only the organiser decides a match.
    refusal = await say(
        fake, "tournament adjudicate", players[1], fake.channel,
        tournament=1, match=other.match_id, winner=players[1],
    )  # fmt: skip
    assert refusal == "Only the organiser, org, or a server manager can do that."
    said = await say(
        fake, "tournament adjudicate", organiser, fake.channel,
        tournament=1, match=other.match_id, winner=players[1],
    )  # fmt: skip
    assert said == f"Match #{other.match_id} goes to p2."
    assert await thread_shows_the_end(fake, other)
    view = await tournament(fake)
    assert view.round == 2
    final = view.round_boards(2)[0]
    assert {final.first, final.second} == {players[0].id, players[1].id}  # p1 by the forfeit
    assert players[3].id not in {final.first, final.second}


async def test_refusals_are_ephemeral_and_record_nothing(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser = await fake.add_member("org", manage_guild=True)
    alice, bob = await members(fake, 2)
    svc = service_of(fake)
    elsewhere = await fake.add_channel("elsewhere")
    await svc.handle(UpdateSettings(fake.guild.id, {"challenge_channels": [elsewhere.id]}))
    options = {"game": "nannon", "format": "knockout"}
    said = await say(fake, "tournament create", organiser, fake.channel, **options)
    assert said == f"Challenges are allowed only in <#{elsewhere.id}>."
    said = await say(fake, "tournament create", alice, elsewhere, **options)
    assert said == (
        "Only members with the Manage Server permission (or the role /config tournaments names)"
        " can create a tournament."
    )
    assert await svc.store.guild_tournaments(fake.guild.id, 10) == []
    it = await fake.slash("tournament create", options, by=organiser, channel=elsewhere)
    announcement = (await it.response()).message
    assert announcement is not None
    await handlers_done(fake)
    await join_all(fake, announcement, [alice])
    it = await fake.click(announcement, label="Join", by=alice)
    twice = await reply_to(it)
    assert twice.ephemeral and twice.content == "You are in tournament #1 already."
    said = await say(fake, "tournament start", organiser, elsewhere, tournament=1)
    assert said == "A tournament needs at least 2 players to start; it has 1."
    await join_all(fake, announcement, [bob])
    it = await fake.click(announcement, label="Start", by=bob)
    stranger = await reply_to(it)
    assert stranger.ephemeral and stranger.content.startswith("Only the organiser, org,")
    view = await tournament(fake)
    assert view.status is TournamentStatus.SIGNUP and view.boards == ()
    assert [e.name for e in view.entrants] == ["p1", "p2"]
    listed = await say(fake, "tournament list", bob, elsewhere)
    assert listed.startswith("#1 · Knockout · Nannon · Sign-up is open")


async def test_the_reminder_loop_starts_at_starts_and_reports_an_overdue_round(
    tablebot: FakeDiscord,
) -> None:
    fake = tablebot
    organiser = await fake.add_member("org", manage_guild=True)
    players = await members(fake, 2)
    announcement = await create(fake, organiser, "knockout", starts=10, round_days=1)
    await join_all(fake, announcement, players)
    reminders = fake.bot.get_cog("Reminders")  # type: ignore[union-attr]
    now = service_of(fake).clock()
    assert await reminders.run_once(now + 60) == []  # type: ignore[union-attr]
    assert await reminders.run_once(now + 601) == [("start", 1)]  # type: ignore[union-attr]
    await handlers_done(fake)
    assert not announcement.components
    view = await tournament(fake)
    assert view.status is TournamentStatus.RUNNING and view.round_deadline is not None
    board = view.round_boards(1)[0]
    late = view.round_deadline + 1
    # The claim rules go on as ever (a Claim win button); the organiser hears once.
    done = await reminders.run_once(late)  # type: ignore[union-attr]
    assert ("overdue", 1) in done
    again = await reminders.run_once(late + 60)  # type: ignore[union-attr]
    assert ("overdue", 1) not in again
    await handlers_done(fake)
    reports = [m for m in fake.messages(fake.channel) if "past its deadline" in m.content]
    assert len(reports) == 1
    report = reports[0]
    assert report.content.startswith(f"<@{organiser.id}>: round 1 of tournament #1 is past")
    assert f"Match #{board.match_id}: p1 vs p2" in report.content


async def test_the_robot_makes_up_the_numbers_and_plays_its_match(tablebot: FakeDiscord) -> None:
    fake = tablebot
    organiser, players, announcement = await signed_up(fake, "knockout", 3, robot="beginner")

    async def no_pause(seconds: float) -> None:
        # A 1-point match has a dead cube: the service rolls for both, and the robot plays
        # on until its opponent has a choice, without its pause between moves.
        return None

    robot_of(fake).sleep = no_pause
    await (await fake.click(announcement, label="Start", by=organiser)).response()
    await handlers_done(fake)
    view = await tournament(fake)
    robot = next(e for e in view.entrants if e.robot)
    assert robot.user_id == fake.bot.user.id  # type: ignore[union-attr]
    board = next(b for b in view.round_boards(1) if robot.user_id in (b.first, b.second))
    assert board.match_id is not None
    match = await service_of(fake).handle(ViewMatch(board.match_id, fake.guild.id))
    assert match.robot_seat == 1 and match.robot_level == 1 and match.thread_id is not None
    # Its opponent concedes; the other match is conceded too: the final is paired.
    people = by_id(players)
    human = board.first if board.second == robot.user_id else board.second
    assert human is not None
    thread = fake.channels[match.thread_id]
    assert await say(fake, "resign", people[human], thread, level="match")
    await handlers_done(fake)
    view = await play_round(fake, players)
    assert view.round == 2
    final = view.round_boards(2)[0]
    assert robot.user_id in (final.first, final.second)


async def test_a_role_the_server_allows_may_create(tablebot: FakeDiscord) -> None:
    fake = tablebot
    manager = await fake.add_member("boss", manage_guild=True)
    role = await fake.add_role("Tournament directors")
    director = await fake.add_member("td", roles=[role])
    options = {"game": "nannon", "format": "swiss"}
    refused = await say(fake, "tournament create", director, fake.channel, **options)
    assert refused.startswith("Only members with the Manage Server permission")
    saved = await say(fake, "config tournaments", manager, fake.channel, role=role)
    assert f"- Tournaments created by: Manage Server, <@&{role.id}>" in saved.splitlines()
    await create(fake, director, "swiss")
    assert (await tournament(fake)).organiser.name == "td"
    saved = await say(fake, "config tournaments", manager, fake.channel, managers_only=True)
    assert "- Tournaments created by: Manage Server, nobody else" in saved.splitlines()


async def test_issue_33_a_bracket_shows_each_match_score(
    tablebot: FakeDiscord, drawn_texts: DrawnTexts
) -> None:
    """Issue 33, pictures that say less than they should: a bracket shows each match's score,
    carried from the stored match through the view to the drawn text and the alt text."""
    import render.tournament
    from bot.discord.tournament_presenter import _bracket
    from render.tournament import bracket_picture

    fake = tablebot
    organiser, players, announcement = await signed_up(fake, "knockout", 4, points=3)
    it = await fake.click(announcement, label="Start", by=organiser)
    await it.response()
    await handlers_done(fake)
    view = await play_round(fake, players)
    first_round = view.round_boards(1)
    assert all(b.score is not None and sorted(b.score) == [0, 3] for b in first_round)
    winner_first = next(b for b in first_round if b.winner == b.first)
    assert winner_first.score == (3, 0)  # first's points first, whichever seat first sat in
    alt = pictures(fake, fake.channel)[-1]
    assert alt.count("* 3") == 2 and alt.count(" 0") >= 2, alt
    bracket = _bracket(view)
    assert bracket is not None
    drawn = drawn_texts(render.tournament)
    bracket_picture(*bracket[:3], bye=bracket[3], to_come=bracket[4])
    texts = [t for t, _ in drawn]
    # Two winners' 3 and losers' 0, and the final under way at 0-0.
    assert texts.count("3") == 2 and texts.count("0") == 4, texts
