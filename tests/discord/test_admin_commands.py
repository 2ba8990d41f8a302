"""The admin commands through the fake Discord: /sync (the application's owner only, a global
sync) and /config threads and /config cube (Manage Server only), checked by what they change:
/config show, the next challenge's rules, and where the next accepted match is played.
"""

from __future__ import annotations

from typing import Any

import pytest
from fakediscord import FakeDiscord, Member
from support.discord_driver import next_board, reply_to, service_of

from bot.discord.cogs.admin import NOT_MANAGER, NOT_OWNER
from bot.service import GetSettings, ViewMatch

pytestmark = pytest.mark.asyncio


async def ephemeral(fake: FakeDiscord, command: str, by: Member, **options: Any) -> str:
    message = await reply_to(await fake.slash(command, options, by=by))
    assert message.ephemeral, message
    return message.content


def global_syncs(fake: FakeDiscord) -> list[Any]:
    return fake.calls_matching(method="PUT", route="/applications/{application_id}/commands")


async def test_sync_is_for_the_owner_only(tablebot: FakeDiscord) -> None:
    fake = tablebot
    mod = await fake.add_member("mod", manage_guild=True)
    member = await fake.add_member("member")
    assert None not in fake.commands  # only the dev guild's commands so far

    for who in (member, mod):
        assert await ephemeral(fake, "sync", who) == NOT_OWNER
    assert None not in fake.commands and not global_syncs(fake)

    owner = fake.guild.members[fake.owner.id]  # owns the guild and the application
    dev_guild_names = fake.command_names()
    it = await fake.slash("sync", {}, by=owner)
    assert (await it.response()).ephemeral
    answer = await reply_to(it)
    synced = fake.commands[None]
    assert answer.ephemeral
    assert answer.content == (
        f"Synced {len(synced)} commands globally (they may take up to an hour to appear)."
    )
    assert len(global_syncs(fake)) == 1
    assert {c["name"] for c in synced} == dev_guild_names
    assert {"challenge", "move", "roll", "config", "sync"} <= {c["name"] for c in synced}


def shown_in(fake: FakeDiscord) -> list[str]:
    """The command names the dev guild's members see: its own commands and the global ones."""
    return [c["name"] for c in fake._commands_for(fake.guild)]


async def test_dev_guild_commands_never_show_twice(tablebot: FakeDiscord) -> None:
    """DEV_GUILD_ID gets a copy of every command at start-up while there are no global ones;
    once /sync has synced them globally, its own copies go (at once, and at every start-up
    after), so each command shows once there."""
    fake = tablebot
    before = shown_in(fake)
    assert None not in fake.commands and len(before) == len(set(before)) > 10

    owner = fake.guild.members[fake.owner.id]
    await reply_to(await fake.slash("sync", {}, by=owner))
    assert fake.commands[fake.guild.id] == []  # the dev guild's own copies are gone
    assert sorted(shown_in(fake)) == sorted(before)

    # A restart with DEV_GUILD_ID still set: the global commands exist, no copy is made.
    await fake.restart_bot()
    await fake.wait_bot_idle()
    guild_syncs = fake.calls_matching(
        method="PUT", route="/applications/{application_id}/guilds/{guild_id}/commands"
    )
    assert guild_syncs[-1].json == []
    assert sorted(shown_in(fake)) == sorted(before)
    # The commands work as before, from the global list.
    assert (await reply_to(await fake.slash("games", {}, by=owner))).ephemeral


async def test_commands_are_for_server_installs_and_server_channels_only(
    tablebot: FakeDiscord,
) -> None:
    """integration_types [0] (server install; unset would let Discord offer them to user
    installs) and contexts [0] (server channels), on every command synced."""
    fake = tablebot
    owner = fake.guild.members[fake.owner.id]
    guild_commands = list(fake.commands[fake.guild.id])
    await reply_to(await fake.slash("sync", {}, by=owner))
    for command in [*guild_commands, *fake.commands[None]]:
        assert command["integration_types"] == [0], command["name"]
        assert command["contexts"] == [0], command["name"]


def settings_lines(text: str) -> set[str]:
    return set(text.splitlines())


async def test_config_threads_and_cube(tablebot: FakeDiscord) -> None:
    fake = tablebot
    svc = service_of(fake)
    mod = await fake.add_member("mod", manage_guild=True)
    member = await fake.add_member("member")
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    before = await svc.handle(GetSettings(fake.guild.id))
    assert before.use_threads and before.cube and before.crawford

    # Without Manage Server: refused, nothing saved.
    assert await ephemeral(fake, "config threads", member, enabled=False) == NOT_MANAGER
    assert await ephemeral(fake, "config cube", member, cube=False) == NOT_MANAGER
    assert await ephemeral(fake, "config show", member) == NOT_MANAGER
    assert await svc.handle(GetSettings(fake.guild.id)) == before

    saved = await ephemeral(fake, "config threads", mod, enabled=False)
    assert saved.startswith("Saved.") and "- Threads for matches: off" in saved
    saved = await ephemeral(fake, "config cube", mod, cube=False, crawford=False)
    assert "- Cube off, Crawford off, Jacoby off, automatic doubles 0" in saved
    after = await svc.handle(GetSettings(fake.guild.id))
    assert (after.use_threads, after.cube, after.crawford) == (False, False, False)

    shown = await ephemeral(fake, "config show", mod)
    assert not shown.startswith("Saved.")
    assert {
        "- Threads for matches: off",
        "- Cube off, Crawford off, Jacoby off, automatic doubles 0",
    } <= settings_lines(shown)

    # The next challenge takes the new defaults, and its match stays in the channel.
    it = await fake.slash("challenge", {"game": "nannon", "opponent": bob, "points": 3}, by=alice)
    invitation = (await it.response()).message
    assert invitation is not None
    assert "Nannon, to 3 (no cube)" in invitation.embeds[0]["description"]
    await fake.click(invitation, label="Accept", by=bob)
    board = await next_board(fake, fake.channel, 1, None)
    assert not fake.threads(fake.channel) and not fake.guild.threads
    view = await svc.handle(ViewMatch(1))
    assert view.thread_id is None and view.channel_id == fake.channel.id
    assert not view.rules.cube and view.can_double == (False, False)
    assert "Double" not in {b["label"] for b in board.buttons}
    assert "Cube" not in {f["name"] for f in board.embeds[0].get("fields", [])}

    # Turned back on: the next match gets its thread again.
    saved = await ephemeral(fake, "config threads", mod, enabled=True)
    assert "- Threads for matches: on" in saved
    it = await fake.slash("challenge", {"game": "nannon", "opponent": alice}, by=bob)
    second = (await it.response()).message
    assert second is not None
    await fake.click(second, label="Accept", by=alice)
    thread = await fake.wait_until(lambda: fake.channels.get(second.id), what="the thread")
    await next_board(fake, thread, 2, None)
    assert (await svc.handle(ViewMatch(2))).thread_id == thread.id
