"""Labelled photo folders (the ``shared/data/photos`` format): load images, labels and corners.

Format: every ``X.jpg`` / ``X.png`` has ``X.txt`` with N lines of N tokens (``.`` ``B`` ``W``);
a folder may hold ``corners.json`` mapping paths relative to it to the four corner
intersections (TL, TR, BR, BL), and ``hidden.json`` mapping them to the points (row-major
indices) that cannot be seen, such as those under a hand (``companion render-set`` writes one);
hidden points are not scored. Both apply to their folder and everything below.
Photos without a label file are skipped; a malformed label raises :class:`VisionError`.
Labels the data's README names as wrong (:data:`LABEL_FAULTS`) are read corrected.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.vision import imagefile

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")

#: Labels that ``shared/data/photos/README.md`` names as wrong, by the photo's path under the
#: photos folder: (row, column, the label's token, what the photo shows). The README says to
#: count them as label errors, so a reader that sees the stones is scored right there. Applied
#: only while the label file still holds the wrong tokens (a fixed file is left alone).
LABEL_FAULTS: dict[str, tuple[tuple[int, int, str, str], ...]] = {
    "gomrade/2/67.jpg": ((6, 1, ".", "W"), (6, 2, ".", "W")),
}


@dataclass(frozen=True)
class LabelledPhoto:
    """One photo with its truth. ``group`` is the folder relative to the walked root."""

    path: Path
    group: str
    rows: tuple[str, ...]
    corners: tuple[tuple[float, float], ...] | None
    hidden: frozenset[int] = frozenset()  # row-major points nobody can see (not scored)
    corrected: frozenset[int] = frozenset()  # row-major points of a known label fault, fixed

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(tok for row in self.rows for tok in row.split())


def load_image(path: str | Path) -> NDArray[np.uint8]:
    """A BGR image from a file, pixels as stored; :class:`VisionError` if missing, unreadable or
    over the pixel limit (read from the header first: see :mod:`companion.vision.imagefile`).

    EXIF orientation is ignored on purpose: labels, corners and the camera all speak of the
    image as stored, and a phone's rotation flag would silently turn the board.
    """
    return imagefile.load_image(path)


def parse_label(text: str, *, name: str = "label") -> tuple[str, ...]:
    """Rows of a label file, checked to be square with only ``. B W`` tokens."""
    rows = tuple(" ".join(line.split()) for line in text.strip().splitlines() if line.strip())
    n = len(rows)
    if n < 2:
        raise VisionError(f"{name}: fewer than two rows")
    for i, row in enumerate(rows):
        toks = row.split()
        if len(toks) != n or any(t not in ".BW" for t in toks):
            raise VisionError(f"{name}: row {i} is not {n} tokens of . B W")
    return rows


def _corner_files(root: Path) -> dict[Path, tuple[tuple[float, float], ...]]:
    found: dict[Path, tuple[tuple[float, float], ...]] = {}
    for cj in sorted(root.rglob("corners.json")):
        try:
            data = json.loads(cj.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise VisionError(f"{cj}: {exc}") from exc
        for rel, pts in data.items():
            quad = tuple((float(x), float(y)) for x, y in pts)
            if len(quad) != 4:
                raise VisionError(f"{cj}: {rel} does not have four corners")
            found[(cj.parent / rel).resolve()] = quad
    return found


def _hidden_files(root: Path) -> dict[Path, frozenset[int]]:
    found: dict[Path, frozenset[int]] = {}
    for hj in sorted(root.rglob("hidden.json")):
        try:
            data = json.loads(hj.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise VisionError(f"{hj}: {exc}") from exc
        if not isinstance(data, dict):
            raise VisionError(f"{hj}: expected an object of lists of point indices")
        for rel, spots in data.items():
            if not isinstance(spots, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in spots
            ):
                raise VisionError(f"{hj}: {rel} is not a list of point indices")
            found[(hj.parent / rel).resolve()] = frozenset(spots)
    return found


def _corrected(path: Path, rows: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[int]]:
    """``rows`` with a known label fault of ``path`` fixed, and the points fixed."""
    n = len(rows)
    posix = path.as_posix()
    for key, faults in LABEL_FAULTS.items():
        if posix != key and not posix.endswith("/" + key):
            continue
        grid = [row.split() for row in rows]
        if not all(r < n and c < n and grid[r][c] == wrong for r, c, wrong, _ in faults):
            return rows, frozenset()
        for r, c, _, right in faults:
            grid[r][c] = right
        return tuple(" ".join(g) for g in grid), frozenset(r * n + c for r, c, _, _ in faults)
    return rows, frozenset()


def walk(root: str | Path) -> Iterator[LabelledPhoto]:
    """Every labelled photo under ``root``, sorted by path."""
    base = Path(root)
    if not base.is_dir():
        raise VisionError(f"{base}: not a folder")
    corners = _corner_files(base)
    hidden = _hidden_files(base)
    for p in sorted(base.rglob("*")):
        if p.suffix.lower() not in IMAGE_SUFFIXES or not p.is_file():
            continue
        label = p.with_suffix(".txt")
        if not label.is_file():
            continue
        rows, fixed = _corrected(p, parse_label(label.read_text(), name=str(label)))
        group = str(p.parent.relative_to(base)) if p.parent != base else "."
        hid = hidden.get(p.resolve(), frozenset())
        if any(i >= len(rows) ** 2 for i in hid):
            raise VisionError(f"{p}: a hidden point lies outside its {len(rows)}x{len(rows)} board")
        yield LabelledPhoto(
            path=p,
            group=group,
            rows=rows,
            corners=corners.get(p.resolve()),
            hidden=hid,
            corrected=fixed,
        )
