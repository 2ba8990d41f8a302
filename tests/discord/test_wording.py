"""bot.discord.wording: every service result has its words. The sentences themselves are pinned
where they are produced (tests/service, and the Discord tests that read the boards)."""

from __future__ import annotations

import pytest

from bot.discord import wording
from bot.service import Refusal, VerifyReport
from bot.service import events as ev
from bot.service.errors import refused
from engines.base import GameKind, GameResult, ResignLevel, ResultKind
from engines.errors import IllegalMoveError

SAMPLES: list[ev.MatchEvent] = [
    ev.MatchStarted(7, GameKind.BACKGAMMON, 0, "ab" * 32),
    ev.OpeningRolled((3, 3), None, either_may_double=False, auto_double=2),
    ev.OpeningRolled((3, 3), None, either_may_double=True),
    ev.OpeningRolled((6, 1), 0),
    ev.NoLegalMove(1, ev.Stuck.MUST_PASS),
    ev.DiceRolled(0, (6, 6), ev.Stuck.TURN_PASSES),
    ev.MovePlayed(0, "24/18", auto=True),
    ev.DoubleOffered(1, 4),
    ev.DoubleTaken(0, 4),
    ev.DoublePassed(0),
    ev.ResignationOffered(1, ResignLevel.GAMMON),
    ev.Resigned(1),
    ev.ResignationAccepted(0),
    ev.ResignationDeclined(0),
    ev.DrawOffered(0),
    ev.DrawAccepted(1),
    ev.DrawDeclined(1),
    ev.MatchLeft(0),
    ev.WinClaimed(1, 0),
    ev.GameOver(GameResult(2, 1, ResultKind.GAMMON, 4, 2), (0, 4)),
    ev.CrawfordGame(3),
    ev.MatchOver(None, (0.5, 0.5)),
    ev.MatchOver(1, (0, 5)),
]


class Named:
    """Enough of a MatchView for wording: the players and the game."""

    kind = GameKind.BACKGAMMON

    class _P:
        def __init__(self, name: str) -> None:
            self.name = name

    players = (_P("alice"), _P("bob"))


VIEW = Named()


def test_every_event_type_has_words() -> None:
    kinds = {type(event) for event in SAMPLES}
    assert kinds == set(ev.MatchEvent.__subclasses__())
    expected = {
        ev.MatchStarted: "Match #7: alice vs bob, backgammon a money game. Dice commitment "
        f"(SHA-256 of the secret seed): {'ab' * 32}.",
        ev.NoLegalMove: 'bob has no legal move: play "no move" to pass the turn.',
        ev.DiceRolled: "alice rolls 6-6: no legal move, the turn passes to bob.",
        ev.MovePlayed: "alice plays 24/18 (the only legal move, played automatically).",
        ev.DoubleOffered: "bob doubles to 4.",
        ev.WinClaimed: "alice was idle too long: bob claims the match.",
        ev.GameOver: "bob wins game 2 by a gammon: 4 points (cube 2). Score: 0-4.",
        ev.CrawfordGame: "Game 3 is the Crawford game: no doubling.",
    }
    said = {}
    for event in SAMPLES:
        text = wording.describe_event(event, VIEW)  # type: ignore[arg-type]
        assert text and text.endswith((".", "!")), (event, text)
        said.setdefault(type(event), text)
    for kind, text in expected.items():
        assert said[kind] == text
    ties = [wording.describe_event(e, VIEW) for e in SAMPLES[1:3]]  # type: ignore[arg-type]
    assert ties == [
        "Opening roll: both roll 3. Rolling again. Automatic double: the cube is at 2.",
        "Opening roll: both roll 3. Either player may double now, or roll again.",
    ]
    assert wording.describe_event(ev.MatchOver(None, (0.5, 0.5)), VIEW) == (  # type: ignore[arg-type]
        "The match is drawn, 0.5-0.5."
    )


def test_every_refusal_has_words_and_engine_errors_keep_theirs() -> None:
    assert set(wording.REFUSALS) == set(Refusal)
    assert wording.refusal_text(refused(Refusal.CHANNEL_NOT_ALLOWED, channels=(5, 6))) == (
        "Challenges are allowed only in <#5>, <#6>."
    )
    assert wording.refusal_text(refused(Refusal.BAD_RESIGN_LEVEL, value="x" * 99)) == (
        f"Resign single, gammon or backgammon, not {'x' * 40!r}."
    )
    error = IllegalMoveError("24/1 is not legal here.")
    assert wording.refusal_text(error) == "24/1 is not legal here."


@pytest.mark.parametrize(
    ("report", "text"),
    [
        (VerifyReport(3, "c", None, (), None, 0), "Match #3 has used no dice."),
        (
            VerifyReport(3, "c", None, (1, 2), None, 2),
            "Match #3 is still on: 2 dice rolled so far. The seed (commitment c) is revealed "
            "when it ends.",
        ),
        (
            VerifyReport(3, "c", "s", (1, 2), True, 2),
            "All 2 dice of match #3 check out against seed s (commitment c).",
        ),
        (
            VerifyReport(3, "c", "s", (1, 2), False, 2),
            "The dice of match #3 do NOT match the seed s.",
        ),
        # Issue 33 (plurals): one die is "die", not "All 1 dice".
        (
            VerifyReport(3, "c", "s", (4,), True, 1),
            "The 1 die of match #3 checks out against seed s (commitment c).",
        ),
        (
            VerifyReport(3, "c", "s", (4, 5), False, 1),
            "The dice of match #3 do NOT check out: 1 die was drawn from seed s, but the log "
            "shows 2.",
        ),
    ],
)
def test_verify_text(report: VerifyReport, text: str) -> None:
    assert wording.verify_text(report) == text


def test_notes_are_the_update_s_events_in_order() -> None:
    class Update:
        view = VIEW
        events = (ev.DoubleOffered(0, 2), ev.DoubleTaken(1, 2))

    assert wording.notes(Update()) == (  # type: ignore[arg-type]
        "alice doubles to 2.",
        "bob takes: the cube is at 2.",
    )
