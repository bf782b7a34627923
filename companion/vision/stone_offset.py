"""Where stones show relative to their points in an oblique view, measured from the clear stones.

Also the robust quadratic surfaces (the empty board's brightness and tint under today's light)
that the offset measurement and the classic reader's light model share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.geometry import Offset, warp_board

if TYPE_CHECKING:
    from companion.vision.read_stones import Image, Region

STONE_RADIUS = 0.47  # board units


def estimate_offset(image: Image, region: Region, *, ppu: int = 16) -> Offset:
    """Measure where stones show relative to their points, from the clear stones in ``image``.

    Isolated round dark (then bright) blobs of stone size on the top-down view are taken as
    stones; each one's centre minus its nearest point is a measured shift, and
    :meth:`Offset.fit` turns those into a model. Returns no offset when no stone is clear.
    Only grid regions are measured (maps keep their hand-placed spots).
    """
    if region.shape is None:
        return Offset()
    h, w = region.shape
    top = warp_board(image, region.H, w, h, ppu)
    gray = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    bg_small = cv2.resize(cv2.medianBlur(top, 5), (w, h), interpolation=cv2.INTER_AREA)
    bg_gray = cv2.cvtColor(bg_small, cv2.COLOR_BGR2GRAY).astype(np.float64).ravel()
    bg = _smooth_background(region.points, bg_gray)[0].reshape(h, w).astype(np.float32)
    bg_img = cv2.resize(bg, (w * ppu, h * ppu), interpolation=cv2.INTER_LINEAR)
    area = np.pi * (STONE_RADIUS * ppu) ** 2
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    found_pts: list[NDArray[np.float64]] = []
    found_shift: list[NDArray[np.float64]] = []
    for mask in (gray < 0.5 * bg_img, gray > 1.2 * bg_img):
        m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel)
        n, _, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=4)
        for i in range(1, n):
            _x, _y, bw, bh, a = stats[i]
            if not (0.5 * area <= a <= 1.5 * area) or not (0.65 <= bw / max(bh, 1) <= 1.55):
                continue
            if a / float(bw * bh) < 0.6:
                continue
            c = cents[i] / ppu - 0.5
            p = np.round(c)
            if not (0 <= p[0] < w and 0 <= p[1] < h):
                continue
            found_pts.append(p)
            found_shift.append(c - p)
        if len(found_pts) >= 6:
            break
    if not found_pts:
        return Offset()
    return Offset.fit(np.array(found_pts), np.array(found_shift))


def _design(points: NDArray[np.float64]) -> NDArray[np.float64]:
    span = np.ptp(points, axis=0)
    span[span == 0] = 1.0
    p = (points - points.min(axis=0)) / span - 0.5
    x, y = p[:, 0], p[:, 1]
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


def _smooth_background(
    points: NDArray[np.float64], values: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Robust quadratic surface through the 'typical' spots: stones are outliers and drop out.

    Starts from the median (stones rarely cover half the board) and trims spots more than
    2.5 robust sigmas away, refitting a few times. Returns the surface and the spots kept.
    """
    A = _design(points)
    med = float(np.median(values))
    mad = float(np.median(np.abs(values - med))) * 1.4826 + 1.0
    keep = np.abs(values - med) < 2.5 * mad
    fit = np.full(len(values), med, dtype=np.float64)
    for _ in range(3):
        if keep.sum() < 12:
            break
        Ak = A[keep]
        coef = np.linalg.solve(Ak.T @ Ak + 1e-6 * np.eye(A.shape[1]), Ak.T @ values[keep])
        fit = A @ coef
        res = values - fit
        s = float(np.median(np.abs(res[keep]))) * 1.4826 + 1.0
        keep = np.abs(res) < 2.5 * s
    return fit, keep


def _fit_surface(
    points: NDArray[np.float64], values: NDArray[np.float64], keep: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Robust quadratic surface(s) through ``values[keep]`` (columns fitted together).

    Spots far off the first fit (a hand has the board's brightness but not its tint) are
    dropped and the surface refitted.
    """
    A = _design(points)
    fit = np.broadcast_to(np.median(values[keep] if keep.any() else values, axis=0), values.shape)
    for _ in range(2):
        if keep.sum() < 12:
            break
        Ak = A[keep]
        coef = np.linalg.solve(Ak.T @ Ak + 1e-6 * np.eye(A.shape[1]), Ak.T @ values[keep])
        fit = A @ coef
        res = np.abs(values - fit).max(axis=1) if values.ndim > 1 else np.abs(values - fit)
        s = float(np.median(res[keep])) * 1.4826 + 1e-4
        keep = keep & (res < 3.0 * s)
    return np.array(fit)
