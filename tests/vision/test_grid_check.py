"""The grid check: the view it rectifies, the grid it draws beside it, its training views and
its network through cv2.dnn."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import board_data, grid_check
from companion.vision.board_net import pyramid
from companion.vision.geometry import homography, project
from tests.support.training import trained_alike

UNIT = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)


def _drawn_board(n: int, quad: np.ndarray, shape: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A pale board with its n lines each way, seen through ``quad`` (TL TR BR BL)."""
    img = np.full((*shape, 3), (60, 90, 60), np.uint8)  # a green cloth
    H = homography(quad, n)
    board = project(H, UNIT * (n - 1 + 2) - 1.0)  # a margin of a spacing
    cv2.fillConvexPoly(img, np.round(board).astype(np.int32), (150, 200, 225), cv2.LINE_AA)
    for i in range(n):
        a, b = (
            project(H, np.array([(i, 0.0), (i, n - 1.0)])),
            project(H, np.array([(0.0, i), (n - 1.0, i)])),
        )
        for p, q in (a, b):
            cv2.line(
                img,
                tuple(np.round(p).astype(int)),
                tuple(np.round(q).astype(int)),
                (40, 40, 40),
                1,
                cv2.LINE_AA,
            )
    return img


QUAD = np.array([(170.0, 90.0), (470.0, 100.0), (490.0, 400.0), (150.0, 390.0)])


def _line_fit(view: np.ndarray, n: int) -> float:
    """How dark the view is under the drawn grid against the rest of the board plane."""
    dark = 255.0 - view.mean(axis=2)
    on = grid_check.template(n) > 0.5
    return float(dark[on].mean() - dark[~on].mean())


def test_the_template_draws_n_lines_each_way_inside_the_margin() -> None:
    for n in (9, 13, 19):
        t = grid_check.template(n)
        assert t.shape == (grid_check.VIEW, grid_check.VIEW)
        cols = t.sum(axis=0)
        peaks = np.flatnonzero(
            (cols > 0.5 * cols.max()) & (cols >= np.roll(cols, 1)) & (cols >= np.roll(cols, -1))
        )
        assert len(peaks) == n, (n, peaks)
        per = grid_check.VIEW / (n - 1 + 2 * grid_check.MARGIN)
        assert abs(peaks[0] - (grid_check.MARGIN * per - 0.5)) <= 1
        assert t[:2].max() == 0 and t[:, :2].max() == 0  # nothing drawn in the margin's edge


def test_the_right_grid_s_view_has_its_lines_under_the_drawn_ones_and_a_line_off_does_not() -> None:
    n = 9
    img = _drawn_board(n, QUAD)
    levels = pyramid(img)
    right = grid_check.rectified(levels, QUAD, n)
    assert right.shape == (grid_check.VIEW, grid_check.VIEW, 3)
    H = homography(QUAD, n)
    off = project(H, UNIT * (n - 1) + np.array([1.0, 0.0]))  # the grid moved a line
    half = project(H, UNIT * (n - 1) + np.array([0.5, 0.0]))
    fit_right = _line_fit(right, n)
    assert fit_right > 20
    assert _line_fit(grid_check.rectified(levels, half, n), n) < 0.3 * fit_right
    # a line off still has most lines under the drawn ones, but not its outer one (its
    # lines past the board's last), which the check is to see
    for d in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0)):
        moved = project(H, UNIT * (n - 1) + np.array(d))
        assert _line_fit(grid_check.rectified(levels, moved, n), n) < 0.7 * fit_right, d
    assert _line_fit(grid_check.rectified(levels, off, n), n) < 0.7 * fit_right


def test_without_weights_there_is_no_opinion(tmp_path: Path) -> None:
    img = _drawn_board(9, QUAD)
    assert grid_check.check(pyramid(img), [(QUAD, 9)], path=tmp_path / "none.onnx") is None


def test_a_damaged_weights_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "board_check.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(grid_check.VisionError, match="cannot load the grid check"):
        grid_check.check([np.zeros((60, 80, 3), np.uint8)], [(QUAD, 9)], path=bad)


def test_training_views_are_right_grids_and_each_kind_of_wrong_one() -> None:
    frame = board_data.Frame(_drawn_board(9, QUAD), QUAD, 9, "drawn")
    rng = np.random.default_rng(0)
    labels = []
    for _ in range(120):
        x, y = board_data.check_sample(frame, rng)
        assert x.shape == (4, grid_check.VIEW, grid_check.VIEW) and x.dtype == np.float32
        assert x.min() >= 0.0 and x.max() <= 1.0
        labels.append(y)
    share = float(np.mean(labels))
    assert 0.35 < share < 0.65, share  # right and wrong about as often
    empty = board_data.Frame(np.full((288, 384, 3), 90, np.uint8), None, 0, "cloth")
    assert all(board_data.check_sample(empty, rng)[1] == 0.0 for _ in range(5))


def test_each_wrong_kind_is_at_least_a_third_of_a_spacing_off() -> None:
    rng = np.random.default_rng(1)
    right = UNIT * 18
    for kind, _share in board_data.CHECK_WRONG:
        for _ in range(20):
            g, n = board_data._wrong_grid(19, kind, rng)
            if n == 19:
                assert np.linalg.norm(g - right, axis=1).max() >= 0.4, kind


def test_check_training_runs_exports_and_cv2_gives_what_torch_gives(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from companion.vision import train_board

    frames = [board_data.flat_frame(7), board_data.empty_frame(8)]
    settings = train_board.Settings(seed=1, steps=3, batch=4, width=8, hands=0.5)
    model = trained_alike(train_board.train_check, frames, settings)
    path = tmp_path / "check.onnx"
    train_board.export(model, path)
    img = _drawn_board(9, QUAD)
    got = grid_check.check(pyramid(img), [(QUAD, 9), (QUAD + 20, 13)], path=path)
    assert got is not None and len(got) == 2 and all(0.0 < v < 1.0 for v in got)
    x = np.stack(
        [
            grid_check.blob(grid_check.rectified(pyramid(img), q, n), n)
            for q, n in [(QUAD, 9), (QUAD + 20, 13)]
        ]
    )
    with torch.no_grad():
        ref = torch.sigmoid(model(torch.from_numpy(x))).numpy().reshape(-1)
    assert np.abs(np.array(got) - ref).max() < 1e-4
    with pytest.raises(board_data.CompanionError, match="no frame with a board"):
        train_board.train_check([frames[1]], settings)


def test_the_shipped_check_averages_its_two_networks_logits() -> None:
    """The shipped check is two networks trained alike from two seeds; its answer is the
    mean of their logits (either alone refused right grids the other kept)."""
    assert grid_check.WEIGHTS.is_file() and grid_check.SECOND.is_file(), "a grid check is missing"
    levels = pyramid(_drawn_board(9, QUAD))
    grids = [(QUAD, 9), (QUAD + 20, 13), (QUAD - 15, 19)]
    blobs = np.stack([grid_check.blob(grid_check.rectified(levels, q, n), n) for q, n in grids])
    first = grid_check.GridCheck(grid_check.WEIGHTS).logits(blobs)
    second = grid_check.GridCheck(grid_check.SECOND).logits(blobs)
    both = grid_check.GridCheck(grid_check.WEIGHTS, grid_check.SECOND).logits(blobs)
    assert np.allclose(both, (first + second) / 2, atol=1e-5)
    assert not np.allclose(first, second, atol=0.1)  # two networks, not one file twice
    shipped = grid_check.check(levels, grids)
    assert shipped is not None
    assert np.allclose(shipped, 1 / (1 + np.exp(-both.astype(np.float64))), atol=1e-5)
    alone = grid_check.check(levels, grids, path=grid_check.WEIGHTS)
    assert alone is not None
    assert np.allclose(alone, 1 / (1 + np.exp(-first.astype(np.float64))), atol=1e-5)


def test_without_the_second_network_the_check_is_the_first_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    levels = pyramid(_drawn_board(9, QUAD))
    alone = grid_check.check(levels, [(QUAD, 9)], path=grid_check.WEIGHTS)
    monkeypatch.setattr(grid_check, "SECOND", tmp_path / "none.onnx")
    assert grid_check.check(levels, [(QUAD, 9)]) == alone
