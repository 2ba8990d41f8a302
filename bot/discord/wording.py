"""The service's results in English: what happened in an action (its events), why an action was
refused, and what /verify found. The service says what happened and to whom; this module says it.

Names appear here as the players typed them: whoever shows a text in Discord makes it inert
first (:func:`bot.discord.replies.inert_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
from engines.base import GameKind, GameResult, ResultKind
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

PASS_HINT = f'play "{NO_MOVE}" to pass the turn'  # when auto_pass is off
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


def dice_text(dice: Sequence[int]) -> str:
    return "-".join(str(d) for d in dice)


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
                f"the turn passes to {names[1 - seat]}" if stuck is Stuck.TURN_PASSES else PASS_HINT
            )
            return f"{names[seat]} has no legal move: {then}."
        case DiceRolled(seat=seat, dice=dice, stuck=stuck):
            text = f"{names[seat]} rolls {dice_text(dice)}"
            if stuck is Stuck.TURN_PASSES:
                text += f": no legal move, the turn passes to {names[1 - seat]}"
            elif stuck is Stuck.MUST_PASS:
                text += f": no legal move, {PASS_HINT}"
            return text + "."
        case MovePlayed(seat=seat, move=move, auto=auto):
            forced = " (the only legal move, played automatically)" if auto else ""
            return f"{names[seat]} plays {move}{forced}."
        case DoubleOffered(seat=seat, value=value):
            return f"{names[seat]} doubles to {value}."
        case DoubleTaken(seat=seat, value=value):
            return f"{names[seat]} takes: the cube is at {value}."
        case DoublePassed(seat=seat):
            return f"{names[seat]} passes."
        case Resigned(seat=seat):
            return f"{names[seat]} resigns."
        case ResignationOffered(seat=seat, level=level):
            return f"{names[seat]} offers to resign a {level.name.lower()} game."
        case ResignationAccepted(seat=seat):
            return f"{names[seat]} accepts the resignation."
        case ResignationDeclined(seat=seat):
            return f"{names[seat]} declines the resignation: play on."
        case DrawOffered(seat=seat):
            return f"{names[seat]} offers a draw."
        case DrawAccepted(seat=seat):
            return f"{names[seat]} accepts the draw."
        case DrawDeclined(seat=seat):
            return f"{names[seat]} declines the draw: play on."
        case WinClaimed(seat=seat, idle=idle):
            return f"{names[idle]} was idle too long: {names[seat]} claims the match."
        case MatchLeft(seat=seat):
            return f"{names[seat]} leaves the match."
        case GameOver(result=result, score=score):
            return _game_over(result, score, names, kind)
        case CrawfordGame(game_number=number):
            return f"Game {number} is the Crawford game: no doubling."
        case MatchOver(winner=None, score=score):
            return f"The match is drawn, {points(score[0])}-{points(score[1])}."
        case MatchOver(winner=int(winner), score=score):
            return (
                f"{names[winner]} wins the match "
                f"{points(score[winner])}-{points(score[1 - winner])}."
            )
    raise ValueError(f"no words for {event!r}")


def _started(event: MatchStarted, players: Sequence[Player]) -> str:
    length = event.length
    to = "a money game" if length == 0 else f"to {plural(length, unit(event.game))}"
    return (
        f"Match #{event.match_id}: {players[0].name} vs {players[1].name}, "
        f"{event.game.value} {to}. Dice commitment (SHA-256 of the secret seed): "
        f"{event.commitment}."
    )


def _opening(event: OpeningRolled, names: Sequence[str], kind: GameKind) -> str:
    d0, d1 = event.dice
    if event.first is None:
        text = f"Opening roll: both roll {d0}."
        if event.either_may_double:
            return text + " Either player may double now, or roll again."
        text += " Rolling again."
        if event.auto_double is not None:
            text += f" Automatic double: the cube is at {event.auto_double}."
        return text
    plays = (
        f"moves first with a {abs(d0 - d1)}"
        if spec_of(kind).opening_moves_by_difference
        else f"plays {max(d0, d1)}-{min(d0, d1)} first"
    )
    return f"Opening roll: {names[0]} {d0}, {names[1]} {d1}: {names[event.first]} {plays}."


def _game_over(
    game: GameResult, score: tuple[float, float], names: Sequence[str], kind: GameKind
) -> str:
    tally = f"Score: {points(score[0])}-{points(score[1])}."
    if game.winner is None:
        return f"Game {game.game_number} is drawn. {tally}"
    how = "with a NANNON!" if game.kind is ResultKind.NANNON else f"by {RESULT_WORDS[game.kind]}"
    won = plural(game.points, unit(kind))
    cube = f" (cube {game.cube})" if game.cube > 1 else ""
    return f"{names[game.winner]} wins game {game.game_number} {how}: {won}{cube}. {tally}"


# --- refusals --------------------------------------------------------------------------------


def _quoted(value: Any) -> str:
    """A value the user gave, quoted and cut short."""
    return repr(str(value)[:40])


def _length_unit(game: GameKind) -> str:
    return f"{unit(game)}s"


Words = Callable[[dict[str, Any]], str]

REFUSALS: dict[Refusal, Words] = {
    Refusal.UNKNOWN_GAME: lambda p: (
        f"There is no game called {_quoted(p['given'])}: choose {', '.join(p['choices'])}."
    ),
    Refusal.NO_SUCH_MATCH: lambda p: f"There is no match #{p['match_id']} in this server.",
    Refusal.NO_SUCH_CHALLENGE: lambda p: (
        f"There is no challenge #{p['challenge_id']} in this server."
    ),
    Refusal.NOT_A_PLAYER: lambda p: f"You are not playing in match #{p['match_id']}.",
    Refusal.UNKNOWN_SETTING: lambda p: f"There is no setting called {_quoted(p['setting'])}.",
    Refusal.SETTING_FIXED: lambda p: f"{p['setting']} can't be changed.",
    Refusal.SETTING_NOT_ON_OFF: lambda p: (
        f"{p['setting']} is on or off, not {_quoted(p['value'])}."
    ),
    Refusal.SETTING_NOT_A_NUMBER: lambda p: (
        f"{p['setting']} is a whole number, not {_quoted(p['value'])}."
    ),
    Refusal.SETTING_OUT_OF_RANGE: lambda p: (
        f"{p['setting']} must be between {p['low']} and {p['high']}, not {str(p['value'])[:40]}."
    ),
    Refusal.NOT_A_CHANNEL: lambda p: (
        f"Challenge channels are channel ids, not {_quoted(p['value'])}."
    ),
    Refusal.TOO_MANY_CHANNELS: lambda p: f"At most {p['most']} challenge channels.",
    Refusal.CLAIM_BEFORE_REMINDER: lambda p: (
        f"The claim time must be at least the reminder time ({p['reminder_minutes']} minutes)."
    ),
    Refusal.BOT_OPPONENT: lambda p: (
        "Bots can't play: challenge a person, or leave the opponent open."
    ),
    Refusal.SELF_CHALLENGE: lambda p: "You can't challenge yourself.",
    Refusal.CHANNEL_NOT_ALLOWED: lambda p: (
        f"Challenges are allowed only in {', '.join(f'<#{c}>' for c in p['channels'])}."
    ),
    Refusal.LENGTH_NOT_WHOLE: lambda p: f"The match length is a whole number, not {p['length']!r}.",
    Refusal.MONEY_NOT_BACKGAMMON: lambda p: "Money play (points: 0) is for backgammon only.",
    Refusal.LENGTH_OUT_OF_RANGE: lambda p: (
        f"A {p['game'].value} match is {p['lowest']} to {p['highest']} "
        f"{_length_unit(p['game'])} long, not {p['length']}."
    ),
    Refusal.CHECKERS_CUBE_OPTIONS: lambda p: (
        "Checkers has no doubling cube: cube options don't apply."
    ),
    Refusal.MONEY_ONLY_OPTIONS: lambda p: (
        "Jacoby and automatic doubles are for money games only (backgammon, points: 0)."
    ),
    Refusal.AUTO_DOUBLES_OUT_OF_RANGE: lambda p: (
        f"Automatic doubles are 0 to {p['highest']} per game, not {p['value']}."
    ),
    Refusal.CUBE_ONLY_OPTIONS: lambda p: "Jacoby and automatic doubles need the doubling cube.",
    Refusal.OWN_CHALLENGE: lambda p: "You can't play against yourself.",
    Refusal.CHALLENGE_FOR_OTHER: lambda p: f"This challenge is for {p['name']}.",
    Refusal.CHALLENGE_TAKEN: lambda p: "This challenge was already accepted, withdrawn or expired.",
    Refusal.CHALLENGE_ACCEPTED: lambda p: "This challenge was already accepted.",
    Refusal.CHALLENGE_EXPIRED: lambda p: (
        "This challenge expired: nobody answered it in time. Start a new one."
    ),
    Refusal.CHALLENGE_CLOSED: lambda p: f"This challenge is {ChallengeStatus(p['status']).value}.",
    Refusal.OPEN_CHALLENGE_DECLINE: lambda p: "An open challenge can't be declined: just leave it.",
    Refusal.ONLY_OPPONENT_DECLINES: lambda p: f"Only {p['name']} can decline this challenge.",
    Refusal.ONLY_CHALLENGER_CANCELS: lambda p: f"Only {p['name']} can cancel this challenge.",
    Refusal.CHALLENGE_ANSWERED: lambda p: "This challenge was answered already.",
    Refusal.MATCH_STILL_ON: lambda p: f"Match #{p['match_id']} is still on: finish it first.",
    Refusal.BAD_ROBOT_LEVEL: lambda p: (
        f"The robot plays at {', '.join(LEVEL_NAMES)}, not {_quoted(p['value'])}."
    ),
    Refusal.HINTS_OFF: lambda p: (
        "Hints are for matches against tablebot here: a server admin can allow them in "
        "matches between people with /config robot."
    ),
    Refusal.NO_HINT: lambda p: (
        "Nothing for you to decide right now: /hint works on your roll to play, before your "
        "roll when you may double, and when you are doubled."
    ),
    Refusal.ANALYSIS_UNAVAILABLE: lambda p: (
        f"Analysis of {spec_of(GameKind(p['game'])).title} matches is not available on this bot."
    ),
    Refusal.MATCH_NOT_FINISHED: lambda p: (
        f"Match #{p['match_id']} is still on: it can be analysed once it is finished."
    ),
    Refusal.ANALYSIS_PENDING: lambda p: (
        f"Match #{p['match_id']} is being analysed already ({p['status']}): the report will "
        f"be posted in <#{p['channel_id']}>."
    ),
    Refusal.ANALYSIS_DONE: lambda p: (
        f"Match #{p['match_id']} was analysed already: see the report in {_message_link(p)}."
    ),
    Refusal.STALE_BOARD: lambda p: (
        "That board is out of date: the match has moved on. Use the latest board."
    ),
    Refusal.MATCH_CHANGED: lambda p: (
        "This match changed while you were acting: look at the latest board and try again."
    ),
    Refusal.MATCH_OVER: lambda p: f"Match #{p['match_id']} is over.",
    Refusal.NOT_YOUR_TURN: lambda p: f"It's {p['name']}'s turn.",
    Refusal.NO_DICE_IN_CHECKERS: lambda p: "Checkers has no dice: pick a move.",
    Refusal.ALREADY_ROLLED: lambda p: "You rolled already: pick a move.",
    Refusal.OPENING_ROLL_FIRST: lambda p: (
        "The opening roll comes first: roll again (either player may)."
    ),
    Refusal.ROLL_FIRST: lambda p: "Roll first, then move.",
    Refusal.EMPTY_MOVE: lambda p: "Type a move, e.g. one from the list.",
    Refusal.MOVE_TOO_LONG: lambda p: "That is far too long to be a move.",
    Refusal.CHECKERS_NO_CUBE: lambda p: "Checkers has no doubling cube.",
    Refusal.OWN_DOUBLE: lambda p: f"Only {p['name']} can take or pass your double.",
    Refusal.DOUBLED: lambda p: "You were doubled: take or pass first.",
    Refusal.WAITING_FOR_TAKE: lambda p: f"Waiting for {p['name']} to take or pass your double.",
    Refusal.WAITING_FOR_RESIGN_ANSWER: lambda p: (
        f"Waiting for {p['name']} to answer your resignation."
    ),
    Refusal.ANSWER_RESIGNATION: lambda p: (
        f"Answer {p['name']}'s resignation first: accept or decline it."
    ),
    Refusal.WAITING_FOR_DRAW_ANSWER: lambda p: (
        f"Waiting for {p['name']} to answer your draw offer."
    ),
    Refusal.ANSWER_DRAW: lambda p: f"Answer {p['name']}'s draw offer first: accept or decline it.",
    Refusal.BAD_RESIGN_LEVEL: lambda p: (
        f"Resign single, gammon or backgammon, not {_quoted(p['value'])}."
    ),
    Refusal.NOBODY_TO_CLAIM: lambda p: (
        "Either player may roll now: there is nobody to claim against."
    ),
    Refusal.CLAIM_OWN_WAIT: lambda p: "The match is waiting for you: you can't claim it.",
    Refusal.CLAIM_TOO_EARLY: lambda p: (
        f"You can claim the match when {p['name']} has been idle for {p['minutes']} minutes: "
        f"{p['left']} more to go."
    ),
}


def refusal_text(error: BaseException) -> str:
    """What a refusal says to the user: the service's in these words, anything else (the
    engines' errors, the adapter's own refusals) as its message."""
    if isinstance(error, Refused):
        return REFUSALS[error.refusal](error.params)
    return str(error)


# --- the robot and /hint -----------------------------------------------------------------------

DEFAULT_LEVEL = "intermediate"  # /challenge opponent:@tablebot without a level
LEVEL_FOR_ROBOT_ONLY = (
    "The level is for matches against tablebot: pick tablebot as the opponent to play the robot."
)
ROBOT_FAILED = (
    "tablebot could not work out its next move just now (its engine failed; this is logged). "
    "Type /board to let it try again, or claim the match if it stays stuck."
)
ROBOT_HINT_FAILED = "The robot could not work out a hint just now: please try again."
ROBOT_REMATCH_STARTED = "Rematch started: the robot accepted at once."
ROBOT_NOT_READY = "The robot is not here yet: try again in a moment."
SERVER_ONLY = "Challenges work in a server only."


def level_name(level: int) -> str:
    """A robot level's name: 1 is "beginner" .. 5 "master"."""
    return next(name for name, value in LEVEL_NAMES.items() if int(value) == int(level))


def robot_unavailable(kind: GameKind) -> str:
    """Why /challenge against the robot is refused for a game whose engine does not run here
    (backgammon without GNU Backgammon's wheel)."""
    return (
        f"Sorry, {spec_of(kind).title.lower()} against the robot is not available on this "
        "platform. Challenge a person instead."
    )


def robot_challenge(challenger: str, robot: str, level: int, what: str) -> str:
    """The invitation the robot accepts at once; ``what`` is the game and its options."""
    return f"{challenger} challenges {robot} ({level_name(level)}) to {what}. {robot} accepts."


def robot_settings_line(robot_rated: bool, hints_in_human_matches: bool, pause_ms: int) -> str:
    """The robot's settings in /config show."""
    rated = "rated (ratings and leaderboards)" if robot_rated else "unrated"
    hints = "also between people" if hints_in_human_matches else "against the robot only"
    return f"- Robot matches {rated}; /hint {hints}; the robot's pause {pause_ms} ms"


def robot_record_text(records: Sequence[RobotRecord], robot: str = "tablebot") -> str:
    """A player's record against each robot level, for /stats: "Against tablebot: beginner
    3-1, master 0-2"."""
    parts = []
    for record in records:
        drawn = f"-{record.drawn}" if record.drawn else ""
        parts.append(f"{level_name(record.level)} {record.won}-{record.lost}{drawn}")
    return f"Against {robot}: {', '.join(parts)}"


def _equity(value: float) -> str:
    return f"{value:+.3f}"


def equity_scale(view: MatchView) -> str:
    """What a hint's equities measure in this match."""
    if not spec_of(view.kind).cube:
        return "the search's estimate, from -1 (a loss) to +1 (a win)"
    if view.length == 0:
        return "in points, for a cube of 1"
    return "in match winning chances, from -1 (the match lost) to +1 (won)"


HINT_MOVES_SHOWN = 3


def hint_text(kind: str, data: dict[str, Any], view: MatchView) -> str:
    """The robot's hint (:mod:`bot.robot.hints`'s data) in lines: the best moves with their
    equities, the cube action, or take or pass."""
    scale = f"Equities for you, {equity_scale(view)}."
    if kind == "moves":
        moves = data["moves"][:HINT_MOVES_SHOWN]
        if not moves:
            return "There is no legal move to play."
        lines = [f"**Best moves** ({len(data['moves'])} legal):"]
        lines += [
            f"{n}. `{m['move']}` {_equity(m['equity'])}" for n, m in enumerate(moves, start=1)
        ]
        return "\n".join([*lines, scale])
    if kind == "cube":
        cube = data["cube"]
        if cube is None:
            return "**No double: just roll.** A win at the cube's value already takes the match."
        return "\n".join(
            [
                f"**Cube action: {cube['action']}.**",
                f"No double: {_equity(cube['no_double'])}",
                f"Double, take: {_equity(cube['double_take'])}",
                f"Double, pass: {_equity(cube['double_pass'])}",
                scale,
            ]
        )
    take = data["take"]
    if take is None:
        return "**Take.** The doubler's win already takes the match: taking costs you nothing."
    return "\n".join(
        [
            f"**{take['action'].capitalize()}.**",
            f"Take: {_equity(take['take'])}",
            f"Pass: {_equity(take['pass'])}",
            scale,
        ]
    )


# --- /verify ---------------------------------------------------------------------------------


def verify_text(report: VerifyReport) -> str:
    """What /verify found, in a sentence or two."""
    if not report.dice:
        return f"Match #{report.match_id} has used no dice."
    if report.ok is None:
        return (
            f"Match #{report.match_id} is still on: {len(report.dice)} dice rolled so far. "
            f"The seed (commitment {report.commitment}) is revealed when it ends."
        )
    if report.ok:
        return (
            f"All {len(report.dice)} dice of match #{report.match_id} check out against seed "
            f"{report.seed} (commitment {report.commitment})."
        )
    if report.drawn is not None and report.drawn != len(report.dice):
        return (
            f"The dice of match #{report.match_id} do NOT check out: {report.drawn} dice were "
            f"drawn from seed {report.seed}, but the log shows {len(report.dice)}."
        )
    return f"The dice of match #{report.match_id} do NOT match the seed {report.seed}."


# --- the bot's permissions -------------------------------------------------------------------

# discord.Permissions attribute -> the name Discord's settings show.
PERMISSION_NAMES = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
    "create_public_threads": "Create Public Threads",
    "add_reactions": "Add Reactions",
}


def _and(names: Sequence[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def missing_permissions(missing: Sequence[str]) -> str:
    """Why /challenge refuses a channel: the permissions the bot lacks there, by name."""
    names = [PERMISSION_NAMES.get(m, m.replace("_", " ").title()) for m in missing]
    them = "it" if len(names) == 1 else "them"
    plural = "" if len(names) == 1 else "s"
    return (
        f"I can't host a match in this channel: I'm missing the {_and(names)} "
        f"permission{plural} here. A server admin can grant {them} to tablebot in this "
        "channel's settings, or you can challenge in another channel."
    )


# --- a match's thread, gone ------------------------------------------------------------------

THREAD_GONE = {
    "deleted": "This match's thread was deleted: the match goes on here.",
    "locked": "This match's thread was locked: the match goes on here.",
    "archived": "This match's thread was closed: the match goes on here.",
    "refused": "This match's thread can't be used any more: the match goes on here.",
}


def thread_gone(how: str) -> str:
    """Why a match left its thread for the channel: ``how`` is "deleted", "locked",
    "archived" (by a moderator) or "refused" (Discord refused the bot's post there)."""
    return THREAD_GONE[how]


# --- pages of a list -------------------------------------------------------------------------


def page_of(page: int, pages: int) -> str:
    """Under a page of a long list (``page`` counts from 0)."""
    return f"Page {page + 1} of {pages}"


# --- post-match analysis -----------------------------------------------------------------------


def _message_link(p: dict[str, Any]) -> str:
    """A jump link to the analysis message where known, else its channel."""
    channel, message, guild = p.get("channel_id"), p.get("message_id"), p.get("guild_id")
    if message is not None and guild is not None:
        return f"https://discord.com/channels/{guild}/{channel}/{message}"
    return f"<#{channel}>"


def _analyses(count: int) -> str:
    return "1 analysis" if count == 1 else f"{count} analyses"


def analysis_queued(match_id: int, channel_id: int, ahead: int) -> str:
    """The ephemeral answer to /analyse."""
    wait = f" ({_analyses(ahead)} ahead of it)" if ahead else ""
    return f"Match #{match_id} is queued for analysis{wait}: the report will be in <#{channel_id}>."


def analysis_progress(match_id: int, done: int, total: int | None, ahead: int = 0) -> str:
    """The progress message, edited in place while the analysis runs."""
    if total is None:
        wait = f", {_analyses(ahead)} ahead" if ahead else ""
        return f"Analysis of match #{match_id}: queued{wait}."
    game = min(done + 1, total)
    return f"Analysing match #{match_id}… game {game} of {total}"


def analysis_failed(match_id: int) -> str:
    return (
        f"Sorry, the analysis of match #{match_id} failed (this is logged). "
        f"Try again with /analyse match:{match_id}."
    )


def analysis_done(match_id: int) -> str:
    """The report's first line (the progress message, edited)."""
    return f"Analysis of match #{match_id}: done."


def analysis_title(match_id: int, kind: GameKind) -> str:
    return f"How did you play? Match #{match_id} ({spec_of(kind).title})"


def analysis_player_text(kind: GameKind, figures: Any, unit: str) -> str:
    """One player's figures (an ``engines.analysis.PlayerFigures``)."""
    lines = [
        f"**{figures.rating}**",
        f"Checker play: {figures.checker_error_rate:.1f} ({unit}, "
        f"{figures.unforced_moves} unforced)",
    ]
    if figures.unforced_cube_decisions:
        lines.append(
            f"Cube: {figures.cube_error_rate:.1f} ({figures.unforced_cube_decisions} decisions)"
        )
    if figures.pr is not None:
        lines.append(f"PR {figures.pr:.2f}")
    lines.append(f"{plural(figures.errors, 'error')}, {plural(figures.blunders, 'blunder')}")
    if spec_of(kind).has_dice:
        lines.append(f"Luck {figures.luck:+.3f}")
    return "\n".join(lines)


def mistake_title(rank: int, name: str, game: int) -> str:
    return f"Mistake {rank}: {name}, game {game}"


def mistake_text(played: str, best: str, loss: float, dice: Sequence[int]) -> str:
    roll = f"Roll {dice_text(dice)}. " if dice else ""
    # Plain text (the adapter escapes it): notation has "*" for a hit.
    return f"{roll}Played {played}; best {best}. Equity lost: {loss:.3f}"


NO_MISTAKES = "No mistakes: every decision was the best one."


def analysed_by(details: Mapping[str, object]) -> str:
    """The report's footer: how it was analysed (``MatchAnalysis.details``)."""
    evaluator = details.get("evaluator") or "?"
    ply = details.get("ply")
    return f"Analysed by {evaluator}" + (f" at {ply}-ply." if ply is not None else ".")


CHART_TITLE = "Winning chances after every move"


def analysis_stats_text(analysed: int, error_rate: float | None, pr: float | None) -> str:
    """The /stats line for a player's analysed matches."""
    if not analysed or error_rate is None:
        return ""
    figure = f"PR {pr:.2f}" if pr is not None else f"error rate {error_rate:.1f}"
    matches = "1 match" if analysed == 1 else f"{analysed} matches"
    return f"Analysed: {matches}, average {figure}"


def analysis_settings_line(robot: bool, human: bool) -> str:
    return (
        f"- Analysis when a match ends: robot matches {'on' if robot else 'off'}, "
        f"matches between people {'on' if human else 'off'}"
    )
