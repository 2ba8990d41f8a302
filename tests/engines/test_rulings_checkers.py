"""One test per checkers ruling in docs/rules.md (American checkers / English draughts)."""

from __future__ import annotations

import pytest

from engines import actions as act
from engines.base import MatchRules, Phase, ResultKind
from engines.checkers import Board, CheckersMatch, Color, Game, Move, Outcome, Termination
from engines.errors import AmbiguousMoveError, IllegalMoveError


def moves_of(fen: str) -> list[str]:
    return [str(m) for m in Board.from_fen(fen).legal_moves()]


def draw_game(match: CheckersMatch) -> None:
    offerer = match.turn
    match.apply(act.OfferDraw(player=offerer))
    match.apply(act.AcceptDraw(player=1 - offerer))


def test_ruling_board_numbered_1_to_32_black_on_1_to_12_moves_first() -> None:
    board = Board.initial()
    assert board.black_men == frozenset(range(1, 13))
    assert board.white_men == frozenset(range(21, 33))
    assert board.turn is Color.BLACK
    # The standard numbering: 5 and 12 sit on the edges, so 5 reaches only 9, 12 only 16.
    assert moves_of("B:W32:B5,12") == ["5-9", "12-16"]
    assert moves_of("B:W32:B1,4") == ["1-5", "1-6", "4-8"]


def test_ruling_men_move_and_jump_forward_only_kings_both_ways() -> None:
    assert moves_of("B:W29:B18") == ["18-22", "18-23"]
    assert moves_of("B:W29:BK18") == ["18-14", "18-15", "18-22", "18-23"]
    assert moves_of("B:W14:B18") == ["18-22", "18-23"]  # no backward jump for a man
    assert moves_of("B:W14:BK18") == ["18x9"]  # a king jumps backwards
    assert moves_of("W:W18:B22") == ["18-14", "18-15"]  # White's forward is up the numbers


def test_ruling_capture_mandatory_free_choice_no_majority() -> None:
    # Black may take one piece with the man on 10, or two; and a step is not allowed.
    assert moves_of("B:W14,15,23:B10,1") == ["10x17", "10x19x26"]
    board = Board.from_fen("B:W14,15,23:B10,1")
    with pytest.raises(IllegalMoveError, match="mandatory"):
        Move.parse("1-5", board)
    assert board.apply(Move.parse("10x17", board)).white_men == {15, 23}


def test_ruling_capture_sequence_must_be_completed() -> None:
    board = Board.from_fen("W:W27:B23,15")
    assert moves_of(board.fen) == ["27x18x11"]
    with pytest.raises(IllegalMoveError):
        Move.parse("27x18", board)


def test_ruling_man_crowned_mid_jump_ends_its_move() -> None:
    board = Board.from_fen("B:W25,26:B23")
    assert moves_of(board.fen) == ["23x30"]  # not 23x30x21, which a king could go on to
    assert board.apply(Move.parse("23x30", board)).black_kings == {30}
    assert moves_of("W:W10,6:B15,7") == ["10x3"]  # White crowns on 1..4 and stops too


def test_ruling_player_with_no_pieces_loses() -> None:
    game = Game(Board.from_fen("B:W14:B9"))
    game.push_text("9x18")
    assert game.outcome() == Outcome(Termination.NO_PIECES, Color.BLACK)


def test_ruling_player_with_no_legal_move_loses() -> None:
    game = Game(Board.from_fen("B:W12:B8,K7"))
    game.push_text("7-3")
    assert game.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_ruling_draw_by_agreement() -> None:
    match = CheckersMatch(MatchRules(length=2))
    match.apply(act.Move(player=0, move="11-15"))
    match.apply(act.OfferDraw(player=1))
    assert match.phase is Phase.DRAW_OFFERED and match.actor == 0
    result = match.apply(act.AcceptDraw(player=0))
    assert result.game_result is not None
    assert result.game_result.winner is None and result.game_result.kind is ResultKind.DRAW


def test_ruling_threefold_repetition_is_an_automatic_draw() -> None:
    game = Game(Board.from_fen("B:WK32:BK1"))
    for text in ["1-5", "32-27", "5-1", "27-32"] * 2:
        assert game.outcome() is None
        game.push_text(text)
    assert game.repetitions() == 3
    assert game.outcome() == Outcome(Termination.THREEFOLD_REPETITION, None)


def test_ruling_acf_forty_move_rule_is_an_automatic_draw() -> None:
    # Two kings circle on distant tracks of 6 and 8 moves, so a position comes back only after
    # 48 plies (never a third time within 80): 40 moves each, no capture, no man moved.
    game = Game(Board.from_fen("B:WK14:BK3"))
    black_track = ["3-8", "8-12", "12-16", "16-11", "11-7", "7-3"]
    white_track = ["14-18", "18-23", "23-27", "27-31", "31-26", "26-22", "22-17", "17-14"]
    for ply in range(80):
        assert game.outcome() is None
        track = black_track if ply % 2 == 0 else white_track
        game.push_text(track[ply // 2 % len(track)])
    assert game.quiet_plies == 80 and game.repetitions() == 2
    assert game.outcome() == Outcome(Termination.FORTY_MOVE_RULE, None)


def test_ruling_match_alternates_colours_each_game() -> None:
    match = CheckersMatch(MatchRules(length=3))
    blacks = []
    for _ in range(3):
        blacks.append(match.black_seat)
        assert match.turn == match.black_seat  # Black moves first in every game
        draw_game(match)
    assert blacks == [0, 1, 0]


def test_ruling_win_scores_one_and_draw_scores_half_each() -> None:
    match = CheckersMatch(MatchRules(length=3))
    draw_game(match)
    assert match.score == (0.5, 0.5)
    match.apply(act.Resign(player=0))
    assert match.score == (0.5, 1.5)
    assert [g.points for g in match.games] == [0.5, 1.0]


def test_ruling_first_to_reach_the_match_length_wins() -> None:
    match = CheckersMatch(MatchRules(length=2))
    draw_game(match)  # 0.5-0.5
    match.apply(act.Resign(player=1))  # 1.5-0.5
    assert not match.is_over()
    draw_game(match)  # 2-1: seat 0 reaches 2 first
    assert match.is_over() and match.winner() == 0 and match.score == (2.0, 1.0)


def test_ruling_final_draw_leaving_players_tied_is_a_drawn_match() -> None:
    match = CheckersMatch(MatchRules(length=1))
    draw_game(match)  # ½-½: nobody has 1 yet, so another game follows
    assert not match.is_over() and match.game_number == 2
    offerer = match.turn
    match.apply(act.OfferDraw(player=offerer))
    result = match.apply(act.AcceptDraw(player=1 - offerer))
    assert result.match_over and match.is_over()
    assert match.score == (1.0, 1.0) and match.winner() is None
    assert match.phase is Phase.MATCH_OVER


def test_ruling_notation_move_and_jump_path() -> None:
    board = Board.initial()
    assert str(Move.parse("11-15", board)) == "11-15"
    jump = Board.from_fen("W:W27:B23,15")
    assert str(Move.parse("27x18x11", jump)) == "27x18x11"


def test_ruling_jump_entered_by_its_ends_when_unambiguous() -> None:
    assert str(Move.parse("27x11", Board.from_fen("W:W27:B23,15"))) == "27x18x11"
    with pytest.raises(AmbiguousMoveError):
        Move.parse("30x30", Board.from_fen("W:WK30:B17,18,25,26"))


def test_ruling_positions_use_pdn_fen() -> None:
    board = Board.from_fen("B:W21,22,K30:B1,2,K9")
    assert board.white_men == {21, 22} and board.white_kings == {30}
    assert board.black_men == {1, 2} and board.black_kings == {9}
    assert board.turn is Color.BLACK and board.fen == "B:W21,22,K30:B1,2,K9"
