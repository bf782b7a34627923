"""What surfaces look like: board woods and prints, tablecloths, and the stones' materials.

Colours are linear-light BGR in 0..1 (they are lit, then tone-mapped by
:mod:`companion.vision.scene.degrade`). Board and cloth textures are images in millimetre
coordinates sampled by the compositor; the grid ink is computed exactly per pixel instead
(:func:`ink`), so thin lines stay crisp at any resolution and never alias.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.geometry import Layout

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

BOARDS = ("wood", "pale_wood", "bamboo", "vinyl", "paper", "fridge_white", "fridge_metal")
STONES = ("slate_shell", "glass", "plastic", "yunzi", "magnetic")
CLOTHS = ("wood_table", "plain", "striped", "checked", "dots")


def linear(srgb: tuple[float, float, float] | F64) -> F64:
    """sRGB 0..255 (BGR) to linear 0..1."""
    return (np.asarray(srgb, dtype=np.float64) / 255.0) ** 2.2


def lookup(
    image: NDArray[np.float32], u: F64 | F32, v: F64 | F32, border: float | None = None
) -> F64:
    """Bilinear samples of ``image`` at pixel coordinates (N,) -> (N,) or (N, C).

    ``cv2.remap`` wants maps under 32767 rows, so the points go in as rows of 1024.
    ``border`` is the value outside the image (None: edges mirrored).
    """
    n = len(u)
    chans = image.shape[2] if image.ndim == 3 else 1
    if n == 0:
        return np.zeros((0, chans) if image.ndim == 3 else 0)
    pad = (-n) % 1024
    mu = np.pad(np.asarray(u, np.float32), (0, pad)).reshape(-1, 1024)
    mv = np.pad(np.asarray(v, np.float32), (0, pad)).reshape(-1, 1024)
    if border is None:
        out = cv2.remap(image, mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    else:
        out = cv2.remap(
            image,
            mu,
            mv,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(border, border, border, border),
        )
    flat = np.asarray(out, dtype=np.float64).reshape(-1, chans)[:n]
    return flat if image.ndim == 3 else flat[:, 0]


def _noise(shape: tuple[int, int], rng: np.random.Generator, sigma: float) -> F32:
    """Smooth noise of unit spread, features about ``sigma`` texture pixels across (coarse
    noise is made small and scaled up: a wide blur of a large image is slow)."""
    h, w = shape
    if sigma > 4:
        step = sigma / 2
        small = rng.normal(0, 1, (int(h / step) + 3, int(w / step) + 3)).astype(np.float32)
        small = np.asarray(cv2.GaussianBlur(small, (0, 0), 2.0), np.float32)
        n = np.asarray(
            cv2.resize(small, (int(small.shape[1] * step), int(small.shape[0] * step)))[:h, :w],
            np.float32,
        )
    else:
        n = rng.normal(0, 1, shape).astype(np.float32)
        if sigma > 0.3:
            n = np.asarray(cv2.GaussianBlur(n, (0, 0), sigma), np.float32)
    out: F32 = n / np.float32(max(float(n.std()), 1e-6))
    return out


@dataclass(frozen=True)
class Texture:
    """An albedo image over a rectangle of the world: ``ppm`` pixels per mm from ``origin``."""

    image: F32  # (h, w, 3) linear BGR
    origin: tuple[float, float]  # world x, y of pixel (0, 0)'s centre
    ppm: float
    flip_y: bool = True  # row 0 is the largest y (the far side), as a photo from above

    def coords(self, x: F64, y: F64) -> tuple[F32, F32]:
        """Texture pixel coordinates of world points, for ``cv2.remap``."""
        u = (x - self.origin[0]) * self.ppm
        v = (self.origin[1] - y if self.flip_y else y - self.origin[1]) * self.ppm
        return u.astype(np.float32), v.astype(np.float32)

    def sample(self, x: F64, y: F64) -> F64:
        """Albedo (N, 3) at world points (N,), edges repeated."""
        u, v = self.coords(x, y)
        return lookup(self.image, u, v)


def _grain(h: int, w: int, ppm: float, rng: np.random.Generator, strength: float) -> F32:
    """Wood grain along the texture's columns or rows: wavy stripes and fine fibres."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along_x = rng.random() < 0.5
    a = yy if along_x else xx
    period = rng.uniform(2.0, 7.0) * ppm
    warp = _noise((h, w), rng, 40 * ppm) * rng.uniform(2, 8) * ppm
    rings = np.sin((a + warp) * (2 * np.pi / period)).astype(np.float32)
    fibres = _noise((h, w), rng, 0.7)
    fibres = np.asarray(cv2.blur(fibres, (1, 25) if not along_x else (25, 1)), np.float32)
    blotch = _noise((h, w), rng, 60 * ppm)
    out: F32 = 1.0 + strength * (0.5 * rings + 0.25 * fibres + 0.35 * blotch)
    return out


def board_texture(
    kind: str, tint: F64, layout: Layout, layer: int, ppm: float, rng: np.random.Generator
) -> Texture:
    """The board top of one layer without its lines, ``tint`` being its linear base colour."""
    hw, hd = layout.half
    w, h = int(2 * hw * ppm) + 2, int(2 * hd * ppm) + 2
    if kind in ("wood", "pale_wood"):
        shade = _grain(h, w, ppm, rng, 0.12 if kind == "wood" else 0.05)
    elif kind == "bamboo":
        strip = rng.uniform(14, 30) * ppm
        along_x = rng.random() < 0.5
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        across = xx if along_x else yy
        idx = np.floor(across / strip).astype(np.int64)
        tone = rng.uniform(0.85, 1.12, int(idx.max()) + 2).astype(np.float32)
        shade = tone[idx] * _grain(h, w, ppm, rng, 0.04)
        seam = np.abs((across / strip) - np.round(across / strip)) * strip < 0.5 * ppm
        shade = np.where(seam, shade * 0.6, shade)
    elif kind == "fridge_metal":
        shade = 1.0 + 0.06 * np.asarray(cv2.blur(_noise((h, w), rng, 0.5), (41, 1)), np.float32)
    else:  # vinyl, paper, fridge_white: nearly flat with a faint texture
        shade = 1.0 + 0.015 * _noise((h, w), rng, 0.8) + 0.02 * _noise((h, w), rng, 30 * ppm)
    img = tint[None, None, :].astype(np.float32) * shade[..., None].astype(np.float32)
    origin = (layout.offsets[layer] - hw, hd)
    return Texture(np.ascontiguousarray(img, dtype=np.float32), origin, ppm)


def print_coords(tex: Texture, layout: Layout, layer: int, colour: F64) -> None:
    """Coordinates printed in the margin (letters without I along the top and bottom, numbers
    down the sides), as many boards have: text near the grid that is not a line."""
    n = layout.size
    gap = min(layout.mx, layout.my) / 2
    if gap < 4:
        return
    height_px = max(3.0, min(6.0, gap * 0.9) * tex.ppm)
    scale = height_px / 22.0  # Hershey simplex capitals are about 22 px tall at scale 1
    thick = max(1, round(scale * 2))
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    col = tuple(float(v) for v in colour)
    marks: list[tuple[str, float, float]] = []
    for c in range(n):
        for r_out in (-gap / layout.sy, n - 1 + gap / layout.sy):
            x, y = layout.point(layer, r_out, c)
            marks.append((letters[c], float(x), float(y)))
    for r in range(n):
        for c_out in (-gap / layout.sx, n - 1 + gap / layout.sx):
            x, y = layout.point(layer, r, c_out)
            marks.append((str(n - r), float(x), float(y)))
    for text, x, y in marks:
        u, v = tex.coords(np.array([x]), np.array([y]))
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        org = (int(u[0] - tw / 2), int(v[0] + th / 2))
        cv2.putText(tex.image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, col, thick, cv2.LINE_AA)


def star_points(size: int) -> list[tuple[int, int]]:
    """Hoshi: the usual 9 on 19x19 and 13x13 (edge lines 4 / 4), 5 on 9x9 (3-3 and tengen)."""
    if size < 9:
        return []
    e = 2 if size < 13 else 3
    if size == 9:
        return [(e, e), (e, size - 1 - e), (size - 1 - e, e), (size - 1 - e, size - 1 - e), (4, 4)]
    pts = [e, size // 2, size - 1 - e] if size % 2 else [e, size - 1 - e]
    return [(r, c) for r in pts for c in pts]


def ink(
    gx: F64, gy: F64, size: int, line_mm: float, star_mm: float, sx: float, sy: float, fp: F64
) -> F64:
    """Share (0..1) of each pixel covered by grid lines or star points.

    ``gx``/``gy`` are grid coordinates (column, row; fractions) of pixel centres, ``fp`` the
    pixel's footprint in mm: the coverage is a box filter of that width, so lines fade
    smoothly instead of flickering when they are thinner than a pixel.
    """
    n = size - 1
    out = np.zeros_like(gx)
    for g, s, other in ((gx, sx, gy), (gy, sy, gx)):
        d = np.abs(g - np.clip(np.round(g), 0, n)) * s  # mm to the nearest line (clamped)
        inside = (other > -0.5 * line_mm / s - 1e-9) & (other < n + 0.5 * line_mm / s + 1e-9)
        half = line_mm / 2  # overlap of the pixel's box with the line's, over the box
        cov = np.clip(np.minimum(d + fp / 2, half) - np.maximum(d - fp / 2, -half), 0, None) / fp
        out = np.maximum(out, np.where(inside, cov, 0.0))
    for r, c in star_points(size):
        d = np.hypot((gx - c) * sx, (gy - r) * sy)
        out = np.maximum(out, np.clip((star_mm / 2 - d) / fp + 0.5, 0, 1))
    return out


def cloth_texture(
    kind: str, extent: float, ppm: float, rng: np.random.Generator
) -> tuple[Texture, dict[str, str]]:
    """A tablecloth or table top over a square of ``extent`` mm around the origin."""
    n = int(2 * extent * ppm) + 2
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)

    def colour() -> F32:
        hsv = np.array(
            [[[rng.integers(0, 180), rng.integers(30, 230), rng.integers(60, 250)]]], np.uint8
        )
        bgr = np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), np.float64)[0, 0]
        return linear(bgr).astype(np.float32)

    ang = rng.uniform(0, np.pi)
    across = xx * np.cos(ang) + yy * np.sin(ang)
    if kind == "wood_table":
        tint = linear(tuple(rng.uniform([30, 60, 90], [110, 140, 190])))
        img = tint[None, None, :].astype(np.float32) * _grain(n, n, ppm, rng, 0.25)[..., None]
        plank = rng.uniform(90, 200) * ppm
        seam = np.abs(across / plank - np.round(across / plank)) * plank < 1.2 * ppm
        img[seam] *= 0.35
    elif kind == "striped":
        cols = [colour() for _ in range(int(rng.integers(2, 5)))]
        widths = rng.uniform(4, 60, 24) * ppm
        edges = np.cumsum(widths)
        idx = np.searchsorted(edges, np.mod(across, edges[-1])) % len(cols)
        img = np.stack(cols)[idx % len(cols)]
    elif kind == "checked":
        a, b = colour(), colour()
        p = rng.uniform(8, 40) * ppm
        u = (np.floor(across / p) % 2).astype(np.float32)
        along = -xx * np.sin(ang) + yy * np.cos(ang)
        v = (np.floor(along / p) % 2).astype(np.float32)
        mix = ((u + v) / 2)[..., None]
        img = a[None, None, :] * (1 - mix) + b[None, None, :] * mix
    elif kind == "dots":
        base, dot = colour(), colour()
        img = np.empty((n, n, 3), np.float32)
        img[:] = base
        step = rng.uniform(15, 60) * ppm
        rad = max(1, int(step * rng.uniform(0.12, 0.35)))
        for y in np.arange(rng.uniform(0, step), n, step):
            for x in np.arange(rng.uniform(0, step), n, step):
                cv2.circle(img, (int(x), int(y)), rad, dot.tolist(), -1, cv2.LINE_AA)
    else:
        img = np.empty((n, n, 3), np.float32)
        img[:] = colour()
    weave = 1.0 + 0.06 * _noise((n, n), rng, 0.6) if kind != "wood_table" else 1.0
    img = np.ascontiguousarray(img * (np.asarray(weave)[..., None] if kind != "wood_table" else 1))
    return Texture(img.astype(np.float32), (-extent, extent), ppm), {"cloth": kind}


@dataclass(frozen=True)
class StoneLook:
    """Albedo, specular strength and shininess of black and white stones of one set."""

    black: F64
    white: F64
    spec: tuple[float, float]  # black, white
    shine: tuple[float, float]
    stripes: bool
    top: float  # cap heights in mm
    bottom: float
    width: float  # share of the x spacing


def stone_look(kind: str, rng: np.random.Generator, height: float = 0.0) -> StoneLook:
    """A stone set: slate and shell, glass, plastic, yunzi (flat bottom) or magnetic discs,
    ``height`` mm high (0: drawn, 7.5-10 mm; thick sets reach 12, magnetic discs stay flat).

    Specular strengths are about 4 x the Fresnel reflectance at normal incidence (F0 ~ 0.04
    for glass, plastic, polished shell): with the normalised Blinn lobe capped by the lamp's
    size, a lamp's reflection then peaks as bright as a real one; rough slate gets a broad,
    dim sheen instead.
    """
    h = rng.uniform(7.5, 10.0)
    if height > 0:  # drawn all the same: the width that follows stays the seed's own
        h = height
    if kind == "slate_shell":
        return StoneLook(
            linear((16, 16, 17)) * rng.uniform(0.8, 1.3),
            linear((222, 232, 236)) * rng.uniform(0.95, 1.05),
            (0.04, 0.14),
            (6.0, 60.0),
            True,
            h / 2,
            h / 2,
            rng.uniform(0.95, 0.995),
        )
    if kind == "glass":
        return StoneLook(
            linear((14, 18, 14)),
            linear((228, 232, 230)),
            (0.16, 0.16),
            (400.0, 400.0),
            False,
            h / 2,
            h / 2,
            rng.uniform(0.93, 0.99),
        )
    if kind == "plastic":
        return StoneLook(
            linear((20, 20, 20)),
            linear((235, 238, 240)),
            (0.16, 0.16),
            (150.0, 150.0),
            False,
            h / 2,
            h / 2,
            rng.uniform(0.9, 0.98),
        )
    if kind == "yunzi":
        return StoneLook(
            linear((18, 22, 20)),
            linear((212, 226, 230)),
            (0.06, 0.08),
            (20.0, 20.0),
            False,
            h * 0.7,
            1.0,
            rng.uniform(0.93, 0.99),
        )
    return StoneLook(  # magnetic: flat discs a few mm high
        linear((22, 22, 24)),
        linear((238, 238, 238)),
        (0.08, 0.08),
        (12.0, 12.0),
        False,
        1.4,
        1.2,
        rng.uniform(0.8, 0.9),
    )


def stripes(local: F64, angle: F64, phase: F64) -> F64:
    """Faint growth stripes of clam-shell whites in a stone's own coordinates (mm)."""
    u = local[:, 0] * np.cos(angle) + local[:, 1] * np.sin(angle)
    v = -local[:, 0] * np.sin(angle) + local[:, 1] * np.cos(angle)
    wave = np.sin(2 * np.pi * (u + 0.4 * np.sin(v * 0.2 + phase)) / 1.1 + phase)
    out: F64 = 1.0 - 0.05 * np.clip(wave, 0, 1) ** 2
    return out
