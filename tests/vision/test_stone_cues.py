"""The hand-made shape cues: grid lines hidden under a stone, and a stone's round outline."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from companion.vision.read_stones import Region
from companion.vision.render import render_board
from companion.vision.stone_cues import (
    COVERED,
    RING_MIN,
    VISIBLE,
    CueMeter,
    _local_upper,
    _low,
)

ROWS = [
    ". . . . . . . . .",
    ". W . . . . . B .",
    ". . . . . . . . .",
    ". . . W W . . . .",
    ". . . W . . . . .",
    ". . . . . . W . .",
    ". B . . . . . . .",
    ". . . . . . . W .",
    "W . . . . . . . .",
]


@given(
    st.lists(
        st.lists(st.floats(-1e3, 1e3, width=32), min_size=6, max_size=6), min_size=2, max_size=7
    )
)
def test_second_smallest_matches_a_sort(columns: list[list[float]]) -> None:
    arrays = [np.array(c, dtype=np.float32) for c in columns]
    expected = np.sort(np.stack(arrays), axis=0)
    assert np.array_equal(_low(arrays, 1), expected[1])
    assert np.array_equal(_low(arrays, 0), expected[0])


def test_local_reference_judges_points_by_their_kind() -> None:
    """Edge points are compared along their own edge, inner points with inner points."""
    values = np.full((9, 9), 0.5)
    values[0, :] = 0.1  # a top edge whose line shows faintly (a lens bends it off the points)
    ref = _local_upper(values.reshape(-1), (9, 9)).reshape(9, 9)
    assert np.allclose(ref[0, 1:-1], 0.25)  # half the board's edge look: crowded, or faint
    assert np.allclose(ref[2:-2, 2:-2], 0.5)
    flat = _local_upper(np.arange(5, dtype=np.float64), None)  # a map: one reference
    assert np.allclose(flat, 3.0)


def test_shape_cues_on_a_pale_board() -> None:
    """On a board nearly as pale as the stones: under every white stone the lines are gone and
    an outline rings it; at every empty point the lines show as around it and no outline."""
    r = render_board(ROWS, size=9, style="pale", seed=3)
    reader = CueMeter([Region.grid(r.corners[0], 9)], (r.image.shape[1], r.image.shape[0]))
    f = reader.features(r.image)
    assert f.valley is not None and f.valley_ref is not None and f.ring is not None
    share = f.valley / f.valley_ref
    outline = f.ring / f.bg_gray
    for i, tok in enumerate(r.tokens):
        if tok == "W":
            assert share[i].max() < COVERED, i
            assert outline[i] >= RING_MIN, i
        elif tok == ".":
            assert share[i].min() >= VISIBLE, i
            assert outline[i] < RING_MIN, i
