"""The camera loop: frames -> board reader -> tracker -> session, and the annotated picture.

:class:`CameraTable` runs on its own thread. For each frame of a source
(:func:`companion.sources.open_source`: ``picam``, ``usb:N``, ``video:PATH``, ``dir:PATH``) it
reads the stones with a calibration profile (:mod:`companion.vision.profile`; made from the
first frame, with given corners or by finding the board, when none is given), feeds the
observation to the :class:`~companion.table.tracker.Tracker` and applies its intents to the
session. It keeps the latest raw frame (for the calibration page) and an annotated JPEG (the grid
it reads and what it reads at each point) for the camera page.

A camera that fails is retried by :class:`~companion.sources.RetryingSource`; a frame that cannot
be read is skipped (the page says so); nothing here raises into the table.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError, IllegalMove, SourceEnded
from companion.games.go import GoGame
from companion.observation import Observation
from companion.table.session import TableSession

#: Ring colours (BGR) for what is read at a point: black stones magenta, white stones blue,
#: unsure orange with a "?"; the detected grid is drawn in green.
_COLOURS = {"B": (255, 0, 255), "W": (255, 128, 0), "?": (0, 165, 255)}


def _px(point: Sequence[float]) -> tuple[int, int]:
    return int(float(point[0]) + 0.5), int(float(point[1]) + 0.5)


def annotate(
    image: np.ndarray[Any, Any],
    points: np.ndarray[Any, Any],
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
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise CompanionError("cannot encode the camera picture")
    return bytes(data.tobytes())


class CameraTable:
    """Reads a frame source into a table session on a thread (see the module docstring).

    ``profile`` is a profile path; else ``corners`` (TL, TR, BR, BL corner intersections of a
    square grid, in pixels); else the board is found on the first frame. ``board`` is the
    topology spec the camera looks at (grids; maps need a profile). ``picture_every``: seconds
    (wall time) between annotated pictures for the camera page; 0 makes one every frame, more
    spares the loop that work (about as long as reading the board) on the frames in between.
    """

    def __init__(
        self,
        table: TableSession,
        source: str,
        *,
        board: str = "19",
        profile: str | Path | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        still_time: float = 0.5,
        open_source: Callable[..., Any] | None = None,
        picture_every: float = 0.0,
    ) -> None:
        self.table = table
        self.source_spec = source
        self.board = board
        self.profile_path = profile
        self.corners = corners
        self.still_time = still_time
        self.picture_every = picture_every
        self._picture_at: float | None = None
        self._open = open_source
        self.profile: Any = None
        self.still: np.ndarray[Any, Any] | None = None
        self.note = "starting the camera"
        self.frames = 0
        self.ended = False
        #: Called with each observation read in play and its time, after the tracker's
        #: intents for it were applied (the clock panel watches the board this way).
        self.observers: list[Callable[[Observation, float], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<CameraTable {self.source_spec!r} frames={self.frames} {self.note!r}>"

    # ------------------------------------------------------------------ calibration
    def set_profile(self, profile: Any) -> None:
        """Use a new calibration from the next frame on (the calibration page saves one)."""
        with self._lock:
            self.profile = profile

    def _ensure_profile(self, image: np.ndarray[Any, Any]) -> Any:
        from companion.vision.profile import calibrate, load_profile

        with self._lock:
            if self.profile is None:
                if self.profile_path is not None:
                    self.profile = load_profile(self.profile_path)
                else:
                    quads = [self.corners] if self.corners is not None else None
                    self.profile = calibrate(image, board=self.board, corners=quads, empty=False)
            return self.profile

    def read_board(self, image: np.ndarray[Any, Any]) -> Observation:
        """Read one frame's stones, without the picture (CompanionError when the board cannot
        be found or read)."""
        obs: Observation = self._ensure_profile(image).read(image)
        return obs

    def read(self, image: np.ndarray[Any, Any]) -> tuple[Observation, bytes]:
        """Read one frame: the observation and the annotated JPEG (CompanionError when the
        board cannot be found or read)."""
        obs = self.read_board(image)
        profile = self._ensure_profile(image)
        points, spacing = self.points(profile, len(obs))
        links = list(profile.topology().links())
        return obs, annotate(image, points, spacing, obs, links)

    @staticmethod
    def points(profile: Any, n: int) -> tuple[np.ndarray[Any, Any], float]:
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

    # ------------------------------------------------------------------ the loop
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _live(self) -> GoGame:
        game = self.table.go_state().game
        if game is None:
            raise CompanionError("no game")
        return game

    def _source(self) -> Any:
        from companion.sources import RetryingSource, open_source

        opener = self._open or open_source
        if self.source_spec.split(":")[0] in ("picam", "usb"):
            return RetryingSource(lambda: opener(self.source_spec))
        return opener(self.source_spec)

    def run_frames(self, frames: Any, *, clock: Callable[[], float] = time.monotonic) -> None:
        """Process frames until they end or :meth:`stop` (used by the thread and by tests)."""
        from companion.table.tracker import Tracker

        tracker = Tracker(self._live, still_time=self.still_time, max_unknown=0.05)
        for frame in frames:
            if self._stop.is_set():
                return
            self.still = frame.image
            self.frames += 1
            picture = self._picture_due()
            try:
                if picture:
                    obs, jpeg = self.read(frame.image)
                else:
                    obs, jpeg = self.read_board(frame.image), None
            except CompanionError as exc:
                self.note = f"cannot read the board: {exc}"
                ok, data = cv2.imencode(".jpg", frame.image)
                self.table.frame = bytes(data.tobytes()) if ok else None
                continue
            self.note = f"reading {obs.unknown} unknown spot(s)" if obs.unknown else "reading"
            if self._moved_check_due() and self._ensure_profile(frame.image).moved(frame.image):
                # Readings through a stale calibration are not trusted to be right; the
                # tracker holds the game on the mass change it causes, and this says why.
                self.note = (
                    "the board or the camera seems to have moved since calibration: "
                    "recalibrate (Calibrate page) if the reads look wrong"
                )
            if jpeg is not None:
                self.table.frame = jpeg
            if self.table.state.phase != "play":
                continue
            now = clock()
            try:
                for intent in tracker.update(obs, now):
                    self.table.apply(intent)
            except IllegalMove as exc:
                self.note = f"the table refused what the camera saw: {exc}"
            for observer in self.observers:
                observer(obs, now)

    def _moved_check_due(self) -> bool:
        """At most one calibration check every two seconds (it costs about a millisecond)."""
        now = time.monotonic()
        last = getattr(self, "_moved_at", None)
        if last is not None and now - last < 2.0:
            return False
        self._moved_at = now
        return True

    def _picture_due(self) -> bool:
        now = time.monotonic()
        if self._picture_at is None or now - self._picture_at >= self.picture_every:
            self._picture_at = now
            return True
        return False

    def _held(self, source: Any) -> Any:
        """A folder of photos is a series of still views: each photo is shown for one second
        (four frames), so the tracker sees it still."""
        for frame in source:
            for _ in range(4):
                if self._stop.wait(0.25):
                    return
                yield frame

    def _run(self) -> None:
        try:
            with self._source() as source:
                still = self.source_spec.startswith("dir:")
                self.run_frames(self._held(source) if still else iter(source))
                self.note = "the frame source ended"
        except SourceEnded:
            pass
        except CompanionError as exc:
            self.note = f"camera stopped: {exc}"
        self.ended = True
