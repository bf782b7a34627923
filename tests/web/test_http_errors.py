"""The HTTP 500s of issue 15, point 9, each answered in words: archive ids beyond SQLite's
integers, a Beyond Chess table's archive, control bodies with 1e400 or 5,000-deep JSON, and a
damaged journal (409 naming the game and event; a control then 503: nothing is written)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.app import create_app

PIN = "97531"
HUGE = "99999999999999999999"


def _client(table: TableSession) -> tuple[FlaskClient, str]:
    app = create_app(table, pin=PIN)
    client = app.test_client()
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(True))
    assert token is not None
    client.post("/login", data={"pin": PIN, "csrf": token.group(1)})
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(True))
    assert token is not None
    return client, token.group(1)


@pytest.fixture
def go_table(tmp_path: Path) -> TableSession:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    return table


@pytest.mark.parametrize(
    "url",
    [
        f"/archive/{HUGE}.json",
        f"/archive/{HUGE}.sgf",
        f"/archive/{HUGE}.events.json",
        f"/api/archive/{HUGE}",
        f"/archive/{HUGE}",
        f"/archive/{HUGE}.txt",
        "/archive/0.json",
    ],
)
def test_archive_ids_beyond_any_game_are_404(go_table: TableSession, url: str) -> None:
    client = create_app(go_table, pin=PIN).test_client()
    assert client.get(url).status_code == 404


def test_a_beyond_chess_tables_archive_works(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False, kind="chess")
    table.start_game("beyond-chess")
    client = create_app(table, pin=PIN).test_client()
    assert client.get("/archive").status_code == 200
    assert "record (.txt)" in client.get("/archive").get_data(as_text=True)
    assert client.get("/archive/1.txt").status_code == 200
    assert client.get("/archive/1.events.json").status_code == 200
    for url in ("/archive/1.json", "/archive/1.sgf"):
        resp = client.get(url)
        assert resp.status_code == 409 and "/archive/1.txt" in resp.get_data(as_text=True)


@pytest.mark.parametrize(
    "body",
    [
        b'{"player": 1e400}',
        b"[" * 5000 + b"]" * 5000,
        b'{"a":' * 5000 + b"1" + b"}" * 5000,
        b'{"player": ' + b"9" * 5000 + b"}",
        b"\xff\xfe",
        b"[1, 2]",
    ],
)
def test_control_bodies_out_of_bounds_are_400_in_words(go_table: TableSession, body: bytes) -> None:
    client, token = _client(go_table)
    resp = client.post(
        "/api/control/pass",
        data=body,
        headers={"X-CSRF-Token": token, "Content-Type": "application/json"},
    )
    assert resp.status_code == 400
    assert "the control's body" in resp.get_json()["error"]
    assert go_table.state.game is not None and go_table.state.game.moves == []


def test_a_damaged_journal_is_named_in_words_and_no_longer_written(
    go_table: TableSession,
) -> None:
    client, token = _client(go_table)
    go_table.control("pass")
    go_table.control("resign", player=0)
    go_table.start_game("chinese", "9")
    con = sqlite3.connect(go_table.journal.path)
    con.execute("UPDATE events SET data = replace(data, '0', '1') WHERE seq = 2")
    con.commit()
    con.close()
    resp = client.get("/archive/1.sgf")
    assert resp.status_code == 409
    assert "game 1, event 2" in resp.get_json()["error"]
    assert "companion journal repair" in resp.get_json()["error"]
    assert client.get("/api/archive/1").status_code == 409
    refused = client.post("/api/control/pass", headers={"X-CSRF-Token": token}, json={})
    assert refused.status_code == 503 and "nothing more is written" in refused.get_json()["error"]
