"""A learned second opinion on a grid: does this quadrilateral, at this size, lie on the
board's own lines (every line on a line, the outer ones the board's last)?

Why: the finder's own evidence (points standing out, lines on the grid, crossings found) is a
sum of shares over the grid's points, so a hand over a third of the board, blur or a faint
paper board pull a right grid under its bars, while a grid a line off or half a spacing off
can score as well as the right one (BOARD_CARD: the bars sit between wrong and right grids
by a few hundredths). The check looks at the board plane rectified through the grid, with a
margin of :data:`MARGIN` spacings beyond the outer lines, beside a drawing of where the grid
puts its lines: a network trained on right grids and on grids a line, half a line or a few
corners off (with hands drawn over them) says how likely the grid is right.

The view is :data:`VIEW` pixels square: three colour channels and a fourth, the grid's own
lines drawn where the grid puts them (so one network serves every size, and a grid of the
wrong size is a grid whose drawn lines miss the board's). It runs through ``cv2.dnn``;
without its weights file the check says nothing (None) and the finder works as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision.geometry import Corners, homography, pyramid_view
from companion.vision.onnx_nets import OnnxNets, cached

Image = NDArray[np.uint8]
WEIGHTS = Path(__file__).resolve().parent / "models" / "board_check.onnx"
# A second check, trained alike from another seed (``train-board --stage check ... --seed 1``);
# the check is the mean of the two logits. Why: on the validation renders each seed refuses
# right grids the other accepts (a plain 13 x 13 at 0.000 by one, 0.998 by the other), and the
# mean refused fewer right grids and passed fewer wrong ones at the finder's bar than either
# (BOARD_CARD, "Session 18"). Without this file the check is the first network alone.
SECOND = WEIGHTS.with_name("board_check_seed1.onnx")
VIEW = 112  # the view's side, pixels
MARGIN = 1.5  # spacings of board plane shown beyond the outer lines
LINE = 1.0  # width of the drawn lines in the fourth channel, view pixels


def view_to_image(quad: Corners, n: int, margin: float = MARGIN) -> NDArray[np.float64]:
    """The homography from view pixels to image pixels: grid units -margin .. n-1+margin
    across the view, as ``quad`` (TL TR BR BL corner intersections) puts the grid."""
    s = (n - 1 + 2 * margin) / VIEW  # grid units per view pixel
    a = np.array([[s, 0, -margin + 0.5 * s], [0, s, -margin + 0.5 * s], [0, 0, 1]], np.float64)
    out: NDArray[np.float64] = homography(np.asarray(quad, np.float64), n) @ a
    return out


@lru_cache(maxsize=32)
def template(n: int, margin: float = MARGIN) -> NDArray[np.float32]:
    """The fourth channel: the grid's n lines each way drawn in the view (0..1)."""
    s = (n - 1 + 2 * margin) / VIEW
    img = np.zeros((VIEW, VIEW), np.float32)
    at = (np.arange(n) + margin) / s - 0.5  # view pixel of line i
    lo, hi = at[0], at[-1]
    q = 16  # sub-pixel bits: 2**4
    for v in at:
        p = int(np.rint(v * q))
        cv2.line(img, (p, int(lo * q)), (p, int(hi * q)), (1.0,), 1, cv2.LINE_AA, shift=4)
        cv2.line(img, (int(lo * q), p), (int(hi * q), p), (1.0,), 1, cv2.LINE_AA, shift=4)
    img.setflags(write=False)
    return img


def rectified(levels: Sequence[Image], quad: Corners, n: int, margin: float = MARGIN) -> Image:
    """The board plane round the grid, :data:`VIEW` pixels square, drawn at twice the size
    from the pyramid level (``levels``: the image and its halvings) where a spacing is nearest
    two view spacings, then halved by area: lines neither aliased away nor blown up.
    ``margin``: spacings shown beyond the outer lines (the grid reach's view is wider)."""
    per = VIEW / (n - 1 + 2 * margin)  # view pixels per spacing
    return pyramid_view(
        levels, view_to_image(quad, n, margin), VIEW, per, 2 * per, border=cv2.BORDER_CONSTANT
    )


def blob(view: Image, n: int, margin: float = MARGIN) -> NDArray[np.float32]:
    """The network's input for one view: (4, VIEW, VIEW), colours 0..1 and the drawn grid."""
    colour = view.astype(np.float32).transpose(2, 0, 1) / 255.0
    return np.concatenate([colour, template(n, margin)[None]], axis=0)


class GridCheck(OnnxNets):
    """The check's networks, each loaded once from an ONNX file (one logit per view); with
    more than one, their logits are averaged."""

    WHAT = "grid check"

    def logits(self, blobs: NDArray[np.float32]) -> NDArray[np.float32]:
        """The networks' mean logit per view, for a (batch, 4, VIEW, VIEW) blob."""
        logits = []
        for raw in self.forward(blobs):
            out = raw.reshape(-1)
            if len(out) != len(blobs):
                raise VisionError(f"the grid check gave {len(out)} answers for {len(blobs)} views")
            logits.append(np.clip(out, -30.0, 30.0))
        return np.asarray(np.mean(logits, axis=0), np.float32)

    def run(self, blobs: NDArray[np.float32]) -> NDArray[np.float32]:
        """How likely each grid is right (0..1), for a (batch, 4, VIEW, VIEW) blob."""
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(blobs))), np.float32)


def load(path: Path | None = None) -> GridCheck | None:
    """The check in ``path`` alone, or by default the shipped one (:data:`WEIGHTS`, with
    :data:`SECOND` when that file is there; both looked up at each call); None when the file
    is missing."""
    paths = [WEIGHTS if path is None else path]
    if not paths[0].is_file():
        return None
    if path is None and SECOND.is_file():
        paths.append(SECOND)
    return cached(GridCheck, *paths)


def check(
    levels: Sequence[Image], grids: Sequence[tuple[Corners, int]], *, path: Path | None = None
) -> list[float] | None:
    """How likely each (corners, size) grid is right, in one batch; None without weights.
    ``levels``: the image (whose pixels the corners are in) and its halvings."""
    net = load(path)
    if net is None:
        return None
    if not grids:
        return []
    views = np.stack([blob(rectified(levels, q, n), n) for q, n in grids])
    return [float(v) for v in net.run(views)]
