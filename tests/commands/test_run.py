"""``companion run``: one headless process from a source to the journal and the printed game.

Rendered photos of a 9x9 game (always), the gomrade photo sequence (when the shared data is
there), the simulated sensor grid, the mock Hall-sensor grid started and stopped by a signal, and
refusals of bad sources."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner
from sgfmill import boards, sgf

from companion.commands.run import command as run
from companion.journal import Journal
from companion.vision.render import render_board
from tests.support.paths import REPO, shared_data

ROOT = REPO

GAME = [  # a 9x9 game, one photo per position: B E5, W C3, B G7, W C7
    (4, 4, "B"),
    (6, 2, "W"),
    (2, 6, "B"),
    (2, 2, "W"),
]


def _rows(stones: list[tuple[int, int, str]]) -> list[str]:
    board = [["."] * 9 for _ in range(9)]
    for r, c, colour in stones:
        board[r][c] = colour
    return [" ".join(row) for row in board]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("photos")
    corners = None
    for n in range(len(GAME) + 1):
        shot = render_board(_rows(GAME[:n]), size=9, width=640, height=480, seed=n)
        cv2.imwrite(str(folder / f"{n}.png"), shot.image)
        corners = shot.corners[0]
    assert corners is not None
    return folder, ",".join(f"{v:.1f}" for v in corners.ravel())


def _final_rows(data: bytes) -> list[str]:
    """The position at the end of an SGF game (captures taken off), as label rows."""
    game = sgf.Sgf_game.from_bytes(data)
    size = game.get_size()
    board = boards.Board(size)
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is not None and point is not None:
            board.play(point[0], point[1], colour)
    return [
        " ".join((board.get(row, col) or ".").upper() for col in range(size))
        for row in reversed(range(size))
    ]


def test_a_folder_of_photos_runs_to_its_end_and_prints_the_game(
    photos: tuple[Path, str], tmp_path: Path
) -> None:
    folder, corners = photos
    journal = tmp_path / "j.sqlite"
    args = ["--source", f"dir:{folder}", "--board", "9", "--corners", corners]
    result = CliRunner().invoke(run, [*args, "--time", "byo:5m+3x30s", "--journal", str(journal)])
    assert result.exit_code == 0, result.output
    game = sgf.Sgf_game.from_bytes(result.stdout_bytes)
    moves = [n.get_move() for n in game.get_main_sequence()[1:]]
    assert moves == [("b", (4, 4)), ("w", (2, 2)), ("b", (6, 6)), ("w", (6, 2))]
    assert game.get_root().get("TM") == 300
    assert all(n.has_property("BL") or n.has_property("WL") for n in game.get_main_sequence()[1:])
    log = result.stderr
    assert "MovePlayed: Black played E5" in log and "MovePlayed: White played C7" in log
    with Journal(journal) as j:  # what was printed is what the journal holds
        assert [e.type for e in j.events()].count("MovePlayed") == 4


def test_a_second_run_of_a_recording_starts_a_new_game(
    photos: tuple[Path, str], tmp_path: Path
) -> None:
    folder, corners = photos
    args = ["--source", f"dir:{folder}", "--board", "9", "--corners", corners]
    args += ["--journal", str(tmp_path / "j.sqlite")]
    for _ in range(2):
        result = CliRunner().invoke(run, args)
        assert result.exit_code == 0, result.output
    assert "game 2 started" in result.stderr
    assert _final_rows(result.stdout_bytes) == _rows(GAME)


def test_the_gomrade_sequence_is_read_into_the_journal(tmp_path: Path) -> None:
    gomrade = shared_data("data/photos/gomrade/testing_sequence")
    corners = json.loads((gomrade.parent / "corners.json").read_text())["testing_sequence/0.jpg"]
    text = ",".join(f"{v:g}" for point in corners for v in point)
    result = CliRunner().invoke(
        run,
        ["--source", f"dir:{gomrade}", "--corners", text, "--journal", str(tmp_path / "j.sqlite")],
    )
    assert result.exit_code == 0, result.output
    want = [" ".join(line.split()) for line in (gomrade / "9.txt").read_text().splitlines()]
    assert _final_rows(result.stdout_bytes) == [w for w in want if w]
    # Photo 10 adds three stones at once: held and said, never guessed.
    assert "3 white stones appeared" in result.stderr


def test_the_simulated_grid_plays_the_demo_game_to_its_count(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        run, ["--source", "sim", "--demo-delay", "0", "--journal", str(tmp_path / "j.sqlite")]
    )
    assert result.exit_code == 0, result.output
    game = sgf.Sgf_game.from_bytes(result.stdout_bytes)
    assert game.get_root().get("RE") == "W+2.5" and game.get_size() == 13
    assert "Scored: counted by area: " in result.stderr
    assert "wins by 2.5 points" in result.stderr


def test_mock_sensors_and_buttons_start_and_stop_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "companion", "run", "--source", "sensors", "--mock-pins"]
    cmd += ["--buttons", "--time", "abs:10m", "--journal", str(tmp_path / "j.sqlite")]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        lines = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stderr.readline().decode()
            lines.append(line)
            if "companion: reading" in line or not line:
                break
        assert "companion: reading" in lines[-1], "".join(lines)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    text = "".join(lines) + err.decode()
    assert "GameStarted: game 1 started: chinese on 9, clock abs:10m" in text
    assert "ClockButtons players=2" in text and "companion: stopped" in text
    game = sgf.Sgf_game.from_bytes(out)
    assert game.get_size() == 9 and game.get_root().get("TM") == 600


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--source", "bogus"], 2, "unknown source 'bogus'"),
        (["--source", "usb:x"], 2, "usb needs a device number"),
        (["--source", "dir:/no/such/folder"], 1, "cannot list /no/such/folder"),
        (["--source", "sim", "--rules", "beyond-chess"], 2, "follows Go games"),
        (["--source", "sim", "--rules", "checkers"], 2, "unknown rules 'checkers'"),
        (["--source", "sim", "--time", "soon"], 2, "unknown time control"),
        (["--source", "sensors", "--board", "19", "--mock-pins"], 2, "reads a 9 board, not 19"),
        (["--source", "dir:.", "--corners", "1,2,3"], 2, "eight numbers"),
    ],
)
def test_bad_input_is_refused_clearly(
    args: list[str], code: int, message: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(run, [*args, "--journal", str(tmp_path / "j.sqlite")])
    assert result.exit_code == code, result.output
    assert message in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.skipif(
    importlib.util.find_spec("picamera2") is not None, reason="picamera2 is installed here"
)
def test_the_pi_camera_without_its_library_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(run, ["--source", "picam", "--journal", str(tmp_path / "j")])
    assert result.exit_code == 1 and "apt install python3-picamera2" in result.output
