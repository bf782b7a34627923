"""Score the reader on labelled photo folders: accuracy, confusion, boards found, time.

Kept apart from the command so tests can assert on the numbers. A photo whose board is not
found counts as every intersection read ``?`` (wrong), never skipped. Points a label set marks
hidden (``hidden.json``: under a hand) are not scored; reading one as a stone or empty that it
is not is counted apart ("hidden wrong").
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
from companion.vision.geometry import spacing
from companion.vision.photoset import LabelledPhoto, load_image
from companion.vision.pipeline import Reading, read_photo
from companion.vision.read_stones import DEFAULT_READER

CLASSES = (".", "B", "W")
CONFIDENT_WRONG = 0.95  # a wrong reading at least this sure counts as "confident wrong"


@dataclass
class PhotoResult:
    photo: LabelledPhoto
    read: tuple[str, ...]  # tokens in label order; all "?" when no board was found
    seconds: float
    found: bool  # a board of the right size was located (corners checked when truth exists)
    corner_error: float | None  # worst corner distance in grid spacings, when truth exists
    reading: Reading | None = None

    def scored(self) -> list[tuple[int, str, str]]:
        """(index, truth, read) of every point that is scored: all but the hidden ones."""
        hidden = self.photo.hidden
        return [
            (i, a, b)
            for i, (a, b) in enumerate(zip(self.photo.tokens, self.read, strict=True))
            if i not in hidden
        ]

    @property
    def points(self) -> int:
        return len(self.read) - len(self.photo.hidden)

    @property
    def right(self) -> int:
        return sum(1 for _, a, b in self.scored() if a == b)

    @property
    def unknown(self) -> int:
        return sum(1 for _, _, b in self.scored() if b == "?")

    @property
    def wrong(self) -> int:
        """Spots read as a different *colour or emptiness* (unknowns not counted)."""
        return sum(1 for _, a, b in self.scored() if a != b and b != "?")

    @property
    def swaps(self) -> int:
        """Black read as white or white as black: the one error the tracker cannot survive."""
        return sum(1 for _, a, b in self.scored() if {a, b} == {"B", "W"})

    @property
    def confident_wrong(self) -> int:
        """Wrong readings whose confidence is at least :data:`CONFIDENT_WRONG`."""
        if self.reading is None:
            return 0
        conf = self.reading.observation.confidence
        return sum(
            1 for i, a, b in self.scored() if a != b and b != "?" and conf[i] >= CONFIDENT_WRONG
        )

    @property
    def hidden_wrong(self) -> int:
        """Hidden points read as something they are not (a hidden point should read ``?``)."""
        tokens, read = self.photo.tokens, self.read
        return sum(1 for i in self.photo.hidden if read[i] not in ("?", tokens[i]))

    @property
    def errors(self) -> int:
        return self.points - self.right


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
        points = sum(r.points for r in rs)
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
            "unknown": sum(r.unknown for r in rs),
            "wrong": sum(r.wrong for r in rs),
            "confident_wrong": sum(r.confident_wrong for r in rs),
            "swaps": sum(r.swaps for r in rs),
            "hidden": sum(len(r.photo.hidden) for r in rs),
            "hidden_wrong": sum(r.hidden_wrong for r in rs),
            "corrected": sum(len(r.photo.corrected) for r in rs),
            "perfect": sum(1 for r in rs if r.errors == 0),
            "worst_board_errors": max((r.errors for r in rs), default=0),
            "median_ms": 1000 * statistics.median([r.seconds for r in rs]) if rs else 0.0,
        }

    def confusion(self) -> dict[str, dict[str, int]]:
        m = {a: dict.fromkeys(TOKENS, 0) for a in CLASSES}
        for r in self.results:
            for _, a, b in r.scored():
                m[a][b] += 1
        return m


def corner_error(
    found: NDArray[np.float64], truth: Iterable[tuple[float, float]], size: int
) -> float:
    """Worst corner distance in units of the mean grid spacing of the true corners."""
    t = np.asarray(list(truth), dtype=np.float64)
    return float(np.linalg.norm(found - t, axis=1).max() / spacing(t, size))


def evaluate_photo(
    photo: LabelledPhoto,
    *,
    use_corners: bool,
    guess_size: bool = True,
    reader: str = DEFAULT_READER,
    model: bytes | None = None,
) -> PhotoResult:
    """Read one labelled photo. ``use_corners`` reads with the truth corners where they exist.

    ``reader``: which stone reader; ``model``: ONNX bytes of another stone classifier
    (leave-one-out; the ``net`` reader), else the bundled one.
    """
    image = load_image(photo.path)
    n = photo.size
    given = photo.corners if (use_corners and photo.corners is not None) else None
    try:
        reading = read_photo(
            image,
            size=None if (guess_size and given is None) else n,
            corners=given,
            reader=reader,
            model=model,
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
    reader: str = DEFAULT_READER,
) -> Summary:
    summary = Summary()
    for photo in photos:
        res = evaluate_photo(photo, use_corners=use_corners, reader=reader)
        summary.results.append(res)
        if on_each is not None:
            on_each(res)
    return summary
