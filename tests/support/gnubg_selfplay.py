"""Backgammon matches for the analysis tests and benchmark, played in this process through the
gnubg wheel: gnubg against itself (its own dice and cube, a ``.mat`` it writes), and our robot
against itself through :mod:`bot.robot.gnubg_brain` (our engine, our dice, our actions), with
cube actions and mistakes thrown in so that the analysis has something to find."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bot.robot import gnubg_brain
from engines import new_match
from engines.actions import Action, Double, Drop, Move, OpeningRoll, Roll, Take
from engines.base import MatchRules, Phase
from engines.gnubg import match_id_of
from engines.match import DiceMatch
from engines.nannon_solver import CubeAction


def gnubg_selfplay_mat(length: int, seed: int, noise: float = 0.03) -> str:
    """A match gnubg plays against itself at 0-ply with ``noise`` (so it errs), as its ``.mat``."""
    gnubg_brain.gnubg_module()
    commands = []
    for player in (0, 1):
        commands.append(f"set player {player} gnubg")
        for kind in ("chequerplay", "cubedecision"):
            commands += [
                f"set player {player} {kind} evaluation plies 0",
                f"set player {player} {kind} evaluation noise {noise}",
                f"set player {player} {kind} evaluation deterministic on",
            ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "selfplay.mat"
        for command in [*commands, f"set seed {seed}", f"new match {length}"]:
            gnubg_brain.run_command(command)
        gnubg_brain.run_command(f'export match mat "{path}"')
        return path.read_text(encoding="utf-8")


def robot_match(
    rules: MatchRules,
    rng: random.Random,
    *,
    prefix: Sequence[Action] = (),
    mistakes: float = 0.0,
    cube: bool = True,
    max_games: int | None = None,
) -> list[Action]:
    """Our robot (gnubg at 0-ply) against itself with random dice, after the ``prefix``: the
    best play and cube action, or with chance ``mistakes`` a random one."""
    match = new_match("backgammon", rules)
    assert isinstance(match, DiceMatch)
    for action in prefix:
        match.apply(action)
    actions = list(prefix)

    def apply(action: Action) -> None:
        match.apply(action)
        actions.append(action)

    while match.phase is not Phase.MATCH_OVER:
        if max_games is not None and match.game_number > max_games:
            break
        phase, seat = match.phase, match.turn
        if phase is Phase.OPENING:
            apply(OpeningRoll(None, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.ROLL:
            if cube and match.can_double(seat) and _wants_double(match, rng, mistakes):
                apply(Double(seat))
            else:
                apply(Roll(seat, (rng.randint(1, 6), rng.randint(1, 6))))
        elif phase is Phase.CUBE_OFFERED:
            taker = 1 - seat
            decision = gnubg_brain.take_decision(match.position_id, match_id_of(match))
            take = decision.take != (rng.random() < mistakes)
            apply(Take(taker) if take else Drop(taker))
        elif phase is Phase.MOVE:
            ranked = gnubg_brain.rank_plays(match.position_id, match_id_of(match))
            pick = rng.choice(ranked) if rng.random() < mistakes else ranked[0]
            apply(Move(seat, pick[0]))
        else:
            raise AssertionError(f"unexpected phase {phase}")
    return actions


def _wants_double(match: DiceMatch, rng: random.Random, mistakes: float) -> bool:
    try:
        decision = gnubg_brain.cube_decision(match.position_id, match_id_of(match))
    except gnubg_brain.CannotDoubleError:
        return False
    right = decision.action in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS)
    return right != (rng.random() < mistakes)
