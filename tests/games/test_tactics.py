"""The tactical reader (companion.games.tactics) on capturing races, as ASCII boards.

Each race is two inner chains in contact, each walled in by the other side's living stones
(Black's wall on the left with eyes in its corners, White's on the right): the inner White
chain in columns 2-3, the inner Black chain in columns 4-6. Holes in the walls are outside
liberties, notches in column 3 shared liberties, a hole inside the Black chain an eye.
"""

from __future__ import annotations

import pytest

from companion.games.estimate import estimate
from companion.games.go import BLACK, WHITE, GoGame
from companion.games.tactics import NO, UNKNOWN, YES, Reader
from tests.support.boards import game_from

# White: 2 outside liberties + 1 shared = 3; Black: 1 outside + 1 shared = 2. No eyes:
# White wins whoever starts.
OUTSIDE_LIBERTIES = """
. B W W B B B W .
B B W W B B B W W
B B W . B B B W W
B . W W B B B . W
B . W W B B B W W
B B W W B B B W W
B B W W B B B W W
B B W W B B B W W
. B W W B B B W .
"""

# Black has one eye (E5), 1 outside liberty and 2 shared; White no eye and 3 outside. Naive
# counting says White (5) beats Black (4), but White cannot fill the shared liberties without
# shortening itself, and Black's eye is filled last: one eye beats no eye.
ONE_EYE = """
. B W W B B B W .
B B W W B B B W W
B B W . B B B W W
B . W W B B B . W
B . W W B . B W W
B . W W B B B W W
B B W . B B B W W
B B W W B B B W W
. B W W B B B W .
"""

# No outside liberties, two shared, no eyes: whoever fills a shared liberty is captured, so
# neither does. A seki.
SEKI = """
. B W W B B B W .
B B W W B B B W W
B B W . B B B W W
B B W W B B B W W
B B W W B B B W W
B B W W B B B W W
B B W . B B B W W
B B W W B B B W W
. B W W B B B W .
"""


def _reader(diagram: str) -> tuple[GoGame, Reader, int, int]:
    game, _ = game_from(diagram, "japanese")
    topo = game.topology
    reader = Reader(topo.neighbours, game.board)
    return game, reader, topo.spot(0, 2), topo.spot(0, 4)


def _read(reader: Reader, spot: int, attacker_first: bool) -> int:
    before = (list(reader.colour), reader.hash, reader.ko)
    verdict = reader.captured(spot, attacker_first, depth=24, budget=5000)
    assert (reader.colour, reader.hash, reader.ko) == before  # the position is left alone
    return verdict


@pytest.mark.parametrize("attacker_first", [True, False])
def test_race_goes_to_more_outside_liberties(attacker_first: bool) -> None:
    game, reader, white, black = _reader(OUTSIDE_LIBERTIES)
    assert _read(reader, black, attacker_first) == YES  # captured even moving first
    assert _read(reader, white, attacker_first) != YES
    est = estimate(game)
    assert game.chain(black) <= est.dead
    assert not (game.chain(white) & est.dead)


@pytest.mark.parametrize("attacker_first", [True, False])
def test_one_eye_beats_no_eye(attacker_first: bool) -> None:
    game, reader, white, black = _reader(ONE_EYE)
    assert _read(reader, white, attacker_first) == YES
    assert _read(reader, black, attacker_first) != YES
    est = estimate(game)
    assert game.chain(white) <= est.dead
    assert not (game.chain(black) & est.dead)


@pytest.mark.parametrize("attacker_first", [True, False])
def test_race_without_outside_liberties_is_seki(attacker_first: bool) -> None:
    game, reader, white, black = _reader(SEKI)
    assert _read(reader, white, attacker_first) == NO
    assert _read(reader, black, attacker_first) == NO
    est = estimate(game)
    assert not est.dead
    shared = {game.topology.spot(2, 3), game.topology.spot(6, 3)}
    assert shared <= est.dame


def test_reader_gives_up_within_its_budget() -> None:
    _, reader, _, black = _reader(ONE_EYE)
    assert reader.captured(black, True, depth=24, budget=10) == UNKNOWN
    assert reader.nodes <= 11


def test_reader_play_and_undo() -> None:
    game, names = game_from(
        """
        . B W . .
        B a B W .
        . B W . .
        . . . . .
        """
    )
    reader = Reader(game.topology.neighbours, game.board)
    before = (list(reader.colour), reader.hash)
    record = reader.play(names["a"], WHITE)  # takes the Black stone to its right
    assert record is not None and record[:-1] == [game.topology.spot(1, 2)]
    assert reader.ko == game.topology.spot(1, 2)
    assert reader.play(game.topology.spot(1, 2), BLACK) is None  # simple ko
    reader.undo(names["a"], WHITE, record)
    assert (reader.colour, reader.hash, reader.ko) == (*before, -1)
    with pytest.raises(ValueError):
        reader.captured(game.topology.spot(0, 0), True, depth=4, budget=10)  # an empty spot
    corner, names = game_from("b W .\nW . .\n. . .")
    assert Reader(corner.topology.neighbours, corner.board).play(names["b"], BLACK) is None
    with pytest.raises(ValueError):
        Reader(game.topology.neighbours, game.board[:-1])
