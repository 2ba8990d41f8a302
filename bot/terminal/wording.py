"""Every sentence the terminal prints: the service's events and refusals, the prompt, help and
hints, in plain English (no Discord markup; the Discord catalogue is the Discord adapter's).

Players are named as the match names them (the human is "You" unless ``--name`` says
otherwise), so every sentence is in the past tense or names the player: "You rolled 5-2.",
"tablebot played 13/11 13/8.".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.robot.levels import LEVEL_NAMES
from bot.service import MatchView
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
from bot.service.model import MatchEvent
from engines.base import GameKind, GameResult, Phase, ResultKind
from engines.spec import spec_of
from render.common import format_score

# --- the match -------------------------------------------------------------------------------


def points(value: float) -> str:
    return format_score(value)


def length_text(kind: GameKind, length: int) -> str:
    if length == 0:
        return "a money game"
    unit = spec_of(kind).score_unit
    return f"a match to {length} {unit}{'s' if length != 1 else ''}"


def level_name(level: int | None) -> str:
    return next((name for name, value in LEVEL_NAMES.items() if value == level), "?")


def match_line(view: MatchView) -> str:
    """``Match #3: Nannon, a match to 3 points, against tablebot (beginner).``"""
    robot = view.players[1].name
    return (
        f"Match #{view.match_id}: {spec_of(view.kind).title}, {length_text(view.kind, view.length)}"
        f", against {robot} ({level_name(view.robot_level)})."
    )


def dice_text(dice: tuple[int, ...] | None) -> str:
    return "-".join(map(str, dice or ()))


def result_text(kind: GameKind, names: tuple[str, str], result: GameResult) -> str:
    if result.winner is None:
        return f"Game {result.game_number} is drawn."
    winner, loser = names[result.winner], names[1 - result.winner]
    how = {
        ResultKind.SINGLE: "",
        ResultKind.GAMMON: " with a gammon",
        ResultKind.BACKGAMMON: " with a backgammon",
        ResultKind.NANNON: f" with a NANNON ({loser}: no checker in safety)",
        ResultKind.DROP: f": {loser} passed the double",
        ResultKind.RESIGN: f": {loser} resigned",
        ResultKind.DRAW: "",
        ResultKind.FORFEIT: f": {loser} conceded",
    }[result.kind]
    unit = spec_of(kind).score_unit
    plural = "s" if result.points != 1 else ""
    return f"Game {result.game_number}: {winner} won {points(result.points)} {unit}{plural}{how}."


def event_text(event: MatchEvent, view: MatchView) -> str | None:
    """One event in a sentence (None: nothing worth a line)."""
    names = (view.players[0].name, view.players[1].name)
    spec = spec_of(view.kind)
    match event:
        case MatchStarted():
            return match_line(view)
        case OpeningRolled(dice=dice, first=None, auto_double=auto_double):
            text = f"Opening roll: {names[0]} {dice[0]}, {names[1]} {dice[1]}: a tie."
            if auto_double:
                text += f" The cube goes up to {auto_double}; roll again."
            elif event.either_may_double:
                text += " Either player may double, or roll again."
            return text
        case OpeningRolled(dice=dice, first=int(first)):
            return (
                f"Opening roll: {names[0]} {dice[0]}, {names[1]} {dice[1]}: "
                f"{names[first]} to play first."
            )
        case DiceRolled(seat=seat, dice=dice, stuck=stuck):
            text = f"{names[seat]} rolled {dice_text(dice)}."
            if stuck is Stuck.TURN_PASSES:
                text += " No legal move: the turn passes."
            elif stuck is Stuck.MUST_PASS:
                text += " No legal move: type 'no move' to pass."
            return text
        case NoLegalMove(seat=seat):
            return f"{names[seat]} has no legal move: the turn passes."
        case MovePlayed(seat=seat, move=move, auto=auto):
            return f"{names[seat]} played {move}{' (the only move)' if auto else ''}."
        case DoubleOffered(seat=seat, value=value):
            return f"{names[seat]} doubled to {value}."
        case DoubleTaken(seat=seat, value=value):
            return f"{names[seat]} took: the cube is at {value}."
        case DoublePassed(seat=seat):
            return f"{names[seat]} passed."
        case ResignationOffered(seat=seat, level=level):
            return f"{names[seat]} offered to resign ({spec.resign_level_name(level)})."
        case Resigned(seat=seat):
            return f"{names[seat]} resigned the game."
        case ResignationAccepted(seat=seat):
            return f"{names[seat]} accepted the resignation."
        case ResignationDeclined(seat=seat):
            return f"{names[seat]} declined the resignation."
        case DrawOffered(seat=seat):
            return f"{names[seat]} offered a draw."
        case DrawAccepted(seat=seat):
            return f"{names[seat]} accepted the draw."
        case DrawDeclined(seat=seat):
            return f"{names[seat]} declined the draw."
        case MatchLeft(seat=seat):
            return f"{names[seat]} conceded the match."
        case WinClaimed(seat=seat, idle=idle):
            return f"{names[seat]} claimed the match: {names[idle]} was away too long."
        case GameOver(result=result, score=score):
            return f"{result_text(view.kind, names, result)} Score: {_score(names, score)}."
        case CrawfordGame(game_number=number):
            return f"Game {number} is the Crawford game: no doubling in it."
        case MatchOver(winner=None, score=score):
            return f"The match is drawn, {_score(names, score)}."
        case MatchOver(winner=int(winner), score=score):
            what = "the money game" if view.length == 0 else "the match"
            return f"{names[winner]} won {what}, {_score(names, score)}."
    return None


def _score(names: tuple[str, str], score: tuple[float, float]) -> str:
    return f"{names[0]} {points(score[0])}, {names[1]} {points(score[1])}"


def prompt(view: MatchView, seat: int) -> str:
    """What ``seat`` (the human) may do now, as the line before the prompt."""
    spec = spec_of(view.kind)
    phase = view.phase
    names = (view.players[0].name, view.players[1].name)
    if phase in (Phase.OPENING, Phase.OPENING_TIE):
        return "Roll again, or double." if view.can_double[seat] else "Roll for the opening."
    if view.actor != seat:
        return f"Waiting for {names[1 - seat]}: type 'board' to let it play."
    if phase is Phase.ROLL:
        return "Roll, or double." if view.can_double[seat] else "Roll."
    if phase is Phase.MOVE:
        if view.must_pass:
            return "No legal move: type 'no move' to pass."
        example = view.legal_moves[0] if len(view.legal_moves) else ""
        if not spec.has_dice:
            return f"Your move ({view.colours[seat]}), e.g. {example}; 'moves' lists them all."
        return f"Your move with {dice_text(view.dice)}, e.g. {example}; 'moves' lists them all."
    if phase is Phase.CUBE_OFFERED:
        return f"{names[1 - seat]} doubled to {view.cube_value * 2}: take or pass?"
    if phase is Phase.RESIGN_OFFERED and view.resign_offer is not None:
        level = spec.resign_level_name(view.resign_offer[1])
        return f"{names[1 - seat]} offers to resign ({level}): accept or decline?"
    if phase is Phase.DRAW_OFFERED:
        return f"{names[1 - seat]} offers a draw: accept or decline?"
    return "The match is over."


PROMPT = "> "


def moves_text(view: MatchView) -> str:
    moves = list(view.legal_moves)
    if not moves:
        return "There is no move to play now."
    return f"Legal moves ({len(moves)}): " + ", ".join(moves)


def help_text(kind: GameKind) -> str:
    spec = spec_of(kind)
    lines = ["Commands:"]
    if spec.has_dice:
        lines.append("  roll                 roll the dice")
    if spec.cube:
        lines += [
            "  double               offer a double",
            "  take, pass           answer a double",
        ]
    *some, last = spec.move_examples
    example = f"e.g. {', '.join(some)} or {last}" if some else f"e.g. {last}"
    lines += [
        f"  <move>               play a move ({example})",
        "  moves                list the legal moves",
        "  hint                 the robot's advice on your decision",
        "  board                show the board again",
    ]
    levels = ", ".join(spec.resign_level_name(level) for level in spec.resign_levels)
    lines.append(f"  resign [level]       resign the game ({levels})")
    if spec.draw_offers:
        lines.append("  draw                 offer a draw")
    lines += [
        "  accept, decline      answer a resignation or draw offer",
        "  concede              give up the whole match",
        "  <command in words>   any other, e.g. 'decline draw', 'claim win'",
        "  help                 this list",
        "  quit                 stop here; 'tablebot play' resumes the match",
    ]
    return "\n".join(lines)


UNKNOWN_INPUT = "Sorry, {text!r} is not a command or a legal move. Type 'help' for the commands."


def bad_resign_level(kind: GameKind, typed: str) -> str:
    spec = spec_of(kind)
    levels = " or ".join(spec.resign_level_name(level) for level in spec.resign_levels)
    return f"{typed[:40]!r} is not a way to resign in {spec.title}: {levels}."


NOTHING_TO_ANSWER = "There is no offer to accept or decline now."
QUIT = "Saved. Type 'tablebot play' to resume match #{match_id}."
CANNOT_OPEN = "tablebot play: nothing to play on: {error}"
INTERRUPTED = "Stopped. Every move so far is saved: 'tablebot play' resumes the match."
BOARD_PNG = "Board picture: {path}"
BOARD_PNG_FAILED = "The board picture could not be drawn ({error}); the text board stands."
ROBOT_FAILED = (
    "The robot could not work out its next move just now (its engine failed). "
    "Type 'board' to let it try again."
)
ROBOT_UNAVAILABLE = "Sorry, {game} against the robot is not available on this platform."
HINT_FAILED = "The robot could not work out a hint just now: please try again."


def resuming(view: MatchView, not_for_it: list[str]) -> str:
    """The match ``tablebot play`` resumes, at what level and score; ``not_for_it``: the
    options given that only a new match would take (``--level expert`` ...)."""
    names = (view.players[0].name, view.players[1].name)
    line = match_line(view)
    lines = [
        f"Resuming the unfinished {line[0].lower()}{line[1:]}",
        f"Score: {_score(names, view.score)}, game {view.game_number}.",
    ]
    if not_for_it:
        given = " and ".join(not_for_it)
        verb = "is" if len(not_for_it) == 1 else "are"
        lines.append(
            f"{given} {verb} for a new match: add --new to start one (this one stays saved)."
        )
    else:
        lines.append("'tablebot play --new' starts a new match instead (this one stays saved).")
    return "\n".join(lines)


EXPORTED = "Wrote {path} (match #{match_id}): 'tablebot analyse {path}' analyses it."
NOTHING_TO_EXPORT = (
    "No finished match to export yet: 'tablebot play --export N' writes match #N, finished or not."
)
CANNOT_EXPORT = "tablebot play: the match file could not be written: {error}"
EXPORT_IT = "'tablebot play --export {match_id}' writes this match as a {suffix} file."
ANALYSING = "Analysing the match ({evaluator})..."
ANALYSIS_PROGRESS = "  game {done} of {total} analysed"
ANALYSIS_FAILED = "Sorry, the analysis failed (the log says why); the match itself is saved."


# --- hints -----------------------------------------------------------------------------------

HINT_MOVES_SHOWN = 3


def equity_scale(view: MatchView) -> str:
    """What a hint's equities measure in this match."""
    if not spec_of(view.kind).cube:
        return "the search's estimate, from -1 (a loss) to +1 (a win)"
    if view.length == 0:
        return "in points, for a cube of 1"
    return "in match winning chances, from -1 (the match lost) to +1 (won)"


def _equity(value: float) -> str:
    return f"{value:+.3f}"


def hint_text(kind: str, data: dict[str, Any], view: MatchView) -> str:
    """The robot's hint (:mod:`bot.robot.hints`'s data) in lines."""
    scale = f"Equities for you, {equity_scale(view)}."
    if kind == "moves":
        moves = data["moves"][:HINT_MOVES_SHOWN]
        if not moves:
            return "There is no legal move to play."
        lines = [f"Best moves ({len(data['moves'])} legal):"]
        lines += [f"  {n}. {m['move']:<24} {_equity(m['equity'])}" for n, m in enumerate(moves, 1)]
        return "\n".join([*lines, scale])
    if kind == "cube":
        cube = data["cube"]
        if cube is None:
            return "No double: just roll. A win at the cube's value already takes the match."
        return "\n".join(
            [
                f"Cube action: {cube['action']}.",
                f"  No double:    {_equity(cube['no_double'])}",
                f"  Double, take: {_equity(cube['double_take'])}",
                f"  Double, pass: {_equity(cube['double_pass'])}",
                scale,
            ]
        )
    take = data["take"]
    if take is None:
        return "Take. The doubler's win already takes the match: taking costs you nothing."
    return "\n".join(
        [
            f"{take['action'].capitalize()}.",
            f"  Take: {_equity(take['take'])}",
            f"  Pass: {_equity(take['pass'])}",
            scale,
        ]
    )


# --- refusals --------------------------------------------------------------------------------

_REFUSALS: dict[Refusal, Callable[[dict[str, Any]], str]] = {
    Refusal.MATCH_OVER: lambda p: f"Match #{p['match_id']} is over.",
    Refusal.NOT_YOUR_TURN: lambda p: f"It's {p['name']}'s turn.",
    Refusal.NO_DICE_IN_CHECKERS: lambda p: "Checkers has no dice: type a move.",
    Refusal.ALREADY_ROLLED: lambda p: "You rolled already: type a move.",
    Refusal.OPENING_ROLL_FIRST: lambda p: "Roll for the opening first.",
    Refusal.ROLL_FIRST: lambda p: "Roll first, then move.",
    Refusal.EMPTY_MOVE: lambda p: "Type a move, e.g. one 'moves' lists.",
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
        f"{str(p['value'])[:40]!r} is not a resignation level here."
    ),
    Refusal.NO_HINT: lambda p: "There is nothing for you to decide now, so no hint.",
    Refusal.STALE_BOARD: lambda p: "The match moved on meanwhile: look at the board again.",
    Refusal.MATCH_CHANGED: lambda p: "The match moved on meanwhile: look at the board again.",
    Refusal.LENGTH_OUT_OF_RANGE: lambda p: (
        f"A {p['game']} match is {p['lowest']} to {p['highest']} long, not {p['length']}."
    ),
    Refusal.MONEY_NOT_BACKGAMMON: lambda p: "Money play (--length 0) is for backgammon only.",
    Refusal.CHECKERS_CUBE_OPTIONS: lambda p: "Checkers has no doubling cube: leave out --cube.",
    Refusal.BAD_ROBOT_LEVEL: lambda p: f"{p['value']!r} is not a level: 1 to 5.",
    Refusal.NO_SUCH_MATCH: lambda p: f"There is no match #{p['match_id']} here.",
}


def refusal_text(error: BaseException) -> str:
    """A refusal in these words; the engines' own errors (an illegal move ...) as their message."""
    if isinstance(error, Refused):
        say = _REFUSALS.get(error.refusal)
        return say(error.params) if say else f"Sorry, that can't be done now ({error.refusal})."
    return str(error)
