"""The page's event-driven server (``companion.web.server``): more live streams than the old
thread limit, caps per client address, slow and half-open connections timed out, junk requests
answered 4xx, a watcher that stops reading cut off. Not timed: each check waits with a generous
timeout and asserts only what was answered."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.commands.bench_page import PageClient
from companion.journal import Journal
from companion.table import intents as it
from companion.table.session import TableSession
from companion.web.app import create_app
from companion.web.server import Limits, Server

PIN = "135790"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableSession]:
    journal = Journal(tmp_path / "j.sqlite")
    session = TableSession(journal)
    session.start_game("chinese", "9")
    yield session
    session.close()
    journal.close()


def serve(table: TableSession, **limits: object) -> Server:
    app = create_app(table, pin=PIN)
    server = Server(app, host="127.0.0.1", port=0, limits=Limits(**limits))  # type: ignore[arg-type]
    server.start()
    return server


def open_stream(port: int, path: str = "/events") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes, limit: int = 1 << 20) -> bytes:
    got = b""
    while marker not in got and len(got) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return read_until(sock, b"\r\n\r\n")


def test_more_streams_than_the_old_thread_limit_and_the_page_still_answers(
    table: TableSession,
) -> None:
    """Issue 15, point 3: 64 streams took the table page offline. 150 here, with 4 app
    threads: /healthz, the page and a control still answer, and every stream gets the move."""
    server = serve(table, threads=4, streams_per_address=200, connections_per_address=250)
    port = server.effective_port
    streams = [open_stream(port) for _ in range(150)]
    try:
        for sock in streams:
            assert b"data: " in read_until(sock, b"data: ")
        assert server.stats()["streams"] == 150
        assert get(port, "/healthz")[0] == 200
        assert get(port, "/")[0] == 200
        client = PageClient(f"http://127.0.0.1:{port}", PIN)
        assert client.control("pass") == 200
        for sock in streams:
            assert b'"Passed"' in read_until(sock, b'"Passed"')
    finally:
        for sock in streams:
            sock.close()
        server.close()


def test_streams_and_connections_are_capped_per_address(table: TableSession) -> None:
    server = serve(table, streams_per_address=3, connections_per_address=6)
    port = server.effective_port
    streams = [open_stream(port) for _ in range(3)]
    try:
        for sock in streams:
            read_until(sock, b"data: ")
        fourth = raw(port, b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        assert fourth.startswith(b"HTTP/1.1 429")
        assert get(port, "/healthz")[0] == 200  # plain requests still answered
        extra = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        time.sleep(0.3)
        refused = raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert refused.startswith(b"HTTP/1.1 503") and b"too many connections" in refused
        for sock in extra:
            sock.close()
        time.sleep(0.3)
        assert get(port, "/healthz")[0] == 200
        assert server.stats()["refused"] == {"streams": 1, "connections": 1}
    finally:
        for sock in streams:
            sock.close()
        server.close()


def test_slow_and_silent_connections_are_timed_out_and_take_no_thread(
    table: TableSession,
) -> None:
    server = serve(
        table, threads=2, request_timeout=1.0, idle_timeout=1.0, connections_per_address=200
    )
    port = server.effective_port
    slow = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(100)]
    try:
        for sock in slow[:50]:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")  # never finished
        assert get(port, "/healthz")[0] == 200  # 100 held, 2 threads: still answered
        for i, sock in enumerate(slow):
            answer = read_until(sock, b"\r\n\r\n")  # the server closes each (EOF ends the read)
            assert answer.startswith(b"HTTP/1.1 408") if i < 50 else answer == b""
        refused = server.stats()["refused"]
        assert (refused["timed out"], refused["idle closed"]) == (50, 50)
    finally:
        for sock in slow:
            sock.close()
        server.close()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"NOT HTTP AT ALL\r\n\r\n", b"400"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n", b"431"),
        (b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 30000000\r\n\r\n", b"413"),
        (b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", b"404"),
        (b"GET / HTTP/1.1\r\n\r\n", b"400"),  # HTTP/1.1 without Host
    ],
)
def test_junk_requests_get_a_4xx(table: TableSession, request_bytes: bytes, status: bytes) -> None:
    server = serve(table)
    try:
        answer = raw(server.effective_port, request_bytes)
        assert answer.split(b" ")[1] == status
        assert get(server.effective_port, "/healthz")[0] == 200
    finally:
        server.close()


def test_request_bodies_held_at_once_are_capped(table: TableSession) -> None:
    """Each upload is within its own limit, but together they would exhaust memory: once the
    bodies held pass the cap, the next is refused 503; the page still answers."""
    server = serve(table, max_body=2_000_000, max_bodies=1_000_000)
    port = server.effective_port
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
    try:
        head = b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 1500000\r\n\r\n"
        for sock in socks[:2]:
            sock.sendall(head + b"a" * 400_000)  # held, waiting for the rest
        time.sleep(0.3)
        socks[2].sendall(head + b"a" * 400_000)
        answer = read_until(socks[2], b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 503")
        assert server.stats()["refused"] == {"bodies over the memory cap": 1}
        assert get(port, "/healthz")[0] == 200
    finally:
        for sock in socks:
            sock.close()
        server.close()


def test_a_watcher_that_stops_reading_is_cut_off(table: TableSession) -> None:
    server = serve(table, stream_buffer=64 * 1024)
    port = server.effective_port
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        read_until(sock, b"data: ")
        frame = b"data: " + b"x" * 100_000 + b"\n\n"
        deadline = time.monotonic() + 20
        while server.stats()["streams"] and time.monotonic() < deadline:
            table.hub.publish(0, frame)  # what the clock face does every second, but huge
            time.sleep(0.01)
        assert server.stats()["streams"] == 0
        assert server.stats()["refused"]["slow watchers cut off"] == 1
        assert get(port, "/healthz")[0] == 200
    finally:
        sock.close()
        server.close()


def test_keep_alive_serves_several_requests_on_one_connection(table: TableSession) -> None:
    server = serve(table)
    try:
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=10) as sock:
            for _ in range(3):
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                answer = read_until(sock, b'"ok":true')
                assert answer.startswith(b"HTTP/1.1 200 OK")
            sock.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            head = read_until(sock, b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200") and b"Content-Length" in head
            assert sock.recv(100) == b""  # no body after HEAD, then closed
    finally:
        server.close()


def test_a_move_reaches_a_stream_the_moment_it_is_journaled(table: TableSession) -> None:
    server = serve(table)
    sock = open_stream(server.effective_port)
    try:
        read_until(sock, b"data: ")
        game = table.state.game
        assert game is not None
        table.apply(it.PlayIntent(player=0, spot=40))
        assert b'"MovePlayed"' in read_until(sock, b'"MovePlayed"')
    finally:
        sock.close()
        server.close()


def test_the_hub_page_streams_to_many_without_a_thread_each() -> None:
    """Issue 15: 48 streams took the hub page offline. 120 here with 2 app threads: the page
    and its JSON answer, and a table's event reaches every stream."""
    from companion.hub import topics
    from companion.hub.app import create_app as hub_app
    from companion.hub.hub import Hub

    hub = Hub(host="127.0.0.1", port=1, client_id="never-started")
    server = Server(
        hub_app(hub),
        host="127.0.0.1",
        port=0,
        limits=Limits(threads=2, streams_per_address=200, connections_per_address=250),
    )
    server.start()
    port = server.effective_port
    streams = [open_stream(port, "/stream") for _ in range(120)]
    try:
        for sock in streams:
            assert b'"hello"' in read_until(sock, b'"hello"')
        assert get(port, "/")[0] == 200
        assert get(port, "/api/tables")[0] == 200
        started = {"type": "GameStarted", "seq": 1, "at": 1.0, "rules": "chinese"}
        started["topology"] = "9"
        hub.receive(topics.EventMessage(table="board-1", round=1, seq=1, game=1, event=started))
        for sock in streams:
            assert b'"board-1"' in read_until(sock, b'"board-1"')
    finally:
        for sock in streams:
            sock.close()
        server.close()


def test_a_client_that_half_closes_after_its_request_still_gets_the_answer(
    table: TableSession,
) -> None:
    server = serve(table)
    try:
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=10) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            answer = read_until(sock, b"never there")
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"}\n")
    finally:
        server.close()


def test_mutated_raw_requests_never_get_a_5xx_and_the_server_lives_on(
    table: TableSession,
) -> None:
    """500 seeded mutations of real requests, straight onto the socket: each is answered 2xx to
    4xx or closed, never 500, and the page still answers after."""
    import random

    seeds = [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /events?after=3 HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 2\r\n\r\n",
        b"POST /api/control/pass HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\n\r\n{}",
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\npin=12345",
        b"GET /archive/1.sgf HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]
    tokens = [b"\r\n", b"\x00", b"\xff", b"%00", b"9" * 5000, b":", b" ", b"HTTP/9.9", b"\r\n\r\n"]
    rng = random.Random("page-server:1")
    server = serve(table, request_timeout=0.5, idle_timeout=0.5)
    port = server.effective_port
    statuses: list[bytes] = []
    try:
        for _ in range(500):
            data = bytearray(rng.choice(seeds))
            for _ in range(rng.randint(1, 3)):
                pos = rng.randrange(len(data) + 1)
                op = rng.randrange(4)
                if op == 0 and data:
                    data[rng.randrange(len(data))] = rng.randrange(256)
                elif op == 1:
                    del data[pos:]
                elif op == 2:
                    data[pos:pos] = rng.choice(tokens)
                else:
                    data[pos:pos] = bytes(data[: rng.randrange(len(data) + 1)])
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(bytes(data))
                sock.shutdown(socket.SHUT_WR)
                try:
                    answer = read_until(sock, b"\r\n\r\n")
                except ConnectionResetError:
                    answer = b""
            statuses.append(answer[9:12] if answer.startswith(b"HTTP/1.1 ") else b"---")
        assert not [s for s in statuses if s.startswith(b"5")], sorted(set(statuses))
        assert len({s for s in statuses if s.startswith(b"4")}) >= 2  # the junk did get refused
        assert get(port, "/healthz")[0] == 200
    finally:
        server.close()
