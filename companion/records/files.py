"""Records on disk: :func:`load_record` reads SGF or a JSON record, :func:`save_record` writes.

The format is told by the content, not the file name: a JSON record starts with ``{``, anything
else is read as SGF. Nothing is written unless serialising succeeded, so a failed save never
leaves half a file in place of a good one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from companion.errors import RecordError
from companion.limits import read_file
from companion.records.json_record import (
    MAX_JSON_RECORD_BYTES,
    read_json_record,
    write_json_record,
)
from companion.records.record import GameRecord
from companion.records.sgf import MAX_SGF_BYTES, read_sgf, write_sgf

#: The largest record file read at all (each format then applies its own limit).
MAX_RECORD_BYTES = max(MAX_SGF_BYTES, MAX_JSON_RECORD_BYTES)


def parse_record(data: bytes, *, name: str = "record") -> GameRecord:
    """A record from file bytes (JSON record or SGF); RecordError when it is neither."""
    if data.lstrip()[:1] == b"{":
        return read_json_record(data, name=name)
    return read_sgf(data, name=name)


def load_record(path: str | Path) -> GameRecord:
    """Read a record file; RecordError (never OSError) when it cannot be read or understood."""
    path = Path(path)
    data = read_file(path, limit=MAX_RECORD_BYTES, error=RecordError, what="record")
    return parse_record(data, name=str(path))


def save_record(record: GameRecord, path: str | Path) -> None:
    """Write ``record`` as SGF (``.sgf``) or as a JSON record (any other suffix), atomically.

    Raises RecordError when the record does not fit the format (SGF: two-player grids only)
    or the file cannot be written.
    """
    path = Path(path)
    if path.suffix.lower() == ".sgf":
        data = write_sgf(record)
    else:
        data = write_json_record(record).encode("utf-8")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise RecordError(f"{path}: cannot write: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
