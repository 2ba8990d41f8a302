"""Whose language, through the fake Discord (which sends ``locale`` and ``guild_locale`` on every
interaction as Discord does): a whole Nannon match between a Turkish member and a Greek one in a
server set to Italian. What only a player reads is in their language; the invitation, the boards
and the result, which everyone reads, are in the server's."""

from __future__ import annotations

import pytest
from fakediscord import FakeDiscord, Member, Message
from support.discord_driver import (
    DiceScript,
    embed_text,
    footer,
    lift_rate_limit,
    next_board,
    next_board_or_end,
    public,
    reply_to,
    results,
    say,
    service_of,
)
from support.nannon_driver import NannonForBob, nannon_for_bob_move

from bot.discord.catalogue import text
from bot.discord.replies import escape_name
from bot.service import GetSettings, ViewMatch
from engines.base import Phase, ResultKind

pytestmark = pytest.mark.asyncio


def labels(message: Message) -> set[str]:
    return {b["label"] for b in message.buttons}


async def member_in(fake: FakeDiscord, name: str, locale: str) -> Member:
    member = await fake.add_member(name)
    member.user.locale = locale  # their Discord app's language
    return member


async def test_a_turkish_and_a_greek_member_play_in_an_italian_server(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    await lift_rate_limit(fake)
    ayse = await member_in(fake, "ayse", "tr")
    nikos = await member_in(fake, "nikos", "el")
    manager = await fake.add_member("mod", manage_guild=True)

    # The manager (an English Discord) sets the server's language: told in English.
    said = await say(fake, "config language", manager, fake.channel, language="it")
    assert text("settings.language", "en", language="Italiano") in said
    assert (await svc.handle(GetSettings(fake.guild.id))).language == "it"

    # The invitation is public: Italian, whoever wrote the command.
    it = await fake.slash("challenge", {"game": "nannon", "opponent": nikos, "points": 2}, by=ayse)
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral
    assert labels(invitation) == {
        text(f"button.{b}", "it") for b in ("accept", "decline", "cancel")
    }

    # Ayse can't accept her own challenge: told in Turkish.
    refusal = await reply_to(
        await fake.click(invitation, label=text("button.accept", "it"), by=ayse)
    )
    assert refusal.ephemeral
    assert refusal.content == text("refusal.own_challenge", "tr")

    it = await fake.click(invitation, label=text("button.accept", "it"), by=nikos)
    assert (await it.response()).type == 7
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    board = await next_board(fake, thread, 1, None, "it")
    match_id = int(footer(board).split("#")[1].split(" ")[0])
    assert match_id == 1
    players = {0: ayse, 1: nikos}
    view = await svc.handle(ViewMatch(match_id))
    board_words = embed_text(board)
    assert text("turn.field.score", "it") in board_words
    assert text("turn.field.score", "en") not in board_words  # "Score" is "Punteggio"
    alt = board.attachments[0].description or ""  # the picture's alt text: Italian too
    assert text("turn.field.score", "it") in alt and "Score:" not in alt

    # The one not on turn clicks the board: refused in their own language.
    assert view.actor is not None
    waiting = players[1 - view.actor]
    on_turn_name = escape_name(players[view.actor].name)
    it = await fake.click(board, label=text("button.roll", "it"), by=waiting)
    refused = (await it.response()).message
    assert refused is not None and refused.ephemeral
    locale = "tr" if waiting is ayse else "el"
    assert refused.content == text("refusal.waits_for", locale, name=on_turn_name)

    # Play it out: rolls by the Italian button, moves by menu and by /move (answered in the
    # mover's language).
    answered: dict[str, str] = {}
    dice.steer = NannonForBob().face  # nikos wins with a NANNON, whose result names the game
    for turn in range(80):
        view = await svc.handle(ViewMatch(match_id))
        if view.match_over:
            break
        assert view.actor is not None
        who = players[view.actor]
        mine = "tr" if who is ayse else "el"
        if view.phase in (Phase.ROLL, Phase.OPENING_TIE):
            assert text("button.roll", "it") in labels(board)
            await fake.click(board, label=text("button.roll", "it"), by=who)
        elif view.phase is Phase.MOVE and turn % 3 == 0:
            play = nannon_for_bob_move(view)
            it = await fake.slash("move", {"play": play}, by=who, channel=thread)
            answered[mine] = (await it.followup()).content
        else:
            assert view.phase is Phase.MOVE, view.phase
            await fake.select(board, [nannon_for_bob_move(view)], by=who)
        board = await next_board_or_end(fake, thread, match_id, board, "it") or board
    assert (await svc.handle(ViewMatch(match_id))).match_over
    assert set(answered.values()) <= {text("done.played", "tr"), text("done.played", "el")}
    assert answered

    # The result everyone reads: Italian.
    await fake.wait_until(lambda: results(fake, thread, "it"), what="the result")
    final = embed_text(results(fake, thread, "it")[-1])
    view = await svc.handle(ViewMatch(match_id))
    assert view.match_over
    assert final.startswith(text("result.match_over", "it", title=""))
    assert labels(results(fake, thread, "it")[-1]) >= {text("button.rematch", "it")}
    for message in public(fake, thread):
        assert text("turn.field.score", "en") not in embed_text(message)
    # Issue 33: the Nannon result's footer read "Match #1 · game 1 · NANNON" in Italian.
    assert view.games[-1].kind is ResultKind.NANNON
    said = footer(results(fake, thread, "it")[-1])
    assert said == text("shout.footer", "it", match_id=match_id, game=1)
    assert " game " not in said


async def test_a_member_chooses_a_language_of_their_own(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    svc = service_of(fake)
    ayse = await member_in(fake, "ayse", "tr")

    # Nothing chosen: her Discord app's language.
    said = await say(fake, "games", ayse, fake.channel)
    assert said == text("games.empty", "tr")

    said = await say(fake, "language", ayse, fake.channel, language="ru")
    assert said == text("language.member_chosen", "ru", language="Русский")
    assert await svc.store.member_language(ayse.id) == "ru"
    assert await say(fake, "games", ayse, fake.channel) == text("games.empty", "ru")

    # "Discord's language": back to her app's, and the choice is forgotten.
    said = await say(fake, "language", ayse, fake.channel, language="discord")
    assert said == text("language.member_discord", "tr", language="Türkçe")
    assert await svc.store.member_language(ayse.id) is None
    assert await say(fake, "games", ayse, fake.channel) == text("games.empty", "tr")


async def test_the_servers_discord_language_is_the_default(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    await fake.set_guild_locale("es-419")  # Latin American Spanish: the es-ES catalogue
    ayse = await member_in(fake, "ayse", "tr")
    bob = await fake.add_member("bob")  # an English app
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=ayse)
    invitation = (await it.response()).message
    assert invitation is not None
    assert labels(invitation) == {
        text(f"button.{b}", "es-ES") for b in ("accept", "decline", "cancel")
    }
    decline = text("button.decline", "es-ES")
    refusal = await reply_to(await fake.click(invitation, label=decline, by=ayse))
    assert refusal.content == text("refusal.only_opponent_declines", "tr", name="bob")


async def test_an_english_server_sees_what_it_always_saw(
    tablebot: FakeDiscord, dice: DiceScript
) -> None:
    fake = tablebot
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    assert labels(invitation) == {"Accept", "Decline", "Cancel"}
    assert await say(fake, "games", alice, fake.channel) == text("games.empty", "en")
