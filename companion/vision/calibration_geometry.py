"""Calibration geometry: checking the corners or map spots a user placed on a camera still.

The calibration page (``companion/web/calibration.py``) posts what the user placed; this module
checks it (inside the picture, clockwise, convex, layers apart, spots not on top of each other)
and words what is wrong, with no Flask and no OpenCV, so it is tested on plain numbers. It also
says what the page draws for a board and where its handles start.
"""

from __future__ import annotations

import math
import re
from typing import Any

from companion import events as ev
from companion.games.topology import Topology, from_spec

__all__ = [
    "MIN_SPOT_GAP",
    "calibration_initial",
    "calibration_profile",
    "calibration_topology",
    "layer_name",
]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$")
#: Two hand-placed map spots closer than this share of the typical spacing are a slip.
MIN_SPOT_GAP = 0.3


def layer_name(layer: int, layers: int) -> str:
    """What the page calls a layer: "lower layer"/"upper layer" for a pair, else "layer N"."""
    if layers == 2:
        return ("lower layer", "upper layer")[layer]
    return f"layer {layer + 1}"


def _pixel(value: Any, what: str, size: list[int]) -> list[float]:
    """``[x, y]`` inside a ``size`` picture, rounded to 0.1 px; ValueError names ``what``."""
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{what} must be [x, y] in pixels")
    x, y = float(value[0]), float(value[1])
    if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= size[0] and 0 <= y <= size[1]):
        raise ValueError(f"{what} at ({x:.0f}, {y:.0f}) is outside the picture")
    return [round(x, 1), round(y, 1)]


def _quad(corners: Any, size: list[int], where: str = "") -> list[list[float]]:
    """Four corners making a convex quadrilateral, clockwise from the top left."""
    if not isinstance(corners, list) or len(corners) != 4:
        raise ValueError(f"{where}give exactly four corners")
    points = [_pixel(c, f"{where}corner", size) for c in corners]
    signs = set()
    for i in range(4):
        ax, ay = points[i]
        bx, by = points[(i + 1) % 4]
        cx, cy = points[(i + 2) % 4]
        cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx)
        if cross == 0:
            raise ValueError(f"{where}three corners lie on one line: spread them to the corners")
        signs.add(cross > 0)
    if len(signs) != 1:
        raise ValueError(f"{where}the corners cross over: place them clockwise from the top left")
    if signs != {True}:  # anticlockwise in the picture: the board would be read mirrored
        raise ValueError(
            f"{where}the corners go round the wrong way: place them clockwise from the top left"
        )
    return points


def _inside(point: list[float], quad: list[list[float]]) -> bool:
    """Whether ``point`` lies inside the convex ``quad`` (either winding)."""
    crosses = []
    for i in range(4):
        (ax, ay), (bx, by) = quad[i], quad[(i + 1) % 4]
        crosses.append((bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax))
    return all(c > 0 for c in crosses) or all(c < 0 for c in crosses)


def _layer_quads(body: dict[str, Any], topo: Topology, size: list[int]) -> list[list[list[float]]]:
    """One quad per layer, in layer order, from ``corners`` (one layer) or ``regions``."""
    assert topo.shape is not None
    layers = topo.shape[0]
    if "spots" in body:
        raise ValueError(f"board {topo.name} is not a map: place its corners, not spots")
    regions = body.get("regions")
    if regions is None:
        if layers != 1:
            raise ValueError(f"board {topo.name} has {layers} layers: send one set of corners each")
        return [_quad(body.get("corners"), size)]
    if not isinstance(regions, list) or len(regions) != layers:
        raise ValueError(f"board {topo.name} needs {layers} set(s) of corners, one per layer")
    quads: dict[int, list[list[float]]] = {}
    for i, region in enumerate(regions):
        if not isinstance(region, dict):
            raise ValueError('each region is {"layer": number, "corners": [[x, y] x 4]}')
        layer = region.get("layer", i)
        if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer < layers:
            raise ValueError(f"layer must be a number from 0 to {layers - 1}")
        if layer in quads:
            raise ValueError(f"the {layer_name(layer, layers)} has two sets of corners")
        where = f"{layer_name(layer, layers)}: " if layers > 1 else ""
        quads[layer] = _quad(region.get("corners"), size, where)
    ordered = [quads[k] for k in range(layers)]
    for a in range(layers):
        for b in range(layers):
            centre = [sum(p[0] for p in ordered[a]) / 4, sum(p[1] for p in ordered[a]) / 4]
            if a != b and _inside(centre, ordered[b]):
                raise ValueError(
                    f"the {layer_name(a, layers)} and the {layer_name(b, layers)} overlap: "
                    "place each set of corners on its own board"
                )
    return ordered


def _map_spots(body: dict[str, Any], topo: Topology, size: list[int]) -> tuple[list[Any], float]:
    """Every spot of a map placed inside the picture (in topology order) and the typical
    distance between linked spots in pixels."""
    spots = body.get("spots")
    if "corners" in body or "regions" in body:
        raise ValueError(f"board {topo.name} is a map: place its spots, not corners")
    if not isinstance(spots, dict):
        raise ValueError('spots must be an object {"spot id": [x, y], ...}')
    known = set(topo.ids)
    unknown = sorted(str(k) for k in spots if k not in known)
    if unknown:
        listed = ", ".join(repr(k) for k in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(f"map {topo.name} has no spot(s) {listed}")
    missing = [k for k in topo.ids if k not in spots]
    if missing:
        listed = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise ValueError(f"place every spot: {len(missing)} not placed ({listed})")
    points = [_pixel(spots[k], f"spot {k}", size) for k in topo.ids]
    lengths = sorted(math.dist(points[a], points[b]) for a, b in topo.links())
    spacing = lengths[len(lengths) // 2] if lengths else 0.0
    if spacing < 4:
        raise ValueError("the spots are squeezed together: spread them over their places")
    for a in range(len(points)):
        for b in range(a + 1, len(points)):
            if math.dist(points[a], points[b]) < MIN_SPOT_GAP * spacing:
                raise ValueError(
                    f"spots {topo.ids[a]} and {topo.ids[b]} are on top of each other: "
                    "drag each onto its own place"
                )
    return points, round(spacing, 2)


def calibration_topology(spec: str) -> dict[str, Any]:
    """What the calibration page draws for board ``spec``: its kind and shape, and for maps
    every spot's id and drawing position with the links between them (the starting guess the
    user fits onto the photo)."""
    topo = from_spec(spec)
    out: dict[str, Any] = {"spec": spec, "kind": topo.kind, "shape": topo.shape}
    if topo.shape is None:
        out["ids"] = list(topo.ids)
        out["xy"] = [list(p) for p in topo.xy]
        out["links"] = list(topo.links())
    else:
        layers = topo.shape[0]
        out["layers"] = [layer_name(k, layers) for k in range(layers)]
    return out


def calibration_initial(profile: Any, spec: str, still: Any) -> dict[str, Any] | None:
    """Where the page's handles start: the camera's profile when it is for this board and this
    picture size (``{"regions": [quad, ...]}`` or ``{"spots": [[x, y], ...]}``), else None."""
    if profile is None or still is None or getattr(profile, "board", None) != spec:
        return None
    height, width = still.shape[:2]
    if tuple(profile.image_size) != (width, height):
        return None
    from companion.vision.profile import GridRegion

    quads: list[list[list[float]]] = []
    spots: list[list[float]] = []
    for region in profile.regions:
        if isinstance(region, GridRegion):
            quads.append([[round(x, 1), round(y, 1)] for x, y in region.corners])
        else:
            spots.extend([round(x, 1), round(y, 1)] for x, y in region.spots)
    if spots:
        return {"spots": spots}
    order = sorted(range(len(quads)), key=lambda i: getattr(profile.regions[i], "layer", i))
    return {"regions": [quads[i] for i in order]}


def calibration_profile(
    body: Any, *, board: ev.GameStarted | None, default_board: str = "19"
) -> dict[str, Any]:
    """Check a calibration posted by the page; ValueError names what is wrong.

    The table's board is the started game's (else ``default_board``); a ``board`` the page
    sends must be the same (the page is stale otherwise). The answer is ``{"format":
    "companion-calibration", "version": 1, "name", "board", "image": [w, h]}`` plus

    - grids and stacked boards: ``"regions"``, one quad per layer (in layer order) of four
      corner intersections in pixels, clockwise from the top left (A19 on a 19x19 board). The
      page sends ``"corners"`` for a one-layer board or ``"regions": [{"layer": k, "corners":
      [...]}]``; a one-layer answer also has ``"corners"``;
    - maps: ``"spots"`` (a pixel per spot, in topology order) and ``"spacing"`` (median pixel
      distance of linked spots) from ``"spots": {"spot id": [x, y]}``: every spot placed once,
      inside the picture, no id unknown, no two spots on top of each other.

    A board spec that names no board raises :class:`~companion.errors.MapError`.
    """
    if not isinstance(body, dict):
        raise ValueError("send a JSON object")
    name = str(body.get("name", "")).strip()
    if not _NAME.match(name):
        raise ValueError("the name must be 1-41 letters, digits, - or _")
    spec = board.topology if board else default_board
    sent = body.get("board")
    if sent is not None and str(sent) != spec:
        raise ValueError(f"the table now plays on board {spec}, not {sent}: reload the page")
    size = body.get("image")
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise ValueError("image must be [width, height] in pixels")
    image = [int(size[0]), int(size[1])]
    topo = from_spec(spec)
    out: dict[str, Any] = {
        "format": "companion-calibration",
        "version": 1,
        "name": name,
        "board": spec,
        "image": image,
    }
    if topo.shape is None:
        out["spots"], out["spacing"] = _map_spots(body, topo, image)
    else:
        out["regions"] = _layer_quads(body, topo, image)
        if len(out["regions"]) == 1:
            out["corners"] = out["regions"][0]
    return out
