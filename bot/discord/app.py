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
import contextlib
import enum
import gc
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Settings
from bot.discord.catalogue import text
from bot.discord.locales import read_by_client, read_by_member
from bot.discord.permissions import invite_url
from bot.discord.ratelimit import CommandRateLimit, allow_interaction, guild_limits
from bot.discord.replies import NO_MENTIONS, admit, refuse_closing, report_error
from bot.discord.translator import CatalogueTranslator
from bot.rendering import Renderer
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.driver import RobotDriver
from bot.robot.worker import RobotWorker
from bot.service import MatchService, MatchView
from bot.storage import GuildShards, StoreError, open_store, redact
from bot.workers import WorkerPools

log = logging.getLogger(__name__)

# Loaded in order by setup_hook; a missing one stops the start-up.
EXTENSIONS = (
    "bot.discord.cogs.play",
    "bot.discord.cogs.info",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.reminders",
    "bot.discord.cogs.robot",
    "bot.discord.cogs.analysis",
    "bot.discord.cogs.tournament",
    "bot.discord.cogs.puzzles",
    "bot.discord.cogs.language",
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
# Seconds the robot waits for the state it answers to be shown before it goes on regardless.
SHOW_WAIT = 10.0

# How long close() waits for the interactions already being handled before it cancels them:
# short enough that a SIGTERM (docker stop waits 10 s before its SIGKILL) ends in an exit 0.
CLOSE_GRACE_SECONDS = 6.0


class ExitCode(enum.IntEnum):
    """How `tablebot` ends: each way Discord can refuse to start has its own code."""

    STOPPED = 0  # stopped (SIGTERM, SIGINT) after finishing the work in flight; or synced
    REFUSED = 1  # Discord refused the token; or the database can't be used
    SETTINGS = 2  # a missing or malformed setting or argument (bot/__main__.py)
    INTENTS = 3  # Discord refused the gateway intents (close code 4014)
    UNREACHABLE = 4  # Discord could not be reached (network, DNS, firewall, an outage)


class TableTree(app_commands.CommandTree["TableBot"]):
    async def interaction_check(self, interaction: discord.Interaction[TableBot], /) -> bool:
        """Every command counts against the member's rate limit (over it: an ephemeral "slow
        down", and nothing runs; autocomplete is not counted). Then every command and
        autocomplete runs as tracked work; none starts once closing. What it answers is in
        the member's language (bot.discord.locales)."""
        read_by_client(interaction)
        if not await allow_interaction(self.client.rate_limit, interaction):
            return False
        if admit(interaction):
            await read_by_member(interaction)
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
    ``pools``: the worker processes it draws boards in (:attr:`renderer`) and the robot thinks
    in (:attr:`robot_worker`, the service's analysis runner's too when :func:`create_bot` built it);
    None: new ones. They are the bot's: :meth:`close` shuts them down, and no others.
    ``sync_only`` loads the commands and nothing else (``tablebot sync``); ``clock`` times the
    rate limit (monotonic seconds); ``run_timers`` starts the service's scheduler at start-up
    (tests on an injected clock fire deadlines themselves); ``client_options`` go to discord.py.

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
        pools: WorkerPools | None = None,
        robot_worker: RobotWorker | None = None,
        sync_only: bool = False,
        clock: Callable[[], float] = time.monotonic,
        run_timers: bool = True,
        **client_options: Any,
    ) -> None:
        # tablebot has no voice: discord.py's warnings that its voice libraries are missing
        # (PyNaCl, davey), printed at every start, would mean nothing.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
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
        self.run_timers = run_timers
        self.service = service
        self.pools = WorkerPools.create() if pools is None else pools
        self.renderer = Renderer(self.pools.render)
        self.robot_worker = RobotWorker(self.pools.robot) if robot_worker is None else robot_worker
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
        # Per match, the latest member's interaction and until when (``clock``) its token takes
        # follow-ups: the robot's replies and the match's analysis are shown through it.
        self.match_interactions: dict[int, tuple[discord.Interaction[Any], float]] = {}
        self.clock = clock
        # Per robot match: the lines of the robot's turn still being played (and of what led to
        # it), shown on one board when it ends (bot.discord.presenter.show_robot_step).
        self.robot_turns: dict[int, list[str]] = {}
        # Seconds a click's action may take before its answer is deferred (Discord forgets an
        # interaction not answered within 3 s).
        self.response_budget = RESPONSE_BUDGET
        self.close_grace = CLOSE_GRACE_SECONDS
        self._closing = False
        self._closed = asyncio.Event()  # set when close() has finished: a second call waits
        # Set when close() begins (before it waits for the work in flight).
        self.closing_started = asyncio.Event()
        self._in_flight: set[asyncio.Task[Any]] = set()
        # Persistent component class -> the handler its cog answers its clicks with.
        self._click_handlers: dict[type[Any], ClickHandler[Any]] = {}
        # The latest version of each match shown (a board posted or edited, or resumed), and
        # who waits for a version to be shown: the robot answers a state once it is shown.
        self._shown: dict[int, int] = {}
        self._show_waiters: dict[int, list[tuple[int, asyncio.Future[None]]]] = {}
        # The robot plays its seat from the service's events, in tasks close() waits for.
        self.robot = RobotDriver(
            service,
            self.robot_worker,
            spawn=self.spawn_work,
            shown=self.board_shown,
            closing=self.closing_started,
        )
        self.robot.start()

    async def setup_hook(self) -> None:
        await self.service.store.connect()
        await self.tree.set_translator(CatalogueTranslator())
        for name in EXTENSIONS:
            await self.load_extension(name)
        if self.sync_only:
            return
        if self.application_id is not None:
            log.info("invite tablebot to a server: %s", invite_url(self.application_id))
        resumed = await self.service.resume_active(guilds=self.guild_shards)
        log.info("resumed %d active matches", len(resumed))
        await self.renderer.warm_up()  # the render worker's start-up, not the first board's
        if any(view.robot_seat is not None for view in resumed):
            # Robot matches go on: start the robot's worker (gnubg, the Nannon solver) now,
            # in the background. Otherwise it starts with the first robot match.
            self.spawn_work(self.robot_worker.warm_up(), name="tablebot-robot-warm-up")
        for view in resumed:  # their boards are on Discord already
            self.turn_shown(view)
        # Tournaments go on: results recorded, missing matches started, rounds paired.
        await self.service.resume_tournaments(guilds=self.guild_shards)
        # Analyses left queued or running by the last run go on (in this process's guilds).
        requeued = await self.service.analyses.start(self.guild_shards)
        if requeued:
            log.info("queued %d analyses again", requeued)
        if self.run_timers:  # deadlines stored before the restart fire as soon as they are due
            self.service.start_timers()
        if self.owns_shard_zero:
            if self.settings.dev_guild_id is not None:
                registered = await self.sync_dev_guild()
            else:
                registered = await self.global_commands_exist()
            if not registered:
                log.warning(
                    "no slash commands are registered for this bot, so Discord shows none: run "
                    "`tablebot sync` once (global commands can take up to an hour to show), or "
                    "set DEV_GUILD_ID to a server's id to sync them there at every start"
                )
        freeze_startup_objects()

    async def global_commands_exist(self) -> bool:
        """Whether the application has global commands (True when Discord won't say)."""
        try:
            return bool(await self.tree.fetch_commands())
        except discord.HTTPException as exc:
            log.debug("could not list the global commands: %s", exc)
            return True

    async def sync_dev_guild(self) -> bool:
        """DEV_GUILD_ID's commands, synced at start-up. A server sees its own commands and the
        global ones side by side, so once the commands are synced globally (``tablebot sync``,
        /sync) the dev server's own copies are removed, or every command would show twice
        there; before that, it gets a copy of every command, which shows at once. Whether
        commands are registered for it now (its own or global ones)."""
        guild_id = self.settings.dev_guild_id
        if guild_id is None:
            return False
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
            return False
        if global_commands:
            log.info(
                "%d global commands exist: guild %s uses them (its own copies removed); run "
                "`tablebot sync` after changing a command",
                len(global_commands),
                guild_id,
            )
        else:
            log.info("synced %d commands to guild %s", len(synced), guild_id)
        return bool(global_commands or synced)

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
        """This state of a match is on the board (or was, before a restart)."""
        match_id = view.match_id
        if view.match_over:
            self._shown.pop(match_id, None)
        elif view.version > self._shown.get(match_id, -1):
            self._shown[match_id] = view.version
        waiting = self._show_waiters.get(match_id, [])
        for version, shown in waiting:
            if version <= view.version and not shown.done():
                shown.set_result(None)

    async def board_shown(self, match_id: int, version: int) -> None:
        """Until ``version`` of the match is shown (or :data:`SHOW_WAIT` seconds passed: a
        board Discord never got must not stop the robot)."""
        if self._shown.get(match_id, -1) >= version:
            return
        shown = asyncio.get_running_loop().create_future()
        entry = (version, shown)
        self._show_waiters.setdefault(match_id, []).append(entry)
        try:
            await asyncio.wait_for(shown, SHOW_WAIT)
        except TimeoutError:
            log.warning("match %s: version %s was not shown; the robot goes on", match_id, version)
        finally:
            waiting = self._show_waiters.get(match_id, [])
            if entry in waiting:
                waiting.remove(entry)
            if not waiting:
                self._show_waiters.pop(match_id, None)

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
        if self._closing:  # closing already (a signal, then the end of `async with`): wait
            await self._closed.wait()
            return
        self._closing = True
        self.closing_started.set()
        try:
            await self._close()
        finally:
            self._closed.set()

    async def _close(self) -> None:
        await self._drain()
        try:
            await super().close()
        except AttributeError:
            # discord.py 2.7: an AutoShardedBot closed before it ever logged in has no event
            # queue yet, and its close() fails there, having nothing else to close.
            if self.user is not None:
                raise
        await self.robot.close()  # its turns were drained above
        # An analysis cut short here stays "running" in the database: the next start runs it.
        await self.service.analyses.stop()
        # Its workers stop with the bot (no robot turn is in flight any more).
        await asyncio.to_thread(self.pools.shutdown)
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


def create_bot(
    settings: Settings,
    *,
    sync_only: bool = False,
    pools: WorkerPools | None = None,
    **client_options: Any,
) -> TableBot:
    """A new bot on the database ``settings.db_path`` (a SQLite file or a PostgreSQL URL),
    opened when the bot starts, with the worker processes ``pools`` (``run`` makes them; None:
    new ones), which the bot shuts down when it closes.
    ``client_options`` go to the discord.py constructor (``guild_ready_timeout``,
    ``http_trace`` ...); ``sync_only`` loads the commands and nothing else (``tablebot sync``)."""
    pools = WorkerPools.create() if pools is None else pools
    robot_worker = RobotWorker(pools.robot)
    runner = WorkerAnalysisRunner(pools.analysis, robot_worker)
    service = MatchService(open_store(settings.db_path), analysis_runner=runner)
    return TableBot(
        settings,
        service=service,
        pools=pools,
        robot_worker=robot_worker,
        sync_only=sync_only,
        **client_options,
    )


async def _check_database(target: str | Path) -> str | None:
    """Open (and migrate) the database once before connecting to Discord, so a wrong
    TABLEBOT_DB is reported plainly at start-up: what is wrong (one line, a URL without its
    password), or None when it is usable."""
    store = open_store(target)
    try:
        await store.connect()
    except (StoreError, OSError, TimeoutError) as exc:
        shown = redact(str(target))
        reason = " ".join(str(exc).replace(str(target), shown).split()) or type(exc).__name__
        return f"Can't use the database at {shown!r} (TABLEBOT_DB): {reason}"  # not for members
    await store.close()
    return None


async def _main(settings: Settings, sync_only: bool) -> int:
    problem = await _check_database(settings.db_path)
    if problem is not None:
        log.error("%s", problem)
        return ExitCode.REFUSED
    # The worker processes are made here and handed in; the bot shuts them down as it closes.
    bot = create_bot(settings, sync_only=sync_only, pools=WorkerPools.create())
    async with bot:
        try:
            if sync_only:
                await bot.login(settings.token)
                synced = await bot.sync_global()
                log.info(
                    "synced %d global commands; they can take up to an hour to show", len(synced)
                )
                return ExitCode.STOPPED
            return await _serve(bot, settings.token)
        except discord.LoginFailure:
            # discord.py's message never contains the token; ours does not either.
            log.error(
                "Discord refused the bot token (login failed). Put the current token from the "
                "Developer Portal (Bot -> Reset Token) in .env as DISCORD_TOKEN=..."
            )
            return ExitCode.REFUSED
        except discord.PrivilegedIntentsRequired:
            log.error(
                "Discord refused the gateway intents (close code 4014); tablebot asks for "
                "guilds and guild reactions only, none privileged. Is DISCORD_TOKEN this "
                "application's bot token, and is the application allowed to connect?"
            )
            return ExitCode.INTENTS
        except (aiohttp.ClientConnectionError, discord.GatewayNotFound) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            log.error(
                "Can't reach Discord (%s). Check the network, DNS and any firewall or proxy "
                "(tablebot needs HTTPS and websockets to discord.com), then start it again.",
                reason,
            )
            return ExitCode.UNREACHABLE


async def _serve(bot: TableBot, token: str) -> int:
    """Run the bot until Discord ends it or SIGTERM or SIGINT asks it to stop. Then it takes no
    new interactions (users are told to try again), finishes the work in flight, closes the
    gateway, the workers and the store (:meth:`TableBot.close`), and returns 0."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_signal(signum: signal.Signals) -> None:
        if not stop.is_set():
            log.info("%s: stopping once the actions in flight are done", signum.name)
        stop.set()

    signals = (signal.SIGTERM, signal.SIGINT)
    for signum in signals:
        with contextlib.suppress(NotImplementedError):  # Windows' event loops have none
            loop.add_signal_handler(signum, on_signal, signum)
    running = asyncio.create_task(bot.start(token), name="tablebot")
    stopping = asyncio.create_task(stop.wait(), name="tablebot-stop")
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            if not bot.is_ready():
                # Still starting (logging in, resuming matches, connecting): stop that; close()
                # still finishes any handler admitted meanwhile.
                running.cancel()
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        if not running.cancelled():
            running.result()  # Discord's reasons to stop (a refused token ...) are raised here
        return ExitCode.STOPPED
    finally:
        stopping.cancel()
        for signum in signals:
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(signum)


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
    except KeyboardInterrupt:  # before the bot's own handler was installed
        log.info("stopped")
        return ExitCode.STOPPED
