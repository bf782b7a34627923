"""A monotonic clock the test moves by hand, for sessions, panels and game clocks."""

from __future__ import annotations


class HandClock:
    """Reads ``t``; the test moves time on with ``clock.t += seconds`` (nothing sleeps)."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t
