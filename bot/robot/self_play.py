"""Puzzles from robot self-play, for a server with no analysed games yet: a job for the analysis
worker (:func:`self_play_puzzles`).

Each game is one game (a 1-point match, no cube) between a weaker level (beginner or
intermediate), whose mistakes make the puzzles, and a stronger one (advanced or master), with
dice and the levels' noise drawn from a seeded generator. The game is analysed by the game's own
evaluator (:func:`bot.robot.analysis.evaluator_for`), every option of the weaker side's
blunders ranked again (:func:`bot.robot.analysis.answer_options`), and those that
:func:`~engines.puzzles.qualifies` come back as plain values with their answer keys, the same
as the miner keeps from a member's game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bot.robot import analysis, jobs
from engines import checkers_search as checkers
from engines import nannon_solver as nannon
from engines import new_match, replay
from engines.actions import Move, OpeningRoll, Roll
from engines.analysis import puzzle_candidates
from engines.base import GameKind, GameMatch, MatchRules, Phase
from engines.checkers import CheckersMatch
from engines.puzzles import AnswerKey, qualifies
from engines.spec import Evaluator, spec_of

__all__ = ["RULES", "self_play_puzzles"]

RULES = MatchRules(length=1, cube=False)
WEAK, STRONG = (1, 2), (3, 4)  # the levels drawn for each side (master: too slow to seed)
NAMES = ("Robot", "Robot")

Chooser = Callable[[GameMatch, int, random.Random], str]


def _nannon_move(match: GameMatch, level: int, rng: random.Random) -> str:
    from bot.robot.player import nannon_context

    assert match.dice is not None
    context = nannon_context(match, match.turn)
    ranked = jobs.nannon_rank_moves(match.position_id, match.dice[0], context)
    return str(nannon.choose_move(ranked, nannon.Level(level), rng).move)


def _still_clock() -> float:
    """A clock that never moves: the self-play levels (beginner to expert) stop at their depth,
    never at their time cap, so a seed plays the same game on a busy machine."""
    return 0.0


def _checkers_move(match: GameMatch, level: int, rng: random.Random) -> str:
    assert isinstance(match, CheckersMatch)
    board = match.board
    move = checkers.choose_move(
        board,
        checkers.Level(level),
        rng,
        clock=_still_clock,
        history=match.game.reversible_positions,
    )
    return match.format_move(move)


def _backgammon_move(match: GameMatch, level: int, rng: random.Random) -> str:
    from bot.robot import gnubg_brain
    from bot.robot.levels import BACKGAMMON_LEVELS, Level
    from engines.gnubg import match_id_of
    from engines.match import DiceMatch

    assert isinstance(match, DiceMatch)
    preset = BACKGAMMON_LEVELS[Level(level)]
    ranked = gnubg_brain.rank_plays(match.position_id, match_id_of(match), preset.ply, preset.noise)
    return str(ranked[0][0])


_CHOOSERS: dict[Evaluator, Chooser] = {
    Evaluator.EXACT_SOLVER: _nannon_move,
    Evaluator.SEARCH: _checkers_move,
    Evaluator.GNUBG: _backgammon_move,
}


def _play(kind: GameKind, levels: tuple[int, int], rng: random.Random) -> GameMatch:
    choose = _CHOOSERS[spec_of(kind).evaluator]
    match = new_match(kind, RULES)
    while not match.is_over():
        phase = match.phase
        if phase is Phase.OPENING:
            match.apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.ROLL:
            rolled = tuple(rng.randint(1, 6) for _ in range(_dice_count(kind)))
            match.apply(Roll(match.turn, rolled))
        elif phase is Phase.MOVE:
            legal = match.legal_moves()
            if len(legal) == 1:
                move = match.format_move(legal[0])
            else:
                move = choose(match, levels[match.turn], rng)
            match.apply(Move(match.turn, move))
        else:
            raise ValueError(f"self-play reached {phase}")
    return match


def _dice_count(kind: GameKind) -> int:
    return spec_of(kind).dice_count


def self_play_puzzles(
    kind: GameKind | str, games: int, seed: int, ply: int
) -> list[dict[str, Any]]:
    """The puzzles of ``games`` self-play games (seeded with ``seed``): each a dict with the
    decision's ``kind``, ``action_index``, ``seat``, ``board`` (what the picture needs),
    ``played``, ``answer_key`` (pairs, best first), ``actions`` (the game's up to the
    decision, as dicts: the board is drawn from them) and ``dice``/``position_id`` (for the
    position key)."""
    kind = GameKind(kind)
    rng = random.Random(seed)
    rule = spec_of(kind).puzzle_rule
    evaluator = analysis.evaluator_for(kind, ply)
    found: list[dict[str, Any]] = []
    for _ in range(games):
        weak = rng.randrange(2)
        levels = [rng.randint(*STRONG), rng.randint(*STRONG)]
        levels[weak] = rng.randint(*WEAK)
        match = _play(kind, (levels[0], levels[1]), rng)
        actions = list(match.actions)
        for decision in puzzle_candidates(
            evaluator.analyse_game(RULES, actions, NAMES, 1), rule, {weak}
        ):
            ranked = analysis.answer_options(
                kind, RULES, actions, decision.action_index, decision.kind, weak, ply
            )
            key = AnswerKey.of(ranked)
            if not any(o.move == decision.played for o in key.options):
                continue
            if not qualifies(key, decision.played, rule):
                continue
            before = replay(kind, RULES, actions[: decision.action_index])
            found.append(
                {
                    "kind": decision.kind.value,
                    "action_index": decision.action_index,
                    "seat": weak,
                    "board": {
                        "position_id": decision.position_id or before.position_id,
                        "dice": list(decision.dice),
                        "seat": weak,
                        "score": list(before.score),
                        "length": RULES.length,
                    },
                    "played": decision.played,
                    "actions": [a.to_dict() for a in actions[: decision.action_index]],
                    "answer_key": key.to_list(),
                    "position_id": decision.position_id,
                    "dice": list(decision.dice),
                }
            )
    return found
