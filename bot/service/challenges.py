"""Challenges: make one (named or open), answer it (accept, decline, cancel), expire it, and the
rematch. Accepting creates the match (seat 0 = the challenger) and rolls its opening."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

from bot.service.actions import Step, advance, make_update, new_event
from bot.service.errors import Refusal, refused
from bot.service.events import ChallengeExpired, MatchStarted
from bot.service.model import Challenge, ChallengeStatus, MatchStatus, MatchUpdate, Player
from bot.service.settings import MAX_AUTO_DOUBLES, MAX_LENGTH, GuildSettings
from bot.service.state import (
    LiveMatch,
    MatchRecord,
    ServiceState,
    clean_name,
    game_kind,
    storable,
)
from bot.service.timers import Deadline
from bot.service.views import colours as match_colours
from engines import new_match
from engines.base import GameKind, MatchRules
from engines.dice import commitment
from engines.match import validate_rules
from engines.spec import spec_of

log = logging.getLogger(__name__)


def challenge_from_row(row: Any) -> Challenge:
    opponent = (
        None if row["opponent_id"] is None else Player(row["opponent_id"], row["opponent_name"])
    )
    return Challenge(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=GameKind(row["game"]),
        rules=MatchRules.from_dict(json.loads(row["rules"])),
        challenger=Player(row["challenger_id"], row["challenger_name"]),
        opponent=opponent,
        status=ChallengeStatus(row["status"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        match_id=row["match_id"],
        message_id=row["message_id"],
    )


def challenge_row(
    guild_id: int,
    channel_id: int,
    game: GameKind,
    rules: MatchRules,
    challenger: Player,
    opponent: Player | None,
    now: float,
    lasts: float,
) -> dict[str, Any]:
    """An open challenge's row, as :func:`challenge_from_row` reads it: a member's, or a
    tournament pairing's; open for ``lasts`` seconds from ``now``."""
    return {
        "guild_id": guild_id,
        "channel_id": channel_id,
        "game": game.value,
        "rules": json.dumps(rules.to_dict()),
        "challenger_id": challenger.user_id,
        "challenger_name": challenger.name,
        "opponent_id": None if opponent is None else opponent.user_id,
        "opponent_name": None if opponent is None else opponent.name,
        "status": ChallengeStatus.OPEN.value,
        "created_at": now,
        "expires_at": now + lasts,
    }


async def new_challenge(
    state: ServiceState,
    guild_id: int,
    channel_id: int,
    challenger_id: int,
    challenger_name: str,
    game: GameKind | str,
    *,
    opponent_id: int | None = None,
    opponent_name: str | None = None,
    opponent_is_bot: bool = False,
    length: int | None = None,
    cube: bool | None = None,
    crawford: bool | None = None,
    jacoby: bool | None = None,
    auto_doubles: int | None = None,
) -> Challenge:
    """Record a challenge, named (``opponent_id``) or open to anyone.

    Options left None take the server's defaults. Refuses self-challenges, bots, bad lengths
    (1..25; 0 = money, backgammon only), Jacoby/auto-doubles outside money play, and
    channels outside the server's challenge channels.
    """
    kind = game_kind(game)
    if opponent_is_bot:
        raise refused(Refusal.BOT_OPPONENT)
    if opponent_id is not None and opponent_id == challenger_id:
        raise refused(Refusal.SELF_CHALLENGE)
    settings = await state.guild_settings(guild_id)
    if settings.challenge_channels and channel_id not in settings.challenge_channels:
        raise refused(Refusal.CHANNEL_NOT_ALLOWED, channels=settings.challenge_channels)
    rules = challenge_rules(kind, settings, length, cube, crawford, jacoby, auto_doubles)
    challenger = Player(challenger_id, clean_name(challenger_name))
    opponent = (
        None
        if opponent_id is None
        else Player(opponent_id, clean_name(opponent_name or str(opponent_id)))
    )
    row = challenge_row(
        guild_id,
        channel_id,
        kind,
        rules,
        challenger,
        opponent,
        state.now(),
        settings.challenge_minutes * 60,
    )
    challenge_id = await state.store.insert_challenge(row)
    log.info("challenge %d: %s in guild %d", challenge_id, kind.value, guild_id)
    return await get_challenge(state, challenge_id, guild_id)


def challenge_rules(
    kind: GameKind,
    settings: GuildSettings,
    length: int | None,
    cube: bool | None,
    crawford: bool | None,
    jacoby: bool | None,
    auto_doubles: int | None,
) -> MatchRules:
    spec = spec_of(kind)
    points = settings.default_length(kind) if length is None else length
    if type(points) is not int:
        raise refused(Refusal.LENGTH_NOT_WHOLE, length=points)
    if points == 0 and not spec.money_play:
        raise refused(Refusal.MONEY_NOT_BACKGAMMON)
    lowest = spec.min_length
    if not lowest <= points <= MAX_LENGTH:
        raise refused(
            Refusal.LENGTH_OUT_OF_RANGE,
            game=kind,
            lowest=lowest,
            highest=MAX_LENGTH,
            length=points,
        )
    if not spec.cube:
        if cube or crawford or jacoby or auto_doubles:
            raise refused(Refusal.CHECKERS_CUBE_OPTIONS)
        return MatchRules(length=points, cube=False, crawford=False)
    money = points == 0
    if not money and (jacoby or auto_doubles):
        raise refused(Refusal.MONEY_ONLY_OPTIONS)
    if auto_doubles is not None and not 0 <= auto_doubles <= MAX_AUTO_DOUBLES:
        raise refused(
            Refusal.AUTO_DOUBLES_OUT_OF_RANGE, highest=MAX_AUTO_DOUBLES, value=auto_doubles
        )
    use_cube = settings.cube if cube is None else bool(cube)
    rules = MatchRules(
        length=points,
        cube=use_cube,
        crawford=settings.crawford if crawford is None else bool(crawford),
        # Server defaults for money-only options apply to money games only.
        jacoby=money and use_cube and (settings.jacoby if jacoby is None else bool(jacoby)),
        auto_doubles=(settings.auto_doubles if auto_doubles is None else int(auto_doubles))
        if money and use_cube
        else 0,
    )
    if not use_cube and (jacoby or auto_doubles):
        raise refused(Refusal.CUBE_ONLY_OPTIONS)
    validate_rules(kind, rules)
    return rules


async def accept(
    state: ServiceState, challenge_id: int, guild_id: int, user_id: int, user_name: str
) -> MatchUpdate:
    """Accept a challenge: create the match (seat 0 = challenger), roll the opening."""
    challenge = await get_challenge(state, challenge_id, guild_id)
    check_open(challenge)
    if user_id == challenge.challenger.user_id:
        raise refused(Refusal.OWN_CHALLENGE)
    if challenge.opponent is not None and challenge.opponent.user_id != user_id:
        raise refused(Refusal.CHALLENGE_FOR_OTHER, name=challenge.opponent.name)
    return await start_match(state, challenge, Player(user_id, clean_name(user_name)))


ROBOT_LEVELS = range(1, 6)  # 1 beginner, 2 intermediate, 3 advanced, 4 expert, 5 master


def robot_level(level: object) -> int:
    """A robot level, 1 to 5; refused otherwise."""
    if type(level) is not int or level not in ROBOT_LEVELS:
        raise refused(Refusal.BAD_ROBOT_LEVEL, value=level)
    return level


async def robot_match(
    state: ServiceState,
    guild_id: int,
    channel_id: int,
    challenger_id: int,
    challenger_name: str,
    game: GameKind | str,
    *,
    robot_id: int,
    robot_name: str,
    level: int,
    length: int | None = None,
    cube: bool | None = None,
    crawford: bool | None = None,
    jacoby: bool | None = None,
    auto_doubles: int | None = None,
) -> MatchUpdate:
    """A match against the robot (``robot_id``: the bot's own user, seat 1) at ``level``: the
    challenge is recorded as any other (the same checks and server defaults) and the robot
    accepts it at once. The robot plays through :meth:`act` like anyone else."""
    chosen = robot_level(level)
    if robot_id == challenger_id:
        raise refused(Refusal.SELF_CHALLENGE)
    challenge = await new_challenge(
        state,
        guild_id,
        channel_id,
        challenger_id,
        challenger_name,
        game,
        opponent_id=robot_id,
        opponent_name=robot_name,
        length=length,
        cube=cube,
        crawford=crawford,
        jacoby=jacoby,
        auto_doubles=auto_doubles,
    )
    assert challenge.opponent is not None
    return await start_match(state, challenge, challenge.opponent, robot_level=chosen)


async def start_match(
    state: ServiceState, challenge: Challenge, opponent: Player, *, robot_level: int | None = None
) -> MatchUpdate:
    """Create the match of an open challenge accepted by ``opponent`` (seat 1; the robot when
    ``robot_level`` is given) and roll its opening."""
    guild_id = challenge.guild_id
    challenge_id = challenge.id
    now = state.now()
    settings = await state.guild_settings(guild_id)
    players = (challenge.challenger, opponent)
    rules = challenge.rules
    if spec_of(challenge.game).auto_pass:
        # A rule of the match (replay must not depend on today's settings), taken as the
        # match starts.
        rules = replace(rules, auto_pass=settings.auto_pass)
    match = new_match(challenge.game, rules)
    dice = state.dice_factory()
    record = MatchRecord(
        id=0,
        guild_id=guild_id,
        channel_id=challenge.channel_id,
        thread_id=None,
        board_message_id=None,
        game=challenge.game,
        rules=rules,
        players=players,
        status=MatchStatus.ACTIVE,
        winner_seat=None,
        commitment=commitment(dice.seed),
        seed=dice.seed,
        version=0,
        next_seq=0,
        created_at=now,
        last_action_at=now,
        finished_at=None,
        reminded_version=None,
        rating_changes=(),
        robot_seat=None if robot_level is None else 1,
        robot_level=robot_level,
    )
    live = LiveMatch(record, match, dice)
    steps: list[Step] = []
    advance(live, settings, steps)
    colours = match_colours(live)
    values: dict[str, Any] = {
        "guild_id": guild_id,
        "channel_id": challenge.channel_id,
        "challenge_id": challenge_id,
        "game": challenge.game.value,
        "length": rules.length,
        "rules": json.dumps(rules.to_dict()),
        "player0_id": players[0].user_id,
        "player0_name": players[0].name,
        "player1_id": players[1].user_id,
        "player1_name": players[1].name,
        "colour0": colours[0],
        "colour1": colours[1],
        "status": MatchStatus.ACTIVE.value,
        "dice_commitment": record.commitment,
        "dice_seed": dice.seed,
        "dice_counter": dice.counter,
        "created_at": now,
        "last_action_at": now,
        "version": 0,
        "robot_seat": record.robot_seat,
        "robot_level": record.robot_level,
    }
    events = [new_event(step, now) for step in steps]
    match_id = await state.store.create_match(challenge_id, values, events, match.snapshot())
    if match_id is None:
        raise refused(Refusal.CHALLENGE_TAKEN)
    record.id = match_id
    record.next_seq = len(events)
    state.keep(live)
    log.info("match %d started from challenge %d", match_id, challenge_id)
    started = MatchStarted(match_id, challenge.game, challenge.rules.length, record.commitment)
    return make_update(live, steps, [started])


def check_open(challenge: Challenge) -> None:
    """Refuse to answer a challenge (as :meth:`get_challenge` gives it: expired once past
    its time, even before its expiry deadline records it) that is no longer open. Accept,
    decline and cancel refuse alike and write nothing; the deadline records the expiry and the
    adapter closes the invitation."""
    if challenge.status is ChallengeStatus.ACCEPTED:
        raise refused(Refusal.CHALLENGE_ACCEPTED)
    if challenge.status is ChallengeStatus.EXPIRED:
        raise refused(Refusal.CHALLENGE_EXPIRED)
    if challenge.status is not ChallengeStatus.OPEN:
        raise refused(Refusal.CHALLENGE_CLOSED, status=challenge.status)


async def decline(state: ServiceState, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
    """The named opponent declines (for an open challenge: nobody may decline)."""
    challenge = await get_challenge(state, challenge_id, guild_id)
    check_open(challenge)
    if challenge.opponent is None:
        raise refused(Refusal.OPEN_CHALLENGE_DECLINE)
    if challenge.opponent.user_id != user_id:
        raise refused(Refusal.ONLY_OPPONENT_DECLINES, name=challenge.opponent.name)
    return await close_challenge(state, challenge, ChallengeStatus.DECLINED)


async def cancel(state: ServiceState, challenge_id: int, guild_id: int, user_id: int) -> Challenge:
    """The challenger withdraws an open challenge."""
    challenge = await get_challenge(state, challenge_id, guild_id)
    check_open(challenge)
    if challenge.challenger.user_id != user_id:
        raise refused(Refusal.ONLY_CHALLENGER_CANCELS, name=challenge.challenger.name)
    return await close_challenge(state, challenge, ChallengeStatus.CANCELLED)


async def close_challenge(
    state: ServiceState, challenge: Challenge, status: ChallengeStatus
) -> Challenge:
    if not await state.store.set_challenge_status(challenge.id, status.value):
        raise refused(Refusal.CHALLENGE_ANSWERED)
    return await get_challenge(state, challenge.id, challenge.guild_id)


async def get_challenge(state: ServiceState, challenge_id: int, guild_id: int) -> Challenge:
    if not storable(challenge_id):
        raise refused(Refusal.NO_SUCH_CHALLENGE, challenge_id=challenge_id)
    row = await state.store.challenge(challenge_id)
    if row is None or row["guild_id"] != guild_id:
        raise refused(Refusal.NO_SUCH_CHALLENGE, challenge_id=challenge_id)
    challenge = challenge_from_row(row)
    if challenge.status is ChallengeStatus.OPEN and state.now() >= challenge.expires_at:
        # Past its time, its expiry deadline not fired yet: expired all the same.
        challenge = replace(challenge, status=ChallengeStatus.EXPIRED)
    return challenge


async def set_challenge_message(state: ServiceState, challenge_id: int, message_id: int) -> None:
    await state.store.set_challenge_message(challenge_id, message_id)


EXPIRY = "challenge.expiry"
"""The deadline kind of a challenge's expiry: armed in the transaction that inserts the
challenge (a trigger of migration step 9), due at its ``expires_at``."""


async def expiry_due(state: ServiceState, deadline: Deadline, now: float) -> list[ChallengeExpired]:
    """A challenge's expiry deadline fired: the challenge, still open, is marked expired (once,
    even with several processes) and :class:`ChallengeExpired` tells the adapter to close its
    invitation; one answered meanwhile expires nothing."""
    rows = await state.store.expire_challenges(now, ids=[int(deadline.key)])
    return [
        ChallengeExpired(replace(challenge_from_row(row), status=ChallengeStatus.EXPIRED))
        for row in rows
    ]


def _rematch_options(record: MatchRecord) -> dict[str, Any]:
    """The finished match's rules as challenge options (the cube options exist only where the
    game has a cube)."""
    rules = record.rules
    cubed = spec_of(record.game).cube
    return {
        "length": rules.length,
        "cube": rules.cube if cubed else None,
        "crawford": rules.crawford if cubed else None,
        "jacoby": rules.jacoby if cubed else None,
        "auto_doubles": rules.auto_doubles if cubed else None,
    }


def _check_finished(record: MatchRecord) -> None:
    if record.status is not MatchStatus.FINISHED:
        raise refused(Refusal.MATCH_STILL_ON, match_id=record.id)


async def rematch(state: ServiceState, match_id: int, guild_id: int, user_id: int) -> Challenge:
    """A named challenge to the same opponent with the same rules, from a finished match."""
    record = (await state.live_match(match_id, guild_id)).record
    seat = record.seat_of(user_id)
    _check_finished(record)
    me, them = record.players[seat], record.players[1 - seat]
    return await new_challenge(
        state,
        guild_id,
        record.channel_id,
        me.user_id,
        me.name,
        record.game,
        opponent_id=them.user_id,
        opponent_name=them.name,
        **_rematch_options(record),
    )


async def robot_rematch(
    state: ServiceState, match_id: int, guild_id: int, user_id: int
) -> MatchUpdate:
    """The same match again against the robot at the same level, from a finished robot match
    (its human player asks; they are seat 0 again)."""
    record = (await state.live_match(match_id, guild_id)).record
    seat = record.seat_of(user_id)
    _check_finished(record)
    if record.robot_seat is None or record.robot_level is None or seat == record.robot_seat:
        raise refused(Refusal.NOT_A_PLAYER, match_id=match_id)
    me, robot = record.players[seat], record.players[record.robot_seat]
    return await robot_match(
        state,
        guild_id,
        record.channel_id,
        me.user_id,
        me.name,
        record.game,
        robot_id=robot.user_id,
        robot_name=robot.name,
        level=record.robot_level,
        **_rematch_options(record),
    )
