"""Exports rebuilt from actions: gnubg's .mat layout, and PDN for checkers."""

from __future__ import annotations

from engines.actions import Action, ConcedeMatch, Double, Drop, Move, OpeningRoll, Roll, Take
from engines.base import GameKind, MatchRules
from engines.exports import mat_export, pdn_export


def test_mat_layout_follows_gnubg() -> None:
    actions = [
        OpeningRoll(None, (3, 1)),
        Move(0, "8/5 6/5"),
        Roll(1, (6, 4)),
        Move(1, "24/18 13/9"),
        Double(0),
        Drop(1),
        OpeningRoll(None, (1, 3)),
        Move(1, "8/5 6/5"),
        Double(0),
        Take(1),
        ConcedeMatch(0, "left"),
    ]
    text = mat_export(
        GameKind.BACKGAMMON, MatchRules(length=3), actions, ("alice", "bob"), 7, "2024.05.01"
    )
    assert text == (
        '; [Site "tablebot"]\n'
        '; [Match ID "7"]\n'
        '; [Player 1 "alice"]\n'
        '; [Player 2 "bob"]\n'
        '; [EventDate "2024.05.01"]\n'
        '; [Crawford "On"]\n'
        '; [Termination "alice conceded the match; final score 1 - 3"]\n'
        "\n"
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " alice : 0                      bob : 0\n"
        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2)  Doubles => 2                Drops\n"
        "      Wins 1 point\n"
        "\n"
        " Game 2\n"
        " alice : 1                      bob : 0\n"
        "  1)                             31: 8/5 6/5\n"
        "  2)  Doubles => 2                Takes\n"
        # bob needed 3 at a cube of 2: written as a gammon resigned, the 4 points gnubg scores
        "                                  Wins 4 points\n"
        "\n"
    )


def test_mat_marks_hits_bar_and_off_in_plain_style() -> None:
    from engines.backgammon import Play, Position
    from engines.exports import _plain_play

    position = Position.initial()
    play = Play.parse("24/18 13/9", position, (6, 4))
    assert _plain_play(GameKind.BACKGAMMON, play, str(play)) == "24/18 13/9"
    assert _plain_play(GameKind.NANNON, object(), "H/3") == "H/3"


def test_nannon_mat_plays_the_opening_difference() -> None:
    text = mat_export(
        GameKind.NANNON,
        MatchRules(length=1),
        [OpeningRoll(None, (5, 2)), Move(0, "H/3")],
        ("ann", "ben"),
        1,
        "2024.05.01",
    )
    assert '; [Variation "Nannon"]' in text
    assert "  1) 3: H/3" in text  # 5 - 2 = 3, one die


def test_pdn_export_names_and_rounds() -> None:
    text = pdn_export(
        MatchRules(length=2), [Move(0, "11-15"), Move(1, "23-19")], ("ann", "ben"), 4, "2024.05.01"
    )
    assert '[Event "tablebot match 4"]' in text and '[Black "ann"]' in text
    assert "1. 11-15 23-19 *" in text


def test_a_confirmed_pass_exports_like_the_automatic_one() -> None:
    # Seat 0 rolls a 4 against a prime: an empty move, however the turn passed.
    start = [OpeningRoll(None, (2, 5)), Move(1, "H/3"), Roll(0, (4,))]
    after = [Roll(1, (1,)), Move(1, "3/4")]

    def export(rules: MatchRules, actions: list[Action]) -> str:
        return mat_export(GameKind.NANNON, rules, actions, ("ann", "ben"), 1, "2024.05.01")

    automatic = export(MatchRules(length=1), [*start, *after])
    confirmed = export(MatchRules(length=1, auto_pass=False), [*start, Move(0, "no move"), *after])
    assert confirmed == automatic
    rows = f"  1) {'':<27} 3: H/3\n  2) {'4: ':<27} 1: 3/4\n"  # gnubg's empty move: "4: "
    assert rows in automatic


def test_export_match_writes_the_format_the_spec_names() -> None:
    import pytest

    from engines.exports import export_match
    from engines.spec import spec_of

    dice = [OpeningRoll(None, (3, 1)), Move(0, "8/5 6/5")]
    for kind in (GameKind.NANNON, GameKind.BACKGAMMON):
        actions = dice if kind is GameKind.BACKGAMMON else [OpeningRoll(None, (5, 2))]
        rules = MatchRules(length=1)
        text = export_match(kind, rules, actions, ("ann", "ben"), 1, "2024.05.01")
        assert text == mat_export(kind, rules, actions, ("ann", "ben"), 1, "2024.05.01")
        assert spec_of(kind).export_suffix == ".mat"
    moves = [Move(0, "11-15")]
    text = export_match("checkers", MatchRules(length=1), moves, ("ann", "ben"), 4, "2024.05.01")
    assert text == pdn_export(MatchRules(length=1), moves, ("ann", "ben"), 4, "2024.05.01")
    assert spec_of(GameKind.CHECKERS).export_suffix == ".pdn"
    with pytest.raises(ValueError, match=r"Checkers is exported as pdn, not \.mat"):
        mat_export(GameKind.CHECKERS, MatchRules(length=1), moves, ("a", "b"), 4, "2024.05.01")
