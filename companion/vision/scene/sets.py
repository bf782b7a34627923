"""Scene sets: the factors pinned, per seed, for kinds of scene the free draw makes too rarely
(a crowded board from a low camera with thick stones; one low hard lamp in a dim room).

Each set draws its pins from its own random stream of the seed, so a set's scene is as
reproducible as any other; the factors it does not pin are the seed's own. The free draw never
produces these pins (``stage_min``, ``stone_mm`` and the "low" light are pinned only here), so
no regular seed changed when the sets came.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from companion.errors import VisionError
from companion.vision.scene.factors import Value

Pins = dict[str, Value]


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream])


def crowded(seed: int) -> Pins:
    """A late-game position (from 70-95 % of a game on), the camera 30-45 degrees up with the
    board filling most of the frame, and stones 9.5-12 mm thick: from such a webcam a stone's
    top leans over the point behind it, and every point has a stone in front of it."""
    rng = _rng(seed, 300)
    stage, up, thick, fill = rng.random(4)
    return {
        "stage_min": round(0.7 + 0.25 * float(stage), 3),
        "elevation_deg": round(30.0 + 15.0 * float(up), 3),
        "stone_mm": round(9.5 + 2.5 * float(thick), 3),
        "fill": round(0.8 + 0.17 * float(fill), 3),
    }


def shadows(seed: int) -> Pins:
    """One small lamp 10-30 degrees up in a dim room: little ambient light, an under-exposed,
    noisy frame, the camera's white balance partly off. Stones cast shadows one to three
    spacings long, dark and crisp: the kind of shadow that reads as a black stone."""
    rng = _rng(seed, 301)
    amb, expo, noise, wb, colour = rng.random(5)
    return {
        "light": "low",
        "light_colour": ("white", "warm", "cool")[int(colour * 3)],
        "ambient": round(0.03 + 0.12 * float(amb), 3),
        "exposure": round(0.35 + 0.45 * float(expo), 3),
        "noise": round(3.0 + 5.0 * float(noise), 3),
        "white_balance": round(0.5 * float(wb), 3),
    }


#: The scene sets by name: seed -> the factors pinned for it.
SCENE_SETS: dict[str, Callable[[int], Pins]] = {"crowded": crowded, "shadows": shadows}


def pins(name: str, seed: int) -> Pins:
    """The factors the set ``name`` pins for ``seed``; a :class:`VisionError` for no such set."""
    try:
        return SCENE_SETS[name](seed)
    except KeyError:
        raise VisionError(f"unknown scene set {name!r}: one of {', '.join(SCENE_SETS)}") from None
