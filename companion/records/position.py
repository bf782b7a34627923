"""Position files in the OGS score-estimator text format (``shared/data/games/deadstones``).

::

    # 1=black -1=white 0=open          comment lines start with '#'
    height 9
    width 9
    player_to_move 1                   1 Black, -1 White
     1  0 -1 ...                       height rows of width integers (row 0 at the top)
                                       a blank line
     0  1  0 ...                       optional: the removal grid, same shape

In the removal grid a ``1`` on a stone means the stone is dead; a ``1`` on an empty point marks
dame or a seki liberty. :func:`read_position` returns both; malformed text raises
:class:`~companion.errors.RecordError` naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.errors import IllegalMove, RecordError
from companion.games.go import BLACK, EMPTY, WHITE, GoGame
from companion.games.rules import new_game
from companion.games.topology import MAX_GRID, MIN_GRID, Topology, grid
from companion.limits import KB, read_text

_VALUES = {"1": BLACK, "-1": WHITE, "0": EMPTY}
#: A position file: two 25x25 grids of numbers are under 4 KB.
MAX_POSITION_BYTES = 256 * KB


@dataclass(frozen=True)
class Position:
    """A board (owner per spot, row-major from the top-left), whose turn, and the removal
    marks (empty tuple when the file has none)."""

    topology: Topology
    board: tuple[int, ...]
    to_move: int
    removal: tuple[bool, ...] = ()

    @property
    def dead(self) -> frozenset[int]:
        """The stones the removal grid marks dead."""
        return frozenset(
            s
            for s, (c, r) in enumerate(zip(self.board, self.removal, strict=False))
            if r and c != EMPTY
        )

    def game(self, rules: str = "japanese", **knobs: object) -> GoGame:
        """A game of ``rules`` set up with this position; RecordError when a chain has no
        liberty (no real board shows that)."""
        game = new_game(rules, self.topology, **knobs)
        try:
            game.setup({s: c for s, c in enumerate(self.board) if c != EMPTY}, to_move=self.to_move)
        except IllegalMove as exc:
            raise RecordError(f"impossible position: {exc}") from None
        return game


def read_position(text: str, *, name: str = "position") -> Position:
    """Parse position-file text (see the module docstring)."""
    header: dict[str, int] = {}
    grids: list[list[list[int]]] = [[]]
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            if grids[-1]:
                grids.append([])
            continue
        words = line.split()
        if words[0] in ("height", "width", "player_to_move"):
            if len(words) != 2:
                raise RecordError(f"{name}, line {number}: {words[0]} needs one value")
            try:
                header[words[0]] = int(words[1])
            except ValueError:
                raise RecordError(f"{name}, line {number}: {words[1]!r} is not a number") from None
            continue
        try:
            grids[-1].append([_VALUES[w] for w in words])
        except KeyError as exc:
            raise RecordError(f"{name}, line {number}: {exc.args[0]!r} is not 1, -1 or 0") from None
    for key in ("height", "width"):
        if key not in header:
            raise RecordError(f"{name}: no {key} line")
    height, width = header["height"], header["width"]
    if not (MIN_GRID <= height <= MAX_GRID and MIN_GRID <= width <= MAX_GRID):
        raise RecordError(f"{name}: a {width}x{height} board is not supported")
    turn = header.get("player_to_move", 1)
    if turn not in (1, -1):
        raise RecordError(f"{name}: player_to_move must be 1 or -1, not {turn}")
    grids = [g for g in grids if g]
    if not grids:
        raise RecordError(f"{name}: no board rows")
    if len(grids) > 2:
        raise RecordError(f"{name}: expected a board and a removal grid, found {len(grids)} grids")
    for k, g in enumerate(grids):
        what = "board" if k == 0 else "removal grid"
        if len(g) != height or any(len(row) != width for row in g):
            raise RecordError(f"{name}: the {what} is not {height} rows of {width}")
    board = tuple(c for row in grids[0] for c in row)
    removal = tuple(c != EMPTY for row in grids[1] for c in row) if len(grids) == 2 else ()
    if len(grids) == 2 and any(c == WHITE for row in grids[1] for c in row):
        raise RecordError(f"{name}: the removal grid holds only 0 and 1")
    return Position(grid(width, height), board, BLACK if turn == 1 else WHITE, removal)


def load_position(path: str | Path) -> Position:
    """Read a position file; RecordError (never OSError) when it cannot be read or parsed."""
    path = Path(path)
    text = read_text(path, limit=MAX_POSITION_BYTES, error=RecordError, what="position file")
    return read_position(text, name=str(path))
