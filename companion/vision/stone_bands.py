"""The classic reader's decision per spot: black, white, empty or ``?``, from measured cues.

Black is much darker than the board. White is brighter and far from the wood's tint, and
shares the tint of the clear white stones (a hand does not). Empty looks like the board and
shows its lines. With a saved empty look, a point that still matches it is empty and one
that does not holds something, named only if its colour is clear (so white magnetic stones
on a white board are read). Without one, a white stone on a board as pale as itself is
read by its shape: lines hidden and a round outline. Anything between the clear bands is
``?``, and a patch of hidden points makes its surroundings ``?`` too: a wrong colour is
far worse than unknown.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from companion.observation import BLACK, EMPTY, UNKNOWN, WHITE
from companion.vision.stone_cues import (
    COVERED,
    RING_MIN,
    VALLEY_SEEN,
    VISIBLE,
    Features,
)

# Decision bands, relative to the board's own appearance at that spot. ``g`` is the spot's
# brightness over the board's; ``t`` how far its colour (chromaticity) is from the board's, in
# hundredths. Wood is coloured and white stones are not, so white differs in tint even where
# light makes the board as bright as a stone; glare on wood is bright but keeps the wood's tint.
BLACK_BELOW = 0.50  # g below this: black
DEEP_BLACK = 0.25  # g below this: a clearly black stone (its tint is the black stones' tint)
NOT_BLACK_ABOVE = 0.70  # g above this: not black; between: unknown
WHITE_MIN = 1.05  # a white stone is at least this bright ...
WHITE_TINT = 3.0  # ... and this far from the board's tint,
WHITE_BRIGHT = 1.35  # ... or this bright whatever its tint.
EMPTY_TINT = 2.0  # board tint: empty unless brighter than WHITE_BRIGHT
EMPTY_BELOW = 1.12  # g below this with a board-like tint ... (and g above NOT_BLACK_ABOVE)
EMPTY_LINES = 0.03  # ... and only where grid lines show at the point: a hand hides them
SOME_LINES = 0.08  # lines this clear settle a spot between board tint and white tint
CLEAR_LINES = 0.4  # lines this clear at a point that is not white: board
PALE_BOARD = 0.25  # board saturation below which it is "white or metal" (magnetic sets)
SAME_EMPTY = 0.75  # with a saved empty board: correlation from which a point is unchanged
SAME_CHANGED = 0.5  # ... below which something lies on it
WHITE_SPREAD = 4.0  # tint distance to the clear white stones within which a spot can be white
SHADED_WHITE = 0.95  # g from which a spot with the clear white stones' tint is white
PATCH = 3  # adjacent line-less unknown spots that make a covered patch
PALE_TINT = 4.0  # a covered, outlined spot this close to the board's tint is white (a pale board)
PALE_MIN = 0.9  # ... if at least this bright (a hand's shadow or a sleeve is darker)


def classify(
    f: Features, neighbours: Sequence[Sequence[int]] | None = None
) -> tuple[list[str], NDArray[np.float64]]:
    """Token and confidence per spot from measured :class:`Features`.

    Confidence is 0.5 at the edge of a clear band and grows to 1 with the margin; unknown
    spots get 0. With ``neighbours`` (spot -> nearby spots), a patch of several spots that are
    neither board nor stone (a hand, a sleeve, a cup) also makes the spots around it unknown:
    the edge of a hand half-covers them.
    """
    g = f.gray / np.maximum(f.bg_gray, 1.0)
    t = 100.0 * np.hypot(*(f.tint - f.bg_tint).T)
    n = len(g)
    out = np.full(n, UNKNOWN, dtype="<U1")
    conf = np.zeros(n)

    black = g < BLACK_BELOW
    # A deep shadow on coloured wood is as dark as a stone but keeps the wood's tint; black
    # stones do not. Where the clear black stones sit far from the board's tint, a merely
    # dark spot must be far from it too.
    deep = black & (g < DEEP_BLACK)
    if deep.sum() >= 3:
        typical = float(np.median(t[deep]))
        if typical >= 8.0:
            shadow = black & ~deep & (t < 0.25 * typical)
            black &= ~shadow
    out[black] = BLACK
    conf[black] = 0.5 + (BLACK_BELOW - g[black]) / BLACK_BELOW

    # The shape cues (NaN where not measured: then neither says anything). *Covered*: the
    # grid lines vanish where the points around show them. *Plain*: they show as clearly as
    # around it and no outline rings the spot: bare board whatever its colour says (a hand's
    # reflected light or a shadow can tint and brighten the board, never draw a rim).
    covered = np.zeros(n, dtype=bool)
    plain = np.zeros(n, dtype=bool)
    outline = np.zeros(n, dtype=bool)
    if f.valley is not None and f.valley_ref is not None and f.ring is not None:
        with np.errstate(invalid="ignore"):
            seen = f.valley_ref >= VALLEY_SEEN  # (n, 2): lines show this way around the spot
            gone = f.valley < COVERED * f.valley_ref
            shown = f.valley >= VISIBLE * f.valley_ref
            outline = f.ring / np.maximum(f.bg_gray, 1.0) >= RING_MIN
        covered = seen.any(axis=1) & (gone | ~seen).all(axis=1)
        plain = seen.any(axis=1) & (shown | ~seen).all(axis=1) & ~outline

    white = (g >= WHITE_MIN) & ((t >= WHITE_TINT) | (g >= WHITE_BRIGHT)) & ~plain
    # Where several clear white stones show, a white stone must also share their colour (a
    # hand or a sleeve can be as bright and as far from the wood's tint, but not white).
    sure = white & (g >= 1.3) & ~(f.lines >= 0.3)  # (NaN: lines not measured)
    shaded = np.zeros(n, dtype=bool)
    like_white = np.zeros(n, dtype=bool)
    if sure.sum() >= 3:
        ref = np.median(f.tint[sure], axis=0)
        like_white = 100.0 * np.hypot(*(f.tint - ref).T) < WHITE_SPREAD
        white &= like_white
        # a white stone in a neighbour's shadow: no brighter than the board, but white's tint
        shaded = ~white & ~plain & like_white & (t >= WHITE_TINT) & (g >= SHADED_WHITE)
    out[white | shaded] = WHITE
    wm = np.maximum((t - WHITE_TINT) / 3.0, (g - WHITE_BRIGHT) / 0.2)
    wm = np.minimum(wm, (g - WHITE_MIN) / 0.1)
    conf[white] = 0.5 + 0.5 * np.clip(wm[white], 0, 1)
    conf[shaded] = 0.55
    white |= shaded

    # A white stone on a board nearly as pale as itself (light maple, a white or metal
    # magnetic sheet) is neither much brighter nor differently tinted. Its shape shows: the
    # grid lines vanish where the points around show them (something lies on the point), and
    # brightness drops all round at its rim (an outline: a hand, a sleeve or a blurred point
    # has none). Such a spot is white if it is not darker than the board and has either the
    # clear white stones' tint or nearly the board's own (skin is far from both). Confidence
    # stays below 0.95, so the edge of a hand nearby still turns it unknown.
    hid_white = (
        covered & outline & ~black & ~white & (g >= PALE_MIN) & (like_white | (t < PALE_TINT))
    )
    out[hid_white] = WHITE
    conf[hid_white] = 0.5 + 0.4 * np.clip((g[hid_white] - PALE_MIN) / 0.2, 0, 1)
    white |= hid_white

    # Not bright enough for a white stone nor dark enough for a black one: board (maybe in a
    # stone's shadow, which tints it). Bright but board-tinted: glare on the board.
    board_tint = (t < EMPTY_TINT) & (g < WHITE_BRIGHT)
    # Grid lines crossing the point clearly: board, whatever the light does to its colour.
    # Between the board's tint and a white stone's, visible lines say board.
    lined = (
        (f.lines >= CLEAR_LINES)
        | ((f.lines >= SOME_LINES) & (t < WHITE_TINT) & (g < EMPTY_BELOW))
        | plain
    )
    # Dimmer than the board: board in a stone's shadow (which tints it), unless it has the
    # white stones' tint and no lines show (then it may be a white stone in shadow).
    dim = (g < 1.0) & ((t < WHITE_TINT) | (~like_white & (f.lines >= SOME_LINES)))
    empty = (g > NOT_BLACK_ABOVE) & (dim | board_tint | lined) & ~white
    # The point itself must show (a hand hides it), unless the spot is the board's very image
    # (a stone standing in front can hide a point in an oblique view; the spot is still empty).
    exact = (t < 1.0) & (np.abs(g - 1.0) < 0.06)
    empty &= (f.lines >= EMPTY_LINES) | exact
    out[empty] = EMPTY
    em = np.minimum(
        np.maximum((EMPTY_TINT - t) / 1.0, (1.0 - g) / 0.05), (g - NOT_BLACK_ABOVE) / 0.1
    )
    em = np.minimum(em, np.where(g < EMPTY_BELOW, 1.0, (WHITE_BRIGHT - g) / 0.4))
    conf[empty] = 0.5 + 0.5 * np.clip(em[empty], 0, 1)
    unseen = empty & ~(f.lines >= EMPTY_LINES)  # empty by its look alone: the point is hidden
    conf[unseen] = np.minimum(conf[unseen], 0.6)

    if f.same is not None:
        # A saved empty board: a point that still looks as it did empty is empty; one that
        # does not holds something, and only a stone's clear colour names it.
        still = f.same >= SAME_EMPTY
        out[still & ~black] = EMPTY
        conf[still & ~black] = np.clip(0.5 + (f.same[still & ~black] - SAME_EMPTY), 0.5, 1.0)
        changed = f.same < SAME_CHANGED
        pale = changed & ~black & ~white & (g >= 0.85) & (t < EMPTY_TINT) & _pale(f.bg_tint)
        out[pale] = WHITE  # a white stone on a white or metal board: shape, not colour
        conf[pale] = 0.5 + 0.5 * np.clip((SAME_CHANGED - f.same[pale]) / 0.3, 0, 1)
        odd = changed & ~black & ~white & ~pale
        out[odd] = UNKNOWN
        conf[odd] = 0.0
        between = ~still & ~changed & ~black
        out[between] = UNKNOWN
        conf[between] = 0.0
        hidden = changed & (out == UNKNOWN)
    else:
        hidden = f.lines < EMPTY_LINES
    if neighbours is not None:
        unknown_around_patches(
            out, conf, (out == UNKNOWN) & hidden, neighbours, size=PATCH, sure=0.95
        )
    return out.tolist(), np.clip(conf, 0.0, 1.0)


def _pale(bg_tint: NDArray[np.float64]) -> bool:
    """A board of little colour (white, metal, the palest maple): white stones share its tint."""
    r, g = np.median(bg_tint, axis=0)
    rgb = np.array([r, g, 1.0 - r - g])
    return float((rgb.max() - rgb.min()) / max(float(rgb.max()), 1e-6)) < PALE_BOARD


def unknown_around_patches(
    out: NDArray[np.str_],
    conf: NDArray[np.float64],
    mask: NDArray[np.bool_],
    neighbours: Sequence[Sequence[int]],
    *,
    size: int,
    sure: float,
) -> None:
    """Every patch of ``size`` or more adjacent ``mask`` spots (a hand, most likely) makes the
    spots around it ``?``, unless a spot was read at least ``sure``: a hand's edge misleads both
    readers, so what touches it is not trusted on an ordinary confidence."""
    seen = np.zeros(len(out), dtype=bool)
    for start in np.flatnonzero(mask):
        if seen[start]:
            continue
        group, stack = [], [int(start)]
        seen[start] = True
        while stack:
            i = stack.pop()
            group.append(i)
            for j in neighbours[i]:
                if mask[j] and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        if len(group) >= size:
            for i in group:
                for j in neighbours[i]:
                    if conf[j] < sure:
                        out[j] = UNKNOWN
                        conf[j] = 0.0
