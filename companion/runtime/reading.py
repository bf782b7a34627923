"""Board readers for camera frames: a calibrated profile (the table's), or the board found on
photos (``companion track``), plus the annotated picture the camera page shows.

Both call the vision package as it is (:mod:`companion.vision.profile`,
:mod:`companion.vision.pipeline`); they only decide *when* the board is found and keep what was
found, so the frame input stays one class whichever way its board is read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.games.topology import Topology, grid
from companion.observation import Observation

Image = np.ndarray[Any, Any]

#: Ring colours (BGR) for what is read at a point: black stones magenta, white stones blue,
#: unsure orange with a "?"; the detected grid is drawn in green.
_COLOURS = {"B": (255, 0, 255), "W": (255, 128, 0), "?": (0, 165, 255)}


class BoardReader(Protocol):
    """What the frame input asks of a reader."""

    def read(self, image: Image) -> Observation:
        """The stones in ``image``; CompanionError when the board cannot be found or read."""
        ...

    def topology(self) -> Topology | None:
        """The board read, once known."""
        ...

    def picture(self, image: Image, obs: Observation) -> bytes | None:
        """A JPEG of ``image`` with what was read drawn on it, or None."""
        ...

    def moved(self, image: Image) -> bool:
        """Whether the board or camera seems to have moved since the board was found."""
        ...


def _px(point: Sequence[float]) -> tuple[int, int]:
    return int(float(point[0]) + 0.5), int(float(point[1]) + 0.5)


def jpeg(image: Image, quality: int = 80) -> bytes | None:
    """``image`` as JPEG bytes (None when OpenCV cannot encode it)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return bytes(data.tobytes()) if ok else None


def annotate(
    image: Image,
    points: Image,
    scale: float,
    obs: Observation | None,
    links: Sequence[tuple[int, int]] = (),
) -> bytes:
    """A JPEG of ``image`` with the detected grid (``links`` between ``points``, green) and
    the read at each point drawn on it."""
    out = image.copy()
    width = max(1, int(scale / 12))
    for a, b in links:
        cv2.line(out, _px(points[a]), _px(points[b]), (60, 200, 60), width, cv2.LINE_AA)
    r = max(3, int(scale * 0.42))
    for spot, (x, y) in enumerate(points):
        token = obs.states[spot] if obs is not None else "."
        if token == ".":
            continue
        centre = _px((x, y))
        colour = _COLOURS[token]
        cv2.circle(out, centre, r, colour, max(2, width * 2), cv2.LINE_AA)
        if token == "?":
            cv2.putText(out, "?", (centre[0] - r // 2, centre[1] + r // 2),
                        cv2.FONT_HERSHEY_SIMPLEX, max(0.4, r / 14), colour, 2)  # fmt: skip
    data = jpeg(out)
    if data is None:
        raise CompanionError("cannot encode the camera picture")
    return data


def profile_points(profile: Any, n: int) -> tuple[Image, float]:
    """Pixel position of every spot under ``profile``, and the spacing between spots."""
    from companion.vision.geometry import project

    points = np.zeros((n, 2))
    spacing = 10.0
    for region in profile.stone_regions():
        pixels = project(region.H, region.points)
        for spot, pixel in zip(region.spots, pixels, strict=True):
            points[spot] = pixel
        if len(pixels) > 1:
            spacing = float(np.linalg.norm(pixels[1] - pixels[0]))
    return points, spacing


class ProfileReader:
    """Reads through a calibration profile: the file ``profile_path``, else one made from
    ``corners`` (TL, TR, BR, BL corner intersections of each grid), else the board found on the
    first frame. The calibration page can swap the profile while the loop runs. ``stone_reader``
    (``classic`` or ``net``) overrides the profile's own choice of stone reader."""

    def __init__(
        self,
        board: str = "19",
        *,
        profile_path: str | Path | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        stone_reader: str | None = None,
    ) -> None:
        self.board = board
        self.profile_path = profile_path
        self.corners = corners
        self.stone_reader = stone_reader
        self.profile: Any = None
        self._lock = threading.Lock()

    def set_profile(self, profile: Any) -> None:
        """Use a new calibration from the next frame on."""
        with self._lock:
            self.profile = profile.with_reader(self.stone_reader)

    def ensure(self, image: Image) -> Any:
        """The profile, made or loaded on first use (CompanionError when it cannot be)."""
        from companion.vision.make_profile import calibrate
        from companion.vision.profile import load_profile

        with self._lock:
            if self.profile is None:
                if self.profile_path is not None:
                    profile = load_profile(self.profile_path)
                else:
                    quads = [self.corners] if self.corners is not None else None
                    profile = calibrate(image, board=self.board, corners=quads, empty=False)
                self.profile = profile.with_reader(self.stone_reader)
            return self.profile

    def read(self, image: Image) -> Observation:
        obs: Observation = self.ensure(image).read(image)
        return obs

    def topology(self) -> Topology | None:
        profile = self.profile
        return None if profile is None else profile.topology()

    def picture(self, image: Image, obs: Observation) -> bytes | None:
        profile = self.ensure(image)
        points, spacing = profile_points(profile, len(obs))
        return annotate(image, points, spacing, obs, list(profile.topology().links()))

    def moved(self, image: Image) -> bool:
        return bool(self.ensure(image).moved(image))


class PhotoReader:
    """Finds the board with the photo reader: on every photo (``refind``: separate photos, the
    camera may have moved between them), or once, then reads every frame with the reader built
    there (a camera or video that does not move). ``warn`` hears where the board was found;
    ``stone_reader`` names the stone reader (default: the default one)."""

    def __init__(
        self,
        *,
        size: int | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        refind: bool = True,
        source: str = "camera",
        warn: Callable[[str], None] = lambda text: None,
        stone_reader: str | None = None,
    ) -> None:
        from companion.vision.read_stones import DEFAULT_READER, check_reader

        self.stone_reader = check_reader(stone_reader or DEFAULT_READER)
        self.source = source
        self.size = size
        self.corners = corners
        self.refind = refind
        self.warn = warn
        self._topology: Topology | None = None
        self._reader: Any = None

    def read(self, image: Image) -> Observation:
        from companion.vision.pipeline import read_photo
        from companion.vision.read_stones import Region, StoneReader, estimate_offset

        if self._reader is not None:
            obs: Observation = self._reader.read(image, source=self.source)
            return obs
        reading = read_photo(image, size=self.size, corners=self.corners, reader=self.stone_reader)
        self.size = reading.size
        if self._topology is None:
            self._topology = grid(reading.size)
        if not self.refind:
            if self.corners is None:
                found = [[round(float(v)) for v in p] for p in reading.corners]
                self.warn(f"board found at {found}")
            region = Region.grid(reading.corners, reading.size)
            if self.stone_reader == "classic":
                region = region.with_offset(estimate_offset(image, region))
            height, width = image.shape[:2]
            self._reader = StoneReader([region], (width, height), reader=self.stone_reader)
        return reading.observation

    def topology(self) -> Topology | None:
        return self._topology

    def picture(self, image: Image, obs: Observation) -> bytes | None:
        return None

    def moved(self, image: Image) -> bool:
        return False
