"""Per-spot stone reading: black, white, empty or unknown, each with a confidence.

A :class:`StoneReader` is built once per camera view (the board regions and the frame size) and
reads frames: it cuts each grid region's *board view* (the board rectified by its corners) with
one precomputed remap, runs the learned classifier over it (:mod:`companion.vision.stone_net`),
and keeps a reading only where the calibrated confidence clears the bar. Spots covered by a hand
(the classifier's fourth class) read ``?``, and so do the spots around a patch of covered ones:
the edge of a hand half-covers them. No board look is fitted: the network judges each point
against its own surroundings.

The hand-made measurements (brightness, tint, grid lines) that calibration profiles save live in
:mod:`companion.vision.stone_cues`; the stone-offset model in :mod:`companion.vision.stone_offset`.

Contract: :class:`StoneReader` and :func:`read_board` raise :class:`VisionError` for an
unusable image or corners; they never invent a reading for a spot they cannot see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.observation import UNKNOWN, Observation
from companion.vision.geometry import (
    NO_OFFSET,
    Corners,
    Offset,
    as_corners,
    homography,
)
from companion.vision.stone_cues import (
    DEFAULT_CELL,
    PATCH_SIDE,
    CueMeter,
    EmptyBoard,
    Features,
    check_image,
)
from companion.vision.stone_net import CONFIDENT, Cutter, StoneNet, decide
from companion.vision.stone_offset import estimate_offset

Image = NDArray[np.uint8]
PATCH = 3  # adjacent covered spots that make a hand: the spots around them read ``?`` too
SURE = 0.995  # ... unless the classifier is at least this sure of them


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
    offset: Offset = NO_OFFSET
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
        offset: Offset = NO_OFFSET,
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


class StoneReader:
    """Reads one camera's view of one board; build once, call :meth:`read` per frame.

    All geometry (remap tables) is precomputed here, so :meth:`read` is one remap per region
    and one pass of the network. ``reference`` (a profile's saved empty-board look) is kept for
    :meth:`features` only: the classifier needs no board look.
    """

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        cell: int = DEFAULT_CELL,
        reference: EmptyBoard | None = None,
        threshold: float = CONFIDENT,
        net: StoneNet | None = None,
    ) -> None:
        self.regions = tuple(regions)
        self.image_size = image_size  # (width, height)
        self.cell = cell
        self.reference = reference
        self.threshold = threshold
        self.n = sum(len(r.spots) for r in self.regions)
        self._order = np.concatenate([np.asarray(r.spots, dtype=np.int64) for r in self.regions])
        if sorted(self._order.tolist()) != list(range(self.n)):
            raise VisionError("regions must cover spots 0..n-1 exactly once")
        self.neighbours = _neighbours(self.regions, self.n)
        self._cutters = [
            Cutter.grid(r.H, r.shape[1], r.shape[0], image_size)
            if r.shape is not None
            else Cutter.patches(r.H, r.points, r.scale, image_size)
            for r in self.regions
        ]
        self.net = net or StoneNet()
        self._meter: CueMeter | None = None

    def __repr__(self) -> str:
        return f"<StoneReader {self.n} spots in {len(self.regions)} region(s)>"

    @property
    def meter(self) -> CueMeter:
        """The hand-made measurements of the same view (built on first use)."""
        if self._meter is None:
            self._meter = CueMeter(
                self.regions, self.image_size, cell=self.cell, reference=self.reference
            )
        return self._meter

    def features(self, image: Image) -> Features:
        """Brightness, tint and grid-line measurements per spot (for calibration profiles)."""
        return self.meter.features(image)

    def patches(
        self, flats: list[NDArray[np.uint8]] | None = None, image: Image | None = None
    ) -> NDArray[np.uint8]:
        """(n, 8, 8) board-plane patches at every point, in observation order."""
        return self.meter.patches(flats, image)

    def views(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, what the network sees: the board view (grids) or stacked patches."""
        check_image(image)
        if image.shape[1] < self.image_size[0] or image.shape[0] < self.image_size[1]:
            raise VisionError("the frame is smaller than the one the reader was made for")
        return [cut(image) for cut in self._cutters]

    def probabilities(self, image: Image) -> NDArray[np.float32]:
        """(n, 4) class probabilities per spot, in observation order."""
        out = np.empty((self.n, 4), dtype=np.float32)
        for view, region in zip(self.views(image), self.regions, strict=True):
            if region.shape is not None:
                p = self.net.grid(view, region.shape[1], region.shape[0])
            else:
                p = self.net.patches(view)
            out[np.asarray(region.spots, dtype=np.int64)] = p
        return out

    def read(self, image: Image, *, source: str = "camera") -> Observation:
        """Classify every spot; ``?`` where the classifier is unsure or the spot is covered."""
        t0 = time.perf_counter()
        probs = self.probabilities(image)
        states, conf = decide(probs, self.threshold)
        out = np.array(states, dtype="<U1")
        covered = probs.argmax(axis=1) == 3
        _unknown_patches(out, conf, covered, self.neighbours)
        return Observation(
            states=tuple(out.tolist()),
            confidence=tuple(np.clip(conf, 0.0, 1.0).tolist()),
            timestamp=time.monotonic(),
            source=source,
            extra={"seconds": time.perf_counter() - t0, "probabilities": probs},
        )


def _neighbours(regions: Sequence[Region], n: int) -> list[list[int]]:
    """Spots around each spot (8-neighbourhood on grids; within 1.6 spacings on maps)."""
    out: list[list[int]] = [[] for _ in range(n)]
    for region in regions:
        pts = region.points
        reach = 1.5 if region.shape is not None else 1.6 * region.scale
        d = np.abs(pts[:, None, :] - pts[None, :, :]).max(axis=2)
        close = (d <= reach) & (d > 0)
        for a, b in zip(*np.nonzero(close), strict=True):
            out[region.spots[a]].append(region.spots[b])
    return out


def _unknown_patches(
    out: NDArray[np.str_],
    conf: NDArray[np.float64],
    covered: NDArray[np.bool_],
    neighbours: Sequence[Sequence[int]],
) -> None:
    """Every patch of ``PATCH`` or more adjacent covered spots makes the spots around it ``?``."""
    seen = np.zeros(len(out), dtype=bool)
    for start in np.flatnonzero(covered):
        if seen[start]:
            continue
        group, stack = [], [int(start)]
        seen[start] = True
        while stack:
            i = stack.pop()
            group.append(i)
            for j in neighbours[i]:
                if covered[j] and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        if len(group) >= PATCH:
            for i in group:
                for j in neighbours[i]:
                    if conf[j] < SURE:
                        out[j] = UNKNOWN
                        conf[j] = 0.0


def read_board(
    image: Image,
    corners: Corners | Sequence[Sequence[float]],
    size: int,
    *,
    source: str = "photo",
) -> Observation:
    """Read a ``size`` x ``size`` board whose corner intersections are ``corners`` (TL,TR,BR,BL)."""
    check_image(image)
    h, w = image.shape[:2]
    region = Region.grid(corners, size)
    reader = StoneReader([region], (w, h))
    return reader.read(image, source=source)


__all__ = [
    "PATCH_SIDE",
    "EmptyBoard",
    "Features",
    "Image",
    "Region",
    "StoneReader",
    "estimate_offset",
    "read_board",
]
