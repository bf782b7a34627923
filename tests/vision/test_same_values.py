"""The finder's fast helpers give the values of the plain numpy they replaced, bit for bit.

Session 10 made the 12-megapixel find faster without changing what it finds; each check here
holds one of those rewrites to the expression it replaced (a different summation order moves
a score by an ulp, and a grid chosen on a tie can then change).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from companion.vision import board_edge, find_board, lattice


def _plain_axis_score(prof: NDArray[np.float64], n: int) -> float:
    """One profile's line score as it was written before, alone."""
    side = len(prof)
    margin = side / (n - 1) * 0.5
    pos = margin + np.arange(n) * (side - 2 * margin) / (n - 1)
    mid = pos[:-1] + (pos[1] - pos[0]) / 2
    on = find_board._window(prof, pos).max(axis=1)
    off = np.nanmean(find_board._window(prof, mid, np.nan), axis=1)
    on_level = np.median(on)
    present = np.mean(on > 2 * off.mean())
    return float((on_level - np.median(off)) / (on_level + 1e-6) * present)


def _plain_profile_score(top: NDArray[np.float32], n: int) -> float:
    """The line score as it was written before: four profiles one by one, numpy's median."""

    def axis_score(across: NDArray[np.float32], down: NDArray[np.float32]) -> float:
        return min(_plain_axis_score(np.asarray(raw, np.float64), n) for raw in (across, down))

    return max(
        axis_score(top.mean(axis=0), top.mean(axis=1)),
        axis_score(np.median(top, axis=0), np.median(top, axis=1)),
    )


def test_profile_score_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(0)
    for trial in range(200):
        n = int(rng.choice([19, 13, 9, 7]))
        side = 16 * (n - 1) + 16 + trial % 2  # even (the finder's) and odd sides
        top = (rng.random((side, side)) ** 3 * rng.integers(2, 120)).astype(np.uint8)
        want = _plain_profile_score(top.astype(np.float32), n)
        assert find_board._profile_score(top, n) == want
        assert find_board._profile_score(top.astype(np.float32), n) == want


def test_distance_map_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(1)
    lab = (rng.random((60, 80, 3)) * [255, 120, 120] + [0, 68, 68]).astype(np.float32)
    for _ in range(20):
        colour = lab[rng.integers(0, 60), rng.integers(0, 80)] + rng.normal(0, 5, 3).astype(
            np.float32
        )
        d = lab - colour[None, None, :]
        d[..., 0] *= 0.5
        want = np.sqrt((d * d).sum(axis=2))
        assert np.array_equal(lattice.distance_map(lab, colour), want)


def test_nearest_colour_group_same_as_plain_numpy() -> None:
    rng = np.random.default_rng(2)
    feats = (rng.random((5000, 3)) * [90, 120, 120]).astype(np.float32)
    for _ in range(20):
        centres = feats[rng.integers(0, len(feats), 6)] + rng.normal(0, 2, (6, 3)).astype(
            np.float32
        )
        want = ((feats[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        assert np.array_equal(board_edge._nearest(feats, centres), want)


def test_axis_scores_same_as_one_profile_at_a_time() -> None:
    """Each row scored as the 1-D profile alone (a 2-D mean sums rows in another order)."""
    rng = np.random.default_rng(4)
    for trial in range(1500):
        n = int(rng.choice([19, 13, 9]))
        side = 16 * (n - 1) + 16 + trial % 2
        profs = (rng.random((4, side)) * rng.integers(1, 50)).astype(np.float32).astype(np.float64)
        if trial % 3:  # whole values (a uint8 view's medians): ties at the bar are common
            profs = np.round(profs)
        got = find_board._axis_scores(profs, n)
        for i in range(4):
            assert got[i] == _plain_axis_score(profs[i], n)
