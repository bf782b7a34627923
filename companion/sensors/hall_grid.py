"""A magnetic board read through Hall sensors, CD74HC4067 multiplexers and MCP3008 ADCs.

Wiring (see ``hardware/WIRING.md``): every point has a linear ratiometric Hall sensor; up to
16 sensors share one CD74HC4067 whose output goes to one MCP3008 input; the four select lines
S0..S3 are shared by every multiplexer, so one scan sets the select lines 16 times and, for each
setting, reads every multiplexer's ADC input. Everything is a gpiozero device
(``DigitalOutputDevice`` for select and enable lines, ``MCP3008`` per multiplexer output), all
created with the ``pin_factory`` given, so tests run on gpiozero's ``MockFactory``.

gpiozero 2.0.1 quirk: its software-SPI bus (what ``MockFactory`` always gives, and what a real
Pi falls back to without spidev) ignores ``pin_factory`` and uses ``Device.pin_factory``; with
a mock factory set ``Device.pin_factory`` to the same one (tests and the bench do).
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero import MCP3008, DigitalOutputDevice, GPIOZeroError

from companion.closeable import Closeable
from companion.errors import CalibrationError, SensorError
from companion.games.topology import Topology, grid, stacked
from companion.observation import EMPTY, Observation
from companion.sensors.classify import Calibration, Thresholds, classify_scan
from companion.sensors.pinmap import MUX_CHANNELS, PinMap, load_pinmap

CALIBRATION_DIR = Path(__file__).resolve().parents[2] / "calibration"


def topology_for(pinmap: PinMap) -> Topology:
    """The board a pin map reads: ``grid(size)`` for one layer, ``stacked(2, size)`` for two."""
    return grid(pinmap.size) if pinmap.layers == 1 else stacked(pinmap.layers, pinmap.size)


def default_calibration_path(pinmap: PinMap) -> Path:
    return CALIBRATION_DIR / f"hall-{pinmap.layers}x{pinmap.size}x{pinmap.size}.json"


class HallGrid(Closeable):
    """Scan a sensor grid into :class:`~companion.observation.Observation`.

    ``calibration`` is a :class:`Calibration`, a path to one, or None (call :meth:`calibrate`
    on the empty board before :meth:`scan`; scanning uncalibrated raises CalibrationError).
    Construction failures (pin in use, no SPI) raise SensorError, as do read errors.
    """

    def __init__(
        self,
        pinmap: PinMap | str | Path | None = None,
        *,
        layers: int | None = None,
        calibration: Calibration | str | Path | None = None,
        thresholds: Thresholds | None = None,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        pm = pinmap if isinstance(pinmap, PinMap) else load_pinmap(pinmap)
        if layers is not None and layers != pm.layers:
            pm = pm.with_layers(layers)
        self.pinmap = pm
        self.topology = topology_for(pm)
        self.thresholds = thresholds or Thresholds()
        self._clock = clock
        self._devices: list[Any] = []
        self._previous = [EMPTY] * len(self.topology)
        self.scans = 0
        try:
            self._select = [
                self._own(DigitalOutputDevice(p, pin_factory=pin_factory)) for p in pm.select
            ]
            self._enable = [
                self._own(
                    DigitalOutputDevice(
                        m.enable, active_high=False, initial_value=False, pin_factory=pin_factory
                    )
                )
                for m in pm.muxes
                if m.enable is not None
            ]
            adcs = {a.name: a for a in pm.adcs}
            # schedule[k]: (adc device, spot) pairs read with the select lines at k.
            self._schedule: list[list[tuple[Any, int]]] = [[] for _ in range(MUX_CHANNELS)]
            for m in pm.muxes:
                a = adcs[m.adc]
                dev = self._own(
                    MCP3008(
                        channel=m.channel, port=a.port, device=a.device, pin_factory=pin_factory
                    )
                )
                for k, p in enumerate(m.points):
                    if p is not None:
                        self._schedule[k].append((dev, self.topology.spot(p[1], p[2], p[0])))
        except (GPIOZeroError, OSError) as exc:
            self.close()
            raise SensorError(f"cannot open the sensor grid: {exc}") from exc
        self._schedule_k = [k for k in range(MUX_CHANNELS) if self._schedule[k]]
        self.calibration: Calibration | None = None
        if calibration is not None:
            try:
                self.calibration = (
                    calibration
                    if isinstance(calibration, Calibration)
                    else Calibration.load(calibration, sensors=len(self.topology), label=self.label)
                )
                if len(self.calibration.baseline) != len(self.topology):
                    raise CalibrationError("calibration does not fit this grid")
            except CalibrationError:
                self.close()
                raise

    def _own(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    @property
    def label(self) -> str:
        return f"hall {self.pinmap.layers}x{self.pinmap.size}x{self.pinmap.size}"

    def __repr__(self) -> str:
        if not self._devices:
            return f"<HallGrid {self.label} closed>"
        cal = "calibrated" if self.calibration else "uncalibrated"
        return (
            f"<HallGrid {self.label} sensors={self.pinmap.sensors} "
            f"muxes={len(self.pinmap.muxes)} adcs={len({m.adc for m in self.pinmap.muxes})} {cal}>"
        )

    def close(self) -> None:
        """Release every pin and SPI device (idempotent)."""
        if not self._devices:
            return
        for dev in reversed(self._devices):
            with contextlib.suppress(Exception):  # must not hide the error that led here
                dev.close()
        self._devices = []
        self._select, self._enable, self._schedule = [], [], [[] for _ in range(MUX_CHANNELS)]
        # gpiozero 2.0.1: a shared SPI interface closed once is closed again when the garbage
        # collector finalises it, and that second close drops the cache entry of whatever
        # interface now holds the same pins (a re-opened grid), which then fails with "pin in
        # use". Finalising the old devices now, while nothing newer exists, avoids it.
        gc.collect()

    def _settle(self) -> None:
        # time.sleep cannot wait a few microseconds; a short busy wait can.
        if self.pinmap.settle_us > 0:
            end = time.perf_counter() + self.pinmap.settle_us * 1e-6
            while time.perf_counter() < end:
                pass

    def read_raw(self) -> list[list[float]]:
        """One pass over every sensor: per spot its samples (fractions of the reference).

        Spots without a sensor get ``[nan]`` (classified ``"?"``). Raises SensorError if the grid is closed or an
        ADC read fails.
        """
        if not self._devices:
            raise SensorError("the sensor grid is closed")
        samples = self.pinmap.samples
        out: list[list[float]] = [[math.nan] for _ in range(len(self.topology))]
        try:
            for e in self._enable:
                e.on()
            for k in self._schedule_k:
                for bit, line in enumerate(self._select):
                    line.value = (k >> bit) & 1
                self._settle()
                for dev, spot in self._schedule[k]:
                    out[spot] = [float(dev.value) for _ in range(samples)]
            for e in self._enable:
                e.off()
        except (GPIOZeroError, OSError) as exc:
            raise SensorError(f"sensor grid read failed: {exc}") from exc
        self.scans += 1
        return out

    def calibrate(self, scans: int = 8, *, save: str | Path | None = None) -> Calibration:
        """Zero calibration: scan the EMPTY board ``scans`` times and keep per-sensor baselines
        (saved to ``save`` when given). Sensors that read garbage are marked bad (always "?")."""
        # Every sample counts, so a floating input whose samples disagree within one scan is
        # caught as well as one that wanders between scans.
        rows: list[list[float]] = []
        for _ in range(max(1, scans)):
            raw = self.read_raw()
            width = max(len(s) for s in raw)
            rows += [[s[min(j, len(s) - 1)] for s in raw] for j in range(width)]
        cal = Calibration.from_scans(rows, self.thresholds, label=self.label)
        self._previous = [EMPTY] * len(self.topology)
        self.calibration = cal
        if save is not None:
            cal.save(save)
        return cal

    def scan(self) -> Observation:
        """Read the board: per spot ``"."``, ``"B"``, ``"W"`` or ``"?"`` with a confidence.

        Raises CalibrationError before calibration, SensorError on read failure.
        """
        if self.calibration is None:
            raise CalibrationError("the sensor grid is not calibrated (scan the empty board first)")
        raw = self.read_raw()
        return self.observe(raw)

    def observe(self, raw: list[list[float]]) -> Observation:
        """Classify one :meth:`read_raw` result (keeps hysteresis state between calls)."""
        assert self.calibration is not None
        states, conf = classify_scan(
            raw, self.calibration, self._previous, self.thresholds, self.pinmap.black_sign
        )
        self._previous = states
        return Observation(
            states=tuple(states),
            confidence=tuple(conf),
            timestamp=self._clock(),
            source=self.label,
            extra={"raw": raw},
        )

    def scan_rate(self, scans: int = 20) -> float:
        """Full scans per second measured over ``scans`` reads on this factory."""
        start = time.perf_counter()
        for _ in range(scans):
            self.read_raw()
        return scans / (time.perf_counter() - start)


def estimate_scan_rate(
    pinmap: PinMap,
    *,
    spi_hz: float = 1.35e6,
    transfer_overhead_us: float = 40.0,
    gpio_write_us: float = 20.0,
) -> float:
    """Scans per second a real Pi should reach (a computed estimate, not a measurement).

    Per MCP3008 reading: 24 SPI clocks (3 bytes) at ``spi_hz`` plus ``transfer_overhead_us``
    for the Python call and the spidev/lgpio ioctl (assumed); per select setting: four GPIO
    writes of ``gpio_write_us`` plus ``settle_us`` from the pin map.
    """
    readings = pinmap.sensors * pinmap.samples
    per_read = 24 / spi_hz + transfer_overhead_us * 1e-6
    used_k = {k for m in pinmap.muxes for k, p in enumerate(m.points) if p is not None}
    per_select = 4 * gpio_write_us * 1e-6 + pinmap.settle_us * 1e-6
    return 1.0 / (readings * per_read + len(used_k) * per_select)
