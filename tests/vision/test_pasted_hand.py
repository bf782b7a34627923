"""The hand drawn over training frames: where it goes, what it leaves alone, and that the
shipped recipe (no pasted hands) draws the same views as before."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import board_data
from companion.vision.pasted_hand import drawn_hand, paste_hand

BOARD = np.array([[100.0, 80.0], [300.0, 80.0], [300.0, 240.0], [100.0, 240.0]])


def _plain(h: int = 288, w: int = 384) -> np.ndarray:
    return np.full((h, w, 3), 120, np.uint8)


def test_a_hand_covers_part_of_the_frame_runs_out_of_it_and_leaves_the_input_alone() -> None:
    image = _plain()
    shares = []
    for seed in range(20):
        out = paste_hand(image, BOARD, 19, np.random.default_rng(seed))
        changed = np.abs(out.astype(int) - image).max(axis=2) > 12
        shares.append(changed.mean())  # a hand at the frame's edge may be mostly out of it
        assert 0.002 < shares[-1] < 0.6, (seed, shares[-1])
        # the forearm runs out of the frame: some changed pixel on its border
        edge = np.concatenate([changed[0], changed[-1], changed[:, 0], changed[:, -1]])
        assert edge.any(), seed
    assert 0.03 < float(np.median(shares)) < 0.3, shares
    assert (image == 120).all()  # a new array: the frame is not drawn on


def test_the_same_seed_draws_the_same_hand_and_others_differ() -> None:
    image = _plain()
    a = paste_hand(image, BOARD, 19, np.random.default_rng(3))
    b = paste_hand(image, BOARD, 19, np.random.default_rng(3))
    c = paste_hand(image, BOARD, 19, np.random.default_rng(4))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_half_the_hands_reach_for_a_corner() -> None:
    """The stray peaks that beat a true corner are fingertips near it: half the hands put
    their fingertips within two spacings of a corner intersection."""
    spacing = 200 / 18
    near = 0
    for seed in range(100):
        out = paste_hand(_plain(), BOARD, 19, np.random.default_rng(seed))
        changed = np.abs(out.astype(int) - 120).max(axis=2) > 40
        ys, xs = np.nonzero(changed)
        d = np.hypot(xs[:, None] - BOARD[:, 0], ys[:, None] - BOARD[:, 1]).min()
        near += d < 2 * spacing
    assert 0.4 < near / 100 < 0.85, near


def test_a_frame_with_no_board_gets_a_hand_scaled_to_the_frame() -> None:
    out = paste_hand(_plain(), None, 0, np.random.default_rng(1))
    assert (np.abs(out.astype(int) - 120).max(axis=2) > 12).mean() > 0.01


@pytest.mark.parametrize("hands", [0.0, 1.0])
def test_views_keep_their_truth_and_no_hands_draws_as_before(hands: float) -> None:
    frame = board_data.Frame(_plain(), BOARD, 19, "plain")
    x, heat, mask, _hand = board_data.sample(frame, np.random.default_rng(5), hands)
    x0, heat0, _mask0, _hand0 = board_data.sample(frame, np.random.default_rng(5))
    if hands == 0.0:  # nothing drawn from the generator: the shipped recipe's views
        assert np.array_equal(x, x0) and np.array_equal(heat, heat0)
    else:  # the same turn of the frame is not promised (the hand draws first), the truth is
        assert heat.max() > 0.9 and mask.sum() > 0
        assert not np.array_equal(x, x0)
    patch, spot = board_data.corner_sample(frame, np.random.default_rng(6), hands)
    patch0, spot0 = board_data.corner_sample(frame, np.random.default_rng(6))
    assert np.array_equal(spot, spot0)  # the hand is drawn after the guess: the same truth
    assert np.array_equal(patch, patch0) == (hands == 0.0)


def test_a_corner_patch_s_hand_reaches_for_its_own_corner() -> None:
    image = _plain()
    for k in range(4):
        near = 0
        for seed in range(40):
            out = paste_hand(image, BOARD, 19, np.random.default_rng(seed), near=k)
            near += bool(
                (np.abs(out.astype(int) - 120).max(axis=2) > 40)[
                    int(BOARD[k, 1]) - 30 : int(BOARD[k, 1]) + 30,
                    int(BOARD[k, 0]) - 30 : int(BOARD[k, 0]) + 30,
                ].any()
            )
        assert near >= 30, (k, near)


def test_the_drawn_hand_s_map_is_where_its_skin_is_and_its_image_is_paste_hand_s() -> None:
    """``drawn_hand`` is the truth of the proposer's hand map: the same image as
    :func:`paste_hand` from the same draws, and its map on the changed pixels (not on the
    shadow beside them, which is not a hand)."""
    image = _plain()
    for seed in range(10):
        out, hand = drawn_hand(image, BOARD, 19, np.random.default_rng(seed))
        assert np.array_equal(out, paste_hand(image, BOARD, 19, np.random.default_rng(seed)))
        assert hand.shape == image.shape[:2] and hand.dtype == np.float32
        assert hand.min() >= 0.0 and hand.max() <= 1.0 and hand.max() == 1.0
        changed = np.abs(out.astype(int) - image).max(axis=2) > 0
        assert changed[hand > 0.99].all(), seed  # the hand is drawn everywhere on its map
        # off the map only the shadow: darker, never another colour or lighter
        assert (out[hand == 0] <= image[hand == 0] + 1).all(), seed


def test_a_view_s_hand_map_moves_with_the_frame_as_its_corners_do() -> None:
    """The hand map goes through the same turn, shift, mirror and letterbox as the frame: a
    map marking only the board's four corners lies on the corner peaks, in every view."""
    hand = np.zeros((288, 384), np.float32)
    for x, y in BOARD:
        cv2.circle(hand, (int(x), int(y)), 8, (1.0,), -1)
    frame = board_data.Frame(_plain(), BOARD, 19, "corners marked", hand)
    rng, seen = np.random.default_rng(11), 0
    for _ in range(12):
        _x, heat, _mask, view_hand = board_data.sample(frame, rng)
        assert view_hand is not None and view_hand.shape == heat.shape
        assert 0 < (view_hand > 0.2).mean() < 0.05  # small marks (mirrored at a border too)
        peaks = (heat > 0.9) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        for py, px in zip(*np.nonzero(peaks), strict=True):
            assert view_hand[max(0, py - 1) : py + 2, max(0, px - 1) : px + 2].max() > 0.3
            seen += 1
    assert seen >= 30  # most corners stay in the view


def test_a_frame_whose_hand_is_not_known_teaches_no_hand_map() -> None:
    frame = board_data.Frame(_plain(), BOARD, 19, "photo")  # a photo: hand None
    assert board_data.sample(frame, np.random.default_rng(2), 1.0)[3] is None
    known = board_data.Frame(_plain(), BOARD, 19, "scene", np.zeros((288, 384), np.float32))
    view_hand = board_data.sample(known, np.random.default_rng(2), 1.0)[3]
    assert view_hand is not None and view_hand.max() > 0.5  # the pasted hand is on the map
