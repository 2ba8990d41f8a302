"""``tablebot hint``: the robot's engines on the command line.

    tablebot hint --game backgammon --position-id ID --match-id ID [--level L] [--json]
    tablebot hint --game nannon --position 012-012 [--roll N]
                  [--score A-B --length N --cube V --owner centre|me|them --crawford]
                  [--level L] [--json]
    tablebot hint --game checkers --fen FEN [--level L] [--json]

Backgammon takes gnubg's IDs: with dice in the Match ID it ranks the plays, without them it
gives the cube action (the take decision when the Match ID offers a double). Nannon: with
``--roll`` the moves, without it the cube action; money play unless ``--length`` is given
(``--score`` is the side on roll's score first). ``--json`` prints :mod:`bot.robot.hints`'s
data, otherwise a table. Exit status 2 for a bad question or a game the robot can't analyse
here. GNU Backgammon runs in this process (its main thread), not in a worker.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from bot.robot import hints
from bot.robot.levels import LEVEL_NAMES, parse_level
from engines.nannon_solver import Context, CubeOwner, CubeState, NannonSolver

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
    backgammon.add_argument("--match-id", help="gnubg Match ID (with dice: rank the plays)")
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


def _analyse(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    try:
        level = parse_level(args.level)
    except ValueError as exc:
        parser.error(str(exc))
    if args.game == "backgammon":
        _require(parser, args, "position_id", "match_id")
        return hints.backgammon_hint(args.position_id, args.match_id, level)
    if args.game == "nannon":
        _require(parser, args, "position")
        context = _nannon_context(parser, args)
        return hints.nannon_hint(NannonSolver(), args.position, args.roll, context)
    _require(parser, args, "fen")
    return hints.checkers_hint(args.fen, level)


def _signed(value: float) -> str:
    return f"{value:+.6f}"


def table(result: dict[str, Any]) -> str:
    """The hint as readable lines."""
    if "moves" in result:
        moves = result["moves"]
        if not moves:
            return "No legal move: the roll can't be played."
        width = max(len(m["move"]) for m in moves)
        return "\n".join(
            f"{n:>4}. {m['move']:<{width}}  {_signed(m['equity'])}  {m['position']}"
            for n, m in enumerate(moves, 1)
        )
    if "cube" in result:
        cube = result["cube"]
        return "\n".join(
            [
                f"No double     {_signed(cube['no_double'])}",
                f"Double, take  {_signed(cube['double_take'])}",
                f"Double, pass  {_signed(cube['double_pass'])}",
                f"Proper cube action: {cube['action']}",
            ]
        )
    take = result["take"]
    return "\n".join(
        [
            f"Take  {_signed(take['take'])}",
            f"Pass  {_signed(take['pass'])}",
            f"Proper answer: {take['action']}",
        ]
    )


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
        result = _analyse(parser, args)
    except SystemExit as exc:  # --help, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 2
    except (ValueError, hints.HintUnavailableError) as exc:
        # ValueError: the engines' GameError (a bad ID or FEN), InvalidContextError (a score or
        # cube the solver refuses), CannotDoubleError, a roll out of range.
        print(f"tablebot hint: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result) if args.json else table(result))
    return 0


__all__ = ["main", "table"]
