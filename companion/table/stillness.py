"""The stillness gate: a reading is trusted once it has stayed exactly the same for a while.

A hand over the board, a stone being placed, a piece half-moved: the readings change while
someone is at work and settle when they are done. Both the Go tracker
(:class:`companion.table.tracker.Tracker`, per-spot tokens) and the chess table
(:class:`companion.table.chess_session.ChessPart`, per-cell looks) wait on this one gate. "?"
(unknown) counts as a value of its own, so a spot wavering between unknown and a colour never
settles; a reading with more unknown spots than the caller allows is never stable and restarts
nothing (its own wait keeps running). Times are the caller's (monotonic seconds) and must not go
backwards.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Generic, TypeVar

#: Frame times are sums of 1/fps steps: forgive their rounding when comparing to still_time.
TIME_SLACK = 1e-6

V = TypeVar("V", bound=Hashable)


class Stillness(Generic[V]):
    """How long the latest reading has stayed the same (any hashable reading)."""

    def __init__(self, *, still_time: float) -> None:
        if still_time < 0:
            raise ValueError("still_time cannot be negative")
        self.still_time = still_time
        self.latest: V | None = None
        self.since = 0.0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.still_time:g}s>"

    def see(self, reading: V, now: float) -> float:
        """Take one reading; return the seconds it has stayed the same."""
        if reading != self.latest:
            self.latest = reading
            self.since = now
        return now - self.since

    def still(self, now: float) -> bool:
        """Whether the latest reading has stayed the same for ``still_time``."""
        return self.latest is not None and now - self.since + TIME_SLACK >= self.still_time


class StillnessGate(Stillness[tuple[tuple[int, str], ...]]):
    """The gate for cell looks (``{cell: "W" | "B" | "." | "?"}``) with at most
    ``max_unknown`` "?" cells."""

    def __init__(self, *, still_time: float = 1.0, max_unknown: int = 4) -> None:
        if max_unknown < 0:
            raise ValueError("still_time and max_unknown cannot be negative")
        super().__init__(still_time=still_time)
        self.max_unknown = max_unknown

    def __repr__(self) -> str:
        return f"<StillnessGate {self.still_time}s, at most {self.max_unknown} unknown>"

    @property
    def look(self) -> dict[int, str] | None:
        """The latest look seen (None before any)."""
        return None if self.latest is None else dict(self.latest)

    def offer(self, look: Mapping[int, str], now: float) -> dict[int, str] | None:
        """Take one look; return it when it is stable (else None)."""
        self.see(tuple(sorted(look.items())), now)
        if self.unknown(look) > self.max_unknown or not self.still(now):
            return None
        return dict(look)

    @staticmethod
    def unknown(look: Mapping[int, str]) -> int:
        return sum(1 for v in look.values() if v == "?")
