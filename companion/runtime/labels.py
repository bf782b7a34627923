"""The label input: a folder of photo label files read as perfect views (a testing aid).

Each file (``N lines of N tokens``, :mod:`companion.table.labels`) is a still view of the
board, seen twice ``still_time`` apart one second after the previous one, so the tracker alone
can be tested on a real game without a camera or a reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from companion.errors import InputError
from companion.games.topology import Topology, grid
from companion.observation import Observation
from companion.runtime.inputs import Feed, Input, Sample


class LabelInput(Input):
    """The label files of ``folder`` in natural name order. :meth:`check` reads them all
    (VisionError for a file that is not a board, InputError for boards of mixed sizes)."""

    kind = "labels"
    recording = True

    def __init__(self, folder: str | Path, *, still_time: float | None = None) -> None:
        super().__init__(f"labels:{folder}", still_time=0.2 if still_time is None else still_time)
        self.folder = Path(folder)
        self._labels: list[tuple[str, Observation]] | None = None

    def check(self) -> None:
        from companion.table.labels import read_labels

        labels = read_labels(self.folder)
        size = round(len(labels[0][1]) ** 0.5)
        if any(len(obs) != size * size for _, obs in labels):
            raise InputError(f"{self.folder}: the label files are not all {size}x{size}")
        self.board = str(size)
        self._labels = labels

    def topology(self) -> Topology | None:
        return None if self.board is None else grid(int(self.board))

    def samples(self, feed: Feed) -> Iterator[Sample]:
        if self._labels is None:
            self.check()
        assert self._labels is not None
        for index, (name, obs) in enumerate(self._labels):
            at = index * (self.still_time + 1.0)
            self.note = f"reading {name}"
            yield Sample(name, obs, at=at)
            yield Sample(name, obs, at=at + self.still_time + 0.01)
        self.note = "the label files ended"
