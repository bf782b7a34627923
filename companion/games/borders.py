"""Border points of an estimated position: boundaries to close and dame to fill.

The estimate (:mod:`companion.games.estimate`, step 5) gives each empty point a likeliest
owner. Counting by regions (a region is a player's when only their stones border it) would
then make a whole territory neutral because of one open point where it meets another player's
stone or ground. :func:`borders` names each such point instead, and :func:`count_closed`
counts the game as if the owners had closed their boundaries, so the count gives each player
the ground the ownership map shows them.

Readings:

- A *border point* is an empty point, not already dame, next to another player's live stone,
  boundary or owned (non-dame) empty point, or next to a dame that touches another player
  (once they fill it, the point is on the border).
- It is a *boundary to close* when its owner holds it in more than ``close_share`` of the
  playouts and it has ground of that owner behind it; else it is dame (a point between stones
  only is plain dame, as the players' count leaves it). The least certain points are settled
  first, so a contested point becomes dame and the firmer ground behind it stays territory.
- A closed boundary counts as a stone of its owner: one point under area counting, none under
  territory counting (as after the closing move). Where a closing stone cannot stand (no
  liberty, or no stone left in a supply) the point is dame instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.errors import IllegalMove
from companion.games.go import EMPTY, GoGame, Score


def borders(
    nbrs: Sequence[Sequence[int]],
    board: Sequence[int],
    shares: Sequence[Sequence[float]],
    dead: frozenset[int],
    dame: frozenset[int],
    close_share: float,
) -> tuple[dict[int, int], frozenset[int]]:
    """The border points (step 5): empty points, not already dame, next to another player's
    live stone, boundary or owned empty point. Returns the boundaries to close (spot -> owner)
    and the points left open as dame.

    The least certain points are settled first, so a contested point becomes dame and the
    firmer ground behind it stays territory instead of becoming a border in its turn.
    """
    players = len(shares)
    owner = [max(range(players), key=lambda p: shares[p][s]) for s in range(len(board))]
    boundary: dict[int, int] = {}
    open_points: set[int] = set()

    def other_side(t: int, mine: int) -> bool:
        """Whether empty point ``t`` is held by a player other than ``mine``: their closed
        boundary, or ground they own that is not dame."""
        if t in boundary:
            return boundary[t] != mine
        return t not in dame and t not in open_points and owner[t] != mine

    def conflict(s: int) -> bool:
        mine = owner[s]
        for t in nbrs[s]:
            other = board[t]
            if other == EMPTY:
                if other_side(t, mine):
                    return True
                if t in dame or t in open_points:
                    # Dame touching another player: once they fill it, s is on the border.
                    for u in nbrs[t]:
                        if u != s and (
                            (board[u] == EMPTY and other_side(u, mine))
                            or (board[u] not in (EMPTY, mine) and u not in dead)
                        ):
                            return True
            elif other != mine and t not in dead:
                return True
        return False

    def guards(s: int) -> bool:
        """Whether ``s`` has ground of its owner behind it (else it is plain dame)."""
        mine = owner[s]
        return any(
            board[t] == EMPTY
            and t not in dame
            and t not in open_points
            and t not in boundary
            and owner[t] == mine
            for t in nbrs[s]
        )

    empty = [s for s, c in enumerate(board) if c == EMPTY and s not in dame]
    empty.sort(key=lambda s: (shares[owner[s]][s], s))
    changed = True
    while changed:  # a point settled as dame can put the ground behind it on the border
        changed = False
        for s in empty:
            if s in boundary or s in open_points or not conflict(s):
                continue
            changed = True
            if shares[owner[s]][s] > close_share and guards(s):
                boundary[s] = owner[s]
            else:
                open_points.add(s)
    return boundary, frozenset(open_points)


def count_closed(
    game: GoGame, dead: frozenset[int], dame: frozenset[int], boundary: Mapping[int, int]
) -> tuple[Score, frozenset[int]]:
    """The game's own count with the ``boundary`` points closed by their owners (on a copy),
    and the boundary points that could not be closed (a stone there would have no liberty, or
    the player has no stone left): those count as dame."""
    if not boundary:
        return game.score(dead=dead, no_mans_land=dame), frozenset()
    trial = game.copy()
    unclosed: set[int] = set()
    try:
        trial.setup(boundary)
    except IllegalMove:
        for spot, player in sorted(boundary.items()):
            try:
                trial.setup({spot: player})
            except IllegalMove:
                unclosed.add(spot)
    return trial.score(dead=dead, no_mans_land=dame | unclosed), frozenset(unclosed)
