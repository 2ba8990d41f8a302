"""The in-memory Discord world of the fake: users, guilds, roles, channels, threads, messages.

Every object renders itself as the JSON payload discord.py expects (`payload()`); the field lists
follow discord.py 2.7's parsers (`Guild._from_data`, `Member.__init__`, `Message.__init__`, ...).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from io import BytesIO
from typing import Any

from PIL import Image

DISCORD_EPOCH_MS = 1_420_070_400_000
_increment = itertools.count()
_last_ms = 0

# Permission bits (https://discord.com/developers/docs/topics/permissions).
CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 53) - 1
# Guild-wide permissions a channel can't take away (discord.py's Permissions.all_channel() is
# everything else): without View Channel a member keeps only these there.
GUILD_ONLY_PERMISSIONS = sum(
    1 << b for b in (1, 2, 3, 5, 7, 19, 26, 27, 30, 33, 40, 41, 43, 44, 48)
)
# What sending a message implies: gone where the member can't send (Discord's implicit denies).
NEEDS_SEND = SEND_TTS_MESSAGES | MENTION_EVERYONE | EMBED_LINKS | ATTACH_FILES

# The README's invite asks for exactly these (permissions integer 309237763136). The bot's
# managed role has them and @everyone grants nothing, so by default the bot's permissions are
# exactly the README's, in every channel.
README_PERMISSIONS = (
    VIEW_CHANNEL
    | READ_MESSAGE_HISTORY
    | SEND_MESSAGES
    | SEND_MESSAGES_IN_THREADS
    | EMBED_LINKS
    | ATTACH_FILES
    | CREATE_PUBLIC_THREADS
    | ADD_REACTIONS
)
assert README_PERMISSIONS == 309237763136
BOT_PERMISSIONS = README_PERMISSIONS
EVERYONE_PERMISSIONS = 0
# The "Members" role every human member gets (add_member): what people usually have.
MEMBER_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | CHANGE_NICKNAME
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7

TEXT_CHANNEL, DM_CHANNEL, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12


def snowflake(*, shard: tuple[int, int] | None = None) -> int:
    """A fresh, strictly increasing, time-based id (discord.py reads creation times from ids).
    ``shard=(k, n)``: a guild id of shard k of n (``(id >> 22) % n == k``), its time moved on
    to the next millisecond that gives it."""
    global _last_ms
    ms = max(int(time.time() * 1000), _last_ms)
    if shard is not None:
        k, n = shard
        ms += (k - (ms - DISCORD_EPOCH_MS)) % n
    _last_ms = ms
    return ((ms - DISCORD_EPOCH_MS) << 22) | (1 << 17) | (next(_increment) % 4096)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(eq=False)
class User:
    id: int
    name: str
    bot: bool = False
    locale: str = "en-US"  # the language of their Discord app: each interaction's "locale"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(eq=False)
class Role:
    id: int
    name: str
    permissions: int
    position: int = 0
    bot_id: int | None = None  # a bot's managed role (given by the invite's permissions)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.bot_id is not None,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass(eq=False)
class Overwrite:
    """A channel's permission overwrite for a role (type 0) or a member (type 1)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class Member:
    user: User
    guild: Guild
    roles: list[Role] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def mention(self) -> str:
        return self.user.mention

    @property
    def permissions(self) -> int:
        """Guild-wide (base) permissions: @everyone and every role; all for the owner and an
        administrator. Per channel: `Guild.permissions_in`."""
        if self.guild.owner_id == self.id:
            return ALL_PERMISSIONS
        perms = self.guild.everyone.permissions
        for role in self.roles:
            perms |= role.permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def permissions_in(self, channel: Channel) -> int:
        return self.guild.permissions_in(self, channel)

    def payload(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r.id) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if permissions is not None:  # interactions: the member's permissions in the channel
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    _size: tuple[int, int] | None = field(default=None, repr=False)

    def image(self) -> Image.Image:
        """The attachment decoded by Pillow (fully loaded, so the bytes can be dropped)."""
        img = Image.open(BytesIO(self.data))
        img.load()
        return img

    def payload(self, base_url: str, channel_id: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}",
            "proxy_url": f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}",
            "content_type": self.content_type,
            "description": self.description,
        }
        size = self.image_size()
        if size is not None:
            data["width"], data["height"] = size
        return data

    def image_size(self) -> tuple[int, int] | None:
        """(width, height) from the image header, read once; None when it is not an image."""
        if not (self.content_type and self.content_type.startswith("image/")):
            return None
        if self._size is None:
            try:
                with Image.open(BytesIO(self.data)) as img:  # the header only, no decoding
                    self._size = img.size
            except Exception:  # not a decodable image: Discord simply omits the size
                self._size = (0, 0)
        return None if self._size == (0, 0) else self._size


@dataclass(eq=False)
class Reaction:
    emoji: str  # a unicode emoji, or "name:id" for a custom one (the REST path form)
    user_ids: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.user_ids)

    def emoji_payload(self) -> dict[str, Any]:
        return emoji_payload(self.emoji)


def emoji_payload(emoji: str) -> dict[str, Any]:
    name, sep, ident = emoji.partition(":")
    if sep and ident.isdigit():
        return {"id": ident, "name": name, "animated": False}
    return {"id": None, "name": emoji}


@dataclass(eq=False)
class Message:
    id: int
    channel: Channel
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    reactions: list[Reaction] = field(default_factory=list)
    # Set for messages created by an interaction response or follow-up.
    interaction_id: int | None = None
    interaction_user: User | None = None
    webhook_id: int | None = None
    reference_id: int | None = None
    # A THREAD_CREATED system message (type 18) names the thread it announces.
    thread_created_id: int | None = None
    deleted: bool = False
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    # Every accepted PATCH body, in order, so tests can see e.g. components being removed.
    edits: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("thinking") response that has not been filled in yet."""
        return bool(self.flags & FLAG_LOADING)

    def walk_components(self) -> list[dict[str, Any]]:
        """Every component, depth first (action rows, buttons, selects, v2 containers...)."""
        found: list[dict[str, Any]] = []

        def visit(items: list[dict[str, Any]]) -> None:
            for item in items:
                found.append(item)
                visit(item.get("components", []))
                if "accessory" in item:
                    visit([item["accessory"]])

        visit(self.components)
        return found

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.walk_components() if c.get("type") == 2]

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def component(
        self, custom_id: str | None = None, *, label: str | None = None
    ) -> dict[str, Any] | None:
        for c in self.walk_components():
            if custom_id is not None and c.get("custom_id") == custom_id:
                return c
            if label is not None and c.get("label") == label:
                return c
        return None

    def reaction(self, emoji: str) -> Reaction | None:
        return next((r for r in self.reactions if r.emoji == emoji), None)

    def image(self, index: int = 0) -> Image.Image:
        return self.attachments[index].image()

    def payload(self, base_url: str, bot_id: int) -> dict[str, Any]:
        channel = self.channel
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(channel.id),
            "type": 18 if self.thread_created_id else 19 if self.reference_id else 0,
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload(base_url, channel.id) for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "reactions": [
                {
                    "emoji": r.emoji_payload(),
                    "count": r.count,
                    "count_details": {"burst": 0, "normal": r.count},
                    "me": bot_id in r.user_ids,
                    "me_burst": False,
                    "burst_colors": [],
                }
                for r in self.reactions
                if r.count
            ],
            "pinned": False,
            "flags": self.flags,
        }
        if channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
            member = channel.guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                data["member"] = member.payload(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {
                "id": str(self.interaction_id),
                "type": 2,
                "user": self.interaction_user.payload(),
                "authorizing_integration_owners": {},
            }
        if self.thread_created_id is not None:
            data["message_reference"] = {
                "channel_id": str(self.thread_created_id),
                **({"guild_id": str(channel.guild.id)} if channel.guild else {}),
            }
        if self.reference_id is not None:
            data["message_reference"] = {
                "message_id": str(self.reference_id),
                "channel_id": str(channel.id),
                **({"guild_id": str(channel.guild.id)} if channel.guild else {}),
            }
        return data


@dataclass(eq=False)
class Channel:
    id: int
    guild: Guild | None
    name: str
    type: int = TEXT_CHANNEL
    position: int = 0
    parent_id: int | None = None
    parent: Channel | None = field(default=None, repr=False)  # a thread's channel
    owner_id: int | None = None  # threads
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440  # minutes
    created_at: str = field(default_factory=iso_now)
    archive_timestamp: str = ""  # set on creation and on every archive/unarchive
    # Seconds on the fake's clock of the last activity (creation, a message, an unarchive):
    # a thread archives itself `auto_archive_duration` minutes later (FakeDiscord.advance).
    last_activity: float = 0.0
    deleted: bool = False  # a deleted channel or thread: gone from the guild, REST 404s
    # Permission overwrites by role or member id (text channels; threads use their parent's).
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    recipients: list[User] = field(default_factory=list)  # DM channels
    all_messages: list[Message] = field(default_factory=list)
    messages_sent: int = 0  # all_messages may be trimmed (FakeServer.history_limit)
    member_ids: set[int] = field(default_factory=set)  # threads

    def __post_init__(self) -> None:
        if not self.archive_timestamp:
            self.archive_timestamp = self.created_at

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    @property
    def messages(self) -> list[Message]:
        """The messages still present (deleted ones stay in `all_messages`)."""
        return [m for m in self.all_messages if not m.deleted]

    @property
    def last_message(self) -> Message | None:
        live = self.messages
        return live[-1] if live else None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        last = self.last_message
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "last_message_id": str(last.id) if last else None,
        }
        if self.type == DM_CHANNEL:
            data["recipients"] = [u.payload() for u in self.recipients]
            del data["name"]
            return data
        assert self.guild is not None
        guild_id = self.guild.id
        data["guild_id"] = str(guild_id)
        if self.is_thread:
            data.update(
                parent_id=str(self.parent_id),
                owner_id=str(self.owner_id),
                message_count=len(self.messages),
                total_message_sent=self.messages_sent,
                member_count=max(len(self.member_ids), 1),
                rate_limit_per_user=0,
                flags=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.archive_timestamp,
                    "locked": self.locked,
                    "invitable": True,
                    "create_timestamp": self.created_at,
                },
            )
        else:
            data.update(
                position=self.position,
                parent_id=str(self.parent_id) if self.parent_id else None,
                topic=None,
                nsfw=False,
                rate_limit_per_user=0,
                # @everyone's first: discord.py only looks for it there.
                permission_overwrites=[
                    o.payload()
                    for o in sorted(self.overwrites.values(), key=lambda o: o.id != guild_id)
                ],
            )
        return data


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    everyone: Role
    roles: list[Role] = field(default_factory=list)  # besides @everyone
    channels: list[Channel] = field(default_factory=list)  # text channels and threads
    members: dict[int, Member] = field(default_factory=dict)
    # The community language (Server Settings > Community): "guild_locale" on interactions.
    preferred_locale: str = "en-US"

    @property
    def text_channels(self) -> list[Channel]:
        return [c for c in self.channels if not c.is_thread]

    @property
    def threads(self) -> list[Channel]:
        return [c for c in self.channels if c.is_thread]

    def role(self, name: str) -> Role:
        return next(r for r in self.roles if r.name == name)

    def permissions_in(self, member: Member, channel: Channel) -> int:
        """The member's permissions in a channel or thread, computed as Discord documents it:
        the base (@everyone and the member's roles; everything for the owner or an
        administrator), then the channel's overwrites: @everyone's deny then allow, every role's
        denies then allows together, the member's own deny then allow. Threads use their parent
        channel's overwrites; sending there takes Send Messages in Threads (Send Messages has no
        say), a private thread is seen by its members and those with Manage Threads. Without
        View Channel nothing of the channel is left; without the right to send, nothing that
        rides on a message (embeds, files, TTS, @everyone). As discord.py computes it too."""
        base = member.permissions
        if base == ALL_PERMISSIONS:
            return ALL_PERMISSIONS
        source = channel.parent if channel.is_thread and channel.parent is not None else channel
        perms = base
        overwrites = source.overwrites
        everyone = overwrites.get(self.id)
        if everyone is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role in member.roles:
            found = overwrites.get(role.id)
            if found is not None and found.type == 0:
                allow |= found.allow
                deny |= found.deny
        perms = (perms & ~deny) | allow
        own = overwrites.get(member.id)
        if own is not None and own.type == 1:
            perms = (perms & ~own.deny) | own.allow
        send = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        if not perms & send:
            perms &= ~NEEDS_SEND
        if (
            channel.type == PRIVATE_THREAD
            and member.id not in channel.member_ids
            and not perms & MANAGE_THREADS
        ):
            perms &= ~VIEW_CHANNEL
        if not perms & VIEW_CHANNEL:
            perms &= GUILD_ONLY_PERMISSIONS
        return perms

    def payload(self, *, include_all_members: bool) -> dict[str, Any]:
        members = [
            m.payload()
            for m in self.members.values()
            if include_all_members or m.user.bot  # without GUILD_MEMBERS only the bots come
        ]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "owner_id": str(self.owner_id),
            "unavailable": False,
            "large": False,
            "member_count": len(self.members),
            "roles": [self.everyone.payload(), *(r.payload() for r in self.roles)],
            "emojis": [],
            "stickers": [],
            "features": [],
            "channels": [c.payload() for c in self.text_channels],
            "threads": [c.payload() for c in self.threads if not c.archived],
            "members": members,
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": self.preferred_locale,
            "system_channel_flags": 0,
            "joined_at": iso_now(),
        }
