"""The calibration page's API for every board the table plays: a stacked pair (two sets of
corners on one frame) and a GoBeyond map (every spot placed by hand), over Flask's test client.

Frames are rendered (:mod:`companion.vision.render`), so the truth is known: the corners of
each layer, and for the ``torus-9`` map (its drawing is a 9x9 lattice) the rendered 9x9
board's points are the map's spots.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.games.topology import from_spec
from companion.journal import Journal
from companion.runtime.frames import FrameInput
from companion.table.session import TableSession
from companion.vision.calibration_geometry import calibration_profile
from companion.vision.geometry import homography, project
from companion.vision.profile import GridRegion, SpotRegion, load_profile
from companion.vision.render import Rendered, render_board
from companion.web.app import create_app
from tests.support.browsing import chromium, needs_chromium
from tests.support.shots import shots_dir

PIN = "246810"

LOWER = """
. . . . . . . . .
. . B . . . . . .
. . . . . . . . .
. . . . . . W . .
. . . . B . . . .
. . . . . . . . .
. . W . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
UPPER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . B .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. W . . . . . . .
. . . . . . . . .
"""
# torus-9: spot "r,c" (x = c, y = r) is the rendered 9x9 board's point in row r, column c
TORUS = """
. . . . . . . . .
. B . . . . . . .
. . . . . . . . .
. . . . W . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . B . .
. . . . . . . . .
. . W . . . . . .
"""


def rows(board: str) -> list[str]:
    return [line for line in board.strip().splitlines()]


def serve(tmp_path: Path, rules: str, board: str, image: np.ndarray) -> tuple[FlaskClient, Any]:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game(rules, board, players=("Ann", "Bob"))
    camera = FrameInput("dir:nowhere", board=board)
    camera.still = image
    app = create_app(table, pin=PIN, calibration_dir=tmp_path / "calibration", camera=camera)
    app.testing = True
    return app.test_client(), camera


def login(client: FlaskClient) -> dict[str, str]:
    """Log in with the PIN; the headers a control needs afterwards."""

    def token() -> str:
        page = client.get("/calibrate").get_data(as_text=True)
        match = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert match
        return match.group(1)

    assert client.post("/login", data={"pin": PIN, "csrf": token()}).status_code == 302
    return {"X-CSRF-Token": token()}


# ---------------------------------------------------------------------------------- stacked
@pytest.fixture(scope="module")
def pair() -> Rendered:
    return render_board(rows(LOWER) + rows(UPPER), size=9, layers=2, seed=3)


def stacked_body(pair: Rendered, **extra: Any) -> dict[str, Any]:
    regions = [
        {"layer": k, "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in c]}
        for k, c in enumerate(pair.corners)
    ]
    h, w = pair.image.shape[:2]
    return {"name": "stacked-table", "image": [w, h], "regions": regions, **extra}


def test_stacked_preview_reads_both_layers_and_save_maps_them(
    tmp_path: Path, pair: Rendered
) -> None:
    client, camera = serve(tmp_path, "stacked", "2x9x9", pair.image)
    page = client.get("/calibrate").get_data(as_text=True)
    assert "lower layer" in page and "upper layer" in page
    body = stacked_body(pair, board="2x9x9")
    assert client.post("/api/calibration/preview", json=body).status_code == 403
    headers = login(client)
    preview = client.post("/api/calibration/preview", json=body, headers=headers).get_json()
    assert preview["ok"], preview
    assert tuple(preview["states"]) == pair.tokens  # both layers, lower layer first
    topo = from_spec("2x9x9")
    upper_b = topo.spot(2, 7, layer=1)
    assert preview["states"][upper_b] == "B"
    expected = project(homography(pair.corners[1], 9), np.array([[7.0, 2.0]]))[0]
    assert np.allclose(preview["points"][upper_b], expected, atol=0.2)

    # the layers may come in any order: each says which it is
    swapped = dict(body, regions=body["regions"][::-1])
    resp = client.post("/api/calibration", json=swapped, headers=headers)
    assert resp.status_code == 200, resp.get_json()
    profile = load_profile(resp.get_json()["saved"])
    assert profile.board == "2x9x9" and camera.profile is not None
    grids = sorted((r for r in profile.regions if isinstance(r, GridRegion)), key=lambda r: r.layer)
    assert [g.layer for g in grids] == [0, 1]
    assert np.allclose(grids[1].corners, pair.corners[1], atol=0.1)
    assert profile.read(pair.image).states == pair.tokens
    # the page starts from the saved profile next time
    page = client.get("/calibrate").get_data(as_text=True)
    initial = json.loads(re.search(r'data-initial="([^"]*)"', page)[1].replace("&#34;", '"'))  # type: ignore[index]
    assert np.allclose(initial["regions"][1], pair.corners[1], atol=0.1)


def upper(body: dict[str, Any], order: list[int]) -> dict[str, Any]:
    """The body with the upper layer's corners taken in another order."""
    lower, up = body["regions"]
    return dict(body, regions=[lower, dict(up, corners=[up["corners"][i] for i in order])])


def one_quad(body: dict[str, Any]) -> dict[str, Any]:
    """The body with only the lower layer's corners, sent as for a one-layer board."""
    return {"name": body["name"], "image": body["image"], "corners": body["regions"][0]["corners"]}


def _off(found: Any, truth: np.ndarray, n: int) -> float:
    """Worst corner distance of ``found`` from ``truth``, in grid spacings."""
    step = float(np.linalg.norm(truth[1] - truth[0])) / (n - 1)
    return float(np.linalg.norm(np.asarray(found, np.float64) - truth, axis=1).max()) / step


def test_the_handles_start_where_the_finder_finds_each_board(
    tmp_path: Path, pair: Rendered
) -> None:
    """``/api/calibration/find`` (PIN): one quad per layer of the stacked pair, left to right,
    each on its board's corners; on a still with no board, a refusal in words."""
    client, camera = serve(tmp_path, "stacked", "2x9x9", pair.image)
    assert client.post("/api/calibration/find", json={}).status_code == 403
    headers = login(client)
    found = client.post("/api/calibration/find", json={}, headers=headers).get_json()
    assert found["ok"] and len(found["regions"]) == 2
    for quad, truth in zip(found["regions"], pair.corners, strict=True):
        assert _off(quad, np.asarray(truth, np.float64), 9) < 0.15
    camera.still = np.full_like(pair.image, 128)
    resp = client.post("/api/calibration/find", json={}, headers=headers)
    assert resp.status_code == 422 and "no board" in resp.get_json()["error"]
    camera.still = None
    assert client.post("/api/calibration/find", json={}, headers=headers).status_code == 409


def test_a_map_is_not_found_but_placed_by_hand(
    tmp_path: Path, torus: tuple[Rendered, dict[str, list[float]]]
) -> None:
    client, _ = serve(tmp_path, "gobeyond", "torus-9", torus[0].image)
    headers = login(client)
    resp = client.post("/api/calibration/find", json={}, headers=headers)
    assert resp.status_code == 400 and "placed by hand" in resp.get_json()["error"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: dict(b, regions=b["regions"][:1]), "needs 2 set(s) of corners"),
        (one_quad, "2 layers: send one set of corners each"),
        (lambda b: dict(b, regions=[b["regions"][0], dict(b["regions"][1], layer=0)]), "two sets"),
        (lambda b: dict(b, regions=[b["regions"][0], dict(b["regions"][0], layer=1)]), "overlap"),
        (lambda b: upper(b, [0, 2, 1, 3]), "upper layer: the corners cross over"),
        (lambda b: upper(b, [0, 3, 2, 1]), "upper layer: the corners go round the wrong way"),
        (lambda b: dict(b, regions="left"), "needs 2 set(s) of corners"),
        (lambda b: dict(b, regions=[1, 2]), "each region is"),
        (lambda b: dict(b, spots={"0": [1, 1]}), "not a map"),
        (lambda b: dict(b, board="19"), "reload the page"),
    ],
)
def test_bad_stacked_corners_are_refused(
    tmp_path: Path, pair: Rendered, change: Any, message: str
) -> None:
    client, camera = serve(tmp_path, "stacked", "2x9x9", pair.image)
    headers = login(client)
    resp = client.post("/api/calibration", json=change(stacked_body(pair)), headers=headers)
    assert resp.status_code == 400
    assert message in resp.get_json()["error"]
    assert camera.profile is None and not (tmp_path / "calibration").exists()


# ---------------------------------------------------------------------------------- maps
@pytest.fixture(scope="module")
def torus() -> tuple[Rendered, dict[str, list[float]]]:
    """A rendered 9x9 board and the torus-9 map's spots on its points."""
    r = render_board(rows(TORUS), size=9, seed=5, tilt=15)
    topo = from_spec("torus-9")
    pixels = project(homography(r.corners[0], 9), np.array(topo.xy, dtype=np.float64))
    spots = {
        sid: [round(float(x), 1), round(float(y), 1)]
        for sid, (x, y) in zip(topo.ids, pixels, strict=True)
    }
    return r, spots


def test_map_preview_reads_every_spot_and_save_writes_spots(
    tmp_path: Path, torus: tuple[Rendered, dict[str, list[float]]]
) -> None:
    r, spots = torus
    client, camera = serve(tmp_path, "gobeyond", "torus-9", r.image)
    page = client.get("/calibrate").get_data(as_text=True)
    assert "Place the map's spots" in page and "3,4" in page  # ids for the page to draw
    h, w = r.image.shape[:2]
    body = {"name": "torus", "board": "torus-9", "image": [w, h], "spots": spots}
    assert client.post("/api/calibration", json=body).status_code == 403
    headers = login(client)
    preview = client.post("/api/calibration/preview", json=body, headers=headers).get_json()
    assert preview["ok"], preview
    topo = from_spec("torus-9")
    assert tuple(preview["states"]) == r.tokens  # torus-9's spot order is the board's rows
    assert preview["states"][topo.index("3,4")] == "W"
    assert preview["points"][topo.index("3,4")] == spots["3,4"]

    resp = client.post("/api/calibration", json=body, headers=headers)
    assert resp.status_code == 200, resp.get_json()
    profile = load_profile(resp.get_json()["saved"])
    (region,) = profile.regions
    assert isinstance(region, SpotRegion) and camera.profile is not None
    assert region.spots[topo.index("8,2")] == tuple(spots["8,2"])
    side = float(np.linalg.norm(r.corners[0][1] - r.corners[0][0])) / 8
    assert 0.7 * side < region.spacing < 1.1 * side  # links between neighbours, not wraps
    assert profile.read(r.image).states == r.tokens
    page = client.get("/calibrate").get_data(as_text=True)
    assert 'data-initial="{&#34;spots&#34;: [[' in page


def _without(spots: dict[str, list[float]], key: str) -> dict[str, list[float]]:
    return {k: v for k, v in spots.items() if k != key}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: _without(s, "4,4"), "1 not placed (4,4)"),
        (lambda s: s | {"9,9": [10, 10]}, "no spot(s) '9,9'"),
        (lambda s: s | {"0,0": [5000, 10]}, "spot 0,0 at (5000, 10) is outside the picture"),
        (lambda s: s | {"0,0": [-1, 10]}, "outside the picture"),
        (lambda s: s | {"0,0": "here"}, "spot 0,0 must be [x, y]"),
        (lambda s: s | {"0,0": [True, 3]}, "spot 0,0 must be [x, y]"),
        (lambda s: s | {"0,1": s["0,0"]}, "spots 0,0 and 0,1 are on top of each other"),
        (lambda s: {k: [100, 100] for k in s}, "squeezed together"),
        (lambda s: list(s.values()), "spots must be an object"),
    ],
)
def test_bad_spot_payloads_are_refused(
    tmp_path: Path, torus: tuple[Rendered, dict[str, list[float]]], change: Any, message: str
) -> None:
    r, spots = torus
    client, camera = serve(tmp_path, "gobeyond", "torus-9", r.image)
    headers = login(client)
    h, w = r.image.shape[:2]
    body = {"name": "torus", "image": [w, h], "spots": change(dict(spots))}
    for url in ("/api/calibration/preview", "/api/calibration"):
        resp = client.post(url, json=body, headers=headers)
        assert resp.status_code == 400
        assert message in resp.get_json()["error"]
    assert camera.profile is None and not (tmp_path / "calibration").exists()


def test_a_map_wants_spots_not_corners() -> None:
    started = type("Started", (), {"topology": "hex-5"})()
    body = {"name": "x", "image": [640, 480], "corners": [[1, 1], [9, 1], [9, 9], [1, 9]]}
    with pytest.raises(ValueError, match="is a map: place its spots"):
        calibration_profile(body, board=started)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="spots must be an object"):
        no_corners = {k: v for k, v in body.items() if k != "corners"}
        calibration_profile(no_corners, board=None, default_board="hex-5")


def test_a_grid_still_takes_four_corners() -> None:
    body = {"name": "x", "image": [640, 480], "corners": [[1, 1], [90, 1], [90, 90], [1, 90]]}
    checked = calibration_profile(body, board=None, default_board="13x9")
    assert checked["regions"] == [checked["corners"]] and checked["board"] == "13x9"
    flat = dict(body, corners=[[1, 1], [50, 1], [90, 1], [1, 90]])
    with pytest.raises(ValueError, match="three corners lie on one line"):
        calibration_profile(flat, board=None, default_board="13x9")


# ---------------------------------------------------------------------------------- browser
def calibrate_logged_in(browser: Any, url: str, errors: list[str]) -> Any:
    """A desktop page in ``browser``, logged in with the PIN, on ``/calibrate``; its script
    errors go to ``errors``."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/login")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.goto(url + "/calibrate")
    return page


@pytest.mark.browser
@needs_chromium
def test_browser_fits_a_map_drags_a_spot_and_saves(
    tmp_path: Path, torus: tuple[Rendered, dict[str, list[float]]], serve: Callable[..., str]
) -> None:
    """In chromium: fit the map with its four handles, drag one spot off its stone (the read
    loses the stone) and back on, save; the saved profile has the spot where it was dropped."""
    r, spots = torus
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("gobeyond", "torus-9", players=("Ann", "Bob"))
    camera = FrameInput("dir:nowhere", board="torus-9")
    camera.still = r.image
    app = create_app(table, pin=PIN, calibration_dir=tmp_path / "calibration", camera=camera)
    url = serve(app, threads=4)
    shots = shots_dir()
    topo = from_spec("torus-9")
    # where the map's box corners (half a spacing round the spots) belong in the picture
    H = homography(r.corners[0], 9)
    box = project(H, np.array([[-0.5, -0.5], [8.5, -0.5], [8.5, 8.5], [-0.5, 8.5]]))
    errors: list[str] = []
    try:
        with chromium() as browser:
            page = calibrate_logged_in(browser, url, errors)
            assert page.locator("circle.spot").count() == len(topo)
            result = page.locator("#calib-result")
            result.locator("text=the reader sees").wait_for(timeout=5000)
            frame = page.locator("#overlay").bounding_box()
            scale = frame["width"] / r.image.shape[1]

            def on_page(x: float, y: float) -> tuple[float, float]:
                return frame["x"] + x * scale, frame["y"] + y * scale

            def drag(selector: str, to: tuple[float, float]) -> None:
                # the overlay is redrawn when a read comes back: wait until none is under way
                page.locator("#calib:not(.reading)").wait_for(timeout=5000)
                handle = page.locator(selector).bounding_box()
                assert handle is not None, selector
                page.mouse.move(
                    handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
                )
                page.mouse.down()
                page.mouse.move(*on_page(*to), steps=4)
                page.mouse.up()

            for i, corner in enumerate(box):
                drag(f'rect.frame-handle[data-i="{i}"]', (corner[0], corner[1]))
            result.locator("text=the reader sees 2 black, 2 white, 0 unsure").wait_for(timeout=5000)
            black = spots["1,1"]
            away = project(H, np.array([[1.5, 1.5]]))[0]  # between points, no stone
            drag('circle.spot[data-id="1,1"]', (away[0], away[1]))
            result.locator("text=the reader sees 1 black, 2 white").wait_for(timeout=5000)
            assert page.locator('circle.spot.moved[data-id="1,1"]').count() == 1
            drag('circle.spot[data-id="1,1"]', (black[0], black[1]))
            result.locator("text=the reader sees 2 black, 2 white, 0 unsure").wait_for(timeout=5000)
            spot = page.locator('circle.spot[data-id="1,1"]')
            x0 = float(spot.get_attribute("cx") or "nan")
            page.keyboard.press("Shift+ArrowRight")  # precise adjustment of the last one dragged
            assert float(spot.get_attribute("cx") or "nan") == pytest.approx(x0 + 10)
            for _ in range(10):
                page.keyboard.press("ArrowLeft")
            assert float(spot.get_attribute("cx") or "nan") == pytest.approx(x0)
            page.fill("input[name=name]", "torus-table")
            page.click("#calib-form button[type=submit]")
            result.locator("text=saved").wait_for(timeout=5000)
            page.screenshot(path=str(shots / "calibrate-map.png"), full_page=True)
    finally:
        table.journal.close()
    assert not errors, errors
    profile = load_profile(tmp_path / "calibration" / "torus-table.json")
    (region,) = profile.regions
    assert isinstance(region, SpotRegion)
    placed = np.array(region.spots)
    truth = np.array([spots[k] for k in topo.ids])
    assert np.abs(placed - truth).max() < 3.0  # within a screen pixel or two of the truth
    assert profile.read(r.image).states == r.tokens


@pytest.mark.browser
@needs_chromium
def test_browser_starts_the_handles_where_the_board_is_found(
    tmp_path: Path, serve: Callable[..., str]
) -> None:
    """In chromium, logged in, with no profile: the handles start on the board's corners the
    finder found and the reader reads with them; on a still whose grid the check refuses
    (validation scene 520087, 13 x 13, tuned on; that grid lies on the lines) they start on
    the grid offered, with the doubt said, and the player can save it."""
    from companion.vision.finder_eval import scene_cases

    r = render_board(rows(TORUS), size=9, seed=7, tilt=20, rotate=8)
    (scene,) = scene_cases([520_087], [])
    assert scene.corners is not None
    errors: list[str] = []
    for board, image, truth, said in (
        ("9", r.image, np.asarray(r.corners[0], np.float64), "Board found"),
        ("13", scene.image, np.asarray(scene.corners, np.float64), "Not sure this is the board"),
    ):
        table = TableSession(Journal(tmp_path / f"j{board}.sqlite"))
        table.start_game("chinese", board, players=("Ann", "Bob"))
        camera = FrameInput("dir:nowhere", board=board)
        camera.still = image
        folder = tmp_path / f"calibration{board}"
        app = create_app(table, pin=PIN, calibration_dir=folder, camera=camera)
        url = serve(app, threads=4)
        try:
            with chromium() as browser:
                page = calibrate_logged_in(browser, url, errors)
                result = page.locator("#calib-result")
                result.locator(f"text={said}").wait_for(timeout=60000)
                assert "the reader sees" in result.inner_text()
                placed = [
                    [float(h.get_attribute("cx") or "nan"), float(h.get_attribute("cy") or "nan")]
                    for h in page.locator("circle.handle").all()
                ]
                assert _off(placed, truth, int(board)) < 0.2, placed
                page.screenshot(path=str(shots_dir() / f"calibrate-found-{board}.png"))
                page.fill("input[name=name]", f"found-{board}")
                page.click("#calib-form button[type=submit]")
                result.locator("text=saved").wait_for(timeout=10000)
        finally:
            table.journal.close()
        profile = load_profile(folder / f"found-{board}.json")
        (region,) = profile.regions
        assert isinstance(region, GridRegion)
        assert _off(region.corners, truth, int(board)) < 0.2
    assert not errors, errors
