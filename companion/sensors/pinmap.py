"""The wiring as data: ``hardware/pinmap.toml`` read into small frozen records.

The code never hard-codes a pin: the sensor grid and the clock outputs take a :class:`PinMap`.
:func:`load_pinmap` / :func:`parse_pinmap` raise :class:`~companion.errors.PinMapError` naming
the entry at fault (a point wired twice, a channel out of range, a pin used twice). What is not
checked: that the pins exist on this Pi model (gpiozero refuses them when the device opens).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import PinMapError
from companion.games.topology import MAX_GRID
from companion.limits import KB, read_file

DEFAULT_PINMAP = Path(__file__).resolve().parents[2] / "hardware" / "pinmap.toml"
MUX_CHANNELS = 16
ADC_CHANNELS = 8

Point = tuple[int, int, int]  # (layer, row, col)


@dataclass(frozen=True)
class AdcSpec:
    """One MCP3008 on hardware SPI ``port``/``device`` (chip select CE``device``)."""

    name: str
    port: int = 0
    device: int = 0


@dataclass(frozen=True)
class MuxSpec:
    """One CD74HC4067: its output goes to ``adc`` input ``channel``; ``points[k]`` is the board
    point read through mux channel ``k`` (None when unused)."""

    name: str
    adc: str
    channel: int
    points: tuple[Point | None, ...]
    enable: int | None = None


@dataclass(frozen=True)
class ClockPins:
    """The clock buttons (one per player), the warning LED and buzzer."""

    buttons: tuple[int, ...] = ()
    bounce_ms: float = 30.0
    led: int | None = None
    buzzer: int | None = None
    tonal: bool = False


@dataclass(frozen=True)
class PinMap:
    """The whole sensor grid wiring (and the clock pins). ``muxes`` only holds layers in use."""

    size: int
    layers: int
    select: tuple[int, int, int, int]
    adcs: tuple[AdcSpec, ...]
    muxes: tuple[MuxSpec, ...]
    settle_us: float = 5.0
    samples: int = 2
    black_sign: int = 1
    clock: ClockPins = ClockPins()
    source: str = "pinmap"
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def sensors(self) -> int:
        return sum(1 for m in self.muxes for p in m.points if p is not None)

    def with_layers(self, layers: int) -> PinMap:
        """The same wiring with only layers ``0 .. layers-1`` in use."""
        return _build(self.raw, layers=layers, source=self.source)


#: A pin-map file (ours is 3 KB).
MAX_PINMAP_BYTES = 256 * KB
#: BCM GPIO numbers (the BCM2711 has 58 lines; the header exposes 0..27).
MAX_PIN = 57
#: SPI buses and chip selects a Pi has (SPI0..SPI6 on a Pi 4; up to three chip selects).
MAX_SPI_PORT = 6
MAX_SPI_DEVICE = 2
MAX_ADCS = 16
MAX_MUXES = 128


def _int(
    table: Mapping[str, Any],
    key: str,
    where: str,
    default: int | None = None,
    *,
    low: int = 0,
    high: int = 1_000_000,
) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PinMapError(f"{where}: {key} must be an integer, not {_short(value)}")
    if not low <= value <= high:
        raise PinMapError(f"{where}: {key} must be {low}..{high}, not {value}")
    return value


def _real(table: Mapping[str, Any], key: str, where: str, default: float, high: float) -> float:
    value = table.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= high:
        raise PinMapError(f"{where}: {key} must be a number 0..{high:g}, not {_short(value)}")
    return float(value)


def _pin(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_PIN:
        raise PinMapError(f"{where}: {_short(value)} is not a GPIO number 0..{MAX_PIN}")
    return value


def _tables(value: Any, where: str, most: int) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise PinMapError(f"{where} must be tables ([[...]] entries), not {_short(value)}")
    if len(value) > most:
        raise PinMapError(f"{where}: {len(value)} entries, at most {most}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _name(table: Mapping[str, Any], default: str, where: str, *, key: str = "name") -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or len(value) > 64:
        raise PinMapError(f"{where}: {key} must be text (at most 64 characters)")
    return value


def _mux_points(entry: Mapping[str, Any], size: int, where: str) -> tuple[Point | None, ...]:
    layer = _int(entry, "layer", where, 0)
    if "points" in entry:
        raw = entry["points"]
        if not isinstance(raw, list) or len(raw) > MUX_CHANNELS:
            raise PinMapError(f"{where}: points must be a list of at most 16 [row, col] pairs")
        pts: list[Point | None] = []
        for p in raw:
            if p is None or p == []:
                pts.append(None)
                continue
            if not (
                isinstance(p, list)
                and len(p) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
            ):
                raise PinMapError(f"{where}: point {_short(p)} is not [row, col]")
            pts.append((layer, p[0], p[1]))
    else:
        start = _int(entry, "start", where, high=size * size)
        count = _int(entry, "count", where, MUX_CHANNELS, low=1, high=MUX_CHANNELS)
        pts = [(layer, *divmod(start + k, size)) for k in range(count)]
    for p in pts:
        if p is not None and not (0 <= p[1] < size and 0 <= p[2] < size):
            raise PinMapError(f"{where}: point {p[1:]} is off a {size}x{size} grid")
    return tuple(pts) + (None,) * (MUX_CHANNELS - len(pts))


def _build(data: Mapping[str, Any], *, layers: int | None = None, source: str) -> PinMap:
    hall = data.get("hall")
    if not isinstance(hall, Mapping):
        raise PinMapError(f"{source}: no [hall] table")
    size = _int(hall, "size", "[hall]", 9, low=2, high=MAX_GRID)
    layers = layers if layers is not None else _int(hall, "layers", "[hall]", 1)
    if layers not in (1, 2):
        raise PinMapError(f"{source}: size must be >= 2 and layers 1 or 2")
    select = hall.get("select")
    if not (isinstance(select, list) and len(select) == 4):
        raise PinMapError(f"{source}: [hall] select must list the 4 select pins S0..S3")
    select = [_pin(s, "[hall] select") for s in select]
    adcs: dict[str, AdcSpec] = {}
    for i, a in enumerate(_tables(hall.get("adc", []), "[[hall.adc]]", MAX_ADCS)):
        where = f"[[hall.adc]] #{i + 1}"
        spec = AdcSpec(
            _name(a, f"adc{i}", where),
            _int(a, "port", where, 0, high=MAX_SPI_PORT),
            _int(a, "device", where, 0, high=MAX_SPI_DEVICE),
        )
        if spec.name in adcs or any(
            (s.port, s.device) == (spec.port, spec.device) for s in adcs.values()
        ):
            raise PinMapError(f"{where}: ADC {spec.name!r} duplicates another")
        adcs[spec.name] = spec
    muxes: list[MuxSpec] = []
    wired: dict[Point, str] = {}
    inputs: dict[tuple[str, int], str] = {}
    for i, m in enumerate(_tables(hall.get("mux", []), "[[hall.mux]]", MAX_MUXES)):
        name = _name(m, f"mux{i}", f"[[hall.mux]] #{i + 1}")
        where = f"[[hall.mux]] {name}"
        adc = _name(m, "", where, key="adc")
        if adc not in adcs:
            raise PinMapError(f"{where}: unknown adc {adc!r}")
        channel = _int(m, "channel", where)
        if not 0 <= channel < ADC_CHANNELS:
            raise PinMapError(f"{where}: MCP3008 channel must be 0..7, not {channel}")
        points = _mux_points(m, size, where)
        if _int(m, "layer", where, 0) >= layers:
            continue
        if (adc, channel) in inputs:
            raise PinMapError(
                f"{where}: {adc} channel {channel} is also used by {inputs[adc, channel]}"
            )
        inputs[adc, channel] = name
        for p in points:
            if p is None:
                continue
            if p in wired:
                raise PinMapError(f"{where}: point {p} is also wired to {wired[p]}")
            wired[p] = name
        enable = m.get("enable")
        if enable is not None:
            enable = _pin(enable, f"{where}: enable")
        muxes.append(MuxSpec(name, adc, channel, points, enable))
    if not muxes:
        raise PinMapError(f"{source}: no multiplexers wired for {layers} layer(s)")
    c = data.get("clock", {})
    if not isinstance(c, Mapping):
        raise PinMapError(f"{source}: [clock] must be a table")
    buttons = c.get("buttons", [])
    if not isinstance(buttons, list) or len(buttons) > 16:
        raise PinMapError(f"{source}: [clock] buttons must list up to 16 pins")
    tonal = c.get("tonal", False)
    if not isinstance(tonal, bool):
        raise PinMapError(f"{source}: [clock] tonal must be true or false")
    clock = ClockPins(
        buttons=tuple(_pin(b, "[clock] buttons") for b in buttons),
        bounce_ms=_real(c, "bounce_ms", "[clock]", 30.0, 10_000.0),
        led=None if c.get("led") is None else _pin(c["led"], "[clock] led"),
        buzzer=None if c.get("buzzer") is None else _pin(c["buzzer"], "[clock] buzzer"),
        tonal=tonal,
    )
    used = [*select, *(m.enable for m in muxes if m.enable is not None), *clock.buttons]
    used += [p for p in (clock.led, clock.buzzer) if p is not None]
    spi = {7, 8, 9, 10, 11}
    clash = {p for p in used if used.count(p) > 1 or p in spi}
    if clash:
        raise PinMapError(f"{source}: pins used twice or clashing with SPI0: {sorted(clash)}")
    black_sign = _int(hall, "black_sign", "[hall]", 1, low=-1)
    if black_sign not in (1, -1):
        raise PinMapError(f"{source}: black_sign must be 1 or -1")
    pm = PinMap(
        size=size,
        layers=layers,
        select=(select[0], select[1], select[2], select[3]),
        adcs=tuple(adcs.values()),
        muxes=tuple(muxes),
        settle_us=_real(hall, "settle_us", "[hall]", 5.0, 1e6),
        samples=max(1, _int(hall, "samples", "[hall]", 2, high=1000)),
        black_sign=black_sign,
        clock=clock,
        source=source,
        raw=data,
    )
    return pm


def parse_pinmap(
    data: Mapping[str, Any], *, layers: int | None = None, source: str = "pinmap"
) -> PinMap:
    """Build a :class:`PinMap` from parsed TOML; ``layers`` overrides ``[hall] layers``."""
    return _build(data, layers=layers, source=source)


def load_pinmap(path: str | Path | None = None, *, layers: int | None = None) -> PinMap:
    """Read a pin-map TOML file (default ``hardware/pinmap.toml``). Raises PinMapError."""
    p = Path(path) if path is not None else DEFAULT_PINMAP
    data = read_file(p, limit=MAX_PINMAP_BYTES, error=PinMapError, what="pin map")
    return read_pinmap(data, layers=layers, source=str(p))


def read_pinmap(data: bytes, *, layers: int | None = None, source: str = "pinmap") -> PinMap:
    """A :class:`PinMap` from file contents (bounded, UTF-8 TOML). Raises PinMapError."""
    if len(data) > MAX_PINMAP_BYTES:
        raise PinMapError(f"{source}: over the pin-map limit of {MAX_PINMAP_BYTES} bytes")
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PinMapError(f"{source}: not UTF-8 text (bad byte at {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{source}: not valid TOML: {exc}") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, [[[[...]]]] nesting
        raise PinMapError(f"{source}: not a usable TOML file: {str(exc)[:80]}") from None
    return _build(parsed, layers=layers, source=source)
