"""The live stream meets a damaged journal (issue 15): the page stays up on the real server,
the stream still opens with the position and says in words what is damaged, the pages already
watching hear of it, and a control is refused with 503 (nothing more is written)."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.journal import Journal
from companion.table import intents as it
from companion.table.session import TableSession
from companion.web.app import create_app
from companion.web.server import Limits, Server
from tests.support.browsing import needs_chromium

PIN = "864200"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableSession]:
    """Ann and Bob's 9x9 after three moves (events 2-4), then game 1's event 3 damaged on disk
    by another hand (the journal was opened sound: damage met later, by a read)."""
    journal = Journal(tmp_path / "j.sqlite")
    session = TableSession(journal, suggest=False)
    session.start_game("chinese", "9", players=("Ann", "Bob"))
    for spot in (40, 20, 60):
        session.apply(it.PlayIntent(spot, session.state.game.to_move))  # type: ignore[union-attr]
    con = sqlite3.connect(journal.path)
    con.execute("UPDATE events SET data = replace(data, '20', '21') WHERE seq = 3")
    con.commit()
    con.close()
    yield session
    session.close()
    journal.close()


@pytest.fixture
def port(table: TableSession) -> Iterator[int]:
    server = Server(create_app(table, pin=PIN), host="127.0.0.1", port=0, limits=Limits())
    server.start()
    yield server.effective_port
    server.close()


def _open(port: int, path: str, headers: str = "") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    return sock


def _frames(sock: socket.socket, count: int) -> tuple[bytes, list[dict]]:  # type: ignore[type-arg]
    """The response head and the first ``count`` SSE data frames read from ``sock`` (each
    frame is one HTTP chunk)."""
    got = b""
    while got.count(b"\ndata: ") < count or not got.endswith(b"\n\n\r\n"):
        chunk = sock.recv(65536)
        assert chunk, got[-300:]
        got += chunk
    head, body = got.split(b"\r\n\r\n", 1) if got.startswith(b"HTTP/") else (b"", got)
    frames = [json.loads(m) for m in re.findall(rb"^data: (.*)$", body, re.M)]
    return head, frames


def test_a_fresh_page_and_a_reconnecting_one_get_the_position_and_the_damage_in_words(
    table: TableSession, port: int
) -> None:
    for path, headers in (("/events", ""), ("/events", "Last-Event-ID: 1\r\n")):
        sock = _open(port, path, headers)
        try:
            head, frames = _frames(sock, 1)
        finally:
            sock.close()
        assert head.startswith(b"HTTP/1.1 200"), head
        state = frames[-1]["state"]
        assert state["board"][40] == 0 and state["board"][60] == 0  # the position, from memory
        assert "game 1, event 3" in state["alerts"][0]
        assert "companion journal repair" in state["alerts"][0]
        assert "recent" not in frames[-1]  # the damaged events are not shown as the feed
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as resp:
        assert resp.status == 200
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as resp:
        assert "game 1, event 3" in json.loads(resp.read())["alerts"][0]


def test_pages_already_watching_hear_of_damage_another_request_met(
    table: TableSession, port: int
) -> None:
    sock = _open(port, "/events?after=4")  # nothing to catch up: no read meets the damage
    try:
        _, frames = _frames(sock, 1)
        assert not any("journal" in a for a in frames[-1]["state"]["alerts"])
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/archive/1.sgf", timeout=10)
            raise AssertionError("a damaged game was downloaded")
        except urllib.error.HTTPError as exc:
            assert exc.code == 409 and "game 1, event 3" in exc.read().decode()
        _, frames = _frames(sock, 1)  # the next frame on the same stream
        assert "game 1, event 3" in frames[-1]["state"]["alerts"][0]
    finally:
        sock.close()


def test_a_control_after_the_damage_is_refused_in_words_and_nothing_is_written(
    table: TableSession,
) -> None:
    client = create_app(table, pin=PIN).test_client()
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token is not None
    client.post("/login", data={"pin": PIN, "csrf": token.group(1)})
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(True))
    assert token is not None
    resp = client.get("/events", buffered=False)
    resp.close()
    last = table.journal.last_seq
    refused = client.post("/api/control/pass", headers={"X-CSRF-Token": token.group(1)}, json={})
    assert refused.status_code == 503
    assert "nothing more is written" in refused.get_json()["error"]
    assert table.journal.last_seq == last


@pytest.mark.browser
@needs_chromium
def test_the_page_in_a_browser_shows_the_board_and_says_the_journal_is_damaged(
    table: TableSession, port: int, page: Any
) -> None:
    page.goto(f"http://127.0.0.1:{port}/")
    page.wait_for_selector(".status.live", timeout=5000)
    page.wait_for_selector("#alerts >> text=game 1, event 3", timeout=5000)
    assert "companion journal repair" in page.inner_text("#alerts")
    e5 = table.state.game.parse_spot("E5")  # type: ignore[union-attr]
    page.wait_for_selector(f'circle.stone[data-spot="{e5}"]', timeout=5000)
