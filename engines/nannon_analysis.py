"""A Nannon game analysed by the exact solver (:mod:`engines.nannon_solver`): every move, cube
decision and answer to a double, what it cost and what each roll gave.

All in the solver's equity of the decider (match play: ``2 * MWC - 1``), so a loss is exact:

- a move costs the best move's equity minus the played one's (forced: one legal move, or none);
- a cube decision before a roll (whenever the side on roll may double): doubling is worth
  ``min(double/take, double/pass)``, not doubling the no-double equity; the cost is the right
  action's value minus the one chosen. As in gnubg, a no double counts as a decision only when
  doubling was close (costs less than :data:`CLOSE_CUBE`); otherwise it is ``forced``. After a
  tied opening roll (the Nannon ruling) a double, or a roll again when a side could double,
  is judged at the opening roll (:meth:`NannonSolver.opening_cube_action`);
- a take or pass costs the better answer's equity minus the chosen one's;
- a resignation and its answer (:class:`engines.analysis.Resignation`): playing on is worth
  the exact equity at that moment (at the opening roll, before a roll with the cube decisions,
  or the roll's best move), the resignation what losing its points is worth
  (:meth:`NannonSolver.won_equity`, the Crawford rule as the match has it).

Luck of a roll: its value (the best move's equity, or the equity after the forced pass) minus
the average over the six rolls, for the roller. The opening roll's luck goes to its winner: the
value to it of the outcome minus the average over the 30 unequal outcomes (ties are rolled
again). With these, in a game without resignations, for seat 0 (seat 1's figures negated)::

    sum(luck) - sum(loss) = equity at the end - equity after the opening roll's average

exactly (up to the solver's tolerance); ``tests/engines/test_nannon_analysis.py`` checks it.
``win_chance`` is seat 0's match-winning chance after each decision, ``(1 + equity) / 2``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engines import new_match, replay
from engines.actions import (
    AcceptResign,
    Action,
    DeclineResign,
    Double,
    Drop,
    Move,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engines.analysis import (
    Decision,
    DecisionKind,
    Resignation,
    Resignations,
    ResignationValue,
    resign_words,
)
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.match import DiceMatch
from engines.nannon import Position
from engines.nannon_solver import (
    Context,
    CubeDecision,
    NannonSolver,
)
from engines.puzzles import Option, cube_options, take_options

__all__ = [
    "CLOSE_CUBE",
    "NannonEvaluator",
    "analyse_nannon_game",
    "context_of",
    "nannon_options",
    "play_on_equity",
    "roll_values",
]

CLOSE_CUBE = 0.16
"""gnubg's ``isCloseCubedecision`` bound: a no double counts only when doubling costs less."""


def context_of(match: GameMatch, seat: int) -> Context:
    """The solver's context for ``seat``: the real cube and score, with or without the
    Crawford rule (:meth:`Context.of_match`)."""
    return Context.of_match(match, seat)


def roll_values(solver: NannonSolver, position: Position, context: Context) -> list[float]:
    """What each roll 1..6 is worth to the side on roll, playing it best."""
    values = []
    for roll in range(1, 7):
        ranked = solver.rank_moves(position, roll, context)
        if ranked:
            values.append(ranked[0].equity)
        else:  # no legal move: the opponent is on roll in the same position
            values.append(-solver.equity(position.pass_turn(), context.flipped()))
    return values


def play_on_equity(solver: NannonSolver, match: GameMatch, seat: int) -> float:
    """What playing on is worth to ``seat`` now, exactly: at the opening roll (before it, or
    after a tie, the cube as it stands), before a roll with the right cube decisions, or after
    it with the roll's best move."""
    if match.phase in (Phase.OPENING, Phase.OPENING_TIE):
        return solver.opening_equity(context_of(match, seat))
    on_turn = match.turn
    position = Position.from_id(match.position_id)
    context = context_of(match, on_turn)
    if match.dice:
        equity = roll_values(solver, position, context)[match.dice[0] - 1]
    else:
        equity = solver.equity(position, context)
    return equity if on_turn == seat else -equity


def resignation_value(
    solver: NannonSolver, match: GameMatch, seat: int, level: int
) -> ResignationValue:
    """A resignation by ``seat`` at ``level`` now against playing on, exactly."""
    assert isinstance(match, DiceMatch)
    play_on = play_on_equity(solver, match, seat)
    resigned = -solver.won_equity(context_of(match, 1 - seat), match.stake(level))
    return ResignationValue(play_on, resigned, _chance(play_on, seat), _chance(resigned, seat))


def _chance(equity: float, seat: int) -> float:
    """Seat 0's chance for ``seat``'s equity, ``(1 + equity) / 2``."""
    mine = equity if seat == 0 else -equity
    return min(1.0, max(0.0, (1.0 + mine) / 2.0))


def _opening_values(solver: NannonSolver, match: GameMatch) -> dict[tuple[int, int], float]:
    """Seat 0's equity after each unequal opening roll (seat 0's die, seat 1's)."""
    start = Position.initial()
    contexts = (context_of(match, 0), context_of(match, 1))
    best = {
        (seat, d): solver.rank_moves(start, d, contexts[seat])[0].equity
        for seat in (0, 1)
        for d in range(1, 6)
    }
    return {
        (a, b): best[(0, a - b)] if a > b else -best[(1, b - a)]
        for a in range(1, 7)
        for b in range(1, 7)
        if a != b
    }


def _cube_loss(cube: CubeDecision, doubled: bool) -> tuple[float, bool, float]:
    """(loss, forced, equity after) of doubling or not, for the side that could double."""
    double_value = min(cube.double_take, cube.double_pass)
    best = max(cube.no_double, double_value)
    chosen = double_value if doubled else cube.no_double
    close = best - double_value < CLOSE_CUBE
    return best - chosen, not doubled and not close, chosen


class _GameReplay:
    """Replays one game beside the solver, collecting its decisions."""

    def __init__(self, rules: MatchRules, solver: NannonSolver, game: int) -> None:
        self.match = new_match(GameKind.NANNON, rules, recorded=True)
        self.solver = solver
        self.game = game
        self.decisions: list[Decision] = []
        self.luck: float | None = None  # the roll's luck, for the move that plays it
        self.resignations = Resignations()

    def add(
        self,
        index: int,
        seat: int,
        kind: DecisionKind,
        played: str,
        best: str,
        loss: float,
        forced: bool,
        equity: float,
        *,
        position_id: str,
        luck: float | None = None,
        dice: tuple[int, ...] = (),
    ) -> None:
        """A decision; ``equity`` is the decider's after it."""
        self.decisions.append(
            Decision(
                game=self.game,
                action_index=index,
                player=seat,
                kind=kind,
                played=played,
                best=best,
                equity_loss=max(0.0, loss),
                forced=forced,
                luck=luck,
                win_chance=_chance(equity, seat),
                position_id=position_id,
                dice=dice,
            )
        )

    def cube(self, index: int, seat: int, cube: CubeDecision, doubled: bool, where: str) -> None:
        loss, forced, equity = _cube_loss(cube, doubled)
        best = "double" if cube.double else "no double"
        played = "double" if doubled else "no double"
        self.add(
            index, seat, DecisionKind.CUBE, played, best, loss, forced, equity, position_id=where
        )

    def step(self, index: int, action: Action) -> None:
        match, solver = self.match, self.solver
        phase, where = match.phase, match.position_id
        if phase is Phase.OPENING_TIE and isinstance(action, Double):
            seat = action.player if action.player is not None else 0
            cube = solver.opening_cube_action(context_of(match, seat))
            self.cube(index, seat, cube, True, where)
        elif phase is Phase.OPENING_TIE and isinstance(action, OpeningRoll):
            for seat in (0, 1):  # nobody doubled after the tie
                if match.can_double(seat):
                    cube = solver.opening_cube_action(context_of(match, seat))
                    self.cube(index, seat, cube, False, where)
        elif phase is Phase.ROLL and isinstance(action, Double | Roll):
            seat = match.turn
            if match.can_double(seat):
                position = Position.from_id(where)
                cube = solver.cube_action(position, context_of(match, seat))
                self.cube(index, seat, cube, isinstance(action, Double), where)
        elif phase is Phase.CUBE_OFFERED and isinstance(action, Take | Drop):
            self.answer(index, action)
        elif isinstance(action, Resign):
            self.resign(index, action)
        elif isinstance(action, AcceptResign | DeclineResign):
            accepted = isinstance(action, AcceptResign)
            self.decisions += self.resignations.answered(index, accepted)
        if isinstance(action, OpeningRoll):
            self.opening(index, action)
        elif isinstance(action, Roll):
            self.roll(index, action)
        elif isinstance(action, Move):
            self.move(index, action)
        else:
            match.apply(action)

    def resign(self, index: int, action: Resign) -> None:
        match = self.match
        seat = action.player if action.player is not None else match.turn
        level = match.spec.resign_level_name(action.level)
        value = resignation_value(self.solver, match, seat, action.level)
        dice = tuple(match.dice or ())
        self.resignations.offered(
            Resignation(
                self.game,
                index,
                seat,
                resign_words(level),
                value,
                position_id=match.position_id,
                dice=dice,
            )
        )

    def answer(self, index: int, action: Take | Drop) -> None:
        match = self.match
        doubler = match.cube_offered_by
        assert doubler is not None
        seat = 1 - doubler
        context = context_of(match, doubler)
        dice = match.opening_dice
        if dice is not None and dice[0] == dice[1]:  # doubled after a tied opening roll
            tie = self.solver.opening_cube_action(context)
            answer = tie.answer
        else:
            position = Position.from_id(match.position_id)
            answer = self.solver.take_decision(position, context)
        took = isinstance(action, Take)
        chosen = answer.take_equity if took else answer.pass_equity
        best = max(answer.take_equity, answer.pass_equity)
        self.add(
            index,
            seat,
            DecisionKind.TAKE,
            "take" if took else "pass",
            "take" if answer.take else "pass",
            best - chosen,
            False,
            chosen,
            position_id=match.position_id,
        )

    def opening(self, index: int, action: OpeningRoll) -> None:
        match = self.match
        d0, d1 = action.dice
        values = _opening_values(self.solver, match) if d0 != d1 else {}
        match.apply(action)
        if d0 == d1:
            return
        winner = 0 if d0 > d1 else 1
        luck = values[(d0, d1)] - sum(values.values()) / len(values)
        self.luck = luck if winner == 0 else -luck

    def roll(self, index: int, action: Roll) -> None:
        match = self.match
        seat = match.turn
        where = match.position_id
        position = Position.from_id(where)
        context = context_of(match, seat)
        values = roll_values(self.solver, position, context)
        die = action.dice[0]
        luck = values[die - 1] - sum(values) / 6.0
        result = match.apply(action)
        if result.turn_forfeited:  # no legal move: a forced pass, still with its luck
            self.add(
                index,
                seat,
                DecisionKind.MOVE,
                "no move",
                "no move",
                0.0,
                True,
                values[die - 1],
                position_id=where,
                luck=luck,
                dice=(die,),
            )
        else:
            self.luck = luck

    def move(self, index: int, action: Move) -> None:
        match = self.match
        seat, where = match.turn, match.position_id
        dice = match.dice or ()
        played = match.parse_move(action.move)
        text = match.format_move(played)
        luck, self.luck = self.luck, None
        context = context_of(match, seat)
        ranked = self.solver.rank_moves(Position.from_id(where), dice[0], context) if dice else []
        if ranked:
            mine = next((r for r in ranked if r.move == played), None)
            if mine is None:
                raise ValueError(f"{text} is not a legal move of {dice[0]} in {where}")
            self.add(
                index,
                seat,
                DecisionKind.MOVE,
                text,
                str(ranked[0].move),
                ranked[0].equity - mine.equity,
                len(ranked) == 1,
                mine.equity,
                position_id=where,
                luck=luck,
                dice=tuple(dice),
            )
        else:  # "no move" where the rules leave the pass to the player
            position = Position.from_id(where)
            equity = -self.solver.equity(position.pass_turn(), context.flipped())
            self.add(
                index,
                seat,
                DecisionKind.MOVE,
                text,
                text,
                0.0,
                True,
                equity,
                position_id=where,
                luck=luck,
                dice=tuple(dice),
            )
        match.apply(action)


class NannonEvaluator:
    """Nannon's :class:`~engines.analysis.GameEvaluator`: the exact solver, which ``solver()``
    gives when a game is analysed (in the bot, the analysis worker's own, so scores solved once
    are reused; making the evaluator, say for its :attr:`details`, makes no solver)."""

    details: dict[str, object]

    def __init__(self, solver: Callable[[], NannonSolver]) -> None:
        self.solver = solver
        self.details = {"evaluator": "exact solver"}

    def analyse_game(
        self, rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int
    ) -> list[Decision]:
        return analyse_nannon_game(rules, actions, names, game, self.solver())


def analyse_nannon_game(
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    solver: NannonSolver,
) -> list[Decision]:
    """Every decision of game ``game`` (from 1) of the Nannon match ``actions`` replay, in
    order. ``names`` are unused here (the summary names the players); ValueError (a GameError
    or the solver's InvalidContextError) where the actions or the score don't fit."""
    replay = _GameReplay(rules, solver, game)
    match = replay.match
    for index, action in enumerate(actions):
        if match.phase is Phase.MATCH_OVER or match.game_number > game:
            break
        if match.game_number < game:
            match.apply(action)
        else:
            replay.step(index, action)
    return replay.decisions + replay.resignations.close()


def nannon_options(
    rules: MatchRules,
    actions: Sequence[Action],
    action_index: int,
    kind: DecisionKind,
    player: int,
    solver: NannonSolver,
) -> list[Option]:
    """Every option of the decision ``player`` made at action ``action_index`` (a decision
    of :func:`analyse_nannon_game`) with its exact equity for the decider: each legal move of
    the roll, the cube's two choices, or take and pass. ValueError where there is no such
    decision."""
    match = replay(GameKind.NANNON, rules, actions[:action_index])
    context = context_of(match, player)
    if kind is DecisionKind.MOVE:
        if not match.dice:
            raise ValueError(f"no roll to play at action {action_index}")
        ranked = solver.rank_moves(Position.from_id(match.position_id), match.dice[0], context)
        return [Option(match.format_move(r.move), r.equity) for r in ranked]
    if kind is DecisionKind.CUBE:
        if match.phase is Phase.OPENING_TIE:
            cube = solver.opening_cube_action(context)
        else:
            cube = solver.cube_action(Position.from_id(match.position_id), context)
        return cube_options(cube.no_double, cube.double_take, cube.double_pass)
    doubler = match.cube_offered_by
    if doubler is None:
        raise ValueError(f"no double to answer at action {action_index}")
    dice = match.opening_dice
    if dice is not None and dice[0] == dice[1]:
        answer = solver.opening_cube_action(context_of(match, doubler)).answer
    else:
        answer = solver.take_decision(
            Position.from_id(match.position_id), context_of(match, doubler)
        )
    return take_options(answer.take_equity, answer.pass_equity)
