"""The grid inside a board outline, from whatever marks its points: lines, stones, or both.

One map serves every cue: how far each pixel's colour is from the board's own colour (learned
from the board's margin, or from the cell centres of a candidate grid, never from "most points
are empty"). A line crossing, a black stone and a white stone all sit far from the board's
colour; the middle of a cell, even on a full board (the gap between four round stones), is
board. So on the right grid every point stands out from the cell centres around it, whatever
the mix of stones and empty points, and blur only lowers the contrast.

- :func:`fit_in_edge` looks, inside a board's outer edge, for ``n`` evenly spaced rows and
  columns centred on the board (margins are equal on a real board); the spacing relative to the
  board gives the size.
- :func:`standout` scores any candidate grid: the share of points darker or brighter than the
  board, against the cell centres beside them.
- :func:`marks` says whether anything (stones, crossings) marks the points apart from the cells.
- :func:`squareness` says whether a grid can be a square seen through a camera at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.geometry import Corners, homography, project, spacing

Image = NDArray[np.uint8]
PX = 12  # top-view pixels per grid spacing when scoring
MARGIN_SPACINGS = (0.35, 1.6)  # plausible board margin beyond the outer lines, in spacings
BOARD_ASPECT = 1.09  # a real board's cells are up to this much longer than wide
FOCAL = (0.3, 5.0)  # focal lengths tried, in image sides


def distance_map(lab: NDArray[np.float32], colour: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per-pixel colour distance from ``colour`` (Lab, lightness weighted half)."""
    d = lab - colour[None, None, :]
    light, a, b = d[..., 0] * np.float32(0.5), d[..., 1], d[..., 2]
    # the channels added in the order numpy's sum over them took (the same values bit for
    # bit), at a third of its cost: a sum over a last axis of three is slow
    return np.asarray(np.sqrt((light * light + a * a) + b * b), dtype=np.float32)


def to_lab(image: Image) -> NDArray[np.float32]:
    return cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)


def _top(img: NDArray[np.float32], quad: Corners, side: int) -> NDArray[np.float32]:
    dst = np.array([[0, 0], [side - 1, 0], [side - 1, side - 1], [0, side - 1]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return np.asarray(
        cv2.warpPerspective(img, M, (side, side), flags=cv2.INTER_AREA), dtype=np.float32
    )


def margin_colour(lab: NDArray[np.float32], edge: Corners) -> NDArray[np.float32]:
    """The board's colour: the median of a thin band just inside its outer edge."""
    side = 200
    top = _top(lab, edge, side)
    band = np.ones((side, side), bool)
    b = 6
    band[b : side - b, b : side - b] = False
    band[:2, :] = band[-2:, :] = band[:, :2] = band[:, -2:] = False
    return np.asarray(np.median(top[band], axis=0), dtype=np.float32)


def fit_in_edge(
    dist: NDArray[np.float32], edge: Corners, sizes: Sequence[int]
) -> list[tuple[float, Corners, int]]:
    """(standout, corner intersections, size) for each size whose centred grid fits ``edge``;
    ``dist`` is :func:`distance_map` from the board's colour."""
    side = 480
    top = _top(dist, edge, side)
    top = np.asarray(cv2.GaussianBlur(top, (0, 0), 1.5), dtype=np.float32)
    out = []
    for n in sizes:
        spacing = []
        for prof in (top.mean(axis=0), top.mean(axis=1)):
            sp = _best_spacing(prof.astype(np.float64), n)
            if sp is None:
                break
            spacing.append(sp)
        if len(spacing) < 2:
            continue
        # corner intersections in the top view, then back through the edge's homography
        half = [(side - 1 - (n - 1) * s) / 2 for s in spacing]
        lo = np.array(half)
        hi = lo + (n - 1) * np.array(spacing)
        pts = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        src = np.array([[0, 0], [side - 1, 0], [side - 1, side - 1], [0, side - 1]], np.float32)
        M = cv2.getPerspectiveTransform(src, edge.astype(np.float32)).astype(np.float64)
        corners = np.asarray(
            cv2.perspectiveTransform(pts.reshape(1, 4, 2), M), dtype=np.float64
        ).reshape(4, 2)
        out.append((standout(dist, corners, n), corners, n))
    return out


def _best_spacing(prof: NDArray[np.float64], n: int) -> float | None:
    """The spacing of ``n`` lines centred in ``prof`` that best stand out from the mid-lines."""
    side = len(prof)
    xs = np.arange(side, dtype=np.float64)
    best, best_s = None, -1e9
    lo = (side - 1) / (n - 1 + 2 * MARGIN_SPACINGS[1])
    hi = (side - 1) / (n - 1 + 2 * MARGIN_SPACINGS[0])
    for s in np.linspace(lo, hi, 60):
        start = (side - 1 - (n - 1) * s) / 2
        on = start + s * np.arange(n)
        mid = on[:-1] + s / 2
        score = float(np.interp(on, xs, prof).mean() - np.interp(mid, xs, prof).mean())
        if score > best_s:
            best, best_s = float(s), score
    return best if best_s > 0 else None


def _samples(
    dist: NDArray[np.float32], corners: Corners, n: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``dist`` (slightly blurred) at the grid's ``n`` x ``n`` points and at its
    ``(n+1)`` x ``(n+1)`` cell centres, the half cells outside the outer lines included;
    NaN where they fall off the image."""
    H = homography(corners, n)
    # sample points and cell centres on a (2n+1) half-spacing lattice from -0.5 to n - 0.5
    k = np.arange(2 * n + 1, dtype=np.float64) / 2 - 0.5
    gx, gy = np.meshgrid(k, k)
    pts = project(H, np.stack([gx, gy], axis=2))
    sp = spacing(corners, n)
    blur = cv2.GaussianBlur(dist, (0, 0), max(0.6, 0.12 * float(sp)))
    h, w = dist.shape
    xi = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    inside = (pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0) & (pts[..., 1] < h)
    v = np.where(inside, blur[yi, xi], np.nan)
    return v[1::2, 1::2], v[0::2, 0::2]


def standout(dist: NDArray[np.float32], corners: Corners, n: int) -> float:
    """Share of grid points further from the board's colour than their neighbouring cell
    centres (0..1; about 0.5 for a grid that is not there)."""
    point, centre = _samples(dist, corners, n)
    around = (centre[:-1, :-1] + centre[1:, :-1] + centre[:-1, 1:] + centre[1:, 1:]) / 4
    lowest = np.fmin(
        np.fmin(centre[:-1, :-1], centre[1:, 1:]), np.fmin(centre[1:, :-1], centre[:-1, 1:])
    )
    ok = np.isfinite(point) & np.isfinite(around)
    if ok.sum() < 0.6 * n * n:
        return 0.0
    scale = float(np.nanmedian(np.abs(point - around))) + 1e-3
    stands = (point - around > 0.1 * scale) & (point > lowest)
    return float(stands[ok].mean())


def marks(dist: NDArray[np.float32], corners: Corners, n: int, share: float = 0.5) -> float:
    """How much further from the board's colour the grid's points are than its cell
    centres: the difference of their ``1 - share`` quantiles, in ``dist``'s units (Lab).

    Stones sit on the points, so on a board with stones on ``share`` of its points or more
    this is large (a stone is far from the board's colour); on a smooth patch of colour with
    no board (a tray, a cloth's plain stripe) points and cell centres follow the same slow
    shading and it is about zero, whatever :func:`standout` makes of that shading. The
    median (``share`` 0.5) misses a sparse board (its median point is an empty one); the
    upper tenth (0.1) misses a board a hand covers a tenth of (the hand lifts the cells'
    upper tenth too): :func:`find_board` asks both."""
    point, centre = _samples(dist, corners, n)
    if not (np.isfinite(point).any() and np.isfinite(centre).any()):
        return 0.0
    q = 100.0 * (1.0 - share)
    return float(np.nanpercentile(point, q) - np.nanpercentile(centre, q))


def refine(dist: NDArray[np.float32], corners: Corners, n: int) -> Corners:
    """Nudge a grid onto the lattice in ``dist``: per half of the board, each axis's lines are
    slid (at most 0.3 spacing) and stretched (at most 4 %) to where points stand out most, so
    an edge seen slightly wrong, or a perspective slightly off, is corrected."""
    # top view of the grid with one spacing around it: point (c, r) at ((c + 1) PX, (r + 1) PX)
    side = (n + 1) * PX
    src = np.array([[PX, PX], [n * PX, PX], [n * PX, n * PX], [PX, n * PX]], np.float32)
    M = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    top = cv2.warpPerspective(dist, M, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    top = cv2.GaussianBlur(top, (0, 0), 1.2)
    half = side // 2
    ends = np.zeros((2, 2, 2))  # axis, half, (first, last) line position in top-view px
    for axis in (0, 1):
        for h_i, sl in enumerate((slice(0, half), slice(half, side))):
            part = top[sl, :] if axis == 0 else top[:, sl]
            prof = part.mean(axis=axis).astype(np.float64)
            ends[axis, h_i] = _slide(prof, n)
    # the halves' centres, in top-view px, along the other axis
    at = np.array([half / 2, half + (side - half) / 2])
    rows = np.array([PX, n * PX], np.float64)  # where the first and last rows/columns lie
    pts = []
    for ry in rows:  # TL, TR at the first row; BR, BL at the last
        xs = [_extrap(ry, at, ends[0, :, k]) for k in (0, 1)]
        pts.append(xs)
    out = []
    for r_i, c_i in ((0, 0), (0, 1), (1, 1), (1, 0)):
        x = pts[r_i][c_i]
        y_first_last = [_extrap(x, at, ends[1, :, k]) for k in (0, 1)]
        out.append((x, y_first_last[r_i]))
    new = np.array(out, np.float64)
    moved = cv2.perspectiveTransform(new.reshape(1, 4, 2), M.astype(np.float64))
    return np.asarray(moved, dtype=np.float64).reshape(4, 2)


def _extrap(x: float, at: NDArray[np.float64], vals: NDArray[np.float64]) -> float:
    slope = (vals[1] - vals[0]) / (at[1] - at[0])
    return float(vals[0] + slope * (x - at[0]))


def _slide(prof: NDArray[np.float64], n: int) -> tuple[float, float]:
    """First and last line of ``n`` in ``prof`` near PX .. n PX, slid and stretched to fit."""
    xs = np.arange(len(prof), dtype=np.float64)
    best, best_s = (float(PX), float(n * PX)), -1e9
    for shift in np.linspace(-0.3 * PX, 0.3 * PX, 13):
        for stretch in np.linspace(0.96, 1.04, 9):
            sp = PX * stretch
            centre = (n + 1) * PX / 2 + shift
            on = centre + (np.arange(n) - (n - 1) / 2) * sp
            mid = on[:-1] + sp / 2
            s = float(np.interp(on, xs, prof).mean() - np.interp(mid, xs, prof).mean())
            if s > best_s:
                best_s, best = s, (float(on[0]), float(on[-1]))
    return best


def squareness(corners: Corners, shape: tuple[int, ...]) -> float:
    """How far a grid is from a square board seen through a pinhole camera (0: it can be).

    The corner intersections of a real board are a square (its cells up to
    :data:`BOARD_ASPECT` long) in perspective. With the principal point at the centre of the
    image (a photo as taken), a focal length exists for which the two sides of the grid,
    taken back into 3D through the homography, are at right angles and of equal length; for a
    patch of a cloth's pattern fitted as a grid (cells twice as wide as high, or skewed)
    none does. Returns the least, over plausible focal lengths, of the worse of |cos| of the
    angle between the board's sides and the excess of |log| of their length ratio.
    """
    h, w = shape[:2]
    side = float(max(h, w))
    centre = np.array([(w - 1) / 2, (h - 1) / 2])
    dst = ((np.asarray(corners, np.float64) - centre) / side).astype(np.float32)
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    h1, h2 = H[:, 0], H[:, 1]
    f = np.geomspace(*FOCAL, 60)[:, None]
    weights = np.concatenate([1 / f**2, 1 / f**2, np.ones_like(f)], axis=1)
    a = (h1 * h1 * weights).sum(axis=1)
    b = (h2 * h2 * weights).sum(axis=1)
    ab = (h1 * h2 * weights).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # corners in a line: no square
        cos = np.abs(ab) / np.sqrt(a * b)
        stretch = np.maximum(0.0, np.abs(0.5 * np.log(a / b)) - np.log(BOARD_ASPECT))
        worst = np.maximum(cos, stretch)
    worst = worst[np.isfinite(worst)]
    return float(worst.min()) if worst.size else float("inf")
