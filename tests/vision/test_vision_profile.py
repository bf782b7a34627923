"""Calibration profiles: the documented file format, its refusals, and moved() detection."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.errors import CalibrationError, VisionError
from companion.vision.make_profile import calibrate
from companion.vision.profile import load_profile, parse_profile
from companion.vision.read_stones import DEFAULT_READER
from companion.vision.render import random_position, render_board
from tests.support.paths import REPO

EMPTY = [" ".join("." * 13)] * 13


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, object]:
    empty = render_board(EMPTY, size=13, seed=11, tilt=10)
    return empty.image, calibrate(empty.image, board="13", name="test camera")


def test_round_trip(scene: tuple[np.ndarray, object], tmp_path: Path) -> None:
    image, prof = scene
    path = tmp_path / "p.json"
    prof.save(path)  # type: ignore[attr-defined]
    data = json.loads(path.read_text())
    assert data["format"] == "companion-vision-profile" and data["version"] == 1
    again = load_profile(path)
    assert again.to_json() == prof.to_json()  # type: ignore[attr-defined]
    assert again.empty_patches is not None and again.empty_patches.shape == (169, 8, 8)
    assert again.read(image).states == (".",) * 169


def test_reads_stones_with_a_profile_made_on_the_empty_board(
    scene: tuple[np.ndarray, object],
) -> None:
    _, prof = scene
    rows = random_position(13, stones=0.3, seed=5)
    r = render_board(rows, size=13, seed=11, tilt=10)
    assert prof.read(r.image).states == r.tokens  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "not a companion-vision-profile"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(colour="red"), "unknown key"),
        (lambda d: d.update(board="9"), "13x13 region \\(layer 0\\) is not part of board 9"),
        (lambda d: d["regions"][0].update(corners=[[0, 0], [1, 1]]), "four"),
        (lambda d: d["regions"][0].update(kind="blob"), "kind"),
        (lambda d: d["empty"].update(patches="!!!"), "malformed"),
        (lambda d: d.pop("regions"), "regions: must be a list"),
        (lambda d: d.update(reader="cnn"), "reader: unknown reader 'cnn'"),
        (lambda d: d.update(reader=1), "reader: unknown reader"),
    ],
)
def test_malformed_profiles_are_refused(
    scene: tuple[np.ndarray, object], change: object, message: str
) -> None:
    _, prof = scene
    data = json.loads(json.dumps(prof.to_json()))  # type: ignore[attr-defined]
    change(data)  # type: ignore[operator]
    with pytest.raises(CalibrationError, match=message):
        parse_profile(data)


def test_a_profile_names_its_stone_reader(scene: tuple[np.ndarray, object], tmp_path: Path) -> None:
    """No ``reader`` key: the default reader; ``with_reader`` (``--reader``) overrides it, and
    a saved choice comes back from the file."""
    image, prof = scene
    assert "reader" not in prof.to_json()  # type: ignore[attr-defined]
    assert prof.reader().kind == DEFAULT_READER  # type: ignore[attr-defined]
    assert prof.with_reader(None) is prof  # type: ignore[attr-defined]
    other = "net" if DEFAULT_READER == "classic" else "classic"
    chosen = prof.with_reader(other)  # type: ignore[attr-defined]
    assert chosen.reader().kind == other and chosen.to_json()["reader"] == other
    chosen.save(tmp_path / "p.json")
    again = load_profile(tmp_path / "p.json")
    assert again.stone_reader == other and again.reader().kind == other
    assert again.read(image).states == (".",) * 169
    with pytest.raises(VisionError):
        prof.with_reader("cnn")  # type: ignore[attr-defined]


def test_wrong_frame_size_is_refused(scene: tuple[np.ndarray, object]) -> None:
    image, prof = scene
    with pytest.raises(CalibrationError, match="made for"):
        prof.read(image[:400])  # type: ignore[attr-defined]


def test_moved(scene: tuple[np.ndarray, object]) -> None:
    image, prof = scene
    assert not prof.moved(image)  # type: ignore[attr-defined]
    rows = random_position(13, stones=0.3, seed=2)
    same_place = render_board(rows, size=13, seed=11, tilt=10).image
    assert not prof.moved(same_place)  # type: ignore[attr-defined]
    spacing = np.linalg.norm(prof.regions[0].corners[1][0] - prof.regions[0].corners[0][0]) / 12  # type: ignore[attr-defined]
    shift = round(float(spacing * 0.4))
    shifted = np.roll(same_place, shift, axis=1)
    assert prof.moved(shifted)  # type: ignore[attr-defined]


def test_map_spots_placed_by_hand() -> None:
    """A GoBeyond map: spots placed on a photo once; here the spots of a rendered 9x9 grid."""
    from companion.games.topology import bundled_maps, load_map

    name = next(iter(bundled_maps()))
    topo = load_map(bundled_maps()[name])
    n = len(topo)
    side = int(np.ceil(np.sqrt(n)))
    size = max(side, 5)
    tokens = ["."] * (size * size)
    picked = list(range(n))
    for k, i in enumerate(picked):
        tokens[i] = "BW."[k % 3]
    rows = [" ".join(tokens[r * size : (r + 1) * size]) for r in range(size)]
    r = render_board(rows, size=size, seed=4)
    from companion.vision.geometry import homography, project

    H = homography(r.corners[0], size)
    pts = np.array([[i % size, i // size] for i in picked], dtype=np.float64)
    spots = project(H, pts)
    spacing = float(np.linalg.norm(r.corners[0][1] - r.corners[0][0]) / (size - 1))
    prof = calibrate(r.image, board=name, spots=spots.tolist(), spacing=spacing, empty=False)
    again = parse_profile(prof.to_json())
    obs = again.read(r.image)
    assert obs.states == tuple(tokens[i] for i in picked)
    with pytest.raises(CalibrationError):
        calibrate(r.image, board=name)


def test_stacked_board_watched_by_two_cameras() -> None:
    """Each camera sees one layer: one profile each, readings combined spot by spot."""
    from companion.vision.profile import combine

    rows = random_position(9, stones=0.3, seed=12, layers=2)
    r = render_board(rows, size=9, layers=2, seed=12, fill=0.7)
    half = r.image.shape[1] // 2
    left = np.ascontiguousarray(r.image[:, :half])  # camera A: layer 0
    right = np.ascontiguousarray(r.image[:, half:])  # camera B: layer 1
    a = parse_profile(calibrate(left, board="2x9x9", layers=[0], empty=False).to_json())
    b = parse_profile(calibrate(right, board="2x9x9", layers=[1], empty=False).to_json())
    obs_a, obs_b = a.read(left), b.read(right)
    assert obs_a.states[81:] == ("?",) * 81 and obs_b.states[:81] == ("?",) * 81
    assert combine([obs_a, obs_b]).states == r.tokens
    with pytest.raises(CalibrationError, match="layers"):
        calibrate(left, board="2x9x9", layers=[0, 0])


def test_shipped_example_profile_still_reads() -> None:
    """calibration/example-9x9-magnetic.json (made by companion calibrate from a rendered empty
    board) must keep matching the sampler: saved patches go stale if sampling changes."""
    path = REPO / "calibration" / "example-9x9-magnetic.json"
    prof = load_profile(path)
    for seed in (0, 1):
        rows = random_position(9, stones=0.3, seed=seed)
        r = render_board(rows, size=9, style="magnetic", tilt=10, seed=21)
        assert prof.read(r.image).states == r.tokens
