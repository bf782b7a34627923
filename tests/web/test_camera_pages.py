"""The Camera and Calibrate pages: the camera page finishes loading with a camera running and
keeps the last picture once a folder source ends, both name only real sources, and the
calibrate page's name pattern is one chromium accepts (a good name passes, a bad one does not)
and it speaks of corner intersections."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from companion.journal import Journal
from companion.runtime.frames import FrameInput
from companion.sources import SOURCE_FORMS
from companion.table.session import TableSession
from companion.vision.render import render_board
from companion.web.app import create_app
from tests.support.clock import until
from tests.support.serving import served_app
from tests.support.shots import shots_dir

PIN = "112358"
SHOTS = shots_dir()


def _jpeg(seed: int) -> bytes:
    rows = [". " * 8 + "."] * 9
    ok, data = cv2.imencode(".jpg", render_board(rows, seed=seed, width=640, height=480).image)
    assert ok
    return bytes(data.tobytes())


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableSession]:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    yield table
    table.close()
    table.journal.close()


@pytest.fixture
def camera() -> FrameInput:
    camera = FrameInput("dir:nowhere", board="9")
    camera.still = np.full((480, 640, 3), 120, np.uint8)
    camera.note = "reading"
    return camera


def app_for(table: TableSession, camera: Any, tmp_path: Path) -> Flask:
    app = create_app(table, pin=PIN, calibration_dir=tmp_path / "cal", camera=camera)
    app.testing = True
    return app


def test_the_pages_name_only_real_sources(table: TableSession, tmp_path: Path) -> None:
    client = app_for(table, None, tmp_path).test_client()
    for url in ("/camera", "/calibrate"):
        page = client.get(url).get_data(as_text=True)
        assert "picamera" not in page and "--source picam" in page
        assert SOURCE_FORMS in page, url
    status = client.get("/api/camera").get_json()
    assert status == {"ok": True, "picture": False, "frame": None, "note": "", "ended": False}
    assert client.get("/camera/frame.jpg").status_code == 404


def test_the_camera_picture_and_its_status(
    table: TableSession, camera: FrameInput, tmp_path: Path
) -> None:
    client = app_for(table, camera, tmp_path).test_client()
    page = client.get("/camera").get_data(as_text=True)
    assert "Waiting for the first picture" in page and "camera.mjpg" not in page
    table.frame = _jpeg(1)
    status = client.get("/api/camera").get_json()
    assert status["picture"] and status["frame"] == zlib.crc32(table.frame)
    assert not status["ended"] and status["note"] == "reading"
    frame = client.get("/camera/frame.jpg")
    assert frame.data == table.frame and frame.headers["Cache-Control"] == "no-store"


def test_the_calibrate_page_speaks_of_corner_intersections(
    table: TableSession, camera: FrameInput, tmp_path: Path
) -> None:
    page = app_for(table, camera, tmp_path).test_client().get("/calibrate")
    text = page.get_data(as_text=True)
    assert "corner intersections" in text and "outer corner points" not in text


# ---------------------------------------------------------------------- in chromium


@pytest.fixture
def served(table: TableSession, camera: FrameInput, tmp_path: Path) -> Iterator[str]:
    with served_app(app_for(table, camera, tmp_path), threads=6) as url:
        yield url


@pytest.fixture
def console(page: Any) -> Iterator[Any]:
    """The shared page, also failing on a console error (chromium reports a pattern it cannot
    compile there, and then ignores the pattern)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    assert not errors, errors


@pytest.mark.browser
def test_the_camera_page_loads_and_keeps_the_last_picture(
    served: str, console: Any, table: TableSession, camera: FrameInput
) -> None:
    page = console
    table.frame = _jpeg(1)
    # The load event fires although the camera keeps running (a stream would hold it).
    page.goto(served + "/camera", wait_until="load", timeout=5000)
    page.wait_for_selector("#camera-picture:not([hidden])", timeout=5000)
    first = page.get_attribute("#camera-picture", "src")
    table.frame = _jpeg(2)  # the next picture replaces it
    # Polled from here: the page's CSP forbids the evaluated strings wait_for_function sends.
    assert until(lambda: page.get_attribute("#camera-picture", "src") != first, 5)
    # The folder runs out: its last picture stays, and the page says so.
    last = _jpeg(3)
    table.frame = last
    camera.note, camera.ended = "the frame source ended", True
    page.wait_for_selector(
        "#camera-note >> text=The frame source ended: this is its last picture.", timeout=5000
    )
    assert until(
        lambda: page.get_attribute("#camera-picture", "src").endswith(f"f={zlib.crc32(last)}"), 5
    )
    assert page.eval_on_selector("#camera-picture", "i => i.complete && i.naturalWidth") == 640
    page.screenshot(path=str(SHOTS / "camera-ended.png"), full_page=True)


@pytest.mark.browser
def test_the_profile_name_field_accepts_a_good_name_and_refuses_a_bad_one(
    served: str, console: Any
) -> None:
    page = console
    page.goto(served + "/calibrate", wait_until="load")
    field = "#calib-form input[name=name]"
    for name, valid in (("table", True), ("club-2_a", True), ("../etc", False), ("-x", False)):
        page.fill(field, name)
        assert page.eval_on_selector(field, "e => e.checkValidity()") is valid, name
