"""What a reader saw: per spot black, white, empty or unknown, with a confidence.

Camera reading (``companion.vision``) and sensor grids (``companion.sensors``) both produce an
:class:`Observation`; the tracker consumes it and never cares which one made it. Unknown is the
honest answer for a covered or unreadable spot: a wrong colour is far worse than unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

EMPTY: Final = "."
BLACK: Final = "B"
WHITE: Final = "W"
UNKNOWN: Final = "?"
TOKENS: Final = (EMPTY, BLACK, WHITE, UNKNOWN)


@dataclass(frozen=True)
class Observation:
    """One reading of the whole board, in the topology's spot order.

    ``states[i]`` is one of :data:`TOKENS`; ``confidence[i]`` is in 0..1 (how sure the reader is
    of that token). ``timestamp`` is seconds on the reader's monotonic clock.
    """

    states: tuple[str, ...]
    confidence: tuple[float, ...]
    timestamp: float = 0.0
    source: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.states) != len(self.confidence):
            raise ValueError("states and confidence differ in length")
        bad = next((s for s in self.states if s not in TOKENS), None)
        if bad is not None:
            raise ValueError(f"unknown observation token {bad!r}")

    def __len__(self) -> int:
        return len(self.states)

    @classmethod
    def from_rows(cls, rows: Sequence[str], **kwargs: object) -> Observation:
        """Build from text rows such as ``". B W ?"`` (the photo-label format), confidence 1."""
        states = tuple(tok for row in rows for tok in row.split())
        return cls(states=states, confidence=tuple(1.0 for _ in states), **kwargs)  # type: ignore[arg-type]

    def rows(self, width: int) -> list[str]:
        """Text rows of ``width`` tokens separated by one space (the photo-label format)."""
        return [" ".join(self.states[i : i + width]) for i in range(0, len(self.states), width)]

    @property
    def unknown(self) -> int:
        """How many spots could not be read."""
        return sum(1 for s in self.states if s == UNKNOWN)
