"""``tablebot hint``: the robot's engines on the command line.

    tablebot hint --game backgammon --position-id ID [--match-id ID] [--dice 31] [--level L]
                  [--json]
    tablebot hint --game nannon --position 012-012 [--roll N]
                  [--score A-B --length N --cube V --owner centre|me|them --crawford]
                  [--level L] [--json]
    tablebot hint --game checkers --fen FEN [--level L] [--json]

Backgammon takes gnubg's IDs (without a Match ID: a money game, the cube centred, as GNU
Backgammon starts one): with dice (``--dice``, or in the Match ID) it ranks the plays,
without them it gives the cube action (the take decision when the Match ID offers a double).
Nannon: with ``--roll`` the moves, without it the cube action; money play unless ``--length``
is given (``--score`` is the side on roll's score first). ``--json`` prints
:mod:`bot.robot.hints`'s data, otherwise a table: a heading naming the game, the side and the
unit, then each choice's equity (checkers: the search's score) to 3 decimals and its difference
from the best; Nannon's positions after a move with the mover's checkers first. Before the roll,
a side that may not double is told to roll, with the position's equity (with ``--json``: exit
status 2, as for a bad question or a game the robot can't analyse here). GNU Backgammon runs in
this process (its main thread), not in a worker.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from bot.robot import hints
from bot.robot.gnubg_brain import may_double
from bot.robot.levels import LEVEL_NAMES, parse_level
from engines.backgammon import Position as BgPosition
from engines.checkers import Board
from engines.gnubg import MatchId
from engines.nannon import Position as NannonPosition
from engines.nannon_solver import Context, CubeOwner, CubeState, NannonSolver

# gnubg's Match ID of a money game with the cube centred (Jacoby on, its default).
MONEY_CENTRED = "cAkAAAAAAAAA"
OWNERS = {
    "centre": CubeOwner.CENTRED,
    "center": CubeOwner.CENTRED,
    "me": CubeOwner.ME,
    "them": CubeOwner.THEM,
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"tablebot hint: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tablebot hint",
        description="The robot's analysis of a position: every legal move with its equity, "
        "or the cube decision before a roll.",
    )
    parser.add_argument("--game", required=True, choices=("backgammon", "nannon", "checkers"))
    parser.add_argument(
        "--level",
        default="master",
        help=f"the robot's level: {', '.join(LEVEL_NAMES)} or 1-5 (default master)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    backgammon = parser.add_argument_group("backgammon (gnubg's IDs)")
    backgammon.add_argument("--position-id", help="gnubg Position ID")
    backgammon.add_argument(
        "--match-id",
        default=MONEY_CENTRED,
        help="gnubg Match ID (with dice: rank the plays; default: a money game, the cube centred)",
    )
    backgammon.add_argument(
        "--dice", help="the roll to play, e.g. 31 or 6-6 (instead of the Match ID's dice)"
    )
    nannon = parser.add_argument_group("nannon")
    nannon.add_argument("--position", help="Nannon position, the side on roll first: 012-012")
    nannon.add_argument("--roll", type=int, help="the die to play, 1-6 (without: the cube)")
    nannon.add_argument("--length", type=int, help="match length (without: money play)")
    nannon.add_argument("--score", help="match score A-B, the side on roll first (default 0-0)")
    nannon.add_argument("--cube", type=int, default=1, help="cube value (default 1)")
    nannon.add_argument("--owner", choices=sorted(OWNERS), default="centre", help="cube owner")
    nannon.add_argument("--crawford", action="store_true", help="this is the Crawford game")
    checkers = parser.add_argument_group("checkers")
    checkers.add_argument("--fen", help="checkers position as FEN")
    return parser


@dataclasses.dataclass(frozen=True)
class _Answer:
    """A hint and how to print it: ``heading`` names the game, the side and the unit;
    ``measure`` is the column's name (checkers: "score"); ``mover_first`` turns Nannon's
    positions after a move (the opponent's first, in the data) to the mover's side. ``result``
    None: the side on roll may not double (``cant_double`` says why, ``reason`` is its code
    for --json); ``equity`` is then the position's."""

    result: dict[str, Any] | None
    heading: str
    measure: str = "equity"
    mover_first: bool = False
    cant_double: str = ""
    reason: str = ""
    equity: float = 0.0


_DICE = re.compile(r"([1-6])[-/ ,]?([1-6])")
_MONEY_UNIT = "in points (cubeful)"
_MATCH_UNIT = "as 2 x match-winning chance - 1 (cubeful)"


def _require(parser: argparse.ArgumentParser, args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{name.replace('_', '-')}" for name in names if getattr(args, name) is None]
    if missing:
        parser.error(f"--game {args.game} needs {' and '.join(missing)}")


def _nannon_context(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Context:
    cube = CubeState(args.cube, OWNERS[args.owner])
    if args.length is None:
        if args.score is not None or args.crawford:
            parser.error("--score and --crawford are for match play: give --length too")
        return Context.money(cube)
    mine, theirs = 0, 0
    if args.score is not None:
        parts = args.score.split("-")
        if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
            parser.error(f"--score is two scores like 2-3, not {args.score[:20]!r}")
        mine, theirs = (int(part) for part in parts)
    if not (0 <= mine < args.length and 0 <= theirs < args.length):
        parser.error(f"the score {mine}-{theirs} is not one of a {args.length}-point match")
    return Context.match(args.length - mine, args.length - theirs, cube, crawford=args.crawford)


def _with_dice(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The Match ID, with ``--dice`` in it when given."""
    if args.dice is None:
        return str(args.match_id)
    found = _DICE.fullmatch(args.dice.strip())
    if found is None:
        parser.error(f"--dice is two dice from 1 to 6 like 31 or 6-6, not {args.dice[:20]!r}")
    match = MatchId.decode(args.match_id)
    if match.double_offered:
        parser.error("the Match ID has a double offered: answer it before the roll (no --dice)")
    dice = (int(found[1]), int(found[2]))
    return dataclasses.replace(match, dice=dice).encode()


def _backgammon(parser: argparse.ArgumentParser, args: argparse.Namespace, level: Any) -> _Answer:
    if args.dice is not None and args.game != "backgammon":
        parser.error("--dice is for backgammon (Nannon: --roll)")
    _require(parser, args, "position_id")
    BgPosition.from_id(args.position_id)  # the Position ID's error first, as the hint gives it
    match_id = _with_dice(parser, args)
    match = MatchId.decode(match_id)
    on_roll = match.player_on_roll
    if match.match_length:
        score = f"{match.score[on_roll]}-{match.score[1 - on_roll]}"
        where, unit = f"{match.match_length}-point match, {score}", _MATCH_UNIT
    else:
        where, unit = "money play", _MONEY_UNIT
    if match.double_offered:
        heading = f"Backgammon ({where}): take or pass the double; equity for the side doubled"
        return _Answer(
            hints.backgammon_hint(args.position_id, match_id, level), f"{heading} {unit}"
        )
    if match.dice != (0, 0):
        high, low = sorted(match.dice, reverse=True)
        heading = f"Backgammon ({where}), {high}{low} to play; equity for the side on roll"
        return _Answer(
            hints.backgammon_hint(args.position_id, match_id, level), f"{heading} {unit}"
        )
    heading = (
        f"Backgammon ({where}), before the roll (no dice: --dice 31 ranks a roll's plays); "
        f"equity for the side on roll {unit}"
    )
    if not may_double(match):
        equity = hints.backgammon_equity(args.position_id, match_id, level)
        if match.cube_owner not in (-1, match.player_on_roll):
            reason = "opponent_owns_cube"
        else:
            reason = "crawford" if match.crawford else "dead_cube"
        return _cant_double(heading, reason, equity)
    return _Answer(hints.backgammon_hint(args.position_id, match_id, level), heading)


_CANT_DOUBLE = {
    "opponent_owns_cube": "the cube is your opponent's",
    "crawford": "this is the Crawford game",
    "dead_cube": "the cube is dead: winning this game at its value wins the match",
    "no_cube": "there is no cube",
}
"""Why the side on roll can't double, by the code ``--json`` gives."""


def _cant_double(heading: str, reason: str, equity: float) -> _Answer:
    return _Answer(None, heading, cant_double=_CANT_DOUBLE[reason], reason=reason, equity=equity)


def _nannon(parser: argparse.ArgumentParser, args: argparse.Namespace) -> _Answer:
    _require(parser, args, "position")
    context = _nannon_context(parser, args)
    if context.score is None:
        where, unit = "money play", _MONEY_UNIT
    else:
        length = args.length
        mine, theirs = length - context.score.away_me, length - context.score.away_them
        where, unit = f"{length}-point match, {mine}-{theirs}", _MATCH_UNIT
    over = hints.game_over_json(NannonPosition.from_id(args.position))
    if over is not None:
        return _Answer(over, f"Nannon {args.position}: the game is over")
    solver = NannonSolver()
    if args.roll is not None:
        heading = (
            f"Nannon {args.position} ({where}), roll {args.roll}; equity for the side on roll "
            f"{unit}; positions after the move, the mover's checkers first"
        )
        result = hints.nannon_hint(solver, args.position, args.roll, context)
        return _Answer(result, heading, mover_first=True)
    heading = f"Nannon {args.position} ({where}), before the roll; equity for the side on roll "
    heading += unit
    if not context.may_double or context.cube_dead:
        if context.cube is None:
            reason = "no_cube"
        elif context.score is not None and context.score.crawford:
            reason = "crawford"
        else:
            reason = "dead_cube" if context.may_double else "opponent_owns_cube"
        equity = round(solver.equity(NannonPosition.from_id(args.position), context), 6)
        return _cant_double(heading, reason, equity)
    return _Answer(hints.nannon_hint(solver, args.position, None, context), heading)


def _checkers(parser: argparse.ArgumentParser, args: argparse.Namespace, level: Any) -> _Answer:
    _require(parser, args, "fen")
    mover = Board.from_fen(args.fen).turn.name.capitalize()
    heading = (
        f"Checkers, {mover} to move; score for {mover}: the search's evaluation, "
        "from -1 (lost) to +1 (won)"
    )
    return _Answer(hints.checkers_hint(args.fen, level), heading, measure="score")


def _analyse(parser: argparse.ArgumentParser, args: argparse.Namespace) -> _Answer:
    try:
        level = parse_level(args.level)
    except ValueError as exc:
        parser.error(str(exc))
    if args.game == "backgammon" or args.dice is not None:
        return _backgammon(parser, args, level)
    if args.game == "nannon":
        return _nannon(parser, args)
    return _checkers(parser, args, level)


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _columns(rows: list[list[str]]) -> list[str]:
    """Rows of cells, left-aligned text and right-aligned numbers, two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numeric = [all(_is_number(row[i]) for row in rows[1:]) for i in range(len(widths))]
    return [
        "  ".join(
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(row, widths, numeric, strict=True)
        ).rstrip()
        for row in rows
    ]


def _is_number(cell: str) -> bool:
    return cell == "" or cell.lstrip("+-").replace(".", "", 1).isdigit()


def _diff(value: float, best: float) -> str:
    return "" if value == best else _signed(value - best)


def _mover_first(position_id: str) -> str:
    """A Nannon position ID turned to the other side: ``012-123`` -> ``123-012``."""
    position = NannonPosition.from_id(position_id)
    return NannonPosition(position.theirs, position.mine).id


def table(result: dict[str, Any], measure: str = "equity", *, mover_first: bool = False) -> str:
    """The hint as a table: a header row, each choice's ``measure`` to 3 decimals and its
    difference from the best."""
    if "over" in result:
        over = result["over"]
        winner = "The side on roll" if over["winner"] == "side on roll" else "The opponent"
        how = "a nannon" if over["result"] == "nannon" else "a single game"
        points = f"{over['points']} point{'s' if over['points'] != 1 else ''}"
        return f"{winner} has won ({how}, {points} at cube 1): there is nothing to play."
    if "moves" in result:
        moves = result["moves"]
        if not moves:
            return "No legal move: the roll can't be played."
        best = moves[0]["equity"]
        rows = [["#", "move", measure, "diff", "position after"]]
        for n, m in enumerate(moves, 1):
            after = _mover_first(m["position"]) if mover_first else m["position"]
            rows.append([f"{n}.", m["move"], _signed(m["equity"]), _diff(m["equity"], best), after])
        return "\n".join(_columns(rows))
    if "cube" in result:
        cube = result["cube"]
        no_double, take, cash = cube["no_double"], cube["double_take"], cube["double_pass"]
        best = max(no_double, min(take, cash))
        rows = [["cube action", measure, "diff"]]
        rows += [
            [label, _signed(value), _diff(value, best)]
            for label, value in (("No double", no_double), ("Double, take", take),
                                 ("Double, pass", cash))
        ]  # fmt: skip
        return "\n".join([*_columns(rows), f"Proper cube action: {cube['action']}"])
    take = result["take"]
    best = max(take["take"], take["pass"])
    rows = [["answer", measure, "diff"]]
    rows += [
        [label, _signed(take[key]), _diff(take[key], best)]
        for label, key in (("Take", "take"), ("Pass", "pass"))
    ]
    return "\n".join([*_columns(rows), f"Proper answer: {take['action']}"])


def _printed(answer: _Answer, as_json: bool) -> str:
    if answer.result is None:
        if as_json:  # no cube action is possible: the answer is to roll (issue 33)
            roll = {"action": "roll", "reason": answer.reason, "equity": answer.equity}
            return json.dumps({"no_cube_action": roll})
        return "\n".join(
            [
                answer.heading,
                f"Roll: you can't double ({answer.cant_double}).",
                f"{answer.measure.capitalize()}: {_signed(answer.equity)}",
            ]
        )
    if as_json:
        return json.dumps(answer.result)
    body = table(answer.result, answer.measure, mover_first=answer.mover_first)
    return f"{answer.heading}\n{body}"


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
        printed = _printed(_analyse(parser, args), args.json)
    except SystemExit as exc:  # --help, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 2
    except (ValueError, hints.HintUnavailableError) as exc:
        # ValueError: the engines' GameError (a bad ID or FEN), InvalidContextError (a score or
        # cube the solver refuses), CannotDoubleError, a roll out of range.
        print(f"tablebot hint: {exc}", file=sys.stderr)
        return 2
    print(printed)
    return 0


__all__ = ["main", "table"]
