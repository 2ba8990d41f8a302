"""The exact Nannon analysis: planted mistakes are found, perfect play loses nothing, luck
averages zero, and luck minus losses adds up to what the game changed."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from engines import new_match
from engines.actions import Action, Double, Drop, Move, OpeningRoll, Roll, Take
from engines.analysis import Decision, DecisionKind, analyse_match, count_games, summarise
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.nannon import Position
from engines.nannon_analysis import NannonEvaluator, analyse_nannon_game, context_of
from engines.nannon_solver import NannonSolver


@pytest.fixture(scope="module")
def solver() -> NannonSolver:
    return NannonSolver()


def _play(
    solver: NannonSolver,
    length: int,
    seed: int,
    *,
    ties: bool = True,
    mistake: float | None = None,
) -> tuple[GameMatch, int | None]:
    """A match of exact best play with random dice; with ``mistake``, the first move that
    loses at least that much by playing the worst move is played so (its action index)."""
    rng = random.Random(seed)
    match = new_match("nannon", MatchRules(length=length))
    planted: int | None = None
    while match.phase is not Phase.MATCH_OVER:
        phase, turn = match.phase, match.turn
        action: Action
        if phase is Phase.OPENING_TIE and any(
            match.can_double(s) and solver.opening_cube_action(context_of(match, s)).double
            for s in (0, 1)
        ):
            seat = next(
                s
                for s in (0, 1)
                if match.can_double(s) and solver.opening_cube_action(context_of(match, s)).double
            )
            action = Double(seat)
        elif phase in (Phase.OPENING, Phase.OPENING_TIE):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            while not ties and dice[0] == dice[1]:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
            action = OpeningRoll(None, dice)
        elif phase is Phase.ROLL:
            position = Position.from_id(match.position_id)
            if (
                match.can_double(turn)
                and solver.cube_action(position, context_of(match, turn)).double
            ):
                action = Double(turn)
            else:
                action = Roll(turn, (rng.randint(1, 6),))
        elif phase is Phase.CUBE_OFFERED:
            dice_now = match.opening_dice
            offered_by = match.cube_offered_by
            assert offered_by is not None
            doubler = context_of(match, offered_by)
            if dice_now is not None and dice_now[0] == dice_now[1]:
                take = solver.opening_cube_action(doubler).take
            else:
                take = solver.take_decision(Position.from_id(match.position_id), doubler).take
            action = Take(1 - offered_by) if take else Drop(1 - offered_by)
        else:
            assert match.dice is not None
            ranked = solver.rank_moves(
                Position.from_id(match.position_id), match.dice[0], context_of(match, turn)
            )
            chosen = ranked[0]
            if (
                mistake is not None
                and planted is None
                and ranked[0].equity - ranked[-1].equity >= mistake
            ):
                chosen, planted = ranked[-1], len(match.actions)
            action = Move(turn, str(chosen.move))
        match.apply(action)
    return match, planted


def _decisions(solver: NannonSolver, match: GameMatch) -> list[Decision]:
    out: list[Decision] = []
    for game in range(1, match.game_number + 1):
        out += analyse_nannon_game(match.rules, match.actions, ("A", "B"), game, solver)
    return out


def _seat0(d: Decision, value: float) -> float:
    return value if d.player == 0 else -value


def test_best_play_loses_nothing(solver: NannonSolver) -> None:
    for seed in range(3):
        match, _ = _play(solver, 7, seed)
        decisions = _decisions(solver, match)
        assert decisions and all(d.equity_loss < 1e-9 for d in decisions)
        assert {DecisionKind.MOVE, DecisionKind.CUBE} <= {d.kind for d in decisions}
        analysis = summarise(decisions, ("A", "B"), pr_scale=False)
        assert all(p.errors == 0 and p.error_rate < 1e-6 for p in analysis.players)
        final = decisions[-1].win_chance
        assert final == (1.0 if match.score[0] > match.score[1] else 0.0)


def test_a_planted_blunder_is_the_worst_mistake(solver: NannonSolver) -> None:
    match, planted = _play(solver, 5, 11, mistake=0.1)
    assert planted is not None
    analysis = summarise(_decisions(solver, match), ("A", "B"), pr_scale=False)
    worst = analysis.worst()
    assert worst[0].action_index == planted
    assert worst[0].is_blunder and not worst[0].forced and worst[0].played != worst[0].best
    seat = worst[0].player
    assert analysis.players[seat].blunders == 1
    assert analysis.players[1 - seat].errors == 0


def test_luck_averages_zero(solver: NannonSolver) -> None:
    lucks = [
        d.luck
        for seed in range(12)
        for d in _decisions(solver, _play(solver, 3, 100 + seed)[0])
        if d.luck is not None
    ]
    mean = sum(lucks) / len(lucks)
    sd = math.sqrt(sum((x - mean) ** 2 for x in lucks) / (len(lucks) - 1))
    assert len(lucks) > 300
    assert abs(mean) < 4 * sd / math.sqrt(len(lucks))


def _opening_average(solver: NannonSolver, rules: MatchRules, actions: Sequence[Action]) -> float:
    """Seat 0's equity at a game's opening roll, averaged over the unequal rolls."""
    match = new_match("nannon", rules)
    for action in actions:
        match.apply(action)
    start = Position.initial()
    total = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            if a > b:
                total += solver.rank_moves(start, a - b, context_of(match, 0))[0].equity
            elif b > a:
                total -= solver.rank_moves(start, b - a, context_of(match, 1))[0].equity
    return total / 30


def test_luck_and_skill_add_up_to_the_result(solver: NannonSolver) -> None:
    """Per game, seat 0's luck minus its losses (seat 1's negated) is the equity at the end
    less the equity at the opening roll: exact for the exact solver."""
    for seed, mistake in ((1, None), (2, 0.05), (3, 0.02)):
        match, _ = _play(solver, 5, seed, ties=False, mistake=mistake)
        decisions = _decisions(solver, match)
        for game in range(1, match.game_number + 1):
            mine = [d for d in decisions if d.game == game]
            start_index = _game_start(match, game)
            start = _opening_average(solver, match.rules, match.actions[:start_index])
            end = 2 * mine[-1].win_chance - 1
            luck = sum(_seat0(d, d.luck or 0.0) for d in mine)
            skill = sum(_seat0(d, -d.equity_loss) for d in mine)
            assert luck + skill == pytest.approx(end - start, abs=1e-7)


def _game_start(match: GameMatch, game: int) -> int:
    replay = new_match("nannon", match.rules)
    for index, action in enumerate(match.actions):
        if replay.game_number == game:
            return index
        replay.apply(action)
    raise AssertionError(f"no game {game}")


def test_other_games_and_a_roll_that_cannot_be_played(solver: NannonSolver) -> None:
    match, _ = _play(solver, 3, 5)
    later = [d for d in _decisions(solver, match) if d.game == 2]
    assert later and all(d.game == 2 for d in later)
    passes = [d for d in _decisions(solver, match) if d.played == "no move"]
    assert all(d.forced and d.equity_loss == 0 and d.luck is not None for d in passes)


def test_the_evaluator_is_the_solver_behind_the_analysis_interface(solver: NannonSolver) -> None:
    match, planted = _play(solver, 5, 2, mistake=0.05)
    names = ("A", "B")
    evaluator = NannonEvaluator(lambda: solver)
    assert evaluator.details == {"evaluator": "exact solver"}
    seen: list[tuple[int, int]] = []
    result = analyse_match(
        evaluator,
        GameKind.NANNON,
        match.rules,
        match.actions,
        names,
        lambda game, total: seen.append((game, total)),
    )
    games = count_games(GameKind.NANNON, match.rules, match.actions)
    assert games == match.game_number and seen == [(g, games) for g in range(1, games + 1)]
    assert list(result.decisions) == _decisions(solver, match)
    assert result.details == {"game": "nannon", "evaluator": "exact solver"}
    assert planted is not None and result.worst(1)[0].action_index == planted
