"""The chess table page over Flask's test client: state JSON, PIN for controls, the promotion
answer, setup from a file, the archive's record download, and the SSE status frames."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.games.beyond_chess import cell
from companion.games.beyond_chess_notation import parse_diagram, parse_turn, position_text
from companion.journal import Journal
from companion.records.chess_record import read_record, replay
from companion.table.session import Table
from companion.web.app import create_app
from tests.support.clock import HandClock

PIN = "424242"

PROMO = """
. . . . . . . k
P . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
K . . . . . . .
"""


@pytest.fixture
def table(tmp_path: Path, clock: HandClock) -> Table:
    table = Table.resume(Journal(tmp_path / "j.sqlite"), clock=clock, still_time=0.5)
    table.start_game("beyond-chess", players=["Ann", "Bo"], time_control="fischer:5m+5s")
    return table


@pytest.fixture
def client(table: Table) -> FlaskClient:
    app = create_app(table, pin=PIN)
    app.testing = True
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    match = re.search(
        r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(as_text=True)
    )
    assert match
    return match.group(1)


def login(client: FlaskClient) -> str:
    assert client.post("/login", data={"pin": PIN, "csrf": csrf(client)}).status_code == 302
    return csrf(client)


def test_the_table_page_is_the_chess_page(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "chess.js" in page and "board.js" not in page
    for url in ("/setup/chess", "/setup", "/archive", "/static/chess.js", "/static/chess.css"):
        assert client.get(url).status_code == 200, url
    assert "chess setup" in client.get("/setup").get_data(as_text=True)


def test_state_json_for_a_chess_table(client: FlaskClient, table: Table) -> None:
    table.control("turn", text="e2e4")
    table.control("turn", text="e7e5/a6[-1,5]")
    data = client.get("/api/state").get_json()
    assert data["kind"] == "chess" and data["rules"] == "beyond-chess"
    assert [p["name"] for p in data["players"]] == ["Ann", "Bo"]
    assert data["to_move"] == 0 and data["turn_number"] == 2
    assert data["moves"] == ["e2e4", "e7e5/a6[-1,5]"]
    assert data["move_rows"] == [{"number": 1, "white": "e2e4", "black": "e7e5/a6[-1,5]"}]
    assert data["last_turn"]["shift"] == [[0, 5], [-1, 5]]
    board = data["board"]
    assert [-1, 5] in board["squares"] and [0, 5] not in board["squares"]
    assert board["bounds"] == [-1, 0, 7, 7]
    assert [4, 3, "P"] in board["pieces"] and [4, 4, "p"] in board["pieces"]
    assert data["clock"]["players"][0]["countdown"] == pytest.approx(305)
    assert data["clock"]["current"] == 0


def test_controls_need_the_pin(client: FlaskClient, table: Table) -> None:
    resp = client.post("/api/control/turn", json={"text": "e2e4"})
    assert resp.status_code == 403 and "PIN" in resp.get_json()["error"]
    token = login(client)
    resp = client.post("/api/control/turn", json={"text": "e2e4"})
    assert resp.status_code == 403  # no CSRF token
    resp = client.post("/api/control/turn", json={"text": "e2e5"}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 409 and "cannot move" in resp.get_json()["error"]
    resp = client.post("/api/control/turn", json={"text": "e2e4"}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 200 and resp.get_json()["events"][0]["turn"] == "e2e4"
    resp = client.post("/api/control/cleanup", headers={"X-CSRF-Token": token})
    assert resp.status_code == 404  # a Go control: not a chess table's


def test_promotion_answer_needs_the_pin(
    client: FlaskClient, table: Table, clock: HandClock
) -> None:
    start = parse_diagram(PROMO, extra="- - 0 1 first=0")
    table.start_game("beyond-chess", knobs={"position": position_text(start)})
    for _ in range(3):
        table.see(start.look_after(parse_turn("a7a8=Q/h1i1")), clock.t)
        clock.t += 0.3
    question = client.get("/api/state").get_json()["question"]
    assert question is not None and sorted(question["pieces"]) == ["B", "N", "Q", "R"]
    resp = client.post("/api/control/promote", json={"piece": "R"})
    assert resp.status_code == 403
    token = login(client)
    resp = client.post("/api/control/promote", json={"piece": "K"}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 409 and "not one of the choices" in resp.get_json()["error"]
    resp = client.post("/api/control/promote", json={"piece": "R"}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 200
    data = client.get("/api/state").get_json()
    assert data["question"] is None and data["moves"] == ["a7a8=R/h1i1"]
    assert [0, 7, "R"] in data["board"]["pieces"]


SETUP = """\
black:
rnbqkbnr
pppppppp
........
........
white:
........
........
PPPPPPPP
RNBQKBNR
"""


def test_new_game_from_a_setup_file_and_record_download(client: FlaskClient) -> None:
    token = login(client)
    bad = client.post(
        "/api/control/new_game",
        json={"rules": "beyond-chess", "knobs": {"setup": "white:\nK\n"}},
        headers={"X-CSRF-Token": token},
    )
    assert bad.status_code == 400 and "setup cannot start a game" in bad.get_json()["error"]
    custom = SETUP.replace("........\nwhite:", "...-....\nwhite:").replace(
        "black:\nrnbqkbnr", "black:\nrnbqkbnr."
    )
    resp = client.post(
        "/api/control/new_game",
        json={"rules": "beyond-chess", "knobs": {"setup": custom}, "players": ["Cy", "Di"]},
        headers={"X-CSRF-Token": token},
    )
    assert resp.status_code == 200, resp.get_json()
    data = client.get("/api/state").get_json()
    assert [8, 7] in data["board"]["squares"] and [3, 4] not in data["board"]["squares"]
    for text in ("e2e4", "e7e5/c5d5"):
        r = client.post("/api/control/turn", json={"text": text}, headers={"X-CSRF-Token": token})
        assert r.status_code == 200, r.get_json()
    game_id = data["game_id"]
    archive = client.get("/archive").get_data(as_text=True)
    assert f"/archive/{game_id}.txt" in archive
    resp = client.get(f"/archive/{game_id}.txt")
    assert resp.status_code == 200
    assert resp.headers["Content-Disposition"] == f'attachment; filename="game-{game_id}.txt"'
    record = read_record(resp.get_data(as_text=True))
    assert record.tags["White"] == "Cy" and "Position" in record.tags
    played = replay(record)
    assert played.failure is None and played.played == 2
    assert client.get("/archive/999.txt").status_code == 404
    for go_download in (".sgf", ".json"):  # the kind's own record, named, not a made-up SGF
        resp = client.get(f"/archive/{game_id}{go_download}")
        assert resp.status_code == 409
        assert f"its record is /archive/{game_id}.txt" in resp.get_data(as_text=True)


def test_reader_status_reaches_the_stream(
    table: Table, client: FlaskClient, clock: HandClock
) -> None:
    sub = table.subscribe()
    start = table.state.game.copy()
    half = start.look_after(parse_turn("e2e4"))
    for _ in range(3):
        table.see(start.look(), clock.t)
        clock.t += 0.3
    table.control("turn", text="e2e4")
    position = table.state.game
    for _ in range(3):
        table.see(position.look_after(parse_turn("e7e5")), clock.t)
        clock.t += 0.3
    frames = []
    while True:
        try:
            item = sub.get(timeout=0.05)
        except TimeoutError:
            break
        assert item is not None
        frames.append(item)
    status = [f for seq, f in frames if seq == 0]
    assert status and b"waiting for the shift" in status[-1]
    assert half[cell(4, 3)] == "W"
