"""Fixtures for end-to-end tests: the real bot logged into the fake Discord, on a fresh temporary
database, with dice the test may steer.

    async def test_x(tablebot: FakeDiscord, dice: DiceScript) -> None:
        alice = await tablebot.add_member("alice")
        ...

``tablebot.bot`` is the running :class:`bot.discord.app.TableBot` (``.service`` is its
MatchService); ``await tablebot.restart_bot()`` builds a new bot on the same database. Other bot
tests reuse ``tablebot_factory`` with their own options.

A bot with scripted dice (or a chosen clock) is built as ``create_bot`` builds one, with the
service made here: ``TableBot(settings, service=MatchService(store, dice_factory=...))``
(:func:`build_bot`).

Each bot gets worker pools of its own (:func:`bot_pools`), as ``run`` hands ``create_bot``
its pools, except the render worker: the session's bots share one (:data:`SESSION_RENDER`), as
tests start hundreds of bots and a render worker takes 0.3 to 0.5 s to start.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakediscord import TOKEN, Channel, FakeDiscord, InteractionHandle, Member, Message

from bot.config import Settings
from bot.discord.app import TableBot, create_bot
from bot.discord.catalogue import text
from bot.robot.analysis_runner import WorkerAnalysisRunner
from bot.robot.worker import RobotWorker
from bot.service import DiceFactory, MatchInThread, MatchService, UpdateSettings
from bot.service.events import ChallengeExpired, DailyPuzzleDue, IdleReminder, WinClaimable
from bot.storage import open_store
from bot.workers import ANALYSIS_NICENESS, WorkerPool, WorkerPools
from engines.base import GameMatch
from engines.dice import SEED_BYTES, FairDice

log = logging.getLogger(__name__)


class ScriptedDice(FairDice):
    """FairDice whose faces come from the test's script; without one, the real HMAC dice.

    The service shows these dice the match each die is rolled for
    (:class:`bot.service.MatchAwareDice`), which a steering script reads. The seed is still
    stored, so after a restart the match goes on with real dice (the service rebuilds FairDice
    from the database), which a test must allow for."""

    def __init__(self, script: DiceScript) -> None:
        super().__init__(bytes(SEED_BYTES))
        self.script = script

    def roll_die(self) -> int:
        face = self.script.face
        if face is None:
            return super().roll_die()
        self.counter += 1
        return face()

    def roll_die_for(self, match: GameMatch) -> int:
        steer = self.script.steer
        if steer is None:
            return self.roll_die()
        self.counter += 1
        return steer(match)


class DiceScript:
    """What the next die shows. ``face`` is a callable the test sets (None: real dice);
    ``steer``, when set, wins: it is given the match (the engine object, read only) each die is
    rolled for, and picks the face from its phase, turn and position."""

    def __init__(self) -> None:
        self.face: Callable[[], int] | None = None
        self.steer: Callable[[GameMatch], int] | None = None

    def new(self) -> FairDice:
        return ScriptedDice(self)


class Clock:
    """The clock of a bot under test: the real time plus ``offset`` seconds, which the test
    moves on (past a claim time, past a rate limit's window) instead of waiting. The service
    times matches by it, the bot its rate limit."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class SessionRenderPool(WorkerPool):
    """The render pool the session's bots share: a bot's close leaves it running (its
    :meth:`shutdown` does nothing); :meth:`stop` ends it at the session's end."""

    def shutdown(self, *, kill: bool = False) -> None:
        pass

    def stop(self) -> None:
        super().shutdown()


SESSION_RENDER = SessionRenderPool("render")


def bot_pools() -> WorkerPools:
    """A bot's worker pools: a robot and an analysis worker of its own, the session's render
    worker."""
    return WorkerPools(
        render=SESSION_RENDER,
        robot=WorkerPool("robot"),
        analysis=WorkerPool("analysis", niceness=ANALYSIS_NICENESS),
    )


def build_bot(
    settings: Settings,
    *,
    dice_factory: DiceFactory = FairDice.new,
    clock: Clock | None = None,
    **client_options: Any,
) -> TableBot:
    """The bot ``create_bot(settings, pools=bot_pools(), **client_options)`` builds (the same
    workers, the same analysis runner), with the service's dice and the clock of both the
    service and the bot chosen by the test."""
    store = open_store(settings.db_path)
    pools = bot_pools()
    robot = RobotWorker(pools.robot)
    runner = WorkerAnalysisRunner(pools.analysis, robot)
    workers: dict[str, Any] = {"pools": pools, "robot_worker": robot}
    if clock is None:
        service = MatchService(store, dice_factory=dice_factory, analysis_runner=runner)
        return TableBot(settings, service=service, **workers, **client_options)
    service = MatchService(store, dice_factory=dice_factory, clock=clock, analysis_runner=runner)
    # On the test's clock, the test fires the deadlines due (service.timers.run_due).
    client_options.setdefault("run_timers", False)
    return TableBot(settings, service=service, clock=clock, **workers, **client_options)


def tablebot_factory(
    fake: FakeDiscord, tmp_path: Path, *, db: str | Path | None = None, **bot_options: Any
) -> Callable[..., TableBot]:
    """The bot factory the fake calls (again on each restart): same settings, same database
    (``db``: a file or a PostgreSQL URL; default a SQLite file in ``tmp_path``), a new service.
    With ``bot_options`` (``dice_factory``, ``clock``: :func:`build_bot`), else the bot
    ``create_bot`` builds."""
    settings = Settings(
        token=TOKEN,
        db_path=tmp_path / "tablebot.db" if db is None else db,
        dev_guild_id=fake.guild.id,
        log_level="INFO",
    )

    def factory(**client_options: Any) -> TableBot:
        if not bot_options:
            return create_bot(settings, pools=bot_pools(), **client_options)
        return build_bot(settings, **bot_options, **client_options)

    return factory


@pytest.fixture
def dice() -> DiceScript:
    return DiceScript()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def tablebot(
    start_fake_discord: Callable[..., Any], dice: DiceScript, clock: Clock
) -> FakeDiscord:
    """The fake Discord running the real bot, commands synced to its guild, with the test's
    ``dice`` and ``clock``."""
    fake: FakeDiscord = await start_fake_discord(
        lambda fake, tmp_path: tablebot_factory(fake, tmp_path, dice_factory=dice.new, clock=clock)
    )
    await fake.wait_for_commands()
    return fake


async def lift_rate_limit(fake: FakeDiscord) -> None:
    """Scripted players act far faster than people: a long scripted match would run into the
    default per-member limit (20 commands or clicks per 10 s), which
    tests/discord/test_rate_limit.py covers. Stored in the guild's settings, so it holds across
    restarts."""
    await service_of(fake).handle(UpdateSettings(fake.guild.id, {"rate_limit_actions": 1000}))
    bot = fake.bot
    assert isinstance(bot, TableBot)
    bot.rate_limit.invalidate(fake.guild.id)


def service_of(fake: FakeDiscord) -> MatchService:
    bot = fake.bot
    assert isinstance(bot, TableBot)
    return bot.service


# --- reading boards ------------------------------------------------------------------------


def footer(message: Message) -> str:
    if not message.embeds:
        return ""
    return str(message.embeds[0].get("footer", {}).get("text", ""))


def boards(fake: FakeDiscord, channel: Channel, match_id: int, locale: str = "en") -> list[Message]:
    """The turn messages of a match in a channel, oldest first (written in ``locale``)."""
    prefix = text("turn.footer", locale, match_id=match_id, version="")
    return [m for m in fake.messages(channel) if footer(m).startswith(prefix)]


def shown_version(message: Message) -> int:
    """The match version a board shows now (its footer ends ``· move 7``)."""
    return int(footer(message).rsplit(" ", 1)[1])


# The version each board showed when a helper handed it out: a board is edited in place while
# the same player goes on, so "the next board" may be the same message showing a later move.
_handed_out: dict[int, int] = {}


def handed_out(board: Message) -> Message:
    """Remember the version ``board`` shows now, for :func:`next_board`."""
    _handed_out[board.id] = shown_version(board)
    return board


async def next_board(
    fake: FakeDiscord,
    channel: Channel,
    match_id: int,
    previous: Message | None,
    locale: str = "en",
) -> Message:
    """Wait for the board after ``previous``: a newer board message, or ``previous`` itself
    edited in place to a later move, once every earlier board lost its buttons (boards and
    results written in ``locale``)."""
    board = await next_board_or_end(fake, channel, match_id, previous, locale)
    assert board is not None, f"match #{match_id} ended"
    return board


async def next_board_or_end(
    fake: FakeDiscord,
    channel: Channel,
    match_id: int,
    previous: Message | None,
    locale: str = "en",
) -> Message | None:
    """The next board, or None once the match-over message is there (and boards are bare)."""
    seen = None
    if previous is not None:
        seen = _handed_out.get(previous.id, shown_version(previous))

    def ready() -> Message | bool | None:
        found = boards(fake, channel, match_id, locale)
        match_over = text("result.match_over", locale, title="")
        over = any(
            str(m.embeds[0].get("title", "")).startswith(match_over)
            for m in results(fake, channel, locale)
        )
        if over and not any(b.components for b in found):
            return True
        if not found:
            return None
        same = previous is not None and found[-1].id == previous.id
        if same and (seen is None or shown_version(found[-1]) == seen):
            return None
        if any(b.components for b in found[:-1]):
            return None
        return found[-1]

    got = await fake.wait_until(ready, what=f"the next board of match #{match_id}")
    return handed_out(got) if isinstance(got, Message) else None


def results(fake: FakeDiscord, channel: Channel, locale: str = "en") -> list[Message]:
    """Game and match result messages (written in ``locale``)."""
    titles = tuple(text(f"result.{over}", locale, title="") for over in ("game_over", "match_over"))
    return [
        m
        for m in fake.messages(channel)
        if m.embeds and str(m.embeds[0].get("title", "")).startswith(titles)
    ]


async def handlers_done(fake: FakeDiscord) -> None:
    """Until the bot has no handler running (TableBot.wait_idle) and no request in flight."""
    bot = fake.bot
    assert isinstance(bot, TableBot)
    async with asyncio.timeout(5):
        await bot.wait_idle()
    await fake.wait_bot_idle()


# --- answers and permissions -----------------------------------------------------------------


async def reply_to(it: InteractionHandle) -> Message:
    """The bot's answer to an interaction: the response's message, or after a defer (a slash
    command "thinking", a click's deferred update) the first follow-up."""
    response = await it.response()
    if response.type in (5, 6):
        return await it.followup()
    assert response.message is not None, response
    return response.message


async def revoke_bot_permission(fake: FakeDiscord, permission: int) -> None:
    """Take a permission bit away from the bot in the default guild: its role loses it
    (GUILD_ROLE_UPDATE; @everyone grants nothing in the fake). The fake then answers calls that
    need it with 403 Missing Permissions, as Discord does."""
    await fake.set_bot_permissions(fake.bot_role(fake.guild).permissions & ~permission)
    await fake.wait_bot_idle()


# --- forged interactions ---------------------------------------------------------------------


async def forge_component(
    fake: FakeDiscord,
    message: Message,
    *,
    by: Member,
    label: str | None = None,
    values: list[str] | None = None,
    channel: Channel | None = None,
) -> InteractionHandle:
    """A component interaction as a modified client could forge it: ``by`` uses the button
    ``label`` (or, with ``values``, the select menu) of ``message``, sent from ``channel``
    (default: the first channel of ``by``'s own guild, which may be another guild than the
    message's). Discord only delivers clicks on messages the user sees, from where they are;
    the bot must still refuse such an interaction by its guild, never trusting the custom_id."""
    if values is None:
        button = message.component(label=label)
        assert button is not None and "custom_id" in button, (label, message.custom_ids)
        data: dict[str, Any] = {"custom_id": button["custom_id"], "component_type": 2}
    else:
        menus = [c for c in message.walk_components() if c.get("type") == 3]
        assert len(menus) == 1, message.custom_ids
        data = {"custom_id": menus[0]["custom_id"], "component_type": 3, "values": values}
    where = channel or by.guild.text_channels[0]
    return await fake._interact(3, data, by, where, message=message)


# --- shared by the command tests ---------------------------------------------------------------


def embed_text(message: Message) -> str:
    """A message's first embed as text: title, description, then "name: value" per field."""
    embed: dict[str, Any] = message.embeds[0]
    parts = [embed.get("title", ""), embed.get("description", "")]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def public(fake: FakeDiscord, channel: Channel) -> list[Message]:
    """The messages everyone in ``channel`` sees."""
    return [m for m in fake.messages(channel) if not m.ephemeral]


async def say(fake: FakeDiscord, command: str, by: Member, where: Channel, **options: Any) -> str:
    """Type a command in ``where``; the bot's ephemeral answer, once the bot is done with it
    (a turn command answers first, then shows the action on the board)."""
    message = await reply_to(await fake.slash(command, options, by=by, channel=where))
    assert message.ephemeral, message
    await handlers_done(fake)
    return message.content


async def accept_in_thread(
    fake: FakeDiscord, invitation: Message, by: Member
) -> tuple[int, Channel]:
    """``by`` accepts the invitation: the match id and the thread the match moved to (once its
    first board is there)."""
    it = await fake.click(invitation, label="Accept", by=by)
    assert (await it.response()).type == 7  # the invitation, edited in the click's answer
    # A thread started from a message has the message's id.
    thread = await fake.wait_until(lambda: fake.channels.get(invitation.id), what="the thread")
    first = await fake.wait_until(
        lambda: next((m for m in fake.messages(thread) if footer(m).startswith("Match #")), None),
        what="the first board",
    )
    match_id = int(footer(first).split("#")[1].split(" ")[0])
    view = await service_of(fake).handle(MatchInThread(thread.id))
    assert view is not None and view.match_id == match_id
    return match_id, thread


async def start(
    fake: FakeDiscord, a: Member, b: Member, **options: Any
) -> tuple[int, Channel, Message]:
    """``a`` challenges ``b`` (``options`` of /challenge), who accepts: the match id, its thread
    and its first board."""
    it = await fake.slash("challenge", {"opponent": b, **options}, by=a)
    invitation = (await it.response()).message
    assert invitation is not None
    match_id, thread = await accept_in_thread(fake, invitation, b)
    return match_id, thread, await next_board(fake, thread, match_id, None)


async def fire_due(
    fake: FakeDiscord, at: float, service: MatchService | None = None
) -> list[tuple[str, int]]:
    """The service's scheduler fires what is due at ``at`` and the bot presents it (the
    subscribers run in the firing): what was told, as ("remind" | "claim", match id),
    ("expire", challenge id) and ("puzzle", the daily puzzle's id), in order."""
    svc = service_of(fake) if service is None else service
    told: list[tuple[str, int]] = []
    stops = [
        svc.bus.subscribe(IdleReminder, lambda e: told.append(("remind", e.item.match_id))),
        svc.bus.subscribe(WinClaimable, lambda e: told.append(("claim", e.item.match_id))),
        svc.bus.subscribe(ChallengeExpired, lambda e: told.append(("expire", e.challenge.id))),
        svc.bus.subscribe(
            DailyPuzzleDue, lambda e: told.append(("puzzle", e.daily.puzzle.puzzle_id))
        ),
    ]
    try:
        await svc.timers.run_due(at)
    finally:
        for stop in stops:
            stop()
    return told
