"""GameSpec: each game's traits, by kind and on its match objects."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engines import match_from_snapshot, new_match, replay, spec_of
from engines.backgammon import VARIANT as BACKGAMMON_VARIANT
from engines.base import GameKind, MatchRules, ResignLevel, ResultKind
from engines.checkers import CheckersMatch
from engines.cube import Cube
from engines.match import DiceMatch
from engines.nannon import VARIANT as NANNON_VARIANT
from engines.puzzles import PuzzleRule
from engines.spec import (
    BACKGAMMON,
    CHECKERS,
    NANNON,
    SPECS,
    Evaluator,
    ExportFormat,
    GameSpec,
    RatingSystem,
)

# Every trait of every game, written out: a change to one must change this table.
EXPECTED: dict[GameKind, dict[str, Any]] = {
    GameKind.NANNON: {
        "kind": GameKind.NANNON,
        "title": "Nannon",
        "dice_count": 1,
        "cube": True,
        "unturned_cube_face": 64,
        "resign_levels": (ResignLevel.SINGLE, ResignLevel.GAMMON),
        "resign_level_names": ("single", "a NANNON"),
        "resign_is_offer": True,
        "double_win_name": "NANNON",
        "draw_offers": False,
        "score_unit": "point",
        "money_play": False,
        "min_length": 1,
        "rating_system": RatingSystem.FIBS,
        "export_format": ExportFormat.MAT,
        "export_suffix": ".mat",
        "mat_variation": "Nannon",
        "result_counters": ((ResultKind.NANNON, "nannons"),),
        "resign_counters": ((ResignLevel.GAMMON, "nannons"),),
        "position_id_name": "Position",
        "pip_count": False,
        "gnubg_match_id": False,
        "colours": ("white", "black"),
        "colours_alternate": False,
        "auto_pass": True,
        "opening_roll": True,
        "opening_moves_by_difference": True,
        "move_examples": ("2/5", "H/3", "5/S"),
        "evaluator": Evaluator.EXACT_SOLVER,
        "analysis_pr": False,
        "puzzle_rule": PuzzleRule(min_loss=0.08, margin=0.04),
        "self_play_games": 40,
    },
    GameKind.BACKGAMMON: {
        "kind": GameKind.BACKGAMMON,
        "title": "Backgammon",
        "dice_count": 2,
        "cube": True,
        "unturned_cube_face": 1,
        "resign_levels": (ResignLevel.SINGLE, ResignLevel.GAMMON, ResignLevel.BACKGAMMON),
        "resign_level_names": ("single", "gammon", "backgammon"),
        "resign_is_offer": True,
        "double_win_name": "gammon",
        "draw_offers": False,
        "score_unit": "point",
        "money_play": True,
        "min_length": 0,
        "rating_system": RatingSystem.FIBS,
        "export_format": ExportFormat.MAT,
        "export_suffix": ".mat",
        "mat_variation": None,
        "result_counters": (
            (ResultKind.GAMMON, "gammons"),
            (ResultKind.BACKGAMMON, "backgammons"),
        ),
        "resign_counters": (
            (ResignLevel.GAMMON, "gammons"),
            (ResignLevel.BACKGAMMON, "backgammons"),
        ),
        "position_id_name": "Position ID",
        "pip_count": True,
        "gnubg_match_id": True,
        "colours": ("white", "black"),
        "colours_alternate": False,
        "auto_pass": True,
        "opening_roll": True,
        "opening_moves_by_difference": False,
        "move_examples": ("24/18 13/11", "bar/22", "6/off"),
        "evaluator": Evaluator.GNUBG,
        "analysis_pr": True,
        "puzzle_rule": PuzzleRule(min_loss=0.08, margin=0.04),
        "self_play_games": 4,
    },
    GameKind.CHECKERS: {
        "kind": GameKind.CHECKERS,
        "title": "Checkers",
        "dice_count": 0,
        "cube": False,
        "unturned_cube_face": None,
        "resign_levels": (ResignLevel.SINGLE,),
        "resign_level_names": ("single",),
        "resign_is_offer": False,
        "double_win_name": None,
        "draw_offers": True,
        "score_unit": "game",
        "money_play": False,
        "min_length": 1,
        "rating_system": RatingSystem.ELO,
        "export_format": ExportFormat.PDN,
        "export_suffix": ".pdn",
        "mat_variation": None,
        "result_counters": (),
        "resign_counters": (),
        "position_id_name": "FEN",
        "pip_count": False,
        "gnubg_match_id": False,
        "colours": ("black", "white"),
        "colours_alternate": True,
        "auto_pass": False,
        "opening_roll": False,
        "opening_moves_by_difference": False,
        "move_examples": ("11-15", "22x15"),
        "evaluator": Evaluator.SEARCH,
        "analysis_pr": False,
        "puzzle_rule": PuzzleRule(min_loss=0.10, margin=0.06),
        "self_play_games": 4,
    },
}
RULES = {
    GameKind.NANNON: MatchRules(length=3),
    GameKind.BACKGAMMON: MatchRules(length=3),
    GameKind.CHECKERS: MatchRules(length=2, cube=False, crawford=False),
}


@pytest.mark.parametrize("kind", list(GameKind))
def test_every_trait_of_every_game(kind: GameKind) -> None:
    spec = spec_of(kind)
    assert {f.name for f in dataclasses.fields(GameSpec)} == set(EXPECTED[kind])
    assert {name: getattr(spec, name) for name in EXPECTED[kind]} == EXPECTED[kind]


def test_lookup_by_kind_and_by_value() -> None:
    assert dict(SPECS) == {
        GameKind.NANNON: NANNON,
        GameKind.BACKGAMMON: BACKGAMMON,
        GameKind.CHECKERS: CHECKERS,
    }
    for kind, spec in SPECS.items():
        assert spec_of(kind) is spec and spec_of(kind.value) is spec and spec.kind is kind
    with pytest.raises(ValueError, match="unknown game kind 'chess'"):
        spec_of("chess")
    with pytest.raises(TypeError):
        SPECS[GameKind.NANNON] = CHECKERS  # type: ignore[index]


def test_a_spec_is_a_frozen_hashable_value() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        NANNON.title = "Nanon"  # type: ignore[misc]
    assert len({NANNON, BACKGAMMON, CHECKERS, spec_of("nannon")}) == 3
    assert dataclasses.replace(NANNON) == NANNON
    with pytest.raises(ValueError, match="resign_level_names"):
        dataclasses.replace(NANNON, resign_level_names=("single",))


def test_dice_and_cube_traits() -> None:
    assert (NANNON.has_dice, BACKGAMMON.has_dice, CHECKERS.has_dice) == (True, True, False)
    # Nannon shows a cube still at 1 as 64 (bot/presenter.py cube_text); backgammon as 1.
    assert NANNON.cube_face(Cube()) == 64 and BACKGAMMON.cube_face(Cube()) == 1
    # Turned or owned, a cube shows its value.
    assert NANNON.cube_face(Cube(1, 0)) == 1 and NANNON.cube_face(Cube(2)) == 2
    assert NANNON.cube_face(Cube(4, 1)) == BACKGAMMON.cube_face(Cube(4, 1)) == 4
    assert CHECKERS.cube_face(Cube()) == 1


def test_resignation_wording() -> None:
    assert [NANNON.resign_level_name(lv) for lv in NANNON.resign_levels] == ["single", "a NANNON"]
    assert BACKGAMMON.resign_level_name(ResignLevel.BACKGAMMON) == "backgammon"
    assert BACKGAMMON.resign_level_name(ResignLevel.GAMMON) == "gammon"
    assert CHECKERS.resign_level_name(ResignLevel.SINGLE) == "single"
    with pytest.raises(ValueError, match="Nannon has no resignation at level"):
        NANNON.resign_level_name(ResignLevel.BACKGAMMON)


def test_stats_counters() -> None:
    # bot/service.py _COUNTERS and _RESIGNED_COUNTERS, per game.
    assert BACKGAMMON.result_counter(ResultKind.GAMMON) == "gammons"
    assert BACKGAMMON.result_counter(ResultKind.BACKGAMMON) == "backgammons"
    assert NANNON.result_counter(ResultKind.NANNON) == "nannons"
    assert BACKGAMMON.resign_counter(ResignLevel.GAMMON) == "gammons"
    assert BACKGAMMON.resign_counter(ResignLevel.BACKGAMMON) == "backgammons"
    assert NANNON.resign_counter(ResignLevel.GAMMON) == "nannons"
    for spec in SPECS.values():
        for kind in (ResultKind.SINGLE, ResultKind.DROP, ResultKind.RESIGN, ResultKind.FORFEIT):
            assert spec.result_counter(kind) is None
        assert spec.resign_counter(ResignLevel.SINGLE) is None
    assert CHECKERS.result_counter(ResultKind.DRAW) is None


def test_rating_experience() -> None:
    # bot/service.py _rate: FIBS adds the match length, Elo 1; money games are not rated.
    assert NANNON.experience(5) == BACKGAMMON.experience(5) == 5
    assert CHECKERS.experience(5) == CHECKERS.experience(1) == 1
    assert BACKGAMMON.experience(0) == 0


def test_seat_colours_by_game() -> None:
    assert [CHECKERS.seat_colours(g) for g in (1, 2, 3)] == [
        ("black", "white"),
        ("white", "black"),
        ("black", "white"),
    ]
    for spec in (NANNON, BACKGAMMON):
        assert {spec.seat_colours(g) for g in range(1, 6)} == {("white", "black")}


@pytest.mark.parametrize("kind", list(GameKind))
def test_each_match_object_carries_its_spec(kind: GameKind) -> None:
    spec = spec_of(kind)
    match = new_match(kind, RULES[kind])
    assert match.spec is spec
    assert match_from_snapshot(match.snapshot()).spec is spec
    assert replay(kind, match.rules, []).spec is spec


def test_spec_is_a_class_level_trait_of_checkers() -> None:
    assert CheckersMatch.spec is CHECKERS
    assert CheckersMatch(MatchRules(length=1)).spec is CHECKERS
    assert DiceMatch(NANNON_VARIANT, MatchRules(length=1)).spec is NANNON
    assert DiceMatch(BACKGAMMON_VARIANT, MatchRules(length=0)).spec is BACKGAMMON


@pytest.mark.parametrize("variant", [NANNON_VARIANT, BACKGAMMON_VARIANT])
def test_the_dice_variants_use_their_spec(variant: Any) -> None:
    spec = spec_of(variant.kind)
    assert variant.resign_levels == spec.resign_levels
    assert variant.dice_count == spec.dice_count
    by_difference = variant.opening_dice(5, 2) == (3,)
    assert by_difference is spec.opening_moves_by_difference
    assert variant.opening_dice(5, 2) == ((3,) if by_difference else (5, 2))


def test_length_rules_follow_the_spec() -> None:
    for kind, spec in SPECS.items():
        rules = MatchRules(length=0, cube=spec.cube, crawford=spec.cube)
        if spec.money_play:
            assert new_match(kind, rules).rules.length == spec.min_length == 0
        else:
            with pytest.raises(ValueError):
                new_match(kind, rules)
            assert spec.min_length == 1
