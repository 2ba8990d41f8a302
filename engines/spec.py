"""What sets each game apart, as data: one frozen :class:`GameSpec` per :class:`GameKind`.

Other layers ask the spec instead of switching on the game kind, as python-chess variants carry
class-level traits (``board.uci_variant``, ``board.tbw_suffix``): ``spec_of(kind)`` or
``match.spec``.

>>> spec = spec_of("nannon")
>>> spec.title, spec.dice_count, spec.has_dice, spec.cube, spec.score_unit
('Nannon', 1, True, True, 'point')
>>> spec_of(GameKind.CHECKERS).resign_levels
(<ResignLevel.SINGLE: 1>,)
>>> spec.resign_level_name(ResignLevel.GAMMON), spec.result_counter(ResultKind.NANNON)
('a NANNON', 'nannons')
>>> spec.cube_face(Cube()), BACKGAMMON.cube_face(Cube()), spec.cube_face(Cube(2, 0))
(64, 1, 2)
>>> CHECKERS.seat_colours(2), BACKGAMMON.seat_colours(2)
(('white', 'black'), ('white', 'black'))
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engines.cube import Cube
from engines.puzzles import PuzzleRule
from engines.values import GameKind, ResignLevel, ResultKind

__all__ = [
    "BACKGAMMON",
    "CHECKERS",
    "NANNON",
    "SPECS",
    "Evaluator",
    "ExportFormat",
    "GameSpec",
    "RatingSystem",
    "spec_of",
]


DICE_PUZZLE_RULE = PuzzleRule(min_loss=0.08, margin=0.04)
"""A blunder (:data:`engines.analysis.BLUNDER`) whose best move leads by 0.04: the dice games'
puzzles."""


class RatingSystem(enum.StrEnum):
    """How a rated match changes its players' ratings."""

    FIBS = "fibs"  # the FIBS formula: match length matters, experience grows by the length
    ELO = "elo"  # plain Elo per match: a draw is half a win, experience grows by 1


class Evaluator(enum.StrEnum):
    """What judges a game's decisions in post-match analysis."""

    GNUBG = "gnubg"  # GNU Backgammon's own analysis (the robot's worker has the wheel)
    EXACT_SOLVER = "exact solver"  # engines.nannon_solver: every equity exact
    SEARCH = "search"  # engines.checkers_search at a fixed depth


class ExportFormat(enum.StrEnum):
    """The file a finished match is exported as (:mod:`engines.exports`)."""

    MAT = "mat"  # gnubg / JellyFish match file
    PDN = "pdn"  # Portable Draughts Notation


@dataclass(frozen=True, slots=True)
class GameSpec:
    """The traits of one game. Every field is plain data; the methods only look them up.

    Seats: seat 0 is the challenger, seat 1 the player who accepted (as everywhere).
    """

    kind: GameKind
    title: str
    """The game's name for people: "Nannon", "Backgammon", "Checkers"."""
    dice_count: int
    """Dice per roll: 1 (Nannon), 2 (backgammon), 0 (checkers: no dice)."""
    cube: bool
    """The game has a doubling cube (a match may still be played without it)."""
    unturned_cube_face: int | None
    """The number a centred cube still at 1 shows: Nannon's cube shows 64, backgammon's
    text shows 1; None without a cube. See :meth:`cube_face`."""
    resign_levels: tuple[ResignLevel, ...]
    """The levels a player may resign at (the variants' ``resign_levels`` are these)."""
    resign_level_names: tuple[str, ...]
    """How each of :attr:`resign_levels` is worded, in the same order (Nannon's GAMMON level
    is "a NANNON")."""
    resign_is_offer: bool
    """True: a resignation is an offer the opponent accepts or declines (dice games). False:
    it loses the game at once (checkers)."""
    double_win_name: str | None
    """The name of a double win: "NANNON" (Nannon), "gammon" (backgammon), None (checkers)."""
    draw_offers: bool
    """Players may offer and agree a draw (checkers)."""
    score_unit: str
    """What a match is scored and its length counted in: "point" or "game"."""
    money_play: bool
    """Match length 0 is allowed: a single money game (backgammon)."""
    min_length: int
    """The shortest match length allowed: 0 where :attr:`money_play`, else 1."""
    rating_system: RatingSystem
    export_format: ExportFormat
    export_suffix: str
    """The export file's suffix, dot included: ".mat" or ".pdn"."""
    mat_variation: str | None
    """The ``; [Variation "..."]`` header of a ``.mat`` export ("Nannon"), or None for standard
    backgammon, whose plays are written in JellyFish's plain style (bar 25, off 0)."""
    result_counters: tuple[tuple[ResultKind, str], ...]
    """The stats counter a game won with each result kind adds to (``<counter>_for`` /
    ``_against``): gammons, backgammons, nannons. See :meth:`result_counter`."""
    resign_counters: tuple[tuple[ResignLevel, str], ...]
    """The counter an accepted resignation at each level adds to. See :meth:`resign_counter`."""
    position_id_name: str
    """What the position's ID is called for people: "Position" (Nannon's ``012-012``),
    "Position ID" (gnubg's), "FEN" (PDN FEN)."""
    pip_count: bool
    """Positions have a pip count to show (backgammon)."""
    gnubg_match_id: bool
    """Matches have a gnubg Match ID (backgammon)."""
    colours: tuple[str, str]
    """Seat 0's and seat 1's colour names in game 1: dice games ("white", "black") always;
    checkers ("black", "white"), swapped every game (:attr:`colours_alternate`)."""
    colours_alternate: bool
    """The seats swap colours each game (checkers: Black moves first). See :meth:`seat_colours`."""
    auto_pass: bool
    """The ``auto_pass`` rule applies: a roll with no legal move may pass at once (dice games)."""
    opening_roll: bool
    """Each game starts with an opening roll of one die per player (dice games)."""
    opening_moves_by_difference: bool
    """The opening roll's winner moves the difference of the dice (Nannon: "moves first with a
    3"), not the two dice themselves (backgammon: "plays 6-5 first")."""
    move_examples: tuple[str, ...]
    """Moves written in the game's notation, for a help text: Nannon's ``2/5``, ``H/3``."""
    evaluator: Evaluator = Evaluator.SEARCH
    """What judges the decisions in post-match analysis (``bot.robot.analysis``)."""
    analysis_pr: bool = False
    """Post-match analysis gives a PR (500 x the average loss per decision), as gnubg and XG
    do for backgammon (:func:`engines.analysis.summarise`)."""
    puzzle_rule: PuzzleRule = DICE_PUZZLE_RULE
    """Which analysed decisions become puzzles (:func:`engines.puzzles.qualifies`): the move
    played lost at least ``min_loss`` and the best leads the second by ``margin``. Checkers asks
    for a clearer score (a third of a man lost, a sixth of one between the best two)."""
    self_play_games: int = 4
    """Robot self-play games a server's empty puzzle pool is seeded with: a Nannon game takes
    milliseconds, a checkers or backgammon game seconds of search and as much for its analysis."""

    def __post_init__(self) -> None:
        if len(self.resign_level_names) != len(self.resign_levels):
            raise ValueError("resign_level_names must name each of resign_levels")

    @property
    def has_dice(self) -> bool:
        """True for the dice games (Nannon, backgammon)."""
        return self.dice_count > 0

    def cube_face(self, cube: Cube) -> int:
        """The number to show for ``cube``: :attr:`unturned_cube_face` for a centred cube at 1,
        else its value."""
        if cube.value == 1 and cube.centred and self.unturned_cube_face is not None:
            return self.unturned_cube_face
        return cube.value

    def resign_level_name(self, level: ResignLevel) -> str:
        """How a resignation at ``level`` is worded ("single", "gammon", "a NANNON");
        ValueError for a level this game does not have."""
        if level not in self.resign_levels:
            raise ValueError(f"{self.title} has no resignation at level {level!r}")
        return self.resign_level_names[self.resign_levels.index(level)]

    def result_counter(self, kind: ResultKind) -> str | None:
        """The stats counter a game won by ``kind`` adds to, or None."""
        return dict(self.result_counters).get(kind)

    def resign_counter(self, level: ResignLevel) -> str | None:
        """The stats counter an accepted resignation at ``level`` adds to, or None."""
        return dict(self.resign_counters).get(level)

    def experience(self, length: int) -> int:
        """The experience a finished match of ``length`` adds to each player's rating: the
        length under FIBS, 1 under Elo; 0 for a money game (length 0), which is not rated."""
        if length <= 0:
            return 0
        return length if self.rating_system is RatingSystem.FIBS else 1

    def seat_colours(self, game_number: int) -> tuple[str, str]:
        """Seat 0's and seat 1's colours in game ``game_number`` (1-based)."""
        a, b = self.colours
        if self.colours_alternate and game_number % 2 == 0:
            return b, a
        return a, b


NANNON = GameSpec(
    kind=GameKind.NANNON,
    title="Nannon",
    dice_count=1,
    cube=True,
    unturned_cube_face=64,
    resign_levels=(ResignLevel.SINGLE, ResignLevel.GAMMON),
    resign_level_names=("single", "a NANNON"),
    resign_is_offer=True,
    double_win_name="NANNON",
    draw_offers=False,
    score_unit="point",
    money_play=False,
    min_length=1,
    rating_system=RatingSystem.FIBS,
    export_format=ExportFormat.MAT,
    export_suffix=".mat",
    mat_variation="Nannon",
    result_counters=((ResultKind.NANNON, "nannons"),),
    resign_counters=((ResignLevel.GAMMON, "nannons"),),
    position_id_name="Position",
    pip_count=False,
    gnubg_match_id=False,
    colours=("white", "black"),
    colours_alternate=False,
    auto_pass=True,
    opening_roll=True,
    opening_moves_by_difference=True,
    move_examples=("2/5", "H/3", "5/S"),
    evaluator=Evaluator.EXACT_SOLVER,
    self_play_games=40,
)

BACKGAMMON = GameSpec(
    kind=GameKind.BACKGAMMON,
    title="Backgammon",
    dice_count=2,
    cube=True,
    unturned_cube_face=1,
    resign_levels=(ResignLevel.SINGLE, ResignLevel.GAMMON, ResignLevel.BACKGAMMON),
    resign_level_names=("single", "gammon", "backgammon"),
    resign_is_offer=True,
    double_win_name="gammon",
    draw_offers=False,
    score_unit="point",
    money_play=True,
    min_length=0,
    rating_system=RatingSystem.FIBS,
    export_format=ExportFormat.MAT,
    export_suffix=".mat",
    mat_variation=None,
    result_counters=((ResultKind.GAMMON, "gammons"), (ResultKind.BACKGAMMON, "backgammons")),
    resign_counters=((ResignLevel.GAMMON, "gammons"), (ResignLevel.BACKGAMMON, "backgammons")),
    position_id_name="Position ID",
    pip_count=True,
    gnubg_match_id=True,
    colours=("white", "black"),
    colours_alternate=False,
    auto_pass=True,
    opening_roll=True,
    opening_moves_by_difference=False,
    move_examples=("24/18 13/11", "bar/22", "6/off"),
    evaluator=Evaluator.GNUBG,
    analysis_pr=True,
)

CHECKERS = GameSpec(
    kind=GameKind.CHECKERS,
    title="Checkers",
    dice_count=0,
    cube=False,
    unturned_cube_face=None,
    resign_levels=(ResignLevel.SINGLE,),
    resign_level_names=("single",),
    resign_is_offer=False,
    double_win_name=None,
    draw_offers=True,
    score_unit="game",
    money_play=False,
    min_length=1,
    rating_system=RatingSystem.ELO,
    export_format=ExportFormat.PDN,
    export_suffix=".pdn",
    mat_variation=None,
    result_counters=(),
    resign_counters=(),
    position_id_name="FEN",
    pip_count=False,
    gnubg_match_id=False,
    colours=("black", "white"),
    colours_alternate=True,
    auto_pass=False,
    opening_roll=False,
    opening_moves_by_difference=False,
    move_examples=("11-15", "22x15"),
    evaluator=Evaluator.SEARCH,
    puzzle_rule=PuzzleRule(min_loss=0.10, margin=0.06),
)

SPECS: Mapping[GameKind, GameSpec] = MappingProxyType(
    {spec.kind: spec for spec in (NANNON, BACKGAMMON, CHECKERS)}
)
"""Every game's spec, by kind (read-only)."""


def spec_of(kind: GameKind | str) -> GameSpec:
    """The spec of ``kind`` (a GameKind or its value); ValueError for an unknown game.

    >>> spec_of("backgammon") is BACKGAMMON
    True
    >>> spec_of("chess")
    Traceback (most recent call last):
    ValueError: unknown game kind 'chess'
    """
    try:
        return SPECS[GameKind(kind)]
    except ValueError:
        raise ValueError(f"unknown game kind {kind!r}") from None
