"""Score the reader on labelled photo folders: accuracy, confusion, boards found, time.

Kept apart from the command so tests can assert on the numbers. A photo whose board is not
found counts as every intersection read ``?`` (wrong), never skipped.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from companion.errors import BoardNotFound
from companion.observation import TOKENS
from companion.vision.photoset import LabelledPhoto, load_image
from companion.vision.pipeline import Reading, read_photo

CLASSES = (".", "B", "W")


@dataclass
class PhotoResult:
    photo: LabelledPhoto
    read: tuple[str, ...]  # tokens in label order; all "?" when no board was found
    seconds: float
    found: bool  # a board of the right size was located (corners checked when truth exists)
    corner_error: float | None  # worst corner distance in grid spacings, when truth exists
    reading: Reading | None = None

    @property
    def right(self) -> int:
        return sum(1 for a, b in zip(self.photo.tokens, self.read, strict=True) if a == b)

    @property
    def wrong(self) -> int:
        """Spots read as a different *colour or emptiness* (unknowns not counted)."""
        return sum(
            1 for a, b in zip(self.photo.tokens, self.read, strict=True) if a != b and b != "?"
        )

    @property
    def errors(self) -> int:
        return len(self.read) - self.right


@dataclass
class Summary:
    results: list[PhotoResult] = field(default_factory=list)

    def groups(self) -> dict[str, list[PhotoResult]]:
        out: dict[str, list[PhotoResult]] = defaultdict(list)
        for r in self.results:
            out[r.photo.group].append(r)
        return dict(sorted(out.items()))

    @staticmethod
    def line(name: str, rs: list[PhotoResult]) -> dict[str, object]:
        points = sum(len(r.read) for r in rs)
        right = sum(r.right for r in rs)
        checked = [r for r in rs if r.corner_error is not None]
        return {
            "set": name,
            "photos": len(rs),
            "found": sum(r.found for r in rs),
            "corners_checked": len(checked),
            "corners_ok": sum(1 for r in checked if r.found),
            "points": points,
            "right": right,
            "accuracy": right / points if points else 0.0,
            "unknown": sum(r.read.count("?") for r in rs),
            "wrong": sum(r.wrong for r in rs),
            "perfect": sum(1 for r in rs if r.errors == 0),
            "worst_board_errors": max((r.errors for r in rs), default=0),
            "median_ms": 1000 * statistics.median([r.seconds for r in rs]) if rs else 0.0,
        }

    def confusion(self) -> dict[str, dict[str, int]]:
        m = {a: dict.fromkeys(TOKENS, 0) for a in CLASSES}
        for r in self.results:
            for a, b in zip(r.photo.tokens, r.read, strict=True):
                m[a][b] += 1
        return m


def corner_error(
    found: NDArray[np.float64], truth: Iterable[tuple[float, float]], size: int
) -> float:
    """Worst corner distance in units of the mean grid spacing of the true corners."""
    t = np.asarray(list(truth), dtype=np.float64)
    spacing = np.linalg.norm(np.diff(t, axis=0, append=t[:1]), axis=1).mean() / (size - 1)
    return float(np.linalg.norm(found - t, axis=1).max() / spacing)


def evaluate_photo(
    photo: LabelledPhoto, *, use_corners: bool, guess_size: bool = True
) -> PhotoResult:
    """Read one labelled photo. ``use_corners`` reads with the truth corners where they exist."""
    image = load_image(photo.path)
    n = photo.size
    given = photo.corners if (use_corners and photo.corners is not None) else None
    try:
        reading = read_photo(
            image, size=None if (guess_size and given is None) else n, corners=given
        )
    except BoardNotFound:
        return PhotoResult(photo, ("?",) * (n * n), 0.0, False, None)
    err = None
    found = reading.size == n
    if photo.corners is not None and given is None and found:
        err = corner_error(reading.corners, photo.corners, n)
        found = err <= 0.25
    if reading.size != n:
        return PhotoResult(photo, ("?",) * (n * n), reading.seconds, False, err, reading)
    return PhotoResult(photo, reading.observation.states, reading.seconds, found, err, reading)


def evaluate(
    photos: Iterable[LabelledPhoto],
    *,
    use_corners: bool,
    on_each: Callable[[PhotoResult], None] | None = None,
) -> Summary:
    summary = Summary()
    for photo in photos:
        res = evaluate_photo(photo, use_corners=use_corners)
        summary.results.append(res)
        if on_each is not None:
            on_each(res)
    return summary
