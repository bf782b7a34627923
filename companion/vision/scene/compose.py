"""One rendered board photo: builds the 3D scene a seed describes, casts a ray per sub-pixel,
lights what it meets and hands the result to the camera model, with exact labels.

Kinds of surface met by a ray: the table (and the room beyond it), a board's top, a board's
side, a stone, the hand. Each gets a position, normal, albedo and gloss, then one shading pass
lights them all; shadows come from :mod:`companion.vision.scene.lights`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision.scene.degrade import develop
from companion.vision.scene.factors import Value, draw_factors
from companion.vision.scene.geometry import (
    Layout,
    Stones,
    hit_capsules,
    hit_stones,
    nearest,
    spread,
)
from companion.vision.scene.hand import Hand, reach
from companion.vision.scene.labels import hidden_spots, ordered
from companion.vision.scene.lights import kelvin_bgr, place_lamp, shade, shadow_map
from companion.vision.scene.materials import (
    Texture,
    board_texture,
    cloth_texture,
    ink,
    linear,
    print_coords,
    stone_look,
    stripes,
)
from companion.vision.scene.pose import place
from companion.vision.scene.positions import games_dir, position

F64 = NDArray[np.float64]
TABLE, ROOM, TOP, SIDE, STONE, HAND = range(6)
_GLOSS = {  # board top: specular strength and shininess
    "wood": (0.08, 10.0),
    "pale_wood": (0.08, 12.0),
    "bamboo": (0.1, 20.0),
    "vinyl": (0.16, 80.0),
    "paper": (0.02, 3.0),
    "fridge_white": (0.16, 60.0),
    "fridge_metal": (0.4, 8.0),
}


@dataclass(frozen=True)
class SceneImage:
    """A rendered photo and its truth (see the module docs of :mod:`companion.vision.scene`)."""

    image: NDArray[np.uint8]
    size: int
    corners: list[F64]
    rows: list[tuple[str, ...]]
    hidden: frozenset[int]
    factors: dict[str, str | float | int | bool]
    hand: NDArray[np.float32] | None = None  # the hand's share of each pixel; None: no hand

    @property
    def tokens(self) -> tuple[str, ...]:
        """Every spot's token, layer-major and row-major (the order of ``hidden``)."""
        return tuple(t for layer in self.rows for row in layer for t in row.split())


def _rows_given(value: object, size: int, layers: int) -> list[tuple[str, ...]]:
    """``position=`` as size * layers rows (or one sequence of rows per layer), checked."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise VisionError("position must be a sequence of rows")
    flat: list[str] = []
    for item in value:
        if isinstance(item, str):
            flat.append(item)
        elif isinstance(item, Sequence):
            flat.extend(str(x) for x in item)
        else:
            raise VisionError("position must hold rows of tokens")
    toks = [r.split() for r in flat]
    if len(toks) != size * layers or any(len(t) != size for t in toks):
        raise VisionError(f"position needs {size * layers} rows of {size} tokens")
    if any(t not in ".BW" for row in toks for t in row):
        raise VisionError("position tokens must be . B W")
    rows = [" ".join(t) for t in toks]
    return [tuple(rows[i * size : (i + 1) * size]) for i in range(layers)]


def _hex(colour: Value) -> F64:
    s = str(colour)
    if len(s) != 7 or s[0] != "#":
        raise VisionError(f"board_tint {s!r} is not #rrggbb")
    try:
        r, g, b = (int(s[i : i + 2], 16) for i in (1, 3, 5))
    except ValueError as exc:
        raise VisionError(f"board_tint {s!r} is not #rrggbb") from exc
    return linear((b, g, r))


def render_scene(
    seed: int,
    *,
    size: int = 19,
    layers: int = 1,
    width: int = 640,
    height: int = 480,
    **overrides: object,
) -> SceneImage:
    """Render the scene of ``seed``: a board of ``size`` lines (``layers`` = 2: the stacked
    pair side by side) photographed at ``width`` x ``height``.

    ``overrides`` pin factors (see :data:`companion.vision.scene.factors.DRAWS`) or give the
    ``position`` (``size * layers`` rows of tokens). Raises :class:`VisionError` for an
    unknown factor, a bad value, or a frame size outside 64..4000 x 64..3000.
    """
    if size not in (9, 13, 19) and not 5 <= size <= 25:
        raise VisionError(f"board size {size} is not 5..25")
    if layers not in (1, 2):
        raise VisionError("layers must be 1 or 2")
    if not (64 <= width <= 4000 and 64 <= height <= 3000):
        raise VisionError("frame must be 64..4000 x 64..3000 pixels")
    given = overrides.pop("position", None)
    f = draw_factors(seed, overrides)
    stage_min, stone_mm = float(f["stage_min"]), float(f["stone_mm"])
    if not 0.0 <= stage_min < 1.0:
        raise VisionError(f"stage_min {stage_min} is not 0..1")
    if stone_mm != 0.0 and not 3.0 <= stone_mm <= 15.0:
        raise VisionError(f"stone_mm {stone_mm} is not 3..15 (or 0: drawn)")
    rng = np.random.default_rng([seed, 0])
    if given is None:
        boards, source, move = position(
            size, layers, np.random.default_rng([seed, 100]), games_dir(), stage_min
        )
    else:
        boards, source, move = _rows_given(given, size, layers), "given", -1
    tint = _hex(f["board_tint"])  # checked before any work
    look = stone_look(str(f["stones_style"]), np.random.default_rng([seed, 101]), stone_mm)

    sx = 22.0 * (9 / 8 if size < 13 and f["board"] in ("fridge_white", "fridge_metal") else 1.0)
    sy = sx * float(f["aspect"])
    margin = float(f["margin_mm"])
    thick = float(f["thickness_mm"])
    hw = (size - 1) * sx / 2 + margin
    gap = rng.uniform(20, 120)
    offsets = (0.0,) if layers == 1 else (-(hw + gap / 2), hw + gap / 2)
    layout = Layout(size, sx, sy, margin, margin * sy / sx, thick, offsets)

    xy, black, spot = [], [], []
    for layer, board_rows in enumerate(boards):
        for r, row in enumerate(board_rows):
            for c, tok in enumerate(row.split()):
                if tok != ".":
                    xy.append(layout.point(layer, r, c))
                    black.append(tok == "B")
                    spot.append(layer)
    n_st = len(xy)
    # stones draw from their own streams: how many there are shifts nothing else
    rng_st, rng_lo = np.random.default_rng([seed, 106]), np.random.default_rng([seed, 105])
    radius = np.full(n_st, look.width * sx / 2) * rng_st.uniform(0.985, 1.0, n_st)
    pts = np.array(xy, dtype=np.float64).reshape(-1, 2)
    pts = spread(pts, radius, np.full(n_st, float(f["nudge"])), rng_st, sx)
    loose = _loose(int(f["loose"]), layout, rng_lo)
    n_all = n_st + len(loose)

    def jitter(shape: tuple[int, ...], lo: float, hi: float) -> F64:
        n_lo = len(loose)
        a = rng_st.uniform(lo, hi, (n_st, *shape[1:]))
        return np.concatenate([a, rng_lo.uniform(lo, hi, (n_lo, *shape[1:]))])

    stones = Stones(
        np.concatenate([pts, loose]),
        np.concatenate([np.array(black, dtype=bool), np.arange(len(loose)) % 2 == 0]),
        np.concatenate([radius, np.full(len(loose), look.width * sx / 2)]),
        look.top * jitter((n_all,), 0.95, 1.05),
        look.bottom * jitter((n_all,), 0.95, 1.05),
        np.concatenate([np.full(n_st, thick), np.zeros(len(loose))]),
    )

    cam = place(f, layout, width, height)
    ss = 2 if width * height <= 1_400_000 else 1
    rays = cam.rays(ss)
    hs, ws = rays.shape[:2]
    d = rays.reshape(-1, 3)  # float32: every sub-pixel of the frame
    o = cam.centre
    npx = len(d)
    kind = np.full(npx, ROOM, np.int8)
    zbuf = np.full(npx, np.inf)
    normal = np.zeros((npx, 3), np.float32)
    normal[:, 2] = 1.0
    dz = d[:, 2]
    down = dz < -1e-9
    safe_dz = np.where(down, dz, np.float32(-1.0))
    kind[down] = TABLE
    zbuf[down] = (-o[2] / safe_dz)[down]
    ex, ey = rng.uniform(500, 1100), rng.uniform(400, 800)
    tcx, tcy = rng.uniform(-150, 150), rng.uniform(-150, 150)
    which = np.zeros(npx, np.int8)  # the layer of a board hit
    hd = layout.half[1]
    t_top = np.where(down, (thick - o[2]) / safe_dz, np.inf)
    top_x, top_y = o[0] + d[:, 0] * t_top, o[1] + d[:, 1] * t_top
    for layer, x0 in enumerate(offsets):
        on = down & (np.abs(top_x - x0) <= hw) & (np.abs(top_y) <= hd) & (t_top < zbuf)
        kind[on], zbuf[on], which[on] = TOP, t_top[on], layer
        for axis, lim, sign in ((0, x0 - hw, -1), (0, x0 + hw, 1), (1, -hd, -1), (1, hd, 1)):
            if (o[axis] - lim) * sign <= 0:
                continue  # a face turned away from the camera
            dd = d[:, axis]
            ok = np.abs(dd) > 1e-9
            t = np.where(ok, (lim - o[axis]) / np.where(ok, dd, np.float32(1.0)), np.inf)
            other = 1 - axis
            along = o[other] + d[:, other] * t - (x0 if other == 0 else 0.0)
            hz = o[2] + dz * t
            on = (
                (t > 0)
                & (t < zbuf)
                & (np.abs(along) <= (hw if other == 0 else hd))
                & (hz >= 0)
                & (hz <= thick)
            )
            kind[on], zbuf[on], which[on] = SIDE, t[on], layer
            nrm = np.zeros(3, np.float32)
            nrm[axis] = sign
            normal[on] = nrm
    spix, st, sobj, snrm = hit_stones(cam, rays, stones, ss)
    win = nearest(spix, st, zbuf)
    stone_id = np.full(npx, -1, np.int64)
    kind[spix[win]], stone_id[spix[win]], normal[spix[win]] = STONE, sobj[win], snrm[win]
    hand: Hand | None = reach(layout, np.random.default_rng([seed, 102])) if f["hand"] else None
    hand_id = np.full(npx, -1, np.int64)
    if hand is not None:
        hpix, ht, hobj, hnrm = hit_capsules(cam, rays, hand.a, hand.b, hand.radii, ss)
        win = nearest(hpix, ht, zbuf)
        kind[hpix[win]], hand_id[hpix[win]], normal[hpix[win]] = HAND, hobj[win], hnrm[win]
    # surfaces hit by nothing (rays going up) look at the far room
    far = ~np.isfinite(zbuf)
    zbuf[far] = 1e5
    p = o.astype(np.float32)[None, :] + d * zbuf.astype(np.float32)[:, None]

    # albedo and gloss per pixel
    albedo = np.zeros((npx, 3), np.float32)
    spec = np.zeros(npx, np.float32)
    shine = np.full(npx, 10.0, np.float32)
    fp = zbuf / (cam.f * ss)  # a sub-pixel's footprint in mm, seen face on
    m = kind == TABLE
    in_table = m & (np.abs(p[:, 0] - tcx) <= ex) & (np.abs(p[:, 1] - tcy) <= ey)
    kind[m & ~in_table] = ROOM
    cloth, _ = cloth_texture(
        str(f["cloth"]),
        1200.0,
        0.5 if width * height < 2e6 else 1.0,
        np.random.default_rng([seed, 103]),
    )
    albedo[in_table] = cloth.sample(p[in_table, 0], p[in_table, 1])
    spec[in_table] = 0.02
    room = kind == ROOM
    albedo[room] = linear((40, 45, 50)) * rng.uniform(0.5, 1.5)
    top = kind == TOP
    ppm = float(np.clip(1.0 / np.median(fp[top]) if top.any() else 1.0, 0.5, 4.0))
    sppm = min(ppm, 2.0)  # shadows are soft: a coarser map does
    gloss = _GLOSS[str(f["board"])]
    ink_col = (
        linear((30, 30, 34))
        if f["board"] not in ("paper",)
        else linear(tuple(rng.choice([[30, 30, 34], [40, 60, 90], [90, 60, 40]])))
    )
    for layer in range(layers):
        tex: Texture = board_texture(
            str(f["board"]), tint, layout, layer, ppm, np.random.default_rng([seed, 110 + layer])
        )
        if f["coords"]:
            print_coords(tex, layout, layer, ink_col)
        m = (kind == TOP) & (which == layer)
        base = tex.sample(p[m, 0], p[m, 1])
        gx = (p[m, 0] - offsets[layer]) / sx + (size - 1) / 2
        gy = (size - 1) / 2 - p[m, 1] / sy
        cover = ink(gx, gy, size, float(f["line_mm"]), float(f["star_mm"]), sx, sy, fp[m])
        albedo[m] = base * (1 - cover[:, None]) + ink_col[None, :] * cover[:, None]
        spec[m], shine[m] = gloss
        m = (kind == SIDE) & (which == layer)
        side = tint * (0.75 if thick > 3 else 0.9)
        albedo[m] = side[None, :] * (1 + 0.05 * np.sin(p[m, 2] * 1.3 + p[m, 0] * 0.05))[:, None]
        spec[m] = gloss[0]
    m = kind == STONE
    sid = stone_id[m]
    is_b = stones.black[sid]
    albedo[m] = np.where(is_b[:, None], look.black[None, :], look.white[None, :])
    var = jitter((n_all, 3), 0.93, 1.07) * jitter((n_all, 1), 0.95, 1.05)
    albedo[m] *= var[sid]
    if look.stripes:
        ang, ph = jitter((n_all,), 0, np.pi), jitter((n_all,), 0, 6.3)
        local = p[m, :2] - stones.xy[sid]
        albedo[m] *= np.where(is_b, 1.0, stripes(local, ang[sid], ph[sid]))[:, None]
    spec[m] = np.where(is_b, look.spec[0], look.spec[1])
    shine[m] = np.where(is_b, look.shine[0], look.shine[1])
    if hand is not None:
        m = kind == HAND
        albedo[m] = hand.colours[hand_id[m]]
        spec[m] = np.where(hand.sleeve[hand_id[m]], 0.0, 0.06)

    # the lamp
    rng_lamp = np.random.default_rng([seed, 108])
    lamp = place_lamp(f, cam, layout, rng_lamp)
    amb_col = float(f["ambient"]) * (
        0.5 * lamp.colour / max(float(lamp.colour[1]), 1e-6)
        + 0.5 * kelvin_bgr(rng_lamp.uniform(4500, 7000))
    )
    centre = np.array([0.0, 0.0, thick])
    ldir = lamp.pos - centre
    ldir /= np.linalg.norm(ldir)
    pen = lamp.radius / float(np.linalg.norm(lamp.pos - centre))
    lit = np.ones(npx, np.float32)
    occl = np.ones(npx, np.float32)
    half = float(np.abs(np.array(offsets)).max() + hw + 60)
    if n_st:
        levels = np.linspace(0.3, look.top + look.bottom, 5)
        cen = np.concatenate(
            [np.column_stack([stones.xy[:n_st], np.full(n_st, thick + z)]) for z in levels]
        )
        rad_z = np.concatenate([stones.radius_at(float(z))[:n_st] for z in levels])
        smap = shadow_map(
            [(cen, rad_z, np.repeat(levels, n_st), False)],
            z=thick,
            ldir=ldir,
            half=half,
            ppm=sppm,
            penumbra=pen * 1.5 + 0.02,
        )
        ao = shadow_map(
            [
                (
                    np.column_stack([stones.xy[:n_st], np.full(n_st, thick)]),
                    stones.radius[:n_st] * 1.05,
                    np.full(n_st, 2.5),
                    False,
                )
            ],
            z=thick,
            ldir=np.array([0.0, 0.0, 1.0]),
            half=half,
            ppm=sppm,
            penumbra=1.0,
            depth=0.55,
        )
        m = kind == TOP
        lit[m] = smap.at(p[m])
        occl[m] = ao.at(p[m])
    # the boards' shadow on the table
    m = (kind == TABLE) & (ldir[2] > 0)
    if m.any():
        reach_s = thick / ldir[2]
        qx, qy = p[m, 0] + reach_s * ldir[0], p[m, 1] + reach_s * ldir[1]
        soft = max(pen * thick, 0.5)
        shade_t = np.zeros(int(m.sum()))
        for x0 in offsets:
            inside = np.minimum(hw - np.abs(qx - x0), hd - np.abs(qy))
            shade_t = np.maximum(shade_t, np.clip(inside / soft + 0.5, 0, 1))
        lit[m] = 1 - shade_t
        occl[m] *= 1 - 0.35 * shade_t * min(1.0, thick / 20)
    if hand is not None:
        hc, hr = hand.balls()
        heights = hc[:, 2] - thick
        hmap = shadow_map(
            [(hc, hr, heights, True)],
            z=thick,
            ldir=ldir,
            half=half + 900,
            ppm=0.5,
            penumbra=pen + 0.02,
        )
        m = kind != HAND
        lit[m] *= hmap.at(p[m])
        amb = shadow_map(
            [(hc, hr * 1.2, heights, True)],
            z=thick,
            ldir=np.array([0.0, 0.0, 1.0]),
            half=half + 900,
            ppm=0.5,
            penumbra=0.6,
            depth=0.6,
        )
        occl[m] *= amb.at(p[m])
    rad = shade(p, normal, -d, albedo, spec, shine, lamp, amb_col, lit, occl)
    rad[room] *= 0.6
    radiance = np.asarray(
        cv2.resize(
            rad.reshape(hs, ws, 3).astype(np.float32), (width, height), interpolation=cv2.INTER_AREA
        ),
        np.float32,
    )
    on_board = (
        cv2.resize(
            np.isin(kind, (TOP, STONE)).reshape(hs, ws).astype(np.float32),
            (width, height),
            interpolation=cv2.INTER_AREA,
        )
        > 0.5
    )
    hand_mask = cv2.resize(
        (kind == HAND).reshape(hs, ws).astype(np.float32),
        (width, height),
        interpolation=cv2.INTER_AREA,
    )

    scale = width / 640
    image = develop(
        radiance,
        np.random.default_rng([seed, 104]),
        exposure=float(f["exposure"]),
        white_balance=float(f["white_balance"]),
        contrast=float(f["contrast"]),
        vignette=float(f["vignette"]),
        blur_px=float(f["blur_px"]) * scale,
        motion_px=float(f["motion_px"]) * scale,
        noise=float(f["noise"]),
        sharpen=float(f["sharpen"]),
        jpeg=int(f["jpeg"]),
        meter=on_board,
    )

    corners, rows, hidden = [], [], set()
    for layer in range(layers):
        quad, k = ordered(cam, layout, layer)
        corners.append(quad)
        grid = np.array([r.split() for r in boards[layer]])
        rows.append(tuple(" ".join(r) for r in np.rot90(grid, k)))
        for i in hidden_spots(cam, layout, layer, k, hand_mask, look.top + look.bottom):
            hidden.add(layer * size * size + i)
    factors: dict[str, str | float | int | bool] = dict(f)
    factors.update(
        size=size,
        layers=layers,
        stones=n_st,
        position=source,
        move=move,
        width=width,
        height=height,
        light_rgb=_rgb(lamp.colour),
        hidden=len(hidden),
    )
    drawn = None if hand is None else np.asarray(hand_mask, np.float32)
    return SceneImage(image, size, corners, rows, frozenset(hidden), factors, drawn)


def _loose(count: int, layout: Layout, rng: np.random.Generator) -> F64:
    """Where ``count`` stones lie on the table beside the boards (prisoners, a dropped one)."""
    hw, hd = layout.half
    out: list[F64] = []
    for _ in range(count * 20):
        if len(out) == count:
            break
        x = rng.uniform(min(layout.offsets) - hw - 160, max(layout.offsets) + hw + 160)
        y = rng.uniform(-hd - 160, hd + 160)
        clear = all(abs(x - x0) > hw + 14 or abs(y) > hd + 14 for x0 in layout.offsets)
        if clear and all(np.hypot(x - a, y - b) > 24 for a, b in out):
            out.append(np.array([x, y]))
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def _rgb(c: F64) -> str:
    s = np.clip((c / max(float(c.max()), 1e-9)) ** (1 / 2.2) * 255, 0, 255).astype(int)
    return f"#{s[2]:02x}{s[1]:02x}{s[0]:02x}"
