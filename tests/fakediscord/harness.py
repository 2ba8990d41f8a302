"""The test-facing side of the fake: start it with a real discord.py bot, act as users, observe.

See the package docstring (`fakediscord/__init__.py`) for the tour.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import discord
import pytest_asyncio
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route
from discord.webhook.async_ import async_context

from . import limits
from .model import (
    ADD_REACTIONS,
    MANAGE_GUILD,
    MANAGE_THREADS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    Channel,
    Guild,
    Member,
    Message,
    Overwrite,
    Role,
    User,
    snowflake,
)
from .ratelimits import RateLimits
from .server import TOKEN, Call, FakeServer, Fault, GatewaySession, InteractionState

T = TypeVar("T")
BotFactory = Callable[..., discord.Client]
DEFAULT_TIMEOUT = 5.0
# Discord's own limits on option values: a string option holds at most 6000 characters, an
# integer option is within +-(2**53 - 1) (limits.INTEGER_OPTION).
MAX_STRING_OPTION = 6000
MAX_INTEGER_OPTION = limits.INTEGER_OPTION


class FakeDiscordError(AssertionError):
    """The test asked for something Discord would not allow, or waited in vain."""


@dataclass
class InteractionResponse:
    """The bot's initial answer to an interaction (the first callback)."""

    type: int  # 4 message, 5 defer, 6 deferred update, 7 update message, 8 choices, 9 modal
    data: dict[str, Any]
    message: Message | None  # the message it created (4, 5) or updated (6, 7)

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def deferred(self) -> bool:
        return self.type in (5, 6)


class InteractionHandle:
    """One interaction the fake sent; await the bot's answers on it."""

    def __init__(self, fake: FakeDiscord, state: InteractionState) -> None:
        self._fake = fake
        self.state = state

    @property
    def id(self) -> int:
        return self.state.id

    @property
    def followups(self) -> list[Message]:
        return list(self.state.followups)

    @property
    def original_edits(self) -> list[dict[str, Any]]:
        """Bodies of every PATCH .../messages/@original, in order."""
        return list(self.state.original_edits)

    async def response(self, timeout: float = DEFAULT_TIMEOUT) -> InteractionResponse:
        body = await self._fake.wait_until(
            lambda: self.state.response, timeout=timeout, what=f"a response to {self._label()}"
        )
        return InteractionResponse(int(body["type"]), body.get("data") or {}, self.state.original)

    async def message(self, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The response message, once it is filled in (after a defer: once edited/followed up)."""
        await self.response(timeout)

        def ready() -> Message | None:
            original = self.state.original
            return original if original is not None and not original.loading else None

        return await self._fake.wait_until(
            ready, timeout=timeout, what=f"the response message of {self._label()}"
        )

    async def followup(self, index: int = 0, timeout: float = DEFAULT_TIMEOUT) -> Message:
        def found() -> Message | None:
            followups = self.state.followups
            return followups[index] if len(followups) > index else None

        return await self._fake.wait_until(
            found, timeout=timeout, what=f"follow-up #{index} of {self._label()}"
        )

    async def choices(self, timeout: float = DEFAULT_TIMEOUT) -> list[dict[str, Any]]:
        """Autocomplete results: [{"name": ..., "value": ...}, ...]."""
        response = await self.response(timeout)
        if response.type != 8:
            raise FakeDiscordError(f"expected autocomplete choices, got callback {response.type}")
        return list(response.data.get("choices") or [])

    async def modal(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        response = await self.response(timeout)
        if response.type != 9:
            raise FakeDiscordError(f"expected a modal, got callback {response.type}")
        return response.data

    def _label(self) -> str:
        data = self.state.data
        return f"interaction {data.get('name') or data.get('custom_id')!r} ({self.state.id})"


class _ErrorLog(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class FakeDiscord(FakeServer):
    """A fake Discord plus the real bot logged into it. Build, then `async with fake.run(...)`."""

    def __init__(
        self,
        *,
        guild_name: str = "Test Guild",
        guild_ready_timeout: float = 0.1,
        ready_timeout: float = 10.0,
        strict: bool = True,
        history_limit: int | None = None,
        clock: Callable[[], float] | None = None,
        rate_limits: bool | RateLimits = False,
        shard_count: int = 1,
    ) -> None:
        super().__init__(
            guild_name=guild_name,
            history_limit=history_limit,
            clock=clock,
            rate_limits=rate_limits,
            shard_count=shard_count,
        )
        self.guild_ready_timeout = guild_ready_timeout
        self.ready_timeout = ready_timeout
        # strict: at exit, fail on unknown routes, fake crashes and discord.py ERROR logs.
        self.strict = strict
        self.bot: discord.Client | None = None
        # Bots started with add_bot() beside the first (other processes' shards).
        self.other_bots: list[discord.Client] = []
        # Each one's connect task and what undoes its request tracking.
        self._other_tasks: list[tuple[asyncio.Task[None], list[Callable[[], None]]]] = []
        self.bot_errors: list[logging.LogRecord] = []
        self._factory: BotFactory | None = None
        self._client_options: dict[str, Any] = {}
        self._bot_task: asyncio.Task[None] | None = None
        # REST requests the bot has started and not yet got back (see _track_requests).
        self.bot_requests_in_flight = 0
        self._untrack: list[Callable[[], None]] = []

    # ----------------------------------------------------------------- lifecycle

    @asynccontextmanager
    async def run(
        self, bot_factory: BotFactory, **client_options: Any
    ) -> AsyncIterator[FakeDiscord]:
        """Serve, patch discord.py's endpoints, start the bot and wait until it is ready."""
        self._factory, self._client_options = bot_factory, client_options
        saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        error_log = _ErrorLog(self.bot_errors)
        logging.getLogger("discord").addHandler(error_log)
        await self.start_server()
        try:
            Route.BASE = f"{self.base_url}/api/v10"
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{self.port}/gateway/")
            await self.start_bot()
            yield self
            await self.stop_other_bots()
            await self.stop_bot()
        finally:
            try:
                await self.stop_other_bots()
                await self.stop_bot()
            finally:
                Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved
                await self.stop_server()
                logging.getLogger("discord").removeHandler(error_log)
        if self.strict:
            self.check_clean()

    def check_clean(self) -> None:
        """Fail on unknown routes, crashes in the fake, or errors logged by discord.py."""
        problems = [f"unknown route: {c.method} {c.path}" for c in self.calls if c.unknown]
        problems += [f"fake discord crashed: {e}" for e in self.server_errors]
        problems += [f"discord.py logged: {r.getMessage()} {r.exc_info!r}" for r in self.bot_errors]
        if problems:
            raise FakeDiscordError("\n".join(problems))

    async def start_bot(self) -> discord.Client:
        assert self._factory is not None, "use `async with fake.run(bot_factory)`"
        bot = self._factory(guild_ready_timeout=self.guild_ready_timeout, **self._client_options)
        self.bot = bot
        self._untrack += self._track_requests(bot.http)
        try:
            self._bot_task = await self._connect(bot)
        except BaseException:
            await self.stop_bot()
            raise
        return bot

    async def add_bot(self, bot_factory: BotFactory, **client_options: Any) -> discord.Client:
        """Start another bot beside the first, as another process would run it: a sharded
        bot on other shards of this fake (``FakeDiscord(shard_count=n)``), logged in and ready,
        each of its shards' guilds cached. Stopped with the first (or by
        :meth:`stop_other_bots`)."""
        options = {"guild_ready_timeout": self.guild_ready_timeout, **client_options}
        bot = bot_factory(**options)
        self.other_bots.append(bot)
        untrack = self._track_requests(bot.http)
        try:
            task = await self._connect(bot)
        except BaseException:
            self.other_bots.remove(bot)
            await bot.close()
            for undo in untrack:
                undo()
            raise
        self._other_tasks.append((task, untrack))
        return bot

    async def _connect(self, bot: discord.Client) -> asyncio.Task[None]:
        """Log ``bot`` in, connect it and wait until it is ready and has parsed every event
        its shards were sent; the connect task."""
        async with asyncio.timeout(self.ready_timeout):
            await bot.login(TOKEN)  # GET /users/@me, /oauth2/applications/@me, setup_hook
            task = asyncio.create_task(bot.connect(), name="fakediscord-bot")
            ready = asyncio.create_task(bot.wait_until_ready(), name="fakediscord-ready")
            done, _ = await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
            if ready not in done:
                ready.cancel()
                await asyncio.gather(ready, return_exceptions=True)
                await task  # raises what stopped the bot
                raise FakeDiscordError("the bot stopped before it was ready")
            for shard_id in _shard_ids(bot):
                session = self.sessions.get(shard_id)
                assert session is not None, f"shard {shard_id} has no session"
                await self._until_processed(session.seq, session)  # every GUILD_CREATE cached
        return task

    async def stop_other_bots(self) -> None:
        """Close the bots :meth:`add_bot` started."""
        while self.other_bots:
            bot, (task, untrack) = self.other_bots.pop(), self._other_tasks.pop()
            try:
                await bot.close()
                async with asyncio.timeout(self.ready_timeout):
                    await task
            finally:
                for undo in untrack:
                    undo()

    async def stop_bot(self) -> None:
        """Close the bot (idempotent): bot.close(), then await its connect task."""
        bot, task = self.bot, self._bot_task
        self.bot, self._bot_task = None, None
        try:
            if bot is not None:
                await bot.close()
            if task is not None:
                async with asyncio.timeout(self.ready_timeout):
                    await task
        finally:
            while self._untrack:
                self._untrack.pop()()

    def _track_requests(self, http: discord.http.HTTPClient) -> list[Callable[[], None]]:
        """Count the bot's REST requests in flight, on its HTTP client and the webhook adapter
        used for interaction responses and follow-ups (one for every bot in the process: the
        first bot's tracking counts every bot's); what undoes it.

        discord.py registers a view (store_view) right after the request that sent it returns,
        with no await in between. So once the count is back to 0 and a waiter runs, every view
        sent so far is registered: component clicks wait for that, as a human would.
        """
        undo: list[Callable[[], None]] = []
        for owner in (http, async_context.get()):
            if "request" in vars(owner):
                continue  # the shared webhook adapter, tracked already
            original = owner.request

            async def tracked(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
                self.bot_requests_in_flight += 1
                try:
                    return await __original(*args, **kwargs)
                finally:
                    self.bot_requests_in_flight -= 1
                    self.poke()

            owner.request = tracked  # type: ignore[method-assign]
            undo.append(lambda owner=owner: delattr(owner, "request"))
        return undo

    async def wait_bot_idle(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the bot has no REST request awaiting an answer."""
        await self.wait_until(
            lambda: self.bot_requests_in_flight == 0,
            timeout=timeout,
            what="the bot's REST requests to finish",
        )

    async def restart_bot(self) -> discord.Client:
        """Close the bot and start a new one from the same factory (same database), logged in."""
        await self.stop_bot()
        return await self.start_bot()

    async def drop_gateway(
        self, *, code: int = 4000, wait_resumed: bool = True, resumable: bool = True
    ) -> None:
        """Close the bot's websocket from the server side; by default wait for RESUMED.

        Events dispatched while the bot is away are kept and replayed on RESUME. With
        ``resumable=False`` the session ends with the connection (as after close code 4009,
        session timed out): the bot's RESUME gets INVALID_SESSION (d=false) and it IDENTIFYs
        anew; nothing reaches it in between (interactions fail, as on Discord), and nothing is
        replayed. ``wait_resumed`` then waits for the new session (:meth:`wait_identified`).
        """
        session = self.session
        if session is None or session.ws is None:
            raise FakeDiscordError("the bot has no gateway connection to drop")
        resumes = session.resumes
        if resumable:
            self.dropped_ws.add(session.ws)
        else:
            session.valid = False
        await session.ws.close(code=code, message=b"dropped by the test")
        if wait_resumed:
            if resumable:
                await self.wait_resumed(resumes + 1)
            else:
                await self.wait_identified(session)

    async def invalidate_session(self, *, wait: bool = True) -> None:
        """Send INVALID_SESSION (op 9, d=false) on the live connection: the session is over, the
        bot closes the socket and IDENTIFYs again. By default wait for the new session."""
        session = self.session
        if session is None or session.ws is None:
            raise FakeDiscordError("the bot has no gateway connection")
        session.valid = False
        await session.ws.send_str('{"op": 9, "d": false, "s": null, "t": null}')
        if wait:
            await self.wait_identified(session)

    async def wait_identified(
        self, previous: GatewaySession | None, timeout: float = DEFAULT_TIMEOUT
    ) -> GatewaySession:
        """Wait until a session other than ``previous`` is IDENTIFYed (READY and GUILD_CREATEs
        sent) and the bot has parsed all of it; the new session."""

        def ready() -> GatewaySession | None:
            session = self.session
            if session is None or session is previous or not session.identified:
                return None
            return session if session.ws is not None else None

        session = await self.wait_until(ready, timeout=timeout, what="a new IDENTIFY")
        await self._until_processed(session.seq, session, timeout)
        return session

    async def wait_resumed(self, count: int = 1, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the session has been RESUMEd `count` times and the bot saw RESUMED."""
        session = self.session
        assert session is not None
        await self.wait_until(
            lambda: session.resumes >= count and session.ws is not None,
            timeout=timeout,
            what=f"RESUME #{count}",
        )
        await self._until_processed(session.seq, session)

    async def _until_processed(
        self, seq: int, session: GatewaySession | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """Wait until the bot running ``session``'s shard (default: :attr:`session`) has parsed
        the dispatch numbered `seq` on it.

        discord.py dispatches `socket_event_type` and then parses the event with no await in
        between, so when our waiter resumes the parse is done.
        """
        session = session or self.session
        assert session is not None
        bot = self._bot_of(session.shard_id)
        assert bot is not None, f"no bot runs shard {session.shard_id}"
        async with asyncio.timeout(timeout):
            while True:
                ws = _shard_ws(bot, session.shard_id)
                if ws is not None and ws.session_id == session.id and (ws.sequence or 0) >= seq:
                    return
                await bot.wait_for("socket_event_type")

    def _bot_of(self, shard_id: int) -> discord.Client | None:
        """The running bot that runs ``shard_id`` (the latest started, if several do)."""
        running = [b for b in (self.bot, *self.other_bots) if b is not None]
        return next((b for b in reversed(running) if shard_id in _shard_ids(b)), None)

    # ----------------------------------------------------------------- waiting

    async def wait_until(
        self, predicate: Callable[[], T | None], *, timeout: float = DEFAULT_TIMEOUT, what: str = ""
    ) -> T:
        """Wait until predicate() is truthy (re-checked on every change); return its value."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self.changed  # taken before the check, so no poke is missed
                    result = predicate()
                    if result:
                        return result
                    await changed.wait()
        except TimeoutError:
            recent = "\n".join(f"  {c!r}" for c in self.calls[-10:])
            raise FakeDiscordError(
                f"timed out after {timeout}s waiting for {what or predicate!r}; "
                f"last calls:\n{recent}"
            ) from None

    def mark(self) -> int:
        """A position in the call log: pass it as `since=` to wait for calls made after now."""
        return self.calls_made

    def calls_matching(
        self,
        predicate: Callable[[Call], bool] | None = None,
        *,
        method: str | None = None,
        route: str | None = None,
        since: int = 0,
    ) -> list[Call]:
        """Recorded calls (from index `since`) with this method, route template and predicate."""
        return [
            c
            for c in self.calls
            if c.index >= since
            and (method is None or c.method == method.upper())
            and (route is None or c.route == route)
            and (predicate is None or predicate(c))
        ]

    async def wait_for_call(
        self,
        predicate: Callable[[Call], bool] | None = None,
        *,
        method: str | None = None,
        route: str | None = None,
        since: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Call:
        """The first call at or after `since` (default: now) that matches; waits for it."""
        start = self.mark() if since is None else since

        def found() -> Call | None:
            hits = self.calls_matching(predicate, method=method, route=route, since=start)
            return hits[0] if hits else None

        return await self.wait_until(
            found, timeout=timeout, what=f"a call {method or ''} {route or ''} {predicate or ''}"
        )

    def fail_next(
        self,
        status: int = 429,
        *,
        method: str | None = None,
        path: str | None = None,
        predicate: Callable[[Call], bool] | None = None,
        times: int = 1,
        retry_after: float = 0.05,
    ) -> Fault:
        """Answer the next `times` matching calls with `status` (429: Via + JSON retry_after)."""
        fault = Fault(status, method, path, predicate, times, retry_after)
        self.faults.append(fault)
        return fault

    # ----------------------------------------------------------------- world building

    async def add_guild(self, name: str, *, shard: int | None = None) -> Guild:
        """A new guild (owner, roles, #general); the bot gets GUILD_CREATE if it is running.
        ``shard``: an id that puts the guild on that shard (``(id >> 22) % shard_count``)."""
        guild = self._new_guild(name, shard)
        await self._announce("GUILD_CREATE", guild.payload(include_all_members=True))
        return guild

    async def set_guild_locale(self, locale: str, guild: Guild | None = None) -> None:
        """A manager changes the server's community language: GUILD_UPDATE, as Discord sends."""
        guild = guild or self.guild
        guild.preferred_locale = locale
        await self._announce("GUILD_UPDATE", guild.payload(include_all_members=False))

    async def add_channel(self, name: str, guild: Guild | None = None) -> Channel:
        channel = self._new_channel(guild or self.guild, name)
        await self._announce("CHANNEL_CREATE", channel.payload())
        return channel

    async def add_member(
        self,
        name: str,
        guild: Guild | None = None,
        *,
        manage_guild: bool = False,
        bot: bool = False,
        user: User | None = None,
        roles: list[Role] | None = None,
        nick: str | None = None,
    ) -> Member:
        """A member (a new user unless `user` is given, e.g. the same person in two guilds).

        Every member gets the "Members" role (what people usually may do, Use Application
        Commands included; @everyone grants nothing), then `roles`. `manage_guild` gives the
        "Manager" role (Manage Server permission)."""
        guild = guild or self.guild
        if user is None:
            user = User(snowflake(), name, bot=bot)
            self.users[user.id] = user
        member_roles = [guild.role("Members")]  # what people usually may do
        member_roles += roles or []
        if manage_guild:
            member_roles.append(guild.role("Manager"))
        member = Member(user, guild, roles=member_roles, nick=nick)
        guild.members[user.id] = member
        await self._announce("GUILD_MEMBER_ADD", {**member.payload(), "guild_id": str(guild.id)})
        return member

    async def _announce(self, event: str, data: dict[str, Any]) -> None:
        session = self.session_for(self._guild_of_event(event, data))
        seq = await self.dispatch_to(session, event, data)
        if seq is not None and session is not None and self._bot_of(session.shard_id):
            await self._until_processed(seq, session)

    def member(self, name: str, guild: Guild | None = None) -> Member:
        guild = guild or self.guild
        found = [m for m in guild.members.values() if m.name == name]
        if len(found) != 1:
            raise FakeDiscordError(f"{len(found)} members named {name!r} in {guild.name}")
        return found[0]

    # ----------------------------------------------------------------- permissions

    def permissions(self, who: Member | User, channel: Channel | None = None) -> int:
        """What `who` may do in a channel or thread (default: #general), computed from roles
        and overwrites as Discord does (`Guild.permissions_in`)."""
        channel = channel or self.channel
        guild = channel.guild
        if guild is None:
            raise FakeDiscordError("permissions are per guild channel")
        member = guild.members.get(who.id)
        if member is None:
            raise FakeDiscordError(f"{who.name} is not in {guild.name}")
        return guild.permissions_in(member, channel)

    async def set_role_permissions(self, role: Role, permissions: int) -> None:
        """Give a role (`guild.everyone` too) these permissions: GUILD_ROLE_UPDATE."""
        guild = next(g for g in self.guilds.values() if role is g.everyone or role in g.roles)
        role.permissions = permissions
        await self._announce(
            "GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": role.payload()}
        )

    async def set_bot_permissions(self, permissions: int, guild: Guild | None = None) -> None:
        """The bot's role gets exactly `permissions`: with @everyone granting nothing (the
        default), these are then the bot's guild-wide permissions. By default they are the
        README's (`model.README_PERMISSIONS`)."""
        await self.set_role_permissions(self.bot_role(guild or self.guild), permissions)

    async def add_role(self, name: str, permissions: int = 0, guild: Guild | None = None) -> Role:
        """A new role (GUILD_ROLE_CREATE); give it with `add_member(roles=[...])`."""
        guild = guild or self.guild
        role = Role(snowflake(), name, permissions, position=len(guild.roles) + 1)
        guild.roles.append(role)
        await self._announce(
            "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()}
        )
        return role

    async def set_overwrite(
        self,
        channel: Channel,
        target: Role | Member | User,
        *,
        allow: int = 0,
        deny: int = 0,
    ) -> None:
        """A channel's permission overwrite for a role (`guild.everyone` for @everyone) or a
        member (`fake.bot_member(guild)` for the bot); allow=deny=0 removes it.
        CHANNEL_UPDATE. Threads have none of their own: they follow their parent channel."""
        if channel.is_thread or channel.guild is None:
            raise FakeDiscordError("overwrites belong to a guild text channel (threads inherit)")
        kind = 0 if isinstance(target, Role) else 1
        if allow or deny:
            channel.overwrites[target.id] = Overwrite(target.id, kind, allow, deny)
        else:
            channel.overwrites.pop(target.id, None)
        await self._announce("CHANNEL_UPDATE", channel.payload())

    # ----------------------------------------------------------------- threads and time

    async def archive_thread(self, thread: Channel, archived: bool = True) -> None:
        """Archive (or unarchive) a thread as a moderator would: THREAD_UPDATE."""
        await self._thread_change(thread, archived=archived)

    async def lock_thread(self, thread: Channel, locked: bool = True) -> None:
        """Lock (or unlock) a thread: only Manage Threads may post or edit there then."""
        await self._thread_change(thread, locked=locked)

    async def _thread_change(
        self, thread: Channel, *, archived: bool | None = None, locked: bool | None = None
    ) -> None:
        if not thread.is_thread or thread.deleted:
            raise FakeDiscordError(f"#{thread.name} is not a live thread")
        await self._as_event(self.set_thread_state(thread, archived=archived, locked=locked))

    async def delete_thread(self, thread: Channel) -> None:
        """Delete a thread (THREAD_DELETE): the bot's REST calls on it get 404 Unknown Channel
        (10003) from now on."""
        if not thread.is_thread:
            raise FakeDiscordError(f"#{thread.name} is not a thread")
        await self.delete_channel_as_user(thread)

    async def delete_channel_as_user(self, channel: Channel) -> None:
        """Delete a channel (CHANNEL_DELETE) or thread (THREAD_DELETE), as a moderator."""
        if channel.deleted:
            raise FakeDiscordError(f"#{channel.name} is already deleted")
        await self._as_event(self.delete_channel(channel))

    async def advance(self, seconds: float) -> None:
        """Move the fake's clock on (see FakeServer.advance) and wait until the bot has parsed
        what that caused (auto-archived threads)."""
        await self._as_event(super().advance(seconds))

    # ----------------------------------------------------------------- reading back

    def command(self, name: str, guild: Guild | bool | None = True) -> dict[str, Any]:
        """A synced command payload; guild=True: the guild's, else global (guild=None)."""
        for command in self._commands_for(self._guild_arg(guild)):
            if command["name"] == name:
                return command
        raise FakeDiscordError(f"no synced command {name!r}")

    def command_names(self, guild: Guild | bool | None = True) -> set[str]:
        """Names synced for `guild` (True: the default guild, None: global only)."""
        guild = self._guild_arg(guild)
        return {c["name"] for c in self.commands.get(guild.id if guild else None, [])}

    def _guild_arg(self, guild: Guild | bool | None) -> Guild | None:
        if guild is True:
            return self.guild
        return guild or None

    def _commands_for(self, guild: Guild | None) -> list[dict[str, Any]]:
        # A guild sees its own commands first, then the global ones (like the Discord client).
        local = self.commands.get(guild.id, []) if guild else []
        return [*local, *self.commands.get(None, [])]

    async def wait_for_commands(self, guild: Guild | bool | None = True) -> set[str]:
        target = self._guild_arg(guild)
        key = target.id if target else None
        await self.wait_until(lambda: key in self.commands, what=f"a command sync for {key}")
        return self.command_names(guild)

    def messages(self, channel: Channel | None = None) -> list[Message]:
        """Messages present in a channel or thread (ephemeral ones included, `m.ephemeral`)."""
        return (channel or self.channel).messages

    def get_message(self, message_id: int) -> Message:
        return self.messages_by_id[message_id]

    def last_message(self, channel: Channel | None = None) -> Message:
        message = (channel or self.channel).last_message
        if message is None:
            raise FakeDiscordError("no messages")
        return message

    def threads(self, channel: Channel | None = None) -> list[Channel]:
        parent = channel or self.channel
        assert parent.guild is not None
        return [t for t in parent.guild.threads if t.parent_id == parent.id]

    # ----------------------------------------------------------------- acting as users

    async def slash(
        self,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        by: Member,
        channel: Channel | None = None,
        within_limits: bool = True,
    ) -> InteractionHandle:
        """Run `/command` ("game", "match start", "admin config set") as member `by`.

        Option values: str, int, float, bool, Member/User (user options), Channel, Role.
        Types come from the synced command, like the Discord client; missing required options,
        unknown names and values outside `choices` fail here. So do values outside an option's
        declared min/max value or length, which Discord refuses too; `within_limits=False`
        sends them anyway (Discord's checks bypassed: a test of the bot's own validation).
        """
        data = self._command_data(
            command, options or {}, by, focused=None, within_limits=within_limits
        )
        return await self._interact(2, data, by, channel)

    async def autocomplete(
        self,
        command: str,
        options: dict[str, Any],
        *,
        focused: str,
        by: Member,
        channel: Channel | None = None,
    ) -> InteractionHandle:
        """Ask for autocomplete of option `focused` (its value in `options` is the typed text)."""
        data = self._command_data(command, options, by, focused=focused)
        return await self._interact(4, data, by, channel)

    async def click(
        self,
        message: Message,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        by: Member,
    ) -> InteractionHandle:
        """Click a button on `message`, found by custom_id or label. Disabled ones can't be."""
        if (custom_id is None) == (label is None):
            raise TypeError("give exactly one of custom_id and label")
        button = message.component(custom_id, label=label)
        if button is None or button.get("type") != 2:
            raise FakeDiscordError(f"no button {custom_id or label!r} on message {message.id}")
        if button.get("disabled"):
            raise FakeDiscordError(f"button {custom_id or label!r} is disabled")
        if "custom_id" not in button:
            raise FakeDiscordError(f"button {custom_id or label!r} is a link button")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self._interact(3, data, by, message.channel, message=message)

    async def select(
        self,
        message: Message,
        values: list[Any],
        custom_id: str | None = None,
        *,
        by: Member,
    ) -> InteractionHandle:
        """Choose `values` in a select menu (the only one on the message if no custom_id)."""
        menus = [c for c in message.walk_components() if c.get("type") in (3, 5, 6, 7, 8)]
        if custom_id is not None:
            menus = [c for c in menus if c.get("custom_id") == custom_id]
        if len(menus) != 1:
            raise FakeDiscordError(f"{len(menus)} select menus match {custom_id!r}")
        menu = menus[0]
        if menu.get("disabled"):
            raise FakeDiscordError(f"select {menu['custom_id']!r} is disabled")
        if not menu.get("min_values", 1) <= len(values) <= menu.get("max_values", 1):
            raise FakeDiscordError(f"{len(values)} values for select {menu['custom_id']!r}")
        data: dict[str, Any] = {"custom_id": menu["custom_id"], "component_type": menu["type"]}
        if menu["type"] == 3:
            allowed = {o["value"] for o in menu.get("options", [])}
            if not set(values) <= allowed:
                raise FakeDiscordError(f"{values!r} not among the options {sorted(allowed)!r}")
            data["values"] = list(values)
        else:
            resolved = _Resolved()
            data["values"] = [resolved.add(v) for v in values]
            data["resolved"] = resolved.payload
        return await self._interact(3, data, by, message.channel, message=message)

    async def submit_modal(
        self,
        custom_id: str,
        values: dict[str, str],
        *,
        by: Member,
        channel: Channel | None = None,
        message: Message | None = None,
    ) -> InteractionHandle:
        """Submit a modal: `values` maps each text input's custom_id to the typed text."""
        rows = [
            {"type": 1, "components": [{"type": 4, "custom_id": key, "value": value}]}
            for key, value in values.items()
        ]
        data = {"custom_id": custom_id, "components": rows}
        return await self._interact(5, data, by, channel or (message and message.channel), message)

    async def react(self, message: Message, emoji: str, *, by: Member | User) -> None:
        """Add a reaction as `by` (MESSAGE_REACTION_ADD); returns once the bot has parsed it.
        As on Discord: Read Message History, Add Reactions to be the first with an emoji, not
        in an archived thread."""
        channel = message.channel
        perms = self._user_permissions(by, channel)
        if perms is not None:
            existing = message.reaction(emoji)
            needed = VIEW_CHANNEL | READ_MESSAGE_HISTORY
            if not (existing and existing.count):
                needed |= ADD_REACTIONS
            if perms & needed != needed:
                raise FakeDiscordError(f"{by.name} may not react in #{channel.name}")
        if channel.archived:
            raise FakeDiscordError(f"#{channel.name} is archived: no reactions there")
        await self._as_event(self.add_reaction(message, emoji, _user(by)))

    async def unreact(self, message: Message, emoji: str, *, by: Member | User) -> None:
        await self._as_event(self.remove_reaction(message, emoji, _user(by)))

    async def say(
        self, content: str, *, by: Member | User, channel: Channel | None = None
    ) -> Message:
        """A user posts a plain message (MESSAGE_CREATE); returns once the bot has parsed it.
        As on Discord: only where they may send; in a thread, a locked one takes Manage
        Threads, and an archived one is unarchived by the message (THREAD_UPDATE)."""
        where = channel or self.channel
        if where.deleted:
            raise FakeDiscordError(f"#{where.name} was deleted")
        perms = self._user_permissions(by, where)
        if perms is not None:
            send = SEND_MESSAGES_IN_THREADS if where.is_thread else SEND_MESSAGES
            if perms & (VIEW_CHANNEL | send) != VIEW_CHANNEL | send:
                raise FakeDiscordError(f"{by.name} may not post in #{where.name}")
            if where.locked and not perms & MANAGE_THREADS:
                raise FakeDiscordError(f"#{where.name} is locked")
        message = self.create_message(where, _user(by), {"content": content}, [])

        async def post() -> None:
            if where.is_thread:
                await self.set_thread_state(where, archived=False)
                where.last_activity = self.now()
            await self.dispatch_message("MESSAGE_CREATE", message)

        await self._as_event(post())
        return message

    def _user_permissions(self, who: Member | User, channel: Channel) -> int | None:
        """`who`'s permissions in a guild channel (None: a DM, or not a member there)."""
        guild = channel.guild
        member = guild.members.get(who.id) if guild is not None else None
        return None if guild is None or member is None else guild.permissions_in(member, channel)

    async def _as_event(self, dispatching: Any) -> None:
        before = {session.shard_id: session.seq for session in self.sessions.values()}
        await dispatching
        for session in list(self.sessions.values()):
            moved = session.seq > before.get(session.shard_id, 0)
            if moved and self._bot_of(session.shard_id) is not None:
                await self._until_processed(session.seq, session)

    async def _interact(
        self,
        kind: int,
        data: dict[str, Any],
        by: Member,
        channel: Channel | None,
        message: Message | None = None,
    ) -> InteractionHandle:
        if kind in (3, 5):  # the view on the message must be registered before it is used
            await self.wait_bot_idle()
        channel = channel or by.guild.text_channels[0]
        guild = channel.guild
        if guild is None or guild.members.get(by.id) is not by:
            raise FakeDiscordError(f"{by.name} is not a member of the channel's guild")
        if channel.deleted:
            raise FakeDiscordError(f"#{channel.name} was deleted")
        perms = guild.permissions_in(by, channel)
        if not perms & VIEW_CHANNEL:
            raise FakeDiscordError(f"{by.name} can't see #{channel.name}")
        if kind in (2, 4):
            if not perms & USE_APPLICATION_COMMANDS:
                raise FakeDiscordError(f"{by.name} can't use commands in #{channel.name}")
            if channel.archived:  # Discord: no application commands in an archived thread
                raise FakeDiscordError(f"#{channel.name} is archived: no commands there")
        state = InteractionState(
            id=snowflake(),
            token="aW50ZXJhY3Rpb246" + str(snowflake()),
            type=kind,
            user=by,
            channel=channel,
            data=data,
            message=message,
        )
        self.remember_interaction(state)
        bot_member = guild.members[self.bot_user.id]
        payload: dict[str, Any] = {
            "id": str(state.id),
            "application_id": str(self.application_id),
            "type": kind,
            "token": state.token,
            "version": 1,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
            "channel_id": str(channel.id),
            "channel": {**channel.payload(), "permissions": str(perms)},
            "member": by.payload(permissions=perms),
            "data": data,
            "locale": by.user.locale,
            "guild_locale": guild.preferred_locale,
            "app_permissions": str(guild.permissions_in(bot_member, channel)),
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
        }
        if message is not None:
            payload["message"] = self._payload(message)
        state.sent_at = time.perf_counter()  # latency is measured from here, as on Discord
        state.created_at = self.now()  # the 3 s and 15 min deadlines count from here
        if await self.dispatch("INTERACTION_CREATE", payload) is None:
            raise FakeDiscordError("the bot has no gateway session")
        return InteractionHandle(self, state)

    def _command_data(
        self,
        command: str,
        options: dict[str, Any],
        by: Member,
        *,
        focused: str | None,
        within_limits: bool = True,
    ) -> dict[str, Any]:
        root, *path = command.split()
        schema = next((c for c in self._commands_for(by.guild) if c["name"] == root), None)
        if schema is None:
            raise FakeDiscordError(f"/{root} is not synced for {by.guild.name}")
        data: dict[str, Any] = {"id": schema["id"], "name": root, "type": 1}
        if "guild_id" in schema:
            data["guild_id"] = schema["guild_id"]
        level_schema: list[dict[str, Any]] = schema.get("options") or []
        level_data: list[dict[str, Any]] = []
        data["options"] = level_data
        for name in path:
            sub = next((o for o in level_schema if o["name"] == name and o["type"] in (1, 2)), None)
            if sub is None:
                raise FakeDiscordError(f"/{command}: no subcommand {name!r}")
            nested: list[dict[str, Any]] = []
            level_data.append({"name": name, "type": sub["type"], "options": nested})
            level_schema, level_data = sub.get("options") or [], nested
        if any(o["type"] in (1, 2) for o in level_schema):
            raise FakeDiscordError(f"/{command} needs a subcommand")
        resolved = _Resolved()
        for name, value in options.items():
            spec = next((o for o in level_schema if o["name"] == name), None)
            if spec is None:
                raise FakeDiscordError(f"/{command} has no option {name!r}")
            entry: dict[str, Any] = {"name": name, "type": spec["type"]}
            if name == focused:
                if not spec.get("autocomplete"):
                    raise FakeDiscordError(f"/{command} {name}: no autocomplete")
                entry["value"], entry["focused"] = str(value), True
            else:
                entry["value"] = resolved.option_value(spec, value, command, within_limits)
            level_data.append(entry)
        if focused is None:
            missing = [
                o["name"] for o in level_schema if o.get("required") and o["name"] not in options
            ]
            if missing:
                raise FakeDiscordError(f"/{command}: missing required options {missing}")
        elif focused not in options:
            raise FakeDiscordError(f"the focused option {focused!r} needs a value in options")
        if resolved.payload:
            data["resolved"] = resolved.payload
        return data


def _user(who: Member | User) -> User:
    return who.user if isinstance(who, Member) else who


class _Resolved:
    """Builds an interaction's `resolved` block for user/channel/role values."""

    def __init__(self) -> None:
        self.payload: dict[str, dict[str, Any]] = {}

    def add(self, value: Any) -> str:
        if isinstance(value, Member):
            self.payload.setdefault("users", {})[str(value.id)] = value.user.payload()
            member = value.payload(with_user=False, permissions=value.permissions)
            self.payload.setdefault("members", {})[str(value.id)] = member
        elif isinstance(value, User):
            self.payload.setdefault("users", {})[str(value.id)] = value.payload()
        elif isinstance(value, Channel):
            channel = {**value.payload(), "permissions": str(MANAGE_GUILD)}
            self.payload.setdefault("channels", {})[str(value.id)] = channel
        elif isinstance(value, Role):
            self.payload.setdefault("roles", {})[str(value.id)] = value.payload()
        else:
            raise FakeDiscordError(f"can't resolve {value!r}")
        return str(value.id)

    def option_value(
        self, spec: dict[str, Any], value: Any, command: str, within_limits: bool = True
    ) -> Any:
        kind = spec["type"]
        where = f"/{command} {spec['name']}"
        if kind in (6, 7, 8, 9):  # user, channel, role, mentionable
            return self.add(value)
        expected = {3: str, 4: int, 5: bool, 10: (int, float)}.get(kind)
        if expected is None:
            raise FakeDiscordError(f"{where}: option type {kind} not supported by the fake")
        if not isinstance(value, expected) or (kind == 4 and isinstance(value, bool)):
            raise FakeDiscordError(f"{where}: {value!r} is not a {expected}")
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise FakeDiscordError(f"{where}: {value!r} is not one of the choices")
        if within_limits and kind == 3 and len(value) > MAX_STRING_OPTION:
            raise FakeDiscordError(f"{where}: {len(value)} characters, Discord sends at most 6000")
        if within_limits and kind == 4 and not -MAX_INTEGER_OPTION <= value <= MAX_INTEGER_OPTION:
            raise FakeDiscordError(f"{where}: {value!r} is beyond Discord's integers (2**53 - 1)")
        limits = (("min_value", "max_value"), ("min_length", "max_length"))
        for low, high in limits if within_limits else ():
            measure = len(value) if low == "min_length" and isinstance(value, str) else value
            if low in spec and measure < spec[low]:
                raise FakeDiscordError(f"{where}: {value!r} below {low} {spec[low]}")
            if high in spec and measure > spec[high]:
                raise FakeDiscordError(f"{where}: {value!r} above {high} {spec[high]}")
        return value


def fake_discord_fixture(
    bot_factory_for: Callable[[FakeDiscord, Path], BotFactory],
    *,
    name: str = "fake",
    **fake_options: Any,
) -> Any:
    """A pytest fixture named `name` yielding a running FakeDiscord.

    `bot_factory_for(fake, tmp_path)` returns the `bot_factory(**client_options)` to run; it gets
    the fake first so it can use `fake.guild.id` (e.g. as the dev guild) and a fresh tmp_path.
    """

    @pytest_asyncio.fixture(name=name)
    async def fixture(tmp_path: Path) -> AsyncIterator[FakeDiscord]:
        fake = FakeDiscord(**fake_options)
        async with fake.run(bot_factory_for(fake, tmp_path)):
            yield fake

    return fixture


def _shard_ids(bot: discord.Client) -> list[int]:
    """The shards a bot runs: an AutoShardedClient's ``shard_ids`` (all of its count when
    None), else its one ``shard_id`` (0 when unsharded)."""
    if isinstance(bot, discord.AutoShardedClient):
        if bot.shard_ids is not None:
            return list(bot.shard_ids)
        return list(range(bot.shard_count or 1))
    return [bot.shard_id or 0]


def _shard_ws(bot: discord.Client, shard_id: int) -> DiscordWebSocket | None:
    """The websocket a bot runs ``shard_id`` on, or None while it has none."""
    if isinstance(bot, discord.AutoShardedClient):
        shard = bot.get_shard(shard_id)
        return shard._parent.ws if shard is not None else None
    return bot.ws
