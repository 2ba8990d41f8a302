"""``tablebot analyse FILE [--json] [--ply N]``: a match file analysed on the command line.

Reads a ``.mat`` (backgammon, or Nannon with its variation header) or a PDN (checkers), told
apart by the content whatever the file's name, ours or another program's
(:mod:`engines.match_files`), analyses it game by game with the same
code as the Discord report (:func:`bot.robot.analysis.analyse_match`; backgammon by GNU
Backgammon in this process, at ``--ply`` plies) and prints a short summary, or with ``--json``
every figure and every decision (see docs/analysis.md). A file that is neither, one it can't
read, or a game it can't analyse here, is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

from bot.robot import analysis
from engines.analysis import MatchAnalysis
from engines.match_files import NOT_A_MATCH_FILE, MatchFile, MatchFileError, read_match_file
from engines.spec import spec_of

__all__ = ["main", "summary", "to_json"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"tablebot analyse: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tablebot analyse",
        description="Analyse a finished match: each player's error rate, luck, errors and "
        "blunders, and every decision's equity loss.",
    )
    parser.add_argument("file", help="a .mat (backgammon or Nannon) or .pdn (checkers) file")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--ply", type=int, default=2, help="GNU Backgammon's plies, 0 to 4 (default 2, as the bot)"
    )
    return parser


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def to_json(record: MatchFile, result: MatchAnalysis) -> dict[str, Any]:
    """The analysis as plain JSON data."""
    players = [
        {
            "name": p.name,
            "error_rate": _round(p.error_rate, 2),
            "checker_error_rate": _round(p.checker_error_rate, 2),
            "cube_error_rate": _round(p.cube_error_rate, 2),
            "pr": _round(p.pr, 2),
            "luck": _round(p.luck),
            "errors": p.errors,
            "blunders": p.blunders,
            "unforced_decisions": p.unforced_decisions,
            "unforced_moves": p.unforced_moves,
            "unforced_cube_decisions": p.unforced_cube_decisions,
            "checker_loss": _round(p.checker_loss),
            "cube_loss": _round(p.cube_loss),
            "rating": p.rating,
        }
        for p in result.players
    ]
    decisions = []
    for d in result.decisions:
        data = asdict(d)
        data.update(
            kind=d.kind.value,
            equity_loss=_round(d.equity_loss, 6),
            luck=_round(d.luck, 6),
            win_chance=_round(d.win_chance, 6),
            dice=list(d.dice),
        )
        decisions.append(data)
    return {
        "game": record.kind.value,
        "match_length": record.rules.length,
        "games": result.games,
        "details": result.details,
        "players": players,
        "worst": [result.decisions.index(d) for d in result.worst(3)],
        "decisions": decisions,
    }


def summary(record: MatchFile, result: MatchAnalysis) -> str:
    """A few readable lines: each player's figures, with their units, and the worst mistakes.
    Only the figures the game has: no cube error rate without a cube, no luck without dice."""
    spec = spec_of(record.kind)
    evaluator = result.details.get("evaluator", "")
    length = record.rules.length
    # Dice games count equity in points (1: a single game at cube 1); checkers, in the search's
    # score, from -1 (lost) to +1 (won).
    unit = "points" if spec.has_dice else "score"
    measure = "equity" if spec.has_dice else "score (-1 lost to +1 won)"
    lines = [
        f"{record.kind.value.capitalize()}, "
        f"{f'{length}-point match' if length else 'money game'}, "
        f"{result.games} game{'s' * (result.games != 1)}; analysed by {evaluator}",
        f"Error rates: the {measure} lost per unforced decision, in thousandths"
        + (" of a point" if spec.has_dice else "")
        + ("; PR: 500 x the same loss" if spec.analysis_pr else "")
        + (". Luck: what the dice gave against the average roll, in points." if spec.has_dice
           else "."),
    ]  # fmt: skip
    for p in result.players:
        rates = f"error rate {p.error_rate:.1f}"
        if spec.cube:
            rates += f" (checker {p.checker_error_rate:.1f}, cube {p.cube_error_rate:.1f})"
        if p.pr is not None:
            rates += f", PR {p.pr:.1f}"
        luck = f", luck {p.luck:+.3f} points" if spec.has_dice else ""
        lines.append(
            f"{p.name}: {rates}; {p.errors} errors, {p.blunders} blunders "
            f"in {p.unforced_decisions} decisions{luck}: {p.rating}"
        )
    for n, d in enumerate(result.worst(3), 1):
        # Backgammon's board is gnubg's two IDs, as GNU Backgammon and `tablebot hint` take it.
        where = (
            f"Position ID {d.position_id}, Match ID {d.match_id}" if d.match_id else d.position_id
        )
        roll = f"roll {'-'.join(map(str, d.dice))}, " if d.dice else ""
        lines.append(
            f"  {n}. game {d.game}, {result.players[d.player].name}: {roll}played {d.played}, "
            f"best {d.best} (lost {d.equity_loss:.3f} {unit}) at {where}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    path = Path(args.file)
    try:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a picture, an archive ...: not text at all
            raise MatchFileError(NOT_A_MATCH_FILE) from None
        record = read_match_file(path.name, text)
        result = analysis.analyse_match(
            record.kind, record.rules, record.actions, record.names, args.ply
        )
    except (OSError, UnicodeDecodeError, ValueError, RuntimeError, ImportError) as exc:
        # ValueError: the file (MatchFileError), a GameError, the solver's InvalidContextError;
        # RuntimeError and ImportError: gnubg missing or failing (backgammon).
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"tablebot analyse: {path.name}: {message}", file=sys.stderr)
        return 2
    print(json.dumps(to_json(record, result)) if args.json else summary(record, result))
    return 0
