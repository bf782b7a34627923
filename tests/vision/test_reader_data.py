"""Training material for the stone classifier: 3D scenes as items, their cache, the windows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.vision import reader_data
from companion.vision.reader_data import COVERED, augmented_window, cached_scene_items
from companion.vision.stone_net import CLASSES, view_size


def test_a_scene_is_cached_and_read_back_the_same(tmp_path: Path) -> None:
    """The first call renders and stores the scene; the second reads the very same item."""
    seed = 3  # a training seed (below 10**6)
    first = next(cached_scene_items([seed], tmp_path))
    assert (tmp_path / f"scene-{seed}.npz").is_file()
    again = next(cached_scene_items([seed], tmp_path))
    assert np.array_equal(first.image, again.image)
    assert np.allclose(first.corners, again.corners) and first.size == again.size
    assert np.array_equal(first.labels, again.labels)
    n = first.size
    assert first.labels.shape == (n, n) and set(np.unique(first.labels)) <= set(range(4))
    assert first.source == "renders"


def test_windows_off_the_lattice_are_not_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """A window cut half a spacing off the lattice has no point at its centres: every label on
    the board is "covered" (read ``?``), whatever lies around; the margin is not learnt."""
    item = next(cached_scene_items([3], None))
    rng = np.random.default_rng(0)
    view, labels = augmented_window(item, rng)
    assert view.shape[:2] == view_size(9, 9)[::-1] and (labels != COVERED).any()
    monkeypatch.setattr(reader_data, "OFF_SHARE", 1.0)
    for _ in range(3):
        view, labels = augmented_window(item, rng)
        assert view.shape[:2] == view_size(9, 9)[::-1]
        assert ((labels == COVERED) | (labels == -1)).all() and CLASSES[COVERED] == "?"
        assert (labels == COVERED).sum() >= 8 * 8


def test_train_reader_refuses_test_seeds() -> None:
    """Training seeds stay below 10**6: a range reaching into the test seeds is refused at once."""
    res = CliRunner().invoke(
        main, ["train-reader", "--photos", "", "--renders", "10", "--render-seed", "999995"]
    )
    assert res.exit_code != 0 and "below 1000000" in res.output


def test_glare_scenes_are_glare_from_a_low_camera_and_apart_from_other_seeds() -> None:
    """--glare N: N scene seeds whose drawn factors are glare light and a camera at most 50
    degrees up, all between the regular training renders and the tuning and test seeds."""
    from companion.commands.train_reader import GLARE_SEEDS_FROM, glare_seeds
    from companion.vision.scene.factors import draw_factors

    seeds = glare_seeds(5)
    assert len(set(seeds)) == 5 and all(GLARE_SEEDS_FROM <= s < 500_000 for s in seeds)
    for s in seeds:
        f = draw_factors(s, {})
        assert f["light"] == "glare" and float(f["elevation_deg"]) <= 50.0  # type: ignore[arg-type]
    res = CliRunner().invoke(
        main,
        [
            "train-reader",
            "--photos",
            "",
            "--renders",
            "10",
            "--render-seed",
            "99995",
            "--glare",
            "1",
        ],
    )
    assert res.exit_code == 2 and "glare seeds" in res.output


def test_hand_scenes_have_a_hand_and_stay_in_their_own_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--hands N: N scene seeds whose drawn factors put a hand at the board, from 200000 on,
    apart from the glare scenes and below the tuning and test seeds; a set that runs out of its
    seed range is a usage error, not scenes borrowed from the next set."""
    import click

    from companion.commands import train_reader as tr
    from companion.vision.scene.factors import draw_factors

    seeds = tr.extra_seeds("hands", 5)
    assert len(set(seeds)) == 5 and all(tr.HAND_SEEDS_FROM <= s < 500_000 for s in seeds)
    assert all(draw_factors(s, {})["hand"] for s in seeds)
    assert not set(seeds) & set(tr.glare_seeds(5))
    glare = tr.EXTRA_SCENES["glare"]
    monkeypatch.setitem(tr.EXTRA_SCENES, "glare", replace(glare, end=glare.first + 20))
    with pytest.raises(click.BadParameter, match="too many glare scenes"):
        tr.extra_seeds("glare", 5)


def test_crowded_and_shadow_scenes_reach_the_training_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--crowded N and --shadows N: every seed of their own ranges (300000.., 400000..) is one
    (the set pins its factors), rendered with that set's pins and cached under the set's name,
    so a set's scene never stands in for the seed's free one. train-reader passes both
    counts on to the training data."""
    from companion.commands import train_reader as tr
    from companion.vision.scene.sets import pins

    assert tr.extra_seeds("crowded", 3) == [300_000, 300_001, 300_002]
    assert tr.extra_seeds("shadows", 2) == [400_000, 400_001]
    assert tr.EXTRA_SCENES["hands"].end == tr.CROWDED_SEEDS_FROM  # the hand seeds stay below
    seed = 400_000
    item = next(cached_scene_items([seed], tmp_path, scene_set="shadows"))
    assert [p.name for p in tmp_path.iterdir()] == [f"shadows-{seed}.npz"]
    again = next(cached_scene_items([seed], tmp_path, scene_set="shadows"))
    assert np.array_equal(item.image, again.image) and item.name == again.name
    assert pins("shadows", seed)["light"] == "low"

    asked: list[tuple[list[int], str | None]] = []

    def fake_cached(seeds: list[int], cache: object, *, flat: bool, scene_set: str | None):
        asked.append((list(seeds), scene_set))
        return iter([item] * len(seeds))

    monkeypatch.setattr(reader_data, "cached_scene_items", fake_cached)
    got = tr.load_items(None, 0, 0, None, extra={"crowded": 2, "shadows": 3})
    assert len(got) == 5
    assert ([300_000, 300_001], "crowded") in asked
    assert ([400_000, 400_001, 400_002], "shadows") in asked
    seen: dict[str, object] = {}

    def fake_load(*a: object) -> list[object]:
        seen["extra"] = a[-1]
        raise SystemExit(0)

    monkeypatch.setattr(tr, "load_items", fake_load)
    pytest.importorskip("torch")
    CliRunner().invoke(main, ["train-reader", "--photos", "", "--crowded", "7", "--shadows", "9"])
    assert seen["extra"] == {"glare": 300, "hands": 200, "crowded": 7, "shadows": 9}


def test_found_corners_join_given_ones_only_where_they_confirm_them() -> None:
    """A photo is learnt with the found corners and the given ones when the two lie within a
    third of a spacing (given corners converted from other tools miss the crossings a little),
    else with the given ones alone; with one of the two missing, the other."""
    given = np.array([[100.0, 100.0], [280.0, 100.0], [280.0, 280.0], [100.0, 280.0]])  # 10 px
    near = given + np.array([[0.0, 2.5], [0.0, 2.5], [1.0, 0.0], [-1.0, 0.0]])
    far = given + np.array([[0.0, 5.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert reader_data.training_corners(given, near, 19) == (near, given)
    assert reader_data.training_corners(given, far, 19) == (given, None)
    assert reader_data.training_corners(None, near, 19) == (near, None)
    assert reader_data.training_corners(given, None, 19) == (given, None)
    assert reader_data.training_corners(None, None, 19) == (None, None)


def test_a_random_table_is_painted_only_beyond_the_margin() -> None:
    """The surround augmentation paints beyond a margin of MARGIN_MIN to BEYOND spacings outside
    the edge lines, never on the board, and the blank beyond BEYOND covers it as at run time."""
    from companion.vision.stone_net import BEYOND, BLANK, HALF, PX, blank_beyond

    n = 9
    w, h = view_size(n, n)
    rng = np.random.default_rng(1)
    changed = np.zeros((h, w), dtype=bool)
    for _ in range(20):
        view = np.full((h, w, 3), 77, dtype=np.uint8)
        reader_data._random_surround(view, (0.0, 0.0), n, rng)
        changed |= (view != 77).any(axis=2)
    pos = (np.arange(w) - HALF) / PX
    near = (pos >= -reader_data.MARGIN_MIN) & (pos <= n - 1 + reader_data.MARGIN_MIN)
    assert not changed[np.ix_(near, near)].any()
    assert changed[:, pos < -BEYOND + 0.05].all() and changed[pos > n - 1 + BEYOND - 0.05].all()
    blank_beyond(view, (0.0, 0.0), (n, n))
    assert (view[:, pos < -BEYOND] == BLANK).all()


def test_train_reader_and_leave_one_out_take_the_same_recipe() -> None:
    """Both commands have one option per extra scene set, and the same defaults for it and for
    the regular sets and steps: `eval-photos --leave-one-out` alone measures the shipped
    weights' recipe, the one `train-reader` alone reproduces."""
    from companion.commands import eval_photos
    from companion.commands import train_reader as tr

    def defaults(cmd: object) -> dict[str, object]:
        return {p.name: p.default for p in cmd.params}  # type: ignore[attr-defined]

    train, loo = defaults(tr.command), defaults(eval_photos.command)
    for name in [*tr.EXTRA_SCENES, *tr.RECIPE]:
        assert name in train and name in loo, name
        assert train[name] == loo[name], name
    assert {n: train[n] for n in tr.EXTRA_SCENES} == {
        n: s.default for n, s in tr.EXTRA_SCENES.items()
    }
    assert (train["glare"], train["hands"], train["steps"]) == (300, 200, 8000)
