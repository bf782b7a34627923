"""Calibration profiles: one camera looking at one board, saved so live reading skips finding.

A profile is a JSON file (format ``companion-vision-profile``, version 1; documented in
``calibration/README.md``) holding:

- ``board``: the topology spec (``"19"``, ``"2x9x9"``, a map name or file) -- spot order;
- ``image_size``: ``[width, height]`` of the frames it was made for;
- ``regions``: where the spots are. A *grid* region has the four corner intersections
  (TL, TR, BR, BL), its ``width``/``height``, ``layer`` and the stone ``offset`` model; a *spots*
  region (GoBeyond maps, placed by hand on a photo once) lists a pixel position per spot and
  the typical ``spacing`` between spots in pixels;
- ``empty``: optional per-spot empty-board appearance (``gray``, ``tint``), so a white stone on
  a white board still stands out from what that spot looked like empty;
- ``light``: the board's median brightness and tint when calibrated (the light model the
  per-spot appearance is scaled from);
- ``reader``: optional, which stone reader reads through it (``classic`` or ``net``; absent:
  the default one, :data:`~companion.vision.read_stones.DEFAULT_READER`);
- ``alignment``: how clearly the grid lines showed where the profile expects them. If a later
  frame shows them much less clearly, :meth:`Profile.moved` says the board or camera moved.

:func:`load_profile` raises :class:`CalibrationError` for anything malformed; unknown keys are
refused so that a typo cannot silently drop a setting.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import CalibrationError, CompanionError
from companion.games.topology import MAX_GRID, MAX_LAYERS, MAX_SPOTS, MIN_GRID, Topology, from_spec
from companion.limits import MB, number, parse_json, read_file
from companion.observation import Observation
from companion.vision.geometry import NO_OFFSET, Offset, as_corners, project
from companion.vision.pipeline import Reading
from companion.vision.read_stones import (
    DEFAULT_READER,
    PATCH_SIDE,
    EmptyBoard,
    Image,
    Region,
    StoneReader,
    check_reader,
)
from companion.vision.stone_net import StoneNet

FORMAT = "companion-vision-profile"
VERSION = 1
MOVED_RATIO = 0.5  # grid lines this much fainter than at calibration: the board moved

_TOP_KEYS = {
    "format",
    "version",
    "name",
    "board",
    "image_size",
    "regions",
    "empty",
    "light",
    "alignment",
    "created",
    "reader",
}
_GRID_KEYS = {"kind", "corners", "width", "height", "layer", "offset"}
_SPOT_KEYS = {"kind", "spots", "spacing"}


@dataclass(frozen=True)
class GridRegion:
    """A lattice (a whole board or one layer of a stacked one) seen through four corners."""

    corners: tuple[tuple[float, float], ...]
    width: int
    height: int
    layer: int = 0
    offset: Offset = NO_OFFSET


@dataclass(frozen=True)
class SpotRegion:
    """Spots placed by hand: one pixel position per spot, in topology order."""

    spots: tuple[tuple[float, float], ...]
    spacing: float


@dataclass
class Profile:
    """A calibrated view of one board; :meth:`reader` is built once and reused per frame."""

    board: str
    image_size: tuple[int, int]
    regions: list[GridRegion | SpotRegion]
    name: str = ""
    empty_gray: list[float] | None = None
    empty_tint: list[tuple[float, float]] | None = None
    empty_patches: NDArray[np.uint8] | None = None
    light: dict[str, float] = field(default_factory=dict)
    alignment: float = 0.0
    created: str = ""
    stone_reader: str | None = None  # "classic" or "net"; None: the default reader
    _reader: StoneReader | None = field(default=None, repr=False, compare=False)
    #: ONNX bytes of other net weights to read with (``read --model``); never saved.
    stone_model: bytes | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return (
            f"<Profile {self.name or self.board!r}: {len(self.topology())} spots, "
            f"{len(self.regions)} region(s), {self.image_size[0]}x{self.image_size[1]}>"
        )

    def topology(self) -> Topology:
        return from_spec(self.board)

    # -- reading -------------------------------------------------------------------------
    def spot_ids(self) -> list[int]:
        """The board spots this camera sees, in the profile's own order (regions in turn).

        A camera may see only some layers of a stacked board (a second camera sees the
        rest); the spots it does not see read ``?``.
        """
        topo = self.topology()
        out: list[int] = []
        for reg in self.regions:
            if isinstance(reg, GridRegion):
                out.extend(
                    topo.spot(r, c, reg.layer) if topo.shape is not None else r * reg.width + c
                    for r in range(reg.height)
                    for c in range(reg.width)
                )
            else:
                out.extend(range(len(reg.spots)))
        return out

    def stone_regions(self) -> list[Region]:
        """Reader regions, numbered 0.. in :meth:`spot_ids` order."""
        out: list[Region] = []
        first = 0
        for reg in self.regions:
            if isinstance(reg, GridRegion):
                out.append(
                    Region.grid(
                        reg.corners, reg.width, reg.height, first_spot=first, offset=reg.offset
                    )
                )
                first += reg.width * reg.height
            else:
                pts = np.asarray(reg.spots, dtype=np.float64)
                spots = tuple(range(first, first + len(pts)))
                out.append(Region(H=np.eye(3), points=pts, spots=spots, scale=reg.spacing))
                first += len(pts)
        return out

    def reader_name(self) -> str:
        """The stone reader this profile reads with (its own choice, else the default)."""
        return self.stone_reader or DEFAULT_READER

    def with_reader(self, name: str | None, model: bytes | None = None) -> Profile:
        """This profile reading with the stone reader ``name`` (None: keep its own), and the
        net reader with the weights ``model`` (ONNX bytes; None: the shipped ones)."""
        if (name is None or name == self.stone_reader) and model is None:
            return self
        if name is not None:
            check_reader(name)
        if model is not None and (name or self.reader_name()) != "net":
            raise CalibrationError("a stone model is read by the net reader only")
        return replace(
            self, stone_reader=name or self.stone_reader, _reader=None, stone_model=model
        )

    def reader(self) -> StoneReader:
        if self._reader is None:
            ref = None
            if self.empty_gray is not None and self.empty_tint is not None:
                ref = EmptyBoard(
                    gray=np.asarray(self.empty_gray, dtype=np.float64),
                    tint=np.asarray(self.empty_tint, dtype=np.float64),
                    patches=self.empty_patches,
                )
            net = None if self.stone_model is None else StoneNet(self.stone_model)
            self._reader = StoneReader(
                self.stone_regions(),
                self.image_size,
                reference=ref,
                reader=self.reader_name(),
                net=net,
            )
        return self._reader

    def read(self, image: Image) -> Observation:
        """An :class:`~companion.observation.Observation` of the whole board from this camera's
        frame; spots it does not see (another camera's layer) are ``?`` with confidence 0."""
        self._check_frame(image)
        obs = self.reader().read(image, source=f"camera ({self.name or self.board})")
        ids = self.spot_ids()
        n = len(self.topology())
        if ids == list(range(n)):
            return obs
        states = ["?"] * n
        conf = [0.0] * n
        for local, spot in enumerate(ids):
            states[spot] = obs.states[local]
            conf[spot] = obs.confidence[local]
        return Observation(
            states=tuple(states),
            confidence=tuple(conf),
            timestamp=obs.timestamp,
            source=obs.source,
            extra=obs.extra,
        )

    def is_square_grid(self) -> bool:
        """One square grid region (what :meth:`read_photo` and the photo-label format need)."""
        reg = self.regions[0]
        return len(self.regions) == 1 and isinstance(reg, GridRegion) and reg.width == reg.height

    def read_photo(self, image: Image) -> Reading:
        """Like :func:`companion.vision.pipeline.read_photo`, for square single-grid profiles."""
        t0 = time.perf_counter()
        obs = self.read(image)
        reg = self.regions[0]
        if not isinstance(reg, GridRegion) or len(self.regions) != 1 or reg.width != reg.height:
            raise CalibrationError("this profile is not one square grid; use Profile.read")
        return Reading(
            observation=obs,
            size=reg.width,
            corners=as_corners(reg.corners),
            corners_from="profile",
            seconds=time.perf_counter() - t0,
        )

    def _check_frame(self, image: Image) -> None:
        if not isinstance(image, np.ndarray) or image.ndim != 3:
            raise CalibrationError("expected a colour frame")
        h, w = image.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise CalibrationError(
                f"frame is {w}x{h} but the profile was made for {self.image_size[0]}x{self.image_size[1]}"
            )

    # -- moved? --------------------------------------------------------------------------
    def grid_alignment(self, image: Image) -> float:
        """How clearly grid lines show where the profile puts them (0: not at all)."""
        self._check_frame(image)
        gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        vals = []
        for reg in self.regions:
            if isinstance(reg, GridRegion):
                vals.append(grid_alignment(gray, reg))
        return float(np.median(vals)) if vals else 0.0

    def moved(self, image: Image) -> bool:
        """True when the board or the camera has moved since calibration (lines no longer fit).

        Maps without grid lines cannot tell and always say False.
        """
        if self.alignment <= 0:
            return False
        return self.grid_alignment(image) < MOVED_RATIO * self.alignment

    # -- file ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        regions: list[dict[str, Any]] = []
        for reg in self.regions:
            if isinstance(reg, GridRegion):
                regions.append(
                    {
                        "kind": "grid",
                        "corners": [[round(x, 2), round(y, 2)] for x, y in reg.corners],
                        "width": reg.width,
                        "height": reg.height,
                        "layer": reg.layer,
                        "offset": {
                            "a": round(reg.offset.a, 5),
                            "b": [round(v, 4) for v in reg.offset.b],
                        },
                    }
                )
            else:
                regions.append(
                    {
                        "kind": "spots",
                        "spots": [[round(x, 2), round(y, 2)] for x, y in reg.spots],
                        "spacing": round(reg.spacing, 2),
                    }
                )
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "board": self.board,
            "image_size": list(self.image_size),
            "regions": regions,
            "light": self.light,
            "alignment": round(self.alignment, 4),
            "created": self.created,
        }
        if self.stone_reader is not None:
            out["reader"] = self.stone_reader
        if self.empty_gray is not None and self.empty_tint is not None:
            out["empty"] = {
                "gray": [round(v, 1) for v in self.empty_gray],
                "tint": [[round(a, 4), round(b, 4)] for a, b in self.empty_tint],
            }
            if self.empty_patches is not None:
                out["empty"]["patch_side"] = PATCH_SIDE
                out["empty"]["patches"] = base64.b64encode(self.empty_patches.tobytes()).decode()
        return out

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON (number lists kept on one line, so it stays readable)."""
        text = json.dumps(self.to_json(), indent=1)
        text = re.sub(
            r"\[\s*([-+\deE.,\s]+?)\s*\]",
            lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
            text,
        )
        try:
            Path(path).write_text(text + "\n")
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot write ({exc.strerror})") from exc


def grid_alignment(gray: NDArray[np.uint8], reg: GridRegion) -> float:
    """Darkness of points on grid lines relative to cell centres (upper quartile over cells)."""
    from companion.vision.geometry import homography

    H = homography(as_corners(reg.corners), reg.width, reg.height)
    ys, xs = np.mgrid[0 : reg.height - 1, 0 : reg.width - 1].astype(np.float64)
    centres = np.stack([xs + 0.5, ys + 0.5], axis=-1).reshape(-1, 2)
    on_h = np.stack([xs + 0.5, ys], axis=-1).reshape(-1, 2)  # on horizontal lines
    on_v = np.stack([xs, ys + 0.5], axis=-1).reshape(-1, 2)
    pts = np.concatenate([centres, on_h, on_v])
    uv = project(H, pts).astype(np.float32).reshape(1, -1, 2)
    vals = cv2.remap(
        gray, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    vals = vals.reshape(-1).astype(np.float64)
    k = len(centres)
    c, lines = vals[:k], vals[k:].reshape(2, k)
    # per cell: the cell centre versus the mean of its two line samples; stones give ~0, so
    # the upper quartile (not the median) keeps a crowded board from looking "moved"
    diff = (c - lines.mean(axis=0)) / np.maximum(c, 1.0)
    return float(np.percentile(diff, 75))


def _check_keys(data: Any, allowed: set[str], where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: must be an object")
    extra = set(data) - allowed
    if extra:
        raise CalibrationError(f"{where}: unknown key(s) {', '.join(sorted(map(str, extra)))}")
    return data


#: A profile file: a 5,000-spot board's empty patches take about 0.5 MB of base64.
MAX_PROFILE_BYTES = 8 * MB
#: Frames are at most this many pixels a side (a 12 MP camera gives 4056 x 3040).
MAX_IMAGE_SIDE = 20_000


def _num(value: Any, where: str, low: float, high: float, *, whole: bool = False) -> Any:
    return number(value, where=where, error=CalibrationError, low=low, high=high, whole=whole)


def _list(value: Any, where: str, *, size: int | None = None, most: int = MAX_SPOTS) -> list[Any]:
    if not isinstance(value, list):
        raise CalibrationError(f"{where}: must be a list")
    if size is not None and len(value) != size:
        count = {2: "two", 4: "four"}.get(size, str(size))
        raise CalibrationError(f"{where}: must hold {count} values, not {len(value)}")
    if len(value) > most:
        raise CalibrationError(f"{where}: {len(value)} entries, at most {most}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > 1000:
        raise CalibrationError(f"{where}: must be text (at most 1000 characters)")
    return value


def _points(value: Any, where: str, reach: float, *, size: int | None = None) -> tuple[Any, ...]:
    return tuple(
        (
            float(_num(xy[0], f"{where}[{i}].x", -reach, reach)),
            float(_num(xy[1], f"{where}[{i}].y", -reach, reach)),
        )
        for i, xy in enumerate(_list(value, where, size=size))
        if _list(xy, f"{where}[{i}]", size=2)
    )


def _grid_region(r: dict[str, Any], where: str, reach: float) -> GridRegion:
    _check_keys(r, _GRID_KEYS, where)
    corners = _points(r.get("corners"), f"{where}.corners", reach, size=4)
    as_corners(corners)
    off = _check_keys(r.get("offset", {}), {"a", "b"}, f"{where}.offset")
    b = _list(off.get("b", [0.0, 0.0]), f"{where}.offset.b", size=2)
    return GridRegion(
        corners=corners,
        width=int(_num(r.get("width"), f"{where}.width", MIN_GRID, MAX_GRID, whole=True)),
        height=int(_num(r.get("height"), f"{where}.height", MIN_GRID, MAX_GRID, whole=True)),
        layer=int(_num(r.get("layer", 0), f"{where}.layer", 0, MAX_LAYERS - 1, whole=True)),
        offset=Offset(
            float(_num(off.get("a", 0.0), f"{where}.offset.a", -1e3, 1e3)),
            (
                float(_num(b[0], f"{where}.offset.b[0]", -reach, reach)),
                float(_num(b[1], f"{where}.offset.b[1]", -reach, reach)),
            ),
        ),
    )


def _reader_name(value: Any, where: str) -> str | None:
    if value is None:
        return None
    try:
        return check_reader(value)
    except CompanionError as exc:
        raise CalibrationError(f"{where}: {exc}") from None


def parse_profile(data: Any, *, name: str = "profile") -> Profile:
    """A :class:`Profile` from parsed JSON; :class:`CalibrationError` if anything is off.

    Every number is checked for type and range before it is used (a corner at 1e308, a spot at
    -Infinity, 100,000 layers are refused), so nothing is built from a value out of bounds.
    """
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"{name}: not a {FORMAT} file")
        if data.get("version") != VERSION:
            raise CalibrationError(f"{name}: version {data.get('version')!r} is not {VERSION}")
        _check_keys(data, _TOP_KEYS, name)
        board = _text(data.get("board"), f"{name}: board")
        size = _list(data.get("image_size"), f"{name}: image_size", size=2)
        w, h = (int(_num(v, f"{name}: image_size", 16, MAX_IMAGE_SIDE, whole=True)) for v in size)
        reach = 10.0 * max(w, h)  # corners and spots may lie a little outside the frame
        regions: list[GridRegion | SpotRegion] = []
        for i, r in enumerate(_list(data.get("regions"), f"{name}: regions", most=MAX_LAYERS)):
            where = f"{name}: region {i}"
            if not isinstance(r, dict):
                raise CalibrationError(f"{where}: must be an object")
            if r.get("kind") == "grid":
                regions.append(_grid_region(r, where, reach))
            elif r.get("kind") == "spots":
                _check_keys(r, _SPOT_KEYS, where)
                spots = _points(r.get("spots"), f"{where}.spots", reach)
                spacing = float(_num(r.get("spacing"), f"{where}.spacing", 0.1, reach))
                regions.append(SpotRegion(spots=spots, spacing=spacing))
            else:
                raise CalibrationError(f"{where}: kind must be 'grid' or 'spots'")
        if not regions:
            raise CalibrationError(f"{name}: no regions")
        light = _check_keys(data.get("light", {}), {"gray", "tint_r", "tint_g"}, f"{name}: light")
        prof = Profile(
            board=board,
            image_size=(w, h),
            regions=regions,
            name=_text(data.get("name", ""), f"{name}: name"),
            light={k: float(_num(v, f"{name}: light.{k}", -1e6, 1e6)) for k, v in light.items()},
            alignment=float(_num(data.get("alignment", 0.0), f"{name}: alignment", -1e3, 1e3)),
            created=_text(data.get("created", ""), f"{name}: created"),
            stone_reader=_reader_name(data.get("reader"), f"{name}: reader"),
        )
        if "empty" in data:
            empty = _check_keys(
                data["empty"], {"gray", "tint", "patch_side", "patches"}, f"{name}: empty"
            )
            prof.empty_gray = [
                float(_num(v, f"{name}: empty.gray", -1e6, 1e6))
                for v in _list(empty.get("gray"), f"{name}: empty.gray")
            ]
            prof.empty_tint = list(_points(empty.get("tint"), f"{name}: empty.tint", 1e6))
            if "patches" in empty:
                side = _num(empty.get("patch_side", PATCH_SIDE), f"{name}: patch_side", 1, 64)
                if side != PATCH_SIDE:
                    raise CalibrationError(f"{name}: patch_side {side} is not {PATCH_SIDE}")
                text = empty["patches"]
                if not isinstance(text, str) or len(text) > 4 * MAX_SPOTS * side * side:
                    raise CalibrationError(f"{name}: empty patches must be base64 text")
                raw = base64.b64decode(text, validate=True)
                if len(raw) != len(prof.empty_gray) * side * side:
                    raise CalibrationError(f"{name}: empty patches are not one per spot")
                prof.empty_patches = (
                    np.frombuffer(raw, dtype=np.uint8).reshape(-1, side, side).copy()
                )
        topo = prof.topology()
        n = len(topo)
        for r in regions:
            if isinstance(r, GridRegion) and topo.shape is not None:
                layers, th, tw = topo.shape
                if (r.height, r.width) != (th, tw) or not 0 <= r.layer < layers:
                    raise CalibrationError(
                        f"{name}: a {r.width}x{r.height} region (layer {r.layer}) is not part "
                        f"of board {board}"
                    )
        ids = prof.spot_ids()
        if len(set(ids)) != len(ids):
            raise CalibrationError(f"{name}: two regions cover the same spots")
        if any(isinstance(r, SpotRegion) for r in regions) and len(ids) != n:
            raise CalibrationError(f"{name}: regions cover {len(ids)} spots, board {board} has {n}")
        if len(ids) > n or (ids and max(ids) >= n):
            raise CalibrationError(f"{name}: regions cover {len(ids)} spots, board {board} has {n}")
        seen = len(ids)
        if prof.empty_gray is not None and (
            len(prof.empty_gray) != seen or len(prof.empty_tint or []) != seen
        ):
            raise CalibrationError(f"{name}: empty appearance is not one value per seen spot")
        return prof
    except CalibrationError:
        raise
    except CompanionError as exc:
        raise CalibrationError(f"{name}: {exc}") from exc
    except (binascii.Error, ValueError) as exc:
        raise CalibrationError(f"{name}: malformed ({exc})") from exc


def read_profile(data: bytes | str, *, name: str = "profile") -> Profile:
    """A profile from file contents (bounded: size, nesting, numbers); CalibrationError."""
    parsed = parse_json(data, name=name, error=CalibrationError, limit=MAX_PROFILE_BYTES)
    return parse_profile(parsed, name=name)


def load_profile(path: str | Path) -> Profile:
    """Read a profile file; CalibrationError (never OSError) naming the file and the fault."""
    p = Path(path)
    data = read_file(p, limit=MAX_PROFILE_BYTES, error=CalibrationError, what="profile")
    return read_profile(data, name=str(p))


def combine(observations: Sequence[Observation]) -> Observation:
    """One reading from several cameras' readings of the same board (e.g. one per layer).

    Per spot: the known readings; where cameras disagree, ``?`` (never a guess).
    """
    if not observations:
        raise CalibrationError("nothing to combine")
    n = len(observations[0])
    if any(len(o) != n for o in observations):
        raise CalibrationError("observations of different boards")
    states: list[str] = []
    conf: list[float] = []
    for i in range(n):
        known = [(o.states[i], o.confidence[i]) for o in observations if o.states[i] != "?"]
        tokens = {t for t, _ in known}
        if len(tokens) == 1:
            states.append(known[0][0])
            conf.append(max(c for _, c in known))
        else:
            states.append("?")
            conf.append(0.0)
    return Observation(
        states=tuple(states),
        confidence=tuple(conf),
        timestamp=max(o.timestamp for o in observations),
        source="+".join(o.source for o in observations),
    )
