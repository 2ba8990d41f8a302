"""The Nannon engine: the state space, the reference vectors, notation and hostile input."""

from __future__ import annotations

import contextlib
from itertools import combinations_with_replacement
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import GameKind, ResignLevel, ResultKind
from engines.errors import GameError, IllegalMoveError, InvalidNotationError
from engines.nannon import VARIANT, Move, Outcome, Position, all_positions

DATA = Path(__file__).resolve().parents[1] / "data" / "nannon_moves.tsv"
ALL = all_positions()
ROLLS = range(1, 7)


def load_vectors() -> list[tuple[str, int, list[str]]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        rows.append((fields[0], int(fields[1]), fields[2].split() if len(fields) > 2 else []))
    return rows


# -- the state space ---------------------------------------------------------------------------


def test_state_space_has_the_published_2530_positions() -> None:
    assert len(ALL) == 2530
    assert len({p.id for p in ALL}) == 2530


def test_from_id_accepts_exactly_the_2530_positions() -> None:
    # Independent of all_positions(): try every sorted pair of triples and count what parses.
    triples = ["".join(map(str, t)) for t in combinations_with_replacement(range(8), 3)]
    parsed = set()
    for a in triples:
        for b in triples:
            with contextlib.suppress(InvalidNotationError):
                parsed.add(Position.from_id(f"{a}-{b}").id)
    assert parsed == {p.id for p in ALL}


def test_every_move_from_every_position_stays_in_the_space() -> None:
    ids = {p.id for p in ALL}
    for pos in ALL:
        for roll in ROLLS:
            for move in pos.legal_moves(roll):
                after = pos.apply(move)
                assert after.id in ids
                assert len(after.mine) == len(after.theirs) == 3  # checkers conserved
                # The mover's checkers are now `theirs`: exactly one of them changed place.
                assert sorted(after.theirs) != sorted(pos.mine)
                assert Position.from_id(after.id) == after


def test_every_reference_vector_matches() -> None:
    rows = load_vectors()
    assert len(rows) == 2400
    for pid, roll, expected in rows:
        pos = Position.from_id(pid)
        got = sorted(pos.apply(m).id for m in pos.legal_moves(roll))
        assert got == sorted(expected), (pid, roll)


def test_legal_moves_are_deduplicated_by_resulting_position() -> None:
    for pos in ALL:
        for roll in ROLLS:
            moves = pos.legal_moves(roll)
            results = [pos.apply(m) for m in moves]
            assert len(set(results)) == len(moves)


def test_two_checkers_at_home_give_one_move() -> None:
    pos = Position.from_id("002-012")
    assert pos.legal_moves(1) == (Move(0, 1, False), Move(2, 3, False))


def test_finished_positions_have_no_moves() -> None:
    for pid in ("012-777", "777-012", "777-777"):
        pos = Position.from_id(pid)
        assert pos.is_over()
        assert all(pos.legal_moves(r) == () for r in ROLLS)


def test_legal_moves_rejects_a_roll_outside_1_to_6() -> None:
    pos = Position.initial()
    for roll in (0, 7, -1):
        with pytest.raises(ValueError, match=r"1\.\.6"):
            pos.legal_moves(roll)


# -- ids and values ----------------------------------------------------------------------------


def test_repr_round_trips_for_every_position() -> None:
    for pos in ALL:
        assert eval(repr(pos), {"Position": Position}) == pos
        assert str(pos) == pos.id


def test_constructor_sorts_and_validates() -> None:
    assert Position((2, 1, 0), [0, 2, 1]) == Position.initial()  # type: ignore[arg-type]
    assert Position((2, 1, 0), (0, 1, 2)).mine == (0, 1, 2)
    for mine, theirs in [
        ((0, 1), (0, 1, 2)),
        ((0, 1, 8), (0, 1, 2)),
        ((0, 1, -1), (0, 1, 2)),
        ((3, 3, 0), (0, 1, 2)),
        ((0, 1, 6), (0, 1, 2)),  # my 6 is their 1
        ((0, 1, True), (0, 1, 2)),
    ]:
        with pytest.raises(InvalidNotationError):
            Position(mine, theirs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "012",
        "012-01",
        "012_012",
        "012-0122",
        "210-012",  # not sorted
        "018-012",
        "0a2-012",
        " 012-012",
        "012-012\n",
        "١٢٣-012",  # Arabic-Indic digits are not digits here
        "113-000",  # two of one colour on spot 1
        "016-012",  # both colours on the same physical spot
        "x" * 10_000,
    ],
)
def test_from_id_rejects_malformed_or_inconsistent_ids(text: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Position.from_id(text)
    assert len(str(info.value)) < 200  # the message quotes the input, but briefly


def test_from_id_rejects_non_strings() -> None:
    with pytest.raises(InvalidNotationError):
        Position.from_id(12012)  # type: ignore[arg-type]


def test_pass_turn_swaps_sides() -> None:
    pos = Position.from_id("023-016")
    assert pos.pass_turn() == Position.from_id("016-023")
    assert pos.pass_turn().pass_turn() == pos


def test_apply_hit_sends_the_checker_home() -> None:
    pos = Position.from_id("034-016")  # their checker on their 6 is my spot 1, alone
    (hit, _) = pos.legal_moves(1)
    assert hit == Move(0, 1, True)
    assert pos.apply(hit) == Position.from_id("001-134")


def test_outcome_perspective_single_and_nannon() -> None:
    assert Position.initial().outcome() is None
    assert Position.from_id("003-777").outcome() == Outcome(False, ResultKind.NANNON, 2)
    assert Position.from_id("067-777").outcome() == Outcome(False, ResultKind.SINGLE, 1)
    assert Position.from_id("777-045").outcome() == Outcome(True, ResultKind.NANNON, 2)


# -- notation ----------------------------------------------------------------------------------


def test_str_and_parse_round_trip_for_every_legal_move() -> None:
    for pos in ALL:
        for roll in ROLLS:
            for move in pos.legal_moves(roll):
                text = str(move)
                assert Move.parse(text, pos, roll) == move
                assert Move.parse(text.lower(), pos, roll) == move
                assert Move.parse(text.rstrip("*"), pos, roll) == move


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("H/3", Move(0, 3, False)),
        ("h/3", Move(0, 3, False)),
        ("  h / 3 ", Move(0, 3, False)),
        ("HOME/3", Move(0, 3, False)),
        ("0/3", Move(0, 3, False)),
        ("h-3", Move(0, 3, False)),
        ("1/4", Move(1, 4, False)),
        ("\t1 - 4\n", Move(1, 4, False)),
    ],
)
def test_parse_accepts_case_and_space_variants(text: str, expected: Move) -> None:
    assert Move.parse(text, Position.initial(), 3) == expected


def test_parse_safety_spellings_and_hit_marker() -> None:
    pos = Position.from_id("045-016")  # their 1 is my 6, alone; their 6 is my 1
    for text in ("5/S", "5/s", "5/safety", "5/OFF", "5/7"):
        assert Move.parse(text, pos, 3) == Move(5, 7, False)
    assert Move.parse("5/6*", pos, 1) == Move(5, 6, True)
    assert Move.parse("5/6", pos, 1) == Move(5, 6, True)
    with pytest.raises(IllegalMoveError, match="nothing to hit"):
        Move.parse("4/5*", Position.from_id("024-016"), 1)


@pytest.mark.parametrize(
    ("text", "roll", "why"),
    [
        ("1/3", 3, "goes to 4"),
        ("3/6", 3, "no checker at spot 3"),
        ("H/2", 2, "blocked, your own checker"),
        ("2/5", 3, "prime"),
        ("S/S", 3, "SAFETY never moves"),
        ("3/H", 3, "no checker at spot 3"),
        ("2/h", 3, "goes to 5"),
    ],
)
def test_illegal_moves_name_the_input_roll_and_position(text: str, roll: int, why: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        Move.parse(text, Position.initial(), roll)
    message = str(info.value)
    assert why in message
    assert repr(text) in message
    assert f"roll {roll}" in message
    assert "012-012" in message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "/",
        "H3",
        "2/",
        "8/9",
        "H/H/3",
        "bar/3",
        "2/5**",
        "1/4 2/5",
        "\u017f/3",  # long s: only ASCII case folding counts
        "1/٤",  # Arabic-Indic four
        "1\x00/4",
        "\u202e1/4",
        "1/4" + " " * 100,
        "H/3" * 10_000,
        "🎲/3",
    ],
)
def test_garbage_raises_invalid_notation(text: str) -> None:
    with pytest.raises(InvalidNotationError):
        Move.parse(text, Position.initial(), 3)


def test_non_string_notation_raises_invalid_notation() -> None:
    for value in (None, 13, b"H/3", ["H", "3"]):
        with pytest.raises(InvalidNotationError):
            Move.parse(value, Position.initial(), 3)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), pid=st.sampled_from([p.id for p in ALL]), roll=st.integers(1, 6))
def test_hostile_strings_raise_only_game_errors(text: str, pid: str, roll: int) -> None:
    pos = Position.from_id(pid)
    try:
        move = Move.parse(text, pos, roll)
    except (InvalidNotationError, IllegalMoveError) as exc:
        assert isinstance(exc, GameError)
    else:
        assert move in pos.legal_moves(roll)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("hHsS0123456789/-* \t*oOfFaAeEtTyYmM"), max_size=14),
    pid=st.sampled_from([p.id for p in ALL]),
    roll=st.integers(1, 6),
)
def test_near_miss_strings_raise_only_notation_or_legality_errors(
    text: str, pid: str, roll: int
) -> None:
    pos = Position.from_id(pid)
    try:
        move = Move.parse(text, pos, roll)
    except (InvalidNotationError, IllegalMoveError):
        return
    assert move in pos.legal_moves(roll)
    assert Move.parse(str(move), pos, roll) == move


# -- the variant -------------------------------------------------------------------------------


def test_variant_describes_nannon() -> None:
    assert VARIANT.kind is GameKind.NANNON
    assert VARIANT.dice_count == 1
    assert VARIANT.resign_levels == (ResignLevel.SINGLE, ResignLevel.GAMMON)
    assert VARIANT.opening_dice(6, 1) == (5,)
    assert VARIANT.initial() == Position.initial()
    assert VARIANT.from_id("012-012") == Position.initial()
    assert VARIANT.position_id(Position.initial()) == "012-012"


def test_variant_result_is_for_the_side_that_just_moved() -> None:
    pos = Position.from_id("067-002")
    (move,) = [m for m in VARIANT.legal_moves(pos, (1,)) if m.src == 6]
    after = VARIANT.apply(pos, move)
    assert after.id == "002-077"
    assert VARIANT.result(after) is None
    win = Position.from_id("677-002")
    after = VARIANT.apply(win, VARIANT.parse_move("6/s", win, (4,)))
    assert after.id == "002-777"
    assert VARIANT.result(after) == (ResultKind.NANNON, 2)
    assert VARIANT.result(Position.from_id("007-777")) == (ResultKind.SINGLE, 1)
    # A won position for the side on roll can't come from play: not reported as a result.
    assert VARIANT.result(Position.from_id("777-012")) is None
    assert VARIANT.pass_turn(pos) == pos.pass_turn()
    assert VARIANT.format_move(Move(6, 7, False)) == "6/S"
