"""The camera input's timing and bad frames: a recorded folder is seen as still views on its own
clock, a live folder holds each photo for a second, a video is timed by frame number, and a
photo with no board in it is noted (its picture still shown), never read as a board."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.runtime.frames import FrameInput
from companion.runtime.reading import PhotoReader
from companion.vision.render import render_board

ROWS = [". . . . . . . . ."] * 9


class Feed:
    """A feed that never sleeps and counts what it was asked to wait."""

    table = None

    def __init__(self) -> None:
        self.waited: list[float] = []

    def wait(self, seconds: float) -> bool:
        self.waited.append(seconds)
        return True


@pytest.fixture(scope="module")
def shot() -> tuple[np.ndarray, list[list[float]]]:
    rendered = render_board(ROWS, size=9, width=320, height=240, seed=2)
    return rendered.image, rendered.corners[0].tolist()


@pytest.fixture
def folder(tmp_path: Path, shot: tuple[np.ndarray, list[list[float]]]) -> Path:
    for n in range(3):
        cv2.imwrite(str(tmp_path / f"{n}.png"), shot[0])
    return tmp_path


def test_a_recorded_folder_is_still_views_on_its_own_clock(
    folder: Path, shot: tuple[np.ndarray, list[list[float]]]
) -> None:
    source = FrameInput(f"dir:{folder}", board="9", corners=shot[1], recording=True)
    feed = Feed()
    samples = list(source.samples(feed))
    assert [s.at for s in samples] == pytest.approx([0, 0.21, 1.2, 1.41, 2.4, 2.61])
    assert [s.name for s in samples] == ["0.png", "0.png", "1.png", "1.png", "2.png", "2.png"]
    assert all(s.observation is not None and s.observation.states == (".",) * 81 for s in samples)
    assert feed.waited == [] and source.ended and source.note == "the frame source ended"
    assert samples[0].picture is not None and samples[0].picture[:2] == b"\xff\xd8"


def test_a_live_folder_holds_each_photo_for_a_second(
    folder: Path, shot: tuple[np.ndarray, list[list[float]]]
) -> None:
    source = FrameInput(f"dir:{folder}", board="9", corners=shot[1], picture_every=60)
    feed = Feed()
    samples = list(source.samples(feed))
    assert len(samples) == 12 and all(s.at is None for s in samples)  # the loop's clock
    assert feed.waited == [0.25] * 12
    assert [s.picture is not None for s in samples] == [True] + [False] * 11


def test_a_video_is_timed_by_frame_number(
    tmp_path: Path, shot: tuple[np.ndarray, list[list[float]]]
) -> None:
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for _ in range(3):
        writer.write(shot[0])
    writer.release()
    source = FrameInput(f"video:{video}", board="9", corners=shot[1], recording=True, fps=10)
    assert [s.at for s in source.samples(Feed())] == pytest.approx([0.0, 0.1, 0.2])


def test_a_photo_without_a_board_is_noted_not_read(
    folder: Path, shot: tuple[np.ndarray, list[list[float]]]
) -> None:
    cv2.imwrite(str(folder / "3.png"), np.full((240, 320, 3), 90, np.uint8))  # a grey wall
    (folder / "4.png").write_bytes(b"not a picture")  # skipped by the folder source
    finder = PhotoReader(size=9, refind=True)  # the board found on each photo, as track does
    found = FrameInput(f"dir:{folder}", board="9", recording=True, reader=finder)
    samples = list(found.samples(Feed()))
    names = [s.name for s in samples]
    assert names[-2:] == ["3.png", "3.png"] and "4.png" not in names
    wall = samples[-1]
    assert wall.unreadable and wall.picture is not None
    # A recording's unreadable view is all unknown (it breaks stillness), never a made-up board.
    assert wall.observation is not None and set(wall.observation.states) == {"?"}
    live = FrameInput(f"dir:{folder}", board="9", reader=PhotoReader(size=9, refind=True))
    last = list(live.samples(Feed()))[-1]
    assert last.unreadable and last.observation is None


def test_a_camera_being_retried_stops_promptly() -> None:
    import time

    from companion.runtime import ObservationLoop

    camera = FrameInput("usb:97", board="9")  # no such webcam: retried with back-off
    loop = ObservationLoop(object(), camera)
    loop.start()
    time.sleep(1.0)  # into the back-off between attempts
    asked = time.monotonic()
    loop.stop()
    assert loop.done and time.monotonic() - asked < 1.0
    assert camera.ended and loop.error is None and loop.samples == 0


@pytest.mark.parametrize("name", ["classic", "net"])
def test_the_stone_reader_chosen_reads_every_frame(
    folder: Path, shot: tuple[np.ndarray, list[list[float]]], name: str
) -> None:
    """``--reader`` (InputOptions.stone_reader) reaches the profile made from the corners, and
    a profile the calibration page swaps in reads with it too."""
    from companion.runtime.inputs import InputOptions
    from companion.vision.make_profile import calibrate

    options = InputOptions(board="9", corners=shot[1], recording=True, stone_reader=name)
    source = FrameInput.from_spec("dir", str(folder), options)
    samples = list(source.samples(Feed()))
    assert all(s.observation is not None and s.observation.states == (".",) * 81 for s in samples)
    assert source.profile.reader().kind == name
    source.set_profile(calibrate(shot[0], board="9", corners=[shot[1]], empty=False))
    assert source.profile.reader().kind == name
    finder = PhotoReader(size=9, refind=False, stone_reader=name)
    assert finder.read(shot[0]).states == (".",) * 81
    assert finder._reader is not None and finder._reader.kind == name
