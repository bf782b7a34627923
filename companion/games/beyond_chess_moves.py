"""Beyond Chess piece moves: attacks through rifts, pins, pawn steps, castling, legal moves.

The first layer of the engine (:class:`~companion.games.beyond_chess.BeyondChess` builds on it
through :class:`~companion.games.beyond_chess_shifts.Shifts`): how pieces move over the squares
as they stand, ignoring shifts. Rifts stop sliders, never knights; diagonal steps pass between
corners (reading 7); a fresh pawn stops on its promotion row (reading 8).
"""

from __future__ import annotations

from typing import ClassVar

from companion.games.beyond_chess_cells import (
    AROUND,
    BISHOP,
    BLACK,
    DIAG,
    FRESH,
    KING,
    KNIGHT,
    KNIGHT_STEPS,
    NORTH,
    ORIGIN,
    ORTHO,
    PAWN,
    PROMOTIONS,
    QUEEN,
    ROOK,
    STRIDE,
    WHITE,
    Cell,
    PieceUndo,
)


class PieceMoves:
    """The piece-move layer of a position (see the module docstring); the state it reads is
    set by :class:`~companion.games.beyond_chess.BeyondChess`."""

    shifting: ClassVar[bool] = True
    """Whether squares move: False gives plain chess on whatever squares there are."""

    sq: set[Cell]
    board: dict[Cell, int]
    turn: int
    castling: frozenset[Cell]
    ep: Cell | None
    promotion_rows: tuple[int, int]
    first_turn: bool
    kings: list[Cell]
    counts: list[int]

    def _attacked(self, target: Cell, by: int) -> bool:
        """Whether side ``by`` attacks ``target`` (rifts stop sliders, never knights)."""
        board = self.board
        sq = self.sq
        want = by | KNIGHT
        for d in KNIGHT_STEPS:
            q = board.get(target + d)
            if q is not None and q & 15 == want:
                return True
        back = target - NORTH if by == WHITE else target + NORTH
        want = by | PAWN
        for c in (back + 1, back - 1):
            q = board.get(c)
            if q is not None and q & 15 == want:
                return True
        want = by | KING
        for d in AROUND:
            q = board.get(target + d)
            if q is not None and q & 15 == want:
                return True
        queen = by | QUEEN
        for dirs, slider in ((ORTHO, by | ROOK), (DIAG, by | BISHOP)):
            for d in dirs:
                c = target + d
                while True:
                    q = board.get(c)
                    if q is None:
                        if c not in sq:
                            break
                        c += d
                        continue
                    if q in (slider, queen):
                        return True
                    break
        return False

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return self._attacked(self.kings[self.turn >> 3], self.turn ^ BLACK)

    def _pinned(self, king: Cell, us: int) -> set[Cell]:
        """Cells of ``us`` pieces that shield ``king`` from an enemy slider."""
        board = self.board
        sq = self.sq
        them = us ^ BLACK
        pinned: set[Cell] = set()
        queen = them | QUEEN
        for dirs, slider in ((ORTHO, them | ROOK), (DIAG, them | BISHOP)):
            for d in dirs:
                c = king + d
                shield = -1
                while True:
                    q = board.get(c)
                    if q is None:
                        if c not in sq:
                            break
                    elif shield < 0:
                        if q & BLACK != us:
                            break
                        shield = c
                    else:
                        if q in (slider, queen):
                            pinned.add(shield)
                        break
                    c += d
        return pinned

    # ---- piece moves ------------------------------------------------------------------------

    def _pawn_targets(
        self, frm: Cell, to: Cell, us: int, out: list[tuple[Cell, Cell, int]]
    ) -> None:
        if (to // STRIDE - ORIGIN) == self.promotion_rows[us >> 3]:
            for pr in PROMOTIONS:
                out.append((frm, to, pr))
        else:
            out.append((frm, to, 0))

    def _pseudo_moves(self) -> list[tuple[Cell, Cell, int]]:
        """Piece moves by the rules of movement, ignoring checks and castling."""
        board = self.board
        sq = self.sq
        us = self.turn
        them = us ^ BLACK
        ep = self.ep
        out: list[tuple[Cell, Cell, int]] = []
        append = out.append
        fwd = NORTH if us == WHITE else -NORTH
        for frm, p in board.items():
            if p & BLACK != us:
                continue
            kind = p & 7
            if kind == PAWN:
                to = frm + fwd
                if to in sq and to not in board:
                    self._pawn_targets(frm, to, us, out)
                    to2 = to + fwd
                    if (
                        p & FRESH
                        and to2 in sq
                        and to2 not in board
                        and to // STRIDE - ORIGIN != self.promotion_rows[us >> 3]
                    ):
                        self._pawn_targets(frm, to2, us, out)
                for to in (frm + fwd + 1, frm + fwd - 1):
                    q = board.get(to)
                    if q is not None:
                        if q & BLACK == them:
                            self._pawn_targets(frm, to, us, out)
                    elif to == ep and to in sq:
                        victim = board.get(to - fwd)
                        if victim is not None and victim & 15 == them | PAWN:
                            append((frm, to, 0))
            elif kind in (KNIGHT, KING):
                for d in KNIGHT_STEPS if kind == KNIGHT else AROUND:
                    to = frm + d
                    q = board.get(to)
                    if q is None:
                        if to in sq:
                            append((frm, to, 0))
                    elif q & BLACK == them:
                        append((frm, to, 0))
            else:
                dirs = DIAG if kind == BISHOP else ORTHO if kind == ROOK else AROUND
                for d in dirs:
                    to = frm + d
                    while True:
                        q = board.get(to)
                        if q is None:
                            if to not in sq:
                                break
                            append((frm, to, 0))
                            to += d
                            continue
                        if q & BLACK == them:
                            append((frm, to, 0))
                        break
        return out

    def _castles(self) -> list[tuple[Cell, Cell, int]]:
        """Legal castling moves (the caller knows the king is not in check)."""
        us = self.turn
        them = us ^ BLACK
        king = self.kings[us >> 3]
        board = self.board
        sq = self.sq
        out: list[tuple[Cell, Cell, int]] = []
        for r in self.castling:
            rp = board.get(r)
            if rp is None or rp & 15 != us | ROOK or r // STRIDE != king // STRIDE:
                continue
            step = 1 if r > king else -1
            c = king + step
            while c != r:
                if c not in sq or c in board:
                    break
                c += step
            else:
                if self._attacked(king + step, them) or self._attacked(king + 2 * step, them):
                    continue
                move = (king, king + 2 * step, 0)
                undo = self._move_pieces(*move)
                safe = not self._attacked(king + 2 * step, them)
                self._unmove_pieces(undo)
                if safe:
                    out.append(move)
        return out

    def _move_pieces(self, frm: Cell, to: Cell, promo: int) -> PieceUndo:
        """Make a piece move on the board only (no rights, clocks or turn)."""
        board = self.board
        p = board.pop(frm)
        us = p & BLACK
        kind = p & 7
        captured = board.get(to)
        cap_cell = to
        rook = -1
        if kind == PAWN:
            if captured is None and to == self.ep and (to - frm) % STRIDE != 0:
                cap_cell = to - NORTH if us == WHITE else to + NORTH
                captured = board.pop(cap_cell)
            board[to] = (promo | us) if promo else p & ~FRESH
        else:
            board[to] = p
            if kind == KING:
                self.kings[us >> 3] = to
                if to - frm == 2 or to - frm == -2:
                    step = (to - frm) // 2
                    rook = to + step
                    while rook not in board:
                        rook += step
                    board[frm + step] = board.pop(rook)
        if captured is not None:
            self.counts[captured >> 3 & 1] -= 1
        return (frm, to, p, captured, cap_cell, rook)

    def _unmove_pieces(self, undo: PieceUndo) -> None:
        frm, to, p, captured, cap_cell, rook = undo
        board = self.board
        del board[to]
        board[frm] = p
        if rook >= 0:
            board[rook] = board.pop(frm + (to - frm) // 2)
        if captured is not None:
            board[cap_cell] = captured
            self.counts[captured >> 3 & 1] += 1
        if p & 7 == KING:
            self.kings[p >> 3 & 1] = frm

    def _legal_piece_moves(self) -> list[tuple[Cell, Cell, int]]:
        """Piece moves after which the mover's king is not in check (reading 2's first half)."""
        us = self.turn
        them = us ^ BLACK
        king = self.kings[us >> 3]
        board = self.board
        ep = self.ep
        check = self._attacked(king, them)
        pinned = set() if check else self._pinned(king, us)
        out: list[tuple[Cell, Cell, int]] = []
        for m in self._pseudo_moves():
            frm, to = m[0], m[1]
            if (
                not check
                and frm != king
                and frm not in pinned
                and (to != ep or board[frm] & 7 != PAWN)
            ):
                out.append(m)
                continue
            undo = self._move_pieces(*m)
            if not self._attacked(self.kings[us >> 3], them):
                out.append(m)
            self._unmove_pieces(undo)
        if not check and self.castling:
            out.extend(self._castles())
        return out
