"""Simulated hands over a board, as a camera's reader would report them.

For the tracker's bench (``companion bench tracker``) and tests: the reader shows a hand as
unknown spots, and its shadow as the odd misread spot around it.
"""

from __future__ import annotations

import random

from companion.observation import UNKNOWN


def hand_frames(
    before: list[str], after: list[str], width: int, rng: random.Random
) -> list[list[str]]:
    """What a reader reports while a hand makes the change ``before`` -> ``after``.

    ``before`` and ``after`` are token lists of a ``width``-wide board. The hand (a 5x5 block
    of unknown spots, with misread spots at random around it) comes in from the nearest edge
    in 8 frames, rests 4 frames over each spot that changes (the spot takes its new value
    there), then leaves by the nearer side in 8 frames. Returns the frames while the hand is
    over or near the board; the caller shows ``after`` once it is gone.
    """
    changed = [s for s in range(len(after)) if before[s] != after[s]]
    under = list(before)
    height = len(after) // width
    # The hand's path: positions (row, col), and spot numbers where the spot takes its new value.
    path: list[tuple[float, float] | int] = []
    here: tuple[float, float] | None = None
    for s in changed:
        row, col = divmod(s, width)
        # Come in from the nearest edge (or from the last spot visited) in 8 steps.
        start = here or min(
            [(row, -3.0), (row, width + 2.0), (-3.0, col), (height + 2.0, col)],
            key=lambda p: abs(p[0] - row) + abs(p[1] - col),
        )
        path += [
            (start[0] + (row - start[0]) * k / 8, start[1] + (col - start[1]) * k / 8)
            for k in range(1, 9)
        ]
        path += [(float(row), float(col))] * 4
        path.append(s)
        here = (float(row), float(col))
    if here is not None:
        side = -3.0 if here[1] < width / 2 else width + 2.0
        path += [(here[0], here[1] + (side - here[1]) * k / 8) for k in range(1, 9)]
    frames: list[list[str]] = []
    for step in path:
        if isinstance(step, int):
            under[step] = after[step]
            continue
        r, c = step
        seen = list(under)
        for s in range(len(seen)):
            sr, sc = divmod(s, width)
            d = max(abs(sr - r), abs(sc - c))
            if d <= 2:
                seen[s] = UNKNOWN
            elif d <= 3 and rng.random() < 0.15:
                seen[s] = rng.choice(".BW?")  # the hand's shadow misread
        frames.append(seen)
    return frames
