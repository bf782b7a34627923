"""Beyond Chess's vocabulary: grid cells, piece codes, turns, outcomes, how squares touch, armies.

Everything the engine (:mod:`companion.games.beyond_chess`) and its notation share that is not
a position: a cell is one int on an unbounded grid (neighbours differ by fixed offsets), a piece
is ``colour | type`` (plus :data:`FRESH` for a pawn that may still step two), and squares
*touch* when they share a side or a corner (reading 1). :func:`check_army` is reading 15.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from companion.errors import PositionError

Cell = int
"""A grid cell, encoded as one int (see :func:`cell`); neighbours differ by fixed offsets."""

STRIDE: Final = 1 << 16
ORIGIN: Final = 1 << 15
LIMIT: Final = ORIGIN - 64

WHITE: Final = 0
BLACK: Final = 8
PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6
FRESH: Final = 16
"""Flag on a pawn code: this pawn has never moved, so it may step two cells."""

PIECE_LETTERS: Final = ".pnbrqk"
PIECE_NAMES: Final = ("", "pawn", "knight", "bishop", "rook", "queen", "king")
PROMOTIONS: Final = (QUEEN, ROOK, BISHOP, KNIGHT)

NORTH: Final = STRIDE
EAST: Final = 1
ORTHO: Final = (NORTH, -NORTH, EAST, -EAST)
DIAG: Final = (NORTH + EAST, NORTH - EAST, -NORTH + EAST, -NORTH - EAST)
AROUND: Final = ORTHO + DIAG
KNIGHT_STEPS: Final = (
    2 * NORTH + 1,
    2 * NORTH - 1,
    -2 * NORTH + 1,
    -2 * NORTH - 1,
    NORTH + 2,
    NORTH - 2,
    -NORTH + 2,
    -NORTH - 2,
)
PERPENDICULAR: Final = {
    NORTH: (EAST, -EAST),
    -NORTH: (EAST, -EAST),
    EAST: (NORTH, -NORTH),
    -EAST: (NORTH, -NORTH),
}


def cell(x: int, y: int) -> Cell:
    """The cell at column ``x``, row ``y`` (a1 is (0, 0)); raises PositionError past the grid."""
    if not (-LIMIT <= x <= LIMIT and -LIMIT <= y <= LIMIT):
        raise PositionError(f"cell ({x}, {y}) is beyond the grid")
    return (x + ORIGIN) + (y + ORIGIN) * STRIDE


def coords(c: Cell) -> tuple[int, int]:
    """(x, y) of a cell."""
    y, x = divmod(c, STRIDE)
    return x - ORIGIN, y - ORIGIN


def cell_name(c: Cell) -> str:
    """``e4`` inside columns a-z and rows 1 and up, else ``[x,y]`` (zero-based, a1 = [0,0])."""
    x, y = coords(c)
    if 0 <= x < 26 and y >= 0:
        return f"{chr(97 + x)}{y + 1}"
    return f"[{x},{y}]"


def piece_letter(piece: int) -> str:
    """FEN letter of a piece code (upper case for white)."""
    letter = PIECE_LETTERS[piece & 7]
    return letter.upper() if piece & BLACK == WHITE else letter


def colour_name(colour: int) -> str:
    return "white" if colour == WHITE else "black"


class Turn(NamedTuple):
    """One turn: a piece move (``frm`` -> ``to``, ``promotion`` a piece type or 0) then
    ``shift`` = (from cell, to cell) of one square; or, with ``geret``, a pawn and its square
    moved together from ``frm`` to ``to`` (the whole turn, ``shift`` is None).

    Castling is the king's two-cell move; en passant is the pawn's diagonal move to the skipped
    cell. ``shift`` is None on the opening turn and on a fixed board.
    """

    frm: Cell
    to: Cell
    promotion: int = 0
    shift: tuple[Cell, Cell] | None = None
    geret: bool = False

    @property
    def piece_move(self) -> Turn:
        """The piece-move part alone (what a half-made turn looks like); a Geret is itself."""
        return self if self.geret or self.shift is None else self._replace(shift=None)


class Outcome(NamedTuple):
    """How a game ended: ``result`` "1-0", "0-1" or "1/2-1/2" and a reason in plain words."""

    result: str
    reason: str


PieceUndo = tuple[Cell, Cell, int, int | None, Cell, Cell]
TurnState = tuple[frozenset[Cell], Cell | None, int, int, bool, tuple[Cell, Cell] | None, int, int]


def ring_table() -> tuple[bool, ...]:
    """For each subset (bit mask over AROUND) of the eight cells around a cell: whether those
    cells form one group by touching each other (a flood over at most eight cells, once)."""
    table = []
    for mask in range(256):
        cells = {AROUND[bit] for bit in range(8) if mask >> bit & 1}
        table.append(len(groups(cells)) <= 1)
    return tuple(table)


def linked_around(squares: set[Cell], a: Cell) -> bool:
    """Whether the squares touching cell ``a`` (not itself a square) are all in one group of
    ``squares``: a flood from one of them that stops as soon as it has met them all."""
    ring = {a + o for o in AROUND if a + o in squares}
    if len(ring) <= 1:
        return True
    start = ring.pop()
    seen = {start}
    todo = [start]
    while todo:
        here = todo.pop()
        for o in AROUND:
            n = here + o
            if n in squares and n not in seen:
                seen.add(n)
                ring.discard(n)
                if not ring:
                    return True
                todo.append(n)
    return False


def groups(squares: Iterable[Cell]) -> list[set[Cell]]:
    """The squares split into groups linked by touching (side or corner)."""
    left = set(squares)
    found: list[set[Cell]] = []
    while left:
        start = left.pop()
        group = {start}
        todo = [start]
        while todo:
            here = todo.pop()
            for o in AROUND:
                n = here + o
                if n in left:
                    left.discard(n)
                    group.add(n)
                    todo.append(n)
        found.append(group)
    return found


RING_LINKED: Final = ring_table()

#: The pieces of one side of a chess set: what a custom setup may place at most (reading 15).
ARMY: Final = {KING: 1, QUEEN: 1, ROOK: 2, BISHOP: 2, KNIGHT: 2, PAWN: 8}


def check_army(pieces: Mapping[Cell, int]) -> None:
    """Raise PositionError unless each side's pieces fit in one chess set (reading 15)."""
    for colour in (WHITE, BLACK):
        for kind, most in ARMY.items():
            count = sum(1 for p in pieces.values() if p & 15 == colour | kind)
            if count > most or (kind == KING and count != most):
                limit = "exactly" if kind == KING else "at most"
                raise PositionError(
                    f"{colour_name(colour)} has {_many(count, kind)}; a setup has {limit} "
                    f"{_many(most, kind)}"
                )


def _many(count: int, kind: int) -> str:
    return f"{count} {PIECE_NAMES[kind]}{'' if count == 1 else 's'}"
