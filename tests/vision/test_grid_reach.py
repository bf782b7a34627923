"""The grid reach (the grid fit's coarse sibling): its wider view, its training moves, its
rounds through cv2.dnn, and what the shipped one does with a grid far off (its training
targets are tested beside the fit's, in test_grid_fit.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision import board_data, grid_check, grid_fit
from companion.vision.board_net import pyramid
from companion.vision.geometry import homography, project
from tests.support.training import trained_alike
from tests.vision.test_grid_check import QUAD, UNIT, _drawn_board


def test_the_reach_sees_a_third_of_the_board_more_round_the_grid() -> None:
    for n in (9, 13, 19):
        margin = grid_fit.reach_margin(n)
        assert margin == pytest.approx(grid_check.MARGIN + 0.3 * (n - 1))
        # the drawn grid's outer lines sit that many spacings in from the view's edges
        drawn = grid_check.template(n, margin)
        cols = np.nonzero(drawn.max(axis=0) > 0.5)[0]
        per = grid_check.VIEW / (n - 1 + 2 * margin)
        assert (
            abs(cols[0] - (margin * per - 0.5)) <= 1 and cols[-1] < grid_check.VIEW - margin * per
        )
    # the check's own view is as before
    assert np.array_equal(grid_check.template(9), grid_check.template(9, grid_check.MARGIN))


def test_reach_moves_are_several_spacings_and_bounded() -> None:
    """In board sides: on a 19 x 19, a tenth of the board is 1.8 spacings."""
    rng = np.random.default_rng(0)
    worst = np.array(
        [np.linalg.norm(board_data.reach_offsets(rng), axis=1).max() for _ in range(2000)]
    )
    assert float(np.mean(worst > 0.1)) > 0.4  # beyond the fit's reach on a 19 x 19
    assert float(np.mean(worst < 0.05)) > 0.02  # a few nearly right: the reach leaves them
    assert worst.max() <= board_data.REACH_MOST * np.sqrt(2) + 1e-9


def test_a_frame_without_a_board_is_refused() -> None:
    empty = board_data.Frame(np.full((288, 384, 3), 90, np.uint8), None, 0, "cloth")
    with pytest.raises(board_data.CompanionError, match="no grid to reach"):
        board_data.reach_sample(empty, np.random.default_rng(0))


def test_without_weights_or_with_a_collapsed_grid_the_grid_stands(tmp_path: Path) -> None:
    levels = pyramid(_drawn_board(9, QUAD))
    steps = grid_fit.reached(levels, QUAD, 9, path=tmp_path / "none.onnx")
    assert len(steps) == 1 and np.array_equal(steps[0], QUAD)
    flat = np.array([(0, 0), (10, 0), (20, 0), (30, 0)], np.float64)
    assert len(grid_fit.reached(levels, flat, 9)) == 1


def test_a_damaged_weights_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "board_reach.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(grid_fit.VisionError, match="cannot load the grid reach"):
        grid_fit.reached([np.zeros((60, 80, 3), np.uint8)], QUAD, 9, path=bad)


def test_reach_training_runs_exports_and_a_round_moves_by_what_torch_says(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    from companion.vision import train_board

    frames = [board_data.flat_frame(7), board_data.empty_frame(8)]
    settings = train_board.Settings(seed=1, steps=3, batch=4, width=8, hands=0.5)
    model = trained_alike(train_board.train_reach, frames, settings)
    path = tmp_path / "reach.onnx"
    train_board.export(model, path)
    img = _drawn_board(13, QUAD)
    levels = pyramid(img)
    steps = grid_fit.reached(levels, QUAD, 13, rounds=2, path=path)
    assert len(steps) == 3
    margin = grid_fit.reach_margin(13)
    x = grid_check.blob(grid_check.rectified(levels, QUAD, 13, margin), 13, margin)[None]
    with torch.no_grad():
        d = model(torch.from_numpy(x)).numpy().reshape(4, 2)
    # a round moves each corner by the network's answer in board sides, times n - 1
    want = project(homography(QUAD, 13), UNIT * 12 + d * 12)
    assert np.abs(steps[1] - want).max() < 1e-3
    with pytest.raises(board_data.CompanionError, match="no frame with a board"):
        train_board.train_reach([frames[1]], settings)


@pytest.mark.parametrize("n", [9, 13, 19])
def test_the_shipped_reach_brings_a_grid_far_off_near_on_a_held_out_scene(n: int) -> None:
    """A grid slid two spacings each way and shrunk by a tenth (what the proposer gives with
    its peaks pulled onto a hand) ends within half a spacing of the board, well inside the
    corner network's patches; a right grid is left near where it was (the reach is coarse:
    the corner network and the fit place the corners)."""
    from companion.vision.finder_eval import corner_error
    from tests.vision.test_grid_fit import _held_out_scene

    image, truth, sp = _held_out_scene(n)
    levels = pyramid(image)
    centre = truth.mean(axis=0)
    far = centre + (truth - centre) * 0.9 + np.array([-2.0, 2.0]) * sp
    assert corner_error(far, truth, n) > 2.5
    steps = grid_fit.reached(levels, far, n)
    assert len(steps) == grid_fit.REACH_ROUNDS + 1
    assert corner_error(steps[-1], truth, n) < 0.5
    assert corner_error(grid_fit.reached(levels, truth, n)[-1], truth, n) < 0.5
