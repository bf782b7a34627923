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

from companion.vision.geometry import Corners, homography, project, spacing


def refine(bh: NDArray[np.uint8], quad: Corners, n: int) -> tuple[Corners, float]:
    """Snap every visible intersection and fit a homography to them; returns corners, inlier share."""
    H = homography(quad, n)
    rr, cc = np.mgrid[0:n, 0:n]
    pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    img_pts = project(H, pts)
    # local spacing in pixels for the search window
    sp = spacing(quad, n)
    r = max(2, round(float(sp * 0.3)))
    arm = max(3, round(float(sp * 0.45)))
    h, w = bh.shape
    # only the part of the image round the grid is filtered (a box filter's value depends on
    # the pixels within its arm only, so this is the whole image's response there)
    pad = arm + r + 2
    finite = img_pts[np.isfinite(img_pts).all(axis=1)]
    if not len(finite):
        return quad, 0.0
    lo = np.clip(np.floor(finite.min(axis=0)).astype(int) - pad, 0, [w, h])
    hi = np.clip(np.ceil(finite.max(axis=0)).astype(int) + pad + 1, 0, [w, h])
    ox, oy = int(lo[0]), int(lo[1])
    bhf = bh[oy : int(hi[1]), ox : int(hi[0])].astype(np.float32)
    if bhf.size == 0:
        return quad, 0.0
    # cross response: sum of line response along a horizontal and a vertical arm, the same
    # as filter2D with a cross of ones over its sum, as two box filters (far cheaper)
    k = 2 * arm + 1
    cross = (
        cv2.boxFilter(bhf, -1, (k, 1), normalize=False, borderType=cv2.BORDER_REFLECT_101)
        + cv2.boxFilter(bhf, -1, (1, k), normalize=False, borderType=cv2.BORDER_REFLECT_101)
        - bhf
    ) / float(2 * k - 1)
    # every point's window at once (rows in C order, so argmax picks the same first peak)
    with np.errstate(invalid="ignore"):
        centre = np.rint(img_pts)  # round half to even, as Python's round
    inside = np.isfinite(img_pts).all(axis=1)
    centre[~inside] = -(2**30)
    ci = centre.astype(np.int64)
    x0, y0 = ci[:, 0] - r, ci[:, 1] - r
    inside &= (x0 >= 0) & (y0 >= 0) & (x0 + 2 * r + 1 <= w) & (y0 + 2 * r + 1 <= h)
    x0, y0, src_pts = x0[inside], y0[inside], pts[inside]
    if not len(x0):  # no point's window inside the image (a grid round or beyond the frame)
        return quad, 0.0
    offs = np.arange(2 * r + 1)
    rows = (y0 - oy)[:, None, None] + offs[None, :, None]
    cols = (x0 - ox)[:, None, None] + offs[None, None, :]
    wins = cross[rows, cols].reshape(len(x0), -1)
    j = np.argmax(wins, axis=1)
    peak = wins[np.arange(len(x0)), j]
    keep = peak >= 8.0
    dy, dx = np.divmod(j[keep], 2 * r + 1)
    if int(keep.sum()) < max(8, n * n // 6):
        return quad, 0.0
    src = np.asarray(src_pts[keep], np.float32)
    dst = np.stack([x0[keep] + dx, y0[keep] + dy], axis=1).astype(np.float32)
    H2, inl = cv2.findHomography(
        src, dst, cv2.RANSAC, max(1.5, sp * 0.12), maxIters=300, confidence=0.99
    )
    if H2 is None:
        return quad, 0.0
    corners = project(
        np.asarray(H2, dtype=np.float64),
        np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float64),
    )
    if not np.isfinite(corners).all() or abs(cv2.contourArea(corners.astype(np.float32))) < 16:
        return quad, 0.0  # a degenerate fit (crossings nearly on one line): keep the guess
    return corners, float(inl.sum()) / (n * n)


class Crossings:
    """Where lines cross both ways (an intersection, or a T at the edge) in a line response."""

    def __init__(self, bh: NDArray[np.uint8], quad: Corners, n: int) -> None:
        sp = spacing(quad, n)
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


WEAK_LINE = 0.35  # of the inner lines' crossing response: an outer line with hardly any
STRONG_BEYOND = 0.5  # ...facing a line beyond the other side with at least this much
# ...and, since session 11 (nine11), the outer line on that other side crossed both ways like
# an inner line (a T, a right grid's outer line, answers about half an inner line, 0.5-0.6 on a
# drawn grid); 0.6 chosen on tuning scenes (BOARD_CARD, "Session 11 (nine11)")
FULL_CROSSES = 0.6


def shift_check(bh: NDArray[np.uint8], quad: Corners, n: int) -> Corners:
    """Slide the grid by a line if that fits better: is the grid off by one row or column?

    A board's edge or a shadow parallel to the grid can pass for its outermost line. Every
    intersection has lines both ways (at the edge, a T); an edge line crossed by nothing
    has one. An outermost line with hardly any crossings, facing a line with plenty just
    beyond the other side, means the grid is one line off when two more things hold, as on
    a grid slid onto the board's edge: nothing crosses beyond that weak line either (it is
    the board's edge, the table past it), and the outer line on the other side is crossed
    both ways (:data:`FULL_CROSSES`: it is one of the board's inner lines). Without them a
    right grid was slid a line off: its outer lines are T's, about half as strong as an
    inner line, so blur or stones put one under :data:`WEAK_LINE`, while one spacing beyond
    the grid (on a 9 x 9 board often the board's side face, its edge or a patterned cloth)
    answers the filter both ways as strongly as the lines do.
    """
    x = Crossings(bh, quad, n)
    shift = [0, 0]
    for axis in (0, 1):  # columns (x), rows (y)
        inner = x.inner(axis)
        first, last = x.line(axis, 0), x.line(axis, n - 1)
        before, after = x.line(axis, -1), x.line(axis, n)
        weak, strong = WEAK_LINE * inner, STRONG_BEYOND * inner
        full = FULL_CROSSES * inner
        if last < weak and after < weak and before > strong and first >= full:
            shift[axis] = -1
        elif first < weak and before < weak and after > strong and last >= full:
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


def corner_patch_refine(
    image: NDArray[np.uint8], quad: Corners, n: int, *, reach: int = 5
) -> Corners:
    """Each corner of ``quad`` moved to where the crossings near it really are, at the full
    resolution of ``image`` (colour or grey; the grid is found on a reduced copy; lens distortion bends the
    lines, so one homography over the board misses its corners by a fraction of a spacing).

    Around each corner the ``reach`` x ``reach`` cells nearest it are seen top-down through
    the current grid (so its lines run along the axes whatever the board's turn), every
    crossing there is snapped to the strongest cross of dark lines within a third of a
    spacing, a map is fitted to the ones found (RANSAC) and the corner moves to where that
    local fit puts it. A corner with too few crossings in view stays. Positions are
    sub-pixel (a parabola through the peak of the cross response).
    """
    H = homography(quad, n)
    out = np.asarray(quad, np.float64).copy()
    sp = spacing(quad, n)
    if sp < 6:
        return out
    px = int(min(48, max(16, round(float(sp)))))  # top-view px per spacing
    k = min(reach, n)
    r = max(2, px // 4)
    arm = max(3, round(px * 0.4))
    kernel = max(3, round(px * 0.4) | 1)
    se = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    for ci, (cx, cy) in enumerate(((0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1))):
        c0 = 0 if cx == 0 else n - k
        r0 = 0 if cy == 0 else n - k
        # top view of grid columns c0-1 .. c0+k, rows r0-1 .. r0+k: grid (c, r) at
        # ((c - c0 + 1) px, (r - r0 + 1) px)
        side = (k + 1) * px
        to_grid = np.array([[1 / px, 0, c0 - 1], [0, 1 / px, r0 - 1], [0, 0, 1]], np.float64)
        m = H @ to_grid  # top-view px -> image px
        top = cv2.warpPerspective(
            image, m, (side + 1, side + 1), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        if top.ndim == 3:  # only the patch is made grey, not a 12-megapixel photo
            top = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY)
        bh = cv2.subtract(cv2.morphologyEx(top, cv2.MORPH_CLOSE, se), top).astype(np.float32)
        both = np.minimum(cv2.blur(bh, (2 * arm + 1, 1)), cv2.blur(bh, (1, 2 * arm + 1)))
        floor = float(np.percentile(both, 60))
        got_src, got_dst = [], []
        for gr in range(r0, r0 + k):
            for gc in range(c0, c0 + k):
                xi, yi = (gc - c0 + 1) * px, (gr - r0 + 1) * px
                win = both[yi - r : yi + r + 1, xi - r : xi + r + 1]
                j = int(np.argmax(win))
                dy, dx = divmod(j, win.shape[1])
                tx, ty = xi - r + dx, yi - r + dy
                if float(both[ty, tx]) < max(3.0, 2.0 * floor):
                    continue
                fx = tx + _vertex(both[ty, tx - 1 : tx + 2])
                fy = ty + _vertex(both[ty - 1 : ty + 2, tx])
                got_src.append((gc, gr))
                got_dst.append(project(m, np.array([[fx, fy]], np.float64))[0])
        if len(got_src) < 5:
            continue
        a, b = np.array(got_src, np.float32), np.array(got_dst, np.float32)
        if len(got_src) >= 10:
            Hl, inl = cv2.findHomography(a, b, cv2.RANSAC, max(1.0, sp * 0.06))
        else:  # few crossings: an affine map (a corner's neighbourhood is nearly flat)
            A, inl = cv2.estimateAffine2D(a, b, ransacReprojThreshold=max(1.0, sp * 0.06))
            Hl = None if A is None else np.vstack([A, [0.0, 0.0, 1.0]])
        if Hl is None or inl is None or int(inl.sum()) < max(5, k * k // 2):
            continue
        moved = project(np.asarray(Hl, np.float64), np.array([[cx, cy]], np.float64))[0]
        if np.hypot(*(moved - out[ci])) >= 0.45 * sp:
            continue
        # keep the move only if the crossings of the block, as the local fit puts them,
        # show more cross of lines than where the grid put them (blur can pull single
        # peaks towards stones)
        gx, gy = np.meshgrid(np.arange(c0, c0 + k), np.arange(r0, r0 + k))
        block = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float64)
        before = _sample(both, (block - [c0 - 1, r0 - 1]) * px)
        inv = np.linalg.inv(m)
        after = _sample(both, project(inv, project(np.asarray(Hl, np.float64), block)))
        if after > 1.05 * before:
            out[ci] = moved
    return out


def _sample(img: NDArray[np.float32], pts: NDArray[np.float64]) -> float:
    """Mean of ``img`` at sub-pixel points (bilinear), points outside counting zero."""
    h, w = img.shape
    x, y = pts[:, 0], pts[:, 1]
    ok = (x >= 0) & (y >= 0) & (x < w - 1) & (y < h - 1)
    if not ok.any():
        return 0.0
    x0, y0 = np.floor(x[ok]).astype(int), np.floor(y[ok]).astype(int)
    fx, fy = x[ok] - x0, y[ok] - y0
    v = (
        img[y0, x0] * (1 - fx) * (1 - fy)
        + img[y0, x0 + 1] * fx * (1 - fy)
        + img[y0 + 1, x0] * (1 - fx) * fy
        + img[y0 + 1, x0 + 1] * fx * fy
    )
    return float(v.sum() / len(pts))


def _vertex(v: NDArray[np.float32]) -> float:
    """Sub-pixel offset of a peak from three samples around it (a parabola's vertex)."""
    if len(v) < 3:
        return 0.0
    a, b, c = float(v[0]), float(v[1]), float(v[2])
    den = a - 2 * b + c
    return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) if den < 0 else 0.0
