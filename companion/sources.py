"""Frame sources: the Pi camera, a USB webcam, a folder of photos or a video, behind one interface.

:func:`open_source` is the one place that turns a ``--source`` text into a source. Every source
is a context manager whose :meth:`~FrameSource.read` returns a :class:`Frame` (a BGR image as
OpenCV uses it, plus a monotonic timestamp) or raises:

- :class:`~companion.errors.CameraUnavailable` when the device is absent, unplugged or stops
  answering (retryable: wrap the opener in :class:`RetryingSource`);
- :class:`~companion.errors.SourceEnded` when a folder or video has no more frames (not a fault).

picamera2 comes from apt on Raspberry Pi OS and cannot be pip-installed elsewhere, so it is
imported only when a :class:`PicameraSource` is constructed.
"""

from __future__ import annotations

import logging
import math
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.closeable import Closeable
from companion.errors import CameraUnavailable, SourceEnded, VisionError
from companion.vision.imagefile import load_image

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


@dataclass(frozen=True)
class Frame:
    """One image: ``image`` is H x W x 3 uint8 in BGR order; ``timestamp`` monotonic seconds."""

    image: np.ndarray[Any, Any]
    timestamp: float
    index: int
    source: str
    name: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False, repr=False)


class FrameSource(Closeable, ABC):
    """Base of every source. ``read`` raises CameraUnavailable or SourceEnded (see module)."""

    def __init__(self, name: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self._clock = clock
        self.frames = 0
        self.closed = False

    @abstractmethod
    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        """The next image and its name; raise CameraUnavailable or SourceEnded."""

    def read(self) -> Frame:
        """The next frame. Raises CameraUnavailable (device gone) or SourceEnded (no more)."""
        if self.closed:
            raise CameraUnavailable(f"{self.name} is closed")
        image, name = self._read_image()
        frame = Frame(image, self._clock(), self.frames, self.name, name)
        self.frames += 1
        return frame

    def __iter__(self) -> Iterator[Frame]:
        """Frames until SourceEnded (CameraUnavailable propagates)."""
        while True:
            try:
                yield self.read()
            except SourceEnded:
                return

    def close(self) -> None:
        """Release the device (idempotent)."""
        self.closed = True

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"frames={self.frames}"
        return f"<{type(self).__name__} {self.name!r} {state}>"


# --- the Pi camera ----------------------------------------------------------------------------


class PicameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (apt: ``python3-picamera2``).

    After start-up the auto exposure and white balance are left to settle (``ExposureTime``,
    ``AnalogueGain`` and ``ColourGains`` in the frame metadata all within ``tolerance`` of the
    previous frame's for ``stable_frames`` frames, at most ``settle_frames`` frames), then locked
    at those values (``AeEnable``/``AwbEnable`` False), so the board's colours do not drift
    when a hand or a shadow passes. ``"RGB888"`` in picamera2 is BGR in memory, as OpenCV wants.
    """

    def __init__(
        self,
        camera: int = 0,
        *,
        size: tuple[int, int] = (2028, 1520),
        lock: bool = True,
        settle_frames: int = 60,
        stable_frames: int = 3,
        tolerance: float = 0.02,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(f"picam:{camera}", clock=clock)
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraUnavailable(
                "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
                "python3-picamera2` and make the venv with --system-site-packages"
            ) from exc
        self.locked: dict[str, Any] = {}
        self._cam: Any = None
        try:
            cam = Picamera2(camera)
            self._cam = cam
            cam.configure(cam.create_video_configuration(main={"size": size, "format": "RGB888"}))
            cam.start()
        except Exception as exc:  # picamera2 raises IndexError/RuntimeError for a missing camera
            self.close()
            raise CameraUnavailable(f"cannot start the Pi camera {camera}: {exc}") from exc
        if lock:
            self.lock_exposure(
                settle_frames=settle_frames, stable_frames=stable_frames, tolerance=tolerance
            )

    def lock_exposure(
        self, *, settle_frames: int = 60, stable_frames: int = 3, tolerance: float = 0.02
    ) -> dict[str, Any]:
        """Wait for AE/AWB to settle, then lock them; returns the controls set. If they never
        settle within ``settle_frames`` the last values are locked and a warning logged."""
        keys = ("ExposureTime", "AnalogueGain", "ColourGains")
        previous: dict[str, Any] | None = None
        steady = 0
        md: dict[str, Any] = {}
        for _ in range(max(1, settle_frames)):
            md = self._call("capture_metadata")
            if previous is not None and all(
                _close(md.get(k), previous.get(k), tolerance) for k in keys
            ):
                steady += 1
                if steady >= stable_frames:
                    break
            else:
                steady = 0
            previous = md
        else:
            log.warning("%s: exposure/white balance did not settle; locking anyway", self.name)
        missing = [k for k in keys if md.get(k) is None]
        if missing:
            raise CameraUnavailable(f"{self.name}: camera metadata lacks {', '.join(missing)}")
        controls = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": int(md["ExposureTime"]),
            "AnalogueGain": float(md["AnalogueGain"]),
            "ColourGains": tuple(float(g) for g in md["ColourGains"]),
        }
        self._call("set_controls", controls)
        self.locked = controls
        return controls

    def _call(self, method: str, *args: Any) -> Any:
        if self._cam is None:
            raise CameraUnavailable(f"{self.name} is closed")
        try:
            return getattr(self._cam, method)(*args)
        except Exception as exc:
            raise CameraUnavailable(f"{self.name}: {method} failed: {exc}") from exc

    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        image = self._call("capture_array", "main")
        if image is None or getattr(image, "ndim", 0) != 3:
            raise CameraUnavailable(f"{self.name} returned no image")
        return np.ascontiguousarray(image[:, :, :3]), ""

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            for step in ("stop", "close"):
                try:
                    getattr(cam, step)()
                except Exception as exc:  # a camera that vanished cannot be stopped cleanly
                    log.debug("%s: %s failed while closing: %s", self.name, step, exc)
        super().close()


def _close(a: Any, b: Any, tolerance: float) -> bool:
    if a is None or b is None:
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_close(x, y, tolerance) for x, y in zip(a, b, strict=True))
    x, y = float(a), float(b)
    return abs(x - y) <= tolerance * max(abs(x), abs(y), 1e-9)


# --- OpenCV sources ---------------------------------------------------------------------------


class _CaptureSource(FrameSource):
    """Shared by the webcam and video sources: a cv2.VideoCapture."""

    def __init__(self, name: str, target: int | str, *, clock: Callable[[], float]) -> None:
        super().__init__(name, clock=clock)
        self._cap: Any = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            raise CameraUnavailable(f"cannot open {name}")

    def _grab(self) -> np.ndarray[Any, Any] | None:
        if self._cap is None:
            raise CameraUnavailable(f"{self.name} is closed")
        try:
            ok, image = self._cap.read()
        except cv2.error as exc:
            raise CameraUnavailable(f"{self.name}: {exc}") from exc
        return image if ok and image is not None else None

    def close(self) -> None:
        if getattr(self, "_cap", None) is not None:
            self._cap.release()
            self._cap = None
        super().close()


class UsbSource(_CaptureSource):
    """A USB webcam (``usb:N`` = /dev/videoN via OpenCV). A failed grab means it is gone."""

    def __init__(
        self,
        index: int = 0,
        *,
        size: tuple[int, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(f"usb:{index}", index, clock=clock)
        if size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        image = self._grab()
        if image is None:
            raise CameraUnavailable(f"{self.name} gave no frame (unplugged?)")
        return image, ""


class VideoSource(_CaptureSource):
    """A video file, frame by frame; SourceEnded at its end (or ``loop=True`` to rewind).

    A file that vanishes or cannot be decoded any more mid-way is CameraUnavailable only when
    it is gone from disk; a truncated file simply ends early (OpenCV cannot tell the two apart).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        loop: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise CameraUnavailable(f"no video file {self.path}")
        self.loop = loop
        super().__init__(f"video:{self.path}", str(self.path), clock=clock)

    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        image = self._grab()
        if image is None and self.loop and self.frames:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            image = self._grab()
        if image is None:
            if not self.path.exists():
                raise CameraUnavailable(f"{self.name} disappeared")
            raise SourceEnded(f"{self.name} has no more frames")
        return image, f"{self.path.name}#{self.frames}"


def natural_key(name: str) -> list[int | str]:
    """Sort key putting ``2.jpg`` before ``10.jpg``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


class DirSource(FrameSource):
    """The photos of a folder in natural name order (``2.jpg`` before ``10.jpg``).

    ``fps`` paces the frames (sleeping until each is due); ``loop`` starts again at the end.
    A file that cannot be read as an image is logged, listed in :attr:`skipped` and passed over.
    Raises CameraUnavailable if the folder is missing or vanishes; SourceEnded at the end.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        fps: float | None = None,
        loop: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = Path(path)
        super().__init__(f"dir:{self.path}", clock=clock)
        if fps is not None and not (fps > 0 and math.isfinite(fps)):
            raise ValueError("fps must be a positive number")
        self.fps = fps
        self.loop = loop
        self._sleep = sleep
        self._files = self._list()
        self._pos = 0
        self._due: float | None = None
        self.skipped: list[Path] = []

    def _list(self) -> list[Path]:
        try:
            files = [p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        except OSError as exc:
            raise CameraUnavailable(f"cannot list {self.path}: {exc.strerror or exc}") from exc
        return sorted(files, key=lambda p: natural_key(p.name))

    def __len__(self) -> int:
        return len(self._files)

    def _pace(self) -> None:
        if self.fps is None:
            return
        now = self._clock()
        if self._due is not None and now < self._due:
            self._sleep(self._due - now)
            now = self._due
        self._due = now + 1.0 / self.fps

    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        if not self.path.is_dir():
            raise CameraUnavailable(f"{self.name}: the folder has gone")
        tried = 0
        while True:
            if self._pos >= len(self._files):
                if not self.loop or tried >= len(self._files):
                    raise SourceEnded(f"{self.name}: no more photos")
                self._pos = 0
            path = self._files[self._pos]
            self._pos += 1
            tried += 1
            # Pixels as stored (a phone's EXIF rotation would turn the board away from its
            # calibration); bounded: a FIFO is never opened, a picture over the pixel limit
            # is skipped before decoding, and neither ends the folder.
            try:
                image = load_image(path)
            except VisionError as exc:
                if not self.path.is_dir():
                    raise CameraUnavailable(f"{self.name}: the folder has gone") from None
                if path not in self.skipped:
                    self.skipped.append(path)
                    log.warning("%s: skipping %s", self.name, exc)
                continue
            self._pace()
            return image, path.name


# --- choosing and retrying --------------------------------------------------------------------

SOURCE_FORMS = "picam, picam:N, usb:N, dir:PATH or video:PATH"


def open_source(spec: str, **options: Any) -> FrameSource:
    """Open the source named by ``spec`` (the CLI's ``--source``).

    ``options`` go to the source's constructor (e.g. ``fps=2`` for ``dir:``). Raises ValueError
    for a malformed spec and CameraUnavailable for a device or path that is not there.
    """
    kind, sep, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "picam":
        if sep and not arg.isdigit():
            raise ValueError(f"bad camera number in {spec!r}; use {SOURCE_FORMS}")
        return PicameraSource(int(arg) if arg else 0, **options)
    if kind == "usb":
        if not arg.isdigit():
            raise ValueError(f"usb needs a device number (usb:0), not {spec!r}")
        return UsbSource(int(arg), **options)
    if kind == "dir" and arg:
        return DirSource(arg, **options)
    if kind == "video" and arg:
        return VideoSource(arg, **options)
    raise ValueError(f"unknown frame source {spec!r}; use {SOURCE_FORMS}")


FailureHook = Callable[[Exception, int, float], None]


def _log_failure(exc: Exception, attempt: int, delay: float) -> None:
    log.warning("frame source failed (%s); retry %d in %.1f s", exc, attempt, delay)


class RetryingSource(FrameSource):
    """A source re-opened with exponential back-off whenever it disappears.

    ``opener`` makes a fresh source (e.g. ``lambda: open_source("usb:0")``). On every
    CameraUnavailable (opening or reading) ``on_failure(exc, attempt, delay)`` is called, the
    broken source is closed, and after ``delay`` (``base_delay`` doubling up to ``max_delay``) it
    tries again; a good frame resets the back-off. ``read`` blocks until a frame comes, unless
    ``give_up_after`` seconds of consecutive failures pass: then it raises CameraUnavailable
    (the caller decides). SourceEnded and ValueError (bad spec) are passed on, not retried.
    """

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        *,
        name: str = "retrying",
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        give_up_after: float | None = None,
        on_failure: FailureHook = _log_failure,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(name, clock=clock)
        if not 0 < base_delay <= max_delay:
            raise ValueError("need 0 < base_delay <= max_delay")
        self._opener = opener
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.give_up_after = give_up_after
        self._on_failure = on_failure
        self._sleep = sleep
        self._source: FrameSource | None = None
        self.failures = 0
        self._attempt = 0

    @property
    def connected(self) -> bool:
        return self._source is not None

    def __repr__(self) -> str:
        inner = repr(self._source) if self._source else "disconnected"
        return f"<RetryingSource {self.name!r} {inner} failures={self.failures}>"

    def read(self) -> Frame:
        if self.closed:
            raise CameraUnavailable(f"{self.name} is closed")
        started: float | None = None
        while True:
            try:
                if self._source is None:
                    self._source = self._opener()
                frame = self._source.read()
            except CameraUnavailable as exc:
                if self._source is not None:
                    self._source.close()
                    self._source = None
                now = self._clock()
                started = now if started is None else started
                if self.give_up_after is not None and now - started >= self.give_up_after:
                    raise CameraUnavailable(
                        f"{self.name}: gave up after {now - started:.1f} s: {exc}"
                    ) from exc
                self.failures += 1
                self._attempt += 1
                delay = min(self.max_delay, self.base_delay * 2 ** (self._attempt - 1))
                try:
                    self._on_failure(exc, self._attempt, delay)
                except Exception:  # a broken reporter must not kill the camera loop
                    log.exception("%s: failure callback raised", self.name)
                self._sleep(delay)
                continue
            self._attempt = 0
            self.frames += 1
            return frame

    def _read_image(
        self,
    ) -> tuple[np.ndarray[Any, Any], str]:  # pragma: no cover - read() is overridden
        raise NotImplementedError

    def close(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None
        super().close()
