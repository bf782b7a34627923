"""The sensor input: a magnetic (Hall-sensor) grid scanned at a steady rate.

The grid is a :class:`~companion.sensors.hall_grid.HallGrid` on the pin map's pins (calibrated
beforehand with ``companion sensors calibrate``), the same grid emulated on gpiozero's
MockFactory (``--mock-pins``: an empty board, calibrated on the spot), or anything else whose
``scan()`` returns an :class:`~companion.observation.Observation` (a simulated grid, a test's).
A scan that fails (:class:`~companion.errors.SensorError`) is noted and retried after
``retry_after`` seconds; the loop never sees it as a board.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

from companion.errors import CalibrationError, CompanionError, InputError
from companion.runtime.inputs import Feed, Input, InputOptions, Sample


class SensorInput(Input):
    """Scans ``grid`` (or the grid of ``pinmap``, opened by :meth:`check`) ``rate`` times a
    second. ``pin_factory`` emulates the grid on a gpiozero MockFactory."""

    kind = "sensors"
    fixed_board = True

    def __init__(
        self,
        grid: Any = None,
        *,
        pinmap: Any = None,
        pin_factory: Any = None,
        rate: float = 20.0,
        still_time: float = 0.2,
        max_unknown: float = 0.02,
        infer_passes: bool = False,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not rate > 0:
            raise InputError("the scan rate must be positive")
        board = None
        if pinmap is not None:
            layers, size = pinmap.layers, pinmap.size
            board = str(size) if layers == 1 else f"{layers}x{size}x{size}"
        super().__init__(
            "sensors",
            still_time=still_time,
            max_unknown=max_unknown,
            infer_passes=infer_passes,
            board=board,
        )
        self.grid = grid
        self.pinmap = pinmap
        self.pin_factory = pin_factory
        self.rate = rate
        self.retry_after = retry_after
        self._clock = clock
        self.scans = 0
        self.note = "starting the sensor grid"
        self._held = ExitStack()

    def __repr__(self) -> str:
        return f"<SensorInput {self.grid!r} scans={self.scans} {self.note!r}>"

    @classmethod
    def from_options(cls, options: InputOptions) -> SensorInput:
        """The pin map's grid (``options.pins``, default ``hardware/pinmap.toml``)."""
        from companion.sensors.pinmap import load_pinmap

        pinmap = load_pinmap(options.pins)
        return cls(
            pinmap=pinmap,
            pin_factory=options.pin_factory,
            rate=options.fps or 20.0,
            **options.tracker(0.2, 0.02, False),
        )

    def check(self) -> None:
        """Open the pin map's grid: emulated and calibrated on the spot with a pin factory,
        else with its saved calibration (CalibrationError without one)."""
        if self.grid is not None:
            return
        from companion.sensors.hall_grid import HallGrid, default_calibration_path

        if self.pin_factory is not None:
            from companion.sensors.mock_hall import MockHallBoard

            board = MockHallBoard(self.pinmap, self.pin_factory)
            self._held.callback(board.close)
            hall = self._held.enter_context(HallGrid(self.pinmap, pin_factory=self.pin_factory))
            hall.calibrate(2)
        else:
            calibration = default_calibration_path(self.pinmap)
            if not calibration.exists():
                raise CalibrationError(
                    f"no calibration for the sensor grid at {calibration}: "
                    "run `companion sensors calibrate` with the board empty first"
                )
            hall = self._held.enter_context(HallGrid(self.pinmap, calibration=calibration))
        self.grid = hall

    def close(self) -> None:
        self._held.close()

    def samples(self, feed: Feed) -> Iterator[Sample]:
        if self.grid is None:
            self.check()
        period = 1.0 / self.rate
        due = self._clock()
        while True:
            try:
                obs = self.grid.scan()
            except CompanionError as exc:
                self.note = f"the sensor grid failed: {exc}; trying again"
                yield Sample("failed scan", unreadable=True)
                if not feed.wait(self.retry_after):
                    return
                due = self._clock()
                continue
            self.scans += 1
            self.note = f"reading {obs.unknown} unknown spot(s)" if obs.unknown else "reading"
            yield Sample(f"scan {self.scans}", obs, at=self._clock())
            due += period
            wait = due - self._clock()
            if wait > 0:
                if not feed.wait(wait):
                    return
            else:
                due = self._clock()  # running late: do not try to catch up
                if not feed.wait(0):
                    return


def mock_pin_factories(stack: ExitStack) -> tuple[Any, Any]:
    """gpiozero MockFactories for the sensor grid and for the clock hardware; undone when
    ``stack`` closes. Two, because gpiozero's mock SPI pins and the PWM pins a TonalBuzzer
    needs cannot share a factory; the grid's is made the default factory too (gpiozero 2.0.1's
    software SPI ignores ``pin_factory``)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    saved = Device.pin_factory
    grid, clock = MockFactory(), MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = grid

    def restore() -> None:
        grid.reset()
        clock.reset()
        Device.pin_factory = saved

    stack.callback(restore)
    return grid, clock
