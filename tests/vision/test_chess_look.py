"""The chess look reader on rendered frames: squares, rifts, piece colours, and a hand."""

from __future__ import annotations

import numpy as np
import pytest

from companion.errors import CalibrationError, VisionError
from companion.games.beyond_chess import BeyondChess, cell, traditional
from companion.games.beyond_chess_notation import parse_turn
from companion.games.beyond_chess_tracking import TURN, read_turn
from companion.vision.chess_grid import ChessGrid, grid_homography
from companion.vision.chess_look import RIFT, ChessLookReader, compare
from companion.vision.chess_render import render_table

SMALL = {"width": 640, "height": 480}
TURNS = ("e2e4", "e7e5/a6[-1,5]", "g1f3/h3i3", "b8c6/[-1,5][-1,4]")


def played(*texts: str) -> BeyondChess:
    pos = traditional()
    for t in texts:
        pos.push(parse_turn(t))
    return pos


def reader_for(**pose: object) -> ChessLookReader:
    """A reader calibrated on the starting setup seen from the same pose."""
    start = render_table(traditional().look(), seed=11, **SMALL, **pose)  # type: ignore[arg-type]
    reader = ChessLookReader(start.H)
    reader.calibrate(start.image, start.look)
    return reader


@pytest.mark.parametrize(
    "pose",
    [{}, {"tilt": 30.0, "rotate": 8.0}, {"light": "uneven"}, {"light": "dim"}, {"noise": 6.0}],
)
def test_reads_squares_rifts_and_piece_colours(pose: dict[str, object]) -> None:
    reader = reader_for(**pose)
    pos = played(*TURNS)
    frame = render_table(pos.look(), seed=2, **SMALL, **pose)  # type: ignore[arg-type]
    reading = reader.read(frame.image, timestamp=4.0)
    stats = compare(reading, pos.look(), reader.grid)
    assert stats.wrong == [] and stats.unknown == 0
    assert reading.look() == pos.look()
    assert reading.timestamp == 4.0
    # the shifted squares: a6 went to [-1,5] then on to [-1,4]; h3 to i3
    assert reading.cells[cell(-1, 4)] == "." and reading.cells[cell(0, 5)] == RIFT
    assert reading.cells[cell(8, 2)] == "." and reading.cells[cell(7, 2)] == RIFT
    assert min(reading.confidence.values()) > 0.5


def test_the_reading_is_the_turn_for_the_tracker() -> None:
    reader = reader_for()
    before = played(*TURNS[:2])
    after = played(*TURNS[:3])
    reading = reader.read(render_table(after.look(), seed=5, **SMALL).image)
    result = read_turn(before, reading.look())
    assert result.kind == TURN and result.turns == (parse_turn(TURNS[2]),)


ASCII_ROWS = [
    "- - - - - - - - - - - -",
    "- - - - - - - - - - - -",
    "- - B B B B B B B B - -",
]


def test_rows_draw_the_reading_from_the_top() -> None:
    reader = reader_for()
    reading = reader.read(render_table(traditional().look(), seed=3, **SMALL).image)
    assert reading.rows(reader.grid)[:3] == ASCII_ROWS


@pytest.mark.parametrize("seed,tilt", [(3, 0.0), (5, 20.0)])
def test_a_hand_over_the_board_reads_unknown(seed: int, tilt: float) -> None:
    reader = reader_for(tilt=tilt)
    pos = played(*TURNS)
    frame = render_table(pos.look(), seed=seed, tilt=tilt, hand=True, **SMALL)
    assert len(frame.hidden) > 20
    reading = reader.read(frame.image)
    stats = compare(reading, pos.look(), reader.grid)
    outside = [w for w in stats.wrong if w[0] not in frame.hidden]
    assert outside == []
    hidden_unknown = sum(1 for c in frame.hidden if reading.cells[c] == "?")
    assert hidden_unknown >= 0.8 * len(frame.hidden)
    assert all(c in frame.hidden for c in reading.unknown())
    assert stats.wrong == []


def test_calibrated_corners_give_the_renderers_homography() -> None:
    grid = ChessGrid()
    frame = render_table(traditional().look(), tilt=25.0, rotate=-10.0)
    pts = np.array([[2, 2], [10, 2], [10, 10], [2, 10]], np.float64)
    q = np.c_[pts, np.ones(4)] @ frame.H.T
    corners = q[:, :2] / q[:, 2:]
    H = grid_homography(corners, grid)
    assert np.allclose(H / H[2, 2], frame.H / frame.H[2, 2], atol=1e-6)


def test_refusals_are_plain() -> None:
    start = render_table(traditional().look())
    reader = ChessLookReader(start.H)
    with pytest.raises(CalibrationError, match="not calibrated"):
        reader.read(start.image)
    with pytest.raises(CalibrationError, match="no rifts"):
        reader.calibrate(start.image, {c: "." for _, _, c in ChessGrid().cells()})
    with pytest.raises(VisionError, match="BGR image"):
        reader.read(np.zeros((10, 10), np.uint8))
    with pytest.raises(VisionError, match="invertible"):
        ChessLookReader(np.zeros((3, 3)))
    with pytest.raises(VisionError, match=r"W, B or \."):
        render_table({cell(0, 0): "?"})
    with pytest.raises(VisionError, match="outside the camera grid"):
        render_table({cell(20, 0): "."})
