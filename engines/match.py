"""A dice match (Nannon or backgammon): games, the opening roll, cube, resignations and score.

:class:`DiceMatch` is driven only by :mod:`engines.actions` values. :meth:`DiceMatch.apply`
either applies an action completely or raises a :class:`~engines.errors.GameError` and changes
nothing, so the list of applied actions (``match.actions``) replays the match exactly.

>>> from engines.actions import Double, Move, OpeningRoll, Roll, Take
>>> from engines.nannon import VARIANT
>>> m = DiceMatch(VARIANT, MatchRules(length=3))
>>> m.phase, m.actor
(<Phase.OPENING: 'opening'>, None)
>>> m.apply(OpeningRoll(None, (2, 5))).opening_dice  # seat 1 wins and plays 5 - 2 = 3
(2, 5)
>>> m.turn, m.dice, [m.format_move(mv) for mv in m.legal_moves()]
(1, (3,), ['H/3', '1/4'])
>>> m.apply(Move(1, "h/3")).action
Move(player=1, move='H/3')
>>> m.phase, m.turn, m.position_id
(<Phase.ROLL: 'roll'>, 0, '012-123')
>>> _ = m.apply(Double(0)); _ = m.apply(Take(1))
>>> m.cube, m.can_double(0), m.can_double(1)
(Cube(value=2, owner=1), False, False)
>>> m.apply(Roll(0, (4,))).turn_forfeited  # 4, 5 and 6 are a prime: the turn passes
True
>>> m.phase, m.turn, m.position_id
(<Phase.ROLL: 'roll'>, 1, '123-012')
>>> DiceMatch.replay(VARIANT, m.rules, m.actions).snapshot() == m.snapshot()
True

With ``auto_pass`` off, a roll that can't be played waits for its player, whose only legal
move is :data:`NO_MOVE`; playing it passes the turn just as the rule does.

>>> m = DiceMatch(VARIANT, MatchRules(length=3, auto_pass=False))
>>> _ = m.apply(OpeningRoll(None, (2, 5))); _ = m.apply(Move(1, "H/3"))
>>> m.apply(Roll(0, (4,))).turn_forfeited
False
>>> m.phase, m.turn, m.dice, [m.format_move(mv) for mv in m.legal_moves()]
(<Phase.MOVE: 'move'>, 0, (4,), ['no move'])
>>> m.apply(Move(0, "No Move")).turn_forfeited
True
>>> m.phase, m.turn, m.position_id, m.actions[-1]
(<Phase.ROLL: 'roll'>, 1, '123-012', Move(player=0, move='no move'))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engines.actions import (
    AcceptDraw,
    AcceptResign,
    Action,
    ConcedeMatch,
    DeclineDraw,
    DeclineResign,
    Double,
    Drop,
    Move,
    OfferDraw,
    OpeningRoll,
    Resign,
    Roll,
    Take,
    action_from_dict,
)
from engines.base import (
    ActionResult,
    DiceVariant,
    GameKind,
    GameResult,
    MatchRules,
    Phase,
    ResignLevel,
    ResultKind,
)
from engines.cube import Cube
from engines.errors import (
    AmbiguousMoveError,
    CubeError,
    CubeErrorReason,
    GameError,
    IllegalMoveError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)
from engines.legal_moves import LegalMoves
from engines.spec import GameSpec, spec_of

# The notation of passing a roll that can't be played (``auto_pass`` off). Accepted in any case
# and spacing; a word, not a symbol, so that it reads plainly in the move menu and in /move.
NO_MOVE = "no move"

_SEATS = (0, 1)
# Phases in which a resignation may be offered.
_RESIGN_PHASES = (Phase.OPENING, Phase.OPENING_TIE, Phase.ROLL, Phase.MOVE)


@dataclass(frozen=True)
class NoMove:
    """The one legal "move" of a roll that can't be played: it passes the turn."""

    def __str__(self) -> str:
        return NO_MOVE

    hits = 0  # it hits nothing


def is_no_move(text: object) -> bool:
    """True when ``text`` spells :data:`NO_MOVE` (any case and spacing).

    >>> is_no_move("  No   MOVE "), is_no_move("nomove"), is_no_move("no-move")
    (True, True, False)
    """
    return isinstance(text, str) and "".join(text.split()).lower() == "nomove"


def validate_rules(kind: GameKind, rules: MatchRules) -> None:
    """Refuse options that make no sense together; GameError (CubeError for cube options).

    >>> validate_rules(GameKind.NANNON, MatchRules(length=0))
    Traceback (most recent call last):
    engines.errors.GameError: Money play (match length 0) is for backgammon only.
    >>> validate_rules(GameKind.BACKGAMMON, MatchRules(length=5, jacoby=True))
    Traceback (most recent call last):
    engines.errors.CubeError: The Jacoby rule is for money play only, not a 5-point match.
    """
    if not spec_of(kind).has_dice:
        raise GameError(
            f"A dice match plays Nannon or backgammon, not {kind}.",
            code="dice_match_kind",
            kind=kind,
        )
    if type(rules.length) is not int or rules.length < 0:
        raise GameError(
            f"A match length is 0 (money) or more points, not {rules.length!r}.",
            code="match_length",
            length=rules.length,
        )
    if rules.length == 0 and not spec_of(kind).money_play:
        raise GameError(
            "Money play (match length 0) is for backgammon only.", code="money_not_backgammon"
        )
    if type(rules.auto_doubles) is not int or rules.auto_doubles < 0:
        raise GameError(
            f"Automatic doubles are a count >= 0, not {rules.auto_doubles!r}.",
            code="auto_doubles_count",
            auto_doubles=rules.auto_doubles,
        )
    if rules.length > 0:
        if rules.jacoby:
            raise CubeError(
                CubeErrorReason.MONEY_ONLY,
                f"The Jacoby rule is for money play only, not a {rules.length}-point match.",
                code="jacoby_money_only",
                length=rules.length,
            )
        if rules.auto_doubles:
            raise CubeError(
                CubeErrorReason.MONEY_ONLY,
                f"Automatic doubles are for money play only, not a {rules.length}-point match.",
                code="auto_doubles_money_only",
                length=rules.length,
            )
    if not rules.cube and (rules.jacoby or rules.auto_doubles):
        raise CubeError(
            CubeErrorReason.NO_CUBE,
            "Jacoby and automatic doubles need the doubling cube.",
            code="cube_only_options",
        )


class DiceMatch:
    """A Nannon or backgammon match (or a backgammon money game): see the module doc.

    It implements every member of :class:`~engines.base.GameMatch`; these are plain
    attributes here: ``position`` (seen from :attr:`turn`), ``dice`` (the roll to play, or
    None), ``cube``, ``cube_offered_by``, ``crawford_game``, ``post_crawford``,
    ``resign_offer`` (seat, level), ``opening_dice`` (this game's latest opening roll: seat 0's
    die, seat 1's) and ``last_move`` (seat, move). ``spec`` is the variant's game's spec.
    """

    def __init__(self, variant: DiceVariant, rules: MatchRules, *, recorded: bool = False) -> None:
        validate_rules(variant.kind, rules)
        # A replayed log is held to the rules it was played under: a double on a dead cube
        # was accepted before the dead-cube ruling, and old logs hold some.
        self.recorded = recorded
        self.variant = variant
        self.kind: GameKind = variant.kind
        self.spec: GameSpec = spec_of(variant.kind)  # the game's traits
        self.rules = rules
        self.actions: list[Action] = []
        self._games: list[GameResult] = []
        self._score: tuple[int, int] = (0, 0)
        self._game_number = 1
        self.crawford_game = False
        self.post_crawford = False
        self._start_game()

    def _start_game(self) -> None:
        self._phase = Phase.OPENING
        self._turn = 0
        self.position: Any = self.variant.initial()
        self.dice: tuple[int, ...] | None = None
        self.cube = Cube()
        self.cube_offered_by: int | None = None
        self.resign_offer: tuple[int, ResignLevel] | None = None
        self._resume_phase: Phase | None = None  # where an answered offer returns to
        self.opening_dice: tuple[int, int] | None = None
        self.last_move: tuple[int, Any] | None = None
        self._last_move_from: tuple[str, tuple[int, ...]] | None = None  # (position id, dice)
        self._auto_doubles = 0

    # -- the GameMatch protocol -------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int:
        """The seat on turn; ``position`` is seen from this seat (seat 0 before the opening)."""
        return self._turn

    @property
    def actor(self) -> int | None:
        if self._phase in (Phase.ROLL, Phase.MOVE):
            return self._turn
        if self._phase is Phase.CUBE_OFFERED and self.cube_offered_by is not None:
            return 1 - self.cube_offered_by
        if self._phase is Phase.RESIGN_OFFERED and self.resign_offer is not None:
            return 1 - self.resign_offer[0]
        return None  # an opening roll (either seat), or the match is over

    @property
    def score(self) -> tuple[float, float]:
        return self._score

    @property
    def game_number(self) -> int:
        return self._game_number

    @property
    def games(self) -> tuple[GameResult, ...]:
        return tuple(self._games)

    @property
    def position_id(self) -> str:
        return self.variant.position_id(self.position)

    def legal_moves(self) -> LegalMoves[Any]:
        """The plays of the current roll; ``(NoMove(),)`` for a roll that can't be played.

        Generated when first read, from this moment's position and roll.
        """
        variant = self.variant

        def format_move(move: Any) -> str:
            return NO_MOVE if isinstance(move, NoMove) else variant.format_move(move)

        if self._phase is not Phase.MOVE or self.dice is None:
            return LegalMoves((), format_move)
        position, dice = self.position, self.dice

        def generate() -> tuple[Any, ...]:
            # (NoMove(),) only with auto_pass off: otherwise such a roll passes the turn at once.
            return variant.legal_moves(position, dice) or (NoMove(),)

        return LegalMoves(generate, format_move)

    def parse_move(self, text: str) -> Any:
        if self._phase is not Phase.MOVE or self.dice is None:
            raise PhaseError(
                f"There is no roll to play now, so {text!r} can't be a move.",
                code="no_roll_to_play",
                text=text,
            )
        if is_no_move(text):
            if self.variant.legal_moves(self.position, self.dice):
                raise IllegalMoveError(
                    f"{NO_MOVE!r} is only for a roll that can't be played: pick a move "
                    f"{self._where()}",
                    code="no_move_not_stuck",
                    NO_MOVE=NO_MOVE,
                    **self._where_params(),
                )
            return NoMove()
        try:
            return self.variant.parse_move(text, self.position, self.dice)
        except (InvalidNotationError, IllegalMoveError, AmbiguousMoveError):
            # Generating the moves again only on this error path keeps parsing cheap.
            if not isinstance(text, str) or self.variant.legal_moves(self.position, self.dice):
                raise
        raise IllegalMoveError(
            f"{text[:40]!r}: no move is legal with this roll; "
            f"play {NO_MOVE!r} to pass the turn {self._where()}",
            code="must_pass",
            text=text[:40],
            NO_MOVE=NO_MOVE,
            **self._where_params(),
        )

    def _where(self) -> str:
        return "(position {position_id}, roll {roll})".format_map(self._where_params())

    def _where_params(self) -> dict[str, str]:
        """The position and the roll an error names (its code's parameters)."""
        return {"position_id": self.position_id, "roll": "-".join(map(str, self.dice or ()))}

    def format_move(self, move: Any) -> str:
        if isinstance(move, NoMove):
            return NO_MOVE
        return self.variant.format_move(move)

    def is_over(self) -> bool:
        return self._phase is Phase.MATCH_OVER

    def winner(self) -> int | None:
        if self._phase is not Phase.MATCH_OVER or not self._games:
            return None
        return self._games[-1].winner

    def can_double(self, seat: int) -> bool:
        """True when ``Double(seat)`` would be accepted now: the one cube predicate that the
        buttons, the prompts, the robot, the hints and the analysis ask."""
        return self._double_refusal(seat, ruling=True) is None

    def _may_double(self, seat: int) -> bool:
        """Whether this match accepts ``Double(seat)``: :meth:`can_double`, except that a
        recorded log may hold a double on a dead cube."""
        return self._double_refusal(seat, ruling=not self.recorded) is None

    def cube_dead(self, seat: int) -> bool:
        """True in match play when a win at the cube's value already takes the match for
        ``seat`` (a 1-point match, double match point, a side 1 away): its double could change
        nothing, so the rules refuse it (the dead-cube ruling, docs/rules.md).

        >>> from engines import new_match
        >>> from engines.base import MatchRules
        >>> new_match("backgammon", MatchRules(length=1)).cube_dead(0)
        True
        >>> new_match("backgammon", MatchRules(length=3)).cube_dead(0)
        False
        """
        length = self.rules.length
        return length > 0 and self._score[seat] + self.cube.value >= length

    @property
    def draw_offered_by(self) -> None:
        """Always None: the dice games have no draw offers."""
        return None

    def colours(self) -> tuple[str, str]:
        """Seat 0's and seat 1's colours: the same every game (``spec.colours``)."""
        return self.spec.seat_colours(self._game_number)

    # -- applying actions --------------------------------------------------------------------

    def apply(self, action: Action) -> ActionResult:
        """Apply one action, or raise a GameError and change nothing."""
        handler = self._HANDLERS.get(type(action))
        if handler is None:
            raise PhaseError(
                f"{action!r} is not an action in a {self.kind} match.",
                code="not_an_action",
                action=action,
                kind=self.kind,
            )
        saved = dict(self.__dict__)
        try:
            result: ActionResult = handler(self, action)
        except BaseException:
            # Handlers check before they change anything; this restores the state even if a
            # variant raises halfway.
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        self.actions.append(result.action)
        return result

    def _opening_roll(self, action: OpeningRoll) -> ActionResult:
        if action.player not in (None, *_SEATS):
            raise NotYourTurnError(
                f"{action.player!r} is not a seat of this match.",
                code="not_a_seat",
                player=action.player,
            )
        self._refuse_during_offers()
        if self._phase not in (Phase.OPENING, Phase.OPENING_TIE):
            raise PhaseError(
                f"The opening roll of game {self._game_number} is done; "
                f"it is {self._phase_hint()}.",
                code="opening_done",
                game_number=self._game_number,
                **self._phase_params(),
            )
        d0, d1 = self._checked_dice(action.dice, 2, "opening roll")
        self.opening_dice = (d0, d1)
        if d0 == d1:
            self._phase = Phase.OPENING
            if self.kind is GameKind.NANNON:
                # Nannon ruling: on a tie either player may turn the (still centred) cube;
                # stay in OPENING when nobody may (cube off, Crawford game).
                self._phase = Phase.OPENING_TIE
                if not (self._may_double(0) or self._may_double(1)):
                    self._phase = Phase.OPENING
            elif self._auto_doubles < self.rules.auto_doubles and self.cube.centred:
                self.cube = self.cube.auto_doubled()
                self._auto_doubles += 1
            return ActionResult(OpeningRoll(action.player, (d0, d1)), opening_dice=(d0, d1))
        winner = 0 if d0 > d1 else 1
        self._turn = winner
        self.position = self.variant.initial()
        self.dice = self.variant.opening_dice(max(d0, d1), min(d0, d1))
        self._phase = Phase.MOVE
        forfeited = self._forfeit_if_stuck()
        return ActionResult(
            OpeningRoll(action.player, (d0, d1)),
            opening_dice=(d0, d1),
            turn_forfeited=forfeited,
        )

    def _roll(self, action: Roll) -> ActionResult:
        seat = self._seat(action)
        self._refuse_during_offers()
        if self._phase in (Phase.OPENING, Phase.OPENING_TIE):
            raise PhaseError(
                "This game starts with an opening roll: each player rolls one die.",
                code="opening_roll_first",
            )
        self._check_turn(seat)
        if self._phase is Phase.MOVE:
            raise PhaseError(
                f"You rolled already: pick a move (position {self.position_id}).",
                code="already_rolled",
                position_id=self.position_id,
            )
        dice = self._checked_dice(action.dice, self.variant.dice_count, "roll")
        self.dice = dice
        self._phase = Phase.MOVE
        forfeited = self._forfeit_if_stuck()
        return ActionResult(Roll(seat, dice), turn_forfeited=forfeited)

    def _forfeit_if_stuck(self) -> bool:
        """After a roll: with no legal move the turn passes by rule, unless the rules leave
        that to the player (``auto_pass`` off: they play ``no move``)."""
        assert self.dice is not None
        if not self.rules.auto_pass or self.variant.legal_moves(self.position, self.dice):
            return False
        self._pass_turn()
        return True

    def _pass_turn(self) -> None:
        self.position = self.variant.pass_turn(self.position)
        self._turn = 1 - self._turn
        self.dice = None
        self._phase = Phase.ROLL

    def _move(self, action: Move) -> ActionResult:
        seat = self._seat(action)
        self._refuse_during_offers()
        if self._phase in (Phase.OPENING, Phase.OPENING_TIE):
            raise PhaseError(
                "This game starts with an opening roll: each player rolls one die.",
                code="opening_roll_first",
            )
        self._check_turn(seat)
        if self._phase is not Phase.MOVE or self.dice is None:
            raise PhaseError(
                f"Roll first, then move (position {self.position_id}).",
                code="roll_first",
                position_id=self.position_id,
            )
        move = self.parse_move(action.move)
        if isinstance(move, NoMove):
            # The same pass as auto_pass makes; last_move stays the last real move.
            self._pass_turn()
            return ActionResult(Move(seat, NO_MOVE), turn_forfeited=True)
        text = self.variant.format_move(move)
        before = (self.position_id, self.dice)
        after = self.variant.apply(self.position, move)
        outcome = self.variant.result(after)
        self.last_move = (seat, move)
        self._last_move_from = before
        self.position = after
        self._turn = 1 - seat
        self.dice = None
        self._phase = Phase.ROLL
        recorded = Move(seat, text)
        if outcome is None:
            return ActionResult(recorded)
        kind, multiplier = outcome
        return self._end_game(recorded, seat, kind, self.stake(multiplier))

    def _double(self, action: Double) -> ActionResult:
        seat = self._seat(action)
        refusal = self._double_refusal(seat, ruling=not self.recorded)
        if refusal is not None:
            raise refusal
        self._resume_phase = self._phase
        self.cube_offered_by = seat
        self._phase = Phase.CUBE_OFFERED
        return ActionResult(Double(seat))

    def _double_refusal(self, seat: int, *, ruling: bool) -> GameError | None:
        """Why ``seat`` may not double now, or None when it may; ``ruling`` False leaves out
        the dead-cube ruling (for recorded logs)."""
        phase = self._phase
        if phase is Phase.MATCH_OVER:
            return PhaseError("The match is over.", code="match_over")
        if phase is Phase.CUBE_OFFERED:
            return CubeError(
                CubeErrorReason.OFFER_PENDING,
                "A double is waiting for an answer.",
                code="double_waiting",
            )
        if phase is Phase.RESIGN_OFFERED:
            return PhaseError(
                "A resignation is waiting for an answer: accept or decline it.",
                code="resignation_waiting",
            )
        if not self.rules.cube:
            return CubeError(
                CubeErrorReason.NO_CUBE, "This match is played without the cube.", code="no_cube"
            )
        if self.crawford_game:
            return CubeError(
                CubeErrorReason.CRAWFORD, "Nobody may double in the Crawford game.", code="crawford"
            )
        if phase is Phase.OPENING:
            return PhaseError("Doubling comes after the opening roll.", code="double_after_opening")
        if phase is not Phase.OPENING_TIE and seat != self._turn:
            return CubeError(
                CubeErrorReason.NOT_YOUR_TURN,
                "Only the player on turn may double, before rolling.",
                code="double_on_turn",
            )
        if ruling and self.cube.may_double(seat) and self.cube_dead(seat):
            # Before "you rolled already": with a dead cube the service rolls for the player.
            return CubeError(
                CubeErrorReason.DEAD,
                "The cube is dead: a win at its value already takes you the match, so a double "
                "would change nothing.",
                code="dead_cube",
            )
        if phase is Phase.MOVE:
            return CubeError(
                CubeErrorReason.ALREADY_ROLLED,
                f"You rolled already: double before rolling (position {self.position_id}).",
                code="double_before_rolling",
                position_id=self.position_id,
            )
        if not self.cube.may_double(seat):
            return CubeError(
                CubeErrorReason.NOT_OWNER,
                "Your opponent owns the cube: only they may redouble.",
                code="opponent_owns_cube",
            )
        return None

    def _answer_double(self, seat: int) -> int:
        """Check that ``seat`` may take or pass now; return the doubler's seat."""
        if self._phase is Phase.MATCH_OVER:
            raise PhaseError("The match is over.", code="match_over")
        doubler = self.cube_offered_by
        if self._phase is not Phase.CUBE_OFFERED or doubler is None:
            raise CubeError(
                CubeErrorReason.NO_OFFER, "There is no double to answer.", code="no_double"
            )
        if seat == doubler:
            raise NotYourTurnError(
                "Your opponent must take or pass your double.", code="own_double"
            )
        return doubler

    def _take(self, action: Take) -> ActionResult:
        seat = self._seat(action)
        self._answer_double(seat)
        self.cube = self.cube.taken_by(seat)
        self.cube_offered_by = None
        self._phase = Phase.OPENING if self._resume_phase is Phase.OPENING_TIE else Phase.ROLL
        self._resume_phase = None
        return ActionResult(Take(seat))

    def _drop(self, action: Drop) -> ActionResult:
        seat = self._seat(action)
        doubler = self._answer_double(seat)
        # A pass loses the stake before the double: the cube has not been turned yet.
        return self._end_game(Drop(seat), doubler, ResultKind.DROP, self.cube.value)

    def _resign(self, action: Resign) -> ActionResult:
        seat = self._seat(action)
        self._refuse_during_offers()
        if self._phase not in _RESIGN_PHASES:
            raise PhaseError(
                f"You can't resign now: it is {self._phase_hint()}.",
                code="cannot_resign_now",
                **self._phase_params(),
            )
        level = action.level
        if level not in self.spec.resign_levels:
            names = ", ".join(self.spec.resign_level_name(lv) for lv in self.spec.resign_levels)
            shown = (  # the level's word, never an enum's repr
                ResignLevel(level).name.lower()
                if level in set(ResignLevel)
                else repr(int(level) if isinstance(level, int) else str(level)[:40])
            )
            raise IllegalMoveError(
                f"In {self.kind} you may resign {names}, not {shown}.",
                code="bad_resign_level",
                kind=self.kind,
                names=names,
                level=shown,
            )
        self._resume_phase = self._phase
        self.resign_offer = (seat, ResignLevel(level))
        self._phase = Phase.RESIGN_OFFERED
        return ActionResult(Resign(seat, ResignLevel(level)))

    def _answer_resign(self, seat: int) -> tuple[int, ResignLevel]:
        if self._phase in (Phase.MATCH_OVER, Phase.CUBE_OFFERED):
            self._refuse_during_offers()
        offer = self.resign_offer
        if self._phase is not Phase.RESIGN_OFFERED or offer is None:
            raise PhaseError("There is no resignation to answer.", code="no_resignation")
        if seat == offer[0]:
            raise NotYourTurnError(
                "Your opponent must accept or decline your resignation.", code="own_resignation"
            )
        return offer

    def _accept_resign(self, action: AcceptResign) -> ActionResult:
        seat = self._seat(action)
        _, level = self._answer_resign(seat)
        return self._end_game(AcceptResign(seat), seat, ResultKind.RESIGN, self.stake(level))

    def _decline_resign(self, action: DeclineResign) -> ActionResult:
        seat = self._seat(action)
        self._answer_resign(seat)
        assert self._resume_phase is not None
        self._phase = self._resume_phase
        self._resume_phase = None
        self.resign_offer = None
        return ActionResult(DeclineResign(seat))

    def _concede(self, action: ConcedeMatch) -> ActionResult:
        # A match-level action: allowed even while an offer waits (a player may leave anytime).
        seat = self._seat(action)
        if self._phase is Phase.MATCH_OVER:
            raise PhaseError("The match is over.", code="match_over")
        winner = 1 - seat
        length = self.rules.length
        points = length - self._score[winner] if length else self.cube.value
        recorded = ConcedeMatch(seat, action.reason)
        return self._end_game(recorded, winner, ResultKind.FORFEIT, points, match_over=True)

    def _no_draws(self, action: Action) -> ActionResult:
        raise PhaseError(
            f"There are no draw offers in {self.kind}.", code="no_draw_offers", kind=self.kind
        )

    # -- helpers -------------------------------------------------------------------------------

    def stake(self, multiplier: int) -> int:
        """Points for a game won at ``multiplier`` (1, 2 or 3: a resignation's level) times the
        cube, after Jacoby."""
        if self.rules.jacoby and self.rules.length == 0 and self.cube.centred:
            # Jacoby: gammons count single unless the cube was turned, i.e. a double was taken
            # and someone owns it; automatic doubles leave it centred, so they don't count.
            multiplier = 1
        return int(multiplier) * self.cube.value

    def _end_game(
        self,
        recorded: Action,
        winner: int,
        kind: ResultKind,
        points: int,
        *,
        match_over: bool = False,
    ) -> ActionResult:
        result = GameResult(self._game_number, winner, kind, points, self.cube.value)
        self._games = [*self._games, result]  # a new list: apply() can restore the old one
        score = list(self._score)
        score[winner] += points
        self._score = (score[0], score[1])
        self.cube_offered_by = None
        self.resign_offer = None
        self._resume_phase = None
        self.dice = None
        length = self.rules.length
        if match_over or length == 0 or self._score[winner] >= length:
            self._phase = Phase.MATCH_OVER
            return ActionResult(recorded, game_result=result, match_over=True)
        self._game_number += 1
        if self.crawford_game:
            self.crawford_game, self.post_crawford = False, True
        elif self.rules.crawford and not self.post_crawford and max(self._score) == length - 1:
            self.crawford_game = True  # a player first reached N-1: nobody doubles next game
        self._start_game()
        return ActionResult(recorded, game_result=result)

    def _seat(self, action: Action) -> int:
        if action.player not in _SEATS:
            raise NotYourTurnError(
                f"{action.player!r} is not a seat of this match.",
                code="not_a_seat",
                player=action.player,
            )
        assert action.player is not None
        return action.player

    def _check_turn(self, seat: int) -> None:
        if seat != self._turn:
            raise NotYourTurnError(
                "It's not your turn: wait for your opponent to play.", code="not_your_turn"
            )

    def _refuse_during_offers(self) -> None:
        if self._phase is Phase.MATCH_OVER:
            raise PhaseError("The match is over.", code="match_over")
        if self._phase is Phase.CUBE_OFFERED:
            # Ruling: an offered double must be answered before anything else happens.
            raise CubeError(
                CubeErrorReason.OFFER_PENDING,
                "A double is waiting for an answer: take or pass first.",
                code="double_waiting_answer",
            )
        if self._phase is Phase.RESIGN_OFFERED:
            raise PhaseError(
                "A resignation is waiting for an answer: accept or decline it first.",
                code="resignation_waiting_first",
            )

    def _phase_params(self) -> dict[str, str | int]:
        """The phase an error names (the adapter words it as ``engine.phase.<phase>``)."""
        return {"phase": self._phase.value, "seat": self._turn}

    def _phase_hint(self) -> str:
        return {
            Phase.OPENING: "time for the opening roll",
            Phase.OPENING_TIE: "time to roll the opening again (or double)",
            Phase.ROLL: f"seat {self._turn}'s turn to roll",
            Phase.MOVE: f"seat {self._turn}'s turn to move",
            Phase.CUBE_OFFERED: "time to answer a double",
            Phase.RESIGN_OFFERED: "time to answer a resignation",
            Phase.DRAW_OFFERED: "time to answer a draw offer",
            Phase.MATCH_OVER: "the end of the match",
        }[self._phase]

    def _checked_dice(self, dice: Any, count: int, what: str) -> tuple[int, ...]:
        if (
            not isinstance(dice, tuple | list)
            or len(dice) != count
            or any(type(d) is not int or not 1 <= d <= 6 for d in dice)
        ):
            shown = "-".join(str(d) for d in dice) if isinstance(dice, tuple | list) else str(dice)
            raise GameError(
                f"A {what} is {count} {'die' if count == 1 else 'dice'} from 1 to 6, "
                f"not {shown[:40]!r}.",
                code="bad_dice",
                what=what,
                count=count,
                dice=shown[:40],
            )
        return tuple(dice)

    _HANDLERS: Mapping[type[Action], Any] = {
        OpeningRoll: _opening_roll,
        Roll: _roll,
        Move: _move,
        Double: _double,
        Take: _take,
        Drop: _drop,
        Resign: _resign,
        AcceptResign: _accept_resign,
        DeclineResign: _decline_resign,
        ConcedeMatch: _concede,
        OfferDraw: _no_draws,
        AcceptDraw: _no_draws,
        DeclineDraw: _no_draws,
    }

    # -- persistence ---------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The full current state as plain JSON data (no action list)."""
        last_move: dict[str, Any] | None = None
        if self.last_move is not None and self._last_move_from is not None:
            seat, move = self.last_move
            before, dice = self._last_move_from
            last_move = {
                "seat": seat,
                "move": self.variant.format_move(move),
                "position": before,
                "dice": list(dice),
            }
        offer = self.resign_offer
        return {
            "kind": self.kind.value,
            "rules": self.rules.to_dict(),
            "game_number": self._game_number,
            "score": list(self._score),
            "games": [g.to_dict() for g in self._games],
            "crawford_game": self.crawford_game,
            "post_crawford": self.post_crawford,
            "phase": self._phase.value,
            "turn": self._turn,
            "position": self.position_id,
            "dice": None if self.dice is None else list(self.dice),
            "cube": self.cube.to_dict(),
            "cube_offered_by": self.cube_offered_by,
            "resign_offer": None if offer is None else [offer[0], int(offer[1])],
            "resume_phase": None if self._resume_phase is None else self._resume_phase.value,
            "opening_dice": None if self.opening_dice is None else list(self.opening_dice),
            "auto_doubles": self._auto_doubles,
            "last_move": last_move,
        }

    @classmethod
    def from_snapshot(cls, variant: DiceVariant, data: Mapping[str, Any]) -> DiceMatch:
        """Rebuild a match from :meth:`snapshot` output (its ``actions`` list starts empty).

        Raises ValueError (a GameError for bad positions or moves) if the data is malformed.
        """
        try:
            if data["kind"] != variant.kind.value:
                raise ValueError(f"a {data['kind']!r} snapshot is not a {variant.kind} match")
            match = cls(variant, MatchRules.from_dict(data["rules"]))
            match._game_number = int(data["game_number"])
            a, b = data["score"]
            match._score = (int(a), int(b))
            match._games = [GameResult.from_dict(g) for g in data["games"]]
            match.crawford_game = bool(data["crawford_game"])
            match.post_crawford = bool(data["post_crawford"])
            match._phase = Phase(data["phase"])
            match._turn = int(data["turn"])
            match.position = variant.from_id(data["position"])
            dice = data["dice"]
            match.dice = None if dice is None else tuple(int(d) for d in dice)
            match.cube = Cube.from_dict(data["cube"])
            offered = data["cube_offered_by"]
            match.cube_offered_by = None if offered is None else int(offered)
            offer = data["resign_offer"]
            match.resign_offer = None if offer is None else (int(offer[0]), ResignLevel(offer[1]))
            resume = data["resume_phase"]
            match._resume_phase = None if resume is None else Phase(resume)
            opening = data["opening_dice"]
            match.opening_dice = None if opening is None else (int(opening[0]), int(opening[1]))
            match._auto_doubles = int(data["auto_doubles"])
            last = data["last_move"]
            if last is not None:
                before = variant.from_id(last["position"])
                last_dice = tuple(int(d) for d in last["dice"])
                move = variant.parse_move(last["move"], before, last_dice)
                match.last_move = (int(last["seat"]), move)
                match._last_move_from = (variant.position_id(before), last_dice)
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"malformed {variant.kind} match snapshot: {exc!r}") from exc
        if match._turn not in _SEATS:
            raise ValueError(f"malformed {variant.kind} match snapshot: turn {match._turn!r}")
        return match

    @classmethod
    def replay(
        cls,
        variant: DiceVariant,
        rules: MatchRules,
        actions: Iterable[Action | Mapping[str, Any]],
    ) -> DiceMatch:
        """A new match with ``actions`` (values, or their ``to_dict()`` form) applied in order."""
        match = cls(variant, rules, recorded=True)
        for action in actions:
            if not isinstance(action, Action):
                action = action_from_dict(dict(action))
            match.apply(action)
        return match

    def __repr__(self) -> str:
        a, b = self._score
        return (
            f"<DiceMatch {self.kind} to {self.rules.length}: game {self._game_number}, "
            f"score {a}-{b}, {self._phase.value}, position {self.position_id}>"
        )
