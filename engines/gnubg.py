"""GNU Backgammon Position IDs and Match IDs, bit-exact, so users can paste them into gnubg or XG.

A **Position ID** is 14 base64 characters over an 80-bit key: for the opponent of the player on
roll, then for the player on roll (gnubg's ``anBoard[0]`` then ``anBoard[1]``, checked against
gnubg's own output), each from its own ace point up to 24 and then the bar, as many 1 bits as
checkers there followed by a 0 bit; the bits fill each byte from its least significant bit.

>>> mine, theirs = decode_position_id("4HPwATDgc/ABMA")
>>> mine[6], mine[8], mine[13], mine[24], theirs == mine
(5, 3, 5, 2, True)
>>> encode_position_id(mine, theirs)
'4HPwATDgc/ABMA'

A **Match ID** is 12 base64 characters over a 67-bit key (cube, owner, dice owner, Crawford, game
state, turn, double, resignation, dice with the higher first, match length, both scores, and the
Jacoby flag stored inverted in bit 66):

>>> mid = MatchId.decode("QUnvAAAACAAE")
>>> mid.cube_value, mid.cube_owner, mid.player_on_roll, mid.match_length, mid.score
(2, 0, 1, 7, (0, 1))
>>> mid.resign_level, mid.dice, mid.encode()
(2, (6, 3), 'QUnvAAAACAAE')
"""

from __future__ import annotations

import base64
import binascii
import enum
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.errors import InvalidNotationError

if TYPE_CHECKING:
    from engines.match import DiceMatch

CHECKERS = 15
POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
_B64 = re.compile(r"[A-Za-z0-9+/]+")


def _show(text: str) -> str:
    """The input quoted for an error message, cut short so a hostile string stays readable."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


# --- Position ID ---------------------------------------------------------------------------------


def encode_position_id(mine: tuple[int, ...], theirs: tuple[int, ...]) -> str:
    """The Position ID of a board given in the engine's numbering (index 1..24 points, 25 bar,
    0 borne off; the side on roll first). Borne-off checkers are implied, so they are not encoded.
    """
    key = 0
    bit = 0
    for side in (theirs, mine):  # gnubg's board[0], the opponent, comes first
        for point in range(1, 26):  # the ace point up to 24, then the bar
            count = side[point]
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:POSITION_ID_LENGTH]


def decode_position_id(position_id: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two sides of a Position ID as (mine, theirs); InvalidNotationError if it is not one.

    Strict: the ID must be canonical base64, every side at most 15 checkers, no point held by
    both sides, and the unused high bits zero.

    >>> decode_position_id("gIMPgAGfgw+AgQ")
    Traceback (most recent call last):
    ...
    engines.errors.InvalidNotationError: 'gIMPgAGfgw+AgQ' is not a valid gnubg Position ID: \
it has stray bits after the last point
    """
    text = position_id.strip() if isinstance(position_id, str) else ""
    if len(text) != POSITION_ID_LENGTH or not _B64.fullmatch(text):
        raise InvalidNotationError(
            f"{_show(str(position_id))} is not a gnubg Position ID: "
            f"that is {POSITION_ID_LENGTH} characters of A-Z, a-z, 0-9, + and /",
            code="position_id_form",
            position_id=_show(str(position_id)),
            POSITION_ID_LENGTH=POSITION_ID_LENGTH,
        )
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except binascii.Error as exc:  # pragma: no cover - the pattern above already excludes this
        raise InvalidNotationError(
            f"{_show(text)} is not a gnubg Position ID", code="not_a_position_id", text=_show(text)
        ) from exc
    if base64.b64encode(raw).decode("ascii")[:POSITION_ID_LENGTH] != text:
        raise InvalidNotationError(
            f"{_show(text)} is not a valid gnubg Position ID: its last character is not canonical",
            code="position_id_not_canonical",
            text=_show(text),
        )
    key = int.from_bytes(raw, "little")
    sides: list[list[int]] = []
    bit = 0
    for _ in range(2):
        side = [0] * 26
        for point in range(1, 26):
            count = 0
            while key >> bit & 1:
                count += 1
                bit += 1
            bit += 1
            side[point] = count
        on_board = sum(side)
        if on_board > CHECKERS:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Position ID: "
                f"one side has {on_board} checkers, more than {CHECKERS}",
                code="position_id_too_many",
                text=_show(text),
                on_board=on_board,
                CHECKERS=CHECKERS,
            )
        side[0] = CHECKERS - on_board
        sides.append(side)
    if key >> bit:
        raise InvalidNotationError(
            f"{_show(text)} is not a valid gnubg Position ID: "
            "it has stray bits after the last point",
            code="position_id_stray_bits",
            text=_show(text),
        )
    theirs, mine = sides
    for point in range(1, 25):
        if mine[point] and theirs[25 - point]:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Position ID: "
                f"both sides have checkers on point {point}",
                code="position_id_both_on_point",
                text=_show(text),
                point=point,
            )
    if mine[0] == CHECKERS and theirs[0] == CHECKERS:
        raise InvalidNotationError(
            f"{_show(text)} is not a valid gnubg Position ID: both sides have borne off",
            code="position_id_both_off",
            text=_show(text),
        )
    return tuple(mine), tuple(theirs)


# --- Match ID ------------------------------------------------------------------------------------


class GameState(enum.IntEnum):
    """gnubg's game state field of the Match ID."""

    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# (name, width in bits), in key order from bit 0.
_MATCH_FIELDS = (
    ("cube_log", 4),
    ("cube_owner", 2),
    ("player_on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("double_offered", 1),
    ("resign_level", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),  # gnubg stores the Jacoby flag inverted
)
_MAX_15 = (1 << 15) - 1


@dataclass(frozen=True, slots=True)
class MatchId:
    """Every field of a gnubg Match ID, in gnubg's terms (players 0 and 1 are seats 0 and 1).

    ``cube_owner`` is -1 for a centred cube; ``player_on_roll`` is the player on roll or who
    rolled; ``turn`` is the player who must decide now (the doubled player while a double is
    offered, the resigner's opponent while a resignation is offered); ``match_length`` 0 is money
    play; ``dice`` is (0, 0) before the roll. As in gnubg, the ID stores the higher die first and
    no score for money play (a money session's score is not part of the ID), so those two are
    normalised by :meth:`encode`; ``jacoby`` is whether the Jacoby rule is in use.

    >>> MatchId.decode("cAkAAAAAAAAA")
    MatchId.decode('cAkAAAAAAAAA')
    >>> MatchId.decode("cAkAAAAAAAAA").jacoby  # bit 66 clear: Jacoby in use
    True
    >>> m = MatchId(cube_value=16, cube_owner=0, player_on_roll=0, match_length=25, score=(20, 19),
    ...             crawford=False, turn=0, double_offered=False, resign_level=0,
    ...             game_state=GameState.PLAYING, dice=(2, 1))
    >>> m.encode()
    'BAElA0ABmAAE'
    >>> MatchId.decode(m.encode()) == m
    True
    """

    cube_value: int = 1
    cube_owner: int = -1
    player_on_roll: int = 0
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    turn: int = 0
    double_offered: bool = False
    resign_level: int = 0
    game_state: GameState = GameState.PLAYING
    dice: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        value = self.cube_value
        if value < 1 or value & (value - 1) or value > 1 << 15:
            raise ValueError(f"cube value {value} is not a power of 2 from 1 to 32768")
        if self.cube_owner not in (-1, 0, 1):
            raise ValueError(f"cube owner {self.cube_owner} is not -1 (centred), 0 or 1")
        if self.player_on_roll not in (0, 1) or self.turn not in (0, 1):
            raise ValueError("player on roll and turn are 0 or 1")
        for number in (self.match_length, *self.score):
            if not 0 <= number <= _MAX_15:
                raise ValueError(f"match length and scores fit 15 bits, not {number}")
        if not 0 <= self.resign_level <= 3:
            raise ValueError(f"resignation level {self.resign_level} is not 0..3")
        d1, d2 = self.dice
        if not (d1 == d2 == 0 or (1 <= d1 <= 6 and 1 <= d2 <= 6)):
            raise ValueError(f"dice {self.dice} are not (0, 0) or two dice 1..6")
        object.__setattr__(self, "game_state", GameState(self.game_state))

    def __repr__(self) -> str:
        return f"MatchId.decode({self.encode()!r})"

    def encode(self) -> str:
        """The 12-character Match ID."""
        values = {
            "cube_log": self.cube_value.bit_length() - 1,
            "cube_owner": 3 if self.cube_owner == -1 else self.cube_owner,
            "player_on_roll": self.player_on_roll,
            "crawford": int(self.crawford),
            "game_state": int(self.game_state),
            "turn": self.turn,
            "double_offered": int(self.double_offered),
            "resign_level": self.resign_level,
            "die1": max(self.dice),
            "die2": min(self.dice),
            "match_length": self.match_length,
            "score0": self.score[0] if self.match_length else 0,
            "score1": self.score[1] if self.match_length else 0,
            "no_jacoby": int(not self.jacoby),
        }
        key = 0
        bit = 0
        for name, width in _MATCH_FIELDS:
            key |= values[name] << bit
            bit += width
        return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def decode(cls, match_id: str) -> MatchId:
        """Read a Match ID; InvalidNotationError if it is not a valid one.

        >>> MatchId.decode("cAkAAAAAAAAA").cube_owner
        -1
        >>> MatchId.decode("cAkA")
        Traceback (most recent call last):
        ...
        engines.errors.InvalidNotationError: 'cAkA' is not a gnubg Match ID: \
that is 12 characters of A-Z, a-z, 0-9, + and /
        """
        text = match_id.strip() if isinstance(match_id, str) else ""
        if len(text) != MATCH_ID_LENGTH or not _B64.fullmatch(text):
            raise InvalidNotationError(
                f"{_show(str(match_id))} is not a gnubg Match ID: "
                f"that is {MATCH_ID_LENGTH} characters of A-Z, a-z, 0-9, + and /",
                code="match_id_form",
                match_id=_show(str(match_id)),
                MATCH_ID_LENGTH=MATCH_ID_LENGTH,
            )
        key = int.from_bytes(base64.b64decode(text, validate=True), "little")
        values: dict[str, int] = {}
        bit = 0
        for name, width in _MATCH_FIELDS:
            values[name] = key >> bit & ((1 << width) - 1)
            bit += width
        if key >> bit:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: it has stray bits after the scores",
                code="match_id_stray_bits",
                text=_show(text),
            )
        if values["cube_owner"] == 2:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: cube owner bits 10 mean nothing",
                code="match_id_cube_owner",
                text=_show(text),
            )
        if values["game_state"] > GameState.DROPPED:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: "
                f"game state {values['game_state']} is not 0..4",
                code="match_id_game_state",
                text=_show(text),
                values_game_state=values["game_state"],
            )
        dice = (values["die1"], values["die2"])
        if not (dice == (0, 0) or (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6)):
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: dice {dice[0]}-{dice[1]}",
                code="match_id_dice",
                text=_show(text),
                dice_0=dice[0],
                dice_1=dice[1],
            )
        length, score = values["match_length"], (values["score0"], values["score1"])
        if length and max(score) > length:
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: "
                f"score {score[0]}-{score[1]} is past the match length {length}",
                code="match_id_score",
                text=_show(text),
                score_0=score[0],
                score_1=score[1],
                length=length,
            )
        if not length and (values["crawford"] or any(score)):
            raise InvalidNotationError(
                f"{_show(text)} is not a valid gnubg Match ID: "
                "a money game has no Crawford game and no score",
                code="match_id_money",
                text=_show(text),
            )
        owner = values["cube_owner"]
        return cls(
            cube_value=1 << values["cube_log"],
            cube_owner=-1 if owner == 3 else owner,
            player_on_roll=values["player_on_roll"],
            match_length=length,
            score=score,
            crawford=bool(values["crawford"]),
            turn=values["turn"],
            double_offered=bool(values["double_offered"]),
            resign_level=values["resign_level"],
            game_state=GameState(values["game_state"]),
            dice=dice,
            jacoby=not values["no_jacoby"],
        )


def match_id_of(match: DiceMatch) -> str:
    """The gnubg Match ID of a live backgammon :class:`~engines.match.DiceMatch` (gnubg player
    0 is seat 0). Before a game's opening roll the game state is "no game started"; once the match
    is over it tells how the last game ended."""
    # Imported here: engines.match may import the variants, which import this module.
    from engines.base import Phase, ResultKind

    phase = match.phase
    on_roll = match.turn
    decider = on_roll
    double_offered = match.cube_offered_by is not None
    if match.cube_offered_by is not None:
        decider = 1 - match.cube_offered_by
    resign_level = 0
    if match.resign_offer is not None:
        resigner, level = match.resign_offer
        resign_level = int(level)
        decider = 1 - resigner
    state = GameState.PLAYING
    if phase in (Phase.OPENING, Phase.OPENING_TIE):
        state = GameState.NONE
    elif phase is Phase.MATCH_OVER:
        state = GameState.OVER
        if match.games:
            last = match.games[-1].kind
            if last is ResultKind.RESIGN:
                state = GameState.RESIGNED
            elif last is ResultKind.DROP:
                state = GameState.DROPPED
    dice = tuple(match.dice) if match.dice else (0, 0)
    score0, score1 = match.score
    return MatchId(
        cube_value=match.cube.value,
        cube_owner=-1 if match.cube.owner is None else match.cube.owner,
        player_on_roll=on_roll,
        match_length=match.rules.length,
        score=(int(score0), int(score1)),
        crawford=match.crawford_game,
        turn=decider,
        double_offered=double_offered,
        resign_level=resign_level,
        game_state=state,
        dice=(dice[0], dice[1]),
        jacoby=match.rules.jacoby,
    ).encode()
