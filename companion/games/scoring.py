"""Counting a board: regions of empty spots, who owns them, and the totals each rule set uses.

A region is a maximal set of linked empty spots (dead stones count as empty, no-man's-land
spots are left out and act as a border that belongs to nobody). A region bordered by stones of
exactly one player is that player's territory; any other region is neutral (disputed or dame).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from companion.games.topology import Topology

if TYPE_CHECKING:
    from companion.games.go import GoGame

EMPTY = -1
#: Letters for players in text boards: Black, White, then more colours for GoBeyond.
LETTERS = "BWRGYCMO"


class Scoring(StrEnum):
    """How a finished game is counted."""

    AREA = "area"  # stones + surrounded empty points (Chinese, stacked, FridgeGo's stone count)
    TERRITORY = "territory"  # surrounded empty points + prisoners (club, Japanese)
    ECONOMY = "economy"  # GoBeyond points


@dataclass(frozen=True)
class Score:
    """A counted result. ``points[i]`` is player i's total, komi included.

    ``winner`` is None for a draw. ``detail`` says how each total was made (for the page).
    """

    points: tuple[float, ...]
    winner: int | None
    margin: float
    method: str
    detail: tuple[Mapping[str, float], ...] = ()

    def text(self, letters: str = LETTERS) -> str:
        """SGF-style result: ``B+3.5``, ``W+R``, ``0`` (draw); ``B+`` with no score for a win
        that counts nothing (First Capture: SGF's score is optional, and ``B+0`` would read
        as a count)."""
        if self.winner is None:
            return "0"
        if self.method == "first capture":
            return f"{letters[self.winner]}+"
        margin = (
            "R"
            if self.method == "resign"
            else ("T" if self.method == "time" else f"{self.margin:g}")
        )
        return f"{letters[self.winner]}+{margin}"


def result_words(text: str, method: str | None = None) -> str:
    """A result as people say it: records write a tie or a draw as ``0`` (or ``Draw``); a
    game that nobody can win (First Capture passed out: method ``"draw"``) is "a draw", an
    equal count (GoBeyond's three-way tie, a level count with no komi) is "a tie". Other
    results read as written (``B+3.5``)."""
    if text not in ("0", "Draw", "draw"):
        return text
    return "a draw" if method == "draw" or text != "0" else "a tie"


@dataclass(frozen=True)
class Region:
    """Linked empty spots and the players whose stones border them."""

    spots: frozenset[int]
    borders: frozenset[int]

    @property
    def owner(self) -> int | None:
        """The single bordering player, or None when disputed or bordered by nobody."""
        return next(iter(self.borders)) if len(self.borders) == 1 else None


def regions(
    topology: Topology,
    board: Iterable[int],
    *,
    dead: frozenset[int] = frozenset(),
    no_mans_land: frozenset[int] = frozenset(),
) -> list[Region]:
    """Split the empty spots (after removing ``dead``) into regions with their borders."""
    colour = [EMPTY if s in dead else c for s, c in enumerate(board)]
    seen = set(no_mans_land)
    found: list[Region] = []
    for start, c in enumerate(colour):
        if c != EMPTY or start in seen:
            continue
        spots: set[int] = set()
        borders: set[int] = set()
        stack = [start]
        seen.add(start)
        while stack:
            s = stack.pop()
            spots.add(s)
            for n in topology.neighbours[s]:
                if n in no_mans_land:
                    continue
                cn = colour[n]
                if cn == EMPTY:
                    if n not in seen:
                        seen.add(n)
                        stack.append(n)
                else:
                    borders.add(cn)
        found.append(Region(frozenset(spots), frozenset(borders)))
    return found


def territory(
    topology: Topology,
    board: Iterable[int],
    players: int,
    *,
    dead: frozenset[int] = frozenset(),
    no_mans_land: frozenset[int] = frozenset(),
) -> list[frozenset[int]]:
    """The territory spots of each player."""
    owned: list[set[int]] = [set() for _ in range(players)]
    for region in regions(topology, board, dead=dead, no_mans_land=no_mans_land):
        if region.owner is not None:
            owned[region.owner] |= region.spots
    return [frozenset(t) for t in owned]


def decide(points: list[float], method: str, detail: list[dict[str, float]]) -> Score:
    """Turn totals into a Score: the highest total wins, equal best totals draw."""
    order = sorted(range(len(points)), key=lambda p: points[p], reverse=True)
    best = order[0]
    margin = points[best] - points[order[1]] if len(order) > 1 else points[best]
    return Score(
        points=tuple(points),
        winner=None if margin == 0 else best,
        margin=margin,
        method=method,
        detail=tuple(detail),
    )


def count(game: GoGame, *, dead: frozenset[int], no_mans_land: frozenset[int]) -> Score:
    """Score ``game`` by its rule set's method (area or territory); komi goes to White."""
    board = game.board
    bad = [s for s in dead if board[s] == EMPTY]
    if bad:
        raise ValueError(f"{game.spot_name(bad[0])} is empty, so it cannot be a dead stone")
    players = game.players
    owned = territory(game.topology, board, players, dead=dead, no_mans_land=no_mans_land)
    stones = [0] * players
    dead_of = [0] * players
    for s, c in enumerate(board):
        if c != EMPTY:
            if s in dead:
                dead_of[c] += 1
            else:
                stones[c] += 1
    komi = [0.0] * players
    if players >= 2:
        komi[1] = game.knobs.komi
    detail: list[dict[str, float]] = []
    points: list[float] = []
    if game.scoring is Scoring.TERRITORY:
        for p in range(players):
            prisoners = game.prisoners[p] + (dead_of[1 - p] if players == 2 else 0)
            detail.append({"territory": len(owned[p]), "prisoners": prisoners, "komi": komi[p]})
            points.append(len(owned[p]) + prisoners + komi[p])
        return decide(points, "territory", detail)
    for p in range(players):
        detail.append({"stones": stones[p], "territory": len(owned[p]), "komi": komi[p]})
        points.append(stones[p] + len(owned[p]) + komi[p])
    return decide(points, "area", detail)
