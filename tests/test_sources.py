"""Frame sources: folders, videos written with cv2.VideoWriter, webcams, the Pi camera's
contract (picamera2 cannot be imported here: a stand-in module goes into sys.modules), and the
retrying wrapper driven by a source that disappears."""

from __future__ import annotations

import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.errors import CameraUnavailable, SourceEnded
from companion.sources import (
    DirSource,
    FrameSource,
    PicameraSource,
    RetryingSource,
    UsbSource,
    VideoSource,
    natural_key,
    open_source,
)


def _photo(path: Path, value: int) -> None:
    assert cv2.imwrite(str(path), np.full((24, 32, 3), value, np.uint8))


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    for n in (10, 2, 1):
        _photo(folder / f"{n}.png", n * 10)
    (folder / "notes.txt").write_text("not a photo")
    return folder


def test_natural_order() -> None:
    names = ["10.jpg", "2.jpg", "img-11.png", "img-9.png", "1.jpg"]
    assert sorted(names, key=natural_key) == ["1.jpg", "2.jpg", "10.jpg", "img-9.png", "img-11.png"]


def test_dir_source_reads_in_name_order(photos: Path) -> None:
    ticks = iter(range(100))
    with open_source(f"dir:{photos}", clock=lambda: float(next(ticks))) as src:
        assert isinstance(src, DirSource) and len(src) == 3
        frames = list(src)
        assert "frames=3" in repr(src)
        with pytest.raises(SourceEnded):
            src.read()
    assert [f.name for f in frames] == ["1.png", "2.png", "10.png"]
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 100]
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[0].timestamp < frames[1].timestamp
    assert frames[0].image.shape == (24, 32, 3)
    with pytest.raises(CameraUnavailable, match="closed"):
        src.read()


def test_dir_source_skips_unreadable_files(photos: Path, caplog: pytest.LogCaptureFixture) -> None:
    (photos / "5.jpg").write_bytes(b"\xff\xd8 this is not a jpeg")
    src = DirSource(photos)
    assert [f.name for f in src] == ["1.png", "2.png", "10.png"]
    assert [p.name for p in src.skipped] == ["5.jpg"]
    assert "5.jpg" in caplog.text


def test_dir_source_paces_frames(photos: Path) -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    src = DirSource(photos, fps=2, loop=True, clock=lambda: now[0], sleep=sleep)
    stamps = [src.read().timestamp for _ in range(5)]
    assert stamps == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert slept == [0.5] * 4
    assert src.frames == 5  # looped past the third photo


def test_dir_source_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="cannot list"):
        open_source(f"dir:{tmp_path / 'nowhere'}")
    with pytest.raises(ValueError):
        DirSource(tmp_path, fps=0)


def _video(path: Path, frames: int = 6) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((24, 32, 3), 20 * i, np.uint8))
    writer.release()
    return path


def test_video_source(tmp_path: Path) -> None:
    path = _video(tmp_path / "game.avi")
    with open_source(f"video:{path}") as src:
        assert isinstance(src, VideoSource)
        frames = list(src)
    assert len(frames) == 6
    assert [round(int(f.image[0, 0, 0]), -1) for f in frames] == [0, 20, 40, 60, 80, 100]
    assert src.closed
    looped = VideoSource(path, loop=True)
    assert len([looped.read() for _ in range(8)]) == 8


def test_truncated_or_corrupt_video_ends_without_crash(tmp_path: Path) -> None:
    path = _video(tmp_path / "cut.avi", frames=20)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    try:
        src = VideoSource(path)
    except CameraUnavailable:
        return  # refused at open: also a clean outcome
    frames = list(src)
    assert len(frames) < 20
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"nothing like a video")
    with pytest.raises(CameraUnavailable):
        VideoSource(junk)
    with pytest.raises(CameraUnavailable, match="no video"):
        VideoSource(tmp_path / "missing.avi")


def test_usb_source_absent() -> None:
    with pytest.raises(CameraUnavailable, match="usb:63"):
        UsbSource(63)


@pytest.mark.parametrize("spec", ["", "usb", "usb:x", "dir:", "video:", "webcam:0", "picam:a"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(ValueError, match=r"source|usb|camera"):
        open_source(spec)


# --- the Pi camera, by contract ------------------------------------------------------------


class _StandInPicamera2:
    """Plays picamera2.Picamera2's part: AE/AWB metadata converging over a few frames."""

    instances: list[_StandInPicamera2] = []  # noqa: RUF012

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num > 0:
            raise IndexError("list index out of range")  # what picamera2 does for no camera
        self.calls: list[tuple[str, Any]] = []
        self.exposures = iter([8000, 12000, 15000, 16000, 16100, 16100, 16120, 16100, 16100])
        self.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_metadata(self) -> dict[str, Any]:
        exposure = next(self.exposures, 16100)
        return {
            "ExposureTime": exposure,
            "AnalogueGain": 2.0 if exposure < 16000 else 1.5,
            "ColourGains": (1.9, 1.6),
        }

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", controls))

    def capture_array(self, stream: str) -> np.ndarray[Any, Any]:
        self.calls.append(("capture_array", stream))
        return np.zeros((15, 20, 3), np.uint8)

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[_StandInPicamera2]]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = _StandInPicamera2  # type: ignore[attr-defined]
    _StandInPicamera2.instances = []
    monkeypatch.setitem(sys.modules, "picamera2", module)
    yield _StandInPicamera2


def test_picamera2_not_imported_until_asked() -> None:
    # A fresh interpreter that records every attempt to import picamera2.
    code = (
        "import sys\n"
        "tried = []\n"
        "class Spy:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith('picamera2'): tried.append(name)\n"
        "sys.meta_path.insert(0, Spy())\n"
        "import companion.sources as s\n"
        "s.open_source('dir:.')\n"
        "assert not tried, tried\n"
        "try:\n"
        "    s.open_source('picam')\n"
        "except Exception:\n"
        "    pass\n"
        "assert tried == ['picamera2'], tried\n"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True)


def test_picamera_absent_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    with pytest.raises(CameraUnavailable, match="apt install python3-picamera2"):
        open_source("picam")


def test_picamera_locks_settled_exposure(picamera2: type[_StandInPicamera2]) -> None:
    with open_source("picam", size=(640, 480)) as src:
        assert isinstance(src, PicameraSource)
        frame = src.read()
        cam = picamera2.instances[0]
    assert frame.image.shape == (15, 20, 3) and frame.source == "picam:0"
    names = [c[0] for c in cam.calls]
    assert names[:2] == ["configure", "start"]
    assert cam.calls[0][1]["main"] == {"size": (640, 480), "format": "RGB888"}
    controls = dict(cam.calls)["set_controls"]
    # Locked after three steady frames (16000 -> 16100 -> 16100 -> 16120, all within 2 %), at
    # the values of the last one; not at the early 8000 us.
    assert controls == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 16120,
        "AnalogueGain": 1.5,
        "ColourGains": (1.9, 1.6),
    }
    assert names.index("set_controls") < names.index("capture_array")
    assert names[-2:] == ["stop", "close"]


def test_picamera_missing_camera(picamera2: type[_StandInPicamera2]) -> None:
    with pytest.raises(CameraUnavailable, match="cannot start"):
        open_source("picam:1")


# --- disappearance and back-off --------------------------------------------------------------


def test_retrying_source_survives_a_folder_that_vanishes(photos: Path, tmp_path: Path) -> None:
    backup = tmp_path / "backup"
    shutil.copytree(photos, backup)
    reports: list[tuple[str, int, float]] = []
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        if len(slept) == 4:  # the cable is plugged back in
            shutil.copytree(backup, photos)

    src = RetryingSource(
        lambda: DirSource(photos),
        name="photos",
        base_delay=0.1,
        max_delay=0.25,
        on_failure=lambda exc, n, d: reports.append((type(exc).__name__, n, d)),
        sleep=sleep,
    )
    assert src.read().name == "1.png"
    shutil.rmtree(photos)
    frame = src.read()  # blocks through the outage, then starts the folder again
    assert frame.name == "1.png"
    assert slept == [0.1, 0.2, 0.25, 0.25]
    assert [r[1] for r in reports] == [1, 2, 3, 4]
    assert {r[0] for r in reports} == {"CameraUnavailable"}
    assert src.failures == 4 and src.connected
    assert "failures=4" in repr(src)
    # A good frame resets the back-off.
    shutil.rmtree(photos)
    slept.clear()
    shutil.copytree(backup, tmp_path / "again")

    def sleep_once(s: float) -> None:
        slept.append(s)
        shutil.copytree(tmp_path / "again", photos)

    src._sleep = sleep_once
    assert src.read().name == "1.png"
    assert slept == [0.1]


def test_retrying_source_gives_up_when_told(tmp_path: Path) -> None:
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    src = RetryingSource(
        lambda: DirSource(tmp_path / "never"),
        base_delay=1,
        max_delay=4,
        give_up_after=10,
        on_failure=lambda *a: None,
        clock=lambda: now[0],
        sleep=sleep,
    )
    with pytest.raises(CameraUnavailable, match="gave up"):
        src.read()
    assert now[0] >= 10 and src.failures >= 4


class _FlakyCamera(FrameSource):
    """A webcam stand-in that drops out after a few frames (a pulled cable)."""

    def __init__(self, good: int) -> None:
        super().__init__("flaky")
        self.good = good

    def _read_image(self) -> tuple[np.ndarray[Any, Any], str]:
        if self.frames >= self.good:
            raise CameraUnavailable("flaky gave no frame (unplugged?)")
        return np.zeros((2, 2, 3), np.uint8), ""


def test_retrying_source_reopens_a_pulled_camera() -> None:
    opened: list[_FlakyCamera] = []

    def opener() -> FrameSource:
        opened.append(_FlakyCamera(good=2))
        return opened[-1]

    def broken_reporter(exc: Exception, attempt: int, delay: float) -> None:
        raise RuntimeError("the page is down")

    src = RetryingSource(opener, on_failure=broken_reporter, sleep=lambda s: None)
    frames = [src.read() for _ in range(5)]
    assert len(frames) == 5 and len(opened) == 3
    assert all(o.closed for o in opened[:2])
    src.close()
    assert opened[2].closed
    with pytest.raises(CameraUnavailable):
        src.read()


def test_retrying_source_passes_on_the_end(photos: Path) -> None:
    src = RetryingSource(lambda: DirSource(photos), sleep=lambda s: None)
    assert len(list(src)) == 3
