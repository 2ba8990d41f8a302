"""The discord.py application: :func:`create_bot`, the one way to build a ready-to-start bot
(the CLI, the benchmarks and the tests use it), and :func:`run` (the CLI).

Dependencies are passed in, not built inside (discord.py's ``examples/advanced_startup.py``):
``create_bot`` builds the store (unopened) and the match service and hands the service to
:class:`TableBot`. Nothing opens before the bot starts: the store connects, the cogs load, the
matches resume and the dev-guild commands sync in ``setup_hook``, so a test can build a bot, run
it against the fake Discord, close it and build another on the same database. A test that needs
scripted dice or a clock builds ``TableBot(settings, service=MatchService(store, ...))`` itself
(tests/support/discord_driver.py).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.config import Settings
from bot.discord.catalogue import text
from bot.discord.ratelimit import CommandRateLimit, allow_interaction, guild_limits
from bot.discord.replies import NO_MENTIONS, admit, refuse_closing, report_error
from bot.robot import worker as robot_worker
from bot.robot.analyser import worker_analyser
from bot.service import MatchService, MatchView
from bot.storage import GuildShards, StoreError, is_postgres_url, open_store, redact

log = logging.getLogger(__name__)

# Loaded in order by setup_hook; a missing one stops the start-up.
EXTENSIONS = (
    "bot.discord.cogs.play",
    "bot.discord.cogs.info",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.reminders",
    "bot.discord.cogs.robot",
    "bot.discord.cogs.analysis",
)

Item = TypeVar("Item", bound=discord.ui.DynamicItem[Any])
ClickHandler = Callable[[Item, discord.Interaction["TableBot"]], Awaitable[None]]

# Commands are declared for server installs and server channels only.
GUILD_INSTALL = app_commands.AppInstallationType(guild=True, user=False)
GUILD_CONTEXT = app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)

# Discord forgets an interaction whose first answer is later than 3 s: a click whose action
# is still running after this many seconds is deferred, and its answer edited in through the
# webhook after (bot.discord.delivery.in_time).
RESPONSE_BUDGET = 2.0

# How long close() waits for the interactions already being handled before it cancels them.
CLOSE_GRACE_SECONDS = 15.0


class TableTree(app_commands.CommandTree["TableBot"]):
    async def interaction_check(self, interaction: discord.Interaction[TableBot], /) -> bool:
        """Every command counts against the member's rate limit (over it: an ephemeral "slow
        down", and nothing runs; autocomplete is not counted). Then every command and
        autocomplete runs as tracked work; none starts once closing."""
        if not await allow_interaction(self.client.rate_limit, interaction):
            return False
        if admit(interaction):
            return True
        await refuse_closing(interaction)
        return False

    async def on_error(
        self, interaction: discord.Interaction[TableBot], error: app_commands.AppCommandError
    ) -> None:
        """The one error path of every command (and, through :func:`report_error`, of every
        click): service refusals become polite ephemeral replies; the rest is logged, with an
        apology to the user."""
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        elif isinstance(error, app_commands.NoPrivateMessage):
            original = _Refusal(text("refusal.server_only"))
        elif isinstance(error, app_commands.CheckFailure):
            original = _Refusal(str(error) or text("refusal.not_here"))
        await report_error(interaction, original)


class _Refusal(Exception):
    pass


def freeze_startup_objects() -> None:
    """Move everything alive after start-up (modules, discord.py state, resumed matches) out
    of the collector's reach: it never dies, and scanning it made each full collection pause
    the event loop for 50-130 ms under load (benchmarks/load.py)."""
    gc.collect()
    gc.freeze()
    log.debug("froze %d start-up objects", gc.get_freeze_count())


class TableBot(commands.AutoShardedBot):
    """The bot, on the match ``service`` it is given (cogs reach it as ``bot.service``): it
    connects the service's store in ``setup_hook`` and closes the service in :meth:`close`.
    ``sync_only`` loads the commands and nothing else (``tablebot sync``); ``clock`` times the
    rate limit (monotonic seconds); ``client_options`` go to discord.py.

    Sharded: it runs the shards ``settings.shard_ids`` of ``settings.shard_count`` (None:
    every shard, as many as Discord advises), so several processes, each with its own range,
    can share one PostgreSQL database. Each handles its own guilds (:attr:`guild_shards`):
    their reminders, claims and expired challenges, and the matches it resumes.

    Shutdown: every interaction handler (command, autocomplete, button, menu) and event
    listener that touches the service registers its task with :meth:`begin_work` before its
    first service call (:func:`bot.discord.replies.admit` does it for interactions). ``close()``
    stops admitting new work (users are told to try again), waits up to ``close_grace`` seconds
    for the work in flight to finish, cancels what is left, and only then closes the gateway,
    the HTTP session and the service: an action that was applied is also shown.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        service: MatchService,
        sync_only: bool = False,
        clock: Callable[[], float] = time.monotonic,
        **client_options: Any,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.guild_reactions = True
        client_options.setdefault("allowed_mentions", NO_MENTIONS)
        client_options.update(shard_options(settings, client_options))
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=TableTree,
            help_command=None,
            # Every command works in servers only, and only where the bot is installed in the
            # server: Discord would otherwise offer them to user installs (integration_types
            # unset means "the app's default", which may include user installs).
            allowed_installs=GUILD_INSTALL,
            allowed_contexts=GUILD_CONTEXT,
            # No message cache: every handler works from interactions and raw reaction
            # events, and 1,000 cached messages only lengthen garbage collections.
            **{"max_messages": None, **client_options},
        )
        self.settings = settings
        self.sync_only = sync_only
        self.service = service
        # One budget per member for commands and clicks (bot.discord.ratelimit), timed by
        # ``clock`` (seconds); /config invalidates a server's cached limit when it changes.
        self.rate_limit = CommandRateLimit(guild_limits(service), clock=clock)
        # NANNON announcements posted by this process: message id -> (match id, game number).
        # After a restart the handler reads the same from the message's embed footer.
        self.shout_messages: dict[int, tuple[int, int]] = {}
        # The board a follow-up posted, per match: (its webhook, its message id, until when
        # (monotonic) the webhook may edit it), so an edit of it spares the bot token
        # (bot.discord.delivery). In memory only: after a restart the bot token edits it.
        self.board_hooks: dict[int, tuple[discord.Webhook, int, float]] = {}
        # Seconds a click's action may take before its answer is deferred (Discord forgets an
        # interaction not answered within 3 s).
        self.response_budget = RESPONSE_BUDGET
        self.close_grace = CLOSE_GRACE_SECONDS
        self._closing = False
        # Set when close() begins (before it waits for the work in flight).
        self.closing_started = asyncio.Event()
        self._in_flight: set[asyncio.Task[Any]] = set()
        # Persistent component class -> the handler its cog answers its clicks with.
        self._click_handlers: dict[type[Any], ClickHandler[Any]] = {}
        # Told of every board shown (and every match resumed at start-up): the robot cog
        # plays its turns from here. A listener must not block: it starts work, if any.
        self.turn_listeners: list[Callable[[MatchView], None]] = []

    async def setup_hook(self) -> None:
        await self.service.store.connect()
        for name in EXTENSIONS:
            await self.load_extension(name)
        if self.sync_only:
            return
        resumed = await self.service.resume_active(guilds=self.guild_shards)
        log.info("resumed %d active matches", len(resumed))
        await rendering.warm_up()  # the render worker's start-up, not the first board's
        if any(view.robot_seat is not None for view in resumed):
            # Robot matches go on: start the robot's worker (gnubg, the Nannon solver) now,
            # in the background. Otherwise it starts with the first robot match.
            self.spawn_work(robot_worker.warm_up(), name="tablebot-robot-warm-up")
        for view in resumed:
            self.turn_shown(view)
        # Analyses left queued or running by the last run go on (in this process's guilds).
        requeued = await self.service.analyses.start(self.guild_shards)
        if requeued:
            log.info("queued %d analyses again", requeued)
        if self.settings.dev_guild_id is not None and self.owns_shard_zero:
            await self.sync_dev_guild()
        freeze_startup_objects()

    async def sync_dev_guild(self) -> None:
        """DEV_GUILD_ID's commands, synced at start-up. A server sees its own commands and the
        global ones side by side, so once the commands are synced globally (``tablebot sync``,
        /sync) the dev server's own copies are removed, or every command would show twice
        there; before that, it gets a copy of every command, which shows at once."""
        guild_id = self.settings.dev_guild_id
        if guild_id is None:
            return
        guild = discord.Object(id=guild_id)
        try:
            global_commands = await self.tree.fetch_commands()
            self.tree.clear_commands(guild=guild)
            if not global_commands:
                self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        except discord.HTTPException as exc:
            log.error(
                "could not sync commands to DEV_GUILD_ID %s (is the bot in that server, "
                "invited with the applications.commands scope?): %s",
                guild_id,
                exc,
            )
            return
        if global_commands:
            log.info(
                "%d global commands exist: guild %s uses them (its own copies removed); run "
                "`tablebot sync` after changing a command",
                len(global_commands),
                guild_id,
            )
        else:
            log.info("synced %d commands to guild %s", len(synced), guild_id)

    async def sync_global(self) -> list[app_commands.AppCommand]:
        """Sync the commands globally (``tablebot sync``, /sync), then drop DEV_GUILD_ID's own
        copies, which would show beside the global ones."""
        synced = await self.tree.sync()
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.clear_commands(guild=guild)
            try:
                await self.tree.sync(guild=guild)
            except discord.HTTPException as exc:
                log.warning("could not clear guild %s's own commands: %s", guild.id, exc)
        return synced

    @property
    def guild_shards(self) -> GuildShards | None:
        """The guilds this process handles (its shards'), or None for every guild."""
        return guild_shards_of(self.settings)

    @property
    def owns_shard_zero(self) -> bool:
        """Whether this process runs shard 0: of several processes, only that one syncs
        commands at start-up (``tablebot sync`` syncs them globally from anywhere)."""
        return self.settings.shard_ids is None or 0 in self.settings.shard_ids

    def route_clicks(self, item: type[Item], handler: ClickHandler[Item]) -> None:
        """Answer clicks on the persistent component class ``item`` with ``handler``: each cog
        routes its components as it loads, so click handlers sit with their commands. The class
        is registered with discord.py too, so a message posted before a restart still works."""
        self.add_dynamic_items(item)
        self._click_handlers[item] = handler

    def unroute_clicks(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        self.remove_dynamic_items(*items)
        for item in items:
            self._click_handlers.pop(item, None)

    async def handle_click(
        self, item: discord.ui.DynamicItem[Any], interaction: discord.Interaction[TableBot]
    ) -> None:
        """Run the handler routed for ``item``'s class (every persistent component's callback
        comes here, once its ``interaction_check`` passed). Errors end in the one error path
        the command tree's ``on_error`` uses."""
        try:
            handler = self._click_handlers.get(type(item))
            if handler is None:
                raise LookupError(f"no handler for {type(item).__name__} (is its cog loaded?)")
            await handler(item, interaction)
        except Exception as exc:
            await report_error(interaction, exc)

    async def on_ready(self) -> None:
        log.info(
            "logged in as %s (%s) in %d servers",
            self.user,
            self.user and self.user.id,
            len(self.guilds),
        )

    @property
    def closing(self) -> bool:
        """True once close() has begun: no new work is admitted."""
        return self._closing

    @property
    def work_in_flight(self) -> int:
        """How many admitted handlers are still running."""
        return sum(1 for task in self._in_flight if not task.done())

    async def wait_idle(self) -> None:
        """Until every admitted handler has finished (the set :meth:`close` drains): what a
        caller embedding the bot, or a test, waits on instead of polling."""
        current = asyncio.current_task()
        while pending := {t for t in self._in_flight if t is not current and not t.done()}:
            await asyncio.wait(pending)

    def begin_work(self) -> bool:
        """Register the running task as work close() must wait for. False when the bot is
        closing (the caller refuses politely), except for a task admitted already."""
        task = asyncio.current_task()
        if task is not None and task in self._in_flight:
            return True
        if self._closing or self.is_closed():
            return False
        if task is not None:
            self._in_flight.add(task)
            task.add_done_callback(self._in_flight.discard)
        return True

    def turn_shown(self, view: MatchView) -> None:
        """Tell the turn listeners that this state of a match is on the board (or resumed)."""
        for listener in tuple(self.turn_listeners):
            try:
                listener(view)
            except Exception:
                log.exception("a turn listener failed on match %s", view.match_id)

    def spawn_work(
        self, work: Coroutine[Any, Any, Any], *, name: str | None = None
    ) -> asyncio.Task[Any] | None:
        """Run ``work`` in a task of its own, registered as work close() waits for (as
        :meth:`begin_work` registers a handler). None, and ``work`` is not run, once closing."""
        if self._closing or self.is_closed():
            work.close()
            return None
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        return task

    async def _drain(self) -> None:
        current = asyncio.current_task()
        pending = {t for t in self._in_flight if t is not current and not t.done()}
        if not pending:
            return
        log.info("closing: waiting for %d handler(s) in flight", len(pending))
        _done, late = await asyncio.wait(pending, timeout=self.close_grace)
        if late:
            log.warning(
                "closing: %d handler(s) still running after %.0f s; cancelling them",
                len(late),
                self.close_grace,
            )
            for task in late:
                task.cancel()
            await asyncio.wait(late, timeout=1.0)

    async def close(self) -> None:
        self._closing = True
        self.closing_started.set()
        await self._drain()
        try:
            await super().close()
        except AttributeError:
            # discord.py 2.7: an AutoShardedBot closed before it ever logged in has no event
            # queue yet, and its close() fails there, having nothing else to close.
            if self.user is not None:
                raise
        # An analysis cut short here stays "running" in the database: the next start runs it.
        await self.service.analyses.stop()
        # The robot's worker stops with the bot (no robot turn is in flight any more).
        await asyncio.to_thread(robot_worker.shutdown)
        await self.service.close()


def shard_options(settings: Settings, client_options: dict[str, Any]) -> dict[str, Any]:
    """discord.py's ``shard_count`` and ``shard_ids`` from the settings, unless the caller
    passed its own."""
    options: dict[str, Any] = {}
    if "shard_count" not in client_options:
        options["shard_count"] = settings.shard_count
    if "shard_ids" not in client_options and settings.shard_ids is not None:
        options["shard_ids"] = list(settings.shard_ids)
    return options


def guild_shards_of(settings: Settings) -> GuildShards | None:
    """The guilds a process with these settings handles: its shards' (None: all of them)."""
    if settings.shard_ids is None or settings.shard_count is None:
        return None
    return GuildShards.of(settings.shard_count, settings.shard_ids)


def create_bot(settings: Settings, *, sync_only: bool = False, **client_options: Any) -> TableBot:
    """A new bot on the database ``settings.db_path`` (a SQLite file or a PostgreSQL URL),
    opened when the bot starts.
    ``client_options`` go to the discord.py constructor (``guild_ready_timeout``,
    ``http_trace`` ...); ``sync_only`` loads the commands and nothing else (``tablebot sync``)."""
    service = MatchService(open_store(settings.db_path), analyser=worker_analyser())
    return TableBot(settings, service=service, sync_only=sync_only, **client_options)


async def _check_database(target: str | Path) -> str | None:
    """Open (and migrate) the database once before connecting to Discord, so a wrong
    TABLEBOT_DB is reported plainly at start-up: what is wrong (one line, a URL without its
    password), or None when it is usable."""
    errors: tuple[type[BaseException], ...] = (StoreError, sqlite3.Error, OSError, TimeoutError)
    if is_postgres_url(target):
        import asyncpg  # loaded only for a PostgreSQL database

        errors += (asyncpg.PostgresError, asyncpg.InterfaceError)
    store = open_store(target)
    try:
        await store.connect()
    except errors as exc:
        shown = redact(str(target))
        reason = " ".join(str(exc).replace(str(target), shown).split()) or type(exc).__name__
        return f"Can't use the database at {shown!r} (TABLEBOT_DB): {reason}"  # not for members
    await store.close()
    return None


async def _main(settings: Settings, sync_only: bool) -> int:
    problem = await _check_database(settings.db_path)
    if problem is not None:
        log.error("%s", problem)
        return 1
    bot = create_bot(settings, sync_only=sync_only)
    async with bot:
        try:
            if sync_only:
                await bot.login(settings.token)
                synced = await bot.sync_global()
                log.info(
                    "synced %d global commands; they can take up to an hour to show", len(synced)
                )
                return 0
            await bot.start(settings.token)
        except discord.LoginFailure:
            # discord.py's message never contains the token; ours does not either.
            log.error(
                "Discord refused the bot token (login failed). Put the current token from the "
                "Developer Portal (Bot -> Reset Token) in .env as DISCORD_TOKEN=..."
            )
            return 1
        except discord.PrivilegedIntentsRequired:
            log.error(
                "Discord asked for privileged intents; tablebot needs none. Is this the "
                "right application?"
            )
            return 1
    return 0


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (a dependency on Linux and macOS), else None
    for asyncio's own. Under load (benchmarks/load.py) it halved the median action time and
    the event loop's worst lag on the 2-core machine."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(settings: Settings, *, sync_only: bool = False) -> int:
    """Run the bot until it is stopped (or sync the commands globally); the exit code."""
    factory = loop_factory()
    log.debug("event loop: %s", "uvloop" if factory is not None else "asyncio")
    try:
        with asyncio.Runner(loop_factory=factory) as runner:
            return runner.run(_main(settings, sync_only))
    except KeyboardInterrupt:
        log.info("stopped")
        return 0
