"""Bounds on data from outside: one bounded file read and one bounded JSON parse for every format.

A file, payload or body from outside (a record, a map, a profile, an MQTT message) may be
corrupt or hostile. Every reader goes through :func:`read_file` (a regular file, at most
``limit`` bytes; a FIFO or a device is refused before it is opened for reading) and, for JSON,
:func:`parse_json` (size, nesting depth, number range), and raises the caller's own error class
from :mod:`companion.errors` with a message that says what was refused. The limits per format
are listed in ``docs/limits.md``; the constants that are not a single format's live here.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

KB = 1024
MB = 1024 * KB

#: JSON nesting: our deepest real payload (a hub state message) is under 10 levels.
MAX_JSON_DEPTH = 32
#: Every JSON number must lie within this magnitude (a Unix time in ms is 1.8e12).
MAX_NUMBER = 1e15
#: Digits in a JSON integer (so 10**15 - 1 is the largest) and characters in a JSON real.
MAX_INT_DIGITS = 15
MAX_REAL_CHARS = 40


def _fail(error: type[CompanionError], name: str, message: str) -> CompanionError:
    return error(f"{name}: {message}")


def read_file(
    path: str | Path, *, limit: int, error: type[CompanionError], what: str = "file"
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, else ``error`` saying why.

    A FIFO, socket or device named like a photo or record is refused without being opened
    (``stat`` first; then the file is opened non-blocking and checked again with ``fstat``,
    in case it was swapped in between), so it is never waited on.
    """
    p = Path(path)
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):  # a FIFO is never opened at all
            raise _fail(error, str(p), f"not a regular file, so not read as a {what}")
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise _fail(error, str(p), f"cannot read {what}: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _fail(error, str(p), f"not a regular file, so not read as a {what}")
        if info.st_size > limit:
            raise _fail(
                error, str(p), f"{_size(info.st_size)} is over the {what} limit of {_size(limit)}"
            )
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(limit + 1 - total, MB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # the file grew while being read
            raise _fail(error, str(p), f"over the {what} limit of {_size(limit)}")
        return b"".join(chunks)
    except OSError as exc:
        raise _fail(error, str(p), f"cannot read {what}: {_reason(exc)}") from None
    finally:
        os.close(fd)


def read_text(
    path: str | Path, *, limit: int, error: type[CompanionError], what: str = "file"
) -> str:
    """The text of a UTF-8 file (a leading byte-order mark dropped) read as :func:`read_file`
    reads it; ``error`` naming the first bad byte when it is not UTF-8."""
    data = read_file(path, limit=limit, error=error, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(error, str(path), f"not UTF-8 text (bad byte at {exc.start})") from None


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def _size(n: int) -> str:
    if n >= MB:
        return f"{n / MB:.1f} MB"
    if n >= KB:
        return f"{n / KB:.0f} KB"
    return f"{n} bytes"


def parse_json(
    data: str | bytes | bytearray,
    *,
    name: str,
    error: type[CompanionError],
    limit: int,
    depth: int = MAX_JSON_DEPTH,
) -> Any:
    """Parsed JSON, or ``error`` naming the fault: too big, not UTF-8, not JSON, nested deeper
    than ``depth``, a number beyond :data:`MAX_NUMBER` (``1e400``, a 5,000-digit integer), or
    ``NaN``/``Infinity``.

    Only the size is checked before parsing; json's C scanner stops a pathological nesting at
    the interpreter's recursion limit, and the depth walk afterwards is iterative.
    """
    if len(data) > limit:
        raise _fail(error, name, f"{_size(len(data))} is over the limit of {_size(limit)}")
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(
                error, name, f"not JSON: not UTF-8 text (bad byte at {exc.start})"
            ) from None
    else:
        text = data

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise _fail(error, name, f"the number {digits[:20]}... is too large")
        return int(digits)

    def parse_float(digits: str) -> float:
        value = float(digits) if len(digits) <= MAX_REAL_CHARS else math.inf
        if not abs(value) <= MAX_NUMBER:
            raise _fail(error, name, f"the number {digits[:20]} is out of range")
        return value

    def parse_constant(word: str) -> float:
        raise _fail(error, name, f"{word} is not a number JSON allows")

    try:
        parsed = json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
        )
    except json.JSONDecodeError as exc:
        raise _fail(
            error, name, f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise _fail(error, name, f"nested deeper than {depth} levels") from None
    check_depth(parsed, name=name, error=error, depth=depth)
    return parsed


def check_depth(value: Any, *, name: str, error: type[CompanionError], depth: int) -> None:
    """Raise ``error`` if lists and objects in ``value`` nest deeper than ``depth`` (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > depth:
            raise _fail(error, name, f"nested deeper than {depth} levels")
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))


def number(
    value: Any,
    *,
    where: str,
    error: type[CompanionError],
    low: float,
    high: float,
    whole: bool = False,
) -> Any:
    """``value`` if it is a (whole, when asked) number in ``low..high``, else ``error``.

    Booleans are not numbers here, although Python counts them as ints.
    """
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok and whole and not isinstance(value, int):
        ok = False
    if ok and not low <= value <= high:  # NaN compares false: refused too
        raise error(f"{where}: {value!r} is outside {low:g}..{high:g}")
    if not ok:
        kind = "a whole number" if whole else "a number"
        raise error(f"{where}: must be {kind}, not {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
