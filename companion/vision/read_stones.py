"""Per-spot stone reading: black, white, empty or unknown, each with a confidence.

Two readers, chosen by name (:data:`READERS`; a calibration profile's ``reader`` or
``--reader``):

- ``classic`` (OpenCV, no model): :mod:`companion.vision.stone_cues` measures every spot
  relative to the board around it (brightness, tint, grid lines crossing the point, a stone's
  round outline) against a light model or a profile's saved empty look;
  :mod:`companion.vision.stone_bands` turns those cues into black, white, empty or ``?``;
  :mod:`companion.vision.stone_offset` measures where stones show in an oblique view.
- ``net``: the learned classifier (:mod:`companion.vision.stone_net`) runs over each grid's
  *board view* (the board rectified by its corners, cut with one precomputed remap), looks
  again at unsure grid spots (turned, and re-cut where a stone's top leans) and keeps a
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
from typing import Any, ClassVar

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
from companion.vision.stone_net import CONFIDENT, Cutter, StoneNet, decide, lean_shifts
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
    "ClassicReader",
    "EmptyBoard",
    "Features",
    "Image",
    "NetReader",
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


class StoneReader:
    """Reads one camera's view of one board; build once, call :meth:`read` per frame.

    ``StoneReader(regions, image_size, reader=NAME)`` builds the reader of that name, as
    ``pathlib.Path`` builds a ``PosixPath``: each reader is a small subclass
    (:class:`ClassicReader`, :class:`NetReader`) with its own :meth:`_classify`; this base holds
    what both need (the regions, the spots around each spot for hand patches) and :meth:`read`.
    Every reader takes the same options; each uses its own (``reference``, a profile's saved
    empty-board look, is the classic reader's; ``net`` and ``threshold`` are the network's).
    """

    kind: ClassVar[str] = ""
    net: StoneNet | None = None

    def __new__(
        cls, regions: Sequence[Region], image_size: tuple[int, int], **options: Any
    ) -> StoneReader:
        if cls is StoneReader:
            cls = _VARIANTS[check_reader(options.get("reader") or DEFAULT_READER)]
        return super().__new__(cls)

    def __init__(
        self,
        regions: Sequence[Region],
        image_size: tuple[int, int],
        *,
        reader: str | None = None,
        cell: int = DEFAULT_CELL,
        reference: EmptyBoard | None = None,
        net: StoneNet | None = None,
        threshold: float = CONFIDENT,
    ) -> None:
        if reader is not None and check_reader(reader) != self.kind:
            raise VisionError(f"a {self.kind} reader was asked to be the {reader} reader")
        self.regions = tuple(regions)
        self.image_size = image_size  # (width, height)
        self.n = sum(len(r.spots) for r in self.regions)
        order = sorted(s for r in self.regions for s in r.spots)
        if order != list(range(self.n)):
            raise VisionError("regions must cover spots 0..n-1 exactly once")
        self.neighbours = _neighbours(self.regions, self.n)
        self.threshold = threshold
        self._prepare(cell=cell, reference=reference, net=net)

    def _prepare(self, *, cell: int, reference: EmptyBoard | None, net: StoneNet | None) -> None:
        """Build what this reader needs per camera view (once, not per frame), from the options
        it uses."""

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.kind}: {self.n} spots in {len(self.regions)} region(s)>"
        )

    def read(self, image: Image, *, source: str = "camera") -> Observation:
        """Classify every spot; ``?`` where the evidence is unclear or the spot is covered."""
        t0 = time.perf_counter()
        states, conf, extra = self._classify(image)
        return Observation(
            states=tuple(states),
            confidence=tuple(np.clip(conf, 0.0, 1.0).tolist()),
            timestamp=time.monotonic(),
            source=source,
            extra={"seconds": time.perf_counter() - t0, **extra},
        )

    def _classify(self, image: Image) -> tuple[list[str], NDArray[np.float64], dict[str, object]]:
        """Tokens, confidences and extra figures per spot, in observation order."""
        raise NotImplementedError

    def views(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, what the network sees (the ``net`` reader's only)."""
        raise VisionError(f"the {self.kind} reader has no board views")


class ClassicReader(StoneReader, CueMeter):
    """The hand-made cues (:class:`CueMeter`, precomputed remap tables and disc masks) turned
    into tokens by :func:`~companion.vision.stone_bands.classify`."""

    kind: ClassVar[str] = "classic"

    def _prepare(self, *, cell: int, reference: EmptyBoard | None, net: StoneNet | None) -> None:
        CueMeter.__init__(self, self.regions, self.image_size, cell=cell, reference=reference)

    def __repr__(self) -> str:
        return f"{StoneReader.__repr__(self)[:-1]}, cell {self.cell}px>"

    def _classify(self, image: Image) -> tuple[list[str], NDArray[np.float64], dict[str, object]]:
        states, conf = classify(self.features(image), self.neighbours)
        return states, conf, {}


class NetReader(StoneReader):
    """The learned classifier: the board views' remap tables (:class:`Cutter`), cut once per
    frame, and the network run over them; covered patches widen to ``?`` around them."""

    kind: ClassVar[str] = "net"

    def _prepare(self, *, cell: int, reference: EmptyBoard | None, net: StoneNet | None) -> None:
        self._cutters = [
            Cutter.grid(r.H, r.shape[1], r.shape[0], self.image_size)
            if r.shape is not None
            else Cutter.patches(r.H, r.points, r.scale, self.image_size)
            for r in self.regions
        ]
        # where each grid's stone tops lean (the second look's re-cut patches): fixed per view
        self._leans = [
            lean_shifts(r.H, r.shape[1], r.shape[0]) if r.shape is not None else ()
            for r in self.regions
        ]
        self.net = net or StoneNet()

    def _classify(self, image: Image) -> tuple[list[str], NDArray[np.float64], dict[str, object]]:
        probs = self.probabilities(image)
        states, conf = _net_decision(probs, self.threshold, self.neighbours)
        return states, conf, {"probabilities": probs}

    def views(self, image: Image) -> list[NDArray[np.uint8]]:
        """Per region, what the network sees: the board view (grids) or stacked patches."""
        check_image(image)
        if image.shape[1] < self.image_size[0] or image.shape[0] < self.image_size[1]:
            raise VisionError("the frame is smaller than the one the reader was made for")
        return [cut(image) for cut in self._cutters]

    def probabilities(self, image: Image) -> NDArray[np.float32]:
        """(n, 4) class probabilities per spot from the network, in observation order."""
        views = self.views(image)
        assert self.net is not None  # set in __init__
        out = np.empty((self.n, 4), dtype=np.float32)
        for view, region, lean in zip(views, self.regions, self._leans, strict=True):
            if region.shape is not None:
                p = self.net.grid(view, region.shape[1], region.shape[0])
                p = self.net.second_look(view, p, lean)
            else:
                p = self.net.patches(view)
            out[np.asarray(region.spots, dtype=np.int64)] = p
        return out


#: The readers by name, each its class.
_VARIANTS: dict[str, type[StoneReader]] = {"classic": ClassicReader, "net": NetReader}


def _net_decision(
    probs: NDArray[np.float32], threshold: float, neighbours: Sequence[Sequence[int]]
) -> tuple[list[str], NDArray[np.float64]]:
    """The network's tokens: confident classes kept, covered patches widened to ``?``.

    A spot read below the bar (its only doubt "covered", see ``decide``) is not read beside a
    spot the network thinks covered: there the doubt is most likely a hand's edge, where a
    fingertip looks like a white stone, not a neighbour's top leaning over the point.
    """
    states, conf = decide(probs, threshold)
    out = np.array(states, dtype="<U1")
    covered = probs.argmax(axis=1) == 3
    for i in np.flatnonzero((conf > 0.0) & (conf < threshold)):
        if covered[list(neighbours[i])].any():
            out[i] = "?"
            conf[i] = 0.0
    unknown_around_patches(out, conf, covered, neighbours, size=PATCH, sure=SURE)
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
