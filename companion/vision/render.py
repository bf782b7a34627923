"""Synthetic board photos: a given position on a given board look, camera pose and light.

Used by the tests (cases no real photo covers: the 9x9 magnetic fridge set, a stacked pair
side by side, a hand over the board, dim or coloured light) and by the demo, which feeds
rendered frames through the whole loop. The renderer knows the truth: :class:`Rendered`
carries the corner intersections of every layer and the spots a hand hides.

It is a plausible drawing, not a physical simulation: a top-down board texture (wood grain,
pale maple nearly as white as the stones, or a flat white/metal sheet; lines, star points,
stones with shading, shadow and a raised top that shows off its point towards the camera),
warped into the frame by a homography.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError

Style = Literal["wood", "pale", "magnetic"]
Light = Literal["even", "dim", "uneven", "warm", "blue", "green"]
PPU = 40  # texture pixels per grid unit

_LIGHTS: dict[str, tuple[float, float, float]] = {  # BGR gains
    "even": (1.0, 1.0, 1.0),
    "dim": (0.33, 0.33, 0.33),
    "uneven": (1.0, 1.0, 1.0),
    "warm": (0.55, 0.85, 1.1),
    "blue": (1.15, 0.85, 0.6),
    "green": (0.7, 1.1, 0.7),
}


@dataclass(frozen=True)
class Rendered:
    """A rendered frame and its truth.

    ``corners[layer]`` is the (4, 2) TL, TR, BR, BL corner intersections in pixels;
    ``hidden`` the spot indices (layer-major, row-major) a hand covers; ``hand`` where the
    hand is drawn (0..1, the frame's size), or None when no hand is drawn.
    """

    image: NDArray[np.uint8]
    size: int
    corners: list[NDArray[np.float64]]
    rows: tuple[str, ...]
    hidden: frozenset[int] = field(default_factory=frozenset)
    hand: NDArray[np.float32] | None = None

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(t for r in self.rows for t in r.split())


def _tokens(rows: Sequence[str], size: int, layers: int) -> list[list[list[str]]]:
    toks = [r.split() for r in rows]
    if len(toks) != size * layers or any(len(t) != size for t in toks):
        raise VisionError(f"need {size * layers} rows of {size} tokens")
    if any(t not in ".BW" for row in toks for t in row):
        raise VisionError("tokens must be . B W")
    return [toks[i * size : (i + 1) * size] for i in range(layers)]


def _texture(style: Style, size: int, rng: np.random.Generator) -> NDArray[np.float32]:
    """Top-down board (no stones), ``(size + 1) * PPU`` square, point (x, y) at ((x+1)*PPU)."""
    side = (size + 1) * PPU
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    if style == "wood":
        base = np.array(rng.uniform([70, 140, 190], [120, 190, 235]), np.float32)
        freq = rng.uniform(0.02, 0.05)
        grain = np.sin(yy * freq + 3.0 * np.sin(xx * 0.004 + rng.uniform(0, 6))) * 0.06
        grain += rng.normal(0, 0.015, (side, side)).astype(np.float32)
        img = base[None, None, :] * (1.0 + grain[..., None])
        line_col, line_w = np.array([30, 35, 40], np.float32), max(2, PPU // 20)
    elif style == "pale":  # light maple or a printed board: nearly as white as a white stone
        base = np.array(rng.uniform([196, 210, 222], [222, 232, 242]), np.float32)
        freq = rng.uniform(0.02, 0.05)
        grain = np.sin(yy * freq + 3.0 * np.sin(xx * 0.004 + rng.uniform(0, 6))) * 0.025
        grain += rng.normal(0, 0.01, (side, side)).astype(np.float32)
        img = base[None, None, :] * (1.0 + grain[..., None])
        line_col, line_w = np.array([40, 42, 45], np.float32), max(2, PPU // 20)
    else:  # magnetic fridge set: white or metal sheet, thin grey lines
        base = np.array(rng.choice([[236, 236, 236], [205, 208, 212]]), np.float32)
        img = base[None, None, :] * (1.0 + rng.normal(0, 0.01, (side, side, 1)).astype(np.float32))
        line_col, line_w = np.array([110, 110, 110], np.float32), max(1, PPU // 30)
    img = np.ascontiguousarray(img)
    lo, hi = PPU, size * PPU
    for i in range(size):
        p = (i + 1) * PPU
        cv2.line(img, (lo, p), (hi, p), line_col.tolist(), line_w)
        cv2.line(img, (p, lo), (p, hi), line_col.tolist(), line_w)
    for r, c in _star_points(size):
        cv2.circle(img, ((c + 1) * PPU, (r + 1) * PPU), max(3, PPU // 9), line_col.tolist(), -1)
    return img


def _star_points(size: int) -> list[tuple[int, int]]:
    if size < 9:
        return []
    e = 2 if size < 13 else 3
    pts = [e, size // 2, size - 1 - e] if size % 2 else [e, size - 1 - e]
    return [(r, c) for r in pts for c in pts]


def _draw_stones(
    img: NDArray[np.float32],
    board: list[list[str]],
    style: Style,
    lift: NDArray[np.float64],
    rng: np.random.Generator,
    *,
    glare: bool,
    nudge: float,
) -> None:
    """Stones with a side, a top raised by ``lift`` (texture px), shadow and shading."""
    size = len(board)
    rad = 0.42 * PPU if style == "magnetic" else 0.47 * PPU
    flat = style == "magnetic"
    for r in range(size):
        for c in range(size):
            t = board[r][c]
            if t == ".":
                continue
            jitter = rng.uniform(-nudge, nudge, 2) * PPU
            cx, cy = (c + 1) * PPU + jitter[0], (r + 1) * PPU + jitter[1]
            up = lift * (0.3 if flat else 1.0)
            # shadow, then side, then top
            cv2.circle(
                img,
                (int(cx + 3), int(cy + 4)),
                int(rad),
                (0.55 * img[int(cy) % img.shape[0], int(cx) % img.shape[1]]).tolist(),
                -1,
                cv2.LINE_AA,
            )
            if t == "B":
                side_col, top_col = (22, 22, 24), (38, 38, 42)
            else:
                side_col, top_col = (185, 188, 190), (238, 240, 240)
            cv2.circle(img, (int(cx), int(cy)), int(rad), side_col, -1, cv2.LINE_AA)
            tx, ty = cx + up[0], cy + up[1]
            cv2.circle(img, (int(tx), int(ty)), int(rad), top_col, -1, cv2.LINE_AA)
            if flat and t == "W":  # magnetic white: a faint rim is all that shows on white
                cv2.circle(img, (int(tx), int(ty)), int(rad), (175, 178, 180), 1, cv2.LINE_AA)
            if not flat:  # a dome: its edge turns away from the light and shows darker
                edge = tuple(0.82 * v for v in top_col)
                cv2.circle(
                    img, (int(tx), int(ty)), int(rad) - 1, edge, max(2, PPU // 16), cv2.LINE_AA
                )
            if not flat:  # soft shading on the dome
                hl = tuple(min(255.0, v + (25 if t == "B" else 12)) for v in top_col)
                cv2.circle(
                    img,
                    (int(tx - rad * 0.25), int(ty - rad * 0.25)),
                    int(rad * 0.45),
                    hl,
                    -1,
                    cv2.LINE_AA,
                )
            if glare and t == "B":
                cv2.circle(
                    img,
                    (int(tx - rad * 0.2), int(ty - rad * 0.3)),
                    int(rad * 0.22),
                    (235, 235, 235),
                    -1,
                    cv2.LINE_AA,
                )


def _hand(
    frame: NDArray[np.float32], rng: np.random.Generator, anchor: NDArray[np.float64], span: float
) -> NDArray[np.uint8]:
    """A skin-coloured hand and forearm reaching in from the bottom edge; returns its mask."""
    h, w = frame.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    ax, ay = anchor
    palm_w, palm_h = span * 0.22, span * 0.26
    cv2.ellipse(
        mask,
        (int(ax), int(ay)),
        (int(palm_w), int(palm_h)),
        rng.uniform(-20, 20),
        0,
        360,
        (255,),
        -1,
    )
    for k in range(4):
        fx = ax - palm_w * 0.75 + k * palm_w * 0.5
        cv2.line(
            mask,
            (int(fx), int(ay - palm_h * 0.6)),
            (int(fx + rng.uniform(-10, 10)), int(ay - palm_h * 1.6)),
            (255,),
            max(6, int(span * 0.05)),
        )
    cv2.line(
        mask,
        (int(ax), int(ay)),
        (int(ax + rng.uniform(-40, 40)), h + 50),
        (255,),
        int(palm_w * 1.6),
    )
    skin = np.array(rng.uniform([90, 130, 190], [140, 175, 235]), np.float32)
    shade = cv2.GaussianBlur(rng.normal(1.0, 0.05, (h, w)).astype(np.float32), (0, 0), 9)
    m = mask > 0
    frame[m] = skin[None, :] * shade[m][:, None]
    return mask


def render_board(
    rows: Sequence[str],
    *,
    size: int | None = None,
    layers: int = 1,
    style: Style = "wood",
    width: int = 1280,
    height: int = 720,
    tilt: float = 0.0,
    rotate: float = 0.0,
    fill: float = 0.8,
    light: Light = "even",
    glare: bool = False,
    hand: bool = False,
    nudge: float = 0.0,
    noise: float = 2.0,
    seed: int = 0,
    corners: Sequence[Sequence[float]] | NDArray[np.float64] | None = None,
) -> Rendered:
    """Render ``rows`` (the photo-label format; ``layers * size`` rows for a stacked board).

    ``tilt`` (degrees, 0..50) leans the camera back from overhead so the far edge shrinks and
    stone tops show off their points; ``rotate`` turns the board in the image; ``fill`` is the
    share of the frame's height the boards take. ``nudge`` moves stones up to that many units
    off their points. ``corners`` (four x, y per layer: TL, TR, BR, BL corner intersections)
    places the boards exactly instead, overriding ``tilt``/``rotate``/``fill`` placement (the
    stone-top offset still follows ``tilt``). Raises :class:`VisionError` for rows that are not
    a board or corners that are not four points per layer.
    """
    size = size or len(rows) // layers
    boards = _tokens(rows, size, layers)
    if corners is not None and np.asarray(corners, dtype=np.float64).size != 8 * layers:
        raise VisionError(f"corners must be four x,y points per layer ({layers})")
    rng = np.random.default_rng(seed)
    frame = np.empty((height, width, 3), np.float32)
    table = np.array(rng.uniform([40, 60, 80], [120, 140, 170]), np.float32)
    frame[:] = table
    frame *= (
        1.0
        + cv2.GaussianBlur(rng.normal(0, 0.25, (height, width)).astype(np.float32), (0, 0), 3)[
            ..., None
        ]
    )

    side = (size + 1) * PPU
    t = np.radians(np.clip(tilt, 0.0, 60.0))
    # camera leaning back: raised stone tops show further up the image (towards the far edge)
    lift_px = np.array([0.0, -0.45 * PPU * np.sin(t)])
    corners_all: list[NDArray[np.float64]] = []
    gap = 0.15
    slot_w = width / (layers + gap * (layers - 1)) if layers > 1 else width
    for layer, board in enumerate(boards):
        tex = _texture(style, size, rng)
        _draw_stones(tex, board, style, lift_px, rng, glare=glare, nudge=nudge)
        # where the texture's square lands in the frame
        bside = min(height * fill, slot_w * 0.95)
        cx = (
            (layer + 0.5) * slot_w * (1 + gap) - (gap * slot_w / 2 if layers > 1 else 0)
            if layers > 1
            else width / 2
        )
        cy = height / 2
        shrink = np.sin(t) * 0.35
        half = bside / 2
        quad = np.array(
            [
                [-half * (1 - shrink), -half * (1 - 0.3 * shrink)],
                [half * (1 - shrink), -half * (1 - 0.3 * shrink)],
                [half, half],
                [-half, half],
            ]
        )
        a = np.radians(rotate)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        quad = quad @ R.T + [cx, cy]
        src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
        H = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        if corners is not None:
            # the caller places the corner intersections (TL, TR, BR, BL) of each layer
            quad_pts = np.asarray(corners, dtype=np.float32).reshape(layers, 4, 2)[layer]
            grid_pts = np.array(
                [[PPU, PPU], [size * PPU, PPU], [size * PPU, size * PPU], [PPU, size * PPU]],
                np.float32,
            )
            H = cv2.getPerspectiveTransform(grid_pts, quad_pts)
        warped = cv2.warpPerspective(
            tex, H, (width, height), flags=cv2.INTER_LINEAR, borderValue=(-1, -1, -1)
        )
        inside = warped[..., 0] >= 0
        frame[inside] = warped[inside]
        pts = np.array(
            [[PPU, PPU], [size * PPU, PPU], [size * PPU, size * PPU], [PPU, size * PPU]], np.float64
        )
        corners_all.append(
            np.asarray(
                cv2.perspectiveTransform(pts.reshape(1, 4, 2), H.astype(np.float64)), np.float64
            ).reshape(4, 2)
        )

    hidden: set[int] = set()
    hand_map: NDArray[np.float32] | None = None
    if hand:
        c0 = corners_all[0]
        span = float(np.linalg.norm(c0[2] - c0[3]))
        anchor = (
            c0.mean(axis=0) + (c0[2] - c0[3]) * rng.uniform(-0.15, 0.15) + (c0[2] - c0[1]) * 0.15
        )
        mask = _hand(frame, rng, anchor, span)
        hand_map = (mask > 0).astype(np.float32)
        mask = np.asarray(cv2.dilate(mask, np.ones((5, 5), np.uint8)), np.uint8)
        for layer, c in enumerate(corners_all):
            src = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
            Hs = cv2.getPerspectiveTransform(src, c.astype(np.float32))
            rr, cc = np.mgrid[0:size, 0:size]
            grid = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
            pix = cv2.perspectiveTransform(grid.reshape(1, -1, 2), Hs.astype(np.float64)).reshape(
                -1, 2
            )
            # a spot is hidden if the hand covers any of its disc (half a spacing around)
            sp = float(np.linalg.norm(c[1] - c[0])) / (size - 1)
            cover = cv2.dilate(mask, np.ones((int(sp) | 1, int(sp) | 1), np.uint8))
            for i, (x, y) in enumerate(pix):
                if 0 <= int(y) < height and 0 <= int(x) < width and cover[int(y), int(x)]:
                    hidden.add(layer * size * size + i)

    gains = np.array(_LIGHTS[light], np.float32)
    frame *= gains[None, None, :]
    if light == "uneven":
        ramp = np.linspace(1.15, 0.45, width, dtype=np.float32)[None, :, None]
        frame *= ramp
    frame += rng.normal(0, noise, frame.shape).astype(np.float32)
    image = np.clip(frame, 0, 255).astype(np.uint8)
    return Rendered(
        image=image,
        size=size,
        corners=corners_all,
        rows=tuple(rows),
        hidden=frozenset(hidden),
        hand=hand_map,
    )


def random_position(size: int, *, stones: float = 0.3, seed: int = 0, layers: int = 1) -> list[str]:
    """Rows of a random position with about ``stones`` of the points taken (for tests, demos)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(size * layers):
        toks = rng.choice([".", "B", "W"], size=size, p=[1 - stones, stones / 2, stones / 2])
        out.append(" ".join(str(t) for t in toks))
    return out
