"""Handicap games at the table: the setting, the star points and the komi, in one place.

A handicap is a game setting carried by the ``GameStarted`` knobs: ``handicap_stones`` (2-9
black stones; GoBeyond's ``handicap`` knob is its handicap *points*) and ``placement`` (``"fixed"``, the default, or ``"free"``). The readings chosen:

- **Fixed placement** puts the stones on the star points of a 9x9, 13x13 or 19x19 board in the
  usual order (2: upper right and lower left; 3: and lower right; 4: the four corners; 5: and
  the centre; 6: the corners and the left and right sides; 7: and the centre; 8: the corners
  and all four sides; 9: every star point). The game starts with them on the board.
- **Free placement** (any two-player grid): Black puts the stones anywhere before White's first
  move; the game takes them as setup steps (:class:`~companion.events.HandicapPlaced`: all at
  once as a camera sees them, or one per tap on the page) and refuses moves until all are down.
- **White moves first** after the setup.
- **Komi** is the rule set's (:meth:`GoGame.handicap_komi
  <companion.games.go.GoGame.handicap_komi>`): 0.5 under territory scoring (Japanese, club),
  0.5 plus one point per handicap stone under area scoring (Chinese, 2.5D: Black's handicap
  stones would otherwise count as area), one point per stone in FridgeGo (no komi, no half
  point). A komi the game sets itself is kept.
- **Fixed placement is the same under every rule set** (the star points do not change with
  the rules); the Chinese custom of free placement is the ``free`` setting, chosen per game.
- GoBeyond has its own handicap points; a handicap here is refused for it and for games of
  more than two players.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.games.go import BLACK, WHITE, GoGame
from companion.games.rules import new_game as new_rules_game
from companion.games.topology import Topology

#: Star point lines (low, middle, high; 1-based) by board size.
STAR_LINES = {9: (3, 5, 7), 13: (4, 7, 10), 19: (4, 10, 16)}
#: Which star points each handicap takes, as (column, row) in low/middle/high (0, 1, 2).
_ORDER = {
    "ur": (2, 2),
    "ll": (0, 0),
    "lr": (2, 0),
    "ul": (0, 2),
    "c": (1, 1),
    "l": (0, 1),
    "r": (2, 1),
    "b": (1, 0),
    "t": (1, 2),
}
_FIXED = {
    2: ("ur", "ll"),
    3: ("ur", "ll", "lr"),
    4: ("ur", "ll", "lr", "ul"),
    5: ("ur", "ll", "lr", "ul", "c"),
    6: ("ur", "ll", "lr", "ul", "l", "r"),
    7: ("ur", "ll", "lr", "ul", "l", "r", "c"),
    8: ("ur", "ll", "lr", "ul", "l", "r", "b", "t"),
    9: ("ur", "ll", "lr", "ul", "l", "r", "b", "t", "c"),
}
PLACEMENTS = ("fixed", "free")
_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Handicap:
    """``stones`` black stones, placed ``placement`` ("fixed" or "free")."""

    stones: int
    placement: str = "fixed"

    def __str__(self) -> str:
        return f"{self.stones}-stone handicap ({self.placement} placement)"


def take(knobs: Mapping[str, Any]) -> tuple[Handicap | None, dict[str, Any]]:
    """The handicap the knobs ask for, and the other knobs (the engine's). ValueError, in plain
    words, for a handicap that is not 2-9 or a placement that is neither fixed nor free."""
    rest = dict(knobs)
    raw, placement = rest.pop("handicap_stones", None), str(rest.pop("placement", None) or "fixed")
    if raw in (None, 0, "0", ""):
        return None, rest
    try:
        stones = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"a handicap is a number of stones (2-9), not {raw!r}") from None
    if not 2 <= stones <= 9:
        raise ValueError(f"a handicap is 2 to 9 stones, not {stones}")
    if placement not in PLACEMENTS:
        raise ValueError(f"handicap placement is fixed or free, not {placement!r}")
    return Handicap(stones, placement), rest


def komi(handicap: Handicap, rules: type[GoGame]) -> float:
    """The komi of a handicap game under ``rules`` (see the module docstring)."""
    return rules.handicap_komi(handicap.stones)


def star_points(game: GoGame, stones: int) -> tuple[int, ...]:
    """The spots of a fixed handicap of ``stones`` on the game's board; ValueError for a board
    without standard star points."""
    shape = game.topology.shape  # (layers, rows, columns)
    flat = shape is not None and shape[0] == 1 and shape[1] == shape[2]
    size = shape[1] if shape is not None and flat else None
    lines = STAR_LINES.get(size) if size is not None else None
    if lines is None or game.topology.kind != "grid":
        raise ValueError(
            "fixed handicap placement needs a 9x9, 13x13 or 19x19 board; use free placement"
        )
    names = []
    for key in _FIXED[stones]:
        col, row = _ORDER[key]
        names.append(f"{_COLUMNS[lines[col] - 1]}{lines[row]}")
    return tuple(sorted(game.parse_spot(n) for n in names))


def set_up(game: GoGame, handicap: Handicap) -> None:
    """Check the game can take ``handicap``; put fixed stones on the board (White to move)."""
    if game.players != 2 or type(game).name == "gobeyond":
        raise ValueError("a handicap is for two-player Go (GoBeyond has handicap points)")
    if handicap.placement == "fixed":
        game.setup(dict.fromkeys(star_points(game, handicap.stones), BLACK), to_move=1)
    elif game.topology.kind != "grid":
        raise ValueError("handicap stones need a grid board")


def place(game: GoGame, handicap: Handicap, spots: tuple[int, ...]) -> None:
    """Put some or all of a free handicap's stones on the board (a camera sees them all at
    once; a player tapping them on the page puts one at a time); White is to move once all
    are down. Checks as ValueError: before any move, distinct empty points on the board, no
    more than the handicap."""
    if game.moves or any(c >= 0 and c != BLACK for c in game.board):
        raise ValueError("the handicap stones go on the board before the first move")
    left = pending(game, handicap)
    if len(set(spots)) != len(spots) or not 1 <= len(spots) <= left:
        raise ValueError(
            f"a {handicap.stones}-stone handicap: {left} more black stone"
            f"{'' if left == 1 else 's'}, not {len(spots)}"
        )
    if not all(0 <= s < len(game.board) for s in spots):
        raise ValueError("a handicap stone off the board")
    if any(game.board[s] >= 0 for s in spots):
        raise ValueError("a handicap stone on a point that is taken")
    game.setup(dict.fromkeys(spots, BLACK), to_move=WHITE if len(spots) == left else BLACK)


def new_game(
    rules: str, topology: Topology, stones: int | None, placement: str = "fixed"
) -> GoGame:
    """A game of ``rules`` on ``topology`` with ``stones`` handicap stones (none for None),
    placed ``placement``: for the tracker alone (``companion track``), with no table around
    it. A free handicap's stones are put down later (:func:`place`). ValueError, in plain
    words, for a handicap the game cannot take."""
    game = new_rules_game(rules, topology)
    if not stones:
        return game
    hc, _ = take({"handicap_stones": stones, "placement": placement})
    assert hc is not None
    game = new_rules_game(rules, topology, komi=komi(hc, type(game)))
    set_up(game, hc)
    return game


def pending(game: GoGame, handicap: Handicap | None) -> int:
    """Black stones a free handicap still waits for on ``game`` (0 once placed, or none)."""
    if handicap is None or handicap.placement != "free" or game.moves:
        return 0
    if any(c >= 0 and c != BLACK for c in game.board):
        return 0
    return max(0, handicap.stones - sum(1 for c in game.board if c == BLACK))
