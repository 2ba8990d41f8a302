"""GNU Backgammon's judgement (bot/robot/gnubg_brain.py), called in this process: every legal
play ranked and readable by our own parser, bear-offs whole despite the wheel's cut move tuples,
the same answer by both ways of asking gnubg, cube decisions that make sense, match equities in
[-1, 1]. Skipped where the gnubg wheel does not import."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

gnubg = pytest.importorskip("gnubg")

from bot.robot import gnubg_brain  # noqa: E402
from engines.backgammon import Play, Position  # noqa: E402
from engines.gnubg import MatchId  # noqa: E402
from engines.nannon_solver import CubeAction  # noqa: E402

START = Position.initial()
MONEY = MatchId()


def _position(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """A position from {point: checkers}; the rest of each side is borne off."""
    sides = []
    for points in (mine, theirs):
        side = [0] * 26
        for point, count in points.items():
            side[point] = count
        side[0] = 15 - sum(side)
        sides.append(tuple(side))
    return Position(sides[0], sides[1])


# Bearing off: two checkers on each of my 3, 4, 5 and 6 points, theirs far away.
BEAR_OFF = _position({3: 2, 4: 2, 5: 2, 6: 2}, {13: 2, 14: 3, 15: 3, 16: 3, 17: 2, 18: 2})
# A race I lead 42 to 57 pips: double, pass.
RACE_LEAD = _position({p: 2 for p in range(1, 7)}, {1: 2, 2: 2, 3: 2, 4: 3, 5: 3, 6: 3})
# Nearly home against fifteen checkers still outside their home board: a gammon.
GAMMON = _position({p: 3 for p in range(1, 6)}, {p: 3 for p in range(13, 18)})


def _sample(count: int, seed: int) -> Iterator[tuple[Position, tuple[int, int]]]:
    """Positions from random games, each with a random roll that has at least one play."""
    rng = random.Random(seed)
    position = START
    found = 0
    while found < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(*dice)
        if plays:
            found += 1
            yield position, dice
            position = rng.choice(plays).position
        else:
            position = position.flip()
        if position.is_over():
            position = START


def _match_id(dice: tuple[int, int], **fields: object) -> str:
    return MatchId(dice=dice, **fields).encode()  # type: ignore[arg-type]


def _check_ranking(position: Position, dice: tuple[int, int], match_id: str) -> None:
    ranked = gnubg_brain.rank_plays(position.id, match_id)
    legal = position.legal_plays(*dice)
    assert len(ranked) == len(legal)
    assert {after for _, after, _ in ranked} == {play.position.id for play in legal}
    equities = [equity for _, _, equity in ranked]
    assert equities == sorted(equities, reverse=True)
    for text, after, _ in ranked:
        assert Play.parse(text, position, dice).position.id == after


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"cube_value": 2, "cube_owner": 1, "player_on_roll": 1, "turn": 1},
        {"match_length": 7, "score": (3, 5)},
        {"match_length": 5, "score": (4, 2), "crawford": True},
    ],
    ids=["money", "money-cube-owned", "match", "crawford"],
)
def test_every_legal_play_is_ranked_and_parses_with_our_notation(fields: dict[str, object]) -> None:
    for position, dice in _sample(25, seed=11):
        _check_ranking(position, dice, _match_id(dice, **fields))


def test_doubles_with_hundreds_of_plays_are_all_ranked() -> None:
    busy = Position.from_id("0AVeIC40b4EEFQ")  # 1-1 has 310 plays here
    assert len(busy.legal_plays(1, 1)) == 310
    _check_ranking(busy, (1, 1), _match_id((1, 1)))


def test_a_bear_off_comes_back_whole() -> None:
    """findbestmoves cuts ``6/off 5/off`` to ``(6,)``: the plays are read from gnubg's hint
    text instead, whole, and mapped by the position they lead to."""
    assert (
        len(
            gnubg.findbestmoves(
                gnubg.positionfromid(BEAR_OFF.id),
                gnubg.cubeinfo(),
                gnubg.evalcontext(1, 0, 1, 1, 0.0),
                (6, 5),
            )[0]["move"]
        )
        == 1
    )
    ranked = gnubg_brain.rank_plays(BEAR_OFF.id, _match_id((6, 5)))
    plays = {text: after for text, after, _ in ranked}
    assert set(plays) == {"6/off 5/off", "6/1 6/off"}
    assert plays["6/off 5/off"] == Play.parse("6/off 5/off", BEAR_OFF, (6, 5)).position.id
    _check_ranking(BEAR_OFF, (6, 5), _match_id((6, 5)))
    _check_ranking(BEAR_OFF, (2, 2), _match_id((2, 2)))
    _check_ranking(BEAR_OFF, (6, 1), _match_id((6, 1), match_length=3, score=(1, 1)))


@pytest.mark.parametrize("ply, noise", [(0, 0.0), (0, 0.06), (2, 0.0)])
def test_findbestmoves_and_the_hint_text_agree(
    ply: int, noise: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways of asking gnubg give the same plays in the same order with the same equities
    (the text has 6 decimals; the match figures are percentages with 5)."""
    cases = [
        (position, dice, _match_id(dice, **fields))
        for (position, dice), fields in zip(
            _sample(12, seed=5),
            [{}, {"match_length": 7, "score": (2, 4)}, {"cube_value": 2, "cube_owner": 0}] * 4,
            strict=True,
        )
    ]
    direct = [gnubg_brain.rank_plays(p.id, m, ply, noise) for p, _, m in cases]
    monkeypatch.setattr(gnubg_brain, "_ranked_by_findbestmoves", lambda *args: None)
    from_text = [gnubg_brain.rank_plays(p.id, m, ply, noise) for p, _, m in cases]
    for one, other in zip(direct, from_text, strict=True):
        assert [after for _, after, _ in one][:3] == [after for _, after, _ in other][:3]
        by_after = {after: equity for _, after, equity in other}
        for _, after, equity in one:
            assert equity == pytest.approx(by_after[after], abs=2e-5)


def test_the_best_play_is_gnubgs_own_choice_at_0_ply() -> None:
    evalcontext = gnubg.evalcontext(1, 0, 1, 1, 0.0)
    checked = 0
    for position, dice in _sample(40, seed=3):
        match = MatchId(dice=dice)
        best = gnubg.findbestmove(
            gnubg.positionfromid(position.id), gnubg_brain.cube_info(match), evalcontext, dice
        )
        if len(best) % 2:
            continue  # cut at a bear-off
        ranked = gnubg_brain.rank_plays(position.id, match.encode())
        assert ranked[0][1] == gnubg_brain.after_steps(position, tuple(best)).id
        checked += 1
    assert checked >= 30


def test_gnubg_notation_is_read_by_the_position_it_leads_to() -> None:
    """gnubg writes ``8/5`` for the path that hits nothing and marks every hit; our own parser
    calls ``8/5`` ambiguous there (8/6/5 or 8/7*/5)."""
    position = Position.from_id("b1jEQRB5RWSIBQ")
    quiet = gnubg_brain._after_text(position, "8/5")
    assert quiet == Play.parse("8/6/5", position, (2, 1)).position
    assert (
        gnubg_brain._after_text(position, "8/7*/5")
        == Play.parse("8/7*/5", position, (2, 1)).position
    )
    four_off = gnubg_brain._after_text(BEAR_OFF, "6/off(2) 5/off(2)")  # seen from the opponent
    assert four_off.theirs[0] == 7 + 4


def test_cube_actions_where_the_answer_is_clear() -> None:
    opening = gnubg_brain.cube_decision(START.id, MONEY.encode())
    assert opening.action is CubeAction.NO_DOUBLE
    assert opening.no_double > opening.double_take and opening.double_pass == 1.0
    lead = gnubg_brain.cube_decision(RACE_LEAD.id, MONEY.encode())
    assert lead.action is CubeAction.DOUBLE_PASS
    assert lead.double_take > lead.double_pass == 1.0 > lead.no_double
    # The money figures are points: with the cube at 2 a pass is worth 2.
    owned = MatchId(cube_value=2, cube_owner=0).encode()
    assert gnubg_brain.cube_decision(RACE_LEAD.id, owned).double_pass == 2.0
    answer = gnubg_brain.take_decision(RACE_LEAD.id, MONEY.encode())
    assert not answer.take and answer.pass_equity == -1.0 > answer.take_equity


def test_no_cube_decision_where_the_rules_forbid_a_double_or_the_cube_is_dead() -> None:
    for match in (
        MatchId(cube_value=2, cube_owner=1),
        MatchId(match_length=5, score=(4, 2), crawford=True),
        # Dead cubes: a win at the cube's value already takes the match.
        MatchId(match_length=1),
        MatchId(match_length=5, score=(3, 0), cube_value=2, cube_owner=0),
    ):
        with pytest.raises(gnubg_brain.CannotDoubleError):
            gnubg_brain.cube_decision(START.id, match.encode())
    with pytest.raises(ValueError, match="no dice"):
        gnubg_brain.rank_plays(START.id, MONEY.encode())


def test_match_equities_are_match_winning_chances_as_equity() -> None:
    for position, dice in _sample(15, seed=8):
        ranked = gnubg_brain.rank_plays(position.id, _match_id(dice, match_length=5, score=(3, 2)))
        assert all(-1.0 <= equity <= 1.0 for _, _, equity in ranked)
    match = MatchId(match_length=5, score=(3, 2)).encode()
    decision = gnubg_brain.cube_decision(RACE_LEAD.id, match)
    assert all(-1.0 <= e <= 1.0 for e in (decision.no_double, decision.double_take))
    # A pass at 2-away 3-away hands the doubler the score 1-away 3-away: 2 * MWC - 1 there.
    info = gnubg.cubeinfo(1, -1, 0, 5, (3, 2), 0)
    assert decision.double_pass == pytest.approx(2 * gnubg.eq2mwc(1.0, info) - 1, abs=1e-5)
    # Gammonish: the trailer takes the double only when the match equities say so.
    answer = gnubg_brain.take_decision(START.id, match)
    assert -1.0 <= answer.take_equity <= 1.0 and -1.0 <= answer.pass_equity <= 1.0


def test_position_equity_and_resignations() -> None:
    before = gnubg_brain.position_equity(START.id, MONEY.encode())
    cube = gnubg_brain.cube_decision(START.id, MONEY.encode())
    assert before == max(cube.no_double, min(cube.double_take, cube.double_pass))
    rolled = gnubg_brain.position_equity(START.id, _match_id((3, 1)))
    assert rolled == gnubg_brain.rank_plays(START.id, _match_id((3, 1)))[0][2]
    # Seat 1 answers a resignation from seat 0, which is on roll and winning a gammon: a single
    # game for seat 1 beats losing two points.
    accept, value, play_on = gnubg_brain.resign_decision(
        GAMMON.id, MatchId(resign_level=1, turn=1).encode()
    )
    assert accept and value == 1.0 and play_on == pytest.approx(-2.0, abs=1e-3)
    # Seat 1, on roll and winning that gammon, declines a single game from seat 0 ...
    accept, value, play_on = gnubg_brain.resign_decision(
        GAMMON.id, MatchId(player_on_roll=1, resign_level=1, turn=1).encode()
    )
    assert not accept and value == 1.0 and play_on == pytest.approx(2.0, abs=1e-3)
    # ... and accepts the gammon.
    offer = MatchId(player_on_roll=1, resign_level=2, turn=1)
    assert gnubg_brain.resign_decision(GAMMON.id, offer.encode()) == (True, 2.0, play_on)
    # With the Jacoby rule a gammon counts single at a centred cube, in the resignation and in
    # gnubg's equity (the leader would double the trailer out): a single is enough.
    jacoby = MatchId(player_on_roll=1, resign_level=2, turn=1, jacoby=True)
    accept, value, play_on = gnubg_brain.resign_decision(GAMMON.id, jacoby.encode())
    assert accept and value == 1.0 and play_on == pytest.approx(1.0, abs=1e-3)
