"""Solid shapes of a board scene and rays against them: boards, lens-shaped stones, balls.

A stone is the intersection of two balls (a biconvex lens): a top cap ``top`` mm high over a
bottom cap ``bottom`` mm high, ``2 * radius`` wide, resting on the board. The same intersection
code serves flat magnetic discs (two shallow caps); the hand is made of capsules. Every
solid is hit only by the rays of its own screen bounding box, so a full 19x19 board costs a few
hundred thousand ray tests instead of one per pixel per stone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.camera import Camera

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


@dataclass(frozen=True)
class Layout:
    """Where the grids lie: ``layers`` boards of ``size`` lines, side by side along x.

    ``sx``/``sy`` are the line spacings (a real 19x19 board: 22 x 23.7 mm), ``mx``/``my`` the
    margins from the outer lines to the board's edge, ``thick`` the board's height above the
    table and ``offsets`` the x of each layer's centre.
    """

    size: int
    sx: float
    sy: float
    mx: float
    my: float
    thick: float
    offsets: tuple[float, ...]

    @property
    def half(self) -> tuple[float, float]:
        """Half width and half depth of one board."""
        return (self.size - 1) * self.sx / 2 + self.mx, (self.size - 1) * self.sy / 2 + self.my

    def point(self, layer: int, r: F64 | float, c: F64 | float) -> F64:
        """World (x, y) of grid row ``r``, column ``c`` (fractions allowed) of ``layer``."""
        h = (self.size - 1) / 2
        x = self.offsets[layer] + (np.asarray(c, dtype=np.float64) - h) * self.sx
        y = (h - np.asarray(r, dtype=np.float64)) * self.sy
        return np.stack(np.broadcast_arrays(x, y), axis=-1)

    def corner_points(self, layer: int) -> F64:
        """The corner intersections of ``layer`` in the board's own TL, TR, BR, BL order (3D)."""
        n = self.size - 1
        xy = self.point(layer, np.array([0.0, 0, n, n]), np.array([0.0, n, n, 0]))
        return np.concatenate([xy, np.full((4, 1), self.thick)], axis=1)


@dataclass(frozen=True)
class Stones:
    """Stones: centres (N, 2) resting at heights ``base`` (the board's top, or the table
    for stones lying beside the board)."""

    xy: F64
    black: NDArray[np.bool_]
    radius: F64
    top: F64
    bottom: F64
    base: F64

    def balls(self) -> tuple[F64, F64, F64, F64]:
        """Centres and radii of the ball making the top surface, then the bottom surface."""
        r, a, b = self.radius, self.top, self.bottom
        ra, rb = (r * r + a * a) / (2 * a), (r * r + b * b) / (2 * b)
        eq = self.base + b
        ca = np.column_stack([self.xy, eq - (ra - a)])
        cb = np.column_stack([self.xy, eq + (rb - b)])
        return ca, ra, cb, rb

    def radius_at(self, z: float) -> F64:
        """Horizontal radius of every stone at height ``z`` above the board (0 outside)."""
        ca, ra, cb, rb = self.balls()
        za = self.base + z
        da, db = za - ca[:, 2], za - cb[:, 2]
        r2 = np.minimum(ra * ra - da * da, rb * rb - db * db)
        out: F64 = np.sqrt(np.clip(r2, 0.0, None))
        return out


def bbox_pairs(cam: Camera, lo: F64, hi: F64, ss: int) -> tuple[I64, I64]:
    """(pixel index, solid index) for every sub-pixel in each solid's screen box.

    ``lo``/``hi`` are (N, 3) world-space box corners; pixels are counted at ``ss`` times the
    camera's resolution. Solids behind or beside the frame give no pairs.
    """
    n = len(lo)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    corners = np.stack(
        [np.where(np.array(m, bool), hi, lo) for m in np.ndindex(2, 2, 2)], axis=1
    )  # (N, 8, 3)
    uv = cam.project(corners) * ss + (ss - 1) / 2
    w, h = cam.width * ss, cam.height * ss
    x0 = np.clip(np.floor(uv[..., 0].min(axis=1)) - 1, 0, w).astype(np.int64)
    x1 = np.clip(np.ceil(uv[..., 0].max(axis=1)) + 2, 0, w).astype(np.int64)
    y0 = np.clip(np.floor(uv[..., 1].min(axis=1)) - 1, 0, h).astype(np.int64)
    y1 = np.clip(np.ceil(uv[..., 1].max(axis=1)) + 2, 0, h).astype(np.int64)
    bw, bh = np.maximum(x1 - x0, 0), np.maximum(y1 - y0, 0)
    counts = bw * bh
    obj = np.repeat(np.arange(n), counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    local = np.arange(int(counts.sum()), dtype=np.int64) - start
    bwo = np.maximum(bw[obj], 1)
    px = x0[obj] + local % bwo
    py = y0[obj] + local // bwo
    return py * w + px, obj


def ball_hits(o: F64, d: F64, c: F64, r: F64) -> tuple[F64, F64, NDArray[np.bool_]]:
    """Near and far ray distances to balls (one ball per ray) and whether the ray meets it."""
    oc = o[None, :] - c
    b = np.einsum("ij,ij->i", d, oc)
    disc = b * b - (np.einsum("ij,ij->i", oc, oc) - r * r)
    ok = disc > 0
    s = np.sqrt(np.where(ok, disc, 0.0))
    return -b - s, -b + s, ok


def hit_stones(
    cam: Camera, rays: NDArray[np.float32], stones: Stones, ss: int
) -> tuple[I64, F64, I64, F64]:
    """Rays meeting stones: pixel index, distance, stone index and unit normal (M, 3)."""
    if len(stones.xy) == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), np.zeros((0, 3))
    r = stones.radius
    lo = np.column_stack([stones.xy - r[:, None], stones.base])
    hi = np.column_stack([stones.xy + r[:, None], stones.base + stones.top + stones.bottom])
    pix, obj = bbox_pairs(cam, lo, hi, ss)
    d = rays.reshape(-1, 3)[pix].astype(np.float64)
    ca, ra, cb, rb = stones.balls()
    na, fa, oka = ball_hits(cam.centre, d, ca[obj], ra[obj])
    nb, fb, okb = ball_hits(cam.centre, d, cb[obj], rb[obj])
    t_in, t_out = np.maximum(na, nb), np.minimum(fa, fb)
    ok = oka & okb & (t_in < t_out) & (t_in > 0)
    pix, obj, d, t_in = pix[ok], obj[ok], d[ok], t_in[ok]
    from_a = (na >= nb)[ok]
    p = cam.centre[None, :] + d * t_in[:, None]
    cen = np.where(from_a[:, None], ca[obj], cb[obj])
    rad = np.where(from_a, ra[obj], rb[obj])
    return pix, t_in, obj, (p - cen) / rad[:, None]


def hit_capsules(
    cam: Camera, rays: NDArray[np.float32], a: F64, b: F64, radii: F64, ss: int
) -> tuple[I64, F64, I64, F64]:
    """Rays meeting capsules (segments ``a``-``b`` swept by a ball of ``radii``): pixel
    index, distance, capsule index and unit normal. One solid per limb keeps the ray tests
    to about the limb's screen area (a chain of balls would test each overlap again)."""
    lo = np.minimum(a, b) - radii[:, None]
    hi = np.maximum(a, b) + radii[:, None]
    pix, obj = bbox_pairs(cam, lo, hi, ss)
    rd = rays.reshape(-1, 3)[pix].astype(np.float64)
    pa, pb, r = a[obj], b[obj], radii[obj]
    ba = pb - pa
    oa = cam.centre[None, :] - pa
    baba = np.einsum("ij,ij->i", ba, ba)
    bard = np.einsum("ij,ij->i", ba, rd)
    baoa = np.einsum("ij,ij->i", ba, oa)
    rdoa = np.einsum("ij,ij->i", rd, oa)
    oaoa = np.einsum("ij,ij->i", oa, oa)
    qa = baba - bard * bard
    qb = baba * rdoa - baoa * bard
    qc = baba * oaoa - baoa * baoa - r * r * baba
    h = qb * qb - qa * qc
    t = np.full(len(pix), np.inf)
    ok = (h >= 0) & (qa > 1e-12)
    tb = np.where(ok, (-qb - np.sqrt(np.where(ok, h, 0.0))) / np.where(ok, qa, 1.0), np.inf)
    y = baoa + tb * bard
    body = ok & (y > 0) & (y < baba)
    t[body] = tb[body]
    # the rounded ends: the ball at whichever end the ray's infinite-cylinder hit lies past
    cap_c = np.where((y <= 0)[:, None], pa, pb)
    tn, _, hit = ball_hits(cam.centre, rd, cap_c, r)
    ends = ~body & hit
    t[ends] = tn[ends]
    keep = np.isfinite(t) & (t > 0)
    pix, obj, rd, t = pix[keep], obj[keep], rd[keep], t[keep]
    pa, ba, r = pa[keep], ba[keep], r[keep]
    pt = cam.centre[None, :] + rd * t[:, None]
    along = np.clip(
        np.einsum("ij,ij->i", pt - pa, ba) / np.maximum(np.einsum("ij,ij->i", ba, ba), 1e-12),
        0,
        1,
    )
    nrm = (pt - pa - ba * along[:, None]) / r[:, None]
    return pix, t, obj, nrm


def nearest(pix: I64, t: F64, zbuf: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Lower ``zbuf`` (flat, per pixel) by the hits; True for hits that are now in front."""
    np.minimum.at(zbuf, pix, t)
    front: NDArray[np.bool_] = t <= zbuf[pix]
    return front


def spread(xy: F64, radius: F64, nudge: F64, rng: np.random.Generator, spacing: float) -> F64:
    """Stones pushed up to ``nudge`` spacings off their points, then eased apart so that
    no two overlap (a nudged stone shoves its neighbour, it does not sink into it)."""
    if len(xy) == 0:
        return xy
    ang = rng.uniform(0, 2 * np.pi, len(xy))
    dist = nudge * spacing * np.sqrt(rng.uniform(0, 1, len(xy)))
    out = xy + np.column_stack([np.cos(ang), np.sin(ang)]) * dist[:, None]
    for _ in range(12):
        diff = out[:, None, :] - out[None, :, :]
        gap = np.linalg.norm(diff, axis=-1)
        need = radius[:, None] + radius[None, :]
        np.fill_diagonal(gap, np.inf)
        over = np.clip(need - gap, 0, None)
        if not over.any():
            break
        push = (diff / np.maximum(gap, 1e-6)[..., None]) * (over / 2)[..., None]
        out = out + push.sum(axis=1)
    done: F64 = out
    return done
