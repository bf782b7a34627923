"""ASCII boards for tests, in the spirit of sgfmill's board tests.

A diagram is rows of tokens, top row first: ``.`` empty, ``B`` (or ``X``, ``#``) Black,
``W`` (or ``O``) White, lower-case letters name empty spots the test refers to
(``a``..``z`` except ``x`` and ``o``).
"""

from __future__ import annotations

from companion.games.go import BLACK, EMPTY, WHITE, GoGame
from companion.games.rules import new_game
from companion.games.topology import grid

#: A finished 9x9 game, as a photo of it reads, for the tests that count a board from a photo:
#: the C/D columns are the two walls, and Black's lone stone at H6 is dead in White's area
#: (the suggestion takes it off).
FINISHED_9 = [
    ". . B W . . . . .",
    ". B B W . . . W .",
    ". . B W . . . . .",
    ". . B W . W . B .",
    ". . B W . . . . .",
    ". B B W . . . W .",
    ". . B W . . . . .",
    ". . B W . W . . .",
    ". . B W . . . . .",
]
#: The spot of the dead stone H6 on :data:`FINISHED_9`.
DEAD_H6 = 3 * 9 + 7

#: A scattered 9x9 position, a stone of each colour near every side, for the stone readers'
#: tests on renders.
SCATTERED_9 = [
    ". . . . . . . . .",
    ". W . . . . . B .",
    ". . B . . . . . .",
    ". . . W W . . . .",
    ". . . W B . . . .",
    ". . . . . . W . .",
    ". B . . . . . . .",
    ". . . . . . . W .",
    "W . . . . . . . B",
]

_STONES = {"B": BLACK, "X": BLACK, "#": BLACK, "W": WHITE, "O": WHITE}


def parse(diagram: str) -> tuple[list[list[str]], int, int]:
    rows = [line.split() for line in diagram.strip().splitlines() if line.strip()]
    height, width = len(rows), len(rows[0])
    assert all(len(r) == width for r in rows), "ragged diagram"
    return rows, width, height


def game_from(
    diagram: str, rules: str = "chinese", *, to_move: int = BLACK, **knobs: object
) -> tuple[GoGame, dict[str, int]]:
    """A game set up from the diagram, and the named empty spots."""
    rows, width, height = parse(diagram)
    topology = grid(width, height)
    game = new_game(rules, topology, **knobs)
    stones: dict[int, int] = {}
    names: dict[str, int] = {}
    for r, row in enumerate(rows):
        for c, tok in enumerate(row):
            spot = topology.spot(r, c)
            if tok in _STONES:
                stones[spot] = _STONES[tok]
            elif tok != ".":
                names[tok] = spot
    game.setup(stones, to_move=to_move)
    return game, names


def diagram(game: GoGame) -> str:
    """The game's board as rows of ``. B W`` tokens."""
    return "\n".join(game.rows())


def same(game: GoGame, expected: str) -> bool:
    rows, _, _ = parse(expected)
    want = [" ".join(tok if tok in "BW" else "." for tok in row) for row in rows]
    return game.rows() == want


__all__ = ["DEAD_H6", "EMPTY", "FINISHED_9", "diagram", "game_from", "parse", "same"]
