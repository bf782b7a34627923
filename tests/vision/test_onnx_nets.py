"""The small networks' shared base: loaded once per file version, a bad file a clear error."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.errors import VisionError
from companion.vision import grid_check, grid_fit
from companion.vision.onnx_nets import cached


def test_a_file_is_loaded_once_and_again_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "fit.onnx"
    shutil.copy(grid_fit.WEIGHTS, path)
    first = cached(grid_fit.GridFit, path)
    assert cached(grid_fit.GridFit, path) is first
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a retrained file
    again = cached(grid_fit.GridFit, path)
    assert again is not first and isinstance(again, grid_fit.GridFit)


def test_each_kind_over_the_same_file_is_its_own(tmp_path: Path) -> None:
    """The cache is keyed by what the file is loaded as, not by the file alone."""
    path = tmp_path / "check.onnx"
    shutil.copy(grid_check.WEIGHTS, path)
    check = cached(grid_check.GridCheck, path)
    assert isinstance(check, grid_check.GridCheck)
    blob = np.zeros((2, 4, grid_check.VIEW, grid_check.VIEW), np.float32)
    (raw,) = check.forward(blob)
    assert raw.reshape(-1).shape == (2,)


def test_a_file_that_is_no_network_is_named_in_the_error(tmp_path: Path) -> None:
    bad = tmp_path / "board_check.onnx"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(VisionError, match=r"cannot load the grid check .*board_check\.onnx"):
        grid_check.GridCheck(bad)
    with pytest.raises(VisionError, match="no file for the grid fit"):
        grid_fit.GridFit()
