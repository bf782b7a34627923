"""From Hall-sensor readings to stones: zero calibration, hysteresis, plausibility.

Units: every reading is a fraction of the ADC reference (0..1), which for ratiometric sensors
(DRV5055, SS49E) powered from the same 3.3 V as the MCP3008 reference cancels supply drift.
An empty point reads its quiescent value (about 0.5); a stone's magnet moves it by a signed
deviation: black one way, white the other (``black_sign``).

The rule that matters most: a reading that cannot be a stone or an empty point (a rail, a
floating input whose samples disagree, a field stronger than any of our magnets, a sensor that
failed calibration, a read error) is ``"?"``, never a colour.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CalibrationError
from companion.limits import MB, parse_json, read_file
from companion.observation import BLACK, EMPTY, UNKNOWN, WHITE

#: A sensor calibration file (two numbers per sensor: a few KB).
MAX_CALIBRATION_BYTES = 1 * MB


@dataclass(frozen=True)
class Thresholds:
    """Decision limits, in fractions of the reference.

    A point becomes a stone when ``|deviation| > enter`` and stays one until it drops below
    ``leave`` (hysteresis: a stone rocking on its magnet does not flicker). ``rail``: readings
    this close to 0 or 1 are a short, an open sensor or saturation. ``max_deviation``: no stone
    of ours moves the output further. ``max_spread``: samples of one scan further apart than
    this mean a floating input or a magnet moving overhead (a hand carrying a stone).
    """

    enter: float = 0.08
    leave: float = 0.04
    max_deviation: float = 0.40
    rail: float = 0.03
    max_spread: float = 0.03
    quiescent_low: float = 0.30
    quiescent_high: float = 0.70

    def __post_init__(self) -> None:
        if not 0 < self.leave < self.enter < self.max_deviation:
            raise ValueError("thresholds need 0 < leave < enter < max_deviation")


def classify(
    samples: Sequence[float],
    baseline: float | None,
    previous: str,
    thresholds: Thresholds,
    black_sign: int = 1,
) -> tuple[str, float]:
    """One point: (token, confidence) from this scan's ``samples`` and its empty ``baseline``.

    ``previous`` is this point's last token (for hysteresis). Never raises on junk samples
    (NaN, out of range): they give ``("?", 0.0)``.
    """
    t = thresholds
    if baseline is None or not samples:
        return UNKNOWN, 0.0
    if any(not math.isfinite(s) or s <= t.rail or s >= 1.0 - t.rail for s in samples):
        return UNKNOWN, 0.0
    if max(samples) - min(samples) > t.max_spread:
        return UNKNOWN, 0.0
    deviation = black_sign * (sum(samples) / len(samples) - baseline)
    size = abs(deviation)
    if size > t.max_deviation:
        return UNKNOWN, 0.0
    colour = BLACK if deviation > 0 else WHITE
    held = previous == colour and size > t.leave
    if size > t.enter or held:
        limit = t.leave if held else t.enter
        return colour, min(1.0, 0.5 + 0.5 * (size - limit) / t.enter)
    if previous in (BLACK, WHITE) and previous != colour and size > t.leave:
        # A stone's reading swung past zero but not far: not sure of anything.
        return UNKNOWN, 0.0
    return EMPTY, max(0.0, min(1.0, 0.5 + 0.5 * (t.enter - size) / t.enter))


def classify_scan(
    raw: Sequence[Sequence[float]],
    calibration: Calibration,
    previous: Sequence[str],
    thresholds: Thresholds,
    black_sign: int = 1,
) -> tuple[list[str], list[float]]:
    """Classify every spot of one scan (``raw[spot]`` = its samples): (tokens, confidences)."""
    states: list[str] = []
    conf: list[float] = []
    for spot, samples in enumerate(raw):
        token, c = classify(
            samples, calibration.baseline[spot], previous[spot], thresholds, black_sign
        )
        states.append(token)
        conf.append(c)
    return states, conf


@dataclass(frozen=True)
class Calibration:
    """Per-sensor empty-board baselines (None: the sensor failed calibration, reads ``"?"``).

    Indexed like the readings (the topology's spot order). ``noise`` is the spread seen while
    calibrating; ``label`` names the grid the file belongs to, so one for a stacked board is
    not loaded on the fridge set.
    """

    baseline: tuple[float | None, ...]
    noise: tuple[float, ...]
    label: str = ""

    @property
    def bad(self) -> list[int]:
        return [i for i, b in enumerate(self.baseline) if b is None]

    @classmethod
    def from_scans(
        cls, scans: Sequence[Sequence[float]], thresholds: Thresholds, *, label: str = ""
    ) -> Calibration:
        """Baselines from raw readings of an EMPTY board (one sequence per scan, NaN = no
        sensor). A sensor whose readings sit on a rail, spread too much or lie outside the
        quiescent window gets None. Raises CalibrationError with no scans."""
        if not scans:
            raise CalibrationError("calibration needs at least one scan of the empty board")
        n = len(scans[0])
        if any(len(s) != n for s in scans):
            raise CalibrationError("calibration scans differ in length")
        base: list[float | None] = []
        noise: list[float] = []
        for i in range(n):
            vals = [s[i] for s in scans]
            if not all(math.isfinite(v) for v in vals):
                base.append(None)
                noise.append(0.0)
                continue
            spread = max(vals) - min(vals)
            mean = sum(vals) / len(vals)
            ok = spread <= thresholds.max_spread and (
                thresholds.quiescent_low <= mean <= thresholds.quiescent_high
            )
            base.append(mean if ok else None)
            noise.append(spread)
        return cls(tuple(base), tuple(noise), label)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": "companion-hall-calibration",
                "version": 1,
                "label": self.label,
                "baseline": list(self.baseline),
                "noise": list(self.noise),
            },
            indent=1,
        )

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_json() + "\n", encoding="utf-8")
        return p

    @classmethod
    def load(
        cls, path: str | Path, *, sensors: int | None = None, label: str | None = None
    ) -> Calibration:
        """Read a file written by :meth:`save`. CalibrationError if missing, malformed, or not
        for a grid of ``sensors`` points / this ``label``."""
        p = Path(path)
        raw = read_file(p, limit=MAX_CALIBRATION_BYTES, error=CalibrationError, what="calibration")
        data = parse_json(raw, name=str(p), error=CalibrationError, limit=MAX_CALIBRATION_BYTES)
        try:
            if not isinstance(data, dict) or data.get("format") != "companion-hall-calibration":
                raise ValueError("not a Hall-grid calibration")
            baseline = tuple(None if b is None else float(b) for b in data["baseline"])
            noise = tuple(float(v) for v in data["noise"])
            found = str(data.get("label", ""))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CalibrationError(f"{p}: malformed calibration ({exc})") from exc
        if len(noise) != len(baseline):
            raise CalibrationError(f"{p}: baseline and noise differ in length")
        if sensors is not None and len(baseline) != sensors:
            raise CalibrationError(f"{p}: made for {len(baseline)} points, this grid has {sensors}")
        if label is not None and found != label:
            raise CalibrationError(f"{p}: made for {found!r}, not {label!r}")
        return cls(baseline, noise, found)
