"""The board's outline against a chosen grid: a grid whose outer line lies on the board's edge
is a line off, and :func:`onto_outline` moves it in; a right grid, or one whose outline is
merely too wide, stays where it is."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.board_edge import margins, onto_outline
from companion.vision.finder_eval import corner_error
from companion.vision.geometry import Corners, homography, project

N = 19
EDGE = np.array([[100.0, 100.0], [460.0, 100.0], [460.0, 460.0], [100.0, 460.0]])
# a camera's view of the same board: everything below is also tried through this
TILT = cv2.getPerspectiveTransform(
    EDGE.astype(np.float32),
    np.array([[150, 120], [430, 110], [500, 440], [90, 430]], np.float32),
).astype(np.float64)


def _grid(margin: tuple[float, float, float, float]) -> Corners:
    """The corner intersections of a 19-line grid inside EDGE with these margins (left, top,
    right, bottom) in spacings; the spacing is the board's side over 18 + 1.2 spacings."""
    sp = 360.0 / (N - 1 + 1.2)
    left, top, right, bottom = (
        100 + margin[0] * sp,
        100 + margin[1] * sp,
        460 - margin[2] * sp,
        460 - margin[3] * sp,
    )
    return np.array([[left, top], [right, top], [right, bottom], [left, bottom]])


def _seen(points: Corners, tilt: bool) -> Corners:
    return project(TILT, points) if tilt else points


@pytest.mark.parametrize("tilt", [False, True])
def test_a_right_grid_stays(tilt: bool) -> None:
    grid = _seen(_grid((0.6, 0.6, 0.6, 0.6)), tilt)
    assert np.allclose(margins(grid, N, _seen(EDGE, tilt)), 0.6, atol=1e-6)
    assert onto_outline(grid, N, [_seen(EDGE, tilt)]) is grid


@pytest.mark.parametrize("tilt", [False, True])
@pytest.mark.parametrize("margin", [0.6, 1.0])  # 1.0: the outer line lands on the edge itself
@pytest.mark.parametrize(("dx", "dy"), [(0, -1), (1, 0), (-1, 1), (0, 1)])
def test_a_grid_a_line_off_onto_the_board_edge_is_moved_in(
    dx: int, dy: int, margin: float, tilt: bool
) -> None:
    right = _grid((margin, margin, margin, margin))
    ends = np.array([[0, 0], [N - 1, 0], [N - 1, N - 1], [0, N - 1]], np.float64)
    wrong = project(homography(right, N), ends + np.array([dx, dy], np.float64))
    moved = onto_outline(_seen(wrong, tilt), N, [_seen(EDGE, tilt)])
    assert corner_error(moved, _seen(right, tilt), N) < 1e-4  # float32 homographies


@pytest.mark.parametrize("tilt", [False, True])
def test_a_grid_in_an_outline_too_wide_is_not_moved(tilt: bool) -> None:
    """An outline that takes in the board's side face lies too far beyond one side: no
    outline lies round the grid, but no side of it is on the edge either, so it stays."""
    grid = _seen(_grid((0.6, 0.6, 0.6, 2.6)), tilt)
    assert onto_outline(grid, N, [_seen(EDGE, tilt)]) is grid


def test_no_outline_or_a_degenerate_one_leaves_the_grid() -> None:
    grid = _grid((0.6, -0.4, 0.6, 1.6))
    assert onto_outline(grid, N, []) is grid
    flat = np.array([[100.0, 100.0], [460.0, 100.0], [460.0, 100.0], [100.0, 100.0]])
    assert onto_outline(grid, N, [flat]) is grid
