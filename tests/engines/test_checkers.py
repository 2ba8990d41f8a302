"""American checkers: board, notation, move generation, game rules, match play, PDN."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import actions as act
from engines.base import MatchRules, Phase, ResignLevel, ResultKind
from engines.checkers import (
    Board,
    CheckersMatch,
    Color,
    Game,
    Move,
    Outcome,
    Termination,
    to_pdn,
)
from engines.errors import (
    AmbiguousMoveError,
    CubeError,
    GameError,
    IllegalMoveError,
    InvalidNotationError,
    NotYourTurnError,
    PhaseError,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "checkers_moves.tsv"


def _vectors() -> list[tuple[int, str, list[str]]]:
    rows = []
    for number, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        fen, moves = line.split("\t")
        rows.append((number, fen, moves.split()))
    return rows


VECTORS = _vectors()


def moves_of(board: Board) -> list[str]:
    return [str(m) for m in board.legal_moves()]


def play(game: Game, *texts: str) -> None:
    for text in texts:
        game.push_text(text)


# --- reference vectors -------------------------------------------------------------------


def test_vectors_are_all_there() -> None:
    assert len(VECTORS) == 613


@pytest.mark.parametrize(("line", "fen", "expected"), VECTORS, ids=[f"line{v[0]}" for v in VECTORS])
def test_reference_vector(line: int, fen: str, expected: list[str]) -> None:
    board = Board.from_fen(fen)
    assert moves_of(board) == expected
    assert Board.from_fen(board.fen) == board
    for text in expected:
        assert str(Move.parse(text, board)) == text


def test_vector_move_lists_sort_by_numeric_path() -> None:
    # The reference sorts by the squares as numbers ("9-13" before "10-14"), as we do.
    for _, fen, _expected in VECTORS:
        board = Board.from_fen(fen)
        paths = [m.path for m in board.legal_moves()]
        assert paths == sorted(paths)


# --- board and FEN -----------------------------------------------------------------------


def test_initial_position() -> None:
    board = Board.initial()
    assert board.black_men == frozenset(range(1, 13))
    assert board.white_men == frozenset(range(21, 33))
    assert board.black_kings == board.white_kings == frozenset()
    assert board.turn is Color.BLACK
    assert board == Board.from_fen("B:W21-32:B1-12")
    assert board.fen == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_start_position_has_exactly_seven_moves() -> None:
    assert moves_of(Board.initial()) == [
        "9-13",
        "9-14",
        "10-14",
        "10-15",
        "11-15",
        "11-16",
        "12-16",
    ]


def test_fen_forms_accepted() -> None:
    board = Board.from_fen("B:W21,22,23,K30:B1,2,K9")
    assert board.white_men == {21, 22, 23} and board.white_kings == {30}
    assert board.black_men == {1, 2} and board.black_kings == {9}
    # Sections in either order, squares in any order, a final dot, ranges, outer spaces.
    assert Board.from_fen(" B:B2,1,K9:WK30,23,22,21. ") == board
    assert Board.from_fen("B:W21-23,K30:B1-2,K9") == board
    assert board.fen == "B:W21,22,23,K30:B1,2,K9"
    assert Board.from_fen("W:W:B1").white_men == frozenset()


@pytest.mark.parametrize(
    "fen",
    [
        "",
        "B",
        "B:W21:B1:W22",
        "X:W21:B1",
        "b:W21:B1",
        "B:w21:b1",
        "B:W21:W22",
        "B:W21",
        "B:W33:B1",
        "B:W0:B1",
        "B:W21,21:B1",
        "B:W21:B21",
        "B:W21,K21:B1",
        "B:W21,:B1",
        "B:W2a:B1",
        "B:W23-21:B1",
        "B:W21-:B1",
        "B:WK:B1",
        "B:W 21:B1",
        "B:W\uff12\uff11:B1",  # fullwidth digits are not PDN
        "B:W\u0662\u0661:B1",  # Arabic-Indic digits either
        "B:W1:B5",  # a White man on its crowning row
        "B:W21:B30",  # a Black man on its crowning row
        "B:W1-13:B30",
        "B:W21:B1-13",  # 13 pieces
        "B:W21:B1" + ",2" * 500,
    ],
)
def test_malformed_fen_raises_invalid_notation(fen: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Board.from_fen(fen)
    if len(fen) <= 40:
        assert repr(fen) in str(info.value)


def test_board_repr_round_trips_and_hashes() -> None:
    board = Board.from_fen("W:W18,K30:B1,K9")
    assert repr(board) == "Board.from_fen('W:W18,K30:B1,K9')"
    assert eval(repr(board)) == board
    assert hash(board) == hash(Board.from_fen("W:WK30,18:BK9,1"))
    assert board != Board.from_fen("B:W18,K30:B1,K9")  # the turn matters
    assert len({board, Board.from_fen("W:W18,K30:B1,K9")}) == 1


def test_board_constructor_validates() -> None:
    board = Board(frozenset({1}), frozenset(), frozenset({32}), frozenset(), Color.WHITE)
    assert board.fen == "W:W32:B1"
    with pytest.raises(ValueError):
        Board(frozenset({1}), frozenset({1}))
    with pytest.raises(ValueError):
        Board(frozenset({40}))
    with pytest.raises(AttributeError):
        board.turn = Color.BLACK  # type: ignore[misc]


# --- move generation ---------------------------------------------------------------------


def test_man_crowned_mid_jump_must_stop() -> None:
    # 23x30 crowns; a king on 30 could jump on over 25, but a new king's move ends there.
    board = Board.from_fen("B:W25,26:B23")
    assert moves_of(board) == ["23x30"]
    after = board.apply(Move.parse("23x30", board))
    assert after.black_kings == {30} and after.white_men == {25}
    # The same jump by a king that already was one goes on.
    assert moves_of(Board.from_fen("B:W25,26:BK23")) == ["23x30x21"]


def test_crowning_by_a_simple_move() -> None:
    board = Board.from_fen("W:W5:B20")
    after = board.apply(Move.parse("5-1", board))
    assert after.white_kings == {1} and after.white_men == frozenset()


def test_choice_between_single_and_double_jump() -> None:
    # The man on 10 may take one piece (10x17) or two (10x19x26): both are legal.
    board = Board.from_fen("B:W14,15,23:B10")
    assert moves_of(board) == ["10x17", "10x19x26"]
    assert board.apply(Move.parse("10x17", board)).white_men == {15, 23}
    assert board.apply(Move.parse("10x26", board)).white_men == {14}


def test_king_jumps_backwards_but_a_man_does_not() -> None:
    assert moves_of(Board.from_fen("B:W14:BK18")) == ["18x9"]
    assert moves_of(Board.from_fen("B:W14:B18")) == ["18-22", "18-23"]
    assert moves_of(Board.from_fen("W:WK14:B18")) == ["14x23"]
    assert moves_of(Board.from_fen("W:W14:B18")) == ["14-9", "14-10"]


def test_capture_is_mandatory() -> None:
    board = Board.from_fen("B:W14:B9,1")
    assert moves_of(board) == ["9x18"]
    with pytest.raises(IllegalMoveError, match="capture is mandatory"):
        Move.parse("1-5", board)


def test_king_circles_back_to_its_start_square() -> None:
    board = Board.from_fen("W:WK30:B17,18,25,26")
    assert moves_of(board) == ["30x21x14x23x30", "30x23x14x21x30"]
    after = board.apply(Move.parse("30x21x14x23x30", board))
    assert after == Board.from_fen("B:WK30:B")


def test_apply_refuses_an_illegal_move() -> None:
    board = Board.initial()
    with pytest.raises(IllegalMoveError, match=re.escape(board.fen)):
        board.apply(Move((9, 14, 19), ()))


# --- notation ----------------------------------------------------------------------------


def test_move_str_and_repr() -> None:
    move = Move((22, 15, 8), (18, 11))
    assert str(move) == "22x15x8"
    assert eval(repr(move)) == move
    assert str(Move((11, 15))) == "11-15"


def test_parse_accepts_full_path_and_ends() -> None:
    board = Board.from_fen("W:W27:B23,15")
    full = Move.parse("27x18x11", board)
    assert full == Move((27, 18, 11), (23, 15))
    assert Move.parse("27x11", board) == full
    assert Move.parse(" 27X18X11 ", board) == full


def test_parse_ambiguous_jump_by_ends() -> None:
    board = Board.from_fen("W:WK30:B17,18,25,26")
    with pytest.raises(AmbiguousMoveError) as info:
        Move.parse("30x30", board)
    assert "'30x30'" in str(info.value) and board.fen in str(info.value)
    assert Move.parse("30x21x14x23x30", board).captures == (25, 17, 18, 26)


def test_parse_incomplete_jump_is_illegal() -> None:
    board = Board.from_fen("W:W27:B23,15")
    with pytest.raises(IllegalMoveError, match="completed"):
        Move.parse("27x18", board)


@pytest.mark.parametrize("text", ["11-16x", "11", "11-15-19", "x11", "11--15", "a-b", "11 15"])
def test_parse_garbage_is_invalid_notation(text: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Move.parse(text, Board.initial())
    assert Board.initial().fen in str(info.value)


@pytest.mark.parametrize("text", ["0-4", "33-29", "11x99"])
def test_parse_off_board_square_is_invalid_notation(text: str) -> None:
    with pytest.raises(InvalidNotationError, match=r"1\.\.32"):
        Move.parse(text, Board.initial())


@pytest.mark.parametrize("text", ["11-14", "21-17", "11x18", "15-19"])
def test_parse_well_formed_but_illegal(text: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        Move.parse(text, Board.initial())
    assert repr(text) in str(info.value)


# --- game rules --------------------------------------------------------------------------


def test_threefold_repetition_is_an_automatic_draw() -> None:
    game = Game(Board.from_fen("B:WK32:BK1"))
    cycle = ("1-5", "32-27", "5-1", "27-32")
    play(game, *cycle)
    assert game.repetitions() == 2
    play(game, *cycle[:3])
    assert game.outcome() is None
    play(game, cycle[3])
    assert game.repetitions() == 3
    assert game.outcome() == Outcome(Termination.THREEFOLD_REPETITION, None)
    assert game.legal_moves() == ()
    with pytest.raises(IllegalMoveError, match="over"):
        game.push_text("1-5")


def test_repetition_needs_the_same_side_to_move() -> None:
    board = Board.from_fen("B:WK32:BK1")
    assert board != Board.from_fen("W:WK32:BK1")


def _wander(game: Game, plies: int, rng: random.Random) -> None:
    """Quiet king moves: no capture, none allowed to the opponent, no third repetition; the
    least repeated position first (a fixed seed breaks ties)."""
    for _ in range(plies):
        seen = game.reversible_positions
        options = []
        for move in game.board.legal_moves():
            after = game.board.apply(move)
            if (
                not move.captures
                and seen.count(after) < 2
                and not any(m.captures for m in after.legal_moves())
            ):
                options.append((seen.count(after), move))
        assert options, f"no quiet move in {game.board.fen}"
        fewest = min(count for count, _ in options)
        game.push(rng.choice([move for count, move in options if count == fewest]))


def test_forty_move_rule_is_an_automatic_draw() -> None:
    game = Game(Board.from_fen("B:WK29,K31,K32:BK1,K3,K4"))
    rng = random.Random(0)
    _wander(game, 79, rng)
    assert game.quiet_plies == 79 and game.outcome() is None
    _wander(game, 1, rng)
    assert game.quiet_plies == 80
    assert game.outcome() == Outcome(Termination.FORTY_MOVE_RULE, None)


def test_man_move_or_capture_resets_the_forty_move_count() -> None:
    game = Game(Board.from_fen("B:WK32,20:BK1,5"))
    play(game, "1-6", "32-27")
    assert game.quiet_plies == 2
    play(game, "5-9")
    assert game.quiet_plies == 0 and game.reversible_positions == (game.board,)


def test_win_by_capturing_all_pieces() -> None:
    game = Game(Board.from_fen("B:W14:B9"))
    play(game, "9x18")
    assert game.outcome() == Outcome(Termination.NO_PIECES, Color.BLACK)


def test_win_by_leaving_no_legal_move() -> None:
    game = Game(Board.from_fen("B:W12:B8,K7"))
    play(game, "7-3")
    assert game.board.legal_moves() == ()
    assert game.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


# --- random games (hypothesis) -----------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_end_by_rule_and_keep_invariants(seed: int) -> None:
    rng = random.Random(seed)
    game = Game()
    counts = (12, 12)
    for _ in range(20_000):  # a defensive cap: the draw rules end every game long before
        if game.is_over():
            break
        board = game.board
        assert Board.from_fen(board.fen) == board
        legal = board.legal_moves()
        for move in legal:
            assert Move.parse(str(move), board) == move
        move = rng.choice(legal)
        game.push(move)
        new = (game.board.piece_count(Color.BLACK), game.board.piece_count(Color.WHITE))
        assert new[0] <= counts[0] and new[1] <= counts[1]
        assert sum(counts) - sum(new) == len(move.captures)
        counts = new
    outcome = game.outcome()
    assert outcome is not None
    if outcome.termination in (Termination.NO_PIECES, Termination.NO_MOVES):
        assert outcome.winner is game.board.turn.opponent


HOSTILE = st.one_of(
    st.text(max_size=60),
    st.from_regex(r"[0-9x\- ]{0,12}", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}[-x][0-9]{1,3}([-x][0-9]{1,3})?", fullmatch=True),
    st.text(alphabet=st.characters(categories=["Nd", "Cc", "Zs", "So"]), max_size=20),
    st.just("9-13" * 10_000),
)


@settings(max_examples=300, deadline=None)
@given(text=HOSTILE)
def test_hostile_notation_raises_only_move_errors(text: str) -> None:
    board = Board.from_fen("W:WK30:B17,18,25,26")
    try:
        move = Move.parse(text, board)
    except (InvalidNotationError, IllegalMoveError, AmbiguousMoveError) as exc:
        assert str(exc)
    else:
        assert move in board.legal_moves()


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.from_regex(r"[BWK:,0-9\-.]{0,30}", fullmatch=True)))
def test_hostile_fen_raises_only_invalid_notation(text: str) -> None:
    try:
        board = Board.from_fen(text)
    except InvalidNotationError:
        return
    assert Board.from_fen(board.fen) == board


# --- the match ---------------------------------------------------------------------------


def test_match_starts_with_seat_zero_black() -> None:
    match = CheckersMatch(MatchRules(length=2))
    assert match.phase is Phase.MOVE
    assert (match.game_number, match.black_seat, match.turn, match.actor) == (1, 0, 0, 0)
    assert match.score == (0.0, 0.0) and match.games == ()
    assert match.position_id == Board.initial().fen
    assert match.legal_moves() == Board.initial().legal_moves()
    assert match.format_move(match.parse_move("11x15".replace("x", "-"))) == "11-15"


def test_match_rejects_zero_length() -> None:
    with pytest.raises(ValueError):
        CheckersMatch(MatchRules(length=0))


def test_match_move_turns_and_last_move() -> None:
    match = CheckersMatch(MatchRules(length=1))
    match.apply(act.Move(player=0, move="11-15"))
    assert match.turn == 1 and match.last_move == (0, Move((11, 15)))
    with pytest.raises(NotYourTurnError):
        match.apply(act.Move(player=0, move="15-19"))
    with pytest.raises(IllegalMoveError):
        match.apply(act.Move(player=1, move="15-19"))
    with pytest.raises(InvalidNotationError):
        match.apply(act.Move(player=1, move="hello"))
    assert len(match.actions) == 1  # refusals change nothing


def test_match_refuses_cube_and_dice_actions() -> None:
    match = CheckersMatch()
    before = match.snapshot()
    for action in (act.Double(player=0), act.Take(player=1), act.Drop(player=1)):
        with pytest.raises(CubeError):
            match.apply(action)
    for action in (
        act.Roll(player=0, dice=(3, 4)),
        act.OpeningRoll(player=None, dice=(3, 4)),
        act.AcceptResign(player=1),
        act.AcceptDraw(player=1),
        act.DeclineDraw(player=1),
    ):
        with pytest.raises(GameError):
            match.apply(action)
    with pytest.raises(GameError):
        match.apply(act.Resign(player=0, level=ResignLevel.GAMMON))
    assert match.snapshot() == before and match.actions == []


def test_draw_offer_must_be_answered() -> None:
    match = CheckersMatch(MatchRules(length=2))
    match.apply(act.OfferDraw(player=0))
    assert match.phase is Phase.DRAW_OFFERED and match.actor == 1
    with pytest.raises(PhaseError):
        match.apply(act.Move(player=0, move="11-15"))
    with pytest.raises(NotYourTurnError):
        match.apply(act.AcceptDraw(player=0))
    with pytest.raises(PhaseError):
        match.apply(act.OfferDraw(player=1))
    assert match.legal_moves() == ()
    match.apply(act.DeclineDraw(player=1))
    assert match.phase is Phase.MOVE and match.actor == 0
    match.apply(act.Move(player=0, move="11-15"))


def test_resign_ends_the_game_at_once() -> None:
    match = CheckersMatch(MatchRules(length=2))
    result = match.apply(act.Resign(player=1))
    assert result.game_result is not None
    assert result.game_result.winner == 0 and result.game_result.kind is ResultKind.RESIGN
    assert match.score == (1.0, 0.0) and match.game_number == 2 and match.black_seat == 1
    assert match.turn == 1  # seat 1 has Black now and moves first


def test_concede_match_ends_it() -> None:
    match = CheckersMatch(MatchRules(length=3))
    match.apply(act.Move(player=0, move="11-15"))
    result = match.apply(act.ConcedeMatch(player=0, reason="left"))
    assert result.match_over and match.is_over() and match.winner() == 1
    assert match.games[-1].kind is ResultKind.FORFEIT
    assert match.phase is Phase.MATCH_OVER and match.actor is None
    with pytest.raises(PhaseError):
        match.apply(act.Move(player=1, move="22-18"))
    # The winner scores what they still needed: the final score says who won.
    assert match.games[-1].points == 3.0 and match.score == (0.0, 3.0)


def test_conceding_while_ahead_still_shows_the_winner_ahead() -> None:
    """A 3-game match: seat 0 wins game 1 and draws game 2 (1.5-0.5), then leaves. Seat 1
    needed 2.5 more, and gets them: 1.5-3, not a 1.5-1.5 tie with a winner."""
    match = CheckersMatch(MatchRules(length=3))
    match.apply(act.Resign(player=1))
    match.apply(act.OfferDraw(player=1))  # seat 1 has Black in game 2 and is on turn
    match.apply(act.AcceptDraw(player=0))
    assert match.score == (1.5, 0.5) and not match.is_over()
    result = match.apply(act.ConcedeMatch(player=0, reason="left"))
    assert result.game_result is not None and result.game_result.points == 2.5
    assert match.score == (1.5, 3.0) and match.winner() == 1 and match.is_over()


def test_game_won_on_the_board_scores_one() -> None:
    match = CheckersMatch(MatchRules(length=1))
    # Seat 0 (Black) gives away a man; White takes; then Black keeps playing until a result.
    game = Game(Board.from_fen("B:W14:B9"))
    match.game = game  # a set-up position, for the scoring path only
    result = match.apply(act.Move(player=0, move="9x18"))
    assert result.game_result is not None and result.game_result.kind is ResultKind.SINGLE
    assert result.match_over and match.winner() == 0 and match.score == (1.0, 0.0)


def test_snapshot_and_replay_agree() -> None:
    rng = random.Random(7)
    match = CheckersMatch(MatchRules(length=2))
    for step in range(400):
        if match.is_over():
            break
        if step % 37 == 5:
            match.apply(act.OfferDraw(player=match.turn))
            match.apply(act.DeclineDraw(player=1 - match.turn))
            continue
        move = rng.choice(match.legal_moves())
        match.apply(act.Move(player=match.turn, move=str(move)))
        data = json.loads(json.dumps(match.snapshot()))
        assert CheckersMatch.from_snapshot(data).snapshot() == match.snapshot()
    replayed = CheckersMatch.replay(match.rules, match.actions)
    assert replayed.snapshot() == match.snapshot()
    restored = CheckersMatch.from_snapshot(match.snapshot())
    assert restored.game.quiet_plies == match.game.quiet_plies
    assert restored.last_move == match.last_move


def test_snapshot_keeps_repetition_history() -> None:
    match = CheckersMatch(MatchRules(length=1))
    match.game = Game(Board.from_fen("B:WK32:BK1"))
    cycle = ["1-5", "32-27", "5-1", "27-32"] * 2
    for text in cycle[:-1]:
        match.apply(act.Move(player=match.turn, move=text))
        match = CheckersMatch.from_snapshot(match.snapshot())
    result = match.apply(act.Move(player=match.turn, move=cycle[-1]))
    assert result.game_result is not None and result.game_result.winner is None


def test_from_snapshot_rejects_other_kinds() -> None:
    with pytest.raises(ValueError):
        CheckersMatch.from_snapshot({"kind": "nannon"})


# --- PDN ---------------------------------------------------------------------------------


def test_pdn_export_of_a_match() -> None:
    actions: list[act.Action] = [
        act.Move(player=0, move="11-15"),
        act.Move(player=1, move="24-19"),
        act.Move(player=0, move="15x24"),
        act.Move(player=1, move="28x19"),
        act.OfferDraw(player=0),
        act.AcceptDraw(player=1),
        act.Move(player=1, move="9-13"),
        act.Resign(player=0),
        act.Move(player=0, move="11-16"),
    ]
    text = to_pdn(MatchRules(length=3), actions, names=('Ann "A"', "Bob"), date="2024.05.01")
    games = text.strip().split("\n\n")
    assert len(games) == 6  # three games, each with tags and moves
    assert games[0].splitlines() == [
        '[Event "tablebot"]',
        '[Date "2024.05.01"]',
        '[Round "1"]',
        '[Black "Ann \\"A\\""]',
        '[White "Bob"]',
        '[Result "1/2-1/2"]',
        '[GameType "21"]',
    ]
    assert games[1] == "1. 11-15 24-19 2. 15x24 28x19 1/2-1/2"
    assert '[Black "Bob"]' in games[2] and '[Result "1-0"]' in games[2]
    assert games[3] == "1. 9-13 1-0"
    assert '[Round "3"]' in games[4] and '[Result "*"]' in games[4]
    assert games[5] == "1. 11-16 *"


def test_pdn_wraps_long_games() -> None:
    rng = random.Random(3)
    match = CheckersMatch(MatchRules(length=1))
    plies = 0
    while plies < 61 and not match.games:
        match.apply(act.Move(player=match.turn, move=str(rng.choice(match.legal_moves()))))
        plies += 1
    assert plies > 40
    text = to_pdn(match.rules, match.actions)
    assert all(len(line) <= 79 for line in text.splitlines())
    movetext = " ".join(text.split("\n\n")[1].split())
    assert movetext.startswith("1. ") and re.search(r" (\*|1-0|0-1|1/2-1/2)$", movetext)
    assert re.findall(r"(\d+)\. ", movetext) == [str(n) for n in range(1, (plies + 1) // 2 + 1)]


# --- random action sequences (hypothesis) ------------------------------------------------

ACTION_KINDS = st.sampled_from(
    ["move", "move", "move", "move", "bad_move", "offer", "accept", "decline", "resign", "cube"]
)


@settings(max_examples=25, deadline=None)
@given(
    length=st.integers(1, 3),
    script=st.lists(st.tuples(ACTION_KINDS, st.integers(0, 1), st.integers(0, 10**6)), max_size=80),
)
def test_random_actions_refusals_change_nothing_and_replay_matches(
    length: int, script: list[tuple[str, int, int]]
) -> None:
    match = CheckersMatch(MatchRules(length=length))
    for kind, player, pick in script:
        legal = match.board.legal_moves()
        action: act.Action
        if kind == "move":
            action = act.Move(player=player, move=str(legal[pick % len(legal)]))
        elif kind == "bad_move":
            action = act.Move(player=player, move=["11-15", "x", "22x8", "9-13"][pick % 4])
        elif kind == "offer":
            action = act.OfferDraw(player=player)
        elif kind == "accept":
            action = act.AcceptDraw(player=player)
        elif kind == "decline":
            action = act.DeclineDraw(player=player)
        elif kind == "resign":
            action = act.Resign(player=player)
        else:
            action = act.Double(player=player)
        before = match.snapshot()
        count = len(match.actions)
        try:
            result = match.apply(action)
        except GameError:
            assert match.snapshot() == before and len(match.actions) == count
            continue
        assert result.action == action
        assert result.match_over == match.is_over()
        if match.is_over():
            break
    # The score adds up: every finished game hands out exactly one point in all.
    assert sum(match.score) == len(match.games)
    assert all(g.game_number == n for n, g in enumerate(match.games, 1))
    if match.is_over():
        high = max(match.score)
        assert high >= length
        assert match.winner() == (
            None if match.score[0] == match.score[1] else match.score.index(high)
        )
    assert CheckersMatch.replay(match.rules, match.actions).snapshot() == match.snapshot()
    assert CheckersMatch.from_snapshot(match.snapshot()).snapshot() == match.snapshot()


def test_engine_factory_builds_checkers_matches() -> None:
    from engines import match_from_snapshot, new_match, replay

    match = new_match("checkers", MatchRules(length=1))
    match.apply(act.Move(player=0, move="11-15"))
    assert isinstance(match, CheckersMatch)
    assert match_from_snapshot(match.snapshot()).snapshot() == match.snapshot()
    rebuilt = replay("checkers", match.rules, [a.to_dict() for a in match.actions])
    assert rebuilt.snapshot() == match.snapshot()
