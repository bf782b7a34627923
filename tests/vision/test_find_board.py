"""Board finding when the lines do not show: full boards, blur, cloth, coloured light, size.

Boards are rendered here (:mod:`companion.vision.render`), so the truth corners are exact; a
board counts as found when its size is right and every corner is within a quarter spacing.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.errors import BoardNotFound
from companion.vision import board_edge, grid_check
from companion.vision import find_board as find_board_module
from companion.vision.board_edge import board_quads
from companion.vision.find_board import MARKS_SEEN, SOME_MARKS_SEEN, find_board, find_boards
from companion.vision.finder_eval import alter, cloth, corner_error, with_cloth
from companion.vision.geometry import Corners, homography, project, shrink
from companion.vision.lattice import (
    distance_map,
    margin_colour,
    marks,
    squareness,
    standout,
    to_lab,
)
from companion.vision.render import random_position, render_board

EMPTY19 = [" ".join("." * 19)] * 19

# The end of a strong game from ../shared/data/games/ai (rows from the top), 274 stones.
FULL19 = [
    "W B B B B W B . B B B B B W . W W B .",
    "W W W B B W B B B W W W W . . W B . B",
    ". W B B B . . B W B B . . W . W B B .",
    ". W W W B B B W W W W W W B W W B . .",
    ". . . . W W W W B W . B W B B B W B .",
    ". W W W W W B B B W B . W W W B W B .",
    "W W W B W B B B W W . . W B B B W B B",
    "B W B B B B B W . . . W W B W W W W B",
    "B W B W W B W W W W . W B B W . . . W",
    "B B B B W W B W B B W W W B W W . . .",
    ". B B W . W B B B W B B B B B W W W W",
    ". B W W W . W B B . B . B B W W B B W",
    ". W B B W . W W B B B B W W W B W B B",
    ". B B B B W W B B B W W W . W B . B .",
    ". . . B W W W W B B B B B W W B . . .",
    ". . B B B W B B B B W B W W B B . . .",
    ". . B B W W W B W W W W . W W B . . .",
    ". . . B B W B W W . . . . . W B B . .",
    ". . . B B B B W . . . . . . W W B . .",
]


def _found_within(found_corners: Corners, truth: Corners, size: int) -> float:
    return corner_error(found_corners, truth, size)


def test_full_board_no_lines_visible_is_found() -> None:
    """274 stones, then blurred so what little line shows between them is gone."""
    assert sum(r.count("B") + r.count("W") for r in FULL19) == 274
    r = render_board(FULL19, size=19, tilt=20, rotate=7, fill=0.8, seed=3)
    image = cv2.GaussianBlur(r.image, (0, 0), 2.5)
    found = find_board(image)
    assert found.size == 19
    assert _found_within(found.corners, r.corners[0], 19) <= 0.25


@pytest.mark.parametrize("kind", ["blur", "motion", "cast", "jpeg"])
def test_altered_photo_still_found(kind: str) -> None:
    rows = random_position(19, stones=0.45, seed=11)
    r = render_board(rows, size=19, tilt=15, rotate=-10, seed=11)
    found = find_board(alter(r.image, kind, 5))
    assert found.size == 19
    assert _found_within(found.corners, r.corners[0], 19) <= 0.25


def test_empty_board_on_striped_cloth() -> None:
    r = render_board(EMPTY19, size=19, rotate=4, fill=0.75, seed=2)
    h, w = r.image.shape[:2]
    stripes = np.zeros((h, w, 3), np.uint8)
    for x in range(0, w, 16):  # dark and light stripes as wide as a cell of the board
        stripes[:, x : x + 8] = (40, 60, 170)
        stripes[:, x + 8 : x + 16] = (220, 230, 235)
    mask = np.zeros((h, w), np.uint8)
    c = r.corners[0]
    edge = c.mean(axis=0) + (c - c.mean(axis=0)) * (20 / 18)  # one spacing beyond the grid
    cv2.fillConvexPoly(mask, np.round(edge).astype(np.int32), 255)
    stripes[mask > 0] = r.image[mask > 0]
    found = find_board(stripes)
    assert found.size == 19
    assert _found_within(found.corners, r.corners[0], 19) <= 0.25


def test_crowded_board_on_patterned_cloth_under_green_light() -> None:
    r = render_board(FULL19, size=19, light="green", tilt=10, fill=0.7, seed=8)
    image = with_cloth(r.image, r.corners[0], 19, seed=4)
    found = find_board(image)
    assert found.size == 19
    assert _found_within(found.corners, r.corners[0], 19) <= 0.25


@pytest.mark.parametrize(("size", "stones"), [(9, 0.6), (13, 0.5), (19, 0.7)])
def test_size_guessed_from_spacing(size: int, stones: float) -> None:
    rows = random_position(size, stones=stones, seed=size)
    r = render_board(rows, size=size, tilt=12, rotate=5, seed=size)
    found = find_board(cv2.GaussianBlur(r.image, (0, 0), 1.5))
    assert found.size == size
    assert _found_within(found.corners, r.corners[0], size) <= 0.25


def test_board_edge_is_a_candidate() -> None:
    """The board's outline is among the edge candidates, and the true grid inside it stands
    out while one shifted by half a cell does not."""
    r = render_board(FULL19, size=19, rotate=12, fill=0.7, seed=5)
    c = r.corners[0]
    truth_edge = c.mean(axis=0) + (c - c.mean(axis=0)) * (20 / 18)
    quads = [q for _s, q in board_quads(r.image)]
    assert min(np.abs(q - truth_edge).max() for q in quads) < 0.3 * np.linalg.norm(c[1] - c[0]) / 18
    lab = to_lab(r.image)
    dist = distance_map(lab, margin_colour(lab, truth_edge))
    shifted = c.mean(axis=0) + (c - c.mean(axis=0)) * (17 / 18)  # half a cell in, 18 lines
    assert standout(dist, c, 19) > 0.9
    assert standout(dist, shifted, 18) < 0.6


def test_outlines_traced_side_by_side_are_those_traced_one_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The colour groups' pieces are outlined on a pool of threads; what comes back (and in
    which order) must not depend on how many: a cloth with a board and an arm across it."""
    r = render_board(FULL19, size=19, tilt=25, rotate=-9, fill=0.6, seed=8, hand=True)
    image = with_cloth(r.image, r.corners[0], 19, 3)
    side_by_side = board_quads(image)
    monkeypatch.setattr(board_edge, "OUTLINE_THREADS", 1)
    one_at_a_time = board_quads(image)
    assert len(side_by_side) >= 2
    assert [s for s, _q in side_by_side] == [s for s, _q in one_at_a_time]
    for (_s, a), (_t, b) in zip(side_by_side, one_at_a_time, strict=True):
        assert np.array_equal(a, b)


def _a_line_off(corners: Corners, n: int, dx: float, dy: float) -> Corners:
    ends = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float64)
    return project(homography(corners, n), ends + np.array([dx, dy], np.float64))


def test_a_final_grid_the_check_is_sure_is_off_is_no_board(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The finder's last word: a grid a line or half a spacing off (read, every stone would
    land on a wrong point) is "no board", a right one passes; without the check's weights, or
    with the refusal turned off, the grid stands as found."""
    r = render_board(FULL19, size=19, rotate=12, tilt=25, fill=0.7, seed=6, width=800, height=600)
    right = r.corners[0]
    levels = find_board_module.board_net.pyramid(r.image)
    why, sure = find_board_module._refused(levels, right, 19)
    assert why == "" and sure > 0.9
    for dx, dy in ((1, 0), (-1, -1), (0.5, 0)):
        why, sure = find_board_module._refused(levels, _a_line_off(right, 19, dx, dy), 19)
        assert "grid check" in why and sure < find_board_module.REFUSE_CHECK
    # the whole finder, its last step made to push every grid a line off: the classic
    # finder's grid refused, then the learned path's
    finish = find_board_module._finish

    def off(*args: object) -> tuple[float, Corners, int, bool]:
        score, corners, n, placed = finish(*args)  # type: ignore[arg-type]
        return score, _a_line_off(corners, n, 1, 0), n, placed

    monkeypatch.setattr(find_board_module, "_finish", off)
    with pytest.raises(BoardNotFound, match="does not lie on the board's lines") as refused:
        find_board(r.image, size=19)
    # the refused grid comes with the refusal, for a person to look at: here a line off
    assert refused.value.suggested is not None and refused.value.suggested_size == 19
    assert 0.7 < corner_error(np.array(refused.value.suggested), right, 19) < 1.3
    monkeypatch.setattr(grid_check, "WEIGHTS", tmp_path / "none.onnx")
    assert find_board(r.image, size=19).size == 19  # no check: the grid stands
    monkeypatch.undo()
    monkeypatch.setattr(find_board_module, "REFUSE_CHECK", 0.0)
    assert find_board_module._refused(levels, _a_line_off(right, 19, 1, 0), 19)[0] == ""


def test_a_plain_board_the_first_check_refuses_is_kept_by_the_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validation scene 520098 (13 x 13, clear lines, no hand, tuned on): the classic
    finder's grid is 0.14 spacing off the truth, but the first grid check alone puts it at
    0.00 and it was refused ("no board" before session 18); the mean of the two checks'
    logits keeps it."""
    from companion.vision.finder_eval import scene_cases

    (case,) = scene_cases([520_098], [])
    assert case.corners is not None and case.size == 13
    found = find_board(case.image, size=13)
    assert corner_error(found.corners, case.corners, 13) <= 0.25
    monkeypatch.setattr(grid_check, "SECOND", tmp_path / "none.onnx")
    with pytest.raises(BoardNotFound, match="does not lie on the board's lines"):
        find_board(case.image, size=13)


def test_a_grid_the_check_refuses_gives_the_learned_path_its_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the check refuses the classic finder's grid, the learned proposer looks as if no
    grid had been found, and its grid, passing the check, is the board."""
    r = render_board(FULL19, size=19, rotate=12, tilt=25, fill=0.7, seed=6, width=800, height=600)
    finish = find_board_module._finish
    calls: list[int] = []

    def first_off(*args: object) -> tuple[float, Corners, int, bool]:
        score, corners, n, placed = finish(*args)  # type: ignore[arg-type]
        calls.append(n)
        moved = _a_line_off(corners, n, 1, 0) if len(calls) == 1 else corners
        return score, moved, n, placed

    monkeypatch.setattr(find_board_module, "_finish", first_off)
    found = find_board(r.image, size=19)
    assert len(calls) == 2
    assert _found_within(found.corners, r.corners[0], 19) <= 0.25


def test_a_big_photo_is_shrunk_by_halves_to_the_size_one_resize_gives() -> None:
    """The finder's working copy of a 12-megapixel photo: halved on OpenCV's fast path, then
    area-averaged: the same size as one area resize, not moved, within a few grey levels."""
    r = render_board(FULL19, size=19, rotate=12, fill=0.7, seed=5)
    big = np.asarray(cv2.resize(r.image, (4032, 3024), interpolation=cv2.INTER_LINEAR), np.uint8)
    scale = 800 / 4032
    once = cv2.resize(big, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    shrunk = shrink(big, scale)
    assert shrunk.shape == once.shape == (600, 800, 3)
    diff = np.abs(shrunk.astype(np.int16) - once.astype(np.int16))
    assert diff.mean() < 1.5 and (diff > 10).mean() < 0.02  # a little softer on sharp edges
    grey = [cv2.cvtColor(a, cv2.COLOR_BGR2GRAY).astype(np.float32) for a in (once, shrunk)]
    (dx, dy), _response = cv2.phaseCorrelate(grey[0], grey[1])
    assert abs(dx) < 0.05 and abs(dy) < 0.05  # not moved: corners found on it stay put
    # no halving when less than half is to go: one area resize, exactly
    assert np.array_equal(
        shrink(big, 0.6), cv2.resize(big, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
    )


@pytest.mark.parametrize(("tilt", "rotate"), [(0, 0), (20, 7), (40, -20), (35, 25)])
def test_a_board_seen_by_a_camera_is_a_square(tilt: float, rotate: float) -> None:
    """Any pose of the camera: the corner intersections can be a square seen through it."""
    r = render_board(EMPTY19, size=19, tilt=tilt, rotate=rotate, fill=0.8, seed=3)
    assert squareness(r.corners[0], r.image.shape) < 0.03


@pytest.mark.parametrize(
    "quad",
    [
        [[100, 200], [900, 200], [900, 600], [100, 600]],  # cells twice as wide as high
        [[100, 200], [700, 200], [900, 600], [300, 600]],  # skewed
    ],
)
def test_a_patch_no_camera_sees_as_a_square_is_not(quad: list[list[float]]) -> None:
    """Grids fitted to a cloth's pattern: no focal length makes them a square."""
    assert squareness(np.array(quad, np.float64), (720, 1280)) > 0.3


def test_corners_in_a_line_are_no_square_and_no_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        line = np.array([[0, 0], [100, 0], [200, 0], [300, 0]], np.float64)
        assert squareness(line, (720, 1280)) == float("inf")


@pytest.mark.parametrize("seed", [9, 10, 15, 17, 18])
def test_no_board_on_the_cloths_most_like_a_grid(seed: int) -> None:
    """A cloth's pattern fitted as a 9x9 grid reaches the evidence of a thick board's grid
    (0.74-0.80 on these five of the first 30 cloths): only a grid that can be a square counts
    there."""
    with pytest.raises(BoardNotFound):
        find_board(cloth((720, 1280), seed), size=9)


@pytest.mark.parametrize("which", [1, 2])
def test_board_edge_survives_an_arm_across_a_corner(which: int) -> None:
    """A sleeve laid across a corner of the board bites it off (a quarter of the way to the
    centre); the board's four long sides still meet where its corners are, so its outline
    stays a candidate."""
    r = render_board(EMPTY19, size=19, rotate=12, fill=0.7, seed=5)
    c = r.corners[0]
    truth_edge = c.mean(axis=0) + (c - c.mean(axis=0)) * (20 / 18)
    image = r.image.copy()
    corner, centre = truth_edge[which], c.mean(axis=0)
    across = np.array([-(centre - corner)[1], (centre - corner)[0]])
    across /= np.linalg.norm(across)
    near = corner + (centre - corner) * 0.25
    arm = np.array([near + 900 * across, near - 900 * across])
    cv2.line(image, *[tuple(int(v) for v in p) for p in arm], (120, 60, 200), 60)
    spacing = np.linalg.norm(c[1] - c[0]) / 18
    quads = [q for _s, q in board_quads(image)]
    assert quads
    assert min(np.abs(q - truth_edge).max() for q in quads) < 0.5 * spacing


def test_stacked_pair_still_found() -> None:
    rows = random_position(9, stones=0.3, seed=3, layers=2)
    r = render_board(rows, size=9, layers=2, seed=3)
    boards = find_boards(r.image, count=2, size=9)
    for fb, truth in zip(boards, r.corners, strict=True):
        assert _found_within(fb.corners, truth, 9) <= 0.25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_board_on_cloth_is_a_clear_error(seed: int) -> None:
    with pytest.raises(BoardNotFound, match="no board") as caught:
        find_board(cloth((720, 1280), seed))
    # said once: the search's own "no board" is not wrapped in a second one
    assert str(caught.value).count("no board found") == 1


def test_plain_rectangle_is_not_a_board() -> None:
    """A board-coloured rectangle with nothing on it has an edge but no grid inside."""
    image = np.full((720, 1280, 3), (60, 90, 120), np.uint8)
    cv2.rectangle(image, (300, 150), (900, 600), (120, 180, 220), -1)
    with pytest.raises(BoardNotFound):
        find_board(image)


def test_read_without_board_exits_non_zero(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "cloth.png"
    cv2.imwrite(str(path), cloth((480, 640), 1))
    res = CliRunner().invoke(main, ["read", str(path)])
    assert res.exit_code != 0
    assert "no board" in res.output
    assert "Traceback" not in res.output


def test_corner_error_names_the_same_grid_from_any_corner() -> None:
    """A board seen at 45 degrees may have its corners listed from another one."""
    truth = np.array([[100.0, 0.0], [200.0, 100.0], [100.0, 200.0], [0.0, 100.0]])
    turned = np.roll(truth, 1, axis=0)
    assert corner_error(turned, truth, 9) == 0.0
    assert corner_error(truth + np.array([3.0, 0.0]), truth, 9) == pytest.approx(
        3.0 / (141.42 / 8), 1e-3
    )


def test_corners_refined_at_full_resolution_to_a_fraction_of_a_pixel() -> None:
    """Corners a sixth of a spacing off (a grid fitted on a reduced copy) come back sub-pixel."""
    from companion.vision.crossings import corner_patch_refine

    rows = random_position(19, stones=0.3, seed=11)
    r = render_board(rows, size=19, tilt=15, rotate=30, fill=0.8, seed=11, noise=1.0)
    truth = r.corners[0]
    spacing = np.linalg.norm(truth[1] - truth[0]) / 18
    rng = np.random.default_rng(1)
    off = truth + rng.uniform(-1, 1, (4, 2)) * spacing / 6
    refined = corner_patch_refine(r.image, off, 19)
    assert corner_error(off, truth, 19) > 0.1
    assert corner_error(refined, truth, 19) < 0.05


def test_table_without_a_grid_is_not_a_board() -> None:
    """A board-coloured rectangle with a few stray strokes on a striped cloth: an edge, some
    lines, but not a grid (the evidence stays under the bar)."""
    image = cloth((720, 1280), 4)
    cv2.rectangle(image, (300, 150), (900, 600), (120, 180, 220), -1)
    cv2.line(image, (350, 200), (850, 210), (40, 40, 40), 2)
    cv2.line(image, (400, 180), (420, 580), (40, 40, 40), 2)
    with pytest.raises(BoardNotFound):
        find_board(image)


def test_eval_finder_on_a_rendered_scene() -> None:
    """One 3D-rendered tuning scene and its blurred copy, each judged against exact corners."""
    import json

    args = "eval-finder --part tune --renders 1 --alter blur --photos /nonexistent --json --speed 1"
    res = CliRunner().invoke(main, args.split())
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    sets = {s["set"]: s for s in out["sets"]}
    assert sets["scenes tune"]["boards"] == 1
    assert sets["scenes tune +blur"]["boards"] == 1
    assert sets["all"]["found"] in (0, 1, 2)
    # the misses told apart by factor: the scene's board size, a hand or not, which copy
    factors = out["factors"]["scenes tune"]
    assert set(factors) == {"board", "hand over the board", "copy"}
    assert factors["copy"] == {
        "clean": [sets["scenes tune"]["found"], 1],
        "blur": [sets["scenes tune +blur"]["found"], 1],
    }
    assert sum(b for _f, b in factors["board"].values()) == 2
    assert sum(b for _f, b in factors["hand over the board"].values()) == 2
    # the 12-megapixel find is timed in CPU as well as on the clock (the machine is shared)
    speed = out["speed_12mp"]
    assert speed["runs"] == 1
    assert 0 < speed["cpu_median_ms"] < 60_000
    # photos and renders timed apart (the target is a phone photo's): here one scene, no photo
    assert set(speed["cpu_by_kind"]) == {"scenes"}
    assert speed["cpu_by_kind"]["scenes"]["runs"] == 1
    assert speed["cpu_by_kind"]["scenes"]["median_ms"] > 0


def test_eval_finder_with_nothing_to_evaluate_is_a_usage_error() -> None:
    res = CliRunner().invoke(main, ["eval-finder", "--renders", "0", "--photos", "/nonexistent"])
    assert res.exit_code != 0
    assert "nothing to evaluate" in res.output


def test_a_degenerate_candidate_is_no_board_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Corners with no area deep in the search (a fit on nearly collinear crossings) end as
    BoardNotFound, which the commands turn into a clear message."""
    from companion.errors import VisionError
    from companion.vision import find_board as fb

    def degenerate(image: object, size: object) -> None:
        raise VisionError("corners enclose no area")

    monkeypatch.setattr(fb, "_search", degenerate)
    with pytest.raises(BoardNotFound, match="no board"):
        find_board(np.zeros((100, 100, 3), np.uint8))


def test_a_part_of_a_board_seen_clearly_gives_way_to_the_whole() -> None:
    """A 13x13 block of a 19x19 board's lines is a perfect 13 grid; the crossings that go on
    past it send the search to the bigger sizes in the same look, which finds the 19."""
    from companion.vision import find_board as fb
    from companion.vision.geometry import homography, project

    r = render_board(EMPTY19, size=19, width=800, height=600, rotate=5, fill=0.85, seed=4)
    gray = cv2.cvtColor(r.image, cv2.COLOR_BGR2GRAY)
    bh, masks = fb.line_masks(gray, max(5, round(min(gray.shape) / 60) | 1))
    block = project(
        homography(r.corners[0], 19), np.array([[3, 3], [15, 3], [15, 15], [3, 15]], float)
    )
    whole = fb._whole((1.0, block, 13), bh, masks, fb.SIZES, None)
    assert whole is not None and whole[2] == 19
    assert _found_within(whole[1], r.corners[0], 19) <= 0.25
    # told the size, the finder takes the block as it is
    assert fb._whole((1.0, block, 13), bh, masks, (13,), 13) == (1.0, block, 13)


def test_lines_on_a_checked_cloth_are_cut_off_at_the_board_outline() -> None:
    """Tuning scene 153: a 19x19 board on a checked cloth whose strokes join the board's
    lines into one net filling the frame (no grid from the net alone); the lines inside the
    board's outline alone are the grid."""
    from companion.vision.finder_eval import scene_cases

    case = next(scene_cases([153], []))
    found = find_board(case.image)
    assert case.corners is not None
    assert found.size == case.size == 19
    assert _found_within(found.corners, case.corners, 19) <= 0.25


def test_a_board_whose_outline_its_colour_does_not_give_is_rescued(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tuning scene 209 motion-blurred: a thick 19x19 board whose side face has the top's
    colour, so no outline of that colour lies round its grid; the corner network is sure of
    the right grid, and the outline cut round it (:func:`board_edge.seeded_quads`) lies a
    margin beyond it. Without that outline: no board."""
    from companion.vision import board_net
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([209], ["motion"])
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert _found_within(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(board_net, "seeded_quads", lambda _im, _q, _n: [])
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)


def test_a_board_on_stripes_of_its_colour_is_found_in_an_outline_cut_round_a_proposal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tuning scene 16 blurred: a white 19x19 board on a table striped white and blue, so
    the board's colour outline runs on along the stripes and holds no grid, and the blurred
    lines make no grid alone; the outline cut round the proposer's grid is the board's, and
    the lattice in it is the board. Without that outline and the grid reach (which finds
    this board too, 0.18 spacing off, on the rescue's bars): no board."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([16], ["blur"])
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert _found_within(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(fbm, "seeded_quads", lambda *_a: [])
    monkeypatch.setattr(fbm, "LOOK_REACH", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)


def test_a_small_board_the_proposer_misses_in_the_whole_frame_is_found_closer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tuning scene 67: a thick 19x19 board on a checked cloth, an eighth of the frame, so a
    spacing is under 4 pixels of the proposer's whole-frame view and its proposals there are
    2-5 spacings off; the proposer again on a crop round its own mask gives the grid the
    rescue's steps keep. Without that closer look (and without the hidden-corner step, which
    since session 12 finds it too, 0.06 spacing off, from three sure corners, and the corner
    network started inside the board's outline, which since session 16 does, 0.04 off, and
    the grid reach, which since session 28 does, 0.09 off): no board."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    case = next(scene_cases([67], []))
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert _found_within(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(fbm, "LOOK_CLOSER", False)
    monkeypatch.setattr(fbm, "LOOK_HIDDEN", False)
    found = find_board(case.image, size=19)
    assert _found_within(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(fbm, "LOOK_OUTLINES", False)
    monkeypatch.setattr(fbm, "LOOK_REACH", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)


def test_lines_are_searched_inside_a_few_outlines_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three plain boards on a cloth: six outlines and no grid. Each outline searched alone is
    a whole search for a grid (seconds on a frame of many), so only the best
    ``INSIDE_OUTLINES`` are searched in each look (plain, sharpened)."""
    from companion.vision import find_board as fb

    image = cloth((720, 960), 3)
    for x, y, w, h, colour in [
        (60, 60, 300, 260, (60, 170, 220)),
        (480, 80, 380, 300, (200, 120, 40)),
        (200, 400, 420, 280, (90, 200, 120)),
    ]:
        cv2.rectangle(image, (x, y), (x + w, y + h), colour, -1)
    assert len(board_quads(image, limit=4)) > fb.INSIDE_OUTLINES
    searched: list[int] = []
    lines_in_edges = fb._lines_in_edges

    def counted(edges: list[tuple[float, Corners]], *args: object) -> object:
        searched.append(len(edges))
        return lines_in_edges(edges, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(fb, "_lines_in_edges", counted)
    with pytest.raises(BoardNotFound):
        find_board(image)
    assert searched and all(n <= fb.INSIDE_OUTLINES for n in searched)
    assert sum(searched) <= 2 * fb.INSIDE_OUTLINES


@pytest.mark.parametrize(
    "args",
    [
        "--part held-out --first-seed 999999",
        "--part tune --first-seed 99999 --renders 2",
        "--part both --first-seed 2000000",
    ],
)
def test_eval_finder_refuses_a_first_seed_across_the_split(args: str) -> None:
    """A held-out figure can never be measured on tuning seeds, nor the reverse."""
    cmd = ["eval-finder", *args.split(), "--photos", "/nonexistent", "--alter", ""]
    res = CliRunner().invoke(main, cmd)
    assert res.exit_code == 2, res.output
    assert "--first-seed" in res.output


@pytest.mark.parametrize(
    ("args", "seeds"),
    [
        ("--part held-out --first-seed 2000000 --renders 2", [2000000, 2000001]),
        ("--part held-out --renders 2", [10**6, 10**6 + 1]),
        ("--part tune --first-seed 99998 --renders 2", [99998, 99999]),
        ("--part tune --renders 1", [0]),
    ],
)
def test_eval_finder_renders_the_seeds_asked_for(
    monkeypatch: pytest.MonkeyPatch, args: str, seeds: list[int]
) -> None:
    """``--first-seed`` starts the scenes there, so a fresh held-out range is one option away."""
    import json

    from companion.vision import finder_eval as fe

    asked: list[int] = []

    def blank_scenes(want: object, kinds: object) -> object:
        for seed in want:  # type: ignore[attr-defined]
            asked.append(seed)
            yield fe.Case("scenes", f"seed {seed}", np.zeros((60, 80, 3), np.uint8), 9, None)

    monkeypatch.setattr(fe, "scene_cases", blank_scenes)
    cmd = ["eval-finder", *args.split(), "--photos", "/nonexistent", "--alter", "", "--json"]
    res = CliRunner().invoke(main, cmd)
    assert res.exit_code == 0, res.output
    assert asked == seeds
    assert json.loads(res.stdout)["sets"][0]["found"] == 0  # a black frame holds no board


@pytest.mark.parametrize(("seed", "kind"), [(16, "clean"), (3, "blur")])
def test_no_board_where_the_board_was_inpainted_away(seed: int, kind: str) -> None:
    """Tuning scenes whose board, taken away, leaves an outline of smooth smear in which the
    finder used to centre a grid (evidence 0.95 and 1.14, from chance standout on the
    smear's shading and stray strokes): scene 16's points are marked by neither lines nor
    stones, scene 3's blurred grid is no square any camera sees."""
    from companion.vision.finder_eval import scene_cases, without_board

    case = list(scene_cases([seed], [] if kind == "clean" else [kind]))[-1]  # clean first
    assert case.corners is not None
    image = without_board(case.image, case.corners, case.size)
    with pytest.raises(BoardNotFound):
        find_board(image)


def test_marks_are_stones_and_crossings_not_a_smooth_patch() -> None:
    """:func:`marks`: stones on a board's points put them well apart from its cells; a
    smooth shaded patch (no board), whatever grid is laid on it, has about nothing."""
    r = render_board(random_position(13, stones=0.5, seed=2), size=13)
    lab = to_lab(r.image)
    dist = distance_map(lab, margin_colour(lab, board_quads(r.image, limit=1)[0][1]))
    assert marks(dist, r.corners[0], 13) > 10.0
    assert marks(dist, r.corners[0], 13, 0.1) > 10.0
    yy, xx = np.mgrid[0:480, 0:640].astype(np.float32)
    smooth = 20.0 + 15.0 * np.exp(-((xx - 320) ** 2 + (yy - 240) ** 2) / 200.0**2)
    grid = np.array([[160.0, 100.0], [480.0, 100.0], [480.0, 380.0], [160.0, 380.0]])
    for share, bar in ((0.5, MARKS_SEEN), (0.1, SOME_MARKS_SEEN)):
        assert abs(marks(smooth.astype(np.float32), grid, 9, share)) < bar / 2


@pytest.mark.parametrize("seed", [17, 138])
def test_a_grid_a_line_off_onto_the_board_edge_is_moved_in(seed: int) -> None:
    """Tuning scenes where the grid of lines took the board's wooden edge for its outer line
    (1.15 and 1.06 spacings off before): the board's outline, from its colour, runs along that
    line instead of a margin beyond it, so the grid is moved in by one line."""
    from companion.vision.finder_eval import scene_cases

    case = next(iter(scene_cases([seed], [])))
    assert case.corners is not None
    found = find_board(case.image, size=case.size)
    assert _found_within(found.corners, case.corners, case.size) <= 0.25


@pytest.mark.parametrize("shape", [(6, 3553), (3553, 6), (1, 1), (12, 30)])
def test_a_strip_or_a_thumbnail_is_no_board_not_a_traceback(shape: tuple[int, int]) -> None:
    """A strip 6 pixels high and 3553 wide shrinks to a working copy one pixel high, and the
    board outlines' smaller copy of it to none: OpenCV's resize raised (a traceback on main's
    code, found by a sweep of odd images). Too small or too narrow to hold a board is "no
    board", said plainly."""
    image = np.full((*shape, 3), 128, np.uint8)
    with pytest.raises(BoardNotFound, match="too small or too narrow"):
        find_board(image)
    with pytest.raises(BoardNotFound, match="too small or too narrow"):
        find_board(image, size=9)


def test_corners_placed_by_hand_are_snapped_onto_the_grid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validation scene 520087 (13 x 13, tuned on): the finder gives "no board" (the grid check
    refuses its grid, though that grid is on the lines: the refusal offers it, for a person
    to look at, and does not read it), so the player taps the four corners, a fifth to a
    third of a spacing off and in any order; :func:`snap` puts them back onto the grid's
    corners, TL first, and the reader reads the board with them. Without the corner network
    and the grid fit the taps stand."""
    from companion.vision.finder_eval import read_score, scene_cases
    from companion.vision.geometry import spacing

    (case,) = scene_cases([520_087], [])
    assert case.corners is not None and case.rows is not None
    with pytest.raises(BoardNotFound, match="grid check") as refused:
        find_board(case.image, size=13)
    assert refused.value.suggested is not None and refused.value.suggested_size == 13
    assert corner_error(np.array(refused.value.suggested), case.corners, 13) < 0.1
    truth = np.asarray(case.corners, np.float64)
    off = spacing(truth, 13) * np.array([(0.3, -0.2), (-0.25, 0.3), (0.2, 0.25), (-0.3, -0.3)])
    taps = (truth + off)[[2, 0, 3, 1]]
    snapped = find_board_module.snap(case.image, taps, 13)
    assert corner_error(taps, truth, 13) > 0.4
    assert float(np.linalg.norm(snapped - truth, axis=1).max()) / spacing(truth, 13) < 0.2
    read = read_score(case.image, 13, case.rows, snapped, case.hidden)
    assert read.right >= read.points - 2 and read.swaps == 0
    monkeypatch.setattr(find_board_module.board_net, "CORNER_WEIGHTS", tmp_path / "none.onnx")
    monkeypatch.setattr(find_board_module, "LOOK_FIT", False)
    assert np.allclose(find_board_module.snap(case.image, taps, 13), truth + off)


def test_a_three_peak_parallelogram_the_corner_network_is_sure_of_is_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 500065 blurred (a 9x9, no hand, tuned on): the blurred lines make no
    grid, the proposer's four-peak decoding gives nothing, and the corner network, started on
    a parallelogram completed from three of its peaks, becomes sure of all four corners, which
    the hidden-corner steps (exactly three sure) pass over. Judged on the rescue's bars, it is
    the board. Without that step: no board."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([500_065], ["blur"])
    assert case.corners is not None and case.size == 9
    found = find_board(case.image, size=9)
    assert _found_within(found.corners, case.corners, 9) <= 0.25
    monkeypatch.setattr(fbm, "LOOK_COMPLETED", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=9)


def test_a_proposal_far_off_is_brought_near_by_the_grid_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 520098 motion-blurred (a 13 x 13, tuned on): every proposal starts
    1.6-8 spacings off, beyond the corner network's patches; moved by the grid reach, which
    sees the whole board through each, the rescue's bars keep the board. Without that step:
    no board."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([520_098], ["motion"])
    assert case.corners is not None and case.size == 13
    found = find_board(case.image, size=13)
    assert _found_within(found.corners, case.corners, 13) <= 0.25
    monkeypatch.setattr(fbm, "LOOK_REACH", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=13)
