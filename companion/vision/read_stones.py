"""Per-spot stone reading: black, white, empty or unknown, each with a confidence.

Two readers, chosen by name (:data:`READERS`; a calibration profile's ``reader`` or
``--reader``):

- ``classic`` (OpenCV, no model): :mod:`companion.vision.stone_cues` measures every spot
  relative to the board around it (brightness, tint, grid lines crossing the point, a stone's
  round outline) against a light model or a profile's saved empty look;
  :mod:`companion.vision.stone_bands` turns those cues into black, white, empty or ``?``;
  :mod:`companion.vision.stone_offset` measures where stones show in an oblique view.
- ``net``: the learned classifier (:mod:`companion.vision.stone_net`) runs over each grid's
  *board view* (the board rectified by its corners, cut with one precomputed remap) and keeps a
  reading only where its calibrated confidence clears the bar. Covered spots (a hand, its
  fourth class) read ``?``, and so do the spots around a patch of covered ones.

This module holds the board's regions and the public reader, and re-exports the names callers
use. Contract: :class:`StoneReader` and :func:`read_board` raise :class:`VisionError` for an
unusable image, corners or reader name; they never invent a reading for a spot they cannot see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.observation import Observation
from companion.vision.geometry import (
    NO_OFFSET,
    Corners,
    Offset,
    as_corners,
    homography,
)
from companion.vision.stone_bands import classify, unknown_around_patches
from companion.vision.stone_cues import (
    COVERED,
    DEFAULT_CELL,
    PATCH_SIDE,
    RING_MIN,
    VISIBLE,
    CueMeter,
    EmptyBoard,
    Features,
    Image,
    _local_upper,
    _low,
    check_image,
)
from companion.vision.stone_net import CONFIDENT, Cutter, StoneNet, decide
from companion.vision.stone_offset import STONE_RADIUS, estimate_offset

__all__ = [
    "COVERED",
    "DEFAULT_CELL",
    "DEFAULT_READER",
    "PATCH_SIDE",
    "READERS",
    "RING_MIN",
    "STONE_RADIUS",
    "VISIBLE",
    "EmptyBoard",
    "Features",
    "Image",
    "Region",
    "StoneReader",
    "_local_upper",
    "_low",
    "check_reader",
    "classify",
    "estimate_offset",
    "read_board",
]

#: The readers by name: the hand-made cues and bands, and the learned classifier.
READERS = ("classic", "net")
DEFAULT_READER = "net"
PATCH = 3  # net: adjacent covered spots that make a hand; the spots around them read ``?`` too
SURE = 0.995  # ... unless the classifier is at least this sure of them


def check_reader(name: object) -> str:
    """``name`` if it is one of :data:`READERS`, else :class:`VisionError` saying which are."""
    if not isinstance(name, str) or name not in READERS:
        raise VisionError(f"unknown reader {name!r}: expected one of {', '.join(READERS)}")
    return name


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


class StoneReader(CueMeter):
    """Reads one camera's view of one board; build once, call :meth:`read` per frame.

    The measuring (remap tables, disc masks, precomputed here) is :class:`CueMeter`'s; this adds
    the spots around each spot (hand patches) and, for the ``net`` reader, the board views' remap
    tables and the network. ``reference`` (a profile's saved empty-board look) is the classic
    reader's; the network needs no board look.
    """

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        cell: int = DEFAULT_CELL,
        reference: EmptyBoard | None = None,
        reader: str = DEFAULT_READER,
        net: StoneNet | None = None,
        threshold: float = CONFIDENT,
    ) -> None:
        self.kind = check_reader(reader)
        super().__init__(regions, image_size, cell=cell, reference=reference)
        self.neighbours = _neighbours(self.regions, self.n)
        self.threshold = threshold
        self._cutters: list[Cutter] = []
        self.net: StoneNet | None = None
        if self.kind == "net":
            self._cutters = [
                Cutter.grid(r.H, r.shape[1], r.shape[0], image_size)
                if r.shape is not None
                else Cutter.patches(r.H, r.points, r.scale, image_size)
                for r in self.regions
            ]
            self.net = net or StoneNet()

    def __repr__(self) -> str:
        return (
            f"<StoneReader {self.kind}: {self.n} spots in {len(self.regions)} region(s), "
            f"cell {self.cell}px>"
        )

    def read(self, image: Image, *, source: str = "camera") -> Observation:
        """Classify every spot; ``?`` where the evidence is unclear or the spot is covered."""
        t0 = time.perf_counter()
        extra: dict[str, object] = {}
        if self.kind == "net":
            probs = self.probabilities(image)
            states, conf = _net_decision(probs, self.threshold, self.neighbours)
            extra["probabilities"] = probs
        else:
            states, conf = classify(self.features(image), self.neighbours)
        return Observation(
            states=tuple(states),
            confidence=tuple(np.clip(conf, 0.0, 1.0).tolist()),
            timestamp=time.monotonic(),
            source=source,
            extra={"seconds": time.perf_counter() - t0, **extra},
        )

    def views(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, what the network sees: the board view (grids) or stacked patches."""
        if self.net is None:
            raise VisionError("the classic reader has no board views")
        check_image(image)
        if image.shape[1] < self.image_size[0] or image.shape[0] < self.image_size[1]:
            raise VisionError("the frame is smaller than the one the reader was made for")
        return [cut(image) for cut in self._cutters]

    def probabilities(self, image: Image) -> NDArray[np.float32]:
        """(n, 4) class probabilities per spot from the network, in observation order."""
        views = self.views(image)
        assert self.net is not None  # views() refused the classic reader
        out = np.empty((self.n, 4), dtype=np.float32)
        for view, region in zip(views, self.regions, strict=True):
            if region.shape is not None:
                p = self.net.grid(view, region.shape[1], region.shape[0])
            else:
                p = self.net.patches(view)
            out[np.asarray(region.spots, dtype=np.int64)] = p
        return out


def _net_decision(
    probs: NDArray[np.float32], threshold: float, neighbours: Sequence[Sequence[int]]
) -> tuple[list[str], NDArray[np.float64]]:
    """The network's tokens: confident classes kept, covered patches widened to ``?``."""
    states, conf = decide(probs, threshold)
    out = np.array(states, dtype="<U1")
    unknown_around_patches(out, conf, probs.argmax(axis=1) == 3, neighbours, size=PATCH, sure=SURE)
    return out.tolist(), conf


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


def read_board(
    image: Image,
    corners: Corners | Sequence[Sequence[float]],
    size: int,
    *,
    source: str = "photo",
    reader: str = DEFAULT_READER,
) -> Observation:
    """Read a ``size`` x ``size`` board whose corner intersections are ``corners`` (TL,TR,BR,BL).

    The classic reader first measures where stones show (the offset model); the network's
    patch already covers wherever a stone's top can sit.
    """
    check_image(image)
    check_reader(reader)
    h, w = image.shape[:2]
    region = Region.grid(corners, size)
    if reader == "classic":
        region = region.with_offset(estimate_offset(image, region))
    obs = StoneReader([region], (w, h), reader=reader).read(image, source=source)
    obs.extra["offset"] = region.offset.to_json()
    return obs
