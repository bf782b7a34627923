"""The learned board proposer: its maps decoded, the corner network's patches and answers, the
shipped networks on a held-out render and on a cloth, the finder without weights, and the
training pipelines end to end (smoke runs)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.errors import BoardNotFound
from companion.vision import board_data, board_net, grid_check
from companion.vision.find_board import find_board
from companion.vision.finder_eval import cloth, corner_error
from companion.vision.geometry import Corners, homography, project
from companion.vision.render import random_position, render_board
from companion.vision.scene import TEST_SEEDS_FROM, render_scene
from tests.support.training import trained_alike

HELD_OUT = TEST_SEEDS_FROM + 4321  # a scene seed no network was trained on


def _maps(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maps as the network should draw them for a board with these corners (input pixels)."""
    return board_data.targets(corners)


def test_four_peaks_and_their_mask_decode_to_the_corners() -> None:
    truth = np.array([[60.3, 40.2], [200.6, 52.1], [190.2, 170.4], [48.7, 150.9]])
    heat, mask = _maps(truth)
    (conf, corners), *_ = board_net.decode(heat, mask)
    assert conf > 0.5
    assert np.abs(corners - truth).max() < 1.5  # pixels of the 256 x 192 input


def test_a_fifth_peak_off_the_mask_is_left_out() -> None:
    """A stone or a cloth corner can light up as a corner; the mask says which four make
    the board."""
    truth = np.array([[60.0, 40.0], [200.0, 52.0], [190.0, 170.0], [48.0, 150.0]])
    heat, mask = _maps(truth)
    stray, _ = _maps(np.array([[240.0, 10.0]] * 4))
    best = board_net.decode(np.maximum(heat, stray), mask)[0][1]
    assert np.abs(best - truth).max() < 1.5


def test_maps_without_peaks_propose_nothing() -> None:
    heat, mask = _maps(None)
    assert board_net.decode(heat, mask) == []


def test_letterbox_maps_points_both_ways() -> None:
    image = np.zeros((720, 1280, 3), np.uint8)
    cv2.circle(image, (1000, 200), 12, (255, 255, 255), -1)
    view, k, off = board_net.letterbox(image)
    assert view.shape == (board_net.INPUT_H, board_net.INPUT_W, 3)
    x, y = np.array([1000.0, 200.0]) * k + off
    assert view[round(y), round(x)].min() > 200  # the spot lands where the mapping says
    ys, _xs = np.nonzero(view[..., 0] > 0)
    assert ys.min() > 0 and ys.max() < board_net.INPUT_H - 1  # 16:9 letterboxed into 4:3


def test_shipped_network_finds_a_held_out_scene() -> None:
    """A 3D-rendered photo from the test seeds: the proposal alone lies near the truth, and
    the finder with it finds the board."""
    sc = render_scene(HELD_OUT, size=19, width=640, height=480)
    truth = sc.corners[0]
    proposals = board_net.propose(sc.image)
    assert proposals, "the network proposed nothing"
    assert corner_error(proposals[0], truth, 19) < 1.0  # near enough to snap to the crossings
    found = find_board(sc.image)
    assert found.size == 19
    assert corner_error(found.corners, truth, 19) <= 0.25


@pytest.mark.parametrize("seed", [HELD_OUT, HELD_OUT + 7])
def test_no_board_no_proposal_no_board(seed: int) -> None:
    image = cloth((480, 640), seed)  # cloths of seeds < 10**6 are training frames
    assert board_net.propose(image) == []
    with pytest.raises(BoardNotFound):
        find_board(image)


def test_without_weights_the_finder_works_as_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    r = render_board(random_position(9, stones=0.3, seed=2), size=9, tilt=15, rotate=5, seed=2)
    assert board_net.propose(r.image)  # with the shipped weights there is a proposal
    monkeypatch.setattr(board_net, "WEIGHTS", tmp_path / "none.onnx")
    assert board_net.load() is None
    assert board_net.propose(r.image) == []
    assert board_net.candidates(r.image, np.zeros((4, 4, 3), np.float32), (9,), _no_judge) == []
    found = find_board(r.image)
    assert found.size == 9
    assert corner_error(found.corners, r.corners[0], 9) <= 0.25


def _no_judge(dist: object, quad: object, n: int) -> float:
    raise AssertionError("nothing to judge without weights")


def test_a_damaged_weights_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "board.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(board_net.VisionError, match="cannot load the board network"):
        board_net.propose(np.zeros((120, 160, 3), np.uint8), path=bad)


@pytest.mark.parametrize(("deep", "hand_map"), [(1, False), (2, False), (1, True)])
def test_training_runs_exports_and_cv2_gives_what_torch_gives(
    tmp_path: Path, deep: int, hand_map: bool
) -> None:
    """A few steps on two frames, exported to ONNX, read back through cv2.dnn (smoke test:
    the pipeline, not the figures), as shipped, with the coarse scales widened, and with a
    third map for where hands are."""
    torch = pytest.importorskip("torch")
    from companion.vision import train_board

    frames = [board_data.flat_frame(7), board_data.empty_frame(8)]
    settings = train_board.Settings(
        seed=1, steps=3, batch=2, width=8, deep=deep, hand_map=hand_map, hands=0.5 * hand_map
    )
    model = trained_alike(train_board.train, frames, settings)
    path = tmp_path / "board.onnx"
    train_board.export(model, path)
    view, _k, _off = board_net.letterbox(frames[0].image)
    heat, mask, hand = board_net.load(path).maps(view)  # type: ignore[union-attr]
    with torch.no_grad():
        x = torch.from_numpy(view.astype(np.float32).transpose(2, 0, 1)[None] / 255.0)
        ref = torch.sigmoid(model(x))[0].numpy()
    assert np.abs(heat - ref[0]).max() < 1e-4
    assert np.abs(mask - ref[1]).max() < 1e-4
    if hand_map:
        assert hand is not None and np.abs(hand - ref[2]).max() < 1e-4
        maps = board_net.frame_maps(frames[0].image, path=path)
        assert maps is not None and maps.hand is not None and maps.hand.shape == heat.shape
    else:
        assert hand is None


def test_frames_keep_their_hand_map_and_old_cache_files_are_made_again(tmp_path: Path) -> None:
    """The cache keeps each frame's hand map; a file written before frames had one is read
    as it is where there can be no hand (a cloth, a scene whose factors drew none) and made
    again where there may be one."""
    flat = board_data.flat_frame(7)
    np.savez(tmp_path / "flat-7.npz", image=flat.image[::2, ::2], corners=flat.corners, size=19)
    cloth_ = board_data.empty_frame(3)
    np.savez(tmp_path / "empty-3.npz", image=cloth_.image, corners=np.zeros((0, 2)), size=0)
    (made,) = board_data.cached("flat", [7], tmp_path)
    assert np.array_equal(made.image, flat.image)  # made again, not the old file's picture
    assert made.hand is not None and made.hand.shape == flat.image.shape[:2]
    (read,) = board_data.cached("empty", [3], tmp_path)
    assert read.hand is not None and not read.hand.any()
    with np.load(tmp_path / "flat-7.npz") as z:  # written anew, with its hand map
        assert z["hand"].shape == flat.image.shape[:2]
    (again,) = board_data.cached("flat", [7], tmp_path)
    assert again.hand is not None and np.abs(again.hand - made.hand).max() <= 0.5 / 255


def test_a_hand_scene_has_a_hand_map_and_a_scene_without_a_hand_none() -> None:
    frame = board_data.hand_frame(3)
    assert frame.hand is not None and frame.hand.shape == frame.image.shape[:2]
    assert 0.005 < float((frame.hand > 0.5).mean()) < 0.6
    plain = render_scene(HELD_OUT, size=9, width=160, height=120, hand=False)
    assert plain.hand is None


def test_train_board_refuses_test_seeds() -> None:
    result = CliRunner().invoke(
        main, ["train-board", "--scenes", "10", "--render-seed", str(TEST_SEEDS_FROM - 5)]
    )
    assert result.exit_code == 2
    assert "below 1000000" in result.output


def test_held_out_photos_are_never_training_frames() -> None:
    with pytest.raises(board_data.CompanionError, match="held out"):
        board_data.photo_frames("../shared/data/photos", ["imago"])
    with pytest.raises(board_data.CompanionError):
        board_data.scene_frame(TEST_SEEDS_FROM)


def test_proposals_are_ordered_as_the_finder_orders_corners() -> None:
    from companion.vision.find_board import order_corners

    rng = np.random.default_rng(3)
    for _ in range(50):
        centre = rng.uniform(60, 180, 2)
        turn = rng.uniform(0, 2 * np.pi)
        radius = rng.uniform(20, 60)
        angles = turn + np.array([0, 0.5, 1, 1.5]) * np.pi + rng.uniform(-0.2, 0.2, 4)
        quad = centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])
        shuffled = quad[rng.permutation(4)]
        assert np.array_equal(board_net._clockwise(shuffled), order_corners(shuffled))


def _grid_image(corners: np.ndarray, n: int) -> np.ndarray:
    """A pale board on a white table with ``n`` dark lines each way between ``corners``."""
    image = np.full((480, 640, 3), 245, np.uint8)
    h = homography(corners, n)
    outline = project(h, np.array([[-1, -1], [n, -1], [n, n], [-1, n]], np.float64))
    cv2.fillConvexPoly(image, np.round(outline).astype(np.int32), (150, 200, 230))
    for i in range(n):
        for a, b in (((i, 0), (i, n - 1)), ((0, i), (n - 1, i))):
            p, q = project(h, np.array([a, b], np.float64))
            cv2.line(image, tuple(map(round, p)), tuple(map(round, q)), (20, 20, 20), 2)
    return image


def test_a_corner_patch_is_centred_on_its_guess_with_the_board_inside_down_right() -> None:
    truth = np.array([[150.0, 90.0], [500.0, 110.0], [520.0, 420.0], [130.0, 400.0]])
    image = _grid_image(truth, 9)
    levels = board_net.pyramid(image)
    c = board_net.PATCH / 2 - 0.5
    for k in range(4):
        m = board_net.patch_to_image(truth, 9, k)
        assert np.abs(project(m, np.array([c, c])) - truth[k]).max() < 1e-6
        patch = board_net.corner_patch(levels, m).astype(np.float64).mean(axis=2)
        half = board_net.PATCH // 2
        inside, outside = patch[half + 4 :, half + 4 :], patch[: half - 4, : half - 4]
        assert (inside < 150).mean() > 0.05, f"corner {k}: no lines down-right"
        assert (outside < 150).mean() == 0, f"corner {k}: lines up-left, outside the grid"


def test_a_corner_map_decodes_between_its_cells() -> None:
    side = board_net.PATCH // board_net.PATCH_STRIDE
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    cx, cy = 7.3, 10.6  # cells
    logits = -((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 0.7**2)
    x, y, weight = board_net.corner_spot(logits.astype(np.float32))
    stride = board_net.PATCH_STRIDE
    assert abs(x - ((cx + 0.5) * stride - 0.5)) < 0.3
    assert abs(y - ((cy + 0.5) * stride - 0.5)) < 0.3
    assert weight > 0.9


def test_shipped_corner_network_pulls_a_rough_guess_onto_a_held_out_scene() -> None:
    """Every corner of a held-out 3D render guessed a spacing off: refined to a third of one."""
    sc = render_scene(HELD_OUT + 3, size=19, width=800, height=600)
    truth = np.asarray(sc.corners[0], np.float64)
    spacing = np.linalg.norm(truth[1] - truth[0]) / 18
    rng = np.random.default_rng(5)
    guess = truth + rng.choice([-1.0, 1.0], (4, 2)) * 0.8 * spacing
    assert corner_error(guess, truth, 19) > 0.9
    (refined,) = board_net.refine(board_net.pyramid(sc.image), [(guess, 19)])
    assert corner_error(refined, truth, 19) < 0.34


def test_a_quad_with_no_area_gets_no_answer_and_stops_no_find(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A proposal with its corners on a line (peaks along one edge), or one the corner network
    folds flat, is refined no further (its steps stop short: "no answer" to every caller),
    beside a sane quad refined as ever. Before, its patch raised and the whole find ended as
    "no board (corners enclose no area)" (held-out scenes 9000001 and 9000044, session 14)."""
    from companion.vision.lattice import to_lab

    sc = render_scene(HELD_OUT + 3, size=19, width=800, height=600)
    truth = np.asarray(sc.corners[0], np.float64)
    flat = np.array([[100.0, 100.0], [200.0, 100.0], [300.0, 100.0], [400.0, 100.0]])
    levels = board_net.pyramid(sc.image)
    (flat_steps, _w), (steps, _v) = board_net.refine_rounds(levels, [(flat, 19), (truth, 19)])
    assert len(flat_steps) == 1 and len(steps) == 3
    assert corner_error(steps[-1], truth, 19) < 0.34
    # the finder's candidates leave such a proposal out instead of failing on it
    monkeypatch.setattr(board_net, "propose", lambda _small: [flat.copy()])
    judge = lambda _d, _q, _n: 3.0  # noqa: E731
    small = np.ascontiguousarray(sc.image)
    assert board_net.candidates(small, to_lab(small), (19, 9), judge) == []
    # a round that folds every corner onto one point: the quad's answer ends before it
    monkeypatch.setattr(board_net, "project", lambda _m, _p: np.array([50.0, 50.0]))
    ((folded, _u),) = board_net.refine_rounds(levels, [(truth, 19)])
    assert len(folded) == 1 and np.array_equal(folded[0], truth)


def test_without_corner_weights_refine_leaves_the_guess(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(board_net, "CORNER_WEIGHTS", tmp_path / "none.onnx")
    guess = np.array([[10.0, 10.0], [90.0, 12.0], [88.0, 80.0], [12.0, 78.0]])
    (same,) = board_net.refine([np.zeros((100, 100, 3), np.uint8)], [(guess, 9)])
    assert np.array_equal(same, guess)


def test_corner_training_runs_exports_and_cv2_gives_what_torch_gives(tmp_path: Path) -> None:
    """A few steps on patches of one frame, exported, read back through cv2.dnn in a batch."""
    torch = pytest.importorskip("torch")
    from companion.vision import train_board

    frames = [board_data.flat_frame(7), board_data.empty_frame(8)]  # the cloth is skipped
    settings = train_board.Settings(seed=1, steps=3, batch=3, width=8)
    model = trained_alike(train_board.train_corners, frames, settings)
    path = tmp_path / "corner.onnx"
    train_board.export(model, path)
    rng = np.random.default_rng(2)
    patches = [board_data.corner_sample(frames[0], rng)[0] for _ in range(3)]
    blob = np.stack([p.transpose(2, 0, 1) for p in patches]).astype(np.float32)
    got = board_net.load(path).run(blob, 1)  # type: ignore[union-attr]
    with torch.no_grad():
        ref = model(torch.from_numpy(blob)).numpy()
    assert got.shape == (3, 1, board_net.PATCH // 4, board_net.PATCH // 4)
    assert np.abs(got - ref).max() < 1e-3
    with pytest.raises(board_data.CompanionError, match="no board"):
        board_data.corner_sample(frames[1], rng)


def test_a_proposal_the_finder_already_has_is_left_out() -> None:
    """The net adds boards; a grid among the finder's own candidates stays the finder's."""
    from companion.vision.lattice import to_lab

    sc = render_scene(HELD_OUT, size=19, width=640, height=480)
    truth = np.asarray(sc.corners[0], np.float64)
    lab = to_lab(sc.image)
    judge = lambda _d, _q, _n: 1.0  # noqa: E731
    fresh = board_net.candidates(sc.image, lab, (19,), judge)
    assert any(corner_error(q, truth, 19) < 0.25 for _e, q, _n, _d in fresh)
    known = [(1.0, truth + 1.0, 19, fresh[0][3])]  # the finder's, a pixel off
    again = board_net.candidates(sc.image, lab, (19,), judge, known)
    assert all(corner_error(q, truth, 19) > 0.25 for _e, q, _n, _d in again)


def test_polish_moves_a_grid_a_little_off_onto_a_held_out_scene() -> None:
    """The finder's commonest miss, a grid 0.4 spacing off: placed within a tenth of one."""
    sc = render_scene(HELD_OUT + 3, size=19, width=800, height=600)
    truth = np.asarray(sc.corners[0], np.float64)
    spacing = np.linalg.norm(truth[1] - truth[0]) / 18
    guess = truth + np.array([(1, 0), (1, 0), (1, 0), (1, 0)]) * 0.4 * spacing  # a shifted grid
    assert corner_error(guess, truth, 19) > 0.35
    assert corner_error(board_net.polish(sc.image, guess, 19), truth, 19) < 0.1


def test_polish_leaves_a_grid_on_a_cloth_where_it_is() -> None:
    """No board under the grid: the corner network is unsure or wanders, so nothing moves."""
    image = cloth((480, 640), HELD_OUT + 7)
    quad = np.array([[170.0, 90.0], [470.0, 95.0], [465.0, 390.0], [175.0, 385.0]])
    assert np.array_equal(board_net.polish(image, quad, 19), quad)


def test_without_corner_weights_polish_leaves_the_grid(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(board_net, "CORNER_WEIGHTS", tmp_path / "none.onnx")
    sc = render_scene(HELD_OUT + 3, size=19, width=800, height=600)
    guess = np.asarray(sc.corners[0], np.float64) + 3.0
    assert np.array_equal(board_net.polish(sc.image, guess, 19), guess)


def test_the_finder_s_grid_a_little_off_is_polished(monkeypatch: pytest.MonkeyPatch) -> None:
    """A validation scene (seed 500017, motion-blurred, 9 x 9) where the classic finder's grid
    is 0.4 spacing off: the corner network puts it right, so does the grid fit alone, and
    without both the grid stays off."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([500_017], ["motion"])
    assert case.corners is not None and case.size == 9
    found = find_board(case.image)
    assert found.size == 9
    assert corner_error(found.corners, case.corners, 9) < 0.1
    monkeypatch.setattr(board_net, "POLISH_WEIGHT", 2.0)  # never sure: no polish
    found = find_board(case.image)
    assert corner_error(found.corners, case.corners, 9) < 0.1  # the grid fit's move
    monkeypatch.setattr(fbm, "LOOK_FIT", False)  # and no fit: the finder's own grid
    found = find_board(case.image)
    assert corner_error(found.corners, case.corners, 9) > 0.3


def test_a_sure_grid_with_a_corner_its_crossings_did_not_place_is_polished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A validation scene (seed 500094, blurred, 9 x 9) where the finder is sure of its lines
    (score over ``SURE_SCORE``) but its full-resolution step finds no crossings to place one
    corner by, which stays 0.6 spacing off: the corner network is asked and puts it right."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([500_094], ["blur"])
    assert case.corners is not None and case.size == 9
    found = find_board(case.image, size=9)
    assert found.score >= fbm.SURE_SCORE
    assert corner_error(found.corners, case.corners, 9) < 0.1
    monkeypatch.setattr(board_net, "POLISH_WEIGHT", 2.0)  # never sure: the finder's own grid
    monkeypatch.setattr(fbm, "LOOK_FIT", False)  # (the grid fit brings it to 0.26 alone)
    found = find_board(case.image, size=9)
    assert corner_error(found.corners, case.corners, 9) > 0.5


def test_a_sure_grid_placed_by_its_crossings_is_not_polished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Clear lines seen at every corner place a grid better than four corners (lens and
    all): the corner network is not asked. Every corner is placed when the step finds
    crossings round each (here: a stand-in step that moves each corner a little)."""
    from companion.vision import find_board as fbm

    rows = [" ".join("." * 19)] * 19
    r = render_board(rows, size=19, tilt=15, rotate=-10, seed=11)
    monkeypatch.setattr(fbm, "_corner_refine", lambda _image, quad, _n: quad + 0.25)
    asked: list[int] = []
    monkeypatch.setattr(
        board_net, "polish", lambda _s, quad, _n, _edges=(): asked.append(1) or quad
    )
    found = find_board(r.image)
    assert found.score >= fbm.SURE_SCORE and asked == []
    monkeypatch.setattr(fbm, "_corner_refine", lambda _image, quad, _n: quad)  # none placed
    find_board(r.image)
    assert asked == [1]


def _square_grid(n: int, spacing: float, at: float = 50.0) -> np.ndarray:
    side = (n - 1) * spacing
    return np.array([[at, at], [at + side, at], [at + side, at + side], [at, at + side]])


@pytest.mark.parametrize(
    ("beyond", "agrees"),
    [(1.0, True), (0.4, True), (0.0, False), (3.0, False), (-2.0, False)],
)
def test_a_board_edge_agrees_only_a_margin_beyond_the_grid(beyond: float, agrees: bool) -> None:
    """The outline a margin beyond the outer lines is a board round its grid; an outline on
    the outer lines (a grid locked onto the wooden edge), far beyond or inside is not."""
    grid = _square_grid(19, 20.0, at=100.0)
    edge = _square_grid(19 + 2 * beyond, 20.0, at=100.0 - beyond * 20.0)
    assert board_net.edge_agrees(grid, 19, edge) is agrees


def test_an_edge_beyond_one_side_only_does_not_agree() -> None:
    grid = _square_grid(19, 20.0, at=100.0)
    edge = _square_grid(21, 20.0, at=80.0)  # one spacing beyond, then slid right by one more
    edge[:, 0] += 20.0
    assert not board_net.edge_agrees(grid, 19, edge)


def _blurred_missed_scene() -> tuple[np.ndarray, np.ndarray, float, board_net.Judge]:
    """Validation scene 500014 (19 x 19, a hand over the board) blurred as ``eval-finder``
    blurs it: the working copy, the true corners in it, the scale, and the finder's judge.
    The classic finder's cues stay under its bar there (session 7: "no board")."""
    from companion.vision.find_board import WORK_SIDE

    image, small, corners, judge = _scene_small(500_014, "blur")
    return small, corners, WORK_SIDE / max(image.shape[:2]), judge


def test_rescue_finds_a_blurred_board_and_refuses_without_the_edge_or_the_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.vision.lattice import to_lab

    _without_the_check(monkeypatch)  # the bars before it (the check's own test is below)
    small, truth, _k, judge = _blurred_missed_scene()
    lab = to_lab(small)
    found = board_net.rescue(small, lab, (19, 13, 9), judge)
    assert found is not None
    score, quad, n = found
    assert n == 19 and corner_error(quad, truth, 19) <= 0.25
    assert 0 < score <= 1
    # no outline of the board's colour round it (a hand across the edge, say): the outline
    # cut round the grid is the board's edge all the same, but it was cut to fit, so the
    # evidence must reach the finder's own bar for a grid in an outline, not the rescue's
    monkeypatch.setattr(board_net, "board_quads", lambda _im, limit: [(1.0, quad.copy())])
    plain = lambda _d, _q, _n: board_net.CUT_EVIDENCE  # noqa: E731
    assert board_net.rescue(small, lab, (19,), plain) is not None
    faint = lambda _d, _q, _n: board_net.CUT_EVIDENCE - 0.01  # noqa: E731
    assert faint(None, None, None) >= board_net.RESCUE_EVIDENCE
    assert board_net.rescue(small, lab, (19,), faint) is None
    # the same sure grid with a board outline on its outer lines (the wooden edge), found by
    # colour or cut round the grid: refused
    monkeypatch.setattr(board_net, "seeded_quads", lambda _im, q, _n: [q.copy()])
    assert board_net.rescue(small, lab, (19,), judge) is None
    monkeypatch.undo()
    _without_the_check(monkeypatch)
    # the same grid and edge with evidence under the bar: refused
    weak = lambda _d, _q, _n: board_net.RESCUE_EVIDENCE - 0.01  # noqa: E731
    assert board_net.rescue(small, lab, (19,), weak) is None


def test_each_refused_grid_says_which_bar_it_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``verdicts`` names the first bar each refined proposal failed, so a "no board" can be
    traced: kept with the finder's judge, "weak" under the evidence bar, "no outline" with
    the outline on the grid's outer lines, "unsure" when no map can be sure enough."""
    from companion.vision.lattice import to_lab

    _without_the_check(monkeypatch)
    small, truth, _k, judge = _blurred_missed_scene()
    lab = to_lab(small)
    right = [v for v in board_net.verdicts(small, lab, (19,), judge) if v.why == "kept"]
    assert right and corner_error(right[0].quad, truth, 19) <= 0.25
    assert right[0].evidence is not None and right[0].evidence >= board_net.RESCUE_EVIDENCE
    weak = lambda _d, _q, _n: board_net.RESCUE_EVIDENCE - 0.01  # noqa: E731
    assert "weak" in {v.why for v in board_net.verdicts(small, lab, (19,), weak)}
    on_lines = [right[0].quad.copy()]
    monkeypatch.setattr(board_net, "seeded_quads", lambda _im, q, _n: [q.copy()])
    assert "no outline" in {v.why for v in board_net.verdicts(small, lab, (19,), judge, on_lines)}
    monkeypatch.undo()
    monkeypatch.setattr(board_net, "RESCUE_WEIGHT", 1.01)
    assert {v.why for v in board_net.verdicts(small, lab, (19,), judge)} == {"unsure"}


def _without_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hide the grid check's weights, so a grid's evidence alone decides, as before it."""
    from companion.vision import grid_check

    monkeypatch.setattr(grid_check, "WEIGHTS", grid_check.WEIGHTS.with_name("missing.onnx"))


def test_the_grid_check_keeps_a_right_grid_whose_evidence_fell_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hand or blur pulls the finder's evidence on a right grid under the bar; the shipped
    grid check, sure the grid lies on the board's lines, keeps it. It is asked only then: a
    grid the outline bar refused stays refused, and a check short of the bar keeps nothing."""
    from companion.vision import grid_check
    from companion.vision.lattice import to_lab

    assert grid_check.load() is not None, "the shipped grid check is missing"
    small, truth, _k, _judge = _blurred_missed_scene()
    lab = to_lab(small)
    weak = lambda _d, _q, _n: board_net.RESCUE_EVIDENCE - 0.01  # noqa: E731
    said = board_net.verdicts(small, lab, (19,), weak)
    kept = [v for v in said if v.why == "kept"]
    assert kept and corner_error(kept[0].quad, truth, 19) <= 0.25
    assert kept[0].check is not None and kept[0].check >= board_net.CHECK_KEEP
    found = board_net.rescue(small, lab, (19,), weak)
    assert found is not None and corner_error(found[1], truth, 19) <= 0.25
    # the same grid one line off: the check says no
    levels = board_net.pyramid(small)
    step = (kept[0].quad[1] - kept[0].quad[0]) / 18
    off = kept[0].quad + step
    right_mark, off_mark = grid_check.check(levels, [(kept[0].quad, 19), (off, 19)]) or [1, 1]
    assert right_mark >= board_net.CHECK_KEEP > 0.5 > off_mark
    # nor is it asked where nothing of the grid shows (it calls a plain panel a board)
    bare = lambda _d, _q, _n: board_net.CHECK_LEAST - 0.01  # noqa: E731
    unasked = board_net.verdicts(small, lab, (19,), bare)
    assert unasked and all(v.check is None and v.why != "kept" for v in unasked)
    # a check short of its bar keeps nothing the evidence did not
    monkeypatch.setattr(board_net, "CHECK_KEEP", 1.01)
    assert "kept" not in {v.why for v in board_net.verdicts(small, lab, (19,), weak)}
    assert board_net.rescue(small, lab, (19,), weak) is None
    monkeypatch.undo()
    # the check is not asked where an earlier bar refused the grid
    monkeypatch.setattr(board_net, "seeded_quads", lambda _im, q, _n: [q.copy()])
    on_lines = board_net.verdicts(small, lab, (19,), weak, [kept[0].quad.copy()])
    assert all(v.check is None for v in on_lines if v.why != "kept")
    assert "kept" not in {v.why for v in on_lines}


def test_hand_frames_are_scenes_with_a_hand_pinned_on_their_own_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``train-board --hands N`` adds scenes with a hand over the board (the proposer's worst
    case), from seeds of their own, below the test seeds and apart from the validation ones."""
    from companion.vision import board_data, scene

    asked: list[tuple[int, object]] = []
    real = scene.render_scene

    def spy(seed: int, **kw: object) -> object:
        asked.append((seed, kw.get("hand")))
        return real(seed, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(scene, "render_scene", spy)
    frame = board_data.hand_frame(3)
    assert asked == [(board_data.HAND_SEEDS_FROM + 3, True)]
    assert frame.corners is not None and frame.corners.shape == (4, 2)
    assert 500_060 <= board_data.HAND_SEEDS_FROM < board_data.TEST_SEEDS_FROM - 100_000


def test_a_corner_the_network_is_unsure_of_does_not_stop_the_other_three(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tuning scene (seed 472, blurred, 19 x 19) where the finder's grid is 0.37 spacing off
    and the corner network is sure of three corners (right) but not of the fourth (its map
    peaked at 0.73): the three move, the fourth stays, and the grid is found. Refusing all
    four for the one left it 0.37 spacing off (the grid fit, asked after the polish, now
    mends that too: it is switched off here to see the polish's own rule)."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([472], ["blur"])
    assert case.corners is not None and case.size == 19
    monkeypatch.setattr(fbm, "LOOK_FIT", False)
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) < 0.15
    monkeypatch.setattr(board_net, "POLISH_SURE_CORNERS", 4)  # all four or none, as before
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) > 0.3


def _network_sure_of(monkeypatch: pytest.MonkeyPatch, moved: Corners) -> None:
    """A stand-in corner network, sure of all four corners, that answers ``moved`` for any
    grid in every round: what :func:`board_net.polish` then does is the polish's own rule."""

    def stand_in(
        _levels: object, quads: list[tuple[Corners, int]], *, rounds: int = 2
    ) -> list[tuple[list[Corners], Corners]]:
        return [([quads[0][0], *[moved] * rounds], np.ones(4))]

    monkeypatch.setattr(board_net, "refine_rounds", stand_in)


@pytest.mark.parametrize("lone", [True, False])
def test_a_polish_that_bends_the_grid_out_of_a_square_is_refused(
    monkeypatch: pytest.MonkeyPatch, lone: bool
) -> None:
    """A stand-in corner network, sure of all four corners: one corner dragged 0.8 spacing
    along the bottom line while the other three stay (as under a hand on 9 x 9 tuning scene 131,
    motion-blurred: 0.24 -> 0.92 spacing) leaves a shape no camera sees a square as, and the
    grid stays (fails on main's code); the whole grid moved 0.4 spacing stays a square and
    moves."""
    n = 9
    quad = np.array([[200.0, 150.0], [520.0, 150.0], [520.0, 470.0], [200.0, 470.0]])
    step = 320.0 / (n - 1)
    if lone:
        moved = quad.copy()
        moved[2, 0] += 0.8 * step
    else:
        moved = quad + np.array([0.4 * step, 0.0])

    _network_sure_of(monkeypatch, moved)
    image = np.full((600, 800, 3), 128, np.uint8)
    out = board_net.polish(image, quad, n)
    np.testing.assert_array_equal(out, quad if lone else moved)


_TILTED = np.array([[170.0, 80.0], [480.0, 95.0], [560.0, 430.0], [90.0, 410.0]])  # in perspective


def _hand_over_corner(at: float, axes: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """:data:`_TILTED`'s 19 x 19 grid with a blob (a hand) of half-axes ``axes`` centred on the
    board point (``at``, ``at``), over the bottom-right corner: the image and its line response
    as the finder makes it."""
    from companion.vision.find_board import line_masks

    image = _grid_image(_TILTED, 19)
    spot = project(homography(_TILTED, 19), np.array([[at, at]]))[0]
    cv2.ellipse(image, (round(spot[0]), round(spot[1])), axes, 30, 0, 360, (90, 140, 200), -1)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    bh, _masks = line_masks(gray, max(5, round(min(gray.shape) / 60) | 1))
    return image, bh


def test_a_hidden_corner_is_placed_where_the_visible_crossings_put_it() -> None:
    """A 19 x 19 grid in perspective with its bottom-right corner under a blob (a hand): the
    corner guessed three spacings off (the parallelogram of the other three, say) is moved
    to within a quarter spacing by the lines of the rest of the board, the three held."""
    truth, h = _TILTED, homography(_TILTED, 19)
    _image, bh = _hand_over_corner(16.5, (60, 45))
    resp = cv2.GaussianBlur(bh.astype(np.float32), (0, 0), 1.0)
    guess = truth.copy()
    guess[2] = project(h, np.array([[21.0, 19.5]]))[0]  # 3 and 1.5 spacings off
    assert corner_error(guess, truth, 19) > 2.5
    moved = board_net.fourth_corner(resp, guess, 19, 2)
    assert corner_error(moved, truth, 19) <= 0.25
    assert np.array_equal(moved[[0, 1, 3]], guess[[0, 1, 3]])


def _scene_small(
    seed: int, kind: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, board_net.Judge]:
    """A 19 x 19 scene as ``eval-finder`` alters it: the photo, the finder's working copy, the
    true corners in it, and the finder's judge there."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    case = next(c for c in scene_cases([seed], [kind]) if kind in c.set)
    assert case.corners is not None and case.size == 19
    k = fbm.WORK_SIDE / max(case.image.shape[:2])
    small = cv2.resize(case.image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    bh, _masks = fbm.line_masks(gray, max(5, round(min(gray.shape) / 60) | 1))
    judge = lambda d, q, n: fbm.evidence(d, bh, q, n)  # noqa: E731
    return case.image, small, (case.corners + 0.5) * k - 0.5, judge


def test_a_board_with_a_corner_under_a_hand_is_found_and_refused_on_weak_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 500051 blurred (a hand over one corner, tuned on): the finder found no
    board there before session 12 (no peak at the hidden corner, so no proposal); it finds it
    now, within a quarter spacing. With the fourth corner unsure (the bar of 0.95 before
    session 17; at 0.9 the network holds all four and the grid is judged as a rescued one),
    the same grid is refused with evidence just under :data:`board_net.HIDDEN_EVIDENCE`, or
    with a corner network sure of no corner."""
    from companion.vision import find_board as fbm
    from companion.vision.lattice import to_lab

    image, small, truth, judge = _scene_small(500_051, "blur")
    found = find_board(image, size=19)
    k = small.shape[1] / image.shape[1]
    assert corner_error((found.corners + 0.5) * k - 0.5, truth, 19) <= 0.25
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    bh, _masks = fbm.line_masks(gray, max(5, round(min(gray.shape) / 60) | 1))
    lab = to_lab(small)
    props = board_net.propose(small)
    monkeypatch.setattr(board_net, "RESCUE_WEIGHT", 0.95)
    got = board_net.hidden(small, bh, lab, (19,), judge, None, props)
    assert got is not None and corner_error(got[1], truth, 19) <= 0.25
    weak = lambda _d, _q, _n: board_net.HIDDEN_EVIDENCE - 0.01  # noqa: E731
    assert board_net.hidden(small, bh, lab, (19,), weak, None, props) is None
    monkeypatch.setattr(board_net, "RESCUE_WEIGHT", 1.01)
    assert board_net.hidden(small, bh, lab, (19,), judge, None, props) is None


@pytest.mark.parametrize("outline", ["even", "none", "round the moved grid"])
def test_a_polish_that_pulls_the_grid_off_its_board_is_refused(
    monkeypatch: pytest.MonkeyPatch, outline: str
) -> None:
    """A stand-in corner network, sure of all four corners, drags one corner a spacing out while
    the other three stay (as under a hand on 19 x 19 tuning scene 253, motion-blurred: 0.22 ->
    0.97 spacing; a shape a camera can still see a square as). The board's outline lay round
    the grid with margins of about a spacing on every side: after the move it no longer does,
    so the grid stays (fails on main's code). Without an outline, or with one lying evenly
    round the moved grid (the move put a wrong grid onto its board), the move stands."""
    n = 19
    step = 20.0
    quad = np.array([[200.0, 100.0], [560.0, 100.0], [560.0, 460.0], [200.0, 460.0]])
    moved = quad.copy()
    moved[0, 1] -= step  # the top-left corner, up
    # the board's edge about a spacing beyond the grid (a tenth more on two sides)
    wood = np.array([[-1.0, -1.1], [0.9, -1.1], [0.9, 1.0], [-1.0, 1.0]]) * step
    edges = {"even": [quad + wood], "none": [], "round the moved grid": [moved + wood]}[outline]

    _network_sure_of(monkeypatch, moved)
    image = np.full((600, 800, 3), 128, np.uint8)
    out = board_net.polish(image, quad, n, edges)
    np.testing.assert_array_equal(out, quad if outline == "even" else moved)


def test_a_corner_under_a_hand_is_not_dragged_off_the_board() -> None:
    """Tuning scene 253, motion-blurred (19 x 19, fingers over the top-left corner): the finder's
    grid is 0.22 spacing off and sits evenly in the paper board's outline; the corner network,
    sure of all four corners, dragged the hidden one 0.95 spacing up and left (0.97 off, on main's
    code). The move is refused and the grid found."""
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([253], ["motion"])
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) < 0.25


@pytest.mark.parametrize("n", [9, 13, 19])
def test_grids_guessed_inside_an_outline_lie_their_margins_in(n: int) -> None:
    """Each guess lies the margins of :data:`board_net.OUTLINE_MARGINS` (in its own spacings)
    inside the outline on every side, the outline turned a little as a camera turns it."""
    from companion.vision.board_edge import margins

    turn = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    outline = np.array([[0.0, 0.0], [400.0, 0.0], [400.0, 400.0], [0.0, 400.0]]) @ turn.T + 300
    guesses = board_net.inside_outline(outline, n)
    assert len(guesses) == len(board_net.OUTLINE_MARGINS)
    for guess, m in zip(guesses, board_net.OUTLINE_MARGINS, strict=True):
        np.testing.assert_allclose(margins(guess, n, outline), m, atol=1e-5)


def test_a_blurred_board_the_proposer_missed_is_found_from_its_outline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 500060 blurred (19 x 19, white board, tuned on): the proposer's peaks
    and the classic finder led nowhere ("no board" before session 16); the corner network
    started inside the board's outline finds it within a quarter spacing. Without that step
    (and with the corner network's bar as it was then, 0.95: at 0.9 the proposals' own grids
    are kept too) the grid check placing a corner the network is unsure of finds it as well
    (since session 21; 0.10 spacing off), and so does the grid reach (since session 28;
    0.12 off); without the three it is "no board" again, and a judge under every bar keeps
    it from the outline too."""
    from companion.vision import find_board as fbm
    from companion.vision.lattice import to_lab

    image, small, truth, judge = _scene_small(500_060, "blur")
    found = find_board(image, size=19)
    k = small.shape[1] / image.shape[1]
    assert corner_error((found.corners + 0.5) * k - 0.5, truth, 19) <= 0.25
    outlines = [edge for _s, edge in board_net.board_quads(small, limit=4)]
    got = board_net.from_outlines(small, to_lab(small), (19,), judge, outlines)
    assert got is not None and corner_error(got[1], truth, 19) <= 0.25
    nothing = lambda _d, _q, _n: 0.0  # noqa: E731
    assert board_net.from_outlines(small, to_lab(small), (19,), nothing, outlines) is None
    monkeypatch.setattr(fbm, "LOOK_OUTLINES", False)
    monkeypatch.setattr(board_net, "RESCUE_WEIGHT", 0.95)
    checked = find_board(image, size=19)
    assert corner_error((checked.corners + 0.5) * k - 0.5, truth, 19) <= 0.25
    monkeypatch.setattr(fbm, "LOOK_CHECKED", False)
    monkeypatch.setattr(fbm, "LOOK_REACH", False)
    with pytest.raises(BoardNotFound):
        find_board(image, size=19)


def test_a_board_the_network_is_nine_tenths_sure_of_is_found_on_the_other_bars(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 500096 (19 x 19, no hand, tuned on): the classic finder finds no
    board; the corner network settles grids started inside the board's outline within a
    fifth of a spacing, at a least corner weight of 0.91, under the old bar of 0.95 ("no
    board" before session 17). With the bar at :data:`board_net.RESCUE_WEIGHT` the other bars
    (an outline round the grid, the evidence or the grid check) keep it; at 0.95 it is lost
    (unless the grid reach, since session 28, brings another proposal to it: 0.15 off)."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    (case,) = scene_cases([500_096], [])
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(board_net, "RESCUE_WEIGHT", 0.95)
    monkeypatch.setattr(fbm, "LOOK_REACH", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)


def test_a_hidden_corner_the_network_turns_sure_of_keeps_its_searched_place() -> None:
    """Validation scene 500036 (9 x 9, a hand over a corner, tuned on): three corners sure,
    the fourth found where the crossings put it (0.05 spacing off). At the 0.9 bar the
    network then turns sure of the fourth too, but places it 0.63 spacing off, and its grid
    fails the rescue's bars; the grid with the searched fourth corner is still judged as a
    hidden one, and found ("no board" with the bar lowered alone)."""
    from companion.vision.finder_eval import scene_cases

    (case,) = scene_cases([500_036], [])
    assert case.corners is not None and case.size == 9
    found = find_board(case.image, size=9)
    assert corner_error(found.corners, case.corners, 9) <= 0.25


def _unsure_of(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """A stand-in corner network that leaves any grid where it is, sure of every corner but
    corner ``k`` (a hand over it)."""

    def stand_in(
        _levels: object, quads: list[tuple[Corners, int]], *, rounds: int = 2
    ) -> list[tuple[list[Corners], Corners]]:
        weights = np.ones(4)
        weights[k] = 0.5
        return [([np.array(q, np.float64)] * (rounds + 1), weights) for q, _n in quads]

    monkeypatch.setattr(board_net, "refine_rounds", stand_in)


@pytest.mark.parametrize(
    ("sure", "check", "moves"),
    [(3, (0.6, 0.6), True), (3, (0.9, 0.3), False), (4, (0.6, 0.6), False)],
)
def test_a_finished_grid_s_lone_unseen_corner_is_placed_by_the_lines(
    monkeypatch: pytest.MonkeyPatch, sure: int, check: tuple[float, float], moves: bool
) -> None:
    """A 19 x 19 grid in perspective, its bottom-right corner under a blob (a hand) and placed
    0.4 spacing off, the other three right: with the corner network sure of those three only,
    the fourth is moved to within 0.15 spacing by the rest of the board's lines, the
    three held. It stays where it was when the grid check is less sure of the moved grid, or
    when the network is sure of all four corners (then the polish places them)."""
    truth, h = _TILTED, homography(_TILTED, 19)
    image, bh = _hand_over_corner(17.0, (45, 35))
    guess = truth.copy()
    guess[2] = project(h, np.array([[18.2, 18.15]]))[0]
    assert 0.3 < corner_error(guess, truth, 19) < 0.5
    if sure == 3:
        _unsure_of(monkeypatch, 2)
    else:
        _network_sure_of(monkeypatch, guess)
    monkeypatch.setattr(grid_check, "check", lambda _levels, _grids: list(check))
    out = board_net.place_hidden(image, bh, guess, 19)
    if moves:
        assert corner_error(out, truth, 19) <= 0.15
        assert np.array_equal(out[[0, 1, 3]], guess[[0, 1, 3]])
    else:
        np.testing.assert_array_equal(out, guess)


def test_a_board_with_its_hidden_corner_a_line_off_is_found_by_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 500039 blurred (19 x 19, a hand over the top-right corner; tuned on):
    the finder's grid had the hidden corner 0.84 spacing off, the other three right; the
    board's lines place it (0.14 off), and without that step it stays off."""
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([500_039], ["blur"])
    assert case.corners is not None and case.size == 19
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(board_net, "place_hidden", lambda _s, _b, quad, _n: quad)
    before = find_board(case.image, size=19)
    assert corner_error(before.corners, case.corners, 19) > 0.5


def test_a_hidden_corner_goes_where_the_grid_check_is_surest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stand-in grid check, surest of the grid whose bottom-right corner is at the true one
    and less sure the further it is: the corner guessed 3 and 2.5 spacings off goes to within
    a sixth of a spacing of it, the other three held, with the check's word there; with no
    check at all the grid stays and the word is -1."""
    truth, h = _TILTED, homography(_TILTED, 19)
    step = float(np.linalg.norm(truth[1] - truth[0])) / 18
    guess = truth.copy()
    guess[2] = project(h, np.array([[21.0, 20.5]]))[0]

    def stand_in(_levels: object, grids: list[tuple[Corners, int]]) -> list[float]:
        return [float(np.exp(-np.linalg.norm(q[2] - truth[2]) / step)) for q, _n in grids]

    monkeypatch.setattr(grid_check, "check", stand_in)
    image = _grid_image(truth, 19)
    out, said = board_net.checked_corner(board_net.pyramid(image), guess, 19, 2)
    assert corner_error(out, truth, 19) <= 1 / 6
    assert np.array_equal(out[[0, 1, 3]], guess[[0, 1, 3]])
    assert said > 0.85
    monkeypatch.setattr(grid_check, "check", lambda _levels, _grids: None)
    out, said = board_net.checked_corner(board_net.pyramid(image), guess, 19, 2)
    np.testing.assert_array_equal(out, guess)
    assert said == -1.0


def test_a_full_blurred_board_with_a_corner_under_a_hand_is_found_by_the_grid_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Validation scene 520113 motion-blurred (a full 19 x 19 board, a wrist over the top-right
    corner; tuned on): the corner network is sure of three corners, but the board's lines,
    hidden by the stones and the blur, put the fourth over a spacing off, so the finder found
    no board. The grid check places it (within a quarter spacing); without that step, or with
    the check's bar out of reach, "no board"."""
    from companion.vision import find_board as fbm
    from companion.vision.finder_eval import scene_cases

    _clean, case = scene_cases([520_113], ["motion"])
    assert case.corners is not None and case.size == 19 and "motion" in case.set
    found = find_board(case.image, size=19)
    assert corner_error(found.corners, case.corners, 19) <= 0.25
    monkeypatch.setattr(board_net, "CHECKED_KEEP", 1.01)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)
    monkeypatch.undo()
    monkeypatch.setattr(fbm, "LOOK_CHECKED", False)
    with pytest.raises(BoardNotFound):
        find_board(case.image, size=19)


def test_a_plain_board_coloured_patch_is_no_board_for_the_check_placed_corner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tuning scene 500047 with its board (and three spacings round it) inpainted away: a plain
    board-coloured patch on a dotted cloth. The check, asked of a hundred placements of a
    fourth corner, was 0.97-0.985 sure of a 9 x 9 there: at the one-grid bar (0.95) the finder
    made up a board; at :data:`board_net.CHECKED_KEEP` it finds none."""
    from companion.vision.finder_eval import scene_cases, without_board

    (case,) = scene_cases([500_047], [])
    assert case.corners is not None
    image = without_board(case.image, case.corners, case.size)
    with pytest.raises(BoardNotFound):
        find_board(image)
    monkeypatch.setattr(board_net, "CHECKED_KEEP", board_net.CHECK_KEEP)
    assert find_board(image).size == 9
