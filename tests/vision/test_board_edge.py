"""The board's outline against a chosen grid: a grid whose outer line lies on the board's edge
is a line off, and :func:`onto_outline` moves it in; a right grid, or one whose outline is
merely too wide, stays where it is. And the outline cut round a candidate grid
(:func:`seeded_quads`): the board's own edge, wherever the grid lies inside it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.board_edge import margins, onto_outline, seeded_quads
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


def _board_photo(tilt: bool) -> np.ndarray:
    """A plain board (EDGE) with its 19 lines (margin 0.6) on a green cloth, a dark sleeve
    across its right edge, a little noise."""
    img = np.full((600, 640, 3), (60, 90, 70), np.uint8)
    cv2.fillConvexPoly(img, EDGE.astype(np.int32), (90, 170, 215))
    grid = _grid((0.6, 0.6, 0.6, 0.6))
    for i in range(N):
        t = i / (N - 1)
        a, b = grid[0] + t * (grid[1] - grid[0]), grid[3] + t * (grid[2] - grid[3])
        c, d = grid[0] + t * (grid[3] - grid[0]), grid[1] + t * (grid[2] - grid[1])
        cv2.line(img, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), (30, 30, 30))
        cv2.line(img, tuple(np.round(c).astype(int)), tuple(np.round(d).astype(int)), (30, 30, 30))
    cv2.ellipse(img, (500, 280), (110, 40), 10, 0, 360, (110, 50, 40), -1)
    if tilt:
        img = cv2.warpPerspective(img, TILT, (640, 600), borderValue=(60, 90, 70))
    noise = np.random.default_rng(0).normal(0, 4, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("tilt", [False, True])
def test_an_outline_cut_round_a_grid_is_the_board_s_edge(tilt: bool) -> None:
    """Seeded by the right grid, the outline lies its margin (0.6 spacing) beyond it on every
    side, sleeve and all; seeded by a grid locked onto the board's edge (its outer lines on
    the wood's border), the outline lies on those lines, not a margin beyond: the seed does
    not make the board bigger than it is."""
    img = _board_photo(tilt)
    right = _seen(_grid((0.6, 0.6, 0.6, 0.6)), tilt)
    got = [margins(right, N, q) for q in seeded_quads(img, right, N)]
    assert got and any(np.abs(m - 0.6).max() < 0.15 for m in got)
    on_edge = _seen(_grid((0.0, 0.0, 0.0, 0.0)), tilt)
    for q in seeded_quads(img, on_edge, N):
        assert (margins(on_edge, N, q) < 0.2).any()


def test_no_outline_is_cut_round_a_grid_off_the_frame() -> None:
    img = _board_photo(False)
    off = _grid((0.6, 0.6, 0.6, 0.6)) + 5000.0
    assert seeded_quads(img, off, N) == []
