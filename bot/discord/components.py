"""Persistent components: :class:`discord.ui.DynamicItem` buttons and selects whose ``custom_id``
carries the match (or challenge) id and the match version the board showed, and the builders
that lay them out. The click handlers are not here: they sit with their commands in the cogs
(:mod:`bot.discord.cogs.play`, :mod:`bot.discord.cogs.reminders`), which route each item class
to its handler with ``bot.route_clicks`` as they load.

They survive a restart: the cogs register the classes, and discord.py rebuilds the item from
the ``custom_id`` of whatever message was clicked. A click on a board from an earlier turn sends
its old version as ``expected_version``, so the service refuses it politely as stale; a double
click is the same case. Components hold no rules: every decision comes from the service or the
engines (which resignations and draws a game has: :mod:`engines.spec`), and the
``interaction_check`` below only saves a round trip for the obvious "not your turn".

Every component's ``interaction_check`` starts with :func:`check_click`, which counts the click
against the member's rate limit (:mod:`bot.discord.ratelimit`, the same budget as slash
commands): a click over the limit gets the commands' ephemeral "slow down" and reaches no
service call.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, cast

import discord

from bot.discord import ratelimit
from bot.discord.catalogue import text
from bot.discord.locales import read_by_client, read_by_member
from bot.discord.replies import admit, escape_name, refuse_closing, reply, report_error
from bot.service.commands import ViewMatch
from engines.base import Phase, ResignLevel
from engines.match import NO_MOVE
from engines.spec import spec_of

if TYPE_CHECKING:
    from bot.service import MatchService, MatchView

log = logging.getLogger(__name__)

MAX_SELECT_OPTIONS = 25
# The menu's label for the "no move" choice of a roll that can't be played (auto_pass off).
NO_MOVE_LABEL = text("select.no_move")
ButtonStyle = discord.ButtonStyle

# action -> (its label's message id, style); the label is read in the reader's language as the
# button is made. The action names are part of saved custom_ids: never rename them.
BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "roll": ("button.roll", ButtonStyle.success),
    "double": ("button.double", ButtonStyle.primary),
    "take": ("button.take", ButtonStyle.success),
    "pass": ("button.pass", ButtonStyle.danger),
    "passok": ("button.passok", ButtonStyle.danger),
    "resign": ("button.resign", ButtonStyle.secondary),
    "rs1": ("button.rs1", ButtonStyle.danger),
    "rs2": ("button.rs2", ButtonStyle.danger),
    "rs3": ("button.rs3", ButtonStyle.danger),
    "leave": ("button.leave", ButtonStyle.danger),
    "resyes": ("button.resyes", ButtonStyle.success),
    "resno": ("button.resno", ButtonStyle.secondary),
    "draw": ("button.draw", ButtonStyle.secondary),
    "drawyes": ("button.drawyes", ButtonStyle.success),
    "drawno": ("button.drawno", ButtonStyle.secondary),
}
# A board button -> the service command it sends, by name (bot.service.commands) and argument:
# what a new board's custom_id carries (tb:m:OfferResignation.2:<match>:<version>). Boards
# posted before carry the button's own name (tb:m:rs2:...): both are read. Pass and Resign
# open a menu of these.
SENDS: dict[str, str] = {
    "roll": "RollDice",
    "double": "OfferDouble",
    "take": "TakeDouble",
    "passok": "PassDouble",
    **{f"rs{level.value}": f"OfferResignation.{level.value}" for level in ResignLevel},
    "leave": "LeaveMatch",
    "resyes": "AcceptResignation",
    "resno": "DeclineResignation",
    "draw": "ProposeDraw",
    "drawyes": "AgreeDraw",
    "drawno": "RefuseDraw",
}
# Commands renamed since boards named them (the engine's OfferDraw is not the service's):
# a board posted before still sends what it meant.
FORMER_NAMES: dict[str, str] = {
    "OfferDraw": "ProposeDraw",
    "AcceptDraw": "AgreeDraw",
    "DeclineDraw": "RefuseDraw",
}
SENT_BY = {command: button for button, command in SENDS.items()}
SENT_BY |= {former: SENT_BY[now] for former, now in FORMER_NAMES.items()}
# Actions only the player the match waits for may take (the service checks again).
ACTOR_ACTIONS = frozenset(
    {"roll", "double", "take", "pass", "passok", "resyes", "resno", "drawyes", "drawno", "move"}
)
# The resignation buttons of the ephemeral resign menu, by level.
RESIGN_ACTIONS = {level: f"rs{level.value}" for level in ResignLevel}
CLAIM_TEMPLATE = r"tb:claim:(?P<match_id>[0-9]+):(?P<version>[0-9]+)"


class Host(Protocol):
    """What a persistent component needs of the client it is clicked on (the
    :class:`~bot.discord.app.TableBot`): the match service for :func:`check_player`, and the
    bot's routing of a click to the handler its cog registered."""

    service: MatchService

    async def handle_click(self, item: Any, interaction: discord.Interaction[Any]) -> None: ...


def _host(interaction: discord.Interaction[Any]) -> Host:
    return cast(Host, interaction.client)


async def check_click(interaction: discord.Interaction[Any]) -> bool:
    """The first check of every persistent component (the ``interaction_check`` of each
    DynamicItem here): refuse once the bot is closing, then count the click against the
    member's rate limit, refusing it ephemerally when over. The handler becomes tracked work
    here, before any service call. Never raises. What it answers is in the member's language."""
    read_by_client(interaction)
    if not admit(interaction):
        await refuse_closing(interaction)
        return False
    try:
        allowed = await ratelimit.allow_component(interaction)
    except Exception:
        # The limiter must not lock anyone out: a surprise there lets the click through.
        log.exception("rate limit check failed for a click by %s", interaction.user.id)
        allowed = True
    if allowed:
        await read_by_member(interaction)
    return allowed


async def check_player(
    interaction: discord.Interaction[Any], match_id: int, *, needs_turn: bool
) -> bool:
    """:func:`check_click`, then refuse at once a click by someone outside the match, or off
    turn. The service enforces the same; this only answers faster and more clearly. Never
    raises (discord.py would swallow the error and leave the click unanswered)."""
    if not await check_click(interaction):
        return False
    try:
        view = await _host(interaction).service.handle(ViewMatch(match_id, interaction.guild_id))
        seat = view.seat_of(interaction.user.id)
        if seat is None:
            await reply(interaction, text("refusal.not_in_match"))
            return False
        if needs_turn and view.actor is not None and view.actor != seat:
            other = escape_name(view.players[view.actor].name)
            await reply(interaction, text("refusal.waits_for", name=other))
            return False
        return True
    except Exception as exc:
        await report_error(interaction, exc)
        return False


class Persistent:
    """What every persistent component shares (mixed in before ``DynamicItem``): it is rebuilt
    from its ``custom_id``'s named groups (ids and versions as ints), its first check is
    :func:`check_click`, and a click goes to the handler its cog routed the class to
    (``TableBot.handle_click``, which ends in the one error path)."""

    INT_GROUPS = frozenset({"match_id", "challenge_id", "version"})

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> Self:
        groups = match.groupdict()
        values = {k: int(v) if k in cls.INT_GROUPS else v for k, v in groups.items()}
        return cast("Callable[..., Self]", cls)(**values)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await check_click(interaction)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _host(interaction).handle_click(self, interaction)


# --- match buttons -------------------------------------------------------------------------


class MatchButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:m:(?P<action>[A-Za-z0-9.]+):(?P<match_id>[0-9]+):(?P<version>[0-9]+)",
):
    """A board button: ``action`` is the button (``roll``, ``rs2``; from a custom_id, the
    command it sends, ``RollDice``, or the button's own name on older boards); ``command``
    is what it sends (None: it opens a menu)."""

    def __init__(self, action: str, match_id: int, version: int) -> None:
        action = SENT_BY.get(action, action)
        key, style = BUTTONS.get(action, ("", ButtonStyle.secondary))
        label = text(key) if key else action
        self.command = SENDS.get(action)
        wire = self.command or action
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=f"tb:m:{wire}:{match_id}:{version}"
            )
        )
        self.action = action
        self.match_id = match_id
        self.version = version

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await check_player(
            interaction, self.match_id, needs_turn=self.action in ACTOR_ACTIONS
        )


class MoveSelect(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"tb:mv:(?P<match_id>[0-9]+):(?P<version>[0-9]+)",
):
    def __init__(self, match_id: int, version: int, moves: Sequence[str] = ()) -> None:
        options = [
            discord.SelectOption(
                label=text("select.no_move") if m == NO_MOVE else m[:100], value=m[:100]
            )
            for m in moves
        ]
        passing = tuple(moves) == (NO_MOVE,)
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"tb:mv:{match_id}:{version}",
            placeholder=text("select.confirm_pass" if passing else "select.choose_move"),
            options=options or [discord.SelectOption(label="-", value="-")],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.match_id = match_id
        self.version = version

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await check_player(interaction, self.match_id, needs_turn=True)


# --- challenges ----------------------------------------------------------------------------


class ChallengeButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:c:(?P<action>accept|decline|cancel):(?P<challenge_id>[0-9]+)",
):
    STYLES: dict[str, tuple[str, discord.ButtonStyle]] = {  # noqa: RUF012
        "accept": ("button.accept", ButtonStyle.success),
        "decline": ("button.decline", ButtonStyle.secondary),
        "cancel": ("button.cancel", ButtonStyle.danger),
    }

    def __init__(self, action: str, challenge_id: int) -> None:
        key, style = self.STYLES[action]
        label = text(key)
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"tb:c:{action}:{challenge_id}")
        )
        self.action = action
        self.challenge_id = challenge_id


def invitation_view(challenge_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("accept", "decline", "cancel"):
        view.add_item(ChallengeButton(action, challenge_id))
    return view


# --- finished matches ----------------------------------------------------------------------


class FinishedButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:x:(?P<action>export|rematch):(?P<match_id>[0-9]+)",
):
    def __init__(self, action: str, match_id: int) -> None:
        label = text(f"button.{action}")
        style = ButtonStyle.secondary if action == "export" else ButtonStyle.primary
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"tb:x:{action}:{match_id}")
        )
        self.action = action
        self.match_id = match_id


def finished_view(match_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(FinishedButton("export", match_id))
    view.add_item(FinishedButton("rematch", match_id))
    return view


# --- idle matches --------------------------------------------------------------------------


class ClaimWinButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=CLAIM_TEMPLATE,
):
    """Ends an idle match as a forfeit in favour of the clicker, if the service agrees."""

    def __init__(self, match_id: int, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=text("button.claim"),
                style=discord.ButtonStyle.danger,
                custom_id=f"tb:claim:{match_id}:{version}",
            )
        )
        self.match_id = match_id
        self.version = version


def claim_view(match_id: int, version: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ClaimWinButton(match_id, version))
    return view


# --- pages of a long list ------------------------------------------------------------------

# The lists that can grow past one message: /games, /history and the leaderboards. ``arg``
# says whose list (a user id) or which board ("nannon.11", "nannon.all").
# "lbme" is a board's My place: the clicker's own page of it, for them alone.
PAGE_TEMPLATE = (
    r"tb:pg:(?P<kind>games|history|lb|lbme):(?P<arg>[a-z0-9.]{1,40}):(?P<page>[0-9]{1,6})"
)


class PageButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=PAGE_TEMPLATE,
):
    """Previous or Next under a list: the list is read again and the message shows ``page``
    (0-based) of it."""

    INT_GROUPS = frozenset({"page"})

    def __init__(self, kind: str, arg: str, page: int, *, label: str = "", disabled: bool = False):
        super().__init__(
            discord.ui.Button(
                label=label or text("button.page"),
                style=ButtonStyle.secondary,
                custom_id=f"tb:pg:{kind}:{arg}:{page}",
                disabled=disabled,
            )
        )
        self.kind = kind
        self.arg = arg
        self.page = page


def pager(
    kind: str, arg: str, page: int, pages: int, *, find_me: bool = False
) -> discord.ui.View | None:
    """Previous and Next for ``page`` of ``pages`` (None when one page holds the list); with
    ``find_me`` (a leaderboard), My place too."""
    if pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(
        PageButton(kind, arg, max(page - 1, 0), label=text("button.previous"), disabled=page <= 0)
    )
    view.add_item(
        PageButton(
            kind, arg, min(page + 1, pages), label=text("button.next"), disabled=page >= pages - 1
        )
    )
    if find_me:
        view.add_item(PageButton("lbme", arg, 0, label=text("button.my_place")))
    return view


# --- tournaments ---------------------------------------------------------------------------


class TournamentButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:t:(?P<action>join|leave|start):(?P<tournament_id>[0-9]+)",
):
    """Join, Leave or Start under a tournament's sign-up announcement."""

    INT_GROUPS = frozenset({"tournament_id"})
    STYLES: dict[str, discord.ButtonStyle] = {  # noqa: RUF012
        "join": ButtonStyle.success,
        "leave": ButtonStyle.secondary,
        "start": ButtonStyle.primary,
    }

    def __init__(self, action: str, tournament_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=text(f"button.tournament_{action}"),
                style=self.STYLES[action],
                custom_id=f"tb:t:{action}:{tournament_id}",
            )
        )
        self.action = action
        self.tournament_id = tournament_id


def signup_view(tournament_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("join", "leave", "start"):
        view.add_item(TournamentButton(action, tournament_id))
    return view


# --- per turn ------------------------------------------------------------------------------


def pass_confirmation(match_id: int, version: int) -> discord.ui.View:
    """The one more click a pass of the double takes (an ephemeral menu)."""
    confirm = discord.ui.View(timeout=None)
    confirm.add_item(MatchButton("passok", match_id, version))
    return confirm


def resign_menu(view: MatchView) -> discord.ui.View:
    """The resignation choices for this game, as the engine allows them (an ephemeral menu: a
    deliberate second click)."""
    menu = discord.ui.View(timeout=None)
    for level in spec_of(view.kind).resign_levels:
        menu.add_item(MatchButton(RESIGN_ACTIONS[level], view.match_id, view.version))
    menu.add_item(MatchButton("leave", view.match_id, view.version))
    return menu


def turn_view(view: MatchView) -> discord.ui.View | None:
    """The components of a turn message, by what the match waits for (None when finished)."""
    if view.match_over:
        return finished_view(view.match_id)
    mid, ver = view.match_id, view.version
    items: list[discord.ui.Item[Any]] = []
    phase = view.phase
    if phase in (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL):
        items.append(MatchButton("roll", mid, ver))
        if any(view.can_double):
            items.append(MatchButton("double", mid, ver))
    elif phase is Phase.MOVE:
        if view.legal_moves:
            items.append(MoveSelect(mid, ver, view.legal_moves[:MAX_SELECT_OPTIONS]))
        if spec_of(view.kind).draw_offers:
            items.append(MatchButton("draw", mid, ver))
    elif phase is Phase.CUBE_OFFERED:
        items += [MatchButton("take", mid, ver), MatchButton("pass", mid, ver)]
    elif phase is Phase.RESIGN_OFFERED:
        items += [MatchButton("resyes", mid, ver), MatchButton("resno", mid, ver)]
    elif phase is Phase.DRAW_OFFERED:
        items += [MatchButton("drawyes", mid, ver), MatchButton("drawno", mid, ver)]
    items.append(MatchButton("resign", mid, ver))
    ui = discord.ui.View(timeout=None)
    for item in items:
        ui.add_item(item)
    return ui
