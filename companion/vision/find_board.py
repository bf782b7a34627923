"""Find a square Go board's grid in a photo, without help: the four corner intersections.

How (classic OpenCV):

1. **Lines.** A morphological black-hat picks out thin dark strokes (grid lines) on the
   lighter board; stones are too big to respond. Three masks are tried: relative darkness
   (faint lines in dim corners), absolute darkness (a grid beside textured dark cloth), and
   only the long straight strokes in the two main directions (no stone rims sticking out).
   Working on a copy scaled to :data:`WORK_SIDE` pixels keeps this fast.
2. **The net.** A Go grid is one connected net of lines; stones cut it into pieces, which are
   joined when close. The convex hull of the net is the quadrilateral of the corner
   intersections (perspective keeps straight lines straight). When the outline is not the
   grid (a frame line, stones on the edge), the longest evenly spaced run of lines inside it
   is. Candidates are judged by how grid-like they are, not by size, so writing on paper or a
   pile of stones beside the board loses.
3. **Size.** Warped top-down, the line profile is matched against 9, 13 and 19 evenly spaced
   lines (or just the size the caller names); a grid whose crossings go on past its edge is
   part of a bigger board.
4. **Refinement.** Every intersection is looked for near where the guess puts it and a
   homography is fitted to those found (RANSAC): points hidden under stones simply drop out.
   Last, the grid is slid by one line if its outermost line turns out to be a board edge.
5. **Without lines.** When no clear grid of lines shows (a full board, blur, a striped
   cloth drowning the net), the board's outer edge is found from its colour
   (:mod:`companion.vision.board_edge`) and a lattice centred in it is fitted to whatever
   marks the points, lines or stones (:mod:`companion.vision.lattice`); the spacing relative to
   the board gives the size. The grid is slid onto the lattice, snapped to the crossings when
   enough show, and kept only on enough evidence (points standing out from the board's
   colour, lines, crossings), if it is a square a camera can see and if lines or stones
   mark its points (a smooth patch of colour in an outline reaches that evidence by chance).
6. **Learned help.** Where none of that finds a board, the learned proposer
   (:mod:`companion.vision.board_net`) offers grids on the same bars; and the grid about to
   be returned is shown to the learned grid check (:mod:`companion.vision.grid_check`): one
   it is sure is off gives the proposer its turn, then "no board".

Contract: :func:`find_board` returns :class:`FoundBoard` or raises :class:`BoardNotFound`
(never a made-up board). Manual corners always override this (callers skip it).
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import BoardNotFound, VisionError
from companion.vision import board_net, grid_check, grid_fit
from companion.vision.board_edge import board_quads, onto_outline, seeded_quads
from companion.vision.crossings import corner_patch_refine as _corner_refine
from companion.vision.crossings import extends as _extends
from companion.vision.crossings import refine as _refine
from companion.vision.crossings import refined as _refined
from companion.vision.crossings import shift_check as _shift_check
from companion.vision.geometry import Corners, as_corners, shrink
from companion.vision.lattice import (
    distance_map,
    fit_in_edge,
    margin_colour,
    marks,
    squareness,
    standout,
    to_lab,
)
from companion.vision.lattice import refine as refine_lattice

Image = NDArray[np.uint8]

WORK_SIDE = 800  # longer side of the working copy, pixels
MIN_SIDE = 16  # pixels: a working copy narrower than this holds no board (a strip, a thumbnail)
SIZES = (19, 13, 9)
MIN_SCORE = 0.35  # grid-likeness below this is "no board"
GOOD_SCORE = 0.6  # grid-likeness from which an outline is taken as the grid without a search
SHARPEN = 3.0  # unsharp-mask gain for a second look at a blurred photo
SURE_SCORE = 0.8  # grid-likeness from which the board's edge is not looked at
SNAP_SHARE = 0.45  # crossings found (share of points) for a grid from the edge to snap to them
MIN_EVIDENCE = 0.75  # evidence (0..3) below which a grid in a board's edge is no board
SQUARE_TOL = 0.05  # :func:`squareness` up to which a grid can be a square board (right: <= 0.03)
LINES_SEEN = 0.25  # a grid's line score from which lines mark its points...
MARKS_SEEN = 3.0  # ...or else this much :func:`marks` of the median (stones on half the points)
SOME_MARKS_SEEN = 8.0  # ...or this much of the upper tenth (stones on a tenth of them)
INSIDE_SHARE = 0.4  # least share of a board outline the grid of lines found inside it covers
SEED_SURE = 0.25  # share of a proposal's side in from its edge taken for board for sure
SEEDED_EVIDENCE = 1.5  # least evidence of a grid in an outline cut round a proposal
LOOK_CLOSER = True  # on "no board", the proposer again on crops round its mask (crop11)
LOOK_HIDDEN = True  # on "no board", a board with a corner hidden (hide12)
LOOK_OUTLINES = True  # on "no board", the corner network started inside each board outline
LOOK_CHECKED = True  # on "no board", a hidden corner placed by the grid check (session 21)
LOOK_FIT = True  # a grid its lines did not place moved by the learned grid fit (session 26)
LOOK_COMPLETED = True  # on "no board", three peaks' parallelograms on the rescue's bars (s. 27)
LOOK_REACH = True  # on "no board", the proposer's grids moved by the learned grid reach (s. 28)
INSIDE_OUTLINES = 2  # outlines (best first) whose lines are searched alone, in each look
# a final grid the learned grid check (:mod:`grid_check`) puts under this is no board: on the
# validation renders such grids were mostly half a spacing or more off (read, every stone
# would land on a wrong point), right ones very rarely (BOARD_CARD, session 15); 0 turns it off
REFUSE_CHECK = 0.1

# Line scores already computed in this search, by (line response, grid, size): the same
# outline comes back from several masks, reaches and looks. Per call of find_board only.
_MEMO: contextvars.ContextVar[dict[tuple[int, bytes, int], tuple[object, float]] | None] = (
    contextvars.ContextVar("find_board_memo", default=None)
)


@dataclass(frozen=True)
class FoundBoard:
    """A located grid: ``corners`` TL, TR, BR, BL corner intersections in input-image pixels."""

    corners: Corners
    size: int
    score: float  # 0..1: how well lines fall on the grid, or a third of :func:`evidence`
    seconds: float

    def __repr__(self) -> str:
        c = ", ".join(f"({x:.0f},{y:.0f})" for x, y in self.corners)
        return f"<FoundBoard {self.size}x{self.size} score {self.score:.2f} corners {c}>"


def order_corners(pts: NDArray[np.float64]) -> Corners:
    """Four points as TL, TR, BR, BL as seen in the image (the board may be turned <45 deg)."""
    p = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # clockwise on screen (y down), starting near -180deg (left)
    # start from the point with the smallest x + y (top-left)
    start = int(np.argmin(p.sum(axis=1)))
    return np.roll(p, -start, axis=0)


def line_masks(
    gray: NDArray[np.uint8], kernel: int
) -> tuple[NDArray[np.uint8], list[NDArray[np.uint8]]]:
    """Black-hat response (thin dark strokes, relative to their surroundings) and two masks.

    The relative mask keeps faint lines in dim corners; the absolute one keeps the grid apart
    from textured dark cloth around the board. Both are tried, and the straight strokes of the
    relative one (:func:`_straight`) when neither gives a clear grid.
    """
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    closed = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, k)
    bh = cv2.subtract(closed, gray)
    # Relative darkness (line vs its surroundings), so dim corners of the board count too.
    rel = bh.astype(np.float32) / (closed.astype(np.float32) + 8.0)
    rel_mask = np.asarray(((rel > 0.1) & (bh >= 6)) * 255, dtype=np.uint8)
    vals = bh[bh > 0]
    thr = max(10.0, float(np.percentile(vals, 85)) if vals.size else 10.0)
    abs_mask = np.asarray((bh > thr) * 255, dtype=np.uint8)
    return (np.clip(rel * 400.0, 0, 255)).astype(np.uint8), [rel_mask, abs_mask]


def _straight(mask: NDArray[np.uint8], side: int) -> NDArray[np.uint8]:
    """Only the long straight strokes of ``mask``: grid lines, without stone rims and shadows
    (white stones on the edge would otherwise stretch the grid's outline)."""
    length = max(10, int(side * 0.035))
    segs = cv2.HoughLinesP(
        mask, 1, np.pi / 360, threshold=length, minLineLength=length, maxLineGap=2
    )
    out = np.zeros_like(mask)
    if segs is None:
        return out
    seg = segs.reshape(-1, 4).astype(np.float64)
    ang = np.degrees(np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0])) % 180.0
    length_w = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    hist = np.bincount((ang // 2).astype(int) % 90, weights=length_w, minlength=90)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    first = int(np.argmax(hist))
    away = np.abs(((np.arange(90) - first + 45) % 90) - 45) > 15  # bins 30 deg away
    second = int(np.argmax(np.where(away, hist, -1.0)))

    def near(mode: int) -> NDArray[np.bool_]:
        d = np.abs(((ang - (mode * 2 + 1)) + 90.0) % 180.0 - 90.0)
        return np.asarray(d <= 12.0, dtype=np.bool_)

    keep = near(first) | near(second)  # the grid's two line directions (perspective allowed)
    for x1, y1, x2, y2 in seg[keep].astype(int):
        cv2.line(out, (int(x1), int(y1)), (int(x2), int(y2)), (255,), 2)
    return out


def _quad_from_hull(points: NDArray[np.int32]) -> NDArray[np.float64] | None:
    hull = cv2.convexHull(points)
    peri = cv2.arcLength(hull, True)
    for eps in np.linspace(0.01, 0.12, 23):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    # fall back: the four hull points extreme along the diagonals
    h = hull.reshape(-1, 2).astype(np.float64)
    s, d = h.sum(axis=1), h[:, 0] - h[:, 1]
    quad = np.array([h[np.argmin(s)], h[np.argmax(d)], h[np.argmax(s)], h[np.argmin(d)]])
    if len({tuple(q) for q in quad}) < 4:
        return None
    return quad


def _profile_score(top: NDArray[np.uint8] | NDArray[np.float32], n: int) -> float:
    """How well ``n`` evenly spaced lines explain a top-down line response (0..1-ish).

    The profile across the lines is taken two ways, the better counting: the mean along each
    line, and the median, which stones cannot drown (a stone's rim answers the line filter
    far more strongly than a thin line does, so a few stones on a column outweigh the line
    in its mean; in the median they do not, until stones cover half of it). A ``uint8`` top
    view (the finder's) gets its medians from a radix sort, the same values several times
    faster (this runs a few dozen times a find).
    """
    flat = np.asarray(top, np.float32)
    profs = np.stack(
        [flat.mean(axis=0), flat.mean(axis=1), _median(top, 0), _median(top, 1)]
    ).astype(np.float64)
    s = _axis_scores(profs, n)
    return max(float(min([s[0], s[1]])), float(min([s[2], s[3]])))


def _median(top: NDArray[np.uint8] | NDArray[np.float32], axis: int) -> NDArray[np.float32]:
    """``np.median(top, axis)`` as float32; for ``uint8`` from a stable (radix) sort: the
    middle value, or the mean of the middle two (exact in float32, as numpy's)."""
    if top.dtype != np.uint8:
        return np.asarray(np.median(np.asarray(top, np.float32), axis=axis), np.float32)
    rows = np.sort(top.T if axis == 0 else top, axis=1, kind="stable")
    h = rows.shape[1] // 2
    if rows.shape[1] % 2:
        return rows[:, h].astype(np.float32)
    low, high = rows[:, h - 1].astype(np.float32), rows[:, h].astype(np.float32)
    return np.asarray((low + high) / 2, np.float32)


def _axis_scores(profs: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """Per profile (rows of ``profs``, each across a square top view's lines): how well
    ``n`` evenly spaced lines explain it; :func:`_profile_score` takes the weaker axis of each
    way, the better way."""
    side = profs.shape[1]
    margin = side / (n - 1) * 0.5
    pos = margin + np.arange(n) * (side - 2 * margin) / (n - 1)
    mid = pos[:-1] + (pos[1] - pos[0]) / 2
    on = _window(profs, pos).max(axis=2)
    off = np.nanmean(_window(profs, mid, np.nan), axis=2)
    # lines must be on (almost) every position and absent between
    on_level = np.median(on, axis=1)
    # each row's mean alone: numpy sums a row pairwise, a 2-D array's rows one by one
    level = np.array([[row.mean()] for row in off])
    present = np.mean(on > 2 * level, axis=1)
    return np.asarray((on_level - np.median(off, axis=1)) / (on_level + 1e-6) * present, np.float64)


def _window(
    prof: NDArray[np.float64], at: NDArray[np.float64], fill: float = -np.inf
) -> NDArray[np.float64]:
    """``prof`` (one profile, or one per row) at the three samples round each of ``at``
    (whole pixels: the one below and its neighbours), ``fill`` where they fall off the
    profile; one row per position (per profile)."""
    length = prof.shape[-1]
    idx = at.astype(np.int64)[:, None] + np.arange(-1, 2)[None, :]
    ok = (idx >= 0) & (idx < length)
    return np.where(ok, prof[..., np.clip(idx, 0, length - 1)], fill)


def _warp_to(
    image: NDArray[np.uint8], quad: Corners, side: int, margin: int
) -> NDArray[np.float32]:
    """``quad`` warped onto the square ``[margin, side - margin - 1]`` of a ``side`` image."""
    return _warp_u8(image, quad, side, margin).astype(np.float32)


def _warp_u8(image: NDArray[np.uint8], quad: Corners, side: int, margin: int) -> NDArray[np.uint8]:
    """:func:`_warp_to` before it is made float."""
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), _square(side, margin))
    return np.asarray(cv2.warpPerspective(image, M, (side, side), flags=cv2.INTER_LINEAR), np.uint8)


def _square(side: int, margin: int) -> NDArray[np.float32]:
    lo, hi = margin, side - margin - 1
    return np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], dtype=np.float32)


def _peaks(prof: NDArray[np.float64], min_gap: float) -> NDArray[np.float64]:
    """Positions (sub-pixel) of local maxima that stand out from the profile's floor."""
    p = np.convolve(prof, np.array([0.25, 0.5, 0.25]), mode="same")
    floor = float(np.percentile(p, 30))
    top = float(np.percentile(p, 97))
    thr = floor + 0.2 * (top - floor)
    inner = p[1:-1]
    cand = np.flatnonzero((inner >= thr) & (inner >= p[:-2]) & (inner > p[2:])) + 1
    # non-maximum suppression within min_gap, the highest first (ties in place)
    kept: list[int] = []
    for i in cand[np.argsort(-p[cand], kind="stable")].tolist():
        if all(abs(i - k) >= min_gap for k in kept):
            kept.append(i)
    out = []
    for i in sorted(kept):
        a, b, c = p[i - 1], p[i], p[i + 1]
        den = a - 2 * b + c
        out.append(i + (0.5 * (a - c) / den if den < 0 else 0.0))
    return np.array(out, dtype=np.float64)


def _chain(
    peaks: NDArray[np.float64], heights: NDArray[np.float64], *, lo: float, hi: float
) -> list[float]:
    """The longest run of evenly spaced, similarly strong peaks with a spacing in [lo, hi].

    A run grows one spacing at a time (22 % tolerance) and stops at a peak much weaker than
    the run so far, so texture beyond the board does not extend the grid.
    """
    best: list[float] = []
    best_h = 0.0
    # plain floats and a bisection: the same arithmetic as on the arrays, without numpy's
    # cost per scalar (this loop runs thousands of times a find); ``peaks`` are ascending
    pk: list[float] = np.asarray(peaks, np.float64).tolist()
    ht: list[float] = np.asarray(heights, np.float64).tolist()
    m = len(pk)
    for i in range(m):
        for j in range(i + 1, m):
            s = pk[j] - pk[i]
            if s < lo:
                continue
            if s > hi:
                break
            if min(ht[i], ht[j]) < 0.4 * max(ht[i], ht[j]):
                continue
            run = [pk[i], pk[j]]
            hs = [ht[i], ht[j]]
            sp = s
            total_h = hs[0] + hs[1]
            while True:
                want = run[-1] + sp
                k = bisect.bisect_left(pk, want)
                if k > 0 and (k == m or want - pk[k - 1] < pk[k] - want):
                    k -= 1
                if abs(pk[k] - want) > 0.22 * sp or pk[k] <= run[-1]:
                    break
                if ht[k] < 0.4 * total_h / len(hs):
                    break
                total_h += ht[k]
                run.append(pk[k])
                hs.append(ht[k])
                sp = (run[-1] - run[0]) / (len(run) - 1)
            if len(run) < len(best):
                continue
            total = float(np.sum(hs))  # numpy's (pairwise) sum, as the tie was always broken
            if len(run) > len(best) or total > best_h:
                best, best_h = run, total
    return best


def _axis_grid(
    prof: NDArray[np.float64], side: int, sizes: Sequence[int]
) -> tuple[float, float, int] | None:
    """First and last grid line along one axis of the top view, and how many lines."""
    n_max, n_min = max(sizes), min(sizes)
    lo = side / (n_max - 1) * 0.55
    hi = side / (n_min - 1) * 1.3
    peaks = _peaks(prof, lo * 0.85)
    xs = np.arange(len(prof), dtype=np.float64)
    run = _chain(peaks, np.interp(peaks, xs, prof), lo=lo, hi=hi)
    if len(run) < 3:
        return None
    return run[0], run[-1], len(run)


def fit_grid(
    bh: NDArray[np.uint8], quad: Corners, sizes: Sequence[int]
) -> tuple[float, Corners, int] | None:
    """Find the grid's lines in a top view of ``quad`` (with a margin) and return its corners.

    ``quad`` may be the board's edge, a frame line, or a grid with stones sticking out: only
    the longest evenly spaced run of lines along each axis is the grid. Returns (score,
    corners, size) or None when no size in ``sizes`` fits.
    """
    side, margin = 360, 60
    top = _warp_to(bh, quad, side + 2 * margin, margin)
    inner = top[margin : margin + side, margin : margin + side]
    cols = _axis_grid(top[margin : margin + side].mean(axis=0).astype(np.float64), side, sizes)
    rows = _axis_grid(top[:, margin : margin + side].mean(axis=1).astype(np.float64), side, sizes)
    if cols is None or rows is None:
        return None
    (x0, x1, nx), (y0, y1, ny) = cols, rows
    n = max(nx, ny)
    if n not in sizes:
        fits = [s for s in sizes if s >= n]
        if not fits or fits[0] - n > 2:
            return None
        n = fits[0]
    # extend a short run (an edge line hidden by stones) by one spacing, on the brighter side
    for _ in range(n - nx):
        sp = (x1 - x0) / max(1, nx - 1)
        x0, x1 = (x0 - sp, x1) if x0 - margin > side + margin - x1 else (x0, x1 + sp)
        nx += 1
    for _ in range(n - ny):
        sp = (y1 - y0) / max(1, ny - 1)
        y0, y1 = (y0 - sp, y1) if y0 - margin > side + margin - y1 else (y0, y1 + sp)
        ny += 1
    # score: line contrast at the fitted lattice against half-way positions
    xs = np.linspace(x0, x1, n)
    ys = np.linspace(y0, y1, n)
    px = top.mean(axis=0)
    py = top.mean(axis=1)
    grid_pos = np.arange(len(px), dtype=np.float64)
    on = np.concatenate([np.interp(xs, grid_pos, px), np.interp(ys, grid_pos, py)])
    mid = np.concatenate(
        [
            np.interp((xs[:-1] + xs[1:]) / 2, grid_pos, px),
            np.interp((ys[:-1] + ys[1:]) / 2, grid_pos, py),
        ]
    )
    score = float((np.median(on) - np.median(mid)) / (np.median(on) + 1e-6))
    del inner
    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    M = cv2.getPerspectiveTransform(_square(side + 2 * margin, margin), quad.astype(np.float32))
    moved = cv2.perspectiveTransform(pts.reshape(1, 4, 2), M.astype(np.float64))
    corners = np.asarray(moved, dtype=np.float64).reshape(4, 2)
    return score, corners, n


def guess_size(
    bh: NDArray[np.uint8], quad: Corners, sizes: Sequence[int] = SIZES
) -> tuple[int, float, Corners]:
    """The grid size whose evenly spaced lines best explain the line response inside ``quad``."""
    best: tuple[int, float, Corners] = (sizes[0], -1e9, quad)
    memo = _MEMO.get()
    for n in sizes:
        key = (id(bh), np.asarray(quad, np.float64).tobytes(), n)
        if memo is not None and key in memo:
            s = memo[key][1]
        else:
            side = 16 * (n - 1) + 16
            s = _profile_score(_warp_u8(bh, quad, side, 8), n)
            if memo is not None:
                memo[key] = (bh, s)  # the response is kept: its id stays its own
        if s > best[1]:
            best = (n, s, quad)
    return best


def _candidates(
    mask: NDArray[np.uint8],
    bh: NDArray[np.uint8],
    sizes: Sequence[int],
    fixed: bool,
    reaches: Sequence[float] = (0.0, 0.6),
) -> list[tuple[float, Corners, int]]:
    """(score, corners, size) for the biggest stroke nets in ``mask``, alone or with pieces
    nearby (stones cut a grid into pieces)."""
    found: list[tuple[float, Corners, int]] = []
    min_side = min(mask.shape) * 0.15
    _n_comp, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:3] + 1
    for comp in order:
        _x, _y, bw, bhh, _area = stats[comp]
        if bw < min_side or bhh < min_side:
            continue
        own = (labels == comp).astype(np.uint8)
        for reach in reaches:
            if reach:
                # Stones cut the net into pieces: take in pieces within ``reach`` of a cell.
                cell = max(bw, bhh) / ((sizes[0] if fixed else 19) - 1)
                r = max(2, round(float(cell * reach)))
                # grow the piece within its own box (plus the reach), not the whole frame
                bx0, by0 = max(0, int(_x) - r), max(0, int(_y) - r)
                bx1, by1 = int(_x) + bw + r + 1, int(_y) + bhh + r + 1
                grown = cv2.dilate(
                    own[by0:by1, bx0:bx1],
                    cv2.getStructuringElement(cv2.MORPH_RECT, (2 * r + 1, 2 * r + 1)),
                )
                sub = labels[by0:by1, bx0:bx1]
                touch = np.unique(sub[(grown > 0) & (sub > 0)])
                big = touch[stats[touch, cv2.CC_STAT_AREA] >= 20]
                if len(big) <= 1:
                    continue
                member = np.zeros(len(stats), np.bool_)  # a lookup: np.isin is far slower
                member[big] = True
                sel = member[labels]
            else:
                sel = own > 0
            # the outline's points are enough for the hull (far fewer than all stroke pixels)
            contours, _ = cv2.findContours(
                sel.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
            )
            if not contours:
                continue
            pts = np.concatenate([c.reshape(-1, 2) for c in contours]).astype(np.int32)
            quad = _quad_from_hull(pts)
            if quad is None:
                continue
            quad = order_corners(quad)
            n, score, corners = guess_size(bh, quad, sizes)
            if score < GOOD_SCORE:
                # the outline is not the grid (a frame line, stones sticking out): look for
                # the evenly spaced lines inside it instead
                fit = fit_grid(bh, quad, sizes)
                if fit is not None:
                    n2, score2, corners2 = guess_size(bh, order_corners(fit[1]), sizes)
                    if score2 > score:
                        n, score, corners = n2, score2, corners2
            found.append((score, corners, n))
    return found


def find_board(image: Image, *, size: int | None = None) -> FoundBoard:
    """Locate the grid of a square board; ``size`` if known, else the best of 9, 13 and 19.

    Raises :class:`BoardNotFound` when nothing grid-like enough is in the picture.
    """
    t0 = time.perf_counter()
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.dtype != np.uint8:
        raise VisionError("expected an 8-bit colour image")
    if size is not None and not 2 <= size <= 25:
        raise VisionError(f"board size {size} is not 2..25")
    h0, w0 = image.shape[:2]
    narrow = min(h0, w0) * min(1.0, WORK_SIDE / max(h0, w0))
    if narrow < MIN_SIDE:  # shrunk to a strip of a pixel or two, its outline's copy would be empty
        raise BoardNotFound(
            f"no board found in the image: at {w0} x {h0} pixels it is too small or too narrow"
            " to hold one"
        )
    token = _MEMO.set({})
    try:
        score, corners, n = _search(image, size)
    except BoardNotFound:
        raise
    except VisionError as exc:
        # a degenerate candidate deep in the search (corners with no area): no board,
        # never a traceback
        raise BoardNotFound(f"no board found in the image ({exc})") from exc
    finally:
        _MEMO.reset(token)
    return FoundBoard(corners=corners, size=n, score=score, seconds=time.perf_counter() - t0)


def evidence(dist: NDArray[np.float32], bh: NDArray[np.uint8], quad: Corners, n: int) -> float:
    """How much marks a grid's points, 0..3: the share of points standing out from the
    board's colour, how well lines fall on the grid, and the share of crossings found near
    where it puts them. No one cue holds everywhere: stones stand high off their points in
    an oblique photo (standout falls to chance on a full board), a full board or blur hides
    the lines, paper boards have faint ones; a table or a cloth shows none of the three."""
    lines = max(0.0, guess_size(bh, quad, (n,))[1])
    _snapped, share = _refine(bh, quad, n)
    return standout(dist, quad, n) + lines + share


def _working_copy(image: Image) -> tuple[Image, float]:
    """``image`` shrunk to :data:`WORK_SIDE` pixels on its longer side (never enlarged), and
    the scale from ``image`` to it."""
    h0, w0 = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h0, w0))
    return np.asarray(shrink(image, scale) if scale < 1 else image, dtype=np.uint8), scale


def _search(image: Image, size: int | None) -> tuple[float, Corners, int]:
    """The search behind :func:`find_board`: (score, corners in input pixels, size)."""
    small, scale = _working_copy(image)
    gray = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    kernel = max(5, round(float(min(gray.shape) / 60)) | 1)
    bh, masks = line_masks(gray, kernel)
    sizes = (size,) if size else SIZES
    found = _whole(_locate(bh, masks, sizes, size is not None), bh, masks, sizes, size)
    looks = [(bh, masks[:2])]
    sharpened = False
    if found is None or found[0] < GOOD_SCORE:
        # blurred (focus, motion): lines too soft for the masks; sharpen and look again
        soft = gray.astype(np.float32)
        sharp = soft + SHARPEN * (soft - cv2.GaussianBlur(soft, (0, 0), 3.0))
        bh2, masks2 = line_masks(np.asarray(np.clip(sharp, 0, 255), dtype=np.uint8), kernel)
        again = _whole(_locate(bh2, masks2, sizes, size is not None), bh2, masks2, sizes, size)
        looks.append((bh2, masks2[:2]))
        if again is not None and (found is None or again[0] > found[0]):
            found, sharpened = again, True
    outlines: list[Corners] | None = None  # the board outlines, once looked for
    if found is None or found[0] < SURE_SCORE or sharpened:
        edges = board_quads(small, limit=4)
        outlines = [edge for _solidity, edge in edges]
        # a textured cloth joins the board's lines into one net with its own strokes: the
        # lines inside each board outline alone (a full search each: the best few outlines
        # only, or a frame of many outlines and no grid takes many seconds)
        for look_bh, look_masks in looks if found is None else ():
            inside = _lines_in_edges(edges[:INSIDE_OUTLINES], look_bh, look_masks, sizes, size)
            if inside is not None and (found is None or inside[0] > found[0]):
                found = inside
        # lines hidden (a full board, blur) or drowned (cloth): the board's edge and the
        # lattice of whatever marks its points
        edge = _from_edge(small, bh, sizes, edges)
        if edge is not None:
            ev, quad, n, dist = edge
            if found is None or found[0] < GOOD_SCORE:
                found = (ev / 3, quad, n)
            elif ev > evidence(dist, bh, found[1], found[2]) + (-0.05 if sharpened else 0.1):
                # a fair grid of lines, but the edge's grid marks the points better (lines
                # from a sharpened photo are trusted less: a tie goes to the edge)
                found = (ev / 3, quad, n)
    # a grid whose outer line lies on the board's edge is a line off (the outlines are looked
    # for here too when clear lines made them seem needless); the learned path uses them too
    if outlines is None:
        outlines = [edge for _solidity, edge in board_quads(small, limit=4)]
    learned = found is None
    if learned:
        found = _learned(small, bh, sizes, outlines)
    if found is None:
        raise BoardNotFound(
            "no board found in the image: no grid of lines, no board edge with a grid inside"
        )
    score, corners, n, placed = _finish(image, small, scale, found, outlines, bh)
    levels = board_net.pyramid(small)  # the check's and the fit's view of the working copy
    refused, sure = _refused(levels, corners * scale, n)
    if refused and not learned:
        # the grid check is sure the classic finder's grid is off: the learned path gets its
        # turn, as if no grid had been found, and its grid must pass the check too
        again = _learned(small, bh, sizes, outlines)
        if again is not None:
            first = refused, sure, corners, n, placed
            score, corners, n, placed = _finish(image, small, scale, again, outlines, bh)
            refused, sure = _refused(levels, corners * scale, n)
            if refused and first[1] > sure:  # the surer of the two refused grids is offered
                refused, sure, corners, n, placed = first
    if refused:
        raise BoardNotFound(
            refused, suggested=[(float(x), float(y)) for x, y in corners], suggested_size=n
        )
    if not placed and LOOK_FIT:
        corners = _fitted(levels, scale, corners, n)
    return score, corners, n


def _fitted(levels: Sequence[Image], scale: float, corners: Corners, n: int) -> Corners:
    """The grid that stands (``corners`` in input pixels; ``levels``: the working copy and its
    halvings, :func:`board_net.pyramid`) moved where the learned grid fit
    (:mod:`grid_fit`), seeing the whole board through it, puts it; unmoved when the grid
    check would refuse the moved grid. Why after the check's verdict, not before: on the
    validation renders (tuned on) the fit nudged a refused grid five lines off into one the
    check let stand, and a right grid into one it refused."""
    quad = corners * scale
    moved = grid_fit.settle(levels, quad, n)
    if np.array_equal(moved, quad) or _refused(levels, moved, n)[0]:
        return corners
    return order_corners(moved / scale)


def _learned(
    small: Image, bh: NDArray[np.uint8], sizes: Sequence[int], outlines: list[Corners]
) -> tuple[float, Corners, int] | None:
    """The learned proposer's grids (:mod:`board_net`), for where the classic finder found no
    board (or the grid check refused the one it found): (score, working corners, size)."""
    lab = to_lab(small)
    judge: board_net.Judge = lambda d, q, n: evidence(d, bh, q, n)  # noqa: E731

    def from_proposals(quads: Sequence[Corners]) -> tuple[float, Corners, int] | None:
        # the learned proposer's grids, where their corners, the board's edge and the
        # points agree; else outlines cut round them (no board outline of its own colour
        # held a grid: a hand across the board's edge, a cloth or a side face of about its
        # colour)
        return board_net.rescue(small, lab, sizes, judge, outlines, quads) or _seeded(
            small, bh, sizes, quads
        )

    maps = board_net.frame_maps(small)  # the proposer runs once on the whole frame
    proposals = board_net.propose(small, maps=maps)
    found = from_proposals(proposals)
    nearer: list[Corners] = []  # the closer look's grids (the reach moves them too)
    if found is None and LOOK_CLOSER:
        # a small board (its corner peaks blurred together in the proposer's whole-frame
        # view): the proposer again on crops round its mask, through the same two steps
        nearer = board_net.closer(small, maps=maps)
        found = from_proposals(nearer)
    three: list[board_net.ThreeSure] | None = None  # made once for the two steps that use it
    if found is None and LOOK_HIDDEN:
        # a hand or an arm over a corner (no peak there): three sure corners, and the
        # fourth where the visible crossings put it
        three = board_net.three_sure(small, sizes, proposals, maps)
        found = board_net.hidden(
            small, bh, lab, sizes, judge, outlines, proposals, maps, three=three
        )
    if found is None and LOOK_OUTLINES:
        # no peaks on the board at all (heavy blur, a washed-out board, a low camera): the
        # corner network started a margin inside each board outline found from its colour
        found = board_net.from_outlines(small, lab, sizes, judge, outlines)
    if found is None and LOOK_CHECKED:
        # three sure corners whose fourth the board's lines could not place (a full or
        # blurred board shows few): the grid check asked of its every place nearby
        found = board_net.checked_hidden(small, lab, sizes, judge, proposals, maps, three=three)
    completed: list[Corners] = []
    if found is None and LOOK_COMPLETED:
        # three peaks and a fourth corner completing their parallelogram, on which the corner
        # network became sure of all four corners: :func:`board_net.hidden` takes only those
        # with exactly three sure, so such a grid was judged by nothing (a blurred 9x9 whose
        # four-peak decoding missed, 0.08 spacing off); a proposal like any other, on the
        # rescue's bars
        completed = board_net.completed(small, maps=maps)
        found = board_net.rescue(small, lab, sizes, judge, outlines, completed)
    if found is None and LOOK_REACH:
        # the proposer's grids of the looks before, several spacings off (its peaks pulled
        # onto a hand, a shadow or a cloth's pattern), moved by the grid reach, which sees the
        # whole board through each, to within the corner network's reach; then judged by
        # the looks before, on their own bars
        found = _reached(small, bh, lab, sizes, judge, outlines, [*proposals, *nearer, *completed])
    return found


def _reached(
    small: Image,
    bh: NDArray[np.uint8],
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: board_net.Judge,
    outlines: list[Corners],
    starts: Sequence[Corners],
) -> tuple[float, Corners, int] | None:
    """``starts`` (working-copy corners) moved by the grid reach (:func:`grid_fit.reached`)
    for each size, then through the looks before on their own bars: the rescue, and where the
    corner network is sure of three corners only (the fourth under the hand that pulled the
    proposer off), the hidden corner placed by the board's lines or by the grid check. The
    best of the sizes; None without the reach's weights."""
    if not starts or not grid_fit.REACH_WEIGHTS.is_file():
        return None
    levels = board_net.pyramid(small)
    best: tuple[float, Corners, int] | None = None
    for n in sizes:
        moved = [grid_fit.reached(levels, order_corners(q), n)[-1] for q in starts]
        got = board_net.rescue(small, lab, (n,), judge, outlines, moved)
        if got is None and LOOK_HIDDEN:
            three = board_net.three_sure(small, (n,), moved, complete=False)
            got = board_net.hidden(small, bh, lab, (n,), judge, outlines, three=three)
            if got is None and LOOK_CHECKED:
                got = board_net.checked_hidden(small, lab, (n,), judge, three=three)
        if got is not None and (best is None or got[0] > best[0]):
            best = got
    return best


def _finish(
    image: Image,
    small: Image,
    scale: float,
    found: tuple[float, Corners, int],
    outlines: list[Corners],
    bh: NDArray[np.uint8],
) -> tuple[float, Corners, int, bool]:
    """A grid chosen in the working copy, placed in ``image``: slid off the board's edge, its
    corners set by their crossings at full resolution, or by the corner network, and a lone
    corner neither can see placed by the rest of the board's lines (``bh``, the working
    copy's line response). The last item says whether clear lines placed every corner (then
    no network moves the grid: a grid fitted to all the crossings copes with a lens)."""
    score, quad, n = found
    quad = onto_outline(order_corners(quad), n, outlines)
    corners = order_corners(quad) / scale
    placed = corners  # where the full-resolution step placed each corner by its crossings
    with contextlib.suppress(VisionError):  # a degenerate local fit: the grid's corners stand
        placed = _corner_refine(image, corners, n)
    # clear lines place a grid better than four corners, lens and all, but only where the
    # crossings at every corner were seen (a corner it could not place stays as it was)
    sure = score >= SURE_SCORE and bool((placed != corners).any(axis=1).all())
    corners = order_corners(placed)
    if not sure:  # the corner network places the grid's corners where it is sure of them,
        # unless that pulls the grid off the board's outline
        corners = order_corners(board_net.polish(small, corners * scale, n, outlines) / scale)
    corners = order_corners(board_net.place_hidden(small, bh, corners * scale, n) / scale)
    return score, corners, n, sure


def snap(image: Image, corners: Corners, n: int) -> Corners:
    """Corners placed by hand (a tap on a phone's screen lands a third of a spacing off on a
    big photo), moved onto the grid's corners where the corner network is sure of them
    (:func:`board_net.polish`, as for a found grid; its bars keep a far or unsure move out),
    then by the grid fit (:func:`_fitted`, as for a found grid: the taps' grid seen whole
    places a corner under a hand, which the corner network cannot); TL, TR, BR, BL as seen
    in the image."""
    quad = order_corners(as_corners(corners))
    small, scale = _working_copy(image)
    polished = order_corners(board_net.polish(small, quad * scale, n) / scale)
    return _fitted(board_net.pyramid(small), scale, polished, n) if LOOK_FIT else polished


def _refused(levels: Sequence[Image], quad: Corners, n: int) -> tuple[str, float]:
    """Why the final grid ``quad`` (working pixels; ``levels``: the working copy's
    :func:`board_net.pyramid`) is no board, or "" when it stands, and
    the check's sureness of it: the grid check (without its weights: no opinion) is sure it
    is not on the board's lines. A board read a line off corrupts a record, while "no board"
    asks for another photo (or a look at the refused grid: :class:`BoardNotFound`)."""
    if REFUSE_CHECK <= 0:
        return "", 1.0
    sure = grid_check.check(levels, [(quad, n)])
    if sure is None or sure[0] >= REFUSE_CHECK:
        return "", 1.0 if sure is None else float(sure[0])
    return (
        f"no board found in the image: the best grid found ({n}x{n}) does not lie on the"
        f" board's lines (grid check {sure[0]:.2f}); try another photo, or give the corners"
    ), float(sure[0])


def _seeded(
    small: Image, bh: NDArray[np.uint8], sizes: Sequence[int], proposals: Sequence[Corners]
) -> tuple[float, Corners, int] | None:
    """A grid in an outline cut round one of the proposer's ``proposals`` (where no board
    outline of its own colour held one: a hand across the board's edge, a cloth or a side face
    of about its colour), each outline asked for a grid as any outline is, on the same bars:
    (score, corners, size) or None."""
    seeded = [
        (1.0, edge)
        for quad in proposals
        for edge in seeded_quads(small, quad, max(sizes), SEED_SURE * (max(sizes) - 1))
    ]
    edge = _from_edge(small, bh, sizes, seeded, net=False) if seeded else None
    # an outline cut to fit a proposal says less than one of the board's own colour, so the
    # grid must be marked more plainly than :data:`MIN_EVIDENCE` asks (a full board's grid
    # slid a few lines into its side face, 0.8-1.0, is not), and the outline lie round it as
    # a board's edge round its lines
    if (
        edge is not None
        and edge[0] >= SEEDED_EVIDENCE
        and any(board_net.edge_agrees(edge[1], edge[2], e) for _s, e in seeded)
    ):
        return edge[0] / 3, edge[1], edge[2]
    return None


def _whole(
    found: tuple[float, Corners, int] | None,
    bh: NDArray[np.uint8],
    masks: list[NDArray[np.uint8]],
    sizes: Sequence[int],
    size: int | None,
) -> tuple[float, Corners, int] | None:
    """``found`` itself, or when lines go on past it (it is a part of a bigger board) the
    best bigger grid in the same look. Checked in each look apart, so a part of a board
    seen clearly (a score to skip the sharpened look) does not end the search when no
    bigger grid shows in the plain look."""
    if found is None or size is not None:
        return found
    _score, quad, n = found
    bigger = tuple(s for s in sizes if s > n)
    if not bigger or not _extends(bh, quad, n):
        return found
    return _locate(bh, masks, bigger, False)


def _lines_in_edges(
    edges: Sequence[tuple[float, Corners]],
    bh: NDArray[np.uint8],
    masks: Sequence[NDArray[np.uint8]],
    sizes: Sequence[int],
    size: int | None,
) -> tuple[float, Corners, int] | None:
    """The best grid of lines found inside one of the board outlines ``edges`` alone (its
    strokes cut off from a cloth's or a table's, which join them into one net): (score,
    corners, size) or None."""
    best: tuple[float, Corners, int] | None = None
    for _solidity, edge in edges:
        outline = np.zeros(bh.shape, np.uint8)
        cv2.fillConvexPoly(outline, np.round(edge).astype(np.int32), (1,))
        # a few pixels in from the outline: the border of board and cloth is no grid line
        square = cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7))
        inside = np.asarray(cv2.erode(outline, square), dtype=np.uint8)
        if not inside.any():
            continue
        own_bh = np.asarray(bh * inside, dtype=np.uint8)
        own = [np.asarray(m * inside, dtype=np.uint8) for m in masks]
        found = _whole(_locate(own_bh, own, sizes, size is not None), own_bh, own, sizes, size)
        if found is None or (best is not None and found[0] <= best[0]):
            continue
        # the grid fills most of its board (a block of it, or lines on a cloth inside an
        # outline too big, do not)
        share = cv2.contourArea(found[1].astype(np.float32)) / max(
            1.0, cv2.contourArea(edge.astype(np.float32))
        )
        if share >= INSIDE_SHARE:
            best = found
    return best


def _from_edge(
    small: Image,
    bh: NDArray[np.uint8],
    sizes: Sequence[int],
    edges: Sequence[tuple[float, Corners]],
    *,
    net: bool = True,
) -> tuple[float, Corners, int, NDArray[np.float32]] | None:
    """The best grid centred in one of the board outlines ``edges``: (:func:`evidence`,
    corners, size, distance from the board's colour), or None when no edge holds a grid with
    enough evidence. ``net``: the learned proposer's grids compete too (not when they were
    asked already)."""
    lab = to_lab(small)
    cands: list[tuple[float, Corners, int, NDArray[np.float32]]] = []
    for _solidity, edge in edges:
        dist = distance_map(lab, margin_colour(lab, edge))
        cands.extend(
            (evidence(dist, bh, quad, n), quad, n, dist)
            for _st, quad, n in fit_in_edge(dist, edge, sizes)
        )
    # the learned proposer's grids (none without its weights; none the finder already has)
    # compete on the same evidence
    if net:
        cands.extend(
            board_net.candidates(small, lab, sizes, lambda d, q, n: evidence(d, bh, q, n), cands)
        )
    cands.sort(key=lambda c: -c[0])
    best: tuple[float, Corners, int, NDArray[np.float32]] | None = None
    for ev, quad, n, dist in cands[:3]:
        # onto the lattice (lines and stones), then onto the crossings where enough show
        moved = refine_lattice(dist, quad, n)
        ev2 = evidence(dist, bh, moved, n)
        if ev2 >= ev - 0.02:
            ev, quad = max(ev, ev2), moved
        for _ in range(2):
            snapped, share = _refine(bh, quad, n)
            if share < SNAP_SHARE:
                break
            ev2 = evidence(dist, bh, snapped, n)
            if ev2 < ev - 0.05:
                break
            quad, ev = snapped, max(ev, ev2)
        # evidence alone is no proof: a cloth's pattern reaches 0.8, and a smooth patch of
        # colour in an outline (a tray, a plain stripe) about 1 by chance (standout 0.5-0.7
        # on its shading, a few crossings in its noise). A board's grid is also a square seen
        # through a camera, which a patch of pattern seldom is, and something marks its points
        # apart from its cells: lines on it, or stones
        sure = (
            ev >= MIN_EVIDENCE
            and squareness(quad, small.shape) <= SQUARE_TOL
            and _marked(dist, bh, quad, n)
        )
        if sure and (best is None or ev > best[0]):
            best = (ev, quad, n, dist)
    return best


def _marked(dist: NDArray[np.float32], bh: NDArray[np.uint8], quad: Corners, n: int) -> bool:
    """Whether lines or stones mark the grid's points (not only the chance cues of
    :func:`evidence`, which a smooth patch with no board reaches)."""
    if guess_size(bh, quad, (n,))[1] >= LINES_SEEN:
        return True
    return marks(dist, quad, n) >= MARKS_SEEN or marks(dist, quad, n, 0.1) >= SOME_MARKS_SEEN


def _locate(
    bh: NDArray[np.uint8], masks: list[NDArray[np.uint8]], sizes: Sequence[int], fixed: bool
) -> tuple[float, Corners, int] | None:
    """The best grid of one of ``sizes``: (score, corners in working pixels, size) or None."""
    cands = sorted(
        (c for mask in masks for c in _candidates(mask, bh, sizes, fixed)),
        key=lambda c: -c[0],
    )
    if not cands or cands[0][0] < GOOD_SCORE:
        # stone rims and shadows stretching the outline: keep only long straight strokes
        # (costly on textured cloth, so only when the plain masks give no clear grid)
        if len(masks) == 2:
            masks.append(_straight(masks[0], min(masks[0].shape)))
        more = _candidates(masks[2], bh, sizes, fixed)
        cands = sorted(cands + more, key=lambda c: -c[0])
    if not cands or cands[0][0] < GOOD_SCORE:
        # a steep view or many stones leave the net in far-apart pieces: join wider
        more = [c for mask in masks for c in _candidates(mask, bh, sizes, fixed, (1.3,))]
        cands = sorted(cands + more, key=lambda c: -c[0])
    if not cands:
        return None
    if cands[0][0] < GOOD_SCORE:
        # No clear winner (many stones, a steep view): snap the best few to the intersections
        # that show, and judge them again.
        judged = []
        for score, quad, n in cands[:4]:
            if score < 0.1:
                continue
            refined = _refined(bh, quad, n)
            judged.append((max(score, guess_size(bh, refined, (n,))[1]), refined, n))
        cands = sorted(judged, key=lambda c: -c[0]) or cands
    score, quad, n = cands[0]
    if score < MIN_SCORE:
        return None
    quad = _refined(bh, quad, n)
    shifted = _shift_check(bh, quad, n)
    if shifted is not quad:
        quad = _refined(bh, shifted, n)
    return score, quad, n


def find_boards(image: Image, *, count: int = 2, size: int | None = None) -> list[FoundBoard]:
    """Find ``count`` boards side by side in one frame (a stacked board's layers), left to right.

    Each board found is painted over (with the image's median colour, a cell beyond its grid)
    before looking for the next. Raises :class:`BoardNotFound` if fewer are found.
    """
    work = image.copy()
    fill = np.median(image.reshape(-1, 3), axis=0).astype(np.uint8).tolist()
    found: list[FoundBoard] = []
    for _ in range(count):
        fb = find_board(work, size=size)
        found.append(fb)
        c = fb.corners.mean(axis=0)
        grown = c + (fb.corners - c) * (1 + 2.0 / (fb.size - 1))
        cv2.fillConvexPoly(work, grown.astype(np.int32), fill)
    return sorted(found, key=lambda f: float(f.corners[:, 0].mean()))
