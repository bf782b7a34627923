"""Checking placed corners and spots (companion.vision.calibration_geometry), on plain numbers.

No Flask and no camera: the page's requests are dicts, the picture is only its size.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from companion import events as ev
from companion.errors import MapError
from companion.games.topology import from_spec
from companion.vision.calibration_geometry import (
    calibration_initial,
    calibration_profile,
    calibration_topology,
    layer_name,
)
from companion.vision.profile import GridRegion, Profile, SpotRegion

IMAGE = [640, 480]
# Clockwise in picture coordinates (y down) from the top left.
SQUARE = [[100, 50], [500, 50], [500, 430], [100, 430]]
LEFT = [[20, 40], [300, 40], [300, 420], [20, 420]]
RIGHT = [[340, 40], [620, 40], [620, 420], [340, 420]]


def grid(corners: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "table-1", "image": IMAGE, "corners": corners, **extra}


def stacked(*quads: Any) -> dict[str, Any]:
    regions = [{"layer": k, "corners": q} for k, q in enumerate(quads)]
    return {"name": "pair", "image": IMAGE, "regions": regions}


def check(body: Any, board: str = "19") -> dict[str, Any]:
    return calibration_profile(body, board=None, default_board=board)


def test_a_clockwise_quad_is_the_profile_of_a_one_layer_board() -> None:
    out = check(grid(SQUARE))
    assert out["format"] == "companion-calibration" and out["version"] == 1
    assert out["board"] == "19" and out["image"] == IMAGE and out["name"] == "table-1"
    assert out["corners"] == [[100.0, 50.0], [500.0, 50.0], [500.0, 430.0], [100.0, 430.0]]
    assert out["regions"] == [out["corners"]]


def test_corners_are_rounded_to_a_tenth_of_a_pixel() -> None:
    out = check(grid([[100.04, 50.06], [500, 50], [500, 430], [100, 430]]))
    assert out["corners"][0] == [100.0, 50.1]


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        (SQUARE[::-1], "the corners go round the wrong way"),
        ([SQUARE[0], SQUARE[2], SQUARE[1], SQUARE[3]], "the corners cross over"),
        ([[100, 50], [300, 50], [500, 50], [100, 430]], "three corners lie on one line"),
        (SQUARE[:3], "give exactly four corners"),
        ([*SQUARE[:3], [700, 430]], "corner at (700, 430) is outside the picture"),
        ([*SQUARE[:3], [-1, 430]], "outside the picture"),
        ([*SQUARE[:3], [float("nan"), 4]], "outside the picture"),
        ([*SQUARE[:3], "here"], "corner must be [x, y] in pixels"),
        ([*SQUARE[:3], [True, 4]], "corner must be [x, y] in pixels"),
    ],
)
def test_bad_corners_are_named(corners: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check(grid(corners))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("corners", "send a JSON object"),
        (grid(SQUARE, name=""), "the name must be"),
        (grid(SQUARE, name="../etc"), "the name must be"),
        (grid(SQUARE, image=[640]), "image must be"),
        (grid(SQUARE, image=[640, -1]), "image must be"),
        (grid(SQUARE, image=[True, 480]), "image must be"),
        (grid(SQUARE, board="9"), "the table now plays on board 19, not 9: reload the page"),
    ],
)
def test_bad_requests_are_named(body: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check(body)


def test_the_started_game_decides_the_board() -> None:
    started = ev.GameStarted(rules="club", topology="9")
    out = calibration_profile(grid(SQUARE, board="9"), board=started, default_board="19")
    assert out["board"] == "9"


def test_a_stacked_board_takes_one_quad_per_layer_in_layer_order() -> None:
    body = stacked(LEFT, RIGHT)
    body["regions"].reverse()  # the page may send the upper layer first
    out = check(body, "2x9x9")
    assert out["regions"] == [[[float(x), float(y)] for x, y in q] for q in (LEFT, RIGHT)]
    assert "corners" not in out


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (grid(LEFT), "has 2 layers: send one set of corners each"),
        (stacked(LEFT), "needs 2 set"),
        (stacked(LEFT, LEFT), "the lower layer and the upper layer overlap"),
        (stacked(LEFT, RIGHT[::-1]), "upper layer: the corners go round the wrong way"),
        (
            {"name": "p", "image": IMAGE, "regions": [{"layer": 1, "corners": LEFT}] * 2},
            "the upper layer has two sets of corners",
        ),
        ({"name": "p", "image": IMAGE, "regions": [{"layer": 5, "corners": LEFT}, {}]}, "0 to 1"),
        ({"name": "p", "image": IMAGE, "spots": {}}, "is not a map"),
    ],
)
def test_bad_stacked_corners_are_named(body: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check(body, "2x9x9")


def hex_spots(scale: float = 30.0) -> dict[str, list[float]]:
    topo = from_spec("hex-5")
    return {
        sid: [round(40 + x * scale, 1), round(20 + y * scale, 1)]
        for sid, (x, y) in zip(topo.ids, topo.xy, strict=True)
    }


def test_a_map_takes_every_spot_in_topology_order_and_measures_the_spacing() -> None:
    spots = hex_spots()
    topo = from_spec("hex-5")
    assert max(x for x, _ in spots.values()) < IMAGE[0] and max(y for _, y in spots.values()) < 480
    out = check({"name": "hex", "image": IMAGE, "spots": spots}, "hex-5")
    assert out["spots"] == [spots[k] for k in topo.ids]
    # hex-5's linked spots are 1.732 drawing units apart: 52 pixels at 30 px a unit
    assert out["spacing"] == pytest.approx(51.96, abs=0.1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: {k: v for k, v in s.items() if k != "0,0"}, r"1 not placed \(0,0\)"),
        (lambda s: s | {"9,9": [10, 10]}, "has no spot"),
        (lambda s: s | {"0,1": s["0,0"]}, "are on top of each other"),
        (lambda s: {k: [100, 100] for k in s}, "squeezed together"),
        (lambda s: list(s.values()), "spots must be an object"),
    ],
)
def test_bad_spots_are_named(change: Any, message: str) -> None:
    body = {"name": "hex", "image": IMAGE, "spots": change(hex_spots())}
    with pytest.raises(ValueError, match=message):
        check(body, "hex-5")


def test_a_map_refuses_corners_and_an_unknown_board_is_a_map_error() -> None:
    with pytest.raises(ValueError, match="is a map: place its spots"):
        check(grid(SQUARE), "hex-5")
    with pytest.raises(MapError):
        check(grid(SQUARE), "no-such-board")


def test_what_the_page_draws_for_each_kind_of_board() -> None:
    assert calibration_topology("19") == {
        "spec": "19",
        "kind": "grid",
        "shape": (1, 19, 19),
        "layers": ["layer 1"],
    }
    assert calibration_topology("2x9x9")["layers"] == ["lower layer", "upper layer"]
    drawn = calibration_topology("hex-5")
    assert drawn["shape"] is None and len(drawn["ids"]) == len(drawn["xy"]) == 61
    assert [0, 1] in [list(link) for link in drawn["links"]]
    assert layer_name(2, 3) == "layer 3"


def test_handles_start_on_the_cameras_profile_only_when_it_fits() -> None:
    class Still:
        shape = (480, 640, 3)

    quad = tuple((float(x), float(y)) for x, y in SQUARE)
    profile = Profile(board="19", image_size=(640, 480), regions=[GridRegion(quad, 19, 19)])
    assert calibration_initial(profile, "19", Still()) == {"regions": [[list(p) for p in quad]]}
    assert calibration_initial(profile, "9", Still()) is None  # another board now
    assert calibration_initial(Profile("19", (320, 240), profile.regions), "19", Still()) is None
    assert calibration_initial(None, "19", Still()) is None
    assert calibration_initial(profile, "19", None) is None
    spots = SpotRegion(spots=((10.0, 10.0), (50.0, 10.0)), spacing=40.0)
    on_map = Profile(board="hex-5", image_size=(640, 480), regions=[spots])
    assert calibration_initial(on_map, "hex-5", Still()) == {"spots": [[10.0, 10.0], [50.0, 10.0]]}
