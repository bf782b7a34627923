"""The probes of issue 15, items 7 and 8, each in a fresh process: outcome, time, peak memory.

    .venv/bin/python tests/support/probes.py

A JPEG claiming 30000x30000 in a ``dir:`` folder beside a FIFO, 100,000 stacked layers in a
173-byte JSON record and in a calibration profile, ``new_game`` on a 200x25x25 board, and maps
of 5,000 to 20,000 spots (the load that took 19 s at 20,000 spots and grew with the square).
The peak memory is the process's (``ru_maxrss``) next to what its imports alone took.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB.

    Linux's ``VmHWM`` first: it belongs to this program's own memory map, whereas ``ru_maxrss``
    also keeps the size of the process this one was forked from (a big test runner made every
    fuzzing run look big).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _probe_jpeg(tmp: Path) -> str:
    import cv2
    import numpy as np

    from companion.errors import SourceEnded
    from companion.sources import DirSource

    _, buf = cv2.imencode(".jpg", np.full((48, 64, 3), 128, np.uint8))
    data = bytearray(buf.tobytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = (30000).to_bytes(2, "big") * 2
    (tmp / "a.jpg").write_bytes(bytes(data) + b"\0" * (517 * 1024 - len(data)))
    os.mkfifo(tmp / "b.jpg")
    (tmp / "c.jpg").write_bytes(buf.tobytes())
    frames = []
    with DirSource(tmp) as source:
        try:
            while True:
                frames.append(source.read().image.shape)
        except SourceEnded:
            pass
    skipped = ", ".join(p.name for p in source.skipped)
    return f"dir: read {len(frames)} photo(s) {frames}, skipped {skipped}"


def _probe_record(tmp: Path) -> str:
    from companion.records.json_record import read_json_record

    text = (
        '{"format":"companion-game","version":1,"board":{"kind":"stacked","layers":100000,'
        '"width":25,"height":25},"players":[{},{}],"moves":[]}'
    )
    read_json_record(text.ljust(173))
    return "accepted"


def _probe_profile(tmp: Path) -> str:
    from companion.vision.profile import read_profile

    data = json.loads((REPO / "calibration" / "example-9x9-magnetic.json").read_text())
    data["board"] = "100000x9x9"
    read_profile(json.dumps(data))
    return "accepted"


def _probe_new_game(tmp: Path) -> str:
    from companion.games.rules import new_game
    from companion.games.topology import from_spec

    new_game("chinese", from_spec("200x25x25"))
    return "accepted"


def _probe_map(spots: int) -> Callable[[Path], str]:
    def probe(tmp: Path) -> str:
        from companion.games.topology import load_map

        side = int(spots**0.5)
        text = json.dumps(
            {
                "format": "companion-map",
                "version": 1,
                "spots": [{"id": f"s{i}", "x": i % side, "y": i // side} for i in range(spots)],
                "links": [[f"s{i}", f"s{i + 1}"] for i in range(spots - 1) if (i + 1) % side]
                + [[f"s{i}", f"s{i + side}"] for i in range(spots - side)],
            },
            indent=1,
        )
        (tmp / "big.json").write_text(text)
        started = time.perf_counter()
        topo = load_map(tmp / "big.json")
        return f"{len(topo)} spots loaded in {time.perf_counter() - started:.2f} s"

    return probe


PROBES: dict[str, Callable[[Path], str]] = {
    "jpeg-30000x30000-in-dir": _probe_jpeg,
    "record-100000-layers": _probe_record,
    "profile-100000-layers": _probe_profile,
    "new-game-200x25x25": _probe_new_game,
    "map-5000-spots": _probe_map(5_000),
    "map-10000-spots": _probe_map(10_000),
    "map-20000-spots": _probe_map(20_000),
}


def probe(name: str) -> dict[str, Any]:
    """Run one of the issue's probes in this (fresh) process: outcome, seconds, peak memory."""
    import tempfile

    import cv2  # noqa: F401 - imported first so the baseline includes it
    import numpy  # noqa: F401

    import companion.sources
    import companion.vision.profile  # noqa: F401
    from companion.errors import CompanionError

    baseline = peak_mb()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            outcome = PROBES[name](Path(tmp))
        except CompanionError as exc:
            outcome = f"{type(exc).__name__}: {str(exc)[:100]}"
    seconds = time.perf_counter() - started
    return {
        "probe": name,
        "outcome": outcome,
        "seconds": seconds,
        "peak_mb": peak_mb(),
        "baseline_mb": baseline,
    }


def probes() -> int:
    """Each probe in a fresh process, so that each peak is its own."""

    for name in PROBES:
        done = subprocess.run(
            [sys.executable, __file__, "--probe", name], capture_output=True, text=True, timeout=120
        )
        if done.returncode:
            print(f"{name}: failed\n{done.stderr[-1500:]}")
            return 1
        r = json.loads(done.stdout)
        print(
            f"{name:24} {r['seconds']:6.2f} s  peak {r['peak_mb']:5.0f} MB (imports alone "
            f"{r['baseline_mb']:.0f} MB)  {r['outcome']}"
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        print(json.dumps(probe(sys.argv[2])))
        sys.exit(0)
    sys.exit(probes())
