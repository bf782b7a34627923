"""``companion score PHOTO`` through click's CliRunner, on rendered photos of known boards."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.commands.score import UNREAD
from companion.vision.render import render_board
from tests.support.boards import FINISHED_9


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("score") / "finished.jpg"
    cv2.imwrite(str(path), render_board(FINISHED_9, seed=3, tilt=10).image)
    return path


def test_a_finished_board_is_counted_and_the_count_explained(photo: Path) -> None:
    res = CliRunner().invoke(main, ["score", str(photo)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1] == "    A B C D E F G H J"
    assert "  6 . . B W . W . b ." in lines  # the dead stone in lower case
    assert "dead (suggested, check them): H6" in lines
    assert "result: W+34.5" in lines
    assert "  Black: 11 stones + 16 territory = 27" in lines
    assert any("area scoring" in line and "komi 7.5" in line for line in lines)


def test_json_and_territory_counting_with_prisoners(photo: Path) -> None:
    args = ["score", str(photo), "--json", "--rules", "japanese", "--komi", "0.5"]
    res = CliRunner().invoke(main, [*args, "--prisoners", "3,1"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["rows"] == FINISHED_9 and data["dead"] == ["H6"]
    assert data["score"]["method"] == "territory" and data["komi"] == 0.5
    # Black 16 territory + 3; White 41 territory + H6 + 1 taken during play + 0.5
    assert data["score"]["points"] == {"B": 19, "W": 43.5}
    assert data["result"] == "W+24.5" and data["reading"]["corners_from"] == "found"
    bad = CliRunner().invoke(main, [*args, "--prisoners", "three"])
    assert bad.exit_code == 2 and "--prisoners" in bad.output


def test_unread_points_give_no_score_unless_counted_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "hand.jpg"
    cv2.imwrite(str(path), render_board(FINISHED_9, seed=1, hand=True).image)
    res = CliRunner().invoke(main, ["score", str(path), "--size", "9"])
    assert res.exit_code == UNREAD
    assert "could not be read" in res.output and "no score" in res.output
    assert "result:" not in res.output and "?" in res.output
    res = CliRunner().invoke(main, ["score", str(path), "--size", "9", "--json"])
    assert res.exit_code == UNREAD
    data = json.loads(res.output[: res.output.rindex("}") + 1])
    assert data["result"] is None and data["unknown"]
    res = CliRunner().invoke(main, ["score", str(path), "--size", "9", "--assume-empty"])
    assert res.exit_code == 0 and "counted as empty, unread:" in res.output


def test_bad_photos_are_clear_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_text("not a photo")
    res = CliRunner().invoke(main, ["score", str(junk)])
    assert res.exit_code == 1 and "not an image file" in res.output
    huge = tmp_path / "huge.png"
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    huge.write_bytes(
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
    )
    res = CliRunner().invoke(main, ["score", str(huge)])
    assert res.exit_code == 1 and "30000x30000 is over the limit" in res.output
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    res = CliRunner().invoke(main, ["score", str(blank)])
    assert res.exit_code == 1 and "board" in res.output
    res = CliRunner().invoke(main, ["score", str(tmp_path / "missing.jpg")])
    assert res.exit_code == 1 and "no such file" in res.output
    assert "Traceback" not in res.output


def test_corners_given_instead_of_finding_the_board(tmp_path: Path) -> None:
    rendered = render_board(FINISHED_9, seed=4)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), rendered.image)
    corners = ",".join(f"{v:.1f}" for v in rendered.corners[0].ravel())
    res = CliRunner().invoke(
        main, ["score", str(path), "--size", "9", "--corners", corners, "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["reading"]["corners_from"] == "given" and data["rows"] == FINISHED_9
    bad = CliRunner().invoke(main, ["score", str(path), "--corners", "1,2,3"])
    assert bad.exit_code == 2 and "eight numbers" in bad.output
