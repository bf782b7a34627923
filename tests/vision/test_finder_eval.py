"""finder_eval's yardsticks: a find judged by its corners where the truth has them, else by
what a user needs of it, the stones read with the found grid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.vision import finder_eval as fe
from companion.vision.geometry import homography, project
from companion.vision.photoset import LabelledPhoto, load_image, walk
from tests.support.paths import shared_data


def _gomrade(rel: str) -> LabelledPhoto:
    root = shared_data("data/photos/gomrade")
    (photo,) = [p for p in walk(root) if p.path.relative_to(root).as_posix() == rel]
    return photo


def _imago_of(tmp_path: Path, labels: str | None = None) -> Path:
    """A photo set named as the held-out one (``tmp_path/imago``) holding gomrade's 3/31
    with its labels (or ``labels`` instead): the root to give ``--photos``."""
    photo = _gomrade("3/31.jpg")
    folder = tmp_path / "imago"
    folder.mkdir()
    shutil.copy(photo.path, folder / "31.jpg")
    text = photo.path.with_suffix(".txt").read_text() if labels is None else labels
    (folder / "31.txt").write_text(text)
    return tmp_path


def _moved(corners: np.ndarray, n: int, dx: float, dy: float) -> np.ndarray:
    """The grid ``corners`` moved by (dx, dy) spacings in its own coordinates."""
    ends = np.array([(0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1)], np.float64)
    return project(homography(corners, n), ends + np.array([dx, dy]))


@pytest.mark.parametrize(
    ("right", "unknown", "wrong", "swaps", "ok"),
    [
        (361, 0, 0, 0, True),
        (358, 3, 0, 0, True),  # 99.2 %: three unsure points are no lost board
        (357, 4, 0, 0, False),  # 98.9 %
        (358, 0, 3, 0, True),
        (360, 0, 1, 1, False),  # a colour swap is the one error the tracker cannot survive
    ],
)
def test_the_read_yardstick_wants_99_percent_right_and_no_swap(
    right: int, unknown: int, wrong: int, swaps: int, ok: bool
) -> None:
    assert fe.ReadScore(361, right, unknown, wrong, swaps).ok is ok


def test_a_grid_one_line_off_misreads_the_stones() -> None:
    """On gomrade 2/67 (47 stones) the truth grid reads right and the grid one line over
    does not: the read yardstick can fail."""
    photo = _gomrade("2/67.jpg")
    image = load_image(photo.path)
    truth = np.array(photo.corners, np.float64)
    good = fe.read_score(image, photo.size, photo.rows, truth)
    assert good.ok, good
    off = fe.read_score(image, photo.size, photo.rows, _moved(truth, photo.size, 1, 0))
    assert not off.ok
    assert off.wrong > 20


def test_a_photo_without_corners_is_judged_by_its_read_and_the_old_way_beside_it() -> None:
    """A corner-less copy whose stand-in truth (the old yardstick's) is 0.35 spacing off:
    the old yardstick calls the find lost, the read finds every stone."""
    photo = _gomrade("3/31.jpg")
    image = load_image(photo.path)
    truth = np.array(photo.corners, np.float64)
    ref = _moved(truth, photo.size, 0.35, 0)
    case = fe.Case("imago-like +blur", "31", image, photo.size, None, photo.rows, ref)
    out = fe.evaluate_case(case, size_given=True)
    assert out.read is not None and out.read.ok
    assert out.found
    assert out.found_old is False
    assert out.error is not None and out.error > 0.25


def test_with_truth_corners_the_corners_judge_and_the_read_is_shown(tmp_path: Path) -> None:
    photo = _gomrade("3/31.jpg")
    image = load_image(photo.path)
    truth = np.array(photo.corners, np.float64)
    case = fe.Case("gomrade", "31", image, photo.size, truth, photo.rows)
    out = fe.evaluate_case(case, size_given=True, read_too=True)
    assert out.found and out.found_old is None
    assert out.read is not None and out.read.points == 361
    assert fe.evaluate_case(case, size_given=True).read is None


def test_eval_finder_prints_both_yardsticks_for_photos_without_corners(tmp_path: Path) -> None:
    """A labelled photo with no corners file, as imago's are: its clean and blurred copies are
    judged by their read, the old yardstick's count beside it, and the reads tabled."""
    args = ["eval-finder", "--renders", "0", "--alter", "blur", "--size-given"]
    args += ["--photos", str(_imago_of(tmp_path))]
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    sets = {s["set"]: s for s in json.loads(res.stdout)["sets"]}
    for name in ("imago (held out)", "imago (held out) +blur"):
        assert sets[name]["boards"] == 1
        assert sets[name]["found_old"] is not None
        assert sets[name]["read"] == 1
        assert sets[name]["points"] == 361
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "old" in text.stdout and "read with the found grid" in text.stdout


def test_a_board_given_wrong_and_no_board_are_told_apart() -> None:
    """A wrong board (it corrupts a record) and "no board" (another photo is asked for) are
    both misses, but only the first is counted as a board given wrong."""
    photo = _gomrade("3/31.jpg")
    image = load_image(photo.path)
    truth = np.array(photo.corners, np.float64)
    off = fe.Case("gomrade", "31 off", image, photo.size, _moved(truth, photo.size, 1, 0))
    blank = fe.Case("gomrade", "blank", np.full_like(image, 128), photo.size, truth)
    wrong, none = (fe.evaluate_case(c, size_given=True) for c in (off, blank))
    assert not wrong.found and wrong.given and wrong.error is not None and wrong.error > 0.9
    assert not none.found and not none.given and "no board" in none.note


def test_a_refused_grid_offered_with_no_board_is_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A "no board" that offers the grid the check refused: that grid's corner error is kept
    (what /score asks a person to confirm), inf for the wrong size, None with nothing offered;
    the case stays a miss either way."""
    from companion.errors import BoardNotFound

    photo = _gomrade("3/31.jpg")
    image = load_image(photo.path)
    truth = np.array(photo.corners, np.float64)
    case = fe.Case("gomrade", "31", image, photo.size, truth)
    offers = [
        (_moved(truth, photo.size, 0.1, 0), photo.size),
        (truth, photo.size + 4),
        (None, None),
    ]

    def refuse(image: object, *, size: int | None = None) -> object:
        corners, n = offers.pop(0)
        offered = None if corners is None else [(float(x), float(y)) for x, y in corners]
        raise BoardNotFound("no board found", suggested=offered, suggested_size=n)

    monkeypatch.setattr(fe, "find_board", refuse)
    near, wrong_size, bare = (fe.evaluate_case(case, size_given=True) for _ in range(3))
    assert not near.found and not near.given
    assert near.suggested is not None and abs(near.suggested - 0.1) < 0.01
    assert wrong_size.suggested == np.inf and bare.suggested is None


def test_eval_finder_lists_its_misses_in_json_when_asked(tmp_path: Path) -> None:
    """``-v --json``: every miss, with its error and why, so two runs compare case by case."""
    wrong = _gomrade("3/31.jpg").path.with_suffix(".txt").read_text().replace("W", "B")
    args = ["eval-finder", "--renders", "0", "--alter", "", "--size-given", "-v", "--json"]
    res = CliRunner().invoke(main, [*args, "--photos", str(_imago_of(tmp_path, wrong))])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    (line,) = [s for s in out["sets"] if s["set"] == "imago (held out)"]
    assert line["found"] == 0 and line["given_wrong"] == 1
    assert [m["name"] for m in out["misses"]] == ["imago/31.jpg"]


@pytest.mark.parametrize(
    ("hits", "total", "low", "high"),
    [
        (320, 360, 0.8522, 0.9173),  # session 19's fresh range: 89 %, and what 360 finds allow
        (57, 60, 0.8630, 0.9829),  # one set of 60: "95 %" could be 86 % or 98 %
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_a_found_share_comes_with_its_wilson_range(
    hits: int, total: int, low: float, high: float
) -> None:
    lo, hi = fe.share_range(hits, total)
    assert abs(lo - low) < 5e-4 and abs(hi - high) < 5e-4
    assert fe.share_range(0, 0) == (0.0, 1.0)


def test_eval_finder_prints_each_set_s_range(tmp_path: Path) -> None:
    args = ["eval-finder", "--renders", "0", "--alter", "", "--size-given"]
    args += ["--photos", str(_imago_of(tmp_path))]
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    (line,) = [s for s in json.loads(res.stdout)["sets"] if s["set"] == "imago (held out)"]
    assert line["found"] == 1 and line["found_range"] == pytest.approx([0.2065, 1.0], abs=5e-4)
    text = CliRunner().invoke(main, args)
    assert "95 % range" in text.stdout and "21-100 %" in text.stdout, text.stdout
