"""A hand and sleeve reaching over the board, built from capsules (palm, fingers, thumb,
forearm, sleeve) so the renderer can ray-cast it, light it and cast its soft shadow."""

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
    """Capsules from ``a`` to ``b`` of ``radii``, their linear colours, and which are cloth."""

    a: F64
    b: F64
    radii: F64
    colours: F64
    sleeve: NDArray[np.bool_]

    def balls(self) -> tuple[F64, F64]:
        """Balls along every capsule (centres, radii): the occluders its shadow is cast from."""
        cs, rs = [], []
        for a, b, r in zip(self.a, self.b, self.radii, strict=True):
            n = max(2, int(np.ceil(np.linalg.norm(b - a) / (0.6 * r))) + 1)
            s = np.linspace(0, 1, n)[:, None]
            cs.append(a[None, :] + s * (b - a)[None, :])
            rs.append(np.full(n, r))
        return np.concatenate(cs), np.concatenate(rs)


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
    k = rng.uniform(0.85, 1.15)  # hand size
    palm = tip - u * 85 * k + z * 28
    wrist = tip - u * 150 * k + z * rng.uniform(45, 70)
    elbow = wrist - u * 270 * k + z * rng.uniform(60, 160)
    shoulder = elbow - u * 320 * k + z * rng.uniform(250, 400)
    cut = elbow + (wrist - elbow) * rng.uniform(0.15, 0.85)  # where the sleeve ends
    caps: list[tuple[F64, F64, float, bool]] = [
        (shoulder, elbow, 50 * k, True),
        (elbow, cut, 44 * k, True),
        (cut, wrist + u * 10 * k, 30 * k, False),
    ]
    for off in (-22.0, 0.0, 22.0):  # the palm: three flat-ish rolls side by side
        a = wrist + v * off * 0.6 * k + u * 10 * k - z * 8
        b = palm + v * off * k + u * 20 * k
        caps.append((a, b, 16 * k, False))
    side = 1.0 if rng.random() < 0.5 else -1.0
    for j, off in enumerate((-26.0, -9.0, 8.0, 24.0)):
        base = palm + u * 25 * k + v * off * side * k
        length = (60, 70, 66, 52)[j] * k * rng.uniform(0.9, 1.05)
        end = base + u * length
        end[2] = tip[2] + abs(off) * 0.4 + rng.uniform(0, 15)
        caps.append((base, end, (8.5, 9.0, 8.5, 7.5)[j] * k, False))
    t_base = palm - u * 20 * k - v * 34 * side * k
    t_end = t_base + (u * 0.75 - v * 0.35 * side) * 52 * k
    t_end[2] = tip[2] + rng.uniform(5, 20)
    caps.append((t_base, t_end, 10.0 * k, False))

    skin = linear(np.array(SKINS[int(rng.integers(0, len(SKINS)))]) * rng.uniform(0.92, 1.08, 3))
    cloth = linear(tuple(rng.uniform(20, 230, 3)))
    sleeve = np.array([c[3] for c in caps])
    return Hand(
        np.array([c[0] for c in caps]),
        np.array([c[1] for c in caps]),
        np.array([c[2] for c in caps]),
        np.where(sleeve[:, None], cloth[None, :], skin[None, :]),
        sleeve,
    )
