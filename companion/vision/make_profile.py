"""Making a calibration profile from one frame: where the spots are and how each looks empty.

Grids and stacked boards are found in the frame (or given by their corners); maps are placed by
hand. The profile (:mod:`companion.vision.profile`) then records the stone offset model, the
light and, on an empty board, every spot's empty appearance.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from companion.errors import CalibrationError
from companion.games.topology import from_spec
from companion.vision.find_board import find_board, find_boards
from companion.vision.geometry import Corners, as_corners
from companion.vision.profile import GridRegion, Profile, SpotRegion
from companion.vision.read_stones import Image, Region, estimate_offset
from companion.vision.stone_cues import CueMeter


def find_corners(
    image: Image, *, board: str = "19", layers: Sequence[int] | None = None
) -> list[Corners]:
    """Where the finder puts each seen layer's corner intersections (TL, TR, BR, BL), left to
    right: what :func:`calibrate` uses when no corners are given, and where the calibration
    page's handles start. Raises :class:`BoardNotFound` (with the refused grid as its
    ``suggested``, where there was one) or :class:`CalibrationError` (a map, whose spots are
    placed by hand, or a rectangular board)."""
    topo = from_spec(board)
    if topo.shape is None:
        raise CalibrationError("a map's spots are placed by hand: there are no corners to find")
    count, bh, bw = topo.shape
    seen = list(range(count)) if layers is None else list(layers)
    if bh != bw:
        raise CalibrationError("finding a rectangular board is not supported; give corners")
    if len(seen) > 1:
        return [f.corners for f in find_boards(image, count=len(seen), size=bw)]
    return [find_board(image, size=bw).corners]


def calibrate(
    image: Image,
    *,
    board: str = "19",
    corners: Sequence[Sequence[Sequence[float]]] | None = None,
    spots: Sequence[Sequence[float]] | None = None,
    spacing: float | None = None,
    name: str = "",
    empty: bool | None = None,
    layers: Sequence[int] | None = None,
) -> Profile:
    """Make a profile from one frame of this camera looking at this board.

    Grids and stacked boards: ``corners`` is one quad per layer (left to right), or ``None`` to
    find them. ``layers`` names the layers this camera sees when it does not see them all (a
    stacked board watched by two cameras: one profile each; the other layers read ``?``). Maps: ``spots`` gives a pixel position per spot (hand-placed) and ``spacing`` the
    typical distance between neighbours. ``empty`` says whether the board in ``image`` is empty,
    so its per-spot appearance can be saved (``None``: save it only if every spot reads empty).
    Raises :class:`BoardNotFound` or :class:`CalibrationError`.
    """
    topo = from_spec(board)
    h, w = image.shape[:2]
    regions: list[GridRegion | SpotRegion] = []
    if topo.shape is None:
        if spots is None or spacing is None or len(spots) != len(topo):
            raise CalibrationError(
                f"a map board needs one hand-placed pixel position per spot ({len(topo)}) and a spacing"
            )
        regions.append(
            SpotRegion(spots=tuple((float(x), float(y)) for x, y in spots), spacing=float(spacing))
        )
    else:
        count, bh, bw = topo.shape
        seen = list(range(count)) if layers is None else [int(v) for v in layers]
        if not seen or len(set(seen)) != len(seen) or not all(0 <= v < count for v in seen):
            raise CalibrationError(f"layers {seen} are not distinct layers of board {board}")
        if corners is None:
            quads = find_corners(image, board=board, layers=seen)
        else:
            if len(corners) != len(seen):
                raise CalibrationError(f"board {board} needs {len(seen)} set(s) of corners here")
            quads = [as_corners(c) for c in corners]
        for layer, quad in zip(seen, quads, strict=True):
            reg = Region.grid(quad, bw, bh)
            off = estimate_offset(image, reg)
            regions.append(
                GridRegion(
                    corners=tuple((float(x), float(y)) for x, y in quad),
                    width=bw,
                    height=bh,
                    layer=layer,
                    offset=off,
                )
            )
    prof = Profile(
        board=board,
        image_size=(w, h),
        regions=regions,
        name=name,
        created=time.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    # the board's light and empty look are the cues' measures, whichever reader reads
    meter = CueMeter(prof.stone_regions(), prof.image_size)
    feats = meter.features(image)
    obs = prof.reader().read(image)
    is_empty = all(s == "." for s in obs.states) if empty is None else empty
    prof.light = {
        "gray": round(float(np.median(feats.bg_gray)), 2),
        "tint_r": round(float(np.median(feats.bg_tint[:, 0])), 4),
        "tint_g": round(float(np.median(feats.bg_tint[:, 1])), 4),
    }
    if is_empty:  # (features are in spot_ids() order: the spots this camera sees)
        prof.empty_gray = [float(v) for v in feats.gray]
        prof.empty_tint = [(float(a), float(b)) for a, b in feats.tint]
        prof.empty_patches = meter.patches(image=image)
        prof._reader = None
    if any(isinstance(r, GridRegion) for r in regions):
        prof.alignment = prof.grid_alignment(image)
    return prof
