"""Playing: /challenge, /move (autocompleted), /roll, /double, /take, /pass, /resign, /draw,
/board, the clicks on the boards, invitations and finished matches, and the NANNON shout (a 📣
reaction by the winner).

Commands act on the thread's match, or the user's only match in the channel
(:func:`bot.discord.replies.resolve_match`); a click carries its match (or challenge) in its
``custom_id`` (:mod:`bot.discord.components`). Every rule decision is the service's.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import delivery, invitations, permissions, presenter, wording
from bot.discord.catalogue import choices, command_text, reading, text
from bot.discord.components import (
    ChallengeButton,
    FinishedButton,
    MatchButton,
    MoveSelect,
    invitation_view,
    pass_confirmation,
    resign_menu,
)
from bot.discord.invitations import close_expired_invitation
from bot.discord.locales import server_reader
from bot.discord.replies import (
    NO_MENTIONS,
    FormattedGameError,
    display_name,
    escape_name,
    interaction_context,
    mention_only,
    reply,
    resolve_match,
)
from bot.discord.robot_matches import LevelName, is_robot, robot_rematch, start_robot_match
from bot.service import MatchView
from bot.service.commands import (
    AcceptChallenge,
    AgreeDraw,
    CancelChallenge,
    DeclineChallenge,
    Export,
    LeaveMatch,
    LegalMoves,
    MatchCommand,
    MatchInThread,
    NewChallenge,
    OfferDouble,
    OfferResignation,
    PassDouble,
    PlayMove,
    ProposeDraw,
    RecordShout,
    Rematch,
    RollDice,
    SetChallengeMessage,
    ShowBoardAndWakeRobot,
    TakeDouble,
    ViewMatch,
    command_named,
)
from bot.service.events import ChallengeExpired
from engines.base import GameKind, Phase, ResignLevel
from engines.errors import GameError

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.service import MatchUpdate

log = logging.getLogger(__name__)

# (the match, the guild id, the user id) -> the command a slash command sends.
Build = Callable[[MatchView, int, int], MatchCommand]


def on_match(kind: Callable[..., MatchCommand], **fields: Any) -> Build:
    """Build ``kind`` for the resolved match, with these extra fields."""
    return lambda view, guild, user: kind(view.match_id, guild, user, **fields)


# The persistent components whose clicks this cog answers.
COMPONENTS = (MatchButton, MoveSelect, ChallengeButton, FinishedButton)
GameName = Literal["nannon", "backgammon", "checkers"]
ResignName = Literal["single", "gammon", "backgammon", "match"]


def button_command(sends: str, match_id: int, guild: int, user: int, ver: int) -> MatchCommand:
    """The command a board button sends (``RollDice``, ``OfferResignation.2``: its name in
    bot.service.commands and its argument), with the board's version as expected_version."""
    name, _, argument = sends.partition(".")
    kind = command_named(name)
    extra = (int(argument),) if argument else ()
    return kind(match_id, guild, user, *extra, expected_version=ver)


class PlayCog(commands.Cog):
    def __init__(self, bot: TableBot) -> None:
        self.bot = bot
        self._unsubscribe: Callable[[], None] | None = None

    async def cog_load(self) -> None:
        self.bot.route_clicks(MatchButton, self.match_button)
        self.bot.route_clicks(MoveSelect, self.move_select)
        self.bot.route_clicks(ChallengeButton, self.challenge_button)
        self.bot.route_clicks(FinishedButton, self.finished_button)
        self._unsubscribe = self.bot.service.bus.subscribe(ChallengeExpired, self.expired)

    async def cog_unload(self) -> None:
        self.bot.unroute_clicks(*COMPONENTS)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    async def expired(self, event: ChallengeExpired) -> None:
        """The service's scheduler expired a challenge: its invitation says so, without
        buttons (an edit that fails is logged; the service refuses the old buttons anyway)."""
        log.info("challenge %s expired", event.challenge.id)
        await close_expired_invitation(self.bot, event.challenge)

    # --- helpers ----------------------------------------------------------------------------

    async def _act(
        self, interaction: discord.Interaction[TableBot], command: Build, done: str
    ) -> None:
        """Defer (ephemeral, rendering may be slow), find the match, build the command for it,
        act, say ``done`` (filling in the "thinking" answer), then show the action: the board
        edited, or the next board posted as a follow-up (bot.discord.delivery)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await resolve_match(self.bot.service, interaction)
        built = command(view, interaction.guild_id or 0, interaction.user.id)
        update = await self.bot.service.handle(built)
        via: discord.Interaction[TableBot] | None = interaction
        try:
            await interaction.followup.send(done, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            # Applied: no apology, which would ask the user to do it again. The board goes
            # out with the bot token (a follow-up now would fill in the ephemeral answer).
            log.warning("could not confirm %s (applied): %s", interaction_context(interaction), exc)
            via = None
        else:
            delivery.mark_filled(interaction)
        await presenter.publish(self.bot, update, via)

    # --- challenges -------------------------------------------------------------------------

    @app_commands.command(name="challenge", description=command_text("command.challenge"))
    @app_commands.guild_only()
    @app_commands.describe(
        game=command_text("command.challenge.game"),
        opponent=command_text("command.challenge.opponent"),
        points=command_text("command.challenge.points"),
        cube=command_text("command.challenge.cube"),
        crawford=command_text("command.challenge.crawford"),
        jacoby=command_text("command.challenge.jacoby"),
        auto_doubles=command_text("command.challenge.auto_doubles"),
        level=command_text("command.challenge.level"),
    )
    @app_commands.choices(
        game=choices("game", get_args(GameName)), level=choices("level", get_args(LevelName))
    )
    async def challenge(
        self,
        interaction: discord.Interaction[TableBot],
        game: str,
        opponent: discord.Member | None = None,
        points: app_commands.Range[int, 0, 25] | None = None,
        cube: bool | None = None,
        crawford: bool | None = None,
        jacoby: bool | None = None,
        auto_doubles: app_commands.Range[int, 0, 10] | None = None,
        level: str | None = None,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise GameError(text("robot.server_only"))
        user = interaction.user
        if opponent is not None and opponent.id == user.id:
            raise GameError(text("refusal.challenge_yourself"))
        against_robot = is_robot(self.bot, opponent)
        if opponent is not None and opponent.bot and not against_robot:
            raise GameError(text("refusal.bots_dont_play"))
        lacking = permissions.match_missing(
            interaction.app_permissions, in_thread=permissions.is_thread(interaction.channel)
        )
        if lacking:
            raise FormattedGameError(wording.missing_permissions(lacking))
        if level is not None and not against_robot:
            raise GameError(text("robot.level_for_robot_only"))
        if against_robot:  # tablebot itself: the robot accepts at once
            options = {"length": points, "cube": cube, "crawford": crawford, "jacoby": jacoby}
            await start_robot_match(
                self.bot, interaction, GameKind(game), level, auto_doubles=auto_doubles, **options
            )
            return
        challenge = await self.bot.service.handle(
            NewChallenge(
                interaction.guild_id,
                interaction.channel_id,
                user.id,
                display_name(user),
                GameKind(game),
                opponent_id=opponent.id if opponent else None,
                opponent_name=display_name(opponent) if opponent else None,
                opponent_is_bot=bool(opponent and opponent.bot),
                length=points,
                cube=cube,
                crawford=crawford,
                jacoby=jacoby,
                auto_doubles=auto_doubles,
            )
        )
        with reading(await server_reader(self.bot, interaction.guild_id)):  # a public message
            content, embed, allowed = invitations.invitation(challenge)
            await interaction.response.send_message(
                content,
                embed=embed,
                view=invitation_view(challenge.id),
                allowed_mentions=allowed,
            )
        message = await interaction.original_response()
        await self.bot.service.handle(SetChallengeMessage(challenge.id, message.id))

    # --- turn actions -----------------------------------------------------------------------

    @app_commands.command(name="move", description=command_text("command.move"))
    @app_commands.guild_only()
    @app_commands.describe(play=command_text("command.move.play"))
    async def move(self, interaction: discord.Interaction[TableBot], play: str) -> None:
        typed = play.strip()[:200]

        await self._act(interaction, on_match(PlayMove, move=typed), text("done.played"))

    @move.autocomplete("play")
    async def move_autocomplete(
        self, interaction: discord.Interaction[TableBot], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            view = await resolve_match(self.bot.service, interaction)
            moves = await self.bot.service.handle(
                LegalMoves(
                    view.match_id,
                    interaction.guild_id or 0,
                    interaction.user.id,
                    prefix=current.strip()[:100],
                    limit=25,
                )
            )
        except GameError:
            return []
        except Exception:
            log.exception("autocomplete failed for %s", interaction_context(interaction))
            return []
        return [app_commands.Choice(name=m[:100], value=m[:100]) for m in moves[:25]]

    @app_commands.command(name="roll", description=command_text("command.roll"))
    @app_commands.guild_only()
    async def roll(self, interaction: discord.Interaction[TableBot]) -> None:
        await self._act(interaction, on_match(RollDice), text("done.rolled"))

    @app_commands.command(name="double", description=command_text("command.double"))
    @app_commands.guild_only()
    async def double(self, interaction: discord.Interaction[TableBot]) -> None:
        await self._act(interaction, on_match(OfferDouble), text("done.doubled"))

    @app_commands.command(name="take", description=command_text("command.take"))
    @app_commands.guild_only()
    async def take(self, interaction: discord.Interaction[TableBot]) -> None:
        await self._act(interaction, on_match(TakeDouble), text("done.taken"))

    @app_commands.command(name="pass", description=command_text("command.pass"))
    @app_commands.guild_only()
    async def pass_(self, interaction: discord.Interaction[TableBot]) -> None:
        await self._act(interaction, on_match(PassDouble), text("done.passed"))

    @app_commands.command(name="resign", description=command_text("command.resign"))
    @app_commands.guild_only()
    @app_commands.describe(level=command_text("command.resign.level"))
    @app_commands.choices(level=choices("resign", get_args(ResignName)))
    async def resign(
        self,
        interaction: discord.Interaction[TableBot],
        level: str = "single",
    ) -> None:
        def command(view: MatchView, guild: int, user: int) -> MatchCommand:
            if level == "match":
                return LeaveMatch(view.match_id, guild, user)
            return OfferResignation(view.match_id, guild, user, ResignLevel[level.upper()])

        done = text("done.conceded" if level == "match" else "done.resignation_offered")
        await self._act(interaction, command, done)

    @app_commands.command(name="draw", description=command_text("command.draw"))
    @app_commands.guild_only()
    async def draw(self, interaction: discord.Interaction[TableBot]) -> None:
        def command(view: MatchView, guild: int, user: int) -> MatchCommand:
            # Routing only: an open offer from the other player is answered, else one is made.
            seat = view.seat_of(user)
            offered = view.phase is Phase.DRAW_OFFERED and view.draw_offered_by is not None
            if offered and seat is not None and seat != view.draw_offered_by:
                return AgreeDraw(view.match_id, guild, user)
            return ProposeDraw(view.match_id, guild, user)

        await self._act(interaction, command, text("done.done"))

    @app_commands.command(name="board", description=command_text("command.board"))
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction[TableBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await resolve_match(self.bot.service, interaction)
        # As a command: a robot that owes a move hears of it again (it retries after a failure).
        view = await self.bot.service.handle(ShowBoardAndWakeRobot(found.match_id, found.guild_id))
        if view.match_over:
            raise GameError(text("refusal.board_match_over", match_id=view.match_id))
        await presenter.post_board(self.bot, view, ping=False)
        await interaction.followup.send(
            text("done.board_posted"), ephemeral=True, allowed_mentions=NO_MENTIONS
        )

    # --- clicks -----------------------------------------------------------------------------

    async def _apply_and_publish(
        self,
        interaction: discord.Interaction[TableBot],
        action: Callable[[], Awaitable[MatchUpdate]],
        *,
        menu: bool = False,
    ) -> None:
        """Apply the action and show it through the click's answer (bot.discord.delivery),
        deferred only when it takes longer than the bot's response budget. ``menu``: the click
        came from an ephemeral menu, which is closed ("Done.") as the answer. Errors propagate
        to the one error path, which answers ephemerally."""

        async def work() -> None:
            update = await action()
            if menu:
                try:
                    await delivery.answer_edit(interaction, content=text("done.done"), view=None)
                except discord.HTTPException:
                    log.debug("could not close the ephemeral menu", exc_info=True)
            await presenter.publish(self.bot, update, interaction)

        await delivery.in_time(interaction, work(), self.bot.response_budget)

    async def match_button(
        self, item: MatchButton, interaction: discord.Interaction[TableBot]
    ) -> None:
        """A board's button (or one of its ephemeral menus'): the action, by the board's
        version."""
        guild_id = interaction.guild_id or 0
        if item.action == "pass":
            # Misclicked passes are a classic complaint: confirm with one more click.
            await interaction.response.send_message(
                text("menu.pass_confirm"),
                view=pass_confirmation(item.match_id, item.version),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        if item.action == "resign":
            view = await self.bot.service.handle(ViewMatch(item.match_id, guild_id))
            await interaction.response.send_message(
                text("menu.resign"),
                view=resign_menu(view),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        if item.command is None:
            raise ValueError(f"no service action for button {item.action!r}")
        command = button_command(
            item.command, item.match_id, guild_id, interaction.user.id, item.version
        )
        # passok, rs1-3 and leave come from an ephemeral menu: it is closed as the answer.
        menu = item.action in ("passok", "rs1", "rs2", "rs3", "leave")
        await self._apply_and_publish(
            interaction, lambda: self.bot.service.handle(command), menu=menu
        )

    async def move_select(
        self, item: MoveSelect, interaction: discord.Interaction[TableBot]
    ) -> None:
        """A move picked from a board's menu."""
        values = item.item.values
        if not values:
            await reply(interaction, text("refusal.pick_from_menu"))
            return
        move = values[0]
        command = PlayMove(
            item.match_id,
            interaction.guild_id or 0,
            interaction.user.id,
            move,
            expected_version=item.version,
        )
        await self._apply_and_publish(interaction, lambda: self.bot.service.handle(command))

    async def challenge_button(
        self, item: ChallengeButton, interaction: discord.Interaction[TableBot]
    ) -> None:
        """Accept, decline or withdraw a challenge from its invitation."""
        svc = self.bot.service
        guild_id = interaction.guild_id or 0
        user = interaction.user
        if item.action == "accept":

            async def accept() -> None:
                accepting = AcceptChallenge(
                    item.challenge_id, guild_id, user.id, display_name(user)
                )
                update = await svc.handle(accepting)
                threads = permissions.can_open_thread(interaction.app_permissions)
                await presenter.start_match(
                    self.bot, update, interaction.message, threads=threads, via=interaction
                )

            await delivery.in_time(interaction, accept(), self.bot.response_budget)
            return
        if item.action == "decline":
            challenge = await svc.handle(DeclineChallenge(item.challenge_id, guild_id, user.id))
            said = text("challenge.declined", name=escape_name(display_name(user)))
        else:
            challenge = await svc.handle(CancelChallenge(item.challenge_id, guild_id, user.id))
            said = text("challenge.withdrawn", name=escape_name(challenge.challenger.name))
        # The invitation says so, as the click's answer.
        await delivery.answer_edit(
            interaction, content=said, view=None, allowed_mentions=NO_MENTIONS
        )

    async def finished_button(
        self, item: FinishedButton, interaction: discord.Interaction[TableBot]
    ) -> None:
        """Export or Rematch, under a finished match's result."""
        guild_id = interaction.guild_id or 0
        if item.action == "export":
            await interaction.response.defer(ephemeral=True, thinking=True)
            export = await self.bot.service.handle(Export(item.match_id, guild_id))
            await interaction.followup.send(
                text("export.caption", match_id=item.match_id),
                file=presenter.text_file(export.filename, export.text),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        finished = await self.bot.service.handle(ViewMatch(item.match_id, guild_id))
        if finished.robot_seat is not None:
            await robot_rematch(self.bot, interaction, item.match_id)
            await interaction.followup.send(
                text("robot.rematch_started"), ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        again = Rematch(item.match_id, guild_id, interaction.user.id)
        challenge = await self.bot.service.handle(again)
        await invitations.post_invitation(self.bot, challenge)
        await interaction.followup.send(
            text("done.rematch_offered"), ephemeral=True, allowed_mentions=NO_MENTIONS
        )

    # --- a match's thread, closed ----------------------------------------------------------

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._thread_closed(payload.thread_id, payload.guild_id, "deleted")

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        meta: dict[str, Any] = dict(payload.data.get("thread_metadata", {}))
        if meta.get("locked"):
            await self._thread_closed(payload.thread_id, payload.guild_id, "locked")
        elif meta.get("archived"):
            minutes = int(meta.get("auto_archive_duration") or 1440)
            await self._thread_closed(
                payload.thread_id,
                payload.guild_id,
                "archived",
                idle_minutes=minutes,
                archived_at=delivery.archive_time(meta),
            )

    async def _thread_closed(
        self,
        thread_id: int,
        guild_id: int,
        how: str,
        *,
        idle_minutes: int | None = None,
        archived_at: float | None = None,
    ) -> None:
        """A match thread deleted, locked, or archived: the match goes on elsewhere
        (presenter.move_out_of_thread). An archive is a moderator's when it came before the
        thread's own auto-archive time (``idle_minutes`` after the last action); a thread that
        archived itself, the match idle, stays: the next post unarchives it. The archive is
        judged at ``archived_at`` (Discord's archive_timestamp), not when this handler runs:
        an action made since then (this task may start after it) means the match is played
        there, and its post unarchived the thread."""
        if not self.bot.begin_work():
            return
        try:
            view = await self.bot.service.handle(MatchInThread(thread_id))
            if view is None or view.guild_id != guild_id or view.match_over:
                return
            if idle_minutes is not None:
                at = self.bot.service.clock() if archived_at is None else archived_at
                idle = at - view.last_action_at
                if idle < 0 or idle >= idle_minutes * 60 - delivery.ARCHIVE_SLACK:
                    return
            await presenter.move_out_of_thread(
                self.bot, view.match_id, guild_id, how, thread_id=thread_id
            )
        except Exception:
            log.exception("could not move the match out of thread %s (%s)", thread_id, how)

    # --- the NANNON shout -------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        if str(payload.emoji) != presenter.SHOUT or payload.guild_id is None:
            return
        me = self.bot.user
        if me is None or payload.user_id == me.id:
            return
        if payload.message_author_id is not None and payload.message_author_id != me.id:
            # Only the bot's own announcements can be shouted: a 📣 anywhere else in the
            # server costs no request (Discord names the message's author in the event).
            return
        if not self.bot.begin_work():
            return  # closing: a shout needs the service
        try:
            await self._shout(payload)
        except Exception:
            log.exception(
                "NANNON shout failed (message %s, user %s)", payload.message_id, payload.user_id
            )

    async def _shout(self, payload: discord.RawReactionActionEvent) -> None:
        assert payload.guild_id is not None
        channel = self.bot.get_partial_messageable(payload.channel_id, guild_id=payload.guild_id)
        known = self.bot.shout_messages.get(payload.message_id)
        if known is None:
            # After a restart: the announcement's footer names the match and the game.
            message = await channel.fetch_message(payload.message_id)
            me = self.bot.user
            if me is None or message.author.id != me.id or not message.embeds:
                return
            footer = message.embeds[0].footer.text or ""
            found = presenter.SHOUT_FOOTER_RE.search(footer)
            if found is None:
                return
            known = (int(found[1]), int(found[2]))
            self.bot.shout_messages[payload.message_id] = known
        match_id, game_number = known
        counted = await self.bot.service.handle(
            RecordShout(match_id, payload.guild_id, payload.user_id, game_number)
        )
        if not counted:
            return  # not the winner, or shouted already: nothing happens
        view = await self.bot.service.handle(ViewMatch(match_id, payload.guild_id))
        seat = view.seat_of(payload.user_id)
        name = escape_name(view.players[seat].name) if seat is not None else text("shout.someone")
        said = text(
            "shout",
            await server_reader(self.bot, payload.guild_id),
            shout=presenter.SHOUT,
            name=name,
            game=game_number,
        )
        await channel.send(
            said,
            reference=discord.MessageReference(
                message_id=payload.message_id,
                channel_id=payload.channel_id,
                fail_if_not_exists=False,
            ),
            allowed_mentions=mention_only(),
        )


async def setup(bot: TableBot) -> None:
    await bot.add_cog(PlayCog(bot))
