"""The sensor loop: a magnetic sensor grid -> tracker -> session, on a thread.

The counterpart of :class:`~companion.table.camera.CameraTable` for a board read by Hall
sensors (:class:`~companion.sensors.hall_grid.HallGrid`, or a
:class:`~companion.sensors.simulated.SimulatedGrid`: anything whose ``scan()`` returns an
:class:`~companion.observation.Observation` of the board). It scans ``rate`` times a second,
feeds each scan to the tracker and applies its intents. A scan that fails (a
:class:`~companion.errors.SensorError`) is noted and retried a second later; an intent the game
refuses is noted; nothing here raises into the table.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from companion.errors import CompanionError, IllegalMove
from companion.games.go import GoGame
from companion.observation import Observation
from companion.table.tracker import Tracker


class SensorTable:
    """Reads ``grid`` into ``table`` (a session or a Table host) on a thread.

    ``still_time`` and ``max_unknown`` go to the :class:`Tracker`; a failed scan is retried
    after ``retry_after`` seconds. ``observers`` are called
    with each scan and its time after its intents were applied (the clock panel). Raises
    ValueError for a rate that is not positive.
    """

    def __init__(
        self,
        table: Any,
        grid: Any,
        *,
        rate: float = 20.0,
        still_time: float = 0.2,
        max_unknown: float = 0.02,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not rate > 0:
            raise ValueError("the scan rate must be positive")
        self.table = table
        self.grid = grid
        self.rate = rate
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.retry_after = retry_after
        self._clock = clock
        self.observers: list[Callable[[Observation, float], None]] = []
        self.note = "starting the sensor grid"
        self.scans = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"<SensorTable {self.grid!r} scans={self.scans} {self.note!r}>"

    def _live(self) -> GoGame:
        game = self.table.state.game
        if game is None:
            raise CompanionError("no game")
        return game  # type: ignore[no-any-return]

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="sensors", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def run(self, scans: int | None = None) -> None:
        """Scan until :meth:`stop` (or ``scans`` scans, for tests), paced at ``rate``."""
        tracker = Tracker(
            self._live,
            still_time=self.still_time,
            max_unknown=self.max_unknown,
            handicap=lambda: self.table.go_state().handicap_pending,
        )
        period = 1.0 / self.rate
        due = self._clock()
        done = 0
        while not self._stop.is_set() and (scans is None or done < scans):
            done += 1
            try:
                obs = self.grid.scan()
            except CompanionError as exc:
                self.note = f"the sensor grid failed: {exc}; trying again"
                self._stop.wait(self.retry_after)
                due = self._clock()
                continue
            self.scans += 1
            now = self._clock()
            self.note = f"reading {obs.unknown} unknown spot(s)" if obs.unknown else "reading"
            if self.table.state.phase == "play":
                try:
                    for intent in tracker.update(obs, now):
                        self.table.apply(intent)
                except IllegalMove as exc:
                    self.note = f"the table refused what the sensors read: {exc}"
                except ValueError as exc:  # a scan that does not fit the game's board
                    self.note = f"the sensor grid does not fit the game: {exc}"
                for observer in self.observers:
                    observer(obs, now)
            due += period
            wait = due - self._clock()
            if wait > 0:
                self._stop.wait(wait)
            else:
                due = self._clock()  # running late: do not try to catch up
