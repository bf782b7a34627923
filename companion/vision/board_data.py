"""Training material for the board proposer: whole frames with their corner intersections,
and the augmented, letterboxed views (with target maps) that the network learns from.

A :class:`Frame` is one picture, stored small (longer side :data:`STORE_SIDE`) with the four
corner intersections in its pixels, or none when no board is in it. Frames come from the 3D
scene renderer (:func:`scene_frame`; seeds below 10**6 only, test sets start there), the flat
renderer (:func:`flat_frame`), plain cloths with no board (:func:`empty_frame`) and labelled
photos that have corners (:func:`photo_frames`; the held-out ``imago`` set is refused).

:func:`sample` turns a frame into what the network trains on: turned, scaled and shifted at
random, under colour casts, gamma, uneven light, blur, noise and JPEG, letterboxed to the
network's input, with the target maps of :func:`targets`. numpy and OpenCV only (no torch).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import CompanionError, VisionError
from companion.vision.board_net import (
    INPUT_H,
    INPUT_W,
    PATCH,
    STRIDE,
    corner_patch,
    letterbox,
    patch_to_image,
    pyramid,
)
from companion.vision.geometry import homography, project
from companion.vision.pasted_hand import drawn_hand, paste_hand

Image = NDArray[np.uint8]
F32 = NDArray[np.float32]
STORE_SIDE = 384  # longer side of a stored frame, pixels
TEST_SEEDS_FROM = 1_000_000  # = companion.vision.scene.TEST_SEEDS_FROM (not imported: slow)
HAND_SEEDS_FROM = 600_000  # hand scenes' seeds (validation scenes are 500000..; tests 10**6..)
HELD_OUT_SETS = ("imago",)  # photo sets eval-finder --part held-out measures: never trained on
SIGMA = 1.2  # corner peaks' spread in output cells
GUESS_SIDE = 0.04  # a first guess's corner error (per axis, in board sides), as the proposals'
GUESS_SPACING = 0.35  # a second guess's corner error (per axis, in spacings)
_FRAMES = ((4, 3), (16, 9), (4, 3), (3, 4), (4, 3))  # aspect ratios as eval-finder draws them


@dataclass(frozen=True)
class Frame:
    """One stored picture and its truth (``corners`` None: no board in it; ``hand`` where a
    hand is, 0..1 at the frame's size, all 0 for none, None when not known: a photo)."""

    image: Image
    corners: NDArray[np.float64] | None  # TL, TR, BR, BL corner intersections, frame pixels
    size: int  # 0 when no board
    name: str
    hand: F32 | None = None


def _shrink(
    image: Image, corners: NDArray[np.float64] | None
) -> tuple[Image, NDArray[np.float64] | None]:
    h, w = image.shape[:2]
    k = STORE_SIDE / max(h, w)
    if k >= 1:
        return image, corners
    small = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
    moved = None if corners is None else (corners + 0.5) * k - 0.5
    return np.asarray(small, dtype=np.uint8), moved


def _check_seed(seed: int) -> None:
    if not 0 <= seed < TEST_SEEDS_FROM:
        raise CompanionError(f"training seed {seed} is not in 0..{TEST_SEEDS_FROM - 1}")


def scene_frame(seed: int, *, hand: bool | None = None) -> Frame:
    """A 3D-rendered photo (board size and frame shape drawn from the seed), rendered at the
    stored size directly (rendering is the slow part); ``hand`` pins that factor."""
    from companion.vision.scene import render_scene

    _check_seed(seed)
    rng = np.random.default_rng([seed, 91])
    size = int(rng.choice([19, 19, 13, 9]))
    aw, ah = _FRAMES[int(rng.integers(0, len(_FRAMES)))]
    k = STORE_SIDE / max(aw, ah)
    w, h = round(aw * k), round(ah * k)
    pinned = {} if hand is None else {"hand": hand}
    sc = render_scene(seed, size=size, width=w, height=h, **pinned)
    return Frame(
        sc.image,
        np.asarray(sc.corners[0], np.float64),
        size,
        f"scene {seed}",
        _no_hand(sc.image) if sc.hand is None else sc.hand,
    )


def _no_hand(image: Image) -> F32:
    return np.zeros(image.shape[:2], np.float32)


def hand_frame(seed: int) -> Frame:
    """A 3D scene with a hand over the board pinned (seeds from :data:`HAND_SEEDS_FROM`):
    the proposer fits hand scenes worse than others even on its own training frames (the
    card), and a hand is drawn in only a fifth of the plain scenes."""
    return scene_frame(HAND_SEEDS_FROM + seed, hand=True)


def flat_frame(seed: int) -> Frame:
    """A board of the flat renderer, any tilt, turn, light and look drawn from the seed."""
    from companion.vision.render import random_position, render_board

    _check_seed(seed)
    rng = np.random.default_rng([seed, 92])
    size = int(rng.choice([19, 19, 13, 9]))
    aw, ah = _FRAMES[int(rng.integers(0, len(_FRAMES)))]
    k = STORE_SIDE / max(aw, ah)
    rows = random_position(size, stones=float(rng.uniform(0.0, 0.85)), seed=seed)
    r = render_board(
        rows,
        size=size,
        style=("wood", "wood", "pale", "magnetic")[int(rng.integers(0, 4))],
        width=round(aw * k),
        height=round(ah * k),
        tilt=float(rng.uniform(0, 45)),
        rotate=float(rng.uniform(-45, 45)),
        fill=float(rng.uniform(0.35, 0.9)),
        light=("even", "dim", "uneven", "warm", "blue", "green")[int(rng.integers(0, 6))],
        glare=bool(rng.uniform() < 0.3),
        hand=bool(rng.uniform() < 0.2),
        nudge=float(rng.uniform(0, 0.12)),
        noise=float(rng.uniform(1, 5)),
        seed=seed,
    )
    hand = _no_hand(r.image) if r.hand is None else r.hand
    return Frame(r.image, np.asarray(r.corners[0], np.float64), size, f"flat {seed}", hand)


def empty_frame(seed: int) -> Frame:
    """No board: a striped, checked or printed cloth (sometimes with a ruled sheet on it)."""
    from companion.vision.finder_eval import cloth

    _check_seed(seed)
    rng = np.random.default_rng([seed, 93])
    h, w = (288, 384) if rng.uniform() < 0.7 else (216, 384)
    img = cloth((h, w), seed)
    if rng.uniform() < 0.4:  # a few dark strokes that are not a grid (writing, a ruler)
        for _ in range(int(rng.integers(1, 6))):
            p = rng.uniform(0, [w, h], (2, 2)).astype(int)
            cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), (30, 30, 30), 1)
    return Frame(img, None, 0, f"empty {seed}", _no_hand(img))


def photo_frames(root: str | Path, sets: Iterable[str]) -> list[Frame]:
    """Labelled photos with given corners in the named sets under ``root`` (never imago)."""
    from companion.vision.photoset import load_image, walk

    out: list[Frame] = []
    for name in sets:
        if name in HELD_OUT_SETS:
            raise CompanionError(f"{name} photos are held out: eval-finder measures them")
        for photo in walk(Path(root) / name):
            if photo.corners is None:
                continue
            img, c = _shrink(load_image(photo.path), np.array(photo.corners, np.float64))
            out.append(Frame(img, c, photo.size, str(photo.path.name)))
    return out


def cached(kind: str, seeds: Iterable[int], cache: str | Path) -> Iterator[Frame]:
    """Frames of ``kind`` (scene, hand, flat, empty) per seed, read from or written to
    ``cache/KIND-SEED.npz``. A file from before frames kept their hand map is made again
    where the frame has a hand (a plain scene's factors say so without rendering it)."""
    make = {"scene": scene_frame, "hand": hand_frame, "flat": flat_frame, "empty": empty_frame}[
        kind
    ]
    folder = Path(cache).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        path = folder / f"{kind}-{seed}.npz"
        if path.is_file():
            z = np.load(path)
            corners = z["corners"] if z["corners"].size else None
            hand = None
            if "hand" in z:
                hand = z["hand"].astype(np.float32) / 255.0
            elif kind == "empty" or (kind == "scene" and not _scene_has_hand(seed)):
                hand = _no_hand(z["image"])
            if hand is not None:
                yield Frame(z["image"], corners, int(z["size"]), f"{kind} {seed}", hand)
                continue
        fr = make(seed)
        tmp = path.with_suffix(".tmp.npz")
        empty = np.zeros((0, 2), np.float64)
        plane = _no_hand(fr.image) if fr.hand is None else fr.hand
        np.savez(
            tmp,
            image=fr.image,
            corners=fr.corners if fr.corners is not None else empty,
            size=fr.size,
            hand=np.round(np.clip(plane, 0, 1) * 255).astype(np.uint8),
        )
        tmp.replace(path)
        yield fr


def _scene_has_hand(seed: int) -> bool:
    from companion.vision.scene.factors import draw_factors

    return bool(draw_factors(seed, {})["hand"])


def targets(corners: NDArray[np.float64] | None) -> tuple[F32, F32]:
    """The maps the network learns, at output resolution: a peak at each corner intersection
    (one map for all four: which corner is which is settled by their order on screen) and the
    grid's quadrilateral filled. ``corners`` in input (letterboxed) pixels."""
    oh, ow = INPUT_H // STRIDE, INPUT_W // STRIDE
    heat = np.zeros((oh, ow), np.float32)
    mask = np.zeros((oh, ow), np.float32)
    if corners is None:
        return heat, mask
    c = (np.asarray(corners, np.float64) + 0.5) / STRIDE - 0.5
    yy, xx = np.mgrid[0:oh, 0:ow].astype(np.float32)
    for x, y in c:
        heat = np.maximum(heat, np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * SIGMA**2)))
    poly = np.round(c * 8).astype(np.int32)
    m8 = np.zeros((oh, ow), np.uint8)
    cv2.fillConvexPoly(m8, poly, (1,), lineType=cv2.LINE_AA, shift=3)
    mask = m8.astype(np.float32)
    return heat, mask


def _look(img: F32, rng: np.random.Generator) -> F32:
    """Colour cast, gamma, uneven light, contrast (float BGR 0..255 in, same out)."""
    gains = rng.uniform(0.6, 1.3, 3).astype(np.float32)
    img = img * (gains / gains.max() * rng.uniform(0.6, 1.2))
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(0.6, 1.6)
    if rng.uniform() < 0.5:  # light falling off across the frame
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(a) * xx / w + np.sin(a) * yy / h).astype(np.float32)
        img = img * (1.0 + rng.uniform(-0.5, 0.5) * (ramp - ramp.mean()))[..., None]
    return np.asarray(img, np.float32)


def _maybe_blurred(f: F32, rng: np.random.Generator, most: float) -> F32:
    """``f`` out of focus half the time (a Gaussian of up to ``most`` pixels; none under 0.3)."""
    sigma = rng.uniform(0, most) if rng.uniform() < 0.5 else 0.0
    if sigma > 0.3:
        return np.asarray(cv2.GaussianBlur(f, (0, 0), sigma), np.float32)
    return f


def _noise_and_jpeg(f: F32, rng: np.random.Generator) -> NDArray[np.uint8]:
    """Sensor noise, then (three times in ten) a JPEG round trip at a poor quality: the last
    steps of every training view, the proposer's and the corner network's alike."""
    f = f + rng.normal(0, rng.uniform(0, 8), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.uniform() < 0.3:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(15, 70))])
        if not ok:
            raise VisionError("JPEG encoding failed")
        out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return out


def sample(
    frame: Frame, rng: np.random.Generator, hands: float = 0.0
) -> tuple[F32, F32, F32, F32 | None]:
    """One augmented training view of ``frame``: (input HxWx3 float 0..1 BGR, heat, mask,
    hand map or None when the frame's is not known); with probability ``hands`` a hand is
    drawn over it first (:mod:`pasted_hand`; 0 draws nothing from ``rng``, so the shipped
    recipe's views are unchanged)."""
    img, hand = frame.image, frame.hand
    if hands > 0 and rng.uniform() < hands:
        img, pasted = drawn_hand(img, frame.corners, frame.size, rng)
        hand = None if hand is None else np.maximum(hand, pasted)
    h, w = img.shape[:2]
    # a random turn, scale and shift of the whole frame (the board may leave the view a bit)
    ang = rng.uniform(-180, 180) if rng.uniform() < 0.5 else rng.uniform(-20, 20)
    scale = float(np.exp(rng.uniform(-0.45, 0.3)))
    centre = (w / 2 + rng.uniform(-0.15, 0.15) * w, h / 2 + rng.uniform(-0.15, 0.15) * h)
    m = np.asarray(cv2.getRotationMatrix2D(centre, ang, scale), np.float64)
    m[:, 2] += np.array([w / 2 - centre[0], h / 2 - centre[1]])
    if rng.uniform() < 0.5:  # mirror
        m = np.array([[-1, 0, w - 1], [0, 1, 0]], np.float64) @ np.vstack([m, [0, 0, 1]])
    border = int(rng.integers(0, 3))
    fill = tuple(float(v) for v in rng.uniform(0, 255, 3))
    mode = (cv2.BORDER_REFLECT_101, cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE)[border]
    warped = cv2.warpAffine(
        img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=mode, borderValue=fill
    )
    corners = None
    if frame.corners is not None:
        corners = np.asarray(frame.corners, np.float64) @ m[:, :2].T + m[:, 2]
    view, k, off = letterbox(np.asarray(warped, np.uint8))
    f = _look(view.astype(np.float32), rng)
    f = _maybe_blurred(f, rng, 1.6)
    if rng.uniform() < 0.25:  # motion blur
        n = int(rng.integers(3, 8))
        kern = np.zeros((n, n), np.float32)
        kern[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = np.asarray(cv2.warpAffine(kern, rot, (n, n)), np.float32)
        f = np.asarray(cv2.filter2D(f, -1, kern / max(float(kern.sum()), 1e-6)), np.float32)
    out = _noise_and_jpeg(f, rng)
    if corners is not None:
        corners = corners * k + off
    heat, mask = targets(corners)
    hand_map = None
    if hand is not None:  # the hand moved as the frame was, letterboxed, at the maps' size
        moved = cv2.warpAffine(hand, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=mode)
        plane = letterbox(np.asarray(moved, np.float32))[0]
        size = (INPUT_W // STRIDE, INPUT_H // STRIDE)
        hand_map = np.asarray(cv2.resize(plane, size, interpolation=cv2.INTER_AREA), np.float32)
    return out.astype(np.float32) / 255.0, heat, mask, hand_map


def corner_sample(
    frame: Frame, rng: np.random.Generator, hands: float = 0.0
) -> tuple[F32, NDArray[np.float64]]:
    """One training patch for the corner network: a corner of ``frame``'s board seen through
    a guess of the four corners off by about what the proposals miss by (half the time the
    first guess's error, else the smaller one left for the second round), under the same
    colour, blur, noise and JPEG as :func:`sample`: (patch HxWx3 float 0..1 BGR, where the
    true corner is in the patch, pixels). ``hands``: as :func:`sample`'s."""
    if frame.corners is None:
        raise CompanionError(f"{frame.name} has no board: no corner to learn")
    t = np.asarray(frame.corners, np.float64)
    n = frame.size
    side = float(np.linalg.norm(np.diff(t, axis=0, append=t[:1]), axis=1).mean())
    k = int(rng.integers(0, 4))
    m, spot = patch_to_image(t, n, k), np.full(2, PATCH / 2 - 0.5)
    for _ in range(10):
        sd = GUESS_SIDE * side if rng.uniform() < 0.5 else GUESS_SPACING * side / (n - 1)
        guess = patch_to_image(t + rng.normal(0, sd, (4, 2)), n, k)
        if not np.isfinite(guess).all() or abs(np.linalg.det(guess)) < 1e-12:
            continue
        at = project(np.linalg.inv(guess), t[k])
        if np.all(at > 4) and np.all(at < PATCH - 5):
            m, spot = guess, at
            break
    img = frame.image
    if hands > 0 and rng.uniform() < hands:
        img = paste_hand(img, t, n, rng, near=k)
    patch = corner_patch(pyramid(img), m)
    f = _look(patch.astype(np.float32), rng)
    f = _maybe_blurred(f, rng, 1.5)
    return _noise_and_jpeg(f, rng).astype(np.float32) / 255.0, spot


#: The grid check's wrong grids, by kind, and how often each is drawn (the rest are right).
CHECK_WRONG = (
    ("a line off", 0.14),  # the whole grid moved a line (or a line each way)
    ("a side off", 0.10),  # one side moved a line out or in
    ("half a line off", 0.08),
    ("other size", 0.06),  # the same outline read as another size
    ("a block", 0.04),  # a smaller grid inside the board
    ("corners off", 0.08),  # each corner moved at random, 0.4 spacings or more at worst
)
CHECK_RIGHT_JITTER = 0.07  # spacings: a right grid's corners, as the finder places them
_UNIT4 = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)


def _wrong_grid(n: int, kind: str, rng: np.random.Generator) -> tuple[NDArray[np.float64], int]:
    """Grid-unit corners (TL TR BR BL) and size of one wrong grid of ``kind`` on an n x n
    board whose corners are (0, 0) .. (n-1, n-1)."""
    g = _UNIT4 * (n - 1)
    if kind == "a line off":
        d = np.zeros(2)
        while not d.any():
            d = rng.integers(-1, 2, 2).astype(np.float64)
        return g + d, n
    if kind == "a side off":
        side = int(rng.integers(0, 4))
        normal = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], np.float64)[side]
        g = g.copy()
        g[[side, (side + 1) % 4]] += normal * (1.0 if rng.uniform() < 0.5 else -1.0)
        return g, n
    if kind == "half a line off":
        d = np.zeros(2)
        while not d.any():
            d = rng.integers(-1, 2, 2) * 0.5
        return g + d, n
    if kind == "other size":
        return g, int(rng.choice([m for m in (9, 13, 19) if m != n]))
    if kind == "a block":
        m = int(rng.choice([m for m in (9, 13) if m < n] or [max(2, n - 2)]))
        a, b = rng.integers(0, n - m + 1, 2)
        return _UNIT4 * (m - 1) + np.array([a, b], np.float64), m
    # corners off: each moved at random until the worst is 0.4 spacings or more
    for _ in range(20):
        moved = g + rng.normal(0, rng.uniform(0.3, 1.5), (4, 2))
        if np.linalg.norm(moved - g, axis=1).max() >= 0.4:
            return moved, n
    return g + 1.0, n


def check_sample(frame: Frame, rng: np.random.Generator, hands: float = 0.0) -> tuple[F32, float]:
    """One training view for the grid check (:mod:`grid_check`): (4 x VIEW x VIEW input,
    1.0 for a right grid, 0.0 for a wrong one). Right grids are the truth with the corners
    a little off (:data:`CHECK_RIGHT_JITTER`); wrong ones are drawn by :data:`CHECK_WRONG`;
    a frame without a board gives a wrong grid at random. ``hands``: the share of views with
    a hand drawn over the frame first (:mod:`pasted_hand`)."""
    img = frame.image
    h, w = img.shape[:2]
    if frame.corners is None:  # no board: any quadrilateral is wrong
        n = int(rng.choice([9, 13, 19]))
        centre = rng.uniform([0.2 * w, 0.2 * h], [0.8 * w, 0.8 * h])
        half = rng.uniform(0.15, 0.45) * min(h, w)
        quad = centre + (_UNIT4 * 2 - 1) * half + rng.normal(0, 0.1 * half, (4, 2))
        label = 0.0
    else:
        n = frame.size
        H = homography(np.asarray(frame.corners, np.float64), n)
        pick, label = rng.uniform(), 1.0
        g, size = (
            _UNIT4 * (n - 1) + np.clip(rng.normal(0, CHECK_RIGHT_JITTER, (4, 2)), -0.18, 0.18),
            n,
        )
        for kind, share in CHECK_WRONG:
            if pick < share:
                g, size = _wrong_grid(n, kind, rng)
                label = 0.0
                break
            pick -= share
        quad = project(H, g)
        n = size
        if hands > 0 and rng.uniform() < hands:
            img = paste_hand(img, frame.corners, frame.size, rng)
    return _grid_view(img, quad, n, rng), label


def _grid_view(
    img: Image,
    quad: NDArray[np.float64],
    n: int,
    rng: np.random.Generator,
    margin: float | None = None,
) -> F32:
    """The grid check's and the grid fit's input for ``img`` seen through ``quad``
    (:func:`grid_check.rectified`, :func:`grid_check.blob`; ``margin`` spacings beyond the
    outer lines, the check's own unless the reach's), under colour, blur, noise and JPEG
    drawn from ``rng``."""
    from companion.vision import grid_check

    margin = grid_check.MARGIN if margin is None else margin
    view = grid_check.rectified(pyramid(img), quad, n, margin)
    f = _look(view.astype(np.float32), rng)
    f = _maybe_blurred(f, rng, 1.2)
    return grid_check.blob(_noise_and_jpeg(f, rng), n, margin)


#: How the grid fit's training grids are moved off the truth, and how often (spacings).
FIT_MOVES = (
    ("every corner", 0.35),  # each corner off at random, 0.05-0.35 spacing (sd)
    ("one corner", 0.30),  # one corner 0.2-1 spacing off, the others nearly right
    ("shifted", 0.20),  # the whole grid slid up to half a spacing (stones' tops fitted)
)
FIT_NEAR = 0.05  # spacings (sd): the others' error, and a nearly right grid's (the rest)
FIT_MOST = 1.5  # spacings: a target is clipped to this (a grid that far off is no near miss)


def fit_offsets(rng: np.random.Generator) -> NDArray[np.float64]:
    """Grid-unit moves (4 x 2, TL TR BR BL) of one training grid for the grid fit, drawn by
    :data:`FIT_MOVES`."""
    pick = rng.uniform()
    d = rng.normal(0, FIT_NEAR, (4, 2))
    for kind, share in FIT_MOVES:
        if pick < share:
            if kind == "every corner":
                d = rng.normal(0, rng.uniform(0.05, 0.35), (4, 2))
            elif kind == "one corner":
                angle = rng.uniform(0, 2 * np.pi)
                d[int(rng.integers(0, 4))] = rng.uniform(0.2, 1.0) * np.array(
                    [np.cos(angle), np.sin(angle)]
                )
            else:
                d += rng.uniform(-0.5, 0.5, 2)
            break
        pick -= share
    return np.clip(d, -FIT_MOST, FIT_MOST)


def fit_sample(
    frame: Frame, rng: np.random.Generator, hands: float = 0.0
) -> tuple[F32, NDArray[np.float32]]:
    """One training view for the grid fit (:mod:`grid_fit`): (4 x VIEW x VIEW input, where the
    true corners are in the moved grid's own units minus its corners: 8 numbers, TL TR BR BL,
    x then y, spacings). The view is the grid check's (:func:`grid_check.rectified`) through
    the truth moved by :func:`fit_offsets`, under the same colour, blur, noise and JPEG."""
    return _moved_grid_sample(frame, rng, hands, fit_offsets, "fit", 1.0, FIT_MOST)


def _moved_grid_sample(
    frame: Frame,
    rng: np.random.Generator,
    hands: float,
    offsets: Callable[[np.random.Generator], NDArray[np.float64]],
    what: str,
    unit: float,
    most: float,
    margin: float | None = None,
) -> tuple[F32, NDArray[np.float32]]:
    """What :func:`fit_sample` and :func:`reach_sample` share: ``frame``'s truth moved by
    ``offsets`` (in units of ``unit`` spacings), a hand pasted over ``hands`` of the views,
    the view through the moved grid (``margin``: the check's own unless given) and the target,
    where the true corners are in the moved grid's units minus its corners, over ``unit`` and
    clipped at ``most``. ``what`` names the network in the error for a frame with no board."""
    if frame.corners is None:
        raise CompanionError(f"{frame.name} has no board: no grid to {what}")
    n = frame.size
    truth = np.asarray(frame.corners, np.float64)
    ends = _UNIT4 * (n - 1)
    quad = project(homography(truth, n), ends + offsets(rng) * unit)
    target = (project(np.linalg.inv(homography(quad, n)), truth) - ends) / unit
    img = frame.image
    if hands > 0 and rng.uniform() < hands:
        img = paste_hand(img, truth, n, rng)
    flat = np.clip(target, -most, most).reshape(-1).astype(np.float32)
    return _grid_view(img, quad, n, rng, margin), flat


#: How the grid reach's training grids are moved off the truth (board sides: spacings over
#: n - 1), each added to the one before: the whole grid slid, grown or shrunk, each corner
#: off, and (often) one corner far off (a hand over it). Sized on the proposer's misses on
#: the validation views ending in "no board": 1.5-8 spacings of a 19 x 19, 1.5-3.3 of a 9 x 9.
REACH_SLIDE = 0.15  # most a whole grid is slid, each way
REACH_GROW = 0.08  # sd of the log of how much the grid is grown round its centre
REACH_EACH = (0.005, 0.06)  # sd of every corner's own error, drawn between these
REACH_FAR = (0.35, 0.05, 0.3)  # share of grids with one corner far off, and how far
REACH_MOST = 0.35  # board sides: a target is clipped to this


def reach_offsets(rng: np.random.Generator) -> NDArray[np.float64]:
    """Moves (4 x 2, TL TR BR BL, board sides) of one training grid for the grid reach."""
    d = rng.uniform(-REACH_SLIDE, REACH_SLIDE, 2) * rng.uniform() + np.zeros((4, 2))
    d += (_UNIT4 - 0.5) * (np.exp(rng.normal(0, REACH_GROW)) - 1)
    d += rng.normal(0, rng.uniform(*REACH_EACH), (4, 2))
    share, near, far = REACH_FAR
    if rng.uniform() < share:
        angle = rng.uniform(0, 2 * np.pi)
        d[int(rng.integers(0, 4))] += rng.uniform(near, far) * np.array(
            [np.cos(angle), np.sin(angle)]
        )
    return np.clip(d, -REACH_MOST, REACH_MOST)


def reach_sample(
    frame: Frame, rng: np.random.Generator, hands: float = 0.0
) -> tuple[F32, NDArray[np.float32]]:
    """One training view for the grid reach (:func:`grid_fit.reached`): as
    :func:`fit_sample`, through the truth moved by :func:`reach_offsets`, with the reach's
    wider margin, the target in board sides."""
    from companion.vision import grid_fit

    n = frame.size
    return _moved_grid_sample(
        frame, rng, hands, reach_offsets, "reach", n - 1.0, REACH_MOST, grid_fit.reach_margin(n)
    )
