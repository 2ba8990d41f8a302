"""Persistent components: :class:`discord.ui.DynamicItem` buttons and selects whose ``custom_id``
carries the match (or challenge) id and the match version the board showed.

They survive a restart: ``setup_hook`` registers the classes, and discord.py rebuilds the item from
the ``custom_id`` of whatever message was clicked. A click on a board from an earlier turn sends
its old version as ``expected_version``, so the service refuses it politely as stale; a double
click is the same case. Views hold no rules: every decision comes from the service, and the
``interaction_check`` below only saves a round trip for the obvious "not your turn".

Every component's ``interaction_check`` starts with :func:`check_click`, which counts the click
against the member's rate limit (:mod:`bot.discord.ratelimit`, the same budget as slash
commands): a click over the limit gets the commands' ephemeral "slow down" and reaches no
service call.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Self, cast

import discord

from bot.discord import presenter, ratelimit
from bot.discord.replies import (
    NO_MENTIONS,
    admit,
    display_name,
    escape_name,
    guarded,
    refuse_closing,
    report_error,
)
from bot.service.commands import (
    AcceptDraw,
    AcceptResignation,
    DeclineDraw,
    DeclineResignation,
    LeaveMatch,
    MatchCommand,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RollDice,
    TakeDouble,
)
from engines.base import GameKind, Phase, ResignLevel
from engines.match import NO_MOVE

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import MatchUpdate, MatchView

log = logging.getLogger(__name__)

MAX_SELECT_OPTIONS = 25
# The menu's label for the "no move" choice of a roll that can't be played (auto_pass off).
NO_MOVE_LABEL = "No legal move: pass the turn"
ButtonStyle = discord.ButtonStyle

# action -> (label, style). The action names are part of saved custom_ids: never rename them.
BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "roll": ("Roll", ButtonStyle.success),
    "double": ("Double", ButtonStyle.primary),
    "take": ("Take", ButtonStyle.success),
    "pass": ("Pass", ButtonStyle.danger),
    "passok": ("Yes, pass", ButtonStyle.danger),
    "resign": ("Resign", ButtonStyle.secondary),
    "rs1": ("Resign this game", ButtonStyle.danger),
    "rs2": ("Resign a gammon", ButtonStyle.danger),
    "rs3": ("Resign a backgammon", ButtonStyle.danger),
    "leave": ("Concede the match", ButtonStyle.danger),
    "resyes": ("Accept resignation", ButtonStyle.success),
    "resno": ("Decline resignation", ButtonStyle.secondary),
    "draw": ("Offer draw", ButtonStyle.secondary),
    "drawyes": ("Accept draw", ButtonStyle.success),
    "drawno": ("Decline draw", ButtonStyle.secondary),
}
# Actions only the player the match waits for may take (the service checks again).
ACTOR_ACTIONS = frozenset(
    {"roll", "double", "take", "pass", "passok", "resyes", "resno", "drawyes", "drawno", "move"}
)

# button action -> the command it sends (with the board's version as expected_version).
BUTTON_COMMANDS: dict[str, Callable[..., MatchCommand]] = {
    "roll": RollDice,
    "double": OfferDouble,
    "take": TakeDouble,
    "passok": PassDouble,
    "rs1": partial(OfferResignation, level=ResignLevel.SINGLE),
    "rs2": partial(OfferResignation, level=ResignLevel.GAMMON),
    "rs3": partial(OfferResignation, level=ResignLevel.BACKGAMMON),
    "leave": LeaveMatch,
    "resyes": AcceptResignation,
    "resno": DeclineResignation,
    "draw": OfferDraw,
    "drawyes": AcceptDraw,
    "drawno": DeclineDraw,
}


def button_command(action: str, match_id: int, guild: int, user: int, ver: int) -> MatchCommand:
    """The command behind a button, with the board's version as expected_version."""
    make = BUTTON_COMMANDS.get(action)
    if make is None:
        raise ValueError(f"no service action for button {action!r}")
    return make(match_id, guild, user, expected_version=ver)


def _bot(interaction: discord.Interaction[Any]) -> TableBot:
    return cast("TableBot", interaction.client)


async def _say(interaction: discord.Interaction[Any], content: str) -> None:
    """An ephemeral answer, whether or not the interaction was answered already."""
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True, allowed_mentions=NO_MENTIONS)
    else:
        await interaction.response.send_message(
            content, ephemeral=True, allowed_mentions=NO_MENTIONS
        )


async def check_click(interaction: discord.Interaction[Any]) -> bool:
    """The first check of every persistent component (the ``interaction_check`` of each
    DynamicItem here and in :mod:`bot.discord.cogs.reminders`): refuse once the bot is closing,
    then count the click against the member's rate limit, refusing it ephemerally when over. The
    handler becomes tracked work here, before any service call. Never raises."""
    if not admit(interaction):
        await refuse_closing(interaction)
        return False
    try:
        return await ratelimit.allow_component(interaction)
    except Exception:
        # The limiter must not lock anyone out: a surprise there lets the click through.
        log.exception("rate limit check failed for a click by %s", interaction.user.id)
        return True


async def check_player(
    interaction: discord.Interaction[Any], match_id: int, *, needs_turn: bool
) -> bool:
    """:func:`check_click`, then refuse at once a click by someone outside the match, or off
    turn. The service enforces the same; this only answers faster and more clearly. Never
    raises (discord.py would swallow the error and leave the click unanswered)."""
    if not await check_click(interaction):
        return False
    try:
        view = await _bot(interaction).service.get_view(match_id, interaction.guild_id)
        seat = view.seat_of(interaction.user.id)
        if seat is None:
            await _say(interaction, "This is not your match: only its two players can use it.")
            return False
        if needs_turn and view.actor is not None and view.actor != seat:
            other = escape_name(view.players[view.actor].name)
            await _say(interaction, f"It's not your turn: the match waits for {other}.")
            return False
        return True
    except Exception as exc:
        await report_error(interaction, exc)
        return False


async def apply_and_publish(
    interaction: discord.Interaction[Any],
    action: Callable[[], Awaitable[MatchUpdate]],
) -> MatchUpdate:
    """Defer (rendering can be slow), apply the action, post the result. Errors propagate to
    :func:`guarded`, which answers ephemerally with a followup."""
    if not interaction.response.is_done():
        await interaction.response.defer()
    update = await action()
    await presenter.publish(_bot(interaction), update)
    return update


class Persistent:
    """What every persistent component shares (mixed in before ``DynamicItem``): it is rebuilt
    from its ``custom_id``'s named groups (ids and versions as ints), its first check is
    :func:`check_click`, and its handler, ``_run``, runs under :func:`guarded`, so every error
    becomes a polite reply."""

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
        await guarded(interaction, lambda: self._run(interaction))

    async def _run(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError


# --- match buttons -------------------------------------------------------------------------


class MatchButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:m:(?P<action>[a-z0-9]+):(?P<match_id>[0-9]+):(?P<version>[0-9]+)",
):
    def __init__(self, action: str, match_id: int, version: int) -> None:
        label, style = BUTTONS.get(action, (action, ButtonStyle.secondary))
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=f"tb:m:{action}:{match_id}:{version}"
            )
        )
        self.action = action
        self.match_id = match_id
        self.version = version

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await check_player(
            interaction, self.match_id, needs_turn=self.action in ACTOR_ACTIONS
        )

    async def _run(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        guild_id = interaction.guild_id or 0
        if self.action == "pass":
            # Misclicked passes are a classic complaint: confirm with one more click.
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(MatchButton("passok", self.match_id, self.version))
            await interaction.response.send_message(
                "Pass the double and lose this game at the current stake?",
                view=confirm,
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        if self.action == "resign":
            view = await bot.service.get_view(self.match_id, guild_id)
            await interaction.response.send_message(
                "Resign how much? The opponent accepts or declines a game resignation; "
                "conceding the match ends it at once.",
                view=resign_menu(view),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        user_id = interaction.user.id
        await apply_and_publish(
            interaction,
            lambda: bot.service.act(
                button_command(self.action, self.match_id, guild_id, user_id, self.version)
            ),
        )
        if self.action in ("passok", "rs1", "rs2", "rs3", "leave"):
            # Those came from an ephemeral menu: close it so it cannot be clicked again.
            try:
                await interaction.edit_original_response(content="Done.", view=None)
            except discord.HTTPException:
                log.debug("could not close the ephemeral menu", exc_info=True)


class MoveSelect(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"tb:mv:(?P<match_id>[0-9]+):(?P<version>[0-9]+)",
):
    def __init__(self, match_id: int, version: int, moves: Sequence[str] = ()) -> None:
        options = [
            discord.SelectOption(label=NO_MOVE_LABEL if m == NO_MOVE else m[:100], value=m[:100])
            for m in moves
        ]
        passing = tuple(moves) == (NO_MOVE,)
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=f"tb:mv:{match_id}:{version}",
            placeholder="No legal move: confirm the pass" if passing else "Choose your move",
            options=options or [discord.SelectOption(label="-", value="-")],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.match_id = match_id
        self.version = version

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await check_player(interaction, self.match_id, needs_turn=True)

    async def _run(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        values = self.item.values
        if not values:
            await _say(interaction, "Pick a move from the menu.")
            return
        move = values[0]
        await apply_and_publish(
            interaction,
            lambda: bot.service.act(
                PlayMove(
                    self.match_id,
                    interaction.guild_id or 0,
                    interaction.user.id,
                    move,
                    expected_version=self.version,
                )
            ),
        )


# --- challenges ----------------------------------------------------------------------------


class ChallengeButton(
    Persistent,
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tb:c:(?P<action>accept|decline|cancel):(?P<challenge_id>[0-9]+)",
):
    STYLES: dict[str, tuple[str, discord.ButtonStyle]] = {  # noqa: RUF012
        "accept": ("Accept", ButtonStyle.success),
        "decline": ("Decline", ButtonStyle.secondary),
        "cancel": ("Cancel", ButtonStyle.danger),
    }

    def __init__(self, action: str, challenge_id: int) -> None:
        label, style = self.STYLES[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"tb:c:{action}:{challenge_id}")
        )
        self.action = action
        self.challenge_id = challenge_id

    async def _run(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        svc = bot.service
        guild_id = interaction.guild_id or 0
        user = interaction.user
        if self.action == "accept":
            await interaction.response.defer()
            update = await svc.accept(self.challenge_id, guild_id, user.id, display_name(user))
            await presenter.start_match(bot, update, interaction.message)
            return
        await interaction.response.defer()
        if self.action == "decline":
            challenge = await svc.decline(self.challenge_id, guild_id, user.id)
            text = f"{escape_name(display_name(user))} declined the challenge."
        else:
            challenge = await svc.cancel(self.challenge_id, guild_id, user.id)
            text = f"{escape_name(challenge.challenger.name)} withdrew the challenge."
        if interaction.message is not None:
            await interaction.message.edit(content=text, view=None, allowed_mentions=NO_MENTIONS)


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
        label = "Export" if action == "export" else "Rematch"
        style = ButtonStyle.secondary if action == "export" else ButtonStyle.primary
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"tb:x:{action}:{match_id}")
        )
        self.action = action
        self.match_id = match_id

    async def _run(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        guild_id = interaction.guild_id or 0
        if self.action == "export":
            await interaction.response.defer(ephemeral=True, thinking=True)
            export = await bot.service.export(self.match_id, guild_id)
            await interaction.followup.send(
                f"Match #{self.match_id}:",
                file=presenter.text_file(export.filename, export.text),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        challenge = await bot.service.rematch(self.match_id, guild_id, interaction.user.id)
        await presenter.post_invitation(bot, challenge)
        await interaction.followup.send(
            "Rematch offered.", ephemeral=True, allowed_mentions=NO_MENTIONS
        )


def finished_view(match_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(FinishedButton("export", match_id))
    view.add_item(FinishedButton("rematch", match_id))
    return view


# --- per turn ------------------------------------------------------------------------------


def resign_menu(view: MatchView) -> discord.ui.View:
    """The resignation choices for this game (an ephemeral menu: a deliberate second click)."""
    menu = discord.ui.View(timeout=None)
    if view.kind is GameKind.CHECKERS:
        levels = ["rs1"]
    elif view.kind is GameKind.NANNON:
        levels = ["rs1", "rs2"]
    else:
        levels = ["rs1", "rs2", "rs3"]
    for action in levels:
        menu.add_item(MatchButton(action, view.match_id, view.version))
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
        if view.kind is GameKind.CHECKERS:
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


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    MatchButton,
    MoveSelect,
    ChallengeButton,
    FinishedButton,
)
