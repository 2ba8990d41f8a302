"""Mentions and hostile names, end to end through the fake Discord.

A whole Nannon match to 3 between alice and a player whose display name is
``@everyone **bold** <@&123>``: the challenge, every turn message, a NANNON with the 📣 shout,
game and match over. Every message body the bot sends (the recorded REST payloads) carries
``allowed_mentions`` that can never ping @everyone, @here or a role, and lets through at most the
player it pings. The hostile name shows up escaped: no live mention, no markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from fakediscord import Call, FakeDiscord, Member, Message
from support.discord_driver import DiceScript, reply_to
from support.nannon_driver import Table

from bot.discord.presenter import SHOUT
from bot.discord.replies import escape_name
from bot.service import MatchView
from engines.base import GameMatch, Phase
from engines.match import DiceMatch
from engines.nannon import SAFETY, Move, Position

pytestmark = pytest.mark.asyncio

HOSTILE = "@everyone **bold** <@&123>"
USER_MENTION = re.compile(r"<@!?(\d+)>")
# What Discord turns into a live mention (or a mention pill): @everyone, @here, roles, users.
LIVE_EVERYONE = re.compile(r"@(everyone|here)")
LIVE_ROLE = re.compile(r"<@&\d+>")


class Steer:
    """Dice that favour one seat: it wins openings 6-1 and then rolls the biggest die it can
    use; the other rolls 1s. The service shows the dice the match each die is rolled for."""

    def __init__(self, favour: int) -> None:
        self.favour, self._opening_die = favour, 0

    def face(self, match: GameMatch) -> int:
        if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
            seat, self._opening_die = self._opening_die, 1 - self._opening_die
            return 6 if seat == self.favour else 1
        assert isinstance(match, DiceMatch)
        position = match.position
        if match.turn == self.favour:
            return next((r for r in range(6, 0, -1) if position.legal_moves(r)), 6)
        # The other one never hits (else the two could hit each other forever): a die with a
        # quiet move, else one with no move at all.
        quiet = [r for r in range(1, 7) if any(not m.hit for m in position.legal_moves(r))]
        stuck = [r for r in range(1, 7) if not position.legal_moves(r)]
        return (quiet or stuck or [1])[0]


def choose(view: MatchView, racing: bool) -> str:
    """The favoured player races home; the other crawls, never hits, keeps out of safety."""
    position = view.position
    assert isinstance(position, Position) and view.dice is not None

    def progress(text: str) -> tuple[int, int]:
        mine = position.apply(Move.parse(text, position, view.dice[0])).theirs
        return sum(1 for p in mine if p == SAFETY), sum(mine)

    moves = list(view.legal_moves)
    if racing:
        return max(moves, key=progress)
    return min(moves, key=lambda m: ("*" in m, progress(m)))


@dataclass
class Played:
    table: Table
    alice: Member
    hostile: Member
    carol: Member
    invitation: Message
    announcements: list[Message]


async def play_match_with_hostile_name(fake: FakeDiscord, dice: DiceScript) -> Played:
    """alice challenges the hostile player (who wins with NANNONs and shouts); carol, who is
    not invited, tries to accept first."""
    steer = Steer(favour=1)
    dice.steer = steer.face
    alice = await fake.add_member("alice")
    hostile = await fake.add_member("mallory", nick=HOSTILE)
    carol = await fake.add_member("carol")

    it = await fake.slash(
        "challenge", {"game": "nannon", "opponent": hostile, "points": 3}, by=alice
    )
    invitation = (await it.response()).message
    assert invitation is not None
    it = await fake.click(invitation, label="Accept", by=carol)
    refusal = await reply_to(it)  # a refusal is the click's answer
    assert refusal.ephemeral

    table, board = await start_match_from(fake, invitation, alice, hostile)
    for _ in range(200):
        view = await table.view()
        if view.match_over:
            break
        move = None
        if view.phase is Phase.MOVE:
            move = choose(view, racing=view.actor == 1)
        mark = fake.mark()
        await table.play_turn(board, view, move)
        board = await table.next_after(view, board, mark) or board
    else:
        raise AssertionError(f"the match did not end: {view.position_id} {view.score}")
    await table.wait_match_over()
    view = await table.view()
    assert view.winner_seat == 1 and view.score[1] >= 3

    announcements = [m for m in table.results() if m.reaction(SHOUT)]
    assert announcements, "no NANNON in the match"
    mark = fake.mark()
    await fake.react(announcements[0], SHOUT, by=hostile)
    await fake.wait_for_call(method="POST", route="/channels/{channel_id}/messages", since=mark)
    await fake.wait_bot_idle()
    return Played(table, alice, hostile, carol, invitation, announcements)


async def start_match_from(
    fake: FakeDiscord, invitation: Message, alice: Member, opponent: Member
) -> tuple[Table, Message]:
    it = await fake.click(invitation, label="Accept", by=opponent)
    assert (await it.response()).type == 7
    thread = (await fake.wait_until(lambda: fake.threads(fake.channel), what="the thread"))[0]
    table = Table(fake, thread, {0: alice, 1: opponent})
    return table, await table.latest_board()


def message_bodies(fake: FakeDiscord) -> list[tuple[Call, dict[str, Any]]]:
    """Every message body the bot sent: posts, edits, interaction responses and follow-ups."""
    found = []
    for call in fake.calls:
        body = call.json
        if not isinstance(body, dict):
            continue
        if call.route.endswith("/callback"):
            body = body.get("data") or {}
        elif not (
            call.route.startswith("/webhooks/")
            or call.route.startswith("/channels/{channel_id}/messages")
        ):
            continue
        if "content" in body or "embeds" in body:
            found.append((call, body))
    return found


async def test_every_message_uses_allowed_mentions_that_never_ping_everyone_or_roles(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    played = await play_match_with_hostile_name(fake, dice)
    players = {played.alice.id, played.hostile.id}

    # The client default pings nobody: a message that forgets allowed_mentions is still safe.
    bot = fake.bot
    assert isinstance(bot, discord.Client) and bot.allowed_mentions is not None
    assert bot.allowed_mentions.to_dict() == {"parse": []}

    bodies = message_bodies(fake)
    pinged: set[int] = set()
    with_content = 0
    for call, body in bodies:
        content = body.get("content") or ""
        allowed = body.get("allowed_mentions")
        if not content:
            continue  # embeds never ping
        with_content += 1
        assert isinstance(allowed, dict), f"{call!r} sends content without allowed_mentions"
        parse = set(allowed.get("parse", []))
        assert "everyone" not in parse and "roles" not in parse, (call, allowed)
        assert not allowed.get("roles"), (call, allowed)
        mentioned = {int(uid) for uid in USER_MENTION.findall(content)}
        users = {int(uid) for uid in allowed.get("users", [])}
        if "users" in parse:
            users |= mentioned
        # Only the player the message is for may be pinged, and only when it names them.
        assert users <= mentioned & players, (call, content, allowed)
        pinged |= users

    # The match really pinged people: the challenged player, each player's turn, the NANNON.
    assert with_content >= 5
    assert pinged == players
    turn_pings = [b for _, b in bodies if str(b.get("content", "")).endswith("it's your turn.")]
    assert {tuple(int(u) for u in b["allowed_mentions"]["users"]) for b in turn_pings} == {
        (played.alice.id,),
        (played.hostile.id,),
    }
    challenge = next(b for _, b in bodies if "you are challenged" in str(b.get("content")))
    assert [int(u) for u in challenge["allowed_mentions"]["users"]] == [played.hostile.id]


def adapter_texts(played: Played) -> list[str]:
    """Texts the Discord adapter builds around the name with escape_name: the invitation and
    its accept line, every board's fields and prompt (the description's last line), the game
    and match results, the shout."""
    texts = [played.invitation.content, str(played.invitation.embeds[0]["description"])]
    for board in played.table.boards():
        embed = board.embeds[0]
        texts.append(str(embed["description"]).splitlines()[-1])
        texts += [str(f["value"]) for f in embed.get("fields", [])]
    for result in played.table.results():
        texts.append(str(result.embeds[0]["description"]))
    fake = played.table.fake
    texts += [
        m.content
        for m in fake.messages(played.table.thread)
        if m.content.startswith(f"# {SHOUT} NANNON!")
    ]
    return texts


def service_texts(played: Played) -> list[str]:
    """Texts the service writes with the name and the adapter shows as they are: the notes at
    the top of each board's description, and refusals (carol accepting a challenge that is not
    hers)."""
    texts = []
    for board in played.table.boards():
        texts += str(board.embeds[0]["description"]).splitlines()[:-1]
    fake = played.table.fake
    texts += [m.content for m in fake.messages(fake.channel) if m.ephemeral]
    return texts


async def test_hostile_display_name_is_escaped_where_the_adapter_prints_it(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    played = await play_match_with_hostile_name(fake, dice)
    escaped = escape_name(HOSTILE)
    assert "**bold**" not in escaped and not LIVE_EVERYONE.search(escaped)

    texts = adapter_texts(played)
    shout = [t for t in texts if t.startswith(f"# {SHOUT} NANNON!")]
    assert len(shout) == 1 and f"**{escaped}**" in shout[0]
    assert escaped in played.invitation.content  # "<name> accepted alice's challenge: ..."
    assert escaped in str(played.invitation.embeds[0]["description"])
    for board in played.table.boards():
        fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
        assert escaped in fields["Score"]
    results = [str(r.embeds[0]["description"]) for r in played.table.results()]
    assert results and all(escaped in r for r in results)
    for text in texts:
        assert not LIVE_EVERYONE.search(text), text
        assert "**bold**" not in text, text
    for message in fake.messages(fake.channel) + fake.messages(played.table.thread):
        for embed in message.embeds:  # titles render markdown (mentions stay plain text)
            assert "**bold**" not in str(embed.get("title", "")), embed["title"]


async def test_hostile_role_mention_in_a_name_is_neutralised(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    played = await play_match_with_hostile_name(tablebot, dice)
    texts = adapter_texts(played)
    assert texts
    for text in texts:
        assert not LIVE_ROLE.search(text), text


async def test_hostile_name_is_escaped_in_service_notes_and_refusals(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    played = await play_match_with_hostile_name(tablebot, dice)
    texts = [t for t in service_texts(played) if "bold" in t]
    assert len(texts) >= 2  # the name is there: the opening notes and carol's refusal
    for text in texts:
        assert "**bold**" not in text, text
        assert not LIVE_EVERYONE.search(text), text
