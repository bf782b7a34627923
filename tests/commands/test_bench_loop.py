"""``companion bench loop``'s film: hands really cover the changing spot, and the frame it calls
"hand gone" really shows no hand over the board (what the latency is measured from)."""

from __future__ import annotations

import numpy as np

from companion.commands.bench_loop import _covers, _hand_mask, _spot_pixels, make_film
from companion.vision.render import render_board

EMPTY = ["."] * 81


def test_the_hand_covers_the_new_stone_and_is_gone_when_said() -> None:
    after = list(EMPTY)
    after[4 * 9 + 4] = "B"  # E5
    shots = [
        render_board(
            [" ".join(t[r * 9 : (r + 1) * 9]) for r in range(9)],
            size=9,
            width=320,
            height=240,
            seed=1,
        )
        for t in (EMPTY, after)
    ]
    corners = shots[0].corners[0].tolist()
    film = make_film(
        [s.image for s in shots], [EMPTY, after], corners, 9, fps=30, hold=0.5, label="t"
    )
    [step] = film.steps
    assert step.moves == 1 and step.start == 15 and step.start < step.gone < len(film.frames)
    spots = _spot_pixels(corners, 9)
    spacing = float(np.linalg.norm(spots[1] - spots[0]))
    shape = shots[0].image.shape[:2]
    # The photo changes only under a hand that covers E5.
    first_after = next(k for k, (photo, _) in enumerate(film.frames) if photo == 1)
    palm = film.frames[first_after][1]
    assert palm is not None
    assert _covers(_hand_mask(shape, palm, spacing), spots[40:41], spacing)
    # From "gone" on, no frame has a hand over any spot; the frame before it has.
    for _, palm in film.frames[step.gone :]:
        assert palm is None or not _covers(_hand_mask(shape, palm, spacing), spots, spacing)
    before = film.frames[step.gone - 1][1]
    assert before is not None and _covers(_hand_mask(shape, before, spacing), spots, spacing)
