"""The factors of a scene (board, stones, light, camera, hand, degradations): drawn from a
seed, each from its own random stream, so pinning one factor (``elevation_deg=30``) leaves
every other factor of that seed exactly as it was -- sweeps change one thing at a time.
Streams are keyed by the factor's name, so adding a factor later changes no other."""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from companion.errors import VisionError
from companion.vision.scene.lights import TINTS
from companion.vision.scene.materials import BOARDS, CLOTHS, STONES

Value = str | float | int | bool

#: Kinds of light; "low" (one small lamp 10-30 degrees up: long, hard shadows) is never drawn,
#: only pinned (the shadows scene set).
LIGHTS = ("even", "uneven", "spot", "glare", "low")
Draw = Callable[[np.random.Generator, dict[str, Value]], Value]


def _choice(options: tuple[str, ...], p: tuple[float, ...] | None = None) -> Draw:
    def draw(rng: np.random.Generator, _: dict[str, Value]) -> Value:
        probs = None if p is None else np.asarray(p) / sum(p)
        return str(options[int(rng.choice(len(options), p=probs))])

    return draw


def _uniform(lo: float, hi: float, zero: float = 0.0) -> Draw:
    """U(lo, hi), or 0.0 with probability ``zero``."""

    def draw(rng: np.random.Generator, _: dict[str, Value]) -> Value:
        z, x = rng.random(), rng.uniform(lo, hi)
        return 0.0 if z < zero else round(float(x), 3)

    return draw


def _board(rng: np.random.Generator, f: dict[str, Value]) -> Value:
    u, w = rng.random(), rng.random()
    if f["stones_style"] == "magnetic":
        return "fridge_white" if u < 0.6 else "fridge_metal"
    kinds, p = BOARDS[:5], np.array([0.34, 0.16, 0.15, 0.15, 0.2])
    return str(kinds[int(np.searchsorted(np.cumsum(p), w * p.sum()))])


_TINT_RANGES = {  # sRGB BGR lower and upper bounds of a board's base colour
    "wood": ((60, 130, 185), (125, 190, 235)),
    "pale_wood": ((175, 200, 220), (215, 228, 240)),
    "bamboo": ((90, 165, 205), (140, 200, 235)),
    "vinyl": ((80, 120, 130), (215, 225, 235)),
    "paper": ((200, 215, 220), (250, 252, 252)),
    "fridge_white": ((228, 230, 230), (250, 250, 250)),
    "fridge_metal": ((170, 172, 172), (210, 210, 212)),
}


def _tint(rng: np.random.Generator, f: dict[str, Value]) -> Value:
    lo, hi = _TINT_RANGES[str(f["board"])]
    u = rng.random(3)
    if f["board"] == "vinyl" and rng.random() < 0.4:  # green or blue roll-up boards exist
        lo, hi = (60, 120, 40), (180, 200, 150)
    b, g, r = (int(a + (c - a) * x) for a, c, x in zip(lo, hi, u, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def _kelvin(rng: np.random.Generator, f: dict[str, Value]) -> Value:
    u = rng.random()
    lo, hi = {"warm": (2300, 3400), "cool": (6000, 9500), "white": (3800, 5600)}.get(
        str(f["light_colour"]), (2800, 6500)
    )
    return round(lo + (hi - lo) * u)


def _thick(rng: np.random.Generator, f: dict[str, Value]) -> Value:
    u = rng.random()
    lo, hi = {
        "wood": (12, 160),
        "pale_wood": (12, 60),
        "bamboo": (15, 40),
        "vinyl": (0.8, 2),
        "paper": (0.2, 0.6),
        "fridge_white": (3, 8),
        "fridge_metal": (3, 8),
    }[str(f["board"])]
    return round(lo + (hi - lo) * u**2, 2)


DRAWS: dict[str, Draw] = {  # order matters: a draw may read the factors before it
    "stones_style": _choice(STONES, (0.35, 0.2, 0.2, 0.15, 0.1)),
    "board": _board,
    "board_tint": _tint,
    "thickness_mm": _thick,
    "line_mm": _uniform(0.45, 1.4),
    "star_mm": _uniform(2.5, 5.0),
    "margin_mm": _uniform(8.0, 32.0),
    "aspect": _uniform(1.0, 1.09),
    "coords": lambda rng, f: bool(rng.random() < 0.3),
    "cloth": _choice(CLOTHS),
    "light": _choice(LIGHTS[:4], (0.4, 0.25, 0.15, 0.2)),
    "light_colour": _choice(tuple(TINTS), (0.3, 0.2, 0.15, 0.07, 0.07, 0.07, 0.07, 0.07)),
    "light_kelvin": _kelvin,
    "ambient": _uniform(0.08, 0.5),
    "white_balance": _uniform(0.0, 1.0),
    "exposure": _uniform(0.75, 1.2),
    "contrast": _uniform(1.0, 1.6),
    "elevation_deg": _uniform(30.0, 90.0),
    "azimuth_deg": _uniform(0.0, 360.0),
    "roll_deg": _uniform(-4.0, 4.0),
    "fov_deg": _uniform(40.0, 62.0),
    "fill": _uniform(0.6, 0.95),
    "distortion": _uniform(-0.08, 0.04),
    "nudge": _uniform(0.0, 0.25, zero=0.4),
    "hand": lambda rng, f: bool(rng.random() < 0.2),
    "loose": lambda rng, f: 0 if rng.random() < 0.6 else int(rng.integers(1, 13)),
    "blur_px": _uniform(0.3, 2.5, zero=0.5),
    "motion_px": _uniform(1.0, 8.0, zero=0.75),
    "noise": _uniform(0.5, 6.0),
    "sharpen": _uniform(0.0, 1.2),
    "jpeg": lambda rng, f: 0 if rng.random() < 0.3 else int(rng.integers(35, 96)),
    "vignette": _uniform(0.0, 0.35),
    # Pinned only by the scene sets (companion/vision/scene/sets.py); drawn as the neutral
    # value, so every seed renders as it did before these factors existed.
    "stage_min": lambda rng, f: 0.0,  # the position's stage: at least this share of the game
    "stone_mm": lambda rng, f: 0.0,  # stone height in mm (0: the stone set's own, 7.5-10)
}


def draw_factors(seed: int, overrides: dict[str, object]) -> dict[str, Value]:
    """Every factor of ``seed``, with ``overrides`` pinned (cast to the factor's type).

    Raises :class:`VisionError` for a factor that does not exist or a value of the wrong kind.
    """
    unknown = set(overrides) - set(DRAWS)
    if unknown:
        raise VisionError(f"unknown scene factor(s): {', '.join(sorted(unknown))}")
    out: dict[str, Value] = {}
    for name, draw in DRAWS.items():
        value = draw(np.random.default_rng([seed, zlib.crc32(name.encode())]), out)
        if name in overrides:
            value = _cast(name, overrides[name], value)
        out[name] = value
    return out


def _cast(name: str, given: object, like: Value) -> Value:
    try:
        if isinstance(like, bool):
            if isinstance(given, str):
                if given.lower() not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError(given)
                return given.lower() in ("1", "true", "yes")
            return bool(given)
        if isinstance(like, int):
            return int(str(given))
        if isinstance(like, float):
            return float(str(given))
    except ValueError as exc:
        raise VisionError(f"factor {name}: {given!r} is not a {type(like).__name__}") from exc
    value = str(given)
    allowed = {
        "stones_style": STONES,
        "board": BOARDS,
        "cloth": CLOTHS,
        "light": LIGHTS,
        "light_colour": tuple(TINTS),
    }.get(name)
    if allowed is not None and value not in allowed:
        raise VisionError(f"factor {name}: {value!r} is not one of {', '.join(allowed)}")
    return value


#: Bins for the per-factor tables of an evaluation: (upper bound, label) in order.
BINS: dict[str, tuple[tuple[float, str], ...]] = {
    "elevation_deg": ((45, "30-45"), (60, "45-60"), (75, "60-75"), (91, "75-90")),
    "stones": ((1, "empty"), (60, "1-59"), (150, "60-149"), (250, "150-249"), (1e9, "250+")),
    "blur_px": ((0.01, "sharp"), (1.0, "<1 px"), (2.0, "1-2 px"), (1e9, "2+ px")),
    "motion_px": ((0.01, "still"), (4.0, "<4 px"), (1e9, "4+ px")),
    "noise": ((2.0, "low"), (4.0, "mid"), (1e9, "high")),
    "jpeg": ((1, "none"), (60, "q<60"), (101, "q60+")),
    "nudge": ((0.01, "on points"), (1e9, "nudged")),
}


def bucket(name: str, value: object) -> str:
    """The table row a factor's value falls in: a bin for the numeric factors in
    :data:`BINS`, the value itself (as text) for the others (light colour, hand, board)."""
    bins = BINS.get(name)
    if bins is None or isinstance(value, bool) or not isinstance(value, int | float):
        return str(value).lower() if isinstance(value, bool) else str(value)
    for upper, label in bins:
        if value < upper:
            return label
    return bins[-1][1]
