"""Per-spot stone reading: black, white, empty or unknown, each with a confidence.

How it reads (classic OpenCV, no model):

1. One ``cv2.remap`` cuts a small square *tile* around every spot, taken on the plane at
   mid-stone height (see :mod:`companion.vision.geometry`), so that in an oblique view the tile
   is centred on the stone as the camera sees it, not on the hidden intersection.
2. Per tile: the median brightness and the median colourfulness (chroma) in a central disc;
   medians ignore grid lines, star points and a glare spot on a black stone.
3. A *light model*: a smooth quadratic surface of empty-board brightness and chroma over the
   board, fitted robustly (stones are outliers) -- or, with a calibration profile, the saved
   empty-board appearance of every spot scaled to today's light. Dim, uneven or coloured light
   changes board and stones alike, so stones are judged *relative to the board around them*.
4. Black is much darker than the board; white is brighter and/or much less colourful than the
   board, or stands out from the saved empty appearance. Anything between the clear bands is
   ``?``: a wrong colour is far worse than unknown.

Contract: :func:`read_board` raises :class:`VisionError` for an unusable image (empty, wrong
type) or corners; it never invents a reading for a spot it cannot see (those come back ``?``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.observation import BLACK, EMPTY, UNKNOWN, WHITE, Observation
from companion.vision.geometry import (
    Corners,
    Offset,
    as_corners,
    homography,
    tile_maps,
    warp_board,
)

Image = NDArray[np.uint8]

DEFAULT_CELL = 16  # tile side in pixels
DISC = 0.36  # sample disc radius, board units (a stone's radius is ~0.48)
STONE_RADIUS = 0.47  # board units


@dataclass(frozen=True)
class Region:
    """Spots that share one board plane: a homography (board units -> pixels) and their points.

    ``spots[i]`` is the observation index of board point ``points[i]``. A stacked pair is two
    regions; a hand-placed map is one region whose "board units" are pixels (``H`` = identity,
    ``scale`` the spot spacing in pixels). ``offset`` says where stones show relative to their
    points (oblique views); ``shape`` is (height, width) for grid regions, None for maps.
    """

    H: NDArray[np.float64]
    points: NDArray[np.float64]
    spots: tuple[int, ...]
    offset: Offset = Offset()
    scale: float = 1.0
    shape: tuple[int, int] | None = None

    @classmethod
    def grid(
        cls,
        corners: Corners | Sequence[Sequence[float]],
        width: int,
        height: int | None = None,
        *,
        first_spot: int = 0,
        offset: Offset = Offset(),
    ) -> Region:
        h = width if height is None else height
        rr, cc = np.mgrid[0:h, 0:width]
        pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
        return cls(
            H=homography(as_corners(corners), width, h),
            points=pts,
            spots=tuple(range(first_spot, first_spot + width * h)),
            offset=offset,
            shape=(h, width),
        )

    def with_offset(self, offset: Offset) -> Region:
        return replace(self, offset=offset)


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


class StoneReader:
    """Reads one camera's view of one board; build once, call :meth:`read` per frame.

    All geometry (remap tables, disc masks) is precomputed here, so :meth:`read` is a remap and a
    few numpy reductions. ``reference`` is an optional saved empty-board appearance (gray,
    tint per spot) from a calibration profile.
    """

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        cell: int = DEFAULT_CELL,
        reference: tuple[Sequence[float], Sequence[float]] | None = None,
    ) -> None:
        self.regions = tuple(regions)
        self.image_size = image_size  # (width, height)
        self.cell = cell
        self.n = sum(len(r.spots) for r in self.regions)
        self.reference = (
            None
            if reference is None
            else (np.asarray(reference[0], float), np.asarray(reference[1], float))
        )
        self._maps: list[tuple[NDArray[np.int16], NDArray[np.uint16], int]] = []
        for region in self.regions:
            k = len(region.points)
            tpr = max(1, int(np.ceil(np.sqrt(k))))
            centres = region.points + region.offset(region.points) * region.scale
            m1, m2 = tile_maps(region.H, centres, cell=cell, tiles_per_row=tpr, scale=region.scale)
            self._maps.append((m1, m2, tpr))
        yy, xx = np.mgrid[0:cell, 0:cell]
        c = (cell - 1) / 2.0
        rr = np.hypot(yy - c, xx - c) / cell
        self._disc = (rr <= DISC).ravel()
        self._order = np.concatenate([np.asarray(r.spots, dtype=np.int64) for r in self.regions])
        self._in_order = bool(np.array_equal(self._order, np.arange(len(self._order))))
        if sorted(self._order.tolist()) != list(range(self.n)):
            raise VisionError("regions must cover spots 0..n-1 exactly once")

    def __repr__(self) -> str:
        return f"<StoneReader {self.n} spots in {len(self.regions)} region(s), cell {self.cell}px>"

    def tiles(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, an (n, cell, cell, channels) stack of tiles centred where stones show."""
        out = []
        for (m1, m2, tpr), region in zip(self._maps, self.regions, strict=True):
            big = cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            if big.ndim == 2:
                big = big[..., None]
            rows = big.shape[0] // self.cell
            ch = big.shape[2]
            t = big.reshape(rows, self.cell, tpr, self.cell, ch).transpose(0, 2, 1, 3, 4)
            out.append(t.reshape(rows * tpr, self.cell, self.cell, ch)[: len(region.points)])
        return out

    def features(self, image: Image) -> Features:
        """Measure every spot and fit the light model."""
        _check_image(image)
        parts: list[tuple[NDArray[np.float64], ...]] = []
        k = int(self._disc.sum())
        for tiles, region in zip(self.tiles(image), self.regions, strict=True):
            t = tiles.reshape(len(tiles), -1, 3)[:, self._disc, :].astype(np.float32)
            total = t.sum(axis=2)
            inv = 1.0 / (total + 1.0)
            stack = np.stack([total / 3.0, t[..., 2] * inv, t[..., 1] * inv], axis=0)  # (3, n, k)
            med = np.partition(stack, k // 2, axis=2)[:, :, k // 2].astype(np.float64)
            gray, tint = med[0], med[1:].T
            bg_gray, keep = _smooth_background(region.points, gray)
            bg_tint = _fit_surface(region.points, tint, keep)
            parts.append((gray, tint, bg_gray, bg_tint))
        gray, tint, bg_gray, bg_tint = (np.concatenate([p[i] for p in parts]) for i in range(4))
        if not self._in_order:
            inv_order = np.empty_like(self._order)
            inv_order[self._order] = np.arange(len(self._order))
            gray, tint, bg_gray, bg_tint = (a[inv_order] for a in (gray, tint, bg_gray, bg_tint))
        if self.reference is not None:
            ref_g, ref_t = self.reference
            bg_gray = ref_g * float(np.median(bg_gray / np.maximum(ref_g, 1.0)))
            bg_tint = ref_t + np.median(bg_tint - ref_t, axis=0)
        return Features(gray=gray, tint=tint, bg_gray=bg_gray, bg_tint=bg_tint)

    def read(self, image: Image, *, source: str = "camera") -> Observation:
        """Classify every spot; ``?`` where the evidence is between the clear bands."""
        t0 = time.perf_counter()
        f = self.features(image)
        states, conf = classify(f)
        return Observation(
            states=tuple(states),
            confidence=tuple(float(c) for c in conf),
            timestamp=time.monotonic(),
            source=source,
            extra={"seconds": time.perf_counter() - t0},
        )


def _check_image(image: object) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise VisionError("expected a colour (BGR) image")
    if image.dtype != np.uint8 or image.shape[0] < 8 or image.shape[1] < 8:
        raise VisionError("expected an 8-bit image of at least 8x8 pixels")


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
        coef, *_ = np.linalg.lstsq(A[keep], values[keep], rcond=None)
        fit = A @ coef
        res = values - fit
        s = float(np.median(np.abs(res[keep]))) * 1.4826 + 1.0
        keep = np.abs(res) < 2.5 * s
    return fit, keep


def _fit_surface(
    points: NDArray[np.float64], values: NDArray[np.float64], keep: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Least-squares quadratic surface(s) through ``values[keep]`` (columns fitted together)."""
    if keep.sum() < 12:
        return np.broadcast_to(np.median(values, axis=0), values.shape).copy()
    A = _design(points)
    coef, *_ = np.linalg.lstsq(A[keep], values[keep], rcond=None)
    return A @ coef


# Decision bands, relative to the board's own appearance at that spot. ``g`` is the spot's
# brightness over the board's; ``t`` how far its colour (chromaticity) is from the board's, in
# hundredths. Wood is coloured and white stones are not, so white differs in tint even where
# light makes the board as bright as a stone; glare on wood is bright but keeps the wood's tint.
BLACK_BELOW = 0.50  # g below this: black
NOT_BLACK_ABOVE = 0.70  # g above this: not black; between: unknown
WHITE_MIN = 1.05  # a white stone is at least this bright ...
WHITE_TINT = 3.0  # ... and this far from the board's tint,
WHITE_BRIGHT = 1.35  # ... or this bright whatever its tint.
EMPTY_TINT = 2.0  # board tint: empty unless brighter than WHITE_BRIGHT
EMPTY_BELOW = 1.12  # g below this with a board-like tint ... (and g above NOT_BLACK_ABOVE)


def classify(f: Features) -> tuple[list[str], NDArray[np.float64]]:
    """Token and confidence per spot from measured :class:`Features`.

    Confidence is 0.5 at the edge of a clear band and grows to 1 with the margin; unknown
    spots get 0.
    """
    g = f.gray / np.maximum(f.bg_gray, 1.0)
    t = 100.0 * np.hypot(*(f.tint - f.bg_tint).T)
    n = len(g)
    out = np.full(n, UNKNOWN, dtype="<U1")
    conf = np.zeros(n)

    black = g < BLACK_BELOW
    out[black] = BLACK
    conf[black] = 0.5 + (BLACK_BELOW - g[black]) / BLACK_BELOW

    white = (g >= WHITE_MIN) & ((t >= WHITE_TINT) | (g >= WHITE_BRIGHT))
    out[white] = WHITE
    wm = np.maximum((t - WHITE_TINT) / 3.0, (g - WHITE_BRIGHT) / 0.2)
    wm = np.minimum(wm, (g - WHITE_MIN) / 0.1)
    conf[white] = 0.5 + 0.5 * np.clip(wm[white], 0, 1)

    # Not bright enough for a white stone nor dark enough for a black one: board (maybe in a
    # stone's shadow, which tints it). Bright but board-tinted: glare on the board.
    board_tint = (t < EMPTY_TINT) & (g < WHITE_BRIGHT)
    empty = (g > NOT_BLACK_ABOVE) & ((g < 1.0) | board_tint) & ~white
    out[empty] = EMPTY
    em = np.minimum(
        np.maximum((EMPTY_TINT - t) / 1.0, (1.0 - g) / 0.05), (g - NOT_BLACK_ABOVE) / 0.1
    )
    em = np.minimum(em, np.where(g < EMPTY_BELOW, 1.0, (WHITE_BRIGHT - g) / 0.4))
    conf[empty] = 0.5 + 0.5 * np.clip(em[empty], 0, 1)
    return [str(x) for x in out], np.clip(conf, 0.0, 1.0)


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


def read_board(
    image: Image,
    corners: Corners | Sequence[Sequence[float]],
    size: int,
    *,
    source: str = "photo",
) -> Observation:
    """Read a ``size`` x ``size`` board whose corner intersections are ``corners`` (TL,TR,BR,BL)."""
    _check_image(image)
    h, w = image.shape[:2]
    region = Region.grid(corners, size)
    region = region.with_offset(estimate_offset(image, region))
    reader = StoneReader([region], (w, h))
    obs = reader.read(image, source=source)
    obs.extra["offset"] = region.offset.to_json()
    return obs
