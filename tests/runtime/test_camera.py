"""The camera input in the observation loop on real photos: a fixed webcam's frames -> reader
-> tracker -> session.

Uses ``shared/data/photos/gomrade/testing_sequence`` (one game seen by a fixed webcam, corners
given); skipped cleanly when the shared data is absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.frames import FrameInput
from companion.sources import open_source
from companion.table.session import TableSession
from tests.support.clock import HandClock
from tests.support.paths import shared_data


@pytest.fixture
def sequence() -> Path:
    return shared_data("data/photos/gomrade/testing_sequence")


def _label(path: Path) -> list[str]:
    return [t for line in path.read_text().split("\n") for t in line.split()]


def test_a_real_game_is_read_into_the_journal(sequence: Path, tmp_path: Path) -> None:
    corners = json.loads((sequence.parent / "corners.json").read_text())["testing_sequence/0.jpg"]
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "19")
    clock = HandClock(0.0, step=0.1)

    def frames() -> Iterator[Any]:
        with open_source(f"dir:{sequence}") as source:
            for frame in source:
                if frame.name.startswith("10"):
                    break  # frame 10 adds three stones at once: the tracker holds it (tested below)
                yield from [frame] * 4  # each photo seen still for a moment

    camera = FrameInput(
        f"dir:{sequence}", board="19", corners=corners, still_time=0.2, frames=frames()
    )
    ObservationLoop(table, camera, clock=clock).run()
    game = table.state.game
    assert game is not None
    want = _label(sequence / "9.txt")
    got = ["." if c < 0 else "BW"[c] for c in game.board]
    assert got == want  # the game the journal holds is the board in the last photo
    assert len(game.moves) == sum(1 for c in want if c != ".") + game.captures[0] + game.captures[1]
    picture = cv2.imdecode(np.frombuffer(table.frame or b"", np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape[:2] == (720, 1280)


def test_three_stones_at_once_are_held_as_a_discrepancy(sequence: Path, tmp_path: Path) -> None:
    corners = json.loads((sequence.parent / "corners.json").read_text())["testing_sequence/0.jpg"]
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "19")
    clock = HandClock(0.0, step=0.1)

    with open_source(f"dir:{sequence}") as source:
        frames = [f for f in source]
    held = (f for f in frames for _ in range(4))
    camera = FrameInput(f"dir:{sequence}", board="19", corners=corners, still_time=0.2, frames=held)
    ObservationLoop(table, camera, clock=clock).run()
    assert table.state.discrepancy is not None
    assert "appeared" in table.state.discrepancy.message
    assert table.alerts()[0] == table.state.discrepancy.message


def test_a_camera_that_moved_since_calibration_is_reported(tmp_path: Path) -> None:
    from companion.sources import Frame
    from companion.vision.render import render_board

    empty = ["." * 9] * 9
    shot = render_board([" ".join(r) for r in empty], size=9, seed=3)
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9")
    corners = [list(map(float, p)) for p in shot.corners[0]]
    frames: list[Frame] = [Frame(image=shot.image, timestamp=0.0, index=0, source="test")]
    camera = FrameInput("dir:unused", board="9", corners=corners, still_time=0.2, frames=frames)
    ObservationLoop(table, camera, clock=lambda: 0.0).run(limit=1)
    assert "moved" not in camera.note
    # The same board seen after the camera was bumped: shifted by a third of a board.
    h, w = shot.image.shape[:2]
    bumped = np.roll(shot.image, (h // 3, w // 3), axis=(0, 1))
    camera._moved_at = None  # the check runs at most every two seconds
    frames[:] = [Frame(image=bumped, timestamp=1.0, index=1, source="test")]
    ObservationLoop(table, camera, clock=lambda: 1.0).run(limit=1)
    assert "moved since calibration" in camera.note
