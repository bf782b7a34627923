"""The pinhole camera of a rendered scene: where it stands, its rays and its projection.

World units are millimetres, z up, the table at z = 0. At azimuth 0 the camera stands on the
-y side of the board looking towards +y, so board row 0 (at +y) shows at the top of the image.
Mild radial distortion (one coefficient, on normalised coordinates) bends both the rays the
renderer casts and the points it projects, so labels and pixels stay in step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Camera:
    """A posed pinhole camera with radial distortion ``k1``; ``f`` and centre in pixels."""

    centre: F64  # (3,) position in the world
    rot: F64  # (3, 3) rows: camera x (right), y (down), z (forward) in world coordinates
    f: float
    cx: float
    cy: float
    width: int
    height: int
    k1: float = 0.0

    def project(self, pts: F64) -> F64:
        """World points (..., 3) to pixel positions (..., 2), distortion applied."""
        p = np.asarray(pts, dtype=np.float64)
        c = (p - self.centre) @ self.rot.T
        z = np.maximum(c[..., 2], 1e-6)
        x, y = c[..., 0] / z, c[..., 1] / z
        k = 1.0 + self.k1 * (x * x + y * y)
        return np.stack([self.f * x * k + self.cx, self.f * y * k + self.cy], axis=-1)

    def rays(self, ss: int = 1) -> NDArray[np.float32]:
        """Unit world directions (H*ss, W*ss, 3) through sub-pixel centres.

        Sub-pixel k of ``ss`` sits at ``(k + 0.5) / ss - 0.5`` so that averaging ss x ss blocks
        gives pixels centred on integer coordinates, as OpenCV counts them.
        """
        us = ((np.arange(self.width * ss, dtype=np.float64) + 0.5) / ss - 0.5 - self.cx) / self.f
        vs = ((np.arange(self.height * ss, dtype=np.float64) + 0.5) / ss - 0.5 - self.cy) / self.f
        xd = np.broadcast_to(us.astype(np.float32)[None, :], (len(vs), len(us)))
        yd = np.broadcast_to(vs.astype(np.float32)[:, None], (len(vs), len(us)))
        xu, yu = xd, yd
        if self.k1:
            for _ in range(5):  # invert x_d = x_u (1 + k1 r_u^2) by fixed-point steps
                k = 1.0 + np.float32(self.k1) * (xu * xu + yu * yu)
                xu, yu = xd / k, yd / k
        rot = self.rot.astype(np.float32)
        d = np.empty((len(vs), len(us), 3), np.float32)
        for i in range(3):  # world direction = x * right + y * down + forward, then unit
            d[..., i] = xu * rot[0, i] + yu * rot[1, i] + rot[2, i]
        d /= np.sqrt(np.einsum("ijk,ijk->ij", d, d))[..., None]
        out: NDArray[np.float32] = d
        return out


def look_at(
    target: F64,
    *,
    distance: float,
    elevation_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    fov_deg: float,
    width: int,
    height: int,
    k1: float,
) -> Camera:
    """A camera ``distance`` mm from ``target``, raised ``elevation_deg`` above the table.

    ``fov_deg`` is the vertical field of view; ``roll_deg`` turns the camera about its axis.
    Straight above (90 degrees) the azimuth alone says which way is up in the image.
    """
    e, a = np.radians(elevation_deg), np.radians(azimuth_deg)
    ahead = np.array([-np.sin(a), np.cos(a), 0.0])  # horizontal direction the camera faces
    up = np.array([0.0, 0.0, 1.0])
    centre = target - distance * np.cos(e) * ahead + distance * np.sin(e) * up
    fwd = np.cos(e) * ahead - np.sin(e) * up
    right = np.array([np.cos(a), np.sin(a), 0.0])
    down = np.cross(fwd, right)
    r = np.radians(roll_deg)
    right, down = np.cos(r) * right + np.sin(r) * down, -np.sin(r) * right + np.cos(r) * down
    f = (height / 2) / np.tan(np.radians(fov_deg) / 2)
    return Camera(
        centre=centre,
        rot=np.stack([right, down, fwd]),
        f=float(f),
        cx=(width - 1) / 2,
        cy=(height - 1) / 2,
        width=width,
        height=height,
        k1=k1,
    )
