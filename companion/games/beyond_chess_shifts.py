"""Beyond Chess shifts: which square may move where, the board kept in one piece, Gerets.

The second layer of the engine, over :class:`~companion.games.beyond_chess_moves.PieceMoves`:
a square moves one step into a rift, still touching a former neighbour, leaving no square
alone and not cutting the board into more groups (reading 1); a shift may not expose the
mover's king (reading 2); a Geret moves a pawn with its square (readings 5, 9, 14).
"""

from __future__ import annotations

from companion.games.beyond_chess_cells import (
    AROUND,
    BLACK,
    EAST,
    FRESH,
    NORTH,
    ORIGIN,
    ORTHO,
    PAWN,
    PERPENDICULAR,
    PROMOTIONS,
    RING_LINKED,
    STRIDE,
    WHITE,
    Cell,
    cell_name,
    groups,
    linked_around,
)
from companion.games.beyond_chess_moves import PieceMoves

#: A turn as the engine handles it: (from, to, promotion, shift, whether a Geret).
TurnTuple = tuple[Cell, Cell, int, tuple[Cell, Cell] | None, bool]


def _orphan(sq: set[Cell], a: Cell, b: Cell) -> Cell | None:
    """A square next to ``a`` (not ``b``) left touching no square, with the square of ``a``
    already moved to ``b`` in ``sq``; None when there is none."""
    for o in AROUND:
        n = a + o
        if n in sq and n != b:
            for o2 in AROUND:
                if n + o2 in sq:
                    break
            else:
                return n
    return None


class Shifts(PieceMoves):
    """The shift layer of a position (see the module docstring)."""

    def _shift_refusal(self, a: Cell, b: Cell) -> tuple[str, str] | None:
        """Why the square on ``a`` may not go to ``b`` by the geometry rules (pieces ignored)."""
        sq = self.sq
        if a not in sq:
            return ("shift not allowed", f"there is no square on {cell_name(a)}")
        d = b - a
        if d not in PERPENDICULAR:
            return ("shift blocked", "a square moves one step up, down, left or right")
        if b in sq:
            return ("shift blocked", f"{cell_name(b)} already holds a square")
        p1, p2 = PERPENDICULAR[d]
        if not (a + p1 in sq or a + p2 in sq or b + p1 in sq or b + p2 in sq):
            return (
                "shift loses touch",
                f"the square from {cell_name(a)} would touch none of its former neighbours",
            )
        sq.discard(a)
        sq.add(b)
        try:
            lone = _orphan(sq, a, b)
            if lone is not None:
                return ("orphan", f"the square on {cell_name(lone)} would touch no square")
            if not self._ring_linked(a) and not linked_around(sq, a):
                after = groups(sq)
                if len(after) > len(groups((sq - {b}) | {a})):
                    cut = min(after, key=len)
                    return (
                        "orphan",
                        f"moving the square from {cell_name(a)} would cut {len(cut)} squares "
                        f"(with {cell_name(min(cut))}) off from the board",
                    )
        finally:
            sq.discard(b)
            sq.add(a)
        return None

    def _ring_linked(self, a: Cell) -> bool:
        """Whether the squares touching cell ``a`` all link up through each other (then taking
        ``a`` away cannot split the board: any path through ``a`` goes round it)."""
        sq = self.sq
        mask = 0
        for bit, o in enumerate(AROUND):
            if a + o in sq:
                mask |= 1 << bit
        return RING_LINKED[mask]

    def _geometric_shifts(self) -> list[tuple[Cell, Cell]]:
        """Every (from, to) a square may shift by the geometry rules, ignoring pieces."""
        sq = self.sq
        out: list[tuple[Cell, Cell]] = []
        groups_before = 0  # counted once, and only if some shift needs it
        for a in list(sq):
            for d in ORTHO:
                b = a + d
                if b in sq:
                    continue
                p1, p2 = PERPENDICULAR[d]
                if not (a + p1 in sq or a + p2 in sq or b + p1 in sq or b + p2 in sq):
                    continue
                sq.discard(a)
                sq.add(b)
                ok = _orphan(sq, a, b) is None
                if ok and not self._ring_linked(a) and not linked_around(sq, a):
                    after = len(groups(sq))
                    if not groups_before:
                        groups_before = len(groups((sq - {b}) | {a}))
                    ok = after <= groups_before
                sq.discard(b)
                sq.add(a)
                if ok:
                    out.append((a, b))
        return out

    def _exposes(self, b: Cell, king: Cell, them: int) -> bool:
        """Whether a square arriving on ``b`` (already applied) leaves ``king`` attacked."""
        dx = b % STRIDE - king % STRIDE
        dy = b // STRIDE - king // STRIDE
        if dx == 0 or dy == 0 or dx == dy or dx == -dy:
            return self._attacked(king, them)
        return False

    def _gerets(self, shifts: set[tuple[Cell, Cell]]) -> list[TurnTuple]:
        us = self.turn
        them = us ^ BLACK
        board = self.board
        sq = self.sq
        fwd = NORTH if us == WHITE else -NORTH
        out: list[TurnTuple] = []
        pawn = us | PAWN
        for c, p in list(board.items()):
            if p & 15 != pawn:
                continue
            for d in (fwd, EAST, -EAST):
                b = c + d
                if (c, b) not in shifts:
                    continue
                promos: tuple[int, ...] = (0,)
                if b // STRIDE - ORIGIN == self.promotion_rows[us >> 3]:
                    promos = PROMOTIONS
                del board[c]
                sq.discard(c)
                sq.add(b)
                board[b] = p & ~FRESH
                safe = not self._attacked(self.kings[us >> 3], them)
                del board[b]
                sq.discard(b)
                sq.add(c)
                board[c] = p
                if safe:
                    out.extend((c, b, pr, None, True) for pr in promos)
        return out
