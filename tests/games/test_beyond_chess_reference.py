"""A second, deliberately naive Beyond Chess move generator, checked against the engine.

Written straight from the rule sheet (and the readings in the engine's docstring) with (x, y)
tuples, whole-board recomputation and no shortcuts (no pin tables, no local orphan test, no
"only a filled rift can expose the king"). Both must give the same set of legal turns in every
position of random games, from the traditional setup and from a custom setup with rifts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import pytest

from companion.games.beyond_chess import (
    BLACK,
    FRESH,
    PIECE_LETTERS,
    BeyondChess,
    cell,
    coords,
    traditional,
)
from companion.games.beyond_chess_notation import parse_setup

XY = tuple[int, int]
KING_STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
KNIGHT_JUMPS = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
ROOK_LINES = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_LINES = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


@dataclass(frozen=True)
class State:
    squares: frozenset[XY]
    pieces: dict[XY, tuple[str, str, bool]]  # colour "w"/"b", kind "PNBRQK", unmoved pawn
    side: str
    castling: frozenset[XY]
    ep: XY | None
    promote: dict[str, int]
    first: bool


def from_engine(position: BeyondChess) -> State:
    pieces = {}
    for c, p in position.board.items():
        colour = "b" if p & BLACK else "w"
        pieces[coords(c)] = (colour, PIECE_LETTERS[p & 7].upper(), bool(p & FRESH))
    return State(
        squares=frozenset(coords(c) for c in position.squares),
        pieces=pieces,
        side="b" if position.turn == BLACK else "w",
        castling=frozenset(coords(c) for c in position.castling),
        ep=coords(position.ep) if position.ep is not None else None,
        promote={"w": position.promotion_rows[0], "b": position.promotion_rows[1]},
        first=position.first_turn,
    )


def other(side: str) -> str:
    return "b" if side == "w" else "w"


def forward(side: str) -> int:
    return 1 if side == "w" else -1


def add(a: XY, d: XY) -> XY:
    return (a[0] + d[0], a[1] + d[1])


def attacked(state: State, target: XY, by: str) -> bool:
    for at, (colour, kind, _) in state.pieces.items():
        if colour != by:
            continue
        if kind == "P":
            if target in (add(at, (1, forward(by))), add(at, (-1, forward(by)))):
                return True
        elif kind == "N":
            if any(add(at, j) == target for j in KNIGHT_JUMPS):
                return True
        elif kind == "K":
            if any(add(at, s) == target for s in KING_STEPS):
                return True
        else:
            lines = {"R": ROOK_LINES, "B": BISHOP_LINES, "Q": ROOK_LINES + BISHOP_LINES}[kind]
            for d in lines:
                here = add(at, d)
                while here in state.squares:
                    if here == target:
                        return True
                    if here in state.pieces:
                        break
                    here = add(here, d)
    return False


def king_safe(state: State, side: str) -> bool:
    king = next(at for at, (c, k, _) in state.pieces.items() if c == side and k == "K")
    return not attacked(state, king, other(side))


def targets(state: State, at: XY) -> list[tuple[XY, str]]:
    """(cell, promotion letter or '') by the rules of movement, ignoring checks."""
    side, kind, fresh = state.pieces[at]
    out: list[XY] = []

    def empty(c: XY) -> bool:
        return c in state.squares and c not in state.pieces

    def enemy(c: XY) -> bool:
        return c in state.pieces and state.pieces[c][0] != side

    if kind == "P":
        one = add(at, (0, forward(side)))
        if empty(one):
            out.append(one)
            two = add(one, (0, forward(side)))
            if fresh and empty(two) and one[1] != state.promote[side]:
                out.append(two)  # never past the promotion row unpromoted
        for dx in (1, -1):
            diag = add(at, (dx, forward(side)))
            if enemy(diag):
                out.append(diag)
            elif diag == state.ep and empty(diag):
                victim = state.pieces.get(add(diag, (0, -forward(side))))
                if victim is not None and victim[0] != side and victim[1] == "P":
                    out.append(diag)
        result = []
        for c in out:
            if c[1] == state.promote[side]:
                result += [(c, letter) for letter in "QRBN"]
            else:
                result.append((c, ""))
        return result
    if kind in "NK":
        steps = KNIGHT_JUMPS if kind == "N" else KING_STEPS
        out = [add(at, s) for s in steps if empty(add(at, s)) or enemy(add(at, s))]
    else:
        lines = {"R": ROOK_LINES, "B": BISHOP_LINES, "Q": ROOK_LINES + BISHOP_LINES}[kind]
        for d in lines:
            here = add(at, d)
            while here in state.squares:
                if here in state.pieces:
                    if enemy(here):
                        out.append(here)
                    break
                out.append(here)
                here = add(here, d)
    return [(c, "") for c in out]


def move_piece(state: State, frm: XY, to: XY, promo: str) -> State:
    pieces = dict(state.pieces)
    side, kind, _ = pieces.pop(frm)
    if kind == "P" and to == state.ep and to not in pieces and frm[0] != to[0]:
        del pieces[add(to, (0, -forward(side)))]
    if kind == "K" and abs(to[0] - frm[0]) == 2:
        step = 1 if to[0] > frm[0] else -1
        rook = next(
            r
            for r in state.castling
            if r[1] == frm[1]
            and (r[0] - frm[0]) * step > 0
            and all((x, frm[1]) not in pieces for x in range(frm[0] + step, r[0], step))
        )
        pieces[(frm[0] + step, frm[1])] = pieces.pop(rook)
    pieces[to] = (side, promo or kind, False)
    return replace(state, pieces=pieces)


def castles(state: State) -> list[tuple[XY, XY]]:
    side = state.side
    king = next(at for at, (c, k, _) in state.pieces.items() if c == side and k == "K")
    out = []
    if attacked(state, king, other(side)):
        return out
    for rook in state.castling:
        if state.pieces.get(rook, ("", "", False))[:2] != (side, "R") or rook[1] != king[1]:
            continue
        step = 1 if rook[0] > king[0] else -1
        between = [(x, king[1]) for x in range(king[0] + step, rook[0], step)]
        if all(c in state.squares and c not in state.pieces for c in between) and not any(
            attacked(state, (king[0] + k * step, king[1]), other(side)) for k in (1, 2)
        ):
            out.append((king, (king[0] + 2 * step, king[1])))
    return out


def touching(a: XY, b: XY) -> bool:
    return a != b and max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def geometry_ok(squares: frozenset[XY], a: XY, b: XY) -> bool:
    if b in squares:
        return False
    after = (squares - {a}) | {b}
    if not any(touching(n, a) and touching(n, b) for n in squares):
        return False
    if not all(any(touching(m, n) for m in after) for n in after):
        return False
    return groups(after) <= groups(squares)  # the board stays in one piece


def groups(squares: frozenset[XY]) -> int:
    """How many groups of touching squares (a flood from each unvisited square)."""
    seen: set[XY] = set()
    count = 0
    for start in squares:
        if start in seen:
            continue
        count += 1
        todo = [start]
        seen.add(start)
        while todo:
            here = todo.pop()
            for n in squares:
                if n not in seen and touching(here, n):
                    seen.add(n)
                    todo.append(n)
    return count


Key = tuple[int, int, int, tuple[int, int] | None, bool]


def legal_turns(state: State) -> set[Key]:
    side = state.side
    letters = {"": 0, "N": 2, "B": 3, "R": 4, "Q": 5}
    moves = []
    for at, (colour, _, _) in list(state.pieces.items()):
        if colour == side:
            moves += [(at, to, promo) for to, promo in targets(state, at)]
    moves += [(frm, to, "") for frm, to in castles(state)]
    out: set[Key] = set()
    geometric = [
        (a, add(a, d))
        for a in state.squares
        for d in ROOK_LINES
        if geometry_ok(state.squares, a, add(a, d))
    ]
    for frm, to, promo in moves:
        after = move_piece(state, frm, to, promo)
        if not king_safe(after, side):
            continue
        key = (cell(*frm), cell(*to), letters[promo])
        if state.first:
            out.add((*key, None, False))
            continue
        for a, b in geometric:
            if a in after.pieces:
                continue
            shifted = replace(after, squares=(after.squares - {a}) | {b})
            if king_safe(shifted, side):
                out.add((*key, (cell(*a), cell(*b)), False))
    if state.first:
        return out
    for a, b in geometric:
        piece = state.pieces.get(a)
        if piece is None or piece[:2] != (side, "P") or b[1] - a[1] == -forward(side):
            continue
        pieces = dict(state.pieces)
        del pieces[a]
        for promo in list("QRBN") if b[1] == state.promote[side] else [""]:
            pieces[b] = (side, promo or "P", False)
            moved = replace(state, squares=(state.squares - {a}) | {b}, pieces=pieces)
            if king_safe(moved, side):
                out.add((cell(*a), cell(*b), letters[promo], None, True))
    return out


CUSTOM = """\
black:
r..k..-..r
.pp.ppp.
..nb.b..
...q...-
white:
..Q..-..
..NB..B.
.PPP.PP-..
R..K...R
"""


@pytest.mark.parametrize("seed", range(4))
def test_engine_and_naive_reference_agree_through_random_games(seed: int) -> None:
    rng = random.Random(seed)
    position = traditional() if seed % 2 == 0 else parse_setup(CUSTOM)
    for _ in range(14):
        if position.shift_run >= 8 or position.bare_turns >= 30:
            break  # endings by rule are the engine's alone
        mine = {(t.frm, t.to, t.promotion, t.shift, t.geret) for t in position.legal_turns()}
        assert mine == legal_turns(from_engine(position))
        if not mine:
            break
        position.push(position.legal_turns()[rng.randrange(len(mine))])
