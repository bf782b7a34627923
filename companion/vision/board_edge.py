"""The board's outer edge as a quadrilateral, found from its colour against the table.

Lines can be hidden (a full board, blur, faint print) but the board itself is a large patch of
one material with a straight outline. Pixels are grouped by colour (k-means in Lab, chroma
weighted over lightness so uneven light does not split the wood); each group's biggest piece
is closed over lines and the narrow gaps between stones, its holes (the stones) are filled, and
a piece shaped like a convex quadrilateral is a board candidate. Its sides are fitted to the
outline robustly (Huber), so a stone overhanging the edge bulges the outline, not the side.

Which candidate is the board is not decided here: :mod:`companion.vision.lattice` looks for
the grid inside each. Once a grid is chosen, :func:`onto_outline` uses the outlines the other
way round: a grid whose outer line lies on a board's edge is a line off, and is moved in.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.geometry import Corners, homography, project

Image = NDArray[np.uint8]
EDGE_SIDE = 360  # longer side of the copy the colours are grouped on, pixels
CLUSTERS = 6
MIN_AREA = 0.04  # a board covers at least this share of the frame
MIN_SOLIDITY = 0.86  # region area over its quadrilateral's area
BITTEN = 2  # outlines with a bite out of them (a hand) offered beside the whole ones
MARGIN = (0.2, 2.0)  # spacings from a grid's outer lines to its board's edge (as board_net's)
SEED_SIDE = 300  # longer side of the copy a seeded outline is cut on, pixels
OUTLINE_THREADS = 4  # most pieces outlined at once (a Raspberry Pi 4 has four cores)
SEED_BAND = 3.0  # spacings beyond a grid's outer lines that may still be board, when seeded
_ENDS = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)  # TL TR BR BL, times n - 1
_INWARD = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], np.float64)


def board_quads(image: Image, *, limit: int = 5) -> list[tuple[float, Corners]]:
    """Up to ``limit`` (solidity, quad) board-edge candidates in ``image``'s pixels, best first,
    then up to :data:`BITTEN` outlines with a bite out of them (a hand or a sleeve across the
    board), judged apart: their solidity is measured against their hull, not their piece.

    ``quad`` is TL, TR, BR, BL of the board's outer edge as seen in the image.
    """
    h0, w0 = image.shape[:2]
    scale = min(1.0, EDGE_SIDE / max(h0, w0))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    feats = lab.reshape(-1, 3) * np.array([0.35, 1.0, 1.0], np.float32)
    sample = feats[:: max(1, len(feats) // 6000)]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 1.0)
    cv2.setRNGSeed(7)
    _c, _l, centres = cv2.kmeans(  # type: ignore[call-overload]
        sample, CLUSTERS, None, criteria, 2, cv2.KMEANS_PP_CENTERS
    )
    labels = _nearest(feats, np.asarray(centres, np.float32)).reshape(small.shape[:2])
    h, w = labels.shape
    # one group, or two (uneven light splits a board into a bright and a dim part)
    groups: list[tuple[int, ...]] = [(k,) for k in range(CLUSTERS)]
    groups += [(k, j) for k in range(CLUSTERS) for j in range(k + 1, CLUSTERS)]
    counts = np.bincount(labels.ravel(), minlength=CLUSTERS)
    jobs: list[tuple[NDArray[np.uint8], int]] = []
    for group in groups:
        if counts[list(group)].sum() < MIN_AREA * 0.3 * h * w:
            continue
        member = np.zeros(CLUSTERS, np.uint8)  # a lookup, not np.isin: called 27 times a find
        member[list(group)] = 1
        mask = member[labels]
        for frac in (0.02, 0.05) if len(group) == 1 else (0.04,):
            jobs.append((mask, max(3, round(frac * min(h, w)) | 1)))
    # the pieces are outlined side by side (OpenCV lets go of the interpreter while it
    # closes, traces and fits them, which is most of a find's time on a 12-megapixel photo);
    # the results come back in the jobs' order, so the outcome is the same on any machine
    found: list[tuple[float, Corners]] = []
    bitten: list[tuple[float, Corners]] = []
    # (a pool of its own each call: a pool kept in the module would hang in a forked child)
    with ThreadPoolExecutor(max_workers=min(OUTLINE_THREADS, os.cpu_count() or 1)) as pool:
        for whole, cut in pool.map(lambda job: _quad_of(*job), jobs):
            found.extend((sol, quad / scale) for sol, quad in whole)
            bitten.extend((sol, quad / scale) for sol, quad in cut)
    out: list[tuple[float, Corners]] = []
    for part, most in ((found, limit), (bitten, limit + BITTEN)):
        part.sort(key=lambda c: -c[0])
        for sol, q in part:  # drop near-duplicates
            if len(out) < most and all(np.abs(q - o).max() > 0.02 * max(h0, w0) for _s, o in out):
                out.append((sol, q))
    return out


def _nearest(feats: NDArray[np.float32], centres: NDArray[np.float32]) -> NDArray[np.intp]:
    """Each row of ``feats``'s nearest centre (squared distance, the first on a tie): the
    channels added one centre at a time in the order numpy's sum over them took, so the same
    labels as a (pixels x centres x channels) array, at a fifth of its cost."""
    channels = np.ascontiguousarray(feats.T)
    dist = []
    for c in centres:
        d0, d1, d2 = channels[0] - c[0], channels[1] - c[1], channels[2] - c[2]
        dist.append((d0 * d0 + d1 * d1) + d2 * d2)
    return np.asarray(np.argmin(np.stack(dist), axis=0), np.intp)


def seeded_quads(image: Image, quad: Corners, n: int, sure: float = 0.0) -> list[Corners]:
    """Board outlines round a candidate grid ``quad`` (TL TR BR BL, ``n`` lines) where the
    colour groups of :func:`board_quads` give none: a hand across the board's edge cuts its
    piece, a thick board's side of the same colour or a cloth close to it joins it.

    The grid says where to look: its inside is taken for board, everything more than
    :data:`SEED_BAND` spacings beyond it for background, and ``cv2.grabCut`` decides the band
    between from the colours of the two, on a small copy round the grid. The outline is the
    quadrilateral of what it calls board (whole, or with a bite out of it), in ``image``'s
    pixels. This tells nothing by itself: whether the outline lies a margin beyond the grid,
    as a board's edge does (and not on its outer lines, as for a grid locked onto the wooden
    edge), is the caller's test."""
    H = homography(np.asarray(quad, np.float64), n)

    def grown(m: float) -> NDArray[np.float64]:  # the grid's outline m spacings beyond it
        return project(H, (_ENDS - 0.5) * (n - 1 + 2 * m) + (n - 1) / 2)

    outer = grown(SEED_BAND + 1)
    if not np.isfinite(outer).all():
        return []
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor(outer.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(outer.max(axis=0)).astype(int), (w, h))
    if x1 - x0 < 20 or y1 - y0 < 20:
        return []
    scale = min(1.0, SEED_SIDE / max(x1 - x0, y1 - y0))
    crop = cv2.resize(image[y0:y1, x0:x1], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    offset = np.array([x0, y0], np.float64)

    def poly(m: float) -> NDArray[np.int32]:
        return np.asarray(np.round((grown(m) - offset) * scale), np.int32)

    seeds = np.full(crop.shape[:2], cv2.GC_BGD, np.uint8)
    cv2.fillConvexPoly(seeds, poly(SEED_BAND), (cv2.GC_PR_BGD,))
    cv2.fillConvexPoly(seeds, poly(0.0), (cv2.GC_PR_FGD,))
    cv2.fillConvexPoly(seeds, poly(-sure), (cv2.GC_FGD,))
    back, fore = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(7)
    try:
        cv2.grabCut(crop, seeds, (0, 0, 0, 0), back, fore, 4, cv2.GC_INIT_WITH_MASK)
    except cv2.error:  # one of the two groups empty (the band off the frame): nothing to cut
        return []
    board = ((seeds == cv2.GC_FGD) | (seeds == cv2.GC_PR_FGD)).astype(np.uint8)
    whole, cut = _quad_of(board, max(3, round(0.03 * min(board.shape)) | 1))
    return [_order(q / scale + offset) for _sol, q in whole + cut]


def _quad_of(
    mask: NDArray[np.uint8], kernel: int
) -> tuple[list[tuple[float, Corners]], list[tuple[float, Corners]]]:
    """The filled biggest piece of ``mask`` closed with ``kernel``, as (solidity, quad): its
    outline (first list), and the quadrilateral of its four longest sides, in case a bite is
    out of it (second list)."""
    h, w = mask.shape
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel))
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k)
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return [], []
    c = max(contours, key=cv2.contourArea)
    area = float(cv2.contourArea(c))
    if area < MIN_AREA * h * w:
        return [], []
    hull = cv2.convexHull(c)
    hull_area = float(cv2.contourArea(hull))
    peri = cv2.arcLength(hull, True)
    approx = None
    for eps in np.linspace(0.01, 0.1, 19):
        a = cv2.approxPolyDP(hull, eps * peri, True)
        if len(a) == 4:
            approx = a.reshape(4, 2).astype(np.float64)
            break
        if len(a) < 4:
            break
    # a hand or a sleeve over the board bites a piece off it: the board is what its hull
    # fills, the bite is not held against it (but may not be most of it)
    longest = (
        _longest_sides(cv2.approxPolyDP(hull, 0.015 * peri, True).reshape(-1, 2).astype(np.float64))
        if area >= 0.6 * hull_area
        else None
    )
    out: tuple[list[tuple[float, Corners]], list[tuple[float, Corners]]] = ([], [])
    for guess in (approx, longest):
        if guess is None:
            continue
        quad = _fit_sides(c.reshape(-1, 2).astype(np.float64), guess)
        if quad is None:
            continue
        qarea = float(cv2.contourArea(quad.astype(np.float32)))
        if qarea <= 0:
            continue
        solidity = min(area / qarea, qarea / area)
        if guess is longest:
            solidity = min(hull_area / qarea, qarea / hull_area)
        if solidity >= MIN_SOLIDITY and not _touching(quad, w, h):
            out[guess is longest].append((solidity, _order(quad)))
    return out


def _touching(quad: Corners, w: int, h: int) -> bool:
    """A piece filling the whole frame is the table or the board seen too close: no outline."""
    touching = (quad[:, 0] < 2).sum() + (quad[:, 0] > w - 3).sum()
    touching += (quad[:, 1] < 2).sum() + (quad[:, 1] > h - 3).sum()
    return bool(touching > 2)


def _longest_sides(poly: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The quadrilateral of the four longest sides of a convex outline (in their order): a
    corner cut off by a hand becomes a short side, dropped, and the long ones meet where
    the board's corner is."""
    p = poly.astype(np.float64)
    if len(p) < 5:
        return None
    lengths = np.hypot(*(np.roll(p, -1, axis=0) - p).T)
    keep = sorted(np.argsort(-lengths)[:4])
    out = []
    for i in range(4):
        a, b = keep[i - 1], keep[i]
        p1, d1 = p[a], p[(a + 1) % len(p)] - p[a]
        p2, d2 = p[b], p[(b + 1) % len(p)] - p[b]
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]])
        if abs(np.linalg.det(m)) < 1e-6 * float(np.hypot(*d1) * np.hypot(*d2)):
            return None
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    q = np.array(out, np.float64)
    span = float(np.ptp(p, axis=0).max())
    if not np.isfinite(q).all() or np.abs(q - p.mean(axis=0)).max() > 2 * span:
        return None
    return q


def _fit_sides(points: NDArray[np.float64], approx: NDArray[np.float64]) -> Corners | None:
    """Refit each side of ``approx`` to the outline points near it; corners where sides meet."""
    lines = []
    for i in range(4):
        a, b = approx[i], approx[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 4:
            return None
        u = d / length
        rel = points - a
        along = rel @ u
        across = rel @ np.array([-u[1], u[0]])
        near = (np.abs(across) < max(3.0, 0.04 * length)) & (along > 0.1 * length)
        near &= along < 0.9 * length
        if np.count_nonzero(near) < 5:
            lines.append((a, u))
            continue
        vx, vy, x0, y0 = cv2.fitLine(
            points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        det = d2[0] * d1[1] - d1[0] * d2[1]  # of [[d1x, -d2x], [d1y, -d2y]]
        if abs(det) < 1e-6:
            return None
        gap = p2 - p1
        out.append(p1 + (d2[0] * gap[1] - d2[1] * gap[0]) / det * d1)
    return np.array(out, np.float64)


def _order(q: NDArray[np.float64]) -> Corners:
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def margins(quad: Corners, n: int, edge: Corners) -> NDArray[np.float64]:
    """How far the outline ``edge`` lies beyond each corner of the grid ``quad`` (TL TR BR BL),
    along the grid's columns and rows, in spacings: the outline's corner nearest each grid
    corner, seen in the grid's own coordinates. Negative: the outline passes inside the grid."""
    inv = np.linalg.inv(homography(np.asarray(quad, np.float64), n))
    g = project(inv, np.asarray(edge, np.float64))
    ends = _ENDS * (n - 1)
    out = np.full((4, 2), np.nan)
    if not np.isfinite(g).all():
        return out
    for k in range(4):
        near = g[int(np.argmin(np.linalg.norm(g - ends[k], axis=1)))]
        out[k] = (ends[k] - near) * _INWARD[k]
    return out


def lies_round(m: NDArray[np.float64]) -> bool:
    """Whether margins (:func:`margins`) are those of a board's edge round its grid."""
    return bool(np.isfinite(m).all() and (m >= MARGIN[0]).all() and (m <= MARGIN[1]).all())


def unevenness(m: NDArray[np.float64]) -> float:
    """How unevenly a grid sits in an outline, from its margins (:func:`margins`): the larger,
    over the grid's two axes, of the spread of the four corners' margins, in spacings. A board's
    grid is centred on it, so round the right grid its outline's margins are about equal."""
    if not np.isfinite(m).all():
        return float("inf")
    return float(max(np.ptp(m[:, 0]), np.ptp(m[:, 1])))


def onto_outline(quad: Corners, n: int, edges: list[Corners]) -> Corners:
    """``quad`` moved by one line (along one axis or both) when its outer line lies on a board's
    edge, else ``quad`` itself.

    A board's edge (wood against cloth, or its shadow) passes for a grid line, and a grid of
    lines or a lattice slid onto it is a line off while every other line still fits. The board's
    outline, found from its colour alone, tells: round a right grid it lies a margin beyond the
    outer lines on all four sides. Moved when no outline lies round the grid, and exactly one
    move by a line makes one do so, away from a side where that outline runs along or inside
    the outer line (margins under :data:`MARGIN`'s least at both its corners); a grid off by a
    margin too wide (an outline taking in the board's side face) is not moved.
    """
    try:
        here = [margins(quad, n, e) for e in edges]  # the grid as found, against each outline
        if not edges or any(lies_round(m) for m in here):
            return quad
        H = homography(np.asarray(quad, np.float64), n)
        moves = []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == dy == 0:
                    continue
                moved = project(H, _ENDS * (n - 1) + (dx, dy))
                if any(
                    lies_round(margins(moved, n, e)) and _on_edge(m, dx, dy)
                    for e, m in zip(edges, here, strict=True)
                ):
                    moves.append(moved)
    except np.linalg.LinAlgError:  # a degenerate grid or outline: nothing to go by
        return quad
    return moves[0] if len(moves) == 1 else quad


def _on_edge(m: NDArray[np.float64], dx: int, dy: int) -> bool:
    """Whether the outline runs along or inside the grid's outer line on each side a move by
    (``dx``, ``dy``) lines goes away from (both corners of that side, margins ``m``)."""
    sides = []
    if dx:
        sides.append(((0, 3) if dx > 0 else (1, 2), 0))  # left or right column's corners
    if dy:
        sides.append(((0, 1) if dy > 0 else (2, 3), 1))  # top or bottom row's corners
    return all(bool((m[list(ks), axis] < MARGIN[0]).all()) for ks, axis in sides)
