"""One photo in, one reading out: corners (given, from a profile, or found), then stones.

This is what ``companion read`` and ``companion eval-photos`` call. Manual corners always
override a profile, and a profile overrides board finding.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.errors import VisionError
from companion.observation import Observation
from companion.vision.find_board import find_board
from companion.vision.geometry import Corners, as_corners
from companion.vision.read_stones import (
    DEFAULT_READER,
    Image,
    Region,
    StoneReader,
    check_reader,
    estimate_offset,
)
from companion.vision.stone_net import StoneNet


@dataclass(frozen=True)
class Reading:
    """A read photo: the observation, the grid used and how it was obtained."""

    observation: Observation
    size: int
    corners: Corners
    corners_from: str  # "given", "profile" or "found"
    seconds: float

    def rows(self) -> list[str]:
        return self.observation.rows(self.size)

    def to_json(self) -> dict[str, object]:
        n = self.size
        conf = self.observation.confidence
        return {
            "size": n,
            "rows": self.rows(),
            "confidence": [[round(c, 3) for c in conf[i : i + n]] for i in range(0, n * n, n)],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "corners_from": self.corners_from,
            "unknown": self.observation.unknown,
            "seconds": round(self.seconds, 4),
        }


def read_photo(
    image: Image,
    *,
    size: int | None = None,
    corners: Sequence[Sequence[float]] | Corners | None = None,
    reader: str = DEFAULT_READER,
    model: bytes | None = None,
) -> Reading:
    """Read a square board in ``image``.

    ``corners`` (TL, TR, BR, BL corner intersections) need ``size`` (default 19). Without
    corners the board is found (:class:`BoardNotFound` if there is none). ``reader``: which
    stone reader (:data:`~companion.vision.read_stones.READERS`); ``model``: ONNX bytes of a
    stone classifier other than the bundled one (the ``net`` reader only).
    """
    check_reader(reader)
    if model is not None and reader != "net":
        raise VisionError("a stone model is read by the net reader only")
    t0 = time.perf_counter()
    if not isinstance(image, np.ndarray) or image.ndim != 3:
        raise VisionError("expected a colour image")
    if corners is not None:
        quad = as_corners(corners)
        n = size or 19
        source = "given"
    else:
        found = find_board(image, size=size)
        quad, n, source = found.corners, found.size, "found"
    region = Region.grid(quad, n)
    if reader == "classic":
        region = region.with_offset(estimate_offset(image, region))
    h, w = image.shape[:2]
    net = StoneNet(model) if model is not None else None
    stones = StoneReader([region], (w, h), reader=reader, net=net)
    obs = stones.read(image, source=f"photo ({source} corners)")
    return Reading(
        observation=obs,
        size=n,
        corners=quad,
        corners_from=source,
        seconds=time.perf_counter() - t0,
    )
