"""Where a candidate grid's crossings really are: snap to them, slide by a line, extend.

Works on a line response (thin dark strokes, :func:`companion.vision.find_board.line_masks`):
every intersection shows lines both ways (at the board's edge, a T), a board's edge or a
shadow shows one. Used by :mod:`companion.vision.find_board` for grids from lines and from
the board's edge alike.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.geometry import Corners, homography, project


def refine(bh: NDArray[np.uint8], quad: Corners, n: int) -> tuple[Corners, float]:
    """Snap every visible intersection and fit a homography to them; returns corners, inlier share."""
    H = homography(quad, n)
    rr, cc = np.mgrid[0:n, 0:n]
    pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    img_pts = project(H, pts)
    # local spacing in pixels for the search window
    sp = np.linalg.norm(np.diff(quad, axis=0, append=quad[:1]), axis=1).mean() / (n - 1)
    r = max(2, round(float(sp * 0.3)))
    arm = max(3, round(float(sp * 0.45)))
    bhf = bh.astype(np.float32)
    # cross response: sum of line response along a horizontal and a vertical arm
    kx = np.zeros((2 * arm + 1, 2 * arm + 1), np.float32)
    kx[arm, :] = 1.0
    kx[:, arm] = 1.0
    # the same as filter2D with kx / kx.sum(), as two box filters (far cheaper)
    k = 2 * arm + 1
    cross = (
        cv2.boxFilter(bhf, -1, (k, 1), normalize=False)
        + cv2.boxFilter(bhf, -1, (1, k), normalize=False)
        - bhf
    ) / float(kx.sum())
    found_src, found_dst = [], []
    h, w = bh.shape
    for (bx, by), (x, y) in zip(pts, img_pts, strict=True):
        xi, yi = round(float(x)), round(float(y))
        x0, x1, y0, y1 = xi - r, xi + r + 1, yi - r, yi + r + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            continue
        win = cross[y0:y1, x0:x1]
        j = int(np.argmax(win))
        peak = float(win.flat[j])
        if peak < 8.0:
            continue
        dy, dx = divmod(j, win.shape[1])
        found_src.append((bx, by))
        found_dst.append((x0 + dx, y0 + dy))
    if len(found_src) < max(8, n * n // 6):
        return quad, 0.0
    src = np.array(found_src, np.float32)
    dst = np.array(found_dst, np.float32)
    H2, inl = cv2.findHomography(
        src, dst, cv2.RANSAC, max(1.5, sp * 0.12), maxIters=300, confidence=0.99
    )
    if H2 is None:
        return quad, 0.0
    corners = project(
        np.asarray(H2, dtype=np.float64),
        np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float64),
    )
    return corners, float(inl.sum()) / (n * n)


class Crossings:
    """Where lines cross both ways (an intersection, or a T at the edge) in a line response."""

    def __init__(self, bh: NDArray[np.uint8], quad: Corners, n: int) -> None:
        sp = np.linalg.norm(np.diff(quad, axis=0, append=quad[:1]), axis=1).mean() / (n - 1)
        arm = max(3, round(float(sp * 0.4)))
        bhf = bh.astype(np.float32)
        k = 2 * arm + 1
        self.both = np.minimum(cv2.blur(bhf, (k, 1)), cv2.blur(bhf, (1, k)))
        self.H = homography(quad, n)
        self.n = n

    def line(self, axis: int, index: int) -> float:
        """Mean response along lattice column (axis 0) or row (axis 1) ``index`` (may be
        outside the grid: -1 is one spacing before the first line)."""
        n = self.n
        other = np.arange(n, dtype=np.float64)
        fixed = np.full(n, float(index))
        pts = np.stack([fixed, other] if axis == 0 else [other, fixed], axis=1)
        uv = np.round(project(self.H, pts)).astype(int)
        h, w = self.both.shape
        ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
        vals = np.zeros(n)
        vals[ok] = self.both[uv[ok, 1], uv[ok, 0]]
        return float(vals.mean())

    def inner(self, axis: int) -> float:
        return float(np.median([self.line(axis, i) for i in range(1, self.n - 1)]))


def shift_check(bh: NDArray[np.uint8], quad: Corners, n: int) -> Corners:
    """Slide the grid by a line if that fits better: is the grid off by one row or column?

    A board's edge or a shadow parallel to the grid can pass for its outermost line. Every
    intersection has lines both ways (at the edge, a T); an edge line crossed by nothing
    has one. An outermost line with hardly any crossings, facing a line with plenty just
    beyond the other side, means the grid is one line off.
    """
    x = Crossings(bh, quad, n)
    shift = [0, 0]
    for axis in (0, 1):  # columns (x), rows (y)
        inner = x.inner(axis)
        first, last = x.line(axis, 0), x.line(axis, n - 1)
        before, after = x.line(axis, -1), x.line(axis, n)
        if last < 0.35 * inner and before > 0.5 * inner:
            shift[axis] = -1
        elif first < 0.35 * inner and after > 0.5 * inner:
            shift[axis] = 1
    if shift == [0, 0]:
        return quad
    ends = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float64) + shift
    return project(x.H, ends)


def extends(bh: NDArray[np.uint8], quad: Corners, n: int) -> bool:
    """Do crossings go on beyond the grid (so it is part of a bigger one)?"""
    x = Crossings(bh, quad, n)
    for axis in (0, 1):
        inner = x.inner(axis)
        if max(x.line(axis, -1), x.line(axis, n)) > 0.6 * inner:
            return True
    return False


def refined(bh: NDArray[np.uint8], quad: Corners, n: int) -> Corners:
    """``quad`` snapped to the crossings twice, while at least 30 % of them are found."""
    for _ in range(2):
        snapped, share = refine(bh, quad, n)
        if share < 0.3:
            break
        quad = snapped
    return quad
