"""Tournament pairing and standings, as pure functions: knockout brackets, round-robin (Berger)
tables and Swiss rounds, with Buchholz and Sonneborn-Berger tie-breaks.

Entrants are plain ids (``int``); a :class:`Pairing` puts ``first`` in seat 0 (the
challenger's seat: Black in checkers' first game) and ``second`` in seat 1, or gives ``first`` a
bye when ``second`` is None. Nothing here knows Discord, the database or a game's rules.

>>> [p.ids for p in knockout_first_round([11, 12, 13, 14, 15])]
[(11, None), (14, 15), (12, None), (13, None)]
>>> [[p.ids for p in r] for r in round_robin_rounds([1, 2, 3])]
[[(1, None), (2, 3)], [(3, None), (1, 2)], [(2, None), (3, 1)]]
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "BYE_POINTS",
    "Pairing",
    "RoundResult",
    "Standing",
    "SwissPlayer",
    "TournamentFormat",
    "bracket_order",
    "knockout_first_round",
    "knockout_next_round",
    "knockout_rounds_needed",
    "pair_swiss",
    "round_robin_rounds",
    "standings",
    "swiss_rounds_recommended",
]

BYE_POINTS = 1.0
"""A bye scores as a win, as in chess Swiss events."""


class TournamentFormat(enum.StrEnum):
    KNOCKOUT = "knockout"  # single elimination, seeded, byes to the top seeds
    ROUND_ROBIN = "round robin"  # everyone meets everyone once (Berger tables)
    SWISS = "swiss"  # a set number of rounds, paired within score groups


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of a round: ``first`` sits in seat 0; ``second`` None is a bye for ``first``."""

    first: int
    second: int | None

    @property
    def ids(self) -> tuple[int, int | None]:
        return (self.first, self.second)

    @property
    def is_bye(self) -> bool:
        return self.second is None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished pairing: ``points_first`` is 1 (first won), 0.5 (drawn) or 0; a bye's is
    :data:`BYE_POINTS`."""

    first: int
    second: int | None
    points_first: float

    @property
    def points_second(self) -> float:
        return 1.0 - self.points_first


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """What Swiss pairing needs of an entrant: its ``score`` so far, a ``rating`` to rank
    within a score group, the ``opponents`` met, whether it ``had_bye``, and ``seat_balance``
    (games in seat 0 minus games in seat 1)."""

    id: int
    score: float = 0.0
    rating: float = 0.0
    opponents: frozenset[int] = field(default_factory=frozenset)
    had_bye: bool = False
    seat_balance: int = 0


# --- knockout --------------------------------------------------------------------------------


def knockout_rounds_needed(entrants: int) -> int:
    """Rounds to a champion: the bracket is the next power of two."""
    return max(0, (entrants - 1).bit_length())


def bracket_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a bracket of ``size`` (a power of two): neighbours
    meet in round 1, and seeds 1 and 2 sit in opposite halves, so they can only meet in the final.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket holds a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def knockout_first_round(seeded: Sequence[int]) -> list[Pairing]:
    """The first round of a knockout, ``seeded`` best first: the top seeds take the byes.
    The pairings are in bracket order, so the winners of pairings 2k and 2k+1 meet next."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least 2 entrants")
    size = 1 << knockout_rounds_needed(len(seeded))
    order = bracket_order(size)
    pairings = []
    for top, bottom in zip(order[::2], order[1::2], strict=True):
        first = seeded[top - 1]
        second = seeded[bottom - 1] if bottom <= len(seeded) else None
        pairings.append(Pairing(first, second))
    return pairings


def knockout_next_round(winners: Sequence[int]) -> list[Pairing]:
    """The next round from the last round's winners in bracket order (one per pairing)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError(f"a knockout round pairs an even number of winners, not {len(winners)}")
    return [Pairing(a, b) for a, b in zip(winners[::2], winners[1::2], strict=True)]


# --- round robin -----------------------------------------------------------------------------


def round_robin_rounds(entrants: Sequence[int]) -> list[list[Pairing]]:
    """Berger tables: every entrant meets every other exactly once; with an odd count one sits
    out each round (a bye). Seats alternate so each entrant's seat-0 count is within one of
    its seat-1 count."""
    if len(entrants) < 2:
        raise ValueError("a round robin needs at least 2 entrants")
    players: list[int | None] = list(entrants)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds = []
    circle = players[:-1]
    fixed = players[-1]
    for r in range(n - 1):
        pairs: list[tuple[int | None, int | None]] = []
        # The fixed entrant alternates seats round by round.
        pairs.append((circle[0], fixed) if r % 2 == 0 else (fixed, circle[0]))
        for i in range(1, n // 2):
            pairs.append((circle[i], circle[-i]) if i % 2 else (circle[-i], circle[i]))
        rounds.append([_pairing(a, b) for a, b in pairs])
        circle = circle[-1:] + circle[:-1]
    return rounds


def _pairing(a: int | None, b: int | None) -> Pairing:
    if a is None:
        assert b is not None
        return Pairing(b, None)
    return Pairing(a, b)


# --- Swiss -----------------------------------------------------------------------------------


def swiss_rounds_recommended(entrants: int) -> int:
    """Rounds enough to separate a sole winner: ceil(log2(n)), at least 1."""
    return max(1, (entrants - 1).bit_length())


def pair_swiss(players: Sequence[SwissPlayer], *, balance_seats: bool = True) -> list[Pairing]:
    """Pair one Swiss round.

    - No rematch while any rematch-free pairing exists (checked by a maximum matching, so the
      greedy choices below never paint themselves into a corner);
    - at most one bye per player (the bye goes to the lowest-ranked entrant without one);
    - within score groups first, top half against bottom half (the Dutch system's S1 against
      S2), an odd one out floating down to the next group;
    - with ``balance_seats``, seat 0 to whoever has sat there less.
    """
    if len(players) < 2:
        raise ValueError("a Swiss round needs at least 2 players")
    ranked = sorted(players, key=lambda p: (-p.score, -p.rating, p.id))
    index = {p.id: i for i, p in enumerate(ranked)}
    if len(index) != len(ranked):
        raise ValueError("a player is listed twice")
    met = [frozenset(index[o] for o in p.opponents if o in index) for p in ranked]
    graph = _Graph(len(ranked), lambda u, v: v not in met[u])
    pairable = graph.maximise()
    pairings: list[Pairing] = []
    sitting_out: int | None = None
    if len(ranked) % 2:
        sitting_out, pairable = _choose_bye(ranked, graph)
        pairings.append(Pairing(ranked[sitting_out].id, None))
    if not pairable:  # no rematch-free pairing exists: let rematches in, fewest first
        graph = _Graph(len(ranked), lambda u, v: True)
        if sitting_out is not None:
            graph.active[sitting_out] = False
        graph.maximise()
    remaining = [i for i in range(len(ranked)) if graph.active[i]]
    while remaining:
        top = remaining[0]
        preferred = _preferences(top, remaining, ranked)
        preferred.sort(key=lambda i: i in met[top])  # stable: rematches last, if allowed at all
        for partner in preferred:
            if graph.compatible(top, partner) and graph.pick(top, partner):
                break
        else:  # unreachable: the matching proves the remaining players can all be paired
            raise AssertionError("no partner left for a player the matching could pair")
        remaining.remove(top)
        remaining.remove(partner)
        pairings.append(_seated(ranked[top], ranked[partner], balance_seats))
    return pairings


def _choose_bye(ranked: Sequence[SwissPlayer], graph: _Graph) -> tuple[int, bool]:
    """The lowest-ranked player without a bye whose absence leaves the rest pairable without a
    rematch, and True; if none can sit out that way, the lowest-ranked without a bye (a rematch
    is the lesser evil) and False; if all have had one, the lowest-ranked may have a second."""
    order = list(range(len(ranked) - 1, -1, -1))
    candidates = [i for i in order if not ranked[i].had_bye] or order
    for i in candidates:
        if graph.remove(i):
            return i, True
    return candidates[0], False


def _preferences(top: int, remaining: Sequence[int], ranked: Sequence[SwissPlayer]) -> list[int]:
    """``top``'s partners best first: its score group from the Dutch ideal (the group's middle)
    down, then up; then the lower groups in rank order."""
    score = ranked[top].score
    group = [i for i in remaining if ranked[i].score == score]
    others = [i for i in remaining if ranked[i].score != score]
    ideal = len(group) // 2
    same = group[ideal:] + group[1:ideal][::-1] if len(group) > 1 else []
    return [i for i in same if i != top] + others


def _seated(a: SwissPlayer, b: SwissPlayer, balance: bool) -> Pairing:
    if balance and b.seat_balance < a.seat_balance:
        return Pairing(b.id, a.id)
    return Pairing(a.id, b.id)


class _Graph:
    """A maximum matching over players ``0..n-1`` that may meet (``compatible``), kept maximum
    as pairs are fixed: Edmonds' blossom algorithm finds the augmenting paths."""

    def __init__(self, size: int, compatible: Callable[[int, int], bool]) -> None:
        self.size = size
        self.compatible = compatible
        self.active = [True] * size
        self.mate = [-1] * size

    def neighbours(self, v: int) -> Iterable[int]:
        return (u for u in range(self.size) if u != v and self.active[u] and self.compatible(v, u))

    def free(self) -> list[int]:
        return [v for v in range(self.size) if self.active[v] and self.mate[v] < 0]

    def maximise(self) -> bool:
        """Greedy first, then augment from each free player; True when everyone (but at most one
        of an odd count) is matched."""
        for v in range(self.size):
            if self.mate[v] < 0:
                for u in self.neighbours(v):
                    if self.mate[u] < 0:
                        self.mate[v], self.mate[u] = u, v
                        break
        for v in self.free():
            if self.mate[v] < 0:
                self.augment(v)
        return len(self.free()) <= 1

    def remove(self, v: int) -> bool:
        """Take ``v`` out (a bye) if the others stay perfectly matched; True if it did."""
        saved = self.mate[:]
        partner = self.mate[v]
        self.active[v] = False
        self.mate[v] = -1
        if partner >= 0:
            self.mate[partner] = -1
            if not self.augment(partner):
                self.active[v] = True
                self.mate = saved
                return False
        if self.free():  # the rest was not perfectly matched to begin with
            self.active[v] = True
            self.mate = saved
            return False
        return True

    def pick(self, a: int, b: int) -> bool:
        """Fix the pair ``a``-``b`` if the rest can still be matched as fully as before."""
        if self.mate[a] == b:
            self.active[a] = self.active[b] = False
            return True
        saved = self.mate[:]
        freed = [m for m in (self.mate[a], self.mate[b]) if m >= 0]
        before = len(self.free())
        self.active[a] = self.active[b] = False
        self.mate[a] = self.mate[b] = -1
        for m in freed:
            self.mate[m] = -1
        if len(freed) == 2 and self.compatible(freed[0], freed[1]):
            self.mate[freed[0]], self.mate[freed[1]] = freed[1], freed[0]
        else:
            for m in freed:
                if self.mate[m] < 0:
                    self.augment(m)
        if len(self.free()) > before:
            self.active[a] = self.active[b] = True
            self.mate = saved
            return False
        return True

    def augment(self, root: int) -> bool:
        """Edmonds' search for an augmenting path from the free ``root``; flips it if found."""
        mate = self.mate
        parent = [-1] * self.size
        base = list(range(self.size))
        used = [False] * self.size
        used[root] = True
        queue = deque([root])

        def lowest_common_ancestor(a: int, b: int) -> int:
            seen = [False] * self.size
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] < 0:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark_path(v: int, stem: int, child: int, blossom: list[bool]) -> None:
            while base[v] != stem:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        while queue:
            v = queue.popleft()
            for to in self.neighbours(v):
                if base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] >= 0 and parent[mate[to]] >= 0):
                    stem = lowest_common_ancestor(v, to)
                    blossom = [False] * self.size
                    mark_path(v, stem, to, blossom)
                    mark_path(to, stem, v, blossom)
                    for i in range(self.size):
                        if blossom[base[i]]:
                            base[i] = stem
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] < 0:
                    parent[to] = v
                    if mate[to] < 0:
                        while to >= 0:  # flip the path back to the root
                            up = parent[to]
                            after = mate[up]
                            mate[to], mate[up] = up, to
                            to = after
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False


# --- standings -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a table: ``points``, then the tie-breaks Buchholz (the opponents' points)
    and Sonneborn-Berger (each opponent's points times what was scored against them)."""

    rank: int
    id: int
    points: float
    buchholz: float
    sonneborn_berger: float
    played: int
    won: int
    drawn: int
    lost: int


def standings(
    entrants: Sequence[int],
    results: Iterable[RoundResult],
    *,
    seed: Mapping[int, int] | None = None,
) -> list[Standing]:
    """Rank by points, Buchholz, Sonneborn-Berger, then ``seed`` (lower first; entry order by
    default). Equal on all of those shares a rank."""
    points = {e: 0.0 for e in entrants}
    record = {e: [0, 0, 0] for e in entrants}
    against: dict[int, list[tuple[int, float]]] = {e: [] for e in entrants}
    for result in results:
        if result.second is None:
            points[result.first] += BYE_POINTS
            continue
        for me, them, scored in (
            (result.first, result.second, result.points_first),
            (result.second, result.first, result.points_second),
        ):
            points[me] += scored
            against[me].append((them, scored))
            record[me][0 if scored == 1 else 1 if scored == 0.5 else 2] += 1
    order = seed or {e: i for i, e in enumerate(entrants)}
    lines = []
    for e in entrants:
        buchholz = sum(points[o] for o, _ in against[e])
        sb = sum(points[o] * scored for o, scored in against[e])
        won, drawn, lost = record[e]
        lines.append((points[e], buchholz, sb, e, won, drawn, lost))
    lines.sort(key=lambda t: (-t[0], -t[1], -t[2], order.get(t[3], len(order))))
    table: list[Standing] = []
    for i, (pts, bh, sb, e, won, drawn, lost) in enumerate(lines):
        tied = table and (table[-1].points, table[-1].buchholz, table[-1].sonneborn_berger) == (
            pts,
            bh,
            sb,
        )
        rank = table[-1].rank if tied else i + 1
        table.append(Standing(rank, e, pts, bh, sb, won + drawn + lost, won, drawn, lost))
    return table
