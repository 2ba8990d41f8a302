"""Both GNU Backgammon routes in this process, for issue 40's comparison test and benchmark:
:func:`use` points :mod:`bot.robot.gnubg_brain` at the wheel or at the system's program (one
bridge child, started once), so the same brain calls run on either."""

from __future__ import annotations

import importlib.util
import random
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bot.robot import gnubg_brain, gnubg_system
from engines.backgammon import CHECKERS, OFF, Position
from engines.gnubg import MatchId

_engines: dict[str, Any] = {}


def both_exist() -> bool:
    return importlib.util.find_spec("gnubg") is not None and gnubg_system.find_program() is not None


def _engine(route: str) -> Any:
    if route not in _engines:
        if route == "wheel":
            import gnubg

            _engines[route] = gnubg
        else:
            program = gnubg_system.find_program()
            assert program is not None
            _engines[route] = gnubg_system.SystemGnubg(program)
    return _engines[route]


@contextmanager
def use(route: str) -> Iterator[None]:
    """gnubg_brain's calls go to ``route`` ("wheel" or "system") meanwhile."""
    saved = gnubg_brain._gnubg, gnubg_brain._evaluation
    gnubg_brain._gnubg, gnubg_brain._evaluation = _engine(route), None
    try:
        for command in gnubg_brain._SETUP:
            gnubg_brain.run_command(command)
        yield
    finally:
        gnubg_brain._gnubg, gnubg_brain._evaluation = saved


def _match(rng: random.Random, dice: tuple[int, int]) -> MatchId:
    """A money game (Jacoby or not) or a 5- or 7-point match at a random score and cube."""
    if rng.random() < 0.5:
        owner = rng.choice((-1, -1, 0))
        return MatchId(
            cube_value=rng.choice((1, 2)) if owner >= 0 else 1,
            cube_owner=owner,
            dice=dice,
            jacoby=rng.random() < 0.5,
        )
    length = rng.choice((5, 7))
    score = (rng.randrange(length - 1), rng.randrange(length - 1))
    return MatchId(match_length=length, score=score, dice=dice)


def positions(count: int, seed: int) -> Iterator[tuple[str, str]]:
    """``count`` (Position ID, Match ID with dice) from games of random plays biased to the
    front of the legal list (so contact, races and bear-offs all come)."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        position = Position.initial()
        while not position.is_over() and made < count:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = position.legal_plays(*dice)
            if plays:
                yield position.id, _match(rng, dice).encode()
                made += 1
                position = plays[min(int(rng.expovariate(0.3)), len(plays) - 1)].position
            else:
                position = position.flip()
            if position.mine[OFF] == CHECKERS or position.theirs[OFF] == CHECKERS:
                break


def cube_match(match_id: str) -> str | None:
    """The Match ID before the roll (no dice), when the side on roll may double; else None."""
    match = MatchId.decode(match_id)
    before = MatchId(
        cube_value=match.cube_value,
        cube_owner=match.cube_owner,
        match_length=match.match_length,
        score=match.score,
        jacoby=match.jacoby,
    )
    return before.encode() if gnubg_brain.may_double(before) else None


def compare(count: int, seed: int, ply: int) -> dict[str, float]:
    """Both routes on ``count`` positions at ``ply``: the best play and the cube action."""
    cases = list(positions(count, seed))
    answers = {}
    for route in ("wheel", "system"):
        with use(route):
            plays = [gnubg_brain.rank_plays(p, m, ply) for p, m in cases]
            befores = [(p, cube_match(m)) for p, m in cases]
            cubes = [gnubg_brain.cube_decision(p, b, ply) if b else None for p, b in befores]
        answers[route] = plays, cubes
    wheel_plays, wheel_cubes = answers["wheel"]
    system_plays, system_cubes = answers["system"]
    same_play = sum(w[0][0] == s[0][0] for w, s in zip(wheel_plays, system_plays, strict=True))
    # What the system's choice costs, judged by the wheel (a level's PR is 500 times this).
    lost = [
        w[0][2] - dict((play, equity) for play, _, equity in w)[s[0][0]]
        for w, s in zip(wheel_plays, system_plays, strict=True)
    ]
    best = [abs(w[0][2] - s[0][2]) for w, s in zip(wheel_plays, system_plays, strict=True)]
    pairs = [(w, s) for w, s in zip(wheel_cubes, system_cubes, strict=True) if w and s]
    cube_equity = [abs(w.no_double - s.no_double) for w, s in pairs]
    return {
        "positions": len(cases),
        "same_play": same_play / len(cases),
        "mean_loss": statistics.mean(lost),
        "median_best_difference": statistics.median(best),
        "max_best_difference": max(best),
        "exact_best": sum(difference < 1e-6 for difference in best),
        "cubes": len(pairs),
        "same_cube": sum(w.action == s.action for w, s in pairs) / len(pairs),
        "median_cube_difference": statistics.median(cube_equity),
        "max_cube_difference": max(cube_equity),
    }
