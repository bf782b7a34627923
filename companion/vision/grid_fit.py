"""Learned moves of a grid onto its board, from the whole board seen through it: the fit, a
found grid's last move, and the reach, a far-off proposal's first.

Why: most grids the finder gives off are near misses, three corners right and one a quarter
of a spacing to a spacing off (a hand or blur over it), or the whole grid fitted to the
stones' tops, which stand off their points in an oblique photo (BOARD_CARD, "Session 26").
The corner network sees one corner's patch at a time and is as sure of those as of right
ones; the finder's crossings are hidden where the error is. The board plane rectified
through the grid (the grid check's own view, :func:`grid_check.rectified`) shows every line
and stone at once: a network trained on the truth moved off at random says where the true
corners are in the grid's own units, and one round moves the grid there.

The reach (:func:`reached`) is the same network on a wider view, trained on grids several
spacings off, for the proposals the finder could not otherwise judge (below).

Both run through ``cv2.dnn``; without a weights file (:data:`WEIGHTS`,
:data:`REACH_WEIGHTS`) that step is skipped and the finder works as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision import grid_check
from companion.vision.geometry import Corners, encloses_area, homography, project, spacing
from companion.vision.onnx_nets import OnnxNets, cached

Image = NDArray[np.uint8]
WEIGHTS = Path(__file__).resolve().parent / "models" / "board_fit.onnx"
LEAST = 0.1  # spacings: a smaller move is within the fit's error (and a clean grid's sharper)
FARTHEST = 1.0  # spacings: a grid whose corner the fit would move further is not a near miss
_ENDS = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)  # TL TR BR BL, times n - 1
_MIRROR = [1, 0, 3, 2]  # the corners' order in a view mirrored left to right


class GridFit(OnnxNets):
    """The fit's network, loaded once from an ONNX file: eight numbers per view (where the
    true corners are in the grid's units, minus its corners; TL TR BR BL, x then y)."""

    WHAT = "grid fit"

    def run(self, blobs: NDArray[np.float32]) -> NDArray[np.float64]:
        """The corner moves (batch, 4, 2), spacings, for a (batch, 4, VIEW, VIEW) blob."""
        (raw,) = self.forward(blobs)
        out = raw.astype(np.float64)
        if out.size != 8 * len(blobs) or not np.isfinite(out).all():
            raise VisionError(f"the grid fit gave {out.shape} for {len(blobs)} views")
        return out.reshape(len(blobs), 4, 2)


def load(path: Path | None = None) -> GridFit | None:
    """The fit in ``path`` (default :data:`WEIGHTS`, looked up at each call), or None when
    there is no such file."""
    path = WEIGHTS if path is None else path
    if not path.is_file():
        return None
    return cached(GridFit, path)


def moves(
    levels: Sequence[Image],
    grids: Sequence[tuple[Corners, int]],
    *,
    path: Path | None = None,
    mirrored: bool = True,
) -> NDArray[np.float64] | None:
    """Where the true corners are for each (corners, size) grid, in the grid's own units
    minus its corners: (len(grids), 4, 2) spacings; None without weights. ``levels``: the
    image the corners are in, and its halvings. ``mirrored``: the mean of the network's
    answer for the view and for the view mirrored left to right (:data:`_MIRROR`), which is
    the same board seen through the same grid with its corners named the other way round.
    Why: one answer is a few tenths of a spacing off on a 19 x 19 (its spacing is five view
    pixels); the mirrored view's error is its own, and the mean of the two put more near
    misses right on the validation renders and on two spent held-out ranges alike, where a
    second round helped one and hurt the other (BOARD_CARD, "Session 29")."""
    net = load(path)
    if net is None:
        return None
    if not grids:
        return np.zeros((0, 4, 2))
    views = np.stack([grid_check.blob(grid_check.rectified(levels, q, n), n) for q, n in grids])
    if not mirrored:
        return net.run(views)
    both = net.run(np.concatenate([views, np.ascontiguousarray(views[..., ::-1])]))
    plain, seen = both[: len(grids)], both[len(grids) :]
    # the mirrored grid's corner j is the grid's corner _MIRROR[j], its x running the other way
    back = np.empty_like(seen)
    back[:, _MIRROR] = seen * np.array([-1.0, 1.0])
    out: NDArray[np.float64] = (plain + back) / 2
    return out


def fitted(
    levels: Sequence[Image], quad: Corners, n: int, *, rounds: int = 2, path: Path | None = None
) -> list[Corners]:
    """``quad`` and the grid after each round of the fit (each round moves every corner where
    the network puts it, seen through the grid the round before): the first entry is ``quad``
    itself; only it without weights."""
    steps = [np.asarray(quad, np.float64)]
    ends = _ENDS * (n - 1)
    for _ in range(rounds):
        d = moves(levels, [(steps[-1], n)], path=path)
        if d is None:
            break
        steps.append(project(homography(steps[-1], n), ends + d[0]))
    return steps


def settle(levels: Sequence[Image], quad: Corners, n: int, *, path: Path | None = None) -> Corners:
    """``quad`` moved where one round of the fit puts it, or ``quad`` itself: a move under
    :data:`LEAST` spacing is within the fit's own error and one over :data:`FARTHEST` is a wrong
    grid, not a near miss. Why one round and no grid-check gate: on the validation renders
    (tuned on) a second round lost grids the first had right, and "the check no less sure"
    refused two right moves and saved none (BOARD_CARD, "Session 26"); the round is the mean
    of the grid's and its mirror's answers (:func:`moves`)."""
    steps = fitted(levels, quad, n, rounds=1, path=path)
    if len(steps) < 2 or not np.isfinite(steps[-1]).all():
        return np.asarray(quad, np.float64)
    moved = float(np.linalg.norm(steps[-1] - steps[0], axis=1).max()) / spacing(steps[0], n)
    return steps[-1] if LEAST <= moved <= FARTHEST else np.asarray(quad, np.float64)


# The grid reach: the fit's coarse sibling, for a grid several spacings off (session 28).
# Why: on the validation renders ending in "no board" (most with a hand over the board) the
# proposer's grids start 1.5-8 spacings off, beyond the corner network's patches and the
# fit's margin; a view a third of the board wider, trained on grids that far off, sees the
# whole board and says where it is, a few rounds bringing the grid within the corner
# network's reach (BOARD_CARD, "Session 28").
REACH_WEIGHTS = WEIGHTS.with_name("board_reach.onnx")
REACH_SIDE = 0.3  # board sides shown beyond the outer lines, beside the fit's own margin
REACH_ROUNDS = 3  # rounds of the reach, each seeing the board through the grid before


class GridReach(GridFit):
    """The reach's network: eight numbers per view, as the fit's, in board sides (spacings
    over ``n - 1``), so one network moves 9 x 9 and 19 x 19 grids alike."""

    WHAT = "grid reach"


def reach_margin(n: int) -> float:
    """Spacings of board plane the reach sees beyond a grid of ``n`` lines' outer lines."""
    return grid_check.MARGIN + REACH_SIDE * (n - 1)


def reached(
    levels: Sequence[Image],
    quad: Corners,
    n: int,
    *,
    rounds: int | None = None,
    path: Path | None = None,
) -> list[Corners]:
    """``quad`` and the grid after each round of the reach (:data:`REACH_ROUNDS` unless
    ``rounds``); only ``quad`` without weights."""
    rounds = REACH_ROUNDS if rounds is None else rounds
    path = REACH_WEIGHTS if path is None else path
    if not (path.is_file() and encloses_area(np.asarray(quad, np.float64))):
        return [np.asarray(quad, np.float64)]
    net = cached(GridReach, path)
    margin = reach_margin(n)
    ends = _ENDS * (n - 1)
    steps = [np.asarray(quad, np.float64)]
    for _ in range(rounds):
        view = grid_check.rectified(levels, steps[-1], n, margin)
        d = net.run(grid_check.blob(view, n, margin)[None])[0] * (n - 1)
        moved = project(homography(steps[-1], n), ends + d)
        if not (np.isfinite(moved).all() and encloses_area(moved)):
            break  # a grid folded over itself is no board: the rounds before stand
        steps.append(moved)
    return steps
