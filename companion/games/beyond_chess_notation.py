"""Text for Beyond Chess: cells, turns, positions (a FEN superset) and custom setup files.

Interpret/serialise pairs, as in sgfmill: ``parse_turn``/``turn_text``,
``parse_position``/``position_text``, ``parse_setup``/``setup_text``. Everything raises
:class:`~companion.errors.PositionError` with the place at fault; nothing here does I/O except
:func:`load_setup`, which only reads the file it is given.

**Cells** are ``e4`` for columns a-z and rows 1 and up; any other cell (the board grows past the
first 8x8 when squares shift outward) is ``[x,y]`` with zero-based integers, ``a1`` = ``[0,0]``.
Both forms are accepted everywhere.

**Turns**: ``e2e4/d3d2`` is a piece move (e2 to e4) then a shift (the square on d3 to d2);
``e2e4`` alone is the opening turn (or a fixed-board move); ``e7e8=Q/a3a2`` promotes;
castling is the king's move (``e1g1/...``); ``Ge2f2`` is a Geret (pawn and square from e2 to f2),
``Ge7e8=Q`` a promoting one.

**Positions**: ``ROWS[@x,y] SIDE CASTLING EP HALFMOVE FULLMOVE [key=value ...]``.

- ``ROWS``: rows from the top, separated by ``/``; a letter is a piece on a square (FEN letters),
  a number is that many empty squares, ``-`` is one rift; a short row ends in rifts. ``@x,y``
  places the bottom-left cell of the rows (default ``@0,0``: a1), so a standard FEN reads as is.
- ``SIDE`` ``w``/``b``; ``CASTLING`` ``-``, FEN letters (``KQkq``: the outermost rook on each side
  of its king's row) or rook cells separated by commas (``a1,h8``); ``EP`` a cell or ``-``.
  The two move counters may be left out, as some FENs do.
- keys, each left out when it has the FEN default: ``fresh=`` cells of pawns that may still step
  two (default: white pawns on row 2, black on row 7; ``-`` for none); ``promote=8,1`` the rows
  where white and black promote; ``first=1``/``first=0`` whether this is the game's opening turn
  without a shift (default: 1 exactly for the traditional start); ``shifts=d3d2:3`` the last
  shift and the length of the back-and-forth run it ends; ``bare=N`` the 30-move counter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from companion.errors import PositionError
from companion.games.beyond_chess import (
    AROUND,
    BLACK,
    FRESH,
    KING,
    PAWN,
    PIECE_LETTERS,
    ROOK,
    STRIDE,
    WHITE,
    BeyondChess,
    Cell,
    Turn,
    cell,
    cell_name,
    check_army,
    coords,
    piece_letter,
    traditional,
)
from companion.limits import read_text

# Numbers in cells, origins and counters have at most 6 digits: a cell past the grid's
# LIMIT is refused by ``cell``, and a 5,000-digit number never reaches ``int``.
_CELL = r"(?:[a-z]\d{1,6}|\[-?\d{1,6},-?\d{1,6}\])"
_CELL_RE = re.compile(r"([a-z])(\d{1,6})|\[(-?\d{1,6}),(-?\d{1,6})\]")
#: Move counters (halfmove, fullmove, bare=, shift runs) and setup files.
MAX_COUNTER = 100_000
MAX_SETUP_BYTES = 64 * 1024
_COUNTERS = "the move counters must be numbers"
_TURN_RE = re.compile(
    rf"(G)?({_CELL})({_CELL})(?:=([QRBNqrbn]))?(?:/({_CELL})({_CELL}))?",
)
_LETTER_KIND = {letter: i for i, letter in enumerate(PIECE_LETTERS) if i}


def parse_cell(text: str) -> Cell:
    """``e4`` or ``[x,y]`` -> a cell; raises PositionError."""
    m = _CELL_RE.fullmatch(text.strip())
    if m is None:
        raise PositionError(f"{text!r} is not a cell (like e4 or [-1,3])")
    if m.group(1):
        rank = int(m.group(2))
        if rank < 1:
            raise PositionError(f"{text!r}: rows count from 1 (use [x,y] below row 1)")
        return cell(ord(m.group(1)) - 97, rank - 1)
    return cell(int(m.group(3)), int(m.group(4)))


def piece_code(letter: str) -> int:
    """FEN letter -> piece code (without the unmoved-pawn flag); raises PositionError."""
    kind = _LETTER_KIND.get(letter.lower())
    if kind is None:
        raise PositionError(f"{letter!r} is not a piece letter (KQRBNP, lower case for black)")
    return kind | (BLACK if letter.islower() else WHITE)


# ---- turns ---------------------------------------------------------------------------------


def parse_turn(text: str) -> Turn:
    """Turn text (see the module docstring) -> :class:`Turn`; raises PositionError."""
    m = _TURN_RE.fullmatch(text.strip())
    if m is None:
        raise PositionError(
            f"{text!r} is not a turn (like e2e4/d3d2, e2e4 on the first turn, or Ge2f2)"
        )
    geret, frm, to, promo, sfrm, sto = m.groups()
    if geret and sfrm:
        raise PositionError(f"{text!r}: a Geret is the whole turn, it takes no extra shift")
    return Turn(
        parse_cell(frm),
        parse_cell(to),
        _LETTER_KIND[promo.lower()] if promo else 0,
        (parse_cell(sfrm), parse_cell(sto)) if sfrm else None,
        bool(geret),
    )


def turn_text(turn: Turn) -> str:
    """:class:`Turn` -> its text; ``parse_turn(turn_text(t)) == t``."""
    text = ("G" if turn.geret else "") + cell_name(turn.frm) + cell_name(turn.to)
    if turn.promotion:
        text += "=" + PIECE_LETTERS[turn.promotion].upper()
    if turn.shift is not None:
        text += "/" + cell_name(turn.shift[0]) + cell_name(turn.shift[1])
    return text


# ---- positions -----------------------------------------------------------------------------


def _default_fresh(pieces: dict[Cell, int]) -> set[Cell]:
    return {
        c
        for c, p in pieces.items()
        if (p & 15 == WHITE | PAWN and coords(c)[1] == 1)
        or (p & 15 == BLACK | PAWN and coords(c)[1] == 6)
    }


def _parse_rows(text: str) -> tuple[set[Cell], dict[Cell, int]]:
    origin = (0, 0)
    if "@" in text:
        text, _, at = text.partition("@")
        m = re.fullmatch(r"(-?\d{1,6}),(-?\d{1,6})", at)
        if m is None:
            raise PositionError(f"origin {at[:20]!r} is not x,y")
        origin = (int(m.group(1)), int(m.group(2)))
    rows = text.split("/")
    squares: set[Cell] = set()
    pieces: dict[Cell, int] = {}
    top = origin[1] + len(rows) - 1
    for i, row in enumerate(rows):
        y = top - i
        x = origin[0]
        for m in re.finditer(r"\d{1,6}|.", row):
            tok = m.group()
            if tok.isdigit():
                run = int(tok)
                if run == 0:
                    raise PositionError(f"row {i + 1} of the position has a run of 0")
                for _ in range(run):
                    squares.add(cell(x, y))
                    x += 1
            elif tok == "-":
                x += 1
            else:
                c = cell(x, y)
                squares.add(c)
                pieces[c] = piece_code(tok)
                x += 1
    return squares, pieces


def _rows_text(squares: Iterable[Cell], pieces: dict[Cell, int]) -> str:
    xy = [coords(c) for c in squares]
    if not xy:
        raise PositionError("a position needs squares")
    x0, x1 = min(x for x, _ in xy), max(x for x, _ in xy)
    y0, y1 = min(y for _, y in xy), max(y for _, y in xy)
    present = set(squares)
    rows = []
    for y in range(y1, y0 - 1, -1):
        row = ""
        run = 0
        for x in range(x0, x1 + 1):
            c = cell(x, y)
            if c in present and c not in pieces:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += piece_letter(pieces[c]) if c in pieces else "-"
        if run:
            row += str(run)
        rows.append(row.rstrip("-"))
    text = "/".join(rows)
    return text if (x0, y0) == (0, 0) else f"{text}@{x0},{y0}"


def _outermost_rooks(pieces: dict[Cell, int], king: Cell, colour: int) -> tuple[Cell, Cell]:
    """(outermost rook right of the king on its row, outermost left), or -1 where none."""
    row = [
        c
        for c, p in pieces.items()
        if p & 15 == colour | ROOK and c // STRIDE == king // STRIDE and abs(c - king) >= 3
    ]
    right = [c for c in row if c > king]
    left = [c for c in row if c < king]
    return (max(right) if right else -1, min(left) if left else -1)


def _parse_castling(text: str, pieces: dict[Cell, int]) -> set[Cell]:
    if text == "-":
        return set()
    if re.fullmatch(r"[KQkq]+", text):
        rights = set()
        for letter in text:
            colour = WHITE if letter.isupper() else BLACK
            kings = [c for c, p in pieces.items() if p & 15 == colour | KING]
            if len(kings) != 1:
                raise PositionError(f"castling {letter!r} needs exactly one king of that colour")
            right, left = _outermost_rooks(pieces, kings[0], colour)
            rook = right if letter in "Kk" else left
            if rook < 0:
                raise PositionError(f"castling {letter!r}: no rook on that side of the king")
            rights.add(rook)
        return rights
    return {parse_cell(t) for t in text.split(",")}


def _castling_text(position: BeyondChess) -> str:
    rights = position.castling
    if not rights:
        return "-"
    letters = ""
    for colour, (k, q) in ((WHITE, "KQ"), (BLACK, "kq")):
        right, left = _outermost_rooks(position.board, position.kings[colour >> 3], colour)
        letters += (k if right in rights else "") + (q if left in rights else "")
    named = _parse_castling(letters, position.board) if letters else set()
    if named == set(rights):
        return letters
    return ",".join(sorted(cell_name(r) for r in rights))


def _is_traditional_start(position: BeyondChess) -> bool:
    start = traditional()
    return (
        position.turn == WHITE
        and position.sq == start.sq
        and {c: p & 15 for c, p in position.board.items()}
        == {c: p & 15 for c, p in start.board.items()}
        and position.castling == start.castling
        and position.ep is None
    )


def parse_position(text: str, cls: type[BeyondChess] = BeyondChess) -> BeyondChess:
    """Position text (or a FEN) -> a position of variant ``cls``; raises PositionError."""
    fields = text.split()
    if len(fields) < 2:
        raise PositionError(f"{text!r} is not a position (rows, side to move, ...)")
    keys: dict[str, str] = {}
    plain = []
    for f in fields:
        if "=" in f:
            k, _, v = f.partition("=")
            if k not in ("fresh", "promote", "first", "shifts", "bare"):
                raise PositionError(f"unknown position key {k!r}")
            keys[k] = v
        else:
            if keys:
                raise PositionError(f"{f!r} after the key=value fields")
            plain.append(f)
    if len(plain) not in (2, 4, 6):
        raise PositionError("a position has rows, side, castling, en passant and two counters")
    squares, pieces = _parse_rows(plain[0])
    if plain[1] not in ("w", "b"):
        raise PositionError(f"side to move {plain[1]!r} is not w or b")
    turn = WHITE if plain[1] == "w" else BLACK
    castling = _parse_castling(plain[2], pieces) if len(plain) > 2 else set()
    ep = None if len(plain) < 4 or plain[3] == "-" else parse_cell(plain[3])
    halfmove, fullmove = (
        (_counter(plain[4], _COUNTERS), _counter(plain[5], _COUNTERS))
        if len(plain) == 6
        else (0, 1)
    )
    fresh = _default_fresh(pieces)
    if "fresh" in keys:
        fresh = set() if keys["fresh"] == "-" else {parse_cell(t) for t in keys["fresh"].split(",")}
    for c in fresh:
        if pieces.get(c, 0) & 7 != PAWN:
            raise PositionError(f"fresh={cell_name(c)} but no pawn stands there")
        pieces[c] |= FRESH
    promotion_rows = (7, 0)
    if "promote" in keys:
        m = re.fullmatch(r"(-?\d{1,6}),(-?\d{1,6})", keys["promote"])
        if m is None:
            raise PositionError("promote= takes two row numbers, white's then black's")
        promotion_rows = (int(m.group(1)) - 1, int(m.group(2)) - 1)
    last_shift, run = None, 0
    if "shifts" in keys:
        m = re.fullmatch(rf"({_CELL})({_CELL}):(\d{{1,6}})", keys["shifts"])
        if m is None:
            raise PositionError("shifts= takes the last shift and its run, like d3d2:3")
        last_shift, run = (parse_cell(m.group(1)), parse_cell(m.group(2))), int(m.group(3))
    bare = _counter(keys.get("bare", "0"), "bare= takes a number")
    position = cls(
        squares=squares,
        pieces=pieces,
        turn=turn,
        castling=castling,
        ep=ep,
        promotion_rows=promotion_rows,
        halfmove=halfmove,
        fullmove=fullmove,
        last_shift=last_shift,
        shift_run=run,
        bare_turns=bare,
    )
    if "first" in keys:
        if keys["first"] not in ("0", "1"):
            raise PositionError("first= takes 0 or 1")
        position.first_turn = keys["first"] == "1" and cls.shifting
    else:
        position.first_turn = cls.shifting and _is_traditional_start(position)
    return position


def _counter(text: str, what: str) -> int:
    """A move counter: a whole number 0..MAX_COUNTER (not a 400-digit one)."""
    if not re.fullmatch(r"\d{1,6}", text) or int(text) > MAX_COUNTER:
        raise PositionError(f"{what} 0..{MAX_COUNTER}, not {text[:20]!r}")
    return int(text)


def parse_fen(fen: str, cls: type[BeyondChess] = BeyondChess) -> BeyondChess:
    """A standard FEN (a full 8x8 board, no rifts) -> a position; raises PositionError."""
    fields = fen.split()
    rows = fields[0].split("/") if fields else []
    if len(rows) != 8 or "@" in fen or "-" in fields[0] or "=" in fen:
        raise PositionError(f"{fen!r} is not a FEN of a full 8x8 board")
    position = parse_position(fen, cls)
    if len(position.sq) != 64:
        raise PositionError(f"{fen!r}: every FEN row must cover 8 squares")
    return position


def position_text(position: BeyondChess) -> str:
    """A position -> its text; ``parse_position`` gives back an equal position."""
    board = {c: p & 15 for c, p in position.board.items()}
    parts = [
        _rows_text(position.sq, board),
        "w" if position.turn == WHITE else "b",
        _castling_text(position),
        "-" if position.ep is None else cell_name(position.ep),
        str(position.halfmove),
        str(position.fullmove),
    ]
    fresh = {c for c, p in position.board.items() if p & FRESH}
    if fresh != _default_fresh(board):
        parts.append("fresh=" + (",".join(sorted(map(cell_name, fresh))) or "-"))
    if position.promotion_rows != (7, 0):
        w, b = position.promotion_rows
        parts.append(f"promote={w + 1},{b + 1}")
    if position.first_turn != (position.shifting and _is_traditional_start(position)):
        parts.append(f"first={int(position.first_turn)}")
    if position.last_shift is not None:
        a, b = position.last_shift
        parts.append(f"shifts={cell_name(a)}{cell_name(b)}:{position.shift_run}")
    if position.bare_turns:
        parts.append(f"bare={position.bare_turns}")
    return " ".join(parts)


# ---- custom setups -------------------------------------------------------------------------

SETUP_HELP = """\
A setup file: two blocks of rows, black's half on top, then white's, drawn as seen from
white's side. `black:` and `white:` start the blocks; `#` starts a comment. In a row, `.` is
an empty square, `-` a rift, a FEN letter a piece on a square; column 1 is column a. Each
half holds exactly 32 squares; each side's pieces stand in its own half, one king each and
no more than one chess set holds (a queen, two rooks, two bishops, two knights, eight pawns).
Pawns start unmoved (they may step two, but never past their promotion row); a rook on its
king's row three or more cells away may castle; each side promotes on the row where the other
side's king starts."""


def parse_setup(text: str, cls: type[BeyondChess] = BeyondChess) -> BeyondChess:
    """A custom setup (format: :data:`SETUP_HELP`) -> the opening position; PositionError."""
    if len(text) > MAX_SETUP_BYTES:
        raise PositionError(f"a setup is at most {MAX_SETUP_BYTES} characters, not {len(text)}")
    blocks: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.lower() in ("black:", "white:"):
            current = line[:-1].lower()
            if current in blocks:
                raise PositionError(f"line {number}: a second {current!r} block")
            if current == "black" and "white" in blocks:
                raise PositionError(f"line {number}: black's half comes first (on top)")
            blocks[current] = []
            continue
        if line.endswith(":"):
            raise PositionError(f"line {number}: unknown block {line!r} (black: or white:)")
        if current is None:
            raise PositionError(f"line {number}: rows before a 'black:' or 'white:' line")
        bad = next((ch for ch in line if ch not in ".-" and ch.lower() not in _LETTER_KIND), None)
        if bad is not None:
            raise PositionError(f"line {number}: {bad!r} is not '.', '-' or a piece letter")
        blocks[current].append((number, line))
    for side in ("black", "white"):
        if not blocks.get(side):
            raise PositionError(f"the setup has no rows for {side}'s half")
    rows = blocks["black"] + blocks["white"]
    squares: set[Cell] = set()
    pieces: dict[Cell, int] = {}
    for i, (number, line) in enumerate(rows):
        y = len(rows) - 1 - i
        half = WHITE if i >= len(blocks["black"]) else BLACK
        for x, ch in enumerate(line):
            if ch == "-":
                continue
            c = cell(x, y)
            squares.add(c)
            if ch != ".":
                p = piece_code(ch)
                if p & BLACK != half:
                    who = "white" if p & BLACK == WHITE else "black"
                    raise PositionError(
                        f"line {number}: a {who} piece ({ch}) on {cell_name(c)} in the other "
                        "side's half"
                    )
                pieces[c] = p | FRESH if p & 7 == PAWN else p
    for side, lo, hi in (
        ("black", len(blocks["white"]), len(rows)),
        ("white", 0, len(blocks["white"])),
    ):
        count = sum(1 for c in squares if lo <= coords(c)[1] < hi)
        if count != 32:
            raise PositionError(f"{side}'s half has {count} squares; each player lays out 32")
    for c in squares:
        if not any(c + d in squares for d in AROUND):
            raise PositionError(f"the square on {cell_name(c)} touches no other square")
    kings = {p & BLACK: c for c, p in pieces.items() if p & 7 == KING}
    if len(kings) != 2 or sum(1 for p in pieces.values() if p & 7 == KING) != 2:
        raise PositionError("each side needs exactly one king")
    check_army(pieces)
    promotion_rows = (coords(kings[BLACK])[1], coords(kings[WHITE])[1])
    castling = set()
    for colour in (WHITE, BLACK):
        castling |= {
            c
            for c, p in pieces.items()
            if p & 15 == colour | ROOK
            and c // STRIDE == kings[colour] // STRIDE
            and abs(c - kings[colour]) >= 3
        }
    position = cls(
        squares=squares,
        pieces=pieces,
        castling=castling,
        promotion_rows=promotion_rows,
        first_turn=True,
    )
    return position


def setup_text(position: BeyondChess, *, black_rows: int | None = None) -> str:
    """An opening position -> setup-file text (black's half = the top ``black_rows`` rows,
    default half the rows); raises PositionError if the squares do not start at a1."""
    xy = [coords(c) for c in position.sq]
    if min(x for x, _ in xy) < 0 or min(y for _, y in xy) != 0:
        raise PositionError("a setup file draws squares from a1 up and right")
    height = max(y for _, y in xy) + 1
    width = max(x for x, _ in xy) + 1
    split = height // 2 if black_rows is None else black_rows
    lines = ["black:"]
    for i, y in enumerate(range(height - 1, -1, -1)):
        if i == split:
            lines.append("white:")
        row = ""
        for x in range(width):
            c = cell(x, y)
            p = position.board.get(c)
            row += "-" if c not in position.sq else "." if p is None else piece_letter(p)
        lines.append(row.rstrip("-"))
    return "\n".join(lines) + "\n"


def load_setup(path: str | Path, cls: type[BeyondChess] = BeyondChess) -> BeyondChess:
    """Read a setup file; raises PositionError (naming the file) if it cannot be a game."""
    text = read_text(path, limit=MAX_SETUP_BYTES, error=PositionError, what="setup file")
    try:
        return parse_setup(text, cls)
    except PositionError as exc:
        raise PositionError(f"{path}: {exc}") from exc


# ---- ASCII diagrams ------------------------------------------------------------------------


def parse_diagram(
    text: str,
    cls: type[BeyondChess] = BeyondChess,
    *,
    origin: tuple[int, int] = (0, 0),
    turn: str = "w",
    extra: str = "- - 0 1",
) -> BeyondChess:
    """An ASCII board (rows from the top; ``.`` empty square, ``-`` rift, FEN letters; spaces
    between cells are ignored) -> a position. ``extra`` holds the castling, en passant and
    counter fields and any ``key=value`` fields of the position text; PositionError."""
    rows = ["".join(line.split()) for line in text.strip("\n").splitlines() if line.strip()]
    if not rows:
        raise PositionError("an empty diagram")
    fen_rows = []
    for row in rows:
        bad = next((ch for ch in row if ch not in ".-" and ch.lower() not in _LETTER_KIND), None)
        if bad is not None:
            raise PositionError(f"{bad!r} in a diagram is not '.', '-' or a piece letter")
        fen_rows.append(re.sub(r"\.+", lambda m: str(len(m.group())), row))
    at = f"@{origin[0]},{origin[1]}"
    return parse_position(f"{'/'.join(fen_rows)}{at} {turn} {extra}", cls)


def diagram(position: BeyondChess) -> str:
    """A position's squares and pieces as an ASCII board (bounding box, rows from the top)."""
    xy = [coords(c) for c in position.sq]
    x0, x1 = min(x for x, _ in xy), max(x for x, _ in xy)
    y0, y1 = min(y for _, y in xy), max(y for _, y in xy)
    lines = []
    for y in range(y1, y0 - 1, -1):
        row = []
        for x in range(x0, x1 + 1):
            c = cell(x, y)
            p = position.board.get(c)
            row.append("-" if c not in position.sq else "." if p is None else piece_letter(p))
        lines.append(" ".join(row))
    return "\n".join(lines) + "\n"
