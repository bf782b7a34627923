"""The ``/score`` routes over Flask's test client: reading on the worker, the count with and
without dead stones, size checks before decoding, junk bodies, the PIN for saving, the saved
position's page, photo and JSON."""

from __future__ import annotations

import io
import json
import re
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.journal import Journal
from companion.scored import PHOTO_SIDE
from companion.table.session import TableSession
from companion.vision.render import render_board
from companion.web.app import create_app
from companion.web.score import MAX_PHOTO_BYTES, ScoreJobs
from tests.support.boards import DEAD_H6, FINISHED_9

PIN = "975310"
TOKENS = [t for row in FINISHED_9 for t in row.split()]


@pytest.fixture(scope="module")
def photo() -> bytes:
    # Bigger than the stored bound, so saving must scale it down.
    image = render_board(FINISHED_9, seed=5, width=2400, height=1800).image
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return bytes(data.tobytes())


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableSession]:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    yield table
    table.journal.close()


@pytest.fixture
def client(table: TableSession) -> FlaskClient:
    app = create_app(table, pin=PIN)
    app.testing = True
    return app.test_client()


def token(client: FlaskClient) -> dict[str, str]:
    match = re.search(
        r'name="csrf-token" content="([^"]+)"', client.get("/score").get_data(as_text=True)
    )
    assert match
    return {"X-CSRF-Token": match.group(1)}


def login(client: FlaskClient) -> dict[str, str]:
    form = {"pin": PIN, "csrf": token(client)["X-CSRF-Token"]}
    assert client.post("/login", data=form).status_code == 302
    return token(client)


def answer(client: FlaskClient, resp: Any) -> tuple[int, dict[str, Any]]:
    """Follow a 202 job to its answer."""
    data = resp.get_json()
    deadline = time.monotonic() + 30
    while resp.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.05)
        resp = client.get(f"/api/score/jobs/{data['job']}")
    return resp.status_code, resp.get_json()


def test_a_photo_is_read_on_the_worker_and_counted(client: FlaskClient, photo: bytes) -> None:
    headers = token(client)
    resp = client.post("/api/score/read?size=9", data=photo, headers=headers)
    assert resp.status_code == 202 and resp.get_json()["pending"]
    status, read = answer(client, resp)
    assert status == 200 and read["rows"] == FINISHED_9
    assert read["image"] == [PHOTO_SIDE, 1200]  # read at the size it would be stored
    assert len(read["points"]) == 81
    resp = client.post("/api/score/count", json={"size": 9, "tokens": TOKENS}, headers=headers)
    status, counted = answer(client, resp)
    assert status == 200 and counted["dead"] == ["H6"] and counted["suggested"]
    assert counted["result"] == "W+34.5"
    # With the dead stones given the count comes at once.
    body = {"size": 9, "tokens": TOKENS, "rules": "japanese", "dead": [], "prisoners": [2, 0]}
    resp = client.post("/api/score/count", json=body, headers=headers)
    assert resp.status_code == 200
    assert not resp.get_json()["suggested"] and resp.get_json()["dead"] == []


def test_reading_and_counting_need_the_page_token_but_no_pin(
    client: FlaskClient, photo: bytes
) -> None:
    assert client.post("/api/score/read", data=photo).status_code == 403
    body = {"size": 9, "tokens": TOKENS, "dead": []}
    assert client.post("/api/score/count", json=body).status_code == 403
    assert client.post("/api/score/count", json=body, headers=token(client)).status_code == 200


def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", len(ihdr))
        + chunk
        + struct.pack(">I", zlib.crc32(chunk))
    )


def test_photos_are_size_checked_before_decoding(client: FlaskClient) -> None:
    headers = token(client)
    huge = client.post("/api/score/read", data=_png_header(30000, 30000), headers=headers)
    assert huge.status_code == 413 and "30000x30000" in huge.get_json()["error"]
    big = client.post("/api/score/read", data=b"\xff\xd8" + b"0" * MAX_PHOTO_BYTES, headers=headers)
    assert big.status_code == 413 and "MB" in big.get_json()["error"]
    junk = client.post("/api/score/read", data=b"GIF89a not a photo", headers=headers)
    assert junk.status_code == 400 and "not a photo" in junk.get_json()["error"]
    empty = client.post("/api/score/read", data=b"", headers=headers)
    assert empty.status_code == 400 and "no photo" in empty.get_json()["error"]
    bad_size = client.post("/api/score/read?size=99", data=b"x", headers=headers)
    assert bad_size.status_code == 400


def test_a_photo_with_no_board_is_a_refusal_not_a_reading(client: FlaskClient) -> None:
    _, blank = cv2.imencode(".png", np.full((480, 640, 3), 128, np.uint8))
    resp = client.post("/api/score/read", data=blank.tobytes(), headers=token(client))
    status, data = answer(client, resp)
    assert status == 422 and not data["ok"] and "board" in data["error"]


def test_corners_placed_by_hand_are_snapped_and_read(client: FlaskClient) -> None:
    """The player's four taps (shares of the photo's sides, a fifth of a spacing off, in any
    order) are snapped onto the grid and the board read with them, not found."""
    rendered = render_board(FINISHED_9, seed=5, width=1200, height=900, tilt=10, rotate=3)
    _, jpeg = cv2.imencode(".jpg", rendered.image)
    truth = rendered.corners[0]
    step = float(np.linalg.norm(truth[1] - truth[0])) / 8
    taps = truth + step * np.array([(0.2, 0.15), (-0.2, 0.2), (0.15, -0.2), (-0.2, -0.15)])
    shares = (taps / [1200, 900])[[3, 1, 0, 2]].ravel()
    query = "/api/score/read?size=9&corners=" + ",".join(f"{v:.5f}" for v in shares)
    status, read = answer(client, client.post(query, data=jpeg.tobytes(), headers=token(client)))
    assert status == 200 and read["corners_from"] == "given"
    assert read["rows"] == FINISHED_9
    scale = read["image"][0] / 1200
    placed = np.asarray(read["corners"], np.float64) / scale
    assert float(np.linalg.norm(placed - truth, axis=1).max()) < 0.12 * step


def test_a_refused_grid_is_offered_and_taken_as_corners(client: FlaskClient) -> None:
    """Validation scene 520087 (13 x 13, tuned on): the grid check refuses the finder's grid,
    which lies on the lines. The refusal carries it (corners and every line as shares, to
    draw), and sent back as corners placed by hand it reads the board."""
    from companion.vision.finder_eval import corner_error, scene_cases

    (case,) = scene_cases([520_087], [])
    assert case.corners is not None and case.rows is not None
    _, png = cv2.imencode(".png", case.image)
    headers = token(client)
    resp = client.post("/api/score/read?size=13", data=png.tobytes(), headers=headers)
    status, data = answer(client, resp)
    assert status == 422 and "grid check" in data["error"]
    offered = data["suggested"]
    assert offered["size"] == 13 and len(offered["lines"]) == 26
    w, h = data["image"]
    corners = np.asarray(offered["corners"], np.float64) * [w, h]
    scale = w / case.image.shape[1]
    assert corner_error(corners / scale, case.corners, 13) < 0.1
    top = np.asarray(offered["lines"][0], np.float64).reshape(2, 2)  # row 0: TL to TR
    assert np.allclose(top, np.asarray(offered["corners"])[:2], atol=1e-4)
    query = "/api/score/read?size=13&corners=" + ",".join(
        f"{v:.5f}" for v in np.ravel(offered["corners"])
    )
    status, read = answer(client, client.post(query, data=png.tobytes(), headers=headers))
    assert status == 200 and read["corners_from"] == "given"
    truth = [t for row in case.rows for t in row.split()]
    right = sum(a == b for a, b in zip(read["tokens"], truth, strict=True))
    assert right >= 167, f"{right} of 169 read right with the offered grid"


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("size=9&corners=0.1,0.1,0.9,0.1,0.9,0.9", "eight numbers"),
        ("size=9&corners=a,b,c,d,e,f,g,h", "eight numbers"),
        ("size=9&corners=0.1,0.1,0.9,0.1,0.9,0.9,0.1,nan", "from 0 to 1"),
        ("size=9&corners=0.1,0.1,0.9,0.1,0.9,1.5,0.1,0.9", "from 0 to 1"),
        ("size=9&corners=" + ",".join(["0.5"] * 100), "too long"),
        ("size=auto&corners=0.1,0.1,0.9,0.1,0.9,0.9,0.1,0.9", "size"),
        ("corners=0.1,0.1,0.9,0.1,0.9,0.9,0.1,0.9", "size"),
    ],
)
def test_junk_corners_get_a_reason_before_the_photo_is_read(
    client: FlaskClient, query: str, why: str
) -> None:
    resp = client.post("/api/score/read?" + query, data=b"x", headers=token(client))
    assert resp.status_code == 400 and why in resp.get_json()["error"]


def test_corners_enclosing_nothing_are_a_refusal(client: FlaskClient, photo: bytes) -> None:
    query = "/api/score/read?size=9&corners=0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5"
    status, data = answer(client, client.post(query, data=photo, headers=token(client)))
    assert status == 422 and "no area" in data["error"]


@pytest.mark.parametrize(
    "body",
    [
        None,
        [],
        {"size": 9},
        {"size": "9", "tokens": TOKENS},
        {"size": 9, "tokens": [1] * 81},
        {"size": 9, "tokens": TOKENS[:80]},
        {"size": 9, "tokens": ["?"] * 81, "dead": []},
        {"size": 9, "tokens": TOKENS, "rules": "gobeyond", "dead": []},
        {"size": 9, "tokens": TOKENS, "komi": "lots", "dead": []},
        {"size": 9, "tokens": TOKENS, "komi": 1e300, "dead": []},
        {"size": 9, "tokens": TOKENS, "prisoners": [1], "dead": []},
        {"size": 9, "tokens": TOKENS, "dead": [0]},
        {"size": 9, "tokens": TOKENS, "dead": ["A9"]},
        {"size": 9, "tokens": TOKENS, "dead": [True]},
        {"size": 9, "tokens": TOKENS, "dead": 0},
        {"size": 9, "tokens": TOKENS, "dead": ""},
        {"size": 9, "tokens": TOKENS, "dead": [], "dame": 0},
        {"size": True, "tokens": TOKENS, "dead": []},
        {"size": 9, "tokens": TOKENS, "dead": [], "dame": [2]},
        {"size": 1000, "tokens": TOKENS, "dead": []},
    ],
)
def test_junk_count_requests_get_a_reason(client: FlaskClient, body: Any) -> None:
    resp = client.post("/api/score/count", json=body, headers=token(client))
    assert resp.status_code == 422, resp.get_json()
    assert resp.get_json()["error"]


def test_saving_needs_the_pin_and_keeps_a_bounded_photo(
    client: FlaskClient, photo: bytes, table: TableSession
) -> None:
    count = {"size": 9, "tokens": TOKENS, "rules": "chinese", "dead": [DEAD_H6], "dame": []}

    def form(body: dict[str, Any] = count) -> dict[str, Any]:
        """A fresh file object per post."""
        return {"photo": (io.BytesIO(photo), "board.jpg"), "score": json.dumps(body)}

    refused = client.post("/api/score/save", data=form(), headers=token(client))
    assert refused.status_code == 403 and "PIN" in refused.get_json()["error"]
    headers = login(client)
    unconfirmed = dict(count, dead=None)
    resp = client.post("/api/score/save", data=form(unconfirmed), headers=headers)
    assert resp.status_code == 422 and "confirm" in resp.get_json()["error"]
    resp = client.post("/api/score/save", data=form(), headers=headers)
    assert resp.status_code == 200
    saved = resp.get_json()
    listed = client.get("/api/score/saved").get_json()["saved"]
    assert [(p["id"], p["result"]) for p in listed] == [(saved["id"], "W+34.5")]
    data = client.get(f"/api/score/saved/{saved['id']}").get_json()
    assert data["rows"] == FINISHED_9 and data["dead"] == ["H6"]
    jpeg = client.get(f"/score/saved/{saved['id']}.jpg")
    assert jpeg.mimetype == "image/jpeg"
    stored = cv2.imdecode(np.frombuffer(jpeg.data, np.uint8), cv2.IMREAD_COLOR)
    assert max(stored.shape[:2]) == PHOTO_SIDE
    page = client.get(saved["url"]).get_data(as_text=True)
    assert "W+34.5" in page and "H6" in page and ". . B W . W . b ." in page
    assert f"#{saved['id']}" in client.get("/score").get_data(as_text=True)
    assert "W+34.5" in client.get("/archive").get_data(as_text=True)
    assert client.get("/score/saved/99").status_code == 404
    assert client.get("/api/score/saved/99").status_code == 404
    assert client.get(f"/score/saved/{2**64}").status_code == 404
    assert client.get(f"/score/saved/{2**64}.jpg").status_code == 404
    # The journal is still a journal (its own check passes with the table beside it).
    path = table.journal.path
    table.journal.close()
    Journal(path).close()


def test_the_worker_queue_is_bounded() -> None:
    jobs = ScoreJobs(busy=2)
    gate = threading.Event()
    try:
        first = jobs.submit(lambda: {"n": gate.wait(10)})
        second = jobs.submit(lambda: {"n": 2})
        assert first and second
        assert jobs.submit(lambda: {"n": 3}) is None  # two waiting: the third is refused
        gate.set()
        future = jobs.get(first)
        assert future is not None and future.result(10) == {"ok": True, "n": True}
        assert jobs.get("no-such-job") is None
    finally:
        gate.set()
        jobs.close()


def test_a_busy_worker_answers_429(client: FlaskClient, photo: bytes) -> None:
    jobs: ScoreJobs = client.application.extensions["companion.score.jobs"]
    gate = threading.Event()
    try:
        while jobs.submit(lambda: {"n": gate.wait(10)}) is not None:
            pass
        resp = client.post("/api/score/read", data=photo, headers=token(client))
        assert resp.status_code == 429 and "busy" in resp.get_json()["error"]
    finally:
        gate.set()


def test_a_fault_in_a_job_is_answered_in_words(client: FlaskClient) -> None:
    jobs: ScoreJobs = client.application.extensions["companion.score.jobs"]
    key = jobs.submit(lambda: {"n": 1 // 0})
    assert key is not None
    resp = client.get(f"/api/score/jobs/{key}")
    while resp.status_code == 202:
        time.sleep(0.02)
        resp = client.get(f"/api/score/jobs/{key}")
    assert resp.status_code == 422
    assert resp.get_json() == {
        "ok": False,
        "error": "the table could not do it (ZeroDivisionError)",
    }


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_VALID = {
    "size": 9,
    "tokens": TOKENS,
    "rules": "chinese",
    "komi": None,
    "prisoners": None,
    "dead": [],
    "dame": [],
}
#: Values that pass a careless check: falsy, huge, the wrong kind of number.
_EDGES = st.sampled_from([0, 0.0, False, True, "", {}, [], None, -1, 1e308, "x", [True], [0.5]])
#: A sound body with one to three fields changed to anything JSON can say.
_BODIES = st.builds(
    lambda changes: {**_VALID, **changes},
    st.dictionaries(
        st.sampled_from([*_VALID, "assume_empty"]),
        _EDGES | _JSON | st.lists(st.integers(-5, 90), max_size=6),
        min_size=1,
        max_size=3,
    ),
)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    table = TableSession(Journal(tmp_path_factory.mktemp("fuzz") / "j.sqlite"), suggest=False)
    app = create_app(table, pin=PIN)
    client = app.test_client()
    yield client, token(client)
    table.journal.close()


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(body=_BODIES)
def test_no_count_body_gets_a_traceback(
    fuzz_client: tuple[Any, dict[str, str]], body: dict[str, Any]
) -> None:
    """Whatever the body, the answer is a count, a job, or a refusal in words: never a 500."""
    client, headers = fuzz_client
    resp = client.post("/api/score/count", json=body, headers=headers)
    assert resp.status_code in (200, 202, 422, 429), (body, resp.get_data(as_text=True))
    data = resp.get_json()
    assert data["ok"] == (resp.status_code in (200, 202)), data
    if not data["ok"]:
        assert isinstance(data["error"], str) and data["error"]
