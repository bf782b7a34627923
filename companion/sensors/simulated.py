"""A simulated sensor grid: scripted positions in, noisy raw readings and Observations out.

It drives demos and tracker tests without gpiozero. Readings are made the way the real grid's
are (per-sensor quiescent offsets, a signed shift per stone, Gaussian noise, several samples per
scan), then go through the same zero calibration and classifier (:mod:`companion.sensors.classify`),
so what the tracker sees from it has the real grid's failure modes. A hand carrying a stone over
the board is modelled as the stone's magnet at a random height each scan: the spot under it
sees a field of the stone's sign anywhere from faint to full, its neighbours a weak field of
the opposite sign (a dipole's fringe), and hand tremor jitters the samples. Those readings are
unstable from scan to scan ("?", empty or the carried colour): the tracker must wait for a
stable board, as it must with the real grid.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from companion.closeable import Closeable
from companion.games.topology import Topology
from companion.observation import BLACK, EMPTY, WHITE, Observation
from companion.sensors.classify import Calibration, Thresholds, classify_scan


@dataclass(frozen=True)
class Step:
    """One scripted moment: the position (Observation text rows, ``"B"``/``"W"``/``"."`` only),
    held for ``scans`` scans, with a hand carrying a ``hand``-coloured stone over ``hover[0]``
    (the other ``hover`` spots get its fringe field)."""

    rows: tuple[str, ...]
    scans: int = 1
    hover: tuple[int, ...] = ()
    hand: str = BLACK


class SimulatedGrid(Closeable):
    """Replays a script of :class:`Step` (or bare row lists, one scan each) as sensor scans.

    After the script ends, the last position stays on the board (:attr:`done` turns True).
    Raises ValueError at construction for a script that does not fit ``topology``.
    """

    def __init__(
        self,
        topology: Topology,
        script: Iterable[Step | Sequence[str]],
        *,
        noise: float = 0.004,
        stone_shift: float = 0.25,
        samples: int = 3,
        black_sign: int = 1,
        thresholds: Thresholds | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.topology = topology
        self.noise = noise
        self.stone_shift = stone_shift
        self.samples = max(1, samples)
        self.black_sign = black_sign
        self.thresholds = thresholds or Thresholds()
        self._rng = random.Random(seed)
        self._clock = clock
        self._steps = [s if isinstance(s, Step) else Step(tuple(s)) for s in script]
        self._positions = [self._parse(s.rows) for s in self._steps]
        if not self._steps:
            raise ValueError("a simulated grid needs at least one scripted position")
        n = len(topology)
        self.quiescent = [0.5 + self._rng.uniform(-0.04, 0.04) for _ in range(n)]
        self._step = 0
        self._left = self._steps[0].scans
        self._previous = [EMPTY] * n
        self.scans = 0
        # Zero calibration on the empty board, as the real grid does at set-up.
        empty = [EMPTY] * n
        self.calibration = Calibration.from_scans(
            [[sum(s) / len(s) for s in self._raw(empty, Step(()))] for _ in range(4)],
            self.thresholds,
            label="simulated",
        )

    def _parse(self, rows: Sequence[str]) -> list[str]:
        states = [tok for row in rows for tok in row.split()]
        if len(states) != len(self.topology):
            raise ValueError(
                f"scripted position has {len(states)} points, the board has {len(self.topology)}"
            )
        bad = {s for s in states if s not in (EMPTY, BLACK, WHITE)}
        if bad:
            raise ValueError(f"scripted positions use only B, W and '.', not {sorted(bad)}")
        return states

    @classmethod
    def from_moves(
        cls,
        topology: Topology,
        moves: Sequence[tuple[str, int]],
        *,
        scans_per_move: int = 3,
        hover: bool = True,
        **kwargs: object,
    ) -> SimulatedGrid:
        """A script that plays ``moves`` (colour, spot) onto an empty board: for each move one
        scan with the hand over the spot and its neighbours, then ``scans_per_move`` still scans.
        Captures are not removed (this is a sensor simulator, not a referee)."""
        board = [EMPTY] * len(topology)
        steps = [Step(tuple(board), scans=scans_per_move)]
        for colour, spot in moves:
            if colour not in (BLACK, WHITE):
                raise ValueError(f"move colour must be B or W, not {colour!r}")
            if hover:
                steps.append(Step(tuple(board), 1, (spot, *topology.neighbours[spot]), colour))
            board[spot] = colour
            steps.append(Step(tuple(board), scans=scans_per_move))
        return cls(topology, steps, **kwargs)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return (
            f"<SimulatedGrid {self.topology!r} "
            f"step {self._step + 1}/{len(self._steps)} scans={self.scans}>"
        )

    def close(self) -> None:
        """Nothing to release; here so it can stand wherever a HallGrid stands."""

    @property
    def done(self) -> bool:
        return self._step == len(self._steps) - 1 and self._left <= 0

    @property
    def position(self) -> list[str]:
        """The scripted position the next scan reads."""
        return list(self._positions[self._step])

    def _raw(self, states: Sequence[str], step: Step) -> list[list[float]]:
        sign = {BLACK: self.black_sign, WHITE: -self.black_sign}
        extra = [0.0] * len(states)
        if step.hover:
            height = self._rng.uniform(0.1, 1.0)  # 1 = touching the board
            hand = sign.get(step.hand, 1) * self.stone_shift * height
            extra[step.hover[0]] = hand
            for i in step.hover[1:]:
                extra[i] = -0.15 * hand
        jitter = set(step.hover)
        out = []
        for i, s in enumerate(states):
            base = self.quiescent[i] + sign.get(s, 0) * self.stone_shift + extra[i]
            vals = []
            for _ in range(self.samples):
                v = base + self._rng.gauss(0.0, self.noise)
                if i in jitter:
                    v += self._rng.gauss(0.0, 0.02)  # hand tremor
                vals.append(min(1.0, max(0.0, v)))
            out.append(vals)
        return out

    def read_raw(self) -> list[list[float]]:
        """The next scan's samples per spot (fractions of the reference), advancing the script."""
        step = self._steps[self._step]
        raw = self._raw(self._positions[self._step], step)
        self._left -= 1
        if self._left <= 0 and self._step < len(self._steps) - 1:
            self._step += 1
            self._left = self._steps[self._step].scans
        self.scans += 1
        return raw

    def scan(self) -> Observation:
        """Next scan classified exactly as :class:`~companion.sensors.hall_grid.HallGrid` does."""
        raw = self.read_raw()
        states, conf = classify_scan(
            raw, self.calibration, self._previous, self.thresholds, self.black_sign
        )
        self._previous = states
        return Observation(
            states=tuple(states),
            confidence=tuple(conf),
            timestamp=self._clock(),
            source="simulated",
            extra={"raw": raw},
        )
