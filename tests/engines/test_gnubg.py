"""gnubg Position IDs and Match IDs: every reference vector, strict decoding, round trips."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.errors import GameError, InvalidNotationError
from engines.gnubg import (
    GameState,
    MatchId,
    decode_position_id,
    encode_position_id,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def _match_rows() -> list[list[str]]:
    lines = (DATA / "backgammon_match_ids.tsv").read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


MATCH_ROWS = _match_rows()


def test_the_match_id_vectors_are_all_there() -> None:
    assert len(MATCH_ROWS) == 300
    assert {len(row) for row in MATCH_ROWS} == {14}


@pytest.mark.parametrize("row", MATCH_ROWS, ids=[row[0] for row in MATCH_ROWS])
def test_match_id_vector(row: list[str]) -> None:
    text = row[0]
    cube, owner, on_roll, length, s0, s1, crawford, turn, doubled, resigned, state, d1, d2 = (
        int(value) for value in row[1:]
    )
    decoded = MatchId.decode(text)
    assert decoded.cube_value == cube
    assert decoded.cube_owner == owner
    assert decoded.player_on_roll == on_roll
    assert decoded.match_length == length
    # gnubg keeps no money-session score in the ID: the vectors' money rows encode 0-0.
    assert decoded.score == ((s0, s1) if length else (0, 0))
    assert decoded.crawford is bool(crawford)
    assert decoded.turn == turn
    assert decoded.double_offered is bool(doubled)
    assert decoded.resign_level == resigned
    assert decoded.game_state == GameState(state)
    # gnubg stores the higher die first, whatever order the roll was listed in.
    assert decoded.dice == (max(d1, d2), min(d1, d2))
    # The vectors were made with Jacoby in use for money and not in matches.
    assert decoded.jacoby is (length == 0)
    assert decoded.encode() == text
    rebuilt = MatchId(
        cube_value=cube,
        cube_owner=owner,
        player_on_roll=on_roll,
        match_length=length,
        score=(s0, s1),
        crawford=bool(crawford),
        turn=turn,
        double_offered=bool(doubled),
        resign_level=resigned,
        game_state=GameState(state),
        dice=(d1, d2),
        jacoby=length == 0,
    )
    assert rebuilt.encode() == text


def test_match_id_repr_round_trips() -> None:
    mid = MatchId.decode(MATCH_ROWS[0][0])
    assert repr(mid) == f"MatchId.decode({MATCH_ROWS[0][0]!r})"
    assert eval(repr(mid)) == mid


def test_match_id_default_is_a_fresh_money_game_without_jacoby() -> None:
    mid = MatchId()
    assert (mid.cube_value, mid.cube_owner, mid.match_length, mid.game_state) == (
        1,
        -1,
        0,
        GameState.PLAYING,
    )
    assert MatchId.decode(mid.encode()) == mid


def _key_to_id(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "12 characters"),
        ("cAkAAAAAAAA", "12 characters"),
        ("cAkAAAAAAAAAA", "12 characters"),
        ("cAkAAAAAAA=A", "12 characters"),
        ("cAkAAAAA AAA", "12 characters"),
        ("cAkAAAAAAAAé", "12 characters"),
        (_key_to_id(1 | 2 << 4 | 1 << 8), "cube owner"),  # owner bits 10
        (_key_to_id(5 << 8 | 1 << 66), "game state"),
        (_key_to_id(1 << 8 | 7 << 15 | 1 << 66), "dice"),  # a 7
        (_key_to_id(1 << 8 | 3 << 15 | 1 << 66), "dice"),  # one die only
        (_key_to_id(1 << 8 | 5 << 21 | 6 << 36 | 1 << 66), "score"),  # 6 in a match to 5
        (_key_to_id(1 << 8 | 1 << 7), "money game"),  # a Crawford money game
        (_key_to_id(1 << 8 | 1 << 67), "stray bits"),
    ],
)
def test_bad_match_ids_are_refused(text: str, reason: str) -> None:
    with pytest.raises(InvalidNotationError, match=reason):
        MatchId.decode(text)


def test_match_id_values_are_checked() -> None:
    with pytest.raises(ValueError, match="power of 2"):
        MatchId(cube_value=3)
    with pytest.raises(ValueError, match="cube owner"):
        MatchId(cube_owner=2)
    with pytest.raises(ValueError, match="dice"):
        MatchId(dice=(0, 3))
    with pytest.raises(ValueError, match="15 bits"):
        MatchId(match_length=1 << 15)


@settings(max_examples=300)
@given(st.text(max_size=20))
def test_any_string_decodes_or_raises_invalid_notation(text: str) -> None:
    try:
        mid = MatchId.decode(text)
    except InvalidNotationError:
        return
    assert mid.encode() == text.strip()


@settings(max_examples=200)
@given(
    st.integers(0, 15),
    st.sampled_from([-1, 0, 1]),
    st.integers(0, 1),
    st.integers(1, 64),
    st.integers(0, 64),
    st.integers(0, 64),
    st.integers(0, 1),
    st.integers(0, 3),
    st.sampled_from(list(GameState)),
    st.sampled_from([(0, 0)] + [(a, b) for a in range(1, 7) for b in range(1, a + 1)]),
    st.booleans(),
)
def test_match_id_round_trips(
    log: int,
    owner: int,
    on_roll: int,
    length: int,
    s0: int,
    s1: int,
    turn: int,
    resign: int,
    state: GameState,
    dice: tuple[int, int],
    jacoby: bool,
) -> None:
    mid = MatchId(
        cube_value=1 << log,
        cube_owner=owner,
        player_on_roll=on_roll,
        match_length=length,
        score=(min(s0, length), min(s1, length)),
        crawford=s0 == length - 1,
        turn=turn,
        double_offered=turn != on_roll,
        resign_level=resign,
        game_state=state,
        dice=dice,
        jacoby=jacoby,
    )
    text = mid.encode()
    assert len(text) == 12
    assert MatchId.decode(text) == mid


# --- Position IDs --------------------------------------------------------------------------------

START = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def test_start_position_id() -> None:
    assert encode_position_id(START, START) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == (START, START)


def test_position_id_puts_the_opponent_first() -> None:
    # One side entirely on the bar, the other on its ace point: the two orders differ.
    on_bar = (0,) * 25 + (15,)
    on_ace = (0, 15) + (0,) * 24
    text = encode_position_id(on_bar, on_ace)
    key = int.from_bytes(base64.b64decode(text + "=="), "little")
    assert key & 0xFFFF == 0x7FFF  # the opponent's 15 checkers on its ace point come first
    assert decode_position_id(text) == (on_bar, on_ace)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "14 characters"),
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMA=", "14 characters"),
        ("4HPwATDgc/AB-A", "14 characters"),
        ("4HPwATDgc/ABMB", "not canonical"),
        ("gIMPgAGfgw+AgQ", "stray bits"),
        ("/////////////w", "more than 15"),
        ("/////wAAAAAAAA", "more than 15"),
        ("AAAAAAAAAAAAAA", "both sides have borne off"),
    ],
)
def test_bad_position_ids_are_refused(text: str, reason: str) -> None:
    with pytest.raises(InvalidNotationError, match=reason):
        decode_position_id(text)


def test_position_id_with_both_sides_on_one_point_is_refused() -> None:
    mine = (14, 1) + (0,) * 24  # a checker on my ace point
    theirs = (14,) + (0,) * 23 + (1, 0)  # and one on their 24 point: the same point
    with pytest.raises(InvalidNotationError, match="both sides have checkers on point 1"):
        decode_position_id(encode_position_id(mine, theirs))


@settings(max_examples=300)
@given(st.text(max_size=20))
def test_any_string_is_a_position_id_or_invalid_notation(text: str) -> None:
    try:
        mine, theirs = decode_position_id(text)
    except GameError as exc:
        assert isinstance(exc, InvalidNotationError)
        return
    assert encode_position_id(mine, theirs) == text.strip()
