"""The 3D board renderer: deterministic, and its labels and corners agree with its pixels."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.errors import VisionError
from companion.vision.find_board import order_corners
from companion.vision.scene import SceneImage, render_scene

SMALL = {"width": 240, "height": 180}
CLEAN = {  # even light, sharp, no noise: for checks that look at single pixels
    "light": "even",
    "light_colour": "white",
    "white_balance": 0.0,
    "ambient": 0.4,
    "blur_px": 0.0,
    "motion_px": 0.0,
    "noise": 0.0,
    "sharpen": 0.0,
    "jpeg": 0,
    "hand": False,
    "nudge": 0.0,
    "distortion": 0.0,
    "vignette": 0.0,
    "exposure": 1.0,
    "contrast": 1.4,
}
EMPTY9 = [". . . . . . . . ."] * 9


def _grid_pixels(scene: SceneImage, layer: int = 0) -> np.ndarray:
    """Image positions of every intersection (row-major, label order) on the board plane."""
    n = scene.size
    src = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float32)
    h = cv2.getPerspectiveTransform(src, scene.corners[layer].astype(np.float32))
    rr, cc = np.mgrid[0:n, 0:n]
    pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    return cv2.perspectiveTransform(pts.reshape(1, -1, 2), h.astype(np.float64)).reshape(-1, 2)


def _grey(img: np.ndarray, xy: np.ndarray, r: int = 1) -> float:
    """Median grey of the (2r+1)^2 patch at ``xy`` (a glint on a stone is a few pixels)."""
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float64)
    x, y = round(float(xy[0])), round(float(xy[1]))
    return float(np.median(g[y - r : y + r + 1, x - r : x + r + 1]))


def test_same_seed_same_image_and_truth() -> None:
    a = render_scene(7, size=9, **SMALL)
    b = render_scene(7, size=9, **SMALL)
    c = render_scene(8, size=9, **SMALL)
    assert np.array_equal(a.image, b.image)
    assert a.rows == b.rows and a.factors == b.factors and a.hidden == b.hidden
    assert all(np.array_equal(x, y) for x, y in zip(a.corners, b.corners, strict=True))
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (180, 240, 3) and a.image.dtype == np.uint8
    assert len(a.rows) == 1 and len(a.rows[0]) == 9
    assert all(len(r.split()) == 9 for r in a.rows[0])


def test_pinning_one_factor_leaves_the_others() -> None:
    base = render_scene(3, size=9, **SMALL).factors
    pinned = render_scene(3, size=9, elevation_deg=30, **SMALL).factors
    assert pinned["elevation_deg"] == 30.0
    diff = {k for k in base if base[k] != pinned[k]} - {"hidden"}  # hidden follows the view
    assert diff == {"elevation_deg"}


def test_bad_factors_are_refused() -> None:
    with pytest.raises(VisionError, match="unknown"):
        render_scene(0, size=9, wobble=3, **SMALL)
    with pytest.raises(VisionError):
        render_scene(0, size=9, elevation_deg="steep", **SMALL)
    with pytest.raises(VisionError):
        render_scene(0, size=9, light="disco", **SMALL)
    with pytest.raises(VisionError):
        render_scene(0, size=9, position=[". B"], **SMALL)
    with pytest.raises(VisionError):
        render_scene(0, size=9, width=10, height=10)


@pytest.mark.parametrize(("seed", "elevation"), [(1, 90.0), (2, 55.0), (3, 32.0)])
def test_corner_intersections_land_on_the_lines(seed: int, elevation: float) -> None:
    """On a bare board, projected intersections are darker than the cell centres."""
    scene = render_scene(
        seed,
        size=9,
        width=320,
        height=240,
        position=EMPTY9,
        elevation_deg=elevation,
        board="wood",
        stones_style="slate_shell",
        line_mm=1.2,
        **CLEAN,
    )
    assert np.allclose(order_corners(scene.corners[0]), scene.corners[0])
    pts = _grid_pixels(scene)
    n = 9
    on = [_grey(scene.image, p) for p in pts]
    grid = pts.reshape(n, n, 2)
    centres = (grid[:-1, :-1] + grid[1:, 1:] + grid[:-1, 1:] + grid[1:, :-1]) / 4
    off = [_grey(scene.image, p) for p in centres.reshape(-1, 2)]
    assert np.median(on) < np.median(off) - 12, (np.median(on), np.median(off))


@pytest.mark.parametrize("azimuth", [0.0, 100.0, 190.0, 280.0])
def test_labels_turn_with_the_corners(azimuth: float) -> None:
    """A black stone in the board's own top-left corner and a white one beside it: wherever
    the camera stands, the labels name the spots where the image shows them."""
    rows = ["B W . . . . . . ."] + [". . . . . . . . ."] * 8
    scene = render_scene(
        5,
        size=9,
        position=rows,
        elevation_deg=90.0,
        azimuth_deg=azimuth,
        board="wood",
        stones_style="slate_shell",
        **CLEAN,
        **SMALL,
    )
    toks = scene.tokens
    assert sorted(toks.count(t) for t in "BW") == [1, 1]
    pts = _grid_pixels(scene)
    b, w = toks.index("B"), toks.index("W")
    assert b in (0, 8, 72, 80)  # a corner
    assert _grey(scene.image, pts[b], 2) < 70
    assert _grey(scene.image, pts[w], 2) > 150
    assert np.allclose(order_corners(scene.corners[0]), scene.corners[0])


@pytest.mark.parametrize("style", ["slate_shell", "glass", "plastic", "yunzi", "magnetic"])
def test_black_top_dark_and_white_top_bright(style: str) -> None:
    rows = [". . . . . . . . ."] * 4 + [". . B . . . W . ."] + [". . . . . . . . ."] * 4
    scene = render_scene(
        11, size=9, position=rows, elevation_deg=90.0, stones_style=style, **CLEAN, **SMALL
    )
    pts = _grid_pixels(scene)
    toks = scene.tokens
    r = int(0.3 * np.linalg.norm(pts[1] - pts[0]))  # most of the stone's top, a glint or not
    assert _grey(scene.image, pts[toks.index("B")], r) < 70
    assert _grey(scene.image, pts[toks.index("W")], r) > 150


def test_hidden_spots_are_under_the_hand() -> None:
    """Spots said hidden look different once the hand is taken away; some are hidden."""
    seen = 0
    for seed in range(4):
        kw = {**CLEAN, "hand": True, "elevation_deg": 70.0}
        with_hand = render_scene(seed, size=9, **kw, **SMALL)
        kw["hand"] = False
        without = render_scene(seed, size=9, **kw, **SMALL)
        assert not without.hidden
        pts = _grid_pixels(with_hand)
        r = int(0.4 * np.linalg.norm(pts[1] - pts[0]))
        delta = np.abs(with_hand.image.astype(int) - without.image.astype(int)).max(axis=2)
        for spot in with_hand.hidden:
            x, y = np.rint(pts[spot]).astype(int)
            if r <= x < 240 - r and r <= y < 180 - r:
                changed = (delta[y - r : y + r + 1, x - r : x + r + 1] > 12).mean()
                assert changed > 0.15, (seed, spot, changed)
                seen += 1
        assert with_hand.factors["hidden"] == len(with_hand.hidden)
    assert seen >= 3


def test_stacked_pair_has_two_corner_sets() -> None:
    scene = render_scene(4, size=9, layers=2, **SMALL)
    assert len(scene.corners) == 2 and len(scene.rows) == 2
    assert all(len(layer) == 9 for layer in scene.rows)
    assert len(scene.tokens) == 162
    a, b = (c.mean(axis=0) for c in scene.corners)
    width = np.linalg.norm(scene.corners[0][1] - scene.corners[0][0])
    assert np.linalg.norm(a - b) > 0.8 * width  # two boards, not one
    for quad in scene.corners:
        assert (quad >= 0).all() and (quad[:, 0] < 240).all() and (quad[:, 1] < 180).all()


def test_positions_from_real_games_when_present() -> None:
    from companion.vision.scene.positions import games_dir

    scene = render_scene(9, size=19, **SMALL)
    expected = "game" if games_dir() is not None else "playout"
    assert scene.factors["position"] == expected
    assert scene.factors["stones"] == sum(t != "." for t in scene.tokens)
    assert render_scene(9, size=13, **SMALL).factors["position"] == "playout"


def _chains_breathe(rows: tuple[str, ...]) -> bool:
    """Every chain of stones has a liberty (captures were taken off as the game went)."""
    grid = [r.split() for r in rows]
    n = len(grid)
    seen: set[tuple[int, int]] = set()
    for r0 in range(n):
        for c0 in range(n):
            if grid[r0][c0] == "." or (r0, c0) in seen:
                continue
            stack, free = [(r0, c0)], False
            seen.add((r0, c0))
            while stack:
                r, c = stack.pop()
                for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= rr < n and 0 <= cc < n:
                        if grid[rr][cc] == ".":
                            free = True
                        elif grid[rr][cc] == grid[r][c] and (rr, cc) not in seen:
                            seen.add((rr, cc))
                            stack.append((rr, cc))
            if not free:
                return False
    return True


@pytest.mark.parametrize(("size", "layers"), [(19, 1), (9, 1), (13, 1)])
def test_positions_are_reachable_boards(size: int, layers: int) -> None:
    """Stages of real games and playouts: no chain without a liberty; crowded and sparse."""
    from companion.vision.scene.positions import games_dir, position

    counts = []
    for seed in range(12):
        boards, source, move = position(size, layers, np.random.default_rng(seed), games_dir())
        assert source in ("game", "playout") and move >= 0
        for rows in boards:
            assert len(rows) == size
            assert _chains_breathe(rows)
            counts.append(sum(t != "." for r in rows for t in r.split()))
    assert min(counts) < 0.25 * size * size < max(counts)


def test_nudged_stones_move_but_labels_stay() -> None:
    rows = [". . . . . . . . ."] * 3 + [". . B W B W B . ."] + [". . . . . . . . ."] * 5
    kw = {**CLEAN, **SMALL, "elevation_deg": 90.0, "position": rows}
    still = render_scene(6, size=9, **kw)
    kw["nudge"] = 0.25
    nudged = render_scene(6, size=9, **kw)
    assert nudged.rows == still.rows
    assert not np.array_equal(nudged.image, still.image)


def test_factor_buckets_for_evaluation_tables() -> None:
    from companion.vision.scene.factors import bucket

    assert bucket("elevation_deg", 30.0) == "30-45"
    assert bucket("elevation_deg", 90.0) == "75-90"
    assert bucket("stones", 0) == "empty"
    assert bucket("stones", 290) == "250+"
    assert bucket("blur_px", 0.0) == "sharp"
    assert bucket("hand", True) == "true"
    assert bucket("light_colour", "green") == "green"


@pytest.mark.parametrize("k1", [-0.08, 0.04])
def test_corners_follow_lens_distortion(k1: float) -> None:
    """With a bent lens the four corners still sit on the line crossings, not beside them."""
    kw = {**CLEAN, "distortion": k1}
    scene = render_scene(
        2,
        size=9,
        width=320,
        height=240,
        position=EMPTY9,
        elevation_deg=60.0,
        board="wood",
        stones_style="slate_shell",
        line_mm=1.2,
        fill=0.95,
        **kw,
    )
    quad = scene.corners[0]
    centre = quad.mean(axis=0)
    for corner in quad:
        inward = corner + (centre - corner) * (0.5 / 8)  # half a cell in, off every line
        assert _grey(scene.image, corner, 0) < _grey(scene.image, inward, 0) - 15


def test_set_factors_are_never_drawn_only_pinned() -> None:
    """The factors the scene sets pin (a late stage, the stones' height, the low lamp) are
    drawn as their neutral value for every seed, so no free scene changed when they came."""
    from companion.vision.scene.factors import draw_factors

    for seed in range(300):
        f = draw_factors(seed, {})
        assert f["stage_min"] == 0.0 and f["stone_mm"] == 0.0 and f["light"] != "low"
    with pytest.raises(VisionError):
        render_scene(0, size=9, stage_min=1.0, **SMALL)
    with pytest.raises(VisionError):
        render_scene(0, size=9, stone_mm=40.0, **SMALL)


@pytest.mark.parametrize(("size", "root"), [(19, "games"), (9, "games"), (13, None)])
def test_a_late_stage_is_a_crowded_board(size: int, root: str | None) -> None:
    """stage_min draws the position from late in a game (a real one, or a playout where no
    record of that size is at hand): crowded, and no chain without a liberty."""
    from companion.vision.scene.positions import games_dir, position

    where = games_dir() if root else None
    for seed in range(6):
        boards, _, move = position(size, 1, np.random.default_rng(seed), where, 0.8)
        stones = sum(t != "." for r in boards[0] for t in r.split())
        assert stones > 0.4 * size * size and _chains_breathe(boards[0])
        assert move >= 0.4 * size * size


def _dark_on_grid(scene: SceneImage, share: float) -> int:
    """Pixels inside the grid's outline darker than ``share`` of the board's median grey."""
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    inside = np.zeros_like(grey)
    cv2.fillConvexPoly(inside, np.round(scene.corners[0]).astype(np.int32), 1)
    level = float(np.median(grey[inside > 0]))
    return int(((grey < share * level) & (inside > 0)).sum())


def test_thicker_stones_rise_further_over_the_board_from_a_low_camera() -> None:
    """stone_mm sets the stones' height: from 30 degrees up, a 12 mm black stone covers more
    of the picture than a 7.5 mm one on the same point."""
    rows = [". . . . . . . . ."] * 4 + [". . . . B . . . ."] + [". . . . . . . . ."] * 4
    kw = {**CLEAN, **SMALL, "position": rows, "elevation_deg": 30.0, "board": "pale_wood"}
    thin = render_scene(4, size=9, stones_style="glass", stone_mm=7.5, **kw)
    thick = render_scene(4, size=9, stones_style="glass", stone_mm=12.0, **kw)
    assert thin.corners[0].tolist() == thick.corners[0].tolist()
    assert _dark_on_grid(thick, 0.4) > 1.2 * _dark_on_grid(thin, 0.4) > 0


def test_a_low_lamp_casts_long_dark_shadows() -> None:
    """light="low": one small lamp 10-30 degrees up. White stones on a pale board throw
    shadows many times darker and longer than under the high, broad "even" lamp."""
    rows = [". . . . . . . . ."] * 2 + [". . W . . . W . ."] + [". . . . . . . . ."] * 6
    rows[6] = ". . . W . . W . ."
    kw = {**CLEAN, **SMALL, "position": rows, "elevation_deg": 90.0, "board": "pale_wood"}
    kw["ambient"] = 0.08
    even = render_scene(5, size=9, stones_style="plastic", **kw)
    low = render_scene(5, size=9, stones_style="plastic", **{**kw, "light": "low"})
    assert _dark_on_grid(low, 0.5) > 3 * _dark_on_grid(even, 0.5) + 40


def test_scene_sets_pin_what_they_are_for() -> None:
    """The crowded set: a late stage, a camera 30-45 degrees up, thick stones; the shadow set:
    the low lamp in a dim, under-exposed room. Pins are the seed's own (same seed, same pins)
    and the factors a set does not pin are the seed's free draws."""
    from companion.vision.scene.factors import draw_factors
    from companion.vision.scene.sets import SCENE_SETS, pins

    for seed in range(300_000, 300_030):
        p = pins("crowded", seed)
        assert p == pins("crowded", seed)
        assert 0.7 <= float(p["stage_min"]) <= 0.95 and 30 <= float(p["elevation_deg"]) <= 45
        assert 9.5 <= float(p["stone_mm"]) <= 12.0
        s = pins("shadows", seed)
        assert s["light"] == "low" and float(s["ambient"]) <= 0.15
        assert float(s["exposure"]) <= 0.8
        free, pinned = draw_factors(seed, {}), draw_factors(seed, s)
        assert {k for k in free if free[k] != pinned[k]} <= {*s, "light_kelvin"}  # by colour
    assert len({pins("crowded", s)["elevation_deg"] for s in range(10)}) == 10
    assert set(SCENE_SETS) == {"crowded", "shadows"}
    with pytest.raises(VisionError, match="unknown scene set"):
        pins("sunny", 1)
