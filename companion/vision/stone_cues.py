"""Per-spot measurements for the classic reader: brightness, tint, grid lines, a stone's outline.

How it measures (classic OpenCV, no model):

1. One ``cv2.remap`` cuts a small square *tile* around every spot, centred where a stone on
   it *shows*: in an oblique view a stone's top sits off its intersection, and the offset model
   (:class:`~companion.vision.geometry.Offset`, measured from the clear stones by
   :func:`~companion.vision.stone_offset.estimate_offset`) says where. A second remap cuts
   tiles centred on the points themselves, for the grid lines.
2. Per spot: the median brightness and median chromaticity of a central disc (medians ignore
   grid lines, star points and a glare spot on a black stone), how clearly straight grid
   lines cross the point itself (a stone, a hand or a sleeve hides them) -- as darkness and
   as a *valley* (a thin line is darker than both its sides; a stone's shading is not),
   compared with the points of its kind nearby -- and how clearly brightness drops all round
   at a stone's rim (its outline).
3. A *light model*: smooth quadratic surfaces of empty-board brightness and tint, fitted
   robustly (stones and hands are outliers) -- or, with a calibration profile, the saved
   empty-board look of every spot scaled to today's light. Dim, uneven or coloured light
   changes board and stones alike, so spots are judged *relative to the board around them*
   (the decision itself is :mod:`companion.vision.stone_bands`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision.geometry import tile_maps
from companion.vision.stone_offset import _fit_surface, _smooth_background

if TYPE_CHECKING:
    from companion.vision.read_stones import Region

Image = NDArray[np.uint8]

DEFAULT_CELL = 16  # tile side in pixels
RING_RADII = np.arange(0.25, 0.66, 0.05)  # board units: rays across a stone's rim (nudged too)
RING_ANGLES = 16
RING_STEP = 2  # a drop is measured over this many radii (0.1 unit)
RING_LOW = 2  # the third-weakest ray counts: two may cross a touching stone or a line's end
DISC = 0.36  # sample disc radius, board units (a stone's radius is ~0.48)
VALLEY_STEP = 2  # tile pixels (1/8 unit): a grid line is darker than this far on both sides
COVERED = 0.2  # a valley below this share of the nearby points' one: the lines are hidden
VALLEY_FALLBACK = 0.5  # share of the board-wide valley a crowded spot is judged against
VISIBLE = 0.5  # a valley this share of the nearby points' one: the lines show
VALLEY_SEEN = 0.06  # ... judged only where nearby points show lines at least this clearly
RING_MIN = 0.04  # brightness drop all round a stone's rim, over the board's: an outline

PATCH_SIDE = 8  # saved empty-board patch per spot, pixels a side


@dataclass(frozen=True)
class EmptyBoard:
    """What every spot looked like with no stone on it (from a calibration profile).

    ``gray`` and ``tint`` per spot as in :class:`Features`; ``patches`` (n, 8, 8) uint8, the
    central half unit around the point (grid lines and all) on the board plane.
    """

    gray: NDArray[np.float64]
    tint: NDArray[np.float64]
    patches: NDArray[np.uint8] | None = None


@dataclass
class Features:
    """Per-spot measurements, in observation order.

    ``gray`` is the median brightness in the spot's disc, ``tint`` its median chromaticity
    (r, g) / (r + g + b); ``bg_*`` are what empty board looks like there under today's light.
    """

    gray: NDArray[np.float64]
    tint: NDArray[np.float64]  # (n, 2)
    bg_gray: NDArray[np.float64]
    bg_tint: NDArray[np.float64]  # (n, 2)
    lines: NDArray[np.float64]  # grid-line contrast at the point (0 hidden; NaN not measured)
    same: NDArray[np.float64] | None = None  # correlation with the empty-board patch, if saved
    # Thin grid lines crossing the point (a valley: darker than both sides; a stone's smooth
    # shading is not one), and what nearby points show (upper quartile around it); (n, 2):
    # horizontal lines, vertical lines (a shaken camera blurs one way). NaN: not measured.
    valley: NDArray[np.float64] | None = None
    valley_ref: NDArray[np.float64] | None = None
    # How much brightness drops all round at a stone's rim, in grey levels (NaN: not measured)
    ring: NDArray[np.float64] | None = None


class CueMeter:
    """Measures every spot of one camera's view of one board; build once, measure per frame.

    All geometry (remap tables, disc masks) is precomputed here, so :meth:`features` is a remap
    and a few numpy reductions. ``reference`` is an optional saved empty-board appearance (gray,
    tint per spot) from a calibration profile.
    """

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        cell: int = DEFAULT_CELL,
        reference: EmptyBoard | None = None,
    ) -> None:
        self.regions = tuple(regions)
        self.image_size = image_size  # (width, height)
        self.cell = cell
        self.n = sum(len(r.spots) for r in self.regions)
        self.reference = reference
        self._maps: list[tuple[NDArray[np.int16], NDArray[np.uint16], int]] = []
        self._flat_maps: list[tuple[NDArray[np.int16], NDArray[np.uint16], int]] = []
        self._boxes: list[tuple[int, int, int, int, int]] = []
        self._ring_maps: list[tuple[NDArray[np.int16], NDArray[np.uint16]]] = []
        for region in self.regions:
            k = len(region.points)
            tpr = max(1, int(np.ceil(np.sqrt(k))))
            centres = region.points + region.offset(region.points) * region.scale
            m1, m2 = tile_maps(region.H, centres, cell=cell, tiles_per_row=tpr, scale=region.scale)
            self._maps.append((m1, m2, tpr))
            # The grid-line tiles are cut from a box around the region, first shrunk by whole
            # pixels per tile pixel (area averaging): sampled sparsely, thin lines would vanish.
            factor = max(1, int(_spacing_px(region) * region.scale / cell))
            box = _box(region, image_size, factor)
            x0, y0 = box[0], box[1]
            S = np.array(
                [
                    [1.0 / factor, 0.0, (-x0 - (factor - 1) / 2.0) / factor],
                    [0.0, 1.0 / factor, (-y0 - (factor - 1) / 2.0) / factor],
                    [0.0, 0.0, 1.0],
                ]
            )
            f1, f2 = tile_maps(
                S @ region.H, region.points, cell=cell, tiles_per_row=tpr, scale=region.scale
            )
            self._flat_maps.append((f1, f2, tpr))
            self._boxes.append((*box, factor))
            self._ring_maps.append(_ring_maps(S @ region.H, centres, region.scale))
        self._disc = _disc(cell)
        self._disc_half = _disc(cell // 2)
        self._disc_cache: dict[tuple[int, int], NDArray[np.uint8]] = {}
        self._order = np.concatenate([np.asarray(r.spots, dtype=np.int64) for r in self.regions])
        self._in_order = bool(np.array_equal(self._order, np.arange(len(self._order))))
        if sorted(self._order.tolist()) != list(range(self.n)):
            raise VisionError("regions must cover spots 0..n-1 exactly once")

    def _disc_mosaic(self, rows: int, tpr: int) -> NDArray[np.uint8]:
        key = (rows, tpr)
        if key not in self._disc_cache:
            d = self._disc.reshape(self.cell, self.cell).astype(np.uint8)
            self._disc_cache[key] = np.tile(d, (rows, tpr))[..., None]
        return self._disc_cache[key]

    def tiles(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, an (n, cell, cell, channels) stack of tiles centred where stones show."""
        out = []
        for big, region, (_, _, tpr) in zip(
            self._mosaics(image), self.regions, self._maps, strict=True
        ):
            if big.ndim == 2:
                big = big[..., None]
            rows = big.shape[0] // self.cell
            ch = big.shape[2]
            t = big.reshape(rows, self.cell, tpr, self.cell, ch).transpose(0, 2, 1, 3, 4)
            out.append(t.reshape(rows * tpr, self.cell, self.cell, ch)[: len(region.points)])
        return out

    def _mosaics(self, image: Image) -> list[NDArray[np.uint8]]:
        return [
            np.asarray(
                cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                np.uint8,
            )
            for m1, m2, _ in self._maps
        ]

    def features(self, image: Image) -> Features:
        """Measure every spot and fit the light model."""
        check_image(image)
        parts: list[tuple[NDArray[np.float64], ...]] = []
        c = self.cell
        k = int(self._disc.sum())
        shrunk = self._shrunk(image)
        flats = self._flats(image, shrunk)
        # With saved empty-board patches the patches decide "unchanged"; the line test (the
        # costliest step) is only needed without them. NaN marks "not measured".
        if self.reference is not None and self.reference.patches is not None:
            lines_of = [np.full(len(r.points), np.nan) for r in self.regions]
            ring_of = lines_of
            valley_of = ref_of = [np.full((len(r.points), 2), np.nan) for r in self.regions]
        else:
            measured = [
                _line_contrast(flat, c, tpr, len(region.points))
                for flat, (_, _, tpr), region in zip(
                    flats, self._flat_maps, self.regions, strict=True
                )
            ]
            lines_of = [m[0] for m in measured]
            valley_of = [m[1] for m in measured]
            ref_of = [
                _local_upper(v, region.shape)
                for v, region in zip(valley_of, self.regions, strict=True)
            ]
            ring_of = self._rings(shrunk)
        for big, region, (_, _, tpr) in zip(
            self._mosaics(image), self.regions, self._maps, strict=True
        ):
            n = len(region.points)
            rows = big.shape[0] // c
            g = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
            g = g.reshape(rows, c, tpr, c).transpose(0, 2, 1, 3).reshape(rows * tpr, c * c)[:n]
            # median brightness in the disc: robust to grid lines, star points and glare spots
            gray = np.partition(g[:, self._disc], k // 2, axis=1)[:, k // 2].astype(np.float64)
            # median chromaticity in the disc (lines and highlights drop out like for gray),
            # on a half-size copy: colour changes slowly, and this is the costly part
            h2 = c // 2
            half = cv2.resize(big, (tpr * h2, rows * h2), interpolation=cv2.INTER_AREA)
            f = half.astype(np.float32)
            inv = 1.0 / (cv2.transform(f, np.ones((1, 3), np.float32)) + 1.0)
            rg = np.stack([f[..., 2] * inv, f[..., 1] * inv], axis=0)  # (2, H, W)
            rg = (
                rg.reshape(2, rows, h2, tpr, h2)
                .transpose(0, 1, 3, 2, 4)
                .reshape(2, rows * tpr, h2 * h2)
            )
            rg = rg[:, :n][:, :, self._disc_half]
            kh = int(self._disc_half.sum())
            tint = np.partition(rg, kh // 2, axis=2)[:, :, kh // 2].T.astype(np.float64)
            if self.reference is None:
                bg_gray, keep = _smooth_background(region.points, gray)
                bg_tint = _fit_surface(region.points, tint, keep)
            else:
                bg_gray, bg_tint = gray, tint  # replaced by the reference below
            k_ = len(parts)
            parts.append(
                (gray, tint, bg_gray, bg_tint, lines_of[k_], valley_of[k_], ref_of[k_], ring_of[k_])
            )
        gray, tint, bg_gray, bg_tint, lines, valley, valley_ref, ring = (
            np.concatenate([p[i] for p in parts]) for i in range(8)
        )
        if not self._in_order:
            inv_order = np.empty_like(self._order)
            inv_order[self._order] = np.arange(len(self._order))
            gray, tint, bg_gray, bg_tint, lines, valley, valley_ref, ring = (
                a[inv_order]
                for a in (gray, tint, bg_gray, bg_tint, lines, valley, valley_ref, ring)
            )
        same = None
        if self.reference is not None:
            # today's light over calibration light, from the (mostly empty) spots themselves
            ref_g, ref_t = self.reference.gray, self.reference.tint
            bg_gray = ref_g * float(np.median(gray / np.maximum(ref_g, 1.0)))
            bg_tint = ref_t + np.median(tint - ref_t, axis=0)
            if self.reference.patches is not None:
                same = _correlate(self.patches(flats), self.reference.patches)
        return Features(
            gray=gray,
            tint=tint,
            bg_gray=bg_gray,
            bg_tint=bg_tint,
            lines=lines,
            same=same,
            valley=valley,
            valley_ref=valley_ref,
            ring=ring,
        )

    def _shrunk(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, the grey box around it, shrunk by area averaging to ~cell px per unit."""
        out = []
        for x0, y0, x1, y1, factor in self._boxes:
            roi = image[y0:y1, x0:x1]
            if factor > 1:
                roi = np.asarray(
                    cv2.resize(
                        roi,
                        ((x1 - x0) // factor, (y1 - y0) // factor),
                        interpolation=cv2.INTER_AREA,
                    ),
                    np.uint8,
                )
            out.append(np.asarray(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), np.uint8))
        return out

    def _flats(
        self, image: Image, shrunk: list[NDArray[np.uint8]] | None = None
    ) -> list[NDArray[np.uint8]]:
        """Per region, the grey mosaic of tiles centred on the points themselves (grid lines)."""
        boxes = self._shrunk(image) if shrunk is None else shrunk
        return [
            np.asarray(
                cv2.remap(g, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.uint8
            )
            for g, (m1, m2, _) in zip(boxes, self._flat_maps, strict=True)
        ]

    def _rings(self, shrunk: list[NDArray[np.uint8]]) -> list[NDArray[np.float64]]:
        """Per region and spot: how clearly brightness drops all round at a stone's rim.

        Samples :data:`RING_ANGLES` rays from where a stone would show, at radii
        :data:`RING_RADII`; per ray the largest drop over :data:`RING_STEP` radii going outward
        (a white stone's edge, its rim or its shadow), then a low order statistic over the rays:
        a stone's outline is round and closed, while grid lines run *along* the rays, and a
        neighbour's rim, a finger or a sleeve's edge only crosses some of them. Grey levels.
        """
        out = []
        j = RING_STEP
        for g, (m1, m2) in zip(shrunk, self._ring_maps, strict=True):
            smp = cv2.remap(g, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            smp = smp.astype(np.int16).reshape(-1, RING_ANGLES, len(RING_RADII))
            drop = smp[:, :, 0] - smp[:, :, j]
            for r in range(1, len(RING_RADII) - j):
                drop = np.maximum(drop, smp[:, :, r] - smp[:, :, r + j])
            out.append(np.partition(drop, RING_LOW, axis=1)[:, RING_LOW].astype(np.float64))
        return out

    def patches(
        self, flats: list[NDArray[np.uint8]] | None = None, image: Image | None = None
    ) -> NDArray[np.uint8]:
        """(n, 8, 8) board-plane patches at every point, in observation order."""
        if flats is None:
            if image is None:
                raise VisionError("patches need an image or flat mosaics")
            check_image(image)
            flats = self._flats(image)
        out = []
        p = PATCH_SIDE
        lo = (self.cell - p) // 2  # the central half unit: neighbouring stones stay out
        for flat, (_, _, tpr), region in zip(flats, self._flat_maps, self.regions, strict=True):
            rows = flat.shape[0] // self.cell
            t = flat.reshape(rows, self.cell, tpr, self.cell).transpose(0, 2, 1, 3)
            t = t.reshape(rows * tpr, self.cell, self.cell)[:, lo : lo + p, lo : lo + p]
            out.append(t[: len(region.points)])
        allp = np.concatenate(out)
        if not self._in_order:
            inv_order = np.empty_like(self._order)
            inv_order[self._order] = np.arange(len(self._order))
            allp = allp[inv_order]
        patches: NDArray[np.uint8] = allp
        return patches


def _correlate(a: NDArray[np.uint8], b: NDArray[np.uint8]) -> NDArray[np.float64]:
    """Per-spot normalised cross-correlation of two (n, p, p) patch stacks (0 where flat)."""
    x = a.reshape(len(a), -1).astype(np.float64)
    y = b.reshape(len(b), -1).astype(np.float64)
    x -= x.mean(axis=1, keepdims=True)
    y -= y.mean(axis=1, keepdims=True)
    den = np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
    # a reference patch with no structure (lines too faint) says nothing: correlation 0
    ok = np.sqrt((y * y).mean(axis=1)) > 3.0
    return np.where(ok & (den > 0), (x * y).sum(axis=1) / np.maximum(den, 1e-9), 0.0)


def _ring_maps(
    H: NDArray[np.float64], centres: NDArray[np.float64], scale: float
) -> tuple[NDArray[np.int16], NDArray[np.uint16]]:
    """``cv2.remap`` maps: per spot, :data:`RING_ANGLES` rays of :data:`RING_RADII` samples."""
    from companion.vision.geometry import project

    th = np.arange(RING_ANGLES) * (2.0 * np.pi / RING_ANGLES)
    rays = np.stack([np.cos(th), np.sin(th)], axis=1)  # (K, 2)
    pts = (
        centres[:, None, None, :]
        + (RING_RADII * scale)[None, None, :, None] * rays[None, :, None, :]
    )  # (n, K, J, 2)
    uv = project(H, pts.reshape(-1, 2)).astype(np.float32)
    uv = uv.reshape(len(centres), RING_ANGLES * len(RING_RADII), 2)  # wide rows remap fastest
    m1, m2 = cv2.convertMaps(uv[..., 0].copy(), uv[..., 1].copy(), cv2.CV_16SC2)
    return np.asarray(m1, np.int16), np.asarray(m2, np.uint16)


def _disc(cell: int) -> NDArray[np.bool_]:
    """Flat mask of the sample disc (radius :data:`DISC` units) in a ``cell`` x ``cell`` tile."""
    yy, xx = np.mgrid[0:cell, 0:cell]
    c = (cell - 1) / 2.0
    disc: NDArray[np.bool_] = (np.hypot(yy - c, xx - c) / cell <= DISC).ravel()
    return disc


def _box(region: Region, image_size: tuple[int, int], factor: int) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) around a region and a unit beyond, sides multiples of factor."""
    from companion.vision.geometry import project

    p = region.points
    corners = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]) * region.scale
    ring = (p[None, :, :] + corners[:, None, :]).reshape(-1, 2)
    q = project(region.H, ring)
    w, h = image_size
    x0 = int(np.clip(np.floor(q[:, 0].min()), 0, w - 1))
    y0 = int(np.clip(np.floor(q[:, 1].min()), 0, h - 1))
    x1 = int(np.clip(np.ceil(q[:, 0].max()) + 1, x0 + factor, w))
    y1 = int(np.clip(np.ceil(q[:, 1].max()) + 1, y0 + factor, h))
    x1 = x0 + max(factor, (x1 - x0) // factor * factor)
    y1 = y0 + max(factor, (y1 - y0) // factor * factor)
    return x0, y0, x1, y1


def _spacing_px(region: Region) -> float:
    """Typical distance in pixels between neighbouring points of a region (median)."""
    from companion.vision.geometry import project

    p = region.points
    q = project(region.H, p)
    q2 = project(region.H, p + np.array([1.0, 0.0]))
    return float(np.median(np.linalg.norm(q2 - q, axis=1)))


def _line_contrast(
    mosaic: NDArray[np.uint8], cell: int, tpr: int, n: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per tile: how clearly straight grid lines cross near its centre, both ways (0..1).

    Returns the contrast described below (the weaker direction) and the *valley* per
    direction, (n, 2): horizontal lines, then vertical ones.

    For each direction and each half of the tile (so edge points, whose lines stop at the
    centre, still count): the darkest row within 0.3 of a spacing of the centre (corners may be
    a little off), then how much darker than the tile's level that row is in the weaker quarter
    of the columns -- a straight line is dark all along, a stone's rim only in places. The
    better half counts; the weaker direction is returned, since anything lying on the point
    (a stone, a hand) hides both lines.
    """
    rows = mosaic.shape[0] // cell
    t = mosaic.reshape(rows, cell, tpr, cell).transpose(0, 2, 1, 3).reshape(rows * tpr, cell, cell)
    t = t[:n].astype(np.float32)
    both = np.concatenate([t, t.transpose(0, 2, 1)])  # horizontal lines, then vertical ones
    m = len(both)
    idx = np.arange(cell) - (cell - 1) / 2.0
    near = np.abs(idx) <= 0.3 * cell
    lo = np.flatnonzero((idx < -0.1 * cell) & (idx > -0.45 * cell))
    hi = np.flatnonzero((idx > 0.1 * cell) & (idx < 0.45 * cell))
    part = np.stack([both[:, :, lo], both[:, :, hi]], axis=1)  # (m, 2 halves, rows, cols)
    prof = part.mean(axis=3)  # (m, 2, rows)
    level = np.partition(prof, cell // 2, axis=2)[:, :, cell // 2]
    y = np.argmin(np.where(near, prof, np.inf), axis=2)  # (m, 2)
    band = np.full(part.shape[:2] + part.shape[3:], np.inf, dtype=np.float32)
    ii = np.arange(m)[:, None]
    hh = np.arange(2)[None, :]
    for d in (-1, 0, 1):
        band = np.minimum(band, part[ii, hh, np.clip(y + d, 0, cell - 1)])
    dip = level[:, :, None] - band  # (m, 2, cols)
    q = dip.shape[2] // 4
    # relative to the brighter of the tile and the typical tile (the board), so that a dark
    # stone's small ripples do not pass for lines
    board = float(np.median(level))
    norm = np.maximum(level, max(board, 1.0))
    strength = _low(list(np.moveaxis(dip, 2, 0)), q) / norm
    best = strength.max(axis=1)
    # The valley: a row darker than the rows VALLEY_STEP pixels above *and* below it, all
    # along. A stone's shading (a smooth slope, or its rim seen from inside) is darker on
    # one side only, so it gives no valley where the darkest-row contrast above still sees
    # a "line".
    d = VALLEY_STEP
    ys = np.flatnonzero(near)
    y0, y1 = max(int(ys[0]), d), min(int(ys[-1]) + 1, cell - d)
    cols = np.moveaxis(part, 3, 0)  # (cols, m, 2, rows): columns first, for the order statistic
    valley = np.minimum(cols[..., y0 - d : y1 - d], cols[..., y0 + d : y1 + d]) - cols[..., y0:y1]
    vq = _low(list(valley), q).max(axis=2) / norm
    vbest = vq.max(axis=1)
    return (
        np.minimum(best[:n], best[n:]).astype(np.float64),
        np.stack([vbest[:n], vbest[n:]], axis=1).astype(np.float64),
    )


def _low(values: list[NDArray[np.float32]], q: int) -> NDArray[np.float32]:
    """Elementwise ``q``-th smallest (0-based) across equally shaped arrays.

    The second smallest of a few is computed as min over j of max(v_j, min of the others):
    much faster than ``np.partition`` along a short last axis.
    """
    if q != 1 or len(values) < 2:
        low: NDArray[np.float32] = np.partition(np.stack(values), q, axis=0)[q]
        return low
    pre: list[NDArray[np.float32] | None] = [None]
    for v in values[:-1]:
        last = pre[-1]
        pre.append(v if last is None else np.minimum(last, v))
    suf: list[NDArray[np.float32] | None] = [None]
    for v in values[:0:-1]:
        last = suf[-1]
        suf.append(v if last is None else np.minimum(last, v))
    suf.reverse()
    best: NDArray[np.float32] | None = None
    for v, a, b in zip(values, pre, suf, strict=True):
        others = a if b is None else (b if a is None else np.minimum(a, b))
        assert others is not None
        c = np.maximum(v, others)
        best = c if best is None else np.minimum(best, c)
    assert best is not None
    return best


def _local_upper(values: NDArray[np.float64], shape: tuple[int, int] | None) -> NDArray[np.float64]:
    """Per spot (and per column of ``values``), the upper quartile over the points of its kind
    near it.

    What the board nearby shows where most of it is empty: a blurred corner of the photo has
    faint lines everywhere, so a faint reading there is no sign of a stone. Points of a kind:
    inner points within two rows and columns; edge points along their own edge within four
    points (edge lines differ, and a lens bends them off their points); corners with the
    edge points next to them. Where stones crowd the points around, half of what the points of
    the kind show over the whole board (inner; edge and corner) counts instead. Maps (no
    grid) use the upper quartile over all spots. NaN values count as lowest.
    """
    vals = np.where(np.isnan(values), -np.inf, values)
    if shape is None or min(shape) < 4:
        return np.broadcast_to(_upper(vals), vals.shape).copy()
    idx, groups = _kin(shape)
    cols = vals.reshape(len(vals), -1).T  # (columns, n): gathers and partitions run along rows
    ext = np.concatenate([cols, np.full((len(cols), 1), -np.inf)], axis=1)
    pick = np.take(ext, idx, axis=1, mode="clip")  # (columns, n, L); far faster than ext[:, idx]
    local_t = np.empty(cols.shape)
    last = idx.shape[1] - 1
    for rows, k in groups:  # spots with as many points of their kind around: same rank
        local_t[:, rows] = np.partition(pick[:, rows], last - k, axis=2)[:, :, last - k]
    local = local_t.T.reshape(vals.shape)  # (the k-th largest: the upper quartile)
    h, w = shape
    inner = np.zeros((h, w), dtype=bool)
    inner[1:-1, 1:-1] = True
    inner = inner.reshape(-1)
    board = np.empty_like(local)
    for part in (inner, ~inner):
        board[part] = _upper(vals[part])
    return np.maximum(local, VALLEY_FALLBACK * board)


def _upper(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Upper quartile along axis 0 (a lower order statistic: cheaper than ``np.percentile``)."""
    k = (3 * (len(values) - 1)) // 4
    upper: NDArray[np.float64] = np.partition(values, k, axis=0)[k]
    return upper


@functools.lru_cache(maxsize=16)
def _kin(
    shape: tuple[int, int],
) -> tuple[NDArray[np.intp], list[tuple[NDArray[np.intp], int]]]:
    """For :func:`_local_upper`: per spot, the spots of its kind near it (padded with ``n``),
    and the spots grouped by the rank of their upper quartile among those."""
    h, w = shape
    kind = np.zeros((h, w), dtype=np.int8)  # 0 inner, 1 top/bottom edge, 2 left/right, 3 corner
    kind[[0, -1], :] = 1
    kind[:, [0, -1]] = 2
    kind[[0, 0, -1, -1], [0, -1, 0, -1]] = 3
    lists: list[list[int]] = []
    for r in range(h):
        for c in range(w):
            k = kind[r, c]
            if k == 0:
                cand = [
                    (rr, cc)
                    for rr in range(r - 2, r + 3)
                    for cc in range(c - 2, c + 3)
                    if 0 <= rr < h and 0 <= cc < w and kind[rr, cc] == 0
                ]
            else:
                cand = []
                if k in (1, 3):  # along its row (a top or bottom edge)
                    cand += [(r, cc) for cc in range(max(0, c - 4), min(w, c + 5))]
                if k in (2, 3):  # along its column
                    cand += [(rr, c) for rr in range(max(0, r - 4), min(h, r + 5))]
                cand = sorted({(rr, cc) for rr, cc in cand if kind[rr, cc] != 0})
            lists.append([rr * w + cc for rr, cc in cand])
    width = max(len(v) for v in lists)
    idx = np.full((h * w, width), h * w, dtype=np.intp)
    for i, v in enumerate(lists):
        idx[i, : len(v)] = v
    rank = np.array([len(v) // 4 for v in lists], dtype=np.intp)
    return idx, [(np.flatnonzero(rank == k), int(k)) for k in np.unique(rank)]


def check_image(image: object) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise VisionError("expected a colour (BGR) image")
    if image.dtype != np.uint8 or image.shape[0] < 8 or image.shape[1] < 8:
        raise VisionError("expected an 8-bit image of at least 8x8 pixels")
