"""The learned stone classifier: board views cut from a photo, and the network run on them.

A *board view* is the board rectified by its corners at :data:`PX` pixels per grid spacing,
with point ``(row, col)`` at pixel ``(PX * col + HALF, PX * row + HALF)``. The network (see
``companion/vision/models/MODEL_CARD.md``) is fully convolutional with valid convolutions, a
receptive field of :data:`PATCH` pixels (four spacings: the point, wherever a stone's top can
sit in an oblique view, and its neighbours for context) and a stride of :data:`PX`. On a whole
grid's view it therefore gives, for every point, exactly what it gives on that point's own
``PATCH``-pixel patch, for a fraction of the work; spots that are not on a grid (hand-placed map
spots) are read as a batch of patches. It runs through OpenCV's ``cv2.dnn``, so nothing beyond
OpenCV is needed at run time.

Output per spot: probabilities of :data:`CLASSES` (empty, black, white, covered: a hand, a sleeve,
anything that is not a board point or a stone), temperature-scaled on held-out data when the
weights were made, from the view and the view turned half round (:data:`VIEWS`). Covered, or
below :data:`CONFIDENT` with a doubt between board classes (but empty with black its only rival,
from :data:`EMPTY_OVER_BLACK`: a cast shadow), reads ``?`` (:func:`decide`). A
spot below :data:`LOOK` gets a second look first (:meth:`StoneNet.second_look`): its patch
turned a quarter round both ways and, from an oblique camera, re-cut towards where its own
stone's top leans (:func:`lean_shifts`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.observation import BLACK, EMPTY, UNKNOWN, WHITE
from companion.vision.geometry import project

PX = 8  # view pixels per grid spacing (the network's stride)
PATCH = 32  # the network's receptive field in view pixels (four spacings)
HALF = (PATCH - 1) / 2.0  # a point's pixel-centre coordinate in its own patch
CLASSES = (EMPTY, BLACK, WHITE, UNKNOWN)  # the last is "covered": a hand, a sleeve, a cup
CONFIDENT = 0.9  # a spot is read if its class has at least this probability (or BOARD_SHARE)
# Beyond this many spacings outside the outermost lines a grid's view is filled with BLANK (in
# training and at run time alike): what lies beyond the board (a table, a hand, a narrow margin
# or a wide one) never reaches the network, so edge points read the same on any table.
BEYOND = 0.8
BLANK = 128
MODEL = "stones.onnx"
# Readings per spot: the view as is and turned half round (see StoneNet._read). Chosen on the
# tuning renders (seeds 500000..500199, never trained on; MODEL_CARD.md "Decision rule").
VIEWS = 2
# ... and a board class that is the likeliest, more likely than not, and at least this share of
# the board classes' probability is read too (see decide). Chosen on the same tuning renders.
BOARD_SHARE = 0.99
# ... and empty, the likeliest, is read at this bar if black is its only rival (white and covered
# together below RIVALS): that doubt is a stone's cast shadow, not a stone (see decide). Chosen
# on the tuning renders (MODEL_CARD.md "Shadows").
EMPTY_OVER_BLACK = 0.7
RIVALS = 0.05
# Second look (StoneNet.second_look): a grid spot whose likeliest class is below LOOK is read
# again from its patch turned a quarter round each way and re-cut LEAN_STEPS view pixels (times
# the cotangent of the camera's elevation, at most LEAN_MAX) away from the camera, where a tall
# stone's top shows; the readings' geometric mean with the first two replaces its reading.
# Chosen on the tuning renders (MODEL_CARD.md "Second look"; the bar raised from 0.99 in
# "Shadows": a stone first read at 0.99-0.995 is the colour of the stone in front of it
# often enough to look again).
LOOK = 0.995
LEAN_STEPS = (1.5, 3.0)  # at 45 degrees: about half and all of a stone top's lean
LEAN_MAX = 4.0  # half a spacing


def view_size(width: int, height: int) -> tuple[int, int]:
    """Pixel (width, height) of the view of a ``width`` x ``height`` grid."""
    return PATCH + PX * (width - 1), PATCH + PX * (height - 1)


def lean_shifts(H: NDArray[np.float64], width: int, height: int) -> tuple[tuple[int, int], ...]:
    """View-pixel shifts (dx, dy) of the second look's re-cut patches: :data:`LEAN_STEPS` times
    the cotangent of the camera's elevation, along the direction in which the board goes away
    from the camera, at most :data:`LEAN_MAX` pixels; none from straight above.

    A stone's top stands above its point, so from a low camera it shows beyond the point, away
    from the camera (by its height times the cotangent of the elevation), while the top of the
    stone in front leans over the point itself: on the tuning renders most black/white swaps
    are a stone read as the colour of the stone in front of it. The image's third homogeneous
    coordinate is the depth along the optical axis (up to scale), linear on the board: its
    gradient is the way away from the camera, one direction for the whole board (the true lean
    fans out from the camera's foot; close enough). The elevation's sine is how much a step
    that way shrinks in the image against a step across, at the board's centre (square cells
    assumed; a board's cells, 22 x 23.7 mm, make it read a few degrees steep: a shorter shift).
    """
    mid = np.array([(width - 1) / 2.0, (height - 1) / 2.0, 1.0])
    corners = np.array(
        [[0, 0, 1], [width - 1, 0, 1], [width - 1, height - 1, 1], [0, height - 1, 1]], float
    )
    sign = 1.0 if float(mid @ H[2]) > 0 else -1.0
    away = sign * H[2, :2]
    if np.any(corners @ H[2] * sign <= 0) or not np.all(np.isfinite(H)):
        return ()
    grad = float(np.linalg.norm(away))
    if grad < 1e-12:
        return ()
    d = away / grad
    q = H @ mid
    jac = (H[:2, :2] * q[2] - np.outer(q[:2], H[2, :2])) / q[2] ** 2  # d(pixel) / d(board)
    along = float(np.linalg.norm(jac @ d))
    across = float(np.linalg.norm(jac @ np.array([-d[1], d[0]])))
    sine = along / across if across > 0 else 1.0
    if sine >= 1.0:
        return ()
    cot = float(np.sqrt(1.0 - sine * sine) / max(sine, 1e-6))
    out: list[tuple[int, int]] = []
    for step in LEAN_STEPS:
        v = step * cot * d
        length = float(np.linalg.norm(v))
        if length > LEAN_MAX:
            v = v * (LEAN_MAX / length)
        shift = (int(np.rint(v[0])), int(np.rint(v[1])))
        if shift != (0, 0) and shift not in out:
            out.append(shift)
    return tuple(out)


def view_homography(H: NDArray[np.float64]) -> NDArray[np.float64]:
    """View pixels -> image pixels, for a grid whose board units map to pixels through ``H``."""
    to_units = np.array([[1.0 / PX, 0.0, -HALF / PX], [0.0, 1.0 / PX, -HALF / PX], [0.0, 0.0, 1.0]])
    return np.asarray(H @ to_units, dtype=np.float64)


def spacing_px(H: NDArray[np.float64], points: NDArray[np.float64], scale: float = 1.0) -> float:
    """Median distance in image pixels between neighbouring points (``scale`` units apart)."""
    q = project(H, points)
    q2 = project(H, points + np.array([scale, 0.0]))
    return float(np.median(np.linalg.norm(q2 - q, axis=1)))


@dataclass(frozen=True)
class Cutter:
    """Precomputed ``cv2.remap`` tables that cut views (or patches) out of frames of one size.

    The frame is first shrunk by a whole factor (area averaging) so that a spacing spans
    :data:`PX` to ``2 * PX`` pixels: sampled sparsely, a large photo would alias. ``box`` is the
    part of the frame that is shrunk (x0, y0, x1, y1).
    """

    box: tuple[int, int, int, int]
    factor: int
    map1: NDArray[np.int16]
    map2: NDArray[np.uint16]
    board: tuple[int, int] | None = None  # a grid's (width, height): its view is blanked beyond
    beyond: NDArray[np.bool_] | None = None  # patches: their pixels outside the spots' outline

    @classmethod
    def grid(
        cls, H: NDArray[np.float64], width: int, height: int, image_size: tuple[int, int]
    ) -> Cutter:
        """The view of a ``width`` x ``height`` grid (board units -> pixels through ``H``)."""
        vw, vh = view_size(width, height)
        yy, xx = np.mgrid[0:vh, 0:vw].astype(np.float64)
        uv = np.stack([xx.ravel(), yy.ravel()], axis=1)
        pix = project(view_homography(H), uv).reshape(vh, vw, 2)
        rr, cc = np.mgrid[0:height, 0:width]
        pts = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
        return replace(cls._build(pix, spacing_px(H, pts), image_size), board=(width, height))

    @classmethod
    def patches(
        cls,
        H: NDArray[np.float64],
        centres: NDArray[np.float64],
        scale: float,
        image_size: tuple[int, int],
    ) -> Cutter:
        """One ``PATCH`` x ``PATCH`` patch per spot, stacked vertically (spots on no grid).

        What lies more than :data:`BEYOND` spot spacings outside the spots' outline (their
        convex hull, each side pushed out) is blanked, as a grid's view is beyond its outer
        lines: the network never learnt the table beyond a board.
        """
        yy, xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float64)
        d = np.stack([xx, yy], axis=-1) - HALF  # (P, P, 2) view pixels from the spot
        pts = centres[:, None, None, :] + d[None] * (scale / PX)
        pix = project(H, pts.reshape(-1, 2)).reshape(len(centres) * PATCH, PATCH, 2)
        beyond = outside_outline(centres, pts.reshape(-1, 2), BEYOND * scale)
        cut = cls._build(pix, spacing_px(H, centres, scale), image_size)
        return replace(cut, beyond=None if beyond is None else beyond.reshape(pix.shape[:2]))

    @classmethod
    def _build(
        cls, pix: NDArray[np.float64], spacing: float, image_size: tuple[int, int]
    ) -> Cutter:
        if not np.all(np.isfinite(pix)) or not np.isfinite(spacing) or spacing <= 0:
            raise VisionError("corners do not make a usable board plane")
        w, h = image_size
        factor = max(1, int(spacing / PX))
        x0 = int(np.clip(np.floor(pix[..., 0].min()), 0, w - 1))
        y0 = int(np.clip(np.floor(pix[..., 1].min()), 0, h - 1))
        x1 = int(np.clip(np.ceil(pix[..., 0].max()) + 2, x0 + factor, w))
        y1 = int(np.clip(np.ceil(pix[..., 1].max()) + 2, y0 + factor, h))
        x1 = x0 + max(factor, (x1 - x0) // factor * factor)
        y1 = y0 + max(factor, (y1 - y0) // factor * factor)
        # pixel centre c in the frame is (c - x0 - (factor - 1) / 2) / factor in the shrunk box
        mx = ((pix[..., 0] - x0 - (factor - 1) / 2.0) / factor).astype(np.float32)
        my = ((pix[..., 1] - y0 - (factor - 1) / 2.0) / factor).astype(np.float32)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        return cls(
            box=(x0, y0, x1, y1),
            factor=factor,
            map1=np.asarray(m1, dtype=np.int16),
            map2=np.asarray(m2, dtype=np.uint16),
        )

    def __call__(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        x0, y0, x1, y1 = self.box
        roi = image[y0:y1, x0:x1]
        if roi.shape[0] != y1 - y0 or roi.shape[1] != x1 - x0:
            raise VisionError("the frame is smaller than the one the reader was made for")
        if self.factor > 1:
            size = ((x1 - x0) // self.factor, (y1 - y0) // self.factor)
            roi = np.asarray(cv2.resize(roi, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
        out = cv2.remap(
            roi, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        view = np.asarray(out, dtype=np.uint8)
        if self.board is not None:
            blank_beyond(view, (0.0, 0.0), self.board)
        if self.beyond is not None:
            view[self.beyond] = BLANK
        return view


def outside_outline(
    spots: NDArray[np.float64], points: NDArray[np.float64], reach: float
) -> NDArray[np.bool_] | None:
    """Which ``points`` lie more than ``reach`` outside one side of the spots' convex hull.

    The hull's sides pushed out by ``reach``: on a rectangular grid exactly the band
    :func:`blank_beyond` blanks. None when the spots' hull is narrower than ``2 * reach`` (a
    row of spots, a few spots placed apart): such spots outline no board to go by.
    """
    if len(spots) < 3:
        return None
    hull = cv2.convexHull(spots.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    if len(hull) < 3 or min(cv2.minAreaRect(hull.astype(np.float32))[1]) < 2 * reach:
        return None
    a, b = hull, np.roll(hull, -1, axis=0)
    edge = b - a
    normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    centre = hull.mean(axis=0)
    flip = np.einsum("ij,ij->i", centre - a, normal) > 0  # make every normal point outwards
    normal[flip] *= -1
    out = np.einsum("pk,ek->pe", points, normal) - np.einsum("ek,ek->e", a, normal)[None]
    return np.asarray(out.max(axis=1) > reach)


def blank_beyond(
    view: NDArray[np.uint8], first: tuple[float, float], board: tuple[int, int]
) -> None:
    """Fill (in place) the view's pixels more than :data:`BEYOND` spacings outside the lines.

    ``first`` is the board position (column, row) of the view's first point, ``board`` the
    board's (width, height) in points: a training window is a piece of a board, maybe cut off
    the lattice, and is blanked exactly as the whole board's view would be there.
    """
    for axis, (start, count) in enumerate(zip(first, board, strict=True)):
        # view pixel p shows board position start + (p - HALF) / PX along this axis
        pos = start + (np.arange(view.shape[1 - axis]) - HALF) / PX
        out = (pos < -BEYOND) | (pos > count - 1 + BEYOND)
        if axis == 0:
            view[:, out] = BLANK
        else:
            view[out, :] = BLANK


class StoneNet:
    """The ONNX network through ``cv2.dnn``; one instance per reader (nets are not thread-safe).

    ``views``: 2 (the default, :data:`VIEWS`) runs the network on the view as is and turned
    half round and keeps the geometric mean of the two readings; 1 runs it once. ``look``: the
    bar below which :meth:`second_look` reads a spot again (0: never).
    """

    def __init__(
        self, onnx: bytes | None = None, *, views: int = VIEWS, look: float = LOOK
    ) -> None:
        if views not in (1, 2):
            raise VisionError(f"views must be 1 or 2, not {views!r}")
        if not 0.0 <= look <= 1.0:
            raise VisionError(f"look must be between 0 and 1, not {look!r}")
        data = _packaged() if onnx is None else onnx
        try:
            self.net = cv2.dnn.readNetFromONNX(np.frombuffer(data, dtype=np.uint8))
        except cv2.error as exc:
            raise VisionError(f"the stone model cannot be loaded: {exc}") from exc
        self.views = views
        self.look = look

    def _run(self, blob: NDArray[np.float32]) -> NDArray[np.float32]:
        """Log-probabilities (log-softmax over the class axis) of a batch."""
        self.net.setInput(blob)
        logits = np.asarray(self.net.forward(), dtype=np.float32)
        z = logits - logits.max(axis=1, keepdims=True)
        return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)), dtype=np.float32)

    def _read(self, blob: NDArray[np.float32]) -> NDArray[np.float32]:
        """(n, 4, rows, cols) probabilities of a batch of views, with the half-turned views
        (:attr:`views` 2) run in the same batch and turned back.

        A half turn maps point (r, c) of a view to (rows-1-r, cols-1-c) of the turned one
        exactly (a point's pixel centre is symmetric in its patch, the stride divides the
        view), so each point gets two readings of the same pixels. Stones and empty points
        look alike turned (training turns and mirrors every window), yet the network's two
        readings of an unsure point differ; their geometric mean is surer where they agree and
        less sure where they do not (on the tuning renders: fewer ``?``, fewer wrong).
        """
        if self.views == 1:
            logp = self._run(blob)
        else:
            n = len(blob)
            both = self._run(np.ascontiguousarray(np.concatenate([blob, blob[:, :, ::-1, ::-1]])))
            logp = (both[:n] + both[n:, :, ::-1, ::-1]) / 2.0
        e = np.exp(logp - logp.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)

    def grid(self, view: NDArray[np.uint8], width: int, height: int) -> NDArray[np.float32]:
        """(height * width, 4) class probabilities, row-major, from a grid's view."""
        if view.shape[:2] != view_size(width, height)[::-1]:
            raise VisionError("board view has the wrong size")
        blob = np.ascontiguousarray(view.transpose(2, 0, 1)[None], dtype=np.float32)
        p = self._read(blob)  # (1, 4, height, width)
        return np.asarray(p[0].reshape(len(CLASSES), -1).T, dtype=np.float32)

    def second_look(
        self,
        view: NDArray[np.uint8],
        probs: NDArray[np.float32],
        shifts: Sequence[tuple[int, int]] = (),
    ) -> NDArray[np.float32]:
        """``probs`` (from :meth:`grid` on ``view``) with every spot below :attr:`look` read again.

        Each such spot's patch is read turned a quarter round each way and re-cut by each of
        ``shifts`` (view pixels, :func:`lean_shifts`); the geometric mean of these readings and
        the first two (weighted two) is its new reading. Both turns and shifts map every point
        onto a point exactly (as the half turn does), so a spot's patch and the whole view
        turned or shifted give it the same reading: few spots are read as patches, many as
        whole views (the cheaper way for each). Only unsure spots change.
        """
        if self.look <= 0.0 or self.views != 2:
            return probs
        unsure = np.flatnonzero(probs.max(axis=1) < self.look)
        if len(unsure) == 0:
            return probs
        height, width = (np.array(view.shape[:2]) - PATCH) // PX + 1
        if len(unsure) * PATCH * PATCH < view.shape[0] * view.shape[1]:  # fewer pixels to read
            more = self._looks_by_patch(view, unsure, width, shifts)
        else:
            more = self._looks_by_view(view, width, height, shifts)[unsure]
        first = np.log(np.maximum(probs[unsure].astype(np.float64), 1e-12))
        logp = (2.0 * first + more.sum(axis=1)) / (2 + more.shape[1])
        e = np.exp(logp - logp.max(axis=1, keepdims=True))
        out = probs.copy()
        out[unsure] = e / e.sum(axis=1, keepdims=True)
        return out

    def _looks_by_patch(
        self,
        view: NDArray[np.uint8],
        spots: NDArray[np.intp],
        width: int,
        shifts: Sequence[tuple[int, int]],
    ) -> NDArray[np.float64]:
        """(len(spots), 2 + len(shifts), 4) log-probabilities of the spots' own patches."""
        pad = max((max(abs(dx), abs(dy)) for dx, dy in shifts), default=0)
        padded = _pad(view, pad)
        windows = np.lib.stride_tricks.sliding_window_view(padded, (PATCH, PATCH, 3))[:, :, 0]
        y, x = PX * (spots // width) + pad, PX * (spots % width) + pad
        own = windows[y, x]  # (m, PATCH, PATCH, 3)
        cuts = [np.rot90(own, 1, axes=(1, 2)), np.rot90(own, 3, axes=(1, 2))]
        cuts += [windows[y + dy, x + dx] for dx, dy in shifts]
        # side by side in one image, not a batch (cv2.dnn runs it about 1.5x faster): with valid
        # convolutions and stride PX, output column (PATCH // PX) * k sees exactly patch k
        row = np.concatenate(cuts).transpose(3, 1, 0, 2).reshape(3, PATCH, -1)
        logp = self._run(np.ascontiguousarray(row[None], dtype=np.float32))[0, :, 0, :: PATCH // PX]
        out = logp.T.astype(np.float64)
        return out.reshape(len(cuts), len(spots), len(CLASSES)).transpose(1, 0, 2)

    def _looks_by_view(
        self, view: NDArray[np.uint8], width: int, height: int, shifts: Sequence[tuple[int, int]]
    ) -> NDArray[np.float64]:
        """(height * width, 2 + len(shifts), 4) log-probabilities from whole views."""
        chw = view.transpose(2, 0, 1)
        turned = np.stack([np.rot90(chw, 1, axes=(1, 2)), np.rot90(chw, 3, axes=(1, 2))])
        out = self._run(np.ascontiguousarray(turned, dtype=np.float32))
        maps = [np.rot90(out[0], -1, axes=(1, 2)), np.rot90(out[1], -3, axes=(1, 2))]
        if shifts:
            pad = max(max(abs(dx), abs(dy)) for dx, dy in shifts)
            padded = _pad(view, pad).transpose(2, 0, 1)
            vh, vw = view.shape[:2]
            moved = np.stack(
                [padded[:, pad + dy : pad + dy + vh, pad + dx : pad + dx + vw] for dx, dy in shifts]
            )
            maps += list(self._run(np.ascontiguousarray(moved, dtype=np.float32)))
        both = np.stack([m.reshape(len(CLASSES), height * width).T for m in maps], axis=1)
        return np.asarray(both, dtype=np.float64)

    def patches(self, stack: NDArray[np.uint8]) -> NDArray[np.float32]:
        """(n, 4) class probabilities from ``n`` patches stacked vertically."""
        n = stack.shape[0] // PATCH
        blob = stack.reshape(n, PATCH, PATCH, 3).transpose(0, 3, 1, 2).astype(np.float32)
        p = self._read(np.ascontiguousarray(blob))
        return np.asarray(p.reshape(n, len(CLASSES)), dtype=np.float32)


def _pad(view: NDArray[np.uint8], pad: int) -> NDArray[np.uint8]:
    """``view`` with ``pad`` pixels of :data:`BLANK` around it (what lies beyond a grid's view
    is blank anyway)."""
    if pad == 0:
        return view
    return np.asarray(
        cv2.copyMakeBorder(view, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(BLANK,) * 3),
        dtype=np.uint8,
    )


@functools.lru_cache(maxsize=1)
def _packaged() -> bytes:
    """The bundled weights (read once; each reader builds its own net from them)."""
    try:
        return (resources.files("companion.vision") / "models" / MODEL).read_bytes()
    except OSError as exc:
        raise VisionError(f"the stone model {MODEL} is missing from the package") from exc


def decide(
    probs: NDArray[np.float32],
    threshold: float = CONFIDENT,
    board_share: float = BOARD_SHARE,
    empty_over_black: float = EMPTY_OVER_BLACK,
) -> tuple[list[str], NDArray[np.float64]]:
    """Token and confidence per spot: the likeliest class if it is at least ``threshold`` sure,
    or if it is a board class (empty, black, white) that is more likely than not and holds at
    least ``board_share`` of the three board classes' probability, or if it is empty at least
    ``empty_over_black`` sure with black its only rival.

    The second way weighs two doubts apart. Doubt between board classes (a stone or not, black
    or white) is a reading's real risk; doubt between a board class and "covered" alone is
    the network unsure whether a point is a clean board point (on photos from a low camera: a
    neighbour's top leaning over it): if no other board class is in play, the likeliest one
    is the reading. Covered spots (argmax) and patches of them stay ``?`` (the
    reader widens patches), so a hand is not read through. Unsure spots read ``?`` with
    confidence 0.

    The third way: the network is under-confident in one doubt only, empty against black
    with empty the likeliest. A black stone is the darkest thing on a board in any light,
    so the doubt is a dark patch that is not quite a stone: a stone's cast shadow on the
    point beside it (a low lamp, a dim room). On the tuning renders such readings were
    right as often as those the bar reads (MODEL_CARD.md "Shadows"); black over empty, and
    any doubt of white, stay ``?`` (a white stone in shadow does look like the board).
    """
    best = probs.argmax(axis=1)
    conf = probs[np.arange(len(probs)), best].astype(np.float64)
    tokens = np.array(CLASSES, dtype="<U1")[best]
    board = np.maximum(1.0 - probs[:, 3].astype(np.float64), 1e-9)
    clear = (conf > 0.5) & (conf / board >= board_share)
    rivals = probs[:, 2].astype(np.float64) + probs[:, 3]
    clear |= (best == 0) & (conf >= empty_over_black) & (rivals < RIVALS)
    unsure = (tokens == UNKNOWN) | ((conf < threshold) & ~clear)
    tokens[unsure] = UNKNOWN
    conf[unsure] = 0.0
    return tokens.tolist(), conf


__all__ = [
    "BEYOND",
    "BLACK",
    "BLANK",
    "BOARD_SHARE",
    "CLASSES",
    "EMPTY",
    "EMPTY_OVER_BLACK",
    "LEAN_MAX",
    "LEAN_STEPS",
    "LOOK",
    "PATCH",
    "PX",
    "VIEWS",
    "WHITE",
    "Cutter",
    "StoneNet",
    "decide",
    "lean_shifts",
    "outside_outline",
]
