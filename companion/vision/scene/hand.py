"""A hand and sleeve reaching over the board, built from balls (palm, fingers, forearm, arm)
so the renderer can ray-cast it, light it and cast its soft shadow like any other solid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.geometry import Layout
from companion.vision.scene.materials import linear

F64 = NDArray[np.float64]

SKINS = ((150, 182, 232), (128, 165, 220), (98, 136, 196), (66, 98, 150), (44, 64, 100))


@dataclass(frozen=True)
class Hand:
    """Balls (centres, radii), their linear colours and whether each is sleeve cloth."""

    centres: F64
    radii: F64
    colours: F64
    sleeve: NDArray[np.bool_]


def _segment(a: F64, b: F64, ra: float, rb: float, step: float) -> tuple[F64, F64]:
    """Balls along a tapering capsule from ``a`` (radius ``ra``) to ``b`` (``rb``)."""
    length = float(np.linalg.norm(b - a))
    n = max(2, int(np.ceil(length / (step * min(ra, rb)))) + 1)
    s = np.linspace(0, 1, n)
    return a[None, :] + s[:, None] * (b - a)[None, :], ra + s * (rb - ra)


def reach(layout: Layout, rng: np.random.Generator) -> Hand:
    """A hand whose fingertips hover just above a random point of the board."""
    layer = int(rng.integers(0, len(layout.offsets)))
    n = layout.size
    tip_xy = layout.point(layer, rng.uniform(0, n - 1), rng.uniform(0, n - 1))
    phi = rng.uniform(0, 2 * np.pi)
    u = -np.array([np.cos(phi), np.sin(phi), 0.0])  # the way the fingers point
    v = np.array([-u[1], u[0], 0.0])  # across the hand
    z = np.array([0.0, 0.0, 1.0])
    tip = np.array([tip_xy[0], tip_xy[1], layout.thick + rng.uniform(8, 35)])
    scale = rng.uniform(0.85, 1.15)
    palm = tip - u * 85 * scale + z * 28
    wrist = tip - u * 150 * scale + z * rng.uniform(45, 70)
    elbow = wrist - u * 270 * scale + z * rng.uniform(60, 160)
    shoulder = elbow - u * 320 * scale + z * rng.uniform(250, 400)
    parts: list[tuple[F64, F64, bool]] = []
    sleeve_from = rng.uniform(0.15, 0.85)  # share of the forearm, from the elbow, in the sleeve
    cut = elbow + (wrist - elbow) * sleeve_from
    for a, b, ra, rb, in_sleeve in (
        (shoulder, elbow, 52.0, 45.0, True),
        (elbow, cut, 45.0, 45.0 - 14 * sleeve_from, True),
        (cut, wrist, 37.0 - 10 * sleeve_from, 26.0, False),
    ):
        c, r = _segment(a, b, ra * scale, rb * scale, 0.45)
        parts.append((c, r, in_sleeve))
    for i in (-1.0, 0.0, 1.0):  # the palm: a flattened grid of balls
        for j in (-0.6, 0.2, 1.0):
            c = palm + v * 24 * i * scale + u * 28 * (j - 0.2) * scale
            parts.append((c[None, :], np.array([21.0 * scale]), False))
    side = 1.0 if rng.random() < 0.5 else -1.0
    for k, off in enumerate((-27.0, -9.0, 9.0, 27.0)):
        base = palm + u * 30 * scale + v * off * side * scale
        length = (62, 72, 68, 55)[k] * scale * rng.uniform(0.9, 1.05)
        end = base + u * length
        end[2] = tip[2] + abs(off) * 0.4 + rng.uniform(0, 15)
        c, r = _segment(base, end, 9.5 * scale, 7.5 * scale, 0.4)
        parts.append((c, r, False))
    t_base = palm - u * 15 * scale - v * 40 * side * scale
    t_end = t_base + (u * 0.7 - v * 0.3 * side) * 55 * scale
    t_end[2] = tip[2] + rng.uniform(5, 20)
    c, r = _segment(t_base, t_end, 11.0 * scale, 8.5 * scale, 0.4)
    parts.append((c, r, False))

    skin = linear(np.array(SKINS[int(rng.integers(0, len(SKINS)))]) * rng.uniform(0.92, 1.08, 3))
    cloth = linear(tuple(rng.uniform(20, 230, 3)))
    centres = np.concatenate([p[0] for p in parts])
    radii = np.concatenate([p[1] for p in parts])
    sleeve = np.concatenate([np.full(len(p[1]), p[2]) for p in parts])
    colours = np.where(sleeve[:, None], cloth[None, :], skin[None, :])
    return Hand(centres, radii, colours, sleeve)
