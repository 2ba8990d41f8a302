"""The text boards (render/text.py): every checker where the picture puts it, numbers for the
player on turn, and the lines a terminal needs under the board."""

from __future__ import annotations

import pytest

from engines import new_match
from engines.actions import Move
from engines.backgammon import Position as BackgammonPosition
from engines.base import GameKind, MatchRules
from engines.checkers import Board
from engines.cube import Cube
from engines.nannon import Position as NannonPosition
from render.common import Scene
from render.text import backgammon_text, board_text, checkers_text, nannon_text

SCENE = Scene(names=("Ann", "Bob"), score=(2, 1), match_length=5, game_number=3)


def _row(text: str, frame_index: int, offset: int) -> str:
    """The board row ``offset`` lines below the ``frame_index``-th frame line."""
    frames = [i for i, line in enumerate(text.splitlines()) if line.startswith("+")]
    return text.splitlines()[frames[frame_index] + offset]


def _points(row: str) -> list[str]:
    """The 12 point cells of a backgammon row, left to right, and the bar's."""
    left, bar, right = row[1:19], row[20:23], row[24:42]
    cells = [left[i : i + 3].strip() for i in range(0, 18, 3)]
    cells += [right[i : i + 3].strip() for i in range(0, 18, 3)]
    return [*cells, bar.strip()]


def test_backgammon_opening_position_seat_zero_bottom_numbered_for_the_mover() -> None:
    text = backgammon_text(BackgammonPosition.initial(), 0, SCENE, dice=(5, 2), cube=Cube())
    lines = text.splitlines()
    assert lines[0] == "Backgammon, match to 5, game 3."
    assert lines[1] == "Score: Ann 2, Bob 1."
    assert lines[2].startswith("+13-14-15-16-17-18------19-20-21-22-23-24-+  X Bob (black)")
    # Top edge row: O (Ann) has 5 on her 13 and 2 on her 24; X (Bob) 3 on 17, 5 on 19.
    assert _points(_row(text, 0, 1)) == ["O", "", "", "", "X", "", "X", "", "", "", "", "O", ""]
    # Bottom edge row (just above the lower frame): X 5 on 12, O 3 on 8, O 5 on 6, X 2 on 1.
    assert _points(_row(text, 1, -1)) == ["X", "", "", "", "O", "", "O", "", "", "", "", "X", ""]
    assert "+12-11-10--9--8--7-------6--5--4--3--2--1-+  O Ann (white)" in text
    assert "score 2, pips 167" in text and "score 1, pips 167" in text
    assert "Cube: 64 (centred)." in lines
    assert "Ann (O) to play 5-2; points numbered from O's side." in lines
    assert lines[-1] == "Position ID: 4HPwATDgc/ABMA"
    assert all(len(line) <= 79 for line in lines)


def test_backgammon_numbers_turn_round_for_seat_one_the_picture_does_not() -> None:
    seat0 = backgammon_text(BackgammonPosition.initial(), 0, SCENE)
    seat1 = backgammon_text(BackgammonPosition.initial(), 1, SCENE)
    assert _row(seat1, 0, 0).startswith("+12-11-10--9--8--7-------6--5--4--3--2--1-+")
    assert _row(seat1, 1, 0).startswith("+13-14-15-16-17-18------19-20-21-22-23-24-+")
    # The checkers stay where they were (the same symmetric start).
    assert _points(_row(seat1, 0, 1)) == _points(_row(seat0, 0, 1))
    assert "Bob (X) on turn; points numbered from X's side." in seat1


def test_backgammon_tall_stacks_bar_and_borne_off() -> None:
    mine = [0] * 26
    theirs = [0] * 26
    mine[6], mine[25], mine[0] = 9, 2, 4  # Ann (on turn): 9 on her 6, 2 on the bar, 4 off
    theirs[1], theirs[25], theirs[0] = 11, 1, 3  # Bob: 11 on his 1 (Ann's 24), 1 on the bar
    position = BackgammonPosition(tuple(mine), tuple(theirs))
    text = backgammon_text(position, 0, SCENE, cube=Cube(4, 1))
    # Ann's 6 point, nearest the middle on the bottom: the fifth row shows the count.
    assert _points(_row(text, 1, -5))[6] == "9"
    assert _points(_row(text, 1, -4))[6] == "O"
    # Bob's checkers on Ann's 24 (top right), his count in the fifth row from the top.
    assert _points(_row(text, 0, 5))[11] == "11"
    # The bar fills from the middle: Bob's one in the top half's middle row, Ann's two below.
    assert _points(_row(text, 0, 5))[12] == "X"
    assert [_points(_row(text, 1, -k))[12] for k in (5, 4, 3)] == ["O", "O", ""]
    assert "borne off 4" in text and "borne off 3" in text
    assert "cube 4 (X)" in text and "Cube: 4, owned by Bob." in text


def test_backgammon_double_offered_says_who_answers() -> None:
    text = backgammon_text(
        BackgammonPosition.initial(), 0, SCENE, cube=Cube(2, 1), cube_offered_by=0
    )
    assert "Ann doubles to 4: Bob to take or pass." in text.splitlines()


def test_nannon_spots_homes_and_safeties() -> None:
    # Seen from Bob (seat 1, on turn): he has spots 1 and 3 and one checker in safety; Ann
    # has one at home and spots 3 and 5 (her numbering).
    position = NannonPosition.from_id("137-035")
    text = nannon_text(position, 1, SCENE, dice=(3,), cube=Cube(2, 0))
    lines = text.splitlines()
    assert lines[0] == "Nannon, match to 5, game 3."
    assert lines[2].split() == ["X", "Bob", "(black)", "safety:", "X", "home:", "-"]
    assert lines[4] == "          |   |   | O | X | O | X |"
    assert lines[6] == "    spot    6   5   4   3   2   1"
    assert lines[7].split() == ["O", "Ann", "(white)", "home:", "O", "safety:", "-"]
    assert "Cube: 2, owned by Ann." in lines
    assert "Bob (X) to play 3; spots numbered from X's side." in lines
    assert lines[-1] == "Position: 137-035"


def test_nannon_opening_numbered_for_seat_zero() -> None:
    lines = nannon_text(NannonPosition.initial(), 0, SCENE).splitlines()
    assert lines[4] == "          | O | O |   |   | X | X |"
    assert lines[6] == "    spot    1   2   3   4   5   6"


def test_checkers_seat_zero_at_the_bottom_in_either_colour() -> None:
    black_bottom = checkers_text(Board.initial(), 0, SCENE).splitlines()
    white_bottom = checkers_text(Board.initial(), 1, SCENE).splitlines()
    # Square 1 (a Black man) is bottom right when Ann plays Black, top left when she plays White.
    assert black_bottom[2] == "  Bob (white), 1" and black_bottom[-3] == "  Ann (black), 2"
    assert black_bottom[4] == "  |   w   w   w   w |    |    32    31    30    29 |"
    assert black_bottom[11] == "  | b   b   b   b   |    |  4     3     2     1    |"
    assert white_bottom[4] == "  |   b   b   b   b |    |     1     2     3     4 |"
    assert white_bottom[-2] == "Black (Bob) to move."
    assert black_bottom[-1].startswith("FEN: B:W21,")


def test_checkers_last_move_and_draw_offer() -> None:
    match = new_match(GameKind.CHECKERS, MatchRules(length=1))
    match.apply(Move(0, "11-15"))
    assert match.last_move is not None
    text = checkers_text(match.board, match.black_seat, SCENE, last_move=match.last_move)
    assert "Last move: Ann 11-15." in text
    assert "White (Bob) to move." in text
    offered = checkers_text(match.board, 0, SCENE, draw_offered_by=1)
    assert "Bob offers a draw: Ann to answer." in offered


@pytest.mark.parametrize("kind", list(GameKind))
def test_board_text_is_the_games_function_on_a_picture_job(kind: GameKind) -> None:
    match = new_match(kind, MatchRules(length=3))
    if kind is GameKind.CHECKERS:
        args: tuple[object, ...] = (match.position, 0, SCENE)
        direct = checkers_text(match.position, 0, SCENE)
    else:
        args = (match.position, 0, SCENE)
        direct = {"nannon": nannon_text, "backgammon": backgammon_text}[kind.value](
            match.position, 0, SCENE
        )
    assert board_text(kind.value, args, {}) == direct


@pytest.mark.parametrize("kind", list(GameKind))
def test_every_line_fits_79_columns_with_the_longest_names(kind: GameKind) -> None:
    long = Scene(names=("W" * 40, "M" * 40), score=(12.5, 24), match_length=25, game_number=40)
    match = new_match(kind, MatchRules(length=25))
    if kind is GameKind.CHECKERS:
        text = checkers_text(match.position, 0, long, draw_offered_by=1)
    else:
        mine = [0] * 26
        mine[6], mine[25], mine[0] = 11, 2, 2  # a tall stack, the bar, borne off
        function = {"nannon": nannon_text, "backgammon": backgammon_text}[kind.value]
        position = (
            BackgammonPosition(tuple(mine), tuple(mine))
            if kind.value == "backgammon"
            else match.position
        )
        text = function(position, 1, long, dice=(6, 6), cube=Cube(64, 0), cube_offered_by=None)
    assert max(map(len, text.splitlines())) <= 79, text


def test_the_terminals_you_reads_as_english() -> None:
    """Issue 33 (slips): the terminal's player "You" read "You's checkers" in the alt text,
    and every text board said "numbered for them"."""
    from render import backgammon, nannon

    you = Scene(names=("You", "Bob"))
    board = nannon_text(NannonPosition.initial(), 0, you)
    assert "You (O) on turn; spots numbered from O's side." in board.splitlines()
    for said in (
        nannon.describe(NannonPosition.initial(), 0, you),
        backgammon.describe(BackgammonPosition.initial(), 0, you),
    ):
        assert "Your checkers:" in said and "You's" not in said


def test_a_half_point_is_written_one_way() -> None:
    """Issue 33 (slips): ½ and 0.5 were mixed for the same score (the messages said 1½, the
    boards, their alt text and the tournament tables 1.5): a score in halves reads ½."""
    from render import checkers

    half = Scene(names=("Ann", "Bob"), score=(1.5, 0.5), match_length=3)
    for said in (
        checkers_text(Board.initial(), 0, half),
        checkers.describe(Board.initial(), 0, half),
    ):
        assert "1½" in said and "1.5" not in said and "0.5" not in said, said
