"""Time in tests: a monotonic clock the test moves by hand (sessions, panels, game clocks,
loops), and waiting a bounded while for a thread to get somewhere."""

from __future__ import annotations

import time
from collections.abc import Callable


class HandClock:
    """Reads ``t``; the test moves time on with ``clock.t += seconds`` (nothing sleeps).

    With ``step``, each read first moves time on by ``step``: a loop that reads the clock once
    a sample sees its samples ``step`` seconds apart.
    """

    def __init__(self, t: float = 1000.0, *, step: float = 0.0) -> None:
        self.t = t
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def until(test: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Whether ``test()`` came true within ``seconds`` (asked every 20 ms): for work another
    thread does (a demo's moves, a page's stream). Use as ``assert until(...)``."""
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
