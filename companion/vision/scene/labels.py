"""The truth of a rendered frame: corner intersections in the order the board finder gives
them, the labels turned to match, and the spots a hand hides."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision.find_board import order_corners
from companion.vision.scene.camera import Camera
from companion.vision.scene.geometry import Layout

F64 = NDArray[np.float64]


def ordered(cam: Camera, layout: Layout, layer: int) -> tuple[F64, int]:
    """The layer's corner intersections in the image, ordered as the board finder orders
    them, and how many quarter turns the board's own TL corner moved (to turn the labels)."""
    own = cam.project(layout.corner_points(layer))
    quad = np.asarray(order_corners(own), dtype=np.float64)
    k = int(np.argmin(np.linalg.norm(own - quad[0], axis=1)))
    if not np.allclose(np.roll(own, -k, axis=0), quad):
        raise VisionError("corners do not follow the board round (mirrored view?)")
    return quad, k


def hidden_spots(
    cam: Camera, layout: Layout, layer: int, k: int, mask: NDArray[np.float32], lift: float
) -> list[int]:
    """Spots (row-major, in the turned labels' order) whose stone area the hand covers by at
    least a fifth: the reader cannot be held to those."""
    n = layout.size
    rr, cc = np.mgrid[0:n, 0:n].astype(np.float64)
    own = layout.point(layer, rr, cc)  # (n, n, 2) in the board's own order
    turned = np.rot90(own, k)
    ring = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    offs = np.concatenate(
        [[[0.0, 0.0]], 0.42 * layout.sx * np.column_stack([np.cos(ring), np.sin(ring)])]
    )
    out = []
    h, w = mask.shape
    for i, (x, y) in enumerate(turned.reshape(-1, 2)):
        pts = np.column_stack(
            [x + offs[:, 0], y + offs[:, 1], np.full(len(offs), layout.thick + lift / 2)]
        )
        uv = np.rint(cam.project(pts)).astype(int)
        ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
        cov = mask[uv[ok, 1], uv[ok, 0]] > 0.5
        if cov.sum() >= 0.2 * len(offs):
            out.append(i)
    return out
