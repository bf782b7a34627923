"""Small ONNX networks run through OpenCV's ``cv2.dnn``: loaded once per file version, run
under a lock, with one error for a file that is not a network.

Why one base: the board proposer and its corner network (:mod:`board_net`), the grid check
(:mod:`grid_check`) and the grid fit and reach (:mod:`grid_fit`) each load a file, guard the net
against two threads (a ``cv2.dnn`` net is not safe to run from two at once) and reload a
retrained file; only what their outputs mean differs, and that is all a subclass says.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError

_N = TypeVar("_N", bound="OnnxNets")


class OnnxNets:
    """One or more ONNX networks given the same input (more than one: an ensemble, whose
    answers the subclass combines). ``WHAT`` names them in errors."""

    WHAT: ClassVar[str] = "network"

    def __init__(self, *paths: Path) -> None:
        if not paths:
            raise VisionError(f"no file for the {self.WHAT}")
        self._nets: list[cv2.dnn.Net] = []
        for path in paths:
            try:
                net = cv2.dnn.readNetFromONNX(str(path))
            except cv2.error as exc:
                raise VisionError(f"cannot load the {self.WHAT} {path}: {exc}") from exc
            net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
            net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
            self._nets.append(net)
        self._lock = threading.Lock()

    def forward(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        """Each network's raw output for ``blob`` (batch first), in the order of the files."""
        batch = np.ascontiguousarray(blob, np.float32)
        outs = []
        with self._lock:
            for net in self._nets:
                net.setInput(batch)
                outs.append(np.asarray(net.forward(), np.float32))
        return outs


def cached(kind: type[_N], *paths: Path) -> _N:
    """``kind`` over the files ``paths`` (which must exist), made once per set of files and
    their versions: a retrained file is read again, an unchanged one never."""
    files = tuple((p.resolve(), p.stat().st_mtime_ns) for p in paths)
    key = (kind.__module__, kind.__qualname__, files)
    with _CACHE_LOCK:
        nets = _CACHE.get(key)
        if not isinstance(nets, kind):
            nets = kind(*(path for path, _stamp in files))
            while len(_CACHE) >= CACHED:  # the oldest first
                del _CACHE[next(iter(_CACHE))]
            _CACHE[key] = nets
    return nets


CACHED = 16  # network sets kept loaded (past that, the one loaded first is dropped)
_CACHE: dict[tuple[str, str, tuple[tuple[Path, int], ...]], OnnxNets] = {}
_CACHE_LOCK = threading.Lock()
