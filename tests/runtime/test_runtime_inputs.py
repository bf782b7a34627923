"""``open_input``: every spec gives its input, checked at start; bad specs are refused with the
list of valid ones (never a thread traceback later)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import pytest

from companion.errors import CameraUnavailable, InputError, VisionError
from companion.runtime import INPUTS, InputOptions, input_forms, open_input
from companion.runtime.demo import ChessDemoInput, GoDemoInput, TableDemo
from companion.runtime.frames import FrameInput
from companion.runtime.labels import LabelInput
from companion.runtime.sensors import SensorInput
from companion.vision.render import render_board

EMPTY = ". . .\n. . .\n. . .\n"


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    shot = render_board([". . . . . . . . ."] * 9, size=9, width=320, height=240, seed=1)
    cv2.imwrite(str(folder / "0.png"), shot.image)
    return folder


def test_every_input_is_listed_in_the_help_text() -> None:
    forms = input_forms()
    for word in ("picam", "usb:N", "dir:PATH", "video:PATH", "sensors", "sim", "demo", "labels"):
        assert word in forms
    assert set(INPUTS) == {"picam", "usb", "dir", "video", "sensors", "sim", "demo", "labels"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("picamera", "unknown source 'picamera'; use one of: picam[:N], usb:N"),
        ("", "unknown source ''"),
        ("webcam:0", "unknown source 'webcam:0'"),
        ("usb:x", "usb needs a device number (usb:0), not usb:x"),
        ("usb", "usb needs an argument, as in usb:N"),
        ("picam:left", "picam needs a device number"),
        ("dir:", "dir needs an argument, as in dir:PATH"),
        ("sim:fast", "sim takes no argument"),
    ],
)
def test_bad_specs_are_refused_with_the_valid_ones(spec: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        open_input(spec)
    assert message in str(caught.value)


def test_a_missing_folder_or_video_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"cannot list .*: no such folder"):
        open_input(f"dir:{tmp_path / 'none'}")
    with pytest.raises(InputError, match="no video file"):
        open_input(f"video:{tmp_path / 'none.mp4'}")
    with pytest.raises(VisionError, match="no such folder"):
        open_input(f"labels:{tmp_path / 'none'}")
    # Unchecked, the input is made (the calibration page's tests build one without a folder).
    assert isinstance(open_input(f"dir:{tmp_path / 'none'}", check=False), FrameInput)


def test_frame_inputs_take_their_options(photos: Path) -> None:
    options = InputOptions(board="9", still_time=0.3, recording=True, fps=12)
    folder = open_input(f"dir:{photos}", options)
    assert isinstance(folder, FrameInput) and folder.recording and folder.board == "9"
    assert folder.still_time == 0.3 and folder.max_unknown == 0.05 and not folder.live
    live = open_input(f"dir:{photos}")
    assert isinstance(live, FrameInput) and not live.recording and live.still_time == 0.5
    usb = open_input("usb:7", check=False)
    assert isinstance(usb, FrameInput) and usb.live and usb.spec == "usb:7"


@pytest.mark.skipif(
    importlib.util.find_spec("picamera2") is not None, reason="picamera2 is installed here"
)
def test_the_pi_camera_without_its_library_is_refused_at_start() -> None:
    with pytest.raises(CameraUnavailable, match="apt install python3-picamera2"):
        open_input("picam")


def test_an_absent_webcam_is_noted_and_retried_not_refused() -> None:
    usb = open_input("usb:97")  # no /dev/video97 here
    assert isinstance(usb, FrameInput) and "trying again until it answers" in usb.note


def test_label_files_give_their_board(tmp_path: Path) -> None:
    (tmp_path / "0.txt").write_text(EMPTY)
    labels = open_input(f"labels:{tmp_path}")
    assert isinstance(labels, LabelInput) and labels.board == "3"
    (tmp_path / "1.txt").write_text(". .\n. .\n")
    with pytest.raises(InputError, match="not all 3x3"):
        open_input(f"labels:{tmp_path}")


def test_demo_and_sim_pick_the_feeder_for_the_rules() -> None:
    go = open_input("demo")
    assert isinstance(go, TableDemo) and go.manages_game
    assert isinstance(go.part, GoDemoInput) and go.part.feed == "sensors"
    record = open_input("demo", InputOptions(feed="record"))
    assert isinstance(record, TableDemo) and isinstance(record.part, GoDemoInput)
    assert record.part.feed == "record"
    sim = open_input("sim", InputOptions(feed="record"))
    assert isinstance(sim, TableDemo) and isinstance(sim.part, GoDemoInput)
    assert sim.part.feed == "sensors"  # sim is the sensor grid
    chess = open_input("demo", InputOptions(rules="beyond-chess"))
    assert isinstance(chess, TableDemo) and isinstance(chess.part, ChessDemoInput)
    assert chess.board == "8x8"
    with pytest.raises(InputError, match="plays Go"):
        open_input("sim", InputOptions(rules="beyond-chess"))
    with pytest.raises(InputError, match="'sensors' or 'record'"):
        open_input("demo", InputOptions(feed="carrier-pigeon"))


def test_sensors_open_the_pin_maps_grid_on_mock_pins() -> None:
    from contextlib import ExitStack

    from companion.runtime.sensors import mock_pin_factories

    with ExitStack() as stack:
        grid_pins, _ = mock_pin_factories(stack)
        sensors = open_input("sensors", InputOptions(pin_factory=grid_pins, fps=10))
        stack.enter_context(sensors)
        assert isinstance(sensors, SensorInput) and sensors.board == "9" and sensors.rate == 10
        assert sensors.fixed_board and sensors.grid is not None
        assert sensors.grid.scan().unknown == 0  # the emulated board is empty and calibrated


def test_sensors_without_a_calibration_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.errors import CalibrationError
    from companion.sensors import hall_grid

    monkeypatch.setattr(hall_grid, "CALIBRATION_DIR", tmp_path)
    with pytest.raises(CalibrationError, match="companion sensors calibrate"):
        open_input("sensors")
