"""Which Beyond Chess turn a stable reading of the table shows (pure; no camera, no clock).

The reader sees squares and piece colours, not piece types: a *look* maps each grid cell that
holds a square to "W" (a white piece on it), "B" (a black piece) or "." (empty); "?" marks a
cell it could not read (a hand, glare: square or rift, any content); a cell absent from the look
is a rift. :func:`read_turn` predicts the look of every legal turn and of every half-made turn
(the piece moved, the square not yet shifted) and says which the reading matches.

Contract: the position is not changed; nothing is raised for any look (junk values are a
discrepancy with a reason). Two different legal turns can only look alike through "?" cells or
a promotion (the camera cannot see which piece the pawn became): the first is ``ambiguous``
(wait for a clearer reading), the second ``promotion`` (ask the players, candidates given).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from companion.games.beyond_chess import BeyondChess, Cell, Turn, cell_name

UNCHANGED: Final = "unchanged"
TURN: Final = "turn"
PROMOTION: Final = "promotion"
HALF: Final = "half"
AMBIGUOUS: Final = "ambiguous"
DISCREPANCY: Final = "discrepancy"

_TOKENS: Final = frozenset("WB.?")
_WORDS: Final = {"W": "a white piece", "B": "a black piece", ".": "an empty square", None: "a rift"}


@dataclass(frozen=True)
class Reading:
    """What a look means: ``kind`` is one of the constants above; ``turns`` the matching
    turns (for ``half``: the piece-move parts); ``reason`` plain words for a discrepancy."""

    kind: str
    turns: tuple[Turn, ...] = ()
    reason: str = ""


def _matches(expected: Mapping[Cell, str], look: Mapping[Cell, str]) -> bool:
    for c, seen in look.items():
        if seen != "?" and expected.get(c) != seen:
            return False
    return all(c in look for c in expected)


def _differences(now: Mapping[Cell, str], look: Mapping[Cell, str]) -> list[str]:
    out = []
    for c in sorted(set(now) | set(look)):
        seen = look.get(c)
        if seen != "?" and now.get(c) != seen:
            out.append(
                f"{cell_name(c)} shows {_WORDS[seen]} where the board has {_WORDS[now.get(c)]}"
            )
    return out


def read_turn(position: BeyondChess, look: Mapping[Cell, str]) -> Reading:
    """Match a stable look against the position, its legal turns and half-made turns."""
    bad = next((c for c, v in look.items() if v not in _TOKENS), None)
    if bad is not None:
        return Reading(DISCREPANCY, reason=f"unreadable value {look[bad]!r} at {cell_name(bad)}")
    work = position.copy(stack=False)
    now = work.look()
    unchanged = _matches(now, look)
    full = [t for t in work.legal_turns() if _matches(work.look_after(t), look)]
    half: list[Turn] = []
    if work.shifting and not work.first_turn:
        half = [t for t in work.piece_moves() if not t.geret and _matches(work.look_after(t), look)]
    if unchanged and not full and not half:
        return Reading(UNCHANGED)
    if full and not half and not unchanged:
        if len(full) == 1:
            return Reading(TURN, tuple(full))
        if len({t._replace(promotion=0) for t in full}) == 1:
            return Reading(PROMOTION, tuple(full))
        return Reading(AMBIGUOUS, tuple(full))
    if half and not full and not unchanged:
        if len({t._replace(promotion=0) for t in half}) == 1:
            return Reading(HALF, tuple(half))
        return Reading(AMBIGUOUS, tuple(half))
    if full or half:
        return Reading(AMBIGUOUS, tuple(full + half))
    if work.outcome() is not None:
        return Reading(DISCREPANCY, reason="the game is over, yet the board changed")
    diffs = _differences(now, look)
    shown = "; ".join(diffs[:4]) + ("; ..." if len(diffs) > 4 else "")
    return Reading(DISCREPANCY, reason=f"no legal turn looks like this: {shown}")
