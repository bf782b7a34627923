"""A hand and forearm drawn over a training frame, so the board networks see many more hands
than the 3D scenes can afford to render.

Why: the proposer decodes four corner peaks, and on frames with a hand it also makes peaks of
its own on fingertips and knuckles, which the four-peak decoding picks over a true corner
(BOARD_CARD, session 12: a stray peak above the weakest true corner on 69-72 % of hand frames
against 42-44 % without). Rendered hand scenes cost a second each and were 28 % of the
training frames; a pasted hand costs about a millisecond, can lie anywhere (over a corner, the
grid, the table, a frame with no board) and leaves the truth as it is: the corners under it
are where they were. Drawn flat (capsules with a rounded shading, a soft shadow beside them),
not ray-cast: the network is to learn that such shapes are not corners, not what a hand is.
numpy and OpenCV only.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.hand import SKINS

Image = NDArray[np.uint8]
F64 = NDArray[np.float64]

#: The palm's width in spacings of the board (a Go board's spacing is about 22 mm, a palm
#: 70-105 mm); a frame with no board takes it as a share of the frame's longer side instead.
PALM_SPACINGS = (3.0, 4.8)
PALM_SHARE = (0.08, 0.25)


def _tip(
    corners: F64 | None,
    size: int,
    shape: tuple[int, int],
    rng: np.random.Generator,
    near: int | None,
) -> tuple[F64, float]:
    """Where the fingertips hover and how wide the palm is, in frame pixels: near the corner
    intersection ``near``; else half the time near one at random, or over the grid, or
    anywhere in the frame."""
    h, w = shape
    if corners is None or size < 2:
        return rng.uniform([0, 0], [w, h]), float(max(h, w) * rng.uniform(*PALM_SHARE))
    c = np.asarray(corners, np.float64)
    spacing = float(np.linalg.norm(np.diff(c, axis=0, append=c[:1]), axis=1).mean()) / (size - 1)
    palm = spacing * float(rng.uniform(*PALM_SPACINGS))
    pick = rng.uniform()
    if near is not None or pick < 0.5:
        k = int(rng.integers(0, 4)) if near is None else near
        tip = c[k] + rng.normal(0, 1.5 * spacing, 2)
    elif pick < 0.85:
        a, b = rng.uniform(0, 1, 2)
        tip = (1 - a) * (1 - b) * c[0] + a * (1 - b) * c[1] + a * b * c[2] + (1 - a) * b * c[3]
    else:
        tip = rng.uniform([0, 0], [w, h])
    return np.asarray(tip, np.float64), palm


def _shape(
    tip: F64, palm: float, shape: tuple[int, int], rng: np.random.Generator
) -> tuple[Image, F64, F64]:
    """The hand's mask (0/255, anti-aliased edges): palm, four fingers, a thumb and a forearm
    running out of the frame, the fingers pointing a random way from the palm to ``tip``;
    with the wrist and the way the fingers point."""
    h, w = shape
    phi = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(phi), np.sin(phi)])  # the way the fingers point
    v = np.array([-u[1], u[0]])
    curl = rng.uniform(0.35, 1.0) if rng.uniform() < 0.3 else 1.0  # a fist or a pinch
    reach = 0.72 * palm * curl
    centre = tip - u * (reach + 0.45 * palm)
    mask = np.zeros((h, w), np.uint8)
    q = 4.0  # sub-pixel bits of cv2's drawing: coordinates times 2**2

    def pt(p: F64) -> tuple[int, int]:
        return int(np.rint(p[0] * q)), int(np.rint(p[1] * q))

    def capsule(a: F64, b: F64, width: float) -> None:
        cv2.line(mask, pt(a), pt(b), (255,), max(1, round(width)), cv2.LINE_AA, shift=2)

    axes = (int(np.rint(0.5 * palm * q)), int(np.rint(0.55 * palm * q)))
    angle = float(np.degrees(phi))
    cv2.ellipse(mask, pt(centre), axes, angle + 90, 0, 360, (255,), -1, cv2.LINE_AA, shift=2)
    side = 1.0 if rng.uniform() < 0.5 else -1.0
    for j, off in enumerate((-0.33, -0.11, 0.11, 0.33)):
        base = centre + u * 0.3 * palm + v * off * side * palm
        length = (0.62, 0.75, 0.7, 0.55)[j] * palm * curl * rng.uniform(0.85, 1.1)
        bend = rng.uniform(-0.12, 0.12)
        capsule(base, base + (u + bend * v) * length, 0.19 * palm)
    thumb = centre - u * 0.15 * palm - v * 0.42 * side * palm
    capsule(thumb, thumb + (u * 0.6 - v * 0.5 * side) * 0.55 * palm, 0.22 * palm)
    wrist = centre - u * 0.55 * palm
    far = wrist - u * 4.0 * max(h, w)  # the forearm runs out of the frame
    capsule(wrist, far, 0.78 * palm)
    return mask, wrist, u


def paste_hand(
    image: Image,
    corners: F64 | None,
    size: int,
    rng: np.random.Generator,
    *,
    near: int | None = None,
) -> Image:
    """``image`` with a hand drawn over it (a new array; the truth is unchanged): skin of any
    tone under the frame's own light level, a sleeve from somewhere up the forearm, rounded
    shading and a soft shadow on what is under it. ``near``: a corner (0-3, TL TR BR BL) the
    hand reaches for (the corner network's patch is round one)."""
    return drawn_hand(image, corners, size, rng, near=near)[0]


def drawn_hand(
    image: Image,
    corners: F64 | None,
    size: int,
    rng: np.random.Generator,
    *,
    near: int | None = None,
) -> tuple[Image, NDArray[np.float32]]:
    """:func:`paste_hand`'s image (the same draws from ``rng``) and where the hand is (0..1,
    the image's size; not its shadow): the truth of the proposer's hand map."""
    h, w = image.shape[:2]
    tip, palm = _tip(corners, size, (h, w), rng, near)
    mask, wrist, u = _shape(tip, palm, (h, w), rng)
    # a soft shadow, thrown off to one side
    a = rng.uniform(0, 2 * np.pi)
    d = rng.uniform(0.05, 0.45) * palm
    m = np.array([[1, 0, d * np.cos(a)], [0, 1, d * np.sin(a)]], np.float32)
    sigma = max(0.5, 0.2 * palm)
    moved = np.asarray(cv2.warpAffine(mask, m, (w, h)), np.uint8)
    shadow_strength = rng.uniform(0.15, 0.6)
    light = float(np.median(image[::4, ::4])) / 160.0 * rng.uniform(0.7, 1.2)
    skin = np.array(SKINS[int(rng.integers(0, len(SKINS)))], np.float32)
    skin = skin * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    sleeve = rng.uniform() < 0.6
    cloth = rng.uniform(20, 235, 3).astype(np.float32)
    cut = palm * rng.uniform(0.3, 3.0)
    # everything below only where the hand or its shadow is (a training view pastes many)
    ys, xs = np.nonzero(mask | moved)
    if not len(ys):
        return image.copy(), np.zeros((h, w), np.float32)
    grow = int(3 * sigma) + 2
    y0, y1 = max(0, int(ys.min()) - grow), min(h, int(ys.max()) + grow + 1)
    x0, x1 = max(0, int(xs.min()) - grow), min(w, int(xs.max()) + grow + 1)
    box = (slice(y0, y1), slice(x0, x1))
    out = image.copy()
    part = image[box].astype(np.float32)
    shadow = np.asarray(cv2.GaussianBlur(moved[box], (0, 0), sigma), np.float32) / 255.0
    part *= (1.0 - shadow_strength * shadow)[..., None]
    # the hand: skin (or a sleeve from the wrist up), shaded rounder towards its middle
    inside = (mask[box] > 127).astype(np.uint8)
    depth = cv2.distanceTransform(inside, cv2.DIST_L2, 3) / max(1.0, 0.3 * palm)
    shade = (0.55 + 0.45 * np.sqrt(np.clip(depth, 0, 1))).astype(np.float32) * light
    bh, bw = inside.shape
    colour = np.empty((bh, bw, 3), np.float32)
    colour[:] = skin
    if sleeve:  # cloth from some way up the forearm
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        back = -((xx - wrist[0]) * u[0] + (yy - wrist[1]) * u[1])  # up the forearm
        colour[back > cut] = cloth
    hand = colour * shade[..., None]
    hand += rng.normal(0, 3, (bh, bw, 1)).astype(np.float32)
    alpha = (mask[box].astype(np.float32) / 255.0)[..., None]
    part += alpha * (hand - part)
    out[box] = np.clip(part, 0, 255).astype(np.uint8)
    return out, mask.astype(np.float32) / 255.0
