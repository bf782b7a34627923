"""Board-plane geometry: corners to homography, stone offsets, and per-spot sample tiles.

A square board's grid is a plane in *board units* (one unit = one grid spacing; intersection
``(row, col)`` sits at ``x = col, y = row``). A stone's top stands above that plane, so in an
oblique photo it shows off its intersection, towards the camera. Seen on the grid plane, that
offset is affine in the board position for any pinhole camera: the top of a stone at ``p`` lands
on ``p + k (p - n)``, where ``n`` is the point under the camera and ``k`` grows with the stone's
height. :class:`Offset` holds ``(k, n)`` in the linear form ``d(p) = a p + b`` and is measured
from the stones themselves (no camera intrinsics needed, and cropped photos are fine).
Nothing here reads pixel values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError

Corners = NDArray[np.float64]  # shape (4, 2): TL, TR, BR, BL corner intersections, image px


def as_corners(
    values: Sequence[Sequence[float]] | Sequence[float] | NDArray[np.float64],
) -> Corners:
    """Four (x, y) points as a (4, 2) float array; raises :class:`VisionError` if they are not."""
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise VisionError("corners must be four x,y pairs (TL, TR, BR, BL)") from exc
    if arr.size != 8 or not np.all(np.isfinite(arr)):
        raise VisionError("corners must be four finite x,y pairs (TL, TR, BR, BL)")
    quad = arr.reshape(4, 2)
    if abs(_area(quad)) < LEAST_AREA:
        raise VisionError("corners enclose no area")
    return quad


LEAST_AREA = 16.0  # square pixels: four corners enclosing less are no board


def _area(quad: NDArray[np.float64]) -> float:
    """The signed area of a (4, 2) quadrilateral (the shoelace formula)."""
    return 0.5 * float(
        np.dot(quad[:, 0], np.roll(quad[:, 1], -1)) - np.dot(quad[:, 1], np.roll(quad[:, 0], -1))
    )


def encloses_area(quad: NDArray[np.float64]) -> bool:
    """Whether :func:`as_corners` takes ``quad`` (four finite points enclosing at least
    :data:`LEAST_AREA`): for a search to drop a candidate that collapsed, rather than stop."""
    arr = np.asarray(quad, np.float64)
    return arr.shape == (4, 2) and bool(np.isfinite(arr).all()) and abs(_area(arr)) >= LEAST_AREA


def homography(corners: Corners, width: int, height: int | None = None) -> NDArray[np.float64]:
    """Board units -> image pixels for a ``width`` x ``height`` grid whose corner points are given."""
    h = width if height is None else height
    src = np.array([[0, 0], [width - 1, 0], [width - 1, h - 1], [0, h - 1]], dtype=np.float32)
    dst = as_corners(corners).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def spacing(corners: Corners, size: int) -> float:
    """The mean grid spacing, in pixels, of a ``size``-line grid with these corner points."""
    c = np.asarray(corners, np.float64)
    return float(np.linalg.norm(np.diff(c, axis=0, append=c[:1]), axis=1).mean()) / (size - 1)


def project(H: NDArray[np.float64], pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """(..., 2) board points -> (..., 2) image pixels through ``H``."""
    p = pts.reshape(-1, 2)
    q = np.concatenate([p, np.ones((len(p), 1))], axis=1) @ H.T
    out: NDArray[np.float64] = (q[:, :2] / q[:, 2:3]).reshape(pts.shape)
    return out


@dataclass(frozen=True)
class Offset:
    """Where a stone shows relative to its point, on the board plane: ``d(p) = a * p + b``.

    ``a`` is a scalar (the camera's height ratio), ``b`` a 2-vector; both in board units.
    """

    a: float = 0.0
    b: tuple[float, float] = (0.0, 0.0)

    def __call__(self, pts: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = self.a * pts + np.asarray(self.b)
        return out

    @classmethod
    def fit(
        cls, points: NDArray[np.float64], shifts: NDArray[np.float64], *, limit: float = 0.6
    ) -> Offset:
        """Least-squares fit from measured (point, shift) pairs; few pairs give a plain shift.

        Shifts longer than ``limit`` are clipped: a real stone never shows further away.
        """
        if len(points) == 0:
            return cls()
        if len(points) < 4 or np.ptp(points, axis=0).max() < 3:
            b = np.median(shifts, axis=0)
            return cls(0.0, _clip(b, limit))
        # unknowns a, bx, by: dx = a x + bx, dy = a y + by
        n = len(points)
        A = np.zeros((2 * n, 3))
        A[:n, 0], A[:n, 1] = points[:, 0], 1.0
        A[n:, 0], A[n:, 2] = points[:, 1], 1.0
        y = np.concatenate([shifts[:, 0], shifts[:, 1]])
        keep = np.ones(2 * n, dtype=bool)
        for _ in range(3):
            sol, *_ = np.linalg.lstsq(A[keep], y[keep], rcond=None)
            res = np.abs(A @ sol - y)
            cut = max(0.08, 2.5 * 1.4826 * float(np.median(res[keep])))
            keep = res < cut
            keep[:n] &= keep[n:]
            keep[n:] = keep[:n]
            if keep.sum() < 6:
                break
        a = float(np.clip(sol[0], -0.05, 0.05))
        b = np.array([sol[1], sol[2]])
        return cls(a, _clip(b, limit))

    def to_json(self) -> dict[str, object]:
        return {"a": self.a, "b": list(self.b)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Offset:
        b = data.get("b", [0.0, 0.0])
        assert isinstance(b, list)
        return cls(float(data.get("a", 0.0)), (float(b[0]), float(b[1])))  # type: ignore[arg-type]


NO_OFFSET = Offset()


def _clip(b: NDArray[np.float64], limit: float) -> tuple[float, float]:
    n = float(np.hypot(*b))
    if n > limit:
        b = b * (limit / n)
    return float(b[0]), float(b[1])


def tile_maps(
    H: NDArray[np.float64],
    centres: NDArray[np.float64],
    *,
    cell: int,
    tiles_per_row: int,
    scale: float = 1.0,
) -> tuple[NDArray[np.int16], NDArray[np.uint16]]:
    """``cv2.remap`` maps that cut one ``cell`` x ``cell`` tile per board point.

    ``centres`` is (n, 2) board coordinates; tile ``i`` shows ``scale`` board units around
    ``centres[i]``. Tiles are laid out ``tiles_per_row`` to a row, so any board shape (grid,
    stacked layers, hand-placed map spots) reads the same way.
    """
    n = len(centres)
    rows = (n + tiles_per_row - 1) // tiles_per_row
    offs = (np.arange(cell, dtype=np.float64) + 0.5) / cell - 0.5
    oy, ox = np.meshgrid(offs * scale, offs * scale, indexing="ij")
    pad = np.zeros((rows * tiles_per_row, 2))
    pad[:n] = centres
    if n < len(pad):
        pad[n:] = centres[-1]
    pts = np.zeros((len(pad), cell, cell, 2))
    pts[..., 0] = pad[:, 0, None, None] + ox
    pts[..., 1] = pad[:, 1, None, None] + oy
    uv = project(H, pts)  # (T, cell, cell, 2)
    uv = uv.reshape(rows, tiles_per_row, cell, cell, 2).transpose(0, 2, 1, 3, 4)
    uv = uv.reshape(rows * cell, tiles_per_row * cell, 2).astype(np.float32)
    m1, m2 = cv2.convertMaps(uv[..., 0].copy(), uv[..., 1].copy(), cv2.CV_16SC2)
    return np.asarray(m1, np.int16), np.asarray(m2, np.uint16)


def warp_board(
    image: NDArray[np.uint8], H: NDArray[np.float64], width: int, height: int, ppu: int
) -> NDArray[np.uint8]:
    """Top-down view of the board, ``ppu`` pixels per unit, half a unit of margin all round.

    Point ``(x, y)`` lands on pixel ``((x + 0.5) * ppu, (y + 0.5) * ppu)``.
    """
    S = np.array([[ppu, 0, 0.5 * ppu - 0.5], [0, ppu, 0.5 * ppu - 0.5], [0, 0, 1.0]])
    M = S @ np.linalg.inv(H)
    top = cv2.warpPerspective(
        image,
        M,
        (width * ppu, height * ppu),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(top, np.uint8)


def pyramid_view(
    levels: Sequence[NDArray[np.uint8]],
    m: NDArray[np.float64],
    side: int,
    per: float,
    least: float,
    *,
    border: int = cv2.BORDER_REPLICATE,
) -> NDArray[np.uint8]:
    """The ``side``-pixel square view that ``m`` (view pixels -> image pixels) maps into the
    image, where a grid spacing is ``per`` view pixels: drawn at twice the size from the
    coarsest pyramid level (``levels``: the image and its halvings) on which a spacing still
    spans ``least`` pixels, then halved by area, so thin lines are neither aliased away nor
    blown up whatever the photo's size. Outside the image: ``border`` (black if constant)."""
    c = side / 2 - 0.5
    p = project(m, np.array([[c, c], [c + per, c], [c, c + per]], np.float64))
    span = float(np.linalg.norm(p[1:] - p[0], axis=1).mean())  # image pixels per spacing
    level = 0
    while level + 1 < len(levels) and span / 2 ** (level + 1) >= least:
        level += 1
    f = 0.5**level
    to_level = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
    twice = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])  # 2x view -> view
    big = cv2.warpPerspective(
        levels[level],
        to_level @ m @ twice,
        (2 * side, 2 * side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=border,
        borderValue=(0, 0, 0),
    )
    return np.asarray(cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA), np.uint8)


def shrink(image: NDArray[np.uint8], scale: float) -> NDArray[np.uint8]:
    """``image`` resized by ``scale`` (under 1) with area averaging, to the size
    ``cv2.resize(image, None, fx=scale, fy=scale)`` gives. Halved first while more than half
    is to go: OpenCV averages exact halves on a fast path, so a 12-megapixel photo comes down
    to the finder's 800 pixels in about a third of the time of one area resize, within a few
    grey levels of it. With less than half to go, that one resize, exactly."""
    if scale >= 0.5:
        once = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        return np.asarray(once, np.uint8)
    h, w = image.shape[:2]
    size = (round(w * scale), round(h * scale))
    out, left = image, scale
    while left < 0.5 and min(out.shape[:2]) >= 4:
        half = (out.shape[1] // 2, out.shape[0] // 2)
        out = np.asarray(cv2.resize(out, half, interpolation=cv2.INTER_AREA), np.uint8)
        left *= 2
    return np.asarray(cv2.resize(out, size, interpolation=cv2.INTER_AREA), np.uint8)
