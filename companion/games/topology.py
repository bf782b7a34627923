"""Boards are graphs: spots, links between them, and where to draw each spot.

Inside the engine a spot is an ``int`` from 0 to ``len(topology) - 1``. A topology maps it to a
stable id (``"C3"``-free: grids use ``"r,c"`` and stacked boards ``"l,r,c"``; map files keep their
own ids) and, for lattices, to ``(layer, row, col)`` with row 0 at the top.

Builders: :func:`grid` (rectangular, 2..25 a side), :func:`stacked` (any L x H x W, every point
linked to the one above and below) and :func:`load_map` / :func:`parse_map` for GoBeyond map files.

Map file format (``"format": "companion-map"``, ``"version": 1``), JSON::

    {
      "format": "companion-map",
      "version": 1,
      "name": "hex-3",                      # optional, defaults to the file name
      "spots": [                            # at least one
        {"id": "a1", "x": 0.0, "y": 0.0},   # id: non-empty string, unique
        {"id": "a2", "x": 1.0, "y": 0.0, "layer": 1}   # x, y for drawing; layer optional (0)
      ],
      "links": [["a1", "a2"]]               # undirected; no self-link, no duplicate
    }

Unknown keys are refused so that a typo cannot silently drop a link.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import MapError
from companion.limits import MB, parse_json, read_text

MAP_FORMAT = "companion-map"
MAP_VERSION = 1
MIN_GRID = 2
MAX_GRID = 25
#: Layers of a stacked board: real ones have 2; more than 8 would only slow the table down.
MAX_LAYERS = 8
#: Spots on a map (a 25x25x8 lattice has 5,000).
MAX_SPOTS = 20_000
#: Links on a map: a spot has a handful of neighbours.
MAX_LINKS = 8 * MAX_SPOTS
#: A map file (a 20,000-spot map is about 1.5 MB).
MAX_MAP_BYTES = 4 * MB
#: Map coordinates are for drawing: anything beyond this is a broken file.
MAX_COORD = 1e6


@dataclass(frozen=True, eq=False)
class Topology:
    """An immutable board graph.

    ``shape`` is ``(layers, height, width)`` for lattice boards built by :func:`grid` and
    :func:`stacked`, and ``None`` for maps. Equality is identity: two boards of the same shape
    compare by :attr:`signature` when needed.
    """

    name: str
    ids: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]
    xy: tuple[tuple[float, float], ...]
    layers: tuple[int, ...]
    shape: tuple[int, int, int] | None = None
    _index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self._index:
            self._index.update({spot_id: i for i, spot_id in enumerate(self.ids)})

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.ids)))

    def __repr__(self) -> str:
        return f"<Topology {self.name!r}: {len(self)} spots, {sum(1 for _ in self.links())} links>"

    @property
    def kind(self) -> str:
        """``"grid"``, ``"stacked"`` or ``"map"``."""
        if self.shape is None:
            return "map"
        return "grid" if self.shape[0] == 1 else "stacked"

    @property
    def signature(self) -> str:
        """A short text that identifies the board (used in records)."""
        if self.shape is None:
            return f"map:{self.name}"
        layers, height, width = self.shape
        if layers == 1:
            return f"grid:{width}x{height}"
        return f"stacked:{layers}x{width}x{height}"

    def index(self, spot_id: str) -> int:
        """The spot with this id; raises MapError (a ValueError) when there is none."""
        try:
            return self._index[spot_id]
        except KeyError:
            raise MapError(f"no spot {spot_id!r} on {self.name}") from None

    def links(self) -> Iterator[tuple[int, int]]:
        """Every link once, as ``(a, b)`` with ``a < b``."""
        for a, nbrs in enumerate(self.neighbours):
            for b in nbrs:
                if a < b:
                    yield a, b

    # Lattice helpers ---------------------------------------------------------------------
    def _lattice(self) -> tuple[int, int, int]:
        if self.shape is None:
            raise MapError(f"{self.name} is a map, not a lattice: spots have no rows and columns")
        return self.shape

    def point(self, spot: int) -> tuple[int, int, int]:
        """``(layer, row, col)`` of a lattice spot, row 0 at the top."""
        _, height, width = self._lattice()
        layer, rest = divmod(spot, height * width)
        row, col = divmod(rest, width)
        return layer, row, col

    def spot(self, row: int, col: int, layer: int = 0) -> int:
        """The spot at ``(layer, row, col)``; raises MapError when off the board."""
        layers, height, width = self._lattice()
        if not (0 <= layer < layers and 0 <= row < height and 0 <= col < width):
            raise MapError(f"({layer}, {row}, {col}) is off the {self.signature} board")
        return (layer * height + row) * width + col


def _lattice(layers: int, width: int, height: int, name: str) -> Topology:
    for what, value in (("width", width), ("height", height)):
        if not MIN_GRID <= value <= MAX_GRID:
            raise MapError(f"{what} {value} is outside {MIN_GRID}..{MAX_GRID}")
    if not 1 <= layers <= MAX_LAYERS:
        raise MapError(f"{layers} layers: a stacked board has 1..{MAX_LAYERS}")
    ids: list[str] = []
    xy: list[tuple[float, float]] = []
    layer_of: list[int] = []
    nbrs: list[tuple[int, ...]] = []
    plane = width * height
    gap = width + 1.5  # layers are drawn side by side
    for layer in range(layers):
        for row in range(height):
            for col in range(width):
                ids.append(f"{row},{col}" if layers == 1 else f"{layer},{row},{col}")
                xy.append((layer * gap + col, float(row)))
                layer_of.append(layer)
                here = layer * plane + row * width + col
                found: list[int] = []
                if row > 0:
                    found.append(here - width)
                if col > 0:
                    found.append(here - 1)
                if col < width - 1:
                    found.append(here + 1)
                if row < height - 1:
                    found.append(here + width)
                if layer > 0:
                    found.append(here - plane)
                if layer < layers - 1:
                    found.append(here + plane)
                nbrs.append(tuple(found))
    return Topology(
        name=name,
        ids=tuple(ids),
        neighbours=tuple(nbrs),
        xy=tuple(xy),
        layers=tuple(layer_of),
        shape=(layers, height, width),
    )


def grid(width: int, height: int | None = None) -> Topology:
    """A square (``grid(19)``) or rectangular (``grid(13, 9)``) board, 2..25 a side."""
    height = width if height is None else height
    return _lattice(1, width, height, f"{width}x{height}")


def stacked(layers: int = 2, width: int = 9, height: int | None = None) -> Topology:
    """Layers of ``width x height`` grids, each point linked to the same point one layer up/down.

    ``stacked()`` is the 2 x 9 x 9 board of 2.5D Go: five liberties in the middle of a layer.
    """
    height = width if height is None else height
    return _lattice(layers, width, height, f"{layers}x{width}x{height}")


def _line_of(text: str, needle: str) -> int | None:
    """1-based line of the first occurrence of ``needle`` in ``text`` (for error messages)."""
    pos = text.find(needle)
    return None if pos < 0 else text.count("\n", 0, pos) + 1


def _where(text: str, needle: str) -> str:
    line = _line_of(text, needle)
    return f" (line {line})" if line else ""


_LINK = re.compile(r"\[\s*\"[^\"]*\"\s*,\s*\"[^\"]*\"\s*\]")


def _link_where(text: str, n: int) -> str:
    """Where the n-th (0-based) ``[id, id]`` pair after ``"links"`` sits in the text."""
    start = text.find('"links"')
    if start < 0:
        return ""
    for k, match in enumerate(_LINK.finditer(text, start)):
        if k == n:
            return f" (line {text.count(chr(10), 0, match.start()) + 1})"
    return ""


def parse_map(text: str, *, name: str = "map") -> Topology:
    """Build a topology from map-file text; raises MapError naming the line or spot at fault."""
    data: Any = parse_json(text, name=name, error=MapError, limit=MAX_MAP_BYTES)
    if not isinstance(data, dict):
        raise MapError(f"{name}: a map file is a JSON object")
    unknown = set(data) - {"format", "version", "name", "spots", "links", "description"}
    if unknown:
        key = sorted(unknown)[0]
        raise MapError(f"{name}: unknown key {key!r}{_where(text, repr(key)[1:-1])}")
    if data.get("format") != MAP_FORMAT:
        raise MapError(f"{name}: 'format' must be {MAP_FORMAT!r}")
    if data.get("version") != MAP_VERSION:
        raise MapError(
            f"{name}: unsupported map version {data.get('version')!r} (this build reads {MAP_VERSION})"
        )
    spots = data.get("spots")
    if not isinstance(spots, list) or not spots:
        raise MapError(f"{name}: a map needs at least one spot in 'spots'")
    if len(spots) > MAX_SPOTS:
        raise MapError(f"{name}: {len(spots)} spots; a map has at most {MAX_SPOTS}")
    ids: list[str] = []
    xy: list[tuple[float, float]] = []
    layer_of: list[int] = []
    index: dict[str, int] = {}
    for n, spot in enumerate(spots):
        if not isinstance(spot, dict):
            raise MapError(f"{name}: spot #{n + 1} is not an object")
        spot_id = spot.get("id")
        if not isinstance(spot_id, str) or not spot_id:
            raise MapError(f"{name}: spot #{n + 1} has no string 'id'")
        # The line is looked up only for an error: a search per spot made loading quadratic.
        quoted = '"' + spot_id + '"'
        extra = set(spot) - {"id", "x", "y", "layer"}
        if extra:
            where = _where(text, quoted)
            raise MapError(f"{name}: spot {spot_id!r}{where}: unknown key {sorted(extra)[0]!r}")
        if spot_id in index:
            raise MapError(f"{name}: duplicate spot {spot_id!r}{_where(text, quoted)}")
        x, y, layer = spot.get("x", 0.0), spot.get("y", 0.0), spot.get("layer", 0)
        if not all(
            isinstance(v, int | float) and not isinstance(v, bool) and abs(v) <= MAX_COORD
            for v in (x, y)
        ):
            raise MapError(
                f"{name}: spot {spot_id!r}{_where(text, quoted)}: x and y must be "
                f"numbers within +-{MAX_COORD:g}"
            )
        if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer < MAX_SPOTS:
            raise MapError(
                f"{name}: spot {spot_id!r}{_where(text, quoted)}: layer must be a "
                f"whole number 0..{MAX_SPOTS - 1}"
            )
        index[spot_id] = len(ids)
        ids.append(spot_id)
        xy.append((float(x), float(y)))
        layer_of.append(layer)
    links = data.get("links", [])
    if not isinstance(links, list):
        raise MapError(f"{name}: 'links' must be a list of [id, id] pairs")
    if len(links) > MAX_LINKS:
        raise MapError(f"{name}: {len(links)} links; a map has at most {MAX_LINKS}")
    adjacency: list[set[int]] = [set() for _ in ids]
    for n, link in enumerate(links):
        if not (
            isinstance(link, list) and len(link) == 2 and all(isinstance(s, str) for s in link)
        ):
            raise MapError(f"{name}: link #{n + 1} must be a pair of spot ids, not {link!r}")
        a_id, b_id = link
        for spot_id in (a_id, b_id):
            if spot_id not in index:
                raise MapError(
                    f"{name}: link #{n + 1} {link}{_link_where(text, n)}: unknown spot {spot_id!r}"
                )
        a, b = index[a_id], index[b_id]
        if a == b:
            raise MapError(
                f"{name}: link #{n + 1}{_link_where(text, n)}: spot {a_id!r} is linked to itself"
            )
        if b in adjacency[a]:
            raise MapError(
                f"{name}: link #{n + 1}{_link_where(text, n)}: duplicate link {a_id!r} - {b_id!r}"
            )
        adjacency[a].add(b)
        adjacency[b].add(a)
    return Topology(
        name=str(data.get("name") or name),
        ids=tuple(ids),
        neighbours=tuple(tuple(sorted(s)) for s in adjacency),
        xy=tuple(xy),
        layers=tuple(layer_of),
    )


def load_map(path: str | Path) -> Topology:
    """Read a map file (see the module docstring); raises MapError for a malformed one."""
    path = Path(path)
    text = read_text(path, limit=MAX_MAP_BYTES, error=MapError, what="map file")
    return parse_map(text, name=path.stem)


def dump_map(topology: Topology) -> str:
    """Serialise any topology as map-file text (the inverse of :func:`parse_map`)."""
    spots = [
        json.dumps({"id": spot_id, "x": x, "y": y, **({"layer": layer} if layer else {})})
        for spot_id, (x, y), layer in zip(topology.ids, topology.xy, topology.layers, strict=True)
    ]
    links = [json.dumps([topology.ids[a], topology.ids[b]]) for a, b in topology.links()]
    # One spot and one link a line, so that an error message's line number points at one thing.
    return (
        "{\n"
        f' "format": "{MAP_FORMAT}",\n "version": {MAP_VERSION},\n'
        f' "name": {json.dumps(topology.name)},\n'
        ' "spots": [\n  ' + ",\n  ".join(spots) + "\n ],\n"
        ' "links": [\n  ' + ",\n  ".join(links) + "\n ]\n}\n"
    )


def bundled_maps() -> dict[str, Path]:
    """The example maps shipped in ``companion/maps``, by name."""
    folder = Path(__file__).resolve().parent.parent / "maps"
    return {p.stem: p for p in sorted(folder.glob("*.json"))}


def map_file_text(spec: str) -> str | None:
    """The content of the map file ``spec`` names (checked to be a map), None when ``spec`` is
    a size, ``stacked`` or a bundled map name: what a game stores so it never needs the file
    again. MapError when the file is not a map."""
    text = spec.strip().lower()
    if text in bundled_maps() or text == "stacked" or re.fullmatch(r"[0-9x]{1,20}", text):
        return None
    try:
        is_file = len(spec) < 4096 and Path(spec).is_file()
    except (OSError, ValueError):
        is_file = False
    return dump_map(load_map(spec)) if is_file else None


def from_spec(spec: str) -> Topology:
    """A board from a short text: ``19``, ``13x9``, ``stacked``, ``2x9x9``, a bundled map name
    or a map file path."""
    text = spec.strip().lower()
    maps = bundled_maps()
    if text in maps:
        return load_map(maps[text])
    if text == "stacked":
        return stacked()
    if re.fullmatch(r"[0-9]{1,6}(?:x[0-9]{1,6}){0,2}", text):
        numbers: Sequence[int] = [int(p) for p in text.split("x")]
        if len(numbers) == 1:
            return grid(numbers[0])
        if len(numbers) == 2:
            return grid(numbers[0], numbers[1])
        if len(numbers) == 3:
            return stacked(numbers[0], numbers[1], numbers[2])
    try:
        is_file = len(spec) < 4096 and Path(spec).exists()
    except (OSError, ValueError):  # a name too long, a NUL byte
        is_file = False
    if is_file:
        return load_map(spec)
    raise MapError(
        f"unknown board {spec[:40]!r}: give 19, 13x9, stacked, 2x9x9, a map name or a map file"
    )
