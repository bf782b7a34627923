"""Synthetic boards rendered by the tests themselves, for the cases no real photo covers.

Each case says what must hold: the exact position where the view is clear, and never a wrong
colour where it is not (a hand, a white stone on a white board without calibration).
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.errors import VisionError
from companion.vision.find_board import find_board
from companion.vision.make_profile import calibrate
from companion.vision.pipeline import read_photo
from companion.vision.profile import parse_profile
from companion.vision.render import random_position, render_board

EMPTY9 = [". . . . . . . . ."] * 9


def _wrong_colour(truth: tuple[str, ...], read: tuple[str, ...]) -> list[int]:
    """Spots read as a stone or as empty when the truth differs ('?' is never wrong)."""
    return [i for i, (a, b) in enumerate(zip(truth, read, strict=True)) if b != "?" and a != b]


def test_render_knows_its_corners() -> None:
    r = render_board(EMPTY9, size=9, width=640, height=480)
    assert r.image.shape == (480, 640, 3)
    assert len(r.corners) == 1 and r.corners[0].shape == (4, 2)
    with pytest.raises(VisionError):
        render_board([". B"], size=9)


def test_wood_board_read_exactly_and_found() -> None:
    rows = random_position(19, stones=0.35, seed=1)
    r = render_board(rows, size=19, seed=1)
    reading = read_photo(r.image, size=19, corners=r.corners[0])
    assert reading.observation.states == r.tokens
    found = find_board(r.image)
    spacing = np.linalg.norm(r.corners[0][1] - r.corners[0][0]) / 18
    assert found.size == 19
    assert np.abs(found.corners - r.corners[0]).max() < 0.25 * spacing


@pytest.mark.parametrize(
    ("kwargs", "size"),
    [
        ({"tilt": 30, "glare": True}, 19),  # oblique: tops off their points; glare on black
        ({"light": "dim"}, 13),
        ({"light": "warm", "tilt": 15}, 19),
        ({"light": "green"}, 9),
        ({"light": "uneven"}, 19),
        ({"nudge": 0.15, "seed": 4}, 19),  # stones pushed off their points
    ],
)
def test_light_and_pose(kwargs: dict[str, object], size: int) -> None:
    rows = random_position(size, stones=0.3, seed=size)
    r = render_board(rows, size=size, **kwargs)  # type: ignore[arg-type]
    obs = read_photo(r.image, size=size, corners=r.corners[0]).observation
    assert _wrong_colour(r.tokens, obs.states) == []
    right = sum(a == b for a, b in zip(r.tokens, obs.states, strict=True))
    assert right >= 0.99 * len(r.tokens)


@pytest.mark.parametrize(("reader", "least"), [("classic", 0.99), ("net", 0.97)])
def test_blue_light(reader: str, least: float) -> None:
    """Saturated blue light: no wrong colour from either reader. The net is the weaker one
    here: pale-blue white stones and empty points on the edges (10 of 361) read ``?`` (15-75 %
    "covered"). The cast is the cause: the same render white-balanced reads every point; a cast
    this strong (red x0.6, blue x1.15) is rare among the training windows. So its bar is its
    own (MODEL_CARD.md, limits)."""
    rows = random_position(19, stones=0.3, seed=19)
    r = render_board(rows, size=19, light="blue")
    obs = read_photo(r.image, size=19, corners=r.corners[0], reader=reader).observation
    assert _wrong_colour(r.tokens, obs.states) == []
    right = sum(a == b for a, b in zip(r.tokens, obs.states, strict=True))
    assert right >= least * len(r.tokens)


@pytest.mark.parametrize("seed", [6, 7])
def test_hand_over_the_board_is_unknown_not_a_wrong_colour(seed: int) -> None:
    rows = random_position(19, stones=0.3, seed=seed)
    r = render_board(rows, size=19, hand=True, tilt=15, seed=seed)
    assert len(r.hidden) > 20
    obs = read_photo(r.image, size=19, corners=r.corners[0]).observation
    assert _wrong_colour(r.tokens, obs.states) == []
    hidden_unknown = sum(obs.states[i] == "?" for i in r.hidden)
    assert hidden_unknown >= 0.7 * len(r.hidden)


def test_magnetic_white_on_white_with_a_profile() -> None:
    """The 9x9 fridge set: calibrated on the empty board, white stones read by shape."""
    empty = render_board(EMPTY9, size=9, style="magnetic", seed=3)
    profile = parse_profile(calibrate(empty.image, board="9", corners=[empty.corners[0]]).to_json())
    assert profile.empty_patches is not None
    for seed in (1, 2):
        rows = random_position(9, stones=0.35, seed=seed)
        r = render_board(rows, size=9, style="magnetic", seed=3)
        assert profile.read(r.image).states == r.tokens


def test_magnetic_with_hand_and_profile_never_wrong() -> None:
    empty = render_board(EMPTY9, size=9, style="magnetic", light="warm", seed=5)
    profile = calibrate(empty.image, board="9", corners=[empty.corners[0]])
    rows = random_position(9, stones=0.3, seed=9)
    r = render_board(rows, size=9, style="magnetic", light="warm", hand=True, seed=5)
    obs = profile.read(r.image)
    assert _wrong_colour(r.tokens, obs.states) == []
    assert obs.unknown >= len(r.hidden) * 0.7


@pytest.mark.parametrize(
    ("style", "size", "kwargs"),
    [
        ("pale", 19, {"seed": 0}),  # light maple nearly as bright as the stones
        ("pale", 19, {"light": "uneven", "seed": 1}),
        ("pale", 19, {"tilt": 25, "seed": 2}),
        ("pale", 19, {"light": "warm", "tilt": 10, "seed": 3}),
        ("magnetic", 9, {"seed": 2}),  # white sheet
        ("magnetic", 9, {"light": "uneven", "seed": 0}),  # metal sheet
        ("magnetic", 9, {"light": "warm", "tilt": 15, "seed": 4}),
    ],
)
def test_white_on_a_pale_board_without_a_profile(
    style: str, size: int, kwargs: dict[str, object]
) -> None:
    """White stones on a board nearly as pale as they are, no calibration: read by their shape
    (grid lines hidden, a round outline), never as empty, and no empty point turns white."""
    seed = int(kwargs["seed"])  # type: ignore[call-overload]
    rows = random_position(size, stones=0.35, seed=100 + seed)
    r = render_board(rows, size=size, style=style, **kwargs)  # type: ignore[arg-type]
    obs = read_photo(r.image, size=size, corners=r.corners[0]).observation
    assert _wrong_colour(r.tokens, obs.states) == []
    whites = [i for i, tok in enumerate(r.tokens) if tok == "W"]
    assert len(whites) > 5
    assert sum(obs.states[i] == "W" for i in whites) >= 0.95 * len(whites)


@pytest.mark.parametrize(("style", "size", "seed"), [("pale", 19, 10), ("magnetic", 9, 6)])
def test_hand_over_a_pale_board_is_unknown(style: str, size: int, seed: int) -> None:
    """A hand has no round outline and not a stone's colour: the spots it covers stay unknown."""
    rows = random_position(size, stones=0.3, seed=seed)
    r = render_board(rows, size=size, style=style, hand=True, tilt=15, seed=seed)  # type: ignore[arg-type]
    obs = read_photo(r.image, size=size, corners=r.corners[0]).observation
    assert _wrong_colour(r.tokens, obs.states) == []
    assert sum(obs.states[i] == "?" for i in r.hidden) >= 0.6 * len(r.hidden)


def test_stacked_pair_side_by_side() -> None:
    """Two 9x9 layers in one frame: found, mapped left to right to layers 0 and 1."""
    rows = random_position(9, stones=0.3, seed=2, layers=2)
    r = render_board(rows, size=9, layers=2, seed=2, fill=0.7)
    profile = calibrate(r.image, board="2x9x9", empty=False)
    assert [reg.layer for reg in profile.regions] == [0, 1]  # type: ignore[union-attr]
    obs = profile.read(r.image)
    assert obs.states == r.tokens


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tilt": 35, "glare": True, "seed": 1},
        {"hand": True, "tilt": 20, "seed": 6},
        {"light": "dim", "rotate": 8, "seed": 2},
    ],
)
def test_board_found_without_help(kwargs: dict[str, object]) -> None:
    rows = random_position(19, stones=0.3, seed=int(kwargs["seed"]))  # type: ignore[call-overload]
    r = render_board(rows, size=19, **kwargs)  # type: ignore[arg-type]
    found = find_board(r.image)
    spacing = np.linalg.norm(r.corners[0][1] - r.corners[0][0]) / 18
    assert found.size == 19
    assert np.abs(found.corners - r.corners[0]).max() < 0.25 * spacing


def test_magnetic_9x9_found_without_help() -> None:
    rows = random_position(9, stones=0.3, seed=2)
    r = render_board(rows, size=9, style="magnetic", seed=2)
    found = find_board(r.image)
    assert found.size == 9
    spacing = np.linalg.norm(r.corners[0][1] - r.corners[0][0]) / 8
    assert np.abs(found.corners - r.corners[0]).max() < 0.25 * spacing


def test_render_at_given_corners() -> None:
    quad = [[300.0, 120.0], [900.0, 140.0], [960.0, 640.0], [250.0, 620.0]]
    rows = random_position(13, stones=0.3, seed=5)
    r = render_board(rows, size=13, corners=quad, seed=5)
    assert np.allclose(r.corners[0], quad, atol=0.01)
    assert read_photo(r.image, size=13, corners=quad).observation.states == r.tokens
    with pytest.raises(VisionError):
        render_board(rows, size=13, corners=[[0.0, 0.0]])
