"""Match exports rebuilt from a match's actions: the gnubg/JellyFish ``.mat`` text and checkers
PDN. :func:`export_match` writes whichever the game's spec names (``spec.export_format``, file
suffix ``spec.export_suffix``).

The ``.mat`` layout follows GNU Backgammon's own exporter: a `` N point match`` line, then per
game a `` Game n`` line, the score line (``" %-31s%s : %d"``), and numbered rows with player 0's
record in the left column (``"%3d) %-27s "``) and player 1's in the right. A record is a roll and
its play in plain JellyFish notation (``"31: 8/5 6/5"``, bar = 25, off = 0, hits marked ``*``),
``" Doubles => 2"``, ``" Takes"`` or ``" Drops"``; each game ends with ``"Wins n point(s)"``.
gnubg writes no per-game Crawford marker (its importer derives the Crawford game from the
scores); the rule itself goes in the ``; [Crawford "On"]`` header, which XG also reads.

Two things the format can't say:

- A conceded match (a player left, or lost on time). gnubg reads a ``Wins n points`` line that
  no move or drop explains as a resignation of ``n / cube`` games, at least a single and at most
  a backgammon. So the concession is written as the resignation gnubg will score, ``cube x
  level`` with the level the smallest that covers the points still needed (a backgammon at most),
  and a ``; [Termination "..."]`` header says what happened and the real final score. gnubg then
  ends the match as we did whenever those points suffice (3 cubes or fewer were needed);
  otherwise its score stops short, and the header tells why.
- Automatic doubles (money play): a tied opening roll turns the cube with no action to write,
  so gnubg keeps its cube lower than ours in those games.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines import new_match
from engines.actions import (
    AcceptResign,
    Action,
    ConcedeMatch,
    Double,
    Drop,
    Move,
    OpeningRoll,
    Roll,
    Take,
)
from engines.base import GameKind, MatchRules
from engines.checkers import to_pdn
from engines.spec import ExportFormat, GameSpec, spec_of

__all__ = ["export_match", "mat_export", "pdn_export"]

_LEFT_WIDTH = 27


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    records: list[tuple[int, str]] = field(default_factory=list)  # (player, cell text)
    # (how, winner, points written): "move", "drop" or "resign" (a concession is written as one)
    ending: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class _Concession:
    loser: int
    reason: str
    final_score: tuple[float, float]


def _concession_points(needed: int, cube: int) -> int:
    """What to write for a conceded match: the resignation gnubg will score (cube x level, the
    level the smallest of 1..3 that covers ``needed``; see the module docstring).

    >>> _concession_points(3, 1), _concession_points(3, 2), _concession_points(11, 1)
    (3, 4, 3)
    """
    level = min(3, max(1, -(-needed // cube)))
    return cube * level


def _points(n: int) -> str:
    return f"Wins {n} point{'' if n == 1 else 's'}"


def _plain_play(kind: GameKind, move: Any, text: str) -> str:
    """A play in JellyFish plain style: each checker separately, bar 25, off 0. Only standard
    backgammon (a ``.mat`` with no variation) writes it; a variation keeps its own notation."""
    if spec_of(kind).mat_variation is not None or not hasattr(move, "moves"):
        return text
    return " ".join(f"{m.src}/{m.dst}{'*' if m.hit else ''}" for m in move.moves)


def _dice(values: Sequence[int]) -> str:
    return "".join(str(d) for d in values)


def _opening_play(spec: GameSpec, dice: tuple[int, int]) -> tuple[int, ...]:
    """The dice the opening roll's winner plays: the difference, or both dice."""
    high, low = max(dice), min(dice)
    return (high - low,) if spec.opening_moves_by_difference else (high, low)


def _games(
    spec: GameSpec, rules: MatchRules, actions: Iterable[Action]
) -> tuple[list[_Game], _Concession | None]:
    """Replay the actions and collect each game's records, and how the match was conceded."""
    kind = spec.kind
    match = new_match(kind, rules, recorded=True)
    games = [_Game(1, (0, 0))]
    conceded: _Concession | None = None
    for action in actions:
        game = games[-1]
        player = action.player
        record: str | None = None
        rolled: Sequence[int] = match.dice or ()  # the roll a Move plays
        if isinstance(action, Move):
            move = match.parse_move(action.move)
            played = _plain_play(kind, move, match.format_move(move))
            record = f"{_dice(rolled)}: {played}"
        elif isinstance(action, Double):
            value = 1 if match.cube is None else match.cube.value
            record = f" Doubles => {value * 2}"
        elif isinstance(action, Take):
            record = " Takes"
        result = match.apply(action)
        if result.turn_forfeited:
            # gnubg records a roll that can't be played as an empty move, whether the turn
            # passed by rule or by the player's "no move" (auto_pass off).
            if isinstance(action, OpeningRoll) and result.opening_dice is not None:
                d0, d1 = result.opening_dice
                player = 0 if d0 > d1 else 1
                rolled = _opening_play(spec, (d0, d1))
            elif isinstance(action, Roll):
                rolled = action.dice
            record = f"{_dice(rolled)}: "
        if record is not None and player is not None:
            game.records.append((player, record))
        ended = result.game_result
        if ended is None:
            continue
        points = int(ended.points)
        winner = ended.winner if ended.winner is not None else 0
        if isinstance(action, Drop):
            game.ending = ("drop", winner, points)
        elif isinstance(action, ConcedeMatch):
            game.ending = ("resign", winner, _concession_points(points, ended.cube))
            score = match.score
            conceded = _Concession(1 - winner, action.reason, (score[0], score[1]))
        elif isinstance(action, AcceptResign):
            game.ending = ("resign", winner, points)
        else:
            game.ending = ("move", winner, points)
        if not result.match_over:
            score = match.score
            games.append(_Game(match.game_number, (int(score[0]), int(score[1]))))
    return [g for g in games if g.records or g.ending], conceded


def _render_game(game: _Game, names: tuple[str, str]) -> list[str]:
    out: list[str] = [f" Game {game.number}\n"]
    left = f"{names[0]} : {game.score[0]}"
    out.append(f" {left:<31}{names[1]} : {game.score[1]}\n")
    i = 0  # gnubg's record counter: even = left column (player 0), odd = right (player 1)

    def align(player: int) -> None:
        nonlocal i
        if (i & 1) != player:
            # Keep the columns true to the players (gnubg does this for a first move by 1).
            out.append("\n" if i & 1 else f"{(i >> 1) + 1:3d}) {'':<{_LEFT_WIDTH}} ")
            i += 1

    def cell(text: str) -> None:
        nonlocal i
        out.append(text + "\n" if i & 1 else f"{(i >> 1) + 1:3d}) {text:<{_LEFT_WIDTH}} ")
        i += 1

    for player, text in game.records:
        align(player)
        cell(text)
    if game.ending is None:
        if i & 1:
            out.append("\n")
        return out
    how, winner, points = game.ending
    wins = _points(points)
    if how == "drop":
        align(1 - winner)
        gap = "\n      " if i & 1 else " " * 23
        text = f" Drops{gap}{wins}"
        out.append(text + "\n\n" if i & 1 else f"{(i >> 1) + 1:3d}) {text:<{_LEFT_WIDTH}} \n\n")
    elif how == "resign":
        if winner == 0:  # player 1 resigned: the result goes in the left column
            out.append(("\n" if i & 1 else "") + f"      {wins}\n\n")
        else:
            out.append((" " if i & 1 else " " * 34) + f"{wins}\n\n")
    else:  # the winner's last move ended the game
        out.append((" " * 34 if (i - 1) & 1 else "\n      ") + f"{wins}\n\n")
    return out


def mat_export(
    kind: GameKind,
    rules: MatchRules,
    actions: Iterable[Action],
    names: tuple[str, str],
    match_id: int,
    date: str,
) -> str:
    """The match in gnubg's ``.mat`` layout (Nannon uses the same layout, one die a roll);
    ValueError for a game exported otherwise (checkers: :func:`pdn_export`)."""
    spec = spec_of(kind)
    if spec.export_format is not ExportFormat.MAT:
        raise ValueError(f"{spec.title} is exported as {spec.export_format.value}, not .mat")
    clean = tuple(" ".join(n.split()) or f"Player {i + 1}" for i, n in enumerate(names))
    players = (clean[0], clean[1])
    out = [
        '; [Site "tablebot"]\n',
        f'; [Match ID "{match_id}"]\n',
        f'; [Player 1 "{players[0]}"]\n',
        f'; [Player 2 "{players[1]}"]\n',
        f'; [EventDate "{date}"]\n',
    ]
    if spec.mat_variation is not None:
        out.append(f'; [Variation "{spec.mat_variation}"]\n')
    out.append(f'; [Crawford "{"On" if rules.crawford and rules.length else "Off"}"]\n')
    if rules.length == 0:
        out.append(f'; [Jacoby "{"On" if rules.jacoby else "Off"}"]\n')
    if not rules.cube:
        out.append('; [CubeLimit "1"]\n')
    games, conceded = _games(spec, rules, actions)
    if conceded is not None:
        how = "lost on time" if conceded.reason == "timeout" else "conceded the match"
        final = " - ".join(f"{s:g}" for s in conceded.final_score)
        out.append(f'; [Termination "{players[conceded.loser]} {how}; final score {final}"]\n')
    out.append(f"\n {rules.length} point match\n\n")
    for game in games:
        out.extend(_render_game(game, players))
    return "".join(out)


def pdn_export(
    rules: MatchRules,
    actions: Iterable[Action],
    names: tuple[str, str],
    match_id: int,
    date: str,
) -> str:
    """Every game of a checkers match as PDN."""
    return to_pdn(rules, actions, names=names, event=f"tablebot match {match_id}", date=date)


def export_match(
    kind: GameKind | str,
    rules: MatchRules,
    actions: Iterable[Action],
    names: tuple[str, str],
    match_id: int,
    date: str,
) -> str:
    """The match in its game's export format (``spec_of(kind).export_format``): ``.mat`` for
    Nannon and backgammon, PDN for checkers. Save it with ``spec_of(kind).export_suffix``.

    >>> from engines.actions import Move
    >>> text = export_match("checkers", MatchRules(length=1), [Move(0, "11-15")], ("a", "b"), 3,
    ...                     "2024.05.01")
    >>> text.splitlines()[0], text.splitlines()[-1]
    ('[Event "tablebot match 3"]', '1. 11-15 *')
    """
    spec = spec_of(kind)
    if spec.export_format is ExportFormat.PDN:
        return pdn_export(rules, actions, names, match_id, date)
    return mat_export(spec.kind, rules, actions, names, match_id, date)
