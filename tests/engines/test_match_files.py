"""Match files read back: our own exports of random matches of all three games replay to the
same final score, and gnubg's ``export match mat`` reads as gnubg wrote it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engines import new_match, replay
from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    DeclineDraw,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.exports import export_match
from engines.match_files import MatchFileError, read_mat, read_match_file, read_pdn
from engines.values import ResignLevel

DATA = Path(__file__).resolve().parent.parent / "data"


def _random_match(kind: str, length: int, seed: int) -> GameMatch:
    """Random legal play with doubles, takes, drops, resignations and draws."""
    rng = random.Random(seed)
    match = new_match(kind, MatchRules(length=length))
    while match.phase is not Phase.MATCH_OVER:
        phase, turn = match.phase, match.turn
        action: Action
        if phase is Phase.OPENING_TIE and rng.random() < 0.5:
            action = Double(rng.choice([s for s in (0, 1) if match.can_double(s)]))
        elif phase in (Phase.OPENING, Phase.OPENING_TIE):
            action = OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6)))
        elif phase is Phase.ROLL:
            if match.can_double(turn) and rng.random() < 0.1:
                action = Double(turn)
            elif rng.random() < 0.01:
                action = Resign(turn, ResignLevel.SINGLE)
            else:
                action = Roll(turn, tuple(rng.randint(1, 6) for _ in range(match.spec.dice_count)))
        elif phase is Phase.CUBE_OFFERED:
            actor = match.actor
            assert actor is not None
            action = Take(actor) if rng.random() < 0.6 else Drop(actor)
        elif phase is Phase.RESIGN_OFFERED:
            assert match.actor is not None
            action = AcceptResign(match.actor)
        elif phase is Phase.DRAW_OFFERED:
            assert match.actor is not None
            action = (AcceptDraw if rng.random() < 0.5 else DeclineDraw)(match.actor)
        elif kind == "checkers" and rng.random() < 0.02:
            action = Resign(turn) if rng.random() < 0.5 else OfferDraw(turn)
        else:
            action = Move(turn, rng.choice(match.legal_moves().notation))
        match.apply(action)
    return match


@pytest.mark.parametrize(
    ("kind", "length", "seeds"),
    [("nannon", 5, range(25)), ("backgammon", 3, range(12)), ("checkers", 3, range(6))],
)
def test_exports_read_back_to_the_same_match(kind: str, length: int, seeds: range) -> None:
    for seed in seeds:
        match = _random_match(kind, length, seed)
        text = export_match(kind, match.rules, match.actions, ("Ann Lee", "Bob"), 1, "2024.01.02")
        record = read_match_file(f"m{match.spec.export_suffix}", text)
        assert record.kind is GameKind(kind)
        assert record.names == ("Ann Lee", "Bob")
        again = replay(kind, record.rules, record.actions)
        assert again.score == match.score, seed
        assert again.phase is Phase.MATCH_OVER
        assert len(again.games) == len(match.games)


def test_gnubg_export_reads_as_gnubg_wrote_it() -> None:
    record = read_mat((DATA / "gnubg_selfplay.mat").read_text())
    assert record.kind is GameKind.BACKGAMMON
    assert record.rules == MatchRules(length=3)
    assert record.names == ("gnubg", "root")
    match = replay("backgammon", record.rules, record.actions)
    assert match.score == (4.0, 2.0) and match.phase is Phase.MATCH_OVER
    assert [g.points for g in match.games] == [2, 1, 1, 2]
    assert sum(isinstance(a, Drop) for a in record.actions) == 1


GNUBG_STYLE = """\
; [Site "elsewhere"]
; [Crawford "On"]
; [Variation "Backgammon"]

 3 point match

 Game 1
 Ann : 0                        Bob : 0
  1)                             52: 13/11 13/8 
  2) 31: 8/5 6/5                  Doubles => 2
  3)  Takes                      44: 13/9 13/9 6/2 6/2
  4) 21: 6/4 8/7
      Wins 2 points

 Game 2
 Ann : 2 (Crawford)             Bob : 0
  1) 63: 24/18 13/10             
                                  Wins 1 point
"""


def test_other_programs_records() -> None:
    """A cube record, resignations, a Crawford mark on the score line (gnubg's empty plays
    are in gnubg_selfplay.mat); an empty play where the roll can be played is refused."""
    with pytest.raises(MatchFileError, match="line 12: the roll 21 has a legal play"):
        read_mat(GNUBG_STYLE.replace("21: 6/4 8/7", "21: "))
    record = read_mat(GNUBG_STYLE)
    match = replay("backgammon", record.rules, record.actions)
    assert match.score == (2.0, 1.0)
    resigns = [a for a in record.actions if isinstance(a, Resign)]
    assert [(r.player, r.level) for r in resigns] == [
        (1, ResignLevel.SINGLE),
        (0, ResignLevel.SINGLE),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nothing here", "no 'N point match' line"),
        (GNUBG_STYLE.replace("13/11 13/8", "13/11 24/18"), "line 9:"),
        (GNUBG_STYLE.replace(" Takes", " Drops  Takes"), "line 11:"),
        (GNUBG_STYLE.replace('Variation "Backgammon"', 'Variation "Hypergammon"'), "Hyper"),
        (GNUBG_STYLE.replace("  1) 63", "  1) 6x"), "line 17:"),
    ],
)
def test_bad_mat_files_say_where(text: str, message: str) -> None:
    with pytest.raises(MatchFileError, match=message):
        read_mat(text)


PDN = """\
[Event "club night"]
[Black "Cy"]
[White "Di"]
[Result "0-1"]

1. 11-15 23-19 {the Old Faithful} 2. 8-11 22-17 0-1

[Event "club night"]
[Black "Di"]
[White "Cy"]
[Result "1/2-1/2"]

1. 9-14 22-18 1/2-1/2
"""


def test_pdn_results_become_resignations_and_draws() -> None:
    record = read_pdn(PDN)
    assert record.names == ("Cy", "Di")
    assert record.rules.length == 2  # the smallest length these results finish: 1.5 - 0.5
    match = replay("checkers", record.rules, record.actions)
    assert match.score == (0.5, 1.5)
    with pytest.raises(MatchFileError, match="line 6"):
        read_pdn(PDN.replace("2. 8-11", "2. 8-13"))
    with pytest.raises(MatchFileError, match="FEN"):
        read_pdn('[FEN "B:W18:B14"]\n1. 14x23 *\n')
