"""Issue 33: backgammon's resignations judged by GNU Backgammon, as it judges an offer and its
answer: playing on at gnubg's cubeful equity, the resignation at what its points leave, in the
resigner's normalised equity (EMG; money, per cube). Skipped where the gnubg wheel does not
import."""

from __future__ import annotations

from pathlib import Path

import pytest

gnubg = pytest.importorskip("gnubg")

from bot.robot import gnubg_analysis, gnubg_brain  # noqa: E402
from engines import replay  # noqa: E402
from engines.actions import (  # noqa: E402
    AcceptResign,
    Action,
    DeclineResign,
    Move,
    OpeningRoll,
    Resign,
    Roll,
)
from engines.analysis import Decision, DecisionKind  # noqa: E402
from engines.base import MatchRules  # noqa: E402
from engines.gnubg import match_id_of  # noqa: E402
from engines.match import DiceMatch  # noqa: E402
from engines.match_files import read_mat  # noqa: E402
from engines.values import ResignLevel  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = ("Ann", "Bob")
# Ann opens 3-1 with 8/5 6/5; Bob, on roll, resigns a single and Ann declines; Bob rolls 6-4
# and Ann, not on roll, resigns a gammon, which Bob accepts.
ACTIONS: list[Action] = [
    OpeningRoll(None, (3, 1)),
    Move(0, "8/5 6/5"),
    Resign(1),
    DeclineResign(0),
    Roll(1, (6, 4)),
    Resign(0, ResignLevel.GAMMON),
    AcceptResign(1),
]


def _resignations(rules: MatchRules, actions: list[Action]) -> list[Decision]:
    decisions = gnubg_analysis.analyse_backgammon_game(rules, actions, NAMES, 1, 0)
    assert [d.action_index for d in decisions] == sorted(d.action_index for d in decisions)
    return [d for d in decisions if d.kind.resignation]


def _on_roll_equity(rules: MatchRules, upto: int) -> float:
    """gnubg's equity of the side on roll before action ``upto``, as the robot sees it."""
    match = replay("backgammon", rules, ACTIONS[:upto])
    assert isinstance(match, DiceMatch)
    return gnubg_brain.position_equity(match.position_id, match_id_of(match), 0)


def test_issue_33_a_decided_gammon_resigned_costs_nothing() -> None:
    """The shipped example ends with the robot resigning a gammon it cannot save."""
    record = read_mat((EXAMPLES / "backgammon.mat").read_text())
    decisions = gnubg_analysis.analyse_backgammon_game(
        record.rules, list(record.actions), record.names, 1, 0
    )
    offer, answer = (d for d in decisions if d.kind.resignation)
    assert (offer.played, offer.best, answer.played, answer.best) == (
        "resign gammon",
        "resign gammon",
        "accept",
        "accept",
    )
    assert offer.equity_loss == answer.equity_loss == 0.0
    assert offer.match_id and offer.position_id


def test_issue_33_money_resignations_are_judged_per_cube() -> None:
    rules = MatchRules(length=0, jacoby=False)
    offer, decline, gammon, accept = _resignations(rules, ACTIONS)
    bob_plays_on = _on_roll_equity(rules, 2)  # Bob on roll, before his roll
    assert (offer.kind, offer.player, offer.played, offer.best) == (
        DecisionKind.RESIGN,
        1,
        "resign",
        "play on",
    )
    assert offer.equity_loss == pytest.approx(bob_plays_on + 1.0)
    assert (decline.kind, decline.player, decline.played, decline.best) == (
        DecisionKind.RESIGN_ANSWER,
        0,
        "decline",
        "accept",
    )
    assert decline.equity_loss == pytest.approx(offer.equity_loss)
    # Ann, not on roll, gives two points where Bob's 6-4 is worth far less.
    bob_rolled = _on_roll_equity(rules, 5)
    assert (gammon.player, gammon.played, gammon.best, gammon.dice) == (
        0,
        "resign gammon",
        "play on",
        (6, 4),
    )
    assert gammon.equity_loss == pytest.approx(2.0 - bob_rolled)
    assert (accept.played, accept.best, accept.equity_loss) == ("accept", "accept", 0.0)
    assert accept.win_chance == 0.0  # the game is Bob's


def test_issue_33_match_resignations_are_judged_in_emg() -> None:
    """In a 5-point match at 0-0 a single resigned at cube 1 is worth exactly -1 EMG, so the
    offer costs the resigner's EMG playing on plus one."""
    rules = MatchRules(length=5)
    offer, decline, gammon, accept = _resignations(rules, ACTIONS)
    mwc = (1.0 + _on_roll_equity(rules, 2)) / 2.0  # Bob's match-winning chance on roll
    info = gnubg.cubeinfo(1, -1, 1, 5, (0, 0), 0, 0)
    assert offer.equity_loss == pytest.approx(gnubg.mwc2eq(mwc, info) + 1.0, abs=1e-6)
    assert offer.win_chance == pytest.approx(1.0 - mwc, abs=1e-6)  # seat 0's
    assert decline.equity_loss == pytest.approx(offer.equity_loss)
    # A gammon at 0-0 leaves Ann 5-away against 3-away: her chance once it is accepted.
    lost_two = 1.0 - gnubg.eq2mwc(1.0, gnubg.cubeinfo(2, -1, 1, 5, (0, 0), 0, 0))
    assert accept.win_chance == pytest.approx(lost_two, abs=1e-6)
    assert gammon.equity_loss > offer.equity_loss > 0
