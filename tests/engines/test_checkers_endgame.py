"""The checkers endgame database (engines/checkers_endgame.py) and the search probing it: the
shipped database (bot/robot/data) is what a build gives, agrees with itself move by move and
with a brute-force search written over the public rules (engines/checkers.py, not the search's
move generator) on a random sample; known endings come out right; the search plays the fastest
win and trusts a distance only inside the 40-move rule."""

from __future__ import annotations

import lzma
import random
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from bot.robot.endgames import PATH
from engines.checkers import Board, Color
from engines.checkers_endgame import Outcome, Probe, Signature, Tablebase, signatures
from engines.checkers_search import WIN, Brain, Level, decide, search


@pytest.fixture(scope="module")
def base() -> Tablebase:
    return Tablebase.load(PATH)


@pytest.fixture(scope="module")
def three() -> Tablebase:
    return Tablebase.build(3)


def sample(base: Tablebase, count: int, seed: int, keep: Callable[[Probe], bool]) -> list[Board]:
    return [board for board, _ in base.sample(random.Random(seed), count, keep)]


def test_the_shipped_database_covers_four_pieces(base: Tablebase) -> None:
    assert base.pieces == 4
    first = signatures(4)
    assert first[0] == (0, 1, 0, 1) and len(first) == len(set(first))
    # Captures and crownings lead to signatures solved earlier: fewer pieces, or fewer men.
    assert [(sum(s), s[0] + s[2]) for s in first] == sorted((sum(s), s[0] + s[2]) for s in first)


def test_a_fresh_build_matches_the_shipped_tables(base: Tablebase, three: Tablebase) -> None:
    assert three.pieces == 3
    for sig, mm, mk, tm, tk, probe in three.items():
        assert base.probe(mm, mk, tm, tk, True) == probe, (sig, mm, mk, tm, tk)


def test_a_kings_only_slice_builds_on_its_own() -> None:
    def kings_only(sig: Signature) -> bool:
        return sig[0] == sig[2] == 0

    slice_ = Tablebase.build(3, only=kings_only)
    assert slice_.probe_board(Board.from_fen("B:WK28:BK1,K2")) == Probe(Outcome.WIN, 29)
    assert slice_.probe_board(Board.from_fen("B:W21:BK1")) is None  # not in the slice


def test_save_and_load_round_trip(tmp_path: Path, three: Tablebase) -> None:
    path = tmp_path / "endgame.xz"
    three.save(path)
    loaded = Tablebase.load(path)
    assert sorted(loaded.items()) == sorted(three.items())
    path.write_bytes(b"not a database")
    with pytest.raises(ValueError, match="not a checkers endgame database"):
        Tablebase.load(path)
    path.write_bytes(lzma.compress(b"TBCK1\x09"))
    with pytest.raises(ValueError, match="claims 9 pieces"):
        Tablebase.load(path)
    path.write_bytes(lzma.compress(b"TBCK1\x02" + bytes(100)))
    with pytest.raises(ValueError, match="truncated"):
        Tablebase.load(path)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # Two kings against one: won, even from the double corner (the search finds 29 too).
        ("B:WK28:BK1,K2", Probe(Outcome.WIN, 29)),
        ("W:WK28:BK1,K2", Probe(Outcome.LOSS, 34)),
        ("B:WK32:BK14,K15", Probe(Outcome.WIN, 21)),
        ("B:WK28:BK1,K2,K3", Probe(Outcome.WIN, 21)),  # three against one
        # Two kings holding the two double corners against two kings: drawn, either to move.
        ("B:WK1,K32:BK14,K19", Probe(Outcome.DRAW, 0)),
        ("W:WK1,K32:BK14,K19", Probe(Outcome.DRAW, 0)),
        ("B:WK5,K28:BK15,K18", Probe(Outcome.DRAW, 0)),
        ("B:WK28,K32:BK14,K15", Probe(Outcome.DRAW, 0)),  # both in one double corner
        # A king against a king: the side to move is lost only when it must give itself up.
        ("B:WK1:BK2", Probe(Outcome.LOSS, 10)),
        # A man a square from crowning against a king that can't stop it.
        ("B:W21:BK1", Probe(Outcome.WIN, 7)),
        # No move: lost at once.
        ("B:W9,14:B5", Probe(Outcome.LOSS, 0)),
    ],
)
def test_known_endings(base: Tablebase, fen: str, expected: Probe) -> None:
    assert base.probe_board(Board.from_fen(fen)) == expected


def test_more_pieces_than_the_database_holds_are_not_in_it(base: Tablebase) -> None:
    assert base.probe_board(Board.from_fen("B:WK1,K5:BK28,K32,K20")) is None
    assert base.probe_board(Board.initial()) is None


def value(probe: Probe) -> tuple[int, int]:
    """An order on entries for the side to move: wins (faster better), draws, losses (slower
    better)."""
    if probe.outcome is Outcome.WIN:
        return 2, -probe.distance
    if probe.outcome is Outcome.DRAW:
        return 1, 0
    return 0, probe.distance


def test_every_entry_is_the_best_of_its_moves(base: Tablebase) -> None:
    # Over the public rules: a position's entry is what its best move gives.
    for board in sample(base, 2000, 5, lambda probe: True):
        moves = board.legal_moves()
        entry = base.probe_board(board)
        assert entry is not None
        if not moves:
            assert entry == Probe(Outcome.LOSS, 0), board.fen
            continue
        best = Probe(Outcome.LOSS, -1)
        for move in moves:
            after = board.apply(move)
            theirs = base.probe_board(after) if after.piece_count(after.turn) else None
            if theirs is None:  # the last piece taken
                mine = Probe(Outcome.WIN, 1)
            elif theirs.outcome is Outcome.DRAW:
                mine = theirs
            else:
                mine = Probe(Outcome(-theirs.outcome), theirs.distance + 1)
            if value(mine) > value(best):
                best = mine
        assert entry == best, board.fen


class BruteForce:
    """Wins and losses within a number of plies, by exhaustive search over the public rules."""

    def __init__(self) -> None:
        self.wins_within = cache(self._wins_within)
        self.loses_within = cache(self._loses_within)

    def _wins_within(self, board: Board, plies: int) -> bool:
        if plies < 1:
            return False
        return any(self.loses_within(board.apply(m), plies - 1) for m in board.legal_moves())

    def _loses_within(self, board: Board, plies: int) -> bool:
        moves = board.legal_moves()
        if not moves:
            return True
        if plies < 2:
            return False
        return all(self.wins_within(board.apply(m), plies - 1) for m in moves)

    def probe(self, board: Board, horizon: int) -> Probe | None:
        """The exact entry if the game is decided within ``horizon`` plies, else None."""
        for plies in range(horizon + 1):
            if plies % 2 and self.wins_within(board, plies):
                return Probe(Outcome.WIN, plies)
            if not plies % 2 and self.loses_within(board, plies):
                return Probe(Outcome.LOSS, plies)
        return None


HORIZON = 7


def test_the_database_agrees_with_a_brute_force_search(base: Tablebase) -> None:
    # Decided positions within the horizon are found at their exact distance; the others
    # (draws and longer wins) are not decided within it.
    brute = BruteForce()
    near = sample(base, 250, 7, lambda p: p.outcome is not Outcome.DRAW and p.distance <= HORIZON)
    far = sample(base, 80, 8, lambda p: p.outcome is Outcome.DRAW or p.distance > HORIZON)
    for board in near:
        assert brute.probe(board, HORIZON) == base.probe_board(board), board.fen
    for board in far:
        assert brute.probe(board, HORIZON) is None, board.fen


# -- the search probing the database -------------------------------------------------------------


def test_the_search_scores_a_database_position_exactly(base: Tablebase) -> None:
    board = Board.from_fen("B:WK28:BK1,K2")
    assert search(board, depth=1, endgames=base).score == WIN - 29
    defender = Board.from_fen("W:WK28:BK1,K2")
    assert search(defender, depth=1, endgames=base).score == 34 - WIN
    drawn = Board.from_fen("B:WK1,K32:BK14,K19")
    assert search(drawn, depth=3, endgames=base).score == 0


def test_master_wins_in_the_fewest_moves_and_defends_longest(base: Tablebase) -> None:
    board = Board.from_fen("B:WK28:BK1,K2")  # won in 29 plies
    brain = Brain(think_s=5.0, endgames=base)
    plies = 0
    while board.legal_moves():
        turn = decide(board, Level.MASTER, random.Random(1), offer_draw=False, brain=brain)
        assert turn.move is not None
        board = board.apply(turn.move)
        plies += 1
    assert board.turn is Color.WHITE and plies == 29


@pytest.mark.parametrize(
    ("fen", "plies"), [("W:WK14,K19,K23:BK28,K32", 5), ("B:WK11,K20:BK6,K19,K27", 13)]
)
def test_three_kings_beat_two_through_the_database(base: Tablebase, fen: str, plies: int) -> None:
    # Five pieces are not in the database: the search finds the way into it, the stronger side
    # to move, and proves the win sooner than it could without it.
    board = Board.from_fen(fen)
    assert search(board, depth=8, endgames=base).score == WIN - plies
    if plies > 8:
        assert search(board, depth=8).score < WIN - 256


def test_a_distance_past_the_forty_move_rule_is_not_trusted(base: Tablebase) -> None:
    board = Board.from_fen("B:WK28:BK1,K2")  # won in 29 plies
    spare = [Board.from_fen(f"W:WK{s}:BK1,K2") for s in (3, 4, 6, 7, 8, 9, 10, 11, 12, 13)]
    history = [*(spare * 6)[:52], board]  # 52 quiet plies: 28 left before the rule
    assert search(board, history, depth=1, endgames=base).score != WIN - 29
    shorter = [*(spare * 6)[:51], board]  # 51: 29 left, just enough
    assert search(board, shorter, depth=1, endgames=base).score == WIN - 29
