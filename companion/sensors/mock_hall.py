"""A sensor board on gpiozero's ``MockFactory``: for tests, the bench and demos without a Pi.

:class:`MockMCP3008` is the slave side of an MCP3008 built the way gpiozero intends mock SPI
devices to be built (a ``MockSPIDevice`` descendant overriding ``on_start``/``on_bit``). Its input
voltages come from a callable, so :class:`MockHallBoard` can answer according to the state of
the mock select pins (and enable pins) at the moment the ADC is read: the multiplexers are
emulated, gpiozero is not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero.pins.data import SPI_HARDWARE_PINS
from gpiozero.pins.mock import MockFactory, MockSPIDevice

from companion.sensors.pinmap import PinMap, Point

VREF = 3.3


class MockMCP3008(MockSPIDevice):  # type: ignore[misc]
    """MCP3008 protocol: start bit, single/differential bit, 3 channel bits, then a null bit and
    10 result bits. ``voltage(channel)`` gives the input voltage at the moment of conversion."""

    def __init__(
        self,
        port: int,
        device: int,
        voltage: Callable[[int], float],
        *,
        pin_factory: MockFactory,
    ) -> None:
        pins = SPI_HARDWARE_PINS[port]
        super().__init__(
            pins["clock"],
            pins["mosi"],
            pins["miso"],
            pins["select"][device],
            pin_factory=pin_factory,
        )
        self.voltage = voltage
        self.state = "idle"
        self.rx_buf: list[int] = []
        self.conversions = 0

    def on_start(self) -> None:
        super().on_start()
        self.state = "idle"

    def on_bit(self) -> None:
        if self.state == "idle":
            if self.rx_buf[-1]:
                self.state = "mode"
                self.rx_buf = []
        elif self.state == "mode":
            self.state = "single" if self.rx_buf[-1] else "diff"
            self.rx_buf = []
        elif self.state in ("single", "diff") and len(self.rx_buf) == 3:
            channel = self.rx_word()
            volts = self.voltage(channel)
            if self.state == "diff":
                volts -= self.voltage(channel ^ 1)
            code = round(min(max(volts, 0.0), VREF) / VREF * 1023)
            # One null bit then the 10-bit result (the extra leading bit is "don't care").
            self.tx_word(code, 12)
            self.conversions += 1
            self.state = "result"


class MockHallBoard:
    """Emulated sensors, multiplexers and ADCs for a :class:`PinMap` on a ``MockFactory``.

    ``field[point]`` is the signed output shift (fraction of the reference) a magnet causes;
    :meth:`place` sets it from text rows. ``quiescent[point]`` is each sensor's empty output;
    ``faults[point]`` is one of ``"floating"`` (a broken wire without the pull-down resistor of
    WIRING.md: random readings), ``"open"`` (a broken wire with it: 0 V) or ``"short"`` (to
    the supply: full scale).
    """

    def __init__(
        self,
        pinmap: PinMap,
        factory: MockFactory,
        *,
        stone_shift: float = 0.25,
        noise: float = 0.002,
        seed: int = 0,
    ) -> None:
        self.pinmap = pinmap
        self.factory = factory
        self.stone_shift = stone_shift
        self.noise = noise
        self.rng = random.Random(seed)
        self.field: dict[Point, float] = {}
        self.faults: dict[Point, str] = {}
        self.quiescent: dict[Point, float] = {}
        for m in pinmap.muxes:
            for p in m.points:
                if p is not None:
                    self.quiescent[p] = 0.5 + self.rng.uniform(-0.04, 0.04)
        self._select = [factory.pin(p) for p in pinmap.select]
        self._muxes: dict[tuple[str, int], Any] = {(m.adc, m.channel): m for m in pinmap.muxes}
        self._enable = {m.name: factory.pin(m.enable) for m in pinmap.muxes if m.enable is not None}
        self.adcs = [
            MockMCP3008(a.port, a.device, self._voltage_for(a.name), pin_factory=factory)
            for a in pinmap.adcs
            if any(m.adc == a.name for m in pinmap.muxes)
        ]

    def close(self) -> None:
        for adc in self.adcs:
            adc.close()

    def selected(self) -> int:
        """The multiplexer channel the select lines point at right now."""
        return sum(int(bool(pin.state)) << bit for bit, pin in enumerate(self._select))

    def _voltage_for(self, adc: str) -> Callable[[int], float]:
        def voltage(channel: int) -> float:
            mux = self._muxes.get((adc, channel))
            if mux is None:
                return self.rng.uniform(0.0, VREF)  # nothing wired: a floating input
            if mux.name in self._enable and self._enable[mux.name].state:
                return self.rng.uniform(0.0, VREF)  # EN high: the mux output floats
            point = mux.points[self.selected()]
            return VREF * self.ratio(point)

        return voltage

    def ratio(self, point: Point | None) -> float:
        """The output of the sensor at ``point`` now, as a fraction of the reference."""
        if point is None:
            return self.rng.uniform(0.0, 1.0)
        fault = self.faults.get(point)
        if fault == "floating":
            return self.rng.uniform(0.0, 1.0)
        if fault == "short":
            return 1.0
        if fault == "open":
            return 0.0
        value = self.quiescent[point] + self.field.get(point, 0.0)
        return value + self.rng.gauss(0.0, self.noise)

    def place(self, rows: Sequence[str], *, layer: int = 0) -> None:
        """Set the stones of one layer from text rows (``"B"``, ``"W"``, anything else empty).
        Black shifts the output by ``+stone_shift * black_sign``, white the other way."""
        sign = self.pinmap.black_sign
        for r, row in enumerate(rows):
            for c, tok in enumerate(row.split()):
                p = (layer, r, c)
                if tok == "B":
                    self.field[p] = sign * self.stone_shift
                elif tok == "W":
                    self.field[p] = -sign * self.stone_shift
                else:
                    self.field.pop(p, None)

    def clear(self) -> None:
        self.field.clear()
