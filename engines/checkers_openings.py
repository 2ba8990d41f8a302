"""The ACF three-move ballots: the openings of American checkers tournament play.

The American Checker Federation numbers 174 three-move openings (Black's move, White's reply,
Black's second move). 18 of them are barred as losing; the other 156 form the ballot deck
that tournament games are drawn from (:data:`THREE_MOVE_DECK`). Each ballot is played from
both sides: a pair of games with colours swapped.

>>> len(ACF_BALLOTS), len(BARRED), len(THREE_MOVE_DECK)
(174, 18, 156)
>>> ACF_BALLOTS[0]
'9-13 21-17 5-9'
>>> opening_board(1).fen
'W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13'
"""

from __future__ import annotations

from engines.checkers import Board, Game

__all__ = ["ACF_BALLOTS", "BARRED", "THREE_MOVE_DECK", "opening_board", "opening_game"]

# Grouped by Black's first move and White's reply; each string lists Black's second moves.
# A jump is written with its two ends (e.g. 13x22), which is unambiguous in these positions.
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("9-13", "21-17", "5-9 6-9 10-14"),
    ("9-13", "22-17", "13x22"),
    ("9-13", "22-18", "6-9 10-14 10-15 11-15 11-16 12-16"),
    ("9-13", "23-18", "5-9 6-9 10-14 10-15 11-15 11-16 12-16"),
    ("9-13", "23-19", "5-9 6-9 10-14 10-15 11-16"),
    ("9-13", "24-19", "5-9 6-9 10-14 10-15 11-15 11-16"),
    ("9-13", "24-20", "5-9 6-9 10-14 10-15 11-15 11-16 12-16"),
    ("9-14", "22-17", "5-9 6-9 11-15 11-16"),
    ("9-14", "22-18", "5-9 10-15 11-15 11-16 12-16 14-17"),
    ("9-14", "23-18", "14x23"),
    ("9-14", "23-19", "5-9 10-15 11-16 14-18"),
    ("9-14", "24-19", "5-9 10-15 11-15 11-16"),
    ("9-14", "24-20", "5-9 10-15 11-15 11-16"),
    ("10-14", "22-17", "7-10 9-13 11-15 11-16 14-18"),
    ("10-14", "22-18", "6-10 7-10 11-15 11-16 12-16"),
    ("10-14", "23-18", "14x23"),
    ("10-14", "23-19", "6-10 7-10 11-15 11-16 14-18"),
    ("10-14", "24-19", "6-10 7-10 11-15 11-16 14-18"),
    ("10-14", "24-20", "6-10 7-10 11-15 11-16 14-18"),
    ("10-15", "21-17", "6-10 7-10 9-13 9-14 11-16 15-18"),
    ("10-15", "22-17", "6-10 7-10 9-13 9-14 11-16 15-19"),
    ("10-15", "22-18", "15x22"),
    ("10-15", "23-18", "6-10 7-10 9-14 11-16 12-16"),
    ("10-15", "23-19", "6-10 7-10 11-16"),
    ("10-15", "24-19", "15x24"),
    ("10-15", "24-20", "6-10 7-10 11-16 15-19"),
    ("11-15", "21-17", "8-11 9-13 9-14 10-14 15-19"),
    ("11-15", "22-17", "8-11 9-13 15-18 15-19"),
    ("11-15", "22-18", "15x22"),
    ("11-15", "23-18", "8-11 9-14 10-14 12-16 15-19"),
    ("11-15", "23-19", "8-11 9-13 9-14"),
    ("11-15", "24-19", "15x24"),
    ("11-15", "24-20", "8-11 12-16 15-18"),
    ("11-16", "21-17", "7-11 8-11 9-13 9-14 10-14 16-20"),
    ("11-16", "22-17", "7-11 8-11 9-13 16-20"),
    ("11-16", "22-18", "7-11 8-11 10-15 16-19 16-20"),
    ("11-16", "23-18", "7-11 8-11 9-14 10-14 16-20"),
    ("11-16", "23-19", "16x23"),
    ("11-16", "24-19", "7-11 8-11 10-15 16-20"),
    ("11-16", "24-20", "7-11 16-19"),
    ("12-16", "21-17", "9-13 9-14 16-19 16-20"),
    ("12-16", "22-17", "16-19 16-20"),
    ("12-16", "22-18", "16-19 16-20"),
    ("12-16", "23-18", "9-14 16-19 16-20"),
    ("12-16", "23-19", "16x23"),
    ("12-16", "24-19", "16-20"),
    ("12-16", "24-20", "8-12 10-15"),
)

ACF_BALLOTS: tuple[str, ...] = tuple(
    f"{first} {reply} {second}" for first, reply, seconds in _TABLE for second in seconds.split()
)
"""The 174 ballots in ACF order: ``ACF_BALLOTS[n - 1]`` is ACF opening number ``n``."""

BARRED: frozenset[int] = frozenset(
    (3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171)
)
"""The ACF numbers of the 18 ballots barred from the deck as losing for one side."""

THREE_MOVE_DECK: tuple[str, ...] = tuple(
    ballot for number, ballot in enumerate(ACF_BALLOTS, 1) if number not in BARRED
)
"""The 156-ballot deck (ACF order, barred ballots left out)."""


def opening_game(number: int) -> Game:
    """A game after ACF ballot ``number`` (1..174), White to move.

    >>> [str(m) for m in opening_game(4).moves]
    ['9-13', '22-17', '13x22']
    """
    if not 1 <= number <= len(ACF_BALLOTS):
        raise ValueError(f"ACF ballots are numbered 1..{len(ACF_BALLOTS)}, not {number}")
    game = Game()
    for text in ACF_BALLOTS[number - 1].split():
        game.push_text(text)
    return game


def opening_board(number: int) -> Board:
    """The position after ACF ballot ``number`` (1..174), White to move."""
    return opening_game(number).board
