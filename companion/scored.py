"""Scored positions: photos counted on the ``/score`` page, kept in the journal's file.

A scored position is not a game (no moves, no clock), so it gets its own table beside the
journal's ``games`` and ``events``: ``scored_positions``, one row per saved count (the board,
the rules, komi, prisoners, the dead stones and dame as confirmed, the result and the count's
detail) with its photo re-encoded as a JPEG of at most :data:`PHOTO_SIDE` pixels a side.
The table is created when first needed (``CREATE TABLE IF NOT EXISTS``), so a journal written
before it existed stays readable by the journal as it is; the journal's own tables are never
touched from here. Own connection, WAL like the journal's, commits before returning.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.closeable import Closeable
from companion.errors import JournalError

#: The longest side of a stored photo: enough to see every stone of a 19x19 again.
PHOTO_SIDE = 1600
PHOTO_QUALITY = 85
#: Ids are SQLite integers: a larger number names no position (rather than overflowing).
MAX_ID = 2**63 - 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scored_positions (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    rules TEXT NOT NULL,
    size INTEGER NOT NULL,
    komi REAL NOT NULL,
    result TEXT NOT NULL,
    data TEXT NOT NULL,
    photo BLOB NOT NULL
)
"""


@dataclass(frozen=True)
class ScoredPosition:
    """One saved count: ``data`` is :meth:`PhotoScore.to_json` as it was saved."""

    id: int
    at: float
    rules: str
    size: int
    komi: float
    result: str
    data: dict[str, Any]


def bounded(image: NDArray[np.uint8], *, side: int = PHOTO_SIDE) -> NDArray[np.uint8]:
    """``image`` scaled down to no more than ``side`` pixels on its longest side."""
    h, w = image.shape[:2]
    scale = side / max(h, w)
    if scale >= 1:
        return image
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)


def bounded_jpeg(image: NDArray[np.uint8], *, side: int = PHOTO_SIDE) -> bytes:
    """``image`` as a JPEG no more than ``side`` pixels on its longest side."""
    image = bounded(image, side=side)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, PHOTO_QUALITY])
    if not ok:
        raise JournalError("cannot encode the photo as JPEG")
    return bytes(data.tobytes())


class ScoredPositions(Closeable):
    """The scored positions of one journal file (thread-safe: one connection, one lock)."""

    def __init__(self, path: str | Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()
        try:
            self._con = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=10.0
            )
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=FULL")
            self._con.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot keep scored positions in {self.path}: {exc}") from exc

    def __repr__(self) -> str:
        return f"<ScoredPositions {str(self.path)!r}>"

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._con.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise JournalError(f"scored positions in {self.path}: {exc}") from exc

    def add(self, data: dict[str, Any], photo: bytes) -> int:
        """Store a count (``PhotoScore.to_json()``) and its photo (JPEG bytes); its id."""
        with self._lock:
            try:
                cur = self._con.execute(
                    "INSERT INTO scored_positions(at, rules, size, komi, result, data, photo) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        self._clock(),
                        str(data["rules"]),
                        int(data["size"]),
                        float(data["komi"]),
                        str(data["result"]),
                        json.dumps(data),
                        photo,
                    ),
                )
            except sqlite3.Error as exc:
                raise JournalError(f"cannot save the scored position: {exc}") from exc
        return int(cur.lastrowid or 0)

    def _position(self, row: tuple[Any, ...]) -> ScoredPosition:
        return ScoredPosition(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]))

    def list(self) -> list[ScoredPosition]:
        """Every saved count, newest first."""
        rows = self._run(
            "SELECT id, at, rules, size, komi, result, data FROM scored_positions ORDER BY id DESC"
        )
        return [self._position(r) for r in rows]

    def get(self, position: int) -> ScoredPosition | None:
        if not 0 < position <= MAX_ID:
            return None
        rows = self._run(
            "SELECT id, at, rules, size, komi, result, data FROM scored_positions WHERE id = ?",
            (position,),
        )
        return self._position(rows[0]) if rows else None

    def photo(self, position: int) -> bytes | None:
        if not 0 < position <= MAX_ID:
            return None
        rows = self._run("SELECT photo FROM scored_positions WHERE id = ?", (position,))
        return bytes(rows[0][0]) if rows else None
