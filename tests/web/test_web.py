"""The page over Flask's test client: PIN and CSRF refusals, state JSON, SSE catch-up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.journal import Journal
from companion.runtime.frames import FrameInput
from companion.table import intents as it
from companion.table.session import TableSession
from companion.web.app import MAX_FAILURES, create_app

PIN = "424242"


@pytest.fixture
def table(tmp_path: Path) -> TableSession:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9", players=("Ann", "Bob"), time_control="byo:5m+3x30s")
    return table


@pytest.fixture
def client(table: TableSession, tmp_path: Path) -> FlaskClient:
    app = create_app(table, pin=PIN, calibration_dir=tmp_path / "calibration")
    app.testing = True
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match
    return match.group(1)


def login(client: FlaskClient, pin: str = PIN) -> int:
    return client.post("/login", data={"pin": pin, "csrf": csrf(client)}).status_code


def test_pages_load_for_spectators(client: FlaskClient) -> None:
    for url in ("/", "/setup", "/archive", "/archive/1", "/camera", "/calibrate", "/login"):
        resp = client.get(url)
        assert resp.status_code == 200, url
        assert "Content-Security-Policy" in resp.headers
    assert "No camera picture" in client.get("/camera").get_data(as_text=True)


def test_state_json(client: FlaskClient, table: TableSession) -> None:
    table.apply(it.PlayIntent(40, 0))
    data = client.get("/api/state").get_json()
    assert data["board"][40] == 0 and data["to_move"] == 1
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob"]
    assert data["topology"]["kind"] == "grid" and len(data["topology"]["xy"]) == 81
    assert data["last_move"]["name"] == "E5"
    assert data["clock"]["players"][0]["periods"] == 3
    assert data["authed"] is False


def test_control_without_pin_is_refused(client: FlaskClient, table: TableSession) -> None:
    resp = client.post("/api/control/pass", headers={"X-CSRF-Token": csrf(client)}, json={})
    assert resp.status_code == 403
    assert "PIN" in resp.get_json()["error"]
    assert table.state.game is not None and table.state.game.moves == []


def test_control_without_csrf_token_is_refused(client: FlaskClient, table: TableSession) -> None:
    assert login(client) == 302
    resp = client.post("/api/control/pass", json={})
    assert resp.status_code == 403 and "security token" in resp.get_json()["error"]
    resp = client.post("/api/control/pass", headers={"X-CSRF-Token": "forged"}, json={})
    assert resp.status_code == 403
    assert table.state.game is not None and table.state.game.moves == []


def test_control_with_pin_and_token_works(client: FlaskClient, table: TableSession) -> None:
    assert login(client) == 302
    token = csrf(client)
    resp = client.post("/api/control/pass", headers={"X-CSRF-Token": token}, json={})
    assert resp.status_code == 200 and resp.get_json()["events"][0]["type"] == "Passed"
    # A refusal by the rules is a 409 with the engine's words.
    client.post("/api/control/undo", headers={"X-CSRF-Token": token}, json={})
    resp = client.post("/api/control/undo", headers={"X-CSRF-Token": token}, json={})
    assert resp.status_code == 409 and "no move" in resp.get_json()["error"]


def test_wrong_pin_is_refused_then_throttled(client: FlaskClient) -> None:
    for _ in range(MAX_FAILURES):
        assert login(client, "000000") == 403
    assert login(client, PIN) == 429  # locked out even with the right PIN, for a while


def test_login_without_token_is_refused(client: FlaskClient) -> None:
    assert client.post("/login", data={"pin": PIN}).status_code == 403


def test_no_secret_in_urls(client: FlaskClient) -> None:
    page = client.get("/login").get_data(as_text=True)
    assert 'method="post"' in page and PIN not in page
    assert PIN not in client.get("/").get_data(as_text=True)


def _frames(chunk: bytes) -> list[tuple[int | None, dict]]:  # type: ignore[type-arg]
    out = []
    for block in chunk.decode().split("\n\n"):
        ids = re.findall(r"^id: (\d+)$", block, re.M)
        data = re.findall(r"^data: (.*)$", block, re.M)
        if data:
            out.append((int(ids[0]) if ids else None, json.loads(data[0])))
    return out


def test_sse_catches_up_from_last_event_id(client: FlaskClient, table: TableSession) -> None:
    for spot in (40, 20, 60):
        table.apply(it.PlayIntent(spot, table.state.game.to_move))  # type: ignore[union-attr]
    resp = client.get("/events", headers={"Last-Event-ID": "2"}, buffered=False)
    first = next(iter(resp.response))
    resp.close()
    frames = _frames(first)
    assert [i for i, _ in frames] == [3, 4, 4]
    assert [f["event"]["spot"] for _, f in frames[:2]] == [20, 60]
    # spot 20 is C7 and spot 60 G3 on a 9x9 board (row 0 at the top, no letter I)
    assert [f["event"]["words"] for _, f in frames[:2]] == ["Bob played C7", "Ann played G3"]
    assert frames[-1][1]["state"]["board"][60] == 0  # then the current state


def test_sse_without_last_id_sends_the_state_then_live_events(
    client: FlaskClient, table: TableSession
) -> None:
    resp = client.get("/events", buffered=False)
    stream = iter(resp.response)
    frames = _frames(next(stream))
    assert "event" not in frames[-1][1] and frames[-1][1]["state"]["seq"] == table.state.last_seq
    table.apply(it.PlayIntent(40, 0))
    live = _frames(next(stream))
    resp.close()
    assert live[0][1]["event"]["type"] == "MovePlayed" and live[0][1]["state"]["board"][40] == 0
    assert live[0][1]["event"]["words"] == "Ann played E5"


def test_a_fresh_page_gets_the_games_recent_events_with_their_words(
    client: FlaskClient, table: TableSession
) -> None:
    table.apply(it.PlayIntent(40, 0))
    table.apply(it.PassIntent(1))
    resp = client.get("/events", buffered=False)
    frames = _frames(next(iter(resp.response)))
    resp.close()
    recent = frames[-1][1]["recent"]
    assert [e["words"] for e in recent] == [
        "game 1 started: chinese on 9, clock byo:5m+3x30s",
        "Ann played E5",
        "Bob passed",
    ]


def test_archive_downloads_and_step_through(client: FlaskClient, table: TableSession) -> None:
    table.apply(it.PlayIntent(40, 0))
    table.apply(it.PassIntent(1))
    sgf = client.get("/archive/1.sgf")
    assert sgf.status_code == 200
    assert b"B[ee]" in sgf.data and b"PB[Ann]" in sgf.data and b"BL[" in sgf.data
    assert b"OT[" in sgf.data
    record = json.loads(client.get("/archive/1.json").data)
    assert record["format"] == "companion-game" and record["players"][0]["name"] == "Ann"
    events = client.get("/archive/1.events.json").get_json()
    assert [e["type"] for e in events["events"]][:2] == ["GameStarted", "MovePlayed"]
    frames = client.get("/api/archive/1").get_json()["frames"]
    assert [f["move_number"] for f in frames] == [0, 1, 2]
    assert client.get("/archive/99").status_code == 404


def test_sgf_refused_for_maps(client: FlaskClient, table: TableSession) -> None:
    table.start_game("chinese", "hex-5")
    resp = client.get("/archive/2.sgf")
    assert resp.status_code == 409 and "JSON record" in resp.get_json()["error"]
    assert client.get("/archive/2.json").status_code == 200


def test_new_game_from_setup(client: FlaskClient, table: TableSession) -> None:
    login(client)
    token = csrf(client)
    body = {
        "rules": "club",
        "topology": "13",
        "knobs": {"komi": 0.5},
        "players": ["A", "B"],
        "time_control": "fischer:5m+10s",
    }
    resp = client.post("/api/control/new_game", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == 200
    assert table.state.started is not None and table.state.started.rules == "club"
    assert table.state.game is not None and table.state.game.knobs.komi == 0.5
    body["topology"] = "nowhere"
    resp = client.post("/api/control/new_game", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == 400 and "nowhere" in resp.get_json()["error"]


def _board_image() -> np.ndarray:  # type: ignore[type-arg]
    """A drawn 9x9 board seen from above with two stones: corners at (40, 30)-(280, 210)."""
    image = np.full((240, 320, 3), (60, 90, 120), np.uint8)
    cv2.rectangle(image, (25, 15), (295, 225), (90, 170, 220), -1)
    for i in range(9):
        x, y = 40 + i * 30, 30 + i * 22.5
        cv2.line(image, (x, 30), (x, 210), (30, 30, 30), 1)
        cv2.line(image, (40, int(y)), (280, int(y)), (30, 30, 30), 1)
    cv2.circle(image, (40 + 4 * 30, 30 + 90), 10, (20, 20, 20), -1)
    cv2.circle(image, (40 + 2 * 30, 30 + 45), 10, (240, 240, 240), -1)
    return image


@pytest.fixture
def camera_client(table: TableSession, tmp_path: Path) -> tuple[FlaskClient, FrameInput]:
    camera = FrameInput("dir:nowhere", board="9")
    camera.still = _board_image()
    app = create_app(table, pin=PIN, calibration_dir=tmp_path / "calibration", camera=camera)
    app.testing = True
    return app.test_client(), camera


def test_camera_placeholder_without_camera(client: FlaskClient, table: TableSession) -> None:
    assert client.get("/camera.jpg").status_code == 404
    assert "No camera picture" in client.get("/camera").get_data(as_text=True)
    assert "No camera, so nothing to calibrate" in client.get("/calibrate").get_data(as_text=True)


def test_camera_picture_and_mjpeg(camera_client: Any, table: TableSession) -> None:
    client, camera = camera_client
    obs, jpeg = camera.read(camera.still)
    table.frame = jpeg
    assert obs.states.count("B") == 1 and obs.states.count("W") == 1
    assert client.get("/camera.jpg").status_code == 200
    assert "Drag the four round handles" in client.get("/calibrate").get_data(as_text=True)
    resp = client.get("/camera.mjpg", buffered=False)
    first = next(iter(resp.response))
    resp.close()
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and jpeg in first


def test_calibration_preview_and_save(camera_client: Any, tmp_path: Path) -> None:
    client, camera = camera_client
    body = {"name": "club-table", "image": [320, 240],
            "corners": [[40, 30], [280, 30], [280, 210], [40, 210]]}  # fmt: skip
    assert client.post("/api/calibration", json=body).status_code == 403
    login(client)
    token = csrf(client)
    headers = {"X-CSRF-Token": token}
    crossed = dict(body, corners=[[40, 30], [280, 210], [280, 30], [40, 210]])
    resp = client.post("/api/calibration", json=crossed, headers=headers)
    assert resp.status_code == 400 and "cross" in resp.get_json()["error"]
    resp = client.post("/api/calibration", json=dict(body, name="../etc"), headers=headers)
    assert resp.status_code == 400
    preview = client.post("/api/calibration/preview", json=body, headers=headers).get_json()
    assert preview["ok"] and preview["states"].count("B") == 1
    black = preview["states"].index("B")
    assert preview["points"][black] == [160.0, 120.0]  # E5, where the black stone is drawn
    resp = client.post("/api/calibration", json=body, headers=headers)
    assert resp.status_code == 200
    saved = json.loads(Path(resp.get_json()["saved"]).read_text())
    assert saved["board"] == "9" and camera.profile is not None


def test_the_archive_step_through_shows_the_captures_as_they_stood(
    client: FlaskClient, table: TableSession
) -> None:
    """Issue 13: every frame showed the final count. Black takes the white stone at A9 with
    A8 (move 3); before it the captures are 0 and 0:

        9 O X . .      9 . X . .
        8 . . . .  ->  8 X . . .
    """
    game = table.state.game
    assert game is not None
    for name in ("B9", "A9", "A8"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    frames = client.get("/api/archive/1").get_json()["frames"]
    assert [f["captures"] for f in frames] == [[0, 0], [0, 0], [0, 0], [1, 0]]


def test_the_setup_page_starts_a_handicap_game(client: FlaskClient, table: TableSession) -> None:
    """The setup page's handicap field (handicap_stones, placement) reaches the game start;
    a bad one is refused in plain words."""
    assert b'name="handicap_stones"' in client.get("/setup").data
    assert login(client) == 302
    token = csrf(client)
    body = {"rules": "japanese", "topology": "13", "knobs": {"handicap_stones": 3}}
    resp = client.post("/api/control/new_game", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == 200
    game = table.state.game
    assert game is not None and game.to_move == 1
    assert sorted(game.spot_name(s) for s, c in enumerate(game.board) if c == 0) == [
        "D4",
        "K10",
        "K4",
    ]
    body["knobs"] = {"handicap_stones": 12}
    resp = client.post("/api/control/new_game", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == 400 and "2 to 9 stones" in resp.get_json()["error"]
    # Free placement (the page's "placed freely" choice): an empty board waiting for the
    # stones, Black's turn to put them down; komi 0.5 under Japanese rules.
    assert b'<option value="free">' in client.get("/setup").data
    body["knobs"] = {"handicap_stones": 2, "placement": "free"}
    resp = client.post("/api/control/new_game", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == 200
    game = table.state.game
    assert game is not None and all(c < 0 for c in game.board) and game.knobs.komi == 0.5
    assert table.state.handicap_pending == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("action", "body", "status", "said"),
    [
        ("play", {"spot": 40}, 200, None),
        ("play", {"spot": 40}, 409, "E5 is occupied"),
        ("play", {"spot": "x"}, 400, "A number was expected"),
        ("play", {}, 400, 'Say which point: {"spot": N}'),
        ("agree", {"player": 0}, 409, "There is nothing to agree to outside cleanup"),
        ("agree", {}, 400, "Agree needs a player"),
        (
            "new_game",
            {"rules": "chinese", "players": ["Ann", "Bob", "Cy"]},
            400,
            "Chinese rules are for 2 players, not 3",
        ),
    ],
)
def test_controls_answer_in_plain_words(
    client: FlaskClient, action: str, body: dict[str, object], status: int, said: str | None
) -> None:
    """Issue 14: no "cannot new game: chinese is for 2..2 players, not 3"."""
    assert login(client) == 302
    token = csrf(client)
    if status == 409 and action == "play":
        client.post("/api/control/play", headers={"X-CSRF-Token": token}, json=body)
    resp = client.post(f"/api/control/{action}", headers={"X-CSRF-Token": token}, json=body)
    assert resp.status_code == status, resp.get_json()
    if said is not None:
        assert resp.get_json()["error"] == said
