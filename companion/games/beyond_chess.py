"""Beyond Chess: chess on 64 loose squares that the players shift every turn (the position).

The rules are ``shared/rules/beyond-chess.txt``. This module is the pure engine's position and
its turns: no I/O, no notation beyond cell names (see :mod:`companion.games.beyond_chess_notation`).
It is built in layers, one job each: :mod:`~companion.games.beyond_chess_cells` (cells, pieces,
turns, touching, armies), :mod:`~companion.games.beyond_chess_moves` (piece moves),
:mod:`~companion.games.beyond_chess_shifts` (shifts and Gerets); every name they define is
importable from here too. Squares sit on an
unbounded integer grid; an empty grid cell is a *rift*. A turn is a piece move then a shift of one
square, or a *Geret* (a pawn and its square moved together), which is the whole turn.

Readings where the rule sheet is silent or loose (each testable one is tested in
``tests/test_beyond_chess.py``, which names them by number):

1. **Touching** means sharing a side *or a corner* (the sheet's orphan rule says "side or corner").
   A shifted square must still touch one of the squares it touched before the shift, and after
   the shift every square must touch at least one other square. **The board stays in one
   piece:** "All squares must remain connected to the board at all times", so a shift may not
   cut the squares into more groups (linked by touching) than they formed before it; a group of
   two or more cut off from the rest is orphaned from the board as surely as a single square
   (refused with reason ``"orphan"``). A custom setup that starts in several groups (the sheet
   invites combining boards) may not be cut further, and a shift may join its groups.
2. **A shift may not leave the mover's own king in check.** The king must already be safe after
   the piece move (the sheet), and the turn must also *end* with the king safe, so a shift that
   fills a rift and opens a line onto your own king is refused. (Removing a square only makes a
   rift, which blocks lines, so only the shifted square's new cell can expose a king.)
3. **A shift may give check** (the sheet only restricts how a check is escaped).
4. **A piece move needs a shift to follow.** A piece move after which no legal shift exists is not
   a legal turn; a side with no legal turn is checkmated (in check) or stalemated.
5. **The opening turn has no shift, hence no Geret** (a Geret moves a square). This holds for
   custom setups too: the game's first turn never shifts. A FEN is taken as the opening turn
   only when it is the traditional start; otherwise its turn includes a shift.
6. **The square a piece just left may be shifted** in the same turn (it is now empty); the square
   the piece landed on may not (it is occupied, and a pawn's square moves only by a Geret).
7. **Diagonal steps are never blocked by rifts beside them:** a bishop, queen, king or capturing
   pawn passes between two corners; only a rift *on* the path stops a slider.
8. **Double step:** a pawn that has never moved (no step, capture or Geret) may step two cells
   forward if both cells are empty squares, except across its promotion row: a custom setup
   can put a fresh pawn one row short of it, and the pawn must stop there and promote (it may
   never stand beyond that row unpromoted). En passant is possible on the next turn only, and only
   if the skipped cell is still a square (the mover may shift it away in the same turn, which
   ends the en passant right).
9. **Promotion** happens on the row (grid y) where the opponent's king stood at the start of the
   game, whatever x the pawn has; a forward Geret onto that row promotes too.
10. **Castling** (the king and a rook with castling right on the same row, three or more cells
    apart; a custom setup gives the right to every such rook): the king moves two cells toward
    the rook, which lands on the cell the king crossed. Every cell between king and rook must be
    an empty square (no rift, no piece); the king may not be in check, pass through or land on an
    attacked cell, and the whole turn must leave it safe (a rook beyond the corner on a grown
    board can attack the king's new cell).
11. **Eighth shift:** the shifts of the whole game (both players; a Geret counts, the piece moves
    do not break the run) form a run while each shift is the exact reverse of the one before. The
    shift that makes the run eight long is legal and ends the game as a stalemate (a draw) unless
    the turn checkmates.
12. **30-move rule:** once a side has only its king, its opponent has 30 turns to mate; the
    turn that captured the last piece is not counted. If the 30th such turn does not mate, the game
    ends as a stalemate (a draw). With two bare kings every turn counts. The 50-move rule and
    repetition are not part of Beyond Chess and are not applied.
13. **Square colours are not tracked:** the sheet says bishops ignore them, so they do not matter.
14. **A Geret is a piece move, so it may answer a check** (the sheet), and the engine applies
    exactly that test; under the shift geometry it never succeeds, though: a Geret removes the
    pawn's own square (a pawn on a line already blocked it) and fills a rift (which only opens
    lines).
15. **Custom setups** (:func:`check_army`): each side brings at most the pieces of one chess
    set (exactly one king; at most one queen, two rooks, two bishops, two knights and eight
    pawns): "the army you command looks the same", and the sheet lets each player choose where
    their pieces start, not which pieces they have. A lighter army is allowed (odds games,
    lessons); a position from a game in progress (a FEN, promoted pieces) is not a setup.

The grid is bounded only by the cell encoding, +-32000 cells from the start: a game would need
32000 shifts in one direction to reach it, which no table will see.

:class:`FixedBoardChess` is the same engine with shifting turned off: plain chess (used by
``companion chess perft --fixed-board`` to check move generation against published tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, Final

from companion.errors import IllegalTurn, PositionError
from companion.games.beyond_chess_cells import (
    ARMY,
    AROUND,
    BISHOP,
    BLACK,
    DIAG,
    EAST,
    FRESH,
    KING,
    KNIGHT,
    KNIGHT_STEPS,
    LIMIT,
    NORTH,
    ORIGIN,
    ORTHO,
    PAWN,
    PERPENDICULAR,
    PIECE_LETTERS,
    PIECE_NAMES,
    PROMOTIONS,
    QUEEN,
    ROOK,
    STRIDE,
    WHITE,
    Cell,
    Outcome,
    PieceUndo,
    Turn,
    TurnState,
    cell,
    cell_name,
    check_army,
    colour_name,
    coords,
    piece_letter,
)
from companion.games.beyond_chess_shifts import Shifts, TurnTuple

#: The engine and its vocabulary (defined in the layer modules, importable from here).
__all__ = [
    "ARMY",
    "AROUND",
    "BISHOP",
    "BLACK",
    "DIAG",
    "EAST",
    "FRESH",
    "KING",
    "KNIGHT",
    "KNIGHT_STEPS",
    "LIMIT",
    "NORTH",
    "ORIGIN",
    "ORTHO",
    "PAWN",
    "PERPENDICULAR",
    "PIECE_LETTERS",
    "PIECE_NAMES",
    "PROMOTIONS",
    "QUEEN",
    "ROOK",
    "STRIDE",
    "VARIANTS",
    "WHITE",
    "BeyondChess",
    "Cell",
    "FixedBoardChess",
    "Outcome",
    "PieceUndo",
    "Turn",
    "TurnState",
    "cell",
    "cell_name",
    "check_army",
    "colour_name",
    "coords",
    "piece_letter",
    "traditional",
    "variant",
]


class BeyondChess(Shifts):
    """A Beyond Chess position with its move stack (``push``/``pop`` as in python-chess).

    ``pieces`` maps cell -> piece code (``colour | type``, plus :data:`FRESH` for a pawn that
    may still step two). ``castling`` holds the cells of rooks that keep the right to castle.
    ``promotion_rows`` = (row where white promotes, row where black promotes). ``last_shift``
    and ``shift_run`` describe the run of back-and-forth shifts (reading 11); ``bare_turns``
    counts the 30-move rule (reading 12). Raises PositionError for a position that cannot be a
    game (a piece off the squares, not one king a side, the side not to move in check).
    """

    name: ClassVar[str] = "beyond"
    title: ClassVar[str] = "Beyond Chess"
    shifting: ClassVar[bool] = True
    """Whether squares move: False gives plain chess on whatever squares there are."""

    def __init__(
        self,
        *,
        squares: Iterable[Cell],
        pieces: Mapping[Cell, int],
        turn: int = WHITE,
        castling: Iterable[Cell] = (),
        ep: Cell | None = None,
        promotion_rows: tuple[int, int] = (7, 0),
        halfmove: int = 0,
        fullmove: int = 1,
        first_turn: bool = False,
        last_shift: tuple[Cell, Cell] | None = None,
        shift_run: int = 0,
        bare_turns: int = 0,
    ) -> None:
        self.sq: set[Cell] = set(squares)
        self.board: dict[Cell, int] = dict(pieces)
        if turn not in (WHITE, BLACK):
            raise PositionError("the side to move must be white or black")
        self.turn = turn
        self.castling: frozenset[Cell] = frozenset(castling)
        self.ep = ep
        self.promotion_rows = promotion_rows
        self.halfmove = halfmove
        self.fullmove = fullmove
        self.first_turn = first_turn and self.shifting
        self.last_shift = last_shift
        self.shift_run = shift_run if last_shift is not None else 0
        self.bare_turns = bare_turns
        self.kings = [0, 0]
        self.counts = [0, 0]
        self.move_stack: list[Turn] = []
        self._stack: list[tuple[PieceUndo | None, tuple[Cell, Cell] | None, int, TurnState]] = []
        self._validate()

    def _validate(self) -> None:
        kings: list[list[Cell]] = [[], []]
        for c, p in self.board.items():
            if c not in self.sq:
                raise PositionError(f"a piece stands on a rift at {cell_name(c)}")
            if p & 7 not in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING) or p & ~(FRESH | 15):
                raise PositionError(f"unknown piece code {p} at {cell_name(c)}")
            if p & FRESH and p & 7 != PAWN:
                raise PositionError(f"only a pawn can be unmoved-flagged ({cell_name(c)})")
            self.counts[p >> 3 & 1] += 1
            if p & 7 == KING:
                kings[p >> 3 & 1].append(c)
        for side in (0, 1):
            if len(kings[side]) != 1:
                who = colour_name(side << 3)
                raise PositionError(f"{who} must have exactly one king, not {len(kings[side])}")
            self.kings[side] = kings[side][0]
        for r in self.castling:
            rook = self.board.get(r)
            if rook is None or rook & 7 != ROOK:
                raise PositionError(f"castling right for {cell_name(r)}, which holds no rook")
            king = self.kings[rook >> 3 & 1]
            if king // STRIDE != r // STRIDE or abs(king - r) < 3:
                raise PositionError(f"the rook on {cell_name(r)} cannot castle with its king")
        if self.ep is not None and self.ep not in self.sq:
            raise PositionError(f"en passant cell {cell_name(self.ep)} is a rift")
        if self._attacked(self.kings[(self.turn ^ BLACK) >> 3], self.turn):
            raise PositionError(f"{colour_name(self.turn ^ BLACK)} is in check but not to move")

    # ---- copying and looking -------------------------------------------------------------

    def copy(self, *, stack: bool = True) -> BeyondChess:
        """An independent copy (with its move stack unless ``stack`` is False)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.sq = set(self.sq)
        new.board = dict(self.board)
        new.kings = list(self.kings)
        new.counts = list(self.counts)
        new.move_stack = list(self.move_stack) if stack else []
        new._stack = list(self._stack) if stack else []
        return new

    @property
    def squares(self) -> frozenset[Cell]:
        return frozenset(self.sq)

    def piece_at(self, c: Cell) -> int | None:
        return self.board.get(c)

    def look(self) -> dict[Cell, str]:
        """What a camera sees: per square "W", "B" (a piece of that colour) or "." (empty)."""
        board = self.board
        return {
            c: ("." if (p := board.get(c)) is None else "B" if p & BLACK else "W") for c in self.sq
        }

    def look_after(self, turn: Turn) -> dict[Cell, str]:
        """The look after ``turn`` (or its piece-move part if ``shift`` is None), without
        checking legality: for the tracker, which only asks about turns it generated."""
        self._push(turn.frm, turn.to, turn.promotion, turn.shift, turn.geret)
        try:
            return self.look()
        finally:
            self._pop()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {colour_name(self.turn)} to move, "
            f"{len(self.sq)} squares, {len(self.board)} pieces, turn {self.fullmove}>"
        )

    # ---- turns --------------------------------------------------------------------------------

    def _over_by_rule(self) -> bool:
        return self.shift_run >= 8 or self.bare_turns >= 30

    def _turn_tuples(self) -> list[TurnTuple]:
        if self._over_by_rule():
            return []
        moves = self._legal_piece_moves()
        if not self.shifting or self.first_turn:
            return [(f, t, pr, None, False) for f, t, pr in moves]
        out: list[TurnTuple] = []
        shifts = self._geometric_shifts()
        us = self.turn
        them = us ^ BLACK
        board = self.board
        sq = self.sq
        for m in moves:
            undo = self._move_pieces(*m)
            king = self.kings[us >> 3]
            for s in shifts:
                a, b = s
                if a in board:
                    continue
                sq.discard(a)
                sq.add(b)
                bad = self._exposes(b, king, them)
                sq.discard(b)
                sq.add(a)
                if not bad:
                    out.append((m[0], m[1], m[2], s, False))
            self._unmove_pieces(undo)
        out.extend(self._gerets(set(shifts)))
        return out

    def legal_turns(self) -> list[Turn]:
        """Every legal turn for the side to move (empty when the game is over)."""
        return [Turn(f, t, pr, s, g) for f, t, pr, s, g in self._turn_tuples()]

    def piece_moves(self) -> list[Turn]:
        """Piece-move parts (and Gerets) of legal turns: what a half-made turn can look like."""
        return list(dict.fromkeys(turn.piece_move for turn in self.legal_turns()))

    def perft(self, depth: int) -> int:
        """Number of legal turn sequences of length ``depth`` (the move-generation proof)."""
        if depth <= 0:
            return 1
        turns = self._turn_tuples()
        if depth == 1:
            return len(turns)
        total = 0
        for t in turns:
            self._push(*t)
            total += self.perft(depth - 1)
            self._pop()
        return total

    def _push(
        self, frm: Cell, to: Cell, promo: int, shift: tuple[Cell, Cell] | None, geret: bool
    ) -> None:
        board = self.board
        sq = self.sq
        us = self.turn
        them = us ^ BLACK
        state: TurnState = (
            self.castling,
            self.ep,
            self.halfmove,
            self.fullmove,
            self.first_turn,
            self.last_shift,
            self.shift_run,
            self.bare_turns,
        )
        opponent_bare = self.counts[them >> 3] == 1
        undo: PieceUndo | None = None
        moved = shift
        p = board[frm]
        if geret:
            del board[frm]
            sq.discard(frm)
            sq.add(to)
            board[to] = (promo | us) if promo else p & ~FRESH
            moved = (frm, to)
            self.ep = None
            self.halfmove = 0
            extra = p
        else:
            if self.castling:
                self.castling = frozenset(
                    r
                    for r in self.castling
                    if r != frm and r != to and not (p & 7 == KING and board[r] & BLACK == us)
                )
            capture = to in board
            undo = self._move_pieces(frm, to, promo)
            if p & 7 == PAWN:
                self.halfmove = 0
                self.ep = frm + (to - frm) // 2 if abs(to - frm) == 2 * NORTH else None
            else:
                self.halfmove = 0 if capture else self.halfmove + 1
                self.ep = None
            if shift is not None:
                sq.discard(shift[0])
                sq.add(shift[1])
                if shift[0] == self.ep:
                    self.ep = None  # the skipped square left: no en passant (reading 8)
            extra = 0
        if moved is not None:
            if self.last_shift == (moved[1], moved[0]):
                self.shift_run += 1
            else:
                self.shift_run = 1
            self.last_shift = moved
        if opponent_bare:
            self.bare_turns += 1
        self.first_turn = False
        if us == BLACK:
            self.fullmove += 1
        self.turn = them
        self._stack.append((undo, shift if not geret else (frm, to), extra, state))

    def _pop(self) -> None:
        undo, shift, extra, state = self._stack.pop()
        (
            self.castling,
            self.ep,
            self.halfmove,
            self.fullmove,
            self.first_turn,
            self.last_shift,
            self.shift_run,
            self.bare_turns,
        ) = state
        self.turn ^= BLACK
        sq = self.sq
        if undo is None:
            assert shift is not None
            frm, to = shift
            del self.board[to]
            self.board[frm] = extra
            sq.discard(to)
            sq.add(frm)
            return
        if shift is not None:
            sq.discard(shift[1])
            sq.add(shift[0])
        self._unmove_pieces(undo)

    def push(self, turn: Turn) -> None:
        """Play ``turn``; raises IllegalTurn (with a reason word and a plain message) if refused."""
        legal = self._turn_tuples()
        key = (turn.frm, turn.to, turn.promotion, turn.shift, turn.geret)
        if key not in legal:
            raise self._refusal(turn)
        self._push(*key)
        self.move_stack.append(turn)

    def pop(self) -> Turn:
        """Take back the last turn pushed with :meth:`push`."""
        turn = self.move_stack.pop()
        self._pop()
        return turn

    # ---- explaining refusals ---------------------------------------------------------------

    def _refusal(self, turn: Turn) -> IllegalTurn:
        if self._over_by_rule():
            return IllegalTurn("game over", "the game is over")
        us = self.turn
        p = self.board.get(turn.frm)
        if p is None:
            return IllegalTurn("no piece", f"there is no piece on {cell_name(turn.frm)}")
        if p & BLACK != us:
            return IllegalTurn(
                "not your piece", f"the piece on {cell_name(turn.frm)} is {colour_name(p & 8)}"
            )
        if turn.geret:
            return self._geret_refusal(turn, p)
        key = (turn.frm, turn.to, turn.promotion)
        legal = self._legal_piece_moves()
        if key not in legal:
            pseudo = self._pseudo_moves()
            if key in pseudo or (p & 7 == KING and abs(turn.to - turn.frm) == 2):
                if key not in pseudo and not self.is_check():
                    return IllegalTurn(
                        "bad piece move",
                        "castling needs the right, empty squares between king and rook, "
                        "and no attacked square on the king's way",
                    )
                return IllegalTurn("king in check", "that move leaves your king in check")
            if any(m[:2] == key[:2] for m in pseudo):
                return IllegalTurn("bad promotion", "a pawn promotes to Q, R, B or N on its row")
            return IllegalTurn(
                "bad piece move",
                f"the {PIECE_NAMES[p & 7]} on {cell_name(turn.frm)} "
                f"cannot move to {cell_name(turn.to)}",
            )
        if not self.shifting:
            if turn.shift is not None:
                return IllegalTurn("shift not allowed", "squares never shift on a fixed board")
            return IllegalTurn("not allowed", "that turn is not legal here")
        if self.first_turn:
            if turn.shift is not None:
                return IllegalTurn("no shift on first turn", "the game's first turn has no shift")
            return IllegalTurn("not allowed", "that move is not legal here")
        if turn.shift is None:
            return IllegalTurn("shift missing", "after the piece move a square must be shifted")
        a, b = turn.shift
        undo = self._move_pieces(*key)
        try:
            if a in self.board:
                return IllegalTurn(
                    "shift occupied",
                    f"the square on {cell_name(a)} holds a piece (only a Geret moves a pawn's square)",
                )
            why = self._shift_refusal(a, b)
            if why is not None:
                return IllegalTurn(*why)
            return IllegalTurn("king in check", "that shift would expose your king to check")
        finally:
            self._unmove_pieces(undo)

    def _geret_refusal(self, turn: Turn, p: int) -> IllegalTurn:
        if not self.shifting:
            return IllegalTurn("shift not allowed", "squares never shift on a fixed board")
        if self.first_turn:
            return IllegalTurn("no shift on first turn", "the game's first turn has no Geret")
        if p & 7 != PAWN:
            return IllegalTurn("bad piece move", "only a pawn may Geret")
        fwd = NORTH if self.turn == WHITE else -NORTH
        d = turn.to - turn.frm
        if d == -fwd:
            return IllegalTurn("geret backward", "a pawn never Gerets backward")
        if d not in (fwd, EAST, -EAST):
            return IllegalTurn("bad piece move", "a Geret moves one step forward or sideways")
        why = self._shift_refusal(turn.frm, turn.to)
        if why is not None:
            return IllegalTurn(*why)
        promotes = turn.to // STRIDE - ORIGIN == self.promotion_rows[self.turn >> 3]
        if promotes != (turn.promotion in PROMOTIONS) or (turn.promotion and not promotes):
            return IllegalTurn("bad promotion", "a pawn promotes to Q, R, B or N on its row")
        return IllegalTurn("king in check", "that Geret leaves your king in check")

    # ---- the end -----------------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on (checkmate beats the draw rules)."""
        if self._over_by_rule():
            saved = (self.shift_run, self.bare_turns)
            self.shift_run = self.bare_turns = 0
            try:
                mated = not self._turn_tuples() and self.is_check()
            finally:
                self.shift_run, self.bare_turns = saved
            if mated:
                return self._mate()
            if self.shift_run >= 8:
                return Outcome("1/2-1/2", "stalemate: one square shifted back and forth 8 times")
            return Outcome("1/2-1/2", "stalemate: 30 turns against a bare king without mate")
        if self._turn_tuples():
            return None
        if self.is_check():
            return self._mate()
        return Outcome("1/2-1/2", f"stalemate: {colour_name(self.turn)} has no legal turn")

    def _mate(self) -> Outcome:
        winner = self.turn ^ BLACK
        return Outcome(
            "1-0" if winner == WHITE else "0-1", f"checkmate: {colour_name(winner)} wins"
        )


class FixedBoardChess(BeyondChess):
    """Plain chess: the same engine with squares that never shift (no shift, no Geret)."""

    name: ClassVar[str] = "fixed"
    title: ClassVar[str] = "Chess (fixed board)"
    shifting: ClassVar[bool] = False


VARIANTS: Final[dict[str, type[BeyondChess]]] = {
    cls.name: cls for cls in (BeyondChess, FixedBoardChess)
}


def variant(name: str) -> type[BeyondChess]:
    """The variant class registered under ``name``; raises PositionError if unknown."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise PositionError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None


def traditional(cls: type[BeyondChess] = BeyondChess) -> BeyondChess:
    """The traditional setup on an 8x8 block of squares, white to move, first turn unshifted."""
    back = (ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK)
    pieces: dict[Cell, int] = {}
    for x, kind in enumerate(back):
        pieces[cell(x, 0)] = WHITE | kind
        pieces[cell(x, 1)] = WHITE | PAWN | FRESH
        pieces[cell(x, 6)] = BLACK | PAWN | FRESH
        pieces[cell(x, 7)] = BLACK | kind
    return cls(
        squares=(cell(x, y) for x in range(8) for y in range(8)),
        pieces=pieces,
        castling=(cell(0, 0), cell(7, 0), cell(0, 7), cell(7, 7)),
        first_turn=True,
    )
