"""Photo label files as perfect observations: a testing aid for the tracker, never a camera.

A label file ``X.txt`` (see ``shared/data/photos/README.md``) holds N lines of N tokens
(``.`` ``B`` ``W``, and ``?`` is accepted); a folder of them, in natural name order (``2.txt``
before ``10.txt``), is a game seen by a reader that never errs. ``companion track labels:DIR``
and ``companion bench tracker`` use this to exercise the tracker without the photo reader.
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.errors import VisionError
from companion.observation import TOKENS, Observation


def natural_key(name: str) -> list[int | str]:
    """Sort key putting ``2.txt`` before ``10.txt``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def read_label(path: str | Path) -> list[str]:
    """The rows of one label file. Raises VisionError when it is not a square board of tokens."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VisionError(f"{path}: cannot read the label file ({exc})") from exc
    rows = [line.split() for line in text.splitlines() if line.strip()]
    n = len(rows)
    if n < 2 or any(len(row) != n for row in rows):
        raise VisionError(f"{path}: a label file needs N lines of N tokens")
    bad = {t for row in rows for t in row} - set(TOKENS)
    if bad:
        raise VisionError(f"{path}: unknown tokens {sorted(bad)}")
    return [" ".join(row) for row in rows]


def label_files(folder: str | Path) -> list[Path]:
    """The ``*.txt`` label files of ``folder`` in natural name order (VisionError if none)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise VisionError(f"{folder}: no such folder")
    files = sorted(folder.glob("*.txt"), key=lambda p: natural_key(p.name))
    if not files:
        raise VisionError(f"{folder}: no label files (*.txt)")
    return files


def read_labels(folder: str | Path) -> list[tuple[str, Observation]]:
    """Every label file of ``folder`` as (file name, observation with confidence 1)."""
    return [
        (path.name, Observation.from_rows(read_label(path), source=f"labels:{path.name}"))
        for path in label_files(folder)
    ]
