"""Where the camera of a scene stands: the drawn pose, backed off until the boards fill the
drawn share of the frame with every corner intersection inside it."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.camera import Camera, look_at
from companion.vision.scene.factors import Value
from companion.vision.scene.geometry import Layout

F64 = NDArray[np.float64]


def place(f: dict[str, Value], layout: Layout, width: int, height: int) -> Camera:
    """A camera at the drawn pose, backed off until the boards fill ``fill`` of the frame
    and every corner intersection sits inside it."""
    hw, hd = layout.half
    outer = np.array(
        [
            [x0 + sx * hw, sy * hd, layout.thick]
            for x0 in layout.offsets
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
    )
    inner = np.concatenate([layout.corner_points(k) for k in range(len(layout.offsets))])
    target = np.array([0.0, 0.0, layout.thick])
    fill = float(f["fill"])

    def cam(d: float) -> Camera:
        return look_at(
            target,
            distance=d,
            elevation_deg=float(f["elevation_deg"]),
            azimuth_deg=float(f["azimuth_deg"]),
            roll_deg=float(f["roll_deg"]),
            fov_deg=float(f["fov_deg"]),
            width=width,
            height=height,
            k1=float(f["distortion"]),
        )

    d = 2.0 * float(np.abs(outer[:, :2]).max()) / np.tan(np.radians(float(f["fov_deg"])) / 2)
    for _ in range(6):
        uv = cam(d).project(outer)
        span = uv.max(axis=0) - uv.min(axis=0)
        grow = max(span[0] / (fill * width), span[1] / (fill * height))
        d *= 0.35 + 0.65 * grow
    for _ in range(40):
        c = cam(d)
        uv = c.project(inner)
        mid = (uv.max(axis=0) + uv.min(axis=0)) / 2 - [(width - 1) / 2, (height - 1) / 2]
        target = target + _back(c, mid)
        c = cam(d)
        uv = c.project(inner)
        m = 0.03 * min(width, height)
        if (
            (uv >= m).all()
            and (uv[:, 0] <= width - 1 - m).all()
            and (uv[:, 1] <= height - 1 - m).all()
        ):
            return c
        d *= 1.05
    return c


def _back(cam: Camera, shift_px: F64) -> F64:
    """The world shift (on the table) that moves the image centre by ``shift_px``, roughly."""
    return np.asarray(
        (cam.rot[0] * shift_px[0] + cam.rot[1] * shift_px[1])
        * (np.linalg.norm(cam.centre) / cam.f)
        * np.array([1.0, 1.0, 0.0]),
        dtype=np.float64,
    )
