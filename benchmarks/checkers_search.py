"""Checkers robot speed and strength: `python benchmarks/checkers_search.py [options]`.

Prints, for engines/checkers_search.py on this machine:

- ``nps``: nodes per second, searching the start position and ACF ballot positions to fixed
  node counts;
- ``depth``: the depth iterative deepening completes from the start position in 1 s and 2 s;
- ``latency``: each level's time per move (p50, p99, max) over a few games against a depth-2
  searcher (a level's target: its time budget plus 100 ms), and the master-level hint's;
- ``ladder``: each level against the level below it, over a few games from the deck (the
  stronger level's share of the points);
- ``match``: master (the real level: 2 s of iterative deepening a move) against a depth-2
  searcher, from the ACF three-move ballots (engines/checkers_openings.py: the 156-ballot
  deck, in ACF order, each ballot played twice with the colours swapped). A win scores 1, a
  draw ½; games end by the rules (no move, threefold repetition, the 40-move rule). Target:
  at least 90% of the points over 100 games.

Measured on the 2-core development machine shared with other work (load average 1 to 4):
265,000 nodes/s when it was quiet (117,000 at load 3); depth 12 completed from the start in
1 s and 13 in 2 s (quiet), 11 and 12 (loaded). Latency, loaded, p99: beginner 4 ms,
intermediate 14 ms, advanced 165 ms, expert 1009 ms, master 2039 ms (max 2041 ms), the
master-level hint 2038 ms at most. Ladder over 10 games a pair: intermediate 95% against
beginner, advanced 75% against intermediate, expert 100% against advanced, master 90%
against expert. Match: master against depth 2 over 100 games (the deck's first 50 ballots,
ACF #1 to #58, both colours each): +99 =1 -0, 99.5% of the points. Over the whole deck
(``--deck-games 100``: 100 different ballots from ACF #1 to #173, colours alternating; run as
two halves side by side under ``nice -n 19`` at load average 3 to 7): +99 =0 -1, 99.0% (the
loss: ACF #57, 9-14 24-20 11-15, master White, in 57 plies). ``--deck-games 156`` (every
ballot once), stopped for time after 107 of its 156 games (deck ballots 1-48 and 79-137): +107
=0 -0.

Options: ``--sections nps,depth,latency,ladder,match`` (default all), ``--games N`` (match
games, default 100; even), ``--latency-games N`` (default 2 a level), ``--ladder-games N``
(default 10 a pair), ``--master-budget S`` (default: the master level's budget),
``--first-game N`` (start the match at game N + 1, to run it in parts), ``--deck-games T``
(game ``i`` plays deck ballot ``i * 156 // T``, master Black in even games: 312, the default,
is every ballot with both colours in deck order, so 100 games cover the first 50 ballots; 156
is every ballot once; 100 spreads 100 games over the whole deck).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.checkers import Board, Color, Game, Move
from engines.checkers_openings import ACF_BALLOTS, THREE_MOVE_DECK
from engines.checkers_search import LEVELS, Level, choose_move, hint, search

Player = Callable[[Game], Move]
MAX_PLIES = 400  # a game this long is called a draw (the 40-move rule should end it first)


def nodes_per_second() -> None:
    boards = [Board.initial()] + [_deck_game(i).board for i in (0, 40, 80, 120)]
    nodes = 0
    seconds = 0.0
    for board in boards:
        start = time.perf_counter()
        result = search(board, node_limit=200_000)
        seconds += time.perf_counter() - start
        nodes += result.nodes
    print(f"nps: {nodes / seconds:,.0f} nodes/s ({nodes:,} nodes in {seconds:.2f} s, 5 positions)")


def depth_reached() -> None:
    for budget in (1.0, 2.0):
        start = time.perf_counter()
        result = search(Board.initial(), budget=budget)
        took = time.perf_counter() - start
        print(
            f"depth: {result.depth} completed from the start in {budget:.0f} s "
            f"({result.nodes:,} nodes, returned after {took:.3f} s, best {result.move}, "
            f"score {result.score})"
        )


def _deck_game(index: int) -> Game:
    game = Game()
    for text in THREE_MOVE_DECK[index % len(THREE_MOVE_DECK)].split():
        game.push_text(text)
    return game


def depth2(game: Game) -> Move:
    return search(game.board, game.reversible_positions, depth=2).move


def robot(level: Level, budget: float | None = None, times: list[float] | None = None) -> Player:
    import random

    rng = random.Random(level)

    def play(game: Game) -> Move:
        start = time.perf_counter()
        if budget is not None:
            move = search(game.board, game.reversible_positions, budget=budget).move
        else:
            move = choose_move(game.board, level, rng, history=game.reversible_positions)
        if times is not None:
            times.append(time.perf_counter() - start)
        return move

    return play


def play_game(game: Game, black: Player, white: Player) -> Color | None:
    """Play ``game`` out; the winner's colour, or None for a draw."""
    while True:
        outcome = game.outcome()
        if outcome is not None:
            return outcome.winner
        if len(game.moves) >= MAX_PLIES:
            return None
        player = black if game.board.turn is Color.BLACK else white
        game.push(player(game))


def latency(games: int) -> None:
    for level in Level:
        times: list[float] = []
        player = robot(level, times=times)
        for index in range(games):
            game = _deck_game(index * 37)
            if index % 2:
                play_game(game, depth2, player)
            else:
                play_game(game, player, depth2)
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        budget = LEVELS[level].budget
        print(
            f"latency {level.name.lower():12} p50 {statistics.median(times) * 1000:7.1f} ms  "
            f"p99 {p99 * 1000:7.1f} ms  max {ordered[-1] * 1000:7.1f} ms  "
            f"({len(times)} moves; budget {budget * 1000:.0f} ms + 100)"
        )


def hint_latency() -> None:
    """``hint`` (every move scored, full windows) at the master level, from a few ballots."""
    times = []
    for index in range(0, 156, 31):
        game = _deck_game(index)
        start = time.perf_counter()
        hint(game.board, game.reversible_positions, Level.MASTER)
        times.append(time.perf_counter() - start)
    print(
        f"latency hint (master)  p50 {statistics.median(times) * 1000:7.1f} ms  "
        f"max {max(times) * 1000:7.1f} ms  ({len(times)} positions; budget "
        f"{LEVELS[Level.MASTER].budget * 1000:.0f} ms + 100)"
    )


def deck_ballot(index: int, deck_games: int) -> int:
    """The deck ballot (0..155) of game ``index`` of a match of ``deck_games`` games spread
    evenly over the deck: 312 plays each ballot twice (colours swapped), 156 each once, 100
    a hundred different ballots from the whole deck."""
    return index * len(THREE_MOVE_DECK) // deck_games


def match(games: int, budget: float | None, first: int = 0, deck_games: int = 312) -> None:
    master = robot(Level.MASTER, budget)
    points = 0.0
    wins = draws = losses = 0
    start = time.perf_counter()
    for index in range(first, first + games):
        ballot = deck_ballot(index, deck_games)
        game = _deck_game(ballot)
        master_color = Color.BLACK if index % 2 == 0 else Color.WHITE
        if master_color is Color.BLACK:
            winner = play_game(game, master, depth2)
        else:
            winner = play_game(game, depth2, master)
        if winner is None:
            draws += 1
            points += 0.5
            result = "draw"
        elif winner is master_color:
            wins += 1
            points += 1
            result = "win"
        else:
            losses += 1
            result = "LOSS"
        number = ACF_BALLOTS.index(THREE_MOVE_DECK[ballot]) + 1
        print(
            f"  game {index + 1:3}: ACF #{number:3} {THREE_MOVE_DECK[ballot]:18} master "
            f"{master_color.name.lower():5} {result:4} in {len(game.moves):3} plies  "
            f"[{points:.1f}/{index + 1 - first}, {time.perf_counter() - start:.0f} s]",
            flush=True,
        )
    shown = "the master level" if budget is None else f"{budget} s a move"
    print(
        f"match: master ({shown}) vs depth 2 over {games} games (games {first + 1}.."
        f"{first + games} of {deck_games} over the deck): +{wins} ={draws} -{losses}, "
        f"{points:.1f} points = {100 * points / games:.1f}% (target >= 90%)"
    )


def ladder(games: int) -> None:
    """Each level against the one below it, from the deck, colours swapped each game."""
    levels = list(Level)
    for weaker, stronger in itertools.pairwise(levels):
        points = 0.0
        for index in range(games):
            game = _deck_game(index // 2 * 11)
            strong, weak = robot(stronger), robot(weaker)
            strong_color = Color.BLACK if index % 2 == 0 else Color.WHITE
            if strong_color is Color.BLACK:
                winner = play_game(game, strong, weak)
            else:
                winner = play_game(game, weak, strong)
            points += 0.5 if winner is None else float(winner is strong_color)
        print(
            f"ladder: {stronger.name.lower()} vs {weaker.name.lower()}: "
            f"{points:.1f}/{games} = {100 * points / games:.0f}%",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", default="nps,depth,latency,ladder,match")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--latency-games", type=int, default=2)
    parser.add_argument("--ladder-games", type=int, default=10)
    parser.add_argument("--master-budget", type=float, default=None)
    parser.add_argument("--first-game", type=int, default=0, help="resume: games before it skipped")
    parser.add_argument(
        "--deck-games",
        type=int,
        default=312,
        help="spread the match over the deck as if it had this many games: 312 (default) plays "
        "each ballot with both colours in deck order, 156 each ballot once, 100 a hundred "
        "ballots from the whole deck (colours alternate)",
    )
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "nps" in sections:
        nodes_per_second()
    if "depth" in sections:
        depth_reached()
    if "latency" in sections:
        latency(args.latency_games)
        hint_latency()
    if "ladder" in sections:
        ladder(args.ladder_games)
    if "match" in sections:
        if args.first_game + args.games > args.deck_games:
            parser.error("--first-game + --games is more than --deck-games")
        match(args.games, args.master_budget, args.first_game, args.deck_games)


if __name__ == "__main__":
    main()
