"""Per-spot stone reading: black, white, empty or unknown, each with a confidence.

How it reads (classic OpenCV, no model): :mod:`companion.vision.stone_cues` measures every
spot relative to the board around it (brightness, tint, grid lines crossing the point, a
stone's round outline) against a light model or a calibration profile's saved empty look;
:mod:`companion.vision.stone_bands` turns those cues into black, white, empty or ``?``;
:mod:`companion.vision.stone_offset` measures where stones show in an oblique view. This module
holds the board's regions and the public reader, and re-exports the names callers use.

Contract: :class:`StoneReader` and :func:`read_board` raise :class:`VisionError` for an
unusable image or corners; they never invent a reading for a spot they cannot see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from companion.observation import Observation
from companion.vision.geometry import (
    NO_OFFSET,
    Corners,
    Offset,
    as_corners,
    homography,
)
from companion.vision.stone_bands import classify
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
from companion.vision.stone_offset import STONE_RADIUS, estimate_offset

__all__ = [
    "COVERED",
    "DEFAULT_CELL",
    "PATCH_SIDE",
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
    "classify",
    "estimate_offset",
    "read_board",
]


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
    the spots around each spot, for the decision's hand patches.
    """

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        cell: int = DEFAULT_CELL,
        reference: EmptyBoard | None = None,
    ) -> None:
        super().__init__(regions, image_size, cell=cell, reference=reference)
        self.neighbours = _neighbours(self.regions, self.n)

    def __repr__(self) -> str:
        return f"<StoneReader {self.n} spots in {len(self.regions)} region(s), cell {self.cell}px>"

    def read(self, image: Image, *, source: str = "camera") -> Observation:
        """Classify every spot; ``?`` where the evidence is between the clear bands."""
        t0 = time.perf_counter()
        f = self.features(image)
        states, conf = classify(f, self.neighbours)
        return Observation(
            states=tuple(states),
            confidence=tuple(conf.tolist()),
            timestamp=time.monotonic(),
            source=source,
            extra={"seconds": time.perf_counter() - t0},
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
    region = region.with_offset(estimate_offset(image, region))
    reader = StoneReader([region], (w, h))
    obs = reader.read(image, source=source)
    obs.extra["offset"] = region.offset.to_json()
    return obs
