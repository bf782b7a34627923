"""A physically plausible renderer of board photos with exact labels, for training and testing
the reader: boards, lens-shaped stones, lamp, shadows, hands and a camera, all from a seed.

``render_scene(seed, size=19)`` gives a :class:`SceneImage`: the BGR image, the corner
intersections of each layer (TL, TR, BR, BL as ``find_board.order_corners`` orders them), the
label rows turned to match, the spots a hand hides, and every factor that was drawn. Pin any
factor by keyword (``elevation_deg=30``, ``hand=True``, ``position=rows``) to sweep one at a
time. numpy and OpenCV only: it runs on the Pi install.
"""

from companion.vision.scene.compose import SceneImage, render_scene
from companion.vision.scene.factors import DRAWS as FACTORS

#: Seeds kept for test sets: train on seeds below this, evaluate on seeds from it up, so a
#: "fresh render test set" is one no model has seen.
TEST_SEEDS_FROM = 1_000_000

__all__ = ["FACTORS", "TEST_SEEDS_FROM", "SceneImage", "render_scene"]
