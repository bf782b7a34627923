"""The probe of issue 15, point 3, on the table page and the hub page: hundreds of live streams
and half-open connections, from many loopback addresses; does the page still answer?

    .venv/bin/python -m tests.support.stream_probe [--streams N] [--half-open N]

For each page (the table's ``/events``, the hub's ``/stream``), served by the real server
with its default caps: N streams opened from N / 4 addresses (127.0.1.x, four each, within the
cap of 16 per address), M connections that send half a request head and stop (as the probe's
140), and one greedy address that asks for 40 streams (the cap lets it have 16). Then the
page, ``/healthz`` (the table) or ``/api/tables`` (the hub) and, on the table, a logged-in
control are each asked 10 times. Printed: streams held, half-open held, the greedy address's
answers, and the worst answer time of each ask (the issue's aim: under 1 s).
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.server import Limits, Server
from tests.support.access_probe import Browser

PIN = "27182"


def _open(port: int, address: str, path: str, *, whole: bool = True) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))
    head = f"GET {path} HTTP/1.1\r\nHost: x\r\n" + ("\r\n" if whole else "")
    sock.sendall(head.encode())
    return sock


def _status(sock: socket.socket) -> int:
    got = b""
    while b"\r\n" not in got:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        got += chunk
    return int(got.split()[1])


def _worst(ask: Callable[[], int], times: int = 10) -> tuple[float, Counter[int]]:
    worst, answers = 0.0, Counter[int]()
    for _ in range(times):
        started = time.perf_counter()
        answers[ask()] += 1
        worst = max(worst, time.perf_counter() - started)
    return worst, answers


def probe(app: Any, name: str, stream: str, checks: dict[str, str], streams: int, half: int) -> str:
    server = Server(app, host="127.0.0.1", port=0, limits=Limits())
    server.start()
    port = server.effective_port
    socks: list[socket.socket] = []
    lines = []
    try:
        held = Counter[int]()
        for i in range(streams):
            sock = _open(port, f"127.0.1.{1 + i // 4}", stream)
            socks.append(sock)
            held[_status(sock)] += 1
        for i in range(half):
            socks.append(_open(port, f"127.0.2.{1 + i % 250}", "/", whole=False))
        greedy = Counter[int]()
        for _ in range(40):
            sock = _open(port, "127.0.3.1", stream)
            socks.append(sock)
            greedy[_status(sock)] += 1
        time.sleep(0.5)
        alive = sum(1 for s in socks[streams : streams + half] if _still_open(s))
        lines.append(
            f"{name}: {held[200]} of {streams} streams held, {alive} of {half} half-open "
            f"connections held; one address asking 40 streams got {dict(sorted(greedy.items()))}"
        )
        visitor = Browser(port, "127.0.4.1")
        for what, path in checks.items():
            worst, answers = _worst(lambda p=path: visitor.request("GET", p)[0])  # type: ignore[misc]
            lines.append(f"  {what}: worst {worst * 1000:.0f} ms, answers {dict(answers)}")
        if name == "table page":
            player = Browser(port, "127.0.4.2")
            player.login(PIN)
            actions = iter(["pause", "resume"] * 5)
            worst, answers = _worst(lambda: player.control(next(actions)))
            lines.append(
                f"  control (pause/resume): worst {worst * 1000:.0f} ms, answers {dict(answers)}"
            )
    finally:
        for sock in socks:
            sock.close()
        server.close()
    return "\n".join(lines)


def _still_open(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--half-open", type=int, default=140)
    args = parser.parse_args(argv)
    from companion.hub.app import create_app as hub_app
    from companion.hub.hub import Hub
    from companion.web.app import create_app

    with tempfile.TemporaryDirectory(prefix="stream-probe-") as folder:
        table = TableSession(Journal(Path(folder) / "j.sqlite"), suggest=False)
        table.start_game("chinese", "9", players=("Ann", "Bob"))
        checks = {"the page /": "/", "/healthz": "/healthz"}
        print(
            probe(
                create_app(table, pin=PIN),
                "table page",
                "/events",
                checks,
                args.streams,
                args.half_open,
            )
        )
        table.close()
    hub = Hub(client_id="stream-probe")
    checks = {"the page /": "/", "/api/tables": "/api/tables"}
    print(probe(hub_app(hub), "hub page", "/stream", checks, args.streams, args.half_open))
    return 0


if __name__ == "__main__":
    sys.exit(main())
