"""Propose a Go board's corner intersections with a small learned network (ONNX, cv2.dnn).

The network sees the photo shrunk and letterboxed to :data:`INPUT_W` x :data:`INPUT_H` and
gives two maps at a quarter of that: a peak at each of the four outermost intersections (one
map for all four, so a board turned 45 degrees is no harder than a square one: which corner
is which follows from their order on screen) and the grid's quadrilateral filled in. Why maps
and not four regressed points: a map has no trouble saying "no board" (no peaks), it keeps
the answer where the evidence is (a translation moves the peaks with it) and it trains from a
few thousand renders. The four peaks that together best explain the mask are the proposal.

A proposal is only a candidate: :mod:`companion.vision.find_board` snaps it to the crossings
and keeps it only when the image's own cues (lines, lattice, the board's colour) agree, so the
net cannot make up a board. Without a weights file :func:`propose` gives nothing, and the
finder works as it did. Weights: ``models/board.onnx``, card in ``models/BOARD_CARD.md``.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision import grid_check
from companion.vision.board_edge import board_quads, lies_round, margins, seeded_quads, unevenness
from companion.vision.geometry import (
    Corners,
    encloses_area,
    homography,
    project,
    pyramid_view,
    spacing,
)
from companion.vision.lattice import distance_map, margin_colour, squareness
from companion.vision.onnx_nets import OnnxNets, cached

Image = NDArray[np.uint8]
_P = TypeVar("_P", np.uint8, np.float32)  # a photo, or a map of its pixels
INPUT_W, INPUT_H = 256, 192  # the network's input (4:3; other frames are letterboxed)
STRIDE = 4  # input pixels per output cell
WEIGHTS = Path(__file__).resolve().parent / "models" / "board.onnx"
PEAK = 0.25  # a corner peak below this is no corner
MASK_AGREE = 0.6  # the four corners' quadrilateral must match the mask this well (IoU)
MAX_PEAKS = 7  # peaks tried in fours
EDGE_SPACINGS = 0.5  # the board's colour is sampled this far beyond a proposal's outer lines
CORNER_WEIGHTS = WEIGHTS.with_name("board_corner.onnx")
PATCH = 72  # side of a corner patch, pixels
PATCH_HALF = 3.0  # a corner patch reaches this many spacings either side of the guess
PATCH_STRIDE = 4  # patch pixels per cell of the corner map
SAME_BOARD = 0.2  # spacings: a proposal this near a finder's candidate is that candidate
POLISH_ROUNDS = 3  # corner network rounds on the finder's chosen grid
POLISH_WEIGHT = 0.9  # least weight of a corner map's peak for :func:`polish` to move the grid
POLISH_SETTLED = 0.1  # spacings: most a corner may move in the last round
POLISH_REACH = 1.5  # spacings: most a corner may move in all
POLISH_LEAST = 0.15  # spacings: a smaller move is within the network's own error: no move
POLISH_SURE_CORNERS = 3  # least corners the network must be sure of for :func:`polish` to move any
# most :func:`lattice.squareness` of a polished grid (unless no worse than before): the finder's
# own bar for a grid a camera can see as a square (find_board.SQUARE_TOL; session 11, nine11)
POLISH_SQUARE = 0.05
# a polish that makes a board outline lie unevenly round the grid, by more than this many
# spacings beyond how unevenly it lay before (:func:`board_edge.unevenness`), is refused: the
# scatter of outlines round right grids (90 % under 0.48 on tuning scenes; session 12, off12)
POLISH_UNEVEN = 0.5
# an outline round the grid this evenly (spacings) is the one the finder centred it in
# (:func:`lattice.fit_in_edge`), no cue of its own on where the corners are
POLISH_CENTRED = 0.05
# ...and one lying round it more unevenly than this does not agree with it (outlines round
# right grids the polish was asked to move, tuning scenes: median 0.15, three quarters under 0.24)
POLISH_EVEN = 0.4
# least weight of every corner map for :func:`rescue` to offer a grid, and of a corner for
# :func:`hidden` to hold it (0.95 until session 17: the other bars keep the made-up boards out)
RESCUE_WEIGHT = 0.9
RESCUE_EVIDENCE = 0.6  # least evidence (0..3, the finder's) of a rescued grid
CUT_EVIDENCE = 0.75  # the same where only an outline cut round the grid agrees (as MIN_EVIDENCE)
#: How sure the learned grid check (:mod:`grid_check`) must be to keep a grid whose evidence
#: fell under the rescue's bar (every other bar passed)
CHECK_KEEP = 0.95
#: The least evidence for the check to be asked: it vouches for a grid partly hidden or
#: blurred, not for one of which nothing shows (it calls a plain board-coloured panel a board;
#: the weak right grids it kept on validation renders had evidence 0.39-0.66)
CHECK_LEAST = 0.3
MARGIN_LEAST, MARGIN_MOST = 0.2, 2.0  # spacings from the outer lines to the board's edge
CLOSER_MASK = 0.5  # mask level whose pieces say where :func:`closer` looks again
CLOSER_GROW = 1.3  # side of a closer look's crop over the longer side of the mask piece's box
CLOSER_MOST = 0.8  # a crop covering more of the frame than this is not a closer look
CLOSER_PIECES = 2  # mask pieces (largest first) looked at again
CLOSER_LEAST = 32  # pixels: a crop narrower than this is noise in the mask
#: Spacings in from a board outline where :func:`inside_outline` guesses the outer lines (the
#: corner network's patches reach three spacings, so a guess a margin off still settles)
OUTLINE_MARGINS = (0.4, 0.8, 1.2)
# A board with one corner hidden (:func:`hidden`; session 12, hide12; chosen on tuning scenes):
HIDDEN_SEEDS = 6  # quads of three peaks and a fourth corner completing them, best first, tried
HIDDEN_SETTLED = 0.2  # spacings: most a sure corner may move in the corner network's last round
HIDDEN_REACH = 6.0  # spacings: how far :func:`fourth_corner` looks, each way, for a hidden corner
HIDDEN_STEP = 0.5  # spacings: its coarse step (then a quarter of it, round the best)
HIDDEN_ROUNDS = 3  # searches for the hidden corner and corner-network checks, in turn
HIDDEN_EVIDENCE = 1.2  # least evidence (0..3, the finder's) of a grid with a corner hidden
HIDDEN_ARMS = (-0.3, -0.15, 0.15, 0.3)  # spacings: samples along both lines round each point
FINISH_REACH = 1.0  # spacings: how far :func:`place_hidden` looks for a lone unseen corner
# The hidden corner placed by the grid check (:func:`checked_hidden`; session 21):
CHECKED_REACH = 4.0  # spacings: how far :func:`checked_corner` looks, each way
CHECKED_STEP = 1.0  # spacings: its coarse step (then a quarter of it, round the best)
#: How sure the check must be of a grid whose fourth corner it placed: higher than
#: :data:`CHECK_KEEP`, the bar for one grid, since the best of a hundred placements is kept
#: (at 0.95 it made up a 9 x 9 board on a plain board-coloured patch, tuning scene 500047 with
#: its board inpainted away: 0.97-0.985; the validation boards it found: 0.9956 and up)
CHECKED_KEEP = 0.995
_INWARD = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], np.float64)  # TL TR BR BL


def letterbox(image: NDArray[_P]) -> tuple[NDArray[_P], NDArray[np.float64], NDArray[np.float64]]:
    """``image`` shrunk (aspect kept) into a black INPUT_W x INPUT_H frame, centred:
    (view, scale, offset), scale and offset per axis; a point p of the image is
    ``p * scale + offset`` in the view. A uint8 or float32 image, any channels (a view's hand
    map goes where its photo goes)."""
    h, w = image.shape[:2]
    k = min(INPUT_W / w, INPUT_H / h)
    nw, nh = max(1, round(w * k)), max(1, round(h * k))
    small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    view = np.zeros((INPUT_H, INPUT_W, *image.shape[2:]), image.dtype)
    x0, y0 = (INPUT_W - nw) // 2, (INPUT_H - nh) // 2
    view[y0 : y0 + nh, x0 : x0 + nw] = small
    # pixel centres: (p + 0.5) * (nw / w) - 0.5 + x0
    kx, ky = nw / w, nh / h
    off = np.array([0.5 * kx - 0.5 + x0, 0.5 * ky - 0.5 + y0], np.float64)
    return view, np.array([kx, ky], np.float64), off


class BoardNet(OnnxNets):
    """One of the proposer's networks (:func:`propose`'s maps, :func:`refine`'s corner
    maps), loaded once from an ONNX file; it gives logits."""

    WHAT = "board network"

    def run(self, blob: NDArray[np.float32], *channels: int) -> NDArray[np.float32]:
        """The logits for a (batch, 3, h, w) blob, checked to be (batch, c, h', w') with c
        one of ``channels``."""
        (out,) = self.forward(blob)
        if out.ndim != 4 or out.shape[0] != blob.shape[0] or out.shape[1] not in channels:
            raise VisionError(
                f"the board network gave maps of shape {out.shape}, "
                f"not ({blob.shape[0]}, {' or '.join(map(str, channels))}, h, w)"
            )
        return out

    def maps(
        self, view: Image
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32] | None]:
        """Corner, mask and (from a proposer trained with one) hand maps (0..1) for a
        letterboxed view; the hand map None without."""
        blob = np.asarray(cv2.dnn.blobFromImage(view, 1.0 / 255.0), np.float32)
        out = 1.0 / (1.0 + np.exp(-np.clip(self.run(blob, 2, 3), -30.0, 30.0)))
        return out[0, 0], out[0, 1], (out[0, 2] if out.shape[1] == 3 else None)


def load(path: Path | None = None) -> BoardNet | None:
    """The network in ``path`` (default :data:`WEIGHTS`, looked up at each call), or None when
    there is no such file: the finder goes on without it."""
    path = WEIGHTS if path is None else path
    if not path.is_file():
        return None
    return cached(BoardNet, path)


def _peaks(heat: NDArray[np.float32]) -> list[tuple[float, float, float]]:
    """Local maxima above :data:`PEAK` as (x, y, height) in output cells, refined to the
    weighted centre of their 3x3 neighbourhood, strongest first."""
    dil = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dil) & (heat >= PEAK))
    order = np.argsort(-heat[ys, xs])[: MAX_PEAKS * 2]
    h, w = heat.shape
    out: list[tuple[float, float, float]] = []
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        if any(abs(x - px) < 2 and abs(y - py) < 2 for px, py, _ in out):
            continue  # a plateau's twin
        y0, y1, x0, x1 = max(0, y - 1), min(h, y + 2), max(0, x - 1), min(w, x + 2)
        patch = heat[y0:y1, x0:x1].astype(np.float64)
        wsum = float(patch.sum())
        gy, gx = np.mgrid[y0:y1, x0:x1]
        out.append(
            (float((gx * patch).sum() / wsum), float((gy * patch).sum() / wsum), float(heat[y, x]))
        )
    return out[:MAX_PEAKS]


def _clockwise(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Four points as TL, TR, BR, BL on screen, as ``find_board.order_corners`` orders them
    (not imported from there: find_board imports this module)."""
    c = p.mean(axis=0)
    q = p[np.argsort(np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0]))]
    return np.roll(q, -int(np.argmin(q.sum(axis=1))), axis=0)


def _iou(quad: NDArray[np.float64], mask: NDArray[np.float32]) -> float:
    """How well ``quad`` (output cells) covers the mask (soft IoU)."""
    m8 = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(m8, np.round(quad * 8).astype(np.int32), (1,), cv2.LINE_AA, 3)
    inside = m8.astype(np.float32)
    inter = float((inside * mask).sum())
    union = float(inside.sum() + mask.sum()) - inter
    return inter / union if union > 0 else 0.0


def _completed(
    heat: NDArray[np.float32], mask: NDArray[np.float32], limit: int
) -> list[NDArray[np.float64]]:
    """Up to ``limit`` quads (input pixels, TL TR BR BL) of three peaks and the fourth corner
    that makes them a parallelogram, best first (how well the quad matches the mask times the
    three peaks' mean height). Only a seed: a hidden corner has no peak, so the four-peak
    decoding finds no board, while the three peaks that are there are right (the fourth
    corner of a board in perspective is a few spacings off the parallelogram's, which the
    corner network cannot pull in: :func:`fourth_corner` looks for it)."""
    peaks = _peaks(heat)
    found: list[tuple[float, NDArray[np.float64]]] = []
    for three in itertools.combinations(peaks, 3):
        p = np.array([(x, y) for x, y, _ in three], np.float64)
        for mid in range(3):
            ends = [p[i] for i in range(3) if i != mid]
            pts = _clockwise(np.vstack([p, ends[0] + ends[1] - p[mid]]))
            if not cv2.isContourConvex(np.round(pts * 8).astype(np.int32)):
                continue
            if cv2.contourArea(pts.astype(np.float32)) < 16:
                continue
            conf = _iou(pts, mask) * float(np.mean([v for _, _, v in three]))
            found.append((conf, (pts + 0.5) * STRIDE - 0.5))
    found.sort(key=lambda f: -f[0])
    return [quad for _conf, quad in found[:limit]]


def decode(
    heat: NDArray[np.float32], mask: NDArray[np.float32], *, limit: int = 2
) -> list[tuple[float, NDArray[np.float64]]]:
    """Up to ``limit`` (confidence, four corners in input pixels, TL TR BR BL) from the maps:
    each four peaks forming a convex quadrilateral, judged by their heights and by how well
    the quadrilateral matches the mask."""
    peaks = _peaks(heat)
    found: list[tuple[float, NDArray[np.float64]]] = []
    for four in itertools.combinations(peaks, 4):
        pts = _clockwise(np.array([(x, y) for x, y, _ in four], np.float64))
        if not cv2.isContourConvex(np.round(pts * 8).astype(np.int32)):
            continue
        if cv2.contourArea(pts.astype(np.float32)) < 16:
            continue
        iou = _iou(pts, mask)
        if iou < MASK_AGREE:
            continue
        conf = iou * float(np.mean([v for _, _, v in four]))
        found.append((conf, (pts + 0.5) * STRIDE - 0.5))
    found.sort(key=lambda f: -f[0])
    return found[:limit]


@dataclass(frozen=True)
class FrameMaps:
    """The proposer's maps of a whole image (corner peaks, board mask) and how the image's
    pixels map to theirs (``view = image * k + off``). Made once per find by
    :func:`frame_maps` and shared by :func:`propose`, :func:`closer` and :func:`completed`,
    which would otherwise each run the network on the same frame."""

    heat: NDArray[np.float32]
    mask: NDArray[np.float32]
    k: NDArray[np.float64]
    off: NDArray[np.float64]
    hand: NDArray[np.float32] | None = None  # where a hand is (a proposer trained with one)


def frame_maps(image: Image, *, path: Path | None = None) -> FrameMaps | None:
    """The proposer's maps of the whole of ``image``; None without weights."""
    net = load(path)
    if net is None:
        return None
    view, k, off = letterbox(image)
    heat, mask, hand = net.maps(view)
    return FrameMaps(heat, mask, k, off, hand)


def propose(
    image: Image, *, path: Path | None = None, limit: int = 2, maps: FrameMaps | None = None
) -> list[NDArray[np.float64]]:
    """Candidate corner intersections (TL, TR, BR, BL in ``image`` pixels), best first; empty
    when there are no weights or the network sees no board. ``maps``: ``image``'s
    :func:`frame_maps`, when the caller has them."""
    m = frame_maps(image, path=path) if maps is None else maps
    if m is None:
        return []
    return [(c - m.off) / m.k for _conf, c in decode(m.heat, m.mask, limit=limit)]


def completed(
    image: Image, *, path: Path | None = None, maps: FrameMaps | None = None
) -> list[NDArray[np.float64]]:
    """:func:`_completed`'s seeds for ``image`` (in its pixels): quads of three corner peaks
    and the parallelogram's fourth corner, for :func:`hidden`."""
    m = frame_maps(image, path=path) if maps is None else maps
    if m is None:
        return []
    return [(c - m.off) / m.k for c in _completed(m.heat, m.mask, HIDDEN_SEEDS)]


def closer(
    image: Image, *, path: Path | None = None, limit: int = 2, maps: FrameMaps | None = None
) -> list[NDArray[np.float64]]:
    """Proposals (as :func:`propose`'s, in ``image`` pixels) from a second look at crops round
    where the network's mask puts a board: each of the :data:`CLOSER_PIECES` largest pieces of
    the mask over :data:`CLOSER_MASK`, its box grown by :data:`CLOSER_GROW` to a square, cut
    out and proposed on alone. Why: the whole frame is shrunk to 256 x 192, where a 19 x 19
    grid on a board a sixth of the frame has a spacing of 3-4 input pixels and its corner
    peaks blur together; the mask, a coarser answer, still finds the board. A crop covering
    most of the frame (over :data:`CLOSER_MOST`) is skipped: it would see what the first look
    saw."""
    m = frame_maps(image, path=path) if maps is None else maps
    if m is None:
        return []
    k, off = m.k, m.off
    _count, _labels, stats, _centres = cv2.connectedComponentsWithStats(
        (m.mask >= CLOSER_MASK).astype(np.uint8)
    )
    h, w = image.shape[:2]
    out: list[NDArray[np.float64]] = []
    for i in (np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:CLOSER_PIECES] + 1).tolist():
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        # mask cells -> view pixels (cell edges) -> image pixels
        lo = (np.array([x, y], np.float64) * STRIDE - 0.5 - off) / k
        hi = (np.array([x + bw, y + bh], np.float64) * STRIDE - 0.5 - off) / k
        centre, half = (lo + hi) / 2, float((hi - lo).max()) / 2 * CLOSER_GROW
        x0, y0 = (max(0, int(v)) for v in centre - half)
        x1, y1 = min(w, int(np.ceil(centre[0] + half))), min(h, int(np.ceil(centre[1] + half)))
        if min(x1 - x0, y1 - y0) < CLOSER_LEAST or (x1 - x0) * (y1 - y0) > CLOSER_MOST * w * h:
            continue
        crop = np.ascontiguousarray(image[y0:y1, x0:x1])
        shift = np.array([x0, y0], np.float64)
        out.extend(quad + shift for quad in propose(crop, path=path, limit=limit))
    return out


def inside_outline(edge: Corners, n: int) -> list[Corners]:
    """Grids of ``n`` lines guessed inside the board outline ``edge`` (TL TR BR BL), one per
    margin of :data:`OUTLINE_MARGINS`: proposals where the network gave none."""
    to_image = homography(np.asarray(edge, np.float64), 2)  # the outline as the unit square
    shares = [m / (n - 1 + 2 * m) for m in OUTLINE_MARGINS]  # each margin, of the outline's side
    return [project(to_image, _UNIT * (1 - 2 * f) + f) for f in shares]


def from_outlines(
    small: Image,
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    edges: Sequence[Corners],
) -> tuple[float, Corners, int] | None:
    """A board from the board outlines ``edges`` (found from its colour) where the proposer's
    peaks led nowhere: grids guessed inside each (:func:`inside_outline`) as proposals, on
    :func:`rescue`'s bars unchanged; the best evidence among sizes. Why: under heavy blur, a
    washed-out board or a low camera the proposer's whole-frame view puts no four peaks on the
    board, or a skewed four, while its outline still stands out from the table; the corner
    network, started a margin inside it, settles on the grid's corners (on validation scenes,
    6 of the 103 finds that found nothing else; one grid given there was 0.39 spacing off)."""
    best: tuple[float, Corners, int] | None = None
    for n in sizes:
        guesses = [quad for edge in edges for quad in inside_outline(edge, n)]
        found = rescue(small, lab, (n,), judge, edges, guesses)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return best


def pyramid(image: Image, levels: int = 4) -> list[Image]:
    """``image`` and its halvings (:func:`corner_patch` samples the level nearest its scale)."""
    out = [image]
    while len(out) <= levels and min(out[-1].shape[:2]) >= 64:
        out.append(np.asarray(cv2.pyrDown(out[-1]), np.uint8))
    return out


def patch_to_image(quad: Corners, n: int, k: int) -> NDArray[np.float64]:
    """The homography from corner ``k``'s patch (pixels) to the image: the patch shows the
    board plane around the grid's corner ``k`` as ``quad`` puts it, :data:`PATCH_HALF`
    spacings either way, turned and mirrored so the board's inside is always down-right."""
    pps = PATCH / (2 * PATCH_HALF)  # patch pixels per spacing
    g = np.array([(0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1)], np.float64)[k]
    s = _INWARD[k]
    a = np.array(
        [
            [s[0] / pps, 0, g[0] + s[0] * (0.5 / pps - PATCH_HALF)],
            [0, s[1] / pps, g[1] + s[1] * (0.5 / pps - PATCH_HALF)],
            [0, 0, 1],
        ]
    )
    out: NDArray[np.float64] = homography(np.asarray(quad, np.float64), n) @ a
    return out


def corner_patch(levels: Sequence[Image], m: NDArray[np.float64]) -> Image:
    """The :data:`PATCH`-pixel patch that ``m`` (patch -> image, :func:`patch_to_image`)
    maps into the image: drawn at twice the size from the pyramid level where a spacing is
    between one and two patch spacings, then halved by area (so thin lines are neither
    aliased away nor blown up, whatever the photo's size)."""
    pps = PATCH / (2 * PATCH_HALF)
    return pyramid_view(levels, m, PATCH, pps, pps)


def corner_spot(logits: NDArray[np.float32]) -> tuple[float, float, float]:
    """(x, y, weight) from one corner map of logits: the softmax's mean over the 5 x 5 cells
    around its peak, in patch pixels, and the share of the softmax there."""
    z = logits.astype(np.float64)
    p = np.exp(z - z.max())
    p /= p.sum()
    h, w = p.shape
    y, x = np.unravel_index(int(np.argmax(p)), p.shape)
    y0, y1, x0, x1 = max(0, y - 2), min(h, y + 3), max(0, x - 2), min(w, x + 3)
    win = p[y0:y1, x0:x1]
    mass = float(win.sum())
    gy, gx = np.mgrid[y0:y1, x0:x1]
    cx, cy = float((gx * win).sum() / mass), float((gy * win).sum() / mass)
    return (cx + 0.5) * PATCH_STRIDE - 0.5, (cy + 0.5) * PATCH_STRIDE - 0.5, mass


def refine(
    levels: Sequence[Image], quads: Sequence[tuple[Corners, int]], *, rounds: int = 2
) -> list[Corners]:
    """Each (corners, size) with every corner moved where the corner network finds the grid's
    corner in a patch around it, ``rounds`` times (the second patch, rectified by the first
    answer, is sharper); unchanged without the corner network's weights."""
    return [steps[-1] for steps, _w in refine_rounds(levels, quads, rounds=rounds)]


def refine_rounds(
    levels: Sequence[Image], quads: Sequence[tuple[Corners, int]], *, rounds: int = 2
) -> list[tuple[list[Corners], NDArray[np.float64]]]:
    """:func:`refine` with its working shown: per quad, the corners as given and after each
    round (no more once they enclose no area), and the last round's weight per corner (the
    share of the corner map's softmax round its peak: near 1 when the network is sure)."""
    net = load(CORNER_WEIGHTS)
    steps = [[np.array(q, np.float64)] for q, _n in quads]  # copies: the guesses stay
    weights = [np.zeros(4, np.float64) for _ in quads]
    if net is None or not quads:
        return list(zip(steps, weights, strict=True))
    # a quad whose corners collapsed (no area) is refined no further: its steps stop short,
    # which every caller reads as "no answer", instead of the whole search stopping on it
    alive = [encloses_area(s[-1]) for s in steps]
    for _ in range(rounds):
        out = [s[-1].copy() for s in steps]
        ms, patches = [], []
        for q, (_q0, n), ok in zip(out, quads, alive, strict=True):
            for k in range(4):
                m = patch_to_image(q, n, k) if ok else None
                ms.append(m)
                sane = m is not None and bool(np.isfinite(m).all())
                patches.append(corner_patch(levels, m) if sane and m is not None else None)
        live = [p for p in patches if p is not None]
        if not live:
            break
        logits = net.run(np.asarray(cv2.dnn.blobFromImages(live, 1.0 / 255.0), np.float32), 1)
        it = iter(range(len(live)))
        for i, (m, p) in enumerate(zip(ms, patches, strict=True)):
            if m is None or p is None:
                continue
            x, y, w = corner_spot(logits[next(it), 0])
            out[i // 4][i % 4] = project(m, np.array([x, y], np.float64))
            weights[i // 4][i % 4] = w
        for i, (s, q) in enumerate(zip(steps, out, strict=True)):
            alive[i] = alive[i] and encloses_area(q)
            if alive[i]:
                s.append(q)
    return list(zip(steps, weights, strict=True))


Judge = Callable[[NDArray[np.float32], Corners, int], float]


def _same_board(a: Corners, b: Corners, n: int) -> bool:
    """Whether two grids of ``n`` lines put every corner within :data:`SAME_BOARD` spacings of
    the other's (in any of the four turns: both run clockwise)."""
    qa, qb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    step = spacing(qa, n)
    worst = min(float(np.linalg.norm(np.roll(qb, k, axis=0) - qa, axis=1).max()) for k in range(4))
    return worst < SAME_BOARD * step


Candidate = tuple[float, Corners, int, NDArray[np.float32]]


def candidates(
    small: Image,
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    known: Sequence[Candidate] = (),
) -> list[Candidate]:
    """The network's proposals in the finder's working copy ``small`` as the finder's board-edge
    candidates: (``judge``'s evidence, corners, size, distance from the board's colour) for
    each proposal and size, its corners first moved by :func:`refine`. A grid that one of the
    finder's own ``known`` candidates already gives (same size, corners within
    :data:`SAME_BOARD` spacings: both snap to the same crossings) is left out: the net adds boards, it
    does not reshuffle the ones the finder has. The board's colour comes from a band just
    beyond the proposed outer lines (the board's margin), as the finder takes it from inside
    a board's edge."""
    out: list[Candidate] = []
    pairs = [(quad, n) for quad in propose(small) for n in sizes]
    if not pairs:
        return out
    for (_quad, n), quad in zip(pairs, refine(pyramid(small), pairs), strict=True):
        if not encloses_area(quad):
            continue  # a proposal with no area (the network's peaks in a line)
        if any(k[2] == n and _same_board(quad, k[1], n) for k in known):
            continue
        dist = margin_distance(lab, quad, n)
        out.append((judge(dist, quad, n), quad, n, dist))
    return out


def margin_distance(lab: NDArray[np.float32], quad: Corners, n: int) -> NDArray[np.float32]:
    """Each pixel's distance from the board's colour, taken from a band just beyond the grid's
    outer lines (the board's margin), as the finder takes it from inside a board's edge."""
    m = -EDGE_SPACINGS
    e = n - 1 + EDGE_SPACINGS
    edge = project(homography(quad, n), np.array([[m, m], [e, m], [e, e], [m, e]], np.float64))
    return distance_map(lab, margin_colour(lab, edge))


def polish(small: Image, quad: Corners, n: int, edges: Sequence[Corners] = ()) -> Corners:
    """The finder's chosen grid (``quad`` in the working copy ``small``) with its corners placed
    by the corner network where it is sure of them, or ``quad`` itself. A corner is sure when
    its map peaked (weight at least :data:`POLISH_WEIGHT`) and the last round moved it no more
    than :data:`POLISH_SETTLED` spacings (an answer that still wanders is no answer). The sure
    corners move, the others stay, when at least :data:`POLISH_SURE_CORNERS` are sure; nothing
    moves when any corner moved more than :data:`POLISH_REACH` spacings in all (a grid that far
    off is a wrong grid, not one to nudge). A grid the network would move less than
    :data:`POLISH_LEAST` spacing stays as the finder placed it (its full-resolution corner step
    is sharper than the network's 800-pixel patches on a clean photo). Why: most grids the
    classic finder gets wrong are a fraction of a spacing off, which is what the corner network
    corrects; the finder's own cues cannot judge the move, since it already chose the grid that
    suits them best. Why corner by corner: under blur one corner's map is often unsure (a hand,
    a stone or the depth of field over it) while the other three are right, and refusing all
    four for it left grids a third of a spacing off. A move that leaves the grid a shape no
    camera sees a square as (:data:`POLISH_SQUARE`) is refused: on 9 x 9 tuning scenes the
    network moved a lone corner under a hand 0.8 spacing along a line, sure of it. So is one
    that pulls the grid off its board (:func:`_off_its_board`, against the board outlines
    ``edges`` the finder found in ``small``): on 19 x 19 tuning scenes it dragged a corner under
    a hand 0.6-1.3 spacings, sure of it, while the grid sat evenly in the board's outline."""
    if n < 2 or not np.isfinite(quad).all():
        return quad
    ((steps, weights),) = refine_rounds(pyramid(small), [(quad, n)], rounds=POLISH_ROUNDS)
    if len(steps) < POLISH_ROUNDS + 1:
        return quad  # no weights, or the grid collapsed
    sp = spacing(quad, n)
    last = np.linalg.norm(steps[-1] - steps[-2], axis=1) / sp
    reach = np.linalg.norm(steps[-1] - steps[0], axis=1) / sp
    sure = (weights >= POLISH_WEIGHT) & (last <= POLISH_SETTLED)
    if int(sure.sum()) < POLISH_SURE_CORNERS or float(reach.max()) > POLISH_REACH:
        return quad
    if float(reach[sure].max()) < POLISH_LEAST:
        return quad
    out = np.array(quad, np.float64)
    out[sure] = steps[-1][sure]
    # one corner dragged along a line under a hand (the others still) makes a shape no camera
    # sees a square board as: the move is refused, as the finder refuses such a grid
    bent = squareness(out, small.shape)
    if bent > POLISH_SQUARE and bent > squareness(quad, small.shape):
        return quad
    if _off_its_board(quad, out, n, edges):
        return quad
    return out


def _off_its_board(quad: Corners, moved: Corners, n: int, edges: Sequence[Corners]) -> bool:
    """Whether moving the grid ``quad`` to ``moved`` pulls it off its board: an outline in
    ``edges`` (found from the board's colour, a cue apart from the crossings and the network)
    lay round ``quad`` as a board's edge round its centred grid (margins even to within
    :data:`POLISH_EVEN` spacings, :func:`board_edge.unevenness`), lies round ``moved`` more
    unevenly by over :data:`POLISH_UNEVEN` spacings, and no outline lies round ``moved`` within
    that either (a grid moved from a wrong place onto its board fits the board's own outline
    instead). An outline the grid was centred in (:data:`POLISH_CENTRED`) does not count: its
    evenness round ``quad`` is the finder's own doing."""
    try:
        before = [margins(quad, n, edge) for edge in edges]
        after = [margins(moved, n, edge) for edge in edges]
    except np.linalg.LinAlgError:  # a degenerate grid: nothing to go by
        return False
    now = min((unevenness(m) for m in after if lies_round(m)), default=float("inf"))
    for was, becomes in zip(before, after, strict=True):
        if not lies_round(was) or not POLISH_CENTRED <= unevenness(was) <= POLISH_EVEN:
            continue
        bar = unevenness(was) + POLISH_UNEVEN
        if unevenness(becomes) > bar and now > bar:
            return True
    return False


def _settled(steps: Sequence[Corners], n: int) -> bool:
    """Whether the corner network's last round moved no corner more than
    :data:`POLISH_SETTLED` spacings (an answer that still wanders is no answer)."""
    sp = spacing(steps[-1], n)
    moved = float(np.linalg.norm(steps[-1] - steps[-2], axis=1).max())
    return sp > 0 and moved <= POLISH_SETTLED * sp


def edge_agrees(quad: Corners, n: int, edge: Corners) -> bool:
    """Whether a board outline ``edge`` lies round the grid ``quad`` as a board's edge lies
    round its lines: every outline corner, seen in the grid's own coordinates, beyond the
    nearest grid corner by :data:`MARGIN_LEAST` to :data:`MARGIN_MOST` spacings both ways. A
    grid locked onto the board's wooden edge (its outer lines on the edge itself) or onto a
    patch of cloth inside or across an outline does not agree."""
    inv = np.linalg.inv(homography(np.asarray(quad, np.float64), n))
    g = project(inv, np.asarray(edge, np.float64))
    if not np.isfinite(g).all():
        return False
    ends = np.array([(0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1)], np.float64)
    for k in range(4):
        near = g[int(np.argmin(np.linalg.norm(g - ends[k], axis=1)))]
        margin = (ends[k] - near) * _INWARD[k]
        if not (margin >= MARGIN_LEAST).all() or not (margin <= MARGIN_MOST).all():
            return False
    return True


@dataclass(frozen=True)
class Verdict:
    """What :func:`rescue` made of one refined proposal and size: ``why`` is ``"kept"`` or
    the first bar it failed (``"unsure"``, ``"unsettled"``, ``"no outline"``, ``"weak"``),
    so a "no board" can be traced to its cause."""

    quad: Corners
    n: int
    why: str
    weight: float  # the least corner map weight
    evidence: float | None  # the judge's, asked only once the other bars are passed
    check: float | None = None  # the grid check's, asked only where the evidence fell short


def verdicts(
    small: Image,
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    edges: Sequence[Corners] | None = None,
    proposals: Sequence[Corners] | None = None,
) -> list[Verdict]:
    """Each proposal (``proposals``, or else :func:`propose`'s), refined for each size, judged
    by :func:`rescue`'s bars in turn (the cheap ones first: the outlines are looked for, and
    the judge asked, only for a grid the network is sure of and settled on)."""
    quads = propose(small) if proposals is None else proposals
    pairs = [(quad, n) for quad in quads for n in sizes if n >= 2]
    if not pairs:
        return []
    levels = pyramid(small)
    out: list[Verdict] = []
    for (_quad, n), (steps, weights) in zip(
        pairs, refine_rounds(levels, pairs, rounds=POLISH_ROUNDS), strict=True
    ):
        quad = steps[-1]
        if len(steps) < POLISH_ROUNDS + 1:
            continue  # no corner network, or the grid collapsed
        least = float(weights.min())
        if least < RESCUE_WEIGHT:
            out.append(Verdict(quad, n, "unsure", least, None))
            continue
        if not _settled(steps, n):
            out.append(Verdict(quad, n, "unsettled", least, None))
            continue
        if edges is None:  # only once the network is sure (most frames stop before)
            edges = [edge for _solidity, edge in board_quads(small, limit=4)]
        bar = RESCUE_EVIDENCE
        if not any(edge_agrees(quad, n, edge) for edge in edges):
            # no outline of the board's colour round it: one cut round the grid itself, which
            # was made to fit it and so says less (a sure grid a few lines off inside a board's
            # wide margin agrees with one): the finder's own bar for a grid in an outline
            if not any(edge_agrees(quad, n, edge) for edge in seeded_quads(small, quad, n)):
                out.append(Verdict(quad, n, "no outline", least, None))
                continue
            bar = CUT_EVIDENCE
        ev = judge(margin_distance(lab, quad, n), quad, n)
        if ev >= bar:
            out.append(Verdict(quad, n, "kept", least, ev))
            continue
        # the evidence is a share over the grid's points, so a hand over part of the grid,
        # blur or faint lines pull a right grid under the bar: the learned check, which sees
        # the board plane through the grid, may still vouch for it (never for a grid the
        # bars before refused: those say where the grid is not the board's)
        said = grid_check.check(levels, [(quad, n)]) if ev >= CHECK_LEAST else None
        mark = None if said is None else said[0]
        keep = mark is not None and mark >= CHECK_KEEP
        out.append(Verdict(quad, n, "kept" if keep else "weak", least, ev, mark))
    return out


def rescue(
    small: Image,
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    edges: Sequence[Corners] | None = None,
    proposals: Sequence[Corners] | None = None,
) -> tuple[float, Corners, int] | None:
    """A board where the classic finder found none (every cue too weak for its own bar: a
    blurred full board, a hand across it): (score, corners in ``small``, size) or None.

    The network's word is not enough (on validation scenes it was as sure of a grid locked
    onto a board's wooden edge, five spacings off, as of right ones), so three things that
    do not hang together by chance must agree (:func:`verdicts`): the corner network sure of
    all four corners (each map's weight at least :data:`RESCUE_WEIGHT`) and settled after
    :data:`POLISH_ROUNDS` rounds; a board outline found from its colour
    (:func:`companion.vision.board_edge.board_quads`), or else cut round the grid itself
    (:func:`companion.vision.board_edge.seeded_quads`: a hand or a side face of the board's
    colour spoils the first), lying a margin beyond the grid on every side
    (:func:`edge_agrees`; a grid locked onto the wooden edge has the board's edge on its
    outer lines either way); and ``judge``'s evidence (the finder's: points standing out,
    lines, crossings) at least :data:`RESCUE_EVIDENCE`, or :data:`CUT_EVIDENCE` when only a
    cut outline agrees, or else (evidence at least :data:`CHECK_LEAST`) the learned grid
    check (:mod:`grid_check`) at least :data:`CHECK_KEEP` sure that the grid lies on the
    board's lines. The best evidence wins among sizes; the score is a third of it, as for the
    finder's grids from a board's edge. ``edges``: the board outlines the caller already found
    (else found here, only once the network is sure). ``proposals``: the grids to judge
    (default :func:`propose`'s; :func:`closer`'s for a second look).
    """
    kept = [v for v in verdicts(small, lab, sizes, judge, edges, proposals) if v.why == "kept"]
    if not kept:
        return None
    best = max(kept, key=lambda v: v.evidence or 0.0)
    return (best.evidence or 0.0) / 3, best.quad, best.n


_UNIT = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)  # TL TR BR BL of a unit square


def _homographies(quads: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """Board units -> image pixels for a batch of grids of ``n`` lines (quads: (B, 4, 2),
    TL TR BR BL), in closed form (the unit square's homography onto each quad, Heckbert's):
    thousands at once, where one :func:`homography` call each would take most of the search."""
    p0, p1, p2, p3 = (quads[:, i] for i in range(4))
    s = p0 - p1 + p2 - p3
    d1, d2 = p1 - p2, p3 - p2
    with np.errstate(divide="ignore", invalid="ignore"):
        den = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
        g = (s[:, 0] * d2[:, 1] - d2[:, 0] * s[:, 1]) / den
        h = (d1[:, 0] * s[:, 1] - s[:, 0] * d1[:, 1]) / den
    out = np.zeros((len(quads), 3, 3))
    out[:, :2, 0] = p1 - p0 + g[:, None] * p1
    out[:, :2, 1] = p3 - p0 + h[:, None] * p3
    out[:, :2, 2] = p0
    out[:, 2, 0], out[:, 2, 1], out[:, 2, 2] = g, h, 1.0
    out[:, :, :2] /= max(1, n - 1)
    return out


def _arm_samples(n: int, every: int, arms: Sequence[float]) -> tuple[NDArray[np.float32], ...]:
    """Board-unit samples round every ``every``-th of a grid's points and round the centres of
    the cells just after them: per direction (2), per ``arms`` offset along that direction,
    per point: two arrays of shape (2, arms, points, 2)."""
    reach = np.array(arms, np.float32)

    def round_each(p: NDArray[np.float32]) -> NDArray[np.float32]:
        out = np.repeat(np.repeat(p[None, None], 2, 0), len(reach), 1)
        for d in range(2):
            out[d, :, :, d] += reach[:, None]
        return out

    at = np.arange(0, n, every, dtype=np.float32)
    on = np.stack(np.meshgrid(at, at), -1).reshape(-1, 2)
    mid = at[at < n - 1] + 0.5
    off = np.stack(np.meshgrid(mid, mid), -1).reshape(-1, 2)
    return round_each(on), round_each(off)


def lattice_contrast(
    resp: NDArray[np.float32],
    quads: NDArray[np.float64],
    n: int,
    every: int = 1,
    arms: Sequence[float] = HIDDEN_ARMS,
) -> NDArray[np.float64]:
    """How plainly each grid (quads: (B, 4, 2)) lies on crossing lines in a line response
    ``resp``: the median over its points (every ``every``-th line's) of the line response
    along the weaker of its two lines there (both lines cross at a point; a hand's or a board
    edge's long stroke is one line), sampled at ``arms`` spacings either side, less the same
    round its cells' centres; -inf where nothing is in the image. Why medians: a hand over a
    corner covers a tenth or two of the points with strokes of its own, which a mean follows."""
    on, off = _arm_samples(n, every, arms)
    hs = _homographies(quads, n).astype(np.float32)
    h, w = resp.shape

    def level(p: NDArray[np.float32]) -> NDArray[np.float64]:
        flat = np.concatenate([p.reshape(-1, 2), np.ones((p.size // 2, 1), np.float32)], 1).T
        q = np.matmul(hs, flat)
        with np.errstate(divide="ignore", invalid="ignore"):
            x, y = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
        ok = (x > -0.5) & (x < w - 0.5) & (y > -0.5) & (y < h - 0.5)  # NaN compares False
        xi = np.where(ok, x + 0.5, 0).astype(np.intp)
        yi = np.where(ok, y + 0.5, 0).astype(np.intp)
        v = np.where(ok, resp[yi, xi], np.nan).reshape((len(hs), *p.shape[:-1]))
        weaker = np.min(np.mean(v, axis=2), axis=1)  # (B, points): a NaN arm stays NaN
        return np.asarray(np.nanmedian(weaker, axis=1), np.float64)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a grid all off the image: NaN
        score = level(on) - level(off)
    return np.where(np.isfinite(score), score, -np.inf)


def line_response(bh: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The finder's line mask ``bh`` softened a little, as :func:`fourth_corner` searches it (a
    crossing a pixel off its sample still counts)."""
    return np.asarray(cv2.GaussianBlur(bh.astype(np.float32), (0, 0), 1.0), np.float32)


def fourth_corner(
    resp: NDArray[np.float32], quad: Corners, n: int, k: int, *, reach: float | None = None
) -> Corners:
    """``quad`` with corner ``k`` moved where the grid, its other three corners held, lies
    best on crossing lines (:func:`lattice_contrast`): looked for within ``reach`` (default
    :data:`HIDDEN_REACH`) spacings each way (in the grid's own units) at :data:`HIDDEN_STEP`
    on every other line, then at a quarter of that step round the best on all of them; again
    from there (the grid's units were off with the corner) until the corner moves less than
    a quarter spacing (:data:`HIDDEN_ROUNDS` looks at most). Why
    not the corner's own patch: it is hidden (a hand, an arm); the rest of the board, most of
    it visible, says where its lines meet."""
    out = np.array(quad, np.float64)
    end = _UNIT[k] * (n - 1)
    for _ in range(HIDDEN_ROUNDS):
        to_image = homography(out, n)
        best = end
        looks = (
            (
                HIDDEN_REACH if reach is None else reach,
                HIDDEN_STEP,
                max(1, n // 10),
                HIDDEN_ARMS,
            ),
            (1.5 * HIDDEN_STEP, HIDDEN_STEP / 4, 1, HIDDEN_ARMS),
        )
        for wide, step, every, arms in looks:  # the first look on every other line, two samples
            d = np.arange(-wide, wide + 1e-9, step)
            grid = np.stack(np.meshgrid(d, d), -1).reshape(-1, 2) + best
            quads = np.repeat(out[None], len(grid), axis=0)
            quads[:, k] = project(to_image, grid)
            best = grid[int(np.argmax(lattice_contrast(resp, quads, n, every, arms)))]
        out[k] = project(to_image, best[None])[0]
        if not encloses_area(out):
            return np.array(quad, np.float64)  # the corner folded the grid flat: no move
        if float(np.abs(best - end).max()) < 0.25:
            break
    return out


ThreeSure = tuple[Corners, int, NDArray[np.bool_]]  # a grid, its size, its sure corners


def hidden(
    small: Image,
    bh: NDArray[np.uint8],
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    edges: Sequence[Corners] | None = None,
    proposals: Sequence[Corners] = (),
    maps: FrameMaps | None = None,
    *,
    three: Sequence[ThreeSure] | None = None,
) -> tuple[float, Corners, int] | None:
    """A board with one corner hidden (a hand or an arm over it), where the classic finder
    and :func:`rescue` found none: (score, corners in ``small``, size) or None. ``three``:
    :func:`three_sure`'s answer for the same ``proposals``, when the caller has it.

    The proposer's four-peak decoding needs a peak at every corner; under a hand there is
    none. So: quads of three peaks completed to a parallelogram (:func:`completed`) and the
    four-peak ``proposals`` go to the corner network; where it is sure (each map's weight at
    least :data:`RESCUE_WEIGHT`) and settled (:data:`HIDDEN_SETTLED`) on exactly three
    corners, the fourth is looked for where the board's visible crossings put it
    (:func:`fourth_corner`, in the line response ``bh``), and the corner network asked again
    (round the moved fourth corner its patches are truer, so the three may move a little),
    :data:`HIDDEN_ROUNDS` times at most. A grid on which the network then becomes sure of
    all four corners is judged as any proposal is (:func:`rescue`, its bars unchanged), and
    failing those as a hidden one with the fourth corner where the crossings put it; one
    with its fourth corner still unseen must keep the three sure and be marked on its
    points far more plainly than a rescued grid (``judge``'s evidence at least
    :data:`HIDDEN_EVIDENCE`; on tuning scenes a grid a third of a spacing off reached 1.15) and be
    a square a camera can see (:data:`POLISH_SQUARE`)."""
    levels = pyramid(small)
    resp = line_response(bh)
    all_sure: list[Corners] = []
    best: tuple[float, Corners, int] | None = None
    if three is None:
        three = three_sure(small, sizes, proposals, maps)
    for start, n, sure in three:
        quad, lost = start, False
        for _ in range(HIDDEN_ROUNDS):
            moved = fourth_corner(resp, quad, n, int(np.flatnonzero(~sure)[0]))
            ((steps, weights),) = refine_rounds(levels, [(moved, n)], rounds=POLISH_ROUNDS)
            again, now = _sure_corners(steps, weights, n)
            if again is None or int(now.sum()) < 3:
                lost = True
                break
            if now.all():
                # judged as a rescued grid; failing that, as a hidden one with the fourth
                # corner where the crossings put it (the network's word on a corner it could
                # not see a round ago is the weaker: 500036 went 0.05 -> 0.63 spacing)
                all_sure.append(again)
                quad = np.where(sure[:, None], again, moved)
                break
            out = np.where(now[:, None], again, moved)
            moved_most = float(np.linalg.norm(out - quad, axis=1).max())
            still = moved_most < POLISH_SETTLED * spacing(out, n)
            quad, sure = out, now
            if still:
                break
        if lost or not encloses_area(quad):
            continue
        if squareness(quad, small.shape) > POLISH_SQUARE:
            continue
        ev = judge(margin_distance(lab, quad, n), quad, n)
        if ev >= HIDDEN_EVIDENCE and (best is None or ev / 3 > best[0]):
            best = (ev / 3, quad, n)
    # a grid the network became sure of all round is a proposal like any other, on its bars
    return (rescue(small, lab, sizes, judge, edges, all_sure) if all_sure else None) or best


def three_sure(
    small: Image,
    sizes: Sequence[int],
    proposals: Sequence[Corners] = (),
    maps: FrameMaps | None = None,
    *,
    complete: bool = True,
) -> list[ThreeSure]:
    """The seeds of :func:`hidden` and :func:`checked_hidden` (the four-peak ``proposals`` and,
    with ``complete``, :func:`completed`'s quads), each refined for each size by the corner
    network (:data:`POLISH_ROUNDS` rounds), where it is sure of exactly three corners
    (:func:`_sure_corners`): (its answer, size, which corners are sure), a grid that an
    earlier seed led to left out. Made once per find and passed to both steps."""
    seeds = list(proposals) + (completed(small, maps=maps) if complete else [])
    pairs = [(quad, n) for quad in seeds for n in sizes if n >= 2]
    levels = pyramid(small)
    out: list[ThreeSure] = []
    for (_seed, n), (steps, weights) in zip(
        pairs, refine_rounds(levels, pairs, rounds=POLISH_ROUNDS), strict=True
    ):
        quad, sure = _sure_corners(steps, weights, n)
        if quad is None or int(sure.sum()) != 3:
            continue
        if any(m == n and _same_board(quad, t, n) for t, m, _s in out):
            continue  # another seed led here already
        out.append((quad, n, sure))
    return out


def checked_corner(levels: Sequence[Image], quad: Corners, n: int, k: int) -> tuple[Corners, float]:
    """``quad`` with corner ``k`` moved where the grid check (:mod:`grid_check`) is surest of
    the grid, its other three corners held, and how sure it is there (-1 where it cannot say):
    looked for within :data:`CHECKED_REACH` spacings each way (in the grid's own units) at
    :data:`CHECKED_STEP`, then at a quarter of that round the best. Why not the board's
    lines (:func:`fourth_corner`): a full or blurred board shows few, and the stones' rows
    and gaps between them draw lines of their own, while the check, which sees the whole
    board plane through the grid, was trained on grids a corner off."""
    out = np.array(quad, np.float64)
    to_image = homography(out, n)
    best, said = _UNIT[k] * (n - 1), -1.0
    for wide, step in ((CHECKED_REACH, CHECKED_STEP), (CHECKED_STEP / 2, CHECKED_STEP / 4)):
        d = np.arange(-wide, wide + 1e-9, step)
        grid = np.stack(np.meshgrid(d, d), -1).reshape(-1, 2) + best
        quads = np.repeat(out[None], len(grid), axis=0)
        quads[:, k] = project(to_image, grid)
        ok = [i for i, q in enumerate(quads) if np.isfinite(q).all() and encloses_area(q)]
        marks = grid_check.check(levels, [(quads[i], n) for i in ok]) if ok else None
        if not marks:
            return np.array(quad, np.float64), -1.0
        j = int(np.argmax(marks))
        best, said = grid[ok[j]], marks[j]
    out[k] = project(to_image, best[None])[0]
    return out, said


def checked_hidden(
    small: Image,
    lab: NDArray[np.float32],
    sizes: Sequence[int],
    judge: Judge,
    proposals: Sequence[Corners] = (),
    maps: FrameMaps | None = None,
    *,
    three: Sequence[ThreeSure] | None = None,
) -> tuple[float, Corners, int] | None:
    """A board with one corner hidden that :func:`hidden` could not place, nor any other step
    find: (score, corners in ``small``, size) or None. The same seeds as :func:`hidden`
    (``three``: :func:`three_sure`'s answer, when the caller has it); where
    the corner network is sure of exactly three corners, the fourth goes where the grid check
    is surest (:func:`checked_corner`), the network places the corners it is then sure of, and
    the grid is kept when the check is at least :data:`CHECKED_KEEP` sure of it, ``judge``'s
    evidence is at least :data:`CHECK_LEAST` (the check's least, as where it vouches for a
    rescued grid) and it is a square a camera can see (:data:`POLISH_SQUARE`); the grid the
    check is surest of wins. Why: on a full or blurred board the lines that
    :func:`fourth_corner` follows are hidden or drowned by the stones' own rows, and
    :data:`HIDDEN_EVIDENCE`, a share over the grid's points, is out of reach with a hand over
    a part of them; on validation scenes (tuned on) 28 of the 39 finds with a hand that found
    nothing had a seed with three corners sure, the fourth often 1.3-6 spacings off."""
    levels = pyramid(small)
    best: tuple[float, float, Corners, int] | None = None
    if three is None:
        three = three_sure(small, sizes, proposals, maps)
    for quad, n, sure in three:
        moved, said = checked_corner(levels, quad, n, int(np.flatnonzero(~sure)[0]))
        if said < CHECKED_KEEP:
            continue
        ((steps, weights),) = refine_rounds(levels, [(moved, n)], rounds=POLISH_ROUNDS)
        again, now = _sure_corners(steps, weights, n)
        if again is not None and now.any():
            placed = np.where(now[:, None], again, moved)
            marks = grid_check.check(levels, [(placed, n)])
            if marks and marks[0] >= CHECKED_KEEP:
                moved, said = placed, marks[0]
        if not encloses_area(moved) or squareness(moved, small.shape) > POLISH_SQUARE:
            continue
        if best is not None and said <= best[0]:
            continue
        ev = judge(margin_distance(lab, moved, n), moved, n)
        if ev >= CHECK_LEAST:
            best = (said, ev, moved, n)
    return None if best is None else (best[1] / 3, best[2], best[3])


def place_hidden(small: Image, bh: NDArray[np.uint8], quad: Corners, n: int) -> Corners:
    """The finder's finished grid (``quad`` in the working copy ``small``, ``bh`` its line
    response) with a lone corner the corner network cannot see, the other three sure (a hand
    over it), moved where the visible crossings put it (:func:`fourth_corner`, within
    :data:`FINISH_REACH` spacings); kept only where the grid check (:mod:`grid_check`) is no
    less sure of the moved grid than of ``quad``. Why: the finder places each corner by its
    own crossings or the network's patch, and under a hand both guess; on validation scenes
    (tuned on) most grids off with a hand were three corners within a tenth of a spacing and
    the hidden one 0.25-0.85 off, which the rest of the board's lines place. The check
    guards the move: a finger's edge can line up with a grid a third of a spacing off."""
    if n < 2 or not np.isfinite(quad).all():
        return quad
    levels = pyramid(small)
    ((steps, weights),) = refine_rounds(levels, [(quad, n)], rounds=POLISH_ROUNDS)
    _last, sure = _sure_corners(steps, weights, n)  # none sure when there was no answer
    if int(sure.sum()) != 3:
        return quad
    k = int(np.flatnonzero(~sure)[0])
    moved = fourth_corner(line_response(bh), quad, n, k, reach=FINISH_REACH)
    if np.array_equal(moved, quad):
        return quad
    said = grid_check.check(levels, [(quad, n), (moved, n)])
    if said is None or said[1] < said[0]:
        return quad
    return moved


def _sure_corners(
    steps: Sequence[Corners], weights: NDArray[np.float64], n: int
) -> tuple[Corners | None, NDArray[np.bool_]]:
    """The corner network's last answer and which corners it is sure of (weight at least
    :data:`RESCUE_WEIGHT`, moved no more than :data:`HIDDEN_SETTLED` spacings in the last
    round); None when there was no answer (no weights, or the grid collapsed)."""
    none = np.zeros(4, np.bool_)
    if len(steps) < 2:
        return None, none
    sp = spacing(steps[-1], n)
    last = np.linalg.norm(steps[-1] - steps[-2], axis=1) / max(sp, 1e-9)
    return steps[-1], (weights >= RESCUE_WEIGHT) & (last <= HIDDEN_SETTLED)
