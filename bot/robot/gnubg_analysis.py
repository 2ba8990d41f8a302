"""A backgammon game analysed by GNU Backgammon's own ``analyse game``: run only inside the
robot's worker (main thread; gnubg's state is process-global, see :mod:`bot.robot.gnubg_brain`).

The match goes to gnubg as our ``.mat`` export; gnubg imports it, analyses the game asked for at
the ply asked for (checker play and cube; luck at gnubg's default 0-ply) and saves it as SGF,
whose analysis this module reads back (``gnubg.match()`` leaves the analysis out). Each SGF
record is paired, in order, with our own replay of the actions, and checked against it: same
kind, same dice, the played move leading to the same position. So every figure is gnubg's, in
our notation and on our action indices.

What gnubg's SGF says (sgf.c), and how gnubg's statistics count it (analysis.c):

- a move ``;W[..]`` (seat 0) or ``;B[..]`` (seat 1): the dice, then the move as letters per
  checker step, ``a``.. from the mover's ace point (seat 1 counts down from ``x``), ``y`` the bar,
  ``z`` off. ``A[i][move E ver 3 p1..p5 score ply..]...`` lists the candidates, best first, the
  played one at index ``i``; ``score`` is the cubeful equity, normalised (EMG) in match play.
  Its loss is ``score[0] - score[i]``; it counts as a decision when there are two candidates or
  more (gnubg's "unforced"). ``LU[x]`` is the roll's luck in EMG.
- ``DA[E ver 3 ply.. o0[7] o1[7]]`` on a move is the cube decision before that roll (present only
  when the mover could double): o0 no double, o1 double/take, each 5 probabilities, cubeless
  equity and the cubeful one (a match-winning chance in match play). In EMG: ND and DT are those
  converted by gnubg's ``mwc2eq`` (money: as they are), DP is 1. Optimal = max(ND, min(DT, DP)).
  A no double costs optimal - ND and counts only when close: optimal - min(DT, 1) < 0.16.
- ``;W[double]`` / ``[take]`` / ``[drop]`` carry the doubler's DA and always count: a double costs
  optimal - min(DT, DP), a take DT - DP, a pass DP - DT (each when > 0).

Resignations are judged here, not from the SGF (a ``.mat`` file carries only an accepted
resignation, as the game's result): playing on is gnubg's cubeful equity of the position at the
same ply (:func:`bot.robot.gnubg_brain.position_equity`; at an opening roll, an even game), the
resignation the match-winning chance after its points (gnubg's ``eq2mwc``), both in the
resigner's EMG (money: per cube), and each offer and answer is judged as
:class:`engines.analysis.Resignation` says.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.robot import gnubg_brain
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
from engines.backgammon import BAR, OFF, Play, Position
from engines.base import MatchRules
from engines.exports import mat_export
from engines.gnubg import GameState, MatchId, match_id_of
from engines.match import NO_MOVE, DiceMatch
from engines.puzzles import Option, cube_options, take_options
from engines.spec import BACKGAMMON

__all__ = ["AnalysisError", "GnubgEvaluator", "analyse_backgammon_game", "backgammon_options"]

CLOSE_CUBE = 0.16
"""gnubg's ``isCloseCubedecision``: a cube decision counts when doubling costs less than this."""


class AnalysisError(RuntimeError):
    """gnubg could not analyse the game, or its record of it differs from ours."""


@dataclass(frozen=True, slots=True)
class _Turn:
    """One of our decisions to pair with a gnubg record."""

    kind: str  # "move", "double", "take", "drop" or "resign"
    player: int
    action_index: int
    position: Position  # seen from the side on roll (the doubler during a cube offer)
    match: MatchId  # the side on roll, cube before any double in play
    roll_index: int | None = None  # a move's roll action (None: the opening roll)
    dice: tuple[int, int] = (0, 0)
    play: Play | None = None  # None: the roll could not be played
    live: bool = True  # False for a recorded double on a dead cube, and its answer
    stake: int = 0  # a resignation's points (its level times the cube, after Jacoby)
    resigned: str = ""  # a resignation in words ("resign gammon")
    answer: tuple[int, bool] | None = None  # a resignation's answer: its action, accepted


def _our_turns(rules: MatchRules, actions: Sequence[Action], game: int) -> list[_Turn]:
    """Our replay of game ``game``: every move (with its roll), double, take, pass and
    resignation (with its answer)."""
    match = new_match("backgammon", rules, recorded=True)
    if not isinstance(match, DiceMatch):
        raise TypeError("a backgammon match is a DiceMatch")
    turns: list[_Turn] = []
    roll_index: int | None = None
    offer: MatchId | None = None  # the doubler's Match ID, for the answer
    offer_live = True  # whether that double could change anything (the dead-cube ruling)
    for index, action in enumerate(actions):
        number = match.game_number
        if number > game:
            break
        if number < game:
            match.apply(action)
            continue
        before = Position.from_id(match.position_id)
        state = MatchId.decode(match_id_of(match))
        rolled = match.dice
        live = not isinstance(action, Double) or match.can_double(state.player_on_roll)
        parsed = match.parse_move(action.move) if isinstance(action, Move) else None
        result = match.apply(action)
        seat = state.player_on_roll
        if isinstance(action, Roll):
            roll_index = index
            if result.turn_forfeited:
                dice = (action.dice[0], action.dice[1])
                turns.append(_Turn("move", seat, index, before, state, index, dice))
        elif isinstance(action, OpeningRoll):
            roll_index = None
        elif isinstance(action, Move) and rolled is not None:
            play = parsed if isinstance(parsed, Play) else None
            dice = (rolled[0], rolled[1])
            turns.append(_Turn("move", seat, index, before, state, roll_index, dice, play))
        elif isinstance(action, Double):
            offer, offer_live = state, live
            turns.append(_Turn("double", seat, index, before, state, live=live))
        elif isinstance(action, Take | Drop) and offer is not None:
            kind = "take" if isinstance(action, Take) else "drop"
            answerer = 1 - offer.player_on_roll
            turns.append(_Turn(kind, answerer, index, before, offer, live=offer_live))
        elif isinstance(action, Resign):
            resigner = action.player if action.player is not None else seat
            words = resign_words(match.spec.resign_level_name(action.level))
            stake = match.stake(action.level)
            turns.append(
                _Turn("resign", resigner, index, before, state, stake=stake, resigned=words)
            )
        elif isinstance(action, AcceptResign | DeclineResign) and turns[-1:]:
            last = turns[-1]
            if last.kind == "resign" and last.answer is None:
                answer = (index, isinstance(action, AcceptResign))
                turns[-1] = dataclasses.replace(last, answer=answer)
    return turns


def _resignations(game: int, turns: list[_Turn], ply: int) -> list[Decision]:
    """Each resignation of the game and its answer, judged by gnubg at ``ply``."""
    judged = Resignations()
    for turn in turns:
        if turn.kind != "resign":
            continue
        value = _resignation_value(turn, ply)
        match_id = turn.match.encode()
        offer = Resignation(
            game,
            turn.action_index,
            turn.player,
            turn.resigned,
            value,
            turn.position.id,
            turn.match.dice if turn.match.dice != (0, 0) else (),
            match_id,
        )
        judged.offered(offer)
        if turn.answer is not None:
            judged.answered(*turn.answer)
    judged.close()
    return judged.decisions


def _resignation_value(turn: _Turn, ply: int) -> ResignationValue:
    """A resignation against playing on, in the resigner's EMG (money: per cube)."""
    match, seat = turn.match, turn.player
    gnubg = gnubg_brain.gnubg_module()
    if match.game_state is GameState.NONE:  # at an opening roll: an even game
        on_roll = 0.0 if not match.match_length else _even_game(match)
    else:
        on_roll = gnubg_brain.position_equity(turn.position.id, match.encode(), ply)
    play_on = on_roll if seat == match.player_on_roll else -on_roll
    if not match.match_length:
        cube = match.cube_value
        lost = 0.0 if seat == 0 else 1.0
        return ResignationValue(
            play_on / cube, -turn.stake / cube, _seat0((1 + play_on / cube) / 2, seat), lost
        )
    length, score, crawford = match.match_length, match.score, int(match.crawford)
    mine = gnubg.cubeinfo(match.cube_value, match.cube_owner, seat, length, score, crawford, 0)
    theirs = gnubg.cubeinfo(turn.stake, -1, 1 - seat, length, score, crawford, 0)
    play_mwc = (1 + play_on) / 2
    resigned_mwc = 1 - float(gnubg.eq2mwc(1.0, theirs))  # the opponent wins the stake
    return ResignationValue(
        float(gnubg.mwc2eq(play_mwc, mine)),
        float(gnubg.mwc2eq(resigned_mwc, mine)),
        _seat0(play_mwc, seat),
        _seat0(resigned_mwc, seat),
    )


def _even_game(match: MatchId) -> float:
    """The side on roll's ``2 * MWC - 1`` in an even game at this score and cube."""
    info = gnubg_brain.cube_info(match)
    return 2.0 * float(gnubg_brain.gnubg_module().eq2mwc(0.0, info)) - 1.0


def _seat0(chance: float, seat: int) -> float:
    """Seat 0's chance from ``seat``'s, within 0..1."""
    return min(1.0, max(0.0, chance if seat == 0 else 1.0 - chance))


# -- gnubg -------------------------------------------------------------------------------------


def _gnubg_sgf(mat: str, game: int, ply: int) -> str:
    """gnubg's analysis of game ``game`` of the match in ``mat``, as the SGF it saves."""
    if not (isinstance(ply, int) and 0 <= ply <= 4):
        raise ValueError(f"ply is 0 to 4, not {ply!r}")
    gnubg_brain.gnubg_module()
    with tempfile.TemporaryDirectory(prefix="tablebot-analysis-") as folder:
        mat_path = os.path.join(folder, "match.mat")
        sgf_path = os.path.join(folder, "game.sgf")
        with open(mat_path, "w", encoding="utf-8") as out:
            out.write(mat)
        commands = [
            f"set analysis chequerplay evaluation plies {ply}",
            f"set analysis cubedecision evaluation plies {ply}",
            f'import mat "{mat_path}"',
            "first game",
            *["next game"] * (game - 1),
            "analyse game",
            f'save game "{sgf_path}"',
        ]
        said = [gnubg_brain.run_command(command) for command in commands]
        if not os.path.exists(sgf_path):
            told = " ".join(" ".join(said).split())[-300:]
            raise AnalysisError(f"gnubg could not analyse game {game}: {told}")
        with open(sgf_path, encoding="utf-8") as sgf:
            text = sgf.read()
    found = re.search(r"MI\[length:\d+\]\[game:(\d+)\]", text)
    if found is None or int(found[1]) != game - 1:
        raise AnalysisError(
            f"gnubg has no game {game} in this match (it saved {found and found[0]})"
        )
    return text


_PROPERTY = re.compile(r"([A-Z]+)((?:\[(?:\\.|[^\]\\])*\])+)")
_VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]")


def _nodes(sgf: str) -> list[dict[str, list[str]]]:
    """The game's records after its header, each as {property: values}."""
    nodes = []
    for chunk in re.split(r"\n;", sgf)[1:]:
        node: dict[str, list[str]] = {}
        for key, values in _PROPERTY.findall(chunk):
            node[key] = _VALUE.findall(values)
        if "W" in node or "B" in node:
            nodes.append(node)
    return nodes


def _steps(letters: str, player: int) -> tuple[int, ...]:
    """A gnubg SGF move as our (from, to, ...) points: 1..24 from the mover's side, 25 the
    bar, 0 off."""
    points = []
    for letter in letters:
        if letter == "y":
            points.append(BAR)
        elif letter == "z":
            points.append(OFF)
        else:
            index = ord("x") - ord(letter) if player else ord(letter) - ord("a")
            if not 0 <= index <= 23:
                raise AnalysisError(f"gnubg wrote a move this module can't read: {letters!r}")
            points.append(index + 1)
    return tuple(points)


@dataclass(frozen=True, slots=True)
class _Candidate:
    letters: str
    probabilities: tuple[float, ...]
    score: float


def _candidates(values: list[str]) -> tuple[int, list[_Candidate]]:
    """``A[i][move E ver 3 p1..p5 score ...]...``: the played index and the candidates."""
    played = int(values[0])
    found = []
    for value in values[1:]:
        words = value.split()
        if len(words) < 10 or words[1] != "E":
            raise AnalysisError(f"gnubg's move analysis is not an evaluation: {value[:60]!r}")
        numbers = tuple(float(w) for w in words[4:10])
        found.append(_Candidate(words[0], numbers[:5], numbers[5]))
    if not 0 <= played < len(found):
        raise AnalysisError(f"gnubg's played move {played} is not among its {len(found)}")
    return played, found


@dataclass(frozen=True, slots=True)
class _Cube:
    """A cube analysis for the side on roll, in normalised equity (EMG), with the win chances
    after no double and after double/take (match: the MWC; money: the game's)."""

    no_double: float
    take: float
    win_no_double: float
    win_take: float
    may_double: bool

    @property
    def optimal(self) -> float:
        if not self.may_double:
            return self.no_double
        return max(self.no_double, min(self.take, 1.0))

    @property
    def close(self) -> bool:
        return self.optimal - min(self.take, 1.0) < CLOSE_CUBE


def _cube(values: list[str], info: dict[str, Any], match: MatchId) -> _Cube:
    words = values[0].split()
    if len(words) < 21 or words[0] != "E":
        raise AnalysisError(f"gnubg's cube analysis is not an evaluation: {values[0][:60]!r}")
    numbers = [float(w) for w in words[7:21]]
    no_double, take = numbers[6], numbers[13]
    if match.match_length:
        gnubg = gnubg_brain.gnubg_module()
        return _Cube(
            gnubg.mwc2eq(no_double, info),
            gnubg.mwc2eq(take, info),
            no_double,
            take,
            gnubg_brain.may_double(match),
        )
    return _Cube(no_double, take, numbers[0], numbers[7], gnubg_brain.may_double(match))


# -- pairing -----------------------------------------------------------------------------------


class _Pairing:
    """Walks gnubg's records beside our turns and makes the decisions."""

    def __init__(self, game: int, turns: list[_Turn]) -> None:
        self.game = game
        self.turns = turns
        self.decisions: list[Decision] = []
        self.win = 0.5  # seat 0's chance so far, kept where a record gives none

    def seat0(self, player: int, chance: float) -> float:
        self.win = chance if player == 0 else 1.0 - chance
        return self.win

    def add(self, turn: _Turn, node: dict[str, list[str]], what: str) -> None:
        info = gnubg_brain.cube_info(turn.match)
        if what in ("double", "take", "drop"):
            self.cube_answer(turn, node, what, info)
        else:
            self.move(turn, node, what, info)

    def cube_answer(
        self, turn: _Turn, node: dict[str, list[str]], what: str, info: dict[str, Any]
    ) -> None:
        doubler = turn.match.player_on_roll
        played = {"double": "double", "take": "take", "drop": "pass"}[what]
        # gnubg leaves the cube analysis out, or the log holds a double on a dead cube (made
        # before the dead-cube ruling; gnubg can't judge it): not a decision.
        if "DA" not in node or not turn.live:
            self.decisions.append(
                self.decision(
                    turn,
                    DecisionKind.CUBE if what == "double" else DecisionKind.TAKE,
                    played,
                    played,
                    0.0,
                    True,
                    None,
                    self.win,
                )
            )
            return
        cube = _cube(node["DA"], info, turn.match)
        if what == "double":
            loss = max(0.0, cube.optimal - min(cube.take, 1.0))
            best = "double" if loss <= 0 else "no double"
            chance = self.seat0(doubler, cube.win_take)
            kind = DecisionKind.CUBE
        else:
            loss = max(0.0, cube.take - 1.0) if what == "take" else max(0.0, 1.0 - cube.take)
            best = "take" if cube.take <= 1.0 else "pass"
            if what == "take":
                chance = self.seat0(doubler, cube.win_take)
            else:
                cashed = _cash_chance(info, turn.match)
                chance = self.seat0(doubler, cashed)
            kind = DecisionKind.TAKE
        self.decisions.append(self.decision(turn, kind, played, best, loss, False, None, chance))

    def move(
        self, turn: _Turn, node: dict[str, list[str]], letters: str, info: dict[str, Any]
    ) -> None:
        player = turn.player
        if "DA" in node and turn.roll_index is not None:
            cube = _cube(node["DA"], info, turn.match)
            loss = max(0.0, cube.optimal - cube.no_double)
            chance = self.seat0(player, cube.win_no_double)
            self.decisions.append(
                Decision(
                    self.game,
                    turn.roll_index,
                    player,
                    DecisionKind.CUBE,
                    "no double",
                    "double" if loss > 0 else "no double",
                    loss,
                    not cube.close,
                    None,
                    chance,
                    turn.position.id,
                    match_id=dataclasses.replace(turn.match, dice=(0, 0)).encode(),
                )
            )
        luck = float(node["LU"][0]) if "LU" in node else None
        if "A" not in node:  # no legal play (or an unanalysed one): nothing to judge
            played = NO_MOVE if turn.play is None else str(turn.play)
            self.decisions.append(
                self.decision(turn, DecisionKind.MOVE, played, played, 0.0, True, luck, self.win)
            )
            return
        if turn.play is None:
            raise AnalysisError(f"gnubg has a play where we have none (action {turn.action_index})")
        index, candidates = _candidates(node["A"])
        position = turn.position
        mine = candidates[index]
        if gnubg_brain.after_steps(position, _steps(mine.letters, player)) != turn.play.position:
            raise AnalysisError(
                f"gnubg's record of action {turn.action_index} is another play than "
                f"{turn.play} ({mine.letters!r})"
            )
        best = turn.play
        if index != 0:
            plays = {play.position: play for play in position.legal_plays(*turn.dice)}
            after = gnubg_brain.after_steps(position, _steps(candidates[0].letters, player))
            if after not in plays:
                raise AnalysisError(f"gnubg's best play at action {turn.action_index} is not legal")
            best = plays[after]
        loss = candidates[0].score - mine.score
        if turn.match.match_length:
            chance = float(gnubg_brain.gnubg_module().eq2mwc(mine.score, info))
        else:
            chance = mine.probabilities[0]
        self.decisions.append(
            self.decision(
                turn,
                DecisionKind.MOVE,
                str(turn.play),
                str(best),
                loss,
                len(candidates) <= 1,
                luck,
                self.seat0(player, chance),
            )
        )

    def decision(
        self,
        turn: _Turn,
        kind: DecisionKind,
        played: str,
        best: str,
        loss: float,
        forced: bool,
        luck: float | None,
        chance: float,
    ) -> Decision:
        return Decision(
            self.game,
            turn.action_index,
            turn.player,
            kind,
            played,
            best,
            max(0.0, loss),
            forced,
            luck,
            min(1.0, max(0.0, chance)),
            turn.position.id,
            turn.dice if kind is DecisionKind.MOVE else (),
            _shown_match_id(turn, kind),
        )


def _shown_match_id(turn: _Turn, kind: DecisionKind) -> str:
    """The Match ID of the board the decision was made on: a move's with its dice, a take's
    with the double offered (``turn.match`` is the doubler's before it)."""
    if kind is DecisionKind.MOVE:
        return dataclasses.replace(turn.match, dice=turn.dice).encode()
    if kind is DecisionKind.TAKE:
        doubled = 1 - turn.match.player_on_roll
        return dataclasses.replace(turn.match, double_offered=True, turn=doubled).encode()
    return turn.match.encode()


def _cash_chance(info: dict[str, Any], match: MatchId) -> float:
    """The doubler's chance after the double is passed: a match's MWC, money's certainty."""
    if not match.match_length:
        return 1.0
    return float(gnubg_brain.gnubg_module().eq2mwc(1.0, info))


def _record_kind(node: dict[str, list[str]]) -> tuple[int, str]:
    player = 0 if "W" in node else 1
    value = (node.get("W") or node.get("B") or [""])[0]
    return player, value


class GnubgEvaluator:
    """Backgammon's :class:`~engines.analysis.GameEvaluator`: gnubg's ``analyse game`` at
    ``ply`` plies (0 to 4). Run it in the analysis worker (main thread)."""

    details: dict[str, object]

    def __init__(self, ply: int) -> None:
        self.ply = ply
        self.details = {"evaluator": "GNU Backgammon", "ply": ply}

    def analyse_game(
        self, rules: MatchRules, actions: Sequence[Action], names: tuple[str, str], game: int
    ) -> list[Decision]:
        return analyse_backgammon_game(rules, actions, names, game, self.ply)


def analyse_backgammon_game(
    rules: MatchRules,
    actions: Sequence[Action],
    names: tuple[str, str],
    game: int,
    ply: int,
) -> list[Decision]:
    """Game ``game`` (from 1) of the backgammon match as gnubg's ``analyse game`` judges it at
    ``ply`` (0 to 4), every decision in playing order. Run it in the robot's worker (main thread).
    AnalysisError when gnubg can't read or analyse the game, or its record differs from ours."""
    everything = _our_turns(rules, actions, game)
    turns = [turn for turn in everything if turn.kind != "resign"]
    if not turns and everything:  # resigned at an opening roll: nothing for gnubg to read
        return _resignations(game, everything, ply)
    if not turns:
        raise AnalysisError(f"the match has no game {game} with a move in it")
    mat = mat_export(BACKGAMMON.kind, rules, actions, names, 0, "2000.01.01")
    pairing = _Pairing(game, turns)
    nodes = _nodes(_gnubg_sgf(mat, game, ply))
    if len(nodes) != len(turns):
        raise AnalysisError(
            f"gnubg read {len(nodes)} records in game {game}, we have {len(turns)} decisions"
        )
    for turn, node in zip(turns, nodes, strict=True):
        player, value = _record_kind(node)
        what = value if value in ("double", "take", "drop") else "move"
        if what != turn.kind or player != turn.player:
            raise AnalysisError(
                f"gnubg's record {value!r} by seat {player} differs from our {turn.kind} by "
                f"seat {turn.player} (action {turn.action_index})"
            )
        if what == "move":
            if value[:2] != f"{turn.dice[0]}{turn.dice[1]}" and value[:2] != (
                f"{turn.dice[1]}{turn.dice[0]}"
            ):
                raise AnalysisError(f"gnubg's roll {value[:2]} differs from ours {turn.dice}")
            value = value[2:]
        pairing.add(turn, node, value if what == "move" else what)
    resigned = _resignations(game, everything, ply)
    return sorted(pairing.decisions + resigned, key=lambda d: d.action_index)


def backgammon_options(
    rules: MatchRules,
    actions: Sequence[Action],
    action_index: int,
    kind: DecisionKind,
    ply: int,
) -> list[Option]:
    """Every option of the decision at action ``action_index`` (a decision of
    :func:`analyse_backgammon_game`) with gnubg's equity at ``ply`` for the decider: each
    legal play of the roll (gnubg's ranking), the cube's two choices before the roll, or take
    and pass. In match play the equities are ``2 * MWC - 1``."""
    match = replay("backgammon", rules, actions[:action_index])
    if not isinstance(match, DiceMatch):
        raise TypeError("a backgammon match is a DiceMatch")
    position_id, match_id = match.position_id, match_id_of(match)
    if kind is DecisionKind.MOVE:
        ranked = gnubg_brain.rank_plays(position_id, match_id, ply)
        return [Option(play, equity) for play, _, equity in ranked]
    if kind is DecisionKind.CUBE:
        cube = gnubg_brain.cube_decision(position_id, match_id, ply)
        return cube_options(cube.no_double, cube.double_take, cube.double_pass)
    answer = gnubg_brain.take_decision(position_id, match_id, ply)
    return take_options(answer.take_equity, answer.pass_equity)
