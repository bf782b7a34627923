"""The camera input: frames from a :mod:`companion.sources` frame source, read into board views.

One class for the Pi camera, a USB webcam, a folder of photos and a video. Live cameras are
retried when they fail (:class:`~companion.sources.RetryingSource`); a frame that cannot be read
is noted (the page says so) and its raw picture still shown. The input keeps the latest raw frame
(:attr:`FrameInput.still`) and the profile, which the calibration page reads and replaces.

Time: live, each frame is judged at the loop's clock, and a folder's photo is held for a second
(four frames) so the tracker sees it still. A *recording* (``companion run`` and ``track`` on a
folder or a video) runs as fast as it can be read, on its own clock: a photo is seen twice,
``still_time`` apart, one second after the previous one; a video frame at ``index / fps``.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import CameraUnavailable, CompanionError, InputError, SourceEnded
from companion.games.topology import Topology
from companion.observation import UNKNOWN, Observation
from companion.runtime.inputs import Feed, Input, InputOptions, Sample
from companion.runtime.reading import BoardReader, ProfileReader, jpeg, profile_points

#: Seconds between calibration checks (a check costs about a millisecond).
MOVED_CHECK_EVERY = 2.0


class FrameInput(Input):
    """Frames of ``spec`` (``picam[:N]``, ``usb:N``, ``dir:PATH``, ``video:PATH``) read by
    ``reader`` (default: a :class:`~companion.runtime.reading.ProfileReader` for ``board`` from
    ``profile``, else ``corners``, else found on the first frame; ``stone_reader`` names the
    stone reader, else the profile's own choice).

    ``picture_every``: seconds (wall time) between annotated pictures for the camera page; 0
    makes one every frame. ``frames`` replaces the source with given frames (benches, tests).
    """

    kind = "frames"

    def __init__(
        self,
        spec: str,
        *,
        board: str = "19",
        profile: str | Path | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        still_time: float | None = None,
        max_unknown: float = 0.05,
        infer_passes: bool = False,
        fps: float | None = None,
        recording: bool = False,
        picture_every: float = 0.0,
        reader: BoardReader | None = None,
        stone_reader: str | None = None,
        frames: Iterable[Any] | None = None,
    ) -> None:
        if still_time is None:
            still_time = 0.2 if recording else 0.5
        super().__init__(
            spec,
            still_time=still_time,
            max_unknown=max_unknown,
            infer_passes=infer_passes,
            board=board,
        )
        self.word, _, self.argument = spec.partition(":")
        self.recording = recording and self.word in ("dir", "video")
        if fps is not None and not fps > 0:
            raise InputError("the frame rate must be positive")
        self.fps = fps or 30.0
        self.picture_every = picture_every
        self.reader: BoardReader = reader or ProfileReader(
            board, profile_path=profile, corners=corners, stone_reader=stone_reader
        )
        self._given = frames
        self.still: np.ndarray[Any, Any] | None = None
        self.frames = 0
        self.ended = False
        self.note = "starting the camera"
        self._picture_at: float | None = None
        self._moved_at: float | None = None

    @classmethod
    def from_spec(cls, word: str, arg: str, options: InputOptions) -> FrameInput:
        """Build from a parsed spec; InputError for a malformed camera number."""
        if word in ("picam", "usb") and arg and not arg.isdigit():
            raise InputError(f"{word} needs a device number ({word}:0), not {word}:{arg}")
        tracker = options.tracker(0.2 if options.recording else 0.5, 0.05, False)
        return cls(
            f"{word}:{arg}" if arg else word,
            board=options.board or "19",
            profile=options.profile,
            corners=options.corners,
            fps=options.fps,
            recording=options.recording,
            picture_every=options.picture_every,
            stone_reader=options.stone_reader,
            **tracker,
        )

    # ------------------------------------------------------------------ for the pages
    @property
    def live(self) -> bool:
        """A camera (retried, never ending) rather than a folder or a video."""
        return self.word in ("picam", "usb")

    @property
    def profile(self) -> Any:
        """The calibration in use (None before the first frame without a profile file)."""
        return getattr(self.reader, "profile", None)

    def set_profile(self, profile: Any) -> None:
        """Use a new calibration from the next frame on (the calibration page saves one)."""
        setter = getattr(self.reader, "set_profile", None)
        if setter is None:
            raise InputError("this input's board is found on each photo, not calibrated")
        setter(profile)

    @staticmethod
    def points(profile: Any, n: int) -> tuple[np.ndarray[Any, Any], float]:
        """Pixel position of every spot under ``profile``, and the spacing between spots."""
        return profile_points(profile, n)

    def topology(self) -> Topology | None:
        return self.reader.topology()

    def read_board(self, image: np.ndarray[Any, Any]) -> Observation:
        """Read one frame's stones (CompanionError when the board cannot be found or read)."""
        return self.reader.read(image)

    def read(self, image: np.ndarray[Any, Any]) -> tuple[Observation, bytes | None]:
        """Read one frame: the observation and the annotated JPEG (CompanionError when the
        board cannot be found or read)."""
        obs = self.read_board(image)
        return obs, self.reader.picture(image, obs)

    # ------------------------------------------------------------------ start
    def fit(self, board: str) -> None:
        super().fit(board)
        if isinstance(self.reader, ProfileReader):
            self.reader.board = board

    def check(self) -> None:
        if self._given is not None:
            return
        path = Path(self.argument)
        if self.word == "dir" and not path.is_dir():
            raise InputError(f"cannot list {path}: no such folder")
        if self.word == "video" and not path.is_file():
            raise InputError(f"no video file {path}")
        if self.word == "picam" and importlib.util.find_spec("picamera2") is None:
            raise CameraUnavailable(
                "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
                "python3-picamera2` and make the venv with --system-site-packages"
            )
        if self.live:
            from companion.sources import open_source

            try:
                open_source(self.spec).close()
            except CameraUnavailable as exc:
                self.note = f"{exc}; trying again until it answers"

    def _source(self, feed: Feed) -> Any:
        from companion.sources import RetryingSource, open_source

        if not self.live:
            return open_source(self.spec)

        def back_off(seconds: float) -> None:
            # A camera being retried must not hold up a stop: end the frames instead.
            if not feed.wait(seconds):
                raise SourceEnded(f"{self.spec}: stopped while retrying")

        return RetryingSource(lambda: open_source(self.spec), name=self.spec, sleep=back_off)

    # ------------------------------------------------------------------ frames
    def _timed(self, feed: Feed) -> Iterator[tuple[Any, float | None]]:
        """Frames with their time on the recording's clock (None: the loop's clock)."""
        if self._given is not None:
            for frame in self._given:
                yield frame, None
            return
        with self._source(feed) as source:
            for frame in source:
                if self.word == "dir" and self.recording:
                    at = frame.index * (self.still_time + 1.0)
                    yield frame, at
                    yield frame, at + self.still_time + 0.01
                elif self.word == "video" and self.recording:
                    yield frame, frame.index / self.fps
                elif self.word == "dir":
                    for _ in range(4):  # a photo is a still view held for a second
                        if not feed.wait(0.25):
                            return
                        yield frame, None
                else:
                    yield frame, None

    def samples(self, feed: Feed) -> Iterator[Sample]:
        try:
            for frame, at in self._timed(feed):
                yield self._sample(frame, at)
            self.note = "the frame source ended"
        except SourceEnded:
            self.note = "the frame source ended"
        finally:
            self.ended = True

    def _sample(self, frame: Any, at: float | None) -> Sample:
        image = frame.image
        name = getattr(frame, "name", "") or f"frame {getattr(frame, 'index', self.frames)}"
        self.still = image
        self.frames += 1
        try:
            if self._picture_due():
                obs, picture = self.read(image)
            else:
                obs, picture = self.read_board(image), None
        except CompanionError as exc:
            self.note = f"cannot read the board: {exc}"
            topology = self.reader.topology()
            unknown = None
            if self.recording and topology is not None:
                # A recording's unreadable view is a view of unknowns: it breaks stillness.
                n = len(topology)
                unknown = Observation((UNKNOWN,) * n, (0.0,) * n)
            return Sample(name, unknown, at=at, picture=jpeg(image), unreadable=True)
        self.note = f"reading {obs.unknown} unknown spot(s)" if obs.unknown else "reading"
        if self._moved_check_due() and self.reader.moved(image):
            # Readings through a stale calibration are not trusted to be right; the tracker
            # holds the game on the mass change it causes, and this says why.
            self.note = (
                "the board or the camera seems to have moved since calibration: "
                "recalibrate (Calibrate page) if the reads look wrong"
            )
        return Sample(name, obs, at=at, picture=picture)

    def _moved_check_due(self) -> bool:
        now = time.monotonic()
        if self._moved_at is not None and now - self._moved_at < MOVED_CHECK_EVERY:
            return False
        self._moved_at = now
        return True

    def _picture_due(self) -> bool:
        now = time.monotonic()
        if self._picture_at is None or now - self._picture_at >= self.picture_every:
            self._picture_at = now
            return True
        return False


def find_camera() -> str | None:
    """The camera to use when none is named: the Pi camera when picamera2 is installed and sees
    one, else the first USB webcam (of the first two) that gives a frame; None when none does."""
    from companion.sources import open_source

    candidates = ["picam"] if importlib.util.find_spec("picamera2") is not None else []
    candidates += [f"usb:{dev.name[5:]}" for dev in sorted(Path("/dev").glob("video[0-9]*"))][:2]
    for spec in candidates:
        try:
            with open_source(spec) as source:
                source.read()
            return spec
        except (CameraUnavailable, ValueError, ImportError, RuntimeError):
            continue
    return None
