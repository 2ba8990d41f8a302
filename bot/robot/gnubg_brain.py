"""GNU Backgammon's judgement, through its ``gnubg`` wheel: run only inside the robot's worker.

Where the wheel is missing, the same calls go to the system's GNU Backgammon program
(:mod:`bot.robot.gnubg_system`); the quirks below are the wheel's.

Everything here is called in the main thread of the robot's own worker process
(:mod:`bot.robot.worker`), never in the bot's process, because of what the wheel (1.1.0a16) was
measured to do:

- it crashes when called from any thread but its process's main one, and never releases the
  interpreter lock, so a call would stall the event loop for its whole length;
- ``gnubg.hint()`` segfaults, and so does ``set cache 1``; with the cache on, an evaluation at
  one ply can return a value cached at another, so the cache is off (``set cache 0``);
- ``gnubg.findbestmoves`` lists every legal play with its cubeful score, the scores ``hint``
  prints, but cuts each play's move tuple at its first bear-off (``6/off 5/off`` comes back as
  ``(6,)``); ``gnubg.evaluate`` gives only cubeless equities; ``gnubg.cubeinfo`` always turns
  the Jacoby rule on;
- commands (``hint``, ``eval``) print to C's stdout, and the main thread waits on gnubg's own
  worker thread in 10 ms polls, so a command costs 10 ms or more.

So plays are ranked by ``findbestmoves`` (a fraction of a millisecond at 0-ply), each move tuple
mapped onto our :meth:`~engines.backgammon.Position.legal_plays` by the position it leads to.
When a tuple was cut short by a bear-off, the whole roll is ranked again from the ``hint``
command's text, where every play is written out in gnubg notation; each is mapped the same way,
by the position it leads to. Cube decisions come from ``hint`` before the roll, and a
position's equity from ``eval``.

Equities are those gnubg reports, cubeful, from the side named: points for money play (gnubg's
figure per cube times the cube), ``2 * MWC - 1`` in match play. Master's 2-ply is gnubg's
"world class" search: the move filters keep the plays worth a closer look, so a play filtered
out keeps its 0-ply (or 1-ply) equity, as in gnubg's own hint list.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Any

from bot.robot import gnubg_system
from engines.backgammon import BAR, CHECKERS, OFF, Play, Position
from engines.gnubg import GameState, MatchId
from engines.nannon_solver import CubeDecision, TakeDecision

__all__ = [
    "BrainError",
    "CannotDoubleError",
    "RankedPlay",
    "after_steps",
    "available",
    "cube_decision",
    "cube_info",
    "gnubg_module",
    "may_double",
    "position_equity",
    "rank_plays",
    "resign_decision",
    "resign_offer",
    "run_command",
    "take_decision",
]

RankedPlay = tuple[str, str, float]
"""(the play in our notation, the Position ID after it seen by the opponent, its equity)."""

_SETUP = (
    "set threads 1",
    "set cache 0",
    "set output digits 6",
    "set output mwc on",  # match play: the match-winning chance, 7 significant digits
    "set beavers 0",
)

_gnubg: Any = None
engine = ""
"""Which GNU Backgammon :func:`gnubg_module` loaded (for the log), once loaded."""
_evaluation: tuple[int, float] | None = None  # the (ply, noise) the commands last set


class BrainError(RuntimeError):
    """gnubg answered something this module can't read (a play it lists that is not legal,
    a legal play it leaves out, output in an unknown form)."""


class CannotDoubleError(ValueError):
    """The side on roll may not double here (the opponent owns the cube, the Crawford game)."""


def available() -> bool:
    """Whether GNU Backgammon (the wheel, or the system's program) runs here."""
    try:
        gnubg_module()
    except (ImportError, gnubg_system.BridgeError):
        return False
    return True


def gnubg_module() -> Any:
    """The ``gnubg`` module (the wheel's, or the system program's through
    :class:`~bot.robot.gnubg_system.SystemGnubg`), set up for this module's calls on first use
    (ImportError where neither exists). Only in the worker's main thread (see above)."""
    global _gnubg, engine
    if _gnubg is None:
        _gnubg, engine = gnubg_system.load()
        for command in _SETUP:
            run_command(command)
    return _gnubg


def run_command(text: str) -> str:
    """Run a gnubg command and return what it printed. gnubg prints to C's stdout, so file
    descriptor 1 points at a temporary file meanwhile (gnubg flushes it when a command ends)."""
    gnubg = _gnubg
    sys.stdout.flush()
    with tempfile.TemporaryFile() as out:
        saved = os.dup(1)
        try:
            os.dup2(out.fileno(), 1)
            try:
                gnubg.command(text)
            finally:
                os.dup2(saved, 1)
        finally:
            os.close(saved)
        out.seek(0)
        return out.read().decode("utf-8", "replace")


def _use(ply: int, noise: float) -> None:
    """Set gnubg's chequer-play and cube evaluations (for its commands) to ``ply`` and ``noise``:
    cubeful, pruning nets, deterministic noise, as gnubg's presets."""
    global _evaluation
    gnubg_module()
    if not (isinstance(ply, int) and 0 <= ply <= 4):
        raise ValueError(f"ply is 0 to 4, not {ply!r}")
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise is 0 to 1, not {noise!r}")
    if _evaluation == (ply, noise):
        return
    for kind in ("chequerplay", "cubedecision"):
        for setting in (
            f"plies {ply}",
            "cubeful on",
            "prune on",
            "deterministic on",
            f"noise {noise:.6f}",
        ):
            run_command(f"set evaluation {kind} evaluation {setting}")
    _evaluation = (ply, noise)


def cube_info(match: MatchId) -> dict[str, Any]:
    """gnubg's cubeinfo for the side on roll in ``match``, with the Jacoby rule as the ID says
    (``gnubg.cubeinfo`` always sets it; without it a gammon counts at a centred cube)."""
    info: dict[str, Any] = _gnubg.cubeinfo(
        match.cube_value,
        match.cube_owner,
        match.player_on_roll,
        match.match_length,
        match.score,
        int(match.crawford),
        0,
    )
    if not match.match_length:
        info["jacoby"] = int(match.jacoby)
        price = 0.0 if match.jacoby and match.cube_owner == -1 else 1.0
        info["gammonprice"] = ((price, price), (price, price))
    return info


def _gnubg_match_id(match: MatchId, dice: tuple[int, int]) -> str:
    """The Match ID gnubg is given: a game in play, the side on roll to act, no offer."""
    return MatchId(
        cube_value=match.cube_value,
        cube_owner=match.cube_owner,
        player_on_roll=match.player_on_roll,
        match_length=match.match_length,
        score=match.score,
        crawford=match.crawford,
        turn=match.player_on_roll,
        game_state=GameState.PLAYING,
        dice=dice,
        jacoby=match.jacoby,
    ).encode()


def _set_position(position: Position, match: MatchId, dice: tuple[int, int]) -> None:
    out = run_command(f"set gnubgid {position.id}:{_gnubg_match_id(match, dice)}")
    if "Position ID" not in out:
        raise BrainError(f"gnubg refused the position {position.id}: {out.strip()[:200]}")


# -- plays -------------------------------------------------------------------------------------


def _after(position: Position, mine: list[int], theirs: list[int]) -> Position:
    if sum(mine) != CHECKERS or sum(theirs) != CHECKERS or min(mine) < 0 or min(theirs) < 0:
        raise BrainError(f"gnubg named a play that is not possible in {position.id}")
    return Position(tuple(theirs), tuple(mine))  # seen from the opponent, on roll next


def after_steps(position: Position, steps: tuple[int, ...]) -> Position:
    """The position after the single-die moves ``(from, to, from, to, ...)`` of a gnubg move
    tuple (25 the bar); a checker landing on a blot hits it."""
    mine, theirs = list(position.mine), list(position.theirs)
    for src, dst in zip(steps[::2], steps[1::2], strict=True):
        mine[src] -= 1
        mine[dst] += 1
        if dst != OFF and theirs[BAR - dst] == 1:
            theirs[BAR - dst] = 0
            theirs[BAR] += 1
    return _after(position, mine, theirs)


_TOKEN = re.compile(r"(bar|\d{1,2})((?:/(?:\d{1,2}|off)\*?)+)(?:\((\d)\))?")
_HOP = re.compile(r"/(\d{1,2}|off)(\*?)")


def _point(word: str) -> int:
    return BAR if word == "bar" else OFF if word == "off" else int(word)


def _after_text(position: Position, text: str) -> Position:
    """The position after a play in gnubg's notation (``24/18*/13 6/off(2)``): each part moves
    a checker from its first point to its last, hitting where a ``*`` says (gnubg writes every
    hit, and leaves out only points passed without one)."""
    mine, theirs = list(position.mine), list(position.theirs)
    rest = _TOKEN.sub("", text).strip()
    if rest or not text.strip():
        raise BrainError(f"gnubg wrote a play this module can't read: {text!r}")
    for src_word, hops_text, count in _TOKEN.findall(text):
        hops = _HOP.findall(hops_text)
        src, dst = _point(src_word), _point(hops[-1][0])
        for _ in range(int(count or 1)):
            mine[src] -= 1
            mine[dst] += 1
        for word, star in hops:
            point = _point(word)
            if star and point not in (OFF, BAR) and theirs[BAR - point] == 1:
                theirs[BAR - point] = 0
                theirs[BAR] += 1
    return _after(position, mine, theirs)


_PLAY_LINE = re.compile(
    r"^\s*\d+\.\s+Cube\w+\s+\d+-ply\s+(?P<play>\S.*?)\s+(?:Eq\.|MWC):\s+"
    r"(?P<value>[-+]?\d+\.\d+)(?P<percent>%?)"
)


def _ranked_by_hint(
    position: Position, match: MatchId, plays: dict[Position, Play]
) -> list[tuple[Play, float]]:
    """Every play from the ``hint`` command's list, best first, with gnubg's figure (money: per
    cube; match: the MWC in percent)."""
    _set_position(position, match, match.dice)
    ranked = []
    for line in run_command("hint 100000").splitlines():
        found = _PLAY_LINE.match(line)
        if found is None:
            continue
        after = _after_text(position, found["play"])
        play = plays.get(after)
        if play is None:
            raise BrainError(f"gnubg lists {found['play']!r}, not a legal play in {position.id}")
        ranked.append((play, float(found["value"])))
    return ranked


def _ranked_by_findbestmoves(
    position: Position, match: MatchId, plays: dict[Position, Play], ply: int, noise: float
) -> list[tuple[Play, float]] | None:
    """Every play by ``gnubg.findbestmoves``, best first, with its score (money: per cube;
    match: gnubg's normalised equity); None when a move tuple was cut at a bear-off."""
    gnubg = _gnubg
    entries = gnubg.findbestmoves(
        gnubg.positionfromid(position.id),
        cube_info(match),
        gnubg.evalcontext(1, ply, 1, 1, float(noise)),
        match.dice,
    )
    ranked = []
    for entry in entries:
        steps = tuple(entry["move"])
        if len(steps) % 2:
            return None  # cut at its first bear-off: this roll is ranked from the text instead
        play = plays.get(after_steps(position, steps))
        if play is None:
            raise BrainError(f"gnubg's move {steps} is not a legal play in {position.id}")
        ranked.append((play, float(entry["score"])))
    return ranked


def rank_plays(
    position_id: str, match_id: str, ply: int = 0, noise: float = 0.0
) -> list[RankedPlay]:
    """Every legal play of the roll in ``match_id`` (its dice), best first by gnubg at ``ply``
    and ``noise``, as (play, Position ID after it, equity of the side on roll). Empty when the
    roll can't be played. ValueError when the Match ID has no dice."""
    position = Position.from_id(position_id)
    match = MatchId.decode(match_id)
    if match.dice == (0, 0):
        raise ValueError(f"the Match ID {match_id} has no dice: there is no roll to play")
    legal = position.legal_plays(*match.dice)
    if not legal:
        return []
    plays = {play.position: play for play in legal}
    _use(ply, noise)
    ranked = _ranked_by_findbestmoves(position, match, plays, ply, noise)
    percent = False
    if ranked is None:
        ranked = _ranked_by_hint(position, match, plays)
        percent = True
    if len(ranked) != len(plays) or {play.position for play, _ in ranked} != set(plays):
        raise BrainError(
            f"gnubg ranked {len(ranked)} plays of {len(plays)} in {position.id} "
            f"with {match.dice[0]}-{match.dice[1]}"
        )
    convert = _equity_from_percent if percent else _equity_from_score
    return [(str(play), play.position.id, convert(value, match)) for play, value in ranked]


def _equity_from_score(score: float, match: MatchId) -> float:
    """A findbestmoves score as our equity: points (money), ``2 * MWC - 1`` (match)."""
    if not match.match_length:
        return score * match.cube_value
    mwc: float = _gnubg.eq2mwc(score, cube_info(match))
    return 2.0 * mwc - 1.0


def _equity_from_percent(value: float, match: MatchId) -> float:
    """A printed figure as our equity: money per cube, or a match-winning chance in percent."""
    if not match.match_length:
        return value * match.cube_value
    return value / 50.0 - 1.0


# -- the cube ----------------------------------------------------------------------------------

_CUBE_LINE = re.compile(
    r"^\d\.\s+(?P<what>(?:No r|No d|R|D)(?:edouble|ouble)(?:, (?:take|pass|beaver))?)\s+"
    r"(?P<value>[-+]?\d+\.\d+)%?"
)
_ROW = re.compile(r"^\s*(?:static|\d+ ply):\s+(?P<numbers>.*)$")


def _cube_equities(text: str, match: MatchId) -> tuple[float, float, float] | None:
    """(no double, double/take, double/pass) from a printed cube analysis, or None."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        cube = _CUBE_LINE.match(line.strip())
        if cube is not None:
            what = cube["what"].lower().replace("redouble", "double")
            found[what] = _equity_from_percent(float(cube["value"]), match)
    try:
        return found["no double"], found["double, take"], found["double, pass"]
    except KeyError:
        return None


def may_double(match: MatchId) -> bool:
    """Whether the side on roll may double, and doubling means something: not the opponent's
    cube, not the Crawford game, and not a dead cube (in match play, a win at the cube's
    value already gives it the match: gnubg then prints no cube analysis)."""
    on_roll = match.player_on_roll
    if match.cube_owner not in (-1, on_roll):
        return False
    if not match.match_length:
        return True
    away = match.match_length - match.score[on_roll]
    return not match.crawford and match.cube_value < away


def cube_decision(
    position_id: str, match_id: str, ply: int = 0, noise: float = 0.0
) -> CubeDecision:
    """The cube decision of the side on roll before it rolls (the dice in ``match_id`` are
    ignored): its equities if it rolls, doubles and is taken, doubles and is passed.
    CannotDoubleError when the rules don't let it double, or the cube is dead for it."""
    position = Position.from_id(position_id)
    match = MatchId.decode(match_id)
    if not may_double(match):
        raise CannotDoubleError(f"the side on roll may not double here (Match ID {match_id})")
    _use(ply, noise)
    _set_position(position, match, (0, 0))
    text = run_command("hint")
    equities = _cube_equities(text, match)
    if equities is None:
        raise BrainError(f"gnubg gave no cube analysis for {position_id}: {text.strip()[-200:]}")
    return CubeDecision.classify(*equities)


def take_decision(
    position_id: str, match_id: str, ply: int = 0, noise: float = 0.0
) -> TakeDecision:
    """The answer to a double. ``position_id`` and ``match_id`` are the doubler's, the doubler
    on roll (a Match ID with the double offered is read the same way); the equities are the
    taker's."""
    return cube_decision(position_id, match_id, ply, noise).answer


def position_equity(position_id: str, match_id: str, ply: int = 0, noise: float = 0.0) -> float:
    """The equity of the side on roll, cubeful: after its roll (the dice in ``match_id``) the
    best play's; before it, the position's with the right cube decision."""
    position = Position.from_id(position_id)
    match = MatchId.decode(match_id)
    if match.dice != (0, 0):
        ranked = rank_plays(position_id, match_id, ply, noise)
        if ranked:
            return ranked[0][2]
        return -position_equity(position.flip().id, _passed(match), ply, noise)
    _use(ply, noise)
    _set_position(position, match, (0, 0))
    text = run_command("eval")
    cube = _cube_equities(text, match)
    if cube is not None:
        no_double, take, cash = cube
        return max(no_double, min(take, cash))
    rows = [row["numbers"].split() for line in text.splitlines() if (row := _ROW.match(line))]
    if not rows:
        raise BrainError(f"gnubg gave no evaluation of {position_id}: {text.strip()[-200:]}")
    return _equity_from_percent(float(rows[-1][-1].rstrip("%")), match)


def _passed(match: MatchId) -> str:
    """The Match ID after a roll that can't be played: the opponent on roll, no dice."""
    other = 1 - match.player_on_roll
    return MatchId(
        cube_value=match.cube_value,
        cube_owner=match.cube_owner,
        player_on_roll=other,
        match_length=match.match_length,
        score=match.score,
        crawford=match.crawford,
        turn=other,
        jacoby=match.jacoby,
    ).encode()


def resign_decision(
    position_id: str, match_id: str, ply: int = 0, noise: float = 0.0
) -> tuple[bool, float, float]:
    """Whether the player deciding in ``match_id`` (its ``turn``) accepts the resignation it
    holds (``resign_level`` 1, 2 or 3: a single game, a gammon, a backgammon, times the cube):
    (accept, what accepting is worth, what playing on is worth), both equities of the decider.
    It accepts when the resignation gives at least what playing on is worth."""
    match = MatchId.decode(match_id)
    if not 1 <= match.resign_level <= 3:
        raise ValueError(f"the Match ID {match_id} holds no resignation")
    decider = match.turn
    on_roll = position_equity(position_id, match_id, ply, noise)
    play_on = on_roll if decider == match.player_on_roll else -on_roll
    level = match.resign_level
    if not match.match_length and match.jacoby and match.cube_owner == -1:
        level = 1  # the Jacoby rule: a gammon counts single while the cube is centred
    points = level * match.cube_value
    if not match.match_length:
        value = float(points)
    else:
        info = _gnubg.cubeinfo(
            points, -1, decider, match.match_length, match.score, int(match.crawford), 0
        )
        value = 2.0 * _gnubg.eq2mwc(1.0, info) - 1.0  # the MWC after winning `points`
    return value >= play_on - SURE, value, play_on  # a decided game: equal, but for rounding


SURE = 1e-6
"""A chance within this of 0 or 1 is taken as certain: in a race gnubg's bear-off databases
and race net answer exactly 0 where nothing can change the result."""


def has_contact(position: Position) -> bool:
    """Whether a checker of either side still has to pass one of the other's."""
    mine = max(point for point in range(1, BAR + 1) if position.mine[point] or point == 1)
    theirs = max(point for point in range(1, BAR + 1) if position.theirs[point] or point == 1)
    return mine + theirs > BAR


def sure_loss(position: Position, probabilities: tuple[float, ...]) -> int:
    """The resignation level (1 single, 2 gammon, 3 backgammon) the side on roll is sure to
    lose at, from gnubg's cubeless ``(win, win gammon, win backgammon, lose gammon, lose
    backgammon)``; 0 when it may still win, or when how much it loses is not certain. A side
    that has borne a checker off can't lose a gammon, whatever a net says."""
    win, lose_gammon, lose_backgammon = probabilities[0], probabilities[3], probabilities[4]
    if win > SURE:
        return 0
    if position.mine[OFF] or lose_gammon <= SURE:
        return 1
    if lose_gammon < 1.0 - SURE:
        return 0
    if lose_backgammon <= SURE:
        return 2
    return 3 if lose_backgammon >= 1.0 - SURE else 0


def resign_offer(position_id: str, match_id: str, ply: int = 0, noise: float = 0.0) -> int:
    """The resignation level the side on roll is sure to lose at (:func:`sure_loss`), judged
    only in a race (no contact), by gnubg's cubeless evaluation; 0 when the game is not
    decided. ``match_id``, ``ply`` and ``noise`` are not used: a decided race is the same at
    every level (they keep the worker's backgammon call shape)."""
    position = Position.from_id(position_id)
    if has_contact(position):
        return 0
    gnubg = gnubg_module()
    probabilities = gnubg.evaluate(
        gnubg.positionfromid(position.id), gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 0, 1, 0.0)
    )
    return sure_loss(position, tuple(probabilities))
