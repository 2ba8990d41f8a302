"""A gallery of boards in every interesting state, for people to review.

``python -m render.gallery OUT_DIR`` (``--help`` says so; docs/architecture.md, "The
pictures") writes one PNG per state of each game, and beside each
the alt text (``.txt``); in ``OUT_DIR/analysis`` the analysis report's pictures (the chart of a
match with a short game, a mistake card per game). :func:`boards` and :func:`analysis_pictures`
return the same lists, for the tests.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from engines import backgammon as bg
from engines import checkers as ck
from engines import nannon as nn
from engines.analysis import Decision, DecisionKind
from engines.cube import Cube
from render import analysis_chart, analysis_report, backgammon, checkers, nannon
from render.common import Scene


@dataclass(frozen=True)
class Board:
    name: str
    png: Callable[[], bytes]
    alt: Callable[[], str]


def _board(
    name: str, png: Callable[..., bytes], alt: Callable[..., str], *args: Any, **kw: Any
) -> Board:
    return Board(name, partial(png, *args, **kw), partial(alt, *args, **kw))


def _nannon(name: str, *args: Any, **kw: Any) -> Board:
    return _board(f"nannon-{name}", nannon.board_png, nannon.describe, *args, **kw)


def _bg(name: str, *args: Any, **kw: Any) -> Board:
    return _board(f"backgammon-{name}", backgammon.board_png, backgammon.describe, *args, **kw)


def _ck(name: str, *args: Any, **kw: Any) -> Board:
    return _board(f"checkers-{name}", checkers.board_png, checkers.describe, *args, **kw)


def _bg_play(position: bg.Position, dice: tuple[int, int], text: str) -> bg.Play:
    return bg.Play.parse(text, position, dice)


def _bg_hit_game(seed: int = 5) -> tuple[bg.Position, int, tuple[int, bg.Play]]:
    """A seeded random game that hits whenever it can, stopped just after a hit."""
    rng = random.Random(seed)
    position, turn = bg.Position.initial(), 0
    while True:
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        if not plays:
            position, turn = position.flip(), 1 - turn
            continue
        hits = [p for p in plays if any(m.hit for m in p.moves)]
        play = rng.choice(hits or plays)
        position, turn = play.position, 1 - turn
        if hits and position.mine[bg.BAR]:
            return position, turn, (1 - turn, play)


def boards() -> list[Board]:
    names = ("Alice", "Bob")
    out: list[Board] = []

    # --- Nannon ---
    start = nn.Position.initial()
    out.append(_nannon("start", start, 0, Scene(names, (0, 0), 5), dice=(4,), cube=Cube()))
    before = nn.Position.from_id("012-024")  # seat 1 on roll
    move = nn.Move.parse("1/3*", before, 2)
    out.append(
        _nannon(
            "hit",
            before.apply(move),
            0,
            Scene(names, (1, 0), 5),
            dice=(5,),
            last_move=(1, move),
            cube=Cube(2, 1),
        )
    )
    out.append(
        _nannon(
            "cube-offered",
            nn.Position.from_id("137-025"),
            1,
            Scene(names, (2, 1), 5),
            cube=Cube(),
            cube_offered_by=1,
        )
    )
    final = nn.Position.from_id("477-025")  # seat 0 to bear its last checker off with a 3
    last = nn.Move.parse("4/S", final, 3)
    out.append(
        _nannon(
            "nannon-finish",
            final.apply(last),
            1,
            Scene(names, (2, 1), 5, note="Alice wins 2"),
            last_move=(0, last),
            cube=Cube(),
        )
    )
    out.append(
        _nannon(
            "crawford",
            nn.Position.from_id("157-035"),
            1,
            Scene(names, (4, 3), 5, crawford=True),
            dice=(6,),
        )
    )

    # --- Backgammon ---
    start_bg = bg.Position.initial()
    out.append(
        _bg("start", start_bg, 0, Scene(names, (0, 0), 7, game_number=1), dice=(3, 1), cube=Cube())
    )
    hit_pos, hit_turn, hit_move = _bg_hit_game()
    out.append(
        _bg(
            "hit",
            hit_pos,
            hit_turn,
            Scene(names, (2, 1), 7),
            dice=(6, 4),
            last_move=hit_move,
            cube=Cube(),
        )
    )
    # Seat 1 bears off; seat 0 is next, also in its home board.
    mine = (3, 3, 2, 3, 2, 1, 1) + (0,) * 19
    theirs = (6, 2, 3, 2, 1, 1) + (0,) * 20
    bearing = bg.Position(mine, theirs)
    play = _bg_play(bearing, (6, 2), "6/off 3/1")
    out.append(
        _bg(
            "bearoff",
            play.position,
            0,
            Scene(names, (3, 3), 7),
            dice=(5, 5),
            last_move=(1, play),
            cube=Cube(2, 0),
        )
    )
    # Seat 0 bears off its last checker while seat 1 has none off: a gammon.
    last_one = bg.Position((14, 0, 1) + (0,) * 23, (0,) * 13 + (5, 0, 0, 0, 5, 0, 5) + (0,) * 6)
    finish = _bg_play(last_one, (6, 1), "2/off")
    out.append(
        _bg(
            "gammon",
            finish.position,
            1,
            Scene(names, (5, 1), 7, note="Alice wins 4"),
            last_move=(0, finish),
            cube=Cube(2, 0),
        )
    )
    out.append(
        _bg(
            "cube-offered",
            hit_pos,
            hit_turn,
            Scene(names, (2, 1), 7),
            cube=Cube(2, 1),
            cube_offered_by=hit_turn,
        )
    )
    out.append(
        _bg(
            "cube-owned",
            start_bg,
            1,
            Scene(names, (0, 2), 7, game_number=3),
            dice=(6, 6),
            cube=Cube(4, 0),
        )
    )
    out.append(
        _bg(
            "crawford",
            hit_pos,
            hit_turn,
            Scene(names, (6, 4), 7, crawford=True),
            dice=(2, 1),
            last_move=hit_move,
        )
    )
    out.append(
        _bg(
            "money",
            start_bg,
            1,
            Scene(("Ünïcødé 🎲 שלום", "\u202eevil\u200b" + "x" * 40), (0, 0)),
            dice=(5, 2),
            cube=Cube(8, 1),
        )
    )

    # A stack of more than five (its count on the fifth) and names long enough to wrap.
    stacked = bg.Position((0, 0, 0, 0, 0, 9, 3, 0, 3) + (0,) * 17, bg.Position.initial().theirs)
    out.append(
        _bg(
            "long-names",
            stacked,
            0,
            Scene(("maximilian_von_habsburg", "alice_the_great"), (4, 2), 7, game_number=4),
            dice=(4, 4),
            cube=Cube(16, 1),
        )
    )

    # --- Checkers ---
    out.append(_ck("start", ck.Board.initial(), 0, Scene(names, (0, 0), 3, game_number=1)))
    kings = ck.Board.from_fen("W:W22,26,30,18,11,K5:B6,K9,10,15,K27")
    jump = ck.Move.parse("5x14x7", kings)
    out.append(
        _ck(
            "kings-multijump",
            kings.apply(jump),
            1,
            Scene(names, (1, 0.5), 3, game_number=3),
            last_move=(0, jump),
        )
    )
    quiet = ck.Board.initial()
    first = ck.Move.parse("11-15", quiet)
    out.append(
        _ck(
            "black-bottom",
            quiet.apply(first),
            0,
            Scene(names, (0, 0), 3, game_number=1),
            last_move=(0, first),
            draw_offered_by=1,
        )
    )
    return out


def _chart_decisions() -> list[Decision]:
    """A seeded match of 160 decisions in five games, game 3 only six long (a cube pass), with
    blunders by both players."""
    rng = random.Random(3)
    lengths = (50, 40, 6, 34, 30)
    out, chance, i = [], 0.5, 0
    for game, length in enumerate(lengths, 1):
        for _ in range(length):
            chance = min(0.97, max(0.03, chance + rng.gauss(0, 0.045)))
            loss = 0.12 if rng.random() < 0.06 else 0.0
            player = i % 2
            if loss:
                chance = min(0.97, max(0.03, chance + (0.08 if player else -0.08)))
            kind = DecisionKind.MOVE
            out.append(Decision(game, i, player, kind, "8/4", "13/9", loss, False, None, chance))
            i += 1
    return out


def analysis_pictures() -> list[Board]:
    """The analysis report's pictures: the winning-chance chart and a mistake card per game."""
    names = ("Alice", "Bob")
    decisions = _chart_decisions()
    out = [
        Board(
            "analysis-chart",
            partial(analysis_chart.win_chance_chart, decisions, names),
            partial(analysis_chart.chart_alt_text, decisions, names),
        )
    ]
    scene = Scene(names, (1, 2), 7, game_number=2)
    start_bg = bg.Position.initial()
    start_nn = nn.Position.initial()
    move = DecisionKind.MOVE
    cards: list[tuple[str, str, tuple[Any, ...], dict[str, Any], Decision]] = [
        (
            "backgammon",
            "analysis-mistake-backgammon",
            (start_bg, 0, scene),
            {"dice": (6, 1), "cube": Cube()},
            Decision(2, 0, 0, move, "24/18 6/5", "13/7 8/7", 0.112, False, None, 0.4, dice=(6, 1)),
        ),
        (
            "nannon",
            "analysis-mistake-nannon",
            (start_nn, 1, scene),
            {"dice": (3,), "cube": Cube()},
            Decision(2, 0, 1, move, "H/3", "1/4", 0.052, False, None, 0.4, dice=(3,)),
        ),
        (
            "checkers",
            "analysis-mistake-checkers",
            (ck.Board.initial(), 0, scene),
            {},
            Decision(2, 0, 0, move, "9-13", "11-15", 0.031, False, None, 0.5),
        ),
    ]
    for game, name, args, kwargs, decision in cards:
        card = partial(analysis_report.mistake_card, game, args, kwargs, decision)
        out.append(Board(name, partial(_part, card, 0), partial(_part, card, 1)))
    return out


def _part(card: Callable[[], tuple[bytes, str]], index: int) -> Any:
    return card()[index]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m render.gallery",
        description="Draw every board state of each game and the analysis report's pictures, "
        "for people to review: one PNG per picture and its alt text beside it (.txt).",
        epilog="Look at each one full size and scaled to about 380 px wide, as a phone shows it.",
    )
    parser.add_argument(
        "out_dir",
        metavar="OUT_DIR",
        type=Path,
        help="the folder to write to (made if missing); the analysis pictures go in "
        "OUT_DIR/analysis",
    )
    return parser


def main(argv: list[str]) -> int:
    try:
        out: Path = _parser().parse_args(argv).out_dir
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed
        return int(stop.code or 0)
    out.mkdir(parents=True, exist_ok=True)
    for folder, pictures in ((out, boards()), (out / "analysis", analysis_pictures())):
        folder.mkdir(parents=True, exist_ok=True)
        for board in pictures:
            png = board.png()
            (folder / f"{board.name}.png").write_bytes(png)
            (folder / f"{board.name}.txt").write_text(board.alt() + "\n", encoding="utf-8")
            print(f"{folder.relative_to(out)}/{board.name}.png  {len(png) / 1000:.1f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
