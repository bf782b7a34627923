"""Synthetic photos of a Beyond Chess table, for the look reader's tests and the chess demo.

A top-down texture of the camera grid (:class:`~companion.vision.chess_grid.ChessGrid`): a cloth
table, loose light and dark squares (a small gap and a shadow around each) where the look has
them, and round piece tops, ivory for white and ebony for black, raised towards the far edge
when the camera leans back. It is warped into the frame by a homography; an optional hand
(:func:`companion.vision.render._hand`) reaches over part of the board. The renderer knows the
truth: :class:`RenderedTable` carries the look drawn, the homography and the cells a hand hides.
It is a plausible drawing, not a physical simulation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.games.beyond_chess import Cell, coords
from companion.vision.chess_grid import ChessGrid
from companion.vision.render import _LIGHTS, Light, _hand

PPC = 40  # texture pixels per grid cell

TABLE_BGR = (112, 72, 38)  # a blue cloth
LIGHT_BGR = (168, 208, 232)  # maple
DARK_BGR = (58, 92, 138)  # walnut
WHITE_TOP = (236, 242, 246)
WHITE_SIDE = (170, 176, 180)
BLACK_TOP = (34, 32, 36)
BLACK_SIDE = (14, 14, 16)


@dataclass(frozen=True)
class RenderedTable:
    """A frame and its truth: ``H`` maps grid units to image pixels; ``look`` is what was
    drawn (cell -> "W"/"B"/"."; absent = rift); ``hidden`` the cells a hand covers."""

    image: NDArray[np.uint8]
    H: NDArray[np.float64]
    grid: ChessGrid
    look: dict[Cell, str]
    hidden: frozenset[Cell] = field(default_factory=frozenset)


def _texture(
    grid: ChessGrid, look: Mapping[Cell, str], lift: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float32]:
    w, h = grid.cols * PPC, grid.rows * PPC
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(TABLE_BGR, np.float32) * rng.uniform(0.92, 1.08)
    weave = cv2.GaussianBlur(
        rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.06), (0, 0), 1.5
    )
    img *= 1.0 + weave[..., None]
    gap = max(1, PPC // 20)
    pieces: list[tuple[float, float, str]] = []
    for col, row, c in grid.cells():
        token = look.get(c)
        if token is None:
            continue
        x, y = coords(c)
        base = np.array(LIGHT_BGR if (x + y) % 2 else DARK_BGR, np.float32)
        base *= rng.uniform(0.95, 1.05)
        x0, y0 = col * PPC + gap, row * PPC + gap
        x1, y1 = (col + 1) * PPC - gap, (row + 1) * PPC - gap
        # a soft shadow under the loose square, then the square with a faint grain
        shadow = img[y0 + 2 : y1 + 2, x0 + 2 : x1 + 2]
        shadow *= 0.7
        grain = 1.0 + 0.04 * np.sin(np.arange(x1 - x0, dtype=np.float32) * rng.uniform(0.3, 0.6))
        img[y0:y1, x0:x1] = base[None, None, :] * grain[None, :, None]
        if token in ("W", "B"):
            pieces.append(((col + 0.5) * PPC, (row + 0.5) * PPC, token))
    rad = 0.32 * PPC
    for cx, cy, token in pieces:
        side, top = (WHITE_SIDE, WHITE_TOP) if token == "W" else (BLACK_SIDE, BLACK_TOP)
        cv2.circle(img, (int(cx + 3), int(cy + 4)), int(rad), (20, 20, 20), -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(rad), side, -1, cv2.LINE_AA)
        tx, ty = cx + lift[0], cy + lift[1]
        cv2.circle(img, (int(tx), int(ty)), int(rad * 0.92), top, -1, cv2.LINE_AA)
        rim = (120, 124, 128) if token == "W" else (70, 70, 74)
        cv2.circle(img, (int(tx), int(ty)), int(rad * 0.92), rim, 1, cv2.LINE_AA)
    return img


def render_table(
    look: Mapping[Cell, str],
    *,
    grid: ChessGrid | None = None,
    width: int = 960,
    height: int = 720,
    tilt: float = 0.0,
    rotate: float = 0.0,
    fill: float = 0.9,
    light: Light = "even",
    hand: bool = False,
    noise: float = 2.0,
    seed: int = 0,
) -> RenderedTable:
    """Render ``look`` (tokens "W", "B", "."; absent cells are rifts) on ``grid`` (default
    12x12 around a1..h8). ``tilt`` leans the camera back (degrees), ``rotate`` turns the table
    in the image, ``fill`` is the share of the frame's height the grid takes. Raises VisionError
    for a token that is not W, B or ., or a square outside the grid."""
    grid = grid or ChessGrid()
    bad = next((v for v in look.values() if v not in ("W", "B", ".")), None)
    if bad is not None:
        raise VisionError(f"a rendered look holds W, B or ., not {bad!r}")
    for c in look:
        if grid.grid_cell(*coords(c)) is None:
            raise VisionError(f"square {coords(c)} is outside the camera grid")
    rng = np.random.default_rng(seed)
    t = np.radians(np.clip(tilt, 0.0, 50.0))
    lift = np.array([0.0, -0.12 * PPC * np.sin(t)])
    tex = _texture(grid, look, lift, rng)
    frame = np.empty((height, width, 3), np.float32)
    frame[:] = np.array((60, 62, 70), np.float32)  # the floor beyond the table
    tw, th = grid.cols * PPC, grid.rows * PPC
    bh = height * fill
    bw = bh * tw / th
    shrink = np.sin(t) * 0.3
    quad = np.array(
        [
            [-bw / 2 * (1 - shrink), -bh / 2 * (1 - 0.3 * shrink)],
            [bw / 2 * (1 - shrink), -bh / 2 * (1 - 0.3 * shrink)],
            [bw / 2, bh / 2],
            [-bw / 2, bh / 2],
        ]
    )
    a = np.radians(rotate)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    quad = quad @ rot.T + [width / 2, height / 2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    Ht = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    warped = cv2.warpPerspective(
        tex, Ht, (width, height), flags=cv2.INTER_LINEAR, borderValue=(-1, -1, -1)
    )
    inside = warped[..., 0] >= 0
    frame[inside] = warped[inside]
    scale = np.diag([PPC, PPC, 1.0])
    H = (Ht.astype(np.float64) @ scale).astype(np.float64)  # grid units -> image px

    hidden: set[Cell] = set()
    if hand:
        centre = H @ np.array([grid.cols / 2 + rng.uniform(-1.5, 1.5), grid.rows * 0.62, 1.0])
        anchor = centre[:2] / centre[2]
        span = float(np.linalg.norm(quad[2] - quad[3])) * 0.7
        mask = _hand(frame, rng, anchor, span)
        cover = cv2.warpPerspective(
            mask, np.linalg.inv(Ht), (tw, th), flags=cv2.INTER_NEAREST, borderValue=(0,)
        )
        for col, row, c in grid.cells():
            if cover[row * PPC : (row + 1) * PPC, col * PPC : (col + 1) * PPC].any():
                hidden.add(c)
    frame *= np.array(_LIGHTS[light], np.float32)[None, None, :]
    if light == "uneven":
        frame *= np.linspace(1.15, 0.55, width, dtype=np.float32)[None, :, None]
    if noise > 0:
        frame += rng.standard_normal(frame.shape, dtype=np.float32) * np.float32(noise)
    image = np.clip(frame, 0, 255).astype(np.uint8)
    return RenderedTable(image, H, grid, dict(look), frozenset(hidden))
