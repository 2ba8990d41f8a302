"""The action pipeline: :func:`act` checks a command, applies its action and the automatic steps
after it (opening rolls, rolls when doubling is impossible, the only legal move), commits them in
one transaction and answers with a :class:`MatchUpdate`.

Concurrency: the match's lock serialises one process's actions; ``expected_version`` refuses an
action meant for an earlier state, and the store's version check catches a second process on the
same file (its conflict becomes a :class:`StaleActionError` after the stale copy is dropped).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from bot.service.commands import MatchCommand
from bot.service.errors import StaleActionError
from bot.service.handlers import COMMAND_HANDLERS, Turn, draw
from bot.service.model import MatchStatus, MatchUpdate, RatingChange
from bot.service.settings import GuildSettings
from bot.service.standings import game_stats, rate
from bot.service.state import LiveMatch, ServiceState
from bot.service.views import build_view, legal, must_pass
from bot.storage import NewEvent, StatUpdate, VersionConflict
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    ConcedeMatch,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.base import ActionResult, GameKind, GameResult, Phase, ResignLevel, ResultKind
from engines.errors import PhaseError
from engines.match import NO_MOVE

if TYPE_CHECKING:
    import sqlite3  # the store's connection, inside its transaction

log = logging.getLogger(__name__)

MAX_ADVANCE = 1000  # automatic steps per action; a safety net against an engine loop
PASS_HINT = f'play "{NO_MOVE}" to pass the turn'  # when auto_pass is off
CHANGED = "This match changed while you were acting: look at the latest board and try again."
RESULT_WORDS = {
    ResultKind.SINGLE: "a single game",
    ResultKind.GAMMON: "a gammon",
    ResultKind.BACKGAMMON: "a backgammon",
    ResultKind.NANNON: "a NANNON",
    ResultKind.DROP: "a passed double",
    ResultKind.RESIGN: "resignation",
    ResultKind.FORFEIT: "forfeit",
    ResultKind.DRAW: "a draw",
}


def points(value: float) -> str:
    return f"{value:g}"


def plural(value: float, word: str) -> str:
    return f"{points(value)} {word}{'' if value == 1 else 's'}"


def dice_text(dice: tuple[int, ...]) -> str:
    return "-".join(str(d) for d in dice)


@dataclass
class Step:
    action: Action
    actor: int | None  # Discord user id, None for an automatic action
    result: ActionResult
    notes: list[str]


async def act(state: ServiceState, command: MatchCommand) -> MatchUpdate:
    """Apply a player's command (see :mod:`bot.service.commands`): check it, apply its action
    and the automatic steps after it, commit, answer. With ``expected_version`` (the one the
    clicked board showed), a command on any other version raises StaleActionError."""
    handler = COMMAND_HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"no handler for {type(command).__name__}")
    decide = handler(command)  # checks the command's own arguments first
    settings = await state.guild_settings(command.guild_id)
    match_id = command.match_id
    while True:
        live = await state.live_match(match_id, command.guild_id)
        async with live.lock:
            if not live.valid:
                continue  # evicted while we waited: reload
            record = live.record
            expected = command.expected_version
            if expected is not None and expected != record.version:
                raise StaleActionError(
                    "That board is out of date: the match has moved on. Use the latest board."
                )
            seat = record.seat_of(command.user_id)
            if record.status is MatchStatus.FINISHED:
                raise PhaseError(f"Match #{match_id} is over.")
            counter = live.dice.counter
            games_before = len(live.match.games)
            # An accepted resignation ends the game at the offer's level (for the stats).
            offer = getattr(live.match, "resign_offer", None)
            try:
                action = decide(Turn(live, seat, settings, state.now()))
                result = live.match.apply(action)
            except BaseException:
                live.dice.counter = counter  # nothing changed: un-draw the dice
                raise
            steps = [Step(result.action, command.user_id, result, [])]
            describe(live, steps[0])
            try:
                advance(live, settings, steps)
                resigned = None if offer is None else ResignLevel(offer[1])
                await commit(state, live, steps, games_before, resigned)
            except VersionConflict:
                # Another process sharing the database committed first: our copy is stale.
                log.warning("match %d: version conflict, reloading", match_id)
                state.evict(match_id)
                raise StaleActionError(CHANGED) from None
            except BaseException:
                # Memory is ahead of the database now: drop it, reload on next use.
                log.exception("match %d: action not committed", match_id)
                state.evict(match_id)
                raise
            update = make_update(live, steps)
            if live.match.is_over():
                state.evict(match_id)  # finished matches are read from the database
            return update


def advance(live: LiveMatch, settings: GuildSettings, steps: list[Step]) -> None:
    """Make the automatic steps: opening rolls, rolls when doubling is impossible, the only
    legal move. Stops where a player must decide."""
    match = live.match
    dice_game = live.record.game is not GameKind.CHECKERS
    for _ in range(MAX_ADVANCE):
        phase = match.phase
        action: Action
        if phase is Phase.OPENING or (
            phase is Phase.OPENING_TIE
            and settings.auto_roll
            and not (match.can_double(0) or match.can_double(1))
        ):
            action = OpeningRoll(None, (live.dice.roll_die(), live.dice.roll_die()))
        elif (
            phase is Phase.ROLL
            and dice_game
            and settings.auto_roll
            and not match.can_double(match.turn)
        ):
            action = Roll(match.turn, draw(live))
        elif phase is Phase.MOVE and settings.auto_move:
            texts = legal(live)[1]
            if len(texts) != 1 or texts[0] == NO_MOVE:
                return  # a choice to make, or a pass the player confirms (auto_pass off)
            action = Move(match.turn, texts[0])
        else:
            return
        step = Step(action, None, match.apply(action), [])
        describe(live, step)
        steps.append(step)
        if match.is_over():
            return
    raise RuntimeError(f"match {live.record.id}: automatic play did not stop")


def new_event(step: Step, now: float) -> NewEvent:
    return NewEvent(now, step.actor, step.action.kind, step.action.to_dict())


async def commit(
    state: ServiceState,
    live: LiveMatch,
    steps: list[Step],
    games_before: int,
    resigned: ResignLevel | None = None,
) -> None:
    record, match = live.record, live.match
    now = state.now()
    events = [new_event(step, now) for step in steps]
    finished = match.games[games_before:]
    over = match.is_over()
    score = match.score
    changes: dict[str, Any] = {
        "score0": score[0],
        "score1": score[1],
        "dice_counter": live.dice.counter,
        "last_action_at": now,
    }
    if over:
        changes |= {
            "status": MatchStatus.FINISHED.value,
            "winner_seat": match.winner(),
            "finished_at": now,
            "seed_revealed": 1,
        }
    rating_changes: list[RatingChange] = []

    winner = match.winner()

    def finish(db: sqlite3.Connection) -> tuple[list[StatUpdate], dict[str, Any]]:
        # Inside the action's transaction, on the store's thread.
        updates, rating_changes[:] = rate(db, record, winner)
        return updates, {"rating_changes": json.dumps([asdict(c) for c in rating_changes])}

    await state.store.commit_action(
        record.id,
        record.version,
        record.next_seq,
        events,
        match.snapshot(),
        changes,
        game_results=[{**result.to_dict(), "at": now} for result in finished],
        stat_updates=game_stats(record, finished, resigned),
        finish=finish if over else None,
    )
    record.version += 1
    record.next_seq += len(events)
    record.last_action_at = now
    if over:
        record.status = MatchStatus.FINISHED
        record.winner_seat = match.winner()
        record.finished_at = now
        record.rating_changes = tuple(rating_changes)


def describe(live: LiveMatch, step: Step) -> None:
    """Plain-language notes for one applied step."""
    match, action, result, notes = live.match, step.action, step.result, step.notes
    seat = action.player
    who = "" if seat is None else live.name(seat)
    kind = live.record.game
    if isinstance(action, OpeningRoll):
        d0, d1 = action.dice
        names = (live.name(0), live.name(1))
        if d0 == d1:
            text = f"Opening roll: both roll {d0}."
            if match.phase is Phase.OPENING_TIE:
                text += " Either player may double now, or roll again."
            else:
                text += " Rolling again."
                cube = getattr(match, "cube", None)
                if cube is not None and cube.value > 1 and match.rules.auto_doubles:
                    text += f" Automatic double: the cube is at {cube.value}."
            notes.append(text)
        else:
            first = 0 if d0 > d1 else 1
            plays = (
                f"moves first with a {abs(d0 - d1)}"
                if kind is GameKind.NANNON
                else f"plays {max(d0, d1)}-{min(d0, d1)} first"
            )
            notes.append(f"Opening roll: {names[0]} {d0}, {names[1]} {d1}: {names[first]} {plays}.")
            if result.turn_forfeited:
                notes.append(
                    f"{names[first]} has no legal move: the turn passes to {names[1 - first]}."
                )
            elif must_pass(live):
                notes.append(f"{names[first]} has no legal move: {PASS_HINT}.")
    elif isinstance(action, Roll):
        text = f"{who} rolls {dice_text(action.dice)}"
        if result.turn_forfeited:
            assert seat is not None
            text += f": no legal move, the turn passes to {live.name(1 - seat)}"
        elif must_pass(live):
            text += f": no legal move, {PASS_HINT}"
        notes.append(text + ".")
    elif isinstance(action, Move) and result.turn_forfeited:
        assert seat is not None
        notes.append(f"{who} has no legal move: the turn passes to {live.name(1 - seat)}.")
    elif isinstance(action, Move):
        forced = " (the only legal move, played automatically)" if step.actor is None else ""
        notes.append(f"{who} plays {action.move}{forced}.")
    elif isinstance(action, Double):
        notes.append(f"{who} doubles to {match.cube.value * 2}.")
    elif isinstance(action, Take):
        notes.append(f"{who} takes: the cube is at {match.cube.value}.")
    elif isinstance(action, Drop):
        notes.append(f"{who} passes.")
    elif isinstance(action, Resign):
        if kind is GameKind.CHECKERS:
            notes.append(f"{who} resigns.")
        else:
            level = ResignLevel(action.level).name.lower()
            notes.append(f"{who} offers to resign a {level} game.")
    elif isinstance(action, AcceptResign):
        notes.append(f"{who} accepts the resignation.")
    elif isinstance(action, DeclineResign):
        notes.append(f"{who} declines the resignation: play on.")
    elif isinstance(action, OfferDraw):
        notes.append(f"{who} offers a draw.")
    elif isinstance(action, AcceptDraw):
        notes.append(f"{who} accepts the draw.")
    elif isinstance(action, DeclineDraw):
        notes.append(f"{who} declines the draw: play on.")
    elif isinstance(action, ConcedeMatch):
        assert seat is not None
        if action.reason == "timeout":
            notes.append(f"{who} was idle too long: {live.name(1 - seat)} claims the match.")
        else:
            notes.append(f"{who} leaves the match.")
    game = result.game_result
    if game is not None:
        notes.append(game_note(live, game))
        if not result.match_over and getattr(match, "crawford_game", False):
            notes.append(f"Game {match.game_number} is the Crawford game: no doubling.")
    if result.match_over:
        winner = match.winner()
        score = match.score
        if winner is None:
            notes.append(f"The match is drawn, {points(score[0])}-{points(score[1])}.")
        else:
            notes.append(
                f"{live.name(winner)} wins the match "
                f"{points(score[winner])}-{points(score[1 - winner])}."
            )


def game_note(live: LiveMatch, game: GameResult) -> str:
    score = live.match.score
    tally = f"Score: {points(score[0])}-{points(score[1])}."
    if game.winner is None:
        return f"Game {game.game_number} is drawn. {tally}"
    winner = live.name(game.winner)
    how = "with a NANNON!" if game.kind is ResultKind.NANNON else f"by {RESULT_WORDS[game.kind]}"
    won = plural(game.points, live.record.unit)
    cube = f" (cube {game.cube})" if game.cube > 1 else ""
    return f"{winner} wins game {game.game_number} {how}: {won}{cube}. {tally}"


def make_update(live: LiveMatch, steps: list[Step], opening: Sequence[str] = ()) -> MatchUpdate:
    """The answer to an action (or an accept, with its ``opening`` notes)."""
    record = live.record
    results = [s.result.game_result for s in steps if s.result.game_result is not None]
    over = record.status is MatchStatus.FINISHED
    notes = list(opening)
    for step in steps:
        notes.extend(step.notes)
    return MatchUpdate(
        match_id=record.id,
        version=record.version,
        view=build_view(live),
        notes=tuple(notes),
        game_result=results[-1] if results else None,
        match_over=over,
        winner_seat=record.winner_seat if over else None,
        rating_changes=record.rating_changes if over else (),
        revealed_seed=record.seed.hex() if over else None,
    )
