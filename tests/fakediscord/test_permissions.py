"""Permissions in the fake: computed per channel from roles and overwrites as Discord documents
it, the bot's by default exactly the README's integer, and enforced on the bot's REST calls."""

from __future__ import annotations

import io
from typing import Any

import discord
import pytest
from PIL import Image

from fakediscord import FakeDiscord, FakeDiscordError
from fakediscord.conftest import Rest, gate_of
from fakediscord.model import (
    ADD_REACTIONS,
    ADMINISTRATOR,
    ATTACH_FILES,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    MANAGE_THREADS,
    MEMBER_PERMISSIONS,
    PRIVATE_THREAD,
    READ_MESSAGE_HISTORY,
    README_PERMISSIONS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    Channel,
)

pytestmark = pytest.mark.asyncio


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


# ----------------------------------------------------------------------- defaults


async def test_by_default_the_bot_has_exactly_the_readme_permissions(rest: Rest) -> None:
    fake = rest.fake
    assert README_PERMISSIONS == 309237763136
    assert fake.guild.everyone.permissions == 0
    assert fake.bot_role(fake.guild).permissions == README_PERMISSIONS
    assert fake.bot_member(fake.guild).permissions == README_PERMISSIONS  # guild-wide
    assert fake.bot_permissions(fake.channel) == README_PERMISSIONS
    thread = await rest.thread()
    assert fake.bot_permissions(thread) == README_PERMISSIONS
    # Neither Manage Messages nor Manage Threads, which the fake used to grant.
    assert not README_PERMISSIONS & (MANAGE_MESSAGES | MANAGE_THREADS)
    # People get the Members role; the owner everything.
    alice = await fake.add_member("alice")
    assert fake.permissions(alice) == MEMBER_PERMISSIONS
    assert fake.permissions(fake.guild.members[fake.owner.id]) == (1 << 53) - 1


async def test_a_test_changes_the_bots_permissions(rest: Rest) -> None:
    fake = rest.fake
    await fake.set_bot_permissions(README_PERMISSIONS | MANAGE_THREADS)
    assert fake.bot_permissions(fake.channel) == README_PERMISSIONS | MANAGE_THREADS
    await fake.set_bot_permissions(README_PERMISSIONS & ~CREATE_PUBLIC_THREADS)
    assert not fake.bot_permissions(fake.channel) & CREATE_PUBLIC_THREADS


# ----------------------------------------------------------------------- the computation


async def test_overwrites_apply_everyone_then_roles_together_then_the_member(rest: Rest) -> None:
    fake = rest.fake
    guild, general = fake.guild, fake.channel
    red = await fake.add_role("red")
    blue = await fake.add_role("blue")
    alice = await fake.add_member("alice", roles=[red, blue])
    bob = await fake.add_member("bob", roles=[red])

    # @everyone denied Send Messages: gone for both.
    await fake.set_overwrite(general, guild.everyone, deny=SEND_MESSAGES)
    assert not fake.permissions(alice) & SEND_MESSAGES
    # A role's allow beats @everyone's deny.
    await fake.set_overwrite(general, blue, allow=SEND_MESSAGES)
    assert fake.permissions(alice) & SEND_MESSAGES and not fake.permissions(bob) & SEND_MESSAGES
    # Role overwrites combine: one role's allow wins over another role's deny.
    await fake.set_overwrite(general, red, deny=SEND_MESSAGES | ADD_REACTIONS)
    assert fake.permissions(alice) & SEND_MESSAGES
    assert not fake.permissions(alice) & ADD_REACTIONS
    # The member's own overwrite comes last and wins.
    await fake.set_overwrite(general, alice, deny=SEND_MESSAGES, allow=ADD_REACTIONS)
    assert not fake.permissions(alice) & SEND_MESSAGES
    assert fake.permissions(alice) & ADD_REACTIONS
    # allow=deny=0 removes an overwrite.
    await fake.set_overwrite(general, alice)
    assert fake.permissions(alice) & SEND_MESSAGES
    # Overwrites are per channel.
    other = await fake.add_channel("other")
    assert fake.permissions(bob, other) == MEMBER_PERMISSIONS


async def test_administrator_and_the_owner_ignore_overwrites(rest: Rest) -> None:
    fake = rest.fake
    admins = await fake.add_role("admins", ADMINISTRATOR)
    boss = await fake.add_member("boss", roles=[admins])
    await fake.set_overwrite(fake.channel, fake.guild.everyone, deny=VIEW_CHANNEL)
    await fake.set_overwrite(fake.channel, boss, deny=VIEW_CHANNEL)
    assert fake.permissions(boss) == (1 << 53) - 1
    assert fake.permissions(fake.owner) == (1 << 53) - 1


async def test_without_view_channel_only_guild_wide_permissions_are_left(rest: Rest) -> None:
    fake = rest.fake
    mod = await fake.add_member("mod", manage_guild=True)
    await fake.set_overwrite(fake.channel, fake.guild.everyone, deny=VIEW_CHANNEL)
    perms = fake.permissions(mod)
    assert perms & MANAGE_GUILD  # guild-wide: a channel can't take it
    assert not perms & (VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY | ADD_REACTIONS)


async def test_without_send_messages_embeds_and_files_go_too(rest: Rest) -> None:
    fake = rest.fake
    bot = fake.bot_member(fake.guild)
    await fake.set_overwrite(fake.channel, bot, deny=SEND_MESSAGES)
    perms = fake.bot_permissions(fake.channel)
    assert perms & VIEW_CHANNEL and not perms & (SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES)


async def test_threads_inherit_the_parents_overwrites_and_send_in_threads(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    bot = fake.bot_member(fake.guild)
    # Send Messages has no say in a thread; Send Messages in Threads does.
    await fake.set_overwrite(fake.channel, bot, deny=SEND_MESSAGES)
    assert fake.bot_permissions(thread) & SEND_MESSAGES_IN_THREADS
    assert fake.bot_permissions(thread) & EMBED_LINKS
    await fake.set_overwrite(fake.channel, bot, deny=SEND_MESSAGES_IN_THREADS)
    assert fake.bot_permissions(fake.channel) & SEND_MESSAGES
    assert not fake.bot_permissions(thread) & (SEND_MESSAGES_IN_THREADS | EMBED_LINKS)
    # Hidden parent, hidden thread.
    await fake.set_overwrite(fake.channel, bot, deny=VIEW_CHANNEL)
    assert not fake.bot_permissions(thread) & VIEW_CHANNEL
    with pytest.raises(FakeDiscordError, match="overwrites belong"):
        await fake.set_overwrite(thread, bot, deny=VIEW_CHANNEL)


async def test_a_private_thread_is_seen_by_its_members_and_moderators(rest: Rest) -> None:
    fake = rest.fake
    alice = await fake.add_member("alice")
    made = await rest.post(
        f"/channels/{fake.channel.id}/threads", {"name": "secret", "type": PRIVATE_THREAD}
    )
    assert made.status == 403  # the README asks for no Create Private Threads
    await fake.set_bot_permissions(README_PERMISSIONS | 1 << 36)
    made = await rest.post(
        f"/channels/{fake.channel.id}/threads", {"name": "secret", "type": PRIVATE_THREAD}
    )
    thread = fake.channels[int(made.body["id"])]
    assert fake.bot_permissions(thread) & VIEW_CHANNEL  # the bot created it: a member
    assert not fake.permissions(alice, thread) & VIEW_CHANNEL
    thread.member_ids.add(alice.id)
    assert fake.permissions(alice, thread) & VIEW_CHANNEL


# ----------------------------------------------------------------------- enforced on REST


async def test_the_bot_can_not_use_a_channel_it_can_not_see(rest: Rest) -> None:
    fake = rest.fake
    message = await rest.send(fake.channel, "before")
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), deny=VIEW_CHANNEL)
    for reply in (
        await rest.send(fake.channel),
        await rest.get(f"/channels/{fake.channel.id}"),
        await rest.get(f"/channels/{fake.channel.id}/messages"),
        await rest.patch(f"/channels/{fake.channel.id}/messages/{message.body['id']}", {}),
    ):
        assert (reply.status, reply.body["code"]) == (403, 50001), reply


async def test_sending_takes_send_messages_and_files_take_attach_files(rest: Rest) -> None:
    fake = rest.fake
    bot = fake.bot_member(fake.guild)
    path = f"/channels/{fake.channel.id}/messages"
    await fake.set_overwrite(fake.channel, bot, deny=ATTACH_FILES)
    refused = await rest.post(path, {"content": "a board"}, files={"files[0]": ("b.png", png())})
    assert (refused.status, refused.body["code"]) == (403, 50013)
    assert (await rest.send(fake.channel, "text is fine")).status == 200
    await fake.set_overwrite(fake.channel, bot, deny=SEND_MESSAGES)
    refused = await rest.send(fake.channel, "no")
    assert (refused.status, refused.body["code"]) == (403, 50013)
    assert [m.content for m in fake.messages()] == ["text is fine"]


async def test_without_embed_links_embeds_are_dropped_or_refused(rest: Rest) -> None:
    fake = rest.fake
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), deny=EMBED_LINKS)
    embed = {"title": "Turn 3"}
    kept = await rest.send(fake.channel, "with text", embeds=[embed])
    assert kept.status == 200 and rest.message(kept).embeds == []
    refused = await rest.post(f"/channels/{fake.channel.id}/messages", {"embeds": [embed]})
    assert (refused.status, refused.body["code"]) == (403, 50013)


async def test_history_replies_reactions_and_deleting_others(rest: Rest) -> None:
    fake = rest.fake
    alice = await fake.add_member("alice")
    theirs = await fake.say("mine", by=alice)
    bot = fake.bot_member(fake.guild)
    channel_path = f"/channels/{fake.channel.id}"
    their_path = f"{channel_path}/messages/{theirs.id}"

    # Someone else's message: Manage Messages to delete it.
    assert (await rest.delete(their_path)).status == 403
    # A new reaction takes Add Reactions; joining one does not.
    await fake.set_overwrite(fake.channel, bot, deny=ADD_REACTIONS)
    assert (await rest.put(f"{their_path}/reactions/%F0%9F%91%8D/@me")).status == 403
    await fake.react(theirs, "👍", by=alice)
    assert (await rest.put(f"{their_path}/reactions/%F0%9F%91%8D/@me")).status == 204
    assert theirs.reaction("👍") is not None and theirs.reaction("👍").count == 2  # type: ignore[union-attr]

    # Without Read Message History: no history, no message, no reply.
    await fake.set_overwrite(fake.channel, bot, deny=READ_MESSAGE_HISTORY)
    assert (await rest.get(f"{channel_path}/messages")).body == []
    assert (await rest.get(their_path)).status == 403
    reply = await rest.send(fake.channel, "re", message_reference={"message_id": str(theirs.id)})
    assert reply.status == 403
    await fake.set_overwrite(fake.channel, bot)
    assert len((await rest.get(f"{channel_path}/messages")).body) == 1


async def test_thread_creation_takes_create_public_threads(rest: Rest) -> None:
    fake = rest.fake
    starter = await rest.send(fake.channel, "invite")
    path = f"/channels/{fake.channel.id}/messages/{starter.body['id']}/threads"
    await fake.set_bot_permissions(README_PERMISSIONS & ~CREATE_PUBLIC_THREADS)
    refused = await rest.post(path, {"name": "game"})
    assert (refused.status, refused.body["code"]) == (403, 50013)
    await fake.set_bot_permissions(README_PERMISSIONS)
    assert (await rest.post(path, {"name": "game"})).status == 200


# ----------------------------------------------------------------------- with discord.py


async def bot_view(fake: FakeDiscord, channel: Channel) -> int:
    bot = gate_of(fake)
    guild = bot.get_guild(fake.guild.id)
    assert guild is not None
    cached: Any = guild.get_channel_or_thread(channel.id)
    assert cached is not None
    return int(cached.permissions_for(guild.me).value)


async def test_discord_py_computes_what_the_fake_computes(gated: FakeDiscord) -> None:
    fake = gated
    red = await fake.add_role("red", SEND_MESSAGES)
    alice = await fake.add_member("alice", roles=[red])
    it = await fake.slash("gate", by=alice)
    gate_of(fake).gate.set()
    message = await it.message()
    assert message.content == "through the gate"
    bot = gate_of(fake)
    cached = bot.get_channel(fake.channel.id)
    assert isinstance(cached, discord.TextChannel)
    thread = await (await cached.fetch_message(message.id)).create_thread(name="t")
    fake_thread = fake.channels[thread.id]
    me = fake.bot_member(fake.guild)
    setups: list[tuple[Any, int, int]] = [
        (fake.guild.everyone, 0, SEND_MESSAGES),
        (me, SEND_MESSAGES, EMBED_LINKS),
        (me, 0, SEND_MESSAGES_IN_THREADS),
        (me, MANAGE_MESSAGES, VIEW_CHANNEL),
    ]
    for target, allow, deny in setups:
        await fake.set_overwrite(fake.channel, target, allow=allow, deny=deny)
        for channel in (fake.channel, fake_thread):
            assert await bot_view(fake, channel) == fake.bot_permissions(channel), (
                target,
                channel.name,
            )
    await fake.set_bot_permissions(README_PERMISSIONS | MANAGE_THREADS)
    await fake.set_overwrite(fake.channel, me)
    await fake.set_overwrite(fake.channel, fake.guild.everyone)
    assert await bot_view(fake, fake.channel) == README_PERMISSIONS | MANAGE_THREADS


async def test_interactions_carry_the_permissions_in_their_channel(gated: FakeDiscord) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    await fake.set_overwrite(fake.channel, alice, deny=ADD_REACTIONS)
    await fake.set_overwrite(fake.channel, fake.bot_member(fake.guild), allow=MANAGE_MESSAGES)
    it = await fake.slash("gate", by=alice)
    sent = fake.session.events[-1]["d"]  # type: ignore[union-attr]
    assert int(sent["member"]["permissions"]) == MEMBER_PERMISSIONS & ~ADD_REACTIONS
    assert int(sent["channel"]["permissions"]) == MEMBER_PERMISSIONS & ~ADD_REACTIONS
    assert int(sent["app_permissions"]) == README_PERMISSIONS | MANAGE_MESSAGES
    gate_of(fake).gate.set()
    await it.response()


async def test_people_are_held_to_their_permissions_too(gated: FakeDiscord) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    hidden = await fake.add_channel("staff")
    await fake.set_overwrite(hidden, fake.guild.everyone, deny=VIEW_CHANNEL)
    with pytest.raises(FakeDiscordError, match="can't see #staff"):
        await fake.slash("gate", by=alice, channel=hidden)
    with pytest.raises(FakeDiscordError, match="may not post"):
        await fake.say("hi", by=alice, channel=hidden)
    await fake.set_overwrite(fake.channel, alice, deny=USE_APPLICATION_COMMANDS)
    with pytest.raises(FakeDiscordError, match="can't use commands"):
        await fake.slash("gate", by=alice)
