"""The service's results in words: what happened in an action (its events), why an action was
refused, and what /verify found. The service says what happened and to whom; this module picks
the catalogue's messages (:mod:`bot.discord.catalogue`) and fills them in.

Names appear here as the players typed them: whoever shows a text in Discord makes it inert
first (:func:`bot.discord.replies.inert_text`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.discord.catalogue import number, plural_key, text
from bot.discord.engine_words import PLURAL_BY, engine_words
from bot.robot.levels import LEVEL_NAMES
from bot.service import (
    ChallengeStatus,
    MatchUpdate,
    MatchView,
    Player,
    RobotRecord,
    VerifyReport,
)
from bot.service.errors import Refusal, Refused
from bot.service.events import (
    CrawfordGame,
    DiceRolled,
    DoubleOffered,
    DoublePassed,
    DoubleTaken,
    DrawAccepted,
    DrawDeclined,
    DrawOffered,
    GameOver,
    MatchEvent,
    MatchLeft,
    MatchOver,
    MatchStarted,
    MovePlayed,
    NoLegalMove,
    OpeningRolled,
    ResignationAccepted,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Stuck,
    WinClaimed,
)
from engines.analysis import Decision, DecisionKind
from engines.base import GameKind, GameResult, ResignLevel, ResultKind
from engines.errors import GameError
from engines.match import NO_MOVE
from engines.spec import spec_of

__all__ = [
    "describe_event",
    "missing_permissions",
    "notes",
    "page_of",
    "refusal_text",
    "thread_gone",
    "verify_text",
]

PASS_HINT = text("event.pass_hint", no_move=NO_MOVE)  # when auto_pass is off
RESULT_WORDS = {kind: text(f"result.{kind.name.lower()}") for kind in ResultKind}


def points(value: float) -> str:
    return number(value, "g")


def plural(value: float, word: str) -> str:
    """A count of ``word`` (a catalogue unit: "point", "game", "error", "blunder")."""
    return text(plural_key(f"unit.{word}", value), count=points(value))


def join_and(names: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(names) <= 1:
        return "".join(names)
    if len(names) == 2:
        return text("list.and.two", first=names[0], second=names[1])
    head = text("list.separator").join(names[:-1])
    return text("list.and.many", head=head, last=names[-1])


def listed(items: Sequence[str]) -> str:
    """ "a, b, c"."""
    return text("list.separator").join(items)


def dice_text(dice: Sequence[int]) -> str:
    return "-".join(str(d) for d in dice)


def game_title(kind: GameKind | str) -> str:
    """A game's name as a title: "Backgammon"."""
    return text(f"game.{GameKind(kind).value}.title")


def game_name(kind: GameKind | str) -> str:
    """A game's name in a sentence: "backgammon"."""
    return text(f"game.{GameKind(kind).value}.name")


def resign_level_text(kind: GameKind, level: ResignLevel) -> str:
    """What a resignation of ``level`` gives up in ``kind``: "gammon", "a NANNON"."""
    return text(f"resign_level.{kind.value}.{level.name.lower()}")


def value_key(value: str) -> str:
    """A word the robot or the analysis gives as a value ("double, take", "World class") as
    the last part of its message id ("double_take", "world_class")."""
    return re.sub(r"\W+", "_", value).strip("_").lower()


def unit(kind: GameKind) -> str:
    """What a match length counts: "point" or "game"."""
    return spec_of(kind).score_unit


# --- events ----------------------------------------------------------------------------------


def notes(update: MatchUpdate) -> tuple[str, ...]:
    """One sentence per event of ``update``, in order: the lines above the board."""
    return tuple(describe_event(event, update.view) for event in update.events)


def describe_event(event: MatchEvent, view: MatchView) -> str:
    """``event`` in a sentence; ``view`` (any view of the match) names the seats."""
    names = [p.name for p in view.players]
    kind = view.kind
    match event:
        case MatchStarted():
            return _started(event, view.players)
        case OpeningRolled():
            return _opening(event, names, kind)
        case NoLegalMove(seat=seat, stuck=stuck):
            then = (
                text("event.turn_passes", name=names[1 - seat])
                if stuck is Stuck.TURN_PASSES
                else text("event.pass_hint", no_move=NO_MOVE)
            )
            return text("event.no_legal_move", name=names[seat], then=then)
        case DiceRolled(seat=seat, dice=dice, stuck=stuck):
            rolled = {"name": names[seat], "dice": dice_text(dice)}
            if stuck is Stuck.TURN_PASSES:
                return text("event.rolls_turn_passes", other=names[1 - seat], **rolled)
            if stuck is Stuck.MUST_PASS:
                return text(
                    "event.rolls_must_pass", hint=text("event.pass_hint", no_move=NO_MOVE), **rolled
                )
            return text("event.rolls", **rolled)
        case MovePlayed(seat=seat, move=move, auto=auto):
            return text(
                "event.plays_forced" if auto else "event.plays", name=names[seat], move=move
            )
        case DoubleOffered(seat=seat, value=value):
            return text("event.doubles", name=names[seat], value=value)
        case DoubleTaken(seat=seat, value=value):
            return text("event.takes", name=names[seat], value=value)
        case DoublePassed(seat=seat):
            return text("event.passes", name=names[seat])
        case Resigned(seat=seat):
            return text("event.resigns", name=names[seat])
        case ResignationOffered(seat=seat, level=level):
            return text(
                "event.offers_resignation",
                name=names[seat],
                level=text(f"event.resign_level.{level.name.lower()}"),
            )
        case ResignationAccepted(seat=seat):
            return text("event.accepts_resignation", name=names[seat])
        case ResignationDeclined(seat=seat):
            return text("event.declines_resignation", name=names[seat])
        case DrawOffered(seat=seat):
            return text("event.offers_draw", name=names[seat])
        case DrawAccepted(seat=seat):
            return text("event.accepts_draw", name=names[seat])
        case DrawDeclined(seat=seat):
            return text("event.declines_draw", name=names[seat])
        case WinClaimed(seat=seat, idle=idle):
            return text("event.claims", idle=names[idle], name=names[seat])
        case MatchLeft(seat=seat):
            return text("event.leaves", name=names[seat])
        case GameOver(result=result, score=score):
            return _game_over(result, score, names, kind)
        case CrawfordGame(game_number=number):
            return text("event.crawford", number=number)
        case MatchOver(winner=None, score=score):
            return text("event.match_drawn", score=f"{points(score[0])}-{points(score[1])}")
        case MatchOver(winner=int(winner), score=score):
            return text(
                "event.match_won",
                name=names[winner],
                score=f"{points(score[winner])}-{points(score[1 - winner])}",
            )
    raise ValueError(f"no words for {event!r}")


def _started(event: MatchStarted, players: Sequence[Player]) -> str:
    length = event.length
    to = (
        text("event.money_game")
        if length == 0
        else text("event.match_to", length=plural(length, unit(event.game)))
    )
    return text(
        "event.started",
        match_id=event.match_id,
        first=players[0].name,
        second=players[1].name,
        game=game_name(event.game),
        to=to,
        commitment=event.commitment,
    )


def _opening(event: OpeningRolled, names: Sequence[str], kind: GameKind) -> str:
    d0, d1 = event.dice
    if event.first is None:
        if event.either_may_double:
            return text("event.opening_tie_double", die=d0)
        if event.auto_double is not None:
            return text("event.opening_tie_auto_double", die=d0, cube=event.auto_double)
        return text("event.opening_tie_again", die=d0)
    plays = (
        text("event.opening_difference", difference=abs(d0 - d1))
        if spec_of(kind).opening_moves_by_difference
        else text("event.opening_plays", high=max(d0, d1), low=min(d0, d1))
    )
    return text(
        "event.opening",
        first=names[0],
        d0=d0,
        second=names[1],
        d1=d1,
        name=names[event.first],
        plays=plays,
    )


def _game_over(
    game: GameResult, score: tuple[float, float], names: Sequence[str], kind: GameKind
) -> str:
    tally = f"{points(score[0])}-{points(score[1])}"
    if game.winner is None:
        return text("event.game_drawn", number=game.game_number, score=tally)
    how = (
        text("event.won_by_nannon")
        if game.kind is ResultKind.NANNON
        else text("event.won_by", result=text(f"result.{game.kind.name.lower()}"))
    )
    return text(
        "event.game_won",
        name=names[game.winner],
        number=game.game_number,
        how=how,
        won=plural(game.points, unit(kind)),
        cube=text("event.game_won_cube", cube=game.cube) if game.cube > 1 else "",
        score=tally,
    )


# --- refusals --------------------------------------------------------------------------------


def _quoted(value: Any) -> str:
    """A value the user gave, quoted and cut short."""
    return repr(str(value)[:40])


def _length_unit(game: GameKind) -> str:
    return text(f"unit.{unit(game)}s")


Words = Callable[[dict[str, Any]], str]

# How a refusal's parameters are shown, where not as they are.
_SHOWN: dict[Refusal, Callable[[dict[str, Any]], dict[str, Any]]] = {
    Refusal.UNKNOWN_GAME: lambda p: {"given": _quoted(p["given"]), "choices": listed(p["choices"])},
    Refusal.UNKNOWN_SETTING: lambda p: {"setting": _quoted(p["setting"])},
    Refusal.UNKNOWN_LANGUAGE: lambda p: {
        "value": _quoted(p["value"]),
        "choices": listed(p["choices"]),
    },
    Refusal.SETTING_NOT_ON_OFF: lambda p: {**p, "value": _quoted(p["value"])},
    Refusal.SETTING_NOT_A_NUMBER: lambda p: {**p, "value": _quoted(p["value"])},
    Refusal.SETTING_OUT_OF_RANGE: lambda p: {**p, "value": str(p["value"])[:40]},
    Refusal.NOT_A_CHANNEL: lambda p: {"value": _quoted(p["value"])},
    Refusal.CHANNEL_NOT_ALLOWED: lambda p: {"channels": listed([f"<#{c}>" for c in p["channels"]])},
    Refusal.LENGTH_NOT_WHOLE: lambda p: {"length": repr(p["length"])},
    Refusal.LENGTH_OUT_OF_RANGE: lambda p: {
        **p,
        "game": game_name(p["game"]),
        "unit": _length_unit(p["game"]),
    },
    Refusal.CHALLENGE_CLOSED: lambda p: {
        "status": text(f"challenge_status.{ChallengeStatus(p['status']).value}")
    },
    Refusal.BAD_ROBOT_LEVEL: lambda p: {
        "levels": listed([text(f"robot.level.{name}") for name in LEVEL_NAMES]),
        "value": _quoted(p["value"]),
    },
    Refusal.ANALYSIS_UNAVAILABLE: lambda p: {"game": game_title(p["game"])},
    Refusal.ANALYSIS_DONE: lambda p: {"match_id": p["match_id"], "link": _message_link(p)},
    Refusal.BAD_RESIGN_LEVEL: lambda p: {"value": _quoted(p["value"])},
    Refusal.BAD_FORMAT: lambda p: {
        "given": _quoted(p["given"]),
        "choices": listed(p["choices"]),
    },
    Refusal.BAD_MAX_PLAYERS: lambda p: {**p, "value": _quoted(p["value"])},
    Refusal.BAD_ROUND_DAYS: lambda p: {
        **p,
        "value": _quoted(p["value"]),
        "highest": f"{p['highest']:g}",
    },
    Refusal.BAD_ROUNDS: lambda p: {**p, "value": _quoted(p["value"])},
}


# The count a refusal's plural forms follow ("refusal.tournament_full.one", ".other").
_COUNTED = {
    Refusal.CLAIM_BEFORE_REMINDER: "reminder_minutes",
    Refusal.CLAIM_TOO_EARLY: "minutes",
    Refusal.TOURNAMENT_FULL: "most",
}


def _refusal_words(refusal: Refusal, params: dict[str, Any]) -> str:
    shown = _SHOWN.get(refusal)
    key = f"refusal.{refusal.value}"
    if refusal in _COUNTED:
        key = plural_key(key, params[_COUNTED[refusal]])
    return text(key, **(shown(params) if shown else params))


REFUSALS: dict[Refusal, Words] = {
    refusal: functools.partial(_refusal_words, refusal) for refusal in Refusal
}


def refusal_text(error: BaseException) -> str:
    """What a refusal says to the user: the service's and the engines' by their codes, in the
    catalogue's words; anything else (the adapter's own refusals, already in them) as its
    message."""
    if isinstance(error, Refused):
        return REFUSALS[error.refusal](error.params)
    if isinstance(error, GameError) and error.code is not None:
        return engine_text(error)
    return str(error)


def engine_text(error: GameError) -> str:
    """An engine's refusal (``engine.<code>``) with its parameters, in words."""
    assert error.code is not None
    params = dict(error.params)
    if "phase" in params:  # the phase an error names, in words
        params["phase_hint"] = text(f"engine.phase.{params['phase']}", seat=params.get("seat"))
    key = f"engine.{error.code}"
    if error.code in PLURAL_BY:
        key = plural_key(key, params[PLURAL_BY[error.code]])
    return text(key, **engine_words(error.code, params))


# --- the robot and /hint -----------------------------------------------------------------------

DEFAULT_LEVEL = "intermediate"  # /challenge opponent:@tablebot without a level (an option value)
LEVEL_FOR_ROBOT_ONLY = text("robot.level_for_robot_only")
ROBOT_FAILED = text("robot.failed")
ROBOT_HINT_FAILED = text("robot.hint_failed")
ROBOT_REMATCH_STARTED = text("robot.rematch_started")
ROBOT_NOT_READY = text("robot.not_ready")
SERVER_ONLY = text("robot.server_only")


def level_name(level: int) -> str:
    """A robot level's name: 1 is "beginner" .. 5 "master"."""
    name = next(name for name, value in LEVEL_NAMES.items() if int(value) == int(level))
    return text(f"robot.level.{name}")


def robot_unavailable(kind: GameKind) -> str:
    """Why /challenge against the robot is refused for a game whose engine does not run here
    (backgammon without GNU Backgammon's wheel)."""
    return text("robot.unavailable", game=game_name(kind))


def robot_challenge(challenger: str, robot: str, level: int, what: str) -> str:
    """The invitation the robot accepts at once; ``what`` is the game and its options."""
    return text(
        "robot.challenge", challenger=challenger, robot=robot, level=level_name(level), what=what
    )


def robot_settings_line(robot_rated: bool, hints_in_human_matches: bool, pause_ms: int) -> str:
    """The robot's settings in /config show."""
    rated = text("robot.settings.rated" if robot_rated else "robot.settings.unrated")
    hints = text(
        "robot.settings.hints_everywhere"
        if hints_in_human_matches
        else "robot.settings.hints_robot_only"
    )
    return text("robot.settings", rated=rated, hints=hints, pause_ms=pause_ms)


def robot_record_text(records: Sequence[RobotRecord], robot: str = "tablebot") -> str:
    """A player's record against each robot level, for /stats: "Against tablebot: beginner
    3-1, master 0-2"."""
    parts = []
    for record in records:
        drawn = f"-{record.drawn}" if record.drawn else ""
        parts.append(
            text(
                "robot.record.level",
                level=level_name(record.level),
                won=record.won,
                lost=record.lost,
                drawn=drawn,
            )
        )
    return text("robot.record", robot=robot, levels=listed(parts))


def _equity(value: float) -> str:
    return number(value, "+.3f")


def equity_scale(view: MatchView) -> str:
    """What a hint's equities measure in this match."""
    if not spec_of(view.kind).cube:
        return text("hint.scale.search")
    if view.length == 0:
        return text("hint.scale.money")
    return text("hint.scale.match")


HINT_MOVES_SHOWN = 3


def hint_text(kind: str, data: dict[str, Any], view: MatchView) -> str:
    """The robot's hint (:mod:`bot.robot.hints`'s data) in lines: the best moves with their
    equities, the cube action, or take or pass."""
    scale = text("hint.equities", scale=equity_scale(view))
    if kind == "moves":
        moves = data["moves"][:HINT_MOVES_SHOWN]
        if not moves:
            return text("hint.no_legal_move")
        lines = [text("hint.best_moves", count=len(data["moves"]))]
        lines += [
            text("hint.move_line", rank=n, move=m["move"], equity=_equity(m["equity"]))
            for n, m in enumerate(moves, start=1)
        ]
        return "\n".join([*lines, scale])
    if kind == "cube":
        cube = data["cube"]
        if cube is None:
            return text("hint.no_double_needed")
        return "\n".join(
            [
                text("hint.cube_action", action=text(f"hint.action.{value_key(cube['action'])}")),
                text("hint.no_double", equity=_equity(cube["no_double"])),
                text("hint.double_take", equity=_equity(cube["double_take"])),
                text("hint.double_pass", equity=_equity(cube["double_pass"])),
                scale,
            ]
        )
    take = data["take"]
    if take is None:
        return text("hint.take_free")
    return "\n".join(
        [
            text("hint.take_action", action=text(f"hint.answer.{value_key(take['action'])}")),
            text("hint.take", equity=_equity(take["take"])),
            text("hint.pass", equity=_equity(take["pass"])),
            scale,
        ]
    )


# --- /verify ---------------------------------------------------------------------------------


def verify_text(report: VerifyReport) -> str:
    """What /verify found, in a sentence or two."""
    shown = {
        "match_id": report.match_id,
        "count": len(report.dice),
        "seed": report.seed,
        "commitment": report.commitment,
    }
    if not report.dice:
        return text("verify.no_dice", **shown)
    if report.ok is None:
        return text(plural_key("verify.still_on", len(report.dice)), **shown)
    if report.ok:
        return text(plural_key("verify.ok", len(report.dice)), **shown)
    if report.drawn is not None and report.drawn != len(report.dice):
        return text(plural_key("verify.count_differs", report.drawn), drawn=report.drawn, **shown)
    return text("verify.mismatch", **shown)


# --- the bot's permissions -------------------------------------------------------------------


def permission_name(attribute: str) -> str:
    """The name Discord's settings show for a ``discord.Permissions`` attribute."""
    key = f"permission.{attribute}"
    try:
        return text(key)
    except KeyError:  # a permission the catalogue does not name: Discord's own spelling
        return attribute.replace("_", " ").title()


def missing_permissions(missing: Sequence[str]) -> str:
    """Why /challenge refuses a channel: the permissions the bot lacks there, by name."""
    names = [permission_name(m) for m in missing]
    return text(plural_key("permission.missing", len(names)), names=join_and(names))


# --- a match's thread, gone ------------------------------------------------------------------

THREAD_GONE = ("deleted", "locked", "archived", "refused")


def thread_gone(how: str) -> str:
    """Why a match left its thread for the channel: ``how`` is "deleted", "locked",
    "archived" (by a moderator) or "refused" (Discord refused the bot's post there)."""
    if how not in THREAD_GONE:
        raise KeyError(how)
    return text(f"thread_gone.{how}")


# --- pages of a list -------------------------------------------------------------------------


def page_of(page: int, pages: int) -> str:
    """Under a page of a long list (``page`` counts from 0)."""
    return text("page_of", page=page + 1, pages=pages)


# --- post-match analysis -----------------------------------------------------------------------


def _message_link(p: dict[str, Any]) -> str:
    """A jump link to the analysis message where known, else its channel."""
    channel, message, guild = p.get("channel_id"), p.get("message_id"), p.get("guild_id")
    if message is not None and guild is not None:
        return f"https://discord.com/channels/{guild}/{channel}/{message}"  # not for members
    return f"<#{channel}>"


def _analyses(count: int) -> str:
    return text(plural_key("analysis.count", count), count=count)


def analysis_queued(match_id: int, channel_id: int, ahead: int) -> str:
    """The ephemeral answer to /analyse."""
    if ahead:
        return text(
            "analysis.queued_behind",
            match_id=match_id,
            channel_id=channel_id,
            ahead=_analyses(ahead),
        )
    return text("analysis.queued", match_id=match_id, channel_id=channel_id)


def analysis_progress(match_id: int, done: int, total: int | None, ahead: int = 0) -> str:
    """The progress message, edited in place while the analysis runs."""
    if total is None:
        if ahead:
            return text(
                "analysis.progress.queued_behind", match_id=match_id, ahead=_analyses(ahead)
            )
        return text("analysis.progress.queued", match_id=match_id)
    game = min(done + 1, total)
    return text("analysis.progress.game", match_id=match_id, game=game, total=total)


def analysis_failed(match_id: int) -> str:
    return text("analysis.failed", match_id=match_id)


def analysis_done(match_id: int) -> str:
    """The report's first line (the progress message, edited)."""
    return text("analysis.done", match_id=match_id)


def analysis_title(match_id: int, kind: GameKind) -> str:
    return text("analysis.title", match_id=match_id, game=game_title(kind))


def analysis_player_text(kind: GameKind, figures: Any, unit: str) -> str:
    """One player's figures (an ``engines.analysis.PlayerFigures``)."""
    lines = [
        text("analysis.player.rating", rating=text(f"analysis.rating.{value_key(figures.rating)}")),
        text(
            "analysis.player.checker_play",
            rate=number(figures.checker_error_rate, ".1f"),
            unit=unit,
            unforced=figures.unforced_moves,
        ),
    ]
    if figures.unforced_cube_decisions:
        lines.append(
            text(
                plural_key("analysis.player.cube", figures.unforced_cube_decisions),
                rate=number(figures.cube_error_rate, ".1f"),
                decisions=figures.unforced_cube_decisions,
            )
        )
    if figures.pr is not None:
        lines.append(text("analysis.player.pr", pr=number(figures.pr, ".2f")))
    lines.append(
        text(
            "analysis.player.errors",
            errors=plural(figures.errors, "error"),
            blunders=plural(figures.blunders, "blunder"),
        )
    )
    if spec_of(kind).has_dice:
        lines.append(text("analysis.player.luck", luck=number(figures.luck, "+.3f")))
    return "\n".join(lines)


def mistake_title(rank: int, name: str, game: int) -> str:
    return text("analysis.mistake_title", rank=rank, name=name, game=game)


def decision_words(decision: Decision) -> Decision:
    """A cube decision's "double", "take" ... in the reader's words; a move keeps its notation."""
    if decision.kind is DecisionKind.MOVE:
        return decision
    played, best = (
        text(f"analysis.cube_action.{value_key(said)}") for said in (decision.played, decision.best)
    )
    return dataclasses.replace(decision, played=played, best=best)


def mistake_text(played: str, best: str, loss: float, dice: Sequence[int]) -> str:
    roll = text("analysis.mistake_roll", dice=dice_text(dice)) if dice else ""
    # Plain text (the adapter escapes it): notation has "*" for a hit.
    return text("analysis.mistake", roll=roll, played=played, best=best, loss=number(loss, ".3f"))


NO_MISTAKES = text("analysis.no_mistakes")


def analysed_by(details: Mapping[str, object]) -> str:
    """The report's footer: how it was analysed (``MatchAnalysis.details``)."""
    evaluator = details.get("evaluator") or "?"
    ply = details.get("ply")
    if ply is None:
        return text("analysis.by", evaluator=evaluator)
    return text("analysis.by_ply", evaluator=evaluator, ply=ply)


CHART_TITLE = text("analysis.chart_title")


def analysis_stats_text(analysed: int, error_rate: float | None, pr: float | None) -> str:
    """The /stats line for a player's analysed matches."""
    if not analysed or error_rate is None:
        return ""
    figure = (
        text("analysis.stats.pr", pr=number(pr, ".2f"))
        if pr is not None
        else text("analysis.stats.error_rate", rate=number(error_rate, ".1f"))
    )
    matches = text(plural_key("analysis.stats.matches", analysed), count=analysed)
    return text("analysis.stats", matches=matches, figure=figure)


def _on_off(on: bool) -> str:
    return text("analysis.settings.on" if on else "analysis.settings.off")


def analysis_settings_line(robot: bool, human: bool) -> str:
    return text("analysis.settings", robot=_on_off(robot), human=_on_off(human))
