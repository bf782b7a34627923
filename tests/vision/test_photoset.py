"""Labelled photo folders: known label faults are read corrected, and only while still wrong."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.vision.photoset import walk

EMPTY_19 = "\n".join(" ".join("." * 19) for _ in range(19)) + "\n"


def _photo(folder: Path, name: str, label: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.jpg"), np.zeros((8, 8, 3), np.uint8))
    (folder / f"{name}.txt").write_text(label)


def test_the_known_fault_is_read_corrected(tmp_path: Path) -> None:
    _photo(tmp_path / "gomrade" / "2", "67", EMPTY_19)
    (photo,) = walk(tmp_path)
    assert photo.rows[6].split()[:4] == [".", "W", "W", "."]
    assert photo.corrected == {6 * 19 + 1, 6 * 19 + 2}
    assert photo.tokens.count("W") == 2


def test_a_label_already_fixed_is_left_alone(tmp_path: Path) -> None:
    rows = [["."] * 19 for _ in range(19)]
    rows[6][1] = rows[6][2] = "W"
    fixed = "\n".join(" ".join(r) for r in rows) + "\n"
    _photo(tmp_path / "gomrade" / "2", "67", fixed)
    (photo,) = walk(tmp_path)
    assert photo.corrected == frozenset()
    assert photo.tokens.count("W") == 2


def test_other_photos_are_not_touched(tmp_path: Path) -> None:
    _photo(tmp_path / "gomrade" / "2", "68", EMPTY_19)
    _photo(tmp_path / "other" / "2", "67", EMPTY_19)
    _photo(tmp_path / "gomrade" / "2b", "67", "\n".join(" ".join("." * 9) for _ in range(9)))
    photos = list(walk(tmp_path))
    assert len(photos) == 3
    assert all(p.corrected == frozenset() and "W" not in p.tokens for p in photos)
