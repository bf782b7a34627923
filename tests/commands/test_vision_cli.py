"""The read, eval-photos and bench read commands, through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.vision.make_profile import calibrate
from companion.vision.render import random_position, render_board


@pytest.fixture(scope="module")
def board_photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], np.ndarray]:
    rows = random_position(13, stones=0.3, seed=3)
    r = render_board(rows, size=13, width=960, height=720, seed=3)
    path = tmp_path_factory.mktemp("photos") / "board.png"
    cv2.imwrite(str(path), r.image)
    return path, rows, r.corners[0]


def test_read_prints_the_position(board_photo: tuple[Path, list[str], np.ndarray]) -> None:
    path, rows, _ = board_photo
    res = CliRunner().invoke(main, ["read", str(path)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == rows


@pytest.mark.parametrize("name", ["classic", "net"])
def test_read_with_either_stone_reader(
    board_photo: tuple[Path, list[str], np.ndarray], name: str
) -> None:
    """``--reader`` reaches the reader: the command prints what that reader reads, and neither
    reads a stone that is not there or the wrong colour."""
    from companion.vision.photoset import load_image
    from companion.vision.pipeline import read_photo

    path, rows, corners = board_photo
    flat = ",".join(f"{v:.1f}" for v in corners.ravel())
    res = CliRunner().invoke(
        main, ["read", str(path), "--size", "13", "--corners", flat, "--reader", name]
    )
    assert res.exit_code == 0, res.output
    direct = read_photo(load_image(path), size=13, corners=corners, reader=name)
    assert res.output.splitlines() == direct.rows()
    got = " ".join(res.output.splitlines()).split()
    truth = " ".join(rows).split()
    assert [(a, b) for a, b in zip(truth, got, strict=True) if b not in ("?", a)] == []
    assert got.count("?") <= 3


def test_an_unknown_reader_is_a_usage_error(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path
) -> None:
    path, _, _ = board_photo
    for argv in (
        ["read", str(path), "--reader", "cnn"],
        ["eval-photos", str(tmp_path), "--reader", "cnn"],
        ["bench", "read", "--reader", "cnn"],
        ["track", f"dir:{tmp_path}", "--reader", "cnn"],
    ):
        res = CliRunner().invoke(main, argv)
        assert res.exit_code == 2, (argv, res.output)
        assert "unknown reader 'cnn'" in res.output and "Traceback" not in res.output


def test_read_json_with_corners(board_photo: tuple[Path, list[str], np.ndarray]) -> None:
    path, rows, corners = board_photo
    flat = ",".join(f"{v:.1f}" for v in corners.ravel())
    res = CliRunner().invoke(main, ["read", str(path), "--size", "13", "--corners", flat, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["rows"] == rows
    assert data["corners_from"] == "given"
    assert len(data["confidence"]) == 13 and all(0 <= c <= 1 for c in data["confidence"][0])
    assert data["seconds"] > 0


def test_read_with_a_profile(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path
) -> None:
    path, rows, _ = board_photo
    image = cv2.imread(str(path))
    prof = tmp_path / "p.json"
    calibrate(image, board="13", empty=False).save(prof)
    res = CliRunner().invoke(main, ["read", str(path), "--profile", str(prof)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == rows


def test_junk_file_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not a picture")
    res = CliRunner().invoke(main, ["read", str(junk)])
    assert res.exit_code != 0
    assert "not an image" in res.output
    assert "Traceback" not in res.output


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["read", str(tmp_path / "nope.png")])
    assert res.exit_code != 0
    assert "no such file" in res.output


def test_photo_without_a_board(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    table = cv2.GaussianBlur(rng.integers(60, 160, (480, 640, 3), dtype=np.uint8), (0, 0), 4)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), table)
    res = CliRunner().invoke(main, ["read", str(path)])
    assert res.exit_code != 0
    assert "no board" in res.output


def test_a_refused_grid_is_printed_as_options_to_give_back(tmp_path: Path) -> None:
    """Validation scene 520087 (13 x 13, tuned on): the grid check refuses the finder's grid,
    which lies on the lines. ``read`` still exits 1 with no position, but prints the grid as
    ``--size`` and ``--corners``; given back, they read the board."""
    import re

    from companion.vision.finder_eval import scene_cases

    (case,) = scene_cases([520_087], [])
    assert case.rows is not None
    path = tmp_path / "scene.png"
    cv2.imwrite(str(path), case.image)
    res = CliRunner().invoke(main, ["read", str(path), "--size", "13"])
    assert res.exit_code == 1 and "grid check" in res.output
    found = re.search(r"--size (\d+) --corners ([-\d.,]+)", res.output)
    assert found is not None and found.group(1) == "13"
    res = CliRunner().invoke(main, ["read", str(path), "--size", "13", "--corners", found[2]])
    assert res.exit_code == 0, res.output
    truth = [t for row in case.rows for t in row.split()]
    read = [t for row in res.output.splitlines() for t in row.split()]
    assert sum(a == b for a, b in zip(read, truth, strict=True)) >= 167


def test_rough_corners_are_snapped_when_asked(tmp_path: Path) -> None:
    """``--snap`` moves corners given a fifth of a spacing off onto the grid (validation scene
    520087, 13 x 13, tuned on), for ``read`` and ``score`` alike; it needs the corners and the
    size (a bad option otherwise, exit status 2)."""
    from companion.vision.finder_eval import scene_cases
    from companion.vision.geometry import spacing

    (case,) = scene_cases([520_087], [])
    assert case.corners is not None and case.rows is not None
    path = tmp_path / "scene.png"
    cv2.imwrite(str(path), case.image)
    truth = np.asarray(case.corners, np.float64)
    off = spacing(truth, 13) * np.array([(0.2, -0.15), (-0.15, 0.2), (0.15, 0.15), (-0.2, -0.2)])
    rough = ",".join(f"{v:.1f}" for v in (truth + off).ravel())
    res = CliRunner().invoke(
        main, ["read", str(path), "--size", "13", "--corners", rough, "--snap", "--json"]
    )
    assert res.exit_code == 0, res.output
    placed = np.asarray(json.loads(res.output)["corners"], np.float64)
    assert float(np.linalg.norm(placed - truth, axis=1).max()) < 0.2 * spacing(truth, 13)
    res = CliRunner().invoke(
        main, ["score", str(path), "--size", "13", "--corners", rough, "--snap", "--json"]
    )
    assert res.exit_code in (0, 3), res.output
    placed = np.asarray(json.loads(res.stdout)["reading"]["corners"], np.float64)
    assert float(np.linalg.norm(placed - truth, axis=1).max()) < 0.2 * spacing(truth, 13)
    for args in (["--corners", rough, "--snap"], ["--size", "13", "--snap"]):
        res = CliRunner().invoke(main, ["read", str(path), *args])
        assert res.exit_code == 2 and "--snap" in res.output


def test_bad_corners_and_bad_profile(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path
) -> None:
    path, _, _ = board_photo
    res = CliRunner().invoke(main, ["read", str(path), "--corners", "1,2,3"])
    assert res.exit_code != 0 and "eight numbers" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = CliRunner().invoke(main, ["read", str(path), "--profile", str(bad)])
    assert res.exit_code != 0 and "not JSON" in res.output


def test_eval_photos_on_a_rendered_folder(tmp_path: Path) -> None:
    corners = {}
    for k in range(3):
        rows = random_position(9, stones=0.3, seed=k)
        r = render_board(rows, size=9, width=640, height=480, seed=k, tilt=10 * k)
        cv2.imwrite(str(tmp_path / f"{k}.png"), r.image)
        (tmp_path / f"{k}.txt").write_text("\n".join(rows) + "\n")
        corners[f"{k}.png"] = r.corners[0].tolist()
    (tmp_path / "corners.json").write_text(json.dumps(corners))
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "100.00%" in res.output
    assert "confusion" in res.output
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path), "--use-corners", "--json"])
    data = json.loads(res.output[res.output.index("{") :])
    assert data["all"]["accuracy"] == 1.0
    assert data["all"]["photos"] == 3


def test_eval_photos_leaves_hidden_points_out(tmp_path: Path) -> None:
    """A folder's hidden.json (render-set writes one: points under a hand) takes those points
    out of the score; a hidden point read as a stone it is not is counted apart."""
    rows = random_position(9, stones=0.3, seed=4)
    r = render_board(rows, size=9, width=640, height=480, seed=4)
    cv2.imwrite(str(tmp_path / "0.png"), r.image)
    empty = [i for i, t in enumerate(r.tokens) if t == "."][:3]
    lie = [list(row.split()) for row in rows]
    for i in empty:  # the label lies about these points: hidden, they cost nothing
        lie[i // 9][i % 9] = "B"
    (tmp_path / "0.txt").write_text("\n".join(" ".join(row) for row in lie) + "\n")
    (tmp_path / "corners.json").write_text(json.dumps({"0.png": r.corners[0].tolist()}))
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path), "--use-corners", "--json"])
    before = json.loads(res.output[res.output.index("{") :])["all"]
    assert before["points"] == 81 and before["hidden"] == 0
    (tmp_path / "hidden.json").write_text(json.dumps({"0.png": empty}))
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path), "--use-corners", "--json"])
    assert res.exit_code == 0, res.output
    after = json.loads(res.output[res.output.index("{") :])["all"]
    assert after["points"] == 78 and after["hidden"] == 3 and after["right"] == before["right"]
    assert after["wrong"] + after["unknown"] == before["wrong"] + before["unknown"] - 3
    assert after["hidden_wrong"] == before["wrong"] - after["wrong"] >= 1
    (tmp_path / "hidden.json").write_text(json.dumps({"0.png": [81]}))
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path)])
    assert res.exit_code != 0 and "outside" in res.output


def test_eval_photos_empty_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["eval-photos", str(tmp_path)])
    assert res.exit_code != 0 and "no labelled photos" in res.output


def test_eval_renders_prints_a_line_per_board_look() -> None:
    from companion.commands.eval_renders import CASES

    res = CliRunner().invoke(main, ["eval-renders", "--seeds", "1"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].split()[:3] == ["look", "size", "options"]
    assert len(lines) == 1 + len(CASES)
    assert all(line.split()[0] in ("wood", "pale", "magnetic") for line in lines[1:])


def test_eval_renders_reads_with_the_reader_asked_for() -> None:
    res = CliRunner().invoke(main, ["eval-renders", "--factors", "1", "--reader", "net"])
    assert res.exit_code == 0, res.output
    assert "seeds 1000000..1000000" in res.output and "net reader" in res.output


def test_eval_renders_tuning_seeds_are_told_apart_from_the_test() -> None:
    """--first-seed below 10**6 renders a tuning set (said so); without --factors it is refused."""
    res = CliRunner().invoke(
        main, ["eval-renders", "--factors", "1", "--first-seed", "500000", "--reader", "net"]
    )
    assert res.exit_code == 0, res.output
    assert "1 fresh 3D tuning renders (seeds 500000..500000" in res.output
    res = CliRunner().invoke(main, ["eval-renders", "--first-seed", "5"])
    assert res.exit_code == 2 and "--first-seed goes with --factors" in res.output


def test_eval_renders_reads_a_scene_set() -> None:
    """--set pins the set's factors on every render (the model card's tuning sets): a shadows
    render is lit by the low lamp; without --factors the option is refused."""
    res = CliRunner().invoke(
        main,
        ["eval-renders", "--factors", "1", "--first-seed", "650000", "--set", "shadows"],
    )
    assert res.exit_code == 0, res.output
    assert "1 fresh 3D tuning shadows renders (seeds 650000..650000" in res.output
    light = res.output.split("\n\nlight\n")[1].split("\n\n")[0].splitlines()
    assert [row.split()[0] for row in light[1:]] == ["low"]
    res = CliRunner().invoke(main, ["eval-renders", "--set", "shadows"])
    assert res.exit_code == 2 and "--set goes with --factors" in res.output


def test_eval_renders_factor_tables_on_fresh_3d_renders() -> None:
    """--factors N: N 3D renders from seed 10**6 on (never trained on), a table per factor,
    every visible point counted once per table."""
    from companion.vision.read_stones import DEFAULT_READER

    res = CliRunner().invoke(main, ["eval-renders", "--factors", "2"])
    assert res.exit_code == 0, res.output
    assert "2 fresh 3D test renders (seeds 1000000..1000001" in res.output
    assert f"{DEFAULT_READER} reader" in res.output
    blocks = res.output.split("\n\n")[1:]
    titles = [b.splitlines()[0] for b in blocks]
    assert titles[0] == "all" and "light colour" in titles and "camera elevation (deg)" in titles
    assert "stones on the board" in titles and "hand" in titles and "focus blur" in titles
    for block in blocks:
        rows = [line.split() for line in block.splitlines()[2:]]
        assert sum(int(r[-8]) for r in rows) == 2  # boards


def test_bench_read_prints_figures() -> None:
    res = CliRunner().invoke(main, ["bench", "read", "--frames", "20", "--finds", "1"])
    assert res.exit_code == 0, res.output
    assert "frames/s" in res.output and "find board" in res.output
    assert "Raspberry Pi 4 estimate" in res.output


def test_read_a_stacked_pair_with_its_profile(tmp_path: Path) -> None:
    rows = random_position(9, stones=0.3, seed=8, layers=2)
    r = render_board(rows, size=9, layers=2, seed=8, fill=0.7)
    path = tmp_path / "stacked.png"
    cv2.imwrite(str(path), r.image)
    prof = tmp_path / "stacked.json"
    res = CliRunner().invoke(
        main, ["calibrate", str(path), "--board", "2x9x9", "--not-empty", "-o", str(prof)]
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["read", str(path), "--profile", str(prof)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [*rows[:9], "", *rows[9:]]


def test_read_warns_when_the_board_moved(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path
) -> None:
    path, _, _ = board_photo
    image = cv2.imread(str(path))
    prof = tmp_path / "p.json"
    calibrate(image, board="13", empty=False).save(prof)
    moved = tmp_path / "moved.png"
    cv2.imwrite(str(moved), np.roll(image, 25, axis=1))
    res = CliRunner().invoke(main, ["read", str(moved), "--profile", str(prof)])
    assert "moved" in res.stderr


def test_eval_photos_hold_out_names_a_source_of_the_folder() -> None:
    """--hold-out splits a leave-one-out run by source: only with --leave-one-out, and only a
    source the folder has (the error lists them); refused before any training starts."""
    from tests.support.paths import SHARED

    photos = SHARED / "data" / "photos"
    if not photos.is_dir():
        pytest.skip("../shared/data/photos is absent")
    res = CliRunner().invoke(main, ["eval-photos", str(photos), "--hold-out", "imago/t1"])
    assert res.exit_code == 2 and "--hold-out goes with --leave-one-out" in res.output
    res = CliRunner().invoke(
        main, ["eval-photos", str(photos), "--leave-one-out", "--hold-out", "nope"]
    )
    assert res.exit_code == 2 and "no source 'nope'" in res.output
    assert "imago/t2" in res.output and "Traceback" not in res.output


def _constant_model(path: Path, token: str) -> Path:
    """A stone model that reads every point as ``token`` whatever it sees (one convolution
    with zero weights and a bias), written with the onnx package (the train extra)."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from companion.vision.stone_net import CLASSES, PATCH

    bias = np.zeros(len(CLASSES), np.float32)
    bias[CLASSES.index(token)] = 10.0
    graph = helper.make_graph(
        [
            helper.make_node(
                "Conv", ["x", "w", "b"], ["y"], kernel_shape=[PATCH, PATCH], strides=[8, 8]
            )
        ],
        "constant",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", len(CLASSES), "p", "q"])],
        [
            numpy_helper.from_array(np.zeros((len(CLASSES), 3, PATCH, PATCH), np.float32), "w"),
            numpy_helper.from_array(bias, "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def test_read_with_a_model_reads_with_its_weights(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path
) -> None:
    """--model reaches the net: weights that see black everywhere read a black board, with
    corners given and with a profile; without --model the shipped weights read the truth."""
    path, rows, corners = board_photo
    black = _constant_model(tmp_path / "black.onnx", "B")
    flat = ",".join(f"{v:.1f}" for v in corners.ravel())
    prof = tmp_path / "p.json"
    calibrate(cv2.imread(str(path)), board="13", empty=False).save(prof)
    for where in (["--size", "13", "--corners", flat], ["--profile", str(prof)]):
        res = CliRunner().invoke(main, ["read", str(path), *where, "--model", str(black)])
        assert res.exit_code == 0, res.output
        assert res.output.splitlines() == [" ".join(["B"] * 13)] * 13
        res = CliRunner().invoke(main, ["read", str(path), *where, "--reader", "net"])
        assert res.exit_code == 0, res.output
        got = " ".join(res.output.splitlines()).split()
        truth = " ".join(rows).split()
        assert [(a, b) for a, b in zip(truth, got, strict=True) if b not in ("?", a)] == []


def test_eval_commands_read_with_the_model_given(tmp_path: Path) -> None:
    """eval-renders and eval-photos read with --model's weights and name them: weights that
    see white everywhere read no point unknown and many wrong (the shipped ones: ~4 % and
    ~0.1 %)."""
    white = _constant_model(tmp_path / "white.onnx", "W")
    res = CliRunner().invoke(main, ["eval-renders", "--factors", "1", "--model", str(white)])
    assert res.exit_code == 0, res.output
    assert f"net reader with {white}" in res.output
    _name, _boards, _points, _right, unknown, wrong, *_ = (
        res.output.split("\n\n")[1].splitlines()[2].split()
    )
    assert unknown == "0.00%" and float(wrong.rstrip("%")) > 20
    folder = tmp_path / "photos"
    folder.mkdir()
    rows = random_position(9, stones=0.3, seed=5)
    r = render_board(rows, size=9, width=480, height=360, seed=5)
    cv2.imwrite(str(folder / "a.png"), r.image)
    (folder / "a.txt").write_text("\n".join(rows) + "\n")
    res = CliRunner().invoke(main, ["eval-photos", str(folder), "--json", "--model", str(white)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["model"] == str(white) and out["reader"] == "net"
    assert out["all"]["wrong"] == sum(t != "W" for t in " ".join(rows).split())


@pytest.mark.parametrize("command", ["read", "eval-renders", "eval-photos"])
def test_a_bad_model_is_a_usage_error(
    board_photo: tuple[Path, list[str], np.ndarray], tmp_path: Path, command: str
) -> None:
    """A missing file, a file that is not ONNX, an ONNX network that is not a stone classifier
    (the board proposer's) and --model with the classic reader: exit 2 with a clear word, before
    anything is read."""
    from importlib import resources

    path, _, _ = board_photo
    head = {"read": ["read", str(path)], "eval-renders": ["eval-renders"]}.get(
        command, ["eval-photos", str(tmp_path)]
    )
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"x" * 100)
    board = tmp_path / "board.onnx"
    board.write_bytes((resources.files("companion.vision") / "models" / "board.onnx").read_bytes())
    shipped = resources.files("companion.vision") / "models" / "stones.onnx"
    for model, extra, words in (
        (tmp_path / "missing.onnx", [], "cannot read"),
        (junk, [], "is not a stone model"),
        (board, [], "is not a stone model"),
        (shipped, ["--reader", "classic"], "net reader"),
    ):
        res = CliRunner().invoke(main, [*head, "--model", str(model), *extra])
        assert res.exit_code == 2, (model, res.output)
        assert words in res.output and "Traceback" not in res.output


def _two_source_folder(root: Path) -> Path:
    """Photos of two sources ("a/one", "b/two"), one rendered board each, with their corners."""
    for k, group in enumerate(("a/one", "b/two")):
        folder = root / group
        folder.mkdir(parents=True)
        rows = random_position(9, stones=0.3, seed=k)
        r = render_board(rows, size=9, width=640, height=480, seed=k)
        cv2.imwrite(str(folder / "0.png"), r.image)
        (folder / "0.txt").write_text("\n".join(rows) + "\n")
        (folder / "corners.json").write_text(json.dumps({"0.png": r.corners[0].tolist()}))
    return root


def test_eval_photos_saves_the_left_out_models_and_reads_with_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--save-models writes each left-out model (trained on the scene sets asked for) as without-<source>.onnx ('/' as '-');
    --saved-models reads each source with its saved model instead of training, giving the same
    table. Training is replaced by a stand-in that "trains" a different model per source (the
    bundled weights for "a/one", junk for "b/two"), so the files must hold what was trained for
    their own source. A missing saved model is a clear error."""
    pytest.importorskip("torch")
    from types import SimpleNamespace

    from companion.commands import train_reader as cmd_tr
    from companion.vision import train_reader as tr
    from companion.vision.stone_net import _packaged

    folder = _two_source_folder(tmp_path / "photos")
    items = [SimpleNamespace(source=s) for s in ("a/one", "b/two") for _ in range(5)]
    asked: dict[str, object] = {}

    def fake_load(*a: object, **k: object) -> list[SimpleNamespace]:
        asked.update(k["extra"])  # type: ignore[call-overload]
        return items

    monkeypatch.setattr(cmd_tr, "load_items", fake_load)

    def fake_train(train_items: list[SimpleNamespace], *a: object, **k: object) -> object:
        (kept,) = {it.source for it in train_items}  # trained without the left-out source
        return SimpleNamespace(temperature=1.0, kept=kept)

    monkeypatch.setattr(tr, "train", fake_train)
    made = {"b/two": b"trained without a/one", "a/one": _packaged()}  # by the source kept
    monkeypatch.setattr(tr, "export_onnx", lambda t: made[t.kept])
    saved = tmp_path / "models"
    args = ["eval-photos", str(folder), "--use-corners", "--leave-one-out"]
    res = CliRunner().invoke(
        main,
        [
            *args,
            *("--hold-out", "a/one", "--save-models", str(saved), "--glare", "3"),
            *("--hands", "2", "--crowded", "4", "--shadows", "5"),
        ],
    )
    # train-reader's extra scene sets too
    assert (asked["glare"], asked["hands"], asked["crowded"], asked["shadows"]) == (3, 2, 4, 5)
    # the model trained without a/one is junk: reading a/one with it fails clearly
    assert res.exit_code == 1 and "cannot be loaded" in res.output, res.output
    assert (saved / "without-a-one.onnx").read_bytes() == b"trained without a/one"
    res = CliRunner().invoke(main, [*args, "--hold-out", "b/two", "--save-models", str(saved)])
    assert res.exit_code == 0, res.output
    assert (saved / "without-b-two.onnx").read_bytes() == _packaged()

    def loo_table(out: str) -> str:  # the per-source lines and the bar sweep (no timings)
        return out[out.index("leave-one-source-out") : out.index(" photos under")]

    table = loo_table(res.output)
    again = CliRunner().invoke(main, [*args, "--hold-out", "b/two", "--saved-models", str(saved)])
    assert again.exit_code == 0, again.output
    assert loo_table(again.output) == table
    (saved / "without-b-two.onnx").unlink()
    res = CliRunner().invoke(main, [*args, "--hold-out", "b/two", "--saved-models", str(saved)])
    assert res.exit_code == 1 and "no saved model without b/two" in res.output
    res = CliRunner().invoke(main, ["eval-photos", str(folder), "--save-models", str(saved)])
    assert res.exit_code == 2 and "go with --leave-one-out" in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["eval-renders", "--factors", "1"],
        ["eval-finder", "--renders", "1", "--photos", "/nonexistent", "--alter", ""],
        ["train-board", "--scenes", "1"],
        ["train-board", "--scenes", "0", "--hands", "1"],
    ],
)
def test_scene_evaluations_refuse_to_run_without_the_game_records(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """Without the real records every scene would be a random playout: other pictures under
    the same seeds, so the command stops with a clear message instead of a figure that only
    looks comparable (a copy of the code away from ../shared once did just that)."""
    from companion.vision.scene import positions

    monkeypatch.setattr(positions, "games_dir", lambda: None)
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1, res.output
    assert "game records are not found" in res.output and "Traceback" not in res.output


def test_flat_finder_renders_refuse_a_missing_games_folder(tmp_path: Path) -> None:
    cmd = ["eval-finder", "--renderer", "flat", "--renders", "1", "--photos", "/nonexistent"]
    res = CliRunner().invoke(main, [*cmd, "--games", str(tmp_path / "none")])
    assert res.exit_code == 2 and "no game records here" in res.output


def test_training_items_refuse_renders_without_the_game_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import click

    from companion.commands import train_reader as tr
    from companion.vision.scene import positions

    monkeypatch.setattr(positions, "games_dir", lambda: None)
    with pytest.raises(click.ClickException, match="game records are not found"):
        tr.load_items(None, 1, 0, None)
    assert tr.load_items(None, 0, 0, None) == []  # nothing rendered: nothing needed
