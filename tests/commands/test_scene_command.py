"""``companion render-set``: a labelled folder that the photo-set reader takes as it is."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from companion.cli import main
from companion.vision.photoset import load_image, walk
from companion.vision.scene import render_scene


def test_render_set_reads_back_as_a_photo_set(tmp_path: Path) -> None:
    out = tmp_path / "set"
    args = ["render-set", str(out), "--count", "3", "--seed", "40", "--size", "9"]
    args += ["--width", "160", "--height", "120", "--factor", "jpeg=0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    photos = list(walk(out))
    assert [p.path.name for p in photos] == ["00000.png", "00001.png", "00002.png"]
    factors = json.loads((out / "factors.json").read_text())
    hidden = json.loads((out / "hidden.json").read_text())
    for i, photo in enumerate(photos):
        scene = render_scene(40 + i, size=9, width=160, height=120, jpeg=0)
        assert photo.rows == scene.rows[0]
        assert photo.corners is not None
        assert np.allclose(photo.corners, scene.corners[0], atol=0.01)
        assert np.array_equal(load_image(photo.path), scene.image)
        assert factors[photo.path.name]["seed"] == 40 + i
        assert factors[photo.path.name]["jpeg"] == 0
        assert hidden[photo.path.name] == sorted(scene.hidden)


def test_render_set_refuses_unknown_factor(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["render-set", str(tmp_path / "x"), "--count", "1", "--factor", "wobble=2"]
    )
    assert result.exit_code != 0
    assert "unknown factor" in result.output
    result = CliRunner().invoke(
        main, ["render-set", str(tmp_path / "x"), "--count", "1", "--factor", "noequals"]
    )
    assert result.exit_code != 0
