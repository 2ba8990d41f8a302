"""The fake's network side: an aiohttp app serving Discord's REST API (v10) and the gateway.

Every REST request is recorded as a `Call` (unknown routes too, answered 404) and every change
sets an `asyncio.Event` (`poke()`), so tests wait on facts instead of sleeping. Payload shapes
follow discord.py 2.7's parsers; comments name the discord.py behaviour a detail exists for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from aiohttp import BodyPartReader, WSMsgType, web

from . import limits
from .model import (
    ADD_REACTIONS,
    ATTACH_FILES,
    BOT_PERMISSIONS,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DM_CHANNEL,
    EMBED_LINKS,
    EVERYONE_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    MANAGE_CHANNELS,
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    MANAGE_THREADS,
    MEMBER_PERMISSIONS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    Attachment,
    Channel,
    Guild,
    Member,
    Message,
    Reaction,
    Role,
    User,
    emoji_payload,
    iso_now,
    snowflake,
)
from .ratelimits import (
    FakeClock,
    RateLimiter,
    RateLimits,
    RequestStats,
    is_interaction_endpoint,
)

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
API_PREFIX = "/api/v10"
HEARTBEAT_INTERVAL_MS = 41_250
# An interaction must be answered (the first callback) within 3 s; its token (follow-ups, edits
# of the original) lives 15 minutes. Read on the fake's clock (FakeServer.now()).
INITIAL_RESPONSE_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0

# Gateway intents (bit per event family), used to filter dispatches like Discord does.
GUILDS, GUILD_MEMBERS = 1 << 0, 1 << 1
GUILD_MESSAGES, GUILD_MESSAGE_REACTIONS = 1 << 9, 1 << 10
DIRECT_MESSAGES, DIRECT_MESSAGE_REACTIONS = 1 << 12, 1 << 13
_EVENT_INTENTS: dict[str, tuple[int, int]] = {  # event -> (guild intent, DM intent)
    "GUILD_CREATE": (GUILDS, GUILDS),
    "CHANNEL_CREATE": (GUILDS, GUILDS),
    "THREAD_CREATE": (GUILDS, GUILDS),
    "THREAD_UPDATE": (GUILDS, GUILDS),
    "THREAD_DELETE": (GUILDS, GUILDS),
    "CHANNEL_UPDATE": (GUILDS, GUILDS),
    "CHANNEL_DELETE": (GUILDS, GUILDS),
    "GUILD_ROLE_CREATE": (GUILDS, GUILDS),
    "GUILD_ROLE_UPDATE": (GUILDS, GUILDS),
    "GUILD_MEMBER_ADD": (GUILD_MEMBERS, GUILD_MEMBERS),
    "MESSAGE_CREATE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "MESSAGE_UPDATE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "MESSAGE_DELETE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "MESSAGE_REACTION_ADD": (GUILD_MESSAGE_REACTIONS, DIRECT_MESSAGE_REACTIONS),
    "MESSAGE_REACTION_REMOVE": (GUILD_MESSAGE_REACTIONS, DIRECT_MESSAGE_REACTIONS),
}

_NAME_RE = re.compile(r"^[-_\w]{1,32}$")


class ApiError(Exception):
    """Answered as Discord's JSON error body: {"message": ..., "code": ...[, "errors": ...]}."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors

    @classmethod
    def form(cls, problem: limits.FormError) -> ApiError:
        """400 Invalid Form Body (50035), naming the field as Discord does."""
        return cls(
            400, 50035, f"Invalid Form Body: {problem.path}: {problem.message}", problem.errors()
        )


MISSING_ACCESS = (403, 50001, "Missing Access")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")
THREAD_LOCKED = (403, 160005, "Thread is locked")
THREAD_ARCHIVED = (400, 50083, "Thread is archived")


@dataclass
class UploadedFile:
    field: str  # "files[0]"
    filename: str
    content_type: str | None
    data: bytes


_BOUNDARY_RE = re.compile(r"boundary=(\"[^\"]+\"|[^;\s]+)")
_PARAM_RE = re.compile(rb'\b(name|filename)="([^"\\]*)"')


def _split_form(data: bytes, boundary: bytes) -> tuple[Any, list[UploadedFile]] | None:
    """The parts of a plain multipart/form-data body, as discord.py sends them: a
    ``payload_json`` part and file parts. aiohttp's general reader costs about half a
    millisecond a part, which the load benchmark paid for every board; None (use that
    reader) for anything unusual: quoted escapes, ``filename*=``, a missing delimiter."""
    delimiter = b"--" + boundary
    chunks = data.split(delimiter)
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        return None
    body: Any = None
    files: list[UploadedFile] = []
    for chunk in chunks[1:-1]:
        head, sep, content = chunk.partition(b"\r\n\r\n")
        if not sep or not content.endswith(b"\r\n"):
            return None
        content = content[:-2]
        headers: dict[bytes, bytes] = {}
        for line in head.strip(b"\r\n").split(b"\r\n"):
            key, colon, value = line.partition(b":")
            if not colon:
                return None
            headers[key.strip().lower()] = value.strip()
        disposition = headers.get(b"content-disposition", b"")
        if b"filename*" in disposition or b"\\" in disposition:
            return None
        params = {k.decode(): v.decode() for k, v in _PARAM_RE.findall(disposition)}
        if "name" not in params:
            return None
        if params["name"] == "payload_json":
            body = orjson.loads(content)
            continue
        content_type = headers.get(b"content-type")
        files.append(
            UploadedFile(
                params["name"],
                params.get("filename", ""),
                content_type.decode() if content_type is not None else None,
                content,
            )
        )
    return body, files


@dataclass
class Call:
    """One REST request the bot made, and what the fake answered."""

    index: int
    method: str
    path: str  # below /api/v10, decoded: "/channels/123/messages"
    route: str  # the template: "/channels/{channel_id}/messages" ("" when unknown)
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    status: int = 0
    response: Any = None
    unknown: bool = False
    fault: Fault | None = None

    def __repr__(self) -> str:
        return f"<Call #{self.index} {self.method} {self.path} -> {self.status}>"


@dataclass(eq=False)
class Fault:
    """A scripted failure: the next `times` matching calls get `status` instead of an answer."""

    status: int
    method: str | None = None
    path: str | None = None  # a regex searched in Call.path
    predicate: Callable[[Call], bool] | None = None
    times: int = 1
    retry_after: float = 0.05
    hits: list[Call] = field(default_factory=list)

    def matches(self, call: Call) -> bool:
        if len(self.hits) >= self.times:
            return False
        if self.method is not None and call.method != self.method.upper():
            return False
        if self.path is not None and not re.search(self.path, call.path):
            return False
        return self.predicate is None or self.predicate(call)


def _awaits_answer(state: InteractionState) -> bool:
    """Not answered yet, or deferred with a message to come (a follow-up or the original)."""
    response = state.response
    if response is None:
        return True
    return response.get("type") == 5 and not state.followups and not state.original_edits


# An interaction younger than this is never forgotten for the history limit: a bot's follow-ups
# come seconds after its answer, and Discord takes them for 15 minutes. Forgetting sooner was an
# artifact: past 120 actions/s the load benchmark's 100 kept interactions were under a second of
# history, the bot's follow-ups got 10062 and went with its token instead, into global 429s.
RECENT_INTERACTION = 10.0


def _still_used(state: InteractionState, now: float) -> bool:
    """Awaits its answer, is recent, or one of its follow-ups still has components: a live
    message the bot may still edit through this webhook, as Discord allows for 15 minutes."""
    return (
        _awaits_answer(state)
        or now - state.created_at < RECENT_INTERACTION
        or any(m.components and not m.deleted for m in state.followups)
    )


@dataclass(eq=False)
class InteractionState:
    """What the fake knows about one interaction it sent, and everything the bot answered."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: Member | User
    channel: Channel
    data: dict[str, Any]
    message: Message | None = None  # the message a component sits on
    callbacks: list[dict[str, Any]] = field(default_factory=list)  # every accepted callback body
    original: Message | None = None  # the message @original refers to
    followups: list[Message] = field(default_factory=list)
    original_edits: list[dict[str, Any]] = field(default_factory=list)
    # time.perf_counter() when INTERACTION_CREATE went out (the harness's waits come before it)
    sent_at: float = 0.0
    # The fake's clock (FakeServer.now()) then: the 3 s and 15 min deadlines count from here.
    created_at: float = 0.0

    @property
    def response(self) -> dict[str, Any] | None:
        return self.callbacks[0] if self.callbacks else None


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    shard_id: int = 0  # IDENTIFY's shard: [shard_id, shard_count]
    shard_count: int = 1
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)  # every dispatch, for RESUME
    ws: web.WebSocketResponse | None = None
    valid: bool = True
    resumes: int = 0
    identified: bool = False  # READY and every GUILD_CREATE sent
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # Exactly "application/json": discord.py's json_or_text() compares the header verbatim,
    # and aiohttp's json_response() would append "; charset=utf-8".
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(body=orjson.dumps(data), status=status, headers=all_headers)


Handler = Callable[[Call], Awaitable[Any]]


class FakeServer:
    """The fake Discord's state and its aiohttp app. `FakeDiscord` adds the test-facing API."""

    def __init__(
        self,
        *,
        guild_name: str = "Test Guild",
        history_limit: int | None = None,
        clock: Callable[[], float] | None = None,
        rate_limits: bool | RateLimits = False,
        shard_count: int = 1,
    ) -> None:
        # How many shards GET /gateway/bot advises and every IDENTIFY must use. Guild g's
        # events go to the session of shard (g >> 22) % shard_count; the rest to shard 0's.
        self.shard_count = shard_count
        # The gateway intents the application may use (None: every one). Discord closes the
        # gateway with 4014 "Disallowed intent(s)" on an IDENTIFY asking for any other, as for
        # a privileged intent not switched on in the Developer Portal.
        self.allowed_intents: int | None = None
        # None keeps every call, gateway frame and interaction for the test to inspect. A
        # number keeps about that many of each (the newest): a long load run would otherwise
        # grow the heap, and with it every full garbage collection, in the bot's process.
        # RESUME then replays at most the kept frames.
        self.history_limit = history_limit
        # Deadlines and rate-limit windows read now(): the clock plus what advance() added.
        self.clock: Callable[[], float] = clock if clock is not None else FakeClock()
        self._advanced = 0.0
        self.limiter: RateLimiter | None = None
        self.set_rate_limits(rate_limits)
        self.stats = RequestStats()
        self.bot_user = User(snowflake(), "tablebot", bot=True)
        self.application_id = self.bot_user.id
        self.owner = User(snowflake(), "owner")  # owns every guild and the application
        self.users: dict[int, User] = {u.id: u for u in (self.bot_user, self.owner)}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages_by_id: dict[int, Message] = {}
        self._trim_messages_at = 0  # see _store_message
        self._trim_interactions_at = 0  # see remember_interaction
        # guild id (None: global) -> synced command payloads, as returned to the bot
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.interactions: dict[int, InteractionState] = {}
        self.interactions_by_token: dict[str, InteractionState] = {}
        self.calls: list[Call] = []
        self.calls_made = 0
        self.faults: list[Fault] = []
        self.server_errors: list[str] = []  # bugs in the fake itself, raised at the end
        self.gateway_connections: list[str] = []  # "gateway" (IDENTIFY path) or "resume"
        self.identifies = 0  # IDENTIFYs accepted (each starts a new session)
        self.sessions: dict[int, GatewaySession] = {}  # shard id -> its latest session
        self.changed = asyncio.Event()  # replaced by a fresh one on every poke()
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._open_ws: set[web.WebSocketResponse] = set()
        self.dropped_ws: set[web.WebSocketResponse] = set()  # closed by us, session kept
        self.guild = self._new_guild(guild_name)
        self.channel = self.guild.text_channels[0]

    # ----------------------------------------------------------------- model helpers

    @property
    def session(self) -> GatewaySession | None:
        """Shard 0's session (a bot of one shard has only that one), else the first there is."""
        if 0 in self.sessions:
            return self.sessions[0]
        return next(iter(self.sessions.values()), None)

    def shard_of(self, guild: Guild | int) -> int:
        """The shard a guild's events go to: ``(guild_id >> 22) % shard_count``."""
        guild_id = guild if isinstance(guild, int) else guild.id
        return (guild_id >> 22) % self.shard_count

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The session that gets a guild's events (``None``: events outside guilds, shard 0)."""
        return self.sessions.get(0 if guild_id is None else self.shard_of(guild_id))

    @staticmethod
    def _guild_of_event(event: str, data: dict[str, Any]) -> int | None:
        raw = data.get("id") if event in ("GUILD_CREATE", "GUILD_UPDATE") else data.get("guild_id")
        return int(raw) if raw is not None else None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _new_guild(self, name: str, shard: int | None = None) -> Guild:
        gid = snowflake() if shard is None else snowflake(shard=(shard, self.shard_count))
        guild = Guild(
            id=gid,
            name=name,
            owner_id=self.owner.id,
            everyone=Role(gid, "@everyone", EVERYONE_PERMISSIONS),
        )
        bot_role = Role(
            snowflake(), self.bot_user.name, BOT_PERMISSIONS, position=3, bot_id=self.bot_user.id
        )
        guild.roles = [
            Role(snowflake(), "Members", MEMBER_PERMISSIONS, position=1),
            Role(snowflake(), "Manager", MANAGE_GUILD, position=2),
            bot_role,
        ]
        self.guilds[gid] = guild
        guild.members[self.owner.id] = Member(self.owner, guild)
        guild.members[self.bot_user.id] = Member(self.bot_user, guild, roles=[bot_role])
        self._new_channel(guild, "general")
        return guild

    def _new_channel(self, guild: Guild, name: str, **kwargs: Any) -> Channel:
        channel = Channel(snowflake(), guild, name, position=len(guild.text_channels), **kwargs)
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def _payload(self, message: Message) -> dict[str, Any]:
        return message.payload(self.base_url, self.bot_user.id)

    # ----------------------------------------------------------------- time and rate limits

    def now(self) -> float:
        """Seconds on the fake's clock: the injected clock plus every advance()."""
        return self.clock() + self._advanced

    def wall_iso(self) -> str:
        """The wall-clock time moved on by every advance(), as Discord writes a thread's
        archive_timestamp (the bot compares it with its own clock, which a test moves too)."""
        return (datetime.now(UTC) + timedelta(seconds=self._advanced)).isoformat()

    async def advance(self, seconds: float) -> None:
        """Move the fake's clock on (never back), then let time act: a thread with no activity
        for its `auto_archive_duration` archives itself (THREAD_UPDATE). `advance(0)` applies
        what time an injected clock passed on its own."""
        if seconds < 0:
            raise ValueError("time never goes back")
        self._advanced += seconds
        now = self.now()
        for channel in list(self.channels.values()):
            if (
                channel.is_thread
                and not channel.archived
                and now - channel.last_activity >= channel.auto_archive_duration * 60
            ):
                await self.set_thread_state(channel, archived=True)
        self.poke()

    def set_rate_limits(self, rate_limits: bool | RateLimits) -> None:
        """Rate limits on (True: Discord's, or the RateLimits given) or off (False). Turning
        them on starts with fresh windows."""
        if rate_limits is False:
            self.limiter = None
        else:
            chosen = RateLimits() if rate_limits is True else rate_limits
            self.limiter = RateLimiter(chosen)

    # ----------------------------------------------------------------- permissions

    def bot_member(self, guild: Guild) -> Member:
        return guild.members[self.bot_user.id]

    def bot_role(self, guild: Guild) -> Role:
        """The bot's managed role (created by the invite, with the README's permissions)."""
        return next(r for r in guild.roles if r.bot_id == self.bot_user.id)

    def bot_permissions(self, channel: Channel) -> int:
        """The bot's permissions in a guild channel or thread (every one in a DM)."""
        if channel.guild is None:
            return (1 << 53) - 1
        return channel.guild.permissions_in(self.bot_member(channel.guild), channel)

    def _require(self, channel: Channel, needed: int = 0) -> int:
        """Refuse the bot a channel it can't see (403 Missing Access, 50001) or an action it
        lacks a permission for (403 Missing Permissions, 50013); its permissions there."""
        perms = self.bot_permissions(channel)
        if not perms & VIEW_CHANNEL:
            raise ApiError(*MISSING_ACCESS)
        if perms & needed != needed:
            raise ApiError(*MISSING_PERMISSIONS)
        return perms

    async def set_thread_state(
        self, thread: Channel, *, archived: bool | None = None, locked: bool | None = None
    ) -> None:
        """Archive/unarchive, lock/unlock a thread, as Discord does it: THREAD_UPDATE, a new
        archive_timestamp on an archive change, and unarchiving counts as activity."""
        if self._apply_thread_state(thread, archived=archived, locked=locked):
            await self.dispatch("THREAD_UPDATE", thread.payload())

    def _apply_thread_state(
        self, thread: Channel, *, archived: bool | None, locked: bool | None
    ) -> bool:
        changed = False
        if archived is not None and archived != thread.archived:
            thread.archived = archived
            thread.archive_timestamp = self.wall_iso()
            if not archived:
                thread.last_activity = self.now()
            changed = True
        if locked is not None and locked != thread.locked:
            thread.locked = locked
            changed = True
        return changed

    async def _thread_post(self, channel: Channel, perms: int | None) -> None:
        """Before a message goes into a thread: a locked one takes Manage Threads (403 Thread is
        locked, 160005; ``perms`` None: an interaction's webhook, not held to it); an archived
        one is unarchived by the message. A message is activity."""
        if not channel.is_thread:
            return
        if channel.locked and perms is not None and not perms & MANAGE_THREADS:
            raise ApiError(*THREAD_LOCKED)
        if channel.archived:
            await self.set_thread_state(channel, archived=False)
        channel.last_activity = self.now()

    def _thread_edit(self, channel: Channel, perms: int) -> None:
        """Editing (a message, a reaction) in a thread: never in an archived one (400 Thread is
        archived, 50083), in a locked one only with Manage Threads (403 160005)."""
        if not channel.is_thread:
            return
        if channel.archived:
            raise ApiError(*THREAD_ARCHIVED)
        if channel.locked and not perms & MANAGE_THREADS:
            raise ApiError(*THREAD_LOCKED)

    def poke(self) -> None:
        """Wake every waiter (`FakeDiscord.wait_until`): something changed. Callable from sync
        code, e.g. the hooks the harness wraps around the bot's own request methods."""
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def _get_channel(self, raw_id: str) -> Channel:
        channel = self.channels.get(int(raw_id)) if raw_id.isdigit() else None
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _get_message(self, channel: Channel, raw_id: str) -> Message:
        message = self.messages_by_id.get(int(raw_id)) if raw_id.isdigit() else None
        # Ephemeral messages only exist for their user: channel routes can't see them.
        if (
            message is None
            or message.deleted
            or message.channel is not channel
            or message.ephemeral
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return message

    # ----------------------------------------------------------------- lifecycle

    async def start_server(self) -> None:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        for method, path, handler in self._routes():
            app.router.add_route(method, API_PREFIX + path, self._wrap(path, handler))
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._unknown_route)
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_get("/resume/", self._gateway)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop_server(self) -> None:
        for ws in list(self._open_ws):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ----------------------------------------------------------------- REST plumbing

    def _routes(self) -> list[tuple[str, str, Handler]]:
        app = "/applications/{application_id}"
        msg = "/channels/{channel_id}/messages/{message_id}"
        hook = "/webhooks/{webhook_id}/{webhook_token}"
        return [
            ("GET", "/users/@me", self._get_me),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/applications/@me", self._get_application),
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway),
            ("GET", "/users/{user_id}", self._get_user),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", app + "/commands", self._get_commands),
            ("PUT", app + "/commands", self._put_commands),
            ("GET", app + "/guilds/{guild_id}/commands", self._get_commands),
            ("PUT", app + "/guilds/{guild_id}/commands", self._put_commands),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("GET", "/channels/{channel_id}", self._get_channel_route),
            ("PATCH", "/channels/{channel_id}", self._patch_channel),
            ("DELETE", "/channels/{channel_id}", self._delete_channel),
            ("POST", "/channels/{channel_id}/typing", self._no_content),
            ("GET", "/channels/{channel_id}/messages", self._list_messages),
            ("POST", "/channels/{channel_id}/messages", self._post_message),
            ("GET", msg, self._get_message_route),
            ("PATCH", msg, self._patch_message),
            ("DELETE", msg, self._delete_message),
            ("PUT", msg + "/reactions/{emoji}/@me", self._put_reaction),
            ("DELETE", msg + "/reactions/{emoji}/@me", self._delete_own_reaction),
            ("DELETE", msg + "/reactions/{emoji}/{user_id}", self._delete_user_reaction),
            ("DELETE", msg + "/reactions", self._clear_reactions),
            ("GET", msg + "/reactions/{emoji}", self._get_reaction_users),
            ("POST", msg + "/threads", self._thread_from_message),
            ("POST", "/channels/{channel_id}/threads", self._thread_without_message),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._join_thread),
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._leave_thread),
            ("POST", "/interactions/{interaction_id}/{interaction_token}/callback", self._callback),
            ("POST", hook, self._webhook_execute),
            ("GET", hook + "/messages/{message_id}", self._webhook_get),
            ("PATCH", hook + "/messages/{message_id}", self._webhook_edit),
            ("DELETE", hook + "/messages/{message_id}", self._webhook_delete),
        ]

    async def _record(self, request: web.Request, route: str) -> Call:
        body: Any = None
        files: list[UploadedFile] = []
        quick = None
        # The raw header, not request.content_type: aiohttp parses a multipart one with the
        # email package, about a tenth of the load benchmark's main-thread time.
        raw_type = request.headers.get("Content-Type", "")
        multipart = raw_type.lstrip().lower().startswith("multipart/")
        if multipart:
            boundary = _BOUNDARY_RE.search(raw_type)
            if boundary:
                quick = _split_form(await request.read(), boundary[1].strip('"').encode())
        if quick is not None:
            body, files = quick
        elif multipart:
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                assert isinstance(part, BodyPartReader), "nested multipart"
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files.append(
                        UploadedFile(
                            part.name or "",
                            part.filename or "",
                            part.headers.get("Content-Type"),
                            bytes(await part.read()),
                        )
                    )
        elif request.can_read_body:
            raw = await request.read()
            if raw:
                body = orjson.loads(raw)
        path = request.path[len(API_PREFIX) :]
        call = Call(
            index=self.calls_made,
            method=request.method,
            path=path,
            route=route,
            params=dict(request.match_info),
            query=dict(request.query),
            json=body,
            files=files,
        )
        self.calls_made += 1
        self.calls.append(call)
        self._trim(self.calls)
        return call

    def _trim(self, history: list[Any]) -> None:
        """Drop the oldest entries past the history limit (in halves, so it's amortized)."""
        limit = self.history_limit
        if limit is not None and len(history) > 2 * limit:
            del history[: len(history) - limit]

    def _store_message(self, channel: Channel, message: Message) -> None:
        channel.all_messages.append(message)
        channel.messages_sent += 1
        self.messages_by_id[message.id] = message
        limit = self.history_limit
        if limit is None or len(self.messages_by_id) <= max(2 * limit, self._trim_messages_at):
            return
        # Forget the oldest messages nobody can click any more (no components left).
        excess = len(self.messages_by_id) - limit
        gone: set[int] = set()
        for old in self.messages_by_id.values():
            if len(gone) >= excess:
                break
            if not old.components:
                gone.add(old.id)
        channels = {self.messages_by_id.pop(message_id).channel.id for message_id in gone}
        for channel_id in channels:
            kept = self.channels[channel_id]
            kept.all_messages = [m for m in kept.all_messages if m.id not in gone]
        # Messages with buttons stay; scan again only once as many more came (amortized: with
        # more live boards than the limit, every message scanned them all).
        self._trim_messages_at = 2 * len(self.messages_by_id)

    def remember_interaction(self, state: InteractionState) -> None:
        self.interactions[state.id] = state
        self.interactions_by_token[state.token] = state
        limit = self.history_limit
        if limit is None or len(self.interactions) <= max(2 * limit, self._trim_interactions_at):
            return
        # Forget the oldest, but never one that still waits for its answer or posted a live
        # message (with components): Discord keeps a token 15 minutes, and under overload a
        # follow-up, or an edit of that message, can come after 2 * limit newer ones.
        excess = len(self.interactions) - limit
        now = self.now()
        for old_id, old in list(self.interactions.items()):
            if excess <= 0:
                break
            if not _still_used(old, now):
                del self.interactions[old_id]
                self.interactions_by_token.pop(old.token, None)
                excess -= 1
        self._trim_interactions_at = 2 * len(self.interactions)

    def _wrap(
        self, route: str, handler: Handler
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        needs_auth = not route.startswith(("/interactions/", "/webhooks/"))

        async def serve(request: web.Request) -> web.Response:
            try:
                call = await self._record(request, route)
            except Exception as exc:  # unreadable body: a 400, not a 500 discord.py would retry
                self.server_errors.append(f"{request.method} {request.path}: {exc!r}")
                return json_response({"message": repr(exc), "code": 50109}, 400)
            bot_token = self._count(call, request)
            response = self._fault_response(call)
            if response is None:
                if needs_auth and not bot_token:
                    response = self._error(call, ApiError(401, 0, "401: Unauthorized"))
                else:
                    response = await self._limited_answer(call, handler, bot_token)
            if response.status == 429:
                self.stats.rate_limited[_stat_key(call)] += 1
            self.poke()
            return response

        return serve

    def _count(self, call: Call, request: web.Request) -> bool:
        """Count the request in `stats`; whether it was made with the bot token (and is not to
        an interaction endpoint, which the global limit exempts)."""
        key = _stat_key(call)
        if is_interaction_endpoint(call.path):
            self.stats.interaction[key] += 1
            return False
        if request.headers.get("Authorization") == f"Bot {TOKEN}":
            self.stats.bot_token[key] += 1
            return True
        return False

    async def _limited_answer(self, call: Call, handler: Handler, bot_token: bool) -> web.Response:
        limiter = self.limiter
        if limiter is None or not bot_token:
            return await self._answer(call, handler)
        verdict = limiter.admit(call.method, call.route, call.params, self.now())
        if verdict.refused is not None:
            call.status, call.response = 429, verdict.refused
            if verdict.is_global:
                self.stats.global_rate_limited += 1
            return json_response(verdict.refused, 429, verdict.headers)
        response = await self._answer(call, handler)
        response.headers.update(verdict.headers)
        return response

    async def _answer(self, call: Call, handler: Handler) -> web.Response:
        try:
            result = await handler(call)
        except ApiError as exc:
            return self._error(call, exc)
        except Exception as exc:  # a bug in the fake: answer 400 (not retried) and report it
            self.server_errors.append(f"{call!r}: {exc!r}")
            return self._error(call, ApiError(400, 0, f"fake discord crashed: {exc!r}"))
        if result is None:
            call.status = 204
            return web.Response(status=204)
        call.status, call.response = 200, result
        return json_response(result)

    def _error(self, call: Call, exc: ApiError) -> web.Response:
        call.status = exc.status
        call.response = {"message": exc.message, "code": exc.code}
        if exc.errors is not None:
            call.response["errors"] = exc.errors
        return json_response(call.response, exc.status)

    def _fault_response(self, call: Call) -> web.Response | None:
        fault = next((f for f in self.faults if f.matches(call)), None)
        if fault is None:
            return None
        fault.hits.append(call)
        call.fault = fault
        call.status = fault.status
        if fault.status == 429:
            # discord.py treats a 429 without a Via header or a JSON body as a Cloudflare ban.
            call.response = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": False,
            }
            headers = {"Via": "1.1 google", "X-RateLimit-Scope": "user"}
            return json_response(call.response, 429, headers)
        call.response = {"message": f"{fault.status}: scripted failure", "code": 0}
        return json_response(call.response, fault.status)

    async def _unknown_route(self, request: web.Request) -> web.Response:
        call = await self._record(request, "")
        call.unknown = True
        self._count(call, request)
        response = self._error(call, ApiError(404, 0, "404: Not Found"))
        self.poke()
        return response

    async def _cdn(self, request: web.Request) -> web.Response:
        for message in self.messages_by_id.values():
            for attachment in message.attachments:
                if str(attachment.id) == request.match_info["attachment_id"]:
                    content_type = attachment.content_type or "application/octet-stream"
                    return web.Response(body=attachment.data, content_type=content_type)
        return web.Response(status=404)

    async def _no_content(self, call: Call) -> None:
        return None

    # ----------------------------------------------------------------- login, users, guilds

    async def _get_me(self, call: Call) -> dict[str, Any]:
        return {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0}

    async def _get_application(self, call: Call) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.payload(),
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": self.bot_user.payload(),
        }

    async def _get_gateway(self, call: Call) -> dict[str, Any]:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        url = f"ws://127.0.0.1:{self.port}/gateway/"
        return {"url": url, "shards": self.shard_count, "session_start_limit": limit}

    async def _get_user(self, call: Call) -> dict[str, Any]:
        raw = call.params["user_id"]
        user = self.users.get(int(raw)) if raw.isdigit() else None
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.payload()

    async def _create_dm(self, call: Call) -> dict[str, Any]:
        raw = str(call.json["recipient_id"])
        user = self.users.get(int(raw)) if raw.isdigit() else None
        if user is None:
            raise ApiError(400, 50033, "Invalid Recipients")
        for channel in self.channels.values():
            if channel.type == DM_CHANNEL and channel.recipients == [user]:
                return channel.payload()
        channel = Channel(snowflake(), None, user.name, type=DM_CHANNEL, recipients=[user])
        self.channels[channel.id] = channel
        return channel.payload()

    def _guild_of(self, call: Call) -> Guild:
        raw = call.params["guild_id"]
        guild = self.guilds.get(int(raw)) if raw.isdigit() else None
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, call: Call) -> dict[str, Any]:
        return self._guild_of(call).payload(include_all_members=False)

    async def _get_guild_channels(self, call: Call) -> list[dict[str, Any]]:
        return [c.payload() for c in self._guild_of(call).text_channels]

    async def _get_member(self, call: Call) -> dict[str, Any]:
        guild = self._guild_of(call)
        raw = call.params["user_id"]
        member = guild.members.get(int(raw)) if raw.isdigit() else None
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return member.payload()

    # ----------------------------------------------------------------- application commands

    async def _get_commands(self, call: Call) -> list[dict[str, Any]]:
        guild_id = int(call.params["guild_id"]) if "guild_id" in call.params else None
        return self.commands.get(guild_id, [])

    async def _put_commands(self, call: Call) -> list[dict[str, Any]]:
        if call.params["application_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")
        guild_id = None
        if "guild_id" in call.params:
            guild_id = self._guild_of(call).id
        if not isinstance(call.json, list):
            raise ApiError(400, 50035, "Invalid Form Body: expected a list of commands")
        old_ids = {(c["name"], c.get("type", 1)): c["id"] for c in self.commands.get(guild_id, [])}
        stored = []
        for command in call.json:
            problem = _command_problem(command)
            if problem:
                raise ApiError(400, 50035, f"Invalid Form Body: {command.get('name')!r}: {problem}")
            key = (command["name"], command.get("type", 1))
            stored.append(
                {
                    "type": 1,
                    "description": "",
                    "options": [],
                    "default_member_permissions": None,
                    "nsfw": False,
                    **command,
                    "id": old_ids.get(key, str(snowflake())),
                    "application_id": str(self.application_id),
                    "version": str(snowflake()),
                    **({"guild_id": str(guild_id)} if guild_id else {}),
                }
            )
        self.commands[guild_id] = stored
        return stored

    # ----------------------------------------------------------------- channels and messages

    async def _get_channel_route(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        if channel.guild is not None:
            self._require(channel)
        return channel.payload()

    async def _patch_channel(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        body = call.json or {}
        if channel.guild is not None:
            self._check_channel_edit(channel, body)
        for key in ("name", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        if channel.is_thread:
            if "auto_archive_duration" in body:
                channel.archive_timestamp = self.wall_iso()
                channel.last_activity = self.now()
            archived, locked = body.get("archived"), body.get("locked")
            self._apply_thread_state(
                channel,
                archived=None if archived is None else bool(archived),
                locked=None if locked is None else bool(locked),
            )
            await self.dispatch("THREAD_UPDATE", channel.payload())
        else:
            await self.dispatch("CHANNEL_UPDATE", channel.payload())
        return channel.payload()

    def _check_channel_edit(self, channel: Channel, body: dict[str, Any]) -> None:
        """Who may edit what (Discord's thread rules): a text channel takes Manage Channels; a
        thread's name, archived flag and auto-archive duration take Manage Threads or being its
        creator, `locked` takes Manage Threads, and so does unarchiving a locked thread."""
        perms = self._require(channel)
        if not channel.is_thread:
            if not perms & MANAGE_CHANNELS:
                raise ApiError(*MISSING_PERMISSIONS)
            return
        moderator = bool(perms & MANAGE_THREADS)
        creator = channel.owner_id == self.bot_user.id
        if "locked" in body and not moderator:
            raise ApiError(*MISSING_PERMISSIONS)
        if {"name", "archived", "auto_archive_duration"} & body.keys() and not (
            moderator or creator
        ):
            raise ApiError(*MISSING_PERMISSIONS)
        if body.get("archived") is False and channel.locked and not moderator:
            raise ApiError(*THREAD_LOCKED)

    async def _delete_channel(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        if channel.guild is not None:
            needed = MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS
            self._require(channel, needed)
        payload = channel.payload()
        await self.delete_channel(channel)
        return payload

    async def delete_channel(self, channel: Channel) -> None:
        """Delete a channel or thread: gone from the guild, its id 404s (Unknown Channel, 10003)
        from now on; THREAD_DELETE (id, guild_id, parent_id, type) or CHANNEL_DELETE. A text
        channel's threads go with it."""
        guild = channel.guild
        doomed = [channel]
        if guild is not None and not channel.is_thread:
            doomed += [t for t in guild.threads if t.parent_id == channel.id]
        for gone in doomed:
            gone.deleted = True
            self.channels.pop(gone.id, None)
            if guild is not None and gone in guild.channels:
                guild.channels.remove(gone)
        if guild is None:
            return
        if channel.is_thread:
            data = {
                "id": str(channel.id),
                "guild_id": str(guild.id),
                "parent_id": str(channel.parent_id),
                "type": channel.type,
            }
            await self.dispatch("THREAD_DELETE", data)
        else:
            await self.dispatch("CHANNEL_DELETE", channel.payload())

    async def _list_messages(self, call: Call) -> list[dict[str, Any]]:
        channel = self._get_channel(call.params["channel_id"])
        if channel.guild is not None:
            perms = self._require(channel)
            if not perms & READ_MESSAGE_HISTORY:
                return []  # Discord: no messages without Read Message History
        limit = int(call.query.get("limit", 50))
        found = [m for m in channel.messages if not m.ephemeral]
        if "before" in call.query:
            found = [m for m in found if m.id < int(call.query["before"])]
        if "after" in call.query:
            found = [m for m in found if m.id > int(call.query["after"])]
            return [self._payload(m) for m in found[:limit]][::-1]
        return [self._payload(m) for m in found[::-1][:limit]]

    async def _get_message_route(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        if channel.guild is not None:
            self._require(channel, READ_MESSAGE_HISTORY)
        return self._payload(self._get_message(channel, call.params["message_id"]))

    async def _post_message(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        body = call.json or {}
        check_message_body(body, call.files)
        reference = (body.get("message_reference") or {}).get("message_id")
        perms: int | None = None
        if channel.guild is not None:
            send = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
            perms = self._require(channel, send)
            if call.files and not perms & ATTACH_FILES:
                raise ApiError(*MISSING_PERMISSIONS)
            if reference and not perms & READ_MESSAGE_HISTORY:
                raise ApiError(*MISSING_PERMISSIONS)
            if body.get("embeds") and not perms & EMBED_LINKS:
                # Discord hides the embeds of a sender without Embed Links, and refuses a
                # message that had nothing else.
                body = {**body, "embeds": []}
                if limits.is_empty(body, bool(call.files)):
                    raise ApiError(*MISSING_PERMISSIONS)
            await self._thread_post(channel, perms)
        message = self.create_message(
            channel,
            self.bot_user,
            body,
            call.files,
            flags=int(body.get("flags", 0)) & FLAG_SUPPRESS_EMBEDS,
            reference_id=int(reference) if reference else None,
            checked=True,
        )
        await self.dispatch_message("MESSAGE_CREATE", message)
        return self._payload(message)

    async def _patch_message(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        body = call.json or {}
        if channel.guild is not None:
            perms = self._require(channel)
            self._thread_edit(channel, perms)
            if call.files and not perms & ATTACH_FILES:
                raise ApiError(*MISSING_PERMISSIONS)
            if body.get("embeds") and not perms & EMBED_LINKS:
                body = {**body, "embeds": []}  # an edit's embeds are dropped, not refused
        message = self._get_message(channel, call.params["message_id"])
        if message.author is not self.bot_user:  # interaction responses are the bot's too
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self.edit_message(message, body, call.files)
        await self.dispatch_message("MESSAGE_UPDATE", message)
        return self._payload(message)

    async def _delete_message(self, call: Call) -> None:
        channel = self._get_channel(call.params["channel_id"])
        perms = self._require(channel) if channel.guild is not None else None
        message = self._get_message(channel, call.params["message_id"])
        if message.author is not self.bot_user and perms is not None:
            # Someone else's message: Manage Messages (in a locked thread, only if active).
            if not perms & MANAGE_MESSAGES:
                raise ApiError(*MISSING_PERMISSIONS)
            if channel.is_thread and channel.locked and channel.archived:
                raise ApiError(*THREAD_LOCKED)
        await self.delete_message(message)

    async def delete_message(self, message: Message) -> None:
        message.deleted = True
        if not message.ephemeral:
            data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild is not None:
                data["guild_id"] = str(message.channel.guild.id)
            await self.dispatch("MESSAGE_DELETE", data)

    def create_message(
        self,
        channel: Channel,
        author: User,
        body: dict[str, Any],
        files: list[UploadedFile],
        *,
        flags: int = 0,
        interaction: InteractionState | None = None,
        reference_id: int | None = None,
        checked: bool = False,
    ) -> Message:
        if not checked:
            check_message_body(body, files)
        if limits.is_empty(body, bool(files)):
            raise ApiError(400, 50006, "Cannot send an empty message")
        message = Message(
            id=snowflake(),
            channel=channel,
            author=author,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=_new_attachments(body, files, []),
            flags=flags,
            reference_id=reference_id,
        )
        if interaction is not None:
            message.interaction_id = interaction.id
            user = interaction.user
            message.interaction_user = user.user if isinstance(user, Member) else user
            message.webhook_id = self.application_id
        self._store_message(channel, message)
        return message

    def edit_message(
        self, message: Message, body: dict[str, Any], files: list[UploadedFile]
    ) -> None:
        check_message_body(body, files)
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "attachments" in body or files:
            message.attachments = _new_attachments(body, files, message.attachments)
        if "flags" in body and body["flags"] is not None:
            keep = message.flags & ~FLAG_SUPPRESS_EMBEDS
            message.flags = keep | (int(body["flags"]) & FLAG_SUPPRESS_EMBEDS)
        message.flags &= ~FLAG_LOADING
        message.edited_timestamp = iso_now()
        message.edits.append(body)

    # ----------------------------------------------------------------- reactions

    def _reaction_target(self, call: Call, *, needed: int = 0) -> tuple[Message, int | None]:
        """The message reacted on, after the checks every reaction route shares: the channel is
        seen, with Read Message History (and `needed`); not in an archived thread (50083)."""
        channel = self._get_channel(call.params["channel_id"])
        perms = None
        if channel.guild is not None:
            perms = self._require(channel, READ_MESSAGE_HISTORY | needed)
            if channel.is_thread and channel.archived:
                raise ApiError(*THREAD_ARCHIVED)
        return self._get_message(channel, call.params["message_id"]), perms

    async def _put_reaction(self, call: Call) -> None:
        message, perms = self._reaction_target(call)
        emoji = call.params["emoji"]
        existing = message.reaction(emoji)
        # Add Reactions is needed to be the first with an emoji, not to join one.
        if perms is not None and not perms & ADD_REACTIONS and not (existing and existing.count):
            raise ApiError(*MISSING_PERMISSIONS)
        await self.add_reaction(message, emoji, self.bot_user)

    async def add_reaction(self, message: Message, emoji: str, user: User) -> None:
        reaction = message.reaction(emoji)
        if reaction is None:
            reaction = Reaction(emoji)
            message.reactions.append(reaction)
        if user.id in reaction.user_ids:
            return
        reaction.user_ids.append(user.id)
        await self.dispatch("MESSAGE_REACTION_ADD", self._reaction_event(message, emoji, user))

    async def remove_reaction(self, message: Message, emoji: str, user: User) -> None:
        reaction = message.reaction(emoji)
        if reaction is None or user.id not in reaction.user_ids:
            return
        reaction.user_ids.remove(user.id)
        data = self._reaction_event(message, emoji, user)
        data.pop("member", None)
        data.pop("message_author_id", None)
        await self.dispatch("MESSAGE_REACTION_REMOVE", data)

    def _reaction_event(self, message: Message, emoji: str, user: User) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user_id": str(user.id),
            "channel_id": str(message.channel.id),
            "message_id": str(message.id),
            "message_author_id": str(message.author.id),
            "emoji": emoji_payload(emoji),
            "burst": False,
            "burst_colors": [],
            "type": 0,  # normal reaction; discord.py requires the key
        }
        guild = message.channel.guild
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(user.id)
            if member is not None:
                data["member"] = member.payload()
        return data

    async def _delete_own_reaction(self, call: Call) -> None:
        message, _ = self._reaction_target(call)
        await self.remove_reaction(message, call.params["emoji"], self.bot_user)

    async def _delete_user_reaction(self, call: Call) -> None:
        message, _ = self._reaction_target(call, needed=MANAGE_MESSAGES)
        user = self.users.get(int(call.params["user_id"]))
        if user is not None:
            await self.remove_reaction(message, call.params["emoji"], user)

    async def _clear_reactions(self, call: Call) -> None:
        message, _ = self._reaction_target(call, needed=MANAGE_MESSAGES)
        message.reactions.clear()

    async def _get_reaction_users(self, call: Call) -> list[dict[str, Any]]:
        message, _ = self._reaction_target(call)
        reaction = message.reaction(call.params["emoji"])
        ids = reaction.user_ids if reaction else []
        return [self.users[i].payload() for i in ids]

    # ----------------------------------------------------------------- threads

    async def _thread_from_message(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        if channel.guild is not None:
            self._require(channel, CREATE_PUBLIC_THREADS)
        message = self._get_message(channel, call.params["message_id"])
        if channel.is_thread or any(t.id == message.id for t in self.channels.values()):
            raise ApiError(400, 160004, "A thread has already been created for this message")
        # Discord gives a thread started from a message the message's id.
        return await self._create_thread(channel, call.json or {}, message.id, PUBLIC_THREAD)

    async def _thread_without_message(self, call: Call) -> dict[str, Any]:
        channel = self._get_channel(call.params["channel_id"])
        body = call.json or {}
        kind = int(body.get("type", PRIVATE_THREAD))
        if channel.guild is not None:
            self._require(
                channel, CREATE_PUBLIC_THREADS if kind == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
            )
        created = await self._create_thread(channel, body, snowflake(), kind)
        if kind == PUBLIC_THREAD:
            # Discord announces a public thread started without a message in its channel: a
            # THREAD_CREATED system message (type 18) with the thread's name, by its creator.
            thread = self.channels[int(created["id"])]
            notice = Message(
                snowflake(), channel, self.bot_user, thread.name, thread_created_id=thread.id
            )
            self._store_message(channel, notice)
            await self.dispatch_message("MESSAGE_CREATE", notice)
        return created

    async def _create_thread(
        self, parent: Channel, body: dict[str, Any], thread_id: int, kind: int
    ) -> dict[str, Any]:
        name = str(body.get("name", ""))
        if not 1 <= len(name) <= 100 or parent.guild is None or parent.is_thread:
            raise ApiError(400, 50035, "Invalid Form Body: thread name or parent")
        thread = Channel(
            thread_id,
            parent.guild,
            name,
            type=kind,
            parent_id=parent.id,
            parent=parent,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            member_ids={self.bot_user.id},
            last_activity=self.now(),
        )
        parent.guild.channels.append(thread)
        self.channels[thread.id] = thread
        await self.dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return thread.payload()

    async def _join_thread(self, call: Call) -> None:
        thread = self._get_channel(call.params["channel_id"])
        if thread.guild is not None:
            self._require(thread)
            if thread.archived:
                raise ApiError(*THREAD_ARCHIVED)
        raw = call.params["user_id"]
        thread.member_ids.add(self.bot_user.id if raw == "@me" else int(raw))

    async def _leave_thread(self, call: Call) -> None:
        thread = self._get_channel(call.params["channel_id"])
        raw = call.params["user_id"]
        thread.member_ids.discard(self.bot_user.id if raw == "@me" else int(raw))

    # ----------------------------------------------------------------- interactions

    def _interaction_of(self, call: Call, id_key: str, token_key: str) -> InteractionState:
        state = None
        if id_key == "interaction_id":
            raw = call.params["interaction_id"]
            state = self.interactions.get(int(raw)) if raw.isdigit() else None
        else:
            if call.params["webhook_id"] != str(self.application_id):
                raise ApiError(404, 10015, "Unknown Webhook")
            token = call.params[token_key]
            state = self.interactions_by_token.get(token)
        if state is None or state.token != call.params[token_key]:
            raise ApiError(404, 10062, "Unknown interaction")
        return state

    async def _callback(self, call: Call) -> dict[str, Any]:
        state = self._interaction_of(call, "interaction_id", "interaction_token")
        age = self.now() - state.created_at
        if state.callbacks and age <= TOKEN_LIFETIME:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if age > INITIAL_RESPONSE_DEADLINE:  # too late: Discord has forgotten it
            raise ApiError(404, 10062, "Unknown interaction")
        body = call.json or {}
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[state.type]
        if kind not in allowed:
            raise ApiError(400, 50035, f"Invalid Form Body: callback type {kind} for {state.type}")
        message: Message | None = None
        if kind in (4, 5):
            flags = int(data.get("flags") or 0) & (FLAG_EPHEMERAL | FLAG_SUPPRESS_EMBEDS)
            if kind == 5:
                flags |= FLAG_LOADING
            else:
                check_message_body(data, call.files)
            if not flags & FLAG_EPHEMERAL:
                await self._thread_post(state.channel, None)
            if kind == 4:
                message = self.create_message(
                    state.channel,
                    self.bot_user,
                    data,
                    call.files,
                    flags=flags,
                    interaction=state,
                    checked=True,
                )
            else:
                message = self._loading_message(state, flags)
            state.original = message
        elif kind in (6, 7):
            if state.message is None:
                raise ApiError(400, 50035, "Invalid Form Body: no message to update")
            message = state.message
            state.original = message
            if kind == 7:
                self.edit_message(message, data, call.files)
        elif kind == 8:
            try:
                limits.check_choices(data.get("choices"))
            except limits.FormError as problem:
                raise ApiError.form(problem) from None
        elif kind == 9:
            try:
                limits.check_modal(data)
            except limits.FormError as problem:
                raise ApiError.form(problem) from None
        state.callbacks.append(body)
        if message is not None and kind in (4, 5):
            await self.dispatch_message("MESSAGE_CREATE", message)
        elif message is not None and kind == 7:
            await self.dispatch_message("MESSAGE_UPDATE", message)
        # discord.py sends ?with_response=1 and reads this shape; a 204 would break it.
        interaction: dict[str, Any] = {"id": str(state.id), "type": state.type}
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            interaction["response_message_id"] = str(message.id)
            interaction["response_message_loading"] = message.loading
            interaction["response_message_ephemeral"] = message.ephemeral
            if kind != 6:
                resource["message"] = self._payload(message)
        return {"interaction": interaction, "resource": resource}

    def _loading_message(self, state: InteractionState, flags: int) -> Message:
        message = Message(snowflake(), state.channel, self.bot_user, flags=flags)
        message.interaction_id = state.id
        user = state.user
        message.interaction_user = user.user if isinstance(user, Member) else user
        message.webhook_id = self.application_id
        self._store_message(state.channel, message)
        return message

    def _webhook_interaction(self, call: Call) -> InteractionState:
        """The interaction whose webhook this is; its token lives 15 minutes (401 Invalid
        Webhook Token, 50027, after that)."""
        state = self._interaction_of(call, "webhook_id", "webhook_token")
        if self.now() - state.created_at > TOKEN_LIFETIME:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return state

    async def _webhook_execute(self, call: Call) -> dict[str, Any] | None:
        state = self._webhook_interaction(call)
        if not state.callbacks:
            raise ApiError(404, 10015, "Unknown Webhook")  # no follow-ups before the response
        body = call.json or {}
        flags = int(body.get("flags") or 0) & (FLAG_EPHEMERAL | FLAG_SUPPRESS_EMBEDS)
        check_message_body(body, call.files)
        if not flags & FLAG_EPHEMERAL:
            await self._thread_post(state.channel, None)
        original = state.original
        if original is not None and original.loading and not state.followups:
            # Discord: the first follow-up after a "thinking" defer fills that message in.
            self.edit_message(original, body, call.files)
            message = original
            await self.dispatch_message("MESSAGE_UPDATE", message)
        else:
            message = self.create_message(
                state.channel,
                self.bot_user,
                body,
                call.files,
                flags=flags,
                interaction=state,
                checked=True,
            )
            await self.dispatch_message("MESSAGE_CREATE", message)
        state.followups.append(message)
        if call.query.get("wait", "false").lower() not in ("true", "1"):
            return None
        return self._payload(message)

    def _webhook_message(self, call: Call) -> tuple[InteractionState, Message]:
        state = self._webhook_interaction(call)
        raw = call.params["message_id"]
        if raw == "@original":
            if state.original is None or state.original.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            return state, state.original
        message = next((m for m in state.followups if str(m.id) == raw and not m.deleted), None)
        if message is None:
            raise ApiError(404, 10008, "Unknown Message")
        return state, message

    async def _webhook_get(self, call: Call) -> dict[str, Any]:
        return self._payload(self._webhook_message(call)[1])

    async def _webhook_edit(self, call: Call) -> dict[str, Any]:
        state, message = self._webhook_message(call)
        self.edit_message(message, call.json or {}, call.files)
        if call.params["message_id"] == "@original":
            state.original_edits.append(call.json or {})
        await self.dispatch_message("MESSAGE_UPDATE", message)
        return self._payload(message)

    async def _webhook_delete(self, call: Call) -> None:
        await self.delete_message(self._webhook_message(call)[1])

    # ----------------------------------------------------------------- gateway

    async def dispatch_message(self, event: str, message: Message) -> None:
        if message.ephemeral:  # nobody but the user ever hears about ephemeral messages
            return
        # Filtered before the payload is built: most bots never get their messages' events.
        guild = message.channel.guild
        session = self.session_for(guild.id if guild is not None else None)
        if not self._wants(session, event, guild is not None):
            return
        await self.dispatch(event, self._payload(message))

    @staticmethod
    def _wants(session: GatewaySession | None, event: str, in_guild: bool) -> bool:
        """Whether ``session`` gets ``event`` (its intents), as Discord decides."""
        if session is None or not session.valid:
            return False
        wanted = _EVENT_INTENTS.get(event)
        return wanted is None or bool(session.intents & wanted[0 if in_guild else 1])

    async def dispatch(self, event: str, data: dict[str, Any]) -> int | None:
        """Send a DISPATCH to the session of the event's guild's shard (:meth:`session_for`);
        kept for RESUME replay. Returns its seq (None: filtered)."""
        session = self.session_for(self._guild_of_event(event, data))
        return await self.dispatch_to(session, event, data)

    async def dispatch_to(
        self, session: GatewaySession | None, event: str, data: dict[str, Any]
    ) -> int | None:
        """Send a DISPATCH on ``session``; its seq (None: no session, or filtered)."""
        if not self._wants(session, event, "guild_id" in data or event == "GUILD_CREATE"):
            return None
        assert session is not None
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.events.append(frame)
            self._trim(session.events)
            if session.ws is not None and not session.ws.closed:
                # If the client is gone it gets the event on RESUME.
                with contextlib.suppress(ConnectionError):
                    await session.ws.send_str(orjson.dumps(frame).decode())
        self.poke()
        return frame["s"]

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._open_ws.add(ws)
        kind = "resume" if request.path.startswith("/resume") else "gateway"
        self.gateway_connections.append(kind)
        session: GatewaySession | None = None
        try:
            hello = {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}, "s": None}
            await ws.send_str(json.dumps({**hello, "t": None}))
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                payload = json.loads(msg.data)
                op, d = payload.get("op"), payload.get("d")
                if op == 1:
                    await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
                elif op == 2:
                    session = await self._identify(ws, d)
                elif op == 6:
                    session = await self._resume(ws, d)
                elif op == 8:
                    await self._request_members(d)
                elif op not in (3, 4):
                    self.server_errors.append(f"unexpected gateway op {op}: {payload!r}")
        finally:
            self._open_ws.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                # Only drop_gateway() keeps a session resumable; a client close ends it.
                session.valid = ws in self.dropped_ws
            self.poke()
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, d: dict[str, Any]
    ) -> GatewaySession | None:
        if d.get("token") != TOKEN:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        allowed = self.allowed_intents
        if allowed is not None and int(d.get("intents", 0)) & ~allowed:
            await ws.close(code=4014, message=b"Disallowed intent(s).")
            return None
        shard_id, shard_count = d.get("shard") or (0, 1)
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            # Discord: 4010 Invalid shard (4011 Sharding required when too few).
            self.server_errors.append(
                f"IDENTIFY with shard [{shard_id}, {shard_count}]; this fake has "
                f"{self.shard_count} shard(s) (FakeDiscord(shard_count=...))"
            )
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        previous = self.sessions.get(shard_id)
        if previous is not None:
            previous.valid = False
        session = GatewaySession(
            id=secrets.token_hex(16),
            intents=int(d.get("intents", 0)),
            shard_id=shard_id,
            shard_count=shard_count,
        )
        session.ws = ws
        self.sessions[shard_id] = session
        include_members = bool(session.intents & GUILD_MEMBERS)
        owned = [g for g in self.guilds.values() if self.shard_of(g) == shard_id]
        await self.dispatch_to(
            session,
            "READY",
            {
                "v": 10,
                "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False},
                "guilds": [{"id": str(g.id), "unavailable": True} for g in owned],
                "shard": [shard_id, shard_count],
                "session_id": session.id,
                "resume_gateway_url": f"ws://127.0.0.1:{self.port}/resume/",
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        for guild in owned:
            payload = guild.payload(include_all_members=include_members)
            await self.dispatch_to(session, "GUILD_CREATE", payload)
        self.identifies += 1
        session.identified = True
        self.poke()
        return session

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> GatewaySession | None:
        session = next((s for s in self.sessions.values() if s.id == d.get("session_id")), None)
        if (
            session is None
            or not session.valid
            or d.get("session_id") != session.id
            or d.get("token") != TOKEN
        ):
            await ws.send_str(json.dumps({"op": 9, "d": False, "s": None, "t": None}))
            return None
        async with session.lock:
            session.ws = ws
            session.resumes += 1
            last_seen = int(d.get("seq") or 0)
            for frame in session.events:
                if frame["s"] > last_seen:
                    await ws.send_str(json.dumps(frame))
        await self.dispatch_to(session, "RESUMED", {})
        return session

    async def _request_members(self, d: dict[str, Any]) -> None:
        guild = self.guilds.get(int(d["guild_id"]))
        if guild is None:
            return
        wanted = {int(u) for u in d.get("user_ids") or []}
        query = (d.get("query") or "").lower()
        members = [
            m.payload()
            for m in guild.members.values()
            if (not wanted or m.id in wanted) and m.name.lower().startswith(query)
        ]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        # Not intent-filtered: chunks answer an explicit request.
        await self.dispatch("GUILD_MEMBERS_CHUNK", chunk)


def _stat_key(call: Call) -> str:
    """The counters' key: "METHOD /route/{template}" (the raw path for an unknown route)."""
    return f"{call.method} {call.route or call.path}"


def _new_attachments(
    body: dict[str, Any], files: list[UploadedFile], existing: list[Attachment]
) -> list[Attachment]:
    """The attachment list after a create/edit, following discord.py's `attachments` array."""
    by_field = {f.field: f for f in files}
    if "attachments" not in body:
        return [*existing, *(_attachment(f, None) for f in files)]
    kept = {a.id: a for a in existing}
    result = []
    for entry in body["attachments"] or []:
        upload = by_field.get(f"files[{entry.get('id')}]")
        if upload is not None:
            result.append(_attachment(upload, entry.get("description")))
        elif int(entry["id"]) in kept:
            result.append(kept[int(entry["id"])])
        else:
            raise ApiError(400, 50035, f"Invalid Form Body: unknown attachment {entry!r}")
    return result


def _attachment(upload: UploadedFile, description: str | None) -> Attachment:
    content_type = upload.content_type
    if upload.filename.lower().endswith(".png"):
        content_type = "image/png"  # aiohttp uploads files as application/octet-stream
    return Attachment(snowflake(), upload.filename, upload.data, content_type, description)


def check_message_body(body: dict[str, Any], files: list[UploadedFile]) -> None:
    """Reject what Discord rejects (limits.py), so a bot bug fails the test instead of passing
    silently: 400 Invalid Form Body (50035) naming the field."""
    try:
        limits.check_message_body(body)
    except limits.FormError as problem:
        raise ApiError.form(problem) from None


def _command_problem(command: dict[str, Any]) -> str | None:
    """Why Discord would reject this command payload, or None."""
    kind = command.get("type", 1)
    name = command.get("name", "")
    if kind == 1 and (not _NAME_RE.match(name) or name != name.lower()):
        return "bad name"
    if kind == 1 and not 1 <= len(command.get("description", "")) <= 100:
        return "description must be 1-100 characters"
    return _options_problem(command.get("options") or [])


def _options_problem(options: list[dict[str, Any]]) -> str | None:
    if len(options) > 25:
        return "more than 25 options"
    optional_seen = False
    for option in options:
        name = option.get("name", "")
        if not _NAME_RE.match(name) or name != name.lower():
            return f"bad option name {name!r}"
        if not 1 <= len(option.get("description", "")) <= 100:
            return f"option {name!r}: description must be 1-100 characters"
        if len(option.get("choices") or []) > 25:
            return f"option {name!r}: more than 25 choices"
        if option.get("choices") and option.get("autocomplete"):
            return f"option {name!r}: choices and autocomplete together"
        bounds = [option[k] for k in ("min_value", "max_value") if k in option]
        if option.get("type") in (4, 10) and any(
            abs(bound) > limits.INTEGER_OPTION for bound in bounds
        ):
            return f"option {name!r}: min_value and max_value lie within +-(2**53 - 1)"
        if option.get("type") in (1, 2):
            problem = _options_problem(option.get("options") or [])
            if problem:
                return problem
            continue
        if option.get("required"):
            if optional_seen:
                return f"required option {name!r} after an optional one"
        else:
            optional_seen = True
    return None
