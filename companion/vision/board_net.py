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
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision.geometry import Corners, homography, project
from companion.vision.lattice import distance_map, margin_colour

Image = NDArray[np.uint8]
INPUT_W, INPUT_H = 256, 192  # the network's input (4:3; other frames are letterboxed)
STRIDE = 4  # input pixels per output cell
WEIGHTS = Path(__file__).resolve().parent / "models" / "board.onnx"
PEAK = 0.25  # a corner peak below this is no corner
MASK_AGREE = 0.6  # the four corners' quadrilateral must match the mask this well (IoU)
MAX_PEAKS = 7  # peaks tried in fours
EDGE_SPACINGS = 0.5  # the board's colour is sampled this far beyond a proposal's outer lines


def letterbox(image: Image) -> tuple[Image, NDArray[np.float64], NDArray[np.float64]]:
    """``image`` shrunk (aspect kept) into a black INPUT_W x INPUT_H frame, centred:
    (view, scale, offset), scale and offset per axis; a point p of the image is
    ``p * scale + offset`` in the view."""
    h, w = image.shape[:2]
    k = min(INPUT_W / w, INPUT_H / h)
    nw, nh = max(1, round(w * k)), max(1, round(h * k))
    small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    view = np.zeros((INPUT_H, INPUT_W, 3), np.uint8)
    x0, y0 = (INPUT_W - nw) // 2, (INPUT_H - nh) // 2
    view[y0 : y0 + nh, x0 : x0 + nw] = small
    # pixel centres: (p + 0.5) * (nw / w) - 0.5 + x0
    kx, ky = nw / w, nh / h
    off = np.array([0.5 * kx - 0.5 + x0, 0.5 * ky - 0.5 + y0], np.float64)
    return view, np.array([kx, ky], np.float64), off


class BoardNet:
    """The network behind :func:`propose`, loaded once from an ONNX file."""

    def __init__(self, path: Path) -> None:
        try:
            self._net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise VisionError(f"cannot load the board network {path}: {exc}") from exc
        self._net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self._net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
        self._lock = threading.Lock()  # a cv2.dnn net is not safe to run from two threads

    def maps(self, view: Image) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Corner and mask maps (0..1) for a letterboxed view (the file gives logits)."""
        blob = cv2.dnn.blobFromImage(view, 1.0 / 255.0)
        with self._lock:
            self._net.setInput(blob)
            logits = np.asarray(self._net.forward(), np.float32)
        out = 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))
        if out.ndim != 4 or out.shape[1] != 2:
            raise VisionError(f"the board network gave maps of shape {out.shape}, not (1, 2, h, w)")
        return out[0, 0], out[0, 1]


def load(path: Path | None = None) -> BoardNet | None:
    """The network in ``path`` (default :data:`WEIGHTS`, looked up at each call), or None when
    there is no such file: the finder goes on without it."""
    path = WEIGHTS if path is None else path
    if not path.is_file():
        return None
    return _load(path.resolve(), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _load(path: Path, _stamp: int) -> BoardNet:
    """One net per file and version of it (a retrained file is read again)."""
    return BoardNet(path)


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


def propose(image: Image, *, path: Path | None = None, limit: int = 2) -> list[NDArray[np.float64]]:
    """Candidate corner intersections (TL, TR, BR, BL in ``image`` pixels), best first; empty
    when there are no weights or the network sees no board."""
    net = load(path)
    if net is None:
        return []
    view, k, off = letterbox(image)
    heat, mask = net.maps(view)
    return [(c - off) / k for _conf, c in decode(heat, mask, limit=limit)]


Judge = Callable[[NDArray[np.float32], Corners, int], float]


def candidates(
    small: Image, lab: NDArray[np.float32], sizes: Sequence[int], judge: Judge
) -> list[tuple[float, Corners, int, NDArray[np.float32]]]:
    """The network's proposals in the finder's working copy ``small`` as the finder's board-edge
    candidates: (``judge``'s evidence, corners, size, distance from the board's colour) for
    each proposal and size. The board's colour comes from a band just beyond the proposed
    outer lines (the board's margin), as the finder takes it from inside a board's edge."""
    out: list[tuple[float, Corners, int, NDArray[np.float32]]] = []
    for quad in propose(small):
        for n in sizes:
            m = -EDGE_SPACINGS
            e = n - 1 + EDGE_SPACINGS
            edge = project(
                homography(quad, n), np.array([[m, m], [e, m], [e, e], [m, e]], np.float64)
            )
            dist = distance_map(lab, margin_colour(lab, edge))
            out.append((judge(dist, quad, n), quad, n, dist))
    return out
