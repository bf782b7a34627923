"""The finder's fast helpers give the values of the plain numpy they replaced, bit for bit.

Session 10 made the 12-megapixel find faster without changing what it finds; each check here
holds one of those rewrites to the expression it replaced (a different summation order moves
a score by an ulp, and a grid chosen on a tie can then change).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from companion.vision import board_edge, crossings, find_board, lattice


def _plain_profile_score(top: NDArray[np.float32], n: int) -> float:
    """The line score as it was written before: four profiles one by one, numpy's median."""

    def axis_score(across: NDArray[np.float32], down: NDArray[np.float32]) -> float:
        side = top.shape[0]
        margin = side / (n - 1) * 0.5
        pos = margin + np.arange(n) * (side - 2 * margin) / (n - 1)
        mid = pos[:-1] + (pos[1] - pos[0]) / 2
        scores = []
        for raw in (across, down):
            prof = np.asarray(raw, dtype=np.float64)
            on = find_board._window(prof, pos).max(axis=1)
            off = np.nanmean(find_board._window(prof, mid, np.nan), axis=1)
            on_level = np.median(on)
            present = np.mean(on > 2 * off.mean())
            scores.append((on_level - np.median(off)) / (on_level + 1e-6) * present)
        return float(min(scores))

    return max(
        axis_score(top.mean(axis=0), top.mean(axis=1)),
        axis_score(np.median(top, axis=0), np.median(top, axis=1)),
    )


def test_profile_score_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(0)
    for trial in range(200):
        n = int(rng.choice([19, 13, 9, 7]))
        side = 16 * (n - 1) + 16 + trial % 2  # even (the finder's) and odd sides
        top = (rng.random((side, side)) ** 3 * rng.integers(2, 120)).astype(np.uint8)
        want = _plain_profile_score(top.astype(np.float32), n)
        assert find_board._profile_score(top, n) == want
        assert find_board._profile_score(top.astype(np.float32), n) == want


def test_distance_map_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(1)
    lab = (rng.random((60, 80, 3)) * [255, 120, 120] + [0, 68, 68]).astype(np.float32)
    for _ in range(20):
        colour = lab[rng.integers(0, 60), rng.integers(0, 80)] + rng.normal(0, 5, 3).astype(
            np.float32
        )
        d = lab - colour[None, None, :]
        d[..., 0] *= 0.5
        want = np.sqrt((d * d).sum(axis=2))
        assert np.array_equal(lattice.distance_map(lab, colour), want)


def test_nearest_colour_group_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(2)
    feats = (rng.random((5000, 3)) * [90, 120, 120]).astype(np.float32)
    for _ in range(20):
        centres = feats[rng.integers(0, len(feats), 6)] + rng.normal(0, 2, (6, 3)).astype(
            np.float32
        )
        want = ((feats[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        assert np.array_equal(board_edge._nearest(feats, centres), want)


def test_refine_same_as_one_window_at_a_time() -> None:
    """The crossings' windows gathered at once pick the peaks the loop over points picked."""
    rng = np.random.default_rng(3)
    bh = np.zeros((300, 400), np.uint8)
    n, step, x0, y0 = 9, 30.0, 70.0, 40.0
    for i in range(n):
        a = round(x0 + i * step)
        bh[round(y0) : round(y0 + 8 * step) + 1, a] = 120
        b = round(y0 + i * step)
        bh[b, round(x0) : round(x0 + 8 * step) + 1] = 120
    bh = np.clip(bh.astype(np.int16) + rng.integers(0, 30, bh.shape), 0, 255).astype(np.uint8)
    truth = np.array(
        [[x0, y0], [x0 + 8 * step, y0], [x0 + 8 * step, y0 + 8 * step], [x0, y0 + 8 * step]]
    )
    for _ in range(10):
        quad = truth + rng.normal(0, 3, truth.shape)
        got, share = crossings.refine(bh, quad, n)
        want, want_share = _loop_refine(bh, quad, n)
        assert share == want_share and np.array_equal(got, want)


def _loop_refine(
    bh: NDArray[np.uint8], quad: NDArray[np.float64], n: int
) -> tuple[NDArray[np.float64], float]:
    """:func:`crossings.refine` as it was written before: one window per point in a loop."""
    import cv2

    from companion.vision.geometry import homography, project, spacing

    H = homography(quad, n)
    rr, cc = np.mgrid[0:n, 0:n]
    pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    img_pts = project(H, pts)
    sp = spacing(quad, n)
    r = max(2, round(float(sp * 0.3)))
    arm = max(3, round(float(sp * 0.45)))
    h, w = bh.shape
    pad = arm + r + 2
    lo = np.clip(np.floor(img_pts.min(axis=0)).astype(int) - pad, 0, [w, h])
    hi = np.clip(np.ceil(img_pts.max(axis=0)).astype(int) + pad + 1, 0, [w, h])
    ox, oy = int(lo[0]), int(lo[1])
    bhf = bh[oy : int(hi[1]), ox : int(hi[0])].astype(np.float32)
    k = 2 * arm + 1
    cross = (
        cv2.boxFilter(bhf, -1, (k, 1), normalize=False, borderType=cv2.BORDER_REFLECT_101)
        + cv2.boxFilter(bhf, -1, (1, k), normalize=False, borderType=cv2.BORDER_REFLECT_101)
        - bhf
    ) / float(2 * k - 1)
    src, dst = [], []
    for (bx, by), (x, y) in zip(pts, img_pts, strict=True):
        xi, yi = round(float(x)), round(float(y))
        if xi - r < 0 or yi - r < 0 or xi + r + 1 > w or yi + r + 1 > h:
            continue
        win = cross[yi - r - oy : yi + r + 1 - oy, xi - r - ox : xi + r + 1 - ox]
        j = int(np.argmax(win))
        if float(win.flat[j]) < 8.0:
            continue
        dy, dx = divmod(j, win.shape[1])
        src.append((bx, by))
        dst.append((xi - r + dx, yi - r + dy))
    H2, inl = cv2.findHomography(
        np.array(src, np.float32),
        np.array(dst, np.float32),
        cv2.RANSAC,
        max(1.5, sp * 0.12),
        maxIters=300,
        confidence=0.99,
    )
    ends = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float64)
    return project(np.asarray(H2, np.float64), ends), float(inl.sum()) / (n * n)


def test_axis_scores_same_as_one_profile_at_a_time() -> None:
    """Each row scored as the 1-D profile alone (a 2-D mean sums rows in another order)."""
    rng = np.random.default_rng(4)
    for trial in range(1500):
        n = int(rng.choice([19, 13, 9]))
        side = 16 * (n - 1) + 16 + trial % 2
        profs = (rng.random((4, side)) * rng.integers(1, 50)).astype(np.float32).astype(np.float64)
        if trial % 3:  # whole values (a uint8 view's medians): ties at the bar are common
            profs = np.round(profs)
        got = find_board._axis_scores(profs, n)
        for i in range(4):
            margin = side / (n - 1) * 0.5
            pos = margin + np.arange(n) * (side - 2 * margin) / (n - 1)
            mid = pos[:-1] + (pos[1] - pos[0]) / 2
            on = find_board._window(profs[i], pos).max(axis=1)
            off = np.nanmean(find_board._window(profs[i], mid, np.nan), axis=1)
            present = np.mean(on > 2 * off.mean())
            want = (np.median(on) - np.median(off)) / (np.median(on) + 1e-6) * present
            assert got[i] == want
