"""The action pipeline: :func:`act` checks a command, applies its action and the automatic steps
after it (opening rolls, rolls when doubling is impossible, the only legal move), commits them in
one transaction and answers with a :class:`MatchUpdate`, its events for the bus
(:func:`bot.service.events.update_events`) and their place in the match's delivery order.

Concurrency: the match's lock serialises one process's actions; ``expected_version`` refuses an
action meant for an earlier state, and the store's version check catches a second process on the
same file (its conflict becomes a :class:`StaleActionError` after the stale copy is dropped).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.service.bus import Outcome
from bot.service.commands import MatchCommand
from bot.service.errors import Refusal, refused
from bot.service.events import MatchEvent, step_events, update_events
from bot.service.handlers import Decide, Turn, die, draw
from bot.service.model import MatchStatus, MatchUpdate, RatingChange
from bot.service.ratings import rate_match
from bot.service.settings import GuildSettings
from bot.service.standings import game_stats
from bot.service.state import LiveMatch, MatchRecord, ServiceState
from bot.service.views import build_view, legal
from bot.storage import NewEvent, RobotRecordUpdate, Row, StatUpdate, VersionConflict
from engines.actions import (
    Action,
    Move,
    OpeningRoll,
    Roll,
)
from engines.base import ActionResult, Phase, ResignLevel
from engines.match import NO_MOVE

log = logging.getLogger(__name__)

MAX_ADVANCE = 1000  # automatic steps per action; a safety net against an engine loop


@dataclass
class Step:
    action: Action
    actor: int | None  # Discord user id, None for an automatic action
    result: ActionResult
    events: list[MatchEvent] = field(default_factory=list)


async def act(state: ServiceState, command: MatchCommand, decide: Decide) -> Outcome[MatchUpdate]:
    """Apply a player's command (see :mod:`bot.service.commands`) with ``decide``, its
    handler's choice of engine action: apply it and the automatic steps after it, commit,
    answer. With ``expected_version`` (the one the clicked board showed), a command on any
    other version raises StaleActionError."""
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
                raise refused(Refusal.STALE_BOARD)
            seat = record.seat_of(command.user_id)
            if record.status is MatchStatus.FINISHED:
                raise refused(Refusal.MATCH_OVER, match_id=match_id)
            counter = live.dice.counter
            games_before = len(live.match.games)
            # An accepted resignation ends the game at the offer's level (for the stats).
            offer = live.match.resign_offer
            try:
                action = decide(Turn(live, seat, settings, state.now()))
                result = live.match.apply(action)
            except BaseException:
                live.dice.counter = counter  # nothing changed: un-draw the dice
                raise
            steps = [Step(result.action, command.user_id, result)]
            describe(live, steps[0])
            try:
                advance(live, settings, steps)
                resigned = None if offer is None else ResignLevel(offer[1])
                await commit(state, live, steps, games_before, resigned, settings=settings)
            except VersionConflict:
                # Another process sharing the database committed first: our copy is stale.
                log.warning("match %d: version conflict, reloading", match_id)
                state.evict(match_id)
                raise refused(Refusal.MATCH_CHANGED) from None
            except BaseException:
                # Memory is ahead of the database now: drop it, reload on next use.
                log.exception("match %d: action not committed", match_id)
                state.evict(match_id)
                raise
            update = make_update(live, steps)
            if live.match.is_over():
                state.evict(match_id)  # finished matches are read from the database
            slot = state.bus.reserve(match_id)  # published in commit order
            return Outcome(update, update_events(command, update), slot)


def advance(live: LiveMatch, settings: GuildSettings, steps: list[Step]) -> None:
    """Make the automatic steps: opening rolls, rolls when doubling is impossible, the only
    legal move. Stops where a player must decide."""
    match = live.match
    dice_game = match.spec.has_dice
    for _ in range(MAX_ADVANCE):
        phase = match.phase
        action: Action
        if phase is Phase.OPENING or (
            phase is Phase.OPENING_TIE
            and settings.auto_roll
            and not (match.can_double(0) or match.can_double(1))
        ):
            action = OpeningRoll(None, (die(live), die(live)))
        elif (
            phase is Phase.ROLL
            and dice_game
            and settings.auto_roll
            and not match.can_double(match.turn)
        ):
            action = Roll(match.turn, draw(live))
        elif phase is Phase.MOVE and settings.auto_move:
            texts = legal(live)
            if len(texts) != 1 or texts[0] == NO_MOVE:
                return  # a choice to make, or a pass the player confirms (auto_pass off)
            action = Move(match.turn, texts[0])
        else:
            return
        step = Step(action, None, match.apply(action))
        describe(live, step)
        steps.append(step)
        if match.is_over():
            return
    raise RuntimeError(f"match {live.record.id}: automatic play did not stop")


def new_event(step: Step, now: float) -> NewEvent:
    return NewEvent(now, step.actor, step.action.kind, step.action.to_dict())


def robot_records(
    record: MatchRecord, winner: int | None, score: tuple[float, float]
) -> list[RobotRecordUpdate]:
    """A finished robot match (won by seat ``winner``, None for a draw, at ``score``) in its
    human player's record against the robot's level; nothing for a match between people."""
    robot, level = record.robot_seat, record.robot_level
    if robot is None or level is None:
        return []
    human = 1 - robot
    outcome = "drawn" if winner is None else ("won" if winner == human else "lost")
    player = record.players[human]
    add = {"played": 1, outcome: 1, "points_won": score[human], "points_lost": score[robot]}
    return [
        RobotRecordUpdate(
            record.guild_id, record.game.value, player.user_id, player.name, level, add
        )
    ]


async def commit(
    state: ServiceState,
    live: LiveMatch,
    steps: list[Step],
    games_before: int,
    resigned: ResignLevel | None = None,
    *,
    settings: GuildSettings,
) -> None:
    """Commit the steps. A match against the robot changes stats, ratings and leaderboards
    only when the server rates robot matches (``robot_rated``, as it is when each game ends);
    its end always counts in the human's record against the robot's level."""
    record, match = live.record, live.match
    rated = record.robot_seat is None or settings.robot_rated
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

    def finish(rows: Mapping[int, Row]) -> tuple[list[StatUpdate], dict[str, Any]]:
        # Pure: the store calls it inside the action's transaction with the players' rows.
        updates, ratings = rate_match(
            record.players, record.guild_id, record.game, record.rules.length, winner, rows
        )
        rating_changes[:] = [
            RatingChange(seat, player.user_id, before, after)
            for seat, (player, (before, after)) in enumerate(
                zip(record.players, ratings, strict=True)
            )
        ]
        return updates, {"rating_changes": json.dumps([asdict(c) for c in rating_changes])}

    robot = robot_records(record, winner, (float(score[0]), float(score[1]))) if over else []
    await state.store.commit_action(
        record.id,
        record.version,
        record.next_seq,
        events,
        match.snapshot(),
        changes,
        game_results=[{**result.to_dict(), "at": now} for result in finished],
        stat_updates=game_stats(record, finished, resigned) if rated else (),
        finish=finish if over and rated else None,
        robot_records=robot,
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
    """Record what one step, just applied, did."""
    auto = step.actor is None
    step.events = step_events(live, step.action, step.result, auto=auto)


def make_update(
    live: LiveMatch, steps: list[Step], opening: Sequence[MatchEvent] = ()
) -> MatchUpdate:
    """The answer to an action (or an accept, with its ``opening`` events)."""
    record = live.record
    results = [s.result.game_result for s in steps if s.result.game_result is not None]
    over = record.status is MatchStatus.FINISHED
    events = list(opening)
    for step in steps:
        events.extend(step.events)
    return MatchUpdate(
        match_id=record.id,
        version=record.version,
        view=build_view(live),
        events=tuple(events),
        game_result=results[-1] if results else None,
        match_over=over,
        winner_seat=record.winner_seat if over else None,
        rating_changes=record.rating_changes if over else (),
        revealed_seed=record.seed.hex() if over else None,
    )
