"""The board's outer edge as a quadrilateral, found from its colour against the table.

Lines can be hidden (a full board, blur, faint print) but the board itself is a large patch of
one material with a straight outline. Pixels are grouped by colour (k-means in Lab, chroma
weighted over lightness so uneven light does not split the wood); each group's biggest piece
is closed over lines and the narrow gaps between stones, its holes (the stones) are filled, and
a piece shaped like a convex quadrilateral is a board candidate. Its sides are fitted to the
outline robustly (Huber), so a stone overhanging the edge bulges the outline, not the side.

Which candidate is the board is not decided here: :mod:`companion.vision.lattice` looks for
the grid inside each.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.geometry import Corners

Image = NDArray[np.uint8]
EDGE_SIDE = 360  # longer side of the copy the colours are grouped on, pixels
CLUSTERS = 6
MIN_AREA = 0.04  # a board covers at least this share of the frame
MIN_SOLIDITY = 0.86  # region area over its quadrilateral's area
BITTEN = 2  # outlines with a bite out of them (a hand) offered beside the whole ones
FACE_SIDE = 240  # top view of an outline searched for the board's side face, pixels
FACE_DEPTH = 0.25  # deepest side face looked for, share of the outline
FACE_STEP = 15.0  # least colour step (Lab, lightness halved) between side face and top


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
    dist = ((feats[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    labels = dist.argmin(axis=1).reshape(small.shape[:2])
    h, w = labels.shape
    found: list[tuple[float, Corners]] = []
    bitten: list[tuple[float, Corners]] = []
    # one group, or two (uneven light splits a board into a bright and a dim part)
    groups: list[tuple[int, ...]] = [(k,) for k in range(CLUSTERS)]
    groups += [(k, j) for k in range(CLUSTERS) for j in range(k + 1, CLUSTERS)]
    counts = np.bincount(labels.ravel(), minlength=CLUSTERS)
    for group in groups:
        if counts[list(group)].sum() < MIN_AREA * 0.3 * h * w:
            continue
        mask = np.isin(labels, group).astype(np.uint8)
        for frac in (0.02, 0.05) if len(group) == 1 else (0.04,):
            whole, cut = _quad_of(mask, max(3, round(frac * min(h, w)) | 1))
            found.extend((sol, quad / scale) for sol, quad in whole)
            bitten.extend((sol, quad / scale) for sol, quad in cut)
    out: list[tuple[float, Corners]] = []
    for part, most in ((found, limit), (bitten, limit + BITTEN)):
        part.sort(key=lambda c: -c[0])
        for sol, q in part:  # drop near-duplicates
            if len(out) < most and all(np.abs(q - o).max() > 0.02 * max(h0, w0) for _s, o in out):
                out.append((sol, q))
    return out


def top_face(image: Image, quad: Corners) -> Corners | None:
    """The board's top face inside an outline that took in its side face, or None.

    A thick board seen from low shows a side face below its near edges, often close enough in
    colour to join the top in one outline; a grid centred in that outline then sits off. Seen
    top-down, the face is a band along an outline side whose colour steps at the same depth
    all along it (stones and lines make no such step). Only sides facing down in the image
    are looked at: the camera is above the table, so a side face shows below its top edge.
    """
    s = FACE_SIDE
    dst = np.array([[0, 0], [s - 1, 0], [s - 1, s - 1], [0, s - 1]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    top = cv2.warpPerspective(image, M, (s, s), flags=cv2.INTER_AREA)
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 0.5
    depth = int(FACE_DEPTH * s)
    cut = np.array([[0.0, 0.0], [s - 1, 0.0], [s - 1, s - 1], [0.0, s - 1]])
    moved = False
    centre = quad.mean(axis=0)
    for side in range(4):  # top, right, bottom, left of the top view
        a, b = quad[side], quad[(side + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]]) / (np.hypot(*(b - a)) + 1e-9)
        if normal @ ((a + b) / 2 - centre) < 0:
            normal = -normal
        if normal[1] < 0.3:  # the side does not face down in the image: no face below it
            continue
        view = np.rot90(lab, k=(side + 2) % 4)  # this side at the bottom
        band = view[s - depth :, int(0.1 * s) : int(0.9 * s)][::-1]  # row 0 at the side
        found = [_step(np.median(part, axis=1)) for part in np.array_split(band, 3, axis=1)]
        ds = [d for d in found if d is not None]
        if len(ds) < 3 or max(ds) - min(ds) > max(2, 0.15 * max(ds)):
            continue
        d = float(np.mean(ds))
        # pull this side of the top view in by d (corners of the side move along their sides)
        i, j = side, (side + 1) % 4
        inward = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][side], np.float64)
        cut[i] = cut[i] + inward * d
        cut[j] = cut[j] + inward * d
        moved = True
    if not moved:
        return None
    back = cv2.perspectiveTransform(cut.reshape(1, 4, 2), np.linalg.inv(M).astype(np.float64))
    return np.asarray(back, dtype=np.float64).reshape(4, 2)


def _step(colours: NDArray[np.float32]) -> int | None:
    """Depth (rows from the side) where a uniform band next to the side gives way to another
    colour, or None when no clear step shows."""
    best, best_s = None, FACE_STEP
    for d in range(3, len(colours) - 8):
        below = np.median(colours[1:d], axis=0)
        above = np.median(colours[d + 1 : d + 8], axis=0)
        spread = float(np.median(np.linalg.norm(colours[1:d] - below, axis=1)))
        score = float(np.linalg.norm(below - above)) - 2 * spread
        if score > best_s:
            best, best_s = d, score
    if best is None:
        return None
    # the medians tie over a few rows round the step: the step is where the rows turn from
    # the band's colour to the other
    below = np.median(colours[1:best], axis=0)
    above = np.median(colours[best + 1 : best + 8], axis=0)
    rows = colours[1 : best + 8]
    nearer = np.linalg.norm(rows - below, axis=1) < np.linalg.norm(rows - above, axis=1)
    return 1 + int(nearer.sum())


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
    peri = cv2.arcLength(hull, True)
    approx = None
    for eps in np.linspace(0.01, 0.1, 19):
        a = cv2.approxPolyDP(hull, eps * peri, True)
        if len(a) == 4:
            approx = a.reshape(4, 2).astype(np.float64)
            break
        if len(a) < 4:
            break
    longest = _longest_sides(
        cv2.approxPolyDP(hull, 0.015 * peri, True).reshape(-1, 2).astype(np.float64)
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
            # a hand or a sleeve over the board bites a piece off it: the board is what its
            # hull fills, the bite is not held against it (but may not be most of it)
            hull_area = float(cv2.contourArea(hull))
            if area < 0.6 * hull_area:
                continue
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
        nrm = np.array([-u[1], u[0]])
        rel = points - a
        along = rel @ u
        across = rel @ nrm
        near = (np.abs(across) < max(3.0, 0.04 * length)) & (along > 0.1 * length)
        near &= along < 0.9 * length
        if near.sum() < 5:
            lines.append((a, u))
            continue
        vx, vy, x0, y0 = cv2.fitLine(
            points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]])
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    return np.array(out, np.float64)


def _order(q: NDArray[np.float64]) -> Corners:
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)
