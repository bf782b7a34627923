"""Tiny inputs that used to exhaust memory or raise tracebacks (issue 15, items 7 and 8).

One test per point: each input is refused with our own error and a clear message, or read
safely, and never allocates what its header or a count claims before checking it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion import limits
from companion.cli import main
from companion.errors import (
    CalibrationError,
    HubError,
    MapError,
    PinMapError,
    PositionError,
    RecordError,
    SourceEnded,
    VisionError,
)
from companion.games import topology
from companion.games.beyond_chess_notation import load_setup, parse_setup
from companion.games.rules import new_game
from companion.games.topology import from_spec, parse_map
from companion.hub import topics
from companion.records.chess_record import load_record as load_chess_record
from companion.records.chess_record import read_record
from companion.records.json_record import read_json_record
from companion.records.position import load_position
from companion.records.sgf import read_sgf
from companion.sensors.pinmap import read_pinmap
from companion.sources import DirSource
from companion.vision.imagefile import image_size, load_image
from companion.vision.profile import read_profile

REPO = Path(__file__).resolve().parents[1]
PROFILE = REPO / "calibration" / "example-9x9-magnetic.json"
PINMAP = REPO / "hardware" / "pinmap.toml"


def _jpeg(width: int, height: int, *, claim: tuple[int, int] | None = None, pad: int = 0) -> bytes:
    """A real JPEG; ``claim`` rewrites the size its frame header gives; ``pad`` trailing bytes."""
    ok, buf = cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    if claim is not None:
        sof = data.index(b"\xff\xc0")
        data[sof + 5 : sof + 9] = claim[1].to_bytes(2, "big") + claim[0].to_bytes(2, "big")
    return bytes(data) + b"\0" * pad


def _peak_kb(call: object) -> float:
    """Peak Python allocation (KB) while ``call`` runs (it is expected to raise)."""
    tracemalloc.start()
    with contextlib.suppress(Exception):  # the caller checks the error separately
        call()  # type: ignore[operator]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


# ---------------------------------------------------------------------- item 7: memory


def test_a_jpeg_claiming_30000x30000_is_refused_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    path.write_bytes(_jpeg(64, 48, claim=(30000, 30000), pad=517 * 1024))
    assert image_size(path.read_bytes()) == (30000, 30000)
    with pytest.raises(VisionError, match="30000x30000 is over the limit of 50 MP"):
        load_image(path)


@pytest.mark.parametrize("suffix", [".png", ".bmp", ".webp", ".tiff", ".jpg"])
def test_the_size_is_read_from_each_header_we_decode(tmp_path: Path, suffix: str) -> None:
    ok, buf = cv2.imencode(suffix, np.zeros((37, 53, 3), np.uint8))
    assert ok
    assert image_size(buf.tobytes()) == (53, 37)
    path = tmp_path / f"x{suffix}"
    path.write_bytes(buf.tobytes())
    assert load_image(path).shape == (37, 53, 3)


def test_an_image_format_we_cannot_size_first_is_refused(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".ppm", np.zeros((10, 10, 3), np.uint8))
    assert ok
    path = tmp_path / "x.jpg"
    path.write_bytes(buf.tobytes())
    with pytest.raises(VisionError, match="not an image file we read"):
        load_image(path)


@pytest.mark.timeout(30)
def test_a_folder_source_skips_a_fifo_and_a_huge_picture_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(_jpeg(64, 48))
    os.mkfifo(tmp_path / "b.jpg")  # opened for reading, it would wait for a writer forever
    (tmp_path / "c.jpg").write_bytes(_jpeg(64, 48, claim=(30000, 30000), pad=517 * 1024))
    (tmp_path / "d.jpg").write_bytes(_jpeg(80, 60))
    with DirSource(tmp_path) as source:
        names = [source.read(), source.read()]
        with pytest.raises(SourceEnded):
            source.read()
    assert [f.image.shape for f in names] == [(48, 64, 3), (60, 80, 3)]
    assert [p.name for p in source.skipped] == ["b.jpg", "c.jpg"]


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "b.jpg"
    os.mkfifo(fifo)
    with pytest.raises(VisionError, match="not a regular file"):
        load_image(fifo)


@pytest.mark.parametrize(
    ("load", "error"),
    [
        (topology.load_map, MapError),
        (load_position, RecordError),
        (load_chess_record, RecordError),
        (load_setup, PositionError),
    ],
)
def test_text_files_name_their_first_bad_byte_and_take_a_bom(
    load: Any, error: type[Exception], tmp_path: Path
) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9 au lait")
    with pytest.raises(error, match=r"latin1.txt: not UTF-8 text \(bad byte at 3\)"):
        load(bad)
    marked = tmp_path / "bom.txt"
    marked.write_bytes(b"\xef\xbb\xbfhello")
    assert limits.read_text(marked, limit=100, error=MapError) == "hello"


def test_a_173_byte_record_with_100000_layers_is_refused_before_allocating() -> None:
    text = json.dumps(
        {
            "format": "companion-game",
            "version": 1,
            "board": {"kind": "stacked", "layers": 100000, "width": 25, "height": 25},
            "players": [{}, {}],
        }
    )
    assert len(text) <= 173
    with pytest.raises(RecordError, match=r"layers 100000 is outside 1\.\.8"):
        read_json_record(text)
    assert _peak_kb(lambda: read_json_record(text)) < 1024


def test_a_profile_with_100000_layers_is_refused_before_allocating() -> None:
    data = json.loads(PROFILE.read_text())
    data["board"] = "100000x9x9"
    text = json.dumps(data)
    with pytest.raises(CalibrationError, match="100000 layers"):
        read_profile(text)
    assert _peak_kb(lambda: read_profile(text)) < 4096


def test_new_game_on_a_200x25x25_board_is_refused_at_once() -> None:
    with pytest.raises(MapError, match=r"200 layers: a stacked board has 1\.\.8"):
        new_game("chinese", from_spec("200x25x25"))
    assert _peak_kb(lambda: from_spec("200x25x25")) < 256
    assert len(new_game("chinese", from_spec("8x25x25")).board) == 5000


# ---------------------------------------------------------------------- item 8: tracebacks


@pytest.mark.parametrize(
    "codec", ["rot13", "hex", "undefined", "base64", "zlib", "bz2", "uu", "punycode", "idna"]
)
def test_sgf_ca_naming_a_codec_that_is_not_a_charset_is_an_unknown_encoding(codec: str) -> None:
    record = read_sgf(f"(;GM[1]SZ[9]CA[{codec}]PB[Jürgen];B[ee])".encode())
    assert any("unknown character set" in w for w in record.warnings)
    assert record.names[0] == "Jürgen"  # read as UTF-8
    assert len(record.moves) == 1


def test_sgf_ca_naming_a_real_charset_still_decodes() -> None:
    record = read_sgf("(;GM[1]CA[ISO-8859-1]PB[Jürgen];B[dd])".encode("latin-1"))
    assert record.names[0] == "Jürgen"


@pytest.mark.parametrize(
    "sgf",
    [
        b"(;GM[1]XSTONES[" + b"9" * 400 + b"];B[aa])",
        b"(;GM[1];B[aa]OB[" + b"9" * 400 + b"])",
        b"(;GM[1]TM[" + b"9" * 400 + b"];B[aa])",
        b"(;GM[1]KM[1e400];B[aa])",
        b"(;GM[1];B[aa]BL[-" + b"9" * 5000 + b"])",
        b"(;GM[1];B[aa]XT[1e400])",
    ],
)
def test_sgf_numbers_out_of_range_are_refused(sgf: bytes) -> None:
    with pytest.raises(RecordError, match="within"):
        read_sgf(sgf)


def test_sgf_move_count_and_size_are_bounded() -> None:
    with pytest.raises(RecordError, match="at most 10000"):
        read_sgf(b"(;GM[1]SZ[9]" + b";B[]" * 10_001 + b")")
    with pytest.raises(RecordError, match="over the SGF limit"):
        read_sgf(b"(;GM[1]C[" + b"x" * (1024 * 1024) + b"])")
    with pytest.raises(RecordError, match="more than the board has points"):
        read_sgf(b"(;GM[1]SZ[9]AB" + b"[aa:ii]" * 82 + b")")


JSON_JUNK = [
    ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    ('{"a":' * 40 + "1" + "}" * 40, "nested deeper than 32"),
    ('{"version": ' + "9" * 5000 + "}", "too large"),
    ('{"version": 1e400}', "out of range"),
    ('{"version": -Infinity}', "not a number JSON allows"),
    ('{"version": NaN}', "not a number JSON allows"),
]


@pytest.mark.parametrize(("text", "message"), JSON_JUNK)
def test_json_records_refuse_deep_nesting_and_huge_numbers(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_json_record(text)


@pytest.mark.parametrize(("text", "message"), JSON_JUNK)
def test_maps_refuse_deep_nesting_and_huge_numbers(text: str, message: str) -> None:
    with pytest.raises(MapError, match=message):
        parse_map(text)


def _map(spots: int) -> str:
    return json.dumps(
        {
            "format": "companion-map",
            "version": 1,
            "spots": [{"id": f"s{i}", "x": i % 100, "y": i // 100} for i in range(spots)],
            "links": [[f"s{i}", f"s{i + 1}"] for i in range(spots - 1)],
        }
    )


def test_a_20000_spot_map_loads_without_a_text_search_per_spot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_search(text: str, needle: str) -> str:
        raise AssertionError("the line of a spot is looked up only for an error message")

    monkeypatch.setattr(topology, "_where", no_search)
    assert len(parse_map(_map(20_000))) == 20_000


def test_maps_bound_spot_count_and_coordinates() -> None:
    with pytest.raises(MapError, match="at most 20000"):
        parse_map(_map(20_001))
    with pytest.raises(MapError, match="x and y must be numbers within"):
        parse_map(_map(3).replace('"x": 1,', '"x": 2e6,'))
    with pytest.raises(MapError, match="out of range"):
        parse_map(_map(3).replace('"x": 1,', '"x": 1e300,'))


def _profile(change: object) -> str:
    data = json.loads(PROFILE.read_text())
    change(data)  # type: ignore[operator]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"format": "\xff"}', "not UTF-8"),
        (_profile(lambda d: d.update(image_size="big")), "image_size: must be a list"),
        (_profile(lambda d: d.update(image_size=[1280.5, 720])), "must be a whole number"),
        (_profile(lambda d: d["regions"][0].update(width="9")), "width: must be a whole number"),
        (_profile(lambda d: d.update(regions={"kind": "grid"})), "regions: must be a list"),
        (_profile(lambda d: d.update(light=[1])), "light: must be an object"),
        (_profile(lambda d: d["regions"][0]["corners"][0].__setitem__(0, 1e308)), "out of range"),
        (_profile(lambda d: d["regions"][0]["corners"][0].__setitem__(0, 1e9)), "outside"),
        (
            _profile(lambda d: d["regions"][0]["corners"][1].__setitem__(1, None)),
            "must be a number",
        ),
        (_profile(lambda d: d.update(name=["x"])), "name: must be text"),
    ],
)
def test_profiles_refuse_bad_bytes_types_and_numbers(data: str | bytes, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        read_profile(data)


def test_a_profile_spot_at_minus_infinity_is_refused() -> None:
    spots = {
        "format": "companion-vision-profile",
        "version": 1,
        "board": "hex-5",
        "image_size": [1280, 720],
        "regions": [{"kind": "spots", "spots": [[1, 2]] * 60 + [[-1, 0]], "spacing": 30}],
    }
    text = json.dumps(spots).replace("[-1, 0]", "[-Infinity, 0]")
    with pytest.raises(CalibrationError, match="-Infinity is not a number JSON allows"):
        read_profile(text)


def _pinmap(old: str, new: str) -> bytes:
    text = PINMAP.read_text()
    assert old in text
    return text.replace(old, new, 1).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[hall]\nsize = 9\nname = '\xff'\n", "not UTF-8"),
        (b"[hall]\nsize = 9\nselect = [5, 6, 13, 19]\nadc = [1, 2]\n", "must be tables"),
        (_pinmap("size = 9 ", "size = [9] "), "size must be an integer"),
        (_pinmap("select = [5, 6, 13, 19]", "select = [[5], 6, 13, 19]"), "not a GPIO number"),
        (_pinmap("port = 0", "port = [0]"), "port must be an integer"),
        (_pinmap("port = 0", "port = -1"), "port must be 0..6, not -1"),
        (_pinmap("settle_us = 5 ", "settle_us = inf "), "settle_us must be a number"),
        (_pinmap("samples = 3 ", "samples = " + "9" * 5000 + " "), "not a usable TOML"),
        (_pinmap("samples = 3 ", "samples = " + "[" * 5000 + " "), "TOML"),
    ],
)
def test_pin_maps_refuse_bad_bytes_types_and_numbers(data: bytes, message: str) -> None:
    with pytest.raises(PinMapError, match=message):
        read_pinmap(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. e2e4 {[%clk " + "9" * 400 + ":00:00]} *", "unreadable clock"),
        ("1. e" + "9" * 400 + "e4 *", "is not a turn"),
        ("1. [" + "9" * 5000 + ",1]e4 *", "is not a turn"),
        ('[Position "8/8/8/8/8/8/8/K6k w - - 0 ' + "9" * 400 + '"]\n\n*', "move counters"),
        ('[Position "' + "9" * 5000 + 'K/k w - - 0 1"]\n\n*', "Position tag"),
        ('[Position "K/k@' + "9" * 400 + ',0 w"]\n\n*', "origin"),
    ],
)
def test_chess_records_refuse_huge_clocks_and_numbers(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        record = read_record(text)
        record.start()


def test_chess_setups_are_bounded() -> None:
    with pytest.raises(PositionError, match="at most 65536 characters"):
        parse_setup("black:\n" + "." * 70_000 + "\nwhite:\nK\n")


@pytest.mark.parametrize(
    "payload",
    [
        b'{"v": 1, "kind": "status", "table": "t", "round": 1, "sent": '
        + b"9" * 5000
        + b', "online": true}',
        b'{"v": 1, "kind": "status", "table": "t", "round": 1, "sent": 1, "online": true, "x": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}",
        b"[" * 100_000,
        b'{"v": 1, "kind": "status", "table": "t", "round": 1, "sent": 1e400, "online": true}',
        b" " * (limits.MB * 5),
    ],
)
def test_mqtt_status_payloads_raise_only_hub_errors(payload: bytes) -> None:
    with pytest.raises(HubError):
        topics.decode("companion/v1/tables/t/status", payload)


def test_an_mqtt_record_with_1e400_moves_is_a_hub_error() -> None:
    body = {
        "v": 1, "kind": "record", "table": "t", "round": 1, "sent": 1, "game": 2, "seq": 9,
        "format": "sgf", "filename": "t.sgf", "text": "(;)", "moves": 1,
    }  # fmt: skip
    payload = json.dumps(body).replace('"moves": 1', '"moves": 1e400').encode()
    with pytest.raises(HubError, match="out of range"):
        topics.decode("companion/v1/records/1/t/2", payload)
    body["moves"] = [1]
    with pytest.raises(HubError, match="'moves' is \\[1\\], not a int"):
        topics.decode("companion/v1/records/1/t/2", json.dumps(body).encode())


# ---------------------------------------------------------------------- the command line


def _fixtures(tmp: Path) -> dict[str, Path]:
    files = {
        "huge.sgf": b"(;GM[1]XSTONES[" + b"9" * 400 + b"];B[aa])",
        "deep.json": b'{"a":' * 100_000,
        "clock.txt": b"1. e2e4 {[%clk " + b"9" * 400 + b":00:00]} *",
        "huge.jpg": _jpeg(64, 48, claim=(30000, 30000), pad=1024),
        "board.png": cv2.imencode(".png", np.full((60, 80, 3), 200, np.uint8))[1].tobytes(),
        "profile.json": _profile(
            lambda d: d["regions"][0]["corners"][0].__setitem__(0, 1e308)
        ).encode(),
        "pinmap.toml": _pinmap("port = 0", "port = -1"),
    }
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    os.mkfifo(tmp / "fifo.txt")
    return {name: tmp / name for name in [*files, "fifo.txt"]}


@pytest.mark.timeout(60)
def test_every_command_gives_a_clean_message_and_a_nonzero_exit(tmp_path: Path) -> None:
    f = {k: str(v) for k, v in _fixtures(tmp_path).items()}
    cases = [
        (["replay", f["huge.sgf"]], "XSTONES"),
        (["replay", f["fifo.txt"]], "not a regular file"),
        (["estimate", f["deep.json"]], "nested deeper"),
        (["chess", "replay", f["clock.txt"]], "unreadable clock"),
        (["chess", "setup", f["fifo.txt"]], "not a regular file"),
        (["read", f["huge.jpg"]], "over the limit of 50 MP"),
        (["read", f["board.png"], "--profile", f["profile.json"]], "out of range"),
        (["read", f["board.png"], "--corners", "1e308,0,1e308,1,5,5,0,5"], "within +-100000"),
        (["calibrate", f["board.png"], "--corners", "nan,0,1,1,1,1,1,1", "-o", "x"], "within"),
        (["calibrate", f["board.png"], "--board", "200x25x25", "-o", "x.json"], "200 layers"),
        (["sensors", "scan", "--mock", "--pinmap", f["pinmap.toml"]], "port must be 0..6"),
    ]
    for args, message in cases:
        res = CliRunner().invoke(main, args)
        assert res.exit_code not in (0, None), args
        assert message in res.output, (args, res.output)
        assert "Traceback" not in res.output, args
        assert res.exception is None or isinstance(res.exception, SystemExit), args
