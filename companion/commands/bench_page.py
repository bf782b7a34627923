"""``companion bench page``: many spectators on SSE over loopback; how fast do moves reach them?

Starts a real ``companion serve --demo`` in a subprocess (its own journal in a temp dir),
connects ``--spectators`` SSE clients to ``/events`` from this process, lets the demo play
``--moves`` moves, and prints the median / 99th percentile / worst delay from each move being
accepted (the event's journal timestamp, taken just before its fsynced commit, so the figure
includes the disk write) to each spectator reading it, plus the server's memory (RSS) before and
with the spectators. Both processes share this machine's cores and wall clock.
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click


def _rss_kib(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


class Spectator(threading.Thread):
    """One SSE client: keeps (receive time, data line) for every message until told to stop."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop_event = stop
        self.lines: list[tuple[float, str]] = []
        self.connected = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
                sock.sendall(
                    b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
                )
                stream = sock.makefile("rb")
                while not self.stop_event.is_set():
                    line = stream.readline()
                    if not line:
                        return
                    if line.startswith(b"data: "):
                        self.lines.append((time.time(), line[6:].decode()))
                        self.connected.set()
        except OSError as exc:
            if not self.stop_event.is_set():
                self.error = str(exc)
        finally:
            self.connected.set()


@click.command()
@click.option("--spectators", default=100, show_default=True, type=int)
@click.option("--moves", default=40, show_default=True, type=int, help="Moves to time.")
@click.option("--delay", default=0.1, show_default=True, type=float, help="Seconds per move.")
@click.option(
    "--feed",
    type=click.Choice(["sensors", "record"]),
    default="sensors",
    show_default=True,
    help="sensors: the demo's whole loop runs in the server (simulated grid + tracker); "
    "record: moves go straight to the session (the page's cost alone).",
)
def command(spectators: int, moves: int, delay: float, feed: str) -> None:
    """Delay from move accepted to every spectator's page, and the server's memory."""
    workdir = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--demo", "--demo-delay", str(delay),
         "--demo-rest", "1", "--demo-feed", feed, "--port", "0", "--host", "127.0.0.1", "--pin", "0",
         "--threads", str(spectators + 16), "--journal", str(workdir / "journal.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            found = re.search(r"http://[^:]+:(\d+)/", line)
            port = int(found.group(1)) if found else None
        if port is None:
            raise click.ClickException("the server did not start")
        threading.Thread(target=lambda: [None for _ in server.stdout or []], daemon=True).start()
        time.sleep(0.5)
        base = _rss_kib(server.pid)
        stop = threading.Event()
        clients = [Spectator(port, stop) for _ in range(spectators)]
        for c in clients:
            c.start()
        for c in clients:
            c.connected.wait(10)
        failed = [c.error for c in clients if c.error]
        if failed:
            raise click.ClickException(f"{len(failed)} spectators failed: {failed[0]}")
        start = time.time()
        time.sleep(moves * delay + 1.0)
        loaded = _rss_kib(server.pid)
        stop.set()
        end = time.time()
    finally:
        server.kill()
        server.wait(10)

    delays: list[float] = []
    per_client: list[int] = []
    for c in clients:
        got = 0
        for received, data in c.lines:
            if '"MovePlayed"' not in data[:40]:
                continue
            event = json.loads(data)["event"]
            if start <= event["at"] <= end - 1.0:
                delays.append(received - event["at"])
                got += 1
        per_client.append(got)
    if not delays:
        raise click.ClickException("no move reached any spectator")
    delays.sort()
    p99 = delays[min(len(delays) - 1, round(0.99 * (len(delays) - 1)))]
    click.echo(
        f"companion bench page: {spectators} SSE spectators over loopback, "
        f"{max(per_client)} moves each ({delay:g} s apart, demo feed: {feed}), "
        f"{len(delays)} deliveries"
    )
    click.echo(
        f"  move accepted -> spectator received: median {statistics.median(delays) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, worst {delays[-1] * 1000:.1f} ms (target: p99 < 100 ms)"
    )
    click.echo(
        f"  spectators that missed moves: {sum(1 for n in per_client if n < max(per_client))}"
    )
    click.echo(
        f"  server memory: RSS {base['VmRSS'] / 1024:.1f} MiB idle, "
        f"{loaded['VmRSS'] / 1024:.1f} MiB with the spectators (peak {loaded['VmHWM'] / 1024:.1f} MiB)"
    )
