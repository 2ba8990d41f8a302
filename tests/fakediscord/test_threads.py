"""Threads in the fake: archived and locked metadata, what a post, an edit or a reaction does in
each state, deletion with THREAD_DELETE, Discord's rules for editing a thread, and auto-archiving
on the fake's clock."""

from __future__ import annotations

import time
from datetime import datetime

import discord
import pytest

from fakediscord import FakeDiscord, FakeDiscordError
from fakediscord.conftest import Rest, gate_of
from fakediscord.model import MANAGE_THREADS, README_PERMISSIONS, Channel

pytestmark = pytest.mark.asyncio
THUMBS = "%F0%9F%91%8D"


def metadata(thread: Channel) -> dict[str, object]:
    data = thread.payload()["thread_metadata"]
    assert isinstance(data, dict)
    return data


async def test_thread_metadata_follows_archiving_and_locking(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    meta = metadata(thread)
    assert (meta["archived"], meta["locked"], meta["auto_archive_duration"]) == (False, False, 1440)
    created = meta["archive_timestamp"]
    await fake.archive_thread(thread)
    await fake.lock_thread(thread)
    meta = metadata(thread)
    assert meta["archived"] is True and meta["locked"] is True
    assert str(meta["archive_timestamp"]) >= str(created)
    # Only active threads come in GUILD_CREATE.
    assert str(thread.id) not in {
        t["id"] for t in fake.guild.payload(include_all_members=False)["threads"]
    }


async def test_a_post_to_an_archived_thread_unarchives_it(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    await fake.archive_thread(thread)
    posted = await rest.send(thread, "your turn")
    assert posted.status == 200
    assert not thread.archived and fake.last_message(thread).content == "your turn"


async def test_a_locked_thread_takes_manage_threads(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    mine = await rest.send(thread, "board")
    await fake.lock_thread(thread)
    for reply in (
        await rest.send(thread, "no"),
        await rest.patch(f"/channels/{thread.id}/messages/{mine.body['id']}", {"content": "x"}),
    ):
        assert (reply.status, reply.body) == (
            403,
            {"message": "Thread is locked", "code": 160005},
        ), reply
    # Reactions are allowed while a locked thread is still active.
    path = f"/channels/{thread.id}/messages/{mine.body['id']}/reactions/{THUMBS}/@me"
    assert (await rest.put(path)).status == 204
    # Archived and locked: Manage Threads posts, and unarchives it; it stays locked.
    await fake.archive_thread(thread)
    assert (await rest.send(thread, "no")).body["code"] == 160005
    await fake.set_bot_permissions(README_PERMISSIONS | MANAGE_THREADS)
    assert (await rest.send(thread, "moderator")).status == 200
    assert not thread.archived and thread.locked


async def test_edits_and_reactions_in_an_archived_thread_are_refused(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    mine = await rest.send(thread, "board")
    await fake.archive_thread(thread)
    message_path = f"/channels/{thread.id}/messages/{mine.body['id']}"
    for reply in (
        await rest.patch(message_path, {"content": "edited"}),
        await rest.put(f"{message_path}/reactions/{THUMBS}/@me"),
    ):
        assert (reply.status, reply.body["code"]) == (400, 50083), reply
    assert thread.archived  # neither unarchived it
    # Deleting messages is what an archived thread still allows.
    assert (await rest.delete(message_path)).status == 204


async def test_a_deleted_thread_is_an_unknown_channel(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    mine = await rest.send(thread, "board")
    await fake.delete_thread(thread)
    assert thread.deleted and thread not in fake.guild.threads and thread.id not in fake.channels
    for reply in (
        await rest.send(thread, "hello?"),
        await rest.get(f"/channels/{thread.id}"),
        await rest.patch(f"/channels/{thread.id}/messages/{mine.body['id']}", {"content": "x"}),
    ):
        assert (reply.status, reply.body) == (404, {"message": "Unknown Channel", "code": 10003})
    with pytest.raises(FakeDiscordError, match="already deleted"):
        await fake.delete_thread(thread)


async def test_editing_a_thread_follows_discords_rules(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    path = f"/channels/{thread.id}"
    # Its creator may archive and rename it, not lock it.
    assert (await rest.patch(path, {"archived": True})).status == 200 and thread.archived
    assert (await rest.patch(path, {"archived": False, "name": "renamed"})).status == 200
    assert not thread.archived and thread.name == "renamed"
    assert (await rest.patch(path, {"locked": True})).body["code"] == 50013
    # Deleting it takes Manage Threads.
    assert (await rest.delete(path)).body["code"] == 50013
    await fake.lock_thread(thread)
    await fake.archive_thread(thread)
    # Unarchiving a locked thread takes Manage Threads too.
    assert (await rest.patch(path, {"archived": False})).body["code"] == 160005
    await fake.set_bot_permissions(README_PERMISSIONS | MANAGE_THREADS)
    assert (await rest.patch(path, {"archived": False, "locked": False})).status == 200
    assert not thread.archived and not thread.locked
    deleted = await rest.delete(path)
    assert deleted.status == 200 and deleted.body["id"] == str(thread.id) and thread.deleted
    # A text channel takes Manage Channels.
    assert (await rest.patch(f"/channels/{fake.channel.id}", {"name": "x"})).status == 403


async def test_threads_archive_themselves_after_their_inactivity(rest: Rest) -> None:
    fake = rest.fake
    thread = await rest.thread()
    assert thread.auto_archive_duration == 1440
    await fake.advance(23 * 3600)
    assert (await rest.send(thread, "still here")).status == 200  # activity: the day restarts
    await fake.advance(23 * 3600)
    assert not thread.archived
    await fake.advance(3600)
    assert thread.archived
    # Stamped when it archived: the wall clock moved on by every advance (47 hours here).
    stamp = datetime.fromisoformat(str(metadata(thread)["archive_timestamp"])).timestamp()
    assert abs(stamp - (time.time() + 47 * 3600)) < 60


async def test_people_in_threads(gated: FakeDiscord) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    it = await fake.slash("gate", by=alice)
    bot = gate_of(fake)
    bot.gate.set()
    message = await it.message()
    cached = bot.get_channel(fake.channel.id)
    assert isinstance(cached, discord.TextChannel)
    opened = await (await cached.fetch_message(message.id)).create_thread(name="t")
    board = fake.get_message((await opened.send("board")).id)
    thread = fake.channels[opened.id]
    await fake.archive_thread(thread)
    with pytest.raises(FakeDiscordError, match="archived: no commands"):
        await fake.slash("gate", by=alice, channel=thread)
    with pytest.raises(FakeDiscordError, match="archived: no reactions"):
        await fake.react(board, "👍", by=alice)
    await fake.say("back", by=alice, channel=thread)  # a person's message unarchives it too
    assert not thread.archived
    await fake.react(board, "👍", by=alice)
    await fake.lock_thread(thread)
    with pytest.raises(FakeDiscordError, match="is locked"):
        await fake.say("hello", by=alice, channel=thread)


async def test_discord_py_sees_archiving_locking_and_deletion(gated: FakeDiscord) -> None:
    fake = gated
    alice = await fake.add_member("alice")
    it = await fake.slash("gate", by=alice)
    bot = gate_of(fake)
    bot.gate.set()
    message = await it.message()
    cached = bot.get_channel(fake.channel.id)
    assert isinstance(cached, discord.TextChannel)
    created = await (await cached.fetch_message(message.id)).create_thread(name="match")
    fake_thread = fake.channels[created.id]

    def cached_thread() -> discord.Thread:
        found = bot.get_channel(created.id)
        assert isinstance(found, discord.Thread)
        return found

    await fake.archive_thread(fake_thread)
    assert bot.get_channel(created.id) is None  # discord.py keeps only active threads
    await created.send("your move")  # the post unarchives it, and the bot hears so
    assert not fake_thread.archived
    await fake.wait_until(lambda: bot.get_channel(created.id), what="THREAD_UPDATE parsed")
    assert not cached_thread().archived

    await fake.lock_thread(fake_thread)
    assert cached_thread().locked
    with pytest.raises(discord.Forbidden) as locked:
        await cached_thread().send("no")
    assert locked.value.code == 160005

    await fake.delete_thread(fake_thread)
    assert bot.get_channel(created.id) is None
    with pytest.raises(discord.NotFound) as gone:
        await created.send("anyone?")
    assert gone.value.code == 10003


async def test_a_public_thread_without_a_message_is_announced_in_its_channel(
    rest: Rest,
) -> None:
    """As Discord does: a THREAD_CREATED system message (type 18) in the parent channel, with
    the thread's name and a reference to it."""
    fake = rest.fake
    reply = await rest.post(f"/channels/{fake.channel.id}/threads", {"name": "match", "type": 11})
    assert reply.status in (200, 201), reply.body
    notice = fake.channel.messages[-1]
    payload = notice.payload(fake.base_url, fake.bot_user.id)
    assert (payload["type"], payload["content"]) == (18, "match")
    assert payload["message_reference"]["channel_id"] == reply.body["id"]
