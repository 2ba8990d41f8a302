"""Turn messages: the board PNG (rendered off the event loop), its alt text, the embed, the
components; plus game and match results, invitations and the NANNON announcement.

One message per turn: while the same player goes on (a roll, then the move) the board is edited
in place; when the turn passes, it loses its buttons and the next player's board is a new
message that pings them. How each reaches Discord, mostly through the acting interaction and
not the bot token, is :mod:`bot.discord.delivery`'s.
"""

from __future__ import annotations

import functools
import io
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import discord

from bot.discord import components as ui
from bot.discord import delivery, wording
from bot.discord.catalogue import number, plural_key, reader, text
from bot.discord.delivery import length_text as length_text
from bot.discord.delivery import match_title as match_title
from bot.discord.drawn import board_words, embed_alt
from bot.discord.locales import for_server
from bot.discord.replies import (
    NO_MENTIONS,
    FormattedGameError,
    escape_name,
    inert_text,
    mention_only,
)
from bot.discord.style import style_of
from bot.rendering import board_job as board_job
from bot.service.commands import (
    GetSettings,
    SetBoardMessage,
    SetThread,
    ViewMatch,
)
from engines.base import GameResult, Phase, ResultKind
from engines.cube import Cube
from engines.spec import spec_of
from render.common import format_score

if TYPE_CHECKING:
    from bot.discord.app import TableBot
    from bot.rendering import Renderer
    from bot.service import MatchUpdate, MatchView

log = logging.getLogger(__name__)

SHOUT = "\N{CHEERING MEGAPHONE}"
# An action was applied but Discord refused its board (retries spent): the log has it.
BOARD_NOT_POSTED = text("error.board_not_posted")
RESULT_NOT_POSTED = text("error.result_not_posted")
FIRST_BOARD_NOT_POSTED = text("error.first_board_not_posted")
# The NANNON announcement's footer, in the channel's language: the reaction handler finds the
# match here after a restart (every translation keeps "#{match_id} · <word> {game} · NANNON").
SHOUT_FOOTER_RE = re.compile(r"#(\d+) · \D+? (\d+) · NANNON")


# --- text helpers --------------------------------------------------------------------------


def points_text(points: float) -> str:
    return format_score(points)


def score_text(view: MatchView) -> str:
    a, b = (escape_name(p.name) for p in view.players)
    score = text(
        "score.line",
        first=a,
        first_points=points_text(view.score[0]),
        second_points=points_text(view.score[1]),
        second=b,
    )
    if view.length:
        score += text("score.length", length=length_text(view.kind, view.length))
    if view.crawford:
        score += text("score.crawford")
    return score


def dice_text(dice: Sequence[int] | None) -> str:
    return "-".join(str(d) for d in dice) if dice else text("dice.not_rolled")


def cube_text(view: MatchView) -> str:
    names = [escape_name(p.name) for p in view.players]
    if view.cube_offered_by is not None:
        return text("cube.offered", name=names[view.cube_offered_by], value=view.cube_value * 2)
    if view.cube_owner is None:
        shown = spec_of(view.kind).cube_face(Cube(view.cube_value))  # Nannon's shows 64 at 1
        return text("cube.centred", value=shown)
    return text("cube.owned", value=view.cube_value, name=names[view.cube_owner])


def prompt(view: MatchView) -> str:
    """What the match waits for, in a sentence."""
    names = [escape_name(p.name) for p in view.players]
    actor = names[view.actor] if view.actor is not None else None
    phase = view.phase
    if phase is Phase.OPENING:
        return text("prompt.opening")
    if phase is Phase.OPENING_TIE:
        return text("prompt.opening_tie")
    if phase is Phase.ROLL:
        can = view.actor is not None and view.can_double[view.actor]
        return text("prompt.roll_or_double" if can else "prompt.roll", name=actor)
    if phase is Phase.MOVE:
        if not spec_of(view.kind).has_dice:
            return text("prompt.move_colour", name=actor, colour=colour_name(view, view.turn))
        if view.must_pass:
            return text("prompt.must_pass", name=actor, dice=dice_text(view.dice))
        return text("prompt.move", name=actor, dice=dice_text(view.dice))
    if phase is Phase.CUBE_OFFERED and view.cube_offered_by is not None:
        doubler = names[view.cube_offered_by]
        return text("prompt.take_or_pass", doubler=doubler, value=view.cube_value * 2, name=actor)
    if phase is Phase.RESIGN_OFFERED and view.resign_offer is not None:
        seat, level = view.resign_offer
        what = wording.resign_level_text(view.kind, level)
        return text("prompt.resignation", resigner=names[seat], what=what, name=actor)
    if phase is Phase.DRAW_OFFERED and view.draw_offered_by is not None:
        return text("prompt.draw", offerer=names[view.draw_offered_by], name=actor)
    if phase is Phase.MATCH_OVER:
        return text("prompt.match_over")
    return text("prompt.play", name=actor) if actor else text("prompt.your_move")


def result_text(view: MatchView, result: GameResult) -> str:
    names = [escape_name(p.name) for p in view.players]
    pts = points_text(result.points)
    unit = spec_of(view.kind).score_unit
    if result.winner is None:
        return text("result.game_drawn", number=result.game_number)
    winner, loser = names[result.winner], names[1 - result.winner]
    how = text(f"result.how.{result.kind.name.lower()}", loser=loser)
    if (
        result.kind in (ResultKind.GAMMON, ResultKind.BACKGAMMON)
        and view.rules.jacoby
        and result.points == result.cube
    ):
        # Jacoby: a gammon counts single while the cube was never turned.
        how += text("result.jacoby")
    won = text(plural_key(f"unit.{unit}", result.points), count=pts)
    return text("result.game_won", number=result.game_number, name=winner, won=won, how=how)


def colour_name(view: MatchView, seat: int) -> str:
    """The colour ``seat`` plays, as the turn's prompt says it ("white", "black")."""
    return text(f"colour.{view.colours[seat]}")


def text_file(filename: str, text: str) -> discord.File:
    return discord.File(io.BytesIO(text.encode("utf-8")), filename=filename)


# --- rendering -----------------------------------------------------------------------------


async def render_board(
    renderer: Renderer, view: MatchView, alt_text: str | None = None
) -> tuple[discord.File, str] | None:
    """The board as an attachment (drawn by the render worker, off the event loop and its
    interpreter lock) and its alt text: render's English description, or ``alt_text``."""
    try:
        png, alt = await renderer.board(*board_job(view, board_words()))
        alt = alt_text or alt
    except Exception:
        # A missing picture must not lose the turn: the embed still says everything.
        log.exception("rendering match %s (version %s) failed", view.match_id, view.version)
        return None
    alt = alt[:1024]
    return discord.File(io.BytesIO(png), filename="board.png", description=alt), alt


def turn_embed(view: MatchView, notes: Sequence[str] = ()) -> discord.Embed:
    spec = spec_of(view.kind)
    title = match_title(view)
    # A match of one game (checkers) says "game 2" only once a draw has made one necessary.
    if view.length != 1 or spec.score_unit != "game" or view.game_number > 1:
        title += text("turn.game_number", number=view.game_number)
    embed = discord.Embed(
        title=discord.utils.escape_markdown(title)[:256],
        description="\n".join([*map(inert_text, notes), f"**{prompt(view)}**"])[:4000],
        colour=style_of(view.kind).colour,
    )
    if view.actor is not None and not view.match_over:
        who = view.players[view.actor]
        embed.add_field(
            name=text("turn.field.turn"),
            value=text(
                "turn.whose", name=escape_name(who.name), colour=colour_name(view, view.actor)
            ),
        )
    if spec.has_dice:
        embed.add_field(name=text("turn.field.dice"), value=dice_text(view.dice))
    embed.add_field(name=text("turn.field.score"), value=score_text(view), inline=False)
    if spec.cube and view.rules.cube:
        embed.add_field(name=text("turn.field.cube"), value=cube_text(view))
    if view.pips is not None:
        a, b = view.players
        embed.add_field(
            name=text("turn.field.pips"),
            value=text(
                "turn.pips",
                first=escape_name(a.name),
                first_pips=view.pips[0],
                second=escape_name(b.name),
                second_pips=view.pips[1],
            ),
        )
    if view.last_move is not None:
        mover = escape_name(view.players[view.last_move.seat].name)
        embed.add_field(
            name=text("turn.field.last_move"),
            value=text("turn.last_move", name=mover, move=view.last_move.text),
        )
    embed.add_field(
        name=text(f"turn.field.position.{view.kind.value}"),
        value=f"`{view.position_id}`",
        inline=False,
    )
    if view.gnubg_match_id:
        embed.add_field(
            name=text("turn.field.match_id"), value=f"`{view.gnubg_match_id}`", inline=False
        )
    embed.set_footer(text=text("turn.footer", match_id=view.match_id, version=view.version))
    return embed


# --- posting -------------------------------------------------------------------------------
# How each message reaches Discord (the interaction's answer, its follow-ups, its webhook, or
# the bot token) is bot.discord.delivery's: here is what is shown, and when.

Shown = TypeVar("Shown")
Result = TypeVar("Result")
Rest = ParamSpec("Rest")


def marks_shown(
    view_of: Callable[[Shown], MatchView],
) -> Callable[
    [Callable[Concatenate[TableBot, Shown, Rest], Awaitable[Result]]],
    Callable[Concatenate[TableBot, Shown, Rest], Awaitable[Result]],
]:
    """Once the decorated function has shown a state of a match (a board posted, an update
    published; even when Discord refused it), the bot marks it shown (``TableBot.turn_shown``):
    the robot's driver answers a state once it is shown. A state may be marked more than once
    (publish posts a board)."""

    def decorate(
        show: Callable[Concatenate[TableBot, Shown, Rest], Awaitable[Result]],
    ) -> Callable[Concatenate[TableBot, Shown, Rest], Awaitable[Result]]:
        @functools.wraps(show)
        async def shown(
            bot: TableBot, subject: Shown, /, *args: Rest.args, **kwargs: Rest.kwargs
        ) -> Result:
            try:
                return await show(bot, subject, *args, **kwargs)
            finally:
                bot.turn_shown(view_of(subject))

        return shown

    return decorate


def target_channel(bot: TableBot, view: MatchView) -> discord.PartialMessageable:
    return delivery.target_channel(bot, view)


async def strip_components(bot: TableBot, view: MatchView, message_id: int | None) -> None:
    """Remove the buttons of an earlier board (a stale click is refused anyway)."""
    await delivery.edit_board(bot, view, message_id, {"view": None})


async def turn_message(
    renderer: Renderer, view: MatchView, notes: Sequence[str] = (), *, ping: bool = True
) -> delivery.TurnMessage:
    """The board message of the current turn: the ping of the player on turn, the embed, the
    board picture and the components."""
    embed = turn_embed(view, notes)
    # Render describes the board in English; another reader gets the embed's words.
    rendered = await render_board(
        renderer, view, None if reader.get() == "en" else embed_alt(embed)
    )
    file = None
    if rendered is not None:
        file, _alt = rendered
        embed.set_image(url="attachment://board.png")
    content = ""
    allowed = NO_MENTIONS
    if ping and view.actor is not None and not view.match_over and view.actor != view.robot_seat:
        # The human on turn is pinged; the robot (the bot itself) is not.
        player = view.players[view.actor]
        content = text("turn.ping", user_id=player.user_id)
        allowed = mention_only(player.user_id)
    if view.phase is Phase.MOVE and len(view.legal_moves) > ui.MAX_SELECT_OPTIONS:
        content += "\n" + text(
            "turn.many_moves", count=len(view.legal_moves), shown=ui.MAX_SELECT_OPTIONS
        )
    return delivery.TurnMessage(content.strip() or None, embed, file, ui.turn_view(view), allowed)


def _the_view(view: MatchView) -> MatchView:
    return view


def _its_view(update: MatchUpdate) -> MatchView:
    return update.view


@for_server
@marks_shown(_the_view)
async def post_board(
    bot: TableBot,
    view: MatchView,
    notes: Sequence[str] = (),
    *,
    ping: bool = True,
    via: discord.Interaction[Any] | None = None,
) -> discord.Message:
    """Post the current turn as a new message (the follow-up of ``via`` where it can), strip
    the previous board, remember this one."""
    previous = view.board_message_id
    turn = await turn_message(bot.renderer, view, notes, ping=ping)
    message = await delivery.post_board_message(bot, view, turn, via)
    await bot.service.handle(SetBoardMessage(view.match_id, message.id))
    if previous is not None and previous != message.id:
        await strip_components(bot, view, previous)
    return message


@for_server
async def post_result(
    bot: TableBot, update: MatchUpdate, via: discord.Interaction[Any] | None = None
) -> discord.Message | None:
    """Announce a finished game (and the match, when it ended too)."""
    view = update.view
    result = update.game_result
    lines: list[str] = []
    if result is not None:
        lines.append(result_text(view, result))
    lines.append(text("result.score", score=score_text(view)))
    # A NANNON is shouted: only Nannon's double win is of that kind.
    nannon = result is not None and result.kind is ResultKind.NANNON and result.winner is not None
    content = None
    allowed = NO_MENTIONS
    if nannon and result is not None and result.winner is not None:
        winner = view.players[result.winner]
        content = text("shout.invite", user_id=winner.user_id, shout=SHOUT)
        allowed = mention_only(winner.user_id)
    if update.match_over:
        lines.append(match_over_text(update))
    elif view.opening_dice is not None:
        a, b = (escape_name(p.name) for p in view.players)
        d0, d1 = view.opening_dice
        lines.append(
            text("result.next_opening", number=view.game_number, first=a, d0=d0, second=b, d1=d1)
        )
    embed = discord.Embed(
        title=text(
            "result.match_over" if update.match_over else "result.game_over",
            title=discord.utils.escape_markdown(match_title(view)),
        )[:256],
        description="\n".join(lines)[:4000],
        colour=style_of(view.kind).colour,
    )
    if nannon and result is not None:
        footer = text("shout.footer", match_id=view.match_id, game=result.game_number)
        embed.set_footer(text=footer)
    else:
        embed.set_footer(text=text("match.footer", match_id=view.match_id))
    kwargs: dict[str, Any] = {"embed": embed, "allowed_mentions": allowed}
    if update.match_over:
        kwargs["view"] = ui.finished_view(view.match_id)
    message = await delivery.post_to_match(bot, view, content, via, **kwargs)
    if nannon and result is not None:
        bot.shout_messages[message.id] = (view.match_id, result.game_number)
        try:
            await message.add_reaction(SHOUT)
        except discord.HTTPException:
            log.info("could not add the %s reaction in match %s", SHOUT, view.match_id)
    return message


def match_over_text(update: MatchUpdate) -> str:
    view = update.view
    names = [escape_name(p.name) for p in view.players]
    lines = []
    if update.winner_seat is not None:
        lines.append(text("result.match_won", name=names[update.winner_seat]))
    else:
        lines.append(text("result.match_drawn"))
    for change in update.rating_changes:
        sign = "+" if change.delta >= 0 else ""
        lines.append(
            text(
                "result.rating",
                name=names[change.seat],
                before=number(change.before, ".0f"),
                after=number(change.after, ".0f"),
                delta=sign + number(change.delta, ".1f"),
            )
        )
    seed = update.revealed_seed or view.dice_seed
    if seed and view.dice_commitment:
        lines.append(
            text(
                "result.seed",
                seed=seed,
                commitment=view.dice_commitment,
                match_id=view.match_id,
            )
        )
    return "\n".join(lines)


def goes_on_in_place(update: MatchUpdate, via: discord.Interaction[Any] | None) -> bool:
    """Whether the board is edited in place: the player who acted (through ``via``) acts next,
    or nobody in particular does (a tied opening roll); nothing ended. Without an interaction
    (the bot's own move) a new board is posted."""
    view = update.view
    if via is None or update.game_result is not None or update.match_over:
        return False
    return view.actor is None or view.seat_of(via.user.id) == view.actor


@for_server
@marks_shown(_its_view)
async def publish(
    bot: TableBot, update: MatchUpdate, via: discord.Interaction[Any] | None = None
) -> None:
    """Show what an action changed. ``via``, the interaction that asked for it, answers where
    it can (bot.discord.delivery): when the same player goes on (a roll, then the move) the board
    is edited in place; when the turn passes, or a game ended, the board loses its buttons, the
    result is announced, and the next board is a new message that pings the player on turn.
    When the robot plays next, its reply is that board (:func:`show_robot_step`).
    A click must not be answered yet; a command's "thinking" answer must be filled in."""
    if via is not None:
        delivery.remember_interaction(bot, update.match_id, via)
    notes = [*bot.robot_turns.pop(update.match_id, []), *wording.notes(update)]
    if robot_goes_on(update):
        # The board shows this action in place (its buttons stay while the robot thinks); the
        # robot's reply repeats it above the robot's turn, in one new board.
        view = update.view
        fields = (await turn_message(bot.renderer, view, notes)).for_edit()
        del fields["content"]  # its ping stays, as on a board whose turn passed
        await delivery.edit_board(bot, view, view.board_message_id, fields, via)
        if delivery.is_click(via) and via is not None:
            await delivery.defer(via)  # a click on another message (a menu)
        hold_for_robot(bot, update, notes)
        return
    await _show(bot, update, notes, via, in_place=goes_on_in_place(update, via))


def robot_plays_next(update: MatchUpdate) -> bool:
    """Whether the robot acts next in its match (after the results of a game that ended)."""
    view = update.view
    return view.robot_seat is not None and view.actor == view.robot_seat and not view.match_over


def robot_goes_on(update: MatchUpdate) -> bool:
    """Whether the robot acts next and nothing ended: its turn is not over."""
    return robot_plays_next(update) and update.game_result is None


def hold_for_robot(bot: TableBot, update: MatchUpdate, notes: Sequence[str]) -> None:
    """``notes`` wait for the board the robot's turn ends on; the robot answers this state."""
    bot.robot_turns.setdefault(update.match_id, []).extend(notes)
    bot.turn_shown(update.view)


@marks_shown(_its_view)
async def show_robot_step(bot: TableBot, update: MatchUpdate) -> None:
    """What the robot did: held while its turn goes on; when it ends, the whole turn (its roll,
    its move, every forced step of either side, what the member did before) is one board, a
    line per step, through the member's latest interaction while its token lives."""
    if robot_goes_on(update):
        hold_for_robot(bot, update, wording.notes(update))
        return
    notes = [*bot.robot_turns.pop(update.match_id, []), *wording.notes(update)]
    via = delivery.live_interaction(bot, update.match_id)
    await _show(bot, update, notes, via, in_place=False)


async def show_robot_stuck(bot: TableBot, view: MatchView) -> None:
    """The robot is stuck: what it did of its turn is shown on a board."""
    notes = bot.robot_turns.pop(view.match_id, [])
    if notes:
        await post_board(bot, view, notes, via=delivery.live_interaction(bot, view.match_id))


async def _show(
    bot: TableBot,
    update: MatchUpdate,
    notes: Sequence[str],
    via: discord.Interaction[Any] | None,
    *,
    in_place: bool,
) -> None:
    view = update.view
    board_id = view.board_message_id
    turn: delivery.TurnMessage | None = None
    if in_place:
        turn = await turn_message(bot.renderer, view, notes)
        if await delivery.edit_board(bot, view, board_id, turn.for_edit(), via):
            return
        # Not editable (deleted, or its channel refuses it): a new board below.
    else:
        # The board's final state: no buttons (the result message carries Export and Rematch).
        await delivery.edit_board(bot, view, board_id, {"view": None}, via)
    if delivery.is_click(via) and via is not None:
        await delivery.defer(via)  # a click on some other message: answered, nothing changes
    # The action stands (it is in the log) whatever Discord refuses below: a refusal is said
    # plainly, rather than the apology's "try again", and the rest is still posted.
    missed: str | None = None
    if update.game_result is not None or update.match_over:
        try:
            await post_result(bot, update, via)
        except discord.HTTPException as exc:
            log.warning("match %s: could not post the result: %s", view.match_id, exc)
            missed = text("error.result_not_posted")
    if update.match_over:
        await bot.service.handle(SetBoardMessage(view.match_id, None))
        delivery.forget_board(bot, view.match_id)
    elif robot_plays_next(update):
        hold_for_robot(bot, update, notes)  # the robot's reply shows these with its turn
    else:
        try:
            turn = turn or await turn_message(bot.renderer, view, notes)
            message = await delivery.post_board_message(bot, view, turn, via)
            await bot.service.handle(SetBoardMessage(view.match_id, message.id))
        except discord.HTTPException as exc:
            log.warning(
                "match %s: could not post the board of move %s: %s",
                view.match_id,
                view.version,
                exc,
            )
            missed = text("error.board_not_posted")
    if missed is not None:
        raise FormattedGameError(missed)


@for_server
async def move_out_of_thread(
    bot: TableBot, match_id: int, guild_id: int, how: str, *, thread_id: int | None = None
) -> bool:
    """The match's thread was deleted, locked or closed by a moderator (``how``, in
    wording.thread_gone's words): the match goes on in a new thread where the bot may open one
    (delivery.new_thread), else in the thread's parent channel; its board is posted again there
    (pinging the player on turn). False when there was nothing to move (over, or not in a
    thread any more, or no longer in ``thread_id``: a lock, then an archive, of one thread
    move the match once)."""
    async with delivery.moving(match_id):
        view = await bot.service.handle(ViewMatch(match_id, guild_id))
        if view.match_over or view.thread_id is None:
            return False
        if thread_id is not None and view.thread_id != thread_id:
            return False
        log.info("match %s leaves thread %s (%s)", match_id, view.thread_id, how)
        await bot.service.handle(SetThread(match_id, await delivery.new_thread(bot, view)))
    # The board in the thread can't be edited any more (gone, locked or archived).
    await bot.service.handle(SetBoardMessage(match_id, None))
    delivery.forget_board(bot, match_id)
    view = await bot.service.handle(ViewMatch(match_id, guild_id))
    try:
        await post_board(bot, view, [wording.thread_gone(how)])
    except discord.HTTPException as exc:
        log.warning("match %s: could not post its board in the channel: %s", match_id, exc)
    return True


@for_server
async def start_match(
    bot: TableBot,
    update: MatchUpdate,
    invitation: discord.Message | None,
    *,
    threads: bool = True,
    via: discord.Interaction[Any] | None = None,
    close: bool = True,
) -> None:
    """After an accept (``via``, the click on the invitation): close the invitation (unless
    not ``close``: a tournament's pairing message stays as it is), open the match thread when
    allowed (the server's setting, and ``threads``: the bot may create threads there and post
    in them), first board."""
    view = update.view
    names = [escape_name(p.name) for p in view.players]
    if invitation is not None and close:
        closed: dict[str, Any] = {
            "content": text(
                "challenge.accepted", name=names[1], challenger=names[0], match_id=view.match_id
            ),
            "view": None,
            "allowed_mentions": NO_MENTIONS,
        }
        try:
            if delivery.is_click(via) and via is not None:
                await delivery.answer_edit(via, **closed)
            else:
                await invitation.edit(**closed)
        except discord.HTTPException:
            log.info("could not close invitation %s", invitation.id)
    settings = await bot.service.handle(GetSettings(view.guild_id))
    if settings.use_threads and threads and invitation is not None:
        try:
            thread = await invitation.create_thread(
                name=match_title(view), auto_archive_duration=1440
            )
        except (discord.HTTPException, ValueError, TypeError) as exc:
            # No permission, or already in a thread: the match stays in the channel.
            log.info("match %s stays in its channel: %s", view.match_id, exc)
        else:
            await bot.service.handle(SetThread(view.match_id, thread.id))
            view = await bot.service.handle(ViewMatch(view.match_id, view.guild_id))
    if delivery.is_click(via) and via is not None:
        await delivery.defer(via)
        delivery.remember_interaction(bot, view.match_id, via)
    if robot_goes_on(update):
        # The robot plays first: its turn's board shows the start too (one board, not two).
        hold_for_robot(bot, update, wording.notes(update))
        return
    try:
        await post_board(bot, view, wording.notes(update), via=via)
    except discord.HTTPException as exc:
        # The match exists: /board posts its board once Discord takes it.
        log.warning("match %s: could not post the first board: %s", view.match_id, exc)
        raise FormattedGameError(text("error.first_board_not_posted")) from exc
