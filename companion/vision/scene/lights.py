"""Light in a board scene: lamp colour from a colour temperature and tint, placement for even,
uneven, spot, glaring and low light, Lambert + Blinn-Phong shading, and soft projected shadows.

Shadows are projected along the lamp's direction onto a horizontal plane (a shadow map in
millimetres) and blurred by the penumbra a lamp of that size casts: cheap, and soft where
real shadows are soft (a hand high above the board) and crisp where they are crisp (a stone's
foot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.scene.camera import Camera
from companion.vision.scene.geometry import Layout
from companion.vision.scene.materials import lookup

if TYPE_CHECKING:
    from companion.vision.scene.factors import Value

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]

TINTS: dict[str, tuple[float, float, float]] = {  # linear BGR multipliers on the lamp colour
    "white": (1.0, 1.0, 1.0),
    "warm": (1.0, 1.0, 1.0),  # the colour comes from a low colour temperature
    "cool": (1.0, 1.0, 1.0),
    "green": (0.75, 1.25, 0.7),
    "magenta": (1.2, 0.7, 1.2),
    "blue": (1.4, 0.95, 0.6),
    "orange": (0.45, 0.9, 1.35),
    "red": (0.6, 0.65, 1.5),
}


def kelvin_bgr(kelvin: float) -> F64:
    """Linear BGR of a black body at ``kelvin`` (Tanner Helland's fit), green channel = 1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * np.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    srgb = np.clip(np.array([b, g, r]), 1, 255) / 255.0
    lin = srgb**2.2
    return np.asarray(lin / lin[1], dtype=np.float64)


@dataclass(frozen=True)
class Lamp:
    """A round lamp: position, linear colour (its brightness at the board's centre), radius;
    a spot lamp also has an axis and a cone half-angle (degrees)."""

    pos: F64
    colour: F64
    radius: float
    axis: F64 | None = None
    cone_deg: float = 180.0


def shade(
    p: F32,
    n: F32,
    view: F32,
    albedo: F32,
    spec: F32,
    shine: F32,
    lamp: Lamp,
    ambient: F64,
    lit: F32,
    occl: F32,
) -> F32:
    """Outgoing linear radiance (N, 3): ambient (times ``occl``) plus the lamp's Lambert and
    Blinn-Phong terms (times ``lit``, 0 in full shadow). Single precision: it runs on every
    sub-pixel of the frame.

    A lamp of some size blurs a glossy highlight: the shininess is capped by the lamp's
    angular size seen from the point, and the highlight is normalised so that a broad one
    is dimmer, as an area light's reflection is.
    """
    pos = lamp.pos.astype(np.float32)
    colour = lamp.colour.astype(np.float32)
    d = pos[None, :] - p
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    ldir = d / dist[:, None]
    gain = np.float32(pos @ pos) / (dist * dist)
    if lamp.axis is not None:
        cosang = -(ldir @ lamp.axis.astype(np.float32))
        c0 = np.float32(np.cos(np.radians(lamp.cone_deg)))
        c1 = np.float32(np.cos(np.radians(lamp.cone_deg * 0.55)))
        gain *= 0.08 + 0.92 * np.clip((cosang - c0) / (c1 - c0), 0, 1) ** 2
    ndl = np.clip(np.einsum("ij,ij->i", n, ldir), 0, None)
    direct = lit * gain
    out: F32 = albedo * (
        ambient.astype(np.float32)[None, :] * occl[:, None] + (direct * ndl)[:, None] * colour
    )
    g = np.flatnonzero((spec > 0) & (ndl > 0) & (direct > 0))
    if len(g):
        h = ldir[g] + view[g]
        h /= np.sqrt(np.einsum("ij,ij->i", h, h))[:, None] + np.float32(1e-9)
        ndh = np.clip(np.einsum("ij,ij->i", n[g], h), 0, 1)
        # the lobe falls to half where the half-vector is off by half the lamp radius
        cap = 6.0 / np.maximum(np.float32(lamp.radius) / dist[g], np.float32(1e-3)) ** 2
        sh = shine[g] * cap / (shine[g] + cap)
        lg = sh * np.log(np.maximum(ndh, np.float32(1e-6)))
        bright = lg > -14  # skip the lobe's far tail: its tiny powers are slow denormals
        g, lg, sh = g[bright], lg[bright], sh[bright]
        glint = spec[g] * (sh + 8) / 8 * np.exp(lg)
        out[g] += (direct[g] * glint)[:, None] * colour
    return out


@dataclass(frozen=True)
class ShadowMap:
    """How much of the lamp each point of a horizontal plane at height ``z`` sees (1 = all),
    after projecting occluders along ``ldir``; ``origin`` is the world (x, y) of pixel (0, 0)."""

    lit: F32
    origin: tuple[float, float]
    ppm: float
    z: float
    ldir: F64

    def at(self, p: F64) -> F64:
        """Light share at world points (N, 3), each carried along the lamp's direction to z."""
        if len(p) == 0:
            return np.zeros(0)
        s = (self.z - p[:, 2]) / self.ldir[2]
        x = p[:, 0] + s * self.ldir[0]
        y = p[:, 1] + s * self.ldir[1]
        u = (x - self.origin[0]) * self.ppm
        v = (self.origin[1] - y) * self.ppm
        return lookup(self.lit, u, v, border=1.0)


def shadow_map(
    discs: list[tuple[F64, F64, F64, bool]],
    *,
    z: float,
    ldir: F64,
    half: float,
    ppm: float,
    penumbra: float,
    depth: float = 1.0,
) -> ShadowMap:
    """Occluders projected along ``ldir`` onto the plane ``z``, ``half`` mm each side of the
    origin. Each item of ``discs`` is a group: centres (N, 3), radii (N,), heights above ``z``
    (their median sets the group's penumbra) and whether they are balls (whose shadow
    stretches along the lamp) rather than horizontal discs (whose shadow does not). ``depth``
    is how dark a full shadow is (1 = no direct light at all)."""
    n = int(2 * half * ppm) + 1
    dark = np.zeros((n, n), np.float32)
    for centres, radii, heights, balls in discs:
        layer = np.zeros((n, n), np.float32)
        s = (z - centres[:, 2]) / ldir[2]
        x = centres[:, 0] + s * ldir[0]
        y = centres[:, 1] + s * ldir[1]
        stretch = 1.0 / max(abs(ldir[2]), 0.2) if balls else 1.0
        ang = float(np.degrees(np.arctan2(-ldir[1], ldir[0])))
        for xi, yi, ri in zip((x + half) * ppm, (half - y) * ppm, radii * ppm, strict=True):
            if ri <= 0:
                continue
            cv2.ellipse(
                layer,
                (int(xi * 16), int(yi * 16)),
                (int(ri * 16 * stretch), int(ri * 16)),
                ang,
                0,
                360,
                (1.0,),
                -1,
                cv2.LINE_AA,
                4,
            )
        blur = penumbra * float(np.median(heights)) * ppm if len(heights) else 0.0
        if blur > 0.3:
            layer = np.asarray(cv2.GaussianBlur(layer, (0, 0), blur), np.float32)
        dark = np.maximum(dark, layer)
    return ShadowMap(1.0 - depth * np.clip(dark, 0, 1), (-half, half), ppm, z, ldir)


def place_lamp(f: dict[str, Value], cam: Camera, layout: Layout, rng: np.random.Generator) -> Lamp:
    """The one lamp, placed for the drawn kind of light, coloured by temperature and tint."""
    colour = kelvin_bgr(float(f["light_kelvin"])) * np.array(TINTS[str(f["light_colour"])])
    colour = colour / float(colour @ np.array([0.114, 0.587, 0.299]))
    kind = str(f["light"])
    ang = rng.uniform(0, 2 * np.pi)
    horiz = np.array([np.cos(ang), np.sin(ang), 0.0])
    hw, hd = layout.half
    if kind == "even":
        pos = horiz * rng.uniform(0, 400) + [0, 0, rng.uniform(1800, 2600)]
        return Lamp(pos, colour, rng.uniform(200, 450))
    if kind == "uneven":
        pos = horiz * rng.uniform(500, 1100) + [0, 0, rng.uniform(500, 1100)]
        return Lamp(pos, colour, rng.uniform(60, 200))
    if kind == "spot":
        pos = horiz * rng.uniform(0, 600) + [0, 0, rng.uniform(900, 1500)]
        aim = np.array([rng.uniform(-hw, hw) * 0.7, rng.uniform(-hd, hd) * 0.7, layout.thick])
        axis = aim - pos
        return Lamp(
            pos, colour, rng.uniform(20, 60), axis / np.linalg.norm(axis), rng.uniform(18, 35)
        )
    if kind == "low":  # a bare bulb or a window's sun across the room: long, hard shadows
        up = np.radians(rng.uniform(10.0, 30.0))
        dist = rng.uniform(1500, 3000)
        pos = horiz * dist * np.cos(up) + [0, 0, layout.thick + dist * np.sin(up)]
        return Lamp(pos, colour, rng.uniform(8, 40))
    q = np.array([rng.uniform(-hw, hw) * 0.7, rng.uniform(-hd, hd) * 0.7, layout.thick])
    v = cam.centre - q
    r = np.array([-v[0], -v[1], v[2]])  # the mirror direction: the lamp shows in the board
    pos = q + r / np.linalg.norm(r) * rng.uniform(900, 2000)
    if np.linalg.norm(pos[:2] - cam.centre[:2]) < 80:  # not inside the camera
        pos[:2] += horiz[:2] * 120
    return Lamp(pos, colour, rng.uniform(40, 160))
